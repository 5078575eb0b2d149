// The reduction family's decision, kernel and finish (placement.hpp):
// reduce_sum, reduce_mean, reduce_max and reduce_min over a split dimension
// reduce each device's block and combine the partial values with an
// all-reduce (sum, max, min); reduce_prod, argmax and argmin gather the
// split dimensions they reduce first. The kept dimensions stay as the
// result has them.
#include <algorithm>

#include "interp/ops/placement.hpp"
#include "interp/ops/primitives.hpp"
#include "typecheck/creation_rules.hpp"
#include "typecheck/reduction_rules.hpp"
#include "typecheck/shape_arithmetic.hpp"

namespace interp {

namespace {

using typecheck::DType;

devices::ReduceOp reduce_op(std::string_view name) {
  // all and any reduce booleans: their min and max.
  return name == "prod"                   ? devices::ReduceOp::prod
         : name == "max" || name == "any" ? devices::ReduceOp::max
         : name == "min" || name == "all" ? devices::ReduceOp::min
         : name == "argmax" ? devices::ReduceOp::argmax
         : name == "argmin" ? devices::ReduceOp::argmin
                            : devices::ReduceOp::sum;
}

std::vector<std::size_t> reduced_axes(const ArrayObject& operand, const Params& params) {
  std::optional<std::vector<std::int64_t>> axis;
  if (const auto* given = params.get<std::vector<std::int64_t>>("axes")) axis = *given;
  return checked(typecheck::reduction_axes(axis, operand.aval.ndim()));
}

bool reduced(const std::vector<std::size_t>& axes, std::size_t d) { return std::find(axes.begin(), axes.end(), d) != axes.end(); }

// params: axes (absent: all), keepdims, out_sharding (optional: lax.reduce_sum/max/min's).
Placement place_reduction(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                          const Params& params) {
  const ArrayRef& operand = operands[0];
  std::string_view name = primitive.api_name;
  std::optional<std::vector<std::int64_t>> axis;
  if (const auto* given = params.get<std::vector<std::int64_t>>("axes")) axis = *given;
  bool keepdims = *params.get<bool>("keepdims");
  Placement placement;
  placement.type = checked(typecheck::reduction_rule(name, operand->aval, axis, keepdims));
  if (const auto* requested = params.get<typecheck::ShardingArg>("out_sharding")) {
    const auto& context = runtime_of(evaluator).context_mesh;
    auto out_sharding = checked(typecheck::canonicalize_out_sharding(
        "reduce_" + std::string(name), *requested, context ? context->mesh->abstract : nullptr, placement.type.shape));
    placement.type = checked(typecheck::reduction_rule(name, operand->aval, axis, keepdims, out_sharding));
  }
  const std::vector<std::size_t> axes = reduced_axes(*operand, params);
  DeviceMeshRef mesh = operand->layout.mesh;
  std::vector<typecheck::SpecEntry> kept;
  for (std::size_t d = 0; d < operand->aval.ndim(); ++d) {
    if (!reduced(axes, d)) kept.push_back(operand->layout.dims[d]);
    else if (keepdims) kept.emplace_back();
  }
  placement.layout = result_layout(placement.type, mesh, kept);
  placement.committed = operand->committed;

  // The kernels reduce whole dims: what the result does not keep split is
  // combined after (sum, mean, max, min) or gathered first.
  Layout needed = operand->layout;
  const devices::ReduceOp op = reduce_op(name);
  bool combinable = op == devices::ReduceOp::sum || op == devices::ReduceOp::max || op == devices::ReduceOp::min;
  if (!combinable)
    for (std::size_t d : axes) needed.dims[d].clear();
  for (std::size_t d = 0, k = 0; d < operand->aval.ndim(); ++d) {
    if (!reduced(axes, d)) needed.dims[d] = placement.layout.dims[k++];
    else if (keepdims) ++k;
  }
  std::vector<int> mesh_axes;
  for (std::size_t d : axes)
    for (const auto& a : needed.dims[d]) mesh_axes.push_back(static_cast<int>(*mesh->abstract->index_of(a)));
  std::sort(mesh_axes.begin(), mesh_axes.end());
  for (int a : mesh_axes) placement.summed.push_back(mesh->abstract->axes()[static_cast<std::size_t>(a)].name);
  placement.combine = op;
  placement.computed = Layout{mesh, {}};
  for (std::size_t d = 0; d < operand->aval.ndim(); ++d)
    if (!reduced(axes, d)) placement.computed.dims.push_back(needed.dims[d]);
  placement.operands.push_back(std::move(needed));
  // Reduced extents whose product passes int64 belong to an empty operand
  // (its other extents hold a 0), whose result is empty: the count is unused.
  for (std::size_t d : axes)
    placement.reduced_count = typecheck::checked_multiply(placement.reduced_count, operand->aval.shape[d]).value_or(0);

  DType compute = placement.type.dtype;
  if (name == "argmax" || name == "argmin" || name == "max" || name == "min") compute = operand->aval.dtype;
  if (compute == DType::bool_ && (name == "sum" || name == "prod")) compute = DType::int32;
  placement.compute = compute == DType::int32 && typecheck::is_floating(operand->aval.dtype) ? operand->aval.dtype : compute;
  keep_unreduced_partials(placement);
  return placement;
}

ArrayRef reduction_kernel(Evaluator& evaluator, const Primitive& primitive, const Placement& placement,
                          const std::vector<ArrayRef>& operands, const Params& params) {
  ArrayRef input = astype(evaluator, operands[0], placement.compute);
  const std::vector<std::size_t> axes = reduced_axes(*input, params);
  std::vector<int> reduce_axes(axes.begin(), axes.end());
  const devices::ReduceOp op = reduce_op(primitive.api_name);
  auto shards = run_per_position(evaluator, placement.computed.mesh, {input}, [&](const std::vector<devices::LocalArray>& in) {
    return devices::reduce(op, in[0], reduce_axes);
  });
  // The partial values' type, built rather than copied from the result's
  // and overwritten: every run of a jitted program makes it again.
  typecheck::Shape shape;
  for (std::size_t d = 0; d < input->aval.ndim(); ++d)
    if (!reduced(axes, d)) shape.push_back(input->aval.shape[d]);
  const std::size_t rank = shape.size();
  typecheck::ArrayType reduced_type{.dtype = devices::reduce_result_dtype(op, input->aval.dtype),
                                    .shape = std::move(shape),
                                    .weak_type = placement.type.weak_type,
                                    .sharding = typecheck::Sharding::replicated(placement.type.sharding.mesh, rank),
                                    .manual = placement.type.manual};
  return make_array(evaluator, std::move(reduced_type), placement.computed, std::move(shards), placement.committed);
}

// A mean's division by the count, the result's dtype, keepdims' size-1 dims.
ArrayRef reduction_finish(Evaluator& evaluator, const Primitive& primitive, const Placement& placement,
                          const ArrayRef& combined, const Params&) {
  ArrayRef out = combined;
  if (primitive.api_name == "mean") {
    ArrayRef divisor = to_array(evaluator, Value::floating(static_cast<double>(placement.reduced_count)));
    out = run_placed(evaluator, interp::primitive("divide"), {out, divisor}, {}, true);
  }
  out = astype(evaluator, out, placement.type.dtype);
  // keepdims: the reduced dims back as 1s, on each device's block.
  if (out->aval.shape != placement.type.shape)
    if (ArrayRef kept = reshaped_per_block(evaluator, out, placement.type, placement.layout)) return kept;
  if (out->aval.shape != placement.type.shape) {
    Params sizes;
    sizes.set("new_sizes", placement.type.shape);
    out = interp::primitive("reshape").implementation(evaluator, interp::primitive("reshape"), {out}, sizes, true);
  }
  out = relayout(evaluator, out, placement.layout);
  out->aval = placement.type;
  return out;
}

}  // namespace

namespace partitioning {
const Partitioning reduction{"reduction", place_reduction, reduction_kernel, reduction_finish};
}  // namespace partitioning

}  // namespace interp
