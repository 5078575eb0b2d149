#include "interp/python/stack.hpp"

#include <pthread.h>

namespace interp {

namespace {
constexpr std::size_t large_stack_bytes = std::size_t{512} * 1024 * 1024;  // reserved, touched lazily

void* run_work(void* work) {
  (*static_cast<const std::function<void()>*>(work))();
  return nullptr;
}
}  // namespace

StackLimit::StackLimit(std::size_t reserve) {
  pthread_attr_t attributes;
  void* stack_address = nullptr;
  std::size_t stack_size = 0;
  if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
    pthread_attr_getstack(&attributes, &stack_address, &stack_size);
    pthread_attr_destroy(&attributes);
  }
  const char* here = static_cast<const char*>(__builtin_frame_address(0));
  if (stack_address == nullptr || stack_size <= reserve) {
    lowest_ = here - 1024 * 1024;  // unknown stack: assume a modest one below us
  } else {
    lowest_ = static_cast<const char*>(stack_address) + reserve;
  }
}

void run_with_large_stack(const std::function<void()>& work) {
  pthread_attr_t attributes;
  pthread_t thread;
  bool started = false;
  if (pthread_attr_init(&attributes) == 0) {
    if (pthread_attr_setstacksize(&attributes, large_stack_bytes) == 0)
      started = pthread_create(&thread, &attributes, run_work,
                               const_cast<std::function<void()>*>(&work)) == 0;
    pthread_attr_destroy(&attributes);
  }
  if (started) {
    pthread_join(thread, nullptr);
  } else {
    work();
  }
}

}  // namespace interp
