// Matrix products of bf16 operands on the CPU's bf16 dot-product units
// (AVX512-BF16's vdpbf16ps), accumulated in f32 as the TPU's MXU does; the
// dot_general kernel uses it where the host has them. Inside devices/kernels/.
#pragma once

#include <cstdint>

namespace devices::kernel_support {

// Whether this host has the bf16 dot-product instructions.
bool has_bf16_dot_units();

// A row-major bf16 matrix operand as stored: element (i, p) of the logical
// matrix at data[i * stride + p], or at data[p * stride + i] when transposed.
struct Bf16Matrix {
  const std::uint16_t* data;
  std::int64_t stride;
  bool transposed;
};

// c[i, j] (row-major, ldc apart) = sum over p of a[i, p] * b[p, j] for
// a: m x k, b: k x n, in f32. Each element takes k two at a time in
// increasing order, each pair of products added to the running f32 sum by
// one vdpbf16ps (bf16 products are exact in f32; subnormal bf16 inputs and
// results count as zero, as on the MXU). That order depends on k alone, so a
// shard's product equals the whole product's elements bit for bit. Needs
// has_bf16_dot_units().
void bf16_matmul(Bf16Matrix a, Bf16Matrix b, std::int64_t m, std::int64_t n, std::int64_t k, float* c,
                 std::int64_t ldc);

}  // namespace devices::kernel_support
