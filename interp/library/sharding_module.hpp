// The context meshes and the members of jax.sharding that switch them
// (sharding_module.cpp): AbstractMesh,
// use_abstract_mesh, get_mesh, auto_axes, explicit_axes, reshard.
#pragma once

#include <functional>
#include <string_view>

#include "interp/ops/runtime.hpp"

namespace interp {

// The mesh ops place on: jax.set_mesh's, as shard_map, use_abstract_mesh and
// auto_axes/explicit_axes see it (same devices, their axes); null when none.
DeviceMeshRef context_device_mesh(Evaluator& evaluator);
// Its abstract view, as jax.sharding.get_abstract_mesh() returns it.
typecheck::MeshRef context_abstract_mesh(Evaluator& evaluator);

// Makes `mesh` the context abstract mesh until destroyed: the context's
// devices (or the first devices of the platform when no mesh is set) seen
// as its axes. Raises JAX's ValueError when the device count changes.
class AbstractMeshScope {
 public:
  AbstractMeshScope(Evaluator& evaluator, const typecheck::MeshRef& mesh);
  ~AbstractMeshScope();
  AbstractMeshScope(const AbstractMeshScope&) = delete;
  AbstractMeshScope& operator=(const AbstractMeshScope&) = delete;

 private:
  Runtime& runtime_;
  std::shared_ptr<MeshObject> saved_;
};

// jax.device_put(x, target) for one leaf (jax_modules.cpp); with
// primitive_name "reshard", jax.reshard's.
Value device_put_leaf(Evaluator& evaluator, const Value& leaf, const Value& target,
                      std::string_view primitive_name = "device_put");
// jax.reshard(x, out_shardings): one target for every leaf, or a pytree
// prefix of x with one per subtree.
Value reshard_tree(Evaluator& evaluator, const Value& x, const Value& out_shardings);

// What `make` returns placed as out_sharding= asks (None: as made), after
// canonicalize_sharding's checks for `api` (the samplers' way: drawn, then
// resharded; threefry's values do not depend on the placement).
Value apply_out_sharding(Evaluator& evaluator, std::string_view api, const Value& out_sharding,
                         const std::function<Value()>& make);

// Fills jax.sharding's members beyond the mesh and spec classes, jax.reshard and jax.typeof.
void install_sharding_members(Evaluator& evaluator);

}  // namespace interp
