// The indexing kernels (indexing.hpp) and the host border (host_values.hpp)
// on small arrays, against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "devices/host_values.hpp"
#include "devices/indexing.hpp"
#include "devices/memory.hpp"

namespace devices {
namespace {

using typecheck::DType;

std::shared_ptr<MemoryLedger> ledger() {
  static std::shared_ptr<MemoryLedger> made =
      std::make_shared<MemoryLedger>(std::vector<MemoryLedger::DeviceMemory>{{"TPU 0", 1 << 30}}, 1 << 30);
  return made;
}

LocalArray array(DType dtype, Shape shape, const std::vector<double>& values) {
  Expected<LocalArray> made = from_values(ledger(), dtype, std::move(shape), values);
  EXPECT_TRUE(made.ok());
  return *made;
}

TEST(HostValues, FromValuesFollowsEachDtypesRule) {
  // Integers truncate and wrap; bool is nonzero; floats round through f32.
  EXPECT_EQ(element_values(array(DType::int8, {3}, {1.9, -1.9, 300})), (std::vector<double>{1, -1, 44}));
  EXPECT_EQ(element_values(array(DType::uint32, {1}, {-1})), (std::vector<double>{4294967295.0}));
  EXPECT_EQ(element_values(array(DType::bool_, {3}, {0, 0.5, -2})), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(element_values(array(DType::bfloat16, {1}, {1.00390625})), (std::vector<double>{1.0}));
  std::vector<std::int64_t> big{16777217, -3};
  Expected<LocalArray> exact = from_values(ledger(), DType::int32, {2}, std::span<const std::int64_t>(big));
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(element_values(*exact), (std::vector<double>{16777217, -3}));
  EXPECT_FALSE(from_values(ledger(), DType::int32, {3}, std::vector<double>{1, 2}).ok());
}

TEST(HostValues, FullIntegerValuesAreExact) {
  Expected<LocalArray> filled = full(ledger(), DType::int32, {2, 2}, 16777217);
  ASSERT_TRUE(filled.ok());
  EXPECT_EQ(element_values(*filled), (std::vector<double>(4, 16777217)));
}

TEST(HostValues, IntegerValuesConvertFloatsToInt32) {
  EXPECT_EQ(*integer_values(array(DType::uint32, {2}, {4294967295.0, 7})), (std::vector<std::int64_t>{4294967295LL, 7}));
  EXPECT_EQ(*integer_values(array(DType::float32, {3}, {2.7, -2.7, 1e20})),
            (std::vector<std::int64_t>{2, -2, std::numeric_limits<std::int32_t>::max()}));
}

TEST(HostValues, ElementBytesRoundTrip) {
  LocalArray source = array(DType::float16, {2, 2}, {1, -2, 0.5, 65504});
  std::span<const std::byte> bytes = element_bytes(source);
  ASSERT_EQ(bytes.size(), 8u);
  Expected<LocalArray> copy = from_element_bytes(ledger(), DType::float16, {2, 2}, bytes);
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(element_values(*copy), element_values(source));
  EXPECT_FALSE(from_element_bytes(ledger(), DType::float16, {3}, bytes).ok());
}

TEST(HostValues, RangesAndIdentity) {
  EXPECT_EQ(element_values(*arange(ledger(), DType::int32, {4}, 16777216, 1)),
            (std::vector<double>{16777216, 16777217, 16777218, 16777219}));
  EXPECT_EQ(element_values(*arange(ledger(), DType::float32, {3}, 0.5, 0.25)), (std::vector<double>{0.5, 0.75, 1.0}));
  EXPECT_EQ(element_values(*linspace(ledger(), DType::float32, 5, 0, 1, true)),
            (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(element_values(*linspace(ledger(), DType::int32, 4, 0, 3, false)), (std::vector<double>{0, 0, 1, 2}));
  EXPECT_EQ(element_values(*eye(ledger(), DType::bool_, 2, 3, 1)), (std::vector<double>{0, 1, 0, 0, 0, 1}));
}

TEST(IndexingKernels, GatherAlongAnAxisFillsOutOfRange) {
  // [[0, 1, 2], [3, 4, 5]] taken along axis 1 at [2, -1, 0, 3].
  LocalArray operand = array(DType::int32, {2, 3}, {0, 1, 2, 3, 4, 5});
  std::vector<std::int64_t> indices{2, -1, 0, 3};
  std::vector<std::int64_t> indices_shape{2, 2};
  Expected<LocalArray> taken = gather(operand, 1, indices, indices_shape);
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(taken->shape, (Shape{2, 2, 2}));
  const double fill = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(element_values(*taken), (std::vector<double>{2, 2, 0, fill, 5, 5, 3, fill}));
  LocalArray floats = array(DType::bfloat16, {2}, {1, 2});
  std::vector<std::int64_t> outside{5};
  std::vector<std::int64_t> one{1};
  EXPECT_TRUE(std::isnan(element_values(*gather(floats, 0, outside, one))[0]));
  EXPECT_FALSE(gather(operand, 2, indices, indices_shape).ok());
}

TEST(IndexingKernels, TakeAlongAxisPermutesEachLane) {
  // Each column of [[0, 1], [2, 3], [4, 5]] permuted on its own.
  LocalArray operand = array(DType::int8, {3, 2}, {0, 1, 2, 3, 4, 5});
  std::vector<std::int64_t> indices{2, 0, 0, 2, 1, 1};
  Expected<LocalArray> taken = take_along_axis(operand, 0, indices);
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(element_values(*taken), (std::vector<double>{4, 1, 0, 5, 2, 3}));
  std::vector<std::int64_t> outside{3, 0, 0, 0, 0, 0};
  EXPECT_FALSE(take_along_axis(operand, 0, outside).ok());
}

TEST(IndexingKernels, ScatterAppliesUpdatesInOrderAndDropsOutOfRange) {
  LocalArray operand = array(DType::float32, {4}, {1, 2, 3, 4});
  LocalArray updates = array(DType::float32, {4}, {10, 20, 30, 40});
  std::vector<std::int64_t> positions{1, 1, 4, 0};
  EXPECT_EQ(element_values(*scatter(operand, positions, updates, ScatterMethod::add)),
            (std::vector<double>{41, 32, 3, 4}));
  EXPECT_EQ(element_values(*scatter(operand, positions, updates, ScatterMethod::set)),
            (std::vector<double>{40, 20, 3, 4}));
  EXPECT_EQ(element_values(*scatter(operand, positions, updates, ScatterMethod::min)),
            (std::vector<double>{1, 2, 3, 4}));
  // The operand itself is not written.
  EXPECT_EQ(element_values(operand), (std::vector<double>{1, 2, 3, 4}));
  // bf16 combines in f32 and rounds once: 256 + 1 + 1 = 258 (bf16 keeps it).
  LocalArray halves = array(DType::bfloat16, {1}, {256});
  LocalArray ones = array(DType::bfloat16, {2}, {1, 1});
  std::vector<std::int64_t> twice{0, 0};
  Expected<LocalArray> summed = scatter(halves, twice, ones, ScatterMethod::add);
  ASSERT_TRUE(summed.ok());
  EXPECT_EQ(summed->dtype(), DType::bfloat16);
  EXPECT_EQ(element_values(*summed), (std::vector<double>{258}));
  LocalArray flags = array(DType::bool_, {2}, {0, 1});
  LocalArray on = array(DType::bool_, {1}, {1});
  std::vector<std::int64_t> first{0};
  EXPECT_EQ(element_values(*scatter(flags, first, on, ScatterMethod::multiply)), (std::vector<double>{0, 1}));
  EXPECT_FALSE(scatter(operand, first, updates, ScatterMethod::set).ok());
}

}  // namespace
}  // namespace devices
