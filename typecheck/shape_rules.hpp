// Item 3 of the rule set: reshape with JAX's split/merge algorithm,
// transpose/swapaxes/moveaxis, expand_dims/squeeze, broadcast_in_dim and
// jnp.broadcast_to (reference §2.5, §2.6).
//
// Contract: as elementwise_rules.hpp. Shapes are checked before shardings;
// an `out_sharding` has been canonicalized and padded to the result rank by
// the caller (canonicalize_out_sharding in creation_rules.hpp), and is
// returned after the checks the reference lists for it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "typecheck/array_type.hpp"
#include "typecheck/sharding_rule.hpp"

namespace typecheck {

// NumPy broadcasting of shapes: trailing dims aligned, a 1 stretches;
// nullopt when two dims differ and neither is 1.
std::optional<Shape> broadcast_shapes(std::span<const Shape> shapes);

// jnp.reshape's -1: the one unknown size, or numpy's TypeErrors.
Checked<Shape> resolve_reshape_sizes(std::span<const std::int64_t> operand_shape, std::span<const std::int64_t> sizes);

// lax.reshape(x, new_sizes, dimensions, out_sharding): reference §2.5.
// `dimensions` (a permutation applied first) forbids splitting a sharded dim.
Checked<ArrayType> reshape_rule(const ArrayType& operand, std::span<const std::int64_t> new_sizes,
                                const std::optional<std::vector<int>>& dimensions = std::nullopt,
                                const std::optional<Sharding>& out_sharding = std::nullopt);

// lax.transpose: out_spec[k] = in_spec[permutation[k]].
Checked<ArrayType> transpose_rule(const ArrayType& operand, std::span<const int> permutation);
// ([i,j]) -> ([j,i]) for permutation (1, 0).
FactorRule transpose_factor_rule(std::span<const int> permutation);

// x.T / jnp.transpose(x, axes=None): the reversed permutation.
std::vector<int> reversed_permutation(std::size_t ndim);
// jnp.swapaxes(x, axis1, axis2) and jnp.moveaxis(x, source, destination) as
// permutations (negative axes allowed).
Checked<std::vector<int>> swapaxes_permutation(std::size_t ndim, std::int64_t axis1, std::int64_t axis2);
Checked<std::vector<int>> moveaxis_permutation(std::size_t ndim, std::span<const std::int64_t> source,
                                               std::span<const std::int64_t> destination);

// jnp.expand_dims(x, axes): new size-1 dims with spec None.
Checked<ArrayType> expand_dims_rule(const ArrayType& operand, std::span<const std::int64_t> axes);
// jnp.squeeze(x, axes); nullopt squeezes every size-1 dim.
Checked<ArrayType> squeeze_rule(const ArrayType& operand, const std::optional<std::vector<std::int64_t>>& axes);

// lax.broadcast_in_dim: output dim broadcast_dimensions[k] gets the operand's
// spec k, new dims None; an operand without a mesh takes `context_mesh`.
Checked<ArrayType> broadcast_in_dim_rule(const ArrayType& operand, std::span<const std::int64_t> shape,
                                         std::span<const int> broadcast_dimensions,
                                         const std::optional<Sharding>& out_sharding = std::nullopt,
                                         const MeshRef& context_mesh = nullptr);
// ([j]) -> ([i,j]) for broadcast_dimensions (1,) into rank 2.
FactorRule broadcast_in_dim_factor_rule(std::size_t result_rank, std::span<const int> broadcast_dimensions);

// jnp.broadcast_to(x, shape, out_sharding=): numpy's trailing alignment; a
// requested sharding must agree with every sharded operand dim.
Checked<ArrayType> broadcast_to_rule(const ArrayType& operand, std::span<const std::int64_t> shape,
                                     const std::optional<Sharding>& out_sharding = std::nullopt,
                                     const MeshRef& context_mesh = nullptr);

}  // namespace typecheck
