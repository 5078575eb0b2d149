// libFuzzer target: arbitrary bytes through the public API's check mode
// (parse, then host code run with abstract arrays), and the rendering of
// whatever diagnostics come back. Nothing may crash, hang or abort.
//
// check mode runs host-level code for real, so `while True: pass` would never
// end. The API has no step budget, so a watchdog thread calls interrupt()
// (KeyboardInterrupt) until check returns; inputs with `except` are skipped
// because a bare `except:` could swallow the interrupt forever.
#include <shardlang/shardlang.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <thread>

namespace {

constexpr std::size_t max_input_bytes = 4096;
constexpr auto time_allowed = std::chrono::milliseconds(200);
constexpr auto interrupt_every = std::chrono::milliseconds(10);

// Interrupts `interpreter` after time_allowed, and again every
// interrupt_every, until destroyed.
class Watchdog {
 public:
  explicit Watchdog(shardlang::Interpreter& interpreter)
      : thread_([this, &interpreter] {
          std::unique_lock lock(mutex_);
          if (done_changed_.wait_for(lock, time_allowed, [this] { return done_; })) return;
          while (!done_changed_.wait_for(lock, interrupt_every, [this] { return done_; })) interpreter.interrupt();
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > max_input_bytes) return -1;
  std::string_view source(reinterpret_cast<const char*>(data), size);
  if (source.find("except") != std::string_view::npos) return -1;
  shardlang::Interpreter interpreter;
  std::vector<shardlang::Diagnostic> diagnostics;
  {
    Watchdog watchdog(interpreter);
    diagnostics = interpreter.check(source, "fuzz.shl");
  }
  for (const shardlang::Diagnostic& diagnostic : diagnostics) {
    diagnostic.render(true);
    diagnostic.render_json();
  }
  return 0;
}
