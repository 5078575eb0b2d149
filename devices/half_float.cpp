#include "devices/half_float.hpp"

#include <algorithm>

namespace devices {

// Plain counted loops over branch-free conversions: the compiler vectorises
// them. A length mismatch converts the common prefix (callers size both).

void bfloat16_from_float(std::span<const float> source, std::span<std::uint16_t> destination) {
  std::size_t count = std::min(source.size(), destination.size());
  const float* in = source.data();
  std::uint16_t* out = destination.data();
  for (std::size_t i = 0; i < count; ++i) out[i] = bfloat16_from_float(in[i]);
}

void float_from_bfloat16(std::span<const std::uint16_t> source, std::span<float> destination) {
  std::size_t count = std::min(source.size(), destination.size());
  const std::uint16_t* in = source.data();
  float* out = destination.data();
  for (std::size_t i = 0; i < count; ++i) out[i] = float_from_bfloat16(in[i]);
}

void float16_from_float(std::span<const float> source, std::span<std::uint16_t> destination) {
  std::size_t count = std::min(source.size(), destination.size());
  const float* in = source.data();
  std::uint16_t* out = destination.data();
  for (std::size_t i = 0; i < count; ++i) out[i] = float16_from_float(in[i]);
}

void float_from_float16(std::span<const std::uint16_t> source, std::span<float> destination) {
  std::size_t count = std::min(source.size(), destination.size());
  const std::uint16_t* in = source.data();
  float* out = destination.data();
  for (std::size_t i = 0; i < count; ++i) out[i] = float_from_float16(in[i]);
}

}  // namespace devices
