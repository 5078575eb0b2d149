// A jitted program's device memory (docs/memory.md): its values' liveness in
// program order. Each equation's result is allocated when the equation runs
// (with the buffers its collectives gather into, freed after it) and freed
// after its last use; the arguments are the caller's; the outputs live to
// the end; a donated argument whose buffer an output of its type can reuse
// holds that output instead of a new buffer. Loops and shard_map bodies are
// unrolled into the program, and grad's backward pass is recorded after its
// forward pass, so a scan's carry, a body's temporaries and the residuals
// grad keeps for the backward pass (fewer under jax.checkpoint) all follow.
//
// A run and a check charge the same plan on the ledger (ProgramMemory), so
// both stop at the same call when it does not fit (XLA reports a program's
// out-of-memory at its call too).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "devices/profile.hpp"
#include "interp/ops/device_memory.hpp"
#include "interp/transforms/jaxpr.hpp"

namespace interp {

struct MemoryPlan {
  // A buffer: a variable's, or a collective's temporary for one equation.
  struct Buffer {
    int variable = -1;
    DeviceMeshRef mesh;
    std::int64_t bytes = 0;  // on each device of mesh
  };
  struct Step {
    std::vector<Buffer> temporaries;  // freed after the step
    std::vector<Buffer> made;         // the equation's result, unless it reuses a donated argument
    std::vector<int> dying;           // variables whose last use this step is
  };
  std::vector<Step> steps;  // one per equation
  // Per program input: whether the caller donated it and an output reuses it.
  std::vector<bool> aliased_input;
  // The compiled program the steps are for (less its dead code:
  // Executable::program()).
  std::shared_ptr<const Jaxpr> program;
  // The steps as one sequence of ledger changes (ProgramMemory), made by
  // the first run on a ledger.
  struct Charges;
  mutable std::shared_ptr<const Charges> charges;
};

// The plan of a compiled program (its partitioned steps give the moved
// operands); `donated[i]`: the caller donates program input i.
MemoryPlan plan_memory(const Executable& executable, const std::vector<bool>& donated);

// JAX's warning when an argument's donation cannot be used
// (mlir.lower_jaxpr_to_module, as a program is lowered): the donated inputs
// (`donated[i]` for program input i) the program reads and no output
// reuses, each as the aval of its shard ("float32[64,128]"); none: no
// warning. JAX leaves the choice to XLA, without a warning, when the
// program spans several devices and an output's sharding is unspecified
// (not on a mesh with Explicit axes only): `outputs_placed` says it is.
std::vector<std::string> unusable_donations(const Jaxpr& program, const MemoryPlan& plan, const std::vector<bool>& donated,
                                            bool outputs_placed);
// The warning's text, a line of Python's warnings each.
std::string unusable_donations_warning(const std::vector<std::string>& avals);

// compiled.memory_analysis(), per device (JAX's CompiledMemoryStats), on the
// first device of the program's largest mesh: the arguments (closed-over
// constants among them), outputs, the bytes outputs reuse from donated
// arguments, the most temporaries live at once, no generated code, and the
// peak of all of these live together.
struct MemoryAnalysis {
  std::int64_t argument = 0, output = 0, alias = 0, temp = 0, generated_code = 0, peak = 0;
};
MemoryAnalysis analyse_memory(const Jaxpr& program, const MemoryPlan& plan);

// The program's buffers charged on the ledger step by step as they come and
// go, each made at its equation's line (Equation::span; `call`, the line
// that runs the program, when it has none); what is live at the end stays
// charged while this lives: the caller drops it, then charges the outputs
// it returns. RESOURCE_EXHAUSTED is raised (at the call, as XLA reports it)
// when a step does not fit, with a note at the line of the equation that
// allocates.
// Donated arguments an output reuses are handed over: their holds end with
// this.
class ProgramMemory {
 public:
  ProgramMemory(Evaluator& evaluator, const Jaxpr& program, const MemoryPlan& plan,
                const std::vector<ArrayRef>& arguments, const lang::Span& call);
  ~ProgramMemory();
  ProgramMemory(const ProgramMemory&) = delete;
  ProgramMemory& operator=(const ProgramMemory&) = delete;

 private:
  struct Owner;
  // The steps charged in one go (MemoryLedger::charge_in_order); false,
  // charging nothing, when they must be charged one at a time.
  bool charge_at_once(Runtime& runtime, const Jaxpr& program, const MemoryPlan& plan, const lang::Span& call);
  void charge_each(Evaluator& evaluator, const Jaxpr& program, const MemoryPlan& plan, const lang::Span& call);
  // Owners outlive the holds naming them (members go in reverse order).
  std::vector<std::unique_ptr<Owner>> owners_;
  std::vector<std::shared_ptr<ArrayMemory>> donated_;
  std::vector<devices::MemoryHold> holds_;  // by variable
  devices::Profile* timeline_ = nullptr;    // --trace's memory samples, or null
};

}  // namespace interp
