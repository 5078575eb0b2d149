#include "devices/threefry.hpp"

#include <fmt/format.h>

#include <limits>

namespace devices {
namespace {

constexpr std::uint32_t rotate_left(std::uint32_t value, int distance) {
  return (value << distance) | (value >> (32 - distance));
}

// The largest iota one threefry_2x32 call covers in stable mode
// (jnp.iinfo(np.uint32).max in _threefry_random_bits_original).
constexpr std::uint64_t stable_block_words = std::numeric_limits<std::uint32_t>::max();

// Element `index` of JAX's threefry_2x32(key, iota(count)): the counts are
// padded to even length with a 0 and split in halves; output k < half is
// word 0 of the pair (k, k + half), the others word 1 of (k - half, k).
std::uint32_t threefry_2x32_of_iota(ThreefryKey key, std::uint64_t count, std::uint64_t index) {
  std::uint64_t half = (count + 1) / 2;
  std::uint64_t pair = index < half ? index : index - half;
  std::uint64_t partner = pair + half;
  std::uint32_t second = partner < count ? static_cast<std::uint32_t>(partner) : 0u;  // the padding 0
  auto words = threefry2x32(key, {static_cast<std::uint32_t>(pair), second});
  return index < half ? words[0] : words[1];
}

// _threefry_split_original: threefry_2x32(key, iota(2 * num)) as (num, 2).
ThreefryKey split_original_key(ThreefryKey key, std::uint64_t num, std::uint64_t index) {
  std::uint64_t count = 2 * num;
  return {threefry_2x32_of_iota(key, count, 2 * index), threefry_2x32_of_iota(key, count, 2 * index + 1)};
}

// _threefry_split_foldlike: the counter pair is the 64-bit index's halves.
ThreefryKey split_foldlike_key(ThreefryKey key, std::uint64_t index) {
  return threefry2x32(key, {static_cast<std::uint32_t>(index >> 32), static_cast<std::uint32_t>(index)});
}

// Word `word` of the uint32 words _threefry_random_bits_original draws:
// max_count words, in blocks of 2^32 - 1 counters each with its own subkey
// from an original-mode split once one block is not enough.
std::uint32_t stable_word(ThreefryKey key, std::uint64_t max_count, std::uint64_t word) {
  std::uint64_t block_count = max_count / stable_block_words;
  if (block_count == 0) return threefry_2x32_of_iota(key, max_count, word);
  std::uint64_t block = word / stable_block_words;
  ThreefryKey subkey = split_original_key(key, block_count + 1, block);
  std::uint64_t count = block < block_count ? stable_block_words : max_count % stable_block_words;
  return threefry_2x32_of_iota(subkey, count, word % stable_block_words);
}

Expected<std::uint64_t> checked_element_count(std::span<const std::int64_t> shape) {
  std::uint64_t count = 1;
  for (std::int64_t dimension : shape) {
    if (dimension < 0) return Error{ErrorKind::invalid_argument, fmt::format("negative dimension {} in a random shape", dimension)};
    if (dimension != 0 && count > (std::uint64_t{1} << 62) / static_cast<std::uint64_t>(dimension))
      return Error{ErrorKind::invalid_argument, "random shape has too many elements"};
    count *= static_cast<std::uint64_t>(dimension);
  }
  return count;
}

}  // namespace

std::array<std::uint32_t, 2> threefry2x32(ThreefryKey key, std::array<std::uint32_t, 2> counter) {
  static constexpr std::array<std::array<int, 4>, 2> rotations{{{13, 15, 26, 6}, {17, 29, 16, 24}}};
  const std::array<std::uint32_t, 3> schedule{key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDAu};
  std::uint32_t x0 = counter[0] + schedule[0];
  std::uint32_t x1 = counter[1] + schedule[1];
  // Five groups of four rounds, each followed by injecting the key schedule
  // rotated by one and the group number.
  for (std::uint32_t group = 1; group <= 5; ++group) {
    for (int distance : rotations[(group - 1) % 2]) {
      x0 += x1;
      x1 = rotate_left(x1, distance) ^ x0;
    }
    x0 += schedule[group % 3];
    x1 += schedule[(group + 1) % 3] + group;
  }
  return {x0, x1};
}

std::vector<std::uint32_t> threefry_2x32(ThreefryKey key, std::span<const std::uint32_t> counts) {
  std::size_t half = (counts.size() + 1) / 2;
  std::vector<std::uint32_t> out(counts.size());
  for (std::size_t pair = 0; pair < half; ++pair) {
    std::size_t partner = pair + half;
    auto words = threefry2x32(key, {counts[pair], partner < counts.size() ? counts[partner] : 0u});
    out[pair] = words[0];
    if (partner < counts.size()) out[partner] = words[1];
  }
  return out;
}

ThreefryKey threefry_seed(std::int64_t seed) {
  // x64 off: the seed is an int32, so the logical shift by 32 gives 0.
  return {0u, static_cast<std::uint32_t>(static_cast<std::uint64_t>(seed))};
}

Expected<std::vector<ThreefryKey>> threefry_split(ThreefryKey key, std::int64_t num, ThreefryMode mode) {
  if (num < 0) return Error{ErrorKind::invalid_argument, fmt::format("split needs a non-negative number of keys, got {}", num)};
  std::vector<ThreefryKey> keys(static_cast<std::size_t>(num));
  for (std::size_t index = 0; index < keys.size(); ++index) {
    keys[index] = mode == ThreefryMode::partitionable ? split_foldlike_key(key, index)
                                                      : split_original_key(key, keys.size(), index);
  }
  return keys;
}

ThreefryKey threefry_fold_in(ThreefryKey key, std::uint32_t data) { return threefry2x32(key, {0u, data}); }

Expected<std::vector<std::uint32_t>> threefry_random_bits(ThreefryKey key, int bit_width,
                                                          std::span<const std::int64_t> shape,
                                                          ThreefryMode mode) {
  auto count = checked_element_count(shape);
  if (!count) return count.error();
  std::vector<std::int64_t> start(shape.size(), 0);
  std::vector<std::uint32_t> out(*count);
  Status status = threefry_random_bits_block(key, bit_width, shape, {start, shape}, mode, out);
  if (!status) return status.error();
  return out;
}

Status threefry_random_bits_block(ThreefryKey key, int bit_width, std::span<const std::int64_t> shape,
                                  ArrayBlock block, ThreefryMode mode, std::span<std::uint32_t> out) {
  if (bit_width != 8 && bit_width != 16 && bit_width != 32)
    return Error{ErrorKind::invalid_argument, fmt::format("random bits need an 8-, 16- or 32-bit width, got {}", bit_width)};
  auto total = checked_element_count(shape);
  if (!total) return total.error();
  if (block.start.size() != shape.size() || block.extent.size() != shape.size())
    return Error{ErrorKind::invalid_argument, "random block rank differs from the shape's"};
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (block.start[d] < 0 || block.extent[d] < 0 || block.start[d] > shape[d] - block.extent[d])
      return Error{ErrorKind::invalid_argument, "random block lies outside the shape"};
  }
  auto block_count = checked_element_count(block.extent);
  if (!block_count) return block_count.error();
  if (out.size() != *block_count)
    return Error{ErrorKind::invalid_argument, "random block output has the wrong length"};
  if (*block_count == 0) return {};

  const std::uint32_t mask = bit_width == 32 ? 0xFFFFFFFFu : (1u << bit_width) - 1u;
  const std::uint64_t per_word = static_cast<std::uint64_t>(32 / bit_width);
  const std::uint64_t max_count = (*total + per_word - 1) / per_word;  // ceil(bit_width * size / 32)
  // One run of `run_length` consecutive elements from array index `first`.
  auto fill_run = [&](std::uint64_t first, std::span<std::uint32_t> run) {
    if (mode == ThreefryMode::partitionable) {
      for (std::size_t j = 0; j < run.size(); ++j) {
        std::uint64_t index = first + j;
        auto words = threefry2x32(key, {static_cast<std::uint32_t>(index >> 32), static_cast<std::uint32_t>(index)});
        run[j] = (words[0] ^ words[1]) & mask;  // narrower widths keep the low bits
      }
      return;
    }
    // Stable: 8- and 16-bit values are the little-endian pieces of the words.
    for (std::size_t j = 0; j < run.size(); ++j) {
      std::uint64_t index = first + j;
      std::uint32_t word = stable_word(key, max_count, index / per_word);
      run[j] = (word >> (bit_width * (index % per_word))) & mask;
    }
  };

  if (shape.empty()) {
    fill_run(0, out);
    return {};
  }
  // Walk the block's rows (its last dimension is contiguous in the array),
  // keeping each row's start index in the whole array.
  const std::size_t last = shape.size() - 1;
  const std::size_t run_length = static_cast<std::size_t>(block.extent[last]);
  std::vector<std::int64_t> position(block.start.begin(), block.start.end());
  for (std::size_t written = 0; written < out.size(); written += run_length) {
    std::uint64_t first = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) first = first * static_cast<std::uint64_t>(shape[d]) + position[d];
    fill_run(first, out.subspan(written, run_length));
    for (std::size_t d = last; d-- > 0;) {
      if (++position[d] < block.start[d] + block.extent[d]) break;
      position[d] = block.start[d];
    }
  }
  return {};
}

}  // namespace devices
