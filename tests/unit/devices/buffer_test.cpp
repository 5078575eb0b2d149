// Buffers shared by replicated shards, copy on write, HBM accounting and
// the host memory budget.
#include <gtest/gtest.h>

#include <limits>

#include "devices/buffer.hpp"
#include "devices/memory.hpp"

namespace devices {
namespace {

using typecheck::DType;

std::shared_ptr<MemoryLedger> small_ledger(std::int64_t hbm, std::int64_t host_budget) {
  return std::make_shared<MemoryLedger>(
      std::vector<MemoryLedger::DeviceMemory>{{"TPU 0", hbm}, {"TPU 1", hbm}, {"TPU 2", hbm}, {"TPU 3", hbm}},
      host_budget);
}

std::shared_ptr<Buffer> allocate_or_fail(const std::shared_ptr<MemoryLedger>& ledger, DType dtype,
                                         std::int64_t count) {
  Expected<std::shared_ptr<Buffer>> buffer = Buffer::allocate(ledger, dtype, count);
  EXPECT_TRUE(buffer.ok()) << (buffer.ok() ? "" : buffer.error().message);
  return buffer.ok() ? *buffer : nullptr;
}

TEST(Buffer, DtypeAwareStorage) {
  auto ledger = small_ledger(1 << 20, 1 << 20);
  auto f32 = allocate_or_fail(ledger, DType::float32, 10);
  auto bf16 = allocate_or_fail(ledger, DType::bfloat16, 10);
  ASSERT_TRUE(f32 && bf16);
  EXPECT_EQ(f32->byte_size(), 40);
  EXPECT_EQ(bf16->byte_size(), 20);  // 16 bits per element
  EXPECT_EQ(ledger->host_bytes_held(), 60);
  for (float value : f32->elements<DType::float32>()) EXPECT_EQ(value, 0.0f);  // zero-filled
  f32->elements<DType::float32>()[3] = 2.5f;
  EXPECT_EQ(std::as_const(*f32).elements<DType::float32>()[3], 2.5f);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(f32->bytes().data()) % 64, 0u);
  f32.reset();
  EXPECT_EQ(ledger->host_bytes_held(), 20);
}

TEST(Buffer, ReplicatedShardIsStoredOnce) {
  auto ledger = small_ledger(1 << 20, 1 << 20);
  auto shard = allocate_or_fail(ledger, DType::int32, 256);  // 1 KiB
  ASSERT_TRUE(shard);
  std::vector<DeviceBuffer> holds;
  for (int device : {0, 1, 3}) holds.emplace_back(shard, device);
  shard.reset();  // the devices hold it now
  EXPECT_EQ(ledger->host_bytes_held(), 1024);
  EXPECT_TRUE(holds[0].shares_storage_with(holds[2]));
  // Freed on the last release only.
  holds.pop_back();
  EXPECT_EQ(ledger->host_bytes_held(), 1024);
  holds.clear();
  EXPECT_EQ(ledger->host_bytes_held(), 0);
}

TEST(Buffer, CopyOnWrite) {
  auto ledger = small_ledger(1 << 20, 1 << 20);
  auto shard = allocate_or_fail(ledger, DType::float32, 4);
  ASSERT_TRUE(shard);
  shard->elements<DType::float32>()[0] = 1.0f;
  std::vector<DeviceBuffer> holds;
  for (int device : {0, 1}) holds.emplace_back(shard, device);
  shard.reset();
  Expected<Buffer*> own = holds[1].writable();
  ASSERT_TRUE(own.ok());
  (*own)->elements<DType::float32>()[0] = 7.0f;
  EXPECT_FALSE(holds[0].shares_storage_with(holds[1]));
  EXPECT_EQ(holds[0].buffer().elements<DType::float32>()[0], 1.0f);
  EXPECT_EQ(holds[1].buffer().elements<DType::float32>()[0], 7.0f);
  EXPECT_EQ(ledger->host_bytes_held(), 32);      // two copies now
  // The sole holder writes in place.
  Buffer* before = &const_cast<Buffer&>(holds[0].buffer());
  Expected<Buffer*> in_place = holds[0].writable();
  ASSERT_TRUE(in_place.ok());
  EXPECT_EQ(*in_place, before);
  EXPECT_EQ(ledger->host_bytes_held(), 32);
}

// A view (a contiguous block of another buffer, as device_put splits a host
// array) shares its bytes: no copy, not counted on the host again, the owner
// kept alive; a write gets its own copy first.
TEST(Buffer, ViewsShareTheOwnersBytes) {
  auto ledger = small_ledger(1 << 20, 1 << 20);
  auto whole = allocate_or_fail(ledger, DType::float32, 32);
  ASSERT_TRUE(whole);
  for (int i = 0; i < 32; ++i) whole->elements<DType::float32>()[static_cast<std::size_t>(i)] = static_cast<float>(i);
  Expected<std::shared_ptr<Buffer>> second_half = Buffer::view(whole, 16, 16);
  ASSERT_TRUE(second_half.ok());
  Expected<std::shared_ptr<Buffer>> of_view = Buffer::view(*second_half, 4, 4);  // elements 20..23
  ASSERT_TRUE(of_view.ok());
  EXPECT_TRUE((*second_half)->is_view());
  EXPECT_EQ((*second_half)->element_count(), 16);
  EXPECT_EQ((*second_half)->bytes().data(), whole->bytes().data() + 64);
  EXPECT_EQ((*of_view)->elements<DType::float32>()[0], 20.0f);
  EXPECT_EQ(ledger->host_bytes_held(), 128);  // the owner's bytes only
  whole.reset();                              // the views keep it alive
  EXPECT_EQ((*second_half)->elements<DType::float32>()[15], 31.0f);
  EXPECT_EQ(ledger->host_bytes_held(), 128);
  DeviceBuffer placed(*second_half, 2);
  Expected<Buffer*> own = placed.writable();
  ASSERT_TRUE(own.ok());
  EXPECT_FALSE((*own)->is_view());
  (*own)->elements<DType::float32>()[0] = -1.0f;
  EXPECT_EQ((*second_half)->elements<DType::float32>()[0], 16.0f);
  EXPECT_EQ(ledger->host_bytes_held(), 128 + 64);
  EXPECT_FALSE(Buffer::view(*second_half, 10, 7).ok());  // past its end
  second_half->reset();
  of_view->reset();
  EXPECT_EQ(ledger->host_bytes_held(), 64);  // the owner went with its last view; the copy stays
}

TEST(Memory, HostBudget) {
  auto ledger = small_ledger(1 << 20, 1000);
  auto kept = allocate_or_fail(ledger, DType::float32, 200);  // 800 bytes
  ASSERT_TRUE(kept);
  Expected<std::shared_ptr<Buffer>> over = Buffer::allocate(ledger, DType::float32, 100);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().kind, ErrorKind::host_out_of_memory);
  EXPECT_EQ(over.error().message,
            "host memory budget exceeded: allocating 400 bytes would bring the host memory shardlang "
            "holds from 800 bytes to more than its budget of 1000 bytes");
  // Copy on write is refused the same way.
  std::vector<DeviceBuffer> placed;
  for (int device : {0, 1}) placed.emplace_back(kept, device);
  Expected<Buffer*> copy = placed[0].writable();
  ASSERT_FALSE(copy.ok());
  EXPECT_EQ(copy.error().kind, ErrorKind::host_out_of_memory);
  ledger->set_host_budget(2000);
  EXPECT_TRUE(placed[0].writable().ok());
  EXPECT_EQ(ledger->host_bytes_held(), 1600);
}

TEST(Memory, DefaultHostBudgetIsThreeQuartersOfPhysicalMemory) {
  std::int64_t physical = physical_memory_bytes();
  EXPECT_GT(physical, 0);
  EXPECT_EQ(default_host_memory_budget(), physical / 4 * 3);
}

TEST(Memory, ImpossibleSizesAreErrors) {
  auto ledger = small_ledger(1 << 20, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(Buffer::allocate(ledger, DType::float32, std::numeric_limits<std::int64_t>::max()).error().kind,
            ErrorKind::invalid_argument);
  EXPECT_FALSE(Buffer::allocate(ledger, DType::float32, -1).ok());
  auto empty = allocate_or_fail(ledger, DType::float32, 0);
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->byte_size(), 0);
}

TEST(Memory, DescribeBytes) {
  EXPECT_EQ(describe_bytes(100), "100 bytes");
  EXPECT_EQ(describe_bytes(1536), "1536 bytes (1.50 KiB)");
  EXPECT_EQ(describe_bytes(std::int64_t{16} << 30), "17179869184 bytes (16.00 GiB)");
}

}  // namespace
}  // namespace devices
