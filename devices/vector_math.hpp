// Vectorised float32 loops for the kernels (runtime.md "Executing": vectorised
// loops for elementwise work). The transcendental functions are branch-free
// polynomial approximations the compiler turns into SIMD code (a libm call
// per element cannot be vectorised): each float is widened to double, reduced
// and evaluated there, and rounded once, so results stay within 1 ulp of the
// correctly rounded float32 value (tests/unit/devices/vector_math_test.cpp
// measures it). On x86-64 with GCC each loop is compiled for AVX-512, AVX2+FMA
// and the baseline, and the loader picks the best one the host supports.
//
// All take `count` contiguous elements; `out` must not overlap `in`.
#pragma once

#include <cstddef>

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
// accumulator[j] += row[j] for j < count (a reduction over a leading axis).
void add_row_f32(float* accumulator, const float* row, std::size_t count);

}  // namespace devices
