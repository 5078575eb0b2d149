// The batching rules of the elementwise, reduction, contraction and shape
// families, and the support every rule uses (batching.hpp).
#include "interp/ops/batching.hpp"

#include <algorithm>

#include "interp/ops/contractions.hpp"
#include "interp/ops/convolution.hpp"
#include "typecheck/rule_support.hpp"
#include "interp/ops/vjp_support.hpp"

namespace interp::batching {

using vjp::apply;

namespace {

Params with(const Params& params, std::string_view name, ParamValue value) { return with_param(params, name, std::move(value)); }
std::int64_t canonical(std::int64_t axis, std::int64_t rank) { return canonical_axis(axis, rank); }

std::vector<std::int64_t> shifted(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> out;
  for (auto d : dims) out.push_back(d + 1);
  return out;
}

// The mesh axes a new mapped dimension is split over: the Explicit axes the
// inputs were mapped along.
typecheck::SpecEntry mapped_entry(const BatchCall& call) { return call.axis.explicit_mesh_axis; }

}  // namespace

Params with_param(const Params& params, std::string_view name, ParamValue value) {
  Params out;
  bool found = false;
  for (const auto& [key, v] : params.entries) {
    out.set(key, key == name ? value : v);
    found = found || key == name;
  }
  if (!found) out.set(std::string(name), std::move(value));
  return out;
}

Params with_out_sharding(const Params& params, std::size_t at, const typecheck::SpecEntry& entry) {
  const auto* requested = params.get<typecheck::ShardingArg>("out_sharding");
  if (!requested) return params;
  std::vector<typecheck::SpecEntry> entries = requested->spec.partitions();
  if (entries.size() < at) entries.resize(at);
  entries.insert(entries.begin() + static_cast<std::ptrdiff_t>(at), entry);
  typecheck::ShardingArg changed{requested->mesh, typecheck::PartitionSpec::from_entries(entries, requested->spec.unreduced(),
                                                                                          requested->spec.reduced())};
  return with_param(params, "out_sharding", changed);
}

// ------------------------------------------------------------ support

ArrayRef move_dim(Evaluator& ev, const ArrayRef& x, int dim, int to) {
  if (dim == to) return x;
  std::vector<std::int64_t> permutation;
  for (std::int64_t d = 0; d < rank_of(x); ++d)
    if (d != dim) permutation.push_back(d);
  permutation.insert(permutation.begin() + to, dim);
  Params params;
  params.set("permutation", permutation);
  return apply(ev, "transpose", {x}, std::move(params));
}

ArrayRef broadcast_mapped(const BatchCall& call, const ArrayRef& x, int at) {
  typecheck::Shape shape = x->aval.shape;
  shape.insert(shape.begin() + at, call.axis.size);
  std::vector<std::int64_t> dims;
  for (std::int64_t d = 0; d < static_cast<std::int64_t>(shape.size()); ++d)
    if (d != at) dims.push_back(d);
  Params params;
  params.set("shape", std::vector<std::int64_t>(shape.begin(), shape.end()));
  params.set("broadcast_dimensions", std::move(dims));
  const typecheck::SpecEntry entry = mapped_entry(call);
  if (!entry.empty() && x->aval.sharding.mesh) {
    std::vector<typecheck::SpecEntry> entries = x->aval.sharding.dims;
    entries.resize(x->aval.ndim());
    entries.insert(entries.begin() + at, entry);
    params.set("out_sharding", typecheck::ShardingArg{x->aval.sharding.mesh, typecheck::PartitionSpec::from_entries(entries)});
  }
  return apply(call.evaluator, "broadcast_in_dim", {x}, std::move(params));
}

ArrayRef match_dim(const BatchCall& call, const ArrayRef& x, int dim, int to) {
  if (dim == not_mapped) return broadcast_mapped(call, x, to);
  return move_dim(call.evaluator, x, dim, to);
}

ArrayRef mapped_first(const BatchCall& call, std::size_t i) { return match_dim(call, call.operands[i], call.dims[i], 0); }

// ------------------------------------------------------------ elementwise

// Mapped operands get their mapped dimension first and, when their example
// has fewer dimensions than the result's, unit dimensions after it (NumPy
// broadcasting aligns the rest); unmapped operands broadcast as they are.
Batched elementwise(const BatchCall& call) {
  Evaluator& ev = call.evaluator;
  std::int64_t rank = 0;
  for (std::size_t i = 0; i < call.operands.size(); ++i)
    rank = std::max(rank, rank_of(call.operands[i]) - (call.dims[i] == not_mapped ? 0 : 1));
  Operands operands;
  for (std::size_t i = 0; i < call.operands.size(); ++i) {
    ArrayRef x = call.operands[i];
    if (call.dims[i] != not_mapped) {
      x = move_dim(ev, x, call.dims[i], 0);
      typecheck::Shape shape = x->aval.shape;
      shape.insert(shape.begin() + 1, static_cast<std::size_t>(rank - (rank_of(x) - 1)), 1);
      x = vjp::reshape(ev, x, shape);
    }
    operands.push_back(std::move(x));
  }
  return {apply(ev, call.primitive.name, std::move(operands), call.params), 0};
}

Batched convert(const BatchCall& call) {
  return {apply(call.evaluator, call.primitive.name, {call.operands[0]}, call.params), call.dims[0]};
}

// select_n(which, *cases): the cases of one shape, `which` a scalar or of
// their shape; a mapped scalar `which` is broadcast to the cases' shape.
Batched select_n(const BatchCall& call) {
  Evaluator& ev = call.evaluator;
  Operands operands(call.operands.size());
  for (std::size_t i = 1; i < call.operands.size(); ++i) operands[i] = mapped_first(call, i);
  const typecheck::Shape& shape = operands[1]->aval.shape;
  ArrayRef which = call.operands[0];
  if (call.dims[0] != not_mapped) {
    which = move_dim(ev, which, call.dims[0], 0);
    if (which->aval.ndim() == 1 && shape.size() > 1) which = vjp::broadcast(ev, which, shape, {0});
  } else if (which->aval.ndim() > 0) {
    which = broadcast_mapped(call, which, 0);
  }
  operands[0] = which;
  return {apply(ev, "select_n", std::move(operands), call.params), 0};
}

// ------------------------------------------------------------ reductions

Batched reduction(const BatchCall& call) {
  Evaluator& ev = call.evaluator;
  ArrayRef x = move_dim(ev, call.operands[0], call.dims[0], 0);
  const std::int64_t rank = rank_of(x) - 1;
  const auto* axes = call.params.get<std::vector<std::int64_t>>("axes");
  const bool keepdims = *call.params.get<bool>("keepdims");
  const bool arg = call.primitive.name == "argmax" || call.primitive.name == "argmin";
  if (!axes && arg) {
    // Over the flattened example.
    std::int64_t count = 1;
    for (std::int64_t d = 1; d <= rank; ++d) count *= x->aval.shape[static_cast<std::size_t>(d)];
    x = vjp::reshape(ev, x, {call.axis.size, count});
    Params params;
    params.set("axes", std::vector<std::int64_t>{1}).set("keepdims", false);
    ArrayRef out = apply(ev, call.primitive.name, {x}, std::move(params));
    if (keepdims) {
      typecheck::Shape shape(static_cast<std::size_t>(rank) + 1, 1);
      shape[0] = call.axis.size;
      out = vjp::reshape(ev, out, shape);
    }
    return {out, 0};
  }
  std::vector<std::int64_t> moved;
  if (axes)
    for (auto a : *axes) moved.push_back(canonical(a, rank) + 1);
  else
    for (std::int64_t d = 1; d <= rank; ++d) moved.push_back(d);
  return {apply(ev, call.primitive.name, {x}, with(call.params, "axes", moved)), 0};
}

Batched cumsum(const BatchCall& call) {
  ArrayRef x = move_dim(call.evaluator, call.operands[0], call.dims[0], 0);
  std::int64_t axis = canonical(*call.params.get<std::int64_t>("axis"), rank_of(x) - 1) + 1;
  return {apply(call.evaluator, call.primitive.name, {x}, with(call.params, "axis", axis)), 0};
}

Batched sort(const BatchCall& call) {
  Operands operands;
  for (std::size_t i = 0; i < call.operands.size(); ++i) operands.push_back(mapped_first(call, i));
  std::int64_t dimension = *call.params.get<std::int64_t>("dimension") + 1;
  return {apply(call.evaluator, "sort", std::move(operands), with(call.params, "dimension", dimension)), 0};
}

// linalg_solve and cholesky: every operand mapped first, a leading batch
// dimension the primitive takes as it is.
Batched linalg(const BatchCall& call) {
  Operands operands;
  for (std::size_t i = 0; i < call.operands.size(); ++i) operands.push_back(mapped_first(call, i));
  return {apply(call.evaluator, call.primitive.name, std::move(operands), call.params), 0};
}

// ------------------------------------------------------------ dot_general

// Both mapped: a new leading batch dimension. One mapped: its mapped
// dimension is a free dimension, which the result places after the batch
// dimensions (and, for the rhs, after the lhs's free dimensions).
Batched dot_general(const BatchCall& call) {
  Evaluator& ev = call.evaluator;
  ArrayRef lhs = call.operands[0], rhs = call.operands[1];
  const bool lhs_mapped = call.dims[0] != not_mapped, rhs_mapped = call.dims[1] != not_mapped;
  typecheck::DotDimensionNumbers numbers = dot_dimension_numbers(call.params, lhs->aval.ndim() - (lhs_mapped ? 1 : 0));
  auto shift = [](std::vector<int>& dims) {
    for (auto& d : dims) ++d;
  };
  if (lhs_mapped) {
    lhs = move_dim(ev, lhs, call.dims[0], 0);
    shift(numbers.lhs_contracting);
    shift(numbers.lhs_batch);
  }
  if (rhs_mapped) {
    rhs = move_dim(ev, rhs, call.dims[1], 0);
    shift(numbers.rhs_contracting);
    shift(numbers.rhs_batch);
  }
  int out_dim = 0;
  if (lhs_mapped && rhs_mapped) {
    numbers.lhs_batch.insert(numbers.lhs_batch.begin(), 0);
    numbers.rhs_batch.insert(numbers.rhs_batch.begin(), 0);
  } else if (lhs_mapped) {
    out_dim = static_cast<int>(numbers.lhs_batch.size());
  } else {
    out_dim = static_cast<int>(lhs->aval.ndim() - numbers.lhs_contracting.size());
  }
  Params params;
  for (const auto& entry : call.params.entries)
    if (entry.first != "lhs_contracting" && entry.first != "rhs_contracting" && entry.first != "lhs_batch" &&
        entry.first != "rhs_batch")
      params.entries.push_back(entry);
  set_dot_dimension_numbers(params, numbers, lhs->aval.ndim());
  params = with_out_sharding(params, static_cast<std::size_t>(out_dim), mapped_entry(call));
  return {apply(ev, "dot_general", {lhs, rhs}, std::move(params)), out_dim};
}

// ------------------------------------------------------------ windowed

// JAX's _conv_general_dilated_batch_rule: the mapped dimension folded into
// lhs's batch (lhs mapped), rhs's output features (rhs mapped) or, both
// mapped, into groups (feature groups, or batch groups when there are).
Batched conv_general_dilated(const BatchCall& call) {
  Evaluator& ev = call.evaluator;
  using vjp::reshape_axis_into;
  using vjp::reshape_axis_out_of;
  const typecheck::ConvDimensionNumbers n = conv_dimension_numbers(call.params);
  typecheck::ConvWindow w = conv_window(call.params);
  const int lhs_dim = call.dims[0], rhs_dim = call.dims[1];
  const ArrayRef& lhs = call.operands[0];
  const ArrayRef& rhs = call.operands[1];
  const std::int64_t size = call.axis.size;
  Params options;
  for (const auto& entry : call.params.entries)
    if (entry.first == "precision" || entry.first == "preferred_element_type" || entry.first == "out_sharding")
      options.entries.push_back(entry);
  // The out_sharding's entry for the dimension the mapped axis joins.
  auto sharded_at = [&](int dim) {
    const auto* requested = options.get<typecheck::ShardingArg>("out_sharding");
    const typecheck::SpecEntry entry = mapped_entry(call);
    if (!requested || entry.empty()) return options;
    std::vector<typecheck::SpecEntry> entries = requested->spec.partitions();
    entries.resize(std::max(entries.size(), static_cast<std::size_t>(dim) + 1));
    entries[static_cast<std::size_t>(dim)] = entry;
    return with_param(options, "out_sharding", typecheck::ShardingArg{requested->mesh, typecheck::PartitionSpec::from_entries(entries)});
  };
  const int out_batch = n.out_spec[0], out_feature = n.out_spec[1];
  if (lhs_dim != not_mapped && rhs_dim != not_mapped) {
    ArrayRef new_lhs;
    if (w.batch_group_count > 1) {
      new_lhs = reshape_axis_into(ev, lhs, lhs_dim, n.lhs_spec[0]);
      w.batch_group_count *= size;
    } else {
      new_lhs = reshape_axis_into(ev, lhs, lhs_dim, n.lhs_spec[1]);
      w.feature_group_count *= size;
    }
    ArrayRef new_rhs = reshape_axis_into(ev, rhs, rhs_dim, n.rhs_spec[0]);
    ArrayRef out = bind_conv(ev, new_lhs, new_rhs, n, w, sharded_at(out_feature));
    return {reshape_axis_out_of(ev, out, out_feature, size), out_feature};
  }
  if (lhs_dim != not_mapped) {
    ArrayRef new_lhs;
    if (w.batch_group_count == 1) {
      new_lhs = reshape_axis_into(ev, lhs, lhs_dim, n.lhs_spec[0]);
    } else {
      new_lhs = reshape_axis_out_of(ev, lhs, n.lhs_spec[0] + (lhs_dim <= n.lhs_spec[0] ? 1 : 0), w.batch_group_count);
      new_lhs = reshape_axis_into(ev, new_lhs, lhs_dim + (n.lhs_spec[0] < lhs_dim ? 1 : 0), n.lhs_spec[0] + 1);
      new_lhs = reshape_axis_into(ev, new_lhs, n.lhs_spec[0], n.lhs_spec[0]);
    }
    ArrayRef out = bind_conv(ev, new_lhs, rhs, n, w, sharded_at(out_batch));
    return {reshape_axis_out_of(ev, out, out_batch, size), out_batch};
  }
  if (w.feature_group_count == 1 && w.batch_group_count == 1) {
    ArrayRef new_rhs = reshape_axis_into(ev, rhs, rhs_dim, n.rhs_spec[0]);
    ArrayRef out = bind_conv(ev, lhs, new_rhs, n, w, sharded_at(out_feature));
    return {reshape_axis_out_of(ev, out, out_feature, size), out_feature};
  }
  const std::int64_t groups = std::max(w.feature_group_count, w.batch_group_count);
  ArrayRef new_rhs = reshape_axis_out_of(ev, rhs, n.rhs_spec[0] + (rhs_dim <= n.rhs_spec[0] ? 1 : 0), groups);
  new_rhs = reshape_axis_into(ev, new_rhs, rhs_dim + (n.rhs_spec[0] < rhs_dim ? 1 : 0), n.rhs_spec[0] + 1);
  new_rhs = reshape_axis_into(ev, new_rhs, n.rhs_spec[0], n.rhs_spec[0]);
  ArrayRef out = bind_conv(ev, lhs, new_rhs, n, w, sharded_at(out_feature));
  out = reshape_axis_out_of(ev, out, out_feature, groups);
  out = reshape_axis_out_of(ev, out, out_feature + 1, size);
  return {reshape_axis_into(ev, out, out_feature, out_feature + 1), out_feature};
}

Batched reduce_window(const BatchCall& call) {
  Operands operands;
  for (std::size_t i = 0; i < call.operands.size(); ++i) operands.push_back(mapped_first(call, i));
  Params params = call.params;
  for (auto& [name, value] : params.entries) {
    auto* values = std::get_if<std::vector<std::int64_t>>(&value);
    if (!values) continue;
    if (name == "padding") values->insert(values->begin(), {0, 0});
    else values->insert(values->begin(), 1);
  }
  return {apply(call.evaluator, call.primitive.name, std::move(operands), std::move(params)), 0};
}

// ------------------------------------------------------------ shapes

Batched reshape(const BatchCall& call) {
  ArrayRef x = move_dim(call.evaluator, call.operands[0], call.dims[0], 0);
  auto sizes = *call.params.get<std::vector<std::int64_t>>("new_sizes");
  sizes.insert(sizes.begin(), call.axis.size);
  return {apply(call.evaluator, "reshape", {x}, with(call.params, "new_sizes", sizes)), 0};
}

Batched transpose(const BatchCall& call) {
  ArrayRef x = move_dim(call.evaluator, call.operands[0], call.dims[0], 0);
  std::vector<std::int64_t> permutation{0};
  for (auto p : *call.params.get<std::vector<std::int64_t>>("permutation")) permutation.push_back(p + 1);
  return {apply(call.evaluator, "transpose", {x}, with(call.params, "permutation", permutation)), 0};
}

Batched broadcast_in_dim(const BatchCall& call) {
  ArrayRef x = move_dim(call.evaluator, call.operands[0], call.dims[0], 0);
  auto shape = *call.params.get<std::vector<std::int64_t>>("shape");
  shape.insert(shape.begin(), call.axis.size);
  std::vector<std::int64_t> dims{0};
  for (auto d : *call.params.get<std::vector<std::int64_t>>("broadcast_dimensions")) dims.push_back(d + 1);
  Params params = with(with(call.params, "shape", shape), "broadcast_dimensions", dims);
  params = with_out_sharding(params, 0, mapped_entry(call));
  return {apply(call.evaluator, "broadcast_in_dim", {x}, std::move(params)), 0};
}

Batched concatenate(const BatchCall& call) {
  Operands operands;
  for (std::size_t i = 0; i < call.operands.size(); ++i) operands.push_back(mapped_first(call, i));
  std::int64_t dimension = *call.params.get<std::int64_t>("dimension") + 1;
  return {apply(call.evaluator, "concatenate", std::move(operands), with(call.params, "dimension", dimension)), 0};
}

Batched rev(const BatchCall& call) {
  ArrayRef x = move_dim(call.evaluator, call.operands[0], call.dims[0], 0);
  const auto* dimensions = call.params.get<std::vector<std::int64_t>>("dimensions");
  auto moved = shifted(dimensions ? *dimensions : std::vector<std::int64_t>{});
  return {apply(call.evaluator, "rev", {x}, with(call.params, "dimensions", moved)), 0};
}

// device_put and with_sharding_constraint: the mapped dimension first, split
// over spmd_axis_name (else the Explicit axes the inputs were mapped along).
Batched placement(const BatchCall& call) {
  ArrayRef x = move_dim(call.evaluator, call.operands[0], call.dims[0], 0);
  const typecheck::SpecEntry entry = !call.axis.spmd_axis_name.empty() ? call.axis.spmd_axis_name : mapped_entry(call);
  Layout layout = *call.params.get<Layout>("layout");
  layout.dims.insert(layout.dims.begin(), entry);
  Params params = with(call.params, "layout", layout);
  for (const char* name : {"sharding", "requested"}) {
    const auto* given = params.get<typecheck::ShardingArg>(name);
    if (!given) continue;
    std::vector<typecheck::SpecEntry> entries = given->spec.partitions();
    entries.insert(entries.begin(), entry);
    params = with(params, name, typecheck::ShardingArg{given->mesh, typecheck::PartitionSpec::from_entries(entries)});
  }
  return {apply(call.evaluator, call.primitive.name, {x}, std::move(params)), 0};
}

// ------------------------------------------------------------ the loop

namespace {

// `x` with dimension `dim` split over the Explicit mesh axes `entry`
// (nothing when its type already says so, or it has no Explicit axes).
ArrayRef with_dim_split(Evaluator& ev, const ArrayRef& x, std::size_t dim, const typecheck::SpecEntry& entry) {
  auto dims = x->aval.sharding.dims;
  if (!typecheck::has_explicit_axis(x->aval.sharding.mesh) || dims.size() <= dim || dims[dim] == entry) return x;
  dims[dim] = entry;
  Params params;
  params.set("layout", Layout{x->layout.mesh, dims});
  return apply(ev, "device_put", {x}, std::move(params));
}

}  // namespace

// The primitive once per index of the mapped axis, on that index's slice of
// each mapped operand; the results stacked along a new leading dimension.
Batched loop(const BatchCall& call) {
  Evaluator& ev = call.evaluator;
  // On an Explicit mesh, the mapped dimensions gathered first (one index's
  // slice of a split dimension is not a split array), the result split again.
  Operands whole = call.operands;
  for (std::size_t i = 0; i < whole.size(); ++i)
    if (call.dims[i] != not_mapped) whole[i] = with_dim_split(ev, whole[i], static_cast<std::size_t>(call.dims[i]), {});
  Operands stacked;
  for (std::int64_t k = 0; k < call.axis.size; ++k) {
    Operands operands;
    for (std::size_t i = 0; i < call.operands.size(); ++i) {
      const ArrayRef& x = whole[i];
      if (call.dims[i] == not_mapped) {
        operands.push_back(x);
        continue;
      }
      auto d = static_cast<std::size_t>(call.dims[i]);
      std::vector<std::int64_t> start(x->aval.ndim(), 0), limit(x->aval.shape.begin(), x->aval.shape.end());
      start[d] = k;
      limit[d] = k + 1;
      typecheck::Shape shape = x->aval.shape;
      shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(d));
      operands.push_back(vjp::reshape(ev, vjp::window_slice(ev, x, start, limit), shape));
    }
    ArrayRef out = apply(ev, call.primitive.name, std::move(operands), call.params);
    typecheck::Shape shape = out->aval.shape;
    shape.insert(shape.begin(), 1);
    stacked.push_back(vjp::reshape(ev, out, shape));
  }
  ArrayRef out = stacked.size() == 1 ? stacked[0] : vjp::concatenate(ev, std::move(stacked), 0);
  return {with_dim_split(ev, out, 0, mapped_entry(call)), 0};
}

}  // namespace interp::batching
