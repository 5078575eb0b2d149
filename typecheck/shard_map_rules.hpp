// shard_map typing (reference §4.1-§4.9): the mesh and manual axes of a
// shard_map, the checks of in_specs/out_specs in JAX's order with JAX's
// messages (jax/_src/shard_map.py), the type of each argument inside the
// body, the out_specs replication check and the output's global type.
//
// Contract: the evaluator flattens the specs and arguments (pytrees are its
// business) and calls, in this order: shard_map_mesh, shard_map_axis_names,
// check_in_specs_inferable (when in_specs were omitted), check_specs_manual
// (in, then out), infer_in_specs (when omitted), check_in_specs_vs_args,
// body_argument_type per argument; after the body, with_implicit_pvary,
// check_out_ranks, check_out_replication and shard_map_output_type per
// output. Paths are keystr() texts ("[0]", "" for
// a bare spec). Nothing here knows the user's source lines: a
// ReplicationError carries the data the evaluator needs to name the line
// that returned the varying value and the psum that would fix it.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "typecheck/array_type.hpp"

namespace typecheck {

// What one shard_map application is: its function's name (f.__name__,
// "<lambda>"), its mesh, the axes it makes Manual, check_vma.
struct ShardMapSignature {
  std::string function_name;
  MeshRef mesh;
  AxisSet manual_axes;
  bool check_vma = true;
};

// shard_map(mesh=given): null `given` takes the context mesh, which must not
// be empty; a given mesh must equal a non-empty context mesh (ValueErrors).
Checked<MeshRef> shard_map_mesh(const MeshRef& context_mesh, const MeshRef& given);

// axis_names: empty means every mesh axis; otherwise a subset of the mesh's
// names (ValueError naming both frozensets).
Checked<AxisSet> shard_map_axis_names(const AbstractMesh& mesh, const AxisSet& axis_names);

// The mesh inside the body: the manual axes switched to Manual.
MeshRef body_mesh(const ShardMapSignature& signature);

enum class SpecSide { in, out };

// One PartitionSpec leaf of in_specs or out_specs and its keystr path.
struct SpecLeaf {
  std::string path;
  PartitionSpec spec;
};

// _check_specs then _check_unreduced: every named axis is manual (one line
// per offending axis), and unreduced/reduced only in full-manual mode on
// Explicit axes.
std::optional<Error> check_specs_manual(SpecSide side, const ShardMapSignature& signature,
                                        std::span<const SpecLeaf> specs);

// in_specs omitted is allowed only when every manual axis is Explicit
// (TypeError otherwise). JAX checks this before the specs themselves.
std::optional<Error> check_in_specs_inferable(const ShardMapSignature& signature);

// _manual_spec: each argument's spec is its type's, keeping the manual axes
// (a tuple entry may not keep a manual axis after a dropped one).
Checked<std::vector<PartitionSpec>> infer_in_specs(const ShardMapSignature& signature,
                                                   std::span<const ArrayType> arguments);

// One array argument with the in_specs leaf that applies to it.
struct ShardMapArgument {
  std::string path;       // keystr of the argument in args: "[0]"
  std::string parameter;  // the function's parameter it is bound to; "" when unknown
  std::string spec_path;  // keystr of the spec in in_specs: "[0]", "" for a bare P
  PartitionSpec spec;
  ArrayType type;
};

// _check_specs_vs_args, then the explicit full-manual match (reference §4.2
// steps 3-5): specs no longer than the ranks, divisible dimensions, and on
// an all-Explicit full-manual mesh each spec equal to its argument's.
std::optional<Error> check_in_specs_vs_args(const ShardMapSignature& signature,
                                            std::span<const ShardMapArgument> arguments);

// _shard_shaped_array: the local shape, the body mesh, the type's spec
// without manual axes, vma = the spec's axes plus the type's own vma
// (nothing with check_vma=False), unreduced/reduced moved to the manual sets.
Checked<ArrayType> body_argument_type(const ShardMapSignature& signature, const PartitionSpec& spec,
                                      const ArrayType& outer);

// Reference §4.6: with check_vma, an output is pvary'd over the axes its
// out_spec names that it does not already vary over.
ArrayType with_implicit_pvary(const ShardMapSignature& signature, const PartitionSpec& spec, const ArrayType& body);

// One output leaf of the body with its out_specs leaf.
struct ShardMapOutput {
  std::string path;       // keystr of the output in the result: "", "[1]"
  std::string spec_path;  // keystr of the spec in out_specs
  PartitionSpec spec;
  ArrayType type;         // the body's type, after with_implicit_pvary
};

// An out_spec longer than its output's rank (ValueError).
std::optional<Error> check_out_ranks(const ShardMapSignature& signature, std::span<const ShardMapOutput> outputs);

// One output that varies over a mesh axis its out_spec leaves unmentioned.
struct ReplicationFailure {
  std::size_t output = 0;  // index into the outputs passed
  AxisList offending;      // unmentioned axes it varies over, in mesh order
};

// The replication error as a value: JAX's error and, per failing output,
// what the evaluator needs for its note ("returned here") and hint.
struct ReplicationError {
  Error error;
  std::vector<ReplicationFailure> failures;
};

// _check_mats (check_vma only): every mesh axis that the out_spec does not
// mention and that was not already manual outside must be absent from the
// output's varying/unreduced/reduced sets.
std::optional<ReplicationError> check_out_replication(const ShardMapSignature& signature,
                                                      std::span<const ShardMapOutput> outputs);

// The fix for one failure, for shardlang's hint: "jax.lax.psum(..., 'y')
// (or pmean/pmax/pmin) over the value before returning it, or an out_specs
// entry that names 'y'".
std::string replication_fix_hint(const ReplicationFailure& failure);

// A body block's global shape: each dimension times the sizes of the mesh
// axes its spec names (past int64 an error).
Checked<Shape> shard_map_global_shape(const AbstractMesh& mesh, const PartitionSpec& spec, Shape block);

// _unshard_shaped_array: the unreduced/reduced equality checks, each
// dimension multiplied by the sizes of the axes the spec names, spec = the
// out_spec's entry followed by the type's remaining Explicit axes, mesh =
// the context mesh (the shard_map's mesh when the context is empty), vma
// restricted to axes still manual outside.
Checked<ArrayType> shard_map_output_type(const ShardMapSignature& signature, const PartitionSpec& spec,
                                         const ArrayType& body, const MeshRef& context_mesh);

}  // namespace typecheck
