// jnp / lax / numpy members composed from the primitive table: astype,
// where, clip, var, std, cumsum (and lax.cumsum), the shape functions (swapaxes moveaxis expand_dims
// squeeze broadcast_to concatenate stack split roll tile flip outer),
// and lax.broadcast_in_dim / convert_element_type / concatenate / rev.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "interp/ops/array.hpp"

namespace interp {

// An int or a sequence of ints as 64-bit values: a shape as the user wrote
// it (sizes past a C int included), reps, axes.
std::vector<std::int64_t> int_values(Evaluator& evaluator, const Value& value);

// A dtype as the Python value jnp.float32 is.
Value dtype_value(typecheck::DType dtype);

// x.astype(dtype) through the convert_element_type primitive.
Value apply_astype(Evaluator& evaluator, const ArrayRef& operand, typecheck::DType dtype);
// An array of an inexact dtype (JAX's promote_dtypes_inexact for one
// operand: float32 for integers and booleans).
ArrayRef inexact_operand(Evaluator& evaluator, const Value& operand);

// jnp.cumsum(a, axis, dtype, out) and x.cumsum, as JAX's
// _cumulative_reduction: axis=None flattens (a fully replicated operand
// only), dtype= gives the result's (bool accumulates as int32; dtype=bool
// accumulates a != 0), then the cumsum primitive.
Value apply_cumsum(Evaluator& evaluator, const Value& operand, const Value& axis, const Value& dtype, const Value& out);

// Calls a member of a jnp-like module by name, as user code would: the
// composites built this way run under every trace.
struct Jnp {
  Evaluator& ev;
  ModuleObject& module;

  Value operator()(const std::string& name, std::vector<Value> args,
                   std::vector<std::pair<std::string, Value>> keywords = {}) const;
};

// Adds the members to jax.numpy (is_jnp, plus jax.lax's) or to numpy.
void install_array_operations(Evaluator& evaluator, ModuleObject& module, bool is_jnp);
// isnan isinf isfinite logaddexp tri tril triu pad take_along_axis, take
// (jax.numpy only) and nan inf pi e newaxis (numpy_structured.cpp), built on
// the module's other members.
void install_structured_operations(Evaluator& evaluator, ModuleObject& module, bool is_jnp);
// all any round floor ceil trunc remainder mod fmod isclose array_equal
// nan_to_num count_nonzero finfo iinfo, and lax.round (numpy_math.cpp);
// array_equal in jax.numpy only (numpy's compares on the host).
void install_math_operations(Evaluator& evaluator, ModuleObject& module, bool is_jnp);
// nanmax nanmin nanprod nanvar nanstd nanargmax nanargmin nancumsum
// nancumprod (numpy_nan_reductions.cpp).
void install_nan_reductions(ModuleObject& module);
// unravel_index ravel_multi_index indices isin append diagflat deg2rad
// rad2deg radians degrees (numpy_index_tools.cpp).
void install_index_tools(ModuleObject& module);
// NumPy's abstract scalar types (floating, integer, ...), issubdtype,
// isdtype, result_type, promote_types (numpy_dtypes.cpp).
void install_dtype_functions(ModuleObject& module);
// atleast_1d/2d/3d vstack hstack dstack array_split meshgrid kron vdot inner
// shape ndim size
// diagonal diag trace identity triu_indices tril_indices diff
// (numpy_arrays.cpp).
void install_array_building_operations(Evaluator& evaluator, ModuleObject& module);
// sum prod max min mean argmax argmin with JAX's signatures (dtype=,
// where=, initial=, promote_integers=; numpy_reductions.cpp).
void install_reduction_operations(Evaluator& evaluator, ModuleObject& module);
// cumprod cummax cummin heaviside ptp nansum nanmean average, and in jax.lax
// (is_jnp) associative_scan cumprod cummax cummin cumlogsumexp
// (numpy_scans.cpp).
void install_scan_operations(Evaluator& evaluator, ModuleObject& module, bool is_jnp);
// nonzero flatnonzero argwhere searchsorted bincount unique histogram
// (numpy_counting.cpp); jnp.where(condition) is nonzero.
void install_counting_operations(Evaluator& evaluator, ModuleObject& module);
// jax.numpy.linalg (jnp.linalg): norm and vector_norm, solve and inv on the
// linalg_solve primitive, cholesky and slogdet / det on the cholesky and
// slogdet primitives (numpy_linalg.cpp).
void install_linalg_operations(Evaluator& evaluator);
// jax.lax's convolutions (conv_general_dilated, conv, conv_with_general_padding,
// conv_dimension_numbers, ConvDimensionNumbers, padtype_to_pads) and
// reduce_window (lax_convolution.cpp).
void install_lax_convolution(Evaluator& evaluator);
// sort argsort quantile percentile median, and lax.sort, sort_key_val and
// top_k, on the sort primitive (numpy_sorting.cpp).
void install_sorting_operations(Evaluator& evaluator, ModuleObject& module, bool is_jnp);

}  // namespace interp
