#include "typecheck/rule_support.hpp"

#include <set>

#include "typecheck/python_repr.hpp"

namespace typecheck {

std::variant<MeshRef, MeshMismatch> common_mesh(std::span<const ArrayType* const> operands) {
  MeshRef mesh;
  for (const ArrayType* operand : operands) {
    const MeshRef& other = operand->sharding.mesh;
    if (!other) continue;
    if (!mesh) {
      mesh = other;
      continue;
    }
    if (!same_mesh(mesh, other) && !(mesh->all_axes_of_type(AxisType::Auto) && other->all_axes_of_type(AxisType::Auto)))
      return MeshMismatch{mesh, other};
  }
  return mesh;
}

bool has_explicit_axis(const MeshRef& mesh) { return mesh && mesh->has_axis_of_type(AxisType::Explicit); }

AxisSet varying_union(std::span<const ArrayType* const> operands) {
  AxisSet varying;
  for (const ArrayType* operand : operands) varying.insert(operand->manual.varying.begin(), operand->manual.varying.end());
  return varying;
}

std::optional<Error> check_result_axes(std::string_view primitive, std::span<const ArrayType* const> operands,
                                       const ArrayType& result) {
  std::set<std::string> seen;
  bool duplicate = false;
  for (const SpecEntry& entry : result.sharding.dims)
    for (const std::string& axis : entry) duplicate = !seen.insert(axis).second || duplicate;
  if (!duplicate) return std::nullopt;
  std::string inputs;
  for (const ArrayType* operand : operands) inputs += (inputs.empty() ? "" : ", ") + operand->short_str();
  return Error{ErrorClass::ShardingTypeError, std::string(primitive) + " operation with inputs: " + inputs +
                                                  " produces an illegally sharded result: " + result.short_str()};
}

ArrayType make_result(ElementType element, Shape shape, MeshRef mesh, AxisSet varying) {
  ArrayType result;
  result.dtype = element.dtype;
  result.weak_type = element.weak_type && element.dtype != DType::bool_;
  result.sharding = Sharding::replicated(std::move(mesh), shape.size());
  result.shape = std::move(shape);
  result.manual.varying = std::move(varying);
  return result;
}

Checked<std::size_t> normalize_axis(std::int64_t axis, std::size_t ndim) {
  const auto rank = static_cast<std::int64_t>(ndim);
  if (axis < -rank || axis >= rank)
    return Error{ErrorClass::ValueError, "axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                                             std::to_string(ndim)};
  return static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
}

std::string ints_tuple_repr(std::span<const std::int64_t> values) { return python_shape_repr(values); }

std::string ints_tuple_repr(std::span<const int> values) {
  std::vector<std::string> items;
  for (int value : values) items.push_back(std::to_string(value));
  return python_tuple_repr(items);
}

std::string shaped_array_repr(const ArrayType& type) {
  return "ShapedArray(" + type.format({.short_dtypes = false, .weak_marker = false}) +
         (type.weak_type ? ", weak_type=True)" : ")");
}

std::string str_with_axis_types(const ArrayType& type) {
  std::string out = type.format({.short_dtypes = false, .weak_marker = false});
  if (!type.sharding.mesh || type.sharding.mesh->axes().empty()) return out;
  // {Explicit: ('x', 'y')}: axis names grouped by type, in AxisType order.
  std::string groups;
  for (AxisType axis_type : {AxisType::Explicit, AxisType::Auto, AxisType::Manual}) {
    std::vector<std::string> names;
    for (const MeshAxis& axis : type.sharding.mesh->axes())
      if (axis.type == axis_type) names.push_back(python_string_repr(axis.name));
    if (!names.empty())
      groups += (groups.empty() ? "" : ", ") + std::string(axis_type_name(axis_type)) + ": " + python_tuple_repr(names);
  }
  return out + "({" + groups + "})";
}

std::string with_dims_short_str(const ArrayType& type, const std::vector<SpecEntry>& dims) {
  ArrayType shown = type;
  shown.sharding.dims = dims;
  return shown.short_str();
}

std::int64_t axes_size(const MeshRef& mesh, const SpecEntry& axes) {
  std::int64_t size = 1;
  for (const std::string& axis : axes)
    if (const MeshAxis* found = mesh ? mesh->find(axis) : nullptr) size *= found->size;
  return size;
}

bool fully_replicated(const ArrayType& type) {
  for (const SpecEntry& entry : type.sharding.dims)
    if (!entry.empty()) return false;
  return true;
}

std::string axes_tuple_repr(const AxisList& axes) {
  std::vector<std::string> items;
  for (const std::string& axis : axes) items.push_back(python_string_repr(axis));
  return python_tuple_repr(items);
}

std::string frozenset_repr(const AxisSet& axes, const MeshRef& mesh) {
  if (axes.empty()) return "frozenset()";
  return "frozenset(" + python_set_repr(in_mesh_order(axes, mesh)) + ")";
}

std::string axis_set_repr(const AxisSet& axes, const MeshRef& mesh) {
  return python_set_repr(in_mesh_order(axes, mesh));
}

}  // namespace typecheck
