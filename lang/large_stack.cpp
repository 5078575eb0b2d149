#include "lang/large_stack.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <exception>

#include "lang/coroutine.hpp"

namespace lang {
namespace {

// The large stack the thread runs on now: [lowest, highest), or nulls.
struct StackExtent {
  const char* lowest = nullptr;
  const char* highest = nullptr;
  bool holds(const char* address) const { return lowest <= address && address < highest; }
};
thread_local StackExtent current_stack;

const char* here() { return static_cast<const char*>(__builtin_frame_address(0)); }

// One run: the work, what it threw, and the caller's stack for the switch back.
struct Run {
  const std::function<void()>* work;
  Coroutine coroutine;
  std::exception_ptr error;
  const void* caller_bottom = nullptr;
  std::size_t caller_size = 0;
};

void run_entry(void* argument) {
  auto* run = static_cast<Run*>(argument);
  finished_switch(nullptr, &run->caller_bottom, &run->caller_size);
  try {
    (*run->work)();
  } catch (...) {
    run->error = std::current_exception();
  }
  starting_switch(nullptr, run->caller_bottom, run->caller_size);  // this stack is done with
}

// An anonymous mapping with an inaccessible page below it: running off the
// end faults instead of writing over whatever lies beneath. Null lowest()
// when the mapping could not be made.
class StackMemory {
 public:
  explicit StackMemory(std::size_t bytes) : guard_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))), bytes_(bytes) {
    void* memory = mmap(nullptr, guard_ + bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
    if (memory == MAP_FAILED) return;
    base_ = static_cast<char*>(memory);
    mprotect(base_, guard_, PROT_NONE);
  }
  ~StackMemory() {
    if (base_ == nullptr) return;
    unpoison_stack(lowest(), bytes_);  // the next mapping here may be a stack again
    munmap(base_, guard_ + bytes_);
  }
  StackMemory(const StackMemory&) = delete;
  StackMemory& operator=(const StackMemory&) = delete;
  char* lowest() const { return base_ != nullptr ? base_ + guard_ : nullptr; }

 private:
  std::size_t guard_;
  std::size_t bytes_;
  char* base_ = nullptr;
};

}  // namespace

void run_on_large_stack(std::size_t bytes, const std::function<void()>& work) {
  if (current_stack.holds(here()) && static_cast<std::size_t>(here() - current_stack.lowest) >= bytes) {
    work();
    return;
  }
  StackMemory memory(bytes);
  if (memory.lowest() == nullptr) {  // no memory to be had for it: run here, within the same guards
    work();
    return;
  }
  Run run{&work, {}, nullptr};
  const StackExtent outer = current_stack;
  current_stack = {memory.lowest(), memory.lowest() + bytes};
  run.coroutine.start(memory.lowest(), bytes, &run_entry, &run);
  void* fake_stack = nullptr;
  starting_switch(&fake_stack, memory.lowest(), bytes);
  run.coroutine.resume();
  finished_switch(fake_stack, nullptr, nullptr);
  current_stack = outer;
  if (run.error) std::rethrow_exception(run.error);
}

const char* large_stack_lowest() { return current_stack.holds(here()) ? current_stack.lowest : nullptr; }

}  // namespace lang
