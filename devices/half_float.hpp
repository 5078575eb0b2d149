// bfloat16 and float16 stored as 16 bits and computed in f32 (runtime.md
// "Data types"): conversions with round-to-nearest-even on store, as XLA's
// CPU backend (Eigen) does. A NaN stays a NaN: it becomes the quiet NaN of
// its sign (0x7FC0 / 0x7E00), as Eigen returns. The scalar functions are
// branch-free so that loops over them vectorise.
#pragma once

#include <bit>
#include <cstdint>
#include <span>

namespace devices {

inline std::uint16_t bfloat16_from_float(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  // Adding 0x7FFF plus the lowest kept bit rounds half to even.
  std::uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
  std::uint32_t quiet_nan = ((bits >> 16) & 0x8000u) | 0x7FC0u;
  bool is_nan = (bits & 0x7FFFFFFFu) > 0x7F800000u;
  return static_cast<std::uint16_t>(is_nan ? quiet_nan : rounded);
}

inline float float_from_bfloat16(std::uint16_t value) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(value) << 16);
}

inline std::uint16_t float16_from_float(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  std::uint32_t sign = (bits >> 16) & 0x8000u;
  std::uint32_t magnitude = bits & 0x7FFFFFFFu;
  // Normal results: rebias the exponent (127 -> 15), round 23 -> 10 mantissa
  // bits; a carry out of the mantissa correctly bumps the exponent.
  std::uint32_t rebiased = magnitude - 0x38000000u;
  std::uint32_t normal = (rebiased + 0x0FFFu + ((rebiased >> 13) & 1u)) >> 13;
  // Subnormal results (|value| < 2^-14): the mantissa with its implicit 1,
  // shifted right by 126 - exponent (14 to 24; clamped where unused).
  std::uint32_t exponent = magnitude >> 23;
  std::uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
  std::uint32_t shift = exponent >= 126u ? 1u : (126u - exponent > 31u ? 31u : 126u - exponent);
  std::uint32_t subnormal = (mantissa + (1u << (shift - 1u)) - 1u + ((mantissa >> shift) & 1u)) >> shift;
  std::uint32_t result = magnitude < 0x38800000u ? subnormal : normal;
  result = magnitude >= 0x477FF000u ? 0x7C00u : result;  // rounds to 65520 or more: inf
  result = magnitude > 0x7F800000u ? 0x7E00u : result;   // NaN
  return static_cast<std::uint16_t>(sign | result);
}

inline float float_from_float16(std::uint16_t value) {
  std::uint32_t sign = static_cast<std::uint32_t>(value & 0x8000u) << 16;
  std::uint32_t exponent = (value >> 10) & 0x1Fu;
  std::uint32_t mantissa = value & 0x3FFu;
  std::uint32_t normal = ((exponent + 112u) << 23) | (mantissa << 13);
  std::uint32_t infinity_or_nan = 0x7F800000u | (mantissa << 13);
  // A subnormal is mantissa * 2^-24, exact in f32.
  std::uint32_t subnormal = std::bit_cast<std::uint32_t>(static_cast<float>(mantissa) * 0x1p-24f);
  std::uint32_t magnitude = exponent == 0x1Fu ? infinity_or_nan : (exponent == 0u ? subnormal : normal);
  return std::bit_cast<float>(sign | magnitude);
}

// Whole-buffer conversions; source and destination have the same length.
void bfloat16_from_float(std::span<const float> source, std::span<std::uint16_t> destination);
void float_from_bfloat16(std::span<const std::uint16_t> source, std::span<float> destination);
void float16_from_float(std::span<const float> source, std::span<std::uint16_t> destination);
void float_from_float16(std::span<const std::uint16_t> source, std::span<float> destination);

}  // namespace devices
