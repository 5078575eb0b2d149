// The batching rules of slices, gather, the collectives (over mesh axes and
// over vmap axes) and shard_map's boundaries (batching.hpp).
#include <algorithm>

#include "interp/ops/batching.hpp"
#include "interp/ops/vjp_support.hpp"

namespace interp::batching {

using vjp::apply;

namespace {

Params with(const Params& params, std::string_view name, ParamValue value) { return with_param(params, name, std::move(value)); }
std::int64_t canonical(std::int64_t axis, std::int64_t rank) { return canonical_axis(axis, rank); }

std::vector<std::int64_t> prepended(std::int64_t first, const std::vector<std::int64_t>* rest) {
  std::vector<std::int64_t> out{first};
  if (rest) out.insert(out.end(), rest->begin(), rest->end());
  return out;
}

ArrayRef index_zero(Evaluator& ev) { return to_array(ev, Value::integer(0), typecheck::DType::int32); }

bool indices_mapped(const BatchCall& call, std::size_t first) {
  for (std::size_t i = first; i < call.dims.size(); ++i)
    if (call.dims[i] != not_mapped) return true;
  return false;
}

}  // namespace

// ------------------------------------------------------------ slices

Batched slice(const BatchCall& call) {
  ArrayRef x = move_dim(call.evaluator, call.operands[0], call.dims[0], 0);
  Params params = with(call.params, "start_indices", prepended(0, call.params.get<std::vector<std::int64_t>>("start_indices")));
  params = with(params, "limit_indices", prepended(call.axis.size, call.params.get<std::vector<std::int64_t>>("limit_indices")));
  params = with(params, "strides", prepended(1, call.params.get<std::vector<std::int64_t>>("strides")));
  params = with(params, "new_sizes", prepended(call.axis.size, call.params.get<std::vector<std::int64_t>>("new_sizes")));
  return {apply(call.evaluator, "slice", {x}, std::move(params)), 0};
}

// Mapped start indices: one slice per index (the loop).
Batched dynamic_slice(const BatchCall& call) {
  if (indices_mapped(call, 1)) return loop(call);
  Operands operands{move_dim(call.evaluator, call.operands[0], call.dims[0], 0), index_zero(call.evaluator)};
  operands.insert(operands.end(), call.operands.begin() + 1, call.operands.end());
  Params params = with(call.params, "slice_sizes", prepended(call.axis.size, call.params.get<std::vector<std::int64_t>>("slice_sizes")));
  return {apply(call.evaluator, "dynamic_slice", std::move(operands), std::move(params)), 0};
}

Batched dynamic_update_slice(const BatchCall& call) {
  if (indices_mapped(call, 2)) return loop(call);
  Operands operands{mapped_first(call, 0), mapped_first(call, 1), index_zero(call.evaluator)};
  operands.insert(operands.end(), call.operands.begin() + 2, call.operands.end());
  return {apply(call.evaluator, "dynamic_update_slice", std::move(operands), call.params), 0};
}

Batched update_slice(const BatchCall& call) {
  Params params = with(call.params, "start_indices", prepended(0, call.params.get<std::vector<std::int64_t>>("start_indices")));
  return {apply(call.evaluator, "update_slice", {mapped_first(call, 0), mapped_first(call, 1)}, std::move(params)), 0};
}

// take(x, indices, axis): x mapped alone moves the axis; indices mapped alone
// put their mapped dimension where the indices' dimensions go; both, the loop.
Batched gather(const BatchCall& call) {
  Evaluator& ev = call.evaluator;
  const std::int64_t axis = *call.params.get<std::int64_t>("axis");
  const bool x_mapped = call.dims[0] != not_mapped, indices_mapped = call.dims[1] != not_mapped;
  if (x_mapped && indices_mapped) return loop(call);
  auto with_entry = [&](const Params& params, std::size_t at) {
    return with_out_sharding(params, at, call.axis.explicit_mesh_axis);
  };
  if (x_mapped) {
    ArrayRef x = move_dim(ev, call.operands[0], call.dims[0], 0);
    Params params = with_entry(with(call.params, "axis", axis + 1), 0);
    return {apply(ev, "gather", {x, call.operands[1]}, std::move(params)), 0};
  }
  int out_dim = static_cast<int>(axis) + call.dims[1];
  Params params = call.params;
  // On an Explicit mesh the mapped indices' split is the result's: the
  // example's sharding with the mapped axes at the mapped dimension.
  if (!call.axis.explicit_mesh_axis.empty() && !params.get<typecheck::ShardingArg>("out_sharding")) {
    std::vector<typecheck::SpecEntry> entries = call.example.sharding.dims;
    entries.resize(call.example.ndim());
    params.set("out_sharding", typecheck::ShardingArg{call.operands[1]->aval.sharding.mesh, typecheck::PartitionSpec::from_entries(entries)});
  }
  return {apply(ev, "gather", {call.operands[0], call.operands[1]}, with_entry(params, static_cast<std::size_t>(out_dim))), out_dim};
}

// ------------------------------------------------------------ collectives

bool over_vmap_axis(const Params& params) { return params.get<std::int64_t>("axis_size") != nullptr; }

ArrayRef vmap_collective_abstract(Evaluator& ev, const Primitive& primitive, const Operands& operands,
                                  const Params& params) {
  const std::int64_t size = *params.get<std::int64_t>("axis_size");
  const std::string_view name = primitive.name;
  if (name == "axis_index") {
    typecheck::ArrayType type{typecheck::DType::int32, {}, false, typecheck::Sharding::replicated(nullptr, 0), {}};
    return make_abstract_array(type, default_layout(ev, 0), false);
  }
  const ArrayRef& x = operands.at(0);
  typecheck::ArrayType type = x->aval;
  Layout layout = x->layout;
  layout.dims.resize(type.ndim());
  type.sharding.dims.resize(type.ndim());
  if (name == "pmean" && !typecheck::is_floating(type.dtype)) type.dtype = typecheck::DType::float32;
  const bool tiled = params.get<bool>("tiled") && *params.get<bool>("tiled");
  if (name == "all_gather") {
    auto axis = static_cast<std::size_t>(canonical(*params.get<std::int64_t>("axis"), rank_of(x) + (tiled ? 0 : 1)));
    if (axis > type.ndim() || (tiled && axis >= type.ndim()))
      raise(exc::ValueError(), "all_gather axis " + std::to_string(axis) + " is out of bounds for an operand of rank " +
                                   std::to_string(type.ndim()));
    if (tiled) {
      type.shape[axis] *= size;
    } else {
      type.shape.insert(type.shape.begin() + static_cast<std::ptrdiff_t>(axis), size);
      type.sharding.dims.insert(type.sharding.dims.begin() + static_cast<std::ptrdiff_t>(axis), typecheck::SpecEntry{});
      layout.dims.insert(layout.dims.begin() + static_cast<std::ptrdiff_t>(axis), typecheck::SpecEntry{});
    }
  } else if (name == "psum_scatter") {
    auto dim = static_cast<std::size_t>(canonical(*params.get<std::int64_t>("scatter_dimension"), rank_of(x)));
    if (dim >= type.ndim() || (tiled ? type.shape[dim] % size != 0 : type.shape[dim] != size))
      raise(exc::ValueError(), "psum_scatter: the scatter dimension of " + x->aval.short_str() +
                                   (tiled ? " must divide by the axis size " : " must equal the axis size ") +
                                   std::to_string(size));
    if (tiled) {
      type.shape[dim] /= size;
    } else {
      type.shape.erase(type.shape.begin() + static_cast<std::ptrdiff_t>(dim));
      type.sharding.dims.erase(type.sharding.dims.begin() + static_cast<std::ptrdiff_t>(dim));
      layout.dims.erase(layout.dims.begin() + static_cast<std::ptrdiff_t>(dim));
    }
  } else if (name == "all_to_all") {
    raise(exc::NotImplementedError(), "all_to_all over a vmap axis is not supported");
  }
  return make_abstract_array(type, layout, x->committed);
}

namespace {

// The sum over the axis of a value alike for every index.
ArrayRef times_size(const BatchCall& call, const ArrayRef& x) {
  const double size = static_cast<double>(call.axis.size);
  Value factor = typecheck::is_floating(x->aval.dtype) ? Value::floating(size) : Value::integer(call.axis.size);
  return vjp::mul(call.evaluator, x, to_array(call.evaluator, factor));
}

// A collective of the vmap whose rule runs (its own axis name).
Batched own_axis_collective(const BatchCall& call) {
  Evaluator& ev = call.evaluator;
  const std::string_view name = call.primitive.name;
  const std::int64_t size = call.axis.size;
  if (name == "axis_index") {
    std::vector<Value> indices;
    for (std::int64_t k = 0; k < size; ++k) indices.push_back(Value::integer(k));
    return {to_array(ev, make_list(std::move(indices)), typecheck::DType::int32), 0};
  }
  ArrayRef x = call.operands[0];
  const int dim = call.dims[0];
  const bool tiled = call.params.get<bool>("tiled") && *call.params.get<bool>("tiled");
  if (name == "pvary") return {x, dim};
  if (name == "psum" || name == "pmean" || name == "pmax" || name == "pmin") {
    if (dim == not_mapped) {
      if (name == "psum") return {times_size(call, x), not_mapped};
      if (name == "pmean" && !typecheck::is_floating(x->aval.dtype)) return {vjp::convert(ev, x, typecheck::DType::float32), not_mapped};
      return {x, not_mapped};
    }
    std::string reduction = name == "psum" ? "reduce_sum" : name == "pmean" ? "reduce_mean" : name == "pmax" ? "reduce_max" : "reduce_min";
    Params params;
    params.set("axes", std::vector<std::int64_t>{dim}).set("keepdims", false);
    return {apply(ev, reduction, {x}, std::move(params)), not_mapped};
  }
  if (name == "all_gather") {
    const std::int64_t rank = rank_of(x) - (dim == not_mapped ? 0 : 1);
    const auto axis = static_cast<int>(canonical(*call.params.get<std::int64_t>("axis"), rank + (tiled ? 0 : 1)));
    ArrayRef gathered = match_dim(call, x, dim, axis);
    if (!tiled) return {gathered, not_mapped};
    typecheck::Shape shape = gathered->aval.shape;
    shape[static_cast<std::size_t>(axis)] *= shape[static_cast<std::size_t>(axis) + 1];
    shape.erase(shape.begin() + axis + 1);
    return {vjp::reshape(ev, gathered, shape), not_mapped};
  }
  if (name == "psum_scatter") {
    // Summed over the examples, then example k keeps block k of the scatter dimension.
    const std::int64_t rank = rank_of(x) - (dim == not_mapped ? 0 : 1);
    const auto scatter = static_cast<std::size_t>(canonical(*call.params.get<std::int64_t>("scatter_dimension"), rank));
    ArrayRef summed = dim == not_mapped ? times_size(call, x) : vjp::reduce_sum(ev, x, {dim});
    if (!tiled) return {summed, static_cast<int>(scatter)};
    typecheck::Shape shape = summed->aval.shape;
    shape[scatter] /= size;
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(scatter), size);
    return {vjp::reshape(ev, summed, shape), static_cast<int>(scatter)};
  }
  if (name == "ppermute") {
    // Example `target` takes example `source`'s value; examples no pair
    // targets get zeros.
    const auto& flat = *call.params.get<std::vector<std::int64_t>>("perm");
    std::vector<Value> sources(static_cast<std::size_t>(size), Value::integer(0)), keep(static_cast<std::size_t>(size), Value::floating(0.0));
    for (std::size_t i = 0; i + 1 < flat.size(); i += 2) {
      sources.at(static_cast<std::size_t>(flat[i + 1])) = Value::integer(flat[i]);
      keep.at(static_cast<std::size_t>(flat[i + 1])) = Value::floating(1.0);
    }
    ArrayRef mapped = move_dim(ev, dim == not_mapped ? broadcast_mapped(call, x, 0) : x, dim == not_mapped ? 0 : dim, 0);
    Params params;
    params.set("axis", std::int64_t{0});
    ArrayRef moved = apply(ev, "gather", {mapped, to_array(ev, make_list(std::move(sources)), typecheck::DType::int32)}, std::move(params));
    typecheck::Shape mask_shape(moved->aval.ndim(), 1);
    mask_shape[0] = size;
    ArrayRef mask = vjp::reshape(ev, to_array(ev, make_list(std::move(keep)), moved->aval.dtype), mask_shape);
    return {vjp::mul(ev, moved, mask), 0};
  }
  raise(exc::NotImplementedError(), std::string(name) + " over a vmap axis is not supported");
}

}  // namespace

// Over mesh axes or another vmap's axis: the collective applies to every
// example alike, so it runs on the batched value with its axes shifted.
Batched collective(const BatchCall& call) {
  if (over_vmap_axis(call.params) && *call.params.get<std::string>("axis_name") == call.axis.name)
    return own_axis_collective(call);
  Evaluator& ev = call.evaluator;
  const std::string_view name = call.primitive.name;
  ArrayRef x = call.operands[0];
  const int dim = call.dims[0];
  const std::int64_t rank = rank_of(x) - 1;
  const bool tiled = call.params.get<bool>("tiled") && *call.params.get<bool>("tiled");
  if (name == "all_gather" || name == "psum_scatter" || name == "all_to_all") {
    x = move_dim(ev, x, dim, 0);
    Params params = call.params;
    if (name == "all_gather") params = with(params, "axis", canonical(*params.get<std::int64_t>("axis"), rank + (tiled ? 0 : 1)) + 1);
    if (name == "psum_scatter")
      params = with(params, "scatter_dimension", canonical(*params.get<std::int64_t>("scatter_dimension"), rank) + 1);
    if (name == "all_to_all") {
      params = with(params, "split_axis", canonical(*params.get<std::int64_t>("split_axis"), rank) + 1);
      params = with(params, "concat_axis", canonical(*params.get<std::int64_t>("concat_axis"), rank) + 1);
    }
    return {apply(ev, name, {x}, std::move(params)), 0};
  }
  return {apply(ev, name, {x}, call.params), dim};
}

// Across shard_map's boundary the mapped dimension goes first, split over
// spmd_axis_name where the shard_map's mesh has it.
Batched shard_map_boundary(const BatchCall& call) {
  ArrayRef x = move_dim(call.evaluator, call.operands[0], call.dims[0], 0);
  const char* spec_name = call.primitive.name == "shard_map_enter" ? "in_spec" : "out_spec";
  Layout spec = *call.params.get<Layout>(spec_name);
  typecheck::SpecEntry entry;
  for (const auto& axis : call.axis.spmd_axis_name)
    if (spec.mesh->abstract->index_of(axis)) entry.push_back(axis);
  spec.dims.insert(spec.dims.begin(), entry);
  return {apply(call.evaluator, call.primitive.name, {x}, with(call.params, spec_name, spec)), 0};
}

}  // namespace interp::batching
