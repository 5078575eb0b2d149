// The windowed primitives' type rules (JAX's lax/convolution.py and
// lax/windowed_reductions.py): conv_general_dilated's dimension numbers,
// padding, shape, dtype and sharding rules, and reduce_window's shape and
// sharding rules.
//
// Contract: as elementwise_rules.hpp (errors are values with JAX's texts).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "typecheck/array_type.hpp"

namespace typecheck {

// ConvDimensionNumbers: (batch, feature, spatial...) of lhs and out, (out
// feature, in feature, spatial...) of rhs; the spatial dims in rhs's order.
struct ConvDimensionNumbers {
  std::vector<int> lhs_spec, rhs_spec, out_spec;
  bool operator==(const ConvDimensionNumbers&) const = default;
};

using Padding = std::vector<std::pair<std::int64_t, std::int64_t>>;

// The window of a convolution or a windowed reduction, one entry per
// spatial (conv) or operand (reduce_window) dimension.
struct ConvWindow {
  std::vector<std::int64_t> strides;
  Padding padding;
  std::vector<std::int64_t> lhs_dilation, rhs_dilation;  // reduce_window: base and window dilation
  std::int64_t feature_group_count = 1, batch_group_count = 1;
};

// lax.conv_dimension_numbers: the identity for none, else JAX's
// conv_general_permutations of the three strings ('NCHW', 'OIHW', 'NCHW'),
// with its TypeErrors.
Checked<ConvDimensionNumbers> conv_dimension_numbers(std::size_t lhs_rank, std::size_t rhs_rank,
                                                     const std::vector<std::string>* specs);

// lax.padtype_to_pads: 'SAME', 'SAME_LOWER' or 'VALID' (any case) as (low,
// high) pairs; RuntimeError for another string.
Checked<Padding> padtype_to_pads(std::span<const std::int64_t> in_shape, std::span<const std::int64_t> window_shape,
                                 std::span<const std::int64_t> strides, std::string_view padding);

// core.dilate_dim: max(0, 1 + dilation * (d - 1)).
std::int64_t dilate_dim(std::int64_t size, std::int64_t dilation);

// conv_general_dilated's shape rule (its ValueErrors and TypeErrors).
Checked<Shape> conv_general_dilated_shape(const Shape& lhs, const Shape& rhs, const ConvDimensionNumbers& numbers,
                                          const ConvWindow& window);

// The shape, dtype and sharding rules: lhs and rhs of one dtype (the result's
// `element` comes from the caller's preferred_element_type check), and
// _conv_general_dilated_sharding_rule: `out_sharding` as given; else lhs's
// sharding (varying_out_shape_sharding) when rhs is replicated and lhs's
// feature dimension unsharded; else the ShardingTypeError asking for
// out_sharding.
Checked<ArrayType> conv_general_dilated_rule(const ArrayType& lhs, const ArrayType& rhs,
                                             const ConvDimensionNumbers& numbers, const ConvWindow& window,
                                             ElementType element, const std::optional<Sharding>& out_sharding);

// reduce_window_shape_tuple with its checks (the window's rank, positive
// sizes, strides and dilations); `name` is the primitive
// (reduce_window_sum, ...).
Checked<Shape> reduce_window_shape(std::string_view name, const Shape& operand, std::span<const std::int64_t> window,
                                   const ConvWindow& params);
// reduce_window_sharding_rule: the operand's sharding where every resized
// sharded dim stays divisible.
Checked<ArrayType> reduce_window_rule(std::string_view name, const ArrayType& operand,
                                      std::span<const std::int64_t> window, const ConvWindow& params);

}  // namespace typecheck
