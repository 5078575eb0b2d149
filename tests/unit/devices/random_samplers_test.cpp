// jax.random's samplers: the tutorial's uniform draws (c10) in both modes
// against JAX's printed values, blocks against whole draws, and each
// sampler's defining relations and ranges.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "devices/half_float.hpp"
#include "devices/random_samplers.hpp"

namespace devices {
namespace {

using typecheck::DType;

constexpr ThreefryMode both_modes[] = {ThreefryMode::stable, ThreefryMode::partitionable};
constexpr std::int64_t zeros[4] = {0, 0, 0, 0};

RandomDraw whole(ThreefryKey key, ThreefryMode mode, std::span<const std::int64_t> shape) {
  return {key, mode, shape, whole_array_block(shape, zeros)};
}

// print(jax.random.uniform(jax.random.key(42), (24,)) + jnp.arange(24)) in
// the distributed arrays tutorial (conformance c10). numpy prints the
// shortest decimal that reads back as the same float32, so reading it back
// gives the exact value.
const char* const stable_printed[24] = {
    "0.72503686", "1.8532515", "2.983416",  "3.083253",  "4.0332246", "5.4782867", "6.1720605", "7.6900277",
    "8.602836",   "9.810046",  "10.861367", "11.907651", "12.330483", "13.456195", "14.808557", "15.960099",
    "16.067581",  "17.739723", "18.335474", "19.46401",  "20.390276", "21.116539", "22.858128", "23.223194"};
const char* const partitionable_printed[24] = {
    "0.48870957", "1.6797972", "2.6162715", "3.561016",  "4.4506445", "5.585866",  "6.0748096", "7.775133",
    "8.698959",   "9.818634",  "10.350306", "11.87282",  "12.925881", "13.86013",  "14.477554", "15.818481",
    "16.711355",  "17.586697", "18.073738", "19.777622", "20.404566", "21.119123", "22.026257", "23.63918"};

void expect_tutorial_values(ThreefryMode mode, const char* const (&printed)[24]) {
  const std::int64_t shape[] = {24};
  std::vector<float> numbers(24);
  ASSERT_TRUE(random_uniform(whole(threefry_seed(42), mode, shape), 0.0f, 1.0f, numbers).ok());
  for (int i = 0; i < 24; ++i) {
    float sum = static_cast<float>(i) + numbers[i];  // x + numbers, x = jnp.arange(24)
    EXPECT_EQ(std::bit_cast<std::uint32_t>(sum), std::bit_cast<std::uint32_t>(std::strtof(printed[i], nullptr)))
        << "element " << i << ": " << sum << " vs printed " << printed[i];
  }
}

TEST(RandomUniform, TutorialValuesStable) { expect_tutorial_values(ThreefryMode::stable, stable_printed); }

TEST(RandomUniform, TutorialValuesPartitionable) {
  expect_tutorial_values(ThreefryMode::partitionable, partitionable_printed);
}

TEST(RandomUniform, TutorialDrawBitPatterns) {
  // The draws themselves (the sums above lose low bits), pinned.
  const std::int64_t shape[] = {24};
  std::vector<float> stable(24), partitionable(24);
  ASSERT_TRUE(random_uniform(whole(threefry_seed(42), ThreefryMode::stable, shape), 0.0f, 1.0f, stable).ok());
  ASSERT_TRUE(random_uniform(whole(threefry_seed(42), ThreefryMode::partitionable, shape), 0.0f, 1.0f, partitionable).ok());
  EXPECT_EQ(std::bit_cast<std::uint32_t>(stable[0]), 0x3F399C04u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(stable[23]), 0x3E648CF8u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(partitionable[0]), 0x3EFA3824u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(partitionable[23]), 0x3F23A138u);
}

TEST(RandomUniform, MantissaFromTheTopBits) {
  const std::int64_t shape[] = {50};
  for (ThreefryMode mode : both_modes) {
    auto bits = threefry_random_bits(threefry_seed(3), 32, shape, mode);
    std::vector<float> numbers(50);
    ASSERT_TRUE(random_uniform(whole(threefry_seed(3), mode, shape), 0.0f, 1.0f, numbers).ok());
    for (int i = 0; i < 50; ++i) EXPECT_EQ(numbers[i], static_cast<float>((*bits)[i] >> 9) * 0x1p-23f);
  }
}

TEST(RandomUniform, ScaledIntoTheRange) {
  const std::int64_t shape[] = {1000};
  std::vector<float> numbers(1000);
  ASSERT_TRUE(random_uniform(whole(threefry_seed(5), ThreefryMode::partitionable, shape), -3.0f, 5.0f, numbers).ok());
  for (float value : numbers) {
    EXPECT_GE(value, -3.0f);
    EXPECT_LT(value, 5.0f);
  }
  EXPECT_NEAR(std::accumulate(numbers.begin(), numbers.end(), 0.0) / 1000, 1.0, 0.3);
}

TEST(RandomUniform, HalfTypes) {
  const std::int64_t shape[] = {400};
  for (ThreefryMode mode : both_modes) {
    // bf16 draws 8-bit words and keeps 7 of their bits; f16 16-bit words and 10.
    auto bytes = threefry_random_bits(threefry_seed(9), 8, shape, mode);
    auto halves = threefry_random_bits(threefry_seed(9), 16, shape, mode);
    std::vector<std::uint16_t> bf16(400), f16(400);
    ASSERT_TRUE(random_uniform(whole(threefry_seed(9), mode, shape), DType::bfloat16, 0.0f, 1.0f, bf16).ok());
    ASSERT_TRUE(random_uniform(whole(threefry_seed(9), mode, shape), DType::float16, 0.0f, 1.0f, f16).ok());
    for (int i = 0; i < 400; ++i) {
      EXPECT_EQ(float_from_bfloat16(bf16[i]), static_cast<float>((*bytes)[i] >> 1) * 0x1p-7f);
      EXPECT_EQ(float_from_float16(f16[i]), static_cast<float>((*halves)[i] >> 6) * 0x1p-10f);
    }
    std::vector<std::uint16_t> ranged(400);
    ASSERT_TRUE(random_uniform(whole(threefry_seed(9), mode, shape), DType::bfloat16, 2.0f, 4.0f, ranged).ok());
    for (int i = 0; i < 400; ++i) EXPECT_EQ(float_from_bfloat16(ranged[i]), 2.0f + 2.0f * float_from_bfloat16(bf16[i]));
  }
  std::vector<std::uint16_t> out(400);
  EXPECT_FALSE(random_uniform(whole(threefry_seed(9), ThreefryMode::stable, shape), DType::int32, 0.0f, 1.0f, out).ok());
}

TEST(RandomSamplers, TooFewZerosForTheWholeBlockFail) {
  const std::int64_t shape[] = {2, 2};
  const std::int64_t one_zero[] = {0};
  std::vector<float> out(4);
  RandomDraw draw{threefry_seed(1), ThreefryMode::stable, shape, whole_array_block(shape, one_zero)};
  EXPECT_FALSE(random_uniform(draw, 0.0f, 1.0f, out).ok());
  std::vector<float> wrong_length(3);
  EXPECT_FALSE(random_normal(whole(threefry_seed(1), ThreefryMode::stable, shape), wrong_length).ok());
}

TEST(RandomSamplers, BlocksEqualTheWholeDraw) {
  const std::int64_t shape[] = {8, 6};
  for (ThreefryMode mode : both_modes) {
    std::vector<float> uniform_whole(48), normal_whole(48);
    ASSERT_TRUE(random_uniform(whole(threefry_seed(11), mode, shape), 0.0f, 1.0f, uniform_whole).ok());
    ASSERT_TRUE(random_normal(whole(threefry_seed(11), mode, shape), normal_whole).ok());
    for (std::int64_t row = 0; row < 8; row += 2) {
      const std::int64_t start[] = {row, 3};
      const std::int64_t extent[] = {2, 3};
      RandomDraw block{threefry_seed(11), mode, shape, {start, extent}};
      std::vector<float> uniform_block(6), normal_block(6);
      ASSERT_TRUE(random_uniform(block, 0.0f, 1.0f, uniform_block).ok());
      ASSERT_TRUE(random_normal(block, normal_block).ok());
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) {
          EXPECT_EQ(uniform_block[i * 3 + j], uniform_whole[(row + i) * 6 + 3 + j]);
          EXPECT_EQ(normal_block[i * 3 + j], normal_whole[(row + i) * 6 + 3 + j]);
        }
      }
    }
  }
}

TEST(XlaErfInv, KnownValuesAndInverse) {
  EXPECT_EQ(xla_erf_inv(0.0f), 0.0f);
  EXPECT_EQ(xla_erf_inv(1.0f), INFINITY);
  EXPECT_EQ(xla_erf_inv(-1.0f), -INFINITY);
  EXPECT_NEAR(xla_erf_inv(0.5f), 0.4769362762044699, 1e-6);
  EXPECT_EQ(xla_erf_inv(-0.5f), -xla_erf_inv(0.5f));
  // Both branches (w < 5 and w >= 5, i.e. |x| beyond ~0.9966) invert erf.
  for (float x = -0.99999f; x < 1.0f; x += 0.001f) {
    double y = xla_erf_inv(x);
    EXPECT_NEAR(std::erf(y), x, 4e-7) << x;
  }
}

TEST(RandomNormal, IsSqrt2ErfInvOfTheShiftedUniform) {
  const std::int64_t shape[] = {64};
  std::vector<float> uniform(64), normal(64);
  RandomDraw draw = whole(threefry_seed(0), ThreefryMode::partitionable, shape);
  ASSERT_TRUE(random_uniform(draw, std::nextafter(-1.0f, 0.0f), 1.0f, uniform).ok());
  ASSERT_TRUE(random_normal(draw, normal).ok());
  for (int i = 0; i < 64; ++i) EXPECT_EQ(normal[i], std::sqrt(2.0f) * xla_erf_inv(uniform[i]));
}

TEST(RandomNormal, Moments) {
  const std::int64_t shape[] = {20000};
  for (ThreefryMode mode : both_modes) {
    std::vector<float> samples(20000);
    ASSERT_TRUE(random_normal(whole(threefry_seed(1), mode, shape), samples).ok());
    double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
    double square = 0;
    for (float value : samples) square += (value - mean) * (value - mean);
    EXPECT_NEAR(mean, 0.0, 0.03);
    EXPECT_NEAR(square / samples.size(), 1.0, 0.04);
    EXPECT_TRUE(std::all_of(samples.begin(), samples.end(), [](float value) { return std::isfinite(value); }));
  }
}

TEST(RandomNormal, HalfTypes) {
  const std::int64_t shape[] = {2000};
  for (DType dtype : {DType::bfloat16, DType::float16}) {
    std::vector<std::uint16_t> samples(2000);
    ASSERT_TRUE(random_normal(whole(threefry_seed(1), ThreefryMode::partitionable, shape), dtype, samples).ok());
    double mean = 0;
    for (std::uint16_t bits : samples)
      mean += dtype == DType::bfloat16 ? float_from_bfloat16(bits) : float_from_float16(bits);
    EXPECT_NEAR(mean / samples.size(), 0.0, 0.1);
  }
}

TEST(RandomBernoulli, IsUniformBelowP) {
  const std::int64_t shape[] = {1000};
  for (ThreefryMode mode : both_modes) {
    RandomDraw draw = whole(threefry_seed(4), mode, shape);
    std::vector<float> uniform(1000);
    ASSERT_TRUE(random_uniform(draw, 0.0f, 1.0f, uniform).ok());
    std::vector<std::uint8_t> coins(1000);
    ASSERT_TRUE(random_bernoulli(draw, DType::float32, 0.3f, coins).ok());
    for (int i = 0; i < 1000; ++i) EXPECT_EQ(coins[i], uniform[i] < 0.3f ? 1 : 0);
    EXPECT_NEAR(std::accumulate(coins.begin(), coins.end(), 0) / 1000.0, 0.3, 0.05);
    ASSERT_TRUE(random_bernoulli(draw, DType::bfloat16, 1.0f, coins).ok());
    EXPECT_EQ(std::accumulate(coins.begin(), coins.end(), 0), 1000);
    ASSERT_TRUE(random_bernoulli(draw, DType::float16, 0.0f, coins).ok());
    EXPECT_EQ(std::accumulate(coins.begin(), coins.end(), 0), 0);
  }
}

TEST(RandomRandint, PowerOfTwoSpanIsTheLowBitsOfTheSecondKey) {
  // span 16: 2^32 % 16 == 0, so only split(key)[1]'s words count.
  const std::int64_t shape[] = {100};
  for (ThreefryMode mode : both_modes) {
    std::vector<std::int32_t> values(100);
    ASSERT_TRUE(random_randint(whole(threefry_seed(8), mode, shape), 10, 26, std::span<std::int32_t>(values)).ok());
    auto keys = threefry_split(threefry_seed(8), 2, mode);
    auto lower = threefry_random_bits((*keys)[1], 32, shape, mode);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(values[i], 10 + static_cast<std::int32_t>((*lower)[i] & 15u));
  }
}

TEST(RandomRandint, CombinesBothDrawsModuloTheSpan) {
  const std::int64_t shape[] = {100};
  ThreefryMode mode = ThreefryMode::partitionable;
  std::vector<std::int32_t> values(100);
  ASSERT_TRUE(random_randint(whole(threefry_seed(8), mode, shape), -5, 1000, std::span<std::int32_t>(values)).ok());
  auto keys = threefry_split(threefry_seed(8), 2, mode);
  auto higher = threefry_random_bits((*keys)[0], 32, shape, mode);
  auto lower = threefry_random_bits((*keys)[1], 32, shape, mode);
  const std::uint64_t span = 1005;
  const std::uint64_t multiplier = (65536 % span) * (65536 % span) % span;
  for (int i = 0; i < 100; ++i) {
    std::uint64_t offset = (((*higher)[i] % span) * multiplier + (*lower)[i] % span) % span;
    EXPECT_EQ(values[i], -5 + static_cast<std::int32_t>(offset));
  }
}

TEST(RandomRandint, RangesAndClipping) {
  const std::int64_t shape[] = {2000};
  RandomDraw draw = whole(threefry_seed(2), ThreefryMode::stable, shape);
  std::vector<std::int32_t> empty_range(2000);
  ASSERT_TRUE(random_randint(draw, 7, 7, std::span<std::int32_t>(empty_range)).ok());
  EXPECT_TRUE(std::all_of(empty_range.begin(), empty_range.end(), [](std::int32_t v) { return v == 7; }));

  // int8 with maxval 200: clipped to 127, the span one larger so 127 occurs.
  std::vector<std::int8_t> bytes(2000);
  ASSERT_TRUE(random_randint(draw, 100, 200, std::span<std::int8_t>(bytes)).ok());
  EXPECT_TRUE(std::all_of(bytes.begin(), bytes.end(), [](std::int8_t v) { return v >= 100; }));
  EXPECT_NE(std::find(bytes.begin(), bytes.end(), 127), bytes.end());

  std::vector<std::uint32_t> words(2000);
  ASSERT_TRUE(random_randint(draw, 0, std::int64_t{1} << 33, std::span<std::uint32_t>(words)).ok());  // full range: span wraps to 0
  EXPECT_TRUE(std::any_of(words.begin(), words.end(), [](std::uint32_t v) { return v > 0x80000000u; }));

  std::vector<std::int32_t> dice(2000);
  ASSERT_TRUE(random_randint(draw, 1, 7, std::span<std::int32_t>(dice)).ok());
  for (int face = 1; face <= 6; ++face) EXPECT_NEAR(std::count(dice.begin(), dice.end(), face), 333, 70);
  EXPECT_TRUE(std::all_of(dice.begin(), dice.end(), [](std::int32_t v) { return v >= 1 && v <= 6; }));
}

TEST(RandomShuffle, OneRoundIsAStableSortByTheSubkeysWords) {
  const std::int64_t shape[] = {10};
  for (ThreefryMode mode : both_modes) {
    auto permutation = random_shuffle_indices(threefry_seed(42), mode, shape, 0);
    ASSERT_TRUE(permutation.ok());
    auto keys = threefry_split(threefry_seed(42), 2, mode);
    auto sort_keys = threefry_random_bits((*keys)[1], 32, shape, mode);
    std::vector<std::int32_t> expected(10);
    std::iota(expected.begin(), expected.end(), 0);
    std::stable_sort(expected.begin(), expected.end(), [&](int a, int b) { return (*sort_keys)[a] < (*sort_keys)[b]; });
    EXPECT_EQ(*permutation, expected);
  }
}

bool is_permutation_of_iota(std::vector<std::int32_t> values) {
  std::sort(values.begin(), values.end());
  for (std::size_t i = 0; i < values.size(); ++i) if (values[i] != static_cast<std::int32_t>(i)) return false;
  return true;
}

TEST(RandomShuffle, PermutesEachLaneAlongTheAxis) {
  const std::int64_t large[] = {3000};  // 3000^3 > 2^32: two rounds
  auto permutation = random_shuffle_indices(threefry_seed(1), ThreefryMode::stable, large, 0);
  ASSERT_TRUE(permutation.ok());
  EXPECT_TRUE(is_permutation_of_iota(*permutation));

  const std::int64_t one[] = {1};
  EXPECT_EQ(*random_shuffle_indices(threefry_seed(1), ThreefryMode::stable, one, 0), std::vector<std::int32_t>{0});

  const std::int64_t matrix[] = {4, 5};
  auto columns = random_shuffle_indices(threefry_seed(1), ThreefryMode::partitionable, matrix, 0);
  ASSERT_TRUE(columns.ok());
  for (int column = 0; column < 5; ++column) {
    std::vector<std::int32_t> lane;
    for (int row = 0; row < 4; ++row) lane.push_back((*columns)[row * 5 + column]);
    EXPECT_TRUE(is_permutation_of_iota(lane));
  }
  EXPECT_FALSE(random_shuffle_indices(threefry_seed(1), ThreefryMode::stable, matrix, 2).ok());
  EXPECT_FALSE(random_shuffle_indices(threefry_seed(1), ThreefryMode::stable, std::span<const std::int64_t>{}, 0).ok());
}

TEST(RandomChoice, FollowsRandintPermutationOrCumulativeWeights) {
  ThreefryKey key = threefry_seed(6);
  const std::int64_t draws[] = {3};
  for (ThreefryMode mode : both_modes) {
    auto with_replacement = random_choice_indices(key, mode, 10, draws, true, std::nullopt);
    std::vector<std::int32_t> randint(3);
    ASSERT_TRUE(random_randint(whole(key, mode, draws), 0, 10, std::span<std::int32_t>(randint)).ok());
    EXPECT_EQ(*with_replacement, randint);

    auto without = random_choice_indices(key, mode, 10, draws, false, std::nullopt);
    const std::int64_t population[] = {10};
    auto permutation = random_shuffle_indices(key, mode, population, 0);
    EXPECT_EQ(*without, std::vector<std::int32_t>(permutation->begin(), permutation->begin() + 3));

    const float one_hot[] = {0.0f, 0.0f, 2.0f, 0.0f};
    const std::int64_t many[] = {50};
    auto weighted = random_choice_indices(key, mode, 4, many, true, std::span<const float>(one_hot));
    ASSERT_TRUE(weighted.ok());
    EXPECT_TRUE(std::all_of(weighted->begin(), weighted->end(), [](std::int32_t v) { return v == 2; }));
  }
  const float skewed[] = {0.1f, 0.0f, 0.9f};
  const std::int64_t many[] = {2000};
  auto weighted = random_choice_indices(key, ThreefryMode::partitionable, 3, many, true, std::span<const float>(skewed));
  ASSERT_TRUE(weighted.ok());
  EXPECT_EQ(std::count(weighted->begin(), weighted->end(), 1), 0);
  EXPECT_NEAR(std::count(weighted->begin(), weighted->end(), 0), 200, 60);

  EXPECT_FALSE(random_choice_indices(key, ThreefryMode::stable, 2, draws, false, std::nullopt).ok());
  EXPECT_FALSE(random_choice_indices(key, ThreefryMode::stable, 0, draws, true, std::nullopt).ok());
  EXPECT_EQ(random_choice_indices(key, ThreefryMode::stable, 3, draws, false, std::span<const float>(skewed)).error().kind,
            ErrorKind::not_implemented);
}

}  // namespace
}  // namespace devices
