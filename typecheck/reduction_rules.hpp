// Item 2 of the rule set: jnp reductions sum, mean, max, min, prod, argmax,
// argmin, var, std over axis=None/int/tuple with keepdims (reference §2.4,
// §2.13), and the cumulative reductions (cumsum).
//
// Contract: the output spec is the operand's with the reduced dims deleted
// (None at their places with keepdims); a sharded reduced dim is no error
// (the partitioner all-reduces: the factor rule marks it a reduction
// factor). `out_sharding` (lax.reduce_sum/max/min) is returned as given,
// after the unreduced check.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "typecheck/array_type.hpp"
#include "typecheck/sharding_rule.hpp"

namespace typecheck {

// axis=None (nullopt: every dim), an int or a tuple, normalized and sorted;
// numpy's errors for out-of-range and repeated axes.
Checked<std::vector<std::size_t>> reduction_axes(const std::optional<std::vector<std::int64_t>>& axis,
                                                 std::size_t ndim);

// ([i,j]) -> ([j]) reduction={i} for reducing dim 0 of a rank-2 operand.
FactorRule reduction_factor_rule(std::size_t ndim, std::span<const std::size_t> reduced);

// The result dtype of the reduction primitive `reduction`: sum/prod keep the
// operand's (lax's; jnp widens bool and int8 to int32 before); mean/var/std
// give float32 for integers; argmax/argmin give int32.
ElementType reduction_result_type(std::string_view reduction, ElementType operand);

// The identity of `reduction` (sum, prod, max or min) in `dtype`: 0, 1, and
// the dtype's lowest and highest values (-inf and inf for floats; false and
// true for bool), as XLA's reductions start from them.
double reduction_identity(std::string_view reduction, DType dtype);

// jnp.`reduction`(x, axis=, keepdims=) for reduction in sum, mean, max, min,
// prod, argmax, argmin, var, std. argmax/argmin take one int axis or None
// (None flattens first, through reshape's merge rule).
Checked<ArrayType> reduction_rule(std::string_view reduction, const ArrayType& operand,
                                  const std::optional<std::vector<std::int64_t>>& axis, bool keepdims = false,
                                  const std::optional<Sharding>& out_sharding = std::nullopt);

// lax.cumsum(x, axis, reverse): JAX's _cumred_shape_rule, _cumred_dtype_rule
// and _cumred_sharding_rule in that order. The result is the operand's type;
// ValueError for a negative or out-of-range axis, TypeError for a dtype that
// is not a number, ShardingTypeError when the operand is sharded along the
// accumulated axis (gather it first, or reshard).
Checked<ArrayType> cumulative_rule(std::string_view name, const ArrayType& operand, std::int64_t axis);

// jnp.cumsum(x, axis=None) flattens x first, which JAX allows only for a
// fully replicated x (ShardingTypeError otherwise).
std::optional<Error> check_flattened_cumulative(std::string_view name, const ArrayType& operand);

// lax.sort(operands, dimension, num_keys)'s result `output` (an operand's
// type, or with output == operands.size() the permutation's: int32 of the
// same shape and sharding), as JAX's _sort_abstract_eval: equal shapes
// (TypeError), and on an Explicit mesh operands unsharded over the sorted
// dimension and equally sharded (ShardingTypeError).
Checked<ArrayType> sort_rule(std::span<const ArrayType> operands, std::int64_t dimension, std::int64_t output);

}  // namespace typecheck
