// Forward mode: jax.jvp, jax.linearize, jax.jacfwd, jax.jacrev and
// jax.hessian.
//
// A JVP is the transpose of the VJP: the function is traced at its primals
// and replayed forward (reverse_mode.hpp), its pullback (the output
// cotangents to the input cotangents, a linear map) is itself traced as a
// function of the output cotangents, and walking that program backwards
// from the input tangents gives the output tangents. Every primitive's VJP
// rule is built from bind(), so the pullback differentiates like any other
// program: no primitive needs a rule of its own for forward mode. A custom
// JVP rule (custom_derivatives.hpp) enters through its transposition; a
// custom VJP rule cannot be transposed, and forward mode refuses it as
// JAX does.
//
// jacfwd maps linearize's function over the standard basis of the inputs
// with jax.vmap, jacrev the pullback over the basis of the outputs, and
// hessian is jacfwd of jacrev, as JAX defines them.
#pragma once

#include "interp/python/evaluator.hpp"

namespace interp {

// jax.jvp, jax.linearize, jax.jacfwd, jax.jacrev, jax.jacobian and jax.hessian in the jax module.
void install_forward_mode(Evaluator& evaluator);

}  // namespace interp
