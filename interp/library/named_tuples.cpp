// Named tuples: collections.namedtuple and typing.NamedTuple (as a class
// base and as a function). A named tuple class is a user class deriving
// from tuple whose ClassBehaviour builds its instances: tuples that know
// their class, with a field getter per name in the class namespace.
#include <algorithm>
#include <cctype>

#include "interp/library/host_modules.hpp"
#include "interp/python/classes.hpp"

namespace interp {

namespace {

// An instance of a named tuple class.
class NamedTupleInstance : public TupleObject {
 public:
  NamedTupleInstance(TypeRef cls, std::vector<Value> values) : TupleObject(std::move(values)), cls_(std::move(cls)) {}
  const TypeRef& type() const override { return cls_; }
  std::string repr(Evaluator& evaluator) const override {
    if (find_class_member(*cls_, "__repr__")) return own_text(evaluator, "__repr__");
    std::vector<std::string> names = field_names(evaluator, *cls_);
    std::string out = cls_->name() + "(";
    for (std::size_t i = 0; i < items.size(); ++i)
      out += (i ? ", " : "") + (i < names.size() ? names[i] : "?") + "=" + evaluator.repr(items[i]);
    return out + ")";
  }
  std::string str(Evaluator& evaluator) const override {
    if (find_class_member(*cls_, "__str__")) return own_text(evaluator, "__str__");
    return repr(evaluator);
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    AttributeList none;
    if (auto found = instance_attribute(evaluator, Value(self()), none, name)) return found;
    return TupleObject::get_attribute(evaluator, name);
  }
  bool set_attribute(Evaluator& evaluator, const std::string& name, const Value&) override {
    std::vector<std::string> names = field_names(evaluator, *cls_);
    if (std::find(names.begin(), names.end(), name) != names.end()) raise(exc::AttributeError(), "can't set attribute");
    raise(exc::AttributeError(), "'" + cls_->name() + "' object has no attribute '" + name + "'");
  }

  static std::vector<std::string> field_names(Evaluator& evaluator, TypeObject& cls) {
    std::vector<std::string> names;
    if (auto fields = cls.get_attribute(evaluator, "_fields"))
      for (const Value& v : evaluator.to_vector(*fields)) names.push_back(evaluator.str(v));
    return names;
  }

 private:
  std::string own_text(Evaluator& evaluator, const char* method) const {
    Value text = *call_special(evaluator, Value(const_cast<NamedTupleInstance*>(this)->self()), method, {});
    if (!string_of(text)) raise(exc::TypeError(), std::string(method) + " returned non-string (type " + type_name(text) + ")");
    return *string_of(text);
  }
  TypeRef cls_;
};

// _tuplegetter: the class attribute that reads field `index` of an instance.
class FieldGetter : public Object {
 public:
  explicit FieldGetter(std::size_t index) : index_(index) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("_tuplegetter", types::object());
    return type;
  }
  std::string repr(Evaluator&) const override {
    return "_tuplegetter(" + std::to_string(index_) + ", 'Alias for field number " + std::to_string(index_) + "')";
  }
  std::optional<Value> descriptor_get(Evaluator&, const Value& instance, const Value&) override {
    if (instance.is_none()) return Value(self());
    return instance.as<TupleObject>()->items.at(index_);
  }

 private:
  std::size_t index_;
};

void check_field_name(const std::string& name, bool allow_underscore) {
  bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                    std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); });
  if (!identifier) raise(exc::ValueError(), "Type names and field names must be valid identifiers: '" + name + "'");
  static const char* const keywords[] = {"False", "None", "True", "and", "as", "assert", "async", "await", "break",
                                         "class", "continue", "def", "del", "elif", "else", "except", "finally", "for",
                                         "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
                                         "pass", "raise", "return", "try", "while", "with", "yield"};
  for (const char* keyword : keywords)
    if (name == keyword) raise(exc::ValueError(), "Type names and field names cannot be a keyword: '" + name + "'");
  if (!allow_underscore && name[0] == '_') raise(exc::ValueError(), "Field names cannot start with an underscore: '" + name + "'");
}

// The namespace entries every named tuple class has: _fields,
// _field_defaults, a getter per field, _make, _replace, _asdict.
void add_named_tuple_members(Evaluator& evaluator, AttributeList& entries, const std::vector<std::string>& fields,
                             const std::vector<std::pair<std::string, Value>>& defaults) {
  std::vector<Value> names;
  for (const auto& f : fields) names.push_back(make_str(f));
  set_attribute_in(entries, "_fields", make_tuple(names));
  auto field_defaults = make_dict();
  for (const auto& [name, value] : defaults) field_defaults->table.insert(make_str(name), value);
  set_attribute_in(entries, "_field_defaults", Value(field_defaults));
  for (std::size_t i = 0; i < fields.size(); ++i) set_attribute_in(entries, fields[i], Value(std::make_shared<FieldGetter>(i)));
  set_attribute_in(entries, "__match_args__", make_tuple(names));
  set_attribute_in(entries, "_make", evaluator.call(evaluator.builtins.at("classmethod"), {Value(native("_make(cls, iterable)", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> values = ev.to_vector(a[1]);
    std::size_t expected = NamedTupleInstance::field_names(ev, *a[0].as<TypeObject>()).size();
    if (values.size() != expected)
      raise(exc::TypeError(), "Expected " + std::to_string(expected) + " arguments, got " + std::to_string(values.size()));
    return Value(std::make_shared<NamedTupleInstance>(std::static_pointer_cast<TypeObject>(a[0].object()), std::move(values)));
  }))}));
  set_attribute_in(entries, "_replace", Value(native("_replace(self, /, **kwds)", [](Evaluator& ev, Arguments& a) {
    auto* instance = a[0].as<TupleObject>();
    std::vector<std::string> names = NamedTupleInstance::field_names(ev, *type_of(a[0]));
    std::vector<Value> values = instance->items;
    std::vector<Value> unexpected;
    for (const auto& entry : a[1].as<DictObject>()->table.entries()) {
      if (!entry.live) continue;
      auto at = std::find(names.begin(), names.end(), *string_of(entry.key));
      if (at == names.end()) unexpected.push_back(entry.key);
      else values[static_cast<std::size_t>(at - names.begin())] = entry.value;
    }
    if (!unexpected.empty()) raise(exc::ValueError(), "Got unexpected field names: " + ev.repr(make_list(unexpected)));
    return Value(std::make_shared<NamedTupleInstance>(type_of(a[0]), std::move(values)));
  })));
  set_attribute_in(entries, "_asdict", Value(native("_asdict(self, /)", [](Evaluator& ev, Arguments& a) {
    std::vector<std::string> names = NamedTupleInstance::field_names(ev, *type_of(a[0]));
    auto dict = make_dict();
    const auto& items = a[0].as<TupleObject>()->items;
    for (std::size_t i = 0; i < names.size() && i < items.size(); ++i) dict->table.insert(make_str(names[i]), items[i]);
    return Value(dict);
  })));
}

class NamedTupleBehaviour : public ClassBehaviour {
 public:
  // The typing.NamedTuple class: a class statement naming it derives from tuple.
  std::weak_ptr<ClassObject> typing_named_tuple;

  std::optional<std::vector<TypeRef>> mro_entries(const ClassObject& base) override {
    if (&base != typing_named_tuple.lock().get()) return std::nullopt;
    return std::vector<TypeRef>{types::tuple()};
  }
  // class State(NamedTuple): the annotated names are the fields, their
  // values in the body the defaults.
  void class_made(Evaluator& evaluator, ClassObject& cls) override {
    if (cls.bases().size() != 1 || cls.bases().front() != types::tuple()) return;  // a subclass of a named tuple class
    NamespaceEdit edit = cls.edit_namespace();
    AttributeList& entries = edit.entries;
    std::vector<std::string> fields;
    std::vector<std::pair<std::string, Value>> defaults;
    if (Value* annotations = find_attribute_in(entries, "__annotations__"))
      for (const auto& entry : annotations->as<DictObject>()->table.entries()) {
        if (!entry.live) continue;
        std::string name = *string_of(entry.key);
        check_field_name(name, false);
        if (Value* value = find_attribute_in(entries, name)) {
          defaults.emplace_back(name, *value);
        } else if (!defaults.empty()) {
          raise(exc::TypeError(), "Non-default namedtuple field " + name + " cannot follow default field" +
                                      (defaults.size() > 1 ? "s " : " ") + joined(defaults));
        }
        fields.push_back(name);
      }
    add_named_tuple_members(evaluator, entries, fields, defaults);
  }
  std::optional<Value> construct(Evaluator& evaluator, ClassObject& cls, CallArgs& args) override {
    if (&cls == typing_named_tuple.lock().get()) return functional_form(evaluator, args);
    Signature signature;
    signature.name = cls.name() + ".__new__";
    signature.user_defined = true;
    signature.parameters.push_back(Parameter{"_cls", Parameter::Kind::positional_or_keyword, true, std::nullopt});
    Value defaults = *cls.get_attribute(evaluator, "_field_defaults");
    for (const auto& name : NamedTupleInstance::field_names(evaluator, cls)) {
      Parameter p{name, Parameter::Kind::positional_or_keyword, true, std::nullopt};
      if (const Value* d = defaults.as<DictObject>()->table.find(make_str(name))) {
        p.required = false;
        p.default_value = *d;
      }
      signature.parameters.push_back(std::move(p));
    }
    TypeRef ref = std::static_pointer_cast<TypeObject>(cls.self());
    args.positional.insert(args.positional.begin(), Value(ref));
    Arguments bound = bind_arguments(evaluator, signature, args);
    std::vector<Value> values;
    for (std::size_t i = 1; i < bound.values.size(); ++i) values.push_back(bound[i]);
    return Value(std::make_shared<NamedTupleInstance>(ref, std::move(values)));
  }

 private:
  static std::string joined(const std::vector<std::pair<std::string, Value>>& defaults) {
    std::string out;
    for (const auto& [name, value] : defaults) out += (out.empty() ? "" : ", ") + name;
    return out;
  }
  // NamedTuple('Point', [('x', int), ('y', int)]).
  Value functional_form(Evaluator& evaluator, CallArgs& args) {
    static const Signature signature = Signature::parse("NamedTuple(typename, fields=None, /)");
    Arguments a = bind_arguments(evaluator, signature, args);
    std::vector<std::string> fields;
    if (!a[1].is_none())
      for (const Value& pair : evaluator.to_vector(a[1])) fields.push_back(evaluator.str(evaluator.to_vector(pair).at(0)));
    return make_named_tuple_class(evaluator, evaluator.str(a[0]), fields, {});
  }

 public:
  // `module`: its __module__; none: the module whose code calls (CPython
  // reads the caller's frame).
  Value make_named_tuple_class(Evaluator& evaluator, const std::string& name, const std::vector<std::string>& fields,
                               const std::vector<std::pair<std::string, Value>>& defaults,
                               const Value& module = Value::none());
};

const std::shared_ptr<NamedTupleBehaviour>& named_tuple_behaviour() {
  static const auto behaviour = std::make_shared<NamedTupleBehaviour>();
  return behaviour;
}

Value NamedTupleBehaviour::make_named_tuple_class(Evaluator& evaluator, const std::string& name,
                                                   const std::vector<std::string>& fields,
                                                   const std::vector<std::pair<std::string, Value>>& defaults,
                                                   const Value& module) {
  check_field_name(name, true);
  Value module_name = module;
  if (module_name.is_none()) {
    const Namespace& globals = evaluator.running_globals();
    auto found = globals.find("__name__");
    module_name = found != globals.end() ? found->second : make_str("__main__");
  }
  std::string signature_text;
  for (const auto& f : fields) signature_text += (signature_text.empty() ? "" : ", ") + f;
  AttributeList entries{{"__module__", module_name}, {"__qualname__", make_str(name)},
                        {"__doc__", make_str(name + "(" + signature_text + ")")}, {"__slots__", make_tuple({})}};
  add_named_tuple_members(evaluator, entries, fields, defaults);
  std::vector<TypeRef> bases{types::tuple()};
  auto cls = std::make_shared<ClassObject>(name, name, bases, class_mro(bases), std::move(entries));
  cls->behaviour = named_tuple_behaviour();
  return Value(cls);
}

}  // namespace

Value make_named_tuple(Evaluator& evaluator, const std::string& module, const std::string& name,
                       const std::vector<std::string>& fields, std::vector<Value> values) {
  Value cls = named_tuple_behaviour()->make_named_tuple_class(evaluator, name, fields, {}, make_str(module));
  return Value(std::make_shared<NamedTupleInstance>(std::static_pointer_cast<TypeObject>(cls.object()), std::move(values)));
}

Value make_named_tuple_class(Evaluator& evaluator, const std::string& module, const std::string& name,
                             const std::vector<std::string>& fields) {
  return named_tuple_behaviour()->make_named_tuple_class(evaluator, name, fields, {}, make_str(module));
}

Value named_tuple_of(const TypeRef& cls, std::vector<Value> items) {
  return Value(std::make_shared<NamedTupleInstance>(cls, std::move(items)));
}

bool is_named_tuple(const Value& value) { return value.as<NamedTupleInstance>() != nullptr; }

Value remake_named_tuple(const Value& like, std::vector<Value> items) {
  return Value(std::make_shared<NamedTupleInstance>(type_of(like), std::move(items)));
}

void install_named_tuple_function(Evaluator&, ModuleObject& module) {
  module.add_function("namedtuple(typename, field_names, *, rename=False, defaults=None, module=None)",
                      [](Evaluator& ev, Arguments& a) {
    std::vector<std::string> fields;
    if (const std::string* text = string_of(a[1])) {
      std::string current;
      for (char c : *text + " ") {
        if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
          if (!current.empty()) fields.push_back(current);
          current.clear();
        } else {
          current += c;
        }
      }
    } else {
      for (const Value& v : ev.to_vector(a[1])) fields.push_back(ev.str(v));
    }
    auto seen_before = [&](std::size_t i) {
      return std::find(fields.begin(), fields.begin() + static_cast<std::ptrdiff_t>(i), fields[i]) !=
             fields.begin() + static_cast<std::ptrdiff_t>(i);
    };
    for (std::size_t i = 0; i < fields.size(); ++i) {
      bool renamed = false;
      if (ev.truthy(a[2])) {
        try {
          check_field_name(fields[i], false);
        } catch (PyError&) {
          renamed = true;
        }
        if (renamed || seen_before(i)) {
          fields[i] = "_" + std::to_string(i);
          renamed = true;
        }
      }
      check_field_name(fields[i], renamed);
      if (seen_before(i)) raise(exc::ValueError(), "Encountered duplicate field name: '" + fields[i] + "'");
    }
    std::vector<std::pair<std::string, Value>> defaults;
    if (!a[3].is_none()) {
      std::vector<Value> values = ev.to_vector(a[3]);
      if (values.size() > fields.size()) raise(exc::TypeError(), "Got more default values than field names");
      std::size_t first = fields.size() - values.size();
      for (std::size_t i = 0; i < values.size(); ++i) defaults.emplace_back(fields[first + i], values[i]);
    }
    return named_tuple_behaviour()->make_named_tuple_class(ev, ev.str(a[0]), fields, defaults, a[4]);
  });
}

void install_typing_named_tuple(Evaluator& evaluator, ModuleObject& module) {
  std::vector<TypeRef> bases{types::tuple()};
  AttributeList entries{{"__module__", make_str("typing")}, {"__qualname__", make_str("NamedTuple")}};
  add_named_tuple_members(evaluator, entries, {}, {});
  auto cls = std::make_shared<ClassObject>("NamedTuple", "NamedTuple", bases, class_mro(bases), std::move(entries));
  // Its own behaviour (one per interpreter), which knows the class as the root.
  auto behaviour = std::make_shared<NamedTupleBehaviour>();
  behaviour->typing_named_tuple = cls;
  cls->behaviour = behaviour;
  module.add("NamedTuple", Value(cls));
}

}  // namespace interp
