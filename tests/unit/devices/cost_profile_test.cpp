// Profile: device timelines of charges and the --profile table.
#include <gtest/gtest.h>

#include <vector>

#include "devices/profile.hpp"

namespace devices {
namespace {

const std::vector<int> all_four = {0, 1, 2, 3};

Charge charge(std::string operation, std::string shardings, CollectiveKind collective, std::int64_t bytes,
              double seconds, SourceId source) {
  return {std::move(operation), std::move(shardings), collective, bytes, seconds, source};
}

TEST(Profile, DevicesStartTogetherWhenTheLastIsFree) {
  Profile profile("v5e", 4);
  ASSERT_TRUE(profile.add(charge("sin", "f32[8]", CollectiveKind::none, 0, 3e-6, 1), std::vector<int>{0}).ok());
  ASSERT_TRUE(profile.add(charge("cos", "f32[8]", CollectiveKind::none, 0, 5e-6, 1), std::vector<int>{1}).ok());
  // Devices 0 and 1 worked in parallel; the all-gather waits for device 1.
  ASSERT_TRUE(profile.add(charge("all-gather", "f32[8@X]", CollectiveKind::all_gather, 32, 2e-6, 2), all_four).ok());
  ASSERT_EQ(profile.charges().size(), 3u);
  EXPECT_DOUBLE_EQ(profile.charges()[2].start_seconds, 5e-6);
  EXPECT_DOUBLE_EQ(profile.total_seconds(), 7e-6);
  EXPECT_DOUBLE_EQ(profile.device_busy_seconds(0), 5e-6);
  EXPECT_DOUBLE_EQ(profile.device_busy_seconds(1), 7e-6);
  EXPECT_DOUBLE_EQ(profile.device_busy_seconds(3), 2e-6);
  EXPECT_EQ(profile.device_busy_seconds(9), 0);
}

TEST(Profile, RefusesDevicesOutsideTheRun) {
  Profile profile("v5e", 2);
  EXPECT_FALSE(profile.add(charge("sin", "", CollectiveKind::none, 0, 1e-6, 0), std::vector<int>{2}).ok());
  EXPECT_FALSE(profile.add(charge("sin", "", CollectiveKind::none, 0, 1e-6, 0), std::vector<int>{-1}).ok());
  EXPECT_FALSE(profile.add(charge("sin", "", CollectiveKind::none, 0, 1e-6, 0), std::vector<int>{}).ok());
  EXPECT_TRUE(profile.charges().empty());
}

TEST(Profile, OverlappedCollectiveCostsOnlyWhatComputeDoesNotHide) {
  Profile profile("v5e", 4);
  Charge matmul = charge("dot_general", "", CollectiveKind::none, 0, 5e-5, 7);
  Charge hidden = charge("ppermute", "", CollectiveKind::collective_permute, 1024, 3e-5, 8);
  Charge longer = charge("ppermute", "", CollectiveKind::collective_permute, 1024, 7e-5, 8);
  ASSERT_TRUE(profile.add_overlapped(matmul, hidden, all_four).ok());
  EXPECT_DOUBLE_EQ(profile.total_seconds(), 5e-5);
  ASSERT_TRUE(profile.add_overlapped(matmul, longer, all_four).ok());
  EXPECT_DOUBLE_EQ(profile.total_seconds(), 1.2e-4);
  const std::vector<TimedCharge>& charges = profile.charges();
  ASSERT_EQ(charges.size(), 4u);
  EXPECT_DOUBLE_EQ(charges[1].charged_seconds, 0);
  EXPECT_TRUE(charges[1].overlapped);
  EXPECT_DOUBLE_EQ(charges[3].start_seconds, 5e-5);
  EXPECT_NEAR(charges[3].charged_seconds, 2e-5, 1e-15);
}

TEST(Profile, RendersTheMostExpensiveRowsFirst) {
  Profile profile("v5e", 4);
  profile.label_source(1, "model.shl:3");
  profile.label_source(2, "model.shl:4");
  for (int step = 0; step < 2; ++step)
    ASSERT_TRUE(profile.add(charge("all-gather", "f32[512@X,2048]", CollectiveKind::all_gather, 4194304, 1e-4, 1),
                            all_four)
                    .ok());
  ASSERT_TRUE(profile.add(charge("dot_general", "f32[512,2048] x f32[2048,2048@Y]", CollectiveKind::none, 0,
                                 3e-4, 2),
                          all_four)
                  .ok());
  ASSERT_TRUE(profile.add(charge("sin", "f32[8]", CollectiveKind::none, 0, 1e-6, 9), all_four).ok());
  EXPECT_EQ(profile.render(),
            "profile on v5e, 4 devices: estimated 501.0 µs over 4 operations\n"
            "\n"
            "source       operation    shardings                         collective  count  bytes moved  est. µs  share\n"
            "model.shl:4  dot_general  f32[512,2048] x f32[2048,2048@Y]  -               1            0    300.0  59.9%\n"
            "model.shl:3  all-gather   f32[512@X,2048]                   all-gather      2      8388608    200.0  39.9%\n"
            "#9           sin          f32[8]                            -               1            0      1.0   0.2%\n"
            "\n"
            "collective  count  bytes moved  est. µs  exposed µs  share\n"
            "all-gather      2      8388608    200.0       200.0  39.9%\n"
            "\n"
            "not modelled: overlap that XLA's scheduler finds by itself, fusion (beyond a hand-overlapped shard_map matmul step's slice and accumulation), small-matmul MXU "
            "under-utilisation, link congestion between axes\n");
  std::string shortened = profile.render(1);
  EXPECT_NE(shortened.find("model.shl:4"), std::string::npos);
  EXPECT_EQ(shortened.find("model.shl:3  all-gather"), std::string::npos);
  EXPECT_NE(shortened.find("… 2 more rows: 201.0 µs, 40.1%\n"), std::string::npos);
}

TEST(Profile, EmptyRunHasHeaderAndFooter) {
  Profile profile("v2", 1);
  EXPECT_EQ(profile.render(),
            "profile on v2, 1 device: estimated 0.0 µs over 0 operations\n"
            "\n"
            "not modelled: overlap that XLA's scheduler finds by itself, fusion (beyond a hand-overlapped shard_map matmul step's slice and accumulation), small-matmul MXU "
            "under-utilisation, link congestion between axes\n");
}

}  // namespace
}  // namespace devices
