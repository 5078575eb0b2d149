#include "typecheck/array_type.hpp"

#include <algorithm>

#include "typecheck/python_repr.hpp"

namespace typecheck {

Sharding Sharding::replicated(MeshRef mesh, std::size_t ndim) {
  Sharding sharding;
  sharding.mesh = std::move(mesh);
  sharding.dims.resize(ndim);
  return sharding;
}

std::int64_t Sharding::shard_count(std::size_t dim) const {
  std::int64_t count = 1;
  if (!mesh || dim >= dims.size()) return count;
  for (const std::string& axis : dims[dim])
    if (const MeshAxis* found = mesh->find(axis)) count *= found->size;
  return count;
}

std::string Sharding::repr() const { return "NamedSharding(mesh=" + mesh_repr(mesh) + ", spec=" + spec().repr() + ")"; }

bool Sharding::operator==(const Sharding& other) const {
  return same_mesh(mesh, other.mesh) && dims == other.dims && unreduced == other.unreduced &&
         reduced == other.reduced;
}

AxisList in_mesh_order(const AxisSet& axes, const MeshRef& mesh) {
  AxisList ordered(axes.begin(), axes.end());  // sorted by name: the tie-break
  auto position = [&](const std::string& axis) {
    std::optional<std::size_t> index = mesh ? mesh->index_of(axis) : std::nullopt;
    return index.value_or(SIZE_MAX);
  };
  std::stable_sort(ordered.begin(), ordered.end(),
                   [&](const std::string& a, const std::string& b) { return position(a) < position(b); });
  return ordered;
}

namespace {

// <axes> of §1.2: one axis bare, several parenthesized without spaces.
std::string axes_text(const AxisList& axes) {
  if (axes.size() == 1) return axes[0];
  std::string out = "(";
  for (std::size_t i = 0; i < axes.size(); ++i) out += (i > 0 ? "," : "") + axes[i];
  return out + ")";
}

AxisSet set_union(const AxisSet& a, const AxisSet& b) {
  AxisSet out = a;
  out.insert(b.begin(), b.end());
  return out;
}

}  // namespace

std::string ArrayType::format(const TypeFormat& format) const {
  std::string out;
  if (format.weak_marker && weak_type) out += '~';
  out += format.short_dtypes ? short_name(dtype) : long_name(dtype);
  out += '[';
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(shape[i]);
    if (i < sharding.dims.size() && !sharding.dims[i].empty()) out += '@' + axes_text(sharding.dims[i]);
  }
  out += ']';
  // {V:..., U:..., R:...}: U and R join the manual and the explicit sets.
  std::vector<std::string> entries;
  auto add = [&](const char* label, const AxisSet& axes) {
    if (!axes.empty()) entries.push_back(label + axes_text(in_mesh_order(axes, sharding.mesh)));
  };
  add("V:", manual.varying);
  add("U:", set_union(manual.unreduced, sharding.unreduced));
  add("R:", set_union(manual.reduced, sharding.reduced));
  if (!entries.empty()) {
    out += '{';
    for (std::size_t i = 0; i < entries.size(); ++i) out += (i > 0 ? ", " : "") + entries[i];
    out += '}';
  }
  return out;
}

Checked<Sharding> make_sharding(const MeshRef& mesh, const PartitionSpec& spec, std::span<const std::int64_t> shape) {
  static const MeshRef empty_mesh = AbstractMesh::make({}).value();
  const AbstractMesh& checked_mesh = mesh ? *mesh : *empty_mesh;
  if (std::optional<Error> error = check_spec(checked_mesh, spec)) return *error;

  Sharding requested;
  requested.mesh = mesh;
  requested.dims = spec.partitions();
  requested.unreduced = spec.unreduced();
  requested.reduced = spec.reduced();
  if (spec.partitions().size() > shape.size())
    return Error{ErrorClass::ValueError,
                 "Length of sharding.spec (" + std::to_string(spec.partitions().size()) +
                     ") must be equal to aval's ndim (" + std::to_string(shape.size()) + "). Got sharding.spec " +
                     spec.repr() + ", aval.ndim " + std::to_string(shape.size()) + " and sharding " +
                     requested.repr()};

  // modify_spec_for_auto_manual: only Explicit axes stay in a type.
  Sharding sharding = Sharding::replicated(mesh, shape.size());
  sharding.unreduced = spec.unreduced();
  sharding.reduced = spec.reduced();
  for (std::size_t dim = 0; dim < spec.partitions().size(); ++dim)
    for (const std::string& axis : spec.partitions()[dim])
      if (checked_mesh.find(axis)->type == AxisType::Explicit) sharding.dims[dim].push_back(axis);

  for (std::size_t dim = 0; dim < shape.size(); ++dim) {
    const std::int64_t parts = sharding.shard_count(dim);
    if (shape[dim] % parts != 0)
      return Error{ErrorClass::ValueError,
                   "Sharding spec " + spec_entry_tuple_repr(sharding.dims[dim]) + " implies that array axis " +
                       std::to_string(dim) + " is partitioned " + std::to_string(parts) +
                       " times, but does not evenly divide the dimension size " + std::to_string(shape[dim]) +
                       ". Got shape: " + python_shape_repr(shape) + " and sharding " + sharding.repr()};
  }
  return sharding;
}

Checked<ArrayType> make_array_type(ElementType element, Shape shape, const MeshRef& mesh, const PartitionSpec& spec,
                                   ManualAxisType manual) {
  Checked<Sharding> sharding = make_sharding(mesh, spec, shape);
  if (!sharding) return sharding.error();
  for (const AxisSet* axes : {&manual.varying, &manual.unreduced, &manual.reduced})
    for (const std::string& axis : *axes) {
      const MeshAxis* found = mesh ? mesh->find(axis) : nullptr;
      if (!found || found->type != AxisType::Manual)
        return Error{ErrorClass::ValueError,
                     "Axes mentioned in manual_axis_type field of ShapedArray should be of type Manual. Got axis " +
                         python_string_repr(axis) + " and mesh " + mesh_repr(mesh)};
    }
  for (const std::string& axis : manual.varying)
    if (manual.unreduced.contains(axis) || manual.reduced.contains(axis))
      return Error{ErrorClass::ValueError, "Axis " + python_string_repr(axis) +
                                               " cannot be both varying and unreduced or reduced in a type."};
  ArrayType type;
  type.dtype = element.dtype;
  type.weak_type = element.weak_type && element.dtype != DType::bool_;
  type.shape = std::move(shape);
  type.sharding = std::move(sharding).value();
  type.manual = std::move(manual);
  return type;
}

Shape local_shape(const ArrayType& type) {
  Shape local = type.shape;
  for (std::size_t dim = 0; dim < local.size(); ++dim) local[dim] /= type.sharding.shard_count(dim);
  return local;
}

}  // namespace typecheck
