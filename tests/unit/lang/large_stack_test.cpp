// run_on_large_stack (lang/large_stack.hpp): the work runs on another stack
// in the same thread, deep recursion fits there, what it throws comes back,
// and nested work with room to spare stays on the same stack.
#include "lang/large_stack.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
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

TEST(LargeStack, RunsInPlaceWhenNoStackCanBeMapped) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers reserve address space of their own";
#endif
  // Address space for what the process has and a little more, not for a stack.
  std::size_t pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  ASSERT_GT(pages, 0U);
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
  rlimit tight = saved;
  tight.rlim_cur = pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) + (std::size_t{16} << 20);
  ASSERT_EQ(setrlimit(RLIMIT_AS, &tight), 0);
  const char* outside = frame();
  const char* lowest = outside;
  const char* inside = nullptr;
  lang::run_on_large_stack(large, [&] {
    lowest = lang::large_stack_lowest();
    inside = frame();
  });
  setrlimit(RLIMIT_AS, &saved);
  EXPECT_EQ(lowest, nullptr);
  EXPECT_LT(outside - inside, 64 * 1024);  // a few frames below the caller's, on its stack
}

}  // namespace
