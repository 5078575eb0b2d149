// The threefry2x32 counter-based PRNG and JAX's key operations on it, bit
// for bit as jax/_src/prng.py computes them with jax_enable_x64 off
// (runtime.md "Random numbers"). A key is two uint32 words. Every function
// here is a pure function of its arguments: no state, no language knowledge.
//
// Two modes, as JAX's `jax_threefry_partitionable` flag selects:
//   - partitionable: element i of a result uses the counter pair
//     (hi32(i), lo32(i)) of its own row-major index, so any block of the
//     output can be generated alone (no communication, same values whatever
//     the sharding);
//   - stable: the original scheme, where threefry_2x32 pairs counter k with
//     counter k + ceil(n/2) of the flattened array, so an element depends on
//     the array's total size and a sharded output needs another shard's
//     counters (XLA inserts a collective-permute).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "devices/error.hpp"

namespace devices {

using ThreefryKey = std::array<std::uint32_t, 2>;

enum class ThreefryMode { stable, partitionable };

// One threefry2x32 block (20 rounds, Random123's rotations and key schedule):
// the two output words for `key` and the counter pair `counter`.
std::array<std::uint32_t, 2> threefry2x32(ThreefryKey key, std::array<std::uint32_t, 2> counter);

// JAX's threefry_2x32(key, count) on a flat count array: pad to even length
// with a 0, pair the first half with the second, hash, concatenate the two
// output halves and drop the padding.
std::vector<std::uint32_t> threefry_2x32(ThreefryKey key, std::span<const std::uint32_t> counts);

// jax.random.key(seed) / PRNGKey(seed) for an integer seed, x64 off: the seed
// is first narrowed to int32 (two's complement wrap), then key = [seed >> 32
// logically = 0, seed & 0xFFFFFFFF].
ThreefryKey threefry_seed(std::int64_t seed);

// jax.random.split(key, num): `num` new keys, row-major. Partitionable mode
// uses _threefry_split_foldlike (key i = threefry2x32(key, (0, i)) for
// num < 2^32), stable mode _threefry_split_original (threefry_2x32 of
// iota(2 * num), reshaped to (num, 2)).
Expected<std::vector<ThreefryKey>> threefry_split(ThreefryKey key, std::int64_t num, ThreefryMode mode);

// jax.random.fold_in(key, data): threefry_2x32(key, threefry_seed(data)),
// i.e. threefry2x32(key, (0, data)); the same in both modes.
ThreefryKey threefry_fold_in(ThreefryKey key, std::uint32_t data);

// A rectangular block of an array of shape `shape`: `start[d]` to
// `start[d] + extent[d]` along each dimension d.
struct ArrayBlock {
  std::span<const std::int64_t> start;
  std::span<const std::int64_t> extent;
};

// jax.random.bits / _random_bits: random words of `bit_width` (8, 16 or 32)
// for an array of `shape`, row-major, each in the low bits of a uint32.
Expected<std::vector<std::uint32_t>> threefry_random_bits(ThreefryKey key, int bit_width,
                                                          std::span<const std::int64_t> shape,
                                                          ThreefryMode mode);

// The same words, only those of `block` (row-major within the block), into
// `out` (one per element of the block). Equal to slicing the whole result,
// in both modes; in partitionable mode each element needs only its own
// index, in stable mode also the array's total size (and the counter of an
// element half the array away, which is why a sharded stable draw
// communicates).
Status threefry_random_bits_block(ThreefryKey key, int bit_width, std::span<const std::int64_t> shape,
                                  ArrayBlock block, ThreefryMode mode, std::span<std::uint32_t> out);

}  // namespace devices
