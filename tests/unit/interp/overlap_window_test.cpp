// The overlap window: which charges of a jitted shard_map body overlap or
// fuse, decided by the data flow between applications.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "interp/transforms/costing.hpp"

namespace interp {
namespace {

using Role = OverlapWindow::Role;

// What the sink received: total time and each charge's operation.
struct Received {
  double seconds = 0;
  std::vector<std::string> operations;
  int overlapped_pairs = 0;
};

OverlapWindow window_into(Received& received) {
  return OverlapWindow({[&](devices::Charge charge, const std::vector<int>&, const lang::Span&) {
                          received.seconds += charge.seconds;
                          received.operations.push_back(charge.operation);
                        },
                        [&](devices::Charge compute, const lang::Span&, devices::Charge communication,
                            const lang::Span&, const std::vector<int>&) {
                          received.seconds += std::max(compute.seconds, communication.seconds);
                          received.operations.push_back(compute.operation + "|" + communication.operation);
                          ++received.overlapped_pairs;
                        }});
}

OverlapWindow::Application application(std::string operation, Role role, std::vector<OverlapWindow::Id> inputs,
                                       OverlapWindow::Id output, double seconds, bool windowed = true) {
  OverlapWindow::Application a;
  devices::CollectiveKind kind =
      role == Role::permute ? devices::CollectiveKind::collective_permute : devices::CollectiveKind::none;
  a.charges.push_back({std::move(operation), "", kind, 0, seconds, 0});
  a.role = role;
  a.inputs = std::move(inputs);
  a.output = output;
  a.devices = {0, 1, 2, 3};
  a.windowed = windowed;
  return a;
}

TEST(OverlapWindowTest, PermuteIndependentOfTheMatmulCostsTheLongerOfTheTwo) {
  Received received;
  OverlapWindow window = window_into(received);
  // next = ppermute(block); product = block @ rhs: the matmul reads the
  // permute's operand, not its result.
  window.push(application("ppermute", Role::permute, {1}, 3, 30e-6));
  window.push(application("dot_general", Role::matmul, {1, 2}, 4, 50e-6));
  window.flush();
  EXPECT_EQ(received.overlapped_pairs, 1);
  EXPECT_DOUBLE_EQ(received.seconds, 50e-6);
}

TEST(OverlapWindowTest, MatmulConsumingThePermutedBlockWaitsForIt) {
  Received received;
  OverlapWindow window = window_into(received);
  window.push(application("ppermute", Role::permute, {1}, 3, 30e-6));
  window.push(application("dot_general", Role::matmul, {3, 2}, 4, 50e-6));
  window.flush();
  EXPECT_EQ(received.overlapped_pairs, 0);
  EXPECT_DOUBLE_EQ(received.seconds, 80e-6);
}

TEST(OverlapWindowTest, PermuteOfAValueComputedFromTheMatmulWaitsForIt) {
  Received received;
  OverlapWindow window = window_into(received);
  window.push(application("dot_general", Role::matmul, {1, 2}, 3, 50e-6));
  window.push(application("negative", Role::other, {3}, 4, 1e-6));
  window.push(application("ppermute", Role::permute, {4}, 5, 30e-6));
  window.flush();
  EXPECT_EQ(received.overlapped_pairs, 0);
  EXPECT_DOUBLE_EQ(received.seconds, 81e-6);
}

TEST(OverlapWindowTest, PermuteAfterAnIndependentMatmulOverlapsIt) {
  Received received;
  OverlapWindow window = window_into(received);
  window.push(application("dot_general", Role::matmul, {1, 2}, 3, 50e-6));
  window.push(application("ppermute", Role::permute, {1}, 4, 70e-6));
  window.flush();
  EXPECT_EQ(received.overlapped_pairs, 1);
  EXPECT_DOUBLE_EQ(received.seconds, 70e-6);
}

TEST(OverlapWindowTest, SliceReadByTheMatmulAndItsAccumulationFuseIntoIt) {
  Received received;
  OverlapWindow window = window_into(received);
  window.push(application("dynamic_slice", Role::slice, {2}, 5, 10e-6));
  window.push(application("dot_general", Role::matmul, {1, 5}, 6, 50e-6));
  window.push(application("add", Role::elementwise, {7, 6}, 8, 15e-6));
  window.flush();
  EXPECT_DOUBLE_EQ(received.seconds, 50e-6);
  EXPECT_NE(std::find(received.operations.begin(), received.operations.end(), "dynamic_slice (fused)"),
            received.operations.end());
  EXPECT_NE(std::find(received.operations.begin(), received.operations.end(), "add (fused)"),
            received.operations.end());
}

TEST(OverlapWindowTest, SliceReadByAnythingElseIsChargedInFull) {
  Received received;
  OverlapWindow window = window_into(received);
  window.push(application("dynamic_slice", Role::slice, {2}, 5, 10e-6));
  window.push(application("sin", Role::elementwise, {5}, 6, 3e-6));
  window.flush();
  EXPECT_DOUBLE_EQ(received.seconds, 13e-6);
}

TEST(OverlapWindowTest, OutsideAJittedShardMapBodyNothingOverlaps) {
  Received received;
  OverlapWindow window = window_into(received);
  window.push(application("ppermute", Role::permute, {1}, 3, 30e-6, false));
  window.push(application("dot_general", Role::matmul, {1, 2}, 4, 50e-6, false));
  window.push(application("add", Role::elementwise, {4, 5}, 6, 15e-6, false));
  window.flush();
  EXPECT_EQ(received.overlapped_pairs, 0);
  EXPECT_DOUBLE_EQ(received.seconds, 95e-6);
}

TEST(OverlapWindowTest, UnwindowedApplicationChargesWhatWasHeldFirst) {
  Received received;
  OverlapWindow window = window_into(received);
  window.push(application("ppermute", Role::permute, {1}, 3, 30e-6));
  window.push(application("dispatch", Role::other, {}, 9, 1e-3, false));
  ASSERT_EQ(received.operations.size(), 2u);
  EXPECT_EQ(received.operations[0], "ppermute");
  EXPECT_EQ(received.operations[1], "dispatch");
}

}  // namespace
}  // namespace interp
