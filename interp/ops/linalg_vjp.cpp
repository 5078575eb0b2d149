// The VJPs of the linear-algebra primitives (vjp_rules.hpp).
#include "interp/ops/vjp_rules.hpp"
#include "interp/ops/contractions.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/python/exceptions.hpp"
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


// x @ y per batch matrix (jnp.matmul).
ArrayRef matmul(Evaluator& ev, const ArrayRef& x, const ArrayRef& y) {
  return to_array(ev, apply_matmul(ev, Value(x), Value(y)));
}

// The batch dims of a rank-`rank` batch of matrices, then `extra`.
std::vector<std::int64_t> batch_dims_and(std::int64_t rank, std::int64_t extra) {
  std::vector<std::int64_t> dims;
  for (std::int64_t d = 0; d < rank - 2; ++d) dims.push_back(d);
  dims.push_back(extra);
  return dims;
}

// A [..., k] vector `v` stretched over matrices of `shape` [..., r, k]
// (v[..., None, :]: column j scaled by v[j]) or, across_rows, [..., k, c]
// (v[..., :, None]: row i scaled by v[i]).
ArrayRef stretched(Evaluator& ev, const ArrayRef& v, const typecheck::Shape& shape, bool across_rows = false) {
  const auto rank = static_cast<std::int64_t>(shape.size());
  return broadcast(ev, v, shape, batch_dims_and(rank, across_rows ? rank - 2 : rank - 1));
}

// The n x n identity in x's dtype (jnp.eye), broadcast to x's shape.
ArrayRef identity_like(Evaluator& ev, const ArrayRef& x) {
  const Value& eye = *ev.module("jax.numpy")->find("eye");
  CallArgs identity{{Value::integer(x->aval.shape.back())}, {{"dtype", make_str(std::string(typecheck::long_name(x->aval.dtype)))}}};
  const auto rank = static_cast<std::int64_t>(x->aval.ndim());
  return broadcast(ev, to_array(ev, ev.call(eye, identity)), x->aval.shape, {rank - 2, rank - 1});
}

// Output `output` of the factorization primitive `name` of `x`, with
// `flags` (bool params) as given.
ArrayRef factor(Evaluator& ev, std::string_view name, const ArrayRef& x, std::int64_t output,
                const std::vector<std::pair<std::string, bool>>& flags) {
  Params params;
  for (const auto& [flag, value] : flags) params.set(flag, value);
  params.set("output", output);
  return apply(ev, name, {x}, std::move(params));
}

// 1 / (d + I) - I of the [..., k, k] differences `d` (zero on the diagonal):
// JAX's reciprocal that keeps the diagonal at zero.
ArrayRef off_diagonal_reciprocal(Evaluator& ev, const ArrayRef& d) {
  ArrayRef eye = identity_like(ev, d);
  return sub(ev, div(ev, scalar(ev, 1.0), add(ev, d, eye)), eye);
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
  ArrayRef inverse_t = apply(ev, "linalg_solve", {transposed(ev, x[0]), identity_like(ev, x[0])});
  std::vector<std::int64_t> batch;
  for (std::int64_t d = 0; d < rank - 2; ++d) batch.push_back(d);
  return {mul(ev, broadcast(ev, ct, shape, batch), inverse_t)};
}

namespace {

// The thin QR's cotangent (m >= n; Q [..., m, n], R [..., n, n]), JAX's
// _thin_qr_jvp transposed: with M = R̄ Rᵀ - Qᵀ Q̄ and N = triu(M) +
// tril(Mᵀ, -1), X̄ = (Q̄ + Q N) R⁻ᵀ (solved as R⁻¹ (Q̄ + Q N)ᵀ). A null
// cotangent is zero.
ArrayRef thin_qr_cotangent(Evaluator& ev, const ArrayRef& q, const ArrayRef& r, const ArrayRef& q_ct, const ArrayRef& r_ct) {
  ArrayRef m;
  if (r_ct) m = matmul(ev, r_ct, transposed(ev, r));
  if (q_ct) {
    ArrayRef qt_qct = matmul(ev, transposed(ev, q), q_ct);
    m = m ? sub(ev, m, qt_qct) : neg(ev, qt_qct);
  }
  ArrayRef n = add(ev, sub(ev, m, lower(ev, m, 0.0)), lower(ev, transposed(ev, m), 0.0));
  ArrayRef b = matmul(ev, q, n);
  if (q_ct) b = add(ev, b, q_ct);
  return transposed(ev, apply(ev, "linalg_solve", {r, transposed(ev, b)}));
}

// x[..., rows, columns] of a batch of matrices.
ArrayRef block(Evaluator& ev, const ArrayRef& x, std::int64_t row_start, std::int64_t row_limit, std::int64_t column_start,
               std::int64_t column_limit) {
  std::vector<std::int64_t> start(x->aval.ndim(), 0), limit = x->aval.shape;
  start[start.size() - 2] = row_start;
  start.back() = column_start;
  limit[limit.size() - 2] = row_limit;
  limit.back() = column_limit;
  return window_slice(ev, x, std::move(start), std::move(limit));
}

}  // namespace

// qr (output 0: Q, 1: R): JAX 0.11's qr_jvp_rule transposed, one output's
// cotangent at a time (the other's zero). m >= n: the thin rule on Q's
// first n columns and R's first n rows; with full_matrices and m > n, Q's
// last m - n columns (arXiv 2409.13374, eq. 32 with Z = Q_pn (Q_nn - I)⁻¹)
// add Q̄_mp Z + [Zᵀ G; -G], G = Q̄_mpᵀ (Q_mn + Q_mp Z), to Q_mn's cotangent.
// m < n: X = [X1 X2], R = [R1 R2]; R2 = Qᵀ X2 gives X̄2 = Q R̄2 and adds
// X2 R̄2ᵀ to Q's cotangent, and X1 = Q R1 is the square case.
Cotangents qr_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  if (!needs[0]) return {nullptr};
  const bool full = *params.get<bool>("full_matrices");
  const bool of_q = *params.get<std::int64_t>("output") == 0;
  const auto& shape = x[0]->aval.shape;
  const std::int64_t m = shape[shape.size() - 2], n = shape.back();
  ArrayRef q = of_q ? result : factor(ev, "qr", x[0], 0, {{"full_matrices", full}});
  ArrayRef r = of_q ? factor(ev, "qr", x[0], 1, {{"full_matrices", full}}) : result;
  ArrayRef q_ct = of_q ? ct : nullptr, r_ct = of_q ? nullptr : ct;
  if (m < n) {
    ArrayRef x2 = block(ev, x[0], 0, m, m, n), r1 = block(ev, r, 0, m, 0, m);
    ArrayRef r1_ct = r_ct ? block(ev, r_ct, 0, m, 0, m) : nullptr, r2_ct = r_ct ? block(ev, r_ct, 0, m, m, n) : nullptr;
    if (r2_ct) q_ct = matmul(ev, x2, transposed(ev, r2_ct));
    ArrayRef x1_ct = thin_qr_cotangent(ev, q, r1, q_ct, r1_ct);
    ArrayRef x2_ct = r2_ct ? matmul(ev, q, r2_ct) : zeros_like(ev, x2->aval);
    return {concatenate(ev, {x1_ct, x2_ct}, static_cast<std::int64_t>(shape.size()) - 1)};
  }
  if (!full || m == n) return {thin_qr_cotangent(ev, q, r, q_ct, r_ct)};
  ArrayRef q_mn = block(ev, q, 0, m, 0, n), r_nn = block(ev, r, 0, n, 0, n);
  ArrayRef r_nn_ct = r_ct ? block(ev, r_ct, 0, n, 0, n) : nullptr;
  ArrayRef q_mn_ct;
  if (q_ct) {
    ArrayRef q_nn = block(ev, q, 0, n, 0, n), q_pn = block(ev, q, n, m, 0, n), q_mp = block(ev, q, 0, m, n, m);
    ArrayRef q_mp_ct = block(ev, q_ct, 0, m, n, m);
    ArrayRef z_t = apply(ev, "linalg_solve", {transposed(ev, sub(ev, q_nn, identity_like(ev, q_nn))), transposed(ev, q_pn)});
    ArrayRef z = transposed(ev, z_t);
    ArrayRef g = matmul(ev, transposed(ev, q_mp_ct), add(ev, q_mn, matmul(ev, q_mp, z)));
    ArrayRef rows = concatenate(ev, {matmul(ev, z_t, g), neg(ev, g)}, static_cast<std::int64_t>(shape.size()) - 2);
    q_mn_ct = add(ev, add(ev, block(ev, q_ct, 0, m, 0, n), matmul(ev, q_mp_ct, z)), rows);
  }
  return {thin_qr_cotangent(ev, q_mn, r_nn, q_mn_ct, r_nn_ct)};
}

// svd (output 0: U, 1: S, 2: Vᴴ): JAX's _svd_jvp_rule transposed, from the
// reduced factorization (U [..., m, k], s, Vᴴ [..., k, n]), one output's
// cotangent at a time. S̄: U diag(S̄) Vᴴ. With F = 1 / (s_j² - s_i²) (0 on
// the diagonal): Ū gives U (G + Gᵀ) diag(s) Vᴴ, G = F ∘ (Uᵀ Ū), plus (m > n)
// (Ū - U Uᵀ Ū) diag(1/s) Vᴴ; V̄ᴴ gives U diag(s) (H + Hᵀ) Vᴴ, H = F ∘ (Vᴴ
// V̄ᴴᵀ), plus (n > m) U diag(1/s) (V̄ᴴ - V̄ᴴ V Vᴴ). JAX has no rule for the
// full matrices of a non-square matrix.
Cotangents svd_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  if (!needs[0]) return {nullptr};
  const auto& shape = x[0]->aval.shape;
  const std::int64_t m = shape[shape.size() - 2], n = shape.back();
  const auto output = *params.get<std::int64_t>("output");
  if (*params.get<bool>("compute_uv") && *params.get<bool>("full_matrices") && m != n)
    raise(exc::NotImplementedError(), "Singular value decomposition JVP not implemented for full matrices");
  const std::vector<std::pair<std::string, bool>> reduced{{"full_matrices", false}, {"compute_uv", true}};
  ArrayRef u = factor(ev, "svd", x[0], 0, reduced), s = factor(ev, "svd", x[0], 1, reduced);
  ArrayRef vt = factor(ev, "svd", x[0], 2, reduced);
  if (output == 1) return {matmul(ev, mul(ev, u, stretched(ev, ct, u->aval.shape)), vt)};
  ArrayRef ut = transposed(ev, u);
  typecheck::Shape square = s->aval.shape;
  square.push_back(square.back());
  ArrayRef s_row = stretched(ev, s, square);  // s_row[i, j] = s_j
  ArrayRef s_column = transposed(ev, s_row);
  ArrayRef f = off_diagonal_reciprocal(ev, mul(ev, add(ev, s_row, s_column), sub(ev, s_row, s_column)));
  if (output == 0) {
    ArrayRef ut_ct = matmul(ev, ut, ct);
    ArrayRef g = mul(ev, f, ut_ct);
    ArrayRef inner = mul(ev, add(ev, g, transposed(ev, g)), s_row);
    ArrayRef out = matmul(ev, matmul(ev, u, inner), vt);
    if (m > n) {
      ArrayRef rest = sub(ev, ct, matmul(ev, u, ut_ct));
      out = add(ev, out, matmul(ev, div(ev, rest, stretched(ev, s, rest->aval.shape)), vt));
    }
    return {out};
  }
  ArrayRef ct_v = matmul(ev, ct, transposed(ev, vt));  // V̄ᴴ V
  ArrayRef h = mul(ev, f, transposed(ev, ct_v));
  ArrayRef inner = mul(ev, s_column, add(ev, h, transposed(ev, h)));
  ArrayRef out = matmul(ev, matmul(ev, u, inner), vt);
  if (n > m) {
    ArrayRef rest = sub(ev, ct, matmul(ev, ct_v, vt));
    out = add(ev, out, matmul(ev, u, div(ev, rest, stretched(ev, s, rest->aval.shape, true))));
  }
  return {out};
}

// eigh (output 0: the eigenvectors V, 1: the eigenvalues w): JAX's
// _eigh_jvp_rule transposed, its factorization of (A + Aᵀ)/2 as JAX's
// takes: w̄ gives V diag(w̄) Vᵀ, V̄ gives V (F ∘ Vᵀ V̄) Vᵀ with F[i, j] =
// 1 / (w_j - w_i), 0 on the diagonal.
Cotangents eigh_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  if (!needs[0]) return {nullptr};
  const std::vector<std::pair<std::string, bool>> flags{{"lower", *params.get<bool>("lower")}};
  ArrayRef symmetric = mul(ev, add(ev, x[0], transposed(ev, x[0])), 0.5);
  ArrayRef v = factor(ev, "eigh", symmetric, 0, flags);
  ArrayRef vt = transposed(ev, v);
  if (*params.get<std::int64_t>("output") == 1) return {matmul(ev, mul(ev, v, stretched(ev, ct, v->aval.shape)), vt)};
  ArrayRef w_row = stretched(ev, factor(ev, "eigh", symmetric, 1, flags), v->aval.shape);  // w_row[i, j] = w_j
  ArrayRef f = off_diagonal_reciprocal(ev, sub(ev, w_row, transposed(ev, w_row)));
  return {matmul(ev, matmul(ev, v, mul(ev, f, matmul(ev, vt, ct))), vt)};
}

}  // namespace interp::vjp
