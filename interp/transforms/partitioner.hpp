// The SPMD partitioner's collective planning (issue #5 part 3), from the
// typed program: for each equation, the collectives that its operands'
// and result's shardings require, under XLA's names (all-gather,
// all-reduce, reduce-scatter, all-to-all, collective-permute,
// dynamic-slice). compile().as_text() prints them before the equation.
// A variable's sharding is its type's; on dimensions the type leaves whole,
// the Auto mesh axes of the layout its traced value had (Jaxpr's
// variable_layouts), so data-parallel programs on Auto meshes get their
// all-reduces too.
//
// The rules, one per family of primitives (each table entry's `partition`;
// reference §2, the four sharded-matmul cases):
//   dot_general: a contraction split the same way in both operands is
//     summed across devices: reduce-scatter when the result is split over
//     those axes, all-reduce otherwise; split in one operand only, that
//     operand's contraction is all-gathered; a free dimension split
//     differently in the result than in its operand is resharded.
//   reductions over a split dimension: all-reduce.
//   elementwise: operands resharded to the result's sharding.
//   device_put / sharding_constraint / shard_map_enter: resharding between specs
//     (axes dropped: all-gather; added: dynamic-slice; moved: all-to-all).
//   shard_map collectives: their own XLA instruction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devices/cost_model.hpp"
#include "interp/transforms/jaxpr.hpp"

namespace interp {

// One collective the partitioner inserts: its XLA name and the text after
// it, and the same facts as the cost model takes them.
struct PlannedCollective {
  std::string name;     // "all-gather"
  std::string details;  // "(b), dimensions={1}, axes={Y}"
  bool after = false;   // on the equation's result (partial sums), not an operand
  devices::CollectiveKind kind = devices::CollectiveKind::none;  // none for a dynamic-slice
  int variable = -1;                // the variable whose data it moves
  typecheck::SpecEntry axes;        // the mesh axes it runs over
  std::int64_t group_size = 1;      // devices in each group: the axes' sizes multiplied
  // Per device: the gathered array for all-gather and reduce-scatter, the
  // local one otherwise (costmodel.md's V and S).
  std::int64_t bytes = 0;
};

// The collectives equation `e` of `program` needs (its primitive's partition
// rule): operand reshards, then (marked `after`) the sums of its result's
// partial values.
std::vector<PlannedCollective> plan_collectives(const Jaxpr& program, const Equation& e);

// The XLA instruction name of a collective primitive ("ppermute" ->
// "collective-permute"), or the primitive's own name.
std::string xla_name(const Primitive& primitive);

// The partition rules the primitive table's entries point to, one per family.
namespace partition {
void none(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out);  // nothing to move
// dot_general: the four sharded-matmul cases below.
void contraction(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out);
// Reductions over a split dimension: an all-reduce of the result.
void reduction(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out);
// device_put and with_sharding_constraint: the operand resharded to the requested layout.
void relayout(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out);
// shard_map's entry: each operand resharded to its in_spec.
void shard_map_entry(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out);
// Elementwise: operands of the result's shape resharded to the result's sharding.
void elementwise(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out);
}  // namespace partition

}  // namespace interp
