// The SPMD partitioner: a jitted program (Jaxpr) turned into the per-device
// program its call runs, once, when it is compiled. Each equation becomes
// steps from its family's one decision (ops/placement.hpp): the one the
// trace made as it recorded the equation (Equation::placement), else made
// here from the variables' types and the layouts the trace recorded for them:
//
//   reshard:  an operand moved to where the kernel needs it, printed and
//             charged as the XLA collectives that move it (all-gather,
//             all-to-all, dynamic-slice; collective-permute for a draw in
//             threefry's stable mode, whose blocks need counters another
//             device holds), run as the block moves of devices/redistribute;
//   kernel:   the family's local kernel on every device's shard (the
//             equation's own line in as_text());
//   combine:  the kernel's partial values combined by a collective of
//             devices/collectives (all-reduce, reduce-scatter);
//   finish:   local work after the combine (a mean's division).
//
// Families without a decision (partitioning::replay: shapes, indexing,
// random, control flow, shard_map and its collectives, ...) are replayed:
// their eager implementation runs as one step, moving what it needs inside;
// the step carries the collectives the family's `replayed` rule reports
// (shard_map's entry: the reshard to each in_spec; a shard_map collective
// is its own XLA instruction) for as_text() and the cost model.
//
// Executable::run (jaxpr.hpp) runs these steps, Executable::text prints
// them and the cost model (transforms/costing.hpp) charges them; eager
// execution runs the same decision through ops/placement.hpp's run_placed
// and is charged from the same steps (plan_steps).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "devices/cost_model.hpp"
#include "interp/ops/placement.hpp"
#include "interp/transforms/fusion.hpp"
#include "interp/transforms/jaxpr.hpp"

namespace interp {

// One collective of the per-device program: its XLA name and the text after
// it, and the same facts as the cost model takes them.
struct PlannedCollective {
  std::string name;     // "all-gather"
  std::string details;  // "(b), dimensions={1}, axes={Y}"
  bool after = false;   // on the equation's result (partial values), not an operand
  devices::CollectiveKind kind = devices::CollectiveKind::none;  // none for a dynamic-slice
  int variable = -1;                // the variable whose data it moves
  typecheck::SpecEntry axes;        // the mesh axes it runs over
  std::vector<std::int64_t> axis_sizes;  // their sizes, in order
  std::int64_t group_size = 1;      // devices in each group: the axes' sizes multiplied
  // Per device: the gathered array for all-gather and reduce-scatter, the
  // local one otherwise (costmodel.md's V and S).
  std::int64_t bytes = 0;
};

struct Step {
  enum class Kind { reshard, kernel, combine, finish, replay };
  Kind kind = Kind::kernel;
  int operand = -1;  // reshard: the operand it moves
  Layout target;     // reshard: where that operand goes
  std::vector<PlannedCollective> collectives;  // reshard, combine, replay: what they print and charge
};

// One equation of the per-device program.
struct PartitionedEquation {
  const Equation* equation = nullptr;
  std::shared_ptr<const Placement> placement;  // null: replayed
  std::vector<Step> steps;
  int fusion = -1;  // the fusion it is part of (PartitionedProgram::fusions), or -1
  // A static slice that only fusions read, each through a window of its
  // operand (Fusion::windows): charged and printed with them, never run.
  bool windowed = false;
  int concatenation = -1;  // the concatenation of fusions it is (PartitionedProgram::concatenations), or -1
  // Its value follows from the program's constants alone (mark_constants):
  // the same on every run, so runs after the first reuse it.
  bool constant = false;
};

struct PartitionedProgram {
  std::shared_ptr<const Jaxpr> jaxpr;
  std::vector<PartitionedEquation> equations;  // one per Jaxpr equation, in order
  std::vector<Fusion> fusions;                 // fusion.hpp: elementwise chains run as one loop
  std::vector<Concatenation> concatenations;   // fusion.hpp: fusions writing a concatenate's parts
  // By variable: its value is the same on every run (a constant of the
  // program, or a constant equation's value); set by mark_constants.
  std::vector<bool> same_every_run;
};

// Partitions `program`: each equation's decision made once (under the
// context mesh it was traced under), and its steps.
PartitionedProgram partition_program(Evaluator& evaluator, std::shared_ptr<const Jaxpr> program);

// Marks the equations whose values are the same on every run
// (PartitionedEquation::constant, PartitionedProgram::same_every_run), as XLA folds a program's constant
// expressions (a decode step's RoPE frequencies, its mask's fill value):
// read only constants or such values, without an effect, not a program
// output (a caller may donate or delete one), and a fusion only whole.
// Printing and costing still show them: only running skips them.
void mark_constants(PartitionedProgram& program);

// Whether the program recorded where `variable` lies (an untraced program
// did not).
bool has_layout(const Jaxpr& program, int variable);

// Copies of a program's values moved where kernels need them, by variable.
using MovedValues = std::vector<std::vector<ArrayRef>>;

// The values of one run of a partitioned program, by variable, and the
// copies of them moved where kernels need them: a value read in one layout
// other than its own by several equations (a table every layer reads split
// by the batch) is moved once per run; one the same on every run
// (`same_every_run`: a literal put on the devices of the kernels that read
// it) once for every run, into `kept_moves`, which the executable keeps.
class ProgramValues {
 public:
  explicit ProgramValues(std::size_t variables, const std::vector<bool>* same_every_run = nullptr,
                         MovedValues* kept_moves = nullptr)
      : values_(variables), moved_(variables), same_every_run_(same_every_run), kept_moves_(kept_moves) {}
  ArrayRef& operator[](int variable) { return values_[static_cast<std::size_t>(variable)]; }
  // The value of `variable` where a kernel needs it, remembered for the
  // run. Arguments lie where the program was traced for; a mesh object of
  // the same devices and axes is the same layout (relayout checks), so
  // only a different mesh or split moves it.
  ArrayRef where_needed(Evaluator& evaluator, int variable, const Layout& needed);

 private:
  std::vector<ArrayRef> values_;
  MovedValues moved_;  // per variable: its value in other layouts
  const std::vector<bool>* same_every_run_;
  MovedValues* kept_moves_;
};

// The steps of one decision, its operands lying as `operand_layouts` say
// (variables name them in the collectives' text: `inputs`, `output`; -1 for
// an eager application). `stable_draws` marks operands drawn in threefry's
// stable mode.
std::vector<Step> plan_steps(const Placement& placement, const std::vector<const typecheck::ArrayType*>& operand_types,
                             const std::vector<const Layout*>& operand_layouts, const std::vector<int>& inputs,
                             int output, const std::vector<bool>& stable_draws = {});

// The collectives a replayed equation `e` of `program` runs inside (its
// family's `replayed` rule): operand reshards, then (marked `after`) sums.
std::vector<PlannedCollective> replayed_collectives(const Jaxpr& program, const Equation& e);

// The XLA instruction name of a collective primitive ("ppermute" ->
// "collective-permute"), or the primitive's own name.
std::string xla_name(const Primitive& primitive);

}  // namespace interp
