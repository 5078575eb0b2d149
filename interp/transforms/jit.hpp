// jax.jit (runtime.md "Executing"): a function traced once per input
// signature into a Jaxpr by a JitTrace, compiled, cached, and run.
//
// The cache key is the argument tree's structure, each array leaf's type
// (dtype, shape, sharding, weak type), layout and committed-ness, and the
// static arguments' reprs: a second call with the same key runs the cached
// executable without running the Python body (so a print inside prints at
// trace time only). Python scalars are weak-typed array inputs. Inside
// another jit, or in check mode, a jitted function is called inline.
#pragma once

#include "interp/python/evaluator.hpp"

namespace interp {

// jax.jit and its Lowered/Compiled objects in the jax module, with the
// shard_map and control-flow members that jit programs trace.
void install_jit(Evaluator& evaluator);

}  // namespace interp
