// The windowed kernels: lax.conv_general_dilated (im2col and OpenBLAS's
// sgemm per output image and group; integers summed exactly) and the
// monoid windowed reductions reduce_window_sum/max/min, with the gradient
// of the latter two (select_and_scatter_add). Shapes and windows follow
// typecheck/convolution_rules.hpp, whose shape rules these kernels use.
//
// Floats are computed in f32 (bf16 and f16 loaded, one rounding into the
// result's dtype); every output element is summed in an order fixed by the
// window and the feature count alone, so a batch split over devices gives
// the same bits as the whole.
#pragma once

#include "devices/kernels.hpp"
#include "typecheck/convolution_rules.hpp"

namespace devices {

struct ConvDimensions {
  typecheck::ConvDimensionNumbers numbers;
  typecheck::ConvWindow window;
  typecheck::DType result_dtype = typecheck::DType::float32;
};

Expected<LocalArray> conv_general_dilated(const LocalArray& lhs, const LocalArray& rhs, const ConvDimensions& dimensions);

enum class WindowReduction { sum, max, min };

// reduce_window_{sum,max,min}: padding and base-dilation holes are the
// reduction's identity (0, -inf, +inf; an integer's lowest or highest).
// `window.strides`, `padding`, `lhs_dilation` (base) and `rhs_dilation`
// (window) have one entry per operand dimension.
Expected<LocalArray> reduce_window(const LocalArray& operand, WindowReduction op, std::span<const std::int64_t> window_dimensions,
                                   const typecheck::ConvWindow& window);

// The operand's cotangent of reduce_window_max (ge) or min (le): each
// window's `source` element added where the window's first extreme element
// lies (XLA's select_and_scatter_add); zeros elsewhere. `source` has the
// windowed result's shape and `operand`'s dtype.
Expected<LocalArray> select_and_scatter_add(const LocalArray& source, const LocalArray& operand, WindowReduction op,
                                            std::span<const std::int64_t> window_dimensions,
                                            const typecheck::ConvWindow& window);

// Its transpose (XLA's select_and_gather_add as JAX builds it): each
// window's `tangents` element where the window's first extreme element of
// `operand` lies; `tangents` has `operand`'s shape.
Expected<LocalArray> select_and_gather_add(const LocalArray& tangents, const LocalArray& operand, WindowReduction op,
                                           std::span<const std::int64_t> window_dimensions,
                                           const typecheck::ConvWindow& window);

}  // namespace devices
