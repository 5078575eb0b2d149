// Instances of user classes deriving from dict, list, set, frozenset, tuple,
// str, int or float. Each is a real object of its built-in type (a DictObject, ...),
// so whatever takes a dict takes it (dict's methods, json, `**`), with the
// class as its type and an instance __dict__; each hook runs the dunder the
// class defines (__getitem__, __repr__, __len__, ...) and else the built-in
// type's own. A dict subclass's __missing__ is DictObject::get_item's.
// Like CPython, JAX's pytrees take them as leaves (tree_module.cpp).
// An int or float subclass's instance is a Value holding the number inline
// and the instance (a SubclassInstance<NumberBox>) beside it (value.hpp):
// whatever reads a number reads it, and the protocols ask its hooks; the
// number's own arithmetic returns plain ints and floats, as CPython's does.

#include "interp/python/builtin_subclasses.hpp"

namespace interp {

namespace ast = lang::ast;

namespace {

// The types a class may derive from: the built-in ones here, and the
// library's with a subclass maker.
bool subclassable(const TypeObject* type) {
  return type->subclass_maker() || type == types::integer().get() || type == types::floating().get() || type == types::dict().get() ||
         type == types::list().get() || type == types::set().get() || type == types::frozenset().get() ||
         type == types::tuple().get() || type == types::str().get();
}

}  // namespace

const TypeObject* builtin_base(const TypeObject& cls) {
  for (const TypeObject* type : cls.ancestors())
    if (subclassable(type)) return type;
  return nullptr;
}

bool is_subclassable_builtin(const TypeObject& type) { return subclassable(&type); }

std::vector<std::pair<std::string, Value>> keyword_arguments(const Value& kwargs) {
  std::vector<std::pair<std::string, Value>> keywords;
  for (const auto& e : kwargs.as<DictObject>()->table.entries())
    if (e.live) keywords.emplace_back(*string_of(e.key), e.value);
  return keywords;
}

void add_builtin_new(TypeObject& type) {
  TypeObject* builtin = &type;
  type.add_method("__new__(cls, /, *args, **kwargs)", [builtin](Evaluator& ev, Arguments& a) {
    const std::string& name = builtin->name();
    auto* cls = a[0].as<TypeObject>();
    if (!cls) raise(exc::TypeError(), name + ".__new__(X): X is not a type object (" + type_name(a[0]) + ")");
    CallArgs args{a[1].as<TupleObject>()->items, keyword_arguments(a[2])};
    if (cls == builtin) return builtin->call(ev, args);
    if (!cls->as_class() && cls->is_subclass_of(*builtin))  // int.__new__(bool): the subtype's own __new__ must make it
      raise(exc::TypeError(), name + ".__new__(" + cls->name() + ") is not safe, use " + cls->name() + ".__new__()");
    auto* user = const_cast<ClassObject*>(cls->as_class());
    if (!user || builtin_base(*user) != builtin)
      raise(exc::TypeError(), name + ".__new__(" + cls->name() + "): " + cls->name() + " is not a subtype of " + name);
    return *make_builtin_subclass_instance(ev, *user, args);
  });
}

std::optional<Value> make_builtin_subclass_instance(Evaluator& evaluator, ClassObject& cls, CallArgs& args) {
  const TypeObject* builtin = builtin_base(cls);
  if (!builtin) return std::nullopt;
  TypeRef ref = std::static_pointer_cast<TypeObject>(cls.self());
  // Made empty, then filled by __init__: a library type's, dict, list and set;
  // made from the call's arguments (__new__): tuple, str, frozenset, int and float.
  if (builtin->subclass_maker()) return builtin->subclass_maker()(evaluator, ref);
  if (builtin == types::dict().get()) return Value(std::make_shared<SubclassInstance<DictObject>>(ref, evaluator));
  if (builtin == types::list().get())
    return Value(std::make_shared<SubclassInstance<ListObject>>(ref, evaluator, std::vector<Value>{}));
  if (builtin == types::set().get()) return Value(std::make_shared<SubclassInstance<SetObject>>(ref, evaluator));
  if (builtin == types::integer().get() || builtin == types::floating().get()) {
    Value number = const_cast<TypeObject*>(builtin)->call(evaluator, args).plain_number();
    return Value::number_instance(number, std::make_shared<SubclassInstance<NumberBox>>(ref, evaluator, number));
  }
  // The immutable ones: their __new__ takes the call's arguments.
  if (builtin != types::str().get() && args.positional.size() > 1)
    raise(exc::TypeError(), builtin->name() + " expected at most 1 argument, got " + std::to_string(args.positional.size()));
  Value made = const_cast<TypeObject*>(builtin)->call(evaluator, args);
  if (auto* tuple = made.as<TupleObject>())
    return Value(std::make_shared<SubclassInstance<TupleObject>>(ref, evaluator, tuple->items));
  if (auto* set = made.as<SetObject>()) {
    auto instance = std::make_shared<SubclassInstance<SetObject>>(ref, evaluator);
    instance->table = set->table;
    instance->frozen = true;
    return Value(instance);
  }
  return Value(std::make_shared<SubclassInstance<StrObject>>(ref, evaluator, *string_of(made)));
}

}  // namespace interp
