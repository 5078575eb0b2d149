// Contractions: dot_general's static parameters, and the API functions built
// on the one dot_general primitive (jnp.dot, matmul and @, einsum,
// tensordot; lax.dot_general, ragged_dot, lax.Precision).
//
// dot_general's params: lhs_contracting, rhs_contracting, lhs_batch,
// rhs_batch (present only when they differ from a matmul's: lhs's last
// dimension with rhs's first, no batch), precision ("HIGH", "HIGHEST"; absent
// for the default), preferred_element_type (a dtype name) and out_sharding.
#pragma once

#include <optional>
#include <string>

#include "devices/cost_model.hpp"
#include "interp/ops/primitives.hpp"
#include "typecheck/sharding_rule.hpp"

namespace interp {

// The dimension numbers an application of dot_general carries.
typecheck::DotDimensionNumbers dot_dimension_numbers(const Params& params, std::size_t lhs_rank);
// Records `numbers` in `params` (nothing for a matmul's).
void set_dot_dimension_numbers(Params& params, const typecheck::DotDimensionNumbers& numbers, std::size_t lhs_rank);
devices::Precision dot_precision(const Params& params);
std::optional<typecheck::DType> dot_preferred_element_type(const Params& params);

// The keyword arguments every contraction takes, as Python values (None
// when not given).
struct ContractionOptions {
  Value out_sharding;
  Value precision;
  Value preferred_element_type;
};

// The params the options give (precision unless DEFAULT,
// preferred_element_type, out_sharding), in that order.
Params contraction_params(Evaluator& evaluator, const ContractionOptions& options);

// jnp.dot: N-D x M-D sums over a's last and b's second-to-last dimension
// (b's only one when 1-D); a scalar operand multiplies.
Value apply_dot(Evaluator& evaluator, const Value& lhs, const Value& rhs, const ContractionOptions& options = {});
// jnp.matmul and `@`: NumPy's broadcasting of leading batch dimensions, 1-D
// operands promoted to matrices and the added dimension removed.
Value apply_matmul(Evaluator& evaluator, const Value& lhs, const Value& rhs, const ContractionOptions& options = {});

// jnp.dot, matmul, einsum, tensordot (into `jnp`) and lax.dot_general,
// ragged_dot, Precision.
void install_contractions(Evaluator& evaluator);

}  // namespace interp
