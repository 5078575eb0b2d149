// Guarding the C++ stack: the evaluator, the resolver and repr recurse on the
// program's nesting, so each checks the remaining stack and raises Python's
// RecursionError long before the thread's stack could overflow.
#pragma once

#include <cstddef>
#include <functional>

namespace interp {

class StackLimit {
 public:
  // Measures the current thread's stack; keeps `reserve` bytes untouched.
  explicit StackLimit(std::size_t reserve = 256 * 1024);
  // A stack of our own making (a generator's): `lowest` is its last usable byte.
  static StackLimit at(const char* lowest) {
    StackLimit limit(0, lowest);
    return limit;
  }
  bool exhausted() const {
    return static_cast<const char*>(__builtin_frame_address(0)) < lowest_;
  }

 private:
  StackLimit(int, const char* lowest) : lowest_(lowest) {}
  const char* lowest_ = nullptr;
};

// Runs `work` on a large stack (deep but legal programs need more than a
// default 8 MiB thread stack) in the calling thread (lang/large_stack.hpp).
void run_with_large_stack(const std::function<void()>& work);

}  // namespace interp
