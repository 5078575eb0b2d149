// The windowed primitives (convolution.hpp): conv_general_dilated's decision
// and kernel, and the replayed windowed reductions.
//
// conv_general_dilated's decision (JAX's _conv_general_dilated_sharding_rule
// gives the type):
//   the batch dimension stays split as lhs's (computation follows data; not
//     with batch groups, which mix images);
//   lhs's feature dimension split alike with rhs's input features (the
//     gradient of rhs under a split batch): each device's convolution is a
//     partial sum over those axes, all-reduced;
//   everything else is whole on every device (a split spatial dimension is
//     gathered: its windows reach across shards); the finish keeps each
//     device's block of the other result dimensions the layout splits.
#include "interp/ops/convolution.hpp"

#include <algorithm>

#include "devices/kernels/convolution.hpp"
#include "interp/ops/contractions.hpp"
#include "interp/ops/placement.hpp"
#include "typecheck/rule_support.hpp"

namespace interp {

namespace {

std::vector<std::int64_t> ints(const Params& params, std::string_view name) {
  const auto* values = params.get<std::vector<std::int64_t>>(name);
  return values ? *values : std::vector<std::int64_t>{};
}

std::vector<int> narrow(const std::vector<std::int64_t>& values) { return {values.begin(), values.end()}; }
std::vector<std::int64_t> widen(const std::vector<int>& values) { return {values.begin(), values.end()}; }

std::int64_t int_param(const Params& params, std::string_view name, std::int64_t otherwise) {
  const auto* value = params.get<std::int64_t>(name);
  return value ? *value : otherwise;
}

double elements(const typecheck::ArrayType& type) {
  double n = 1;
  for (auto s : type.shape) n *= static_cast<double>(s);
  return n;
}

}  // namespace

std::vector<std::int64_t> flat_padding(const typecheck::Padding& padding) {
  std::vector<std::int64_t> flat;
  for (const auto& [low, high] : padding) {
    flat.push_back(low);
    flat.push_back(high);
  }
  return flat;
}

typecheck::Padding padding_pairs(const std::vector<std::int64_t>& flat) {
  typecheck::Padding out;
  for (std::size_t i = 0; i + 1 < flat.size(); i += 2) out.emplace_back(flat[i], flat[i + 1]);
  return out;
}

typecheck::ConvDimensionNumbers conv_dimension_numbers(const Params& params) {
  return {narrow(ints(params, "lhs_spec")), narrow(ints(params, "rhs_spec")), narrow(ints(params, "out_spec"))};
}

typecheck::ConvWindow conv_window(const Params& params) {
  typecheck::ConvWindow window;
  window.strides = ints(params, "window_strides");
  window.padding = padding_pairs(ints(params, "padding"));
  const bool conv = params.get<std::vector<std::int64_t>>("lhs_dilation") != nullptr;
  window.lhs_dilation = ints(params, conv ? "lhs_dilation" : "base_dilation");
  window.rhs_dilation = ints(params, conv ? "rhs_dilation" : "window_dilation");
  window.feature_group_count = int_param(params, "feature_group_count", 1);
  window.batch_group_count = int_param(params, "batch_group_count", 1);
  return window;
}

std::vector<std::int64_t> window_dimensions(const Params& params) { return ints(params, "window_dimensions"); }

Params conv_params(const typecheck::ConvDimensionNumbers& numbers, const typecheck::ConvWindow& window,
                   const Params& options) {
  Params params;
  params.set("window_strides", window.strides).set("padding", flat_padding(window.padding));
  params.set("lhs_dilation", window.lhs_dilation).set("rhs_dilation", window.rhs_dilation);
  params.set("lhs_spec", widen(numbers.lhs_spec)).set("rhs_spec", widen(numbers.rhs_spec));
  params.set("out_spec", widen(numbers.out_spec));
  params.set("feature_group_count", window.feature_group_count).set("batch_group_count", window.batch_group_count);
  for (const auto& entry : options.entries) params.entries.push_back(entry);
  return params;
}

Params reduce_window_params(std::vector<std::int64_t> window_dimensions, const typecheck::ConvWindow& window) {
  Params params;
  params.set("window_dimensions", std::move(window_dimensions)).set("window_strides", window.strides);
  params.set("padding", flat_padding(window.padding));
  params.set("base_dilation", window.lhs_dilation).set("window_dilation", window.rhs_dilation);
  return params;
}

ArrayRef bind_conv(Evaluator& evaluator, const ArrayRef& lhs, const ArrayRef& rhs, const typecheck::ConvDimensionNumbers& numbers,
                   const typecheck::ConvWindow& window, const Params& options) {
  return to_array(evaluator,
                  bind(evaluator, primitive("conv_general_dilated"), {lhs, rhs}, conv_params(numbers, window, options)));
}

Cost conv_cost(const Primitive&, const std::vector<typecheck::ArrayType>& operands, const typecheck::ArrayType& result,
               const Params& params) {
  const typecheck::ConvDimensionNumbers numbers = conv_dimension_numbers(params);
  Cost cost{0.0, bytes_accessed(operands, result), CostUnit::mxu};
  if (operands.size() != 2 || numbers.rhs_spec.size() != operands[1].ndim() || numbers.out_spec.size() != result.ndim())
    return cost;
  const auto& rhs = operands[1];
  const double out_features = static_cast<double>(result.shape[static_cast<std::size_t>(numbers.out_spec[1])]);
  const double depth = elements(rhs) / std::max(1.0, static_cast<double>(rhs.shape[static_cast<std::size_t>(numbers.rhs_spec[0])]));
  cost.flops = 2.0 * elements(result) * depth;
  devices::MatmulWork work;
  work.rows = static_cast<std::int64_t>(elements(result) / std::max(1.0, out_features));
  work.columns = static_cast<std::int64_t>(out_features);
  work.contracting = static_cast<std::int64_t>(depth);
  work.lhs_dtype = operands[0].dtype;
  work.rhs_dtype = rhs.dtype;
  work.out_dtype = result.dtype;
  work.precision = dot_precision(params);
  cost.matmul = work;
  return cost;
}

Cost reduce_window_cost(const Primitive&, const std::vector<typecheck::ArrayType>& operands,
                        const typecheck::ArrayType& result, const Params& params) {
  double window = 1;
  for (auto w : window_dimensions(params)) window *= static_cast<double>(w);
  return {elements(result) * window, bytes_accessed(operands, result), CostUnit::vector};
}

namespace {

bool uses_any(const std::vector<typecheck::SpecEntry>& dims, const typecheck::SpecEntry& axes) {
  for (const auto& entry : dims)
    for (const auto& a : entry)
      if (std::find(axes.begin(), axes.end(), a) != axes.end()) return true;
  return false;
}

Placement place_conv(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands, const Params& params) {
  Placement placement;
  const DeviceMeshRef mesh = computation_mesh("conv_general_dilated", operands);
  const typecheck::ConvDimensionNumbers numbers = conv_dimension_numbers(params);
  const typecheck::ConvWindow window = conv_window(params);
  const ArrayRef& lhs = operands[0];
  const ArrayRef& rhs = operands[1];
  placement.committed = any_committed(operands);
  placement.compute = lhs->aval.dtype;
  typecheck::ElementType element =
      checked(typecheck::dot_result_element(lhs->aval.element_type(), dot_preferred_element_type(params)));
  std::optional<typecheck::Sharding> out;
  if (const auto* argument = params.get<typecheck::ShardingArg>("out_sharding")) {
    typecheck::Shape shape = checked(typecheck::conv_general_dilated_shape(lhs->aval.shape, rhs->aval.shape, numbers, window));
    typecheck::MeshRef context = runtime_of(evaluator).context_mesh ? runtime_of(evaluator).context_mesh->mesh->abstract : nullptr;
    out = checked(typecheck::canonicalize_out_sharding("conv_general_dilated", *argument, context, shape));
  }
  placement.type = checked(typecheck::conv_general_dilated_rule(lhs->aval, rhs->aval, numbers, window, element, out));

  const std::vector<typecheck::SpecEntry> lhs_dims = dims_on(*lhs, mesh), rhs_dims = dims_on(*rhs, mesh);
  const auto lhs_batch = static_cast<std::size_t>(numbers.lhs_spec[0]), out_batch = static_cast<std::size_t>(numbers.out_spec[0]);
  const auto lhs_feature = static_cast<std::size_t>(numbers.lhs_spec[1]), rhs_in = static_cast<std::size_t>(numbers.rhs_spec[1]);
  const bool ungrouped = window.feature_group_count == 1 && window.batch_group_count == 1;
  std::vector<typecheck::SpecEntry> auto_dims(placement.type.ndim());
  if (window.batch_group_count == 1) auto_dims[out_batch] = lhs_dims[lhs_batch];
  placement.layout = result_layout(placement.type, mesh, auto_dims);
  placement.computed = Layout{mesh, std::vector<typecheck::SpecEntry>(placement.type.ndim())};
  if (window.batch_group_count == 1) placement.computed.dims[out_batch] = placement.layout.dims[out_batch];

  Layout lhs_needed{mesh, std::vector<typecheck::SpecEntry>(lhs->aval.ndim())};
  Layout rhs_needed{mesh, std::vector<typecheck::SpecEntry>(rhs->aval.ndim())};
  if (window.batch_group_count == 1) lhs_needed.dims[lhs_batch] = placement.layout.dims[out_batch];
  const typecheck::SpecEntry& features = lhs_dims[lhs_feature];
  if (ungrouped && !features.empty() && features == rhs_dims[rhs_in] && !uses_any(placement.layout.dims, features)) {
    lhs_needed.dims[lhs_feature] = features;
    rhs_needed.dims[rhs_in] = features;
    placement.summed = features;
  }
  placement.operands = {std::move(lhs_needed), std::move(rhs_needed)};
  return placement;
}

// Every device's convolution of the blocks it holds: the result split as
// Placement::computed (the batch as lhs's), partial sums where `summed`.
ArrayRef conv_kernel(Evaluator& evaluator, const Primitive&, const Placement& placement, const std::vector<ArrayRef>& inputs,
                     const Params& params) {
  devices::ConvDimensions dimensions{conv_dimension_numbers(params), conv_window(params), placement.type.dtype};
  auto shards = run_per_position(evaluator, placement.computed.mesh, inputs, [&](const std::vector<devices::LocalArray>& in) {
    return devices::conv_general_dilated(in[0], in[1], dimensions);
  });
  return make_array(evaluator, placement.type, placement.computed, std::move(shards), placement.committed);
}

// Each device keeps its block of the dimensions the result's layout splits
// and the kernel left whole (a slice of what it holds: no communication).
ArrayRef conv_finish(Evaluator& evaluator, const Primitive&, const Placement& placement, const ArrayRef& combined,
                     const Params&) {
  if (combined->abstract() || combined->layout == placement.layout) return combined;
  return relayout(evaluator, combined, placement.layout);
}

devices::WindowReduction window_reduction(std::string_view name) {
  if (name == "reduce_window_max" || name == "ge") return devices::WindowReduction::max;
  if (name == "reduce_window_min" || name == "le") return devices::WindowReduction::min;
  return devices::WindowReduction::sum;
}

// A windowed primitive replayed: the windowed dims gathered (every dim a
// window larger than 1, a stride, a padding or a dilation touches), the
// others split as operand 0's, the result laid out as the type says.
ArrayRef windowed_application(Evaluator& evaluator, const std::vector<ArrayRef>& operands, const Params& params,
                              const typecheck::ArrayType& type, const ArrayRef& like, bool execute,
                              const std::function<devices::Expected<devices::LocalArray>(const std::vector<devices::LocalArray>&)>& kernel) {
  const DeviceMeshRef mesh = computation_mesh("reduce_window", operands);
  const typecheck::ConvWindow window = conv_window(params);
  const std::vector<std::int64_t> sizes = window_dimensions(params);
  std::vector<typecheck::SpecEntry> dims = dims_on(*like, mesh);
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (sizes[d] != 1 || window.strides[d] != 1 || window.padding[d] != std::pair<std::int64_t, std::int64_t>{0, 0} ||
        window.lhs_dilation[d] != 1 || window.rhs_dilation[d] != 1)
      dims[d].clear();
  const Layout target = result_layout(type, mesh, dims);
  const bool committed = any_committed(operands);
  if (!execute) return make_abstract_array(type, target, committed);
  const Layout needed{mesh, dims};
  std::vector<ArrayRef> inputs;
  for (const auto& a : operands) inputs.push_back(relayout(evaluator, a, needed));
  auto shards = run_per_position(evaluator, mesh, inputs, kernel);
  ArrayRef out = make_array(evaluator, type, needed, std::move(shards), committed);
  out = relayout(evaluator, out, target);
  out->aval = type;
  return out;
}

}  // namespace

ArrayRef reduce_window_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                      const Params& params, bool execute) {
  const typecheck::ConvWindow window = conv_window(params);
  const std::vector<std::int64_t> sizes = window_dimensions(params);
  typecheck::ArrayType type = checked(typecheck::reduce_window_rule(primitive.name, operands[0]->aval, sizes, window));
  const devices::WindowReduction op = window_reduction(primitive.name);
  return windowed_application(evaluator, operands, params, type, operands[0], execute,
                              [&](const std::vector<devices::LocalArray>& in) {
                                return devices::reduce_window(in[0], op, sizes, window);
                              });
}

// select_and_scatter_add (source, operand) and select_and_gather_add
// (tangents, operand): the selection kernels, laid out as the operand
// (scatter) or as its windowed result (gather).
ArrayRef selection_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                  const Params& params, bool execute) {
  const typecheck::ConvWindow window = conv_window(params);
  const std::vector<std::int64_t> sizes = window_dimensions(params);
  const auto* select = params.get<std::string>("select");
  const devices::WindowReduction op = window_reduction(select ? *select : "ge");
  const bool scatter = primitive.name == "select_and_scatter_add";
  typecheck::ArrayType type =
      scatter ? operands[1]->aval : checked(typecheck::reduce_window_rule(primitive.name, operands[1]->aval, sizes, window));
  type.weak_type = false;
  return windowed_application(evaluator, operands, params, type, operands[1], execute,
                              [&](const std::vector<devices::LocalArray>& in) {
                                return scatter ? devices::select_and_scatter_add(in[0], in[1], op, sizes, window)
                                               : devices::select_and_gather_add(in[0], in[1], op, sizes, window);
                              });
}

namespace partitioning {
const Partitioning convolution{"convolution", place_conv, conv_kernel, conv_finish};
}  // namespace partitioning

}  // namespace interp
