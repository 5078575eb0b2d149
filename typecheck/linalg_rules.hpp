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

}  // namespace typecheck
