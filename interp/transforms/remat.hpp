// Rematerialization: jax.checkpoint / jax.remat with jax.checkpoint_policies,
// jax.ad_checkpoint.checkpoint_name and print_saved_residuals.
//
// Outside differentiation a checkpointed function runs as written. Called
// in a trace that grad, vjp or jvp differentiates, it records a region
// (trace.hpp's CustomRegion) whose rule, on the way back, recomputes from
// the region's inputs every value of the region the backward walk reads
// and the policy does not save (a policy is a predicate on an equation:
// dots, names given by checkpoint_name, everything, nothing), then walks
// the region backwards on the recomputed values. So under jit the
// recomputation is part of the program, and eagerly it runs again.
//
// print_saved_residuals records the backward pass on stand-ins for the
// forward values and lists the ones it reads, as JAX lists the residuals a
// VJP saves: the arguments, constants, and the outputs of equations (named
// ones by their checkpoint_name), each with where it was computed. The
// residuals are what shardlang's VJP rules read (sin's rule reads its
// operand where JAX's linearization saves a cos).
#pragma once

#include "interp/python/evaluator.hpp"

namespace interp {

// jax.checkpoint, jax.remat, jax.checkpoint_policies and the jax.ad_checkpoint module.
void install_remat(Evaluator& evaluator);

}  // namespace interp
