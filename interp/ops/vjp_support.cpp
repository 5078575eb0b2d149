// The array operations VJP rules build cotangents from (vjp_support.hpp).
#include "interp/ops/vjp_support.hpp"

#include <algorithm>

#include "interp/ops/collectives.hpp"

namespace interp::vjp {

using typecheck::DType;

namespace {

ArrayRef as_array(const Value& value) { return std::static_pointer_cast<ArrayObject>(value.object()); }

}  // namespace

ArrayRef apply(Evaluator& ev, std::string_view name, Operands operands, Params params) {
  return as_array(bind(ev, primitive(name), std::move(operands), std::move(params)));
}

ArrayRef scalar(Evaluator& ev, double value) { return to_array(ev, Value::floating(value)); }

ArrayRef add(Evaluator& ev, const ArrayRef& a, const ArrayRef& b) { return apply(ev, "add", {a, b}); }
ArrayRef sub(Evaluator& ev, const ArrayRef& a, const ArrayRef& b) { return apply(ev, "subtract", {a, b}); }
ArrayRef mul(Evaluator& ev, const ArrayRef& a, const ArrayRef& b) { return apply(ev, "multiply", {a, b}); }
ArrayRef div(Evaluator& ev, const ArrayRef& a, const ArrayRef& b) { return apply(ev, "divide", {a, b}); }
ArrayRef neg(Evaluator& ev, const ArrayRef& a) { return apply(ev, "negative", {a}); }
ArrayRef mul(Evaluator& ev, const ArrayRef& a, double b) { return mul(ev, a, scalar(ev, b)); }
ArrayRef add(Evaluator& ev, const ArrayRef& a, double b) { return add(ev, a, scalar(ev, b)); }

ArrayRef convert(Evaluator& ev, const ArrayRef& a, DType dtype) {
  if (a->aval.dtype == dtype && !a->aval.weak_type) return a;
  Params params;
  params.set("new_dtype", std::string(typecheck::long_name(dtype)));
  return apply(ev, "convert_element_type", {a}, std::move(params));
}

ArrayRef reduce_sum(Evaluator& ev, const ArrayRef& a, std::vector<std::int64_t> axes) {
  if (axes.empty()) return a;
  Params params;
  params.set("axes", std::move(axes));
  params.set("keepdims", false);
  return apply(ev, "reduce_sum", {a}, std::move(params));
}

ArrayRef reshape(Evaluator& ev, const ArrayRef& a, const typecheck::Shape& shape) {
  if (a->aval.shape == shape) return a;
  Params params;
  params.set("new_sizes", std::vector<std::int64_t>(shape.begin(), shape.end()));
  return apply(ev, "reshape", {a}, std::move(params));
}

ArrayRef reshape_axis_into(Evaluator& ev, const ArrayRef& a, int src, int dst) {
  std::vector<std::int64_t> permutation;
  for (int d = 0; d < static_cast<int>(a->aval.ndim()); ++d)
    if (d != src) permutation.push_back(d);
  permutation.insert(permutation.begin() + dst, src);
  typecheck::Shape shape = a->aval.shape;
  shape.erase(shape.begin() + src);
  shape[static_cast<std::size_t>(dst)] *= a->aval.shape[static_cast<std::size_t>(src)];
  ArrayRef moved = a;
  bool identity = true;
  for (std::size_t d = 0; d < permutation.size(); ++d) identity = identity && permutation[d] == static_cast<std::int64_t>(d);
  if (!identity) {
    Params params;
    params.set("permutation", std::move(permutation));
    moved = apply(ev, "transpose", {a}, std::move(params));
  }
  return reshape(ev, moved, shape);
}

ArrayRef reshape_axis_out_of(Evaluator& ev, const ArrayRef& a, int src, std::int64_t size) {
  typecheck::Shape shape = a->aval.shape;
  const std::int64_t rest = shape[static_cast<std::size_t>(src)] / size;
  shape[static_cast<std::size_t>(src)] = rest;
  shape.insert(shape.begin() + src, size);
  return reshape(ev, a, shape);
}

ArrayRef broadcast(Evaluator& ev, const ArrayRef& a, const typecheck::Shape& shape, std::vector<std::int64_t> dims) {
  if (a->aval.shape == shape) return a;
  Params params;
  params.set("shape", std::vector<std::int64_t>(shape.begin(), shape.end()));
  params.set("broadcast_dimensions", std::move(dims));
  return apply(ev, "broadcast_in_dim", {a}, std::move(params));
}

ArrayRef zeros_like(Evaluator& ev, const typecheck::ArrayType& type) {
  return broadcast(ev, convert(ev, scalar(ev, 0.0), type.dtype), type.shape, {});
}

ArrayRef zeros_on(Evaluator& ev, const ArrayRef& like, DType dtype) {
  typecheck::ArrayType type = like->aval;
  type.dtype = dtype;
  // Outside the shard_map body, a literal would be on the context mesh, not
  // the body's: a manual array's zeros are made from it.
  if (is_manual(*like)) return mul(ev, convert(ev, like, dtype), 0.0);
  ArrayRef zeros = zeros_like(ev, type);
  if (!like->committed || zeros->layout == like->layout) return zeros;
  // Placed as `like` is (with Explicit axes, its type's sharding too).
  Params params;
  params.set("layout", like->layout);
  return apply(ev, "device_put", {zeros}, std::move(params));
}

ArrayRef zeros_for(Evaluator& ev, const ArrayRef& like, const ArrayRef& ct, DType dtype) {
  ArrayRef zeros = zeros_on(ev, like, dtype);
  const typecheck::AxisSet& unreduced = ct->aval.sharding.unreduced;
  if (unreduced.empty() || zeros->aval.sharding.unreduced == unreduced) return zeros;
  Params params;
  params.set("layout", zeros->layout);
  params.set("requested", typecheck::ShardingArg{std::nullopt, typecheck::PartitionSpec::from_entries(zeros->layout.dims, unreduced)});
  return apply(ev, "device_put", {zeros}, std::move(params));
}

ArrayRef window_slice(Evaluator& ev, const ArrayRef& a, std::vector<std::int64_t> start, std::vector<std::int64_t> limit) {
  std::vector<std::int64_t> sizes;
  for (std::size_t d = 0; d < start.size(); ++d) sizes.push_back(limit[d] - start[d]);
  Params params;
  params.set("start_indices", std::move(start)).set("limit_indices", std::move(limit));
  params.set("strides", std::vector<std::int64_t>(sizes.size(), 1)).set("new_sizes", sizes);
  return apply(ev, "slice", {a}, std::move(params));
}

ArrayRef concatenate(Evaluator& ev, std::vector<ArrayRef> parts, std::int64_t dimension) {
  Params params;
  params.set("dimension", dimension);
  return apply(ev, "concatenate", std::move(parts), std::move(params));
}

ArrayRef dilate(Evaluator& ev, const ArrayRef& a, std::size_t dim, std::int64_t stride, std::int64_t length) {
  typecheck::Shape shape = a->aval.shape;
  typecheck::Shape split = shape;
  split.insert(split.begin() + static_cast<std::ptrdiff_t>(dim) + 1, 1);
  typecheck::ArrayType gap_type = a->aval;
  gap_type.shape = split;
  gap_type.shape[dim + 1] = stride - 1;
  ArrayRef spread = concatenate(ev, {reshape(ev, a, split), zeros_like(ev, gap_type)}, static_cast<std::int64_t>(dim) + 1);
  typecheck::Shape merged = shape;
  merged[dim] *= stride;
  std::vector<std::int64_t> start(shape.size(), 0), limit(merged.begin(), merged.end());
  limit[dim] = length;
  return window_slice(ev, reshape(ev, spread, merged), std::move(start), std::move(limit));
}

ArrayRef unbroadcast(Evaluator& ev, const ArrayRef& ct, const ArrayRef& operand) {
  const auto& target = operand->aval.shape;
  const auto& have = ct->aval.shape;
  if (have == target) return ct;
  std::size_t lead = have.size() - target.size();
  std::vector<std::int64_t> axes;
  for (std::size_t d = 0; d < lead; ++d) axes.push_back(static_cast<std::int64_t>(d));
  for (std::size_t d = 0; d < target.size(); ++d)
    if (target[d] == 1 && have[lead + d] != 1) axes.push_back(static_cast<std::int64_t>(lead + d));
  return reshape(ev, reduce_sum(ev, ct, axes), target);
}

ArrayRef indicator(Evaluator& ev, std::string_view name, const ArrayRef& a, const ArrayRef& b, DType dtype) {
  return convert(ev, apply(ev, name, {a, b}), dtype);
}

const std::vector<std::int64_t>* int_param(const Params& params, std::string_view name) {
  return params.get<std::vector<std::int64_t>>(name);
}

std::vector<std::int64_t> reduced_axes(const Params& params, std::size_t ndim) {
  std::vector<std::int64_t> axes;
  if (const auto* given = int_param(params, "axes")) {
    for (auto a : *given) axes.push_back(a < 0 ? a + static_cast<std::int64_t>(ndim) : a);
  } else {
    for (std::size_t d = 0; d < ndim; ++d) axes.push_back(static_cast<std::int64_t>(d));
  }
  return axes;
}

ArrayRef expand_reduced(Evaluator& ev, const ArrayRef& reduced, const ArrayRef& operand, const Params& params) {
  std::size_t ndim = operand->aval.ndim();
  auto axes = reduced_axes(params, ndim);
  const bool* keepdims = params.get<bool>("keepdims");
  std::vector<std::int64_t> kept;
  for (std::size_t d = 0; d < ndim; ++d)
    if ((keepdims && *keepdims) || std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) == axes.end())
      kept.push_back(static_cast<std::int64_t>(d));
  // As JAX's reduce_sum transpose: sharded as the operand is (its Explicit
  // axes), so a cotangent that meets a sharded operand is sharded alike.
  const typecheck::Sharding& sharding = operand->aval.sharding;
  const bool sharded = std::any_of(sharding.dims.begin(), sharding.dims.end(), [](const auto& e) { return !e.empty(); });
  if (!sharding.mesh || !sharded || reduced->aval.shape == operand->aval.shape)
    return broadcast(ev, reduced, operand->aval.shape, kept);
  ArrayRef placed = reduced;
  // An uncommitted cotangent (grad's seed) off the operand's devices, with no
  // context mesh to take it there: put on them first.
  if (!reduced->committed && reduced->layout.mesh != operand->layout.mesh &&
      !(runtime_of(ev).context_mesh && *runtime_of(ev).context_mesh->mesh->abstract == *sharding.mesh)) {
    Params put;
    put.set("layout", Layout{operand->layout.mesh, std::vector<typecheck::SpecEntry>(reduced->aval.ndim())});
    placed = apply(ev, "device_put", {reduced}, std::move(put));
  }
  Params broadcast_params;
  broadcast_params.set("shape", std::vector<std::int64_t>(operand->aval.shape.begin(), operand->aval.shape.end()));
  broadcast_params.set("broadcast_dimensions", std::move(kept));
  broadcast_params.set("out_sharding", typecheck::ShardingArg{sharding.mesh, typecheck::PartitionSpec::from_entries(sharding.dims)});
  return apply(ev, "broadcast_in_dim", {placed}, std::move(broadcast_params));
}

double reduced_count(const ArrayRef& operand, const Params& params) {
  double count = 1;
  for (auto a : reduced_axes(params, operand->aval.ndim())) count *= static_cast<double>(operand->aval.shape[static_cast<std::size_t>(a)]);
  return count;
}

typecheck::AxisList collective_axes(const Params& params) {
  typecheck::AxisList names;
  const std::string& joined = *params.get<std::string>("axis_name");
  for (std::size_t begin = 0; begin <= joined.size();) {
    auto comma = std::min(joined.find(',', begin), joined.size());
    if (comma > begin) names.push_back(joined.substr(begin, comma - begin));
    begin = comma + 1;
  }
  return names;
}

bool checks_vma(const Params& params) {
  const bool* check = params.get<bool>("check_vma");
  return !check || *check;
}

namespace {

std::string joined_axes(const typecheck::AxisList& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

}  // namespace

ArrayRef collective(Evaluator& ev, std::string_view name, const ArrayRef& operand, const Params& like,
                    const typecheck::AxisList& names, Params extra) {
  Params params;
  params.set("axis_name", joined_axes(names));
  params.set("mesh", *like.get<Layout>("mesh")).set("check_vma", checks_vma(like));
  for (auto& entry : extra.entries) params.entries.push_back(std::move(entry));
  return apply(ev, name, {operand}, std::move(params));
}

ArrayRef match_vma(Evaluator& ev, const ArrayRef& primal, const ArrayRef& ct) {
  if (!is_manual(*ct)) return ct;
  // Varying where the primal is not: summed, or, where the primal is
  // reduced, cast to unreduced (a reduced primal's cotangent is unreduced).
  typecheck::AxisList extra, to_unreduced;
  for (const auto& axis : ct->aval.manual.varying)
    if (!primal->aval.manual.varying.contains(axis))
      (primal->aval.manual.reduced.contains(axis) ? to_unreduced : extra).push_back(axis);
  if (extra.empty() && to_unreduced.empty()) return ct;
  Params params;
  params.set("mesh", Layout{ct->layout.mesh, {}}).set("check_vma", true);
  ArrayRef out = ct;
  if (!to_unreduced.empty()) out = collective(ev, "vary_unreduced_cast", out, params, to_unreduced);
  if (!extra.empty()) out = collective(ev, "psum", out, params, extra);
  return out;
}

}  // namespace interp::vjp
