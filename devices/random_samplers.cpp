#include "devices/random_samplers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "devices/half_float.hpp"

namespace devices {
namespace {

using typecheck::DType;

std::uint64_t element_count(std::span<const std::int64_t> extent) {
  std::uint64_t count = 1;
  for (std::int64_t dimension : extent) count *= static_cast<std::uint64_t>(dimension);
  return count;
}

// The draw's words, checked: threefry_random_bits_block validates the shape,
// the block and the output length.
Expected<std::vector<std::uint32_t>> draw_bits(const RandomDraw& draw, int bit_width, std::size_t out_size) {
  for (std::int64_t dimension : draw.block.extent) {
    if (dimension < 0) return Error{ErrorKind::invalid_argument, "random block lies outside the shape"};
  }
  if (element_count(draw.block.extent) != out_size)
    return Error{ErrorKind::invalid_argument, "random block output has the wrong length"};
  std::vector<std::uint32_t> bits(out_size);
  Status status = threefry_random_bits_block(draw.key, bit_width, draw.shape, draw.block, draw.mode, bits);
  if (!status) return status.error();
  return bits;
}

// A float of the 16-bit type and back: the value the type holds.
float round_to(DType dtype, float value) {
  return dtype == DType::bfloat16 ? float_from_bfloat16(bfloat16_from_float(value))
                                  : float_from_float16(float16_from_float(value));
}

std::uint16_t store_as(DType dtype, float value) {
  return dtype == DType::bfloat16 ? bfloat16_from_float(value) : float16_from_float(value);
}

// The bit layout _uniform randomises: the draw width and mantissa width.
struct UniformLayout {
  int rng_bits;
  int mantissa_bits;
  std::uint32_t one_bits;  // 1.0 in the dtype
};

std::optional<UniformLayout> uniform_layout(DType dtype) {
  switch (dtype) {
    case DType::float32: return UniformLayout{32, 23, 0x3F800000u};
    case DType::float16: return UniformLayout{16, 10, 0x3C00u};
    case DType::bfloat16: return UniformLayout{8, 7, 0x3F80u};  // nmant < 8: 8-bit draws
    default: return std::nullopt;
  }
}

Error not_a_float_dtype(DType dtype) {
  return Error{ErrorKind::invalid_argument,
               fmt::format("random floats need a floating dtype, got {}", typecheck::long_name(dtype))};
}

// The drawn words as floats in [0, 1) of the dtype (exact in f32): the
// word's top bits as the mantissa of a number in [1, 2), minus 1.
Expected<std::vector<float>> unit_floats(const RandomDraw& draw, DType dtype, std::size_t out_size) {
  auto layout = uniform_layout(dtype);
  if (!layout) return not_a_float_dtype(dtype);
  auto bits = draw_bits(draw, layout->rng_bits, out_size);
  if (!bits) return bits.error();
  std::vector<float> floats(out_size);
  const int shift = layout->rng_bits - layout->mantissa_bits;
  for (std::size_t i = 0; i < floats.size(); ++i) {
    std::uint32_t float_bits = ((*bits)[i] >> shift) | layout->one_bits;
    float one_to_two = dtype == DType::float32   ? std::bit_cast<float>(float_bits)
                       : dtype == DType::bfloat16 ? float_from_bfloat16(static_cast<std::uint16_t>(float_bits))
                                                  : float_from_float16(static_cast<std::uint16_t>(float_bits));
    floats[i] = one_to_two - 1.0f;
  }
  return floats;
}

// _uniform after the bits: max(minval, floats * (maxval - minval) + minval),
// minval and maxval already values of the dtype.
void scale_unit_floats(std::span<float> floats, float minval, float maxval) {
  const float range = maxval - minval;
  for (float& value : floats) value = std::max(minval, std::fma(value, range, minval));
}

// log1p as XLA's CPU elemental emitter computes it (EmitLog1p): Cephes'
// rational approximation below sqrt(2) - 1 in magnitude, log(1 + x) above.
float xla_log1p(float x) {
  static constexpr double numerator_coefficients[] = {
      4.5270000862445199635215E-5, 4.9854102823193375972212E-1, 6.5787325942061044846969E0,
      2.9911919328553073277375E1,  6.0949667980987787057556E1,  5.7112963590585538103336E1,
      2.0039553499201281259648E1};
  static constexpr double denominator_coefficients[] = {
      1.,  1.5062909083469192043167E1, 8.3047565967967209469434E1, 2.2176239823732856465394E2,
      3.0909872225312059774938E2, 2.1642788614495947685003E2, 6.0118660497603843919306E1};
  if (!(std::fabs(x) < static_cast<float>(0.41421356237309504880))) return std::log(x + 1.0f);
  // Horner from the highest degree, each step one fused multiply-add.
  auto evaluate = [x](std::span<const double> coefficients) {
    float value = 0.0f;
    for (double coefficient : coefficients) value = std::fma(value, x, static_cast<float>(coefficient));
    return value;
  };
  float x_squared = x * x;
  float small = evaluate(numerator_coefficients) / evaluate(denominator_coefficients);
  small = (x * x_squared) * small;
  small = std::fma(-0.5f, x_squared, small);
  return x + small;
}

float normal_from_uniform(float uniform) { return std::numbers::sqrt2_v<float> * xla_erf_inv(uniform); }

// _normal_real's uniform range for the dtype: [nextafter(-1, 0), 1).
float normal_lower_bound(DType dtype) {
  switch (dtype) {
    case DType::bfloat16: return float_from_bfloat16(0xBF7Fu);
    case DType::float16: return float_from_float16(0xBBFFu);
    default: return std::nextafter(-1.0f, 0.0f);
  }
}

// lax.rem on unsigned words as XLA defines it: x % 0 is x.
std::uint64_t unsigned_rem(std::uint64_t value, std::uint64_t divisor) {
  return divisor == 0 ? value : value % divisor;
}

template <class Integer>
Status randint_into(const RandomDraw& draw, std::int64_t minval, std::int64_t maxval, std::span<Integer> out) {
  using limits = std::numeric_limits<Integer>;
  constexpr int bit_width = limits::digits + (limits::is_signed ? 1 : 0);
  constexpr std::uint64_t word_mask = bit_width == 32 ? 0xFFFFFFFFull : (1ull << bit_width) - 1;
  const bool maxval_out_of_range = maxval > static_cast<std::int64_t>(limits::max());
  minval = std::clamp<std::int64_t>(minval, limits::min(), limits::max());
  maxval = std::clamp<std::int64_t>(maxval, limits::min(), limits::max());

  auto keys = threefry_split(draw.key, 2, draw.mode);
  if (!keys) return keys.error();
  RandomDraw higher_draw = draw, lower_draw = draw;
  higher_draw.key = (*keys)[0];
  lower_draw.key = (*keys)[1];
  auto higher_bits = draw_bits(higher_draw, bit_width, out.size());
  if (!higher_bits) return higher_bits.error();
  auto lower_bits = draw_bits(lower_draw, bit_width, out.size());
  if (!lower_bits) return lower_bits.error();

  // maxval - minval in the dtype, as its unsigned counterpart; 1 when the
  // range is empty; one more (possibly wrapping to 0) when maxval was clipped.
  std::uint64_t span = static_cast<std::uint64_t>(maxval - minval) & word_mask;
  if (maxval <= minval) span = 1;
  if (maxval_out_of_range && maxval > minval) span = (span + 1) & word_mask;
  // 2^bit_width % span without overflow: (2^(bits/2) % span)^2 % span.
  std::uint64_t multiplier = unsigned_rem(1ull << (bit_width / 2), span);
  multiplier = unsigned_rem((multiplier * multiplier) & word_mask, span);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::uint64_t offset = (unsigned_rem((*higher_bits)[i], span) * multiplier + unsigned_rem((*lower_bits)[i], span)) & word_mask;
    offset = unsigned_rem(offset, span);
    // minval + offset in the dtype, wrapping as XLA's integer add does.
    out[i] = static_cast<Integer>(static_cast<std::uint64_t>(minval) + offset);
  }
  return {};
}

// ceil(3 ln n / ln(2^32 - 1)) as _shuffle computes it (numpy float64).
int shuffle_rounds(std::uint64_t size) {
  constexpr double exponent = 3;
  double ratio = exponent * std::log(static_cast<double>(std::max<std::uint64_t>(1, size))) /
                 std::log(static_cast<double>(std::numeric_limits<std::uint32_t>::max()));
  return static_cast<int>(std::ceil(ratio));
}

}  // namespace

ArrayBlock whole_array_block(std::span<const std::int64_t> shape, std::span<const std::int64_t> zeros) {
  // Too few zeros give a block of the wrong rank, which the draw rejects.
  return {zeros.first(std::min(zeros.size(), shape.size())), shape};
}

float xla_erf_inv(float x) {
  static constexpr float w_less_than_5[] = {2.81022636e-08f,  3.43273939e-07f, -3.5233877e-06f,
                                            -4.39150654e-06f, 0.00021858087f,  -0.00125372503f,
                                            -0.00417768164f,  0.246640727f,    1.50140941f};
  static constexpr float w_greater_than_5[] = {-0.000200214257f, 0.000100950558f, 0.00134934322f,
                                               -0.00367342844f,  0.00573950773f,  -0.0076224613f,
                                               0.00943887047f,   1.00167406f,     2.83297682f};
  if (std::fabs(x) == 1.0f) return x * std::numeric_limits<float>::infinity();
  float w = -xla_log1p(-x * x);
  const bool small = w < 5.0f;
  const float* coefficients = small ? w_less_than_5 : w_greater_than_5;
  w = small ? w - 2.5f : std::sqrt(w) - 3.0f;
  float p = coefficients[0];
  for (int i = 1; i < 9; ++i) p = std::fma(p, w, coefficients[i]);
  return p * x;
}

Status random_uniform(const RandomDraw& draw, float minval, float maxval, std::span<float> out) {
  auto floats = unit_floats(draw, DType::float32, out.size());
  if (!floats) return floats.error();
  scale_unit_floats(*floats, minval, maxval);
  std::copy(floats->begin(), floats->end(), out.begin());
  return {};
}

Status random_uniform(const RandomDraw& draw, DType dtype, float minval, float maxval, std::span<std::uint16_t> out) {
  if (dtype != DType::bfloat16 && dtype != DType::float16) return not_a_float_dtype(dtype);
  auto floats = unit_floats(draw, dtype, out.size());
  if (!floats) return floats.error();
  scale_unit_floats(*floats, round_to(dtype, minval), round_to(dtype, maxval));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = store_as(dtype, (*floats)[i]);
  return {};
}

Status random_normal(const RandomDraw& draw, std::span<float> out) {
  auto floats = unit_floats(draw, DType::float32, out.size());
  if (!floats) return floats.error();
  scale_unit_floats(*floats, normal_lower_bound(DType::float32), 1.0f);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = normal_from_uniform((*floats)[i]);
  return {};
}

Status random_normal(const RandomDraw& draw, DType dtype, std::span<std::uint16_t> out) {
  if (dtype != DType::bfloat16 && dtype != DType::float16) return not_a_float_dtype(dtype);
  auto floats = unit_floats(draw, dtype, out.size());
  if (!floats) return floats.error();
  scale_unit_floats(*floats, normal_lower_bound(dtype), 1.0f);
  const float sqrt2 = round_to(dtype, std::numbers::sqrt2_v<float>);  // np.array(np.sqrt(2), dtype)
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = store_as(dtype, sqrt2 * xla_erf_inv((*floats)[i]));
  return {};
}

Status random_bernoulli(const RandomDraw& draw, DType p_dtype, float p, std::span<std::uint8_t> out) {
  if (p_dtype != DType::float32) p = round_to(p_dtype, p);
  auto floats = unit_floats(draw, p_dtype, out.size());
  if (!floats) return floats.error();
  // uniform(key, shape, dtype) with minval 0, maxval 1 is the unit floats.
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = (*floats)[i] < p ? 1 : 0;
  return {};
}

Status random_randint(const RandomDraw& draw, std::int64_t minval, std::int64_t maxval, std::span<std::int8_t> out) {
  return randint_into(draw, minval, maxval, out);
}

Status random_randint(const RandomDraw& draw, std::int64_t minval, std::int64_t maxval, std::span<std::int32_t> out) {
  return randint_into(draw, minval, maxval, out);
}

Status random_randint(const RandomDraw& draw, std::int64_t minval, std::int64_t maxval, std::span<std::uint32_t> out) {
  return randint_into(draw, minval, maxval, out);
}

Status random_uniform(const RandomDraw& draw, float minval, float maxval, LocalArray& out) {
  Buffer& buffer = *out.buffer;
  switch (out.dtype()) {
    case DType::float32: return random_uniform(draw, minval, maxval, buffer.elements<DType::float32>());
    case DType::bfloat16: return random_uniform(draw, DType::bfloat16, minval, maxval, buffer.elements<DType::bfloat16>());
    case DType::float16: return random_uniform(draw, DType::float16, minval, maxval, buffer.elements<DType::float16>());
    default: return not_a_float_dtype(out.dtype());
  }
}

Status random_normal(const RandomDraw& draw, LocalArray& out) {
  Buffer& buffer = *out.buffer;
  switch (out.dtype()) {
    case DType::float32: return random_normal(draw, buffer.elements<DType::float32>());
    case DType::bfloat16: return random_normal(draw, DType::bfloat16, buffer.elements<DType::bfloat16>());
    case DType::float16: return random_normal(draw, DType::float16, buffer.elements<DType::float16>());
    default: return not_a_float_dtype(out.dtype());
  }
}

Status random_bernoulli(const RandomDraw& draw, DType p_dtype, float p, LocalArray& out) {
  if (out.dtype() != DType::bool_) return Error{ErrorKind::invalid_argument, "random_bernoulli: the result must be bool"};
  return random_bernoulli(draw, p_dtype, p, out.buffer->elements<DType::bool_>());
}

Status random_randint(const RandomDraw& draw, std::int64_t minval, std::int64_t maxval, LocalArray& out) {
  Buffer& buffer = *out.buffer;
  switch (out.dtype()) {
    case DType::int8: return random_randint(draw, minval, maxval, buffer.elements<DType::int8>());
    case DType::int32: return random_randint(draw, minval, maxval, buffer.elements<DType::int32>());
    case DType::uint32: return random_randint(draw, minval, maxval, buffer.elements<DType::uint32>());
    default: return Error{ErrorKind::invalid_argument, "random_randint: the result must be int8, int32 or uint32"};
  }
}

Status random_bits(const RandomDraw& draw, LocalArray& out) {
  if (out.dtype() != DType::uint32) return Error{ErrorKind::invalid_argument, "random_bits: the result must be uint32"};
  return threefry_random_bits_block(draw.key, 32, draw.shape, draw.block, draw.mode, out.buffer->elements<DType::uint32>());
}

Expected<std::vector<std::int32_t>> random_shuffle_indices(ThreefryKey key, ThreefryMode mode,
                                                           std::span<const std::int64_t> shape, int axis) {
  if (shape.empty()) return Error{ErrorKind::invalid_argument, "a permutation needs at least one dimension"};
  if (axis < 0 || static_cast<std::size_t>(axis) >= shape.size())
    return Error{ErrorKind::invalid_argument, fmt::format("axis {} is out of bounds for a permutation of rank {}", axis, shape.size())};
  if (shape[axis] > std::numeric_limits<std::int32_t>::max())
    return Error{ErrorKind::invalid_argument, "a permutation's axis is longer than int32 indices reach"};
  std::uint64_t size = 1;
  for (std::int64_t dimension : shape) {
    if (dimension < 0) return Error{ErrorKind::invalid_argument, "negative dimension in a permutation"};
    if (dimension != 0 && size > (std::uint64_t{1} << 62) / static_cast<std::uint64_t>(dimension))
      return Error{ErrorKind::invalid_argument, "a permutation has too many elements"};
    size *= static_cast<std::uint64_t>(dimension);
  }
  // Lanes along `axis`: `outer` blocks of `length` x `inner` elements.
  const std::uint64_t length = static_cast<std::uint64_t>(shape[axis]);
  std::uint64_t inner = 1;
  for (std::size_t d = axis + 1; d < shape.size(); ++d) inner *= static_cast<std::uint64_t>(shape[d]);
  const std::uint64_t outer = length == 0 || inner == 0 ? 0 : size / (length * inner);

  std::vector<std::int32_t> indices(size);
  for (std::uint64_t i = 0; i < size; ++i) indices[i] = static_cast<std::int32_t>((i / inner) % length);

  std::vector<std::uint32_t> lane_keys(length);
  std::vector<std::int32_t> lane_values(length);
  std::vector<std::uint32_t> order(length);
  for (int round = shuffle_rounds(size); round > 0; --round) {
    auto keys = threefry_split(key, 2, mode);
    if (!keys) return keys.error();
    key = (*keys)[0];
    auto sort_keys = threefry_random_bits((*keys)[1], 32, shape, mode);
    if (!sort_keys) return sort_keys.error();
    // lax.sort_key_val along the axis: a stable sort of each lane by its keys.
    for (std::uint64_t block = 0; block < outer; ++block) {
      for (std::uint64_t lane = 0; lane < inner; ++lane) {
        const std::uint64_t base = block * length * inner + lane;
        for (std::uint64_t j = 0; j < length; ++j) {
          lane_keys[j] = (*sort_keys)[base + j * inner];
          lane_values[j] = indices[base + j * inner];
        }
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return lane_keys[a] < lane_keys[b]; });
        for (std::uint64_t j = 0; j < length; ++j) indices[base + j * inner] = lane_values[order[j]];
      }
    }
  }
  return indices;
}

Expected<std::vector<std::int32_t>> random_choice_indices(ThreefryKey key, ThreefryMode mode, std::int64_t n_inputs,
                                                          std::span<const std::int64_t> draw_shape, bool replace,
                                                          std::optional<std::span<const float>> p) {
  std::uint64_t draws = 1;
  for (std::int64_t dimension : draw_shape) {
    if (dimension < 0) return Error{ErrorKind::invalid_argument, "negative dimension in a choice shape"};
    draws *= static_cast<std::uint64_t>(dimension);
  }
  if (draws == 0) return std::vector<std::int32_t>{};
  if (n_inputs <= 0) return Error{ErrorKind::invalid_argument, "a must be greater than 0 unless no samples are taken"};
  if (n_inputs > std::numeric_limits<std::int32_t>::max())
    return Error{ErrorKind::invalid_argument, "choice has more candidates than int32 indices reach"};
  if (!replace && draws > static_cast<std::uint64_t>(n_inputs))
    return Error{ErrorKind::invalid_argument, "Cannot take a larger sample than population when replace=False"};
  if (p && p->size() != static_cast<std::size_t>(n_inputs))
    return Error{ErrorKind::invalid_argument, "p must be None or match the shape of a"};

  std::vector<std::int64_t> zeros(draw_shape.size(), 0);
  RandomDraw draw{key, mode, draw_shape, whole_array_block(draw_shape, zeros)};
  std::vector<std::int32_t> indices(draws);
  if (!p) {
    if (replace) {
      Status status = random_randint(draw, 0, n_inputs, std::span<std::int32_t>(indices));
      if (!status) return status.error();
      return indices;
    }
    const std::int64_t population[] = {n_inputs};
    auto permutation = random_shuffle_indices(key, mode, population, 0);
    if (!permutation) return permutation.error();
    permutation->resize(draws);
    return permutation;
  }
  if (!replace)
    return Error{ErrorKind::not_implemented, "choice without replacement with probabilities p is not implemented"};

  // cumsum in order, then JAX's searchsorted(side='left', method='scan'):
  // a fixed number of bisection steps, the probe index clamped as a gather is.
  std::vector<float> cumulative(p->size());
  float running = 0.0f;
  for (std::size_t i = 0; i < p->size(); ++i) cumulative[i] = running = running + (*p)[i];
  std::vector<float> uniforms(draws);
  Status status = random_uniform(draw, 0.0f, 1.0f, uniforms);
  if (!status) return status.error();
  const std::uint64_t n = cumulative.size();
  const int levels = static_cast<int>(std::ceil(std::log2(static_cast<double>(n) + 1)));
  for (std::size_t i = 0; i < draws; ++i) {
    const float target = cumulative.back() * (1.0f - uniforms[i]);
    std::uint64_t low = 0, high = n;
    for (int level = 0; level < levels; ++level) {
      std::uint64_t middle = (low + high) / 2;
      if (target <= cumulative[std::min(middle, n - 1)]) high = middle; else low = middle;
    }
    indices[i] = static_cast<std::int32_t>(high);
  }
  return indices;
}

}  // namespace devices
