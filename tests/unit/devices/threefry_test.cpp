// threefry2x32 against Random123's known-answer vectors; JAX's seed, split,
// fold_in and random bits in both modes (split values as JAX prints them);
// and blocks of a draw equal to slices of the whole draw.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "devices/threefry.hpp"

namespace devices {
namespace {

constexpr ThreefryMode both_modes[] = {ThreefryMode::stable, ThreefryMode::partitionable};

TEST(Threefry2x32, Random123KnownAnswers) {
  // kat_vectors from Random123: threefry2x32_20.
  EXPECT_EQ(threefry2x32({0x0u, 0x0u}, {0x0u, 0x0u}), (std::array<std::uint32_t, 2>{0x6b200159u, 0x99ba4efeu}));
  EXPECT_EQ(threefry2x32({0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
            (std::array<std::uint32_t, 2>{0x1cb996fcu, 0xbb002be7u}));
  EXPECT_EQ(threefry2x32({0x13198a2eu, 0x03707344u}, {0x243f6a88u, 0x85a308d3u}),
            (std::array<std::uint32_t, 2>{0xc4923a9cu, 0x483df7a0u}));
}

TEST(Threefry2x32, CountArrayPairsHalvesAndPadsOddLengths) {
  ThreefryKey key{7u, 9u};
  const std::uint32_t even[] = {10, 11, 12, 13};
  auto first = threefry2x32(key, {10, 12});
  auto second = threefry2x32(key, {11, 13});
  EXPECT_EQ(threefry_2x32(key, even), (std::vector<std::uint32_t>{first[0], second[0], first[1], second[1]}));

  const std::uint32_t odd[] = {0, 1, 2};
  auto pair0 = threefry2x32(key, {0, 2});
  auto pair1 = threefry2x32(key, {1, 0});  // the padding zero
  EXPECT_EQ(threefry_2x32(key, odd), (std::vector<std::uint32_t>{pair0[0], pair1[0], pair0[1]}));
  EXPECT_TRUE(threefry_2x32(key, std::span<const std::uint32_t>{}).empty());
}

TEST(ThreefryKeys, SeedIsZeroAndTheInt32Seed) {
  EXPECT_EQ(threefry_seed(0), (ThreefryKey{0u, 0u}));
  EXPECT_EQ(threefry_seed(42), (ThreefryKey{0u, 42u}));
  EXPECT_EQ(threefry_seed(-1), (ThreefryKey{0u, 0xFFFFFFFFu}));  // x64 off: int32 -1
  EXPECT_EQ(threefry_seed((std::int64_t{1} << 32) + 5), (ThreefryKey{0u, 5u}));
}

TEST(ThreefryKeys, SplitOfKeyZeroAsJaxPrintsIt) {
  // random.split(random.PRNGKey(0)) in JAX's documentation, before and after
  // jax_threefry_partitionable became the default.
  auto stable = threefry_split(threefry_seed(0), 2, ThreefryMode::stable);
  ASSERT_TRUE(stable.ok());
  EXPECT_EQ(*stable, (std::vector<ThreefryKey>{{4146024105u, 967050713u}, {2718843009u, 1272950319u}}));
  auto partitionable = threefry_split(threefry_seed(0), 2, ThreefryMode::partitionable);
  ASSERT_TRUE(partitionable.ok());
  EXPECT_EQ(*partitionable, (std::vector<ThreefryKey>{{1797259609u, 2579123966u}, {928981903u, 3453687069u}}));
}

TEST(ThreefryKeys, SplitSchemes) {
  ThreefryKey key = threefry_seed(42);
  auto original = threefry_split(key, 3, ThreefryMode::stable);
  ASSERT_TRUE(original.ok());
  // threefry_2x32(key, iota(6)) reshaped to (3, 2).
  const std::uint32_t counts[] = {0, 1, 2, 3, 4, 5};
  auto words = threefry_2x32(key, counts);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ((*original)[i], (ThreefryKey{words[2 * i], words[2 * i + 1]}));

  auto foldlike = threefry_split(key, 3, ThreefryMode::partitionable);
  ASSERT_TRUE(foldlike.ok());
  for (std::uint32_t i = 0; i < 3; ++i) EXPECT_EQ((*foldlike)[i], threefry2x32(key, {0u, i}));

  EXPECT_TRUE(threefry_split(key, 0, ThreefryMode::stable)->empty());
  EXPECT_FALSE(threefry_split(key, -1, ThreefryMode::stable).ok());
}

TEST(ThreefryKeys, FoldInHashesZeroAndTheData) {
  ThreefryKey key = threefry_seed(0);
  EXPECT_EQ(threefry_fold_in(key, 1), (ThreefryKey{928981903u, 3453687069u}));  // = foldlike split's key 1
  EXPECT_EQ(threefry_fold_in(key, 0xFFFFFFFFu), threefry2x32(key, {0u, 0xFFFFFFFFu}));
  EXPECT_NE(threefry_fold_in(key, 2), threefry_fold_in(key, 3));
}

TEST(ThreefryBits, WordsOfKey42) {
  // The words behind the tutorial's uniform draw (random_samplers_test checks
  // the floats against the printed values); pinned so a change shows.
  const std::int64_t shape[] = {24};
  auto stable = threefry_random_bits(threefry_seed(42), 32, shape, ThreefryMode::stable);
  ASSERT_TRUE(stable.ok());
  const std::uint32_t counts[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23};
  EXPECT_EQ(*stable, threefry_2x32(threefry_seed(42), counts));

  auto partitionable = threefry_random_bits(threefry_seed(42), 32, shape, ThreefryMode::partitionable);
  ASSERT_TRUE(partitionable.ok());
  for (std::uint32_t i = 0; i < 24; ++i) {
    auto words = threefry2x32(threefry_seed(42), {0u, i});
    EXPECT_EQ((*partitionable)[i], words[0] ^ words[1]);
  }
  EXPECT_EQ((*stable)[0], 0xB99C0582u);
  EXPECT_EQ((*partitionable)[0], 0x7D1C13A2u);
}

TEST(ThreefryBits, NarrowWordsInStableModeArePiecesOfWords) {
  ThreefryKey key{3u, 4u};
  const std::int64_t five[] = {5};
  const std::int64_t three[] = {3};
  const std::int64_t two[] = {2};
  auto halves = threefry_random_bits(key, 16, five, ThreefryMode::stable);
  auto words = threefry_random_bits(key, 32, three, ThreefryMode::stable);  // ceil(5 * 16 / 32)
  ASSERT_TRUE(halves.ok() && words.ok());
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ((*halves)[k], ((*words)[k / 2] >> (16 * (k % 2))) & 0xFFFFu);

  auto bytes = threefry_random_bits(key, 8, five, ThreefryMode::stable);
  auto byte_words = threefry_random_bits(key, 32, two, ThreefryMode::stable);  // ceil(5 * 8 / 32)
  ASSERT_TRUE(bytes.ok() && byte_words.ok());
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ((*bytes)[k], ((*byte_words)[k / 4] >> (8 * (k % 4))) & 0xFFu);
}

TEST(ThreefryBits, NarrowWordsInPartitionableModeAreLowBits) {
  ThreefryKey key{3u, 4u};
  const std::int64_t shape[] = {2, 3};
  auto words = threefry_random_bits(key, 32, shape, ThreefryMode::partitionable);
  auto halves = threefry_random_bits(key, 16, shape, ThreefryMode::partitionable);
  auto bytes = threefry_random_bits(key, 8, shape, ThreefryMode::partitionable);
  ASSERT_TRUE(words.ok() && halves.ok() && bytes.ok());
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_EQ((*halves)[k], (*words)[k] & 0xFFFFu);
    EXPECT_EQ((*bytes)[k], (*words)[k] & 0xFFu);
  }
}

TEST(ThreefryBits, PartitionableValuesDoNotDependOnTheShape) {
  // Element i uses only its own index: the first row of (4, 6) equals a (6,) draw.
  ThreefryKey key = threefry_seed(7);
  const std::int64_t matrix[] = {4, 6};
  const std::int64_t row[] = {6};
  auto whole = threefry_random_bits(key, 32, matrix, ThreefryMode::partitionable);
  auto first = threefry_random_bits(key, 32, row, ThreefryMode::partitionable);
  ASSERT_TRUE(whole.ok() && first.ok());
  EXPECT_EQ(std::vector<std::uint32_t>(whole->begin(), whole->begin() + 6), *first);
  // In stable mode they differ: counters pair across half the array.
  auto stable_whole = threefry_random_bits(key, 32, matrix, ThreefryMode::stable);
  auto stable_first = threefry_random_bits(key, 32, row, ThreefryMode::stable);
  EXPECT_NE(std::vector<std::uint32_t>(stable_whole->begin(), stable_whole->begin() + 6), *stable_first);
}

// Every block of a grid over `shape`, each generated alone, pasted into place.
std::vector<std::uint32_t> draw_by_blocks(ThreefryKey key, int bit_width, std::int64_t rows, std::int64_t columns,
                                          std::int64_t row_step, std::int64_t column_step, ThreefryMode mode) {
  const std::int64_t shape[] = {rows, columns};
  std::vector<std::uint32_t> pasted(rows * columns);
  for (std::int64_t r = 0; r < rows; r += row_step) {
    for (std::int64_t c = 0; c < columns; c += column_step) {
      const std::int64_t start[] = {r, c};
      const std::int64_t extent[] = {std::min(row_step, rows - r), std::min(column_step, columns - c)};
      std::vector<std::uint32_t> block(extent[0] * extent[1]);
      Status status = threefry_random_bits_block(key, bit_width, shape, {start, extent}, mode, block);
      EXPECT_TRUE(status.ok());
      for (std::int64_t i = 0; i < extent[0]; ++i)
        for (std::int64_t j = 0; j < extent[1]; ++j) pasted[(r + i) * columns + c + j] = block[i * extent[1] + j];
    }
  }
  return pasted;
}

TEST(ThreefryBits, BlocksPasteIntoTheWholeDraw) {
  ThreefryKey key = threefry_seed(42);
  const std::int64_t shape[] = {6, 10};
  for (ThreefryMode mode : both_modes) {
    for (int bit_width : {8, 16, 32}) {
      auto whole = threefry_random_bits(key, bit_width, shape, mode);
      ASSERT_TRUE(whole.ok());
      EXPECT_EQ(draw_by_blocks(key, bit_width, 6, 10, 3, 5, mode), *whole);
      EXPECT_EQ(draw_by_blocks(key, bit_width, 6, 10, 1, 10, mode), *whole);
      EXPECT_EQ(draw_by_blocks(key, bit_width, 6, 10, 4, 3, mode), *whole);  // uneven edges
    }
  }
}

TEST(ThreefryBits, BlockOfARank3Array) {
  ThreefryKey key = threefry_seed(5);
  const std::int64_t shape[] = {3, 4, 5};
  const std::int64_t start[] = {1, 2, 1};
  const std::int64_t extent[] = {2, 2, 3};
  for (ThreefryMode mode : both_modes) {
    auto whole = threefry_random_bits(key, 16, shape, mode);
    std::vector<std::uint32_t> block(12);
    ASSERT_TRUE(threefry_random_bits_block(key, 16, shape, {start, extent}, mode, block).ok());
    std::size_t k = 0;
    for (int i = 1; i < 3; ++i)
      for (int j = 2; j < 4; ++j)
        for (int l = 1; l < 4; ++l) EXPECT_EQ(block[k++], (*whole)[(i * 4 + j) * 5 + l]);
  }
}

TEST(ThreefryBits, ScalarAndEmptyShapes) {
  ThreefryKey key = threefry_seed(1);
  auto scalar = threefry_random_bits(key, 32, std::span<const std::int64_t>{}, ThreefryMode::partitionable);
  ASSERT_TRUE(scalar.ok());
  auto words = threefry2x32(key, {0u, 0u});
  EXPECT_EQ(*scalar, (std::vector<std::uint32_t>{words[0] ^ words[1]}));
  auto stable_scalar = threefry_random_bits(key, 32, std::span<const std::int64_t>{}, ThreefryMode::stable);
  EXPECT_EQ(*stable_scalar, (std::vector<std::uint32_t>{threefry2x32(key, {0u, 0u})[0]}));
  const std::int64_t empty[] = {3, 0};
  EXPECT_TRUE(threefry_random_bits(key, 16, empty, ThreefryMode::stable)->empty());
}

TEST(ThreefryBits, RejectsBadRequests) {
  ThreefryKey key = threefry_seed(1);
  const std::int64_t shape[] = {4};
  EXPECT_EQ(threefry_random_bits(key, 12, shape, ThreefryMode::stable).error().kind, ErrorKind::invalid_argument);
  const std::int64_t negative[] = {-1};
  EXPECT_FALSE(threefry_random_bits(key, 32, negative, ThreefryMode::stable).ok());
  const std::int64_t huge[] = {std::int64_t{1} << 40, std::int64_t{1} << 40};
  EXPECT_FALSE(threefry_random_bits(key, 32, huge, ThreefryMode::stable).ok());

  std::vector<std::uint32_t> out(2);
  const std::int64_t start[] = {3};
  const std::int64_t extent[] = {2};
  EXPECT_FALSE(threefry_random_bits_block(key, 32, shape, {start, extent}, ThreefryMode::partitionable, out).ok());
  const std::int64_t inside[] = {1};
  std::vector<std::uint32_t> short_out(1);
  EXPECT_FALSE(threefry_random_bits_block(key, 32, shape, {inside, extent}, ThreefryMode::partitionable, short_out).ok());
  EXPECT_TRUE(threefry_random_bits_block(key, 32, shape, {inside, extent}, ThreefryMode::partitionable, out).ok());
}

}  // namespace
}  // namespace devices
