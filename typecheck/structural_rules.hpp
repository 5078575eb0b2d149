// Item 4 of the rule set: concatenate/stack/split/pad/tile/roll, static
// slicing and indexing, dynamic_slice/dynamic_update_slice, gather-like
// take/integer-array indexing and `.at[...].set` (reference §2.7, §2.8).
//
// Contract: as elementwise_rules.hpp. Ops whose output size differs from
// the input share varying_out_shape_sharding (JAX's
// _get_sharding_for_varying_out_shape).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "typecheck/array_type.hpp"

namespace typecheck {

// The operand's sharding if every resized sharded dim stays divisible;
// replicated for an output of all-1 dims; else "{name} on sharded dims
// where out dim ... is not implemented".
Checked<Sharding> varying_out_shape_sharding(std::span<const std::int64_t> out_shape, const ArrayType& operand,
                                             std::string_view name);

// lax.concatenate: identical shardings; the result keeps them.
Checked<ArrayType> concatenate_rule(std::span<const ArrayType> operands, std::int64_t dimension);
// jnp.stack: equal shapes and shardings; the new dim is unsharded.
Checked<ArrayType> stack_rule(std::span<const ArrayType> operands, std::int64_t axis);

// jnp.split's sizes: `sections` equal parts, or the pieces between `indices`.
Checked<std::vector<std::int64_t>> split_sizes_for_sections(std::int64_t size, std::int64_t sections);
std::vector<std::int64_t> split_sizes_for_indices(std::int64_t size, std::span<const std::int64_t> indices);
// lax.split(x, sizes, axis): one output per size.
Checked<std::vector<ArrayType>> split_rule(const ArrayType& operand, std::span<const std::int64_t> sizes,
                                           std::int64_t axis);

struct PadConfig {
  std::int64_t low = 0;
  std::int64_t high = 0;
  std::int64_t interior = 0;
};
// lax.pad(x, padding_value, config).
Checked<ArrayType> pad_rule(const ArrayType& operand, const ArrayType& padding_value,
                            std::span<const PadConfig> config);

// jnp.tile(x, reps): dims tiled more than once must be unsharded.
Checked<ArrayType> tile_rule(const ArrayType& operand, std::span<const std::int64_t> reps);

// jnp.roll(x, shift, axis): the sharding stays; axis=None (nullopt) ravels
// and reshapes back, so it needs the merge and split of reshape.
Checked<ArrayType> roll_rule(const ArrayType& operand, const std::optional<std::vector<std::int64_t>>& axes);

// lax.slice(x, start, limit, strides).
Checked<ArrayType> slice_rule(const ArrayType& operand, std::span<const std::int64_t> start,
                              std::span<const std::int64_t> limit, std::span<const std::int64_t> strides = {});

// One item of a static index x[...]: an int, a slice, None or `...`.
struct IndexItem {
  enum class Kind { integer, slice, newaxis, ellipsis };
  Kind kind = Kind::slice;
  std::int64_t index = 0;                    // Kind::integer
  std::optional<std::int64_t> start, stop;  // Kind::slice
  std::optional<std::int64_t> step;

  static IndexItem integer(std::int64_t index) { return {Kind::integer, index, {}, {}, {}}; }
  static IndexItem range(std::optional<std::int64_t> start = {}, std::optional<std::int64_t> stop = {},
                         std::optional<std::int64_t> step = {}) {
    return {Kind::slice, 0, start, stop, step};
  }
  static IndexItem newaxis() { return {Kind::newaxis, 0, {}, {}, {}}; }
  static IndexItem ellipsis() { return {Kind::ellipsis, 0, {}, {}, {}}; }
};

// x[a:b], x[:, None], x[..., 0], x[::-1] under jit: lax.slice (+ rev for
// negative steps, + squeeze for ints, + expand_dims for None).
Checked<ArrayType> static_index_rule(const ArrayType& operand, std::span<const IndexItem> items);
// JAX's IndexError text for an index that names more dims than x has.
std::string too_many_indices(std::size_t ndim, std::size_t consumed);
// The IndexError text for an integer index outside [-size, size).
std::string index_out_of_bounds(std::int64_t index, std::size_t axis, std::int64_t size);

// lax.dynamic_slice(x, starts, slice_sizes) (the rule does not read starts).
Checked<ArrayType> dynamic_slice_rule(const ArrayType& operand, std::span<const std::int64_t> slice_sizes);
// JAX's _dus_unreduced_rule and _dus_reduced_rule: an update written into
// an operand is unreduced, and reduced, along the operand's axes.
std::optional<Error> check_update_reduction_states(const ArrayType& operand, const ArrayType& update);
// lax.dynamic_update_slice(x, update, starts): equal shardings.
Checked<ArrayType> dynamic_update_slice_rule(const ArrayType& operand, const ArrayType& update);

// jnp.take(x, indices, axis) and x[int_array] (axis 0): a gather. Resolvable
// when the gathered dim is unsharded and the indices replicated; else the
// user must give out_sharding.
Checked<ArrayType> take_rule(const ArrayType& operand, const ArrayType& indices, std::optional<std::int64_t> axis,
                             const std::optional<Sharding>& out_sharding = std::nullopt);

// x.at[items].set(update): a scatter. Integer-indexed dims of the operand
// must be unsharded and the update sharded like the operand's window;
// else the user must give out_sharding. `method` names set/add/mul/... .
Checked<ArrayType> scatter_rule(std::string_view method, const ArrayType& operand, std::span<const IndexItem> items,
                                const ArrayType& update, const std::optional<Sharding>& out_sharding = std::nullopt);

}  // namespace typecheck
