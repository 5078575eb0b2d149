// A body of code on a stack of its own, switched to and from: what a
// generator runs on (interp/python/generators.hpp), and the parser and the
// evaluator when they need a larger stack than the caller's (large_stack.hpp). On x86-64 a switch saves and restores
// only the callee-saved registers (as Boost.Context's fcontext does); on
// other machines it is ucontext's swapcontext, which also makes a system
// call per switch for the signal mask.
#pragma once

#include <cstddef>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace lang {

class Coroutine {
 public:
  using Entry = void (*)(void* argument);

  // Prepares `entry(argument)` to run on [stack, stack + bytes) at the first
  // resume(). When entry returns, the last resume() returns.
  void start(char* stack, std::size_t bytes, Entry entry, void* argument);
  // From the resumer: runs the body until it suspends or its entry returns.
  void resume();
  // From the body: back to the resumer's resume().
  void suspend();

 private:
  static void run(void* self);
  Entry entry_ = nullptr;
  void* argument_ = nullptr;
#if defined(__x86_64__)
  void* resumer_ = nullptr;  // the saved stack pointers of the two sides
  void* body_ = nullptr;
#else
  ucontext_t resumer_{};
  ucontext_t body_{};
#endif
};

// AddressSanitizer must be told of every switch between stacks, or an
// exception thrown on another stack looks to it like a stack overflow (its
// fiber annotations); in other builds these do nothing. Before a switch to
// the stack [bottom, bottom + size): `fake_stack` keeps the side being left
// (null when that side never runs again). After it: `fake_stack` is what the
// side switched back to kept, and the previous stack's extent is reported
// where asked.
void starting_switch(void** fake_stack, const void* bottom, std::size_t size);
void finished_switch(void* fake_stack, const void** previous_bottom, std::size_t* previous_size);
// Frames that never returned on a stack (a body dropped mid-run, the last
// frames of one that ended) leave AddressSanitizer's marks on it: cleared
// before its memory is used again, or unmapped. Nothing in other builds.
void unpoison_stack(char* stack, std::size_t bytes);

}  // namespace lang
