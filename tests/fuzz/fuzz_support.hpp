// What the fuzz targets that run scripts (check_fuzz, run_fuzz) share: the
// fuzzer's bytes read as a stream of choices, and a watchdog that interrupts
// a script from another thread.
#pragma once

#include <shardlang/shardlang.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>

namespace fuzz {

// Reads choices from the fuzzer's bytes; zeros once they run out.
class Choices {
 public:
  Choices(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool more() const { return position_ < size_; }
  std::size_t pick(std::size_t count) { return count == 0 ? 0 : next() % count; }
  bool chance(std::size_t one_in) { return pick(one_in) == 0; }
  template <class T, std::size_t N>
  const T& one_of(const T (&items)[N]) {
    return items[pick(N)];
  }

 private:
  std::uint8_t next() { return position_ < size_ ? data_[position_++] : 0; }
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t position_ = 0;
};

// Calls interpreter.interrupt() (KeyboardInterrupt in the script) from its
// own thread after `allowed`, and again every 10 ms, until destroyed.
class Watchdog {
 public:
  Watchdog(shardlang::Interpreter& interpreter, std::chrono::milliseconds allowed)
      : thread_([this, &interpreter, allowed] {
          std::unique_lock lock(mutex_);
          if (done_changed_.wait_for(lock, allowed, [this] { return done_; })) return;
          while (!done_changed_.wait_for(lock, std::chrono::milliseconds(10), [this] { return done_; }))
            interpreter.interrupt();
        }) {}

  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    done_changed_.notify_one();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_changed_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace fuzz
