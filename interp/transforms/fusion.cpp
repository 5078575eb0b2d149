// Loop fusion of the per-device program (fusion.hpp).
#include "interp/transforms/fusion.hpp"

#include <algorithm>
#include <optional>

#include "interp/ops/runtime.hpp"
#include "interp/transforms/partitioner.hpp"

namespace interp {

namespace {

using typecheck::DType;

// An equation as an operation of a fused loop: its operands still named by
// variable (lhs, rhs), and where each operand must lie.
struct Candidate {
  devices::FusedOperation operation;
  std::vector<Layout> operand_layouts;
};

// Operands of other dtypes are converted to the result's first, as the
// unfused kernel converts them (a weak integer literal: `x - 1`).
std::optional<Candidate> candidate(const Jaxpr& program, const PartitionedEquation& pe) {
  const Equation& e = *pe.equation;
  auto recorded = [&](int v) { return has_layout(program, v); };
  const DType dtype = program.variable_types[static_cast<std::size_t>(e.output)].dtype;
  if (!typecheck::is_floating(dtype) || !recorded(e.output) || !std::all_of(e.inputs.begin(), e.inputs.end(), recorded))
    return std::nullopt;
  const Layout& layout = *program.variable_layouts[static_cast<std::size_t>(e.output)];
  Candidate out;
  devices::FusedOperation& op = out.operation;
  if (e.primitive->name == "integer_pow" && e.inputs.size() == 1 &&
      program.variable_types[static_cast<std::size_t>(e.inputs[0])].dtype == dtype) {
    // x ** y by power's kernel on a float, the exponent a weak scalar: pow(x, float(y)).
    op.binary = true;
    op.binary_op = devices::BinaryOp::pow;
    op.lhs = e.inputs[0];
    op.constant = static_cast<float>(*e.params.get<std::int64_t>("y"));
    out.operand_layouts = {layout};
    return out;
  }
  if (!pe.placement || e.primitive->partition != &partitioning::elementwise || pe.placement->compute != dtype)
    return std::nullopt;
  // Its operands may be moved first; partial values to combine it has none.
  if (std::any_of(pe.steps.begin(), pe.steps.end(), [](const Step& s) { return s.kind == Step::Kind::combine; }))
    return std::nullopt;
  if (e.primitive->arity == 1 && devices::fusible(e.primitive->unary)) {
    op.unary_op = e.primitive->unary;
    op.lhs = e.inputs[0];
  } else if (e.primitive->arity == 2 && devices::fusible(e.primitive->binary)) {
    op.binary = true;
    op.binary_op = e.primitive->binary;
    op.lhs = e.inputs[0];
    op.rhs = e.inputs[1];
  } else {
    return std::nullopt;
  }
  out.operand_layouts = pe.placement->operands;
  return out;
}

bool same_iteration(const std::vector<LoopPlace>& a, const std::vector<LoopPlace>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const LoopPlace& x, const LoopPlace& y) {
    return x.instance == y.instance && x.iteration == y.iteration;
  });
}

// A run of consecutive candidates of one shape, layout and loop iteration:
// equations[first + i] has form forms[i].
struct Run {
  std::size_t first = 0;
  std::vector<Candidate> forms;
};

// The run starting at equation `first` (empty when it is no candidate). An
// operand made inside the run must be read where it lies.
Run run_from(const PartitionedProgram& program, std::size_t first) {
  const Jaxpr& jaxpr = *program.jaxpr;
  Run run{first, {}};
  const Equation& head = *program.equations[first].equation;
  const auto& shape = jaxpr.variable_types[static_cast<std::size_t>(head.output)].shape;
  const DType dtype = jaxpr.variable_types[static_cast<std::size_t>(head.output)].dtype;
  const Layout& layout = *jaxpr.variable_layouts[static_cast<std::size_t>(head.output)];
  std::vector<int> made;
  for (std::size_t k = first; k < program.equations.size(); ++k) {
    const Equation& e = *program.equations[k].equation;
    std::optional<Candidate> form = candidate(jaxpr, program.equations[k]);
    if (!form) break;
    if (jaxpr.variable_types[static_cast<std::size_t>(e.output)].shape != shape ||
        jaxpr.variable_types[static_cast<std::size_t>(e.output)].dtype != dtype ||
        !(*jaxpr.variable_layouts[static_cast<std::size_t>(e.output)] == layout) ||
        !same_iteration(e.loop_places, head.loop_places))
      break;
    bool in_place = true;
    for (std::size_t i = 0; i < e.inputs.size(); ++i)
      if (std::find(made.begin(), made.end(), e.inputs[i]) != made.end() && !(form->operand_layouts[i] == layout))
        in_place = false;
    if (!in_place) break;
    made.push_back(e.output);
    run.forms.push_back(std::move(*form));
  }
  return run;
}

// Where the run splits into fusions: ends[i] when member i's value is read
// outside its fusion (by another equation, the next fusion, or as an
// output). Splitting makes more values cross, so until nothing changes.
std::vector<bool> fusion_ends(const PartitionedProgram& program, const Run& run,
                              const std::vector<std::vector<std::size_t>>& readers, const std::vector<bool>& is_output) {
  const std::size_t size = run.forms.size();
  std::vector<bool> ends(size, false);
  ends[size - 1] = true;
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<std::size_t> group(size);
    for (std::size_t i = 0, g = 0; i < size; ++i) {
      group[i] = g;
      if (ends[i]) ++g;
    }
    for (std::size_t i = 0; i < size; ++i) {
      if (ends[i]) continue;
      const int value = program.equations[run.first + i].equation->output;
      bool crosses = is_output[static_cast<std::size_t>(value)];
      for (std::size_t reader : readers[static_cast<std::size_t>(value)])
        crosses = crosses || reader < run.first || reader >= run.first + size || group[reader - run.first] != group[i];
      if (crosses) {
        ends[i] = true;
        changed = true;
      }
    }
  }
  return ends;
}

// The fusion of run members [begin, end).
Fusion make_fusion(const PartitionedProgram& program, const Run& run, std::size_t begin, std::size_t end) {
  const Jaxpr& jaxpr = *program.jaxpr;
  Fusion fusion;
  std::vector<int> made;
  for (std::size_t i = begin; i < end; ++i) made.push_back(program.equations[run.first + i].equation->output);
  auto made_inside = [&](int variable) { return std::find(made.begin(), made.end(), variable) != made.end(); };
  auto known_input = [&](int variable) { return std::find(fusion.inputs.begin(), fusion.inputs.end(), variable); };
  // External inputs in first-use order, with where their reader needs them.
  for (std::size_t i = begin; i < end; ++i) {
    const Equation& e = *program.equations[run.first + i].equation;
    fusion.equations.push_back(run.first + i);
    for (std::size_t j = 0; j < e.inputs.size(); ++j) {
      if (made_inside(e.inputs[j]) || known_input(e.inputs[j]) != fusion.inputs.end()) continue;
      fusion.inputs.push_back(e.inputs[j]);
      fusion.input_layouts.push_back(run.forms[i].operand_layouts[j]);
    }
  }
  // Operands renumbered as the loop numbers values: inputs, then the members' results.
  auto value_of = [&](int variable) {
    auto inside = std::find(made.begin(), made.end(), variable);
    if (inside != made.end()) return static_cast<int>(fusion.inputs.size() + static_cast<std::size_t>(inside - made.begin()));
    return static_cast<int>(known_input(variable) - fusion.inputs.begin());
  };
  // The loop alone: plan_fusion plans it once the windows are known.
  devices::FusedLoop& loop = fusion.plan.loop;
  loop.dtype = jaxpr.variable_types[static_cast<std::size_t>(made.back())].dtype;
  loop.inputs = fusion.inputs.size();
  for (std::size_t i = begin; i < end; ++i) {
    devices::FusedOperation op = run.forms[i].operation;
    op.lhs = value_of(op.lhs);
    if (op.rhs >= 0) op.rhs = value_of(op.rhs);
    loop.operations.push_back(op);
  }
  fusion.windows.assign(fusion.inputs.size(), -1);
  fusion.output = made.back();
  fusion.layout = *jaxpr.variable_layouts[static_cast<std::size_t>(fusion.output)];
  fusion.committed = jaxpr.variable_committed[static_cast<std::size_t>(fusion.output)];
  return fusion;
}

// Whether each device's shard of slice equation k's value is a window of
// its shard of the operand, which the fusions that read the value can read
// in place: a plain slice (unit strides, no reshape) of an array of its
// dtype lying as the value does, split on no axis the slice cuts, the
// value read by fusions alone (no output), each needing it where it lies.
bool windowable(const PartitionedProgram& program, std::size_t k, const std::vector<std::vector<std::size_t>>& readers,
                const std::vector<bool>& is_output) {
  const Jaxpr& jaxpr = *program.jaxpr;
  const PartitionedEquation& pe = program.equations[k];
  const Equation& e = *pe.equation;
  if (e.primitive->name != "slice" || pe.fusion >= 0 || pe.placement) return false;
  const auto value = static_cast<std::size_t>(e.output);
  if (is_output[value] || readers[value].empty() || !has_layout(jaxpr, e.output) || !has_layout(jaxpr, e.inputs[0]))
    return false;
  const typecheck::ArrayType& type = jaxpr.variable_types[value];
  const typecheck::ArrayType& operand = jaxpr.variable_types[static_cast<std::size_t>(e.inputs[0])];
  const Layout& layout = *jaxpr.variable_layouts[value];
  if (type.dtype != operand.dtype || !(layout == *jaxpr.variable_layouts[static_cast<std::size_t>(e.inputs[0])]))
    return false;
  const auto& start = *e.params.get<std::vector<std::int64_t>>("start_indices");
  const auto& limit = *e.params.get<std::vector<std::int64_t>>("limit_indices");
  const auto& strides = *e.params.get<std::vector<std::int64_t>>("strides");
  if (type.shape.size() != operand.shape.size()) return false;  // a reshape too (x[:, None])
  for (std::size_t d = 0; d < type.shape.size(); ++d) {
    const bool cut = start[d] != 0 || limit[d] != operand.shape[d];
    if (strides[d] != 1 || type.shape[d] != limit[d] - start[d] || (cut && d < layout.dims.size() && !layout.dims[d].empty()))
      return false;
  }
  for (std::size_t reader : readers[value]) {
    const int f = program.equations[reader].fusion;
    if (f < 0) return false;
    const Fusion& fusion = program.fusions[static_cast<std::size_t>(f)];
    if (fusion.plan.loop.dtype != type.dtype) return false;
    for (std::size_t i = 0; i < fusion.inputs.size(); ++i)
      if (fusion.inputs[i] == e.output && !(fusion.input_layouts[i] == layout)) return false;
  }
  return true;
}

// The fusions that read a windowable slice's value read its operand instead,
// through the window.
void window_slices(PartitionedProgram& program, const std::vector<std::vector<std::size_t>>& readers,
                   const std::vector<bool>& is_output) {
  for (std::size_t k = 0; k < program.equations.size(); ++k) {
    if (!windowable(program, k, readers, is_output)) continue;
    const Equation& e = *program.equations[k].equation;
    for (std::size_t reader : readers[static_cast<std::size_t>(e.output)]) {
      Fusion& fusion = program.fusions[static_cast<std::size_t>(program.equations[reader].fusion)];
      for (std::size_t i = 0; i < fusion.inputs.size(); ++i) {
        if (fusion.inputs[i] != e.output) continue;
        fusion.inputs[i] = e.inputs[0];
        fusion.windows[i] = static_cast<int>(k);
      }
    }
    program.equations[k].windowed = true;
  }
}

// The fusions whose results concatenate equation k joins, in order, when
// it can be a Concatenation of them (fusion.hpp); none otherwise.
std::vector<std::size_t> joined_fusions(const PartitionedProgram& program, std::size_t k,
                                        const std::vector<std::vector<std::size_t>>& readers,
                                        const std::vector<bool>& is_output) {
  const Jaxpr& jaxpr = *program.jaxpr;
  const PartitionedEquation& pe = program.equations[k];
  const Equation& e = *pe.equation;
  if (e.primitive->name != "concatenate" || pe.fusion >= 0 || pe.placement || !has_layout(jaxpr, e.output)) return {};
  const Layout& layout = *jaxpr.variable_layouts[static_cast<std::size_t>(e.output)];
  const auto axis = static_cast<std::size_t>(*e.params.get<std::int64_t>("dimension"));
  if (axis < layout.dims.size() && !layout.dims[axis].empty()) return {};
  const DType dtype = jaxpr.variable_types[static_cast<std::size_t>(e.output)].dtype;
  std::vector<std::size_t> parts;
  for (int operand : e.inputs) {
    auto made_by = std::find_if(program.fusions.begin(), program.fusions.end(),
                                [&](const Fusion& fusion) { return fusion.output == operand; });
    if (made_by == program.fusions.end() || made_by->concatenation >= 0) return {};
    const auto part = static_cast<std::size_t>(made_by - program.fusions.begin());
    const auto value = static_cast<std::size_t>(operand);
    if (std::find(parts.begin(), parts.end(), part) != parts.end() || is_output[value] ||
        readers[value] != std::vector<std::size_t>{k} || jaxpr.variable_types[value].dtype != dtype ||
        made_by->plan.loop.dtype != dtype || !(*jaxpr.variable_layouts[value] == layout))
      return {};
    parts.push_back(part);
  }
  return parts;
}

void find_concatenations(PartitionedProgram& program, const std::vector<std::vector<std::size_t>>& readers,
                         const std::vector<bool>& is_output) {
  for (std::size_t k = 0; k < program.equations.size(); ++k) {
    std::vector<std::size_t> parts = joined_fusions(program, k, readers, is_output);
    if (parts.empty()) continue;
    const int index = static_cast<int>(program.concatenations.size());
    for (std::size_t part : parts) program.fusions[part].concatenation = index;
    program.equations[k].concatenation = index;
    program.concatenations.push_back({k, std::move(parts)});
  }
}

// The fusion's loop planned for its inputs' shards (or their windows), and
// a concatenation's part to write into its window of the result's shard.
void plan_fusion(const PartitionedProgram& program, Fusion& fusion) {
  const Jaxpr& jaxpr = *program.jaxpr;
  std::vector<devices::FusedInput> inputs;
  for (std::size_t i = 0; i < fusion.inputs.size(); ++i) {
    const Layout& layout = fusion.input_layouts[i];
    devices::FusedInput input{layout.shard_shape(jaxpr.variable_types[static_cast<std::size_t>(fusion.inputs[i])].shape),
                              std::nullopt};
    if (fusion.windows[i] >= 0) {
      // Cut on unsplit axes only (windowable): each shard's window starts where the slice does.
      const Equation& slice = *program.equations[static_cast<std::size_t>(fusion.windows[i])].equation;
      input.window = devices::FusedInput::Window{
          layout.shard_shape(jaxpr.variable_types[static_cast<std::size_t>(slice.output)].shape),
          *slice.params.get<std::vector<std::int64_t>>("start_indices")};
    }
    inputs.push_back(std::move(input));
  }
  if (fusion.concatenation < 0) {
    fusion.plan = value_or_raise(devices::plan_fused(std::move(fusion.plan.loop), inputs));
    return;
  }
  // Its window: after the parts before it along the joined axis (split in none: the whole extent).
  const Concatenation& concatenation = program.concatenations[static_cast<std::size_t>(fusion.concatenation)];
  const Equation& concatenate = *program.equations[concatenation.equation].equation;
  const auto axis = static_cast<std::size_t>(*concatenate.params.get<std::int64_t>("dimension"));
  const Layout& layout = *jaxpr.variable_layouts[static_cast<std::size_t>(concatenate.output)];
  std::vector<std::int64_t> starts(jaxpr.variable_types[static_cast<std::size_t>(concatenate.output)].shape.size(), 0);
  for (std::size_t part : concatenation.parts) {
    const Fusion& before = program.fusions[part];
    if (&before == &fusion) break;
    starts[axis] += jaxpr.variable_types[static_cast<std::size_t>(before.output)].shape[axis];
  }
  fusion.plan = value_or_raise(devices::plan_fused_into(
      std::move(fusion.plan.loop), inputs,
      layout.shard_shape(jaxpr.variable_types[static_cast<std::size_t>(concatenate.output)].shape), starts));
}

}  // namespace

void fuse_elementwise(PartitionedProgram& program) {
  const Jaxpr& jaxpr = *program.jaxpr;
  std::vector<std::vector<std::size_t>> readers(jaxpr.variable_types.size());
  for (std::size_t k = 0; k < program.equations.size(); ++k)
    for (int input : program.equations[k].equation->inputs) readers[static_cast<std::size_t>(input)].push_back(k);
  std::vector<bool> is_output(jaxpr.variable_types.size(), false);
  for (int output : jaxpr.outputs) is_output[static_cast<std::size_t>(output)] = true;

  for (std::size_t k = 0; k < program.equations.size();) {
    Run run = run_from(program, k);
    if (run.forms.empty()) {
      ++k;
      continue;
    }
    std::vector<bool> ends = fusion_ends(program, run, readers, is_output);
    for (std::size_t begin = 0, i = 0; i < ends.size(); ++i) {
      if (!ends[i]) continue;
      // One equation alone is a loop too: planned once, not at every run.
      program.fusions.push_back(make_fusion(program, run, begin, i + 1));
      for (std::size_t member : program.fusions.back().equations)
        program.equations[member].fusion = static_cast<int>(program.fusions.size()) - 1;
      begin = i + 1;
    }
    k += run.forms.size();
  }
  window_slices(program, readers, is_output);
  find_concatenations(program, readers, is_output);
  for (Fusion& fusion : program.fusions) plan_fusion(program, fusion);
}

namespace {

// Appends the fusion's inputs, where its loop reads them, to `inputs`, and
// the shapes of their shards to `shapes`.
void add_inputs(Evaluator& evaluator, const Fusion& fusion, ProgramValues& values, std::vector<ArrayRef>& inputs,
                std::vector<devices::Shape>& shapes) {
  for (std::size_t i = 0; i < fusion.inputs.size(); ++i) {
    ArrayRef input = values.where_needed(evaluator, fusion.inputs[i], fusion.input_layouts[i]);
    if (input->aval.dtype != fusion.plan.loop.dtype) input = astype(evaluator, input, fusion.plan.loop.dtype);
    inputs.push_back(std::move(input));
  }
  shapes.insert(shapes.end(), fusion.plan.input_shapes.begin(), fusion.plan.input_shapes.end());
}

}  // namespace

ArrayRef run_fusion(Evaluator& evaluator, const Jaxpr& program, const Fusion& fusion, ProgramValues& values) {
  std::vector<ArrayRef> inputs;
  std::vector<devices::Shape> shapes;
  add_inputs(evaluator, fusion, values, inputs, shapes);
  auto shards = run_per_position(evaluator, fusion.layout.mesh, inputs, std::move(shapes),
                                 [&](const std::vector<devices::LocalArray>& in, std::size_t) {
                                   return devices::run_fused(fusion.plan, in);
                                 });
  return make_array(evaluator, program.variable_types[static_cast<std::size_t>(fusion.output)], fusion.layout,
                    std::move(shards), fusion.committed);
}

ArrayRef run_concatenation(Evaluator& evaluator, const PartitionedProgram& program, const Concatenation& concatenation,
                           ProgramValues& values) {
  const Jaxpr& jaxpr = *program.jaxpr;
  // Every part's inputs, one after another: the parts' spans of them.
  std::vector<ArrayRef> inputs;
  std::vector<devices::Shape> shapes;
  std::vector<std::size_t> firsts;
  for (std::size_t part : concatenation.parts) {
    firsts.push_back(inputs.size());
    add_inputs(evaluator, program.fusions[part], values, inputs, shapes);
  }
  const int output = program.equations[concatenation.equation].equation->output;
  const Fusion& first = program.fusions[concatenation.parts.front()];
  auto shards = run_per_position(evaluator, first.layout.mesh, inputs, std::move(shapes),
                                 [&](const std::vector<devices::LocalArray>& in, std::size_t) {
    const devices::FusedPlan& plan = first.plan;
    devices::Expected<devices::LocalArray> whole =
        devices::make_local_array(in.front().buffer->ledger(), plan.loop.dtype, plan.whole_shape);
    if (!whole) return whole;
    for (std::size_t i = 0; i < concatenation.parts.size(); ++i) {
      const devices::FusedPlan& part = program.fusions[concatenation.parts[i]].plan;
      std::span<const devices::LocalArray> part_inputs(in.data() + firsts[i], part.input_shapes.size());
      if (devices::Status status = devices::run_fused_into(part, part_inputs, *whole); !status)
        return devices::Expected<devices::LocalArray>(status.error());
    }
    return whole;
  });
  return make_array(evaluator, jaxpr.variable_types[static_cast<std::size_t>(output)],
                    *jaxpr.variable_layouts[static_cast<std::size_t>(output)], std::move(shards),
                    jaxpr.variable_committed[static_cast<std::size_t>(output)]);
}

}  // namespace interp
