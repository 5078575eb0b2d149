// The function a transformation returns (jax.grad(f), jax.vmap(f),
// jax.jacfwd(f), ...): it takes any arguments and is named as the function it
// transforms, as JAX's util.wraps names it (`jax.grad(loss).__name__` is
// 'loss', so `jax.jit(jax.grad(loss))` compiles as `jit(loss)`).
#pragma once

#include <functional>

#include "interp/python/value.hpp"

namespace interp {

using WrappedCall = std::function<Value(Evaluator&, CallArgs)>;

// A function named after `wrapped` whose calls run `body` with their
// arguments.
Value wrapping_function(Evaluator& evaluator, const Value& wrapped, WrappedCall body);

}  // namespace interp
