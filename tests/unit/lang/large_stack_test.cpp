// run_on_large_stack (lang/large_stack.hpp): the work runs on another stack
// in the same thread, deep recursion fits there, what it throws comes back,
// and nested work with room to spare stays on the same stack.
#include "lang/large_stack.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

namespace {

constexpr std::size_t large = std::size_t{64} << 20;

const char* frame() { return static_cast<const char*>(__builtin_frame_address(0)); }

// Recursion with a frame of about a kilobyte: far deeper than a default
// 8 MiB thread stack holds.
int depth_of(int remaining) {
  volatile char frame_bytes[1000];
  frame_bytes[0] = static_cast<char>(remaining);
  if (remaining == 0) return frame_bytes[0];
  return 1 + depth_of(remaining - 1);
}

TEST(LargeStack, RunsOnAnotherStackInTheSameThread) {
  const std::thread::id caller = std::this_thread::get_id();
  const char* outside = frame();
  EXPECT_EQ(lang::large_stack_lowest(), nullptr);
  const char* lowest = nullptr;
  const char* inside = nullptr;
  std::thread::id runner;
  lang::run_on_large_stack(large, [&] {
    runner = std::this_thread::get_id();
    inside = frame();
    lowest = lang::large_stack_lowest();
  });
  EXPECT_EQ(runner, caller);
  ASSERT_NE(lowest, nullptr);
  EXPECT_GE(inside, lowest);
  EXPECT_LT(inside, lowest + large);
  EXPECT_FALSE(outside >= lowest && outside < lowest + large);
  EXPECT_EQ(lang::large_stack_lowest(), nullptr);  // back on the caller's
}

TEST(LargeStack, HoldsDeepRecursion) {
  int depth = 0;
  lang::run_on_large_stack(large, [&] { depth = depth_of(30000); });  // ~30 MB of frames
  EXPECT_EQ(depth, 30000);
}

TEST(LargeStack, RethrowsWhatTheWorkThrew) {
  EXPECT_THROW(lang::run_on_large_stack(large, [] { throw std::runtime_error("from the large stack"); }),
               std::runtime_error);
  int after = 0;
  lang::run_on_large_stack(large, [&] { after = 1; });  // and runs again
  EXPECT_EQ(after, 1);
}

TEST(LargeStack, NestedWorkWithRoomStaysOnTheSameStack) {
  const char* outer = nullptr;
  const char* inner = nullptr;
  const char* deeper = nullptr;
  lang::run_on_large_stack(large, [&] {
    outer = lang::large_stack_lowest();
    lang::run_on_large_stack(large / 2, [&] { inner = lang::large_stack_lowest(); });
    // More than what is left: a stack of its own, then back to the outer one.
    lang::run_on_large_stack(large, [&] { deeper = lang::large_stack_lowest(); });
    EXPECT_EQ(lang::large_stack_lowest(), outer);
  });
  EXPECT_EQ(inner, outer);
  ASSERT_NE(deeper, nullptr);
  EXPECT_NE(deeper, outer);
}

}  // namespace
