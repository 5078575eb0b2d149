// The shard_map body primitives (collectives.hpp).
#include "interp/ops/collectives.hpp"

#include <algorithm>
#include <functional>

#include "devices/collectives.hpp"
#include "devices/host_values.hpp"
#include "interp/ops/batching.hpp"
#include "interp/transforms/trace.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shard_map_rules.hpp"
#include "typecheck/structural_rules.hpp"

namespace interp {

namespace {

// "x,y" -> {"x", "y"}.
typecheck::AxisList split_names(const std::string& joined) {
  typecheck::AxisList names;
  std::size_t begin = 0;
  while (begin <= joined.size()) {
    auto comma = joined.find(',', begin);
    if (comma == std::string::npos) comma = joined.size();
    if (comma > begin) names.push_back(joined.substr(begin, comma - begin));
    begin = comma + 1;
  }
  return names;
}

// The body mesh a collective runs on (its "mesh" param).
const DeviceMeshRef& body_mesh_of(const Params& params) { return params.get<Layout>("mesh")->mesh; }

typecheck::CollectiveContext context_of(const Params& params) {
  const bool* check_vma = params.get<bool>("check_vma");
  return {body_mesh_of(params)->abstract, check_vma ? *check_vma : true, true};
}

typecheck::AxisList names_of(const Params& params) { return split_names(*params.get<std::string>("axis_name")); }

Layout whole_layout(const DeviceMeshRef& mesh, std::size_t ndim) {
  return Layout{mesh, std::vector<typecheck::SpecEntry>(ndim)};
}

// `array` as a manual array of `mesh`: an array from outside the body (a
// constant, a literal) is the same block on every position.
ArrayRef on_body(Evaluator& evaluator, const ArrayRef& array, const DeviceMeshRef& mesh) {
  Layout whole = whole_layout(mesh, array->aval.ndim());
  if (array->layout == whole) return array;
  if (array->abstract()) return make_abstract_array(array->aval, whole, true);
  ArrayRef moved = relayout(evaluator, array, whole);
  moved->committed = true;
  return moved;
}

std::vector<std::shared_ptr<devices::Buffer>> buffers(const ArrayObject& array) {
  std::vector<std::shared_ptr<devices::Buffer>> out;
  for (const auto& shard : array.shards) out.push_back(shard.shared_buffer());
  return out;
}

// Manual array of `type` on `mesh` from per-position blocks.
ArrayRef manual_array(Evaluator& evaluator, typecheck::ArrayType type, const DeviceMeshRef& mesh,
                      std::vector<std::shared_ptr<devices::Buffer>> shards) {
  Layout layout = whole_layout(mesh, type.ndim());
  return make_array(evaluator, std::move(type), std::move(layout), std::move(shards), true);
}

// The shard_map of a body mesh: the axes Manual in the body but not outside.
typecheck::ShardMapSignature signature_of(const DeviceMesh& outer, const DeviceMesh& body, bool check_vma) {
  typecheck::ShardMapSignature signature{"", outer.abstract, {}, check_vma};
  for (std::size_t a = 0; a < body.abstract->axes().size(); ++a)
    if (body.abstract->axes()[a].type == typecheck::AxisType::Manual &&
        outer.abstract->axes()[a].type != typecheck::AxisType::Manual)
      signature.manual_axes.insert(body.abstract->axes()[a].name);
  return signature;
}

// The same elements in `shape` (another process's placeholder stays as it is).
std::vector<std::shared_ptr<devices::Buffer>> reshaped(const std::vector<std::shared_ptr<devices::Buffer>>& shards,
                                                       const typecheck::Shape& shape) {
  std::vector<std::shared_ptr<devices::Buffer>> out;
  for (const auto& s : shards)
    out.push_back(s->is_remote() ? s : value_or_raise(devices::reshape(devices::LocalArray{s, shape}, shape)).buffer);
  return out;
}

std::int64_t scalar_index(const devices::LocalArray& index) {
  return value_or_raise(devices::integer_values(index)).at(0);
}

}  // namespace

// ------------------------------------------------------------ enter / exit

// The spec of a boundary: `spec` (with its unreduced and reduced axes) when
// the params carry one, else the layout's dims.
typecheck::PartitionSpec boundary_spec(const Params& params, const Layout& layout) {
  if (const auto* given = params.get<typecheck::ShardingArg>("spec")) return given->spec;
  return typecheck::PartitionSpec::from_entries(layout.dims);
}

// params: in_spec (the argument's layout on the shard_map's mesh), spec
// (optional: the in_spec with unreduced/reduced axes), mesh (the body mesh),
// check_vma.
ArrayRef shard_map_enter_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                        const Params& params, bool execute) {
  const Layout& in_spec = *params.get<Layout>("in_spec");
  const DeviceMeshRef& body = body_mesh_of(params);
  auto signature = signature_of(*in_spec.mesh, *body, *params.get<bool>("check_vma"));
  typecheck::PartitionSpec spec = boundary_spec(params, in_spec);
  typecheck::ArrayType type = checked(typecheck::body_argument_type(signature, spec, operands[0]->aval));
  type.sharding.mesh = body->abstract;
  if (!execute || operands[0]->abstract()) return make_abstract_array(type, whole_layout(body, type.ndim()), true);
  ArrayRef placed = relayout(evaluator, operands[0], in_spec);
  // An unreduced argument's devices hold its partial sums, as the body sees them.
  return manual_array(evaluator, type, body, buffers(*placed));
}

// params: out_spec (the result's layout on the shard_map's mesh), spec
// (optional, as shard_map_enter's), mesh, check_vma.
ArrayRef shard_map_exit_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                       const Params& params, bool execute) {
  const Layout& out_spec = *params.get<Layout>("out_spec");
  const DeviceMeshRef& body = body_mesh_of(params);
  auto signature = signature_of(*out_spec.mesh, *body, *params.get<bool>("check_vma"));
  ArrayRef operand = on_body(evaluator, operands[0], body);
  typecheck::PartitionSpec spec = boundary_spec(params, out_spec);
  typecheck::ArrayType inner = typecheck::with_implicit_pvary(signature, spec, operand->aval);
  typecheck::ArrayType type = checked(typecheck::shard_map_output_type(signature, spec, inner, out_spec.mesh->abstract));
  if (!execute || operand->abstract()) return make_abstract_array(type, out_spec, true);
  // An unreduced result keeps each device's partial sum: a reshard sums them.
  return make_array(evaluator, std::move(type), out_spec, buffers(*operand), true);
}

// ------------------------------------------------------------ collectives

// psum, pmean, pmax, pmin (api_name). params: axis_name, mesh, check_vma.
ArrayRef psum_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                             const Params& params, bool execute) {
  if (batching::over_vmap_axis(params)) return batching::vmap_collective_abstract(evaluator, primitive, operands, params);
  const DeviceMeshRef& mesh = body_mesh_of(params);
  ArrayRef operand = on_body(evaluator, operands[0], mesh);
  auto names = names_of(params);
  typecheck::ArrayType type = checked(typecheck::psum_rule(primitive.api_name, operand->aval, names, context_of(params)));
  bool mean = primitive.api_name == "pmean";
  if (mean && !typecheck::is_floating(type.dtype)) type.dtype = typecheck::DType::float32;
  if (!execute || operand->abstract()) return make_abstract_array(type, whole_layout(mesh, type.ndim()), true);

  auto groups = devices::replica_groups(mesh->shape, mesh_axes(*mesh, names));
  if (primitive.api_name == "pmax" || primitive.api_name == "pmin") {
    auto op = primitive.api_name == "pmax" ? devices::ReduceOp::max : devices::ReduceOp::min;
    auto shards = value_or_raise(devices::all_reduce(op, buffers(*operand), operand->aval.shape, groups));
    return manual_array(evaluator, std::move(type), mesh, std::move(shards));
  }
  auto shards = value_or_raise(devices::all_reduce_sum(buffers(*operand), operand->aval.shape, groups));
  typecheck::ArrayType summed = type;
  summed.dtype = operand->aval.dtype;
  ArrayRef out = manual_array(evaluator, summed, mesh, std::move(shards));
  if (!mean) return out;
  const Primitive& divide = interp::primitive("divide");
  auto count = static_cast<double>(groups.empty() ? 1 : groups[0].size());
  ArrayRef divisor = on_body(evaluator, to_array(evaluator, Value::floating(count)), mesh);
  out = divide.implementation(evaluator, divide, {out, divisor}, {}, true);
  out->aval = type;
  return out;
}

// params: axis_name, axis, tiled, mesh, check_vma.
ArrayRef all_gather_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                   const Params& params, bool execute) {
  if (batching::over_vmap_axis(params)) return batching::vmap_collective_abstract(evaluator, primitive, operands, params);
  const DeviceMeshRef& mesh = body_mesh_of(params);
  ArrayRef operand = on_body(evaluator, operands[0], mesh);
  auto names = names_of(params);
  std::int64_t axis = *params.get<std::int64_t>("axis");
  bool tiled = *params.get<bool>("tiled");
  typecheck::ArrayType type =
      checked(typecheck::all_gather_rule(operand->aval, names, axis, tiled, "varying", context_of(params)));
  if (!execute || operand->abstract()) return make_abstract_array(type, whole_layout(mesh, type.ndim()), true);
  if (axis < 0) axis += static_cast<std::int64_t>(tiled ? operand->aval.ndim() : operand->aval.ndim() + 1);
  typecheck::Shape piece = operand->aval.shape;
  if (!tiled) piece.insert(piece.begin() + axis, 1);
  auto groups = devices::replica_groups(mesh->shape, mesh_axes(*mesh, names));
  auto shards = value_or_raise(devices::all_gather(reshaped(buffers(*operand), piece), piece, groups, static_cast<int>(axis)));
  return manual_array(evaluator, std::move(type), mesh, std::move(shards));
}

// params: axis_name, scatter_dimension, tiled, mesh, check_vma.
ArrayRef psum_scatter_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                     const Params& params, bool execute) {
  if (batching::over_vmap_axis(params)) return batching::vmap_collective_abstract(evaluator, primitive, operands, params);
  const DeviceMeshRef& mesh = body_mesh_of(params);
  ArrayRef operand = on_body(evaluator, operands[0], mesh);
  auto names = names_of(params);
  std::int64_t dimension = *params.get<std::int64_t>("scatter_dimension");
  bool tiled = *params.get<bool>("tiled");
  typecheck::ArrayType type =
      checked(typecheck::psum_scatter_rule(operand->aval, names, dimension, tiled, context_of(params)));
  if (!execute || operand->abstract()) return make_abstract_array(type, whole_layout(mesh, type.ndim()), true);
  if (dimension < 0) dimension += static_cast<std::int64_t>(operand->aval.ndim());
  auto groups = devices::replica_groups(mesh->shape, mesh_axes(*mesh, names));
  auto shards = value_or_raise(
      devices::reduce_scatter_sum(buffers(*operand), operand->aval.shape, groups, static_cast<int>(dimension)));
  return manual_array(evaluator, type, mesh, reshaped(shards, type.shape));
}

// params: axis_name, split_axis, concat_axis, tiled, mesh, check_vma.
ArrayRef all_to_all_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                   const Params& params, bool execute) {
  if (batching::over_vmap_axis(params)) return batching::vmap_collective_abstract(evaluator, primitive, operands, params);
  const DeviceMeshRef& mesh = body_mesh_of(params);
  ArrayRef operand = on_body(evaluator, operands[0], mesh);
  auto names = names_of(params);
  std::int64_t split = *params.get<std::int64_t>("split_axis"), concat = *params.get<std::int64_t>("concat_axis");
  bool tiled = *params.get<bool>("tiled");
  typecheck::ArrayType type =
      checked(typecheck::all_to_all_rule(operand->aval, names, split, concat, tiled, context_of(params)));
  if (!execute || operand->abstract()) return make_abstract_array(type, whole_layout(mesh, type.ndim()), true);
  auto rank = static_cast<std::int64_t>(operand->aval.ndim());
  if (split < 0) split += rank;
  if (concat < 0) concat += rank;
  // Untiled: a unit dimension at concat_axis receives the pieces, and the
  // split dimension (now of size 1) goes away; concat_axis counts positions
  // after that removal, so past the split it is one further (JAX's all_to_all).
  typecheck::Shape shape = operand->aval.shape;
  if (!tiled) {
    if (split < concat) ++concat;
    shape.insert(shape.begin() + concat, 1);
    if (concat <= split) ++split;
  }
  auto groups = devices::replica_groups(mesh->shape, mesh_axes(*mesh, names));
  auto shards = value_or_raise(devices::all_to_all(reshaped(buffers(*operand), shape), shape, groups,
                                                   static_cast<int>(split), static_cast<int>(concat)));
  return manual_array(evaluator, type, mesh, reshaped(shards, type.shape));
}

// params: axis_name, perm (source, destination pairs flattened), mesh, check_vma.
ArrayRef ppermute_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                 const Params& params, bool execute) {
  if (batching::over_vmap_axis(params)) return batching::vmap_collective_abstract(evaluator, primitive, operands, params);
  const DeviceMeshRef& mesh = body_mesh_of(params);
  ArrayRef operand = on_body(evaluator, operands[0], mesh);
  auto names = names_of(params);
  const auto& flat = *params.get<std::vector<std::int64_t>>("perm");
  std::vector<std::pair<std::int64_t, std::int64_t>> perm;
  for (std::size_t i = 0; i + 1 < flat.size(); i += 2) perm.emplace_back(flat[i], flat[i + 1]);
  typecheck::ArrayType type = checked(typecheck::ppermute_rule(operand->aval, names, perm, context_of(params)));
  if (!execute || operand->abstract()) return make_abstract_array(type, whole_layout(mesh, type.ndim()), true);
  std::vector<std::pair<int, int>> pairs;
  for (const auto& group : devices::replica_groups(mesh->shape, mesh_axes(*mesh, names)))
    for (const auto& [source, target] : perm)
      pairs.emplace_back(group[static_cast<std::size_t>(source)], group[static_cast<std::size_t>(target)]);
  auto shards = value_or_raise(devices::collective_permute(buffers(*operand), operand->aval.shape, pairs));
  return manual_array(evaluator, std::move(type), mesh, std::move(shards));
}

// params: axis_name, mesh, check_vma. No operands.
ArrayRef axis_index_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                   const Params& params, bool execute) {
  if (batching::over_vmap_axis(params)) return batching::vmap_collective_abstract(evaluator, primitive, operands, params);
  const DeviceMeshRef& mesh = body_mesh_of(params);
  auto names = names_of(params);
  typecheck::ArrayType type = checked(typecheck::axis_index_rule(names, context_of(params)));
  type.sharding.mesh = mesh->abstract;
  if (!execute) return make_abstract_array(type, whole_layout(mesh, 0), true);
  auto axes = mesh_axes(*mesh, names);
  std::vector<std::shared_ptr<devices::Buffer>> shards;
  for (std::size_t p = 0; p < mesh->devices.size(); ++p) {
    auto coordinates = mesh->coordinates(static_cast<int>(p));
    std::int32_t index = 0;
    for (int a : axes) index = index * mesh->shape[static_cast<std::size_t>(a)] + coordinates[static_cast<std::size_t>(a)];
    const std::int64_t value[] = {index};
    auto scalar = value_or_raise(devices::from_values(runtime_of(evaluator).ledger(), typecheck::DType::int32, {},
                                                      std::span<const std::int64_t>(value)));
    shards.push_back(scalar.buffer);
  }
  return manual_array(evaluator, std::move(type), mesh, std::move(shards));
}

// params: axis_name, mesh, check_vma. The data does not move: the type says
// that the value may now differ along the axes.
ArrayRef pvary_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                              const Params& params, bool execute) {
  if (batching::over_vmap_axis(params)) return batching::vmap_collective_abstract(evaluator, primitive, operands, params);
  const DeviceMeshRef& mesh = body_mesh_of(params);
  ArrayRef operand = on_body(evaluator, operands[0], mesh);
  typecheck::ArrayType type = checked(typecheck::pvary_rule(operand->aval, names_of(params), context_of(params)));
  if (!execute || operand->abstract()) return make_abstract_array(type, whole_layout(mesh, type.ndim()), true);
  return manual_array(evaluator, std::move(type), mesh, buffers(*operand));
}

// preduced, vary_unreduced_cast and reduced_vary_cast (lax.pcast's casts
// other than pvary), params as pvary's: free casts, only the type changes.
ArrayRef pcast_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                              const Params& params, bool execute) {
  if (batching::over_vmap_axis(params)) return batching::vmap_collective_abstract(evaluator, primitive, operands, params);
  const DeviceMeshRef& mesh = body_mesh_of(params);
  ArrayRef operand = on_body(evaluator, operands[0], mesh);
  typecheck::ArrayType type =
      checked(typecheck::pcast_rule(operand->aval, names_of(params), pcast_target(primitive.name), context_of(params)));
  if (!execute || operand->abstract()) return make_abstract_array(type, whole_layout(mesh, type.ndim()), true);
  return manual_array(evaluator, std::move(type), mesh, buffers(*operand));
}

std::string_view pcast_target(std::string_view primitive_name) {
  if (primitive_name == "preduced") return "reduced";
  if (primitive_name == "vary_unreduced_cast") return "unreduced";
  return "varying";  // reduced_vary_cast, pvary
}

Cost collective_cost(const Primitive&, const std::vector<typecheck::ArrayType>& operands,
                     const typecheck::ArrayType& result, const Params&) {
  return {0.0, bytes_accessed(operands, result), CostUnit::none};
}

// ------------------------------------------------------------ slicing

bool is_manual(const ArrayObject& array) {
  const auto& mesh = array.layout.mesh;
  return mesh && mesh->abstract && mesh->abstract->has_axis_of_type(typecheck::AxisType::Manual);
}

namespace {

// The operand whole on every position of its mesh (a manual array already is).
ArrayRef whole(Evaluator& evaluator, const ArrayRef& operand) {
  return relayout(evaluator, operand, whole_layout(operand->layout.mesh, operand->aval.ndim()));
}

// The layout of a dynamic slice's or update's result: the operand's along
// the dimensions it keeps whole (XLA slices and updates each shard where it
// lies), so the result holds what its type says on each device.
Layout kept_layout(const ArrayObject& operand, const typecheck::ArrayType& type) {
  Layout layout = whole_layout(operand.layout.mesh, type.ndim());
  for (std::size_t d = 0; d < type.ndim(); ++d)
    if (type.shape[d] == operand.aval.shape[d]) layout.dims[d] = operand.layout.dims[d];
  return layout;
}

// A result computed whole on every position of `mesh` from `inputs`, laid
// out as `layout`: only the laid-out shards charge device memory.
ArrayRef computed_whole(Evaluator& evaluator, typecheck::ArrayType type, const Layout& layout,
                        const std::vector<ArrayRef>& inputs, bool committed,
                        const std::function<devices::Expected<devices::LocalArray>(const std::vector<devices::LocalArray>&)>& compute) {
  ArrayRef result;
  {
    UnchargedScope whole_on_each(evaluator);
    const DeviceMeshRef& mesh = layout.mesh;
    auto shards = run_per_position(evaluator, mesh, inputs, compute);
    result = make_array(evaluator, std::move(type), whole_layout(mesh, layout.dims.size()), std::move(shards), committed);
  }
  result = relayout(evaluator, result, layout);
  charge_device_memory(evaluator, *result);
  return result;
}

}  // namespace

// params: start_indices, limit_indices, strides, new_sizes (the sliced shape
// with integer-indexed dims dropped and newaxis dims added: only size-1 dims
// differ). As JAX's slice rule: the result keeps the operand's sharding; a
// sliced dim keeps it where its new extent divides (Explicit: the rule's
// error otherwise; Auto: replicated). Dims the slice leaves whole are sliced
// in place; the others are gathered first.
ArrayRef static_slice_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                     const Params& params, bool execute) {
  const ArrayRef& operand = operands[0];
  const auto& start = *params.get<std::vector<std::int64_t>>("start_indices");
  const auto& limit = *params.get<std::vector<std::int64_t>>("limit_indices");
  const auto& strides = *params.get<std::vector<std::int64_t>>("strides");
  const auto& shape = *params.get<std::vector<std::int64_t>>("new_sizes");
  // A jitted program replays this every run: the rule's type gives the
  // result's its fields, moved rather than copied.
  typecheck::ArrayType sliced = checked(typecheck::slice_rule(operand->aval, start, limit, strides));
  const typecheck::Shape sliced_shape = std::move(sliced.shape);
  const std::size_t rank = operand->aval.ndim();
  // The result dim each sliced dim of extent other than 1 becomes, in order.
  std::vector<std::optional<std::size_t>> result_dim(rank);
  for (std::size_t d = 0, r = 0; d < rank; ++d) {
    if (sliced_shape[d] == 1) continue;
    while (r < shape.size() && shape[r] == 1) ++r;
    if (r < shape.size() && shape[r] == sliced_shape[d]) result_dim[d] = r++;
  }
  auto untouched = [&](std::size_t d) {
    return start[d] == 0 && limit[d] == operand->aval.shape[d] && strides[d] == 1;
  };
  std::vector<typecheck::SpecEntry> dims(shape.size());
  for (std::size_t d = 0; d < rank; ++d)
    if (result_dim[d]) dims[*result_dim[d]] = std::move(sliced.sharding.dims[d]);
  typecheck::ArrayType type = std::move(sliced);
  type.shape = shape;
  type.sharding.dims = std::move(dims);
  // Slicing is linear: unreduced and reduced axes stay.
  type.sharding.unreduced = operand->aval.sharding.unreduced;
  type.sharding.reduced = operand->aval.sharding.reduced;

  const DeviceMeshRef& mesh = operand->layout.mesh;
  Layout needed{mesh, operand->layout.dims};
  needed.dims.resize(rank);
  for (std::size_t d = 0; d < rank; ++d)
    if (!untouched(d)) needed.dims[d].clear();
  Layout computed{mesh, std::vector<typecheck::SpecEntry>(shape.size())};
  Layout out_layout{mesh, std::vector<typecheck::SpecEntry>(shape.size())};
  for (std::size_t d = 0; d < rank; ++d) {
    if (!result_dim[d]) continue;
    computed.dims[*result_dim[d]] = needed.dims[d];
    const typecheck::SpecEntry& entry = d < operand->layout.dims.size() ? operand->layout.dims[d] : needed.dims[d];
    if (!entry.empty() && sliced_shape[d] % typecheck::axes_size(mesh->abstract, entry) == 0) out_layout.dims[*result_dim[d]] = entry;
  }
  if (typecheck::has_explicit_axis(type.sharding.mesh)) out_layout.dims = type.sharding.dims;
  if (!execute || operand->abstract())
    return make_abstract_array(std::move(type), std::move(out_layout), operand->committed);
  ArrayRef input = relayout(evaluator, operand, needed);
  bool everything = true;
  for (std::size_t d = 0; d < rank; ++d) everything = everything && untouched(d);
  std::vector<std::shared_ptr<devices::Buffer>> shards;
  if (everything) {
    shards = buffers_of(*input);  // nothing dropped (x[None]): each shard is the result's, reshaped
  } else {
    const typecheck::Shape local_shape = computed.shard_shape(shape);
    // Every position's shard has the one shape: one window for all.
    const typecheck::Shape input_shape = needed.shard_shape(operand->aval.shape);
    std::vector<std::int64_t> local_start = start, local_limit = limit;
    for (std::size_t d = 0; d < rank; ++d)
      if (untouched(d)) local_start[d] = 0, local_limit[d] = input_shape[d];
    auto kernel = [&](const std::vector<devices::LocalArray>& in, std::size_t) {
      auto window = devices::slice(in[0], local_start, local_limit, strides);
      // The same elements in the result's shard shape (only dims of extent 1 differ).
      if (window) window->shape = local_shape;
      return window;
    };
    shards = run_per_position(evaluator, mesh, {input}, {input_shape}, kernel);
  }
  // relayout keeps the type: `type` moves into the array.
  ArrayRef out = make_array(evaluator, std::move(type), std::move(computed), std::move(shards), operand->committed);
  return relayout(evaluator, out, out_layout);
}

// operands: x, then one scalar start index per dimension. params: slice_sizes.
ArrayRef dynamic_slice_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                      const Params& params, bool execute) {
  const auto& sizes = *params.get<std::vector<std::int64_t>>("slice_sizes");
  typecheck::ArrayType type = checked(typecheck::dynamic_slice_rule(operands[0]->aval, sizes));
  // The indices vary where they do: the result varies over both.
  for (std::size_t i = 1; i < operands.size(); ++i)
    type.manual.varying.insert(operands[i]->aval.manual.varying.begin(), operands[i]->aval.manual.varying.end());
  const DeviceMeshRef& mesh = operands[0]->layout.mesh;
  Layout layout = kept_layout(*operands[0], type);
  bool committed = operands[0]->committed;
  if (!execute || operands[0]->abstract()) return make_abstract_array(type, layout, committed);
  std::vector<ArrayRef> inputs;
  {
    UnchargedScope gathered(evaluator);  // the operand whole on each position: a copy XLA does not make
    inputs.push_back(whole(evaluator, operands[0]));
    for (std::size_t i = 1; i < operands.size(); ++i) {
      if (operands[i]->aval.ndim() != 0) raise(exc::TypeError(), "dynamic_slice start indices must be scalars");
      inputs.push_back(on_body(evaluator, operands[i], mesh));
    }
  }
  return computed_whole(evaluator, std::move(type), layout, inputs, committed, [&](const std::vector<devices::LocalArray>& in) {
    std::vector<std::int64_t> start;
    for (std::size_t i = 1; i < in.size(); ++i) start.push_back(scalar_index(in[i]));
    return devices::dynamic_slice(in[0], start, sizes);
  });
}

namespace {

// The scalar start indices operands[first...] as the host reads them once,
// where every device holds the same value (one process holds them all, none
// is a shard_map body's per-device value or a partial sum); nullopt
// otherwise (each device then reads its own).
std::optional<std::vector<std::int64_t>> host_indices(Evaluator& evaluator, const std::vector<ArrayRef>& operands,
                                                      std::size_t first) {
  if (runtime_of(evaluator).processes().count() != 1) return std::nullopt;
  std::vector<std::int64_t> indices;
  for (std::size_t i = first; i < operands.size(); ++i) {
    const ArrayObject& index = *operands[i];
    if (index.abstract() || is_manual(index) || !index.aval.sharding.unreduced.empty()) return std::nullopt;
    indices.push_back(scalar_index(index.local(0)));
  }
  return indices;
}

// A dynamic update each device makes in its own shard, as XLA's SPMD
// partitioner does when the update spans every split dimension whole: a
// start index there is clamped to 0 globally and locally alike, so every
// block takes its part of the update at the same local start. Null when the
// update is split otherwise, or the operand is a shard_map body's or holds
// partial sums: the caller gathers it whole.
ArrayRef updated_in_place(Evaluator& evaluator, const std::vector<ArrayRef>& operands, const ArrayRef& update,
                          typecheck::ArrayType& type, const Layout& layout) {
  const ArrayRef& operand = operands[0];
  if (is_manual(*operand) || !(operand->layout == layout) || !operand->aval.sharding.unreduced.empty() ||
      !update->aval.sharding.unreduced.empty() || !type.sharding.unreduced.empty() || update->layout.mesh != layout.mesh ||
      update->layout.dims != layout.dims)
    return nullptr;
  for (std::size_t d = 0; d < layout.dims.size(); ++d)
    if (!layout.dims[d].empty() && update->aval.shape[d] != operand->aval.shape[d]) return nullptr;
  for (std::size_t i = 2; i < operands.size(); ++i)
    if (operands[i]->aval.ndim() != 0) raise(exc::TypeError(), "dynamic_update_slice start indices must be scalars");
  if (std::optional<std::vector<std::int64_t>> start = host_indices(evaluator, operands, 2)) {
    auto shards = run_per_position(evaluator, layout.mesh, {operand, update}, [&](const std::vector<devices::LocalArray>& in) {
      return devices::dynamic_update_slice(in[0], in[1], *start);
    });
    return make_array(evaluator, std::move(type), layout, std::move(shards), operand->committed);
  }
  std::vector<ArrayRef> inputs{operand, update};
  for (std::size_t i = 2; i < operands.size(); ++i) inputs.push_back(on_body(evaluator, operands[i], layout.mesh));
  auto shards = run_per_position(evaluator, layout.mesh, inputs, [](const std::vector<devices::LocalArray>& in) {
    std::vector<std::int64_t> start;
    for (std::size_t i = 2; i < in.size(); ++i) start.push_back(scalar_index(in[i]));
    return devices::dynamic_update_slice(in[0], in[1], start);
  });
  return make_array(evaluator, std::move(type), layout, std::move(shards), operand->committed);
}

}  // namespace

// operands: x, update, then one scalar start index per dimension.
ArrayRef dynamic_update_slice_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                             const Params&, bool execute) {
  typecheck::ArrayType type = checked(typecheck::dynamic_update_slice_rule(operands[0]->aval, operands[1]->aval));
  for (std::size_t i = 1; i < operands.size(); ++i)
    type.manual.varying.insert(operands[i]->aval.manual.varying.begin(), operands[i]->aval.manual.varying.end());
  const DeviceMeshRef& mesh = operands[0]->layout.mesh;
  Layout layout = kept_layout(*operands[0], type);
  bool committed = operands[0]->committed;
  if (!execute || operands[0]->abstract()) return make_abstract_array(type, layout, committed);
  ArrayRef update = astype(evaluator, operands[1], type.dtype);
  if (ArrayRef in_place = updated_in_place(evaluator, operands, update, type, layout)) return in_place;
  std::vector<ArrayRef> inputs;
  {
    UnchargedScope gathered(evaluator);  // the operands whole on each position: copies XLA does not make
    inputs = {whole(evaluator, operands[0]), on_body(evaluator, update, mesh)};
    for (std::size_t i = 2; i < operands.size(); ++i) {
      if (operands[i]->aval.ndim() != 0) raise(exc::TypeError(), "dynamic_update_slice start indices must be scalars");
      inputs.push_back(on_body(evaluator, operands[i], mesh));
    }
  }
  return computed_whole(evaluator, std::move(type), layout, inputs, committed, [&](const std::vector<devices::LocalArray>& in) {
    std::vector<std::int64_t> start;
    for (std::size_t i = 2; i < in.size(); ++i) start.push_back(scalar_index(in[i]));
    return devices::dynamic_update_slice(in[0], in[1], start);
  });
}

Value index_static(Evaluator& evaluator, const ArrayRef& operand, std::span<const typecheck::IndexItem> items,
                   const typecheck::ArrayType& out_type) {
  using Kind = typecheck::IndexItem::Kind;
  std::vector<std::int64_t> start, limit, strides, reversed;
  std::size_t named = 0;
  for (const auto& item : items)
    if (item.kind == Kind::integer || item.kind == Kind::slice) ++named;
  std::size_t dim = 0;
  auto whole_dim = [&] {
    start.push_back(0);
    limit.push_back(operand->aval.shape[dim]);
    strides.push_back(1);
    ++dim;
  };
  for (const auto& item : items) {
    if (item.kind == Kind::newaxis) continue;
    if (item.kind == Kind::ellipsis) {
      while (dim + named < operand->aval.ndim()) whole_dim();
      continue;
    }
    std::int64_t n = operand->aval.shape[dim];
    if (item.kind == Kind::integer) {
      std::int64_t index = item.index < 0 ? item.index + n : item.index;
      start.push_back(index);
      limit.push_back(index + 1);
      strides.push_back(1);
    } else {
      // Python's slice.indices; a negative step reads the reversed dim
      // (x[first::-s] is rev(x)[n-1-first::s]).
      std::int64_t step = item.step.value_or(1);
      if (step == 0) raise(exc::ValueError(), "slice step cannot be zero");
      auto bound = [&](std::optional<std::int64_t> value, std::int64_t fallback) {
        if (!value) return fallback;
        std::int64_t v = *value < 0 ? *value + n : *value;
        return step > 0 ? std::clamp<std::int64_t>(v, 0, n) : std::clamp<std::int64_t>(v, -1, n - 1);
      };
      std::int64_t first = bound(item.start, step > 0 ? 0 : n - 1), stop = bound(item.stop, step > 0 ? n : -1);
      std::int64_t stride = std::abs(step);
      std::int64_t count = std::max<std::int64_t>(step > 0 ? (stop - first + stride - 1) / stride
                                                           : (first - stop + stride - 1) / stride, 0);
      if (step < 0) {
        reversed.push_back(static_cast<std::int64_t>(dim));
        first = n - 1 - first;
      }
      start.push_back(count == 0 ? 0 : first);
      limit.push_back(count == 0 ? 0 : first + (count - 1) * stride + 1);
      strides.push_back(stride);
    }
    ++dim;
  }
  while (dim < operand->aval.ndim()) whole_dim();
  ArrayRef input = operand;
  if (!reversed.empty()) {
    Params rev;
    rev.set("dimensions", reversed);
    input = to_array(evaluator, bind(evaluator, primitive("rev"), {operand}, std::move(rev)));
  }
  Params params;
  params.set("start_indices", start).set("limit_indices", limit).set("strides", strides);
  params.set("new_sizes", std::vector<std::int64_t>(out_type.shape.begin(), out_type.shape.end()));
  return bind(evaluator, primitive("slice"), {input}, std::move(params));
}

}  // namespace interp
