// jax.random's samplers on top of threefry random bits (threefry.hpp), as
// jax/_src/random.py and XLA's CPU backend compute them, written into the
// caller's storage (buffer.hpp's storage types: f32 as float, bf16/f16 as
// their 16 bits, bool as a byte).
//
// The elementwise samplers (uniform, normal, bernoulli, randint) take the
// whole array's shape and the block to generate, so a shard can be generated
// alone; the result equals the same block of the whole array in both modes
// (threefry_random_bits_block). Permutations and choices are whole-array.
//
// Floating-point evaluation, following XLA on CPU:
//   - a multiply feeding an add is one fused multiply-add (XLA's CPU
//     compiler always allows FMA contraction);
//   - bf16/f16 arithmetic after the bit draw is carried in f32 and rounded to
//     the 16-bit type once, at the end (xla_allow_excess_precision, on by
//     default, removes the f32 -> 16-bit -> f32 round trips between ops);
//     minval and maxval themselves are first rounded to the 16-bit type, as
//     _uniform converts them explicitly.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "devices/error.hpp"
#include "devices/kernels.hpp"
#include "devices/threefry.hpp"
#include "typecheck/dtype.hpp"

namespace devices {

// Which random words to draw: key, mode, the whole array's shape and the
// block of it to generate. Partitionable is JAX's default since 0.5.0.
struct RandomDraw {
  ThreefryKey key;
  ThreefryMode mode = ThreefryMode::partitionable;
  std::span<const std::int64_t> shape;
  ArrayBlock block;
};

// The block covering all of `shape`; its start is `zeros`, storage of at
// least shape.size() zeros that outlives the block (fewer: the draw fails).
ArrayBlock whole_array_block(std::span<const std::int64_t> shape, std::span<const std::int64_t> zeros);

// jax.random.uniform(key, shape, float32, minval, maxval): the top 23 bits
// of each 32-bit word as the mantissa of a float in [1, 2), minus 1, scaled
// to [minval, maxval) and clamped below at minval.
Status random_uniform(const RandomDraw& draw, float minval, float maxval, std::span<float> out);

// The same for bf16 or f16 (`dtype`), into their 16 bits. f16 draws 16-bit
// words (10 mantissa bits used); bf16, with fewer than 8 mantissa bits,
// draws 8-bit words (_uniform's rng_bits = 8 when nmant < 8).
Status random_uniform(const RandomDraw& draw, typecheck::DType dtype, float minval, float maxval,
                      std::span<std::uint16_t> out);

// jax.random.normal(key, shape, float32): sqrt(2) * erf_inv(u) with u
// uniform in [nextafter(-1, 0), 1), erf_inv as XLA expands it (Giles'
// single-precision polynomial, log1p as XLA's CPU emitter computes it).
Status random_normal(const RandomDraw& draw, std::span<float> out);

// The same for bf16 or f16: u drawn as for that dtype, erf_inv in f32.
Status random_normal(const RandomDraw& draw, typecheck::DType dtype, std::span<std::uint16_t> out);

// jax.random.bernoulli(key, p, shape): uniform(key, shape, dtype of p) < p,
// one byte (0 or 1) per element. `p_dtype` is f32, bf16 or f16 (p is first
// rounded to it).
Status random_bernoulli(const RandomDraw& draw, typecheck::DType p_dtype, float p, std::span<std::uint8_t> out);

// jax.random.randint(key, shape, minval, maxval, dtype) for int8, int32 and
// uint32 (the span's type says which). minval and maxval are clipped to the
// dtype; two draws of the dtype's width from split(key) are combined modulo
// maxval - minval (span 1 when maxval <= minval, one larger when maxval is
// beyond the dtype's maximum).
Status random_randint(const RandomDraw& draw, std::int64_t minval, std::int64_t maxval, std::span<std::int8_t> out);
Status random_randint(const RandomDraw& draw, std::int64_t minval, std::int64_t maxval, std::span<std::int32_t> out);
Status random_randint(const RandomDraw& draw, std::int64_t minval, std::int64_t maxval, std::span<std::uint32_t> out);

// The samplers above into a whole array `out` of draw.shape, whose dtype
// picks the variant: uniform and normal into float32, bfloat16 or float16,
// bernoulli into bool, randint into int8, int32 or uint32, and random_bits
// (jax.random.bits, 32-bit words) into uint32.
Status random_uniform(const RandomDraw& draw, float minval, float maxval, LocalArray& out);
Status random_normal(const RandomDraw& draw, LocalArray& out);
Status random_bernoulli(const RandomDraw& draw, typecheck::DType p_dtype, float p, LocalArray& out);
Status random_randint(const RandomDraw& draw, std::int64_t minval, std::int64_t maxval, LocalArray& out);
Status random_bits(const RandomDraw& draw, LocalArray& out);

// _shuffle(key, iota along `axis`, axis): for an array of `shape`, the index
// along `axis` each output element is taken from. Rounds of sorting by fresh
// 32-bit keys (stable sort, ceil(3 ln n / ln(2^32 - 1)) rounds for n
// elements in all), each round's key from split(key). With shape {n} this is
// jax.random.permutation(key, n); jnp.take with it permutes any array along
// an axis of length n (permutation with independent=False).
Expected<std::vector<std::int32_t>> random_shuffle_indices(ThreefryKey key, ThreefryMode mode,
                                                           std::span<const std::int64_t> shape, int axis);

// jax.random.choice(key, n_inputs, draw_shape, replace, p): the indices into
// the n_inputs candidates, row-major over draw_shape. With replacement and no
// p: randint(0, n_inputs); without: the first draws of a permutation; with
// replacement and p (float32, length n_inputs): searchsorted(cumsum(p),
// cumsum(p)[-1] * (1 - uniform)). Without replacement and with p (JAX's
// Gumbel top-k) is not implemented.
Expected<std::vector<std::int32_t>> random_choice_indices(ThreefryKey key, ThreefryMode mode, std::int64_t n_inputs,
                                                          std::span<const std::int64_t> draw_shape, bool replace,
                                                          std::optional<std::span<const float>> p);

// XLA's f32 erf_inv (exposed for tests): Giles' polynomial with fused
// multiply-adds; +-1 give +-inf.
float xla_erf_inv(float x);

}  // namespace devices
