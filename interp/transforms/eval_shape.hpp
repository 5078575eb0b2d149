// Abstract evaluation: jax.ShapeDtypeStruct and jax.eval_shape.
//
// eval_shape traces the function by a JitTrace whose inputs are abstract
// arrays of the arguments' types (an array, a Python scalar or a
// ShapeDtypeStruct, whose `sharding` places it): nothing runs, and every
// array leaf of the result becomes a ShapeDtypeStruct of its type (with its
// sharding where it is placed on a mesh).
#pragma once

#include <optional>

#include "interp/ops/array.hpp"

namespace interp {

// An abstract array argument for a ShapeDtypeStruct `value`, or nullopt
// when `value` is not one.
std::optional<ArrayRef> shape_dtype_struct_array(Evaluator& evaluator, const Value& value);

// The ShapeDtypeStruct of an array (its sharding where it is placed on a
// mesh of more than one device).
Value shape_dtype_struct_of(Evaluator& evaluator, ArrayObject& array);

// jax.ShapeDtypeStruct and jax.eval_shape in the jax module.
void install_eval_shape(Evaluator& evaluator);

}  // namespace interp
