#include "typecheck/elementwise_rules.hpp"

#include <algorithm>

#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"

namespace typecheck {

std::vector<ArrayType> promote_ranks(std::span<const ArrayType> operands) {
  std::size_t rank = 0;
  for (const ArrayType& operand : operands) rank = std::max(rank, operand.ndim());
  std::vector<ArrayType> promoted(operands.begin(), operands.end());
  for (ArrayType& operand : promoted) {
    if (operand.ndim() == 0 || operand.ndim() == rank) continue;
    const std::size_t added = rank - operand.ndim();
    operand.shape.insert(operand.shape.begin(), added, 1);
    operand.sharding.dims.insert(operand.sharding.dims.begin(), added, SpecEntry{});
  }
  return promoted;
}

Checked<ArrayType> jnp_elementwise_rule(std::string_view primitive, std::span<const ArrayType> operands,
                                        ElementType result) {
  const std::vector<ArrayType> promoted = promote_ranks(operands);
  return elementwise_rule(primitive, promoted, result);
}

Checked<ArrayType> comparison_rule(std::string_view primitive, const ArrayType& lhs, const ArrayType& rhs) {
  const ArrayType operands[] = {lhs, rhs};
  return jnp_elementwise_rule(primitive, operands, {DType::bool_, false});
}

bool is_linear_unary(std::string_view primitive) {
  static constexpr std::string_view linear[] = {"convert_element_type", "copy", "neg", "reduce_precision", "rev"};
  return std::find(std::begin(linear), std::end(linear), primitive) != std::end(linear);
}

namespace {

std::optional<Error> unreduced_not_implemented(std::string_view primitive, const ArrayType& operand) {
  if (operand.sharding.unreduced.empty() && operand.manual.unreduced.empty()) return std::nullopt;
  return Error{ErrorClass::NotImplementedError, "unreduced rule for " + std::string(primitive) +
                                                    " is not implemented. Please file an issue at "
                                                    "https://github.com/jax-ml/jax/issues"};
}

}  // namespace

Checked<ArrayType> unary_rule(std::string_view primitive, const ArrayType& operand, ElementType result) {
  if (!is_linear_unary(primitive))
    if (std::optional<Error> error = unreduced_not_implemented(primitive, operand)) return *error;
  ArrayType out = operand;
  out.dtype = result.dtype;
  out.weak_type = result.weak_type && result.dtype != DType::bool_;
  return out;
}

Checked<ArrayType> convert_element_type_rule(const ArrayType& operand, DType new_dtype,
                                             const std::optional<Sharding>& sharding) {
  ArrayType out = operand;
  out.dtype = new_dtype;
  out.weak_type = false;
  if (sharding) out.sharding = *sharding;
  return out;
}

namespace {

std::string shapes_list(std::span<const ArrayType> cases) {
  std::string out;
  for (const ArrayType& each : cases) out += (out.empty() ? "" : ", ") + python_shape_repr(each.shape);
  return "[" + out + "]";
}

}  // namespace

Checked<ArrayType> select_n_rule(const ArrayType& which, std::span<const ArrayType> cases) {
  if (cases.empty()) return Error{ErrorClass::TypeError, "select must have at least one case"};
  for (const ArrayType& each : cases.subspan(1))
    if (each.shape != cases[0].shape)
      return Error{ErrorClass::TypeError, "select cases must have the same shapes, got " + shapes_list(cases) + "."};
  if (!which.shape.empty() && which.shape != cases[0].shape)
    return Error{ErrorClass::TypeError, "select `which` must be scalar or have the same shape as cases, got `which` "
                                        "shape " +
                                            python_shape_repr(which.shape) + " but case shape " +
                                            python_shape_repr(cases[0].shape) + "."};
  if (which.dtype != DType::bool_ && which.dtype != DType::int32)
    return Error{ErrorClass::TypeError, "select `which` must be boolean or int32 type, got " +
                                            std::string(long_name(which.dtype)) + "."};
  for (const ArrayType& each : cases.subspan(1))
    if (each.dtype != cases[0].dtype) {
      std::string dtypes;
      for (const ArrayType& c : cases) dtypes += (dtypes.empty() ? "" : ", ") + std::string(long_name(c.dtype));
      return Error{ErrorClass::TypeError, "select cases must have the same dtypes, got [" + dtypes + "]."};
    }

  std::vector<const ArrayType*> all{&which};
  for (const ArrayType& each : cases) all.push_back(&each);
  std::variant<MeshRef, MeshMismatch> mesh = common_mesh(all);
  if (auto* mismatch = std::get_if<MeshMismatch>(&mesh))
    return Error{ErrorClass::ShardingTypeError, "Mesh for all inputs should be equal. Got one mesh: " +
                                                    mismatch->first->repr() +
                                                    " and another mesh: " + mismatch->second->repr()};

  ArrayType out = make_result(cases[0].element_type(), cases[0].shape, std::get<MeshRef>(mesh), varying_union(all));
  out.weak_type = std::all_of(cases.begin(), cases.end(), [](const ArrayType& c) { return c.weak_type; });
  if (!has_explicit_axis(out.sharding.mesh)) return out;
  for (const ArrayType& each : cases.subspan(1))
    if (each.sharding.mesh && !(each.sharding == cases[0].sharding)) {
      std::string shardings;
      for (const ArrayType& c : cases) shardings += (shardings.empty() ? "" : ", ") + c.sharding.repr();
      return Error{ErrorClass::ShardingTypeError, "select cases must have the same shardings, got [" + shardings + "]."};
    }
  if (!which.shape.empty() && which.sharding.mesh &&
      (!same_mesh(which.sharding.mesh, cases[0].sharding.mesh) || which.sharding.spec() != cases[0].sharding.spec()))
    return Error{ErrorClass::ShardingTypeError,
                 "select which must be scalar or have the same sharding as cases, got which sharding " +
                     which.sharding.repr() + " but case sharding " + cases[0].sharding.repr() + "."};
  out.sharding = cases[0].sharding;
  out.sharding.mesh = std::get<MeshRef>(mesh);
  return out;
}

Checked<ArrayType> where_rule(const ArrayType& condition, const ArrayType& x, const ArrayType& y,
                              ElementType result) {
  ArrayType cases[] = {y, x};  // select_n picks case 1 (x) where condition holds
  for (ArrayType& each : cases) {
    each.dtype = result.dtype;
    each.weak_type = result.weak_type;
  }
  ArrayType which = condition;
  if (!(condition.shape == x.shape && x.shape == y.shape)) {
    // _broadcast_arrays: every operand is broadcast to the common shape and
    // the sharding broadcast_shardings computes.
    const ArrayType operands[] = {condition, x, y};
    Checked<ArrayType> common = jnp_elementwise_rule("broadcast_shardings", operands, result);
    if (!common) return common.error();
    for (ArrayType* each : {&which, &cases[0], &cases[1]}) {
      each->shape = common.value().shape;
      each->sharding = common.value().sharding;
    }
  }
  return select_n_rule(which, cases);
}

Checked<ArrayType> clamp_rule(const ArrayType& min, const ArrayType& operand, const ArrayType& max) {
  for (auto [label, bound] : {std::pair{"min", &min}, std::pair{"max", &max}})
    if (!bound->shape.empty() && bound->shape != operand.shape)
      return Error{ErrorClass::TypeError, std::string("clamp requires ") + label + ".shape == operand.shape or " +
                                              label + ".shape == (), got " + python_shape_repr(bound->shape) + "."};
  const ArrayType* all[] = {&min, &operand, &max};
  std::variant<MeshRef, MeshMismatch> mesh = common_mesh(all);
  if (auto* mismatch = std::get_if<MeshMismatch>(&mesh))
    return Error{ErrorClass::ShardingTypeError, "Mesh for all inputs should be equal. Got one mesh: " +
                                                    mismatch->first->repr() +
                                                    " and another mesh: " + mismatch->second->repr()};
  ArrayType out = operand;
  out.manual.varying = varying_union(all);
  return out;
}

Checked<ArrayType> clip_rule(const ArrayType& operand, const std::optional<ArrayType>& min,
                             const std::optional<ArrayType>& max, ElementType result) {
  ArrayType out = operand;
  if (min) {
    const ArrayType operands[] = {*min, out};
    Checked<ArrayType> step = jnp_elementwise_rule("max", operands, result);
    if (!step) return step;
    out = std::move(step).value();
  }
  if (max) {
    const ArrayType operands[] = {*max, out};
    Checked<ArrayType> step = jnp_elementwise_rule("min", operands, result);
    if (!step) return step;
    out = std::move(step).value();
  }
  if (!min && !max) return unary_rule("clamp", operand, result);
  return out;
}

}  // namespace typecheck
