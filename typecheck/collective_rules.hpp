// The collectives of shard_map bodies and the vma rule of ordinary ops
// (reference §4.3, §4.4; messages from jax/_src/lax/parallel.py and
// jax/_src/core.py).
//
// Contract: `axes` is the axis_name argument normalized to a tuple (a str
// becomes a 1-tuple). The CollectiveContext says which axes are bound (the
// Manual axes of the context mesh, i.e. of the enclosing shard_maps' body
// mesh), whether vma is tracked (check_vma) and whether missing varying axes
// are added silently (jax_auto_pcast, on by default). Every rule checks, in
// JAX's order: the input state of the axes (pcast/psum), unbound names
// (NameError), unreduced/reduced inputs, the varying requirement, then the
// shape rule.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "typecheck/array_type.hpp"

namespace typecheck {

struct CollectiveContext {
  MeshRef mesh;  // the context mesh: inside shard_map, its body mesh
  bool check_vma = true;
  bool auto_pcast = true;
};

// core.standard_vma_rule: the operands' common vma. With auto_pcast the
// wrappers pvary every operand to the union first, so the union is the
// answer; without it unequal vmas are a ValueError.
Checked<AxisSet> standard_vma_rule(std::string_view primitive, std::span<const ArrayType* const> operands,
                                   const CollectiveContext& context);

// psum, pmean, pmax, pmin (`api`): same shape, vma minus `axes`; psum/pmean
// of a value unreduced over `axes` removes them from its unreduced set.
Checked<ArrayType> psum_rule(std::string_view api, const ArrayType& operand, const AxisList& axes,
                             const CollectiveContext& context);

// all_gather(x, axes, axis=, tiled=, to=) with to in varying, invarying, reduced.
Checked<ArrayType> all_gather_rule(const ArrayType& operand, const AxisList& axes, std::int64_t axis, bool tiled,
                                   std::string_view to, const CollectiveContext& context);

// psum_scatter(x, axes, scatter_dimension=, tiled=).
Checked<ArrayType> psum_scatter_rule(const ArrayType& operand, const AxisList& axes, std::int64_t scatter_dimension,
                                     bool tiled, const CollectiveContext& context);

// ppermute(x, axes, perm): perm's (source, destination) pairs are indices
// along the axes (0 <= i < their total size), each source and each
// destination at most once.
Checked<ArrayType> ppermute_rule(const ArrayType& operand, const AxisList& axes,
                                 std::span<const std::pair<std::int64_t, std::int64_t>> perm,
                                 const CollectiveContext& context);

// all_to_all(x, axes, split_axis, concat_axis, tiled=).
Checked<ArrayType> all_to_all_rule(const ArrayType& operand, const AxisList& axes, std::int64_t split_axis,
                                   std::int64_t concat_axis, bool tiled, const CollectiveContext& context);

// axis_index(axes): int32[] varying over `axes`.
Checked<ArrayType> axis_index_rule(const AxisList& axes, const CollectiveContext& context);

// axis_size(axes): the product of their sizes (a static int).
Checked<std::int64_t> axis_size_rule(const AxisList& axes, const CollectiveContext& context);

// lax.pvary(x, axes): invariant -> varying over `axes`.
Checked<ArrayType> pvary_rule(const ArrayType& operand, const AxisList& axes, const CollectiveContext& context);

// lax.pcast(x, axes, to=): invarying->varying, invarying->reduced,
// varying->unreduced, reduced->varying.
Checked<ArrayType> pcast_rule(const ArrayType& operand, const AxisList& axes, std::string_view to,
                              const CollectiveContext& context);

}  // namespace typecheck
