// One block of an array as an array of its own, without a copy where its
// elements lie consecutively: a small product computed once for several
// devices (interp/ops/dot_general.cpp) split into their shards.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "devices/kernels.hpp"

namespace devices {

// Where the window [start, start + extent) of a row-major array of `shape`
// starts, in elements, when its elements are consecutive there (1 along
// the axes before its first longer one, whole along those after); nullopt
// when they are not, or the window is empty.
std::optional<std::int64_t> consecutive_offset(std::span<const std::int64_t> shape, std::span<const std::int64_t> start,
                                               std::span<const std::int64_t> extent);

// The window [start, start + extent) of `whole`: `whole` itself when it is
// all of it, a view of its bytes when they are consecutive and start 64-byte
// aligned (as the kernels' buffers do), else a copy (slice).
Expected<LocalArray> window(const LocalArray& whole, std::span<const std::int64_t> start, const Shape& extent);

}  // namespace devices
