// jnp / lax / numpy members composed from the primitive table: astype,
// where, clip, var, std, the shape functions (swapaxes moveaxis expand_dims
// squeeze broadcast_to concatenate stack split roll tile flip outer),
// and lax.broadcast_in_dim / convert_element_type / concatenate / rev.
#pragma once

#include "interp/ops/array.hpp"

namespace interp {

// x.astype(dtype) through the convert_element_type primitive.
Value apply_astype(Evaluator& evaluator, const ArrayRef& operand, typecheck::DType dtype);

// Adds the members to jax.numpy (is_jnp, plus jax.lax's) or to numpy.
void install_array_operations(Evaluator& evaluator, ModuleObject& module, bool is_jnp);

}  // namespace interp
