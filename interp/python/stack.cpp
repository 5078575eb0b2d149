#include "interp/python/stack.hpp"

#include <pthread.h>

#include "lang/large_stack.hpp"

namespace interp {

namespace {
constexpr std::size_t large_stack_bytes = std::size_t{512} * 1024 * 1024;  // reserved, touched lazily
}  // namespace

StackLimit::StackLimit(std::size_t reserve) {
  const char* here = static_cast<const char*>(__builtin_frame_address(0));
  if (const char* lowest = lang::large_stack_lowest()) {
    lowest_ = lowest + reserve;
    return;
  }
  pthread_attr_t attributes;
  void* stack_address = nullptr;
  std::size_t stack_size = 0;
  if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
    pthread_attr_getstack(&attributes, &stack_address, &stack_size);
    pthread_attr_destroy(&attributes);
  }
  if (stack_address == nullptr || stack_size <= reserve) {
    lowest_ = here - 1024 * 1024;  // unknown stack: assume a modest one below us
  } else {
    lowest_ = static_cast<const char*>(stack_address) + reserve;
  }
}

void run_with_large_stack(const std::function<void()>& work) { lang::run_on_large_stack(large_stack_bytes, work); }

}  // namespace interp
