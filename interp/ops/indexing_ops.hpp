// x.at[index].set(v) / .add(v) / .get(), x[index arrays] and the gather under jnp.take (indexing_ops.cpp).
#pragma once

#include "interp/ops/array.hpp"
#include "typecheck/structural_rules.hpp"

namespace interp {

// The value of `x.at`: indexing it gives an object with set/add/get.
Value at_indexer(const ArrayRef& operand);

// x[key] for a key with integer or boolean index arrays (or sequences inside
// a tuple key) among its items: NumPy's advanced indexing, index arrays
// clamped into range.
Value advanced_index(Evaluator& evaluator, const ArrayRef& operand, const Value& key);
// A slice item of x[...] as the static index rule reads it (bounds through
// __index__).
typecheck::IndexItem slice_index_item(Evaluator& evaluator, const SliceObject& slice);
// Whether `key` (x[key]'s) holds index arrays or sequences.
bool has_index_arrays(const Value& key);
// The error JAX raises for an index item it does not take (a string, a
// float, an object).
[[noreturn]] void refuse_indexer(Evaluator& evaluator, const Value& index);
// jax.errors.NonConcreteBooleanIndexError: a boolean mask index inside jit.
const TypeRef& non_concrete_boolean_index_error();

struct Primitive;
struct Params;
// The gather primitive (jnp.take): see primitives.hpp's Implementation.
ArrayRef gather_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                               const Params& params, bool execute);

// The scatter primitive (x.at[index] updates with strided slices or index
// arrays).
ArrayRef scatter_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                const Params& params, bool execute);

// The gather primitive along `axis` (in range), as jnp.take's default mode:
// negative indices count from the end, others out of range give the dtype's
// fill value (NaN, the smallest signed integer, ...).
Value gather_along(Evaluator& evaluator, const ArrayRef& operand, const Value& indices, std::int64_t axis,
                   const Value& out_sharding);

// A gather's mode argument as GatherScatterMode.from_any reads it: 'fill'
// (or its alias 'drop'), 'clip' or 'promise_in_bounds'; None gives
// `default_mode`. Another string is JAX's ValueError.
std::string gather_mode(Evaluator& evaluator, const Value& mode, const std::string& default_mode);

}  // namespace interp
