#include "devices/vector_math.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

// SLEEF (Debian's libsleef-dev) for sin, cos, exp and log: faster than
// polynomials of our own at the same accuracy (within 1 ulp, the unit test's
// bound). On x86 its functions for each vector width are declared here, each
// with its instruction set as target (sleef.h declares them only when the
// whole file is compiled for that set), and called only on hosts that have it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define SHARDLANG_SLEEF_X86 1
#define SHARDLANG_SLEEF_DECLARE(name)                                                                       \
  __attribute__((target("avx512f"))) __m512 name##16_u10avx512f(__m512);                                   \
  __attribute__((target("avx2,fma"))) __m256 name##8_u10avx2(__m256);                                      \
  __m128 name##4_u10sse2(__m128);
extern "C" {
SHARDLANG_SLEEF_DECLARE(Sleef_sinf)
SHARDLANG_SLEEF_DECLARE(Sleef_cosf)
SHARDLANG_SLEEF_DECLARE(Sleef_expf)
SHARDLANG_SLEEF_DECLARE(Sleef_logf)
}
#else
#include <sleef.h>
#endif


namespace devices {
namespace {

// Adding 1.5 * 2^52 to a double of magnitude below 2^51 rounds it to an
// integer k (round to nearest even) and leaves k in the low mantissa bits.
constexpr double round_magic = 0x1.8p52;

// ---- tanh ----
// exp(x) = 2^k * e^r, k = round(x / ln 2), |r| <= ln(2) / 2; e^r by its
// Taylor polynomial of degree 8 (relative error < 2e-10) and 2^k built in the
// exponent field of a double, so a subnormal float result is rounded once.
constexpr double log2_e = 1.44269504088896340736;
constexpr double ln_2 = 0.693147180559945309417;

inline double exp_reduced(double r) {
  return 1.0 + r * (1.0 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720 +
                  r * (1.0 / 5040 + r * (1.0 / 40320))))))));
}

// e^x in double for x in [-104, 89]; beyond, the float result is 0 or inf
// and the caller selects it. (No clamp here: a branch to a constant result
// would keep the compiler from vectorising the loop.)
inline double exp_wide(double x) {
  double t = x * log2_e + round_magic;
  std::uint64_t bits = std::bit_cast<std::uint64_t>(t);
  double k = t - round_magic;
  double r = x - k * ln_2;
  // The low bits of `bits` hold k + 2^51: adding the bias and shifting the
  // sum into the exponent field drops everything above.
  double scale = std::bit_cast<double>((bits + 1023) << 52);
  return exp_reduced(r) * scale;
}

// |x| < 1/8: the odd Taylor series to x^11 (relative error < 3e-13);
// otherwise 1 - 2 / (e^(2|x|) + 1), whose cancellation costs at most 3 bits
// of the double's 53. Past |x| = 9.1 the float result is +-1.
inline float tanh_one(float x) {
  double wide = x;
  double magnitude = std::fabs(wide);
  double z = wide * wide;
  double series = wide * (1.0 + z * (-1.0 / 3 + z * (2.0 / 15 + z * (-17.0 / 315 + z * (62.0 / 2835 +
                  z * (-1382.0 / 155925))))));
  double clamped = std::isgreater(magnitude, 10.0) ? 10.0 : magnitude;
  double far = 1.0 - 2.0 / (exp_wide(2.0 * clamped) + 1.0);
  far = std::isless(wide, 0.0) ? -far : far;
  float value = static_cast<float>(std::isless(magnitude, 0.125) ? series : far);
  return std::isunordered(x, x) ? x : value;
}

// Partial sums in independent lanes (vectorised without reassociating any
// one sum), then combined pairwise.
constexpr std::size_t sum_lanes = 32;
constexpr std::size_t sum_block = 8192;

float sum_block_f32(const float* __restrict in, std::size_t count) {
  float lanes[sum_lanes] = {};
  std::size_t full = count - count % sum_lanes;
  for (std::size_t i = 0; i < full; i += sum_lanes) {
    for (std::size_t j = 0; j < sum_lanes; ++j) lanes[j] += in[i + j];
  }
  for (std::size_t i = full; i < count; ++i) lanes[i - full] += in[i];
  for (std::size_t width = sum_lanes / 2; width > 0; width /= 2) {
    for (std::size_t j = 0; j < width; ++j) lanes[j] += lanes[j + width];
  }
  return lanes[0];
}

// ---- SLEEF ----
#ifdef SHARDLANG_SLEEF_X86
// Full registers in place; the tail by a masked load and store (AVX-512) or
// through a padded copy.
__attribute__((target("avx512f"))) void sleef_avx512(const float* in, float* out, std::size_t count,
                                                     __m512 (*function)(__m512)) {
  std::size_t i = 0;
  for (; i + 16 <= count; i += 16) _mm512_storeu_ps(out + i, function(_mm512_loadu_ps(in + i)));
  if (i == count) return;
  const __mmask16 mask = static_cast<__mmask16>((1u << (count - i)) - 1);
  _mm512_mask_storeu_ps(out + i, mask, function(_mm512_maskz_loadu_ps(mask, in + i)));
}

__attribute__((target("avx2,fma"))) void sleef_avx2(const float* in, float* out, std::size_t count,
                                                    __m256 (*function)(__m256)) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) _mm256_storeu_ps(out + i, function(_mm256_loadu_ps(in + i)));
  if (i == count) return;
  alignas(32) float tail[8] = {};
  std::memcpy(tail, in + i, (count - i) * sizeof(float));
  _mm256_store_ps(tail, function(_mm256_load_ps(tail)));
  std::memcpy(out + i, tail, (count - i) * sizeof(float));
}

void sleef_sse2(const float* in, float* out, std::size_t count, __m128 (*function)(__m128)) {
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4) _mm_storeu_ps(out + i, function(_mm_loadu_ps(in + i)));
  if (i == count) return;
  alignas(16) float tail[4] = {};
  std::memcpy(tail, in + i, (count - i) * sizeof(float));
  _mm_store_ps(tail, function(_mm_load_ps(tail)));
  std::memcpy(out + i, tail, (count - i) * sizeof(float));
}

enum class Width { avx512, avx2, sse2 };

Width host_width() {
  static const Width width = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return Width::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Width::avx2;
    return Width::sse2;
  }();
  return width;
}

#define SHARDLANG_SLEEF_APPLY(name, in, out, count)                                    \
  switch (host_width()) {                                                              \
    case Width::avx512: sleef_avx512(in, out, count, name##16_u10avx512f); break;      \
    case Width::avx2: sleef_avx2(in, out, count, name##8_u10avx2); break;              \
    case Width::sse2: sleef_sse2(in, out, count, name##4_u10sse2); break;              \
  }
#else
#define SHARDLANG_SLEEF_APPLY(name, in, out, count) \
  for (std::size_t i = 0; i < count; ++i) out[i] = name##_u10(in[i]);
#endif

}  // namespace

void sin_f32(const float* in, float* out, std::size_t count) { SHARDLANG_SLEEF_APPLY(Sleef_sinf, in, out, count) }
void cos_f32(const float* in, float* out, std::size_t count) { SHARDLANG_SLEEF_APPLY(Sleef_cosf, in, out, count) }
void exp_f32(const float* in, float* out, std::size_t count) { SHARDLANG_SLEEF_APPLY(Sleef_expf, in, out, count) }
void log_f32(const float* in, float* out, std::size_t count) { SHARDLANG_SLEEF_APPLY(Sleef_logf, in, out, count) }

SHARDLANG_VECTOR_CLONES
void tanh_f32(const float* __restrict in, float* __restrict out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out[i] = tanh_one(in[i]);
}

SHARDLANG_VECTOR_CLONES
float sum_f32(const float* in, std::size_t count) {
  // Pairwise over blocks: log2(count / sum_block) levels, kept on an explicit
  // stack of partial sums (a binary counter) rather than by recursion.
  float partials[64];
  std::size_t levels = 0;
  std::size_t blocks_done = 0;
  for (std::size_t start = 0; start < count; start += sum_block) {
    std::size_t length = count - start < sum_block ? count - start : sum_block;
    float block = sum_block_f32(in + start, length);
    ++blocks_done;
    // Merge equal-sized neighbours, as a carry propagates in a counter.
    for (std::size_t carry = blocks_done; (carry & 1) == 0; carry >>= 1) block = partials[--levels] + block;
    partials[levels++] = block;
  }
  float total = 0.0f;
  while (levels > 0) total = partials[--levels] + total;
  return total;
}

namespace {

// Sixteen floats (or their NaN flags) as one vector of GCC's: each clone
// of a function computes it in its own registers (one zmm, two ymm, four
// xmm), where the compiler would turn an array of sixteen into scalars.
typedef float float_lanes __attribute__((vector_size(64)));
typedef std::int32_t flag_lanes __attribute__((vector_size(64)));

// The max or min of `count` floats in sixteen lanes, then across the lanes
// (max_f32 in vector_math.hpp).
template <bool maximum>
inline float extreme_f32(const float* in, std::size_t count) {
  constexpr std::size_t lanes = 16;
  constexpr float initial = maximum ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  float_lanes best = initial - float_lanes{};
  flag_lanes nan_seen = {};
  std::size_t i = 0;
  for (; i + lanes <= count; i += lanes) {
    float_lanes x;
    std::memcpy(&x, in + i, sizeof x);
    nan_seen |= x != x;
    best = (maximum ? x > best : x < best) ? x : best;
  }
  for (std::size_t lane = 0; i < count; ++i, ++lane) {
    const float x = in[i];
    nan_seen[lane] |= x != x;
    best[lane] = (maximum ? x > best[lane] : x < best[lane]) ? x : best[lane];
  }
  float result = initial;
  for (std::size_t lane = 0; lane < lanes; ++lane) {
    if (nan_seen[lane]) return std::numeric_limits<float>::quiet_NaN();
    result = (maximum ? best[lane] > result : best[lane] < result) ? best[lane] : result;
  }
  // Of the elements equal to the result, a left-to-right pass keeps the
  // first: only a zero's sign can tell, so that one is found again.
  if (result == 0.0f) return *std::find(in, in + count, 0.0f);
  return result;
}

}  // namespace

SHARDLANG_VECTOR_CLONES
float max_f32(const float* in, std::size_t count) { return extreme_f32<true>(in, count); }

SHARDLANG_VECTOR_CLONES
float min_f32(const float* in, std::size_t count) { return extreme_f32<false>(in, count); }

SHARDLANG_VECTOR_CLONES
void add_row_f32(float* __restrict accumulator, const float* __restrict row, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) accumulator[i] += row[i];
}

SHARDLANG_VECTOR_CLONES
void multiply_add_u32(std::uint32_t* __restrict accumulator, std::uint32_t factor, const std::uint32_t* __restrict row,
                      std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) accumulator[i] += factor * row[i];
}

}  // namespace devices
