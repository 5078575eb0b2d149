// The commonest binary operations and comparisons, on two plain ints or two
// plain floats, done where they are asked for: Evaluator::binary and
// Evaluator::compare try these first, and so do the compiled bodies'
// operations (compiled.cpp) before they call those. Anything else (an
// overflow, a zero or negative divisor, a subclass instance, other kinds)
// is left to the general way.
#pragma once

#include <cstdint>

#include "interp/python/value.hpp"
#include "lang/ast.hpp"

namespace interp {

// left op right into `result`; false when the general way must do it.
[[gnu::always_inline]] inline bool quick_binary(lang::ast::BinaryOperator op, const Value& left, const Value& right, Value& result) {
  using Op = lang::ast::BinaryOperator;
  if (left.has_hooks() || right.has_hooks()) return false;
  if (left.is_int() && right.is_int()) {
    std::int64_t x = left.as_int(), y = right.as_int(), r = 0;
    switch (op) {
      case Op::add:
        if (__builtin_add_overflow(x, y, &r)) return false;
        break;
      case Op::sub:
        if (__builtin_sub_overflow(x, y, &r)) return false;
        break;
      case Op::mult:
        if (__builtin_mul_overflow(x, y, &r)) return false;
        break;
      case Op::floordiv:  // rounded down, as Python's //
        if (y <= 0) return false;
        r = x / y - (x % y != 0 && x < 0 ? 1 : 0);
        break;
      case Op::mod:  // of the divisor's sign, as Python's %
        if (y <= 0) return false;
        r = x % y;
        if (r < 0) r += y;
        break;
      case Op::bitand_: r = x & y; break;
      case Op::bitor_: r = x | y; break;
      case Op::bitxor: r = x ^ y; break;
      default: return false;
    }
    result = Value::integer(r);
    return true;
  }
  if (left.is_float() && right.is_float()) {
    double x = left.as_float(), y = right.as_float();
    switch (op) {
      case Op::add: result = Value::floating(x + y); return true;
      case Op::sub: result = Value::floating(x - y); return true;
      case Op::mult: result = Value::floating(x * y); return true;
      default: return false;
    }
  }
  return false;
}

// left op right, a comparison of two plain ints, into `result`; false for the rest.
[[gnu::always_inline]] inline bool quick_compare(lang::ast::CompareOperator op, const Value& left, const Value& right, Value& result) {
  using Op = lang::ast::CompareOperator;
  if (!left.is_int() || !right.is_int() || left.has_hooks() || right.has_hooks()) return false;
  std::int64_t a = left.as_int(), b = right.as_int();
  switch (op) {
    case Op::eq: result = Value::boolean(a == b); return true;
    case Op::not_eq_: result = Value::boolean(a != b); return true;
    case Op::lt: result = Value::boolean(a < b); return true;
    case Op::lt_e: result = Value::boolean(a <= b); return true;
    case Op::gt: result = Value::boolean(a > b); return true;
    case Op::gt_e: result = Value::boolean(a >= b); return true;
    default: return false;
  }
}

}  // namespace interp
