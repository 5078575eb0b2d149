// The VJP rules of the elementwise primitives (vjp_rules.hpp).
#include "interp/ops/vjp_rules.hpp"
#include "interp/ops/vjp_support.hpp"

namespace interp::vjp {

using typecheck::DType;

Cotangents zero_vjp(const VjpCall& call) { return Cotangents(call.operands.size()); }

Cotangents identity_vjp(const VjpCall& call) {
  Cotangents out(call.operands.size());
  out[0] = call.cotangent;
  return out;
}

Cotangents not_differentiable(const VjpCall& call) {
  raise(exc::NotImplementedError(), "Differentiation rule for '" + std::string(call.primitive.name) + "' not implemented");
}

Cotangents add_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  return {unbroadcast(ev, ct, x[0]), unbroadcast(ev, ct, x[1])};
}

Cotangents subtract_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  return {unbroadcast(ev, ct, x[0]), needs[1] ? unbroadcast(ev, neg(ev, ct), x[1]) : nullptr};
}

Cotangents multiply_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  return {needs[0] ? unbroadcast(ev, mul(ev, ct, x[1]), x[0]) : nullptr,
          needs[1] ? unbroadcast(ev, mul(ev, ct, x[0]), x[1]) : nullptr};
}

Cotangents divide_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  return {needs[0] ? unbroadcast(ev, div(ev, ct, x[1]), x[0]) : nullptr,
          needs[1] ? unbroadcast(ev, neg(ev, div(ev, mul(ev, ct, result), x[1])), x[1]) : nullptr};
}

// JAX's atan2 JVPs: d/da atan2(a, b) = b / (a^2 + b^2), d/db = -a / (a^2 + b^2).
Cotangents arctan2_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  ArrayRef radius = add(ev, mul(ev, x[0], x[0]), mul(ev, x[1], x[1]));
  return {needs[0] ? unbroadcast(ev, mul(ev, ct, div(ev, x[1], radius)), x[0]) : nullptr,
          needs[1] ? unbroadcast(ev, mul(ev, ct, div(ev, neg(ev, x[0]), radius)), x[1]) : nullptr};
}

namespace {

// max/min: the cotangent goes to the chosen operand, split evenly on ties (as JAX).
Cotangents extremum_vjp(const VjpCall& call, bool is_max) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  DType dtype = result->aval.dtype;
  ArrayRef first = add(ev, indicator(ev, is_max ? "greater" : "less", x[0], x[1], dtype),
                       mul(ev, indicator(ev, "equal", x[0], x[1], dtype), 0.5));
  ArrayRef second = sub(ev, convert(ev, scalar(ev, 1.0), dtype), first);
  return {unbroadcast(ev, mul(ev, ct, first), x[0]), unbroadcast(ev, mul(ev, ct, second), x[1])};
}

// Unary rules: the cotangent times the derivative, from the operand x and the result y.
using Derivative = ArrayRef (*)(Evaluator& ev, const ArrayRef& x, const ArrayRef& y);
Cotangents unary_vjp(const VjpCall& call, Derivative derivative) {
  return {mul(call.evaluator, call.cotangent, derivative(call.evaluator, call.operands[0], call.result))};
}

}  // namespace

Cotangents maximum_vjp(const VjpCall& call) { return extremum_vjp(call, true); }
Cotangents minimum_vjp(const VjpCall& call) { return extremum_vjp(call, false); }

Cotangents power_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  ArrayRef dx, dy;
  if (needs[0]) {
    ArrayRef lowered = apply(ev, "power", {x[0], sub(ev, x[1], scalar(ev, 1.0))});
    dx = unbroadcast(ev, mul(ev, ct, mul(ev, x[1], lowered)), x[0]);
  }
  if (needs[1]) dy = unbroadcast(ev, mul(ev, ct, mul(ev, apply(ev, "log", {x[0]}), result)), x[1]);
  return {dx, dy};
}

// JAX's _integer_pow_jvp: g * (y * x ** (y - 1)), zero for y = 0.
Cotangents integer_pow_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  const std::int64_t y = *params.get<std::int64_t>("y");
  if (y == 0) return {zeros_for(ev, x[0], ct, x[0]->aval.dtype)};
  Params lowered;
  lowered.set("y", y - 1);
  return {mul(ev, ct, mul(ev, scalar(ev, static_cast<double>(y)), apply(ev, "integer_pow", {x[0]}, lowered)))};
}

// JAX's clamp JVPs transposed: min's where min > x (and min < max), x's
// where min < x < max, max's where max < x; a scalar bound's summed.
Cotangents clamp_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  const ArrayRef &lo = x[0], &operand = x[1], &hi = x[2];
  const DType dtype = ct->aval.dtype;
  Cotangents out(3);
  if (needs[0])
    out[0] = unbroadcast(ev, mul(ev, ct, mul(ev, indicator(ev, "greater", lo, operand, dtype), indicator(ev, "less", lo, hi, dtype))), lo);
  if (needs[1])
    out[1] = mul(ev, ct, mul(ev, indicator(ev, "greater", operand, lo, dtype), indicator(ev, "less", operand, hi, dtype)));
  if (needs[2]) out[2] = unbroadcast(ev, mul(ev, ct, indicator(ev, "less", hi, operand, dtype)), hi);
  return out;
}

// JAX's deflinear: reduce_precision of the cotangent, with the same params.
Cotangents reduce_precision_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  return {apply(ev, "reduce_precision", {ct}, params)};
}

Cotangents exp_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator&, const ArrayRef&, const ArrayRef& y) { return y; });
}
Cotangents log_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef& x, const ArrayRef&) { return div(ev, scalar(ev, 1.0), x); });
}
Cotangents log1p_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef& x, const ArrayRef&) {
    return div(ev, scalar(ev, 1.0), add(ev, x, 1.0));
  });
}
Cotangents expm1_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef&, const ArrayRef& y) { return add(ev, y, 1.0); });
}
// d erf(x) = 2/sqrt(pi) exp(-x^2).
Cotangents erf_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef& x, const ArrayRef&) {
    return mul(ev, apply(ev, "exp", {neg(ev, mul(ev, x, x))}), 1.1283791670955126);
  });
}
// d erf_inv(x) = sqrt(pi)/2 exp(erf_inv(x)^2).
Cotangents erf_inv_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef&, const ArrayRef& y) {
    return mul(ev, apply(ev, "exp", {mul(ev, y, y)}), 0.88622692545275801);
  });
}
Cotangents sqrt_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef&, const ArrayRef& y) { return div(ev, scalar(ev, 0.5), y); });
}
Cotangents rsqrt_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef& x, const ArrayRef& y) { return mul(ev, div(ev, y, x), -0.5); });
}
Cotangents square_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef& x, const ArrayRef&) { return mul(ev, x, 2.0); });
}
Cotangents tanh_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef&, const ArrayRef& y) {
    return sub(ev, scalar(ev, 1.0), mul(ev, y, y));
  });
}
Cotangents tan_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef&, const ArrayRef& y) { return add(ev, mul(ev, y, y), 1.0); });
}
Cotangents sin_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef& x, const ArrayRef&) { return apply(ev, "cos", {x}); });
}
Cotangents cos_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef& x, const ArrayRef&) { return neg(ev, apply(ev, "sin", {x})); });
}
Cotangents abs_vjp(const VjpCall& call) {
  return unary_vjp(call, [](Evaluator& ev, const ArrayRef& x, const ArrayRef&) { return apply(ev, "sign", {x}); });
}

Cotangents negative_vjp(const VjpCall& call) { return {neg(call.evaluator, call.cotangent)}; }

// select_n(which, *cases): each case's cotangent is the result's where
// `which` picks it (a mask product, so mixed shardings combine as in any
// elementwise product).
Cotangents select_n_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  Cotangents out(x.size());
  DType dtype = ct->aval.dtype;
  for (std::size_t i = 1; i < x.size(); ++i) {
    if (!needs[i]) continue;
    ArrayRef mask = x[0]->aval.dtype == DType::bool_
                        ? convert(ev, x[0], dtype)
                        : indicator(ev, "equal", x[0], to_array(ev, Value::integer(static_cast<std::int64_t>(i - 1))), dtype);
    if (x[0]->aval.dtype == DType::bool_ && i == 1) mask = sub(ev, convert(ev, scalar(ev, 1.0), dtype), mask);
    out[i] = unbroadcast(ev, mul(ev, ct, mask), x[i]);
  }
  return out;
}

// remainder(x, y) = x - y * q with q = floor(x / y) (the rounded quotient
// the primitive used, recovered exactly as (x - r) / y).
Cotangents remainder_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  Cotangents out(2);
  if (needs[0]) out[0] = unbroadcast(ev, ct, x[0]);
  if (needs[1]) {
    ArrayRef quotient = div(ev, sub(ev, x[0], result), x[1]);
    out[1] = unbroadcast(ev, neg(ev, mul(ev, ct, quotient)), x[1]);
  }
  return out;
}

}  // namespace interp::vjp
