// Item 1 of the rule set: unary elementwise ops, astype/convert_element_type,
// comparisons, select_n / jnp.where and clamp / jnp.clip (reference §2.1,
// §2.2, §2.10, §2.13).
//
// Contract: the jnp_* functions take operands as the user passed them and do
// what jnp does before the primitive runs (rank promotion, broadcasting);
// the others are the lax primitives' rules. Every rule checks shapes first,
// then the operands' mesh, then sharding (reference §7); the context-mesh
// check of §2.0 step 1 is check_context_mesh (creation_rules.hpp), which the
// evaluator runs first.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "typecheck/array_type.hpp"
#include "typecheck/sharding_rule.hpp"

namespace typecheck {

// jnp's promote_shapes: a lower-rank operand gets leading size-1 dimensions
// (spec None, via broadcast_to_rank); rank-0 operands stay scalars.
std::vector<ArrayType> promote_ranks(std::span<const ArrayType> operands);

// jnp.add, jnp.multiply, ...: promote_ranks, then elementwise_rule.
Checked<ArrayType> jnp_elementwise_rule(std::string_view primitive, std::span<const ArrayType> operands,
                                        ElementType result);

// jnp.equal, jnp.less, ... (eq, lt, ...): a bool result.
Checked<ArrayType> comparison_rule(std::string_view primitive, const ArrayType& lhs, const ArrayType& rhs);

// A primitive that is linear in its one operand keeps unreduced/reduced axes
// (neg, copy, convert_element_type, rev, reduce_precision); any other
// rejects an unreduced operand (reference §2.13).
bool is_linear_unary(std::string_view primitive);

// sin, exp, neg, abs, ...: the operand's sharding and varying axes.
// `result` is the dtype the dtype rule chose (abs of an int stays int).
Checked<ArrayType> unary_rule(std::string_view primitive, const ArrayType& operand, ElementType result);

// x.astype(d), lax.convert_element_type: the dtype changes (and loses its
// weak flag), the sharding stays unless `sharding` overrides it.
Checked<ArrayType> convert_element_type_rule(const ArrayType& operand, DType new_dtype,
                                             const std::optional<Sharding>& sharding = std::nullopt);

// lax.select_n(which, *cases): cases must have identical shapes, dtypes and
// shardings; `which` is a scalar or shaped and sharded like the cases.
Checked<ArrayType> select_n_rule(const ArrayType& which, std::span<const ArrayType> cases);

// jnp.where(condition, x, y): broadcasts the three (broadcast_shardings) only
// when their shapes differ, then select_n(condition, y, x). `result` is the
// promoted dtype of x and y.
Checked<ArrayType> where_rule(const ArrayType& condition, const ArrayType& x, const ArrayType& y, ElementType result);

// lax.clamp(min, x, max): min and max are scalars or shaped like x; the
// result is sharded like x.
Checked<ArrayType> clamp_rule(const ArrayType& min, const ArrayType& operand, const ArrayType& max);

// jnp.clip(x, min, max) = minimum(max, maximum(min, x)), each bound optional.
Checked<ArrayType> clip_rule(const ArrayType& operand, const std::optional<ArrayType>& min,
                             const std::optional<ArrayType>& max, ElementType result);

}  // namespace typecheck
