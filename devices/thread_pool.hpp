// The host threads that run the devices' kernels in parallel (runtime.md
// "Executing": local kernels run the shards of the devices in parallel). The
// eager executor and the compiled program runner hand it one task per device.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace devices {

class ThreadPool {
 public:
  // `thread_count` workers, the calling thread included; 0 means one per
  // hardware thread.
  explicit ThreadPool(int thread_count = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int thread_count() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs task(0) … task(count - 1), in parallel, and returns when all have
  // finished. Tasks report failure through what they capture; they must not
  // throw. One run at a time: concurrent callers take turns.
  void run_all(int count, const std::function<void(int)>& task);

 private:
  void work();
  // Takes and runs tasks of the current run until none is left.
  void drain(std::unique_lock<std::mutex>& lock);

  std::mutex run_mutex_;  // serialises run_all callers
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  const std::function<void(int)>* task_ = nullptr;
  int next_ = 0;
  int count_ = 0;
  int unfinished_ = 0;
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace devices
