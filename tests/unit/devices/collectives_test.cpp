// Collectives on per-position shards.
#include <gtest/gtest.h>

#include <climits>

#include "devices/collectives.hpp"
#include "devices/half_float.hpp"

namespace devices {
namespace {

using typecheck::DType;

std::shared_ptr<MemoryLedger> ledger() {
  return std::make_shared<MemoryLedger>(std::vector<MemoryLedger::DeviceMemory>{}, std::int64_t{1} << 30);
}

template <DType D>
Shards make_shards(const std::shared_ptr<MemoryLedger>& memory,
                   const std::vector<std::vector<storage_t<D>>>& values) {
  Shards shards;
  for (const auto& shard_values : values) {
    Expected<std::shared_ptr<Buffer>> buffer =
        Buffer::allocate(memory, D, static_cast<std::int64_t>(shard_values.size()));
    EXPECT_TRUE(buffer.ok());
    if (!buffer) return {};
    std::copy(shard_values.begin(), shard_values.end(), (*buffer)->elements<D>().begin());
    shards.push_back(*buffer);
  }
  return shards;
}

template <DType D>
std::vector<storage_t<D>> values_of(const std::shared_ptr<Buffer>& buffer) {
  auto view = std::as_const(*buffer).elements<D>();
  return {view.begin(), view.end()};
}

using Ints = std::vector<std::int32_t>;

TEST(ReplicaGroups, GroupsAlongMeshAxes) {
  EXPECT_EQ(replica_groups({4, 2}, {1}), (ReplicaGroups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(replica_groups({4, 2}, {0}), (ReplicaGroups{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_EQ(replica_groups({4, 2}, {0, 1}), (ReplicaGroups{{0, 1, 2, 3, 4, 5, 6, 7}}));
  EXPECT_EQ(replica_groups({4, 2}, {1, 0}), (ReplicaGroups{{0, 2, 4, 6, 1, 3, 5, 7}}));
  EXPECT_EQ(replica_groups({2, 2}, {}), (ReplicaGroups{{0}, {1}, {2}, {3}}));
}

TEST(Collectives, AllGatherConcatenatesAndSharesTheResult) {
  auto memory = ledger();
  Shards shards = make_shards<DType::int32>(memory, {{0, 1}, {10, 11}, {20, 21}, {30, 31}});
  Expected<Shards> gathered = all_gather(shards, {2}, replica_groups({2, 2}, {1}), 0);
  ASSERT_TRUE(gathered.ok()) << gathered.error().message;
  EXPECT_EQ(values_of<DType::int32>((*gathered)[0]), (Ints{0, 1, 10, 11}));
  EXPECT_EQ(values_of<DType::int32>((*gathered)[3]), (Ints{20, 21, 30, 31}));
  EXPECT_EQ((*gathered)[0], (*gathered)[1]);  // one buffer for the group
  // Along the minor dimension of [2, 1] shards.
  Expected<Shards> columns = all_gather(shards, {2, 1}, replica_groups({2, 2}, {0}), 1);
  ASSERT_TRUE(columns.ok());
  EXPECT_EQ(values_of<DType::int32>((*columns)[0]), (Ints{0, 20, 1, 21}));
}

TEST(Collectives, AllReduceSum) {
  auto memory = ledger();
  Shards shards = make_shards<DType::float32>(memory, {{1, 2}, {10, 20}, {100, 200}, {1000, 2000}});
  Expected<Shards> summed = all_reduce_sum(shards, {2}, replica_groups({4}, {0}));
  ASSERT_TRUE(summed.ok());
  EXPECT_EQ(values_of<DType::float32>((*summed)[2]), (std::vector<float>{1111, 2222}));
  Shards ints = make_shards<DType::int32>(memory, {{INT_MAX}, {1}});
  Expected<Shards> wrapped = all_reduce_sum(ints, {1}, {{0, 1}});
  ASSERT_TRUE(wrapped.ok());
  EXPECT_EQ(values_of<DType::int32>((*wrapped)[0]), (Ints{INT_MIN}));  // wraps as in XLA
}

TEST(Collectives, HalfFloatSumRoundsOnce) {
  auto memory = ledger();
  std::uint16_t big = bfloat16_from_float(256.0f), one = bfloat16_from_float(1.0f);
  Shards shards = make_shards<DType::bfloat16>(memory, {{big}, {one}, {one}});
  Expected<Shards> summed = all_reduce_sum(shards, {1}, {{0, 1, 2}});
  ASSERT_TRUE(summed.ok());
  // 256 + 1 + 1 in f32 is 258; summing in bf16 would stay at 256.
  EXPECT_EQ(float_from_bfloat16(values_of<DType::bfloat16>((*summed)[0])[0]), 258.0f);
  Shards pair = make_shards<DType::bfloat16>(memory, {{big}, {one}});
  Expected<Shards> tie = all_reduce_sum(pair, {1}, {{0, 1}});
  ASSERT_TRUE(tie.ok());
  EXPECT_EQ(float_from_bfloat16(values_of<DType::bfloat16>((*tie)[0])[0]), 256.0f);  // 257 ties to even
}

TEST(Collectives, ReduceScatterSum) {
  auto memory = ledger();
  Shards shards = make_shards<DType::int32>(memory, {{1, 2, 3, 4}, {10, 20, 30, 40}});
  Expected<Shards> scattered = reduce_scatter_sum(shards, {4}, {{0, 1}}, 0);
  ASSERT_TRUE(scattered.ok());
  EXPECT_EQ(values_of<DType::int32>((*scattered)[0]), (Ints{11, 22}));
  EXPECT_EQ(values_of<DType::int32>((*scattered)[1]), (Ints{33, 44}));
  Expected<Shards> uneven = reduce_scatter_sum(make_shards<DType::int32>(memory, {{1, 2, 3}, {4, 5, 6}}), {3},
                                               {{0, 1}}, 0);
  ASSERT_FALSE(uneven.ok());
  EXPECT_NE(uneven.error().message.find("cannot be split into 2 equal pieces"), std::string::npos);
}

TEST(Collectives, AllToAll) {
  auto memory = ledger();
  // [2, 2] shards, split rows, concatenate along columns.
  Shards shards = make_shards<DType::int32>(memory, {{0, 1, 2, 3}, {10, 11, 12, 13}});
  Expected<Shards> exchanged = all_to_all(shards, {2, 2}, {{0, 1}}, 0, 1);
  ASSERT_TRUE(exchanged.ok());
  EXPECT_EQ(values_of<DType::int32>((*exchanged)[0]), (Ints{0, 1, 10, 11}));
  EXPECT_EQ(values_of<DType::int32>((*exchanged)[1]), (Ints{2, 3, 12, 13}));
  // Split and concatenate along one dimension: a transpose of the blocks.
  Shards rows = make_shards<DType::int32>(memory, {{0, 1}, {10, 11}});
  Expected<Shards> swapped = all_to_all(rows, {2}, {{0, 1}}, 0, 0);
  ASSERT_TRUE(swapped.ok());
  EXPECT_EQ(values_of<DType::int32>((*swapped)[0]), (Ints{0, 10}));
  EXPECT_EQ(values_of<DType::int32>((*swapped)[1]), (Ints{1, 11}));
}

TEST(Collectives, CollectivePermute) {
  auto memory = ledger();
  Shards shards = make_shards<DType::int32>(memory, {{0}, {1}, {2}, {3}});
  Expected<Shards> shifted = collective_permute(shards, {1}, {{0, 1}, {1, 2}, {2, 3}, {3, 0}});
  ASSERT_TRUE(shifted.ok());
  EXPECT_EQ((*shifted)[1], shards[0]);  // shared, not copied
  EXPECT_EQ(values_of<DType::int32>((*shifted)[0]), (Ints{3}));
  Expected<Shards> partial = collective_permute(shards, {1}, {{0, 1}});
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(values_of<DType::int32>((*partial)[1]), (Ints{0}));
  EXPECT_EQ(values_of<DType::int32>((*partial)[0]), (Ints{0}));  // not a target: zeros
  EXPECT_EQ(values_of<DType::int32>((*partial)[3]), (Ints{0}));
  EXPECT_FALSE(collective_permute(shards, {1}, {{0, 1}, {2, 1}}).ok());  // two sources, one target
  EXPECT_FALSE(collective_permute(shards, {1}, {{0, 4}}).ok());
}

TEST(Collectives, BadArgumentsAreErrors) {
  auto memory = ledger();
  Shards shards = make_shards<DType::int32>(memory, {{0, 1}, {2, 3}});
  EXPECT_FALSE(all_gather(shards, {2}, {{0, 0}}, 0).ok());       // repeated position
  EXPECT_FALSE(all_gather(shards, {2}, {{0}}, 0).ok());          // position 1 missing
  EXPECT_FALSE(all_gather(shards, {2}, {{0, 1}}, 1).ok());       // no dimension 1
  EXPECT_FALSE(all_gather(shards, {3}, {{0, 1}}, 0).ok());       // shape does not match
  Shards mixed = shards;
  mixed.push_back(make_shards<DType::float32>(memory, {{0, 1}}).front());
  EXPECT_FALSE(all_reduce_sum(mixed, {2}, {{0, 1, 2}}).ok());   // dtypes differ
  EXPECT_FALSE(all_reduce_sum({}, {2}, {}).ok());
}

}  // namespace
}  // namespace devices
