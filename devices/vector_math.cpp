#include "devices/vector_math.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

// Each hot loop is cloned per instruction set and picked by the loader
// (GCC's target_clones; other compilers build the baseline only).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SHARDLANG_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SHARDLANG_VECTOR_CLONES
#endif

namespace devices {
namespace {

// Adding 1.5 * 2^52 to a double of magnitude below 2^51 rounds it to an
// integer k (round to nearest even) and leaves k in the low mantissa bits.
constexpr double round_magic = 0x1.8p52;

// `condition ? a : b` by a bit mask. Where one side makes the other's
// computation unused, the compiler would turn a plain select into a branch
// around that computation, and the loop would no longer vectorise.
inline float select(bool condition, float a, float b) {
  std::uint32_t mask = 0u - static_cast<std::uint32_t>(condition);
  return std::bit_cast<float>((std::bit_cast<std::uint32_t>(a) & mask) | (std::bit_cast<std::uint32_t>(b) & ~mask));
}

// ---- sin and cos ----
// x = k * pi/2 + r with |r| <= pi/4, in double: pi/2 is split so that
// k * pio2_high is exact for k < 2^20; larger |x| goes to libm.
constexpr double two_over_pi = 0.636619772367581343076;
constexpr double pio2_high = 0x1.921fb544p0;            // 33 bits of pi/2
constexpr double pio2_low = 0x1.0b4611a626331p-34;      // the rest
constexpr float trig_vector_limit = 1.5e6f;             // k stays below 2^20

// sin(r) and cos(r) for |r| <= pi/4 by FreeBSD's __kernel_sindf and
// __kernel_cosdf minimax polynomials (|error| < 2^-37 and 2^-34, far below
// half a float32 ulp), in one Horner evaluation whose coefficients each lane
// picks: sin r = r * S(r^2), cos r = C(r^2).
constexpr double sin_coefficients[] = {1.0, -0x15555554cbac77.0p-55, 0x111110896efbb2.0p-59, -0x1a00f9e2cae774.0p-65,
                                       0x16cd878c3b46a7.0p-71};
constexpr double cos_coefficients[] = {1.0, -0x1ffffffd0c5e81.0p-54, 0x155553e1053a42.0p-57, -0x16c087e80f1e27.0p-62,
                                       0x199342e0ee5069.0p-68};

// sin(x), or cos(x) = sin(x + pi/2): one quadrant further.
template <bool cosine>
inline float sin_quadrant(float x) {
  constexpr std::uint64_t quadrant_shift = cosine ? 1 : 0;
  double wide = x;
  double t = wide * two_over_pi + round_magic;
  std::uint64_t quadrant = std::bit_cast<std::uint64_t>(t) + quadrant_shift;
  double k = t - round_magic;
  double r = (wide - k * pio2_high) - k * pio2_low;
  double z = r * r;
  bool use_cos = (quadrant & 1) != 0;
  double polynomial = use_cos ? cos_coefficients[4] : sin_coefficients[4];
  for (int i = 3; i >= 0; --i) polynomial = polynomial * z + (use_cos ? cos_coefficients[i] : sin_coefficients[i]);
  double value = polynomial * (use_cos ? 1.0 : r);
  float result = static_cast<float>((quadrant & 2) ? -value : value);
  if constexpr (cosine) return result;
  // sin x rounds to x below 2^-12; returning x keeps the sign of -0.
  return select(std::isless(std::fabs(x), 0x1p-12f), x, result);
}

// Elements too large for the vector reduction (and inf, NaN): libm in double.
template <class Function>
void fix_large_arguments(const float* __restrict in, float* __restrict out, std::size_t count, Function libm) {
  for (std::size_t i = 0; i < count; ++i) {
    if (!(std::fabs(in[i]) < trig_vector_limit)) out[i] = static_cast<float>(libm(static_cast<double>(in[i])));
  }
}

// ---- exp ----
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

inline float exp_one(float x) {
  float value = static_cast<float>(exp_wide(x));
  value = select(std::isgreater(x, 89.0f), std::numeric_limits<float>::infinity(), value);
  value = select(std::isless(x, -104.0f), 0.0f, value);
  return select(std::isunordered(x, x), x, value);
}

// ---- log ----
// x = 2^e * m with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(f), f = (m-1)/(m+1),
// |f| <= 0.172, by its series to f^11 (relative error < 1e-10).
inline float log_one(float x) {
  bool subnormal = std::isless(x, std::numeric_limits<float>::min());
  float normal = subnormal ? x * 0x1p23f : x;
  std::uint32_t bits = std::bit_cast<std::uint32_t>(normal);
  std::int32_t exponent = static_cast<std::int32_t>((bits >> 23) & 0xff) - 127 - (subnormal ? 23 : 0);
  float mantissa = std::bit_cast<float>((bits & 0x7fffffu) | 0x3f800000u);  // [1, 2)
  bool halve = std::isgreater(mantissa, 1.41421356f);
  double m = halve ? 0.5 * mantissa : static_cast<double>(mantissa);
  exponent += halve ? 1 : 0;
  double f = (m - 1.0) / (m + 1.0);
  double f2 = f * f;
  double series = 1.0 + f2 * (1.0 / 3 + f2 * (1.0 / 5 + f2 * (1.0 / 7 + f2 * (1.0 / 9 + f2 * (1.0 / 11)))));
  float value = static_cast<float>(exponent * ln_2 + 2.0 * f * series);
  value = std::islessequal(x, 0.0f) && std::isgreaterequal(x, 0.0f) ? -std::numeric_limits<float>::infinity() : value;
  value = std::isgreater(x, std::numeric_limits<float>::max()) ? x : value;
  return (std::isless(x, 0.0f) || std::isunordered(x, x)) ? std::numeric_limits<float>::quiet_NaN() : value;
}

// ---- tanh ----
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

}  // namespace

SHARDLANG_VECTOR_CLONES
void sin_f32(const float* __restrict in, float* __restrict out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out[i] = sin_quadrant<false>(in[i]);
  fix_large_arguments(in, out, count, [](double x) { return std::sin(x); });
}

SHARDLANG_VECTOR_CLONES
void cos_f32(const float* __restrict in, float* __restrict out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out[i] = sin_quadrant<true>(in[i]);
  fix_large_arguments(in, out, count, [](double x) { return std::cos(x); });
}

SHARDLANG_VECTOR_CLONES
void exp_f32(const float* __restrict in, float* __restrict out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out[i] = exp_one(in[i]);
}

SHARDLANG_VECTOR_CLONES
void log_f32(const float* __restrict in, float* __restrict out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out[i] = log_one(in[i]);
}

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

SHARDLANG_VECTOR_CLONES
void add_row_f32(float* __restrict accumulator, const float* __restrict row, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) accumulator[i] += row[i];
}

}  // namespace devices
