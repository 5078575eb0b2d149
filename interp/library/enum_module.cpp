// enum: Enum, ReprEnum, IntEnum, StrEnum, Flag, IntFlag, auto and unique. An
// enum class is a user class whose ClassBehaviour (EnumType's part) turns the
// body's plain values into members: singleton instances with _name_ and
// _value_, kept where CPython keeps them (_member_names_, _member_map_,
// _value2member_map_). A class mixing in a built-in type (class Mode(str,
// Enum), IntEnum = (int, ReprEnum), StrEnum = (str, ReprEnum)) has members
// that are instances of that type (builtin_subclasses.cpp), made by the
// type from the member's value; IntFlag is (int, ReprEnum, Flag), so its
// members are ints too. A Flag class (enum_flags.cpp) also keeps CPython
// 3.11's _flag_mask_, _singles_mask_ and _all_bits_, and makes the
// combinations of its members (pseudo-members) on demand.
#include "interp/library/enum_module.hpp"

#include "interp/python/format.hpp"

namespace interp {

namespace {

using Op = lang::ast::BinaryOperator;
using Cmp = lang::ast::CompareOperator;

// auto(): the value is the last member's int value + 1 (1 for the first).
class AutoObject : public Object {
 public:
  const TypeRef& type() const override {
    static const TypeRef type = make_type("auto", types::object());
    return type;
  }
  std::string repr(Evaluator&) const override { return "auto(_auto_null)"; }
};

}  // namespace

const Value* own(const ClassObject& cls, const char* name) { return find_attribute_in(cls.namespace_entries(), name); }

AttributeList* member_of(const Value& value) {
  AttributeList* attributes = value.has_hooks() ? value.object()->instance_dict() : nullptr;
  if (!attributes || !find_attribute_in(*attributes, "_name_")) return nullptr;
  return attributes;
}

const Value& member_value(const Value& member) { return *find_attribute_in(*member_of(member), "_value_"); }
const Value& member_name(const Value& member) { return *find_attribute_in(*member_of(member), "_name_"); }

namespace {
// The built-in value of a mixin's instance: its number, or its text as a str.
Value mixin_data(const Value& member) {
  if (member.is_number_instance()) return member.plain_number();
  if (const std::string* text = string_of(member)) return make_str(*text);
  return member;
}
}  // namespace

Value make_member(Evaluator& evaluator, ClassObject& cls, Value value, Value name) {
  Value member;
  if (const TypeObject* mixin = builtin_base(cls)) {
    // The mixed-in type makes the member from the value (a tuple: its arguments);
    // _value_ is what the type made, as CPython's member_type(*args).
    CallArgs args;
    auto* tuple = value.as<TupleObject>();
    args.positional = tuple && mixin != types::tuple().get() ? tuple->items : std::vector<Value>{value};
    member = *make_builtin_subclass_instance(evaluator, cls, args);
    if (member.is_number_instance() || string_of(member)) value = mixin_data(member);
  } else {
    member = Value(std::make_shared<InstanceObject>(std::static_pointer_cast<TypeObject>(cls.self()), evaluator));
  }
  evaluator.remember_attribute_owner(member.object());
  AttributeList& attributes = *member.object()->instance_dict();
  set_attribute_in(attributes, "_value_", std::move(value));
  set_attribute_in(attributes, "_name_", std::move(name));
  return member;
}

bool is_descriptor_or_private(const std::string& name, const Value& value) {
  if (name.empty() || name[0] == '_') return true;
  if (value.as<FunctionObject>() || value.as<NativeFunction>() || value.as<TypeObject>()) return true;
  std::string type = type_of(value)->name();
  return type == "property" || type == "staticmethod" || type == "classmethod" || type == "cached_property";
}

namespace {
// Whether `value` can key _value2member_map_; an unhashable one (a tuple
// holding a list) is found by equality alone, as CPython's TypeError fallback.
bool hashable(const Value& value) {
  try {
    hash_value(value);
    return true;
  } catch (PyError&) {
    return false;
  }
}
}  // namespace

bool is_auto(const Value& value) { return value.as<AutoObject>() != nullptr; }

void EnumBehaviour::class_prepare(Evaluator&, const std::vector<TypeRef>& bases, AttributeList& entries) {
  // EnumType.__prepare__: the last base that is an enum class gives its
  // _generate_next_value_ (a base's own or inherited), which a body may replace.
  for (auto base = bases.rbegin(); base != bases.rend(); ++base) {
    const ClassObject* first_enum = (*base)->as_class();
    if (!first_enum || !dynamic_cast<const EnumBehaviour*>(first_enum->behaviour.get())) continue;
    if (const Value* generate = find_class_member(*first_enum, "_generate_next_value_"))
      set_attribute_in(entries, "_generate_next_value_", *generate);
    return;
  }
}

Value EnumBehaviour::class_body_store(Evaluator& evaluator, const AttributeList& entries, const std::string& name,
                                      Value value) {
  if (!is_auto(value) || is_descriptor_or_private(name, value)) return value;
  std::vector<std::int64_t> values;
  std::vector<Value> last_values;
  const Value* generate = nullptr;  // the body's own _generate_next_value_(name, start, count, last_values)
  for (const auto& [key, entry] : entries) {
    if (key == "_generate_next_value_") generate = &entry;
    if (is_descriptor_or_private(key, entry)) continue;
    last_values.push_back(entry);
    if (entry.is_integral()) values.push_back(entry.as_int());
  }
  if (generate) {
    Value count = Value::integer(static_cast<std::int64_t>(last_values.size()));
    return evaluator.call(*generate, {make_str(name), Value::integer(1), count, make_list(std::move(last_values))});
  }
  return auto_value(name, values);
}

std::int64_t EnumBehaviour::next_value(const std::vector<std::int64_t>& values) const {
  return values.empty() ? 1 : values.back() + 1;
}

void EnumBehaviour::class_made(Evaluator& evaluator, ClassObject& cls) {
  for (const TypeObject* type : cls.ancestors())
    if (auto* base = dynamic_cast<const ClassObject*>(type))
      if (const Value* names = find_attribute_in(base->namespace_entries(), "_member_names_"))
        if (!names->as<ListObject>()->items.empty())
          raise(exc::TypeError(), class_repr(cls).value() + " cannot extend " + class_repr(*base).value());
  NamespaceEdit edit = cls.edit_namespace();
  AttributeList& entries = edit.entries;
  std::vector<Value> names;
  auto member_map = make_dict(), value_map = make_dict();
  std::vector<Value> members;  // every distinct member (a Flag's multi-bit ones too)
  std::vector<std::int64_t> values;
  FlagMasks masks;
  for (auto& [name, value] : entries) {
    if (is_descriptor_or_private(name, value)) continue;
    if (is_auto(value)) value = auto_value(name, values);
    if (value.is_integral()) values.push_back(value.as_int());
    Value existing;
    for (const Value& member : members)
      if (values_equal(member_value(member), value)) existing = member;
    if (!existing.is_none()) {  // an alias of an earlier member
      member_map->table.insert(make_str(name), existing);
      value = existing;
      continue;
    }
    Value member = make_member(evaluator, cls, value, make_str(name));
    set_attribute_in(*member_of(member), "_sort_order_",
                     Value::integer(static_cast<std::int64_t>(names.size())));
    if (find_class_member(cls, "__init__")) {
      std::vector<Value> arguments = value.as<TupleObject>() ? value.as<TupleObject>()->items : std::vector<Value>{value};
      call_special(evaluator, member, "__init__", std::move(arguments));
    }
    // A Flag lists only its single-bit members (a multi-bit one is an alias of their combination).
    if (!flags() || masks.add(value)) names.push_back(make_str(name));
    member_map->table.insert(make_str(name), member);
    if (hashable(value)) value_map->table.insert(value, member);
    members.push_back(member);
    value = member;
  }
  set_attribute_in(entries, "_member_names_", make_list(std::move(names)));
  set_attribute_in(entries, "_member_map_", Value(member_map));
  set_attribute_in(entries, "_value2member_map_", Value(value_map));
  auto members_copy = make_dict();
  members_copy->table = member_map->table;
  set_attribute_in(entries, "__members__", Value(members_copy));
  if (flags()) masks.store(cls);
}

std::optional<Value> EnumBehaviour::construct(Evaluator& evaluator, ClassObject& cls, CallArgs& args) {
  static const Signature signature = Signature::parse("EnumType.__call__(cls, value, /)");
  CallArgs with_class = args;
  with_class.positional.insert(with_class.positional.begin(), Value(cls.self()));
  Arguments a = bind_arguments(evaluator, signature, with_class);
  const Value& value = a[1];
  if (type_of(value).get() == &cls && member_of(value)) return value;
  if (const Value* map = own(cls, "_value2member_map_"); map && hashable(value))
    if (const Value* found = map->as<DictObject>()->table.find(value)) return *found;
  for (const Value& member : members(cls))
    if (values_equal(member_value(member), value)) return member;
  return missing(evaluator, cls, value);
}

Value EnumBehaviour::missing(Evaluator& evaluator, ClassObject& cls, const Value& value) {
  raise(exc::ValueError(), evaluator.repr(value) + " is not a valid " + cls.qualname());
}

IteratorRef EnumBehaviour::class_iterate(Evaluator&, ClassObject& cls) {
  return std::make_shared<ListIterator>(members(cls), types::list_iterator());
}

std::optional<Value> EnumBehaviour::class_get_item(Evaluator&, ClassObject& cls, const Value& key) {
  const Value* map = own(cls, "_member_map_");
  if (map)
    if (const Value* found = map->as<DictObject>()->table.find(key)) return *found;
  raise_value(exc::KeyError(), key);
}

std::optional<std::int64_t> EnumBehaviour::class_length(Evaluator&, const ClassObject& cls) {
  return static_cast<std::int64_t>(members(const_cast<ClassObject&>(cls)).size());
}

std::optional<bool> EnumBehaviour::class_contains(Evaluator&, ClassObject& cls, const Value& item) {
  // A member (by its name), not a Flag's pseudo-member.
  if (!member_of(item) || type_of(item).get() != &cls) return false;
  const Value* map = own(cls, "_member_map_");
  return map && map->as<DictObject>()->table.find(member_name(item)) != nullptr;
}

std::optional<std::string> EnumBehaviour::class_repr(const ClassObject& cls) { return "<enum '" + cls.name() + "'>"; }

std::vector<Value> EnumBehaviour::members(ClassObject& cls) {
  std::vector<Value> out;
  const Value* names = own(cls, "_member_names_");
  const Value* map = own(cls, "_member_map_");
  if (!names || !map) return out;
  for (const Value& name : names->as<ListObject>()->items) out.push_back(*map->as<DictObject>()->table.find(name));
  return out;
}

namespace {

Value native_property(Evaluator& evaluator, std::string_view signature, NativeFunctionBody getter) {
  return evaluator.call(evaluator.builtins.at("property"), {Value(native(signature, std::move(getter)))});
}

AttributeList enum_namespace(Evaluator& evaluator) {
  AttributeList entries{{"__module__", make_str("enum")}, {"__qualname__", make_str("Enum")}};
  set_attribute_in(entries, "name", native_property(evaluator, "name(self)", [](Evaluator&, Arguments& a) { return member_name(a[0]); }));
  set_attribute_in(entries, "value", native_property(evaluator, "value(self)", [](Evaluator&, Arguments& a) { return member_value(a[0]); }));
  add(entries, "__repr__(self, /)", [](Evaluator& ev, Arguments& a) {
    return make_str("<" + type_of(a[0])->name() + "." + ev.str(member_name(a[0])) + ": " + ev.repr(member_value(a[0])) + ">");
  });
  add(entries, "__str__(self, /)", [](Evaluator& ev, Arguments& a) {
    return make_str(type_of(a[0])->name() + "." + ev.str(member_name(a[0])));
  });
  add(entries, "__format__(self, format_spec, /)", [](Evaluator& ev, Arguments& a) {
    return make_str(format_value(ev, make_str(ev.str(a[0])), ev.str(a[1])));
  });
  add(entries, "__hash__(self, /)", [](Evaluator&, Arguments& a) {
    // A mixin's member hashes as its value (the data type's __hash__ comes first in its MRO).
    const Value& key = builtin_base(*type_of(a[0])) ? member_value(a[0]) : member_name(a[0]);
    return Value::integer(static_cast<std::int64_t>(hash_value(key)));
  });
  return entries;
}

// ReprEnum: Enum's repr, the mixed-in type's str() and format().
AttributeList repr_enum_namespace() {
  AttributeList entries{{"__module__", make_str("enum")}, {"__qualname__", make_str("ReprEnum")}};
  add(entries, "__str__(self, /)", [](Evaluator& ev, Arguments& a) { return make_str(ev.str(mixin_data(a[0]))); });
  add(entries, "__format__(self, format_spec, /)", [](Evaluator& ev, Arguments& a) {
    return make_str(format_value(ev, mixin_data(a[0]), ev.str(a[1])));
  });
  return entries;
}

// StrEnum's auto(): the member's name in lower case.
class StrEnumBehaviour : public EnumBehaviour {
 protected:
  Value auto_value(const std::string& name, const std::vector<std::int64_t>&) const override {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return make_str(lower);
  }
};

// A class of the enum module with these bases and namespace, made as a class statement would.
std::shared_ptr<ClassObject> enum_module_class(Evaluator& evaluator, const char* name, std::vector<TypeRef> bases,
                                               AttributeList entries, const std::shared_ptr<EnumBehaviour>& behaviour) {
  auto cls = std::make_shared<ClassObject>(name, name, bases, class_mro(bases), std::move(entries));
  cls->behaviour = behaviour;
  behaviour->class_made(evaluator, *cls);
  return cls;
}

}  // namespace

void add(AttributeList& entries, std::string_view signature, NativeFunctionBody body) {
  auto function = native(signature, std::move(body));
  set_attribute_in(entries, static_cast<NativeFunction&>(*function).name(), Value(function));
}

void install_enum(Evaluator& evaluator, ModuleObject& module) {
  auto behaviour = std::make_shared<EnumBehaviour>();
  auto enum_class = enum_module_class(evaluator, "Enum", {types::object()}, enum_namespace(evaluator), behaviour);
  auto repr_enum = enum_module_class(evaluator, "ReprEnum", {enum_class}, repr_enum_namespace(), behaviour);
  auto int_enum = enum_module_class(evaluator, "IntEnum", {types::integer(), repr_enum},
                                    {{"__module__", make_str("enum")}, {"__qualname__", make_str("IntEnum")}}, behaviour);
  auto str_behaviour = std::make_shared<StrEnumBehaviour>();
  auto str_enum = enum_module_class(evaluator, "StrEnum", {types::str(), repr_enum},
                                    {{"__module__", make_str("enum")}, {"__qualname__", make_str("StrEnum")}},
                                    str_behaviour);
  // FlagBoundary(StrEnum): STRICT, CONFORM, EJECT, KEEP, also the module's names.
  AttributeList boundaries{{"__module__", make_str("enum")}, {"__qualname__", make_str("FlagBoundary")}};
  for (const char* name : {"STRICT", "CONFORM", "EJECT", "KEEP"}) boundaries.emplace_back(name, Value(std::make_shared<AutoObject>()));
  auto flag_boundary = enum_module_class(evaluator, "FlagBoundary", {str_enum}, std::move(boundaries), str_behaviour);
  module.add("FlagBoundary", Value(flag_boundary));
  for (const char* name : {"STRICT", "CONFORM", "EJECT", "KEEP"}) module.add(name, *own(*flag_boundary, name));
  install_flags(evaluator, module, enum_class, repr_enum, *flag_boundary);
  module.add("Enum", Value(enum_class));
  module.add("ReprEnum", Value(repr_enum));
  module.add("IntEnum", Value(int_enum));
  module.add("StrEnum", Value(str_enum));
  module.add("EnumType", Value(types::type()));
  module.add_function("auto()", [](Evaluator&, Arguments&) { return Value(std::make_shared<AutoObject>()); });
  module.add_function("unique(enumeration, /)", [](Evaluator& ev, Arguments& a) {
    auto* cls = a[0].as<ClassObject>();
    const Value* map = cls ? own(*cls, "_member_map_") : nullptr;
    if (!map) raise(exc::TypeError(), "unique() expects an enum class");
    std::string duplicates;
    for (const auto& e : map->as<DictObject>()->table.entries())
      if (e.live && ev.str(member_name(e.value)) != ev.str(e.key))
        duplicates += (duplicates.empty() ? "" : ", ") + ev.str(e.key) + " -> " + ev.str(member_name(e.value));
    if (!duplicates.empty()) raise(exc::ValueError(), "duplicate values found in " + ev.repr(a[0]) + ": " + duplicates);
    return a[0];
  });
}

}  // namespace interp
