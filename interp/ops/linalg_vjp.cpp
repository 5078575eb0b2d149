// The VJPs of the linear-algebra primitives (vjp_rules.hpp).
#include "interp/ops/vjp_rules.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/python/objects.hpp"
#include "interp/ops/vjp_support.hpp"

namespace interp::vjp {

namespace {

// `x` with its last two dims swapped.
ArrayRef transposed(Evaluator& ev, const ArrayRef& x) {
  const auto rank = static_cast<std::int64_t>(x->aval.ndim());
  std::vector<std::int64_t> swap_last;
  for (std::int64_t d = 0; d < rank; ++d) swap_last.push_back(d < rank - 2 ? d : d == rank - 2 ? rank - 1 : rank - 2);
  Params permutation;
  permutation.set("permutation", swap_last);
  return apply(ev, "transpose", {x}, permutation);
}

// Per batch matrix, sum_k x[..., k, i] y[..., k, j] (xᵀ y), as a broadcast
// product summed over k.
ArrayRef transposed_product(Evaluator& ev, const ArrayRef& x, const ArrayRef& y) {
  const auto rank = static_cast<std::int64_t>(x->aval.ndim());
  typecheck::Shape shape = x->aval.shape;
  shape.push_back(y->aval.shape.back());
  std::vector<std::int64_t> x_dims, y_dims;
  for (std::int64_t d = 0; d < rank - 2; ++d) {
    x_dims.push_back(d);
    y_dims.push_back(d);
  }
  x_dims.insert(x_dims.end(), {rank - 2, rank - 1});
  y_dims.insert(y_dims.end(), {rank - 2, rank});
  return reduce_sum(ev, mul(ev, broadcast(ev, x, shape, x_dims), broadcast(ev, y, shape, y_dims)), {rank - 2});
}

// x times a lower-triangle mask of each batch matrix whose diagonal weighs
// `diagonal` (1: tril(x); 1/2: Φ(x)), the mask (1 - diagonal) tri(n, k=-1)
// + diagonal tri(n) made by jnp.tri.
ArrayRef lower(Evaluator& ev, const ArrayRef& x, double diagonal) {
  const std::int64_t n = x->aval.shape.back();
  const Value& tri = *ev.module("jax.numpy")->find("tri");
  const Value dtype = make_str(std::string(typecheck::long_name(x->aval.dtype)));
  CallArgs with_diagonal{{Value::integer(n)}, {{"dtype", dtype}}};
  CallArgs below{{Value::integer(n)}, {{"k", Value::integer(-1)}, {"dtype", dtype}}};
  ArrayRef mask = add(ev, mul(ev, to_array(ev, ev.call(tri, below)), 1.0 - diagonal),
                      mul(ev, to_array(ev, ev.call(tri, with_diagonal)), diagonal));
  const auto rank = static_cast<std::int64_t>(x->aval.ndim());
  return mul(ev, x, broadcast(ev, mask, x->aval.shape, {rank - 2, rank - 1}));
}

}  // namespace

// X = A^-1 B: B's cotangent solves the transposed system, B̄ = A^-T X̄, and
// A's is -B̄ Xᵀ (per batch matrix: Ā[i, j] = -sum_k B̄[i, k] X[j, k]).
Cotangents linalg_solve_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  Cotangents out(2);
  const auto rank = static_cast<std::int64_t>(x[0]->aval.ndim());
  ArrayRef b_ct = apply(ev, "linalg_solve", {transposed(ev, x[0]), ct});
  if (needs[1]) out[1] = b_ct;
  if (needs[0]) {
    typecheck::Shape shape = x[0]->aval.shape;
    shape.push_back(x[1]->aval.shape.back());
    std::vector<std::int64_t> rows, columns;
    for (std::int64_t d = 0; d < rank - 2; ++d) {
      rows.push_back(d);
      columns.push_back(d);
    }
    rows.insert(rows.end(), {rank - 2, rank});
    columns.insert(columns.end(), {rank - 1, rank});
    ArrayRef products = mul(ev, broadcast(ev, b_ct, shape, rows), broadcast(ev, result, shape, columns));
    out[0] = neg(ev, reduce_sum(ev, products, {rank}));
  }
  return out;
}

// L = cholesky(A), read from A's lower triangle (Murray 2016, JAX's
// cholesky_jvp_rule transposed): with P = Φ(Lᵀ L̄) and S = L⁻ᵀ P L⁻¹, the
// cotangent of the symmetric matrix is (S + Sᵀ)/2, and of the lower
// triangle the primitive reads Φ(S + Sᵀ). Only L̄'s lower triangle flows
// (L's upper one is zero whatever A is).
Cotangents cholesky_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  if (!needs[0]) return {nullptr};
  ArrayRef p = lower(ev, transposed_product(ev, result, lower(ev, ct, 1.0)), 0.5);
  ArrayRef lt = transposed(ev, result);
  ArrayRef half = apply(ev, "linalg_solve", {lt, p});                       // L⁻ᵀ P
  ArrayRef y = apply(ev, "linalg_solve", {lt, transposed(ev, half)});       // Sᵀ = L⁻ᵀ (L⁻ᵀ P)ᵀ
  return {lower(ev, add(ev, y, transposed(ev, y)), 0.5)};
}

// slogdet: the sign is piecewise constant (no cotangent); log |det A| has
// gradient A⁻ᵀ, solved against the identity (jnp.eye) per batch matrix.
Cotangents slogdet_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  if (!needs[0] || *params.get<std::int64_t>("output") == 0) return {nullptr};
  const typecheck::Shape& shape = x[0]->aval.shape;
  const auto rank = static_cast<std::int64_t>(shape.size());
  const Value& eye = *ev.module("jax.numpy")->find("eye");
  CallArgs identity{{Value::integer(shape.back())}, {{"dtype", make_str(std::string(typecheck::long_name(x[0]->aval.dtype)))}}};
  ArrayRef ones = broadcast(ev, to_array(ev, ev.call(eye, identity)), shape, {rank - 2, rank - 1});
  ArrayRef inverse_t = apply(ev, "linalg_solve", {transposed(ev, x[0]), ones});
  std::vector<std::int64_t> batch;
  for (std::int64_t d = 0; d < rank - 2; ++d) batch.push_back(d);
  return {mul(ev, broadcast(ev, ct, shape, batch), inverse_t)};
}

}  // namespace interp::vjp
