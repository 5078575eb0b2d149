// Python's protocols on values (repr, str, truth, operators, comparisons,
// attributes, items, iteration, len, __index__), with the arithmetic of the
// built-in numbers.

#include "interp/python/evaluator.hpp"

#include <cmath>
#include <limits>

#include "interp/python/classes.hpp"
#include "interp/python/fast_arithmetic.hpp"
#include "interp/python/format.hpp"
#include "interp/transforms/check_mode.hpp"

namespace interp {

namespace ast = lang::ast;
using BinOpKind = ast::BinaryOperator;
using CmpOp = ast::CompareOperator;

namespace {

[[noreturn]] void integer_overflow() { raise(exc::OverflowError(), "integer overflow: result does not fit in 64 bits"); }

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  if (a == std::numeric_limits<std::int64_t>::min() && b == -1) integer_overflow();
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  if (b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

double float_floor_mod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  if (r == 0) r = std::copysign(0.0, b);
  return r;
}

std::int64_t int_power(std::int64_t base, std::int64_t exponent) {
  std::int64_t result = 1;
  while (exponent > 0) {
    if (exponent & 1)
      if (__builtin_mul_overflow(result, base, &result)) integer_overflow();
    exponent >>= 1;
    if (exponent > 0 && __builtin_mul_overflow(base, base, &base)) integer_overflow();
  }
  return result;
}

std::optional<Value> numeric_binary(BinOpKind op, const Value& a, const Value& b) {
  if (a.is_integral() && b.is_integral()) {
    std::int64_t x = a.as_int(), y = b.as_int(), r = 0;
    switch (op) {
      case BinOpKind::add: if (__builtin_add_overflow(x, y, &r)) integer_overflow(); return Value::integer(r);
      case BinOpKind::sub: if (__builtin_sub_overflow(x, y, &r)) integer_overflow(); return Value::integer(r);
      case BinOpKind::mult: if (__builtin_mul_overflow(x, y, &r)) integer_overflow(); return Value::integer(r);
      case BinOpKind::div:
        if (y == 0) raise(exc::ZeroDivisionError(), "division by zero");
        return Value::floating(static_cast<double>(x) / static_cast<double>(y));
      case BinOpKind::floordiv:
        if (y == 0) raise(exc::ZeroDivisionError(), "integer division or modulo by zero");
        return Value::integer(floor_div(x, y));
      case BinOpKind::mod:
        if (y == 0) raise(exc::ZeroDivisionError(), "integer modulo by zero");
        return Value::integer(floor_mod(x, y));
      case BinOpKind::pow:
        if (y < 0) {
          if (x == 0) raise(exc::ZeroDivisionError(), "0.0 cannot be raised to a negative power");
          return Value::floating(std::pow(static_cast<double>(x), static_cast<double>(y)));
        }
        return Value::integer(int_power(x, y));
      case BinOpKind::lshift:
        if (y < 0) raise(exc::ValueError(), "negative shift count");
        if (x == 0) return Value::integer(0);
        if (y >= 63 || (x > 0 ? x > (std::numeric_limits<std::int64_t>::max() >> y)
                               : x < (std::numeric_limits<std::int64_t>::min() >> y)))
          integer_overflow();
        return Value::integer(static_cast<std::int64_t>(static_cast<std::uint64_t>(x) << y));
      case BinOpKind::rshift:
        if (y < 0) raise(exc::ValueError(), "negative shift count");
        return Value::integer(y >= 63 ? (x < 0 ? -1 : 0) : x >> y);
      case BinOpKind::bitand_: return a.is_bool() && b.is_bool() ? Value::boolean(x & y) : Value::integer(x & y);
      case BinOpKind::bitor_: return a.is_bool() && b.is_bool() ? Value::boolean(x | y) : Value::integer(x | y);
      case BinOpKind::bitxor: return a.is_bool() && b.is_bool() ? Value::boolean(x ^ y) : Value::integer(x ^ y);
      case BinOpKind::matmult: return std::nullopt;
    }
    return std::nullopt;
  }
  double x = a.as_float(), y = b.as_float();
  switch (op) {
    case BinOpKind::add: return Value::floating(x + y);
    case BinOpKind::sub: return Value::floating(x - y);
    case BinOpKind::mult: return Value::floating(x * y);
    case BinOpKind::div:
      if (y == 0) raise(exc::ZeroDivisionError(), "float division by zero");
      return Value::floating(x / y);
    case BinOpKind::floordiv:
      if (y == 0) raise(exc::ZeroDivisionError(), "float floor division by zero");
      return Value::floating(std::floor(x / y));
    case BinOpKind::mod:
      if (y == 0) raise(exc::ZeroDivisionError(), "float modulo");
      return Value::floating(float_floor_mod(x, y));
    case BinOpKind::pow: {
      if (x == 0 && y < 0) raise(exc::ZeroDivisionError(), "0.0 cannot be raised to a negative power");
      if (x < 0 && y != std::floor(y)) raise(exc::ValueError(), "math domain error (a complex result)");
      double r = std::pow(x, y);
      if (std::isinf(r) && std::isfinite(x) && std::isfinite(y))
        raise(exc::OverflowError(), "(34, 'Numerical result out of range')");
      return Value::floating(r);
    }
    default: return std::nullopt;
  }
}

const char* operator_text(BinOpKind op) {
  if (op == BinOpKind::pow) return "** or pow()";
  return ast::binary_operator_symbol(op);
}

CmpOp swapped(CmpOp op) {
  switch (op) {
    case CmpOp::lt: return CmpOp::gt;
    case CmpOp::gt: return CmpOp::lt;
    case CmpOp::lt_e: return CmpOp::gt_e;
    case CmpOp::gt_e: return CmpOp::lt_e;
    default: return op;
  }
}

// Whether the right operand's type is a proper subclass of the left's:
// CPython then asks the right operand's reflected method first.
bool right_is_subclass(const Value& left, const Value& right) {
  const TypeRef& left_type = type_of(left);
  const TypeRef& right_type = type_of(right);
  return left_type != right_type && right_type->is_subclass_of(*left_type);
}

// binary_op1's rule: the right operand goes first when its type is a proper
// subclass of the left's with a reflected method of its own, not the left's.
bool reflected_first(BinOpKind op, const Value& left, const Value& right) {
  if (!right_is_subclass(left, right)) return false;
  const char* name = binary_dunder_name(op, true, false);
  const Value* right_method = find_class_member(*type_of(right), name);
  if (!right_method) return false;
  const Value* left_method = find_class_member(*type_of(left), name);
  return !left_method || !left_method->is_same(*right_method);
}

// -1, 0, 1, or 2 when unordered (nan).
int compare_numbers(const Value& a, const Value& b) {
  if (a.is_integral() && b.is_integral()) return a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int() ? 1 : 0;
  if (a.is_integral() != b.is_integral()) {
    // Compare an int with a float exactly where the float is integral.
    const Value& i = a.is_integral() ? a : b;
    double d = a.is_integral() ? b.as_float() : a.as_float();
    if (std::isnan(d)) return 2;
    int sign = a.is_integral() ? 1 : -1;
    if (d >= 9.3e18) return -sign;
    if (d <= -9.3e18) return sign;
    double whole = std::floor(d);
    auto w = static_cast<std::int64_t>(whole);
    if (i.as_int() < w) return -sign;
    if (i.as_int() > w) return sign;
    return d > whole ? -sign : 0;
  }
  double x = a.as_float(), y = b.as_float();
  if (std::isnan(x) || std::isnan(y)) return 2;
  return x < y ? -1 : x > y ? 1 : 0;
}

}  // namespace

// ------------------------------------------------------------ protocols

std::string Evaluator::repr(const Value& value) {
  if (!value.has_hooks()) switch (value.kind()) {
      case Value::Kind::none: return "None";
      case Value::Kind::boolean: return value.as_bool() ? "True" : "False";
      case Value::Kind::integer: return std::to_string(value.as_int());
      case Value::Kind::floating: return float_repr(value.as_float());
      case Value::Kind::object: break;
    }
  // Containers recurse through repr: count it as Python counts C recursion.
  guard_stack();
  if (depth_ >= recursion_limit)
    raise(exc::RecursionError(), "maximum recursion depth exceeded while getting the repr of an object");
  ++depth_;
  try {
    std::string text = value.object()->repr(*this);
    --depth_;
    return text;
  } catch (...) {
    --depth_;
    throw;
  }
}

std::string Evaluator::str(const Value& value) {
  if (value.has_hooks()) {
    guard_stack();
    return value.object()->str(*this);
  }
  return repr(value);
}

bool Evaluator::object_truthy(const Value& value) {
  if (mode == Mode::check) {
    auto* array = value.as<ArrayObject>();
    if (array && array->abstract() && devices::element_count(array->aval.shape) == 1) stop_checking(*this);
  }
  return value.object()->truthy(*this);
}

namespace {
// A binary operation past the fast paths of Evaluator::binary: any numbers,
// then the operands' hooks with Python's reflected protocol. Kept out of
// line so that the fast paths need no stack frame of their own.
// "str", "list" or "tuple" when `value` is one, whose + takes only its own kind.
const char* concatenated_type(const Value& value) {
  if (value.as<StrObject>()) return "str";
  if (value.as<ListObject>()) return "list";
  if (value.as<TupleObject>()) return "tuple";
  return nullptr;
}

[[gnu::noinline]] Value general_binary(Evaluator& evaluator, BinOpKind op, const Value& left, const Value& right) {
  if (left.is_number() && right.is_number() && !left.has_hooks() && !right.has_hooks()) {
    if (auto r = numeric_binary(op, left, right)) return *r;
  }
  bool right_first = right.has_hooks() && reflected_first(op, left, right);
  if (right_first)
    if (auto r = right.object()->binary_op(evaluator, op, left, true)) return *r;
  if (left.has_hooks())
    if (auto r = left.object()->binary_op(evaluator, op, right, false)) return *r;
  if (right.has_hooks() && !right_first)
    if (auto r = right.object()->binary_op(evaluator, op, left, true)) return *r;
  if (const char* sequence = op == BinOpKind::add ? concatenated_type(left) : nullptr)
    raise(exc::TypeError(), std::string("can only concatenate ") + sequence + " (not \"" + type_name(right) + "\") to " +
                                sequence);
  raise(exc::TypeError(), std::string("unsupported operand type(s) for ") + operator_text(op) + ": '" +
                              type_name(left) + "' and '" + type_name(right) + "'");
}
}  // namespace

Value Evaluator::binary(BinOpKind op, const Value& left, const Value& right) {
  Value result;
  if (quick_binary(op, left, right, result)) return result;
  if (op == BinOpKind::add) {
    const StrObject* a = exact_str(left);
    const StrObject* b = a != nullptr ? exact_str(right) : nullptr;
    if (b != nullptr) return concatenate(*a, *b);
  }
  return general_binary(*this, op, left, right);
}

Value Evaluator::inplace(BinOpKind op, const Value& left, const Value& right) {
  if (left.has_hooks())
    if (auto r = left.object()->binary_inplace(*this, op, right)) return *r;
  try {
    return binary(op, left, right);
  } catch (PyError& error) {
    // Python words the failure of `a += b` with "+=".
    if (error.exception->type() == exc::TypeError() && !left.is_number()) {
      auto* message = error.exception->args.empty() ? nullptr : string_of(error.exception->args[0]);
      if (message && message->rfind("unsupported operand", 0) == 0)
        raise(exc::TypeError(), std::string("unsupported operand type(s) for ") + ast::binary_operator_symbol(op) +
                                    "=: '" + type_name(left) + "' and '" + type_name(right) + "'");
    }
    throw;
  }
}

Value Evaluator::unary(ast::UnaryOperator op, const Value& operand) {
  if (op == ast::UnaryOperator::not_) return Value::boolean(!truthy(operand));
  if (operand.has_hooks()) {
    if (auto r = operand.object()->unary_op(*this, op)) return *r;
  } else if (operand.is_integral()) {
    std::int64_t x = operand.as_int();
    switch (op) {
      case ast::UnaryOperator::usub:
        if (x == std::numeric_limits<std::int64_t>::min()) integer_overflow();
        return Value::integer(-x);
      case ast::UnaryOperator::uadd: return Value::integer(x);
      case ast::UnaryOperator::invert: return Value::integer(~x);
      default: break;
    }
  } else if (operand.is_float()) {
    if (op == ast::UnaryOperator::usub) return Value::floating(-operand.as_float());
    if (op == ast::UnaryOperator::uadd) return operand;
  }
  raise(exc::TypeError(), std::string("bad operand type for unary ") + ast::unary_operator_symbol(op) + ": '" +
                              type_name(operand) + "'");
}

namespace {
// A comparison past the fast path of Evaluator::compare, kept out of line as
// general_binary is.
[[gnu::noinline]] Value general_compare(Evaluator& evaluator, CmpOp op, const Value& left, const Value& right) {
  switch (op) {
    case CmpOp::is: return Value::boolean(left.is_same(right));
    case CmpOp::is_not: return Value::boolean(!left.is_same(right));
    case CmpOp::in: return Value::boolean(evaluator.contains(right, left));
    case CmpOp::not_in: return Value::boolean(!evaluator.contains(right, left));
    default: break;
  }
  if (left.is_number() && right.is_number() && !left.has_hooks() && !right.has_hooks()) {
    int c = compare_numbers(left, right);
    switch (op) {
      case CmpOp::eq: return Value::boolean(c == 0);
      case CmpOp::not_eq_: return Value::boolean(c != 0);
      case CmpOp::lt: return Value::boolean(c == -1);
      case CmpOp::lt_e: return Value::boolean(c == -1 || c == 0);
      case CmpOp::gt: return Value::boolean(c == 1);
      case CmpOp::gt_e: return Value::boolean(c == 1 || c == 0);
      default: break;
    }
  }
  // do_richcompare: a right operand of a proper subclass goes first.
  bool right_first = right.has_hooks() && right_is_subclass(left, right);
  if (right_first)
    if (auto r = right.object()->compare(evaluator, swapped(op), left, true)) return *r;
  if (left.has_hooks())
    if (auto r = left.object()->compare(evaluator, op, right, false)) return *r;
  if (right.has_hooks() && !right_first)
    if (auto r = right.object()->compare(evaluator, swapped(op), left, true)) return *r;
  if (op == CmpOp::eq) return Value::boolean(left.is_same(right) || values_equal(left, right));
  if (op == CmpOp::not_eq_) return Value::boolean(!(left.is_same(right) || values_equal(left, right)));
  raise(exc::TypeError(), std::string("'") + ast::compare_operator_symbol(op) + "' not supported between instances of '" +
                              type_name(left) + "' and '" + type_name(right) + "'");
}

}  // namespace

Value Evaluator::compare(CmpOp op, const Value& left, const Value& right) {
  Value result;
  if (quick_compare(op, left, right, result)) return result;
  return general_compare(*this, op, left, right);
}

bool Evaluator::compare_bool(CmpOp op, const Value& left, const Value& right) { return truthy(compare(op, left, right)); }

bool Evaluator::contains(const Value& container, const Value& item) {
  if (container.has_hooks()) {
    if (auto r = container.object()->contains(*this, item)) return *r;
    if (IteratorRef it = container.object()->iterate(*this)) {
      while (auto v = it->next(*this))
        if (v->is_same(item) || compare_bool(CmpOp::eq, *v, item)) return true;
      return false;
    }
  }
  raise(exc::TypeError(), "argument of type '" + type_name(container) + "' is not iterable");
}

std::optional<Value> Evaluator::find_attribute(const Value& object, const std::string& name) {
  if (object.has_hooks()) return object.object()->get_attribute(*this, name);
  for (const TypeObject* t = type_of(object).get(); t != nullptr; t = t->base().get())
    if (const ObjectRef* method = t->find_method(name)) return TypeObject::bind(*this, object, *method);
  return std::nullopt;
}

Value Evaluator::get_attribute(const Value& object, const std::string& name) {
  if (auto v = find_attribute(object, name)) return *v;
  if (auto* m = object.as<ModuleObject>())
    raise(exc::AttributeError(), m->initializing ? "partially initialized module '" + m->name() + "' has no attribute '" +
                                                       name + "' (most likely due to a circular import)"
                                                 : "module '" + m->name() + "' has no attribute '" + name + "'");
  if (auto* t = object.as<TypeObject>())
    raise(exc::AttributeError(), "type object '" + t->name() + "' has no attribute '" + name + "'");
  raise(exc::AttributeError(), "'" + type_name(object) + "' object has no attribute '" + name + "'");
}

Value Evaluator::get_item(const Value& object, const Value& key) {
  // Indexing a container by array data: check mode cannot follow it.
  if (is_unknown(key) && !object.as<ArrayObject>()) stop_checking(*this);
  if (object.has_hooks())
    if (auto v = object.object()->get_item(*this, key)) return *v;
  if (auto* t = object.as<TypeObject>()) {
    // list[int], tuple[int, ...]: type hints outside annotations evaluate to the class.
    (void)t;
    return object;
  }
  raise(exc::TypeError(), "'" + type_name(object) + "' object is not subscriptable");
}

void Evaluator::set_item(const Value& object, const Value& key, const Value& value) {
  if (object.has_hooks() && object.object()->set_item(*this, key, value)) return;
  raise(exc::TypeError(), "'" + type_name(object) + "' object does not support item assignment");
}

IteratorRef Evaluator::iterate(const Value& iterable) {
  if (iterable.has_hooks())
    if (IteratorRef it = iterable.object()->iterate(*this)) return it;
  raise(exc::TypeError(), "'" + type_name(iterable) + "' object is not iterable");
}

std::vector<Value> Evaluator::to_vector(const Value& iterable) {
  if (auto* seq = iterable.as<SequenceObject>())  // not a subclass's own __iter__
    if (!seq->type()->as_class() || !find_class_member(*seq->type(), "__iter__")) return seq->items;
  IteratorRef it = iterate(iterable);
  std::vector<Value> out;
  while (auto v = it->next(*this)) {
    out.push_back(std::move(*v));
    if ((out.size() & 0xffff) == 0) poll_interrupt();
  }
  return out;
}

std::int64_t Evaluator::length(const Value& value) {
  if (value.has_hooks())
    if (auto n = value.object()->length(*this)) return *n;
  raise(exc::TypeError(), "object of type '" + type_name(value) + "' has no len()");
}

std::int64_t Evaluator::index_of(const Value& value) {
  if (value.is_integral()) return value.as_int();
  if (value.as<InstanceObject>())
    if (auto index = call_special(*this, value, "__index__", {})) {
      if (!index->is_integral()) raise(exc::TypeError(), "__index__ returned non-int (type " + type_name(*index) + ")");
      return index->as_int();
    }
  if (is_unknown(value) || (mode == Mode::check && is_abstract_array(value))) stop_checking(*this);
  raise(exc::TypeError(), "'" + type_name(value) + "' object cannot be interpreted as an integer");
}

}  // namespace interp
