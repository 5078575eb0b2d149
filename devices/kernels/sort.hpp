// lax.sort's local kernel (a local kernel as those of devices/kernels.hpp).
#pragma once

#include <span>

#include "devices/kernels.hpp"

namespace devices {

// Sorts the operands (one shape) together along `axis`: each 1-D slice is
// ordered lexicographically on the first `num_keys` operands, stably. Floats
// order as XLA's sort comparator does: -inf < ... < -0.0 == 0.0 < ... < inf
// < NaN (every NaN equal); `descending` reverses that order (NaN first),
// equal keys still in their original order (top_k's ties). Returns operand
// `output` permuted, or, when `output` is the operand count, the permutation
// itself as int32 (the original positions, in sorted order).
Expected<LocalArray> sort_along(std::span<const LocalArray> operands, int axis, int num_keys, int output,
                                bool descending = false);

}  // namespace devices
