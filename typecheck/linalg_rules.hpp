// Type and sharding rules of the linear-algebra primitives: JAX 0.11's
// lax.linalg shape rules and its linalg_sharding_rule (the matrix dims
// unsharded, every operand with the same batch sharding).
#pragma once

#include "typecheck/array_type.hpp"
#include "typecheck/sharding_rule.hpp"

namespace typecheck {

// linalg_solve(a, b): a [..., n, n], b [..., n, k] with a's leading dims and
// float dtype; the result is b's type, sharded as a's batch dims.
Checked<ArrayType> solve_rule(const ArrayType& a, const ArrayType& b);
// cholesky(a): a [..., n, n] of a float dtype; the result is a's type.
Checked<ArrayType> cholesky_rule(const ArrayType& a);
// slogdet(a) output 0 (the sign) or 1 (log |det|): a [..., n, n] of a float
// dtype; the result has a's batch dims, dtype and batch sharding.
Checked<ArrayType> slogdet_rule(const ArrayType& a);
// qr(a) output 0 (Q) or 1 (R), a [..., m, n] of a float dtype, k = min(m,
// n): Q [..., m, k] and R [..., k, n], or with full_matrices [..., m, m] and
// [..., m, n]; batch sharding kept, the matrix dims unsharded.
Checked<ArrayType> qr_rule(const ArrayType& a, bool full_matrices, int output);
// geqrf(a) output 0 (the packed factorization, a's shape) or 1 (the
// reflectors' scales, [..., min(m, n)]), a [..., m, n] of a float dtype.
Checked<ArrayType> geqrf_rule(const ArrayType& a, int output);
// svd(a) output 0 (U), 1 (S) or 2 (Vᴴ), a [..., m, n] of a float dtype:
// U [..., m, k], S [..., k], Vᴴ [..., k, n] (full_matrices: U [..., m, m],
// Vᴴ [..., n, n]).
Checked<ArrayType> svd_rule(const ArrayType& a, bool full_matrices, int output);
// eigh(a) output 0 (the eigenvectors, [..., n, n]) or 1 (the eigenvalues,
// [..., n]), a [..., n, n] of a float dtype.
Checked<ArrayType> eigh_rule(const ArrayType& a, int output);

}  // namespace typecheck
