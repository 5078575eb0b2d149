// Accuracy of the vectorised float32 functions against the correctly rounded
// value (libm in double, rounded once to float), in units in the last place,
// over sweeps of float bit patterns that cover every binade of each range.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "devices/vector_math.hpp"

namespace devices {
namespace {

// Floats ordered as integers: adjacent floats differ by one.
std::int64_t ordered(float x) {
  std::int32_t bits = std::bit_cast<std::int32_t>(x);
  return bits < 0 ? -static_cast<std::int64_t>(bits & 0x7fffffff) : bits;
}

std::int64_t ulp_distance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<std::int64_t>::max();
  return std::llabs(ordered(a) - ordered(b));
}

// Every `stride`-th float bit pattern of either sign with magnitude in
// [low, high].
std::vector<float> sweep(float low, float high, std::uint32_t stride) {
  std::vector<float> values;
  for (std::uint32_t bits = std::bit_cast<std::uint32_t>(low); bits <= std::bit_cast<std::uint32_t>(high);
       bits += stride) {
    values.push_back(std::bit_cast<float>(bits));
    values.push_back(-std::bit_cast<float>(bits));
  }
  return values;
}

using Vectorised = void (*)(const float*, float*, std::size_t);

// The largest ulp error of `function` over `inputs` against `reference`.
template <class Reference>
std::int64_t worst_ulp_error(Vectorised function, const std::vector<float>& inputs, Reference reference) {
  std::vector<float> outputs(inputs.size());
  function(inputs.data(), outputs.data(), inputs.size());
  std::int64_t worst = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    float expected = static_cast<float>(reference(static_cast<double>(inputs[i])));
    std::int64_t error = ulp_distance(outputs[i], expected);
    EXPECT_LE(error, 1) << "input " << inputs[i] << " gave " << outputs[i] << ", expected " << expected;
    if (error > 1) return error;  // one report per function is enough
    worst = std::max(worst, error);
  }
  return worst;
}

std::vector<float> apply(Vectorised function, std::vector<float> inputs) {
  std::vector<float> outputs(inputs.size());
  function(inputs.data(), outputs.data(), inputs.size());
  return outputs;
}

constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float nan = std::numeric_limits<float>::quiet_NaN();
constexpr float smallest_subnormal = std::numeric_limits<float>::denorm_min();

TEST(VectorMath, SinAndCosWithinOneUlp) {
  auto small = sweep(smallest_subnormal, 1.0e5f, 997);
  EXPECT_LE(worst_ulp_error(sin_f32, small, [](double x) { return std::sin(x); }), 1);
  EXPECT_LE(worst_ulp_error(cos_f32, small, [](double x) { return std::cos(x); }), 1);
  // Past the vector reduction's range, and up to the largest float.
  auto large = sweep(1.0e6f, std::numeric_limits<float>::max(), 104729);
  EXPECT_LE(worst_ulp_error(sin_f32, large, [](double x) { return std::sin(x); }), 1);
  EXPECT_LE(worst_ulp_error(cos_f32, large, [](double x) { return std::cos(x); }), 1);
  std::vector<float> sines = apply(sin_f32, {-0.0f, inf, -inf, nan});
  EXPECT_EQ(sines[0], 0.0f);
  EXPECT_TRUE(std::signbit(sines[0]));
  for (std::size_t i = 1; i < sines.size(); ++i) EXPECT_TRUE(std::isnan(sines[i]));
  EXPECT_TRUE(std::isnan(apply(cos_f32, {inf})[0]));
}

TEST(VectorMath, ExpWithinOneUlpUpToOverflowAndUnderflow) {
  auto inputs = sweep(smallest_subnormal, 120.0f, 331);
  EXPECT_LE(worst_ulp_error(exp_f32, inputs, [](double x) { return std::exp(x); }), 1);
  std::vector<float> special = apply(exp_f32, {0.0f, inf, -inf, nan, 88.8f, -104.5f, 1.0e30f, -1.0e30f});
  EXPECT_EQ(special[0], 1.0f);
  EXPECT_EQ(special[1], inf);
  EXPECT_EQ(special[2], 0.0f);
  EXPECT_TRUE(std::isnan(special[3]));
  EXPECT_EQ(special[4], inf);
  EXPECT_EQ(special[5], 0.0f);
  EXPECT_EQ(special[6], inf);
  EXPECT_EQ(special[7], 0.0f);
}

TEST(VectorMath, LogWithinOneUlpIncludingSubnormals) {
  std::vector<float> inputs;
  for (float x : sweep(smallest_subnormal, std::numeric_limits<float>::max(), 211)) {
    if (x > 0) inputs.push_back(x);
  }
  EXPECT_LE(worst_ulp_error(log_f32, inputs, [](double x) { return std::log(x); }), 1);
  std::vector<float> special = apply(log_f32, {0.0f, -0.0f, -1.0f, inf, -inf, nan, 1.0f});
  EXPECT_EQ(special[0], -inf);
  EXPECT_EQ(special[1], -inf);
  EXPECT_TRUE(std::isnan(special[2]));
  EXPECT_EQ(special[3], inf);
  EXPECT_TRUE(std::isnan(special[4]));
  EXPECT_TRUE(std::isnan(special[5]));
  EXPECT_EQ(special[6], 0.0f);
}

TEST(VectorMath, TanhWithinOneUlpAndSaturates) {
  auto inputs = sweep(smallest_subnormal, 30.0f, 331);
  EXPECT_LE(worst_ulp_error(tanh_f32, inputs, [](double x) { return std::tanh(x); }), 1);
  std::vector<float> special = apply(tanh_f32, {inf, -inf, nan, -0.0f, 1.0e30f});
  EXPECT_EQ(special[0], 1.0f);
  EXPECT_EQ(special[1], -1.0f);
  EXPECT_TRUE(std::isnan(special[2]));
  EXPECT_TRUE(std::signbit(special[3]));
  EXPECT_EQ(special[4], 1.0f);
}

TEST(VectorMath, BlockedSumStaysCloseToTheExactSum) {
  std::mt19937 generator(7);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (std::size_t count : {0u, 1u, 31u, 33u, 8192u, 8193u, 100000u, 1000003u}) {
    std::vector<float> values(count);
    double exact = 0;
    for (float& value : values) {
      value = uniform(generator);
      exact += value;
    }
    float sum = sum_f32(values.data(), values.size());
    EXPECT_NEAR(sum, exact, 1e-6 * std::max(1.0, exact)) << count << " elements";
  }
  // A left-to-right f32 sum of ones stalls at 2^24; blocked sums do not.
  std::vector<float> ones((1u << 24) + 64, 1.0f);
  EXPECT_EQ(sum_f32(ones.data(), ones.size()), static_cast<float>((1u << 24) + 64));

  std::vector<float> accumulator = {1, 2, 3};
  std::vector<float> row = {10, 20, 30};
  add_row_f32(accumulator.data(), row.data(), row.size());
  EXPECT_EQ(accumulator, (std::vector<float>{11, 22, 33}));
}

}  // namespace
}  // namespace devices
