// The decisions and kernels of the structural primitives that move no data
// between devices once their operands lie right (placement.hpp):
// convert_element_type (in place), transpose (the operand laid out so that
// its transpose is the result's layout), broadcast_in_dim (operand dims of
// the result's extent keep their split; broadcast and new dims are whole)
// and select_n (cases and predicate laid out as the result, which follows
// the most sharded of them).
#include <algorithm>

#include "interp/ops/placement.hpp"
#include "interp/ops/primitives.hpp"
#include "typecheck/shape_rules.hpp"
#include "typecheck/creation_rules.hpp"
#include "typecheck/elementwise_rules.hpp"

namespace interp {

namespace {

std::vector<int> int32_list(const Params& params, std::string_view name) {
  std::vector<int> out;
  if (const auto* values = params.get<std::vector<std::int64_t>>(name))
    for (auto v : *values) out.push_back(static_cast<int>(v));
  return out;
}

// Every family here computes where its result lies: the kernel's shards are
// the result's.
ArrayRef result_of(Evaluator& evaluator, const Placement& placement, std::vector<std::shared_ptr<devices::Buffer>> shards) {
  return make_array(evaluator, placement.type, placement.layout, std::move(shards), placement.committed);
}

// ------------------------------------------------------------ convert_element_type

// params: new_dtype.
Placement place_convert(Evaluator&, const Primitive&, const std::vector<ArrayRef>& operands, const Params& params) {
  const ArrayRef& operand = operands[0];
  Placement placement;
  placement.compute = *typecheck::parse_dtype(*params.get<std::string>("new_dtype"));
  placement.type = checked(typecheck::convert_element_type_rule(operand->aval, placement.compute));
  placement.layout = placement.computed = operand->layout;
  placement.operands = {operand->layout};
  placement.committed = operand->committed;
  return placement;
}

ArrayRef convert_kernel(Evaluator& evaluator, const Primitive&, const Placement& placement,
                        const std::vector<ArrayRef>& inputs, const Params&) {
  return retyped_array(evaluator, *astype(evaluator, inputs[0], placement.compute), placement.type, placement.committed);
}

// ------------------------------------------------------------ transpose

// params: permutation.
Placement place_transpose(Evaluator&, const Primitive&, const std::vector<ArrayRef>& operands, const Params& params) {
  const ArrayRef& operand = operands[0];
  std::vector<int> permutation = int32_list(params, "permutation");
  Placement placement;
  placement.type = checked(typecheck::transpose_rule(operand->aval, permutation));
  std::vector<typecheck::SpecEntry> dims;
  for (int p : permutation) dims.push_back(operand->layout.dims[static_cast<std::size_t>(p)]);
  placement.layout = placement.computed = result_layout(placement.type, operand->layout.mesh, dims);
  placement.committed = operand->committed;
  // The operand laid out so that its transpose is the result's layout.
  Layout needed = operand->layout;
  for (std::size_t k = 0; k < permutation.size(); ++k)
    needed.dims[static_cast<std::size_t>(permutation[k])] = placement.layout.dims[k];
  placement.operands = {needed};
  return placement;
}

ArrayRef transpose_kernel(Evaluator& evaluator, const Primitive&, const Placement& placement,
                          const std::vector<ArrayRef>& inputs, const Params& params) {
  std::vector<int> permutation = int32_list(params, "permutation");
  // A permutation that keeps the order of each block's dims of extent other
  // than 1 moves no element: the result's shards are the operand's buffers.
  const ArrayRef& operand = inputs[0];
  const typecheck::Shape block = operand->layout.shard_shape(operand->aval.shape);
  int previous = -1;
  bool in_order = !operand->abstract();
  for (int axis : permutation) {
    if (block[static_cast<std::size_t>(axis)] == 1) continue;
    in_order = in_order && axis > previous;
    previous = axis;
  }
  if (in_order) return result_of(evaluator, placement, buffers_of(*operand));
  return result_of(evaluator, placement,
                   run_per_position(evaluator, placement.layout.mesh, inputs, [&](const std::vector<devices::LocalArray>& in) {
                     return devices::transpose(in[0], permutation);
                   }));
}

// ------------------------------------------------------------ broadcast_in_dim

// params: shape, broadcast_dimensions, out_sharding (optional: lax's, or the
// common sharding jnp's _broadcast_arrays gives every operand).
Placement place_broadcast_in_dim(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                 const Params& params) {
  const ArrayRef& operand = operands[0];
  typecheck::Shape shape = *params.get<std::vector<std::int64_t>>("shape");
  std::vector<int> broadcast_dimensions = int32_list(params, "broadcast_dimensions");
  typecheck::MeshRef context = runtime_of(evaluator).context_mesh ? runtime_of(evaluator).context_mesh->mesh->abstract : nullptr;
  std::optional<typecheck::Sharding> out_sharding;
  if (const auto* requested = params.get<typecheck::ShardingArg>("out_sharding"))
    out_sharding = checked(typecheck::canonicalize_out_sharding("broadcast_in_dim", *requested, context, shape));
  Placement placement;
  placement.type = checked(typecheck::broadcast_in_dim_rule(operand->aval, shape, broadcast_dimensions, out_sharding, context));
  std::vector<typecheck::SpecEntry> auto_dims(shape.size());
  for (std::size_t k = 0; k < broadcast_dimensions.size(); ++k) {
    auto d = static_cast<std::size_t>(broadcast_dimensions[k]);
    if (operand->aval.shape[k] == shape[d]) auto_dims[d] = operand->layout.dims[k];
  }
  // An uncommitted operand (a Python scalar, say) broadcast to an
  // out_sharding goes to the context mesh that sharding names, as in JAX.
  DeviceMeshRef mesh = operand->layout.mesh;
  const bool moved = out_sharding && !operand->committed && runtime_of(evaluator).context_mesh &&
                     *runtime_of(evaluator).context_mesh->mesh->abstract == *out_sharding->mesh;
  if (moved) mesh = runtime_of(evaluator).context_mesh->mesh;
  placement.layout = placement.computed = result_layout(placement.type, mesh, auto_dims);
  placement.committed = operand->committed || moved;
  Layout needed{mesh, {}};
  for (std::size_t k = 0; k < broadcast_dimensions.size(); ++k) {
    auto d = static_cast<std::size_t>(broadcast_dimensions[k]);
    needed.dims.push_back(operand->aval.shape[k] == shape[d] ? placement.layout.dims[d] : typecheck::SpecEntry{});
  }
  placement.operands = {needed};
  return placement;
}

ArrayRef broadcast_in_dim_kernel(Evaluator& evaluator, const Primitive&, const Placement& placement,
                                 const std::vector<ArrayRef>& inputs, const Params& params) {
  std::vector<int> broadcast_dimensions = int32_list(params, "broadcast_dimensions");
  typecheck::Shape local_shape = placement.layout.shard_shape(placement.type.shape);
  return result_of(evaluator, placement,
                   run_per_position(evaluator, placement.layout.mesh, inputs, [&](const std::vector<devices::LocalArray>& in) {
                     return devices::broadcast_in_dim(in[0], local_shape, broadcast_dimensions);
                   }));
}

// ------------------------------------------------------------ select_n

// select_n(which, on_false, on_true): cases of one shape and dtype, `which`
// bool of their shape or a scalar.
Placement place_select_n(Evaluator&, const Primitive&, const std::vector<ArrayRef>& operands, const Params&) {
  Placement placement;
  std::vector<typecheck::ArrayType> cases{operands[1]->aval, operands[2]->aval};
  placement.type = checked(typecheck::select_n_rule(operands[0]->aval, cases));
  DeviceMeshRef mesh = computation_mesh("where", operands);
  std::vector<typecheck::SpecEntry> auto_dims(placement.type.ndim());
  std::size_t best = 0;
  for (const auto& a : operands) {
    if (a->aval.shape != placement.type.shape) continue;
    auto dims = dims_on(*a, mesh);
    auto sharded = static_cast<std::size_t>(std::count_if(dims.begin(), dims.end(), [](const auto& e) { return !e.empty(); }));
    if (sharded > best) best = sharded, auto_dims = dims;
  }
  placement.layout = placement.computed = result_layout(placement.type, mesh, auto_dims);
  placement.committed = any_committed(operands);
  for (const auto& a : operands)
    placement.operands.push_back(a->aval.ndim() == placement.type.ndim() ? placement.layout : Layout{mesh, {}});
  return placement;
}

ArrayRef select_n_kernel(Evaluator& evaluator, const Primitive&, const Placement& placement,
                         const std::vector<ArrayRef>& inputs, const Params&) {
  return result_of(evaluator, placement,
                   run_per_position(evaluator, placement.layout.mesh, inputs, [](const std::vector<devices::LocalArray>& in) {
                     return devices::select(in[0], in[2], in[1]);
                   }));
}

}  // namespace

namespace partitioning {
const Partitioning convert{"structural", place_convert, convert_kernel};
const Partitioning transpose{"structural", place_transpose, transpose_kernel};
const Partitioning broadcast_in_dim{"structural", place_broadcast_in_dim, broadcast_in_dim_kernel};
const Partitioning select_n{"structural", place_select_n, select_n_kernel};
}  // namespace partitioning

}  // namespace interp
