// Item 5 of the rule set: out_sharding canonicalization, creation ops,
// device_put / reshard / with_sharding_constraint, auto_axes/explicit_axes
// and the context-mesh agreement check (reference §2.0, §2.9, §2.11, §3.4,
// §3.5).
//
// Contract: a sharding argument comes in as the user wrote it (a bare P, or
// a NamedSharding with its mesh) and leaves as a Sharding on the result
// shape, through check_spec, JAX's canonicalize_sharding checks and
// make_sharding. JAX appends "This error occurs at source: ..." to some of
// these messages; typecheck has no spans, so the caller adds the source.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "typecheck/array_type.hpp"

namespace typecheck {

// P(...) alone (mesh unset), or NamedSharding(mesh, P(...)).
struct ShardingArg {
  std::optional<MeshRef> mesh;  // nullopt: a bare PartitionSpec
  PartitionSpec spec;
};

// §2.0 step 1: every operand with a mesh must be on the context mesh (unless
// both are all-Auto); an empty context accepts anything.
std::optional<Error> check_context_mesh(std::string_view primitive, std::span<const ArrayType> operands,
                                        const MeshRef& context_mesh);

// The ValueError for a spec naming an Auto or Manual axis of `mesh`
// (canonicalize_sharding's check, which jax.reshard makes with or without a
// context mesh).
std::optional<Error> check_explicit_axes(std::string_view api_name, const AbstractMesh& mesh, const PartitionSpec& spec);

// sharding_impls.canonicalize_sharding for `api_name`, then the result
// type's checks on `shape`. nullopt in (or a NamedSharding on an empty
// mesh) is nullopt out: no override.
Checked<std::optional<Sharding>> canonicalize_out_sharding(std::string_view api_name,
                                                           const std::optional<ShardingArg>& argument,
                                                           const MeshRef& context_mesh,
                                                           std::span<const std::int64_t> shape);

// jnp.zeros/ones/full/empty/arange/linspace/eye(..., out_sharding=, device=):
// replicated on the context mesh unless out_sharding says otherwise.
// `device` is the repr of a device= argument, if one was passed.
Checked<ArrayType> creation_rule(std::string_view api_name, ElementType element, Shape shape,
                                 const MeshRef& context_mesh, const std::optional<ShardingArg>& out_sharding = {},
                                 const std::optional<std::string>& device = {});

// zeros_like/ones_like/full_like(x, dtype=, out_sharding=): x's sharding
// unless out_sharding overrides it.
Checked<ArrayType> like_rule(std::string_view api_name, const ArrayType& like, ElementType element,
                             const MeshRef& context_mesh, const std::optional<ShardingArg>& out_sharding = {});

// jnp.arange / linspace / eye shapes, numpy's rules.
Checked<Shape> arange_shape(double start, double stop, double step);
Shape eye_shape(std::int64_t rows, std::optional<std::int64_t> columns);

// jax.device_put(x, target). `target` nullopt: a Device (an unsharded,
// mesh-less type). A bare P needs a concrete mesh from jax.set_mesh
// (`concrete_mesh` is it, or null); `eager` reports divisibility with the
// IndivisibleError text instead of the type's.
Checked<ArrayType> device_put_rule(const ArrayType& operand, const std::optional<ShardingArg>& target,
                                   const MeshRef& concrete_mesh, bool eager);

// jax.reshard(x, P or NamedSharding): the type is exactly the request.
Checked<ArrayType> reshard_rule(const ArrayType& operand, const ShardingArg& target, const MeshRef& context_mesh);

// jax.lax.with_sharding_constraint(x, s): an assertion when every mesh axis
// is Explicit, a hint naming only Auto axes otherwise; the type is unchanged.
Checked<ArrayType> with_sharding_constraint_rule(const ArrayType& operand, const ShardingArg& constraint,
                                                 const MeshRef& context_mesh);

// auto_axes / explicit_axes (pjit._get_new_mesh): the mesh to switch from
// (the context mesh, or the shardings' mesh when there is none; they must
// agree) and the same mesh with `axes` (all when nullopt) turned to `type`.
// nullopt when both meshes are empty. Manual axes cannot be switched.
struct MeshSwitch {
  MeshRef previous;
  MeshRef next;
  std::vector<std::string> axes;
};
Checked<std::optional<MeshSwitch>> switch_axis_types(const MeshRef& context_mesh, const MeshRef& sharding_mesh,
                                                     const std::optional<std::vector<std::string>>& axes,
                                                     AxisType type);

// core.modify_spec_for_auto_manual: the spec with every axis that is not
// Explicit on `mesh` removed (entries left empty become None).
PartitionSpec explicit_only(const PartitionSpec& spec, const MeshRef& mesh);

}  // namespace typecheck
