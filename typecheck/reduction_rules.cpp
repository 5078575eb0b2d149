#include "typecheck/reduction_rules.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shape_rules.hpp"

namespace typecheck {

Checked<std::vector<std::size_t>> reduction_axes(const std::optional<std::vector<std::int64_t>>& axis,
                                                 std::size_t ndim) {
  std::vector<std::size_t> axes;
  if (!axis) {
    for (std::size_t dim = 0; dim < ndim; ++dim) axes.push_back(dim);
    return axes;
  }
  for (std::int64_t each : *axis) {
    Checked<std::size_t> normalized = normalize_axis(each, ndim);
    if (!normalized) return normalized.error();
    axes.push_back(normalized.value());
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return Error{ErrorClass::ValueError, "duplicate value in 'axis': " + ints_tuple_repr(*axis)};
  return axes;
}

FactorRule reduction_factor_rule(std::size_t ndim, std::span<const std::size_t> reduced) {
  FactorRule rule;
  rule.operands.emplace_back();
  for (std::size_t dim = 0; dim < ndim; ++dim) {
    const bool is_reduced = std::find(reduced.begin(), reduced.end(), dim) != reduced.end();
    rule.factor_names.push_back(factor_name(static_cast<int>(dim)));
    rule.factor_kinds.push_back(is_reduced ? FactorKind::reduction : FactorKind::pass_through);
    rule.operands[0].push_back(static_cast<int>(dim));
    if (!is_reduced) rule.result.push_back(static_cast<int>(dim));
  }
  return rule;
}

double reduction_identity(std::string_view reduction, DType dtype) {
  if (reduction == "sum") return 0.0;
  if (reduction == "prod") return 1.0;
  const bool highest = reduction == "min";
  switch (dtype) {
    case DType::bool_: return highest ? 1.0 : 0.0;
    case DType::int8: return highest ? 127.0 : -128.0;
    case DType::int32: return highest ? 2147483647.0 : -2147483648.0;
    case DType::uint32: return highest ? 4294967295.0 : 0.0;
    default: return highest ? INFINITY : -INFINITY;
  }
}

ElementType reduction_result_type(std::string_view reduction, ElementType operand) {
  if (reduction == "argmax" || reduction == "argmin") return {DType::int32, false};
  if (reduction == "mean" || reduction == "var" || reduction == "std")
    return is_floating(operand.dtype) ? operand : ElementType{DType::float32, operand.weak_type};
  return operand;
}

Checked<ArrayType> reduction_rule(std::string_view reduction, const ArrayType& operand,
                                  const std::optional<std::vector<std::int64_t>>& axis, bool keepdims,
                                  const std::optional<Sharding>& out_sharding) {
  const bool is_arg = reduction == "argmax" || reduction == "argmin";
  if (is_arg && axis && axis->size() != 1)
    return Error{ErrorClass::TypeError, std::string(reduction) + " requires an int axis or None"};
  if (is_arg && !axis) {
    // jnp.argmax(x) ravels x, then reduces its one axis.
    const std::int64_t size[] = {std::accumulate(operand.shape.begin(), operand.shape.end(), std::int64_t{1},
                                                 std::multiplies<>())};
    Checked<ArrayType> flat = reshape_rule(operand, size);
    if (!flat) return flat;
    Checked<ArrayType> reduced = reduction_rule(reduction, flat.value(), std::vector<std::int64_t>{0}, false);
    if (!reduced || !keepdims) return reduced;
    ArrayType kept = reduced.value();
    kept.shape.assign(operand.ndim(), 1);
    kept.sharding.dims.assign(operand.ndim(), SpecEntry{});
    return kept;
  }
  Checked<std::vector<std::size_t>> axes = reduction_axes(axis, operand.ndim());
  if (!axes) return axes.error();
  const std::set<std::size_t> reduced(axes.value().begin(), axes.value().end());

  // Only a sum is linear: it keeps unreduced axes; anything else refuses them.
  const bool is_sum = reduction == "sum" || reduction == "mean";
  if (!is_sum && (!operand.sharding.unreduced.empty() || !operand.manual.unreduced.empty()))
    return Error{ErrorClass::NotImplementedError,
                 "unreduced rule for reduce_" + std::string(reduction) +
                     " is not implemented. Please file an issue at https://github.com/jax-ml/jax/issues"};

  // lax's sums and products are of numbers (jnp widens booleans to int32 first).
  if ((reduction == "sum" || reduction == "prod") && operand.dtype == DType::bool_)
    return Error{ErrorClass::TypeError,
                 "reduce_" + std::string(reduction) + " does not accept dtype bool. Accepted dtypes are subtypes of number."};

  ArrayType result = operand;
  const ElementType element = reduction_result_type(reduction, operand.element_type());
  result.dtype = element.dtype;
  result.weak_type = element.weak_type && element.dtype != DType::bool_;
  result.shape.clear();
  result.sharding.dims.clear();
  AxisSet reduced_axes;  // mesh axes of the reduced dims: where partial sums live
  for (std::size_t dim = 0; dim < operand.ndim(); ++dim) {
    if (reduced.contains(dim)) {
      reduced_axes.insert(operand.sharding.dims[dim].begin(), operand.sharding.dims[dim].end());
      if (!keepdims) continue;
      result.shape.push_back(1);
      result.sharding.dims.emplace_back();
      continue;
    }
    result.shape.push_back(operand.shape[dim]);
    result.sharding.dims.push_back(operand.sharding.dims[dim]);
  }
  if (out_sharding) {
    for (const std::string& axis_name : out_sharding->unreduced)
      if (!reduced_axes.contains(axis_name) && !operand.sharding.unreduced.contains(axis_name))
        return Error{ErrorClass::ShardingTypeError,
                     "out_sharding's unreduced axes should be in operand's specs that were reduce_sum over. Got "
                     "out_sharding=" +
                         out_sharding->spec().repr() + " and operand=" + operand.short_str()};
    result.sharding = *out_sharding;
  }
  return result;
}

Checked<ArrayType> cumulative_rule(std::string_view name, const ArrayType& operand, std::int64_t axis) {
  if (axis < 0) return Error{ErrorClass::ValueError, "XLA operations do not allow negative axes"};
  if (static_cast<std::size_t>(axis) >= operand.ndim())
    return Error{ErrorClass::ValueError, "axis " + std::to_string(axis) + " is out of bounds for array of shape " +
                                             python_shape_repr(operand.shape)};
  if (operand.dtype == DType::bool_)
    return Error{ErrorClass::TypeError, std::string(name) + " does not accept dtype " +
                                            std::string(long_name(operand.dtype)) +
                                            ". Accepted dtypes are subtypes of number."};
  if (!operand.sharding.dims.empty() && !operand.sharding.dims[static_cast<std::size_t>(axis)].empty())
    return Error{ErrorClass::ShardingTypeError,
                 "Input should be unsharded over the axis being reduced. Got input type=" +
                     operand.format({.short_dtypes = false}) + " and axis=" + std::to_string(axis)};
  return operand;
}

std::optional<Error> check_flattened_cumulative(std::string_view name, const ArrayType& operand) {
  bool replicated = std::all_of(operand.sharding.dims.begin(), operand.sharding.dims.end(),
                                [](const SpecEntry& entry) { return entry.empty(); });
  if (replicated) return std::nullopt;
  return Error{ErrorClass::ShardingTypeError,
               "The input should be fully replicated when axis is not specified to " + std::string(name) +
                   ". Got input type=" + operand.format({.short_dtypes = false})};
}

Checked<ArrayType> sort_rule(std::span<const ArrayType> operands, std::int64_t dimension, std::int64_t output) {
  if (operands.empty()) return Error{ErrorClass::TypeError, "Sort requires at least one operand"};
  for (const ArrayType& operand : operands)
    if (operand.shape != operands[0].shape) {
      std::string shapes;
      for (const ArrayType& each : operands) shapes += (shapes.empty() ? "" : " ") + python_shape_repr(each.shape);
      return Error{ErrorClass::TypeError, "Arguments to sort must have equal shapes, got: " + shapes};
    }
  if (dimension < 0 || static_cast<std::size_t>(dimension) >= operands[0].ndim())
    return Error{ErrorClass::ValueError, "axis " + std::to_string(dimension) + " is out of bounds for array of dimension " +
                                             std::to_string(operands[0].ndim())};
  const Sharding* first = nullptr;
  for (const ArrayType& operand : operands) {
    if (!has_explicit_axis(operand.sharding.mesh)) continue;
    if (!operand.sharding.dims[static_cast<std::size_t>(dimension)].empty())
      return Error{ErrorClass::ShardingTypeError,
                   "Arguments to sort must be unsharded over the sorting dimension. Got arg sharding=" +
                       operand.sharding.repr() + " and sorting dimension=" + std::to_string(dimension)};
    if (first && !(operand.sharding == *first)) {
      std::string shardings;
      for (const ArrayType& each : operands)
        if (has_explicit_axis(each.sharding.mesh)) shardings += (shardings.empty() ? "" : " ") + each.sharding.repr();
      return Error{ErrorClass::ShardingTypeError, "Arguments to sort must have equal shardings, got: " + shardings};
    }
    if (!first) first = &operand.sharding;
  }
  if (static_cast<std::size_t>(output) == operands.size()) {
    ArrayType indices = operands[0];
    indices.dtype = DType::int32;
    indices.weak_type = false;
    return indices;
  }
  return operands[static_cast<std::size_t>(output)];
}

}  // namespace typecheck
