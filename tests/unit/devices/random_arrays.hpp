// What the kernel tests share: a host ledger, random float32 shards and
// unwrapping a kernel's result.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "devices/kernels.hpp"
#include "devices/memory.hpp"

namespace devices::testing {

inline std::shared_ptr<MemoryLedger> ledger() {
  static std::shared_ptr<MemoryLedger> shared =
      std::make_shared<MemoryLedger>(std::vector<MemoryLedger::DeviceMemory>{{"TPU 0", 1 << 30}}, 1 << 30);
  return shared;
}

// Uniform values in [low, high).
inline LocalArray random_f32(Shape shape, unsigned seed, float low = -1.0f, float high = 1.0f) {
  Expected<LocalArray> made = make_local_array(ledger(), typecheck::DType::float32, std::move(shape));
  EXPECT_TRUE(made.ok());
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(low, high);
  for (float& value : made->buffer->elements<typecheck::DType::float32>()) value = uniform(generator);
  return *made;
}

inline LocalArray ok(Expected<LocalArray> result) {
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  return result.ok() ? *result : LocalArray{};
}

}  // namespace devices::testing
