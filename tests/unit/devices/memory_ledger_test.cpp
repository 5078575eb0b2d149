// The device memory ledger: charges by sets of devices, RESOURCE_EXHAUSTED
// as XLA writes it, the live buffers an error lists, memory_stats and the
// peak moment --profile shows.
#include <gtest/gtest.h>

#include "devices/device.hpp"
#include "devices/memory.hpp"

namespace devices {
namespace {

struct Named : MemoryOwner {
  explicit Named(std::string type) : type(std::move(type)) {}
  std::string memory_type() const override { return type; }
  std::string memory_source() const override { return "m.shl:" + type; }
  std::string type;
};

std::shared_ptr<MemoryLedger> four_tpus(std::int64_t hbm) {
  return std::make_shared<MemoryLedger>(
      std::vector<MemoryLedger::DeviceMemory>{{"TPU 0", hbm}, {"TPU 1", hbm}, {"TPU 2", hbm}, {"TPU 3", hbm}},
      std::int64_t{1} << 30);
}

TEST(MemoryLedger, SetsChargeEachOfTheirDevicesUntilTheHoldGoes) {
  auto ledger = four_tpus(1000);
  Named a("a"), b("b");
  auto all = ledger->device_set(std::vector<int>{0, 1, 2, 3});
  auto some = ledger->device_set(std::vector<int>{3, 1});
  EXPECT_EQ(ledger->device_set(std::vector<int>{1, 3}), some);  // interned, in any order
  auto everywhere = ledger->allocate(all, 100, &a);
  ASSERT_TRUE(everywhere.ok());
  {
    auto two = ledger->allocate(some, 300, &b);
    ASSERT_TRUE(two.ok());
    EXPECT_EQ(ledger->device_bytes_held(0), 100);
    EXPECT_EQ(ledger->device_bytes_held(1), 400);
    EXPECT_EQ(ledger->device_bytes_held(2), 100);
    EXPECT_EQ(ledger->device_bytes_held(3), 400);
  }
  EXPECT_EQ(ledger->device_bytes_held(3), 100);
  // A set made after charges splits a group: its devices keep their history.
  auto one = ledger->device_set(std::vector<int>{3});
  auto third = ledger->allocate(one, 50, &b);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(ledger->device_bytes_held(1), 100);
  EXPECT_EQ(ledger->device_bytes_held(3), 150);
  MemoryLedger::DeviceStats stats = ledger->device_stats(3);
  EXPECT_EQ(stats.peak_bytes_in_use, 400);
  EXPECT_EQ(stats.num_allocs, 3);
  EXPECT_EQ(stats.largest_alloc_size, 300);
  EXPECT_EQ(stats.bytes_limit, 1000);
  EXPECT_EQ(ledger->device_stats(0).num_allocs, 1);
  everywhere->reset();
  third->reset();
  for (int device = 0; device < 4; ++device) EXPECT_EQ(ledger->device_bytes_held(device), 0);
}

TEST(MemoryLedger, ResourceExhaustedNamesTheDeviceItsLimitAndUse) {
  auto ledger = four_tpus(1000);
  Named a("f32[150]"), b("i8[600]"), c("i8[10]");
  auto all = ledger->device_set(std::vector<int>{0, 1, 2, 3});
  auto last = ledger->device_set(std::vector<int>{2, 3});
  auto small = ledger->allocate(all, 10, &c);
  auto held = ledger->allocate(last, 600, &a);
  ASSERT_TRUE(small.ok() && held.ok());
  auto refused = ledger->allocate(all, 600, &b);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::resource_exhausted);
  EXPECT_EQ(refused.error().device, 2);  // the lowest device that cannot take it
  EXPECT_EQ(refused.error().message,
            "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 600 bytes. TPU 2 has 1000 bytes of HBM "
            "and 610 bytes in use");
  EXPECT_EQ(ledger->device_bytes_held(0), 10);  // nothing charged
  auto largest = ledger->largest_live(2, 5);
  ASSERT_EQ(largest.size(), 2u);
  EXPECT_EQ(largest[0].bytes, 600);
  EXPECT_EQ(largest[0].owner, &a);
  EXPECT_EQ(largest[1].owner, &c);
  EXPECT_EQ(ledger->largest_live(0, 5).size(), 1u);
}

TEST(MemoryLedger, ChipHbmFromTheTableAndNoneOnCpu) {
  Expected<std::vector<Device>> v2 = make_devices(Platform::tpu, Chip::v2, 8);
  ASSERT_TRUE(v2.ok());
  auto ledger = MemoryLedger::for_devices(*v2);
  EXPECT_EQ(ledger->device_capacity(3), std::int64_t{8} << 30);
  EXPECT_EQ(ledger->device_label(3), "TPU 3");
  auto overridden = MemoryLedger::for_devices(*v2, std::int64_t{1} << 30, std::int64_t{1} << 20);
  EXPECT_EQ(overridden->device_capacity(0), std::int64_t{1} << 20);
  Expected<std::vector<Device>> cpu = make_devices(Platform::cpu, Chip::v2, 2);
  ASSERT_TRUE(cpu.ok());
  auto cpu_ledger = MemoryLedger::for_devices(*cpu);
  EXPECT_EQ(cpu_ledger->device_capacity(0), std::nullopt);
  Named huge("f32[big]");
  auto hold = cpu_ledger->allocate(cpu_ledger->device_set(std::vector<int>{0}), std::int64_t{1} << 50, &huge);
  EXPECT_TRUE(hold.ok());  // host budget only
}

TEST(MemoryLedger, PeakMomentKeepsTheLargestBuffersLiveThen) {
  auto ledger = four_tpus(1000);
  ledger->keep_peak_moment(true);
  Named a("a"), b("b"), c("c");
  auto all = ledger->device_set(std::vector<int>{0, 1, 2, 3});
  auto first = ledger->device_set(std::vector<int>{1});
  auto x = ledger->allocate(all, 100, &a);
  auto y = ledger->allocate(first, 300, &b);
  y->reset();
  auto z = ledger->allocate(all, 200, &c);
  MemoryLedger::PeakMoment peak = ledger->peak_moment();
  EXPECT_EQ(peak.device, 1);
  EXPECT_EQ(peak.bytes, 400);
  EXPECT_EQ(peak.type, "b");
  EXPECT_EQ(peak.source, "m.shl:b");
  ASSERT_EQ(peak.largest.size(), 2u);
  EXPECT_EQ(peak.largest[0].type, "b");
  EXPECT_EQ(peak.largest[1].type, "a");
}

TEST(MemoryLedger, ListenerSeesEachGroupsUse) {
  auto ledger = four_tpus(1000);
  std::vector<std::pair<std::vector<int>, std::int64_t>> seen;
  ledger->set_listener([&](std::span<const int> devices, std::int64_t bytes) {
    seen.emplace_back(std::vector<int>(devices.begin(), devices.end()), bytes);
  });
  Named a("a");
  auto hold = ledger->allocate(ledger->device_set(std::vector<int>{0, 2}), 64, &a);
  hold->reset();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].first, (std::vector<int>{0, 2}));
  EXPECT_EQ(seen[0].second, 64);
  EXPECT_EQ(seen[1].second, 0);
}

TEST(MemoryLedger, ChargeInOrderChargesAsEachAtATimeOrNothing) {
  using Change = MemoryLedger::Change;
  auto ledger = four_tpus(1000);
  Named kept("kept");
  auto all = ledger->device_set(std::vector<int>{0, 1, 2, 3});
  auto some = ledger->device_set(std::vector<int>{1, 3});
  // 300 passes on {1, 3}, 200 stays everywhere, 600 passes on {1, 3} after the 300 goes.
  std::vector<Change> changes{{some, 300, Change::Kind::passing, nullptr},
                              {all, 200, Change::Kind::kept, &kept},
                              {some, 300, Change::Kind::freed, nullptr},
                              {some, 600, Change::Kind::passing, nullptr},
                              {some, 600, Change::Kind::freed, nullptr}};
  auto holds = ledger->charge_in_order(changes);
  ASSERT_TRUE(holds.has_value());
  ASSERT_EQ(holds->size(), 1u);
  EXPECT_EQ(ledger->device_bytes_held(0), 200);
  EXPECT_EQ(ledger->device_bytes_held(3), 200);
  MemoryLedger::DeviceStats stats = ledger->device_stats(3);
  EXPECT_EQ(stats.peak_bytes_in_use, 800);
  EXPECT_EQ(stats.num_allocs, 3);
  EXPECT_EQ(stats.largest_alloc_size, 600);
  EXPECT_EQ(ledger->device_stats(0).peak_bytes_in_use, 200);
  EXPECT_EQ(ledger->live_owners(), std::vector<const MemoryOwner*>{&kept});
  // 900 more on {1, 3} does not fit next to the 200: nothing is charged.
  std::vector<Change> too_much{{some, 900, Change::Kind::passing, nullptr}, {some, 900, Change::Kind::freed, nullptr}};
  EXPECT_FALSE(ledger->charge_in_order(too_much).has_value());
  EXPECT_EQ(ledger->device_stats(3).num_allocs, 3);
  EXPECT_EQ(ledger->device_bytes_held(3), 200);
  holds->front().reset();
  EXPECT_EQ(ledger->device_bytes_held(3), 0);
}

}  // namespace
}  // namespace devices
