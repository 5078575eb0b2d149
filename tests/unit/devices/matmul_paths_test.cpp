// dot_general's fast paths: OpenBLAS on the host's vector kernel, tiles a
// shard holds whole merged into one sgemm, bf16 on the bf16 dot-product
// units, integer products accumulated in 32 bits. Each is checked against
// the path it replaces: bit for bit where the summation order is the same,
// against exact sums otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "devices/blas.hpp"
#include "devices/half_float.hpp"
#include "devices/kernels.hpp"
#include "devices/kernels/bf16_matmul.hpp"
#include "devices/memory.hpp"

namespace devices {
namespace {

using typecheck::DType;

std::shared_ptr<MemoryLedger> ledger() {
  static std::shared_ptr<MemoryLedger> shared = std::make_shared<MemoryLedger>(
      std::vector<MemoryLedger::DeviceMemory>{{"CPU 0", std::nullopt}}, std::int64_t{1} << 34);
  return shared;
}

// Pseudo-random values in [-0.5, 0.5): the summation order shows in the last bits.
std::vector<float> pseudo_random(std::int64_t count, std::uint32_t seed) {
  std::vector<float> values;
  for (std::int64_t i = 0; i < count; ++i) {
    seed = seed * 1664525u + 1013904223u;
    values.push_back(static_cast<float>(static_cast<double>(seed >> 8) / (1 << 24) - 0.5));
  }
  return values;
}

LocalArray f32_matrix(std::int64_t rows, std::int64_t columns, const std::vector<float>& values) {
  LocalArray made = make_local_array(ledger(), DType::float32, {rows, columns}).value();
  std::copy(values.begin(), values.end(), made.buffer->elements<DType::float32>().begin());
  return made;
}

LocalArray bf16_matrix(std::int64_t rows, std::int64_t columns, const std::vector<float>& values) {
  LocalArray made = make_local_array(ledger(), DType::bfloat16, {rows, columns}).value();
  auto out = made.buffer->elements<DType::bfloat16>();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = bfloat16_from_float(values[i]);
  return made;
}

std::vector<float> f32_values(const LocalArray& array) {
  auto elements = array.buffer->elements<DType::float32>();
  return {elements.begin(), elements.end()};
}

// The rows [row0, row0 + rows) and columns [column0, column0 + columns) of a
// row-major matrix with `stride` columns.
std::vector<float> block(const std::vector<float>& whole, std::int64_t stride, std::int64_t row0, std::int64_t rows,
                         std::int64_t column0, std::int64_t columns) {
  std::vector<float> out;
  for (std::int64_t i = row0; i < row0 + rows; ++i)
    for (std::int64_t j = column0; j < column0 + columns; ++j) out.push_back(whole[static_cast<std::size_t>(i * stride + j)]);
  return out;
}

const DotDimensions matmul{{}, {}, {1}, {0}};

TEST(MatmulPaths, BlasRunsTheKernelOfTheHostsVectorUnits) {
  // Whatever OPENBLAS_CORETYPE says, an AVX-512 host runs the SkylakeX family.
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  if (!avx512) GTEST_SKIP() << "host without AVX-512; OpenBLAS runs " << blas::kernel_name();
  EXPECT_TRUE(blas::kernel_name() == "SkylakeX" || blas::kernel_name() == "Cooperlake") << blas::kernel_name();
  EXPECT_TRUE(blas::order_fixed_by_depth());
}

// Shards that hold whole tiles (one sgemm for the run where the kernel allows
// it) and shards that hold parts of tiles equal the whole product bit for
// bit: depths within one OpenBLAS block and over several, and an edge tile
// small enough for OpenBLAS's small-matrix kernel at the smallest depth.
TEST(MatmulPaths, ShardsOfWholeTilesEqualTheWholeProductBitForBit) {
  const std::int64_t rows = 4 * dot_tile_extent + 40, columns = 2 * dot_tile_extent + 20;
  for (std::int64_t depth : {12, 300, 1000}) {
    std::vector<float> a = pseudo_random(rows * depth, 1), b = pseudo_random(depth * columns, 2);
    std::vector<float> whole = f32_values(dot_general(f32_matrix(rows, depth, a), f32_matrix(depth, columns, b), matmul).value());
    // Rows: two whole tiles, then two whole tiles and the edge tile; or a
    // split inside tiles. Columns: the first tile whole, then the rest.
    const std::vector<std::pair<std::int64_t, std::int64_t>> row_splits = {
        {0, 2 * dot_tile_extent}, {2 * dot_tile_extent, rows - 2 * dot_tile_extent}, {100, 3 * dot_tile_extent}};
    const std::vector<std::pair<std::int64_t, std::int64_t>> column_splits = {
        {0, dot_tile_extent}, {dot_tile_extent, columns - dot_tile_extent}, {0, columns}};
    for (auto [row0, shard_rows] : row_splits) {
      for (auto [column0, shard_columns] : column_splits) {
        std::vector<float> b_shard = block(b, columns, 0, depth, column0, shard_columns);
        DotDimensions placed = matmul;
        placed.placement = DotPlacement{row0, rows, column0, columns};
        LocalArray product = dot_general(f32_matrix(shard_rows, depth, block(a, depth, row0, shard_rows, 0, depth)),
                                         f32_matrix(depth, shard_columns, b_shard), placed).value();
        EXPECT_EQ(f32_values(product), block(whole, columns, row0, shard_rows, column0, shard_columns))
            << "depth " << depth << ", rows from " << row0 << ", columns from " << column0;
      }
    }
  }
}

LocalArray f32_array(Shape shape, const std::vector<float>& values) {
  LocalArray made = make_local_array(ledger(), DType::float32, std::move(shape)).value();
  std::copy(values.begin(), values.end(), made.buffer->elements<DType::float32>().begin());
  return made;
}

// Operands whose axes of extent 1 alone lie out of the product's order (a
// device's shard of attention's products: batch [b, kv_head], one key head
// per device) are read in place, as the same operands without those axes
// are: the same sgemm calls, the same bits. An operand that is transposed
// besides is gathered, as the whole operand (longer axes) is: the rhs
// [b, s, kv, h] gives the bits of the rhs stored [b, h, kv, s].
TEST(MatmulPaths, AxesOfExtentOneLeaveOperandsInPlace) {
  const std::int64_t batch = 2, groups = 3, depth = 5, keys = 4;
  const std::vector<float> q = pseudo_random(batch * groups * depth, 3), k = pseudo_random(batch * keys * depth, 4);
  std::vector<float> k_by_depth(k.size());
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t s = 0; s < keys; ++s)
      for (std::int64_t h = 0; h < depth; ++h)
        k_by_depth[static_cast<std::size_t>((b * depth + h) * keys + s)] = k[static_cast<std::size_t>((b * keys + s) * depth + h)];
  // q [b, t=1, kv=1, g, h] . k [b, h, kv=1, s] over h, batch (b, kv): [b, kv, t, g, s].
  const DotDimensions depth_first{{0, 2}, {0, 2}, {4}, {1}};
  const std::vector<float> with_unit_axes =
      f32_values(dot_general(f32_array({batch, 1, 1, groups, depth}, q), f32_array({batch, depth, 1, keys}, k_by_depth),
                             depth_first).value());
  // q [b, g, h] . k [b, h, s]: both in place before, as now.
  const DotDimensions squeezed{{0}, {0}, {2}, {1}};
  EXPECT_EQ(with_unit_axes, f32_values(dot_general(f32_array({batch, groups, depth}, q),
                                                   f32_array({batch, depth, keys}, k_by_depth), squeezed).value()));
  // k [b, s, kv=1, h]: transposed, gathered into [b, h, s].
  const DotDimensions keys_first{{0, 2}, {0, 2}, {4}, {3}};
  EXPECT_EQ(with_unit_axes, f32_values(dot_general(f32_array({batch, 1, 1, groups, depth}, q),
                                                   f32_array({batch, keys, 1, depth}, k), keys_first).value()));
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t g = 0; g < groups; ++g)
      for (std::int64_t s = 0; s < keys; ++s) {
        double sum = 0;
        for (std::int64_t h = 0; h < depth; ++h)
          sum += static_cast<double>(q[static_cast<std::size_t>((b * groups + g) * depth + h)]) *
                 k[static_cast<std::size_t>((b * keys + s) * depth + h)];
        EXPECT_NEAR(with_unit_axes[static_cast<std::size_t>((b * groups + g) * keys + s)], sum, 1e-6);
      }
}

// bf16 products: f32 sums of exact products, on the bf16 units where the
// host has them (else through f32 and sgemm); either way a shard equals the
// whole bit for bit, and the values are those sums rounded once.
TEST(MatmulPaths, Bf16ProductsAreF32SumsAndShardsEqualTheWhole) {
  const std::int64_t rows = 70, depth = 333, columns = 90;  // odd depth: a lone last k
  std::vector<float> a = pseudo_random(rows * depth, 3), b = pseudo_random(depth * columns, 4);
  LocalArray lhs = bf16_matrix(rows, depth, a), rhs = bf16_matrix(depth, columns, b);
  DotDimensions to_f32 = matmul;
  to_f32.result_dtype = DType::float32;
  std::vector<float> whole = f32_values(dot_general(lhs, rhs, to_f32).value());
  auto bf16 = [](float x) { return static_cast<double>(float_from_bfloat16(bfloat16_from_float(x))); };
  double worst = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < columns; ++j) {
      double exact = 0;
      for (std::int64_t p = 0; p < depth; ++p)
        exact += bf16(a[static_cast<std::size_t>(i * depth + p)]) * bf16(b[static_cast<std::size_t>(p * columns + j)]);
      worst = std::max(worst, std::fabs(exact - whole[static_cast<std::size_t>(i * columns + j)]));
    }
  }
  EXPECT_LT(worst, 1e-5);  // f32 accumulation of 333 products of magnitude < 0.25
  // Rows 20..70 by columns 30..90, and the lhs stored transposed.
  std::vector<float> a_rows = block(a, depth, 20, 50, 0, depth), a_transposed;
  for (std::int64_t p = 0; p < depth; ++p)
    for (std::int64_t i = 0; i < 50; ++i) a_transposed.push_back(a_rows[static_cast<std::size_t>(i * depth + p)]);
  LocalArray rhs_shard = bf16_matrix(depth, 60, block(b, columns, 0, depth, 30, 60));
  DotDimensions placed = to_f32;
  placed.placement = DotPlacement{20, rows, 30, columns};
  EXPECT_EQ(f32_values(dot_general(bf16_matrix(50, depth, a_rows), rhs_shard, placed).value()),
            block(whole, columns, 20, 50, 30, 60));
  DotDimensions transposed = placed;
  transposed.lhs_contracting = {0};
  EXPECT_EQ(f32_values(dot_general(bf16_matrix(depth, 50, a_transposed), rhs_shard, transposed).value()),
            block(whole, columns, 20, 50, 30, 60));
}

TEST(MatmulPaths, Bf16UnitsHandleEdgesAndSpecialValues) {
  if (!kernel_support::has_bf16_dot_units()) GTEST_SKIP() << "host without AVX512-BF16";
  // 1 x 3 by 3 x 1 and 13 x 1 by 1 x 33: edges of every register tile.
  std::vector<std::uint16_t> a = {bfloat16_from_float(1), bfloat16_from_float(2), bfloat16_from_float(3)};
  std::vector<std::uint16_t> b = {bfloat16_from_float(4), bfloat16_from_float(5), bfloat16_from_float(6)};
  float c = -1;
  kernel_support::bf16_matmul({a.data(), 3, false}, {b.data(), 1, false}, 1, 1, 3, &c, 1);
  EXPECT_EQ(c, 32.0f);
  std::vector<std::uint16_t> column(13), row(33);
  for (std::size_t i = 0; i < column.size(); ++i) column[i] = bfloat16_from_float(static_cast<float>(i));
  for (std::size_t j = 0; j < row.size(); ++j) row[j] = bfloat16_from_float(static_cast<float>(j) - 16);
  std::vector<float> outer(13 * 33, -1);
  kernel_support::bf16_matmul({column.data(), 1, false}, {row.data(), 33, false}, 13, 33, 1, outer.data(), 33);
  for (std::size_t i = 0; i < 13; ++i)
    for (std::size_t j = 0; j < 33; ++j) ASSERT_EQ(outer[i * 33 + j], static_cast<float>(i) * (static_cast<float>(j) - 16));
  std::vector<std::uint16_t> special = {bfloat16_from_float(INFINITY), bfloat16_from_float(1)};
  std::vector<std::uint16_t> ones = {bfloat16_from_float(1), bfloat16_from_float(NAN)};
  kernel_support::bf16_matmul({special.data(), 2, false}, {ones.data(), 1, false}, 1, 1, 2, &c, 1);
  EXPECT_TRUE(std::isnan(c));
  kernel_support::bf16_matmul({special.data(), 2, false}, {ones.data(), 1, false}, 1, 1, 1, &c, 1);
  EXPECT_EQ(c, INFINITY);
}

// int8 products accumulate in 32 bits: the exact sums, wrapped into int8 or
// kept in int32, as the 64-bit loop gave them.
TEST(MatmulPaths, Int8ProductsSumExactlyIn32Bits) {
  const std::int64_t rows = 9, depth = 1000, columns = 37;
  auto int8_matrix = [](std::int64_t r, std::int64_t c, int seed) {
    LocalArray made = make_local_array(ledger(), DType::int8, {r, c}).value();
    auto out = made.buffer->elements<DType::int8>();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::int8_t>((static_cast<int>(i) * seed) % 256 - 128);
    return made;
  };
  LocalArray a = int8_matrix(rows, depth, 37), b = int8_matrix(depth, columns, 101);
  DotDimensions to_int32 = matmul;
  to_int32.result_dtype = DType::int32;
  DotDimensions to_f32 = matmul;
  to_f32.result_dtype = DType::float32;
  LocalArray wide = dot_general(a, b, to_int32).value();
  LocalArray wrapped = dot_general(a, b, matmul).value();
  LocalArray floats = dot_general(a, b, to_f32).value();
  auto x = a.buffer->elements<DType::int8>(), y = b.buffer->elements<DType::int8>();
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < columns; ++j) {
      std::int64_t exact = 0;
      for (std::int64_t p = 0; p < depth; ++p)
        exact += std::int64_t{x[static_cast<std::size_t>(i * depth + p)]} * y[static_cast<std::size_t>(p * columns + j)];
      auto at = static_cast<std::size_t>(i * columns + j);
      ASSERT_EQ(wide.buffer->elements<DType::int32>()[at], exact);
      ASSERT_EQ(wrapped.buffer->elements<DType::int8>()[at], static_cast<std::int8_t>(exact));
      ASSERT_EQ(floats.buffer->elements<DType::float32>()[at], static_cast<float>(exact));
    }
  }
}

}  // namespace
}  // namespace devices
