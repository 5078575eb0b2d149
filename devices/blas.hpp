// OpenBLAS as the kernels use it (runtime.md "Executing"): the sgemm of the
// dot_general kernel. Set up once per process:
// - The kernel for the host's instruction set. Debian's OpenBLAS picks its
//   core type at load time, from OPENBLAS_CORETYPE when that is set, else
//   from the CPU model; on CPUs it does not know, or with OPENBLAS_CORETYPE
//   naming an older core, it runs an older kernel (the SSE3 "Prescott" one
//   takes 5x the time of the AVX-512 one on a Zen 4). When the core it chose
//   uses fewer vector instructions than the host has, shardlang re-selects
//   the matching core (SkylakeX family for AVX-512, Haswell for AVX2+FMA)
//   while the process starts (static initialisation: one thread, no BLAS
//   call yet).
// - One BLAS thread: the thread pool runs one kernel per device, and BLAS
//   threads on top of it would oversubscribe the host. The shardlang
//   executable also keeps OpenBLAS from starting its worker threads while it
//   loads (before_openblas_loads): a process that has never started a thread
//   counts std::shared_ptr references without atomic instructions, which
//   makes the host language's every value copy cheaper.
#pragma once

#include <cstdint>
#include <string>

namespace devices::blas {

// Run before any shared library initialises (an executable's
// .preinit_array, repl/main.cpp): OpenBLAS, initialising, starts a worker
// thread per core unless its thread count is 1 by then; sets it to 1.
void before_openblas_loads();

// The OpenBLAS core type sgemm runs ("SkylakeX", "Haswell", ...).
std::string kernel_name();

// Whether sgemm sums every element of a product in an order fixed by the
// contracted extent alone (not by the call's other extents nor by the
// element's place in the call), for calls of more than small_product_limit
// multiply-adds. True of OpenBLAS's SkylakeX-family sgemm (one accumulator
// per element, k split in blocks that depend on k only); its other kernels
// handle the edges of a call in another order. dot_general merges tiles
// into one call only when this holds (tests/unit/devices checks it).
bool order_fixed_by_depth();

// OpenBLAS computes products of at most this many multiply-adds (m * n * k)
// with its small-matrix kernels, in another order than its blocked ones.
inline constexpr double small_product_limit = 1e6;

}  // namespace devices::blas
