#include "typecheck/creation_rules.hpp"

#include <cmath>

#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"

namespace typecheck {

namespace {

bool both_all_auto(const MeshRef& a, const MeshRef& b) {
  return a && b && a->all_axes_of_type(AxisType::Auto) && b->all_axes_of_type(AxisType::Auto);
}

bool empty_mesh(const MeshRef& mesh) { return !mesh || mesh->axes().empty(); }

// The first partition/unreduced/reduced axis that is not Explicit.
const MeshAxis* non_explicit_axis(const AbstractMesh& mesh, const PartitionSpec& spec) {
  AxisList axes = spec.partition_axes();
  axes.insert(axes.end(), spec.unreduced().begin(), spec.unreduced().end());
  axes.insert(axes.end(), spec.reduced().begin(), spec.reduced().end());
  for (const std::string& axis : axes)
    if (const MeshAxis* found = mesh.find(axis); found && found->type != AxisType::Explicit) return found;
  return nullptr;
}

Error auto_or_manual_axis_error(std::string_view api_name, const PartitionSpec& spec, const MeshAxis& axis) {
  return Error{ErrorClass::ValueError, "PartitionSpec passed to " + std::string(api_name) +
                                           " cannot contain axis names that are of type Auto or Manual. Got "
                                           "PartitionSpec: " +
                                           spec.repr() + " with axis name: " + axis.name +
                                           " of type: AxisType." + std::string(axis_type_name(axis.type)) + "."};
}

}  // namespace

std::optional<Error> check_context_mesh(std::string_view primitive, std::span<const ArrayType> operands,
                                        const MeshRef& context_mesh) {
  if (empty_mesh(context_mesh)) return std::nullopt;
  for (const ArrayType& operand : operands) {
    const MeshRef& mesh = operand.sharding.mesh;
    if (empty_mesh(mesh) || same_mesh(mesh, context_mesh) || both_all_auto(mesh, context_mesh)) continue;
    return Error{ErrorClass::ValueError, "For primitive " + std::string(primitive) + ", context mesh " +
                                             context_mesh->repr() + " should match the aval mesh " + mesh->repr() +
                                             " for shape " + operand.format({.short_dtypes = false, .weak_marker = false}) +
                                             "."};
  }
  return std::nullopt;
}

std::optional<Error> check_explicit_axes(std::string_view api_name, const AbstractMesh& mesh, const PartitionSpec& spec) {
  if (const MeshAxis* axis = non_explicit_axis(mesh, spec)) return auto_or_manual_axis_error(api_name, spec, *axis);
  return std::nullopt;
}

Checked<std::optional<Sharding>> canonicalize_out_sharding(std::string_view api_name,
                                                           const std::optional<ShardingArg>& argument,
                                                           const MeshRef& context_mesh,
                                                           std::span<const std::int64_t> shape) {
  if (!argument) return std::optional<Sharding>{};
  MeshRef mesh;
  if (!argument->mesh) {
    if (empty_mesh(context_mesh))
      return Error{ErrorClass::ValueError, "Using PartitionSpec when you are not under a mesh context is not allowed. "
                                           "Please pass a NamedSharding instance or enter into a mesh context via "
                                           "jax.set_mesh. Got " +
                                               argument->spec.repr()};
    mesh = context_mesh;
  } else {
    mesh = *argument->mesh;
    if (empty_mesh(mesh)) return std::optional<Sharding>{};
    if (!empty_mesh(context_mesh) && !same_mesh(mesh, context_mesh) && !both_all_auto(mesh, context_mesh))
      return Error{ErrorClass::ValueError, "Context mesh " + context_mesh->repr() +
                                               " should match the mesh of sharding " + mesh->repr() + " passed to " +
                                               std::string(api_name) + "."};
  }
  // NamedSharding(mesh, spec) validates the spec before anything else.
  if (std::optional<Error> error = check_spec(*mesh, argument->spec)) return *error;
  if (const MeshAxis* axis = non_explicit_axis(*mesh, argument->spec))
    return auto_or_manual_axis_error(api_name, argument->spec, *axis);
  Checked<Sharding> sharding = make_sharding(mesh, argument->spec, shape);
  if (!sharding) return sharding.error();
  return std::optional<Sharding>{std::move(sharding).value()};
}

Checked<ArrayType> creation_rule(std::string_view api_name, ElementType element, Shape shape,
                                 const MeshRef& context_mesh, const std::optional<ShardingArg>& out_sharding,
                                 const std::optional<std::string>& device) {
  if (device && out_sharding) {
    const MeshRef& mesh = out_sharding->mesh ? *out_sharding->mesh : context_mesh;
    return Error{ErrorClass::ValueError, "Only one of device or out_sharding can be set. Got device=" + *device +
                                             " and out_sharding=" +
                                             (out_sharding->mesh ? "NamedSharding(mesh=" + mesh_repr(mesh) +
                                                                       ", spec=" + out_sharding->spec.repr() + ")"
                                                                 : out_sharding->spec.repr())};
  }
  for (std::int64_t size : shape)
    if (size < 0)
      return Error{ErrorClass::ValueError, std::string(api_name) + " got a negative dimension in shape " +
                                               python_shape_repr(shape)};
  Checked<std::optional<Sharding>> sharding = canonicalize_out_sharding(api_name, out_sharding, context_mesh, shape);
  if (!sharding) return sharding.error();
  ArrayType result = make_result(element, shape, device ? nullptr : context_mesh);
  if (sharding.value()) result.sharding = *sharding.value();
  return result;
}

Checked<ArrayType> like_rule(std::string_view api_name, const ArrayType& like, ElementType element,
                             const MeshRef& context_mesh, const std::optional<ShardingArg>& out_sharding) {
  Checked<std::optional<Sharding>> sharding =
      canonicalize_out_sharding(api_name, out_sharding, context_mesh, like.shape);
  if (!sharding) return sharding.error();
  ArrayType result = make_result(element, like.shape, like.sharding.mesh);
  result.sharding = sharding.value() ? *sharding.value() : like.sharding;
  // Creation ops give invariant values inside shard_map.
  result.sharding.unreduced.clear();
  result.sharding.reduced.clear();
  return result;
}

Checked<Shape> arange_shape(double start, double stop, double step) {
  if (step == 0) return Error{ErrorClass::ValueError, "arange: step cannot be zero"};
  const double count = std::ceil((stop - start) / step);
  if (!(count > 0)) return Shape{0};  // also NaN
  // 2^63: the first double past every int64.
  if (!(count < 9223372036854775808.0)) return Error{ErrorClass::ValueError, "Maximum allowed size exceeded"};
  return Shape{static_cast<std::int64_t>(count)};
}

Shape eye_shape(std::int64_t rows, std::optional<std::int64_t> columns) { return {rows, columns.value_or(rows)}; }

Checked<ArrayType> device_put_rule(const ArrayType& operand, const std::optional<ShardingArg>& target,
                                   const MeshRef& concrete_mesh, bool eager) {
  ArrayType result = operand;
  if (!target) {
    result.sharding = Sharding::replicated(nullptr, operand.ndim());
    return result;
  }
  MeshRef mesh;
  if (target->mesh) {
    mesh = *target->mesh;
  } else {
    if (empty_mesh(concrete_mesh))
      return Error{ErrorClass::ValueError,
                   "Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to device_put"};
    mesh = concrete_mesh;
  }
  if (std::optional<Error> error = check_spec(*mesh, target->spec)) return *error;
  if (eager && target->spec.partitions().size() <= operand.ndim()) {
    // The runtime's divisibility check counts every axis, Auto ones too.
    std::vector<std::string> factors;
    std::optional<Error> indivisible;
    for (std::size_t dim = 0; dim < operand.ndim(); ++dim) {
      const std::int64_t parts =
          dim < target->spec.partitions().size() ? axes_size(mesh, target->spec.partitions()[dim]) : 1;
      factors.push_back(std::to_string(parts));
      if (!indivisible && operand.shape[dim] % parts != 0)
        indivisible = Error{ErrorClass::ValueError,
                            "One of device_put args was given the sharding NamedSharding(mesh=" + mesh->repr() +
                                ", spec=" + target->spec.repr() + ") implies that array axis " +
                                std::to_string(dim) + " is partitioned " + std::to_string(parts) +
                                " times, but the dimension size is " + std::to_string(operand.shape[dim]) +
                                " (full shape: " + python_shape_repr(operand.shape) + ", per-dimension tiling factors: "};
    }
    if (indivisible) {
      indivisible->message += python_tuple_repr(factors) + " should evenly divide the shape)";
      return *indivisible;
    }
  }
  Checked<Sharding> sharding = make_sharding(mesh, target->spec, operand.shape);
  if (!sharding) return sharding.error();
  result.sharding = std::move(sharding).value();
  return result;
}

Checked<ArrayType> reshard_rule(const ArrayType& operand, const ShardingArg& target, const MeshRef& context_mesh) {
  const MeshRef mesh = target.mesh ? *target.mesh : context_mesh;
  if (empty_mesh(mesh))
    return Error{ErrorClass::ValueError, "Reshard should only be used with out_shardings which are non-None and have "
                                         "a non-empty mesh. Got sharding " +
                                             (target.mesh ? "NamedSharding(mesh=" + mesh_repr(mesh) +
                                                                ", spec=" + target.spec.repr() + ")"
                                                          : target.spec.repr()) +
                                             "."};
  if (std::optional<Error> error = check_spec(*mesh, target.spec)) return *error;
  if (const MeshAxis* axis = non_explicit_axis(*mesh, target.spec))
    return auto_or_manual_axis_error("reshard", target.spec, *axis);
  Checked<Sharding> sharding = make_sharding(mesh, target.spec, operand.shape);
  if (!sharding) return sharding.error();
  ArrayType result = operand;
  result.sharding = std::move(sharding).value();
  return result;
}

Checked<ArrayType> with_sharding_constraint_rule(const ArrayType& operand, const ShardingArg& constraint,
                                                 const MeshRef& context_mesh) {
  const MeshRef mesh = constraint.mesh ? *constraint.mesh : context_mesh;
  if (empty_mesh(mesh)) return operand;
  if (std::optional<Error> error = check_spec(*mesh, constraint.spec)) return *error;
  const std::size_t rank = constraint.spec.partitions().size();
  if (rank > operand.ndim())
    return Error{ErrorClass::ValueError,
                 "Sharding NamedSharding(mesh=" + mesh->repr() + ", spec=" + constraint.spec.repr() +
                     ") is only valid for values of rank at least " + std::to_string(rank) +
                     ", but was applied to a value of rank " + std::to_string(operand.ndim()) + "." +
                     (operand.ndim() == 0 ? " For scalars the PartitionSpec should be P()" : "")};
  if (mesh->all_axes_of_type(AxisType::Explicit)) {
    std::vector<SpecEntry> requested = constraint.spec.partitions();
    requested.resize(operand.ndim());
    if (requested != operand.sharding.dims)
      return Error{ErrorClass::AssertionError,
                   "with_sharding_constraint acts as an assert when all axes of mesh are of type `Explicit`. The "
                   "array sharding: " +
                       operand.sharding.spec().repr() + " did not match the sharding provided: " +
                       PartitionSpec::from_entries(requested, constraint.spec.unreduced(), constraint.spec.reduced())
                           .repr() +
                       ". Please use `jax.sharding.reshard` to shard your input to the sharding you want."};
    return operand;
  }
  for (const std::string& axis : constraint.spec.partition_axes())
    if (mesh->find(axis)->type != AxisType::Auto)
      return Error{ErrorClass::ValueError, "The spec of NamedSharding passed to with_sharding_constraint can only "
                                           "refer to Auto axes of the mesh. Got spec=" +
                                               constraint.spec.repr() + " and mesh=" + mesh->repr() +
                                               ". You probably meant to use reshard API?"};
  return operand;
}

Checked<std::optional<MeshSwitch>> switch_axis_types(const MeshRef& context_mesh, const MeshRef& sharding_mesh,
                                                     const std::optional<std::vector<std::string>>& axes,
                                                     AxisType type) {
  if (empty_mesh(context_mesh) && empty_mesh(sharding_mesh)) return std::optional<MeshSwitch>{};
  if (!empty_mesh(context_mesh) && !empty_mesh(sharding_mesh) && !same_mesh(context_mesh, sharding_mesh))
    return Error{ErrorClass::ValueError, "Context mesh " + context_mesh->repr() +
                                             " must match the mesh passed to shardings " + sharding_mesh->repr() +
                                             ". Recommended approach is to use `jax.set_mesh` context manager."};
  const MeshRef& mesh = empty_mesh(context_mesh) ? sharding_mesh : context_mesh;
  std::vector<std::string> names;
  if (axes) names = *axes;
  else
    for (const MeshAxis& axis : mesh->axes()) names.push_back(axis.name);
  for (const std::string& name : names) {
    const MeshAxis* axis = mesh->find(name);
    if (!axis)
      return Error{ErrorClass::KeyError, python_string_repr(name)};
    if (axis->type == AxisType::Manual)
      return Error{ErrorClass::NotImplementedError,
                   "Going from `Manual` AxisType to `Auto` or `Explicit` AxisType is not allowed. Please file a bug "
                   "at https://github.com/jax-ml/jax/issues with your use case"};
  }
  return std::optional<MeshSwitch>{MeshSwitch{mesh, mesh->with_axis_types(names, type), names}};
}

PartitionSpec explicit_only(const PartitionSpec& spec, const MeshRef& mesh) {
  std::vector<SpecEntry> entries = spec.partitions();
  for (SpecEntry& entry : entries)
    std::erase_if(entry, [&](const std::string& axis) {
      const MeshAxis* found = mesh ? mesh->find(axis) : nullptr;
      return !found || found->type != AxisType::Explicit;
    });
  return PartitionSpec::from_entries(std::move(entries), spec.unreduced(), spec.reduced());
}

}  // namespace typecheck
