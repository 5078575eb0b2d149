#include "lang/coroutine.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#include <cstdint>
#include <cstring>

namespace lang {

#if defined(__SANITIZE_ADDRESS__)
void starting_switch(void** fake_stack, const void* bottom, std::size_t size) {
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
}
void finished_switch(void* fake_stack, const void** previous_bottom, std::size_t* previous_size) {
  __sanitizer_finish_switch_fiber(fake_stack, previous_bottom, previous_size);
}
void unpoison_stack(char* stack, std::size_t bytes) { __asan_unpoison_memory_region(stack, bytes); }
#else
void starting_switch(void**, const void*, std::size_t) {}
void finished_switch(void*, const void**, std::size_t*) {}
void unpoison_stack(char*, std::size_t) {}
#endif

#if defined(__x86_64__)

// shardlang_switch_stack(save, to): pushes the callee-saved registers and
// the floating-point control words on the current stack, stores the stack
// pointer in *save, then takes `to` as the stack pointer and pops the same
// from it, returning into the code that saved it. A fresh stack is laid out
// (start()) to "return" into shardlang_stack_start, which calls r13(r12).
asm(R"(
  .text
  .globl shardlang_switch_stack
  .type shardlang_switch_stack, @function
shardlang_switch_stack:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $16, %rsp
  stmxcsr 8(%rsp)
  fnstcw (%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  fldcw (%rsp)
  ldmxcsr 8(%rsp)
  addq $16, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size shardlang_switch_stack, .-shardlang_switch_stack

  .globl shardlang_stack_start
  .type shardlang_stack_start, @function
shardlang_stack_start:
  andq $-16, %rsp
  movq %r12, %rdi
  callq *%r13
  ud2
  .size shardlang_stack_start, .-shardlang_stack_start
)");

extern "C" void shardlang_switch_stack(void** save, void* to);
extern "C" void shardlang_stack_start();

void Coroutine::start(char* stack, std::size_t bytes, Entry entry, void* argument) {
  entry_ = entry;
  argument_ = argument;
  auto top = (reinterpret_cast<std::uintptr_t>(stack + bytes)) & ~std::uintptr_t{15};
  // From the top down: a zero return address (the end of a backtrace), the
  // start routine, rbp, rbx, r12 (the argument), r13 (the routine), r14,
  // r15, then the x87 control word and MXCSR at their defaults.
  auto* slots = reinterpret_cast<std::uint64_t*>(top) - 10;
  std::memset(slots, 0, 10 * sizeof(std::uint64_t));
  slots[8] = reinterpret_cast<std::uint64_t>(&shardlang_stack_start);
  slots[5] = reinterpret_cast<std::uint64_t>(this);
  slots[4] = reinterpret_cast<std::uint64_t>(&Coroutine::run);
  std::uint16_t control_word = 0x037F;
  std::uint32_t mxcsr = 0x1F80;
  std::memcpy(&slots[0], &control_word, sizeof control_word);
  std::memcpy(&slots[1], &mxcsr, sizeof mxcsr);
  body_ = slots;
}

void Coroutine::resume() { shardlang_switch_stack(&resumer_, body_); }

void Coroutine::suspend() { shardlang_switch_stack(&body_, resumer_); }

void Coroutine::run(void* self) {
  auto* coroutine = static_cast<Coroutine*>(self);
  coroutine->entry_(coroutine->argument_);
  void* finished = nullptr;
  shardlang_switch_stack(&finished, coroutine->resumer_);  // never resumed
}

#else

void Coroutine::start(char* stack, std::size_t bytes, Entry entry, void* argument) {
  entry_ = entry;
  argument_ = argument;
  getcontext(&body_);
  body_.uc_stack.ss_sp = stack;
  body_.uc_stack.ss_size = bytes;
  body_.uc_link = &resumer_;
  auto address = reinterpret_cast<std::uintptr_t>(this);
  makecontext(&body_, reinterpret_cast<void (*)()>(+[](unsigned int high, unsigned int low) {
                run(reinterpret_cast<void*>((static_cast<std::uintptr_t>(high) << 32) | low));
              }),
              2, static_cast<unsigned int>(address >> 32), static_cast<unsigned int>(address & 0xffffffffU));
}

void Coroutine::resume() { swapcontext(&resumer_, &body_); }

void Coroutine::suspend() { swapcontext(&body_, &resumer_); }

void Coroutine::run(void* self) {
  auto* coroutine = static_cast<Coroutine*>(self);
  coroutine->entry_(coroutine->argument_);  // returning follows uc_link to the resumer
}

#endif

}  // namespace lang
