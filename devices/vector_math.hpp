// Vectorised float32 loops for the kernels (runtime.md "Executing": vectorised
// loops for elementwise work), all within 1 ulp of the correctly rounded
// float32 value (tests/unit/devices/vector_math_test.cpp measures it):
// - sin, cos, exp and log are SLEEF's (its 1-ulp functions, for the widest
//   vector unit the host has: AVX-512, AVX2+FMA or SSE2);
// - tanh is a branch-free polynomial of our own the compiler turns into SIMD
//   code (faster than SLEEF's here): each float is widened to double,
//   reduced and evaluated there, and rounded once;
// - on x86-64 with GCC each of our loops is compiled for AVX-512, AVX2+FMA
//   and the baseline, and the loader picks the best one the host supports.
//
// All take `count` contiguous elements; `out` must not overlap `in`.
#pragma once

#include <cstddef>
#include <cstdint>

// Each hot loop of our own is cloned per instruction set and picked by the
// loader (GCC's target_clones; other compilers build the baseline only).
// ThreadSanitizer builds take the baseline too: the loader runs the clones'
// resolvers before TSan's runtime starts, and TSan's instrumentation of them
// crashed every program at load.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define SHARDLANG_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SHARDLANG_VECTOR_CLONES
#endif

namespace devices {

void sin_f32(const float* in, float* out, std::size_t count);
void cos_f32(const float* in, float* out, std::size_t count);
void exp_f32(const float* in, float* out, std::size_t count);
void log_f32(const float* in, float* out, std::size_t count);
void tanh_f32(const float* in, float* out, std::size_t count);

// The sum of `count` floats accumulated in f32 in a blocked order (several
// independent partial sums, then pairwise), as XLA's CPU reduction does: the
// rounding error grows far slower than a left-to-right sum's.
float sum_f32(const float* in, std::size_t count);
// The max or min of `count` floats by float_max's rule (kernels.hpp: NaN if
// any is NaN; -inf or inf when count is 0), equal bit for bit to a
// left-to-right pass (of equal elements, the first: a zero's sign).
float max_f32(const float* in, std::size_t count);
float min_f32(const float* in, std::size_t count);
// accumulator[j] += row[j] for j < count (a reduction over a leading axis).
void add_row_f32(float* accumulator, const float* row, std::size_t count);
// accumulator[j] += factor * row[j] mod 2^32 for j < count (a row of an
// integer matrix product).
void multiply_add_u32(std::uint32_t* accumulator, std::uint32_t factor, const std::uint32_t* row, std::size_t count);

}  // namespace devices
