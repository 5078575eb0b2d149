// The collectives and the block moves across processes (run under mpirun
// by ctest, label `mpi`): every process's result equals, byte for byte,
// what one process computes holding every shard, for every dtype, every
// reduction, groups that stay on one process and groups that cross, and
// device orders that interleave the processes.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <tuple>

#include "devices/collectives.hpp"
#include "devices/mpi_transport.hpp"
#include "devices/redistribute.hpp"

namespace devices {
namespace {

using typecheck::DType;

constexpr int positions = 8;
std::shared_ptr<MpiTransport> transport;

std::shared_ptr<MemoryLedger> ledger(Processes processes) {
  return std::make_shared<MemoryLedger>(std::vector<MemoryLedger::DeviceMemory>(positions), std::int64_t{1} << 32,
                                        std::move(processes));
}

// Position p sits on device order[p]; device d on process d / (8 / P).
struct DeviceOrder {
  std::vector<int> order;
  int holder(int position) const {
    return transport->process_count() == 1 ? 0 : order[static_cast<std::size_t>(position)] / (positions / transport->process_count());
  }
};

const std::vector<DeviceOrder> orders = {{{0, 1, 2, 3, 4, 5, 6, 7}}, {{0, 4, 1, 5, 2, 6, 3, 7}}, {{7, 6, 5, 4, 3, 2, 1, 0}}};

// The same pseudo-random bytes on every process: finite floats (halves
// included), and zeros of both signs, so that max and min see them.
std::vector<std::byte> make_shard_bytes(DType dtype, std::int64_t count, int position) {
  std::minstd_rand random(static_cast<unsigned>(1000 * position + static_cast<int>(dtype) + 1));
  std::size_t size = static_cast<std::size_t>(count * typecheck::byte_size(dtype));
  std::vector<std::byte> bytes(size);
  for (std::int64_t i = 0; i < count; ++i) {
    std::byte* at = bytes.data() + i * typecheck::byte_size(dtype);
    float value = static_cast<float>(static_cast<int>(random() % 2001) - 1000) / 7.0f;
    if (random() % 17 == 0) value = (random() % 2) ? 0.0f : -0.0f;
    std::uint32_t bits = random();
    switch (dtype) {
      case DType::float32: std::memcpy(at, &value, 4); break;
      case DType::bfloat16: {
        std::uint32_t f;
        std::memcpy(&f, &value, 4);
        std::uint16_t h = static_cast<std::uint16_t>(f >> 16);
        std::memcpy(at, &h, 2);
        break;
      }
      case DType::float16: {
        std::uint16_t h = static_cast<std::uint16_t>((bits & 0x8000u) | (bits % 0x7800u & 0x7BFFu));
        std::memcpy(at, &h, 2);
        break;
      }
      case DType::bool_: *at = std::byte(bits & 1u); break;
      default: std::memcpy(at, &bits, static_cast<std::size_t>(typecheck::byte_size(dtype))); break;
    }
  }
  return bytes;
}

const std::vector<std::byte>& shard_bytes(DType dtype, std::int64_t count, int position) {
  static std::map<std::tuple<DType, std::int64_t, int>, std::vector<std::byte>> made;
  auto& bytes = made[{dtype, count, position}];
  if (bytes.empty()) bytes = make_shard_bytes(dtype, count, position);
  return bytes;
}

// Every shard (one process's view of all of them), or this process's with
// placeholders for the others'.
Shards shards_for(const DeviceOrder& setup, const std::shared_ptr<MemoryLedger>& memory, DType dtype, std::int64_t count,
                  bool everything) {
  Shards shards;
  for (int p = 0; p < positions; ++p) {
    int holder = setup.holder(p);
    if (!everything && holder != transport->process_index()) {
      shards.push_back(Buffer::remote(memory, holder, dtype, count));
      continue;
    }
    auto made = Buffer::allocate(memory, dtype, count, Fill::uninitialized);
    EXPECT_TRUE(made.ok());
    const auto& bytes = shard_bytes(dtype, count, p);
    std::memcpy((*made)->bytes().data(), bytes.data(), bytes.size());
    shards.push_back(*made);
  }
  return shards;
}

// Runs `collective` on every shard in one process and on this process's
// shards across the processes; the shards here must agree byte for byte.
template <class Collective>
void expect_same(const DeviceOrder& setup, DType dtype, std::int64_t count, const Collective& collective,
                 const std::string& what, bool results_everywhere = false) {
  auto alone = ledger(Processes());
  auto spread = ledger(Processes(transport));
  Expected<Shards> expected = collective(shards_for(setup, alone, dtype, count, true));
  Expected<Shards> got = collective(shards_for(setup, spread, dtype, count, false));
  ASSERT_EQ(expected.ok(), got.ok()) << what;
  if (!expected) return;
  for (int p = 0; p < positions; ++p) {
    const Buffer& mine = *(*got)[static_cast<std::size_t>(p)];
    if (!results_everywhere && setup.holder(p) != transport->process_index()) {
      EXPECT_TRUE(mine.is_remote()) << what << " position " << p;
      continue;
    }
    const Buffer& want = *(*expected)[static_cast<std::size_t>(p)];
    ASSERT_FALSE(mine.is_remote()) << what << " position " << p;
    ASSERT_EQ(mine.byte_size(), want.byte_size()) << what << " position " << p;
    EXPECT_EQ(std::memcmp(mine.bytes().data(), want.bytes().data(), static_cast<std::size_t>(want.byte_size())), 0)
        << what << " position " << p;
  }
}

const DType all_dtypes[] = {DType::float32, DType::bfloat16, DType::float16, DType::int32,
                            DType::uint32,  DType::int8,     DType::bool_};

const std::vector<std::vector<int>> axes_choices = {{0}, {1}, {0, 1}, {1, 0}};

TEST(CollectivesAcrossProcesses, AllReduceEveryDtypeAndReduction) {
  for (const DeviceOrder& setup : orders)
    for (DType dtype : all_dtypes)
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::max, ReduceOp::min})
        for (const auto& axes : axes_choices) {
          auto groups = replica_groups({4, 2}, axes);
          expect_same(setup, dtype, 1003, [&](const Shards& s) { return all_reduce(op, s, {1003}, groups); },
                      "all_reduce " + std::string(typecheck::long_name(dtype)));
        }
}

TEST(CollectivesAcrossProcesses, AllReduceInPieces) {
  // Large enough to go through the processes in several pieces (of 4 MiB
  // of the f32 partial sums).
  std::int64_t count = (1 << 20) + 5;
  for (const DeviceOrder& setup : orders)
    for (DType dtype : {DType::float32, DType::bfloat16})
      expect_same(setup, dtype, count,
                  [&](const Shards& s) { return all_reduce(ReduceOp::sum, s, {count}, replica_groups({4, 2}, {0, 1})); },
                  "all_reduce in pieces");
}

TEST(CollectivesAcrossProcesses, AllGatherReduceScatterAllToAll) {
  for (const DeviceOrder& setup : orders)
    for (DType dtype : {DType::float32, DType::bfloat16, DType::int8, DType::bool_})
      for (const auto& axes : axes_choices) {
        auto groups = replica_groups({4, 2}, axes);
        for (int dimension : {0, 1}) {
          expect_same(setup, dtype, 48, [&](const Shards& s) { return all_gather(s, {8, 6}, groups, dimension); },
                      "all_gather");
          expect_same(setup, dtype, 64,
                      [&](const Shards& s) { return reduce_scatter_sum(s, {8, 8}, groups, dimension); },
                      "reduce_scatter");
          expect_same(setup, dtype, 64,
                      [&](const Shards& s) { return all_to_all(s, {8, 8}, groups, dimension, 1 - dimension); },
                      "all_to_all");
        }
      }
}

TEST(CollectivesAcrossProcesses, CollectivePermute) {
  std::vector<std::pair<int, int>> ring, partial = {{0, 5}, {5, 2}, {6, 6}};
  for (int p = 0; p < positions; ++p) ring.emplace_back(p, (p + 3) % positions);
  for (const DeviceOrder& setup : orders)
    for (const auto& pairs : {ring, partial})
      expect_same(setup, DType::bfloat16, 100, [&](const Shards& s) { return collective_permute(s, {100}, pairs); },
                  "collective_permute");
}

// Blocks of a [8, 12] array: split along `rows` x `columns` blocks over the
// positions in order, each block on the process of its position.
Placement placement(const DeviceOrder& setup, int rows, int columns, bool on_every_process = false) {
  Placement placement;
  placement.block_shape = {8 / rows, 12 / columns};
  for (int p = 0; p < positions; ++p) {
    int block = p % (rows * columns);  // replicas when fewer blocks than positions
    placement.positions.push_back({{(block / columns) * (8 / rows), (block % columns) * (12 / columns)},
                                   on_every_process ? every_process : setup.holder(p)});
  }
  return placement;
}

TEST(RedistributeAcrossProcesses, EveryProcessGetsItsBlocks) {
  struct Case {
    int from_rows, from_columns, to_rows, to_columns;
  };
  for (const DeviceOrder& setup : orders)
    for (Case c : {Case{8, 1, 1, 1}, Case{8, 1, 1, 4}, Case{2, 4, 4, 2}, Case{1, 1, 8, 1}, Case{4, 2, 2, 1}}) {
      Placement from = placement(setup, c.from_rows, c.from_columns), to = placement(setup, c.to_rows, c.to_columns);
      std::int64_t count = (8 / c.from_rows) * (12 / c.from_columns);
      auto run = [&](const Shards& s) {
        bool alone = s.front()->ledger()->processes().count() == 1;
        Placement f = from, t = to;
        if (alone) {  // one process holds everything
          for (auto& position : f.positions) position.process = every_process;
          for (auto& position : t.positions) position.process = every_process;
        }
        return redistribute(s, f, t, DType::int32, s.front()->ledger());
      };
      // Position p's shard holds p's bytes (shards_for), so replicas of a
      // block differ: the whole takes the first replica's (Replicas::first).
      auto first = [&](const Shards& s) {
        bool alone = s.front()->ledger()->processes().count() == 1;
        Placement f = from, t = placement(setup, 1, 1, true);
        if (alone)
          for (auto& position : f.positions) position.process = every_process;
        return redistribute(s, f, t, DType::int32, s.front()->ledger(), Replicas::first);
      };
      if (c.from_rows * c.from_columns == positions) {
        expect_same(setup, DType::int32, count, run, "redistribute");
      }
      expect_same(setup, DType::int32, count, first, "redistribute to the whole", true);
    }
}

}  // namespace
}  // namespace devices

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  auto joined = devices::MpiTransport::join();
  if (!joined) {
    std::fprintf(stderr, "%s\n", joined.error().message.c_str());
    return 1;
  }
  devices::transport = *joined;
  int status = RUN_ALL_TESTS();
  devices::transport.reset();
  return status;
}
