// One block of an array as an array of its own (kernels/window.hpp): the
// same elements as a slice of it, shared without a copy where they lie
// consecutively and 64-byte aligned.
#include <gtest/gtest.h>

#include <vector>

#include "devices/kernels.hpp"
#include "devices/kernels/window.hpp"
#include "tests/unit/devices/random_arrays.hpp"

namespace devices {
namespace {

using typecheck::DType;

using testing::ok;
using testing::random_f32;

std::vector<float> floats(const LocalArray& array) {
  auto elements = array.buffer->elements<DType::float32>();
  return {elements.begin(), elements.end()};
}

TEST(Window, ConsecutiveOffsetIsWhereARunOfRowsStarts) {
  const Shape shape{4, 1, 64};
  EXPECT_EQ(consecutive_offset(shape, std::vector<std::int64_t>{2, 0, 0}, std::vector<std::int64_t>{2, 1, 64}), 128);
  EXPECT_EQ(consecutive_offset(shape, std::vector<std::int64_t>{3, 0, 16}, std::vector<std::int64_t>{1, 1, 8}), 208);
  // Split along the last axis as well: rows apart.
  EXPECT_EQ(consecutive_offset(shape, std::vector<std::int64_t>{2, 0, 0}, std::vector<std::int64_t>{2, 1, 32}), std::nullopt);
  EXPECT_EQ(consecutive_offset(shape, std::vector<std::int64_t>{0, 0, 0}, std::vector<std::int64_t>{0, 1, 64}), std::nullopt);
}

TEST(Window, EqualsTheSliceAndSharesConsecutiveAlignedBytes) {
  const LocalArray whole = random_f32({4, 8, 16}, 7);
  struct Case {
    std::vector<std::int64_t> start;
    Shape extent;
    bool view;
  };
  const std::vector<Case> cases = {
      {{2, 0, 0}, {2, 8, 16}, true},   // rows 2..3: 256 floats in, aligned
      {{0, 4, 0}, {1, 4, 16}, true},   // 64 floats in
      {{0, 0, 4}, {1, 1, 8}, false},   // 4 floats in: consecutive, not 64-byte aligned
      {{0, 0, 8}, {4, 8, 8}, false},   // split along the last axis: a copy
  };
  for (const Case& c : cases) {
    std::vector<std::int64_t> limit;
    for (std::size_t axis = 0; axis < c.start.size(); ++axis) limit.push_back(c.start[axis] + c.extent[axis]);
    const LocalArray got = ok(window(whole, c.start, c.extent));
    EXPECT_EQ(got.shape, c.extent);
    EXPECT_EQ(floats(got), floats(ok(slice(whole, c.start, limit))));
    EXPECT_EQ(got.buffer->is_view(), c.view);
  }
  EXPECT_EQ(ok(window(whole, std::vector<std::int64_t>{0, 0, 0}, whole.shape)).buffer, whole.buffer);
  EXPECT_FALSE(window(whole, std::vector<std::int64_t>{3, 0, 0}, Shape{2, 8, 16}).ok());
}

}  // namespace
}  // namespace devices
