// Pieces every sharding rule shares (reference §2.0): the operands' common
// mesh, the duplicate-axis check on a result, the result type's skeleton,
// axis normalization and the Python spellings the messages need.
//
// Contract: helpers for the rule files of typecheck/ only; they follow
// typecheck's error contract (values, never exceptions).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "typecheck/array_type.hpp"

namespace typecheck {

// Two operands whose non-empty meshes differ (and are not both all-Auto).
struct MeshMismatch {
  MeshRef first;
  MeshRef second;
};

// The operands' common mesh (null when none has one), or the first pair that
// disagrees. Operands with an empty mesh are ignored (reference §2.0 step 2).
std::variant<MeshRef, MeshMismatch> common_mesh(std::span<const ArrayType* const> operands);

// The rules run only when some axis is Explicit (reference §2.0 step 3).
bool has_explicit_axis(const MeshRef& mesh);

// Union of the operands' varying manual axes (jax_auto_pcast inserts pvary).
AxisSet varying_union(std::span<const ArrayType* const> operands);

// Reference §2.0 step 5: a mesh axis named twice in a rule's result is
// "{prim} operation with inputs: ... produces an illegally sharded result: ...".
std::optional<Error> check_result_axes(std::string_view primitive, std::span<const ArrayType* const> operands,
                                       const ArrayType& result);

// A replicated type of `shape` on `mesh`; weak dropped for bool.
ArrayType make_result(ElementType element, Shape shape, MeshRef mesh, AxisSet varying = {});

// numpy's normalize_axis_index: -1 is the last axis. Out of range is
// AxisError (a ValueError): "axis 2 is out of bounds for array of dimension 2".
Checked<std::size_t> normalize_axis(std::int64_t axis, std::size_t ndim);

// (0, 1), (3,): a tuple of ints as Python prints it.
std::string ints_tuple_repr(std::span<const std::int64_t> values);
std::string ints_tuple_repr(std::span<const int> values);

// repr(ShapedArray): ShapedArray(float32[8@X,4]) (long dtypes, no weak marker),
// with ", weak_type=True" for weak types.
std::string shaped_array_repr(const ArrayType& type);

// str_short(mesh_axis_types=True): float32[16@x]({Explicit: ('x',)}).
std::string str_with_axis_types(const ArrayType& type);

// The type's short string with its dims' entries replaced.
std::string with_dims_short_str(const ArrayType& type, const std::vector<SpecEntry>& dims);

// Product of the sizes of `axes` on `mesh` (unknown axes count 1).
std::int64_t axes_size(const MeshRef& mesh, const SpecEntry& axes);

// True when no dimension is sharded (unreduced/reduced not considered).
bool fully_replicated(const ArrayType& type);

// Axis names as Python prints a tuple of them: ('x', 'y'), ('x',).
std::string axes_tuple_repr(const AxisList& axes);
// A set of axis names as JAX prints a frozenset (in mesh order, as Python's
// small-string sets usually come out): frozenset({'x', 'y'}), frozenset().
std::string frozenset_repr(const AxisSet& axes, const MeshRef& mesh);
// As a Python set: {'x', 'y'}, set().
std::string axis_set_repr(const AxisSet& axes, const MeshRef& mesh);

}  // namespace typecheck
