// Vectorizing map: jax.vmap.
//
// The function is traced once by a JitTrace into a Jaxpr (jaxpr.hpp) on one
// example of each mapped argument (the argument's type without its mapped
// dimension; unmapped arguments are passed as they are, so they stay
// concrete, as in JAX). The Jaxpr is then walked equation by equation: an
// application none of whose operands is mapped is bound again as it is; one
// with a mapped operand goes to the `batch` slot of its entry in the
// primitive table (the rules live in ops/batching*.cpp), which binds the
// batched computation through the current trace, so vmap runs eagerly, is
// recorded under an outer jit, type-checked in check mode, and
// differentiated under grad; grad, jit and vmap nest inside it the same way.
//
// axis_name names the mapped axis for the collectives traced inside
// (lax.psum(x, 'i') ...): Runtime::batch_axes holds the vmaps being traced.
#pragma once

#include "interp/python/evaluator.hpp"

namespace interp {

// jax.vmap in the jax module.
void install_vmap(Evaluator& evaluator);

}  // namespace interp
