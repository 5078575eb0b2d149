// User classes: the class object, C3 MRO, attribute lookup with Python's
// descriptors (functions bind, property, staticmethod, classmethod), the
// `class` statement, and super().

#include "interp/python/classes.hpp"

#include <algorithm>
#include <cstdio>

#include "interp/python/evaluator.hpp"

namespace interp {

namespace ast = lang::ast;

// ------------------------------------------------------------ attribute lists

Value* find_attribute_in(AttributeList& list, const std::string& name) {
  for (auto& [key, value] : list)
    if (same_name(key, name)) return &value;
  return nullptr;
}

const Value* find_attribute_in(const AttributeList& list, const std::string& name) {
  return find_attribute_in(const_cast<AttributeList&>(list), name);
}

std::size_t set_attribute_in(AttributeList& list, const std::string& name, Value value) {
  for (std::size_t i = 0; i < list.size(); ++i)
    if (same_name(list[i].first, name)) {
      list[i].second = std::move(value);
      return i;
    }
  if (list.empty()) list.reserve(4);  // an instance's first attribute: room for the next few
  list.emplace_back(name, std::move(value));
  return list.size() - 1;
}

namespace {

const ClassObject* user_class(const TypeObject* type) { return type->as_class(); }

// ------------------------------------------------------------ descriptors

const TypeRef& property_type();
const TypeRef& staticmethod_type();
const TypeRef& classmethod_type();

class PropertyObject : public Object {
 public:
  PropertyObject(Value getter, Value setter, Value deleter)
      : getter(std::move(getter)), setter(std::move(setter)), deleter(std::move(deleter)) {}
  const TypeRef& type() const override { return property_type(); }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "fget") return getter;
    if (name == "fset") return setter;
    if (name == "fdel") return deleter;
    if (name == "__doc__") return Value::none();
    if (name == "getter" || name == "setter" || name == "deleter") {
      auto self_ref = std::static_pointer_cast<PropertyObject>(self());
      return Value(native(name + "(function, /)", [self_ref, name](Evaluator&, Arguments& a) {
        Value g = self_ref->getter, s = self_ref->setter, d = self_ref->deleter;
        (name == "getter" ? g : name == "setter" ? s : d) = a[0];
        return Value(std::make_shared<PropertyObject>(g, s, d));
      }));
    }
    return Object::get_attribute(evaluator, name);
  }
  Value getter, setter, deleter;
};

// staticmethod(f) and classmethod(f): a function wrapped for how the class binds it.
class WrappedFunction : public Object {
 public:
  WrappedFunction(Value function, bool is_classmethod) : function(std::move(function)), is_classmethod(is_classmethod) {}
  const TypeRef& type() const override { return is_classmethod ? classmethod_type() : staticmethod_type(); }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "__func__") return function;
    if (name == "__name__" || name == "__qualname__" || name == "__doc__") return evaluator.get_attribute(function, name);
    return Object::get_attribute(evaluator, name);
  }
  bool callable() const override { return !is_classmethod; }
  Value call(Evaluator& evaluator, CallArgs& args) override { return evaluator.call(function, args); }
  Value function;
  bool is_classmethod;
};

TypeRef descriptor_type(const char* name, std::function<Value(Evaluator&, CallArgs&)> constructor) {
  auto type = make_type(name, types::object());
  type->set_constructor(std::move(constructor));
  return type;
}

const TypeRef& property_type() {
  static const TypeRef type = descriptor_type("property", [](Evaluator& evaluator, CallArgs& args) {
    static const Signature signature = Signature::parse("property(fget=None, fset=None, fdel=None, doc=None)");
    Arguments a = bind_arguments(evaluator, signature, args);
    return Value(std::make_shared<PropertyObject>(a[0], a[1], a[2]));
  });
  return type;
}

const TypeRef& staticmethod_type() {
  static const TypeRef type = descriptor_type("staticmethod", [](Evaluator& evaluator, CallArgs& args) {
    static const Signature signature = Signature::parse("staticmethod(function, /)");
    Arguments a = bind_arguments(evaluator, signature, args);
    return Value(std::make_shared<WrappedFunction>(a[0], false));
  });
  return type;
}

const TypeRef& classmethod_type() {
  static const TypeRef type = descriptor_type("classmethod", [](Evaluator& evaluator, CallArgs& args) {
    static const Signature signature = Signature::parse("classmethod(function, /)");
    Arguments a = bind_arguments(evaluator, signature, args);
    return Value(std::make_shared<WrappedFunction>(a[0], true));
  });
  return type;
}

// A class member as seen through an instance (`self` not None) or through
// the class: functions bind to the instance, classmethods to the class,
// properties run their getter on an instance.
Value bind_member(Evaluator& evaluator, const Value& member, const Value& self, const TypeRef& cls) {
  if (!member.is_object()) return member;
  Object* object = member.object().get();
  if (object->as_function())  // the common case first: a method
    return self.is_none() ? member : Value(std::make_shared<BoundMethod>(self, member.object()));
  if (auto* wrapped = dynamic_cast<WrappedFunction*>(object)) {
    if (!wrapped->is_classmethod) return wrapped->function;
    return Value(std::make_shared<BoundMethod>(Value(cls), wrapped->function.object()));
  }
  if (auto bound = object->descriptor_get(evaluator, self, Value(cls))) return *bound;
  if (self.is_none()) return member;
  if (dynamic_cast<FunctionObject*>(object) || dynamic_cast<NativeFunction*>(object))
    return Value(std::make_shared<BoundMethod>(self, member.object()));
  if (auto* property = dynamic_cast<PropertyObject*>(object)) {
    if (property->getter.is_none()) raise(exc::AttributeError(), "unreadable attribute");
    return evaluator.call(property->getter, {self});
  }
  return member;
}

// `name` along the MRO of `cls`: user namespaces and the built-in types' methods.
std::optional<Value> lookup_in_mro(const TypeObject& cls, const std::string& name) {
  auto look = [&](const TypeObject& type) -> std::optional<Value> {
    if (const ClassObject* user = user_class(&type)) {
      if (const Value* found = find_attribute_in(user->namespace_entries(), name)) return *found;
    } else if (const ObjectRef* method = type.find_method(name)) {
      return Value(*method);
    }
    return std::nullopt;
  };
  if (auto found = look(cls)) return found;
  for (const TypeObject* type : cls.ancestors())
    if (auto found = look(*type)) return found;
  return std::nullopt;
}

std::string default_repr(const Value& self) {
  char address[32];
  std::snprintf(address, sizeof address, "%p", static_cast<const void*>(self.object().get()));
  const TypeRef& cls = type_of(self);
  const auto* user = user_class(cls.get());
  return "<" + (user ? user->dotted_name() : cls->name()) + " object at " + address + ">";
}

}  // namespace

const Value* class_function(const TypeObject& cls, const std::string& name) {
  auto look = [&](const TypeObject& type, bool& found) -> const Value* {
    if (const ClassObject* user = user_class(&type)) {
      if (const Value* member = find_attribute_in(user->namespace_entries(), name)) {
        found = true;
        return member->is_object() && member->object()->as_function() != nullptr ? member : nullptr;
      }
    } else if (type.find_method(name)) {
      found = true;
    }
    return nullptr;
  };
  bool found = false;
  const Value* function = look(cls, found);
  for (auto at = cls.ancestors().begin(); !found && at != cls.ancestors().end(); ++at) function = look(**at, found);
  return function;
}

// ------------------------------------------------------------ MRO

std::vector<TypeObject*> class_mro(const std::vector<TypeRef>& bases) {
  std::vector<std::vector<TypeObject*>> sequences;
  for (const TypeRef& base : bases) {
    std::vector<TypeObject*> sequence{base.get()};
    sequence.insert(sequence.end(), base->ancestors().begin(), base->ancestors().end());
    sequences.push_back(std::move(sequence));
  }
  std::vector<TypeObject*> direct;
  for (const TypeRef& base : bases) direct.push_back(base.get());
  sequences.push_back(direct);
  std::vector<TypeObject*> result;
  while (true) {
    std::erase_if(sequences, [](const auto& s) { return s.empty(); });
    if (sequences.empty()) return result;
    TypeObject* chosen = nullptr;
    for (const auto& sequence : sequences) {
      TypeObject* head = sequence.front();
      bool in_tail = std::any_of(sequences.begin(), sequences.end(), [&](const auto& other) {
        return std::find(other.begin() + 1, other.end(), head) != other.end();
      });
      if (!in_tail) {
        chosen = head;
        break;
      }
    }
    if (chosen == nullptr) {
      std::string names;
      for (const TypeRef& base : bases) names += (names.empty() ? "" : ", ") + base->name();
      raise(exc::TypeError(), "Cannot create a consistent method resolution\norder (MRO) for bases " + names);
    }
    result.push_back(chosen);
    for (auto& sequence : sequences)
      if (sequence.front() == chosen) sequence.erase(sequence.begin());
  }
}

const Value* find_class_member(const TypeObject& cls, const std::string& name) {
  if (const ClassObject* user = user_class(&cls))
    if (const Value* found = find_attribute_in(user->namespace_entries(), name)) return found;
  for (const TypeObject* type : cls.ancestors())
    if (const ClassObject* user = user_class(type))
      if (const Value* found = find_attribute_in(user->namespace_entries(), name)) return found;
  return nullptr;
}

std::optional<Value> call_special(Evaluator& evaluator, const Value& self, const std::string& name,
                                  std::vector<Value> arguments) {
  const TypeRef& cls = type_of(self);
  const Value* member = find_class_member(*cls, name);
  if (member == nullptr) return std::nullopt;
  Value bound = bind_member(evaluator, *member, self, cls);
  return evaluator.call(bound, std::move(arguments));
}

const Value& not_implemented() {
  class NotImplementedObject : public Object {
   public:
    const TypeRef& type() const override {
      static const TypeRef type = make_type("NotImplementedType", types::object());
      return type;
    }
    std::string repr(Evaluator&) const override { return "NotImplemented"; }
  };
  static const Value value(std::make_shared<NotImplementedObject>());
  return value;
}

// ------------------------------------------------------------ instances' attributes

std::optional<Value> instance_attribute(Evaluator& evaluator, const Value& self, AttributeList& attributes,
                                        const std::string& name) {
  const TypeRef& cls = type_of(self);
  std::optional<Value> member = lookup_in_mro(*cls, name);
  if (member && member->is_object() && member->object()->type() == property_type())
    return bind_member(evaluator, *member, self, cls);
  if (Value* own = find_attribute_in(attributes, name)) return *own;
  if (member) return bind_member(evaluator, *member, self, cls);
  if (name == "__class__") return Value(cls);
  if (name == "__dict__") {
    auto dict = make_dict();
    for (const auto& [key, value] : attributes) dict->table.insert(make_str(key), value);
    return Value(dict);
  }
  const ClassObject* user = user_class(cls.get());
  if (name != "__getattr__")
    if (const Value* getattr = user ? user->members().getattr : find_class_member(*cls, "__getattr__"))
      return evaluator.call(bind_member(evaluator, *getattr, self, cls), {make_str(name)});
  return std::nullopt;
}

const Value* own_instance_attribute(const TypeObject& cls, AttributeList& attributes, const std::string& name) {
  Value* own = find_attribute_in(attributes, name);
  if (own == nullptr) return nullptr;
  // Only user classes can hold a property; the first member found is the one that counts.
  if (const ClassObject* user = user_class(&cls); user && !user->members().has_property) return own;
  const Value* member = find_class_member(cls, name);
  if (member && member->is_object() && member->object()->type() == property_type()) return nullptr;
  return own;
}

bool set_own_instance_attribute(const TypeObject& cls, AttributeList& attributes, const std::string& name,
                                const Value& value) {
  if (const ClassObject* user = user_class(&cls)) {
    const ClassMembers& members = user->members();
    if (members.setattr) return false;
    if (members.has_property)
      if (const Value* member = find_class_member(cls, name); member && member->as<PropertyObject>()) return false;
    set_attribute_in(attributes, name, value);
    return true;
  }
  static const std::string setattr = "__setattr__";
  if (find_class_member(cls, setattr)) return false;
  if (const Value* member = find_class_member(cls, name); member && member->as<PropertyObject>()) return false;
  set_attribute_in(attributes, name, value);
  return true;
}

void set_instance_attribute(Evaluator& evaluator, const Value& self, AttributeList& attributes,
                            const std::string& name, const Value& value) {
  const TypeRef& cls = type_of(self);
  const ClassObject* user = user_class(cls.get());
  if (const Value* setattr = user ? user->members().setattr : find_class_member(*cls, "__setattr__")) {
    evaluator.call(bind_member(evaluator, *setattr, self, cls), {make_str(name), value});
    return;
  }
  if (const Value* member = find_class_member(*cls, name)) {
    if (auto* property = member->as<PropertyObject>()) {
      if (property->setter.is_none())
        raise(exc::AttributeError(), "property '" + name + "' of '" + cls->name() + "' object has no setter");
      evaluator.call(property->setter, {self, value});
      return;
    }
  }
  set_attribute_in(attributes, name, value);
}

void learn_instance_name(const ClassObject& cls, const std::string& name, AttributeSiteCache& entry) {
  const ClassMembers& members = cls.members();
  const Value* member = find_class_member(cls, name);
  // As own_instance_attribute and set_own_instance_attribute judge.
  const bool property = member != nullptr && member->is_object() && member->object()->type() == property_type();
  entry.cls = &cls;
  entry.version = members.version;  // 0 while an edit is open or for a process-wide class
  entry.own_wins = !property;
  entry.plain_store = !members.setattr && !(members.has_property && member && member->as<PropertyObject>());
  entry.method = class_function(cls, name);
}

// ------------------------------------------------------------ classes

ClassObject::ClassObject(std::string name, std::string qualname, std::vector<TypeRef> bases,
                         std::vector<TypeObject*> ancestors, AttributeList namespace_entries)
    : TypeObject(std::move(name), bases.front(), std::move(ancestors)),
      qualname_(std::move(qualname)),
      bases_(std::move(bases)),
      namespace_(std::move(namespace_entries)) {
  // What attribute sites remember of a freed class at this address no longer holds.
  class_namespaces_counter.fetch_add(1, std::memory_order_relaxed);
  makes_exceptions_ = is_subclass_of(*exc::BaseException());
  for (const TypeObject* type : this->ancestors())
    if (const ClassObject* user = user_class(type); user && user->behaviour) {
      behaviour = user->behaviour;
      break;
    }
  // A class that defines __eq__ without __hash__ is unhashable (Python sets __hash__ = None).
  if (find_attribute_in(namespace_, "__eq__") && !find_attribute_in(namespace_, "__hash__"))
    namespace_.emplace_back("__hash__", Value::none());
}

std::string ClassObject::module_name() const {
  for (const auto& [key, value] : namespace_)
    if (key == "__module__") {
      if (const std::string* text = string_of(value)) return *text;
    }
  return "__main__";
}

std::string ClassObject::repr(Evaluator&) const {
  if (behaviour)
    if (auto shown = behaviour->class_repr(*this)) return *shown;
  return "<class '" + dotted_name() + "'>";
}

std::optional<Value> ClassObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "__name__") return make_str(this->name());
  if (name == "__qualname__") return make_str(qualname_);
  if (name == "__bases__") {
    std::vector<Value> items(bases_.begin(), bases_.end());
    return make_tuple(std::move(items));
  }
  if (name == "__mro__") {
    std::vector<Value> items{Value(self())};
    for (TypeObject* type : ancestors()) items.push_back(Value(type->self()));
    return make_tuple(std::move(items));
  }
  if (name == "__dict__") {
    auto dict = make_dict();
    for (const auto& [key, value] : namespace_) dict->table.insert(make_str(key), value);
    return Value(dict);
  }
  TypeRef cls = std::static_pointer_cast<TypeObject>(self());
  if (auto member = lookup_in_mro(*this, name)) return bind_member(evaluator, *member, Value::none(), cls);
  if (name == "__doc__") return Value::none();
  return std::nullopt;
}

bool ClassObject::set_attribute(Evaluator&, const std::string& name, const Value& value) {
  NamespaceEdit edit(*this);
  set_attribute_in(edit.entries, name, value);
  return true;
}

namespace {
std::atomic<int> open_namespace_edits{0};
}  // namespace

NamespaceEdit::NamespaceEdit(ClassObject& cls) : entries(cls.namespace_) {
  open_namespace_edits.fetch_add(1, std::memory_order_relaxed);
  class_namespaces_counter.fetch_add(1, std::memory_order_relaxed);
}

NamespaceEdit::~NamespaceEdit() {
  class_namespaces_counter.fetch_add(1, std::memory_order_relaxed);
  open_namespace_edits.fetch_sub(1, std::memory_order_relaxed);
}

const ClassMembers& ClassObject::find_members() const {
  static const std::string init = "__init__", new_ = "__new__", setattr = "__setattr__", getattr = "__getattr__";
  const std::uint64_t version = class_namespaces_version();
  ClassMembers found;
  found.init = find_class_member(*this, init);
  found.new_ = find_class_member(*this, new_);
  found.setattr = find_class_member(*this, setattr);
  found.getattr = find_class_member(*this, getattr);
  auto holds_property = [](const TypeObject* type) {
    const ClassObject* user = user_class(type);
    return user && std::any_of(user->namespace_.begin(), user->namespace_.end(),
                               [](const auto& entry) { return entry.second.template as<PropertyObject>() != nullptr; });
  };
  found.has_property = holds_property(this) || std::any_of(ancestors().begin(), ancestors().end(), holds_property);
  found.builtin = builtin_base(*this);
  if (process_wide) {
    // Shared by interpreters on other threads: each finds its own.
    thread_local ClassMembers own;
    own = found;
    return own;
  }
  // Nothing is kept while an edit is open: version 0 is never current.
  found.version = open_namespace_edits.load(std::memory_order_relaxed) > 0 ? 0 : version;
  members_ = found;
  return members_;
}

std::vector<std::string> ClassObject::attribute_names() const {
  std::vector<std::string> names;
  for (const auto& [name, value] : namespace_) names.push_back(name);
  for (const TypeObject* type : ancestors())
    for (const auto& name : type->attribute_names()) names.push_back(name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

IteratorRef ClassObject::iterate(Evaluator& evaluator) {
  return behaviour ? behaviour->class_iterate(evaluator, *this) : nullptr;
}

std::optional<Value> ClassObject::get_item(Evaluator& evaluator, const Value& key) {
  return behaviour ? behaviour->class_get_item(evaluator, *this, key) : TypeObject::get_item(evaluator, key);
}

std::optional<std::int64_t> ClassObject::length(Evaluator& evaluator) const {
  return behaviour ? behaviour->class_length(evaluator, *this) : std::nullopt;
}

std::optional<bool> ClassObject::contains(Evaluator& evaluator, const Value& item) {
  return behaviour ? behaviour->class_contains(evaluator, *this, item) : std::nullopt;
}

namespace {
// A built-in type's method, its own or its bases' but object's (Counter's
// __init__ is its own, OrderedDict's dict's, a tuple's none: __new__ took the arguments).
const ObjectRef* builtin_method(const TypeObject& type, const std::string& name) {
  if (const ObjectRef* method = type.find_method(name)) return method;
  for (const TypeObject* base : type.ancestors())
    if (base != types::object().get())
      if (const ObjectRef* method = base->find_method(name)) return method;
  return nullptr;
}
}  // namespace

Value new_instance(Evaluator& evaluator, ClassObject& cls, CallArgs& args) {
  // A plain instance is remembered when it first holds an object (InstanceObject::note_store).
  if (!cls.makes_exceptions() && !cls.members().builtin)
    return Value(std::make_shared<InstanceObject>(std::static_pointer_cast<TypeObject>(cls.self()), evaluator));
  Value instance = cls.makes_exceptions() ? Value(std::make_shared<ExceptionObject>(std::static_pointer_cast<TypeObject>(cls.self()), args.positional))
                                          : *make_builtin_subclass_instance(evaluator, cls, args);
  evaluator.remember_attribute_owner(instance.object());
  return instance;
}

Value ClassObject::call(Evaluator& evaluator, CallArgs& args) {
  if (behaviour)
    if (auto made = behaviour->construct(evaluator, *this, args)) return *made;
  TypeRef cls = std::static_pointer_cast<TypeObject>(self());
  Value instance;
  const TypeObject* builtin = makes_exceptions_ ? nullptr : members().builtin;
  const bool own_new = members().new_ != nullptr;
  if (own_new) {
    // The class's __new__ (a static method) makes the instance; __init__ runs only on an instance of the class.
    CallArgs new_args = args;
    new_args.positional.insert(new_args.positional.begin(), Value(cls));
    Value new_function = *members().new_;
    instance = evaluator.call(new_function, new_args);
    if (!type_of(instance)->is_subclass_of(*this)) return instance;
  } else if (makes_exceptions_) {
    if (!args.keywords.empty() && !members().init) raise(exc::TypeError(), name() + "() takes no keyword arguments");
    instance = Value(std::make_shared<ExceptionObject>(cls, args.positional));
  } else {
    instance = new_instance(evaluator, *this, args);
  }
  // Found again: __new__ may have changed the class.
  if (const Value* init = members().init) {
    Value result;
    if (FunctionObject* function = init->is_object() ? init->object()->as_function() : nullptr) {
      // As the bound method would call it, without making one.
      Value keep_alive = *init;
      args.positional.insert(args.positional.begin(), instance);
      result = evaluator.call_function(*function, args);
    } else {
      result = evaluator.call(bind_member(evaluator, *init, instance, cls), args);
    }
    if (!result.is_none())
      raise(exc::TypeError(), "__init__() should return None, not '" + type_name(result) + "'");
  } else if (const ObjectRef* builtin_init = builtin ? builtin_method(*builtin, "__init__") : nullptr) {
    evaluator.call(Value(std::make_shared<BoundMethod>(instance, *builtin_init)), args);  // dict's, list's, set's
  } else if (!own_new && !makes_exceptions_ && !builtin && (!args.positional.empty() || !args.keywords.empty())) {
    raise(exc::TypeError(), qualname_ + "() takes no arguments");
  }
  return instance;
}

// ------------------------------------------------------------ super()

namespace {

const TypeRef& super_type() {
  static const TypeRef type = make_type("super", types::object());
  return type;
}

// super(cls, obj): attribute lookup along type(obj)'s MRO after cls.
class SuperObject : public Object {
 public:
  SuperObject(TypeRef start, Value instance) : start_(std::move(start)), instance_(std::move(instance)) {}
  const TypeRef& type() const override { return super_type(); }
  std::string repr(Evaluator&) const override { return "<super: <class '" + start_->name() + "'>, <object>>"; }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    // super() in a classmethod gets the class itself as its object.
    auto* instance_class = instance_.as<TypeObject>();
    TypeRef owner = instance_class ? std::static_pointer_cast<TypeObject>(instance_.object()) : type_of(instance_);
    std::vector<TypeObject*> mro{owner.get()};
    mro.insert(mro.end(), owner->ancestors().begin(), owner->ancestors().end());
    auto at = std::find(mro.begin(), mro.end(), start_.get());
    if (at != mro.end()) ++at;
    Value self = instance_class ? Value::none() : instance_;
    for (; at != mro.end(); ++at) {
      std::optional<Value> member;
      if (const ClassObject* user = user_class(*at)) {
        if (const Value* found = find_attribute_in(user->namespace_entries(), name)) member = *found;
      } else if (const ObjectRef* method = (*at)->find_method(name)) {
        member = Value(*method);
      }
      if (!member) continue;
      if (instance_class) {
        if (member->as<WrappedFunction>()) return bind_member(evaluator, *member, Value::none(), owner);
        return *member;
      }
      return bind_member(evaluator, *member, self, owner);
    }
    if (name == "__class__") return Value(super_type());
    raise(exc::AttributeError(), "'super' object has no attribute '" + name + "'");
  }

 private:
  TypeRef start_;
  Value instance_;
};

// The zero-argument form: the class whose body defined the running function,
// and the function's first argument.
Value zero_argument_super(Evaluator& evaluator) {
  Frame* frame = evaluator.current_frame();
  if (frame == nullptr || frame->function == nullptr) raise(exc::RuntimeError(), "super(): no arguments");
  ObjectRef owner = frame->function->owner_class.lock();
  if (!owner) raise(exc::RuntimeError(), "super(): __class__ cell not found");
  const ScopeInfo& scope = *frame->scope;
  if (scope.parameters.empty()) raise(exc::RuntimeError(), "super(): no arguments");
  const NameRef& first = scope.parameters.front();
  std::optional<Value> instance;
  if (first.kind == NameRef::Kind::fast) instance = frame->fast[first.index];
  else if (first.kind == NameRef::Kind::cell) instance = frame->cells[first.index]->value;
  if (!instance) raise(exc::RuntimeError(), "super(): arg[0] deleted");
  return Value(std::make_shared<SuperObject>(std::static_pointer_cast<TypeObject>(owner), *instance));
}

// object's and BaseException's methods, reached through super() and the class.
void install_root_methods() {
  TypeObject& object = *types::object();
  object.add_method("__init__(self, /, *args, **kwargs)", [](Evaluator&, Arguments& a) {
    if (!a[1].as<TupleObject>()->items.empty() || a[2].as<DictObject>()->table.size() != 0)
      raise(exc::TypeError(), "object.__init__() takes exactly one argument (the instance to initialize)");
    return Value::none();
  });
  object.add_method("__new__(cls, /, *args, **kwargs)", [](Evaluator& ev, Arguments& a) {
    auto* type = a[0].as<TypeObject>();
    if (!type) raise(exc::TypeError(), "object.__new__(X): X is not a type object (" + type_name(a[0]) + ")");
    auto* cls = const_cast<ClassObject*>(type->as_class());
    if (const TypeObject* builtin = cls ? builtin_base(*cls) : type == types::object().get() ? nullptr : type)
      raise(exc::TypeError(), "object.__new__(" + type->name() + ") is not safe, use " + builtin->name() + ".__new__()");
    if (!a[1].as<TupleObject>()->items.empty() || a[2].as<DictObject>()->table.size() != 0)
      raise(exc::TypeError(), "object.__new__() takes exactly one argument (the type to instantiate)");
    CallArgs none;
    return cls ? new_instance(ev, *cls, none) : types::object()->call(ev, none);
  });
  object.add_method("__repr__(self, /)", [](Evaluator&, Arguments& a) { return make_str(default_repr(a[0])); });
  object.add_method("__str__(self, /)", [](Evaluator& ev, Arguments& a) { return make_str(ev.repr(a[0])); });
  object.add_method("__eq__(self, value, /)", [](Evaluator&, Arguments& a) {
    return a[0].is_same(a[1]) ? Value::boolean(true) : not_implemented();
  });
  object.add_method("__ne__(self, value, /)", [](Evaluator& ev, Arguments& a) {
    return Value::boolean(!ev.compare_bool(ast::CompareOperator::eq, a[0], a[1]));
  });
  object.add_method("__hash__(self, /)", [](Evaluator&, Arguments& a) {
    return Value::integer(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(a[0].object().get()) >> 4));
  });
  object.add_method("__setattr__(self, name, value, /)", [](Evaluator& ev, Arguments& a) {
    const std::string* name = string_of(a[1]);
    if (!name) raise(exc::TypeError(), "attribute name must be string, not '" + type_name(a[1]) + "'");
    if (auto* attributes = a[0].is_object() ? a[0].object()->instance_dict() : nullptr)
      set_attribute_in(*attributes, *name, a[2]);
    else if (!a[0].is_object() || !a[0].object()->set_attribute(ev, *name, a[2]))
      raise(exc::AttributeError(), "'" + type_name(a[0]) + "' object has no attribute '" + *name + "'");
    return Value::none();
  });
  TypeObject& base_exception = *exc::BaseException();
  base_exception.add_method("__init__(self, /, *args)", [](Evaluator&, Arguments& a) {
    if (auto* exception = a[0].as<ExceptionObject>()) exception->args = a[1].as<TupleObject>()->items;
    return Value::none();
  });
  base_exception.add_method("__str__(self, /)", [](Evaluator& ev, Arguments& a) {
    auto* exception = a[0].as<ExceptionObject>();
    return make_str(exception ? exception->builtin_str(ev) : ev.str(a[0]));
  });
  base_exception.add_method("__repr__(self, /)", [](Evaluator& ev, Arguments& a) {
    auto* exception = a[0].as<ExceptionObject>();
    return make_str(exception ? exception->builtin_repr(ev) : ev.repr(a[0]));
  });
}

void define(Evaluator& evaluator, std::string_view signature, NativeFunctionBody body) {
  ObjectRef function = native(signature, std::move(body));
  evaluator.builtins[static_cast<NativeFunction&>(*function).name()] = Value(function);
}

bool is_subclass(const Value& cls, const Value& class_or_tuple) {
  if (auto* t = class_or_tuple.as<TypeObject>()) return cls.as<TypeObject>()->is_subclass_of(*t);
  if (auto* tuple = class_or_tuple.as<TupleObject>())
    return std::any_of(tuple->items.begin(), tuple->items.end(), [&](const Value& c) { return is_subclass(cls, c); });
  raise(exc::TypeError(), "issubclass() arg 2 must be a class, a tuple of classes, or a union");
}

}  // namespace

void install_class_builtins(Evaluator& evaluator) {
  static const bool installed = (install_root_methods(), true);
  (void)installed;
  auto& b = evaluator.builtins;
  b["property"] = Value(property_type());
  b["staticmethod"] = Value(staticmethod_type());
  b["classmethod"] = Value(classmethod_type());
  b["NotImplemented"] = not_implemented();
  define(evaluator, "super(type=?, object_or_type=?, /)", [](Evaluator& ev, Arguments& a) -> Value {
    if (!a.has(0)) return zero_argument_super(ev);
    auto* start = a[0].as<TypeObject>();
    if (!start) raise(exc::TypeError(), "super() argument 1 must be a type, not " + type_name(a[0]));
    if (!a.has(1)) raise(exc::RuntimeError(), "super() with one argument is not supported in shardlang");
    auto* as_type = a[1].as<TypeObject>();
    if (!(as_type ? as_type->is_subclass_of(*start) : type_of(a[1])->is_subclass_of(*start)))
      raise(exc::TypeError(), "super(type, obj): obj must be an instance or subtype of type");
    return Value(std::make_shared<SuperObject>(std::static_pointer_cast<TypeObject>(a[0].object()), a[1]));
  });
  define(evaluator, "issubclass(cls, class_or_tuple, /)", [](Evaluator&, Arguments& a) {
    if (!a[0].as<TypeObject>()) raise(exc::TypeError(), "issubclass() arg 1 must be a class");
    return Value::boolean(is_subclass(a[0], a[1]));
  });
  define(evaluator, "vars(object, /)", [](Evaluator& ev, Arguments& a) { return ev.get_attribute(a[0], "__dict__"); });
}

// ------------------------------------------------------------ the class statement

namespace {

// At most one built-in type to derive from (CPython's "lay-out conflict"),
// and not under a metaclass's behaviour unless it takes one (Enum's mixins).
void check_builtin_bases(const std::vector<TypeRef>& bases, const std::vector<TypeObject*>& ancestors,
                         bool replaced_base) {
  const TypeObject* builtin = nullptr;
  for (const TypeObject* type : ancestors) {
    if (user_class(type) || (!is_subclassable_builtin(*type) && !type->is_subclass_of(*exc::BaseException()))) continue;
    if (builtin && !builtin->is_subclass_of(*type) && !type->is_subclass_of(*builtin))
      raise(exc::TypeError(), "multiple bases have instance lay-out conflict");
    if (!builtin) builtin = type;
  }
  if (replaced_base || !builtin || builtin->is_subclass_of(*exc::BaseException())) return;
  for (const TypeObject* type : ancestors)
    if (const ClassObject* user = user_class(type); user && user->behaviour && !user->behaviour->takes_builtin_mixin())
      for (const TypeRef& base : bases)
        if (is_subclassable_builtin(*base))
          raise(exc::NotImplementedError(), "a class deriving from both " + user->name() + " and the built-in type '" +
                                                base->name() + "' is not supported in shardlang");
}

// The built-in types CPython refuses as a base (their type lacks Py_TPFLAGS_BASETYPE).
bool acceptable_base(const TypeRef& type) {
  for (const TypeRef* final_type : {&types::boolean(), &types::none(), &types::range(), &types::slice(),
                                    &types::ellipsis(), &types::function(), &types::builtin_function(), &types::method(),
                                    &types::generator()})
    if (type == *final_type) return false;
  return true;
}

}  // namespace

Value Evaluator::apply_decorators(const ast::ExprList& expressions, const std::vector<Value>& decorators, Value target) {
  for (std::size_t i = decorators.size(); i-- > 0;) {
    try {
      target = call(decorators[i], {target});
    } catch (PyError& error) {
      // An error raised by a decorator points at its line, as CPython's traceback does.
      if (!error.exception->frame_span_set) {
        error.exception->frame_span = expressions[i]->span;
        error.exception->frame_span_set = true;
      }
      throw;
    }
  }
  return target;
}

void Evaluator::record_class_annotation(const std::string& name, const ast::Expr& annotation, Frame& frame) {
  Value value;
  try {
    value = eval(annotation, frame);
  } catch (PyError&) {
    // An annotation that is no value (an array type such as f32[8@X]) is kept as its text.
    const lang::Span& span = annotation.span;
    value = span.file ? make_str(span.file->text().substr(span.begin, span.end - span.begin)) : Value::none();
  }
  AttributeList& entries = *frame.class_namespace;
  Value* annotations = find_attribute_in(entries, "__annotations__");
  if (annotations == nullptr) {
    entries.emplace_back("__annotations__", Value(make_dict()));
    annotations = &entries.back().second;
  }
  annotations->as<DictObject>()->table.insert(make_str(name), std::move(value));
}

Evaluator::Flow Evaluator::exec_class_def(const ast::ClassDef& node, const ast::Stmt& stmt, Frame& frame) {
  std::vector<Value> decorators;
  for (const auto& d : node.decorators) decorators.push_back(eval(*d, frame));
  std::vector<Value> base_values;
  eval_elements(node.bases, frame, base_values);
  std::vector<std::pair<std::string, Value>> keywords;  // for the class's behaviour (Flag's boundary=)
  for (const auto& keyword : node.keywords) {
    if (!keyword.name || keyword.name->name == "metaclass")
      raise(exc::NotImplementedError(), "class keyword arguments (" + (keyword.name ? keyword.name->name : "**") +
                                            "=) are not supported in shardlang");
    keywords.emplace_back(keyword.name->name, eval(*keyword.value, frame));
  }
  std::vector<TypeRef> bases;
  std::shared_ptr<ClassBehaviour> behaviour;  // of a base that replaces itself (typing.NamedTuple)
  for (std::size_t i = 0; i < base_values.size(); ++i) {
    const ClassObject* user = base_values[i].as<ClassObject>();
    if (user == nullptr || !user->behaviour) continue;
    if (auto entries = user->behaviour->mro_entries(*user)) {
      behaviour = user->behaviour;
      base_values.erase(base_values.begin() + static_cast<std::ptrdiff_t>(i));
      for (std::size_t k = 0; k < entries->size(); ++k)
        base_values.insert(base_values.begin() + static_cast<std::ptrdiff_t>(i + k), Value((*entries)[k]));
      i += entries->size() - 1;
    }
  }
  for (const Value& base : base_values) {
    auto* type = base.as<TypeObject>();
    if (!type) raise(exc::TypeError(), "bases must be types");
    TypeRef ref = std::static_pointer_cast<TypeObject>(base.object());
    if (std::find(bases.begin(), bases.end(), ref) != bases.end())
      raise(exc::TypeError(), "duplicate base class " + type->name());
    bool exception = type->is_subclass_of(*exc::BaseException());
    if (!acceptable_base(ref)) raise(exc::TypeError(), "type '" + type->name() + "' is not an acceptable base type");
    if (!user_class(type) && !exception && ref != types::object() && !behaviour && !is_subclassable_builtin(*type))
      raise(exc::NotImplementedError(), "subclassing the built-in type '" + type->name() +
                                            "' is not supported in shardlang (only object, the exceptions, dict, "
                                            "list, set, frozenset, tuple, str, int and float)");
    bases.push_back(std::move(ref));
  }
  if (bases.empty()) bases.push_back(types::object());
  std::vector<TypeObject*> ancestors = class_mro(bases);
  check_builtin_bases(bases, ancestors, behaviour != nullptr);

  const ScopeInfo& scope = frame.resolution->scope(&stmt);
  const Value* module_name = lookup_global("__name__", frame);
  AttributeList namespace_entries{{"__module__", module_name ? *module_name : Value::none()},
                                  {"__qualname__", make_str(scope.qualname)}};
  // A string as the body's first statement is the class's docstring.
  if (!node.body.empty())
    if (auto* expression = std::get_if<ast::ExprStmt>(&node.body.front()->node))
      if (auto* constant = std::get_if<ast::Constant>(&expression->value->node))
        if (auto* text = std::get_if<std::string>(&constant->value)) namespace_entries.emplace_back("__doc__", make_str(*text));
  Frame body;
  body.scope = &scope;
  body.function = frame.function;
  body.globals = frame.globals;
  body.program = frame.program;
  body.resolution = frame.resolution;
  body.class_namespace = &namespace_entries;
  // As the class will have it: its first ancestor's with one, else the replacing base's.
  for (const TypeObject* type : ancestors)
    if (const ClassObject* user = user_class(type); !body.class_behaviour && user && user->behaviour)
      body.class_behaviour = user->behaviour.get();
  if (!body.class_behaviour) body.class_behaviour = behaviour.get();
  if (body.class_behaviour) body.class_behaviour->class_prepare(*this, bases, namespace_entries);
  for (std::uint32_t source : scope.free_sources) body.cells.push_back(frame.cells.at(source));
  exec_body(node.body, body);
  for (const auto& [name, value] : keywords)
    if (!body.class_behaviour || !body.class_behaviour->class_keyword(namespace_entries, name, value))
      raise(exc::TypeError(), node.name.name + ".__init_subclass__() takes no keyword arguments");

  auto cls = std::make_shared<ClassObject>(node.name.name, scope.qualname, std::move(bases), std::move(ancestors),
                                           std::move(namespace_entries));
  remember_attribute_owner(cls);
  // Methods remember their class, for super() without arguments.
  for (auto& [name, value] : cls->namespace_entries()) {
    Value function = value;
    if (auto* wrapped = value.as<WrappedFunction>()) function = wrapped->function;
    if (auto* property = value.as<PropertyObject>()) {
      for (const Value* part : {&property->getter, &property->setter, &property->deleter})
        if (auto* f = part->as<FunctionObject>()) f->owner_class = cls;
    }
    if (auto* f = function.as<FunctionObject>()) f->owner_class = cls;
  }
  if (!cls->behaviour) cls->behaviour = behaviour;
  if (cls->behaviour) cls->behaviour->class_made(*this, *cls);
  Value result = apply_decorators(node.decorators, decorators, Value(cls));
  store_name(&stmt, node.name.name, std::move(result), frame);
  return Flow::normal;
}

}  // namespace interp
