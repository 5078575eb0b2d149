// The Jaxpr IR, its printing, its cost and its executable (jaxpr.hpp).
#include "interp/transforms/jaxpr.hpp"

#include <algorithm>
#include <map>

#include "interp/transforms/costing.hpp"
#include "interp/transforms/partitioner.hpp"

namespace interp {

int Jaxpr::add_variable(typecheck::ArrayType type, std::optional<Layout> layout, bool committed) {
  variable_types.push_back(std::move(type));
  variable_layouts.push_back(std::move(layout));
  variable_committed.push_back(committed);
  return static_cast<int>(variable_types.size()) - 1;
}

ContextMeshScope::ContextMeshScope(Runtime& runtime)
    : runtime_(runtime),
      saved_(runtime.context_mesh),
      saved_span_(runtime.replayed_span),
      saved_loop_places_(runtime.replayed_loop_places) {}
ContextMeshScope::~ContextMeshScope() {
  runtime_.context_mesh = saved_;
  runtime_.replayed_span = saved_span_;
  runtime_.replayed_loop_places = saved_loop_places_;
}
void ContextMeshScope::enter(const std::shared_ptr<MeshObject>& mesh) { runtime_.context_mesh = mesh; }
void ContextMeshScope::enter(const Equation& e) {
  runtime_.context_mesh = e.context_mesh;
  runtime_.replayed_span = e.span.empty() ? saved_span_ : e.span;
  runtime_.replayed_loop_places = &e.loop_places;
}

std::string variable_name(int number) {
  std::string name;
  do {
    name.insert(name.begin(), static_cast<char>('a' + number % 26));
    number /= 26;
  } while (number > 0);
  return name;
}

namespace {

std::string typed(const Jaxpr& program, int variable) {
  return variable_name(variable) + ":" + program.variable_types[static_cast<std::size_t>(variable)].short_str();
}

}  // namespace

Cost program_cost(const Jaxpr& program) {
  Cost total;
  for (const auto& e : program.equations) {
    std::vector<typecheck::ArrayType> operands;
    for (int input : e.inputs) operands.push_back(program.variable_types[static_cast<std::size_t>(input)]);
    Cost cost = e.primitive->cost(*e.primitive, operands, program.variable_types[static_cast<std::size_t>(e.output)], e.params);
    total.flops += cost.flops;
    total.bytes_accessed += cost.bytes_accessed;
  }
  return total;
}

namespace {

// Runs one partitioned equation's steps on the program's values.
ArrayRef run_steps(Evaluator& evaluator, const PartitionedEquation& pe, ProgramValues& values) {
  const Equation& e = *pe.equation;
  const Placement& placement = *pe.placement;
  std::vector<ArrayRef> operands;
  operands.reserve(e.inputs.size());
  ArrayRef value;
  for (const Step& step : pe.steps) {
    switch (step.kind) {
      case Step::Kind::reshard:
        break;  // a reshard's target is where the kernel needs the operand: moved there below
      case Step::Kind::kernel:
        for (std::size_t i = 0; i < e.inputs.size(); ++i)
          operands.push_back(values.where_needed(evaluator, e.inputs[i], placement.operands[i]));
        value = run_kernel(evaluator, *e.primitive, placement, operands, e.params);
        break;
      case Step::Kind::combine:
        value = combine_partials(evaluator, placement, value);
        break;
      case Step::Kind::finish:
        value = run_finish(evaluator, *e.primitive, placement, value, e.params);
        break;
      case Step::Kind::replay:
        break;  // partition_program gives a placed equation no replay step
    }
  }
  return value;
}

}  // namespace

const Jaxpr& Executable::program() const { return *program_->jaxpr; }

void Executable::keep_constants(ProgramValues& values) const {
  std::vector<std::pair<int, ArrayRef>> kept;
  for (const PartitionedEquation& pe : program_->equations) {
    if (!pe.constant) continue;
    // A fusion's members leave only its output.
    const ArrayRef& value = values[pe.equation->output];
    if (!value) continue;
    if (value->abstract()) return;  // a check, not a run
    kept.emplace_back(pe.equation->output, value);
  }
  constant_values_ = std::move(kept);
}

std::vector<ArrayRef> Executable::run(Evaluator& evaluator, const std::vector<ArrayRef>& arguments) const {
  const Jaxpr& program = *program_->jaxpr;
  ProgramValues values(program.variable_types.size(), &program_->same_every_run, &moved_constants_);
  for (const auto& [number, value] : program.constants) values[number] = value;
  for (std::size_t i = 0; i < program.inputs.size() && i < arguments.size(); ++i) values[program.inputs[i]] = arguments[i];
  // The constant equations' values, when an earlier run kept them: those
  // equations are charged but not run.
  const bool constants_kept = !constant_values_.empty();
  for (const auto& [number, value] : constant_values_) values[number] = value;
  ContextMeshScope context(runtime_of(evaluator));
  // --trace: the memory plan's changes for each equation take its start time (memory_plan.hpp).
  devices::Profile* timeline = memory_timeline(runtime_of(evaluator));
  std::vector<ArrayRef> operands;
  for (std::size_t k = 0; k < program_->equations.size(); ++k) {
    const PartitionedEquation& pe = program_->equations[k];
    const Equation& e = *pe.equation;
    const bool kept = constants_kept && pe.constant;
    if (timeline) timeline->memory_step_starts(static_cast<int>(k));
    // The operands as the equation's charge reads them and a replayed
    // implementation takes them (a placed or fused one reads the values).
    const bool charging = charging_costs(evaluator);
    operands.clear();
    if (charging || (pe.fusion < 0 && !pe.placement && !pe.windowed))
      for (int input : e.inputs) operands.push_back(values[input]);
    ArrayRef& result = values[e.output];
    // A value not made here, as charging reads it.
    auto abstract_result = [&] {
      return make_abstract_array(program.variable_types[static_cast<std::size_t>(e.output)],
                                 *program.variable_layouts[static_cast<std::size_t>(e.output)],
                                 program.variable_committed[static_cast<std::size_t>(e.output)]);
    };
    if (pe.windowed) {
      // Read by fusions through windows: charged, for them to read when charged too.
      if (charging) {
        result = abstract_result();
        charge_application(evaluator, *e.primitive, operands, result, e.params, false);
      }
      continue;
    }
    if (pe.fusion >= 0) {
      // A fusion runs at its first equation; its members are charged as
      // equations of their own.
      const Fusion& fusion = program_->fusions[static_cast<std::size_t>(pe.fusion)];
      if (fusion.equations.front() == k && !kept && fusion.concatenation < 0)
        values[fusion.output] = run_fusion(evaluator, program, fusion, values);
      if (charging) {
        if (!result) result = abstract_result();
        if (pe.placement) charge_partitioned(evaluator, pe, operands, result);
        else charge_application(evaluator, *e.primitive, operands, result, e.params, false);
      }
      continue;
    }
    if (pe.concatenation >= 0) {
      // Its parts' fusions run here, into its result.
      if (!kept)
        result = run_concatenation(evaluator, *program_,
                                   program_->concatenations[static_cast<std::size_t>(pe.concatenation)], values);
      charge_application(evaluator, *e.primitive, operands, result, e.params, false);
      continue;
    }
    if (pe.placement) {
      if (!kept) result = run_steps(evaluator, pe, values);
      if (charging) charge_partitioned(evaluator, pe, operands, result);
      continue;
    }
    // Replayed: the eager implementation, under the context mesh it was traced under.
    if (!kept) {
      context.enter(e.context_mesh);
      result = e.primitive->implementation(evaluator, *e.primitive, operands, e.params, true);
    }
    // One program: its equations pay no dispatch of their own.
    charge_application(evaluator, *e.primitive, operands, result, e.params, false);
  }
  if (!constants_kept) keep_constants(values);
  std::vector<ArrayRef> outputs;
  for (int output : program.outputs) outputs.push_back(values[output]);
  return outputs;
}

namespace {

// Executable::text's writer. A lax loop's iterations are one body in JAX
// (XLA's while); the trace unrolls them, each iteration's equations at the
// same places (Equation::loop_places). So a loop prints as a `while` in the
// computation around it, and its first iteration as a body computation,
// before ENTRY as XLA prints called computations; op_name shows the nesting
// ("jit(f)/while/body/dot_general").
class HloWriter {
 public:
  HloWriter(const PartitionedProgram& program, const std::string& name) : program_(program), name_(name) {}

  std::string text() {
    const Jaxpr& jaxpr = *program_.jaxpr;
    std::string entry;
    for (const auto& constant : jaxpr.constants) entry += "  " + typed(jaxpr, constant.first) + " = constant()\n";
    for (std::size_t i = 0; i < jaxpr.inputs.size(); ++i)
      entry += "  " + typed(jaxpr, jaxpr.inputs[i]) + " = parameter(" + std::to_string(i) + ")\n";
    entry += block(0, program_.equations.size(), 0, "jit(" + name_ + ")/");
    entry += "  ROOT tuple(";
    for (std::size_t i = 0; i < jaxpr.outputs.size(); ++i) entry += (i ? ", " : "") + variable_name(jaxpr.outputs[i]);
    return "HloModule jit_" + name_ + "\n\n" + bodies_ + "ENTRY main {\n" + entry + ")\n}\n";
  }

 private:
  const LoopPlace* loop_at(std::size_t equation, std::size_t depth) const {
    const auto& places = program_.equations[equation].equation->loop_places;
    return depth < places.size() ? &places[depth] : nullptr;
  }

  // The lines of equations [begin, end), which lie in `depth` loops (the
  // loops below print as whiles); `op_prefix` opens their op_names.
  std::string block(std::size_t begin, std::size_t end, std::size_t depth, const std::string& op_prefix) {
    std::string out;
    for (std::size_t i = begin; i < end;) {
      const LoopPlace* loop = loop_at(i, depth);
      if (!loop) {
        out += equation_lines(program_.equations[i++], op_prefix);
        continue;
      }
      // The loop's equations follow one another; its first iteration's first.
      std::size_t first_end = i, loop_end = i;
      std::int64_t last_iteration = loop->iteration;
      for (; loop_end < end; ++loop_end) {
        const LoopPlace* next = loop_at(loop_end, depth);
        if (!next || next->instance != loop->instance) break;
        if (next->iteration == loop->iteration) first_end = loop_end + 1;
        last_iteration = std::max(last_iteration, next->iteration);
      }
      const std::string body_name = "body." + std::to_string(++bodies_made_);
      const std::string body = block(i, first_end, depth + 1, op_prefix + "while/body/");
      bodies_ += body_name + " {\n" + body + "}\n\n";
      out += "  while(" + operands_from_outside(i, first_end) + "), body=" + body_name +
             ", trip_count=" + std::to_string(last_iteration - loop->iteration + 1) + ", metadata={op_name=\"" +
             op_prefix + "while\"}\n";
      i = loop_end;
    }
    return out;
  }

  // The variables equations [begin, end) read that none of them makes.
  std::string operands_from_outside(std::size_t begin, std::size_t end) const {
    std::vector<int> made, read;
    for (std::size_t i = begin; i < end; ++i) made.push_back(program_.equations[i].equation->output);
    std::string out;
    for (std::size_t i = begin; i < end; ++i)
      for (int input : program_.equations[i].equation->inputs) {
        if (std::find(made.begin(), made.end(), input) != made.end()) continue;
        if (std::find(read.begin(), read.end(), input) != read.end()) continue;
        read.push_back(input);
        out += (out.empty() ? "" : ", ") + variable_name(input);
      }
    return out;
  }

  // The collectives before the equation's own instruction (a collective
  // primitive under its XLA name), then those after it; each with XLA's
  // op_name metadata: the jitted function, the loops and named scopes
  // around the equation, and the primitive it serves. A fusion prints at its
  // first equation.
  std::string equation_lines(const PartitionedEquation& pe, const std::string& op_prefix) {
    if (pe.windowed) return "";  // in the computations of the fusions that read it
    if (pe.fusion >= 0) {
      const Fusion& fusion = program_.fusions[static_cast<std::size_t>(pe.fusion)];
      if (fusion.concatenation >= 0 || &program_.equations[fusion.equations.front()] != &pe) return "";
      // One equation reading no window prints as itself, as XLA prints an unfused instruction.
      const bool alone = fusion.equations.size() == 1 &&
                         std::all_of(fusion.windows.begin(), fusion.windows.end(), [](int w) { return w < 0; });
      if (!alone) return fusion_lines({&fusion}, nullptr, op_prefix);
    }
    if (pe.concatenation >= 0) {
      std::vector<const Fusion*> parts;
      for (std::size_t part : program_.concatenations[static_cast<std::size_t>(pe.concatenation)].parts)
        parts.push_back(&program_.fusions[part]);
      return fusion_lines(parts, pe.equation, op_prefix);
    }
    const Equation& e = *pe.equation;
    const std::string metadata = metadata_of(e, op_prefix);
    std::string out = collective_lines(pe, op_prefix, false) + "  " + instruction(e);
    out += (e.primitive->collective != devices::CollectiveKind::none ? metadata : "") + "\n";
    return out + collective_lines(pe, op_prefix, true);
  }

  // As XLA prints a loop fusion: the collectives that move its inputs, then
  // `fusion(...)` calling a computation of its equations, which prints
  // before ENTRY. A concatenation of fusions is one, its parts' equations
  // then the concatenate (`root`) in its computation.
  std::string fusion_lines(const std::vector<const Fusion*>& fusions, const Equation* root, const std::string& op_prefix) {
    const Jaxpr& jaxpr = *program_.jaxpr;
    std::string out, body, operands;
    for (const Fusion* fusion : fusions)
      for (std::size_t member : fusion->equations) out += collective_lines(program_.equations[member], op_prefix, false);
    // One parameter per array (two windows of one array read it twice), then the windows' slices.
    std::vector<int> parameters, slices;
    for (const Fusion* fusion : fusions) {
      for (int input : fusion->inputs) {
        if (std::find(parameters.begin(), parameters.end(), input) != parameters.end()) continue;
        body += "  " + typed(jaxpr, input) + " = parameter(" + std::to_string(parameters.size()) + ")\n";
        operands += (parameters.empty() ? "" : ", ") + variable_name(input);
        parameters.push_back(input);
      }
    }
    for (const Fusion* fusion : fusions) {
      for (int window : fusion->windows) {
        if (window < 0 || std::find(slices.begin(), slices.end(), window) != slices.end()) continue;
        body += "  " + instruction(*program_.equations[static_cast<std::size_t>(window)].equation) + "\n";
        slices.push_back(window);
      }
    }
    for (const Fusion* fusion : fusions)
      for (std::size_t member : fusion->equations)
        body += std::string(!root && member == fusion->equations.back() ? "  ROOT " : "  ") +
                instruction(*program_.equations[member].equation) + "\n";
    if (root) body += "  ROOT " + instruction(*root) + "\n";
    const std::string name = "fused_computation" + (fusions_made_ ? "." + std::to_string(fusions_made_) : "");
    ++fusions_made_;
    bodies_ += name + " {\n" + body + "}\n\n";
    const int output = root ? root->output : fusions.front()->output;
    return out + "  " + typed(jaxpr, output) + " = fusion(" + operands + "), kind=kLoop, calls=" + name + "\n";
  }

  std::string metadata_of(const Equation& e, const std::string& op_prefix) const {
    return ", metadata={op_name=\"" + op_prefix + (e.scope.empty() ? "" : e.scope + "/") +
           std::string(e.primitive->lax.name) + "\"}";
  }

  // The collectives of an equation's steps, before its instruction or after.
  std::string collective_lines(const PartitionedEquation& pe, const std::string& op_prefix, bool after) const {
    std::string out;
    for (const Step& step : pe.steps)
      for (const auto& collective : step.collectives)
        if (collective.after == after)
          out += "  " + collective.name + collective.details + metadata_of(*pe.equation, op_prefix) + "\n";
    return out;
  }

  // `c:f32[8] = multiply(a, b)` and the params.
  std::string instruction(const Equation& e) const {
    const Jaxpr& jaxpr = *program_.jaxpr;
    std::string out = typed(jaxpr, e.output) + " = " + xla_name(*e.primitive) + "(";
    for (std::size_t i = 0; i < e.inputs.size(); ++i) out += (i ? ", " : "") + variable_name(e.inputs[i]);
    return out + ")" + e.params.str();
  }

  const PartitionedProgram& program_;
  const std::string& name_;
  std::string bodies_;  // the loops' bodies and the fused computations, each after those it calls
  int bodies_made_ = 0;
  int fusions_made_ = 0;
};

}  // namespace

std::string Executable::text(const std::string& name) const { return HloWriter(*program_, name).text(); }

std::shared_ptr<const Jaxpr> without_dead_code(std::shared_ptr<const Jaxpr> program) {
  const auto& equations = program->equations;
  std::vector<int> made_by(program->variable_types.size(), -1);
  std::map<std::pair<int, std::int64_t>, std::vector<int>> same_place;  // (loop instance, place) -> equations
  std::vector<int> pending;
  for (std::size_t i = 0; i < equations.size(); ++i) {
    made_by[static_cast<std::size_t>(equations[i].output)] = static_cast<int>(i);
    for (const auto& loop : equations[i].loop_places) same_place[{loop.instance, loop.place}].push_back(static_cast<int>(i));
    if (equations[i].primitive->effect) pending.push_back(static_cast<int>(i));
  }
  for (int output : program->outputs) pending.push_back(made_by[static_cast<std::size_t>(output)]);
  std::vector<bool> kept(equations.size(), false);
  while (!pending.empty()) {
    int i = pending.back();
    pending.pop_back();
    if (i < 0 || kept[static_cast<std::size_t>(i)]) continue;
    kept[static_cast<std::size_t>(i)] = true;
    const Equation& e = equations[static_cast<std::size_t>(i)];
    for (int input : e.inputs) pending.push_back(made_by[static_cast<std::size_t>(input)]);
    for (const auto& loop : e.loop_places) {
      const auto& others = same_place[{loop.instance, loop.place}];
      pending.insert(pending.end(), others.begin(), others.end());
    }
  }
  if (std::all_of(kept.begin(), kept.end(), [](bool k) { return k; })) return program;
  auto live = std::make_shared<Jaxpr>();
  live->variable_types = program->variable_types;
  live->variable_layouts = program->variable_layouts;
  live->variable_committed = program->variable_committed;
  live->constants = program->constants;
  live->inputs = program->inputs;
  live->outputs = program->outputs;
  for (std::size_t i = 0; i < equations.size(); ++i)
    if (kept[i]) live->equations.push_back(equations[i]);
  return live;
}

LoopIterations::LoopIterations(Runtime& runtime) : runtime_(runtime) {
  runtime_.loops.push_back({runtime_.loop_instances++, -1, runtime_.equations_recorded});
}

LoopIterations::~LoopIterations() { runtime_.loops.pop_back(); }

void LoopIterations::begin() {
  Runtime::LoopFrame& loop = runtime_.loops.back();
  ++loop.iteration;
  loop.iteration_start = runtime_.equations_recorded;
}

Executable compile(Evaluator& evaluator, std::shared_ptr<const Jaxpr> program) {
  auto partitioned = std::make_shared<PartitionedProgram>(partition_program(evaluator, without_dead_code(std::move(program))));
  fuse_elementwise(*partitioned);
  mark_constants(*partitioned);
  return Executable(std::move(partitioned));
}

}  // namespace interp
