// The batching rules the primitive table's entries point to (primitives.hpp's
// BatchRule): what one application of a primitive becomes when some of its
// operands carry an extra, mapped dimension (jax.vmap). Each rule is built
// from bind() of other primitives (or of the same one with shifted params),
// so the batched application runs eagerly, is recorded under jit and is
// type-checked in check mode as any other. Family-generic rules live in
// batching.cpp (elementwise, reductions, contractions, shapes) and
// batching_indexing.cpp (slices, gather, scatter, collectives, placement);
// vmap (transforms/vmap.cpp) reaches them only through the table.
//
// A collective over a vmap axis name (lax.psum(x, 'i') inside vmap with
// axis_name='i') is recorded with its axis_size param: it has only an
// abstract evaluation, and the batching rule of the vmap that owns the name
// turns it into a reduction or movement over the mapped dimension.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interp/ops/primitives.hpp"

namespace interp::batching {

using Operands = std::vector<ArrayRef>;

// An operand's or result's mapped dimension, or not_mapped.
inline constexpr int not_mapped = -1;

// The rules: one per family, or the loop that applies the primitive once
// per index of the mapped axis and stacks the results (used where JAX
// itself loops, as for debug prints, and for indexing with mapped indices).
Batched elementwise(const BatchCall& call);
Batched select_n(const BatchCall& call);
Batched reduction(const BatchCall& call);  // reduce_*, argmax, argmin
Batched cumsum(const BatchCall& call);
// sort: every operand mapped first, the sorted dimension after it.
Batched sort(const BatchCall& call);
// linalg_solve, cholesky: every operand mapped first (a leading batch dimension).
Batched linalg(const BatchCall& call);
Batched dot_general(const BatchCall& call);
Batched conv_general_dilated(const BatchCall& call);  // JAX's _conv_general_dilated_batch_rule
// reduce_window_*, select_and_scatter_add, select_and_gather_add: every
// operand mapped first, a window of 1 over it.
Batched reduce_window(const BatchCall& call);
Batched reshape(const BatchCall& call);
Batched transpose(const BatchCall& call);
Batched broadcast_in_dim(const BatchCall& call);
Batched concatenate(const BatchCall& call);
Batched rev(const BatchCall& call);
Batched convert(const BatchCall& call);  // one operand, no shape params: convert_element_type
Batched placement(const BatchCall& call);  // device_put, sharding_constraint
// batching_indexing.cpp
Batched slice(const BatchCall& call);
Batched dynamic_slice(const BatchCall& call);
Batched dynamic_update_slice(const BatchCall& call);
Batched update_slice(const BatchCall& call);
Batched gather(const BatchCall& call);
Batched loop(const BatchCall& call);
Batched collective(const BatchCall& call);  // psum pmean pmax pmin all_gather psum_scatter all_to_all ppermute pvary axis_index
Batched shard_map_boundary(const BatchCall& call);  // shard_map_enter, shard_map_exit

// ------------------------------------------------------------ support

// `x` with its mapped dimension `dim` moved to `to` (nothing when it is there).
ArrayRef move_dim(Evaluator& ev, const ArrayRef& x, int dim, int to);
// `x` with a new mapped dimension of the axis's size at `at` (broadcast; on
// an Explicit mesh sharded as the vmapped inputs were).
ArrayRef broadcast_mapped(const BatchCall& call, const ArrayRef& x, int at);
// Operand i with its mapped dimension first, unmapped ones broadcast.
ArrayRef mapped_first(const BatchCall& call, std::size_t i);
// `x` (mapped at `dim`) with the mapped dimension moved to `to`, or
// broadcast there when not mapped.
ArrayRef match_dim(const BatchCall& call, const ArrayRef& x, int dim, int to);

// `params` with `name` set to `value` (replaced in place, else appended).
Params with_param(const Params& params, std::string_view name, ParamValue value);
// An out_sharding param (if any) with `entry` inserted for a new dimension at `at`.
Params with_out_sharding(const Params& params, std::size_t at, const typecheck::SpecEntry& entry);
// A per-example axis (negative counts from the end) as a non-negative one.
inline std::int64_t canonical_axis(std::int64_t axis, std::int64_t rank) { return axis < 0 ? axis + rank : axis; }
inline std::int64_t rank_of(const ArrayRef& x) { return static_cast<std::int64_t>(x->aval.ndim()); }

// Whether a collective application names a vmap axis (its axis_size param).
bool over_vmap_axis(const Params& params);
// The abstract evaluation of a collective over a vmap axis: the per-example
// result type, for `name` (psum, all_gather, ...).
ArrayRef vmap_collective_abstract(Evaluator& ev, const Primitive& primitive, const Operands& operands,
                                  const Params& params);

}  // namespace interp::batching
