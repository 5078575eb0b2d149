// User classes (the `class` statement) with Python's semantics: the class
// object and its namespace, C3 method resolution order, instances and their
// attributes, the dunder protocol, and the descriptors property,
// staticmethod, classmethod and super. Instances of a class deriving from a
// built-in exception are ExceptionObjects (so `raise` and `except` take
// them); every other class makes InstanceObjects.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "interp/python/scope.hpp"
#include "interp/python/value.hpp"

namespace interp {

// Whether two attribute or method names are the same text: compared here,
// eight bytes at a time where they are that long, without a call of memcmp
// (names are short, and a lookup mostly compares equal ones).
inline bool same_name(const std::string& a, const std::string& b) {
  const std::size_t size = a.size();
  if (size != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (size < 8) {
    for (std::size_t i = 0; i < size; ++i)
      if (x[i] != y[i]) return false;
    return true;
  }
  auto word = [](const char* text) {
    std::uint64_t bytes;
    std::memcpy(&bytes, text, sizeof bytes);
    return bytes;
  };
  for (std::size_t i = 0; i + 8 <= size; i += 8)
    if (word(x + i) != word(y + i)) return false;
  return word(x + size - 8) == word(y + size - 8);  // the last bytes, overlapping the words before
}

// Attributes in definition order (a class namespace, an instance's __dict__).
using AttributeList = std::vector<std::pair<std::string, Value>>;
Value* find_attribute_in(AttributeList& list, const std::string& name);
const Value* find_attribute_in(const AttributeList& list, const std::string& name);
// Stores `name`, in place or last; its position.
std::size_t set_attribute_in(AttributeList& list, const std::string& name, Value value);

class ClassObject;

// What instance attribute access and construction ask of a class on every
// use, found along its MRO once and kept while no class namespace changes
// (ClassObject::members()).
struct ClassMembers {
  std::uint64_t version = 0;  // class_namespaces_version() when found; 0: never
  // The members of the user namespaces along the MRO (find_class_member), or null.
  const Value* init = nullptr;
  const Value* new_ = nullptr;
  const Value* setattr = nullptr;
  const Value* getattr = nullptr;
  // Whether any of those namespaces holds a property (which overrides an
  // instance's own attribute of its name).
  bool has_property = false;
  const TypeObject* builtin = nullptr;  // builtin_base()
};

// A counter that moves whenever any class namespace changes: what is
// memoised about classes (ClassMembers) holds while it stays. Shared by the
// interpreters of the process (a class may be too: ClassObject::process_wide).
inline std::atomic<std::uint64_t> class_namespaces_counter{1};
inline std::uint64_t class_namespaces_version() { return class_namespaces_counter.load(std::memory_order_relaxed); }

// Changing the namespace of a class that exists (a decorator's or a
// metaclass's additions, del C.x, teardown): the version moves when the edit
// begins and when it ends, and nothing is memoised while an edit is open, so
// Python code run in between sees each change at once.
class NamespaceEdit {
 public:
  explicit NamespaceEdit(ClassObject& cls);
  ~NamespaceEdit();
  NamespaceEdit(const NamespaceEdit&) = delete;
  NamespaceEdit& operator=(const NamespaceEdit&) = delete;
  AttributeList& entries;
};

// What a built-in metaclass gives the classes made with it and their
// subclasses (Enum's members, a named tuple's construction). Each hook's
// "not handled" answer leaves Python's usual class behaviour.
class ClassBehaviour {
 public:
  virtual ~ClassBehaviour() = default;
  // Python's __mro_entries__: what a class statement naming `base` (a class
  // with this behaviour) puts among its bases instead; nullopt: `base` itself.
  virtual std::optional<std::vector<TypeRef>> mro_entries(const ClassObject&) { return std::nullopt; }
  // Python's __prepare__: what the namespace of a subclass with these bases
  // holds before its body runs (Enum's inherited _generate_next_value_).
  virtual void class_prepare(Evaluator&, const std::vector<TypeRef>&, AttributeList&) {}
  // The class body of a subclass stores `value` under `name` (its namespace
  // so far in `entries`): what it stores instead (Enum's auto() becomes its
  // value at once, for the body's later lines to use).
  virtual Value class_body_store(Evaluator&, const AttributeList&, const std::string&, Value value) { return value; }
  // A class statement made `cls`, a subclass of a class with this behaviour.
  virtual void class_made(Evaluator&, ClassObject&) {}
  // Calling the class; nullopt: a new instance and its __init__.
  virtual std::optional<Value> construct(Evaluator&, ClassObject&, CallArgs&) { return std::nullopt; }
  // The class object as a container: iter(Color), Color['RED'], len(Color), x in Color.
  virtual IteratorRef class_iterate(Evaluator&, ClassObject&) { return nullptr; }
  virtual std::optional<Value> class_get_item(Evaluator&, ClassObject&, const Value&) { return std::nullopt; }
  virtual std::optional<std::int64_t> class_length(Evaluator&, const ClassObject&) { return std::nullopt; }
  virtual std::optional<bool> class_contains(Evaluator&, ClassObject&, const Value&) { return std::nullopt; }
  // repr(cls); nullopt: <class 'module.Name'>.
  virtual std::optional<std::string> class_repr(const ClassObject&) { return std::nullopt; }
  // A class statement's keyword argument (class Perm(Flag, boundary=STRICT)),
  // stored in the class's namespace; false: one it does not take.
  virtual bool class_keyword(AttributeList&, const std::string&, const Value&) { return false; }
  // Whether a class with this behaviour may also derive from a built-in type
  // (Enum's mixins: class Mode(str, Enum)).
  virtual bool takes_builtin_mixin() const { return false; }
};

class ClassObject : public TypeObject {
 public:
  // `ancestors` is the C3 linearisation of the bases (class_mro()).
  ClassObject(std::string name, std::string qualname, std::vector<TypeRef> bases,
              std::vector<TypeObject*> ancestors, AttributeList namespace_entries);
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool set_attribute(Evaluator& evaluator, const std::string& name, const Value& value) override;
  std::vector<std::string> attribute_names() const override;
  bool callable() const override { return true; }
  Value call(Evaluator& evaluator, CallArgs& args) override;
  IteratorRef iterate(Evaluator& evaluator) override;
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override;
  std::optional<std::int64_t> length(Evaluator& evaluator) const override;
  std::optional<bool> contains(Evaluator& evaluator, const Value& item) override;
  bool truthy(Evaluator&) const override { return true; }
  const ClassObject* as_class() const override { return this; }

  const std::string& qualname() const { return qualname_; }
  // The metaclass behaviour, inherited from the first base along the MRO that has one.
  std::shared_ptr<ClassBehaviour> behaviour;
  // Made once for the whole process and shared by every interpreter
  // (re.error): an interpreter's teardown sweep must leave it as it is.
  bool process_wide = false;
  // Its module's name (the class body's __module__: the defining module's
  // __name__) and "module.qualname", as repr shows it.
  std::string module_name() const;
  std::string dotted_name() const { return module_name() + "." + qualname_; }
  const std::vector<TypeRef>& bases() const { return bases_; }
  const AttributeList& namespace_entries() const { return namespace_; }
  NamespaceEdit edit_namespace() { return NamespaceEdit(*this); }
  // The members memoised for instances, found again when a namespace
  // changed. A pointer among them is valid until Python code runs.
  const ClassMembers& members() const {
    return members_.version == class_namespaces_version() ? members_ : find_members();
  }
  // Whether instances are exceptions (a built-in exception is among the ancestors).
  bool makes_exceptions() const { return makes_exceptions_; }

 private:
  std::string qualname_;
  std::vector<TypeRef> bases_;
  AttributeList namespace_;
  bool makes_exceptions_ = false;
  mutable ClassMembers members_;
  const ClassMembers& find_members() const;
  friend class NamespaceEdit;
};

// C3 linearisation of a class with these bases (without the class itself);
// TypeError when the bases admit none.
std::vector<TypeObject*> class_mro(const std::vector<TypeRef>& bases);

// `name` along the MRO of `cls` (itself first) in the namespaces of user
// classes only: the dunder methods a class defines. Null when none does.
const Value* find_class_member(const TypeObject& cls, const std::string& name);

// The `def` function that `instance.name` finds along the MRO of `cls`
// (itself first) as a class member, as its namespace holds it (a value whose
// object is a FunctionObject: the_function, evaluator.hpp, gives it), or null when the
// member found first is not one (a property, a built-in type's method,
// anything else) or there is none.
const Value* class_function(const TypeObject& cls, const std::string& name);

// An instance of a user class that is not an exception.
class InstanceObject : public Object {
 public:
  InstanceObject(TypeRef cls, Evaluator& evaluator) : cls_(std::move(cls)), evaluator_(&evaluator) {}
  const TypeRef& type() const override { return cls_; }
  std::string repr(Evaluator& evaluator) const override;
  std::string str(Evaluator& evaluator) const override;
  std::optional<std::string> format(Evaluator& evaluator, std::string_view spec) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool set_attribute(Evaluator& evaluator, const std::string& name, const Value& value) override;
  std::vector<std::string> attribute_names() const override;
  bool callable() const override;
  Value call(Evaluator& evaluator, CallArgs& args) override;
  std::optional<Value> binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                 bool reflected) override;
  std::optional<Value> binary_inplace(Evaluator& evaluator, lang::ast::BinaryOperator op,
                                      const Value& other) override;
  std::optional<Value> unary_op(Evaluator& evaluator, lang::ast::UnaryOperator op) override;
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override;
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override;
  bool set_item(Evaluator& evaluator, const Value& key, const Value& value) override;
  bool delete_item(Evaluator& evaluator, const Value& key) override;
  IteratorRef iterate(Evaluator& evaluator) override;
  std::optional<std::int64_t> length(Evaluator& evaluator) const override;
  std::optional<bool> contains(Evaluator& evaluator, const Value& item) override;
  bool truthy(Evaluator& evaluator) const override;
  std::optional<std::size_t> hash() const override;
  bool equals(const Value& other) const override;
  std::optional<Value> enter(Evaluator& evaluator) override;
  bool exit(Evaluator& evaluator, const Value* pending) override;
  std::optional<Value> descriptor_get(Evaluator& evaluator, const Value& instance, const Value& owner) override;
  InstanceObject* as_instance() override { return this; }
  // The __dict__ for any use, which may store objects in it: see note_store.
  AttributeList* instance_dict() override {
    remember();
    return &attributes;
  }
  const TypeObject* class_pointer() const { return cls_.get(); }  // type(), without a virtual call
  // What stores `value` in `attributes` calls first. An instance joins its
  // evaluator's cycle candidates (Evaluator::remember_attribute_owner) when
  // it first holds an object, through which alone it can sit in a reference
  // cycle: the many that hold only numbers are freed without a trace.
  void note_store(const Value& value) {
    if (!remembered_for_teardown_ && value.has_hooks()) remember();
  }

  AttributeList attributes;  // the instance's __dict__

 private:
  void remember();

  TypeRef cls_;
  // Dict keys hash and compare without an evaluator in hand: the one that
  // made the instance runs its __hash__ and __eq__.
  Evaluator* evaluator_;
  bool remembered_for_teardown_ = false;
};

// What an attribute site remembers about `name` on the instances of `cls`
// (scope.hpp's AttributeSiteCache): learnt into `entry`, with version 0
// when nothing may be remembered now (a namespace edit is open).
void learn_instance_name(const ClassObject& cls, const std::string& name, AttributeSiteCache& entry);
// The common cases of instance attribute access (own_instance_attribute,
// set_own_instance_attribute, class_function) through a site's entry (null:
// the site has none). Inline, the uses the entry answers at once (its class
// and version hold, the attribute where it was last); out of line, the
// rest, keeping the entry current.
const Value* find_own_attribute(AttributeSiteCache* entry, InstanceObject& instance, const std::string& name);
bool store_own_attribute(AttributeSiteCache* entry, InstanceObject& instance, const std::string& name,
                         const Value& value);
const Value* find_class_function(AttributeSiteCache* entry, InstanceObject& instance, const std::string& name);

inline bool site_holds(const AttributeSiteCache& entry, const InstanceObject& instance) {
  return entry.cls == instance.class_pointer() && entry.version == class_namespaces_version();
}
// The attribute at the entry's hint in `attributes`, or null.
inline Value* hinted_attribute(const AttributeSiteCache& entry, AttributeList& attributes, const std::string& name) {
  if (entry.index < attributes.size() && same_name(attributes[entry.index].first, name))
    return &attributes[entry.index].second;
  return nullptr;
}
inline const Value* site_own_attribute(AttributeSiteCache* entry, InstanceObject& instance, const std::string& name) {
  if (entry != nullptr && site_holds(*entry, instance)) {
    if (!entry->own_wins) return nullptr;
    if (const Value* own = hinted_attribute(*entry, instance.attributes, name)) return own;
  }
  return find_own_attribute(entry, instance, name);
}
// The own attribute `name` in `attributes`, or null (find_attribute_in inline).
inline Value* own_attribute_in(AttributeList& attributes, const std::string& name) {
  for (auto& [key, value] : attributes)
    if (same_name(key, name)) return &value;
  return nullptr;
}
inline bool site_store_attribute(AttributeSiteCache* entry, InstanceObject& instance, const std::string& name,
                                 const Value& value) {
  if (entry != nullptr && site_holds(*entry, instance) && entry->plain_store) {
    AttributeList& attributes = instance.attributes;
    if (Value* own = hinted_attribute(*entry, attributes, name)) {
      instance.note_store(value);
      *own = value;
      return true;
    }
    // The site's first store on a new instance (an __init__'s): `name` goes
    // last, where it went on the instance before, unless it is already there.
    if (entry->index == attributes.size() && own_attribute_in(attributes, name) == nullptr) {
      instance.note_store(value);
      if (attributes.empty()) attributes.reserve(4);  // room for the next few, as set_attribute_in
      attributes.emplace_back(name, value);
      return true;
    }
  }
  return store_own_attribute(entry, instance, name, value);
}
inline const Value* site_method(AttributeSiteCache* entry, InstanceObject& instance, const std::string& name) {
  if (entry != nullptr && site_holds(*entry, instance)) return entry->method;
  return find_class_function(entry, instance, name);
}

// Python's object.__getattribute__ and __getattr__ for an instance of a
// user class (`self` is an InstanceObject or ExceptionObject with these
// attributes); nullopt when it has no such attribute.
std::optional<Value> instance_attribute(Evaluator& evaluator, const Value& self, AttributeList& attributes,
                                        const std::string& name);
// The common cases of the two below, which need no `self`: an attribute of
// the instance's own __dict__ that no property of its class (`cls`)
// overrides (null otherwise), and storing one when the class has neither a
// __setattr__ nor a property `name` (false otherwise: nothing stored).
const Value* own_instance_attribute(const TypeObject& cls, AttributeList& attributes, const std::string& name);
bool set_own_instance_attribute(const TypeObject& cls, AttributeList& attributes, const std::string& name,
                                const Value& value);
// object.__setattr__ with the class's properties and __setattr__.
void set_instance_attribute(Evaluator& evaluator, const Value& self, AttributeList& attributes,
                            const std::string& name, const Value& value);
// Calls the dunder method `name` a user class of `self` defines; nullopt
// when none does.
std::optional<Value> call_special(Evaluator& evaluator, const Value& self, const std::string& name,
                                  std::vector<Value> arguments);

// An instance of `cls` when it derives from dict, list, set, frozenset,
// tuple or str (builtin_subclasses.cpp): a real object of that type (what
// takes a dict takes it) whose hooks run the dunders the class defines;
// nullopt for any other class.
std::optional<Value> make_builtin_subclass_instance(Evaluator& evaluator, ClassObject& cls, CallArgs& args);
// A new instance of `cls` before its __init__ (object.__new__(cls)): an
// exception, a built-in type's subclass instance made from `args`, or an
// InstanceObject.
Value new_instance(Evaluator& evaluator, ClassObject& cls, CallArgs& args);
// The built-in subclassable type's __new__(cls, ...): its own value when
// `cls` is the type, else an instance of the subclass `cls`.
void add_builtin_new(TypeObject& type);
// The one of those types `cls` derives from, or null; whether `type` is one.
const TypeObject* builtin_base(const TypeObject& cls);
bool is_subclassable_builtin(const TypeObject& type);

// The parts of an instance's hooks that a user class's dunder answers, for
// InstanceObject and the built-in types' subclasses: nullopt when the class
// defines no such dunder.
std::optional<std::string> dunder_text(Evaluator& evaluator, const Value& self, const char* name);  // __repr__, __str__
std::optional<std::string> dunder_format(Evaluator& evaluator, const Value& self, std::string_view spec);
// a binary, reflected or in-place operator: nullopt for NotImplemented too
std::optional<Value> dunder_binary(Evaluator& evaluator, const Value& self, lang::ast::BinaryOperator op,
                                   const Value& other, bool reflected, bool inplace);
std::optional<Value> dunder_unary(Evaluator& evaluator, const Value& self, lang::ast::UnaryOperator op);
std::optional<Value> dunder_compare(Evaluator& evaluator, const Value& self, lang::ast::CompareOperator op,
                                    const Value& other);
IteratorRef dunder_iterate(Evaluator& evaluator, const Value& self);  // __iter__; null when none
std::optional<std::int64_t> dunder_length(Evaluator& evaluator, const Value& self);
std::optional<bool> dunder_contains(Evaluator& evaluator, const Value& self, const Value& item);
std::optional<bool> dunder_bool(Evaluator& evaluator, const Value& self);  // __bool__, then __len__
// __hash__: nullopt when none, a nullopt inside when it is None (unhashable).
std::optional<std::optional<std::size_t>> dunder_hash(Evaluator& evaluator, const Value& self);
std::optional<bool> dunder_equals(Evaluator& evaluator, const Value& self, const Value& other);
bool dunder_exit(Evaluator& evaluator, const Value& self, const Value* pending);

// The dunder names of an operator ("__add__", "__radd__", "__iadd__") and a
// comparison ("__lt__"; null for is, in, ...).
const char* binary_dunder_name(lang::ast::BinaryOperator op, bool reflected, bool inplace);
const char* compare_dunder_name(lang::ast::CompareOperator op);

// The NotImplemented singleton that binary dunders return.
const Value& not_implemented();

// Installs object's and the exceptions' methods reached through super() and
// the class (object.__init__, Exception.__str__, ...), and the builtins
// property, staticmethod, classmethod, super, issubclass, NotImplemented, vars.
void install_class_builtins(Evaluator& evaluator);

}  // namespace interp
