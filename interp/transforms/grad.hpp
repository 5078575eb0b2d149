// Reverse-mode differentiation: jax.grad and jax.value_and_grad.
//
// The function is traced by a JitTrace into a Jaxpr (program.hpp) with the
// leaves of the differentiated arguments as program inputs; the Jaxpr is
// then replayed equation by equation through bind() (so under an outer jit
// the forward and backward passes are recorded into the outer program, in
// check mode they are type-checked, and eagerly they run), and walked
// backwards applying each primitive's VJP rule. Control flow (fori_loop,
// scan, ...) is unrolled into primitives by tracing, so it differentiates
// like straight-line code.
//
// The VJP rules live in grad.cpp, in a table keyed by primitive name, not in
// the `vjp` slot of primitives.cpp's table: several engineers edit that
// table at once, and the rules need more than the slot's signature (the
// primal result, which operands need a cotangent).
//
// Cotangents carry the primal's sharding: a gradient is resharded to its
// argument's layout; in Explicit mode the transposed contractions take
// out_sharding from the primal operand.
#pragma once

#include "interp/python/evaluator.hpp"

namespace interp {

// jax.grad and jax.value_and_grad in the jax module.
void install_grad(Evaluator& evaluator);

}  // namespace interp
