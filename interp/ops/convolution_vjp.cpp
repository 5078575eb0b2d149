// The VJP rules of the windowed primitives (vjp_rules.hpp): JAX's
// convolution transposes (_conv_general_dilated_transpose_lhs and _rhs,
// themselves convolutions), reduce_window_sum's transpose (a windowed sum
// of the spread cotangent), max's and min's select_and_scatter_add, and
// that one's transpose select_and_gather_add.
#include <algorithm>

#include "interp/ops/convolution.hpp"
#include "interp/ops/vjp_rules.hpp"
#include "interp/ops/vjp_support.hpp"

namespace interp::vjp {

namespace {

std::vector<std::int64_t> taken(const typecheck::Shape& shape, const std::vector<int>& spec) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 2; i < spec.size(); ++i) out.push_back(shape[static_cast<std::size_t>(spec[i])]);
  return out;
}

std::vector<int> spec_transposed(std::vector<int> spec) {
  std::swap(spec[0], spec[1]);
  return spec;
}

std::vector<std::int64_t> dilated(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& dilation) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < sizes.size(); ++i) out.push_back(typecheck::dilate_dim(sizes[i], dilation[i]));
  return out;
}

// _conv_general_vjp_lhs_padding (also reduce_window_sum's transpose).
typecheck::Padding lhs_padding(const std::vector<std::int64_t>& in, const std::vector<std::int64_t>& window,
                               const std::vector<std::int64_t>& out, const typecheck::ConvWindow& w) {
  const auto lhs = dilated(in, w.lhs_dilation), rhs = dilated(window, w.rhs_dilation), result = dilated(out, w.strides);
  typecheck::Padding pads;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::int64_t before = rhs[i] - w.padding[i].first - 1;
    pads.emplace_back(before, lhs[i] + rhs[i] - 1 - result[i] - before);
  }
  return pads;
}

// _conv_general_vjp_rhs_padding.
typecheck::Padding rhs_padding(const std::vector<std::int64_t>& in, const std::vector<std::int64_t>& window,
                               const std::vector<std::int64_t>& out, const typecheck::ConvWindow& w) {
  const auto lhs = dilated(in, w.lhs_dilation), rhs = dilated(window, w.rhs_dilation), result = dilated(out, w.strides);
  typecheck::Padding pads;
  for (std::size_t i = 0; i < in.size(); ++i)
    pads.emplace_back(w.padding[i].first, result[i] - lhs[i] + rhs[i] - w.padding[i].first - 1);
  return pads;
}

// The options of the transposed convolution: the primal's precision and
// preferred type, and in Explicit mode the operand's own sharding as
// out_sharding (JAX passes lhs.aval.sharding / rhs.aval.sharding; an
// operand off the mesh, a kernel made outside it, is replicated on it).
Params transposed_options(const Params& params, const ArrayRef& primal, const ArrayRef& ct) {
  Params options;
  for (const char* name : {"precision", "preferred_element_type"})
    if (const auto* value = params.get<std::string>(name)) options.set(name, *value);
  auto explicit_mesh = [](const typecheck::ArrayType& type) {
    return type.sharding.mesh && type.sharding.mesh->has_axis_of_type(typecheck::AxisType::Explicit);
  };
  const auto& sharding = primal->aval.sharding;
  if (explicit_mesh(primal->aval))
    options.set("out_sharding", typecheck::ShardingArg{sharding.mesh, typecheck::PartitionSpec::from_entries(sharding.dims)});
  else if (explicit_mesh(ct->aval))
    options.set("out_sharding", typecheck::ShardingArg{ct->aval.sharding.mesh, typecheck::PartitionSpec::from_entries({})});
  return options;
}

ArrayRef conv_lhs_cotangent(Evaluator& ev, const ArrayRef& lhs, ArrayRef rhs, const ArrayRef& ct, const Params& params) {
  const typecheck::ConvDimensionNumbers n = conv_dimension_numbers(params);
  const typecheck::ConvWindow w = conv_window(params);
  const typecheck::Shape rhs_shape = rhs->aval.shape;
  std::int64_t groups = w.feature_group_count;
  if (w.feature_group_count > 1 || w.batch_group_count > 1) {
    rhs = reshape_axis_out_of(ev, rhs, n.rhs_spec[0], std::max(w.feature_group_count, w.batch_group_count));
    rhs = reshape_axis_into(ev, rhs, n.rhs_spec[0], n.rhs_spec[1]);
    groups = std::max(w.feature_group_count, w.batch_group_count);
  }
  typecheck::ConvWindow t;
  t.strides = w.lhs_dilation;
  t.padding = lhs_padding(taken(lhs->aval.shape, n.lhs_spec), taken(rhs_shape, n.rhs_spec), taken(ct->aval.shape, n.out_spec), w);
  t.lhs_dilation = w.strides;
  t.rhs_dilation = w.rhs_dilation;
  t.feature_group_count = groups;
  Params reversed;
  reversed.set("dimensions", std::vector<std::int64_t>(n.rhs_spec.begin() + 2, n.rhs_spec.end()));
  ArrayRef kernel = convert(ev, apply(ev, "rev", {rhs}, std::move(reversed)), ct->aval.dtype);
  const typecheck::ConvDimensionNumbers numbers{n.out_spec, spec_transposed(n.rhs_spec), n.lhs_spec};
  ArrayRef out = convert(ev, bind_conv(ev, ct, kernel, numbers, t, transposed_options(params, lhs, ct)), lhs->aval.dtype);
  if (w.batch_group_count > 1) {
    out = reshape_axis_out_of(ev, out, n.lhs_spec[1], w.batch_group_count);
    out = reshape_axis_into(ev, out, n.lhs_spec[1], n.lhs_spec[0]);
  }
  return out;
}

ArrayRef conv_rhs_cotangent(Evaluator& ev, const ArrayRef& lhs, const ArrayRef& rhs, const ArrayRef& ct, const Params& params) {
  const typecheck::ConvDimensionNumbers n = conv_dimension_numbers(params);
  const typecheck::ConvWindow w = conv_window(params);
  typecheck::ConvWindow t;
  t.strides = w.rhs_dilation;
  t.padding = rhs_padding(taken(lhs->aval.shape, n.lhs_spec), taken(rhs->aval.shape, n.rhs_spec), taken(ct->aval.shape, n.out_spec), w);
  t.lhs_dilation = w.lhs_dilation;
  t.rhs_dilation = w.strides;
  t.feature_group_count = w.batch_group_count;
  t.batch_group_count = w.feature_group_count;
  const typecheck::ConvDimensionNumbers numbers{spec_transposed(n.lhs_spec), spec_transposed(n.out_spec),
                                                spec_transposed(n.rhs_spec)};
  ArrayRef input = convert(ev, lhs, ct->aval.dtype);
  return convert(ev, bind_conv(ev, input, ct, numbers, t, transposed_options(params, rhs, ct)), rhs->aval.dtype);
}

}  // namespace

Cotangents conv_general_dilated_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  Cotangents out(2);
  const bool empty = std::any_of(ct->aval.shape.begin(), ct->aval.shape.end(), [](std::int64_t s) { return s == 0; });
  if (needs[0]) out[0] = conv_lhs_cotangent(ev, x[0], x[1], ct, params);
  if (needs[1]) out[1] = empty ? zeros_on(ev, x[1], x[1]->aval.dtype) : conv_rhs_cotangent(ev, x[0], x[1], ct, params);
  return out;
}

// The cotangent spread over the dilated operand: a windowed sum with the
// base dilation as strides and the strides as base dilation (JAX pads the
// cotangent with stride - 1 interior zeros; the same windows).
Cotangents reduce_window_sum_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  const typecheck::ConvWindow w = conv_window(params);
  const std::vector<std::int64_t> window = window_dimensions(params);
  typecheck::ConvWindow t;
  t.strides = w.lhs_dilation;
  t.padding = lhs_padding(x[0]->aval.shape, window, ct->aval.shape, w);
  t.lhs_dilation = w.strides;
  t.rhs_dilation = w.rhs_dilation;
  return {apply(ev, "reduce_window_sum", {ct}, reduce_window_params(window, t))};
}

// Each window's cotangent goes to the element its max (min) came from.
Cotangents reduce_window_extremum_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  Params scatter = params;
  scatter.set("select", std::string(primitive.name == "reduce_window_max" ? "ge" : "le"));
  return {apply(ev, "select_and_scatter_add", {convert(ev, ct, x[0]->aval.dtype), x[0]}, std::move(scatter))};
}

// select_and_scatter_add is linear in its source: the cotangent gathered
// back from each window's selected element; select_and_gather_add in its
// tangents, the cotangent scattered there. The operand only selects.
Cotangents select_and_scatter_add_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  return {apply(ev, "select_and_gather_add", {ct, x[1]}, params), nullptr};
}

Cotangents select_and_gather_add_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  return {apply(ev, "select_and_scatter_add", {ct, x[1]}, params), nullptr};
}

}  // namespace interp::vjp
