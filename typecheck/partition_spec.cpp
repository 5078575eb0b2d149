#include "typecheck/partition_spec.hpp"

#include <map>

#include "typecheck/python_repr.hpp"

namespace typecheck {

std::string spec_entry_repr(const SpecEntry& entry) {
  if (entry.empty()) return "None";
  if (entry.size() == 1) return python_string_repr(entry[0]);
  return spec_entry_tuple_repr(entry);
}

std::string spec_entry_tuple_repr(const SpecEntry& entry) {
  std::vector<std::string> items;
  for (const std::string& axis : entry) items.push_back(python_string_repr(axis));
  return python_tuple_repr(items);
}

std::string spec_entries_tuple_repr(const std::vector<SpecEntry>& entries) {
  std::vector<std::string> items;
  for (const SpecEntry& entry : entries) items.push_back(spec_entry_repr(entry));
  return python_tuple_repr(items);
}

std::string SpecInput::repr() const {
  switch (kind) {
    case Kind::none: return "None";
    case Kind::axis: return python_string_repr(axis);
    case Kind::tuple:
    case Kind::list: {
      std::vector<std::string> item_reprs;
      for (const SpecInput& item : items) item_reprs.push_back(item.repr());
      if (kind == Kind::tuple) return python_tuple_repr(item_reprs);
      std::string out = "[";
      for (std::size_t i = 0; i < item_reprs.size(); ++i) out += (i > 0 ? ", " : "") + item_reprs[i];
      return out + "]";
    }
  }
  return "None";
}

namespace {

bool is_sequence(const SpecInput& input) {
  return input.kind == SpecInput::Kind::tuple || input.kind == SpecInput::Kind::list;
}

std::vector<std::string> sorted_items(const AxisSet& axes) { return {axes.begin(), axes.end()}; }

// str(frozenset) as the C++ PartitionSpec check formats the set.
std::string frozenset_repr(const AxisSet& axes) {
  if (axes.empty()) return "frozenset()";
  return "frozenset(" + python_set_repr(sorted_items(axes)) + ")";
}

// jaxlib's CanonicalizePartition for one argument of P(...).
Checked<SpecEntry> canonical_entry(const SpecInput& partition) {
  if (partition.kind == SpecInput::Kind::none) return SpecEntry{};
  if (partition.kind == SpecInput::Kind::axis) return SpecEntry{partition.axis};
  SpecEntry entry;
  for (const SpecInput& item : partition.items) {
    if (is_sequence(item))
      return Error{ErrorClass::ValueError,
                   "A tuple inside PartitionSpec cannot contain a nested tuple. Got partition: " + partition.repr() +
                       " and the nested tuple: " + item.repr()};
    // A None inside a tuple names no axis.
    if (item.kind == SpecInput::Kind::axis) entry.push_back(item.axis);
  }
  return entry;
}

}  // namespace

Checked<PartitionSpec> PartitionSpec::make(const std::vector<SpecInput>& partitions, const AxisSet& unreduced,
                                           const AxisSet& reduced) {
  std::vector<SpecEntry> entries;
  for (const SpecInput& partition : partitions) {
    Checked<SpecEntry> entry = canonical_entry(partition);
    if (!entry) return entry.error();
    entries.push_back(std::move(entry).value());
  }
  for (const SpecEntry& entry : entries)
    for (const std::string& axis : entry) {
      if (unreduced.contains(axis))
        return Error{ErrorClass::ValueError,
                     "partitions cannot overlap with unreduced axes passed to PartitionSpec. Got partitions: " +
                         spec_entries_tuple_repr(entries) + " and unreduced axes: " + frozenset_repr(unreduced)};
      if (reduced.contains(axis))
        return Error{ErrorClass::ValueError,
                     "partitions cannot overlap with reduced axes passed to PartitionSpec. Got partitions: " +
                         spec_entries_tuple_repr(entries) + " and reduced axes: " + frozenset_repr(reduced)};
    }
  for (const std::string& axis : unreduced)
    if (reduced.contains(axis))
      return Error{ErrorClass::ValueError, "`unreduced` and `reduced` argument to PartitionSpec cannot overlap. "
                                           "Got unreduced: " +
                                               frozenset_repr(unreduced) + " and reduced: " + frozenset_repr(reduced)};
  return from_entries(std::move(entries), unreduced, reduced);
}

PartitionSpec PartitionSpec::from_entries(std::vector<SpecEntry> partitions, AxisSet unreduced, AxisSet reduced) {
  PartitionSpec spec;
  spec.partitions_ = std::move(partitions);
  spec.unreduced_ = std::move(unreduced);
  spec.reduced_ = std::move(reduced);
  return spec;
}

AxisList PartitionSpec::partition_axes() const {
  AxisList axes;
  for (const SpecEntry& entry : partitions_) axes.insert(axes.end(), entry.begin(), entry.end());
  return axes;
}

std::string PartitionSpec::repr() const {
  // P( + repr(partitions)[1:-1] + ), then the unreduced/reduced keywords.
  const std::string tuple = partitions_repr();
  std::string inside = tuple.substr(1, tuple.size() - 2);
  if (unreduced_.empty() && reduced_.empty()) return "P(" + inside + ")";
  if (!inside.empty()) inside += inside.back() == ',' ? " " : ", ";
  std::string keywords;
  if (!unreduced_.empty()) keywords += "unreduced=" + python_set_repr(sorted_items(unreduced_));
  if (!reduced_.empty())
    keywords += (keywords.empty() ? "" : ", ") + std::string("reduced=") + python_set_repr(sorted_items(reduced_));
  return "P(" + inside + keywords + ")";
}

std::optional<Error> check_spec(const AbstractMesh& mesh, const PartitionSpec& spec) {
  // _check_unique_resources
  std::map<std::string, int> uses;
  bool duplicate = false;
  for (const std::string& axis : spec.partition_axes()) duplicate = (uses[axis]++ > 0) || duplicate;
  if (duplicate) {
    std::string shown;
    for (const auto& [axis, count] : uses)  // std::map: sorted, as show_axes sorts
      if (count > 1) shown += (shown.empty() ? "`" : ", `") + axis + "`";
    return Error{ErrorClass::DuplicateSpecError,
                 "A single NamedSharding spec specification can map every mesh axis to at most one positional "
                 "dimension, but " +
                     spec.repr() + " has duplicate entries for " + shown};
  }
  // _check_mesh_resource_axis. Its older "AxisTypes should be the same in a
  // tuple subset" check is gone in JAX 0.11: a tuple may mix Explicit and
  // Auto axes, and the type keeps the Explicit ones (test_mix_axis_type_in_pspec).
  for (const SpecEntry& entry : spec.partitions()) {
    for (const std::string& axis : entry)
      if (!mesh.find(axis))
        return Error{ErrorClass::ValueError, "Resource axis: " + axis + " of " + spec.repr() +
                                                 " is not found in mesh: " + mesh.axis_names_repr() + "."};
  }
  // _check_mesh_unreduced and its reduced twin
  auto check_axes = [&](const AxisSet& axes, const std::string& label) -> std::optional<Error> {
    const std::vector<std::string> names = sorted_items(axes);
    for (const std::string& axis : axes) {
      const MeshAxis* found = mesh.find(axis);
      if (!found)
        return Error{ErrorClass::ValueError, label + " axes " + axis + " is not found in mesh.axis_names=" +
                                                 mesh.axis_names_repr() + ". Got pspec=" + spec.repr()};
      if (found->type != AxisType::Explicit)
        return Error{ErrorClass::ValueError, label +
                                                 " axes can only refer to mesh axes that is of type `Explicit`. Got " +
                                                 (label == "Unreduced" ? "unreduced" : "reduced") +
                                                 " axes: " + frozenset_repr(axes) + " and mesh: " + mesh.repr()};
    }
    return std::nullopt;
  };
  if (auto error = check_axes(spec.unreduced(), "Unreduced")) return error;
  return check_axes(spec.reduced(), "Reduced");
}

}  // namespace typecheck
