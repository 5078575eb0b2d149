// jax.nn: activations (relu relu6 sigmoid softplus silu swish gelu elu
// leaky_relu log_sigmoid soft_sign hard_tanh identity tanh), softmax,
// log_softmax, logsumexp, standardize, one_hot, dot_product_attention (the
// XLA implementation: bias, mask, is_causal, sequence lengths, local window,
// grouped-query heads), and jax.nn.initializers. Each is composed from the
// jnp/lax/jax.random members, as JAX composes them.
#pragma once

#include "interp/python/evaluator.hpp"

namespace interp {

void install_nn_module(Evaluator& evaluator);

}  // namespace interp
