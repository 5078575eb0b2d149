// dataclasses: @dataclass (init, repr, eq, order, frozen, unsafe_hash,
// kw_only, __post_init__), field, fields, asdict, astuple, replace,
// is_dataclass, MISSING and FrozenInstanceError, with CPython 3.11's
// behaviour and error texts. The generated methods are native functions put
// into the class's namespace, as dataclasses puts generated functions there.
#include <algorithm>

#include "interp/library/host_modules.hpp"
#include "interp/python/classes.hpp"

namespace interp {

namespace {

using Cmp = lang::ast::CompareOperator;

class MissingObject : public Object {
 public:
  const TypeRef& type() const override {
    static const TypeRef type = make_type("_MISSING_TYPE", types::object());
    return type;
  }
};

const Value& missing() {
  static const Value value(std::make_shared<MissingObject>());
  return value;
}
bool is_missing(const Value& v) { return v.is_same(missing()); }

const TypeRef& field_type();

// A dataclasses.Field: what field() returns, and what fields() lists.
class FieldObject : public Object {
 public:
  const TypeRef& type() const override { return field_type(); }
  std::string repr(Evaluator& evaluator) const override {
    return "Field(name=" + (name.empty() ? std::string("None") : evaluator.repr(make_str(name))) +
           ",type=" + evaluator.repr(annotation) + ",default=" + shown(evaluator, default_value) +
           ",default_factory=" + shown(evaluator, default_factory) + ",init=" + (init ? "True" : "False") +
           ",repr=" + (in_repr ? "True" : "False") + ",hash=" + evaluator.repr(hash_flag) +
           ",compare=" + (compare ? "True" : "False") + ",metadata=" + evaluator.repr(metadata) +
           ",kw_only=" + (is_missing(kw_only) ? "MISSING" : evaluator.repr(kw_only)) + ")";
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& attribute) override {
    if (attribute == "name") return name.empty() ? Value::none() : make_str(name);
    if (attribute == "type") return annotation;
    if (attribute == "default") return default_value;
    if (attribute == "default_factory") return default_factory;
    if (attribute == "init") return Value::boolean(init);
    if (attribute == "repr") return Value::boolean(in_repr);
    if (attribute == "compare") return Value::boolean(compare);
    if (attribute == "hash") return hash_flag;
    if (attribute == "metadata") return metadata;
    if (attribute == "kw_only") return kw_only;
    return Object::get_attribute(evaluator, attribute);
  }
  static std::string shown(Evaluator& evaluator, const Value& v) { return is_missing(v) ? "MISSING" : evaluator.repr(v); }

  std::string name;
  Value annotation;
  Value default_value = missing(), default_factory = missing();
  bool init = true, in_repr = true, compare = true;
  Value hash_flag, metadata = Value(make_dict()), kw_only = missing();
};

const TypeRef& field_type() {
  static const TypeRef type = make_type("Field", types::object());
  return type;
}

using FieldRef = std::shared_ptr<FieldObject>;

// The fields of a dataclass (or instance), in order; empty when it is none.
std::vector<FieldRef> fields_of(Evaluator& evaluator, const Value& class_or_instance) {
  Value cls = class_or_instance.as<TypeObject>() ? class_or_instance : Value(type_of(class_or_instance));
  std::vector<FieldRef> out;
  auto found = evaluator.find_attribute(cls, "__dataclass_fields__");
  if (!found || !found->as<DictObject>()) return out;
  for (const auto& e : found->as<DictObject>()->table.entries())
    if (e.live) out.push_back(std::static_pointer_cast<FieldObject>(e.value.object()));
  return out;
}

bool is_dataclass_value(Evaluator& evaluator, const Value& v) {
  Value cls = v.as<TypeObject>() ? v : Value(type_of(v));
  auto found = evaluator.find_attribute(cls, "__dataclass_fields__");
  return found && found->as<DictObject>();
}

// Reads an instance attribute (a field's value).
Value field_value(Evaluator& evaluator, const Value& instance, const FieldRef& field) {
  return evaluator.get_attribute(instance, field->name);
}

void store(const Value& instance, const std::string& name, Value value) {
  if (auto* attributes = instance.is_object() ? instance.object()->instance_dict() : nullptr)
    set_attribute_in(*attributes, name, std::move(value));
}

bool is_class_var(Evaluator& evaluator, const Value& annotation) {
  std::string text = string_of(annotation) ? *string_of(annotation) : evaluator.repr(annotation);
  return text.rfind("typing.ClassVar", 0) == 0 || text.rfind("ClassVar", 0) == 0;
}

struct Options {
  bool init = true, repr = true, eq = true, order = false, unsafe_hash = false, frozen = false, kw_only = false;
};

// The dataclass's fields: its bases' (along the MRO, the last base first),
// then its own annotations, a redefined name keeping its place.
std::vector<FieldRef> collect_fields(Evaluator& evaluator, ClassObject& cls, const Options& options) {
  std::vector<FieldRef> fields;
  auto put = [&](FieldRef field) {
    for (auto& existing : fields)
      if (existing->name == field->name) {
        existing = std::move(field);
        return;
      }
    fields.push_back(std::move(field));
  };
  const auto& ancestors = cls.ancestors();
  for (auto type = ancestors.rbegin(); type != ancestors.rend(); ++type)
    if (auto* base = dynamic_cast<ClassObject*>(*type))
      if (const Value* own = find_attribute_in(base->namespace_entries(), "__dataclass_fields__"))
        for (const auto& e : own->as<DictObject>()->table.entries())
          if (e.live) put(std::static_pointer_cast<FieldObject>(e.value.object()));
  NamespaceEdit edit = cls.edit_namespace();
  AttributeList& entries = edit.entries;
  Value* annotations = find_attribute_in(entries, "__annotations__");
  if (annotations == nullptr) return fields;
  for (const auto& e : annotations->as<DictObject>()->table.entries()) {
    if (!e.live || is_class_var(evaluator, e.value)) continue;
    std::string name = *string_of(e.key);
    FieldRef field;
    Value* value = find_attribute_in(entries, name);
    if (value && value->as<FieldObject>()) {
      field = std::make_shared<FieldObject>(*value->as<FieldObject>());
    } else {
      field = std::make_shared<FieldObject>();
      if (value) field->default_value = *value;
    }
    field->name = name;
    field->annotation = e.value;
    if (is_missing(field->kw_only)) field->kw_only = Value::boolean(options.kw_only);
    const Value& d = field->default_value;
    if (d.as<ListObject>() || d.as<DictObject>() || d.as<SetObject>())
      raise(exc::ValueError(), "mutable default " + evaluator.repr(Value(type_of(d))) + " for field " + name +
                                   " is not allowed: use default_factory");
    // The class attribute is the default; a field with only a factory has none.
    if (value) {
      if (!is_missing(field->default_value)) set_attribute_in(entries, name, field->default_value);
      else std::erase_if(entries, [&](const auto& entry) { return entry.first == name; });
    }
    put(field);
  }
  return fields;
}

Value make_init(const std::string& qualname, const std::vector<FieldRef>& fields) {
  Signature signature;
  signature.name = qualname + ".__init__";
  signature.user_defined = true;
  signature.parameters.push_back(Parameter{"self", Parameter::Kind::positional_or_keyword, true, std::nullopt});
  std::vector<FieldRef> keyword_only;
  bool seen_default = false;
  for (const auto& field : fields) {
    if (!field->init) continue;
    if (field->kw_only.is_bool() && field->kw_only.as_bool()) {
      keyword_only.push_back(field);
      continue;
    }
    bool has_default = !is_missing(field->default_value) || !is_missing(field->default_factory);
    if (!has_default && seen_default)
      raise(exc::TypeError(), "non-default argument '" + field->name + "' follows default argument");
    seen_default = seen_default || has_default;
  }
  auto parameter = [](const FieldRef& field, Parameter::Kind kind) {
    Parameter p{field->name, kind, true, std::nullopt};
    if (!is_missing(field->default_value)) {
      p.required = false;
      p.default_value = field->default_value;
    } else if (!is_missing(field->default_factory)) {
      p.required = false;  // absent: the factory makes the value
    }
    return p;
  };
  for (const auto& field : fields)
    if (field->init && !(field->kw_only.is_bool() && field->kw_only.as_bool()))
      signature.parameters.push_back(parameter(field, Parameter::Kind::positional_or_keyword));
  for (const auto& field : keyword_only) signature.parameters.push_back(parameter(field, Parameter::Kind::keyword_only));
  return Value(std::make_shared<NativeFunction>(signature, [fields, signature](Evaluator& ev, Arguments& a) {
    const Value& self = a[0];
    for (const auto& field : fields) {
      std::optional<Value> value;
      if (field->init) {
        for (std::size_t i = 1; i < signature.parameters.size(); ++i)
          if (signature.parameters[i].name == field->name && a.has(i)) value = a[i];
      } else if (!is_missing(field->default_value)) {
        value = field->default_value;
      }
      if (!value && !is_missing(field->default_factory)) value = ev.call(field->default_factory, std::vector<Value>{});
      if (value) store(self, field->name, *value);
    }
    if (auto post_init = ev.find_attribute(self, "__post_init__")) ev.call(*post_init, std::vector<Value>{});
    return Value::none();
  }));
}

Value fields_tuple(Evaluator& evaluator, const Value& instance, const std::vector<FieldRef>& fields, bool (*use)(const FieldObject&)) {
  std::vector<Value> values;
  for (const auto& field : fields)
    if (use(*field)) values.push_back(field_value(evaluator, instance, field));
  return make_tuple(std::move(values));
}

bool compared(const FieldObject& field) { return field.compare; }
bool hashed(const FieldObject& field) { return field.hash_flag.is_none() ? field.compare : field.hash_flag.is_bool() && field.hash_flag.as_bool(); }

void add_method(AttributeList& entries, std::string_view signature, NativeFunctionBody body) {
  auto function = std::make_shared<NativeFunction>(Signature::parse(signature), std::move(body));
  set_attribute_in(entries, function->name(), Value(function));
}

void add_comparisons(ClassObject& cls, const std::vector<FieldRef>& fields, const Options& options) {
  NamespaceEdit edit = cls.edit_namespace();
  AttributeList& entries = edit.entries;
  if (options.eq && !find_attribute_in(entries, "__eq__"))
    add_method(entries, "__eq__(self, other, /)", [fields](Evaluator& ev, Arguments& a) {
      if (type_of(a[0]) != type_of(a[1])) return not_implemented();
      return Value::boolean(ev.compare_bool(Cmp::eq, fields_tuple(ev, a[0], fields, compared), fields_tuple(ev, a[1], fields, compared)));
    });
  if (!options.order) return;
  const std::pair<const char*, Cmp> orders[] = {{"__lt__", Cmp::lt}, {"__le__", Cmp::lt_e}, {"__gt__", Cmp::gt}, {"__ge__", Cmp::gt_e}};
  for (auto [name, op] : orders) {
    if (find_attribute_in(entries, name))
      raise(exc::TypeError(), std::string("Cannot overwrite attribute ") + name + " in class " + cls.name() +
                                  ". Consider using functools.total_ordering");
    add_method(entries, std::string(name) + "(self, other, /)", [fields, op = op](Evaluator& ev, Arguments& a) {
      if (type_of(a[0]) != type_of(a[1])) return not_implemented();
      return Value::boolean(ev.compare_bool(op, fields_tuple(ev, a[0], fields, compared), fields_tuple(ev, a[1], fields, compared)));
    });
  }
}

void add_hash_and_frozen(ClassObject& cls, const std::vector<FieldRef>& fields, const Options& options, const Value& frozen_error) {
  NamespaceEdit edit = cls.edit_namespace();
  AttributeList& entries = edit.entries;
  Value* own_hash = find_attribute_in(entries, "__hash__");
  bool explicit_hash = own_hash && !(own_hash->is_none() && find_attribute_in(entries, "__eq__"));
  auto hash_method = [&] {
    add_method(entries, "__hash__(self, /)", [fields](Evaluator& ev, Arguments& a) {
      return Value::integer(static_cast<std::int64_t>(hash_value(fields_tuple(ev, a[0], fields, hashed))));
    });
  };
  if (options.unsafe_hash) {
    if (explicit_hash) raise(exc::TypeError(), "Cannot overwrite attribute __hash__ in class " + cls.name());
    hash_method();
  } else if (options.eq && options.frozen && !explicit_hash) {
    hash_method();
  } else if (options.eq && !explicit_hash) {
    set_attribute_in(entries, "__hash__", Value::none());
  }
  if (!options.frozen) return;
  // Any attribute of a frozen dataclass's instance is read-only (its __init__ writes __dict__ directly).
  for (bool deleting : {false, true}) {
    const char* name = deleting ? "__delattr__" : "__setattr__";
    if (find_attribute_in(entries, name))
      raise(exc::TypeError(), std::string("Cannot overwrite attribute ") + name + " in class " + cls.name());
    std::string signature = deleting ? "__delattr__(self, name, /)" : "__setattr__(self, name, value, /)";
    add_method(entries, signature, [deleting, frozen_error](Evaluator& ev, Arguments& a) -> Value {
      std::string text = std::string(deleting ? "cannot delete" : "cannot assign to") + " field " + ev.repr(a[1]);
      Value error = ev.call(frozen_error, {make_str(text)});
      throw PyError{std::static_pointer_cast<ExceptionObject>(error.object())};
    });
  }
}

Value process_class(Evaluator& evaluator, const Value& cls_value, const Options& options, const Value& frozen_error) {
  auto* cls = cls_value.as<ClassObject>();
  if (!cls) raise(exc::TypeError(), "dataclass() should be called on a class");
  if (options.order && !options.eq) raise(exc::ValueError(), "eq must be true if order is true");
  std::vector<FieldRef> fields = collect_fields(evaluator, *cls, options);
  NamespaceEdit edit = cls->edit_namespace();
  AttributeList& entries = edit.entries;
  auto table = make_dict();
  for (const auto& field : fields) table->table.insert(make_str(field->name), Value(field));
  set_attribute_in(entries, "__dataclass_fields__", Value(table));
  if (options.init && !find_attribute_in(entries, "__init__")) set_attribute_in(entries, "__init__", make_init(cls->qualname(), fields));
  if (options.repr && !find_attribute_in(entries, "__repr__"))
    add_method(entries, "__repr__(self, /)", [fields](Evaluator& ev, Arguments& a) {
      auto* type = dynamic_cast<ClassObject*>(type_of(a[0]).get());
      std::string out = (type ? type->qualname() : type_of(a[0])->name()) + "(";
      bool first = true;
      for (const auto& field : fields) {
        if (!field->in_repr) continue;
        out += (first ? "" : ", ") + field->name + "=" + ev.repr(field_value(ev, a[0], field));
        first = false;
      }
      return make_str(out + ")");
    });
  add_comparisons(*cls, fields, options);
  add_hash_and_frozen(*cls, fields, options, frozen_error);
  std::vector<Value> match_args;
  for (const auto& field : fields)
    if (field->init && !(field->kw_only.is_bool() && field->kw_only.as_bool())) match_args.push_back(make_str(field->name));
  if (!find_attribute_in(entries, "__match_args__")) set_attribute_in(entries, "__match_args__", make_tuple(std::move(match_args)));
  return cls_value;
}

// asdict / astuple: dataclasses, lists, tuples (named ones keep their class) and dicts, recursively.
Value convert(Evaluator& evaluator, const Value& value, bool as_dict) {
  if (is_dataclass_value(evaluator, value) && !value.as<TypeObject>()) {
    std::vector<Value> values;
    auto dict = make_dict();
    for (const auto& field : fields_of(evaluator, value)) {
      Value converted = convert(evaluator, field_value(evaluator, value, field), as_dict);
      if (as_dict) dict->table.insert(make_str(field->name), converted);
      else values.push_back(converted);
    }
    return as_dict ? Value(dict) : make_tuple(std::move(values));
  }
  if (auto* sequence = value.as<SequenceObject>()) {
    std::vector<Value> items;
    for (const Value& item : sequence->items) items.push_back(convert(evaluator, item, as_dict));
    if (is_named_tuple(value)) return remake_named_tuple(value, std::move(items));
    return value.as<TupleObject>() ? make_tuple(std::move(items)) : make_list(std::move(items));
  }
  if (auto* dict = value.as<DictObject>()) {
    auto out = make_dict();
    for (const auto& e : dict->table.entries())
      if (e.live) out->table.insert(convert(evaluator, e.key, as_dict), convert(evaluator, e.value, as_dict));
    return Value(out);
  }
  return value;
}

void install_dataclass(ModuleObject& module, const Value& frozen_error) {
  module.add_function(
      "dataclass(cls=None, /, *, init=True, repr=True, eq=True, order=False, unsafe_hash=False, frozen=False, "
      "match_args=True, kw_only=False, slots=False)",
      [frozen_error](Evaluator& ev, Arguments& a) {
        Options options{ev.truthy(a[1]), ev.truthy(a[2]), ev.truthy(a[3]), ev.truthy(a[4]),
                        ev.truthy(a[5]), ev.truthy(a[6]), ev.truthy(a[8])};
        if (!a[0].is_none()) return process_class(ev, a[0], options, frozen_error);
        return Value(native("wrap(cls, /)", [options, frozen_error](Evaluator& ev, Arguments& b) {
          return process_class(ev, b[0], options, frozen_error);
        }));
      });
}

void install_helpers(ModuleObject& module) {
  module.add_function("field(*, default=?, default_factory=?, init=True, repr=True, hash=None, compare=True, metadata=None, kw_only=?)",
                      [](Evaluator& ev, Arguments& a) {
    if (a.has(0) && a.has(1)) raise(exc::ValueError(), "cannot specify both default and default_factory");
    auto field = std::make_shared<FieldObject>();
    if (a.has(0)) field->default_value = a[0];
    if (a.has(1)) field->default_factory = a[1];
    field->init = ev.truthy(a[2]);
    field->in_repr = ev.truthy(a[3]);
    field->hash_flag = a[4];
    field->compare = ev.truthy(a[5]);
    field->metadata = a[6].is_none() ? Value(make_dict()) : a[6];
    if (a.has(7)) field->kw_only = a[7];
    return Value(field);
  });
  module.add_function("fields(class_or_instance)", [](Evaluator& ev, Arguments& a) {
    if (!is_dataclass_value(ev, a[0])) raise(exc::TypeError(), "must be called with a dataclass type or instance");
    std::vector<Value> out;
    for (const auto& field : fields_of(ev, a[0])) out.push_back(Value(field));
    return make_tuple(std::move(out));
  });
  module.add_function("is_dataclass(obj)", [](Evaluator& ev, Arguments& a) { return Value::boolean(is_dataclass_value(ev, a[0])); });
  for (bool as_dict : {true, false})
    module.add_function(as_dict ? "asdict(obj)" : "astuple(obj)", [as_dict](Evaluator& ev, Arguments& a) {
      if (!is_dataclass_value(ev, a[0]) || a[0].as<TypeObject>())
        raise(exc::TypeError(), std::string(as_dict ? "asdict()" : "astuple()") + " should be called on dataclass instances");
      return convert(ev, a[0], as_dict);
    });
  module.add_function("replace(obj, /, **changes)", [](Evaluator& ev, Arguments& a) {
    if (!is_dataclass_value(ev, a[0]) || a[0].as<TypeObject>())
      raise(exc::TypeError(), "replace() should be called on dataclass instances");
    auto* changes = a[1].as<DictObject>();
    CallArgs call;
    for (const auto& field : fields_of(ev, a[0])) {
      const Value* changed = changes->table.find(make_str(field->name));
      if (!field->init) {
        if (changed) raise(exc::ValueError(), "field " + field->name + " is declared with init=False, it cannot be specified with replace()");
        continue;
      }
      call.keywords.emplace_back(field->name, changed ? *changed : field_value(ev, a[0], field));
    }
    for (const auto& e : changes->table.entries()) {
      if (!e.live) continue;
      std::string name = *string_of(e.key);
      if (std::none_of(call.keywords.begin(), call.keywords.end(), [&](const auto& k) { return k.first == name; }))
        call.keywords.emplace_back(name, e.value);
    }
    return ev.call(Value(type_of(a[0])), call);
  });
}

}  // namespace

void install_dataclasses(Evaluator&, ModuleObject& module) {
  std::vector<TypeRef> bases{exc::AttributeError()};
  auto frozen_error = std::make_shared<ClassObject>(
      "FrozenInstanceError", "FrozenInstanceError", bases, class_mro(bases),
      AttributeList{{"__module__", make_str("dataclasses")}, {"__qualname__", make_str("FrozenInstanceError")}});
  module.add("FrozenInstanceError", Value(frozen_error));
  module.add("MISSING", missing());
  module.add("Field", Value(field_type()));
  install_dataclass(module, Value(frozen_error));
  install_helpers(module);
}

}  // namespace interp
