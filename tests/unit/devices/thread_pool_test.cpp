// The pool that runs one kernel per device in parallel.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "devices/thread_pool.hpp"

namespace devices {
namespace {

TEST(ThreadPool, RunsEveryTaskOnceAndWaitsForAll) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.thread_count(), 4);
  for (int round = 0; round < 50; ++round) {
    std::vector<std::atomic<int>> runs(37);
    pool.run_all(37, [&](int index) { runs[static_cast<std::size_t>(index)]++; });
    for (const std::atomic<int>& count : runs) EXPECT_EQ(count.load(), 1);
  }
  pool.run_all(0, [](int) { FAIL() << "no task to run"; });
}

TEST(ThreadPool, TasksRunInParallel) {
  ThreadPool pool(4);
  // Four tasks that each wait until all four have started: only possible
  // when they run at the same time.
  std::atomic<int> started = 0;
  std::atomic<bool> all_met = true;
  pool.run_all(4, [&](int) {
    started++;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 4) {
      if (std::chrono::steady_clock::now() > deadline) {
        all_met = false;
        return;
      }
      std::this_thread::yield();
    }
  });
  EXPECT_TRUE(all_met.load());
}

TEST(ThreadPool, ConcurrentCallersTakeTurns) {
  ThreadPool pool(3);
  std::atomic<int> total = 0;
  std::vector<std::thread> callers;
  for (int caller = 0; caller < 4; ++caller) {
    callers.emplace_back([&] {
      for (int round = 0; round < 20; ++round) pool.run_all(8, [&](int) { total++; });
    });
  }
  for (std::thread& caller : callers) caller.join();
  EXPECT_EQ(total.load(), 4 * 20 * 8);
}

TEST(ThreadPool, DefaultSizeIsTheHardware) {
  ThreadPool pool;
  unsigned hardware = std::thread::hardware_concurrency();
  EXPECT_EQ(pool.thread_count(), hardware == 0 ? 1 : static_cast<int>(hardware));
}

}  // namespace
}  // namespace devices
