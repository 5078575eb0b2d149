#include "devices/thread_pool.hpp"

namespace devices {

ThreadPool::ThreadPool(int thread_count) {
  if (thread_count <= 0) thread_count = static_cast<int>(std::thread::hardware_concurrency());
  if (thread_count <= 0) thread_count = 1;
  for (int i = 1; i < thread_count; ++i) workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::drain(std::unique_lock<std::mutex>& lock) {
  while (task_ != nullptr && next_ < count_) {
    int index = next_++;
    const std::function<void(int)>* task = task_;
    lock.unlock();
    (*task)(index);
    lock.lock();
    if (--unfinished_ == 0) work_done_.notify_all();
  }
}

void ThreadPool::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  // Workers start before any run (generation 0), but may first take the
  // lock after a run has begun: they must not skip it.
  std::uint64_t seen = 0;
  while (true) {
    work_ready_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    drain(lock);
  }
}

void ThreadPool::run_all(int count, const std::function<void(int)>& task) {
  if (count <= 0) return;
  std::lock_guard<std::mutex> one_run(run_mutex_);
  std::unique_lock<std::mutex> lock(mutex_);
  task_ = &task;
  next_ = 0;
  count_ = count;
  unfinished_ = count;
  ++generation_;
  work_ready_.notify_all();
  drain(lock);  // the caller works too
  work_done_.wait(lock, [&] { return unfinished_ == 0; });
  task_ = nullptr;
}

}  // namespace devices
