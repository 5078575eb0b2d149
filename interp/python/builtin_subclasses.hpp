// Instances of user classes deriving from a built-in type (dict, list,
// set, frozenset, tuple, str, int, float, and the library's types that
// register a maker: collections' defaultdict, OrderedDict, Counter, deque).
// Each is a real object of its built-in kind (SubclassInstance<DictObject>,
// ...), so that code taking a dict by as<DictObject>() takes it, whose hooks
// ask the class's dunders (classes.hpp) before the built-in's own. See
// builtin_subclasses.cpp.
#pragma once

#include <algorithm>
#include <type_traits>

#include "interp/python/classes.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/python/format.hpp"

namespace interp {

// A **kwargs dict (its keys are str) as a call's keyword arguments, for a
// built-in __init__ or __new__ passing its arguments on.
std::vector<std::pair<std::string, Value>> keyword_arguments(const Value& kwargs);

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
  std::optional<Value> binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                 bool reflected) override {
    if (!other.is_number()) return std::nullopt;
    Value mine = number_, theirs = other.plain_number();
    return reflected ? evaluator.binary(op, theirs, mine) : evaluator.binary(op, mine, theirs);
  }
  std::optional<Value> unary_op(Evaluator& evaluator, lang::ast::UnaryOperator op) override {
    return evaluator.unary(op, number_);
  }
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other, bool) override {
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
    if (auto found = instance_attribute(evaluator, me(), attributes_, name)) return found;
    return Base::get_attribute(evaluator, name);  // the built-in's own attributes (deque.maxlen)
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
  std::optional<Value> binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                 bool reflected) override {
    if (auto result = dunder_binary(evaluator, me(), op, other, reflected, false)) return result;
    return Base::binary_op(evaluator, op, other, reflected);
  }
  std::optional<Value> binary_inplace(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other) override {
    if (auto result = dunder_binary(evaluator, me(), op, other, false, true)) return result;
    return Base::binary_inplace(evaluator, op, other);
  }
  std::optional<Value> unary_op(Evaluator& evaluator, lang::ast::UnaryOperator op) override {
    if (auto result = dunder_unary(evaluator, me(), op)) return result;
    return Base::unary_op(evaluator, op);
  }
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override {
    // != is the built-in type's unless the class defines __ne__ (not object's negated __eq__).
    bool own = op != lang::ast::CompareOperator::not_eq_ || find_class_member(*cls_, "__ne__");
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

}  // namespace interp
