#include "typecheck/mesh.hpp"

#include "typecheck/python_repr.hpp"

namespace typecheck {

std::string_view axis_type_name(AxisType type) {
  // ORDER AxisType
  switch (type) {
    case AxisType::Explicit: return "Explicit";
    case AxisType::Auto: return "Auto";
    case AxisType::Manual: return "Manual";
  }
  return "Explicit";
}

std::string AbstractDevice::fields_repr() const {
  return "device_kind=" + device_kind + ", num_cores=" + (num_cores ? std::to_string(*num_cores) : "None") +
         ", platform=" + platform;
}

Checked<MeshRef> AbstractMesh::make(std::vector<MeshAxis> axes, std::optional<AbstractDevice> device) {
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].name.empty())
      return Error{ErrorClass::ValueError, "Mesh axis names must be non-empty strings."};
    if (axes[i].size <= 0)
      return Error{ErrorClass::ValueError, "Mesh axis " + python_string_repr(axes[i].name) +
                                               " must have a positive size, got " + std::to_string(axes[i].size) +
                                               "."};
    for (std::size_t j = 0; j < i; ++j)
      if (axes[j].name == axes[i].name)
        return Error{ErrorClass::ValueError,
                     "Mesh axis names must be unique, got " + python_string_repr(axes[i].name) + " twice."};
  }
  return MeshRef(new AbstractMesh(std::move(axes), std::move(device)));
}

const MeshAxis* AbstractMesh::find(std::string_view name) const {
  for (const MeshAxis& axis : axes_)
    if (axis.name == name) return &axis;
  return nullptr;
}

std::optional<std::size_t> AbstractMesh::index_of(std::string_view name) const {
  for (std::size_t i = 0; i < axes_.size(); ++i)
    if (axes_[i].name == name) return i;
  return std::nullopt;
}

std::int64_t AbstractMesh::device_count() const {
  std::int64_t count = 1;
  for (const MeshAxis& axis : axes_) count *= axis.size;
  return count;
}

bool AbstractMesh::has_axis_of_type(AxisType type) const {
  for (const MeshAxis& axis : axes_)
    if (axis.type == type) return true;
  return false;
}

bool AbstractMesh::all_axes_of_type(AxisType type) const {
  for (const MeshAxis& axis : axes_)
    if (axis.type != type) return false;
  return true;
}

MeshRef AbstractMesh::with_axis_types(const std::vector<std::string>& names, AxisType type) const {
  std::vector<MeshAxis> axes = axes_;
  for (MeshAxis& axis : axes)
    for (const std::string& name : names)
      if (axis.name == name) axis.type = type;
  return MeshRef(new AbstractMesh(std::move(axes), device_));
}

std::string AbstractMesh::repr() const {
  std::string out = "AbstractMesh(";
  std::string types;
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    if (i > 0) types += ", ";
    types += axis_type_name(axes_[i].type);
    out += python_string_repr(axes_[i].name) + ": " + std::to_string(axes_[i].size) + ", ";
  }
  if (axes_.size() == 1) types += ',';
  if (axes_.empty()) out += "(), ";
  out += "axis_types=(" + types + ")";
  if (device_) out += ", " + device_->fields_repr();
  return out + ")";
}

std::string AbstractMesh::axis_names_repr() const {
  std::vector<std::string> names;
  for (const MeshAxis& axis : axes_) names.push_back(python_string_repr(axis.name));
  return python_tuple_repr(names);
}

std::optional<Error> check_abstract_mesh_change(const MeshRef& previous, const MeshRef& next) {
  if (!previous || !next || previous->axes().empty() || next->axes().empty()) return std::nullopt;
  if (previous->device_count() == next->device_count()) return std::nullopt;
  return Error{ErrorClass::ValueError, "use_abstract_mesh cannot change the size of the mesh. Got new mesh: " +
                                           next->repr() + " with size=" + std::to_string(next->device_count()) +
                                           " and prev mesh: " + previous->repr() + " with size=" +
                                           std::to_string(previous->device_count())};
}

bool same_mesh(const MeshRef& lhs, const MeshRef& rhs) {
  if (!lhs || !rhs) return !lhs && !rhs;
  return *lhs == *rhs;
}

std::string mesh_repr(const MeshRef& mesh) {
  if (!mesh) return "AbstractMesh((), axis_types=())";
  return mesh->repr();
}

}  // namespace typecheck
