// PartitionSpec: how each dimension of an array is split over mesh axes.
//
// Contract: a PartitionSpec is always canonical (reference §1.3): every entry
// is None, one axis, or a tuple of two or more axes; `unreduced` and
// `reduced` are disjoint from each other and from the partitions. Users'
// P(...) arguments come in as SpecInput and are canonicalized by
// PartitionSpec::make with JAX's errors. check_spec validates a spec against
// a mesh (reference §3.1). repr() prints exactly as JAX 0.11: P('X', None).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "typecheck/error.hpp"
#include "typecheck/mesh.hpp"

namespace typecheck {

// Mesh axis names, ordered (major to minor inside one entry).
using AxisList = std::vector<std::string>;
// Unordered sets of axis names; printed in mesh order where a mesh is known.
using AxisSet = std::set<std::string>;

// One canonical entry: empty = None, one axis = 'X', several = ('X', 'Y').
using SpecEntry = AxisList;

// repr of one entry: None, 'X', ('X', 'Y').
std::string spec_entry_repr(const SpecEntry& entry);
// The entry as a tuple, as divisibility messages print it: (), ('X',).
std::string spec_entry_tuple_repr(const SpecEntry& entry);
// The entries as a Python tuple: ('X', None), ('x',).
std::string spec_entries_tuple_repr(const std::vector<SpecEntry>& entries);

// One argument of P(...) as the user wrote it, before canonicalization.
struct SpecInput {
  enum class Kind { none, axis, tuple, list };
  Kind kind = Kind::none;
  std::string axis;              // for Kind::axis
  std::vector<SpecInput> items;  // for Kind::tuple and Kind::list

  static SpecInput none() { return {}; }
  static SpecInput name(std::string axis) { return {Kind::axis, std::move(axis), {}}; }
  static SpecInput tuple(std::vector<SpecInput> items) { return {Kind::tuple, {}, std::move(items)}; }
  static SpecInput list(std::vector<SpecInput> items) { return {Kind::list, {}, std::move(items)}; }

  std::string repr() const;  // as Python prints it: ('x', ['y'])
};

class PartitionSpec {
 public:
  PartitionSpec() = default;  // P()

  // P(*partitions, unreduced=..., reduced=...): canonicalizes each entry
  // (falsy -> None, 1-sequence -> its item, list -> tuple) and rejects
  // nested tuples and overlaps with JAX's ValueErrors.
  static Checked<PartitionSpec> make(const std::vector<SpecInput>& partitions, const AxisSet& unreduced = {},
                                     const AxisSet& reduced = {});
  // From entries that are canonical by construction (sharding rules, the
  // type parser): no checks.
  static PartitionSpec from_entries(std::vector<SpecEntry> partitions, AxisSet unreduced = {}, AxisSet reduced = {});

  const std::vector<SpecEntry>& partitions() const { return partitions_; }
  const AxisSet& unreduced() const { return unreduced_; }
  const AxisSet& reduced() const { return reduced_; }

  // Every axis the partitions name, in order of appearance (with repeats).
  AxisList partition_axes() const;

  // P('X', None), P(('x', 'y'),), P(), P(None, None, unreduced={'X'})
  std::string repr() const;
  // The partitions alone as a Python tuple: ('X', None).
  std::string partitions_repr() const { return spec_entries_tuple_repr(partitions_); }

  bool operator==(const PartitionSpec&) const = default;

 private:
  std::vector<SpecEntry> partitions_;
  AxisSet unreduced_;
  AxisSet reduced_;
};

// named_sharding.check_pspec, in JAX's order: each axis used at most once
// (DuplicateSpecError), each axis in the mesh, unreduced/reduced axes in the mesh and Explicit.
std::optional<Error> check_spec(const AbstractMesh& mesh, const PartitionSpec& spec);

}  // namespace typecheck
