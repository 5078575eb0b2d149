// A jitted program's device memory (memory_plan.hpp).
#include "interp/transforms/memory_plan.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "interp/ops/device_memory.hpp"
#include "interp/transforms/costing.hpp"
#include "interp/transforms/partitioner.hpp"

namespace interp {

namespace {

const Layout* layout_of(const Jaxpr& program, int variable) {
  const auto& layout = program.variable_layouts[static_cast<std::size_t>(variable)];
  return layout && layout->mesh ? &*layout : nullptr;
}

MemoryPlan::Buffer buffer_of(const Jaxpr& program, int variable) {
  const Layout* layout = layout_of(program, variable);
  if (!layout) return {variable, nullptr, 0};
  return {variable, layout->mesh, shard_bytes(program.variable_types[static_cast<std::size_t>(variable)], *layout)};
}

bool same_buffer_type(const Jaxpr& program, int a, int b) {
  const auto& ta = program.variable_types[static_cast<std::size_t>(a)];
  const auto& tb = program.variable_types[static_cast<std::size_t>(b)];
  const Layout* la = layout_of(program, a);
  const Layout* lb = layout_of(program, b);
  return ta.dtype == tb.dtype && ta.shape == tb.shape && la && lb && *la == *lb;
}

}  // namespace

MemoryPlan plan_memory(const Executable& executable, const std::vector<bool>& donated) {
  const Jaxpr& program = executable.program();
  MemoryPlan plan;
  plan.program = executable.partitioned().jaxpr;
  const std::size_t count = program.variable_types.size();
  // Who holds each variable: the caller (arguments, constants) or the end (outputs).
  std::vector<bool> caller(count, false), output(count, false);
  for (int input : program.inputs) caller[static_cast<std::size_t>(input)] = true;
  for (const auto& constant : program.constants) caller[static_cast<std::size_t>(constant.first)] = true;
  for (int out : program.outputs) output[static_cast<std::size_t>(out)] = true;
  // Donated inputs reused by an output of their type made by the program.
  plan.aliased_input.assign(program.inputs.size(), false);
  std::vector<bool> reuses(count, false);
  // The outputs the program makes, in order, by dtype and shape.
  std::map<std::pair<typecheck::DType, typecheck::Shape>, std::vector<int>> made_outputs;
  for (int out : program.outputs) {
    const auto& type = program.variable_types[static_cast<std::size_t>(out)];
    if (!caller[static_cast<std::size_t>(out)]) made_outputs[{type.dtype, type.shape}].push_back(out);
  }
  for (std::size_t i = 0; i < program.inputs.size(); ++i) {
    if (i >= donated.size() || !donated[i]) continue;
    int input = program.inputs[i];
    const auto& type = program.variable_types[static_cast<std::size_t>(input)];
    auto candidates = made_outputs.find({type.dtype, type.shape});
    if (candidates == made_outputs.end()) continue;
    for (int out : candidates->second) {
      if (reuses[static_cast<std::size_t>(out)] || !same_buffer_type(program, input, out)) continue;
      reuses[static_cast<std::size_t>(out)] = true;
      plan.aliased_input[i] = true;
      break;
    }
  }
  // Last uses.
  std::vector<int> last_use(count, -1);
  for (std::size_t s = 0; s < program.equations.size(); ++s)
    for (int input : program.equations[s].inputs) last_use[static_cast<std::size_t>(input)] = static_cast<int>(s);
  const auto& partitioned = executable.partitioned().equations;
  plan.steps.resize(program.equations.size());
  for (std::size_t s = 0; s < program.equations.size(); ++s) {
    const Equation& e = program.equations[s];
    MemoryPlan::Step& step = plan.steps[s];
    // The operands the partitioner moves for the kernel, and the buffers a
    // replayed family's collectives gather into, live while it runs.
    const Layout* layout = layout_of(program, e.output);
    for (const auto& planned : partitioned[s].steps) {
      if (planned.kind == Step::Kind::reshard && planned.target.mesh) {
        const auto& type = program.variable_types[static_cast<std::size_t>(e.inputs[static_cast<std::size_t>(planned.operand)])];
        step.temporaries.push_back({-1, planned.target.mesh, shard_bytes(type, planned.target)});
      } else if (planned.kind == Step::Kind::replay && layout) {
        for (const auto& collective : planned.collectives)
          if (!collective.after && collective.bytes > 0) step.temporaries.push_back({-1, layout->mesh, collective.bytes});
      }
    }
    auto out = static_cast<std::size_t>(e.output);
    if (!reuses[out]) step.made.push_back(buffer_of(program, e.output));
    // Dead after this step: inputs used last here, and a result nobody uses.
    if (!output[out] && last_use[out] < 0) step.dying.push_back(e.output);
    for (int input : e.inputs) {
      auto v = static_cast<std::size_t>(input);
      if (last_use[v] == static_cast<int>(s) && !caller[v] && !output[v] &&
          std::find(step.dying.begin(), step.dying.end(), input) == step.dying.end())
        step.dying.push_back(input);
    }
  }
  return plan;
}

namespace {

// The device memory_analysis() reports: the first of the largest mesh.
int reported_device(const Jaxpr& program) {
  const DeviceMesh* largest = nullptr;
  for (const auto& layout : program.variable_layouts)
    if (layout && layout->mesh && (!largest || layout->mesh->devices.size() > largest->devices.size()))
      largest = layout->mesh.get();
  return largest && !largest->devices.empty() ? largest->devices.front().id : 0;
}

std::int64_t on_device(const MemoryPlan::Buffer& buffer, int device) {
  if (!buffer.mesh) return 0;
  for (const auto& d : buffer.mesh->devices)
    if (d.id == device) return buffer.bytes;
  return 0;
}

}  // namespace

std::vector<std::string> unusable_donations(const Jaxpr& program, const MemoryPlan& plan, const std::vector<bool>& donated,
                                            bool outputs_placed) {
  std::size_t devices = 1;
  for (const auto& layout : program.variable_layouts)
    if (layout && layout->mesh) devices = std::max(devices, layout->position_count());
  // On a mesh whose axes are all Explicit an output's sharding is its
  // type's (pxla's _concretize_abstract_out_shardings); an Auto axis leaves it open.
  outputs_placed = outputs_placed || std::all_of(program.outputs.begin(), program.outputs.end(), [&](int out) {
                     const auto& mesh = program.variable_types[static_cast<std::size_t>(out)].sharding.mesh;
                     return mesh && mesh->has_axis_of_type(typecheck::AxisType::Explicit) &&
                            !mesh->has_axis_of_type(typecheck::AxisType::Auto);
                   });
  if (devices > 1 && !outputs_placed) return {};
  // An input the program never reads is pruned, its donation with it (keep_unused=False).
  std::vector<bool> read(program.variable_types.size(), false);
  for (const auto& e : program.equations)
    for (int input : e.inputs) read[static_cast<std::size_t>(input)] = true;
  for (int out : program.outputs) read[static_cast<std::size_t>(out)] = true;
  std::vector<std::string> avals;
  for (std::size_t i = 0; i < program.inputs.size() && i < donated.size(); ++i) {
    auto input = static_cast<std::size_t>(program.inputs[i]);
    if (!donated[i] || plan.aliased_input[i] || !read[input]) continue;
    const typecheck::ArrayType& type = program.variable_types[input];
    const auto& layout = program.variable_layouts[input];
    typecheck::Shape shape = layout && layout->mesh ? layout->shard_shape(type.shape) : type.shape;
    std::string text = std::string(type.weak_type ? "~" : "") + std::string(typecheck::long_name(type.dtype)) + "[";
    for (std::size_t d = 0; d < shape.size(); ++d) text += (d ? "," : "") + std::to_string(shape[d]);
    avals.push_back(text + "]");
  }
  return avals;
}

std::string unusable_donations_warning(const std::vector<std::string>& avals) {
  std::string listed;
  for (std::size_t i = 0; i < avals.size(); ++i) listed += (i ? ", " : "") + avals[i];
  return "UserWarning: Some donated buffers were not usable: " + listed +
         ".\nSee an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.\n";
}

MemoryAnalysis analyse_memory(const Jaxpr& program, const MemoryPlan& plan) {
  MemoryAnalysis analysis;
  int device = reported_device(program);
  std::vector<std::int64_t> bytes(program.variable_types.size(), 0);
  for (std::size_t v = 0; v < bytes.size(); ++v) bytes[v] = on_device(buffer_of(program, static_cast<int>(v)), device);
  for (int input : program.inputs) analysis.argument += bytes[static_cast<std::size_t>(input)];
  for (const auto& constant : program.constants) analysis.argument += bytes[static_cast<std::size_t>(constant.first)];
  std::vector<bool> counted(bytes.size(), false);
  for (int out : program.outputs) {
    if (counted[static_cast<std::size_t>(out)]) continue;
    counted[static_cast<std::size_t>(out)] = true;
    analysis.output += bytes[static_cast<std::size_t>(out)];
  }
  for (std::size_t i = 0; i < program.inputs.size(); ++i)
    if (plan.aliased_input[i]) analysis.alias += bytes[static_cast<std::size_t>(program.inputs[i])];
  // Walk the steps: temporaries live now, and outputs made so far.
  std::vector<bool> is_output(bytes.size(), false);
  for (int out : program.outputs) is_output[static_cast<std::size_t>(out)] = true;
  std::int64_t temps = 0, outputs_made = 0, peak_live = 0;
  for (const auto& step : plan.steps) {
    std::int64_t transient = 0;
    for (const auto& t : step.temporaries) transient += on_device(t, device);
    for (const auto& made : step.made) {
      if (is_output[static_cast<std::size_t>(made.variable)]) outputs_made += on_device(made, device);
      else temps += on_device(made, device);
    }
    analysis.temp = std::max(analysis.temp, temps + transient);
    peak_live = std::max(peak_live, temps + transient + outputs_made);
    for (int dead : step.dying)
      if (!is_output[static_cast<std::size_t>(dead)]) temps -= bytes[static_cast<std::size_t>(dead)];
  }
  // Outputs that are arguments or constants need a copy of their own.
  std::vector<bool> made(bytes.size(), false);
  for (const auto& e : program.equations) made[static_cast<std::size_t>(e.output)] = true;
  std::int64_t copied = 0;
  for (int out : program.outputs)
    if (!made[static_cast<std::size_t>(out)]) copied += bytes[static_cast<std::size_t>(out)];
  analysis.peak = analysis.argument + std::max(peak_live, outputs_made) + copied;
  return analysis;
}

struct ProgramMemory::Owner final : SourcedMemoryOwner {
  const typecheck::ArrayType* type = nullptr;  // none for a collective's temporary
  std::string memory_type() const override { return type ? type->str() : "collective buffer"; }
};

struct MemoryPlan::Charges {
  std::weak_ptr<devices::MemoryLedger> ledger;  // whose device sets the changes name
  std::vector<devices::MemoryLedger::Change> changes;
  // The allocations that stay past the program, in order: their change,
  // variable and step.
  struct Kept {
    std::size_t change;
    int variable;
    std::size_t step;
  };
  std::vector<Kept> kept;
};

namespace {

// The plan's steps as ledger changes, in the order charge_each makes them.
std::shared_ptr<const MemoryPlan::Charges> charges_of(Runtime& runtime, const MemoryPlan& plan) {
  using Change = devices::MemoryLedger::Change;
  auto charges = std::make_shared<MemoryPlan::Charges>();
  charges->ledger = runtime.ledger();
  auto& changes = charges->changes;
  // By variable: the change that allocates it and its step.
  std::vector<std::pair<std::size_t, std::size_t>> allocation(plan.program->variable_types.size(), {SIZE_MAX, 0});
  std::vector<Change> transient;
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const MemoryPlan::Step& step = plan.steps[s];
    transient.clear();
    for (const auto& t : step.temporaries)
      if (t.mesh) {
        changes.push_back({runtime.memory_set(t.mesh), t.bytes, Change::Kind::passing, nullptr});
        transient.push_back(changes.back());
      }
    for (const auto& made : step.made)
      if (made.mesh) {
        allocation[static_cast<std::size_t>(made.variable)] = {changes.size(), s};
        changes.push_back({runtime.memory_set(made.mesh), made.bytes, Change::Kind::kept, nullptr});
      }
    for (int dead : step.dying) {
      std::size_t& made = allocation[static_cast<std::size_t>(dead)].first;
      if (made == SIZE_MAX) continue;
      changes[made].kind = Change::Kind::passing;
      changes.push_back({changes[made].set, changes[made].bytes, Change::Kind::freed, nullptr});
      made = SIZE_MAX;
    }
    for (Change& t : transient) {
      t.kind = Change::Kind::freed;
      changes.push_back(t);
    }
  }
  for (std::size_t v = 0; v < allocation.size(); ++v)
    if (allocation[v].first != SIZE_MAX)
      charges->kept.push_back({allocation[v].first, static_cast<int>(v), allocation[v].second});
  std::sort(charges->kept.begin(), charges->kept.end(),
            [](const MemoryPlan::Charges::Kept& a, const MemoryPlan::Charges::Kept& b) { return a.change < b.change; });
  return charges;
}

}  // namespace

ProgramMemory::ProgramMemory(Evaluator& evaluator, const Jaxpr& program, const MemoryPlan& plan,
                             const std::vector<ArrayRef>& arguments, const lang::Span& call) {
  Runtime& runtime = runtime_of(evaluator);
  holds_.resize(program.variable_types.size());
  // Donated arguments an output reuses: their buffers are the program's now.
  for (std::size_t i = 0; i < plan.aliased_input.size() && i < arguments.size(); ++i)
    if (plan.aliased_input[i] && arguments[i]->memory) {
      holds_[static_cast<std::size_t>(program.inputs[i])] = std::move(arguments[i]->memory->hold);
      arguments[i]->memory->keep_type();
      donated_.push_back(arguments[i]->memory);
    }
  // --trace: the changes wait for the equations they belong to (Profile::stage_memory_step).
  timeline_ = memory_timeline(runtime);
  if (!timeline_ && charge_at_once(runtime, program, plan, call)) return;
  charge_each(evaluator, program, plan, call);
}

bool ProgramMemory::charge_at_once(Runtime& runtime, const Jaxpr& program, const MemoryPlan& plan,
                                   const lang::Span& call) {
  const auto& ledger = runtime.ledger();
  // The same ledger: the one control block (a weak pointer keeps it, so no later ledger has its address).
  if (!plan.charges || plan.charges->ledger.owner_before(ledger) || ledger.owner_before(plan.charges->ledger))
    plan.charges = charges_of(runtime, plan);
  const MemoryPlan::Charges& charges = *plan.charges;
  // Only what stays names its owner; the charge names no other.
  std::vector<devices::MemoryLedger::Change> changes = charges.changes;
  owners_.reserve(charges.kept.size());
  for (const auto& kept : charges.kept) {
    auto owner = std::make_unique<Owner>();
    const lang::Span& span = program.equations[kept.step].span;
    owner->made_at = span.empty() ? call : span;
    owner->type = &program.variable_types[static_cast<std::size_t>(kept.variable)];
    changes[kept.change].owner = owner.get();
    owners_.push_back(std::move(owner));
  }
  auto holds = ledger->charge_in_order(changes);
  if (!holds) {
    owners_.clear();
    return false;
  }
  for (std::size_t i = 0; i < charges.kept.size(); ++i)
    holds_[static_cast<std::size_t>(charges.kept[i].variable)] = std::move((*holds)[i]);
  return true;
}

void ProgramMemory::charge_each(Evaluator& evaluator, const Jaxpr& program, const MemoryPlan& plan,
                                const lang::Span& call) {
  Runtime& runtime = runtime_of(evaluator);
  const auto& ledger = runtime.ledger();
  // Each buffer names the line of the equation that makes it (the call's
  // when the equation has none).
  const lang::Span* made_at = &call;
  auto charge = [&](const MemoryPlan::Buffer& buffer) -> devices::MemoryHold {
    auto owner = std::make_unique<Owner>();
    owner->made_at = *made_at;
    if (buffer.variable >= 0) owner->type = &program.variable_types[static_cast<std::size_t>(buffer.variable)];
    auto hold = ledger->allocate(runtime.memory_set(buffer.mesh), buffer.bytes, owner.get());
    owners_.push_back(std::move(owner));
    if (!hold) raise_out_of_memory(evaluator, hold.error(), made_at == &call ? lang::Span{} : *made_at);
    return std::move(*hold);
  };
  struct Staging {
    devices::Profile* timeline;
    ~Staging() {
      if (timeline) timeline->end_memory_staging();
    }
  } staging{timeline_};
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const MemoryPlan::Step& step = plan.steps[s];
    const lang::Span& span = program.equations[s].span;
    made_at = span.empty() ? &call : &span;
    if (timeline_) timeline_->stage_memory_step(static_cast<int>(s));
    std::vector<devices::MemoryHold> transient;
    for (const auto& t : step.temporaries)
      if (t.mesh) transient.push_back(charge(t));
    for (const auto& made : step.made)
      if (made.mesh) holds_[static_cast<std::size_t>(made.variable)] = charge(made);
    if (timeline_) timeline_->stage_memory_step(static_cast<int>(s) + 1);
    for (int dead : step.dying) holds_[static_cast<std::size_t>(dead)].reset();
    transient.clear();
  }
}

ProgramMemory::~ProgramMemory() {
  // What the program did not free is released as it ends, after its last equation.
  if (timeline_) timeline_->release_memory_steps();
}

}  // namespace interp
