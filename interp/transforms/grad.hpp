// Reverse-mode differentiation: jax.grad and jax.value_and_grad.
//
// The function is traced by a JitTrace into a Jaxpr (jaxpr.hpp) with the
// leaves of the differentiated arguments as program inputs; the Jaxpr is
// then replayed equation by equation through bind() (so under an outer jit
// the forward and backward passes are recorded into the outer program, in
// check mode they are type-checked, and eagerly they run), and walked
// backwards applying each primitive's VJP rule, the `vjp` slot of its
// entry in the primitive table (the rules live with their families in
// ops/*_vjp.cpp). Control flow (fori_loop, scan, ...) is unrolled into
// primitives by tracing, so it differentiates like straight-line code.
//
// Cotangents carry the primal's sharding: a gradient is resharded to its
// argument's layout; in Explicit mode the transposed contractions take
// out_sharding from the primal operand.
#pragma once

#include "interp/python/evaluator.hpp"

namespace interp {

// jax.grad, jax.value_and_grad and jax.vjp in the jax module.
void install_grad(Evaluator& evaluator);
// jax.linear_transpose (linear_transpose.cpp), installed by install_grad.
void install_linear_transpose(Evaluator& evaluator);

}  // namespace interp
