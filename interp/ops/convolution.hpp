// The windowed primitives: conv_general_dilated (a decision of its own,
// placement.hpp's partitioning::convolution) and the windowed reductions
// reduce_window_sum/max/min with max's and min's gradient
// select_and_scatter_add and its transpose select_and_gather_add
// (replayed). Their params:
//
//   conv_general_dilated: window_strides, padding (low, high per spatial
//     dimension, flattened), lhs_dilation, rhs_dilation, lhs_spec, rhs_spec,
//     out_spec (ConvDimensionNumbers), feature_group_count,
//     batch_group_count, then precision, preferred_element_type and
//     out_sharding as dot_general's (contractions.hpp);
//   reduce_window_*: window_dimensions, window_strides, padding,
//     base_dilation, window_dilation (one entry per operand dimension);
//   select_and_scatter_add (operands: source, operand) and
//     select_and_gather_add (operands: tangents, operand): the same, and
//     select ("ge" for max, "le" for min).
#pragma once

#include <optional>
#include <vector>

#include "interp/ops/primitives.hpp"
#include "typecheck/convolution_rules.hpp"

namespace interp {

typecheck::ConvDimensionNumbers conv_dimension_numbers(const Params& params);
// The window of a conv_general_dilated application (spatial dims) or of a
// windowed reduction (lhs_dilation: base, rhs_dilation: window).
typecheck::ConvWindow conv_window(const Params& params);
std::vector<std::int64_t> window_dimensions(const Params& params);

// conv_general_dilated's params; `options` (precision,
// preferred_element_type, out_sharding) follow the window.
Params conv_params(const typecheck::ConvDimensionNumbers& numbers, const typecheck::ConvWindow& window,
                   const Params& options = {});
// A windowed reduction's params.
Params reduce_window_params(std::vector<std::int64_t> window_dimensions, const typecheck::ConvWindow& window);
// Padding as params store it, and back.
std::vector<std::int64_t> flat_padding(const typecheck::Padding& padding);
typecheck::Padding padding_pairs(const std::vector<std::int64_t>& flat);

ArrayRef bind_conv(Evaluator& evaluator, const ArrayRef& lhs, const ArrayRef& rhs, const typecheck::ConvDimensionNumbers& numbers,
                   const typecheck::ConvWindow& window, const Params& options = {});

// conv: 2 flops per multiply-add (an output element sums its group's input
// features times the window), on the MXU as a matmul of the output
// positions by the output features; windowed reductions: one flop per
// window element read, on the vector unit.
Cost conv_cost(const Primitive& primitive, const std::vector<typecheck::ArrayType>& operands,
               const typecheck::ArrayType& result, const Params& params);
Cost reduce_window_cost(const Primitive& primitive, const std::vector<typecheck::ArrayType>& operands,
                        const typecheck::ArrayType& result, const Params& params);

ArrayRef reduce_window_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                      const Params& params, bool execute);
// select_and_scatter_add and select_and_gather_add.
ArrayRef selection_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                  const Params& params, bool execute);

}  // namespace interp
