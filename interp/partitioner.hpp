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
// Rules (reference §2, the four sharded-matmul cases):
//   dot_general: a contraction split the same way in both operands is
//     summed across devices: reduce-scatter when the result is split over
//     those axes, all-reduce otherwise; split in one operand only, that
//     operand's contraction is all-gathered; a free dimension split
//     differently in the result than in its operand is resharded.
//   reductions over a split dimension: all-reduce.
//   elementwise: operands resharded to the result's sharding.
//   device_put / reshard / sharding_constraint / shard_map_enter: resharding between specs
//     (axes dropped: all-gather; added: dynamic-slice; moved: all-to-all).
//   shard_map collectives: their own XLA instruction.
#pragma once

#include <string>
#include <vector>

#include "interp/program.hpp"

namespace interp {

// One collective the partitioner inserts: its XLA name and the text after it.
struct PlannedCollective {
  std::string name;     // "all-gather"
  std::string details;  // "(b), dimensions={1}, axes={Y}"
  bool after = false;   // on the equation's result (partial sums), not an operand
};

// The collectives equation `e` of `program` needs: operand reshards, then
// (marked `after`) the sums of its result's partial values.
std::vector<PlannedCollective> plan_collectives(const Jaxpr& program, const Equation& e);

// The XLA instruction name of a collective primitive ("ppermute" ->
// "collective-permute"), or the primitive's own name.
std::string xla_name(const Primitive& primitive);

}  // namespace interp
