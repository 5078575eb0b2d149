// ArrayType: what jax.typeof(x) returns, and its one canonical printed form.
//
// Contract: an ArrayType is dtype + shape + weak flag + Sharding (+ the
// Manual axes it varies over inside shard_map), the fields of reference §1.1.
// A Sharding built by make_sharding obeys §1.1's invariants: one entry per
// dimension, only Explicit mesh axes, every sharded dimension divisible by
// its axes' sizes. Printing (reference §1.2): str() is print(jax.typeof(x)),
// "float32[8@X,2@Y]", "~float32[]", "float32[3]{V:i}"; short_str() is the
// diagnostic form "f32[8@X,2@Y]". parse_array_type (type_parser.hpp) reads
// both back.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "typecheck/dtype.hpp"
#include "typecheck/error.hpp"
#include "typecheck/mesh.hpp"
#include "typecheck/partition_spec.hpp"

namespace typecheck {

using Shape = std::vector<std::int64_t>;

// How one array is laid out over a mesh: NamedSharding(mesh, spec) of a type.
struct Sharding {
  MeshRef mesh;                  // null: no mesh (NumPy constants, literals)
  std::vector<SpecEntry> dims;   // one per array dimension; empty = replicated
  AxisSet unreduced;             // Explicit axes holding partial sums ({U:X})
  AxisSet reduced;               // Explicit axes marked reduced ({R:X})

  // A replicated sharding of rank `ndim` on `mesh`.
  static Sharding replicated(MeshRef mesh, std::size_t ndim);

  PartitionSpec spec() const { return PartitionSpec::from_entries(dims, unreduced, reduced); }
  // Product of the mesh sizes of the axes that split dimension `dim`.
  std::int64_t shard_count(std::size_t dim) const;
  // NamedSharding(mesh=AbstractMesh(...), spec=P(...))
  std::string repr() const;

  bool operator==(const Sharding& other) const;
};

// ShapedArray.manual_axis_type: sets of Manual mesh axes.
struct ManualAxisType {
  AxisSet varying{};  // the vma: axes the value differs along ({V:i})
  AxisSet unreduced{};
  AxisSet reduced{};
  bool empty() const { return varying.empty() && unreduced.empty() && reduced.empty(); }
  bool operator==(const ManualAxisType&) const = default;
};

struct TypeFormat {
  bool short_dtypes = false;  // f32 instead of float32
  bool weak_marker = true;    // "~" before weak types
};

struct ArrayType {
  DType dtype = DType::float32;
  Shape shape;
  bool weak_type = false;
  Sharding sharding;
  ManualAxisType manual;

  std::size_t ndim() const { return shape.size(); }
  ElementType element_type() const { return {dtype, weak_type}; }

  std::string format(const TypeFormat& format) const;
  // str(jax.typeof(x)): ~float32[8@X,2@Y]{V:i}
  std::string str() const { return format({}); }
  // str_short(short_dtypes=True), as JAX's error messages print types.
  std::string short_str() const { return format({.short_dtypes = true, .weak_marker = false}); }

  bool operator==(const ArrayType&) const = default;
};

// core.get_sharding: validates `spec` against `mesh` (check_spec), rejects a
// spec longer than the shape, drops Auto and Manual axes, pads with None to
// the rank and checks divisibility, with JAX's errors. An empty mesh accepts
// only a spec that names no axis.
Checked<Sharding> make_sharding(const MeshRef& mesh, const PartitionSpec& spec, std::span<const std::int64_t> shape);

// An ArrayType whose sharding comes from make_sharding and whose manual axes
// are checked against the mesh (they must be Manual; varying must not meet
// unreduced or reduced).
Checked<ArrayType> make_array_type(ElementType element, Shape shape, const MeshRef& mesh, const PartitionSpec& spec,
                                   ManualAxisType manual = {});

// The shape of one device's shard: each dimension divided by its shard count.
Shape local_shape(const ArrayType& type);

// Axes sorted by their position in `mesh` (unknown ones last, by name).
AxisList in_mesh_order(const AxisSet& axes, const MeshRef& mesh);

}  // namespace typecheck
