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
#include <optional>
#include <string>
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

// The script an input stands for: bit 0 of the first byte clear, the rest of
// the input as text (none when it has `except`: a bare `except:` could
// swallow the watchdog's KeyboardInterrupt forever); set, what `generate`
// makes of the rest read as choices.
template <class Generate>
std::optional<std::string> script_of(const std::uint8_t* data, std::size_t size, Generate generate) {
  if (data[0] % 2 == 0) {
    std::string source(reinterpret_cast<const char*>(data) + 1, size - 1);
    if (source.find("except") != std::string::npos) return std::nullopt;
    return source;
  }
  Choices choices(data + 1, size - 1);
  return generate(choices);
}

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
