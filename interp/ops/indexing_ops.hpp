// x.at[index].set(v) / .add(v) / .get(), and jnp.take (indexing_ops.cpp).
#pragma once

#include "interp/ops/array.hpp"

namespace interp {

// The value of `x.at`: indexing it gives an object with set/add/get.
Value at_indexer(const ArrayRef& operand);

struct Primitive;
struct Params;
// The gather primitive (jnp.take): see primitives.hpp's Implementation.
ArrayRef gather_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                               const Params& params, bool execute);

// The scatter primitive (x.at[index] updates with strided slices or index
// arrays).
ArrayRef scatter_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                const Params& params, bool execute);

// jnp.take / jax.lax members built on gather-like primitives.
void install_indexing_operations(Evaluator& evaluator, ModuleObject& module);

}  // namespace interp
