#include "devices/kernels/bf16_matmul.hpp"

#include <algorithm>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define SHARDLANG_BF16_UNITS 1
#endif

namespace devices::kernel_support {

#ifdef SHARDLANG_BF16_UNITS

namespace {

// The register tile: rows x (2 x 16) columns of f32 sums, 24 of the 32
// vector registers; k is taken in pairs (one 32-bit word of two bf16).
constexpr int tile_rows = 12;
constexpr int tile_columns = 32;
// Pairs of k per block: a packed panel of b (block_pairs x tile_columns
// pairs) stays in L1 next to a's panel; the packed block of b, in L2.
constexpr std::int64_t block_pairs = 128;
constexpr std::int64_t block_columns = 1024;

std::uint16_t element(const Bf16Matrix& matrix, std::int64_t i, std::int64_t p) {
  return matrix.transposed ? matrix.data[p * matrix.stride + i] : matrix.data[i * matrix.stride + p];
}

// Packs rows [row0, row0 + rows) of a (m x k) over pairs [pair0, pair0 +
// pairs) as [pair][tile_rows][2]; missing rows and the odd k's partner are 0.
void pack_a(const Bf16Matrix& a, std::int64_t row0, int rows, std::int64_t pair0, std::int64_t pairs, std::int64_t k,
            std::uint16_t* out) {
  for (std::int64_t q = 0; q < pairs; ++q) {
    const std::int64_t p = 2 * (pair0 + q);
    for (int r = 0; r < tile_rows; ++r, out += 2) {
      out[0] = r < rows ? element(a, row0 + r, p) : 0;
      out[1] = r < rows && p + 1 < k ? element(a, row0 + r, p + 1) : 0;
    }
  }
}

// Packs columns [column0, column0 + columns) of b (k x n) over the pairs as
// panels of tile_columns, each [pair][tile_columns][2]; missing ones are 0.
void pack_b(const Bf16Matrix& b, std::int64_t column0, std::int64_t columns, std::int64_t pair0, std::int64_t pairs,
            std::int64_t k, std::uint16_t* out) {
  for (std::int64_t panel = 0; panel < columns; panel += tile_columns) {
    for (std::int64_t q = 0; q < pairs; ++q) {
      const std::int64_t p = 2 * (pair0 + q);
      for (int j = 0; j < tile_columns; ++j, out += 2) {
        const std::int64_t column = column0 + panel + j;
        const bool present = panel + j < columns;
        out[0] = present ? element(b, p, column) : 0;
        out[1] = present && p + 1 < k ? element(b, p + 1, column) : 0;
      }
    }
  }
}

// c's tile (rows x columns of it real) += a's panel x b's panel over `pairs`;
// `first` starts the sums at zero instead of c.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void tile_product(
    const std::uint16_t* a, const std::uint16_t* b, std::int64_t pairs, float* c, std::int64_t ldc, int rows,
    int columns, bool first) {
  const __mmask16 low = static_cast<__mmask16>(columns >= 16 ? 0xffff : (1u << columns) - 1);
  const __mmask16 high = static_cast<__mmask16>(columns >= 32 ? 0xffff : columns <= 16 ? 0 : (1u << (columns - 16)) - 1);
  __m512 sum[tile_rows][2];
#pragma GCC unroll 12
  for (int r = 0; r < tile_rows; ++r) {
    const bool load = !first && r < rows;
    sum[r][0] = load ? _mm512_maskz_loadu_ps(low, c + r * ldc) : _mm512_setzero_ps();
    sum[r][1] = load ? _mm512_maskz_loadu_ps(high, c + r * ldc + 16) : _mm512_setzero_ps();
  }
  for (std::int64_t q = 0; q < pairs; ++q) {
    const __m512bh b0 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(b + q * 2 * tile_columns));
    const __m512bh b1 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(b + q * 2 * tile_columns + 32));
    const std::uint16_t* pair = a + q * 2 * tile_rows;
#pragma GCC unroll 12
    for (int r = 0; r < tile_rows; ++r) {
      std::int32_t word;
      __builtin_memcpy(&word, pair + 2 * r, sizeof word);
      const __m512bh broadcast = reinterpret_cast<__m512bh>(_mm512_set1_epi32(word));
      sum[r][0] = _mm512_dpbf16_ps(sum[r][0], broadcast, b0);
      sum[r][1] = _mm512_dpbf16_ps(sum[r][1], broadcast, b1);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < tile_rows; ++r) {
    if (r >= rows) break;
    _mm512_mask_storeu_ps(c + r * ldc, low, sum[r][0]);
    _mm512_mask_storeu_ps(c + r * ldc + 16, high, sum[r][1]);
  }
}

}  // namespace

bool has_bf16_dot_units() {
  static const bool units = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bf16");
  }();
  return units;
}

void bf16_matmul(Bf16Matrix a, Bf16Matrix b, std::int64_t m, std::int64_t n, std::int64_t k, float* c,
                 std::int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (std::int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  const std::int64_t pairs = (k + 1) / 2;
  std::vector<std::uint16_t> packed_b(static_cast<std::size_t>(
      2 * block_pairs * ((std::min(n, block_columns) + tile_columns - 1) / tile_columns * tile_columns)));
  std::vector<std::uint16_t> packed_a(static_cast<std::size_t>(2 * block_pairs * tile_rows));
  for (std::int64_t pair0 = 0; pair0 < pairs; pair0 += block_pairs) {
    const std::int64_t block = std::min(block_pairs, pairs - pair0);
    for (std::int64_t column0 = 0; column0 < n; column0 += block_columns) {
      const std::int64_t columns = std::min(block_columns, n - column0);
      pack_b(b, column0, columns, pair0, block, k, packed_b.data());
      for (std::int64_t row0 = 0; row0 < m; row0 += tile_rows) {
        const int rows = static_cast<int>(std::min<std::int64_t>(tile_rows, m - row0));
        pack_a(a, row0, rows, pair0, block, k, packed_a.data());
        for (std::int64_t panel = 0; panel < columns; panel += tile_columns) {
          tile_product(packed_a.data(), packed_b.data() + panel * 2 * block, block, c + row0 * ldc + column0 + panel,
                       ldc, rows, static_cast<int>(std::min<std::int64_t>(tile_columns, columns - panel)), pair0 == 0);
        }
      }
    }
  }
}

#else

bool has_bf16_dot_units() { return false; }

void bf16_matmul(Bf16Matrix, Bf16Matrix, std::int64_t, std::int64_t, std::int64_t, float*, std::int64_t) {}

#endif

}  // namespace devices::kernel_support
