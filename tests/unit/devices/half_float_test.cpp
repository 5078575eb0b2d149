// bf16/f16 conversions: known bit patterns, ties to even, NaN, inf,
// subnormals, and an exhaustive comparison with the compiler's _Float16.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "devices/half_float.hpp"

namespace devices {
namespace {

float from_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(Bfloat16, KnownValues) {
  EXPECT_EQ(bfloat16_from_float(1.0f), 0x3F80);
  EXPECT_EQ(bfloat16_from_float(-2.0f), 0xC000);
  EXPECT_EQ(bfloat16_from_float(3.14159265f), 0x4049);
  EXPECT_EQ(bfloat16_from_float(0.0f), 0x0000);
  EXPECT_EQ(bfloat16_from_float(-0.0f), 0x8000);
  EXPECT_EQ(float_from_bfloat16(0x3F80), 1.0f);
  EXPECT_EQ(float_from_bfloat16(0xC049), -3.140625f);
}

TEST(Bfloat16, RoundsHalfToEven) {
  EXPECT_EQ(bfloat16_from_float(from_bits(0x3F808000)), 0x3F80);  // tie, even below
  EXPECT_EQ(bfloat16_from_float(from_bits(0x3F818000)), 0x3F82);  // tie, even above
  EXPECT_EQ(bfloat16_from_float(from_bits(0x3F808001)), 0x3F81);  // above the tie
  EXPECT_EQ(bfloat16_from_float(from_bits(0x3F807FFF)), 0x3F80);  // below the tie
}

TEST(Bfloat16, InfinityNanAndSubnormals) {
  EXPECT_EQ(bfloat16_from_float(INFINITY), 0x7F80);
  EXPECT_EQ(bfloat16_from_float(-INFINITY), 0xFF80);
  EXPECT_EQ(bfloat16_from_float(from_bits(0x7F7FFFFF)), 0x7F80);  // max float rounds to inf
  EXPECT_EQ(bfloat16_from_float(from_bits(0x7F800001)), 0x7FC0);  // a NaN truncation would make inf
  EXPECT_EQ(bfloat16_from_float(from_bits(0xFFC00000)), 0xFFC0);
  EXPECT_TRUE(std::isnan(float_from_bfloat16(bfloat16_from_float(NAN))));
  EXPECT_EQ(bfloat16_from_float(from_bits(0x00010000)), 0x0001);  // f32 subnormal, exact
  EXPECT_EQ(bfloat16_from_float(from_bits(0x00008000)), 0x0000);  // tie to even (zero)
  EXPECT_EQ(bfloat16_from_float(from_bits(0x00018000)), 0x0002);  // tie to even (2)
  EXPECT_EQ(bfloat16_from_float(from_bits(0x00000001)), 0x0000);
}

TEST(Bfloat16, EveryValueRoundTrips) {
  for (std::uint32_t value = 0; value <= 0xFFFF; ++value) {
    std::uint16_t bf16 = static_cast<std::uint16_t>(value);
    float wide = float_from_bfloat16(bf16);
    if (std::isnan(wide)) {
      EXPECT_EQ(bfloat16_from_float(wide), (bf16 & 0x8000) | 0x7FC0);
    } else {
      ASSERT_EQ(bfloat16_from_float(wide), bf16) << std::hex << value;
    }
  }
}

TEST(Float16, KnownValues) {
  EXPECT_EQ(float16_from_float(1.0f), 0x3C00);
  EXPECT_EQ(float16_from_float(-2.0f), 0xC000);
  EXPECT_EQ(float16_from_float(0.1f), 0x2E66);
  EXPECT_EQ(float16_from_float(65504.0f), 0x7BFF);
  EXPECT_EQ(float16_from_float(-0.0f), 0x8000);
  EXPECT_EQ(float_from_float16(0xFBFF), -65504.0f);
  EXPECT_EQ(float_from_float16(0x3555), 0.333251953125f);
}

TEST(Float16, RoundsHalfToEven) {
  EXPECT_EQ(float16_from_float(1.0f + 0x1p-11f), 0x3C00);         // tie, even below
  EXPECT_EQ(float16_from_float(1.0f + 3 * 0x1p-11f), 0x3C02);     // tie, even above
  EXPECT_EQ(float16_from_float(65519.0f), 0x7BFF);                // below the tie to inf
  EXPECT_EQ(float16_from_float(65520.0f), 0x7C00);                // tie: rounds to inf (even)
  EXPECT_EQ(float16_from_float(0x1p-25f), 0x0000);                // half the smallest subnormal
  EXPECT_EQ(float16_from_float(1.5f * 0x1p-25f), 0x0001);
  EXPECT_EQ(float16_from_float(3 * 0x1p-25f), 0x0002);            // tie between 1 and 2 ulps
  EXPECT_EQ(float16_from_float(5 * 0x1p-25f), 0x0002);            // tie between 2 and 3 ulps
}

TEST(Float16, InfinityNanAndSubnormals) {
  EXPECT_EQ(float16_from_float(INFINITY), 0x7C00);
  EXPECT_EQ(float16_from_float(-INFINITY), 0xFC00);
  EXPECT_EQ(float16_from_float(NAN), 0x7E00);
  EXPECT_EQ(float16_from_float(from_bits(0xFF800001)), 0xFE00);
  EXPECT_EQ(float16_from_float(1e10f), 0x7C00);
  EXPECT_EQ(float16_from_float(0x1p-24f), 0x0001);
  EXPECT_EQ(float16_from_float(1023 * 0x1p-24f), 0x03FF);  // largest subnormal
  EXPECT_EQ(float16_from_float(0x1p-14f), 0x0400);         // smallest normal
  EXPECT_EQ(float16_from_float(0x1p-14f - 0x1p-30f), 0x0400);  // rounds up into the normals
  EXPECT_EQ(float16_from_float(from_bits(0x00000001)), 0x0000);
  EXPECT_EQ(float_from_float16(0x0001), 0x1p-24f);
  EXPECT_EQ(float_from_float16(0x8001), -0x1p-24f);
  EXPECT_EQ(float_from_float16(0x7C00), INFINITY);
  EXPECT_TRUE(std::isnan(float_from_float16(0x7E00)));
  EXPECT_TRUE(std::isnan(float_from_float16(0x7C01)));
}

TEST(Float16, EveryValueRoundTrips) {
  for (std::uint32_t value = 0; value <= 0xFFFF; ++value) {
    std::uint16_t f16 = static_cast<std::uint16_t>(value);
    float wide = float_from_float16(f16);
    if (std::isnan(wide)) {
      EXPECT_EQ(float16_from_float(wide), (f16 & 0x8000) | 0x7E00);
    } else {
      ASSERT_EQ(float16_from_float(wide), f16) << std::hex << value;
    }
  }
}

// The compiler's own float -> _Float16 conversion rounds to nearest even; on
// every non-NaN float in a stride over all bit patterns ours must agree.
TEST(Float16, AgreesWithCompilerConversion) {
  for (std::uint64_t bits = 0; bits <= 0xFFFFFFFFu; bits += 4099) {
    float value = from_bits(static_cast<std::uint32_t>(bits));
    if (std::isnan(value)) continue;
    _Float16 reference = static_cast<_Float16>(value);
    ASSERT_EQ(float16_from_float(value), std::bit_cast<std::uint16_t>(reference))
        << std::hex << bits;
  }
}

TEST(HalfFloat, BufferConversions) {
  std::vector<float> source = {1.0f, 0.1f, -65504.0f, NAN};
  std::vector<std::uint16_t> half(4);
  float16_from_float(source, half);
  EXPECT_EQ(half, (std::vector<std::uint16_t>{0x3C00, 0x2E66, 0xFBFF, 0x7E00}));
  std::vector<float> back(4);
  float_from_float16(half, back);
  EXPECT_EQ(back[2], -65504.0f);
  bfloat16_from_float(source, half);
  EXPECT_EQ(half, (std::vector<std::uint16_t>{0x3F80, 0x3DCD, 0xC780, 0x7FC0}));
  float_from_bfloat16(half, back);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[2], -65536.0f);
}

}  // namespace
}  // namespace devices
