// Running sums along one axis (lax.cumsum), a local kernel as those of
// devices/kernels.hpp.
#pragma once

#include "devices/kernels.hpp"

namespace devices {

// Element i of `operand` along `axis` becomes the sum of the elements up to
// i, accumulated in order (from the end when `reverse`); 16-bit floats
// accumulate in float32 and round on store, integers wrap. Bool is refused
// (the caller converts to an integer dtype first).
Expected<LocalArray> cumulative_sum(const LocalArray& operand, int axis, bool reverse);

}  // namespace devices
