// One block of an array as an array of its own (kernels/window.hpp).
#include "devices/kernels/window.hpp"

#include "devices/kernels/support.hpp"

namespace devices {

using namespace kernel_support;

std::optional<std::int64_t> consecutive_offset(std::span<const std::int64_t> shape, std::span<const std::int64_t> start,
                                               std::span<const std::int64_t> extent) {
  if (start.size() != shape.size() || extent.size() != shape.size() || element_count(extent) == 0) return std::nullopt;
  std::size_t first = 0;
  while (first < shape.size() && extent[first] == 1) ++first;
  for (std::size_t axis = first + 1; axis < shape.size(); ++axis)
    if (extent[axis] != shape[axis]) return std::nullopt;
  std::int64_t offset = 0;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) offset = offset * shape[axis] + start[axis];
  return offset;
}

Expected<LocalArray> window(const LocalArray& whole, std::span<const std::int64_t> start, const Shape& extent) {
  const std::size_t rank = whole.shape.size();
  if (!whole.buffer || start.size() != rank || extent.size() != rank)
    return invalid("window: an array, and one start and extent per axis");
  // Checked here once; slice checks a copy's window again.
  InlineStrides limit(rank);
  bool all = true;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    limit[axis] = start[axis] + extent[axis];
    if (start[axis] < 0 || extent[axis] < 0 || limit[axis] > whole.shape[axis])
      return invalid(fmt::format("window: [{}:{}] does not fit axis {} of extent {}", start[axis], limit[axis], axis,
                                 whole.shape[axis]));
    all = all && extent[axis] == whole.shape[axis];
  }
  if (all) return whole;
  const std::optional<std::int64_t> offset = consecutive_offset(whole.shape, start, extent);
  if (offset && *offset * typecheck::byte_size(whole.dtype()) % 64 == 0) {
    Expected<std::shared_ptr<Buffer>> view = Buffer::view(whole.buffer, *offset, element_count(extent));
    if (!view) return view.error();
    return LocalArray{std::move(*view), extent};
  }
  return slice(whole, start, kernel_support::view(limit));
}

}  // namespace devices
