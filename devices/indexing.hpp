// The indexing kernels (kernels/indexing.cpp): local kernels as in
// kernels.hpp that pick elements by index: jnp.take's gather along an axis,
// take_along_axis, and the scatter of x.at[...] updates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "devices/kernels.hpp"

namespace devices {

// jnp.take: the slices of `operand` along `axis` at `indices` (row-major, of
// shape `indices_shape`); the result's shape is operand.shape[:axis] +
// indices_shape + operand.shape[axis + 1:]. A negative index counts from the
// end; one still out of range gives a slice of jnp's "fill" value (NaN for
// floats, a signed integer's minimum, uint32's maximum, True).
Expected<LocalArray> gather(const LocalArray& operand, std::size_t axis, std::span<const std::int64_t> indices,
                            std::span<const std::int64_t> indices_shape);

// jnp.take_along_axis with one index per element: element i of the result is
// the element at position indices[i] of the lane along `axis` through i.
Expected<LocalArray> take_along_axis(const LocalArray& operand, std::size_t axis,
                                     std::span<const std::int64_t> indices);

// x.at[...].set/add/multiply/min/max: updates[k] combined into the element at
// flat position positions[k] of the operand, in order; a position outside the
// operand drops its update (JAX's default). bf16/f16 combine in f32 and round
// once. The result is a new array.
enum class ScatterMethod { set, add, multiply, min, max };
Expected<LocalArray> scatter(const LocalArray& operand, std::span<const std::int64_t> positions,
                             const LocalArray& updates, ScatterMethod method);

}  // namespace devices
