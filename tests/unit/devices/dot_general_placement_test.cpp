// dot_general's per-axis placement (a shard whose free rows are strided in
// the whole product) and its result dtype (preferred_element_type).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "devices/kernels.hpp"
#include "devices/memory.hpp"

namespace devices {
namespace {

using typecheck::DType;

LocalArray filled(DType dtype, Shape shape, double (*value)(std::int64_t)) {
  static std::shared_ptr<MemoryLedger> ledger = std::make_shared<MemoryLedger>(
      std::vector<MemoryLedger::DeviceMemory>{{"TPU 0", 1 << 30}}, 1 << 30);
  Expected<LocalArray> made = make_local_array(ledger, dtype, std::move(shape));
  EXPECT_TRUE(made.ok());
  for (std::int64_t i = 0; i < made->buffer->element_count(); ++i) {
    auto at = static_cast<std::size_t>(i);
    if (dtype == DType::float32) made->buffer->elements<DType::float32>()[at] = static_cast<float>(value(i));
    if (dtype == DType::int8) made->buffer->elements<DType::int8>()[at] = static_cast<std::int8_t>(value(i));
  }
  return *made;
}

double wave(std::int64_t i) { return std::sin(0.37 * static_cast<double>(i)); }
double small_int(std::int64_t i) { return static_cast<double>(i % 23 - 11); }

LocalArray ok(Expected<LocalArray> result) {
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  return result.ok() ? *result : LocalArray{};
}

// lhs [300, 6, 40] (two free axes) x rhs [40, 5]: a shard holding rows
// [100, 200) of axis 0 and [2, 5) of axis 1 (its rows strided in the
// whole's flattened 1800) gives exactly the whole product's elements.
TEST(DotGeneralPlacement, StridedFreeRowsEqualTheWholeBitForBit) {
  LocalArray lhs = filled(DType::float32, {300, 6, 40}, wave);
  LocalArray rhs = filled(DType::float32, {40, 5}, wave);
  LocalArray whole = ok(dot_general(lhs, rhs, {{}, {}, {2}, {0}}));
  ASSERT_EQ(whole.shape, (Shape{300, 6, 5}));

  LocalArray block = filled(DType::float32, {100, 3, 40}, [](std::int64_t i) {
    std::int64_t r = i / 120, c = (i / 40) % 3, k = i % 40;
    return wave(((100 + r) * 6 + 2 + c) * 40 + k);
  });
  DotDimensions dims{{}, {}, {2}, {0}};
  dims.placement.lhs_free_origins = {100, 2};
  dims.placement.lhs_free_totals = {300, 6};
  LocalArray shard = ok(dot_general(block, rhs, dims));
  ASSERT_EQ(shard.shape, (Shape{100, 3, 5}));
  auto got = shard.buffer->elements<DType::float32>();
  auto want = whole.buffer->elements<DType::float32>();
  for (std::int64_t r = 0; r < 100; ++r)
    for (std::int64_t c = 0; c < 3; ++c)
      for (std::int64_t j = 0; j < 5; ++j)
        ASSERT_EQ(got[static_cast<std::size_t>((r * 3 + c) * 5 + j)],
                  want[static_cast<std::size_t>(((100 + r) * 6 + 2 + c) * 5 + j)]);

  dims.placement.lhs_free_origins = {250, 2};  // past the whole's 300 rows
  EXPECT_FALSE(dot_general(block, rhs, dims).ok());
  dims.placement.lhs_free_origins = {100};  // one origin for two free axes
  dims.placement.lhs_free_totals = {300};
  EXPECT_FALSE(dot_general(block, rhs, dims).ok());
}

TEST(DotGeneralPlacement, ResultDtypeAccumulatesInTheWiderType) {
  LocalArray lhs = filled(DType::int8, {2, 64}, [](std::int64_t) { return 100.0; });
  LocalArray rhs = filled(DType::int8, {64, 3}, small_int);
  DotDimensions dims{{}, {}, {1}, {0}};
  dims.result_dtype = DType::int32;
  LocalArray wide = ok(dot_general(lhs, rhs, dims));
  EXPECT_EQ(wide.dtype(), DType::int32);
  std::int64_t column0 = 0;
  for (std::int64_t p = 0; p < 64; ++p) column0 += 100 * static_cast<std::int64_t>(small_int(p * 3));
  EXPECT_EQ(wide.buffer->elements<DType::int32>()[0], column0);
  dims.result_dtype = DType::float32;
  LocalArray as_float = ok(dot_general(lhs, rhs, dims));
  EXPECT_EQ(as_float.buffer->elements<DType::float32>()[0], static_cast<float>(column0));
}

}  // namespace
}  // namespace devices
