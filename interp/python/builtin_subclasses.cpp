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

#include <algorithm>
#include <type_traits>

#include "interp/python/classes.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/python/format.hpp"

namespace interp {

namespace ast = lang::ast;

namespace {

// The number of an int or float subclass's instance: what the built-in type
// does with it (repr, arithmetic on the plain numbers, hashing as the number).
class NumberBox : public Object {
 public:
  explicit NumberBox(Value number) : number_(std::move(number)) {}
  const TypeRef& type() const override { return number_.is_float() ? types::floating() : types::integer(); }
  const Value& number() const { return number_; }

  std::string repr(Evaluator& evaluator) const override { return evaluator.repr(number_); }
  std::optional<std::string> format(Evaluator& evaluator, std::string_view spec) const override {
    if (spec.empty()) return std::nullopt;  // str(self), as int.__format__ does
    return format_value(evaluator, number_, spec);
  }
  std::optional<Value> binary_op(Evaluator& evaluator, ast::BinaryOperator op, const Value& other,
                                 bool reflected) override {
    if (!other.is_number()) return std::nullopt;
    Value mine = number_, theirs = other.plain_number();
    return reflected ? evaluator.binary(op, theirs, mine) : evaluator.binary(op, mine, theirs);
  }
  std::optional<Value> unary_op(Evaluator& evaluator, ast::UnaryOperator op) override {
    return evaluator.unary(op, number_);
  }
  std::optional<Value> compare(Evaluator& evaluator, ast::CompareOperator op, const Value& other, bool) override {
    if (!other.is_number()) return std::nullopt;
    return evaluator.compare(op, number_, other.plain_number());
  }
  bool truthy(Evaluator&) const override { return number_.as_float() != 0; }
  std::optional<std::size_t> hash() const override { return hash_value(number_); }
  bool equals(const Value& other) const override {
    return other.is_number() && values_equal(number_, other.plain_number());
  }

 private:
  Value number_;
};

template <class Base>
class SubclassInstance final : public Base {
 public:
  template <class... Args>
  SubclassInstance(TypeRef cls, Evaluator& evaluator, Args&&... args)
      : Base(std::forward<Args>(args)...), cls_(std::move(cls)), evaluator_(&evaluator) {}

  const TypeRef& type() const override { return cls_; }
  AttributeList* instance_dict() override { return &attributes_; }

  std::string repr(Evaluator& evaluator) const override {
    if (auto text = dunder_text(evaluator, me(), "__repr__")) return *text;
    if constexpr (std::is_same_v<Base, SetObject>) return set_repr(evaluator);
    else return Base::repr(evaluator);
  }
  std::string str(Evaluator& evaluator) const override {
    if (auto text = dunder_text(evaluator, me(), "__str__")) return *text;
    return Base::str(evaluator);
  }
  std::optional<std::string> format(Evaluator& evaluator, std::string_view spec) const override {
    if (auto text = dunder_format(evaluator, me(), spec)) return text;
    return Base::format(evaluator, spec);
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    return instance_attribute(evaluator, me(), attributes_, name);
  }
  bool set_attribute(Evaluator& evaluator, const std::string& name, const Value& value) override {
    set_instance_attribute(evaluator, me(), attributes_, name, value);
    return true;
  }
  std::vector<std::string> attribute_names() const override {
    std::vector<std::string> names = cls_->attribute_names();
    for (const auto& [name, value] : attributes_) names.push_back(name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }
  bool callable() const override { return find_class_member(*cls_, "__call__") != nullptr; }
  Value call(Evaluator& evaluator, CallArgs& args) override {
    const Value* method = find_class_member(*cls_, "__call__");
    if (!method) return Base::call(evaluator, args);
    args.positional.insert(args.positional.begin(), me());
    return evaluator.call(*method, args);
  }
  std::optional<Value> binary_op(Evaluator& evaluator, ast::BinaryOperator op, const Value& other,
                                 bool reflected) override {
    if (auto result = dunder_binary(evaluator, me(), op, other, reflected, false)) return result;
    return Base::binary_op(evaluator, op, other, reflected);
  }
  std::optional<Value> binary_inplace(Evaluator& evaluator, ast::BinaryOperator op, const Value& other) override {
    if (auto result = dunder_binary(evaluator, me(), op, other, false, true)) return result;
    return Base::binary_inplace(evaluator, op, other);
  }
  std::optional<Value> unary_op(Evaluator& evaluator, ast::UnaryOperator op) override {
    if (auto result = dunder_unary(evaluator, me(), op)) return result;
    return Base::unary_op(evaluator, op);
  }
  std::optional<Value> compare(Evaluator& evaluator, ast::CompareOperator op, const Value& other,
                               bool reflected) override {
    // != is the built-in type's unless the class defines __ne__ (not object's negated __eq__).
    bool own = op != ast::CompareOperator::not_eq_ || find_class_member(*cls_, "__ne__");
    if (own)
      if (auto result = dunder_compare(evaluator, me(), op, other)) return result;
    return Base::compare(evaluator, op, other, reflected);
  }
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override {
    if (auto item = call_special(evaluator, me(), "__getitem__", {key})) return item;
    return Base::get_item(evaluator, key);
  }
  bool set_item(Evaluator& evaluator, const Value& key, const Value& value) override {
    if (call_special(evaluator, me(), "__setitem__", {key, value})) return true;
    return Base::set_item(evaluator, key, value);
  }
  bool delete_item(Evaluator& evaluator, const Value& key) override {
    if (call_special(evaluator, me(), "__delitem__", {key})) return true;
    return Base::delete_item(evaluator, key);
  }
  IteratorRef iterate(Evaluator& evaluator) override {
    if (IteratorRef iterator = dunder_iterate(evaluator, me())) return iterator;
    return Base::iterate(evaluator);
  }
  std::optional<std::int64_t> length(Evaluator& evaluator) const override {
    if (auto n = dunder_length(evaluator, me())) return n;
    return Base::length(evaluator);
  }
  std::optional<bool> contains(Evaluator& evaluator, const Value& item) override {
    if (auto found = dunder_contains(evaluator, me(), item)) return found;
    return Base::contains(evaluator, item);
  }
  bool truthy(Evaluator& evaluator) const override {
    if (auto truth = dunder_bool(evaluator, me())) return *truth;
    return Base::truthy(evaluator);
  }
  std::optional<std::size_t> hash() const override {
    if (auto hashed = dunder_hash(*evaluator_, me())) return *hashed;
    return Base::hash();
  }
  bool equals(const Value& other) const override {
    if (other.is_object() && other.object().get() == this) return true;
    if (auto equal = dunder_equals(*evaluator_, me(), other)) return *equal;
    return Base::equals(other);
  }
  std::optional<Value> enter(Evaluator& evaluator) override {
    if (!find_class_member(*cls_, "__exit__")) return Base::enter(evaluator);
    return call_special(evaluator, me(), "__enter__", {});
  }
  bool exit(Evaluator& evaluator, const Value* pending) override {
    if (!find_class_member(*cls_, "__exit__")) return Base::exit(evaluator, pending);
    return dunder_exit(evaluator, me(), pending);
  }

 private:
  Value me() const {
    ObjectRef self = const_cast<SubclassInstance*>(this)->shared_from_this();
    if constexpr (std::is_same_v<Base, NumberBox>) return Value::number_instance(this->number(), std::move(self));
    else return Value(std::move(self));
  }
  // CPython's set_repr for a subclass: Name() or Name({1, 2}).
  std::string set_repr(Evaluator& evaluator) const {
    if (this->table.size() == 0) return cls_->name() + "()";
    std::string out;
    for (const auto& e : this->table.entries())
      if (e.live) out += (out.empty() ? "" : ", ") + evaluator.repr(e.key);
    return cls_->name() + "({" + out + "})";
  }

  TypeRef cls_;
  Evaluator* evaluator_;  // runs __hash__ and __eq__ for dict keys, as InstanceObject's
  AttributeList attributes_;
};

// The types a class may derive from, and whether their instances are made
// by the type's constructor (__new__: tuple, str, frozenset) rather than
// empty and then filled by __init__ (dict, list, set).
bool subclassable(const TypeObject* type) {
  return type == types::integer().get() || type == types::floating().get() || type == types::dict().get() ||
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

void add_builtin_new(TypeObject& type) {
  TypeObject* builtin = &type;
  type.add_method("__new__(cls, /, *args, **kwargs)", [builtin](Evaluator& ev, Arguments& a) {
    const std::string& name = builtin->name();
    auto* cls = a[0].as<TypeObject>();
    if (!cls) raise(exc::TypeError(), name + ".__new__(X): X is not a type object (" + type_name(a[0]) + ")");
    CallArgs args{a[1].as<TupleObject>()->items, {}};
    for (const auto& e : a[2].as<DictObject>()->table.entries())
      if (e.live) args.keywords.emplace_back(*string_of(e.key), e.value);
    if (cls == builtin) return builtin->call(ev, args);
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
