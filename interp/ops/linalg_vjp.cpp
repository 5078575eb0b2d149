// The VJPs of the linear-algebra primitives (vjp_rules.hpp).
#include "interp/ops/vjp_rules.hpp"
#include "interp/ops/vjp_support.hpp"

namespace interp::vjp {

// X = A^-1 B: B's cotangent solves the transposed system, B̄ = A^-T X̄, and
// A's is -B̄ Xᵀ (per batch matrix: Ā[i, j] = -sum_k B̄[i, k] X[j, k]).
Cotangents linalg_solve_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  Cotangents out(2);
  const auto rank = static_cast<std::int64_t>(x[0]->aval.ndim());
  std::vector<std::int64_t> swap_last;
  for (std::int64_t d = 0; d < rank; ++d) swap_last.push_back(d < rank - 2 ? d : d == rank - 2 ? rank - 1 : rank - 2);
  Params permutation;
  permutation.set("permutation", swap_last);
  ArrayRef transposed = apply(ev, "transpose", {x[0]}, permutation);
  ArrayRef b_ct = apply(ev, "linalg_solve", {transposed, ct});
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

}  // namespace interp::vjp
