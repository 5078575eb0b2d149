// The abstract device mesh that types refer to.
//
// Contract: an AbstractMesh is the typing view of a mesh (reference §1.4):
// ordered axis names, their sizes and their AxisType, no devices. Types hold
// it through MeshRef, a shared pointer to an immutable mesh, so copying an
// ArrayType is cheap; a null MeshRef is the empty mesh of NumPy constants and
// literals. Two MeshRefs denote the same mesh when their contents are equal
// (same_mesh), never by pointer identity.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typecheck/error.hpp"

namespace typecheck {

// ORDER AxisType: axis_type_name() lists the same.
enum class AxisType { Explicit, Auto, Manual };

// "Explicit": repr(AxisType.Explicit), as tuples of axis types print.
std::string_view axis_type_name(AxisType type);

struct MeshAxis {
  std::string name;
  std::int64_t size = 1;
  AxisType type = AxisType::Explicit;
  bool operator==(const MeshAxis&) const = default;
};

// jax.sharding.AbstractDevice: what an abstract mesh knows of its devices
// (AbstractMesh(..., abstract_device=...)); printed after the axis types.
struct AbstractDevice {
  std::string device_kind;
  std::optional<std::int64_t> num_cores;
  std::string platform;
  // device_kind=cpu, num_cores=None, platform=cpu
  std::string fields_repr() const;
  bool operator==(const AbstractDevice&) const = default;
};

class AbstractMesh;
using MeshRef = std::shared_ptr<const AbstractMesh>;

class AbstractMesh {
 public:
  // Names must be distinct and non-empty, sizes positive.
  static Checked<MeshRef> make(std::vector<MeshAxis> axes, std::optional<AbstractDevice> device = std::nullopt);

  const std::vector<MeshAxis>& axes() const { return axes_; }
  const std::optional<AbstractDevice>& abstract_device() const { return device_; }
  const MeshAxis* find(std::string_view name) const;
  // Position of the axis in mesh order; nullopt when absent.
  std::optional<std::size_t> index_of(std::string_view name) const;
  std::int64_t device_count() const;
  bool has_axis_of_type(AxisType type) const;
  bool all_axes_of_type(AxisType type) const;

  // The same axes with the named ones switched to `type` (shard_map makes
  // axes Manual, auto_axes makes them Auto). Unknown names are ignored.
  MeshRef with_axis_types(const std::vector<std::string>& names, AxisType type) const;

  // AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit)), and the
  // abstract device's fields after the types when it has one.
  std::string repr() const;
  // ('X', 'Y'): the tuple of axis names some messages print.
  std::string axis_names_repr() const;

  bool operator==(const AbstractMesh&) const = default;

 private:
  AbstractMesh(std::vector<MeshAxis> axes, std::optional<AbstractDevice> device)
      : axes_(std::move(axes)), device_(std::move(device)) {}
  std::vector<MeshAxis> axes_;
  std::optional<AbstractDevice> device_;
};

// use_abstract_mesh(next) inside `previous`: the same devices seen as other
// axes, so the device count must be kept (JAX's ValueError otherwise); an
// empty mesh on either side changes nothing.
std::optional<Error> check_abstract_mesh_change(const MeshRef& previous, const MeshRef& next);

// Equal contents, or both empty.
bool same_mesh(const MeshRef& lhs, const MeshRef& rhs);

// repr of a possibly empty mesh: the empty one prints as JAX's empty
// AbstractMesh, "AbstractMesh((), axis_types=())".
std::string mesh_repr(const MeshRef& mesh);

}  // namespace typecheck
