// The primitives of shard_map bodies (sharding.md "shard_map typing",
// reference §4): entering and leaving a shard_map, the collectives over
// manual mesh axes, axis_index, pvary, and the slicing a body needs on its
// local blocks.
//
// Inside a shard_map body an array is a *manual* array: its type is the
// local block's (on the body mesh, with its varying axes) and its layout is
// the body's device mesh with every dimension whole, while each mesh
// position holds its own block in its shard. Kernels that run per position
// (run_per_position) therefore compute on local blocks as they are; the
// collectives below exchange blocks between positions.
//
// Primitive params: `axes` (mesh axis indices, major first) and
// `axis_name` (as written, for printing) for every collective.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "interp/ops/primitives.hpp"
#include "typecheck/collective_rules.hpp"
#include "typecheck/structural_rules.hpp"

namespace interp {

// The collective context of the current shard_map body (its body mesh is
// the context mesh; check_vma as the shard_map was given).
typecheck::CollectiveContext collective_context(Evaluator& evaluator);

// Entries of the primitive table (primitives.cpp lists them).
ArrayRef shard_map_enter_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef shard_map_exit_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef psum_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef all_gather_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef psum_scatter_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef all_to_all_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef ppermute_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef axis_index_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef pvary_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef pcast_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
// The `to=` of lax.pcast that a cast primitive is: preduced -> "reduced",
// vary_unreduced_cast -> "unreduced", reduced_vary_cast and pvary -> "varying".
std::string_view pcast_target(std::string_view primitive_name);
ArrayRef static_slice_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef dynamic_slice_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef dynamic_update_slice_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&,
                                             bool);
// Bytes moved between devices (cost_analysis); the cost model charges the
// collective the primitive is.
Cost collective_cost(const Primitive& primitive, const std::vector<typecheck::ArrayType>& operands,
                     const typecheck::ArrayType& result, const Params&);

// x[...] with static indices on a manual array or inside jit: a slice
// primitive per position (array_methods.cpp hands such indexing here).
// `out_type` is static_index_rule's.
Value index_static(Evaluator& evaluator, const ArrayRef& operand, std::span<const typecheck::IndexItem> items,
                   const typecheck::ArrayType& out_type);
// Whether `array` is a manual array (lives on a shard_map body mesh).
bool is_manual(const ArrayObject& array);

}  // namespace interp
