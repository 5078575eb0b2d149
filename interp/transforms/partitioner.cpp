// The per-device program of a jitted call (partitioner.hpp).
#include "interp/transforms/partitioner.hpp"

#include <algorithm>

#include "interp/ops/runtime.hpp"

namespace interp {

namespace {

using Dims = std::vector<typecheck::SpecEntry>;

std::string axes_text(const typecheck::SpecEntry& axes) {
  std::string out = "{";
  for (std::size_t i = 0; i < axes.size(); ++i) out += (i ? "," : "") + axes[i];
  return out + "}";
}

const typecheck::SpecEntry& dim_entry(const Dims& dims, std::size_t d) {
  static const typecheck::SpecEntry none;
  return d < dims.size() ? dims[d] : none;
}

std::int64_t axis_size(const typecheck::MeshRef& mesh, const std::string& axis) {
  const typecheck::MeshAxis* found = mesh ? mesh->find(axis) : nullptr;
  return found ? found->size : 1;
}

std::string operand_text(int variable) { return "(" + (variable >= 0 ? variable_name(variable) : std::string()) + ")"; }

// A collective `name` moving `variable` (of `type`, split as `dims` on
// `mesh`) over `axes`.
PlannedCollective planned(std::string name, std::string details, int variable, const typecheck::ArrayType& type,
                          const Dims& dims, const typecheck::MeshRef& mesh, typecheck::SpecEntry axes, bool after = false) {
  PlannedCollective collective;
  collective.name = std::move(name);
  collective.details = std::move(details);
  collective.after = after;
  collective.kind = devices::parse_collective_kind(collective.name);
  collective.variable = variable;
  for (const auto& axis : axes) {
    collective.axis_sizes.push_back(axis_size(mesh, axis));
    collective.group_size *= collective.axis_sizes.back();
  }
  collective.axes = std::move(axes);
  std::int64_t elements = 1;
  for (std::size_t d = 0; d < type.shape.size(); ++d) {
    std::int64_t split = 1;
    for (const auto& axis : dim_entry(dims, d)) split *= axis_size(mesh, axis);
    elements *= split > 0 ? (type.shape[d] + split - 1) / split : type.shape[d];
  }
  collective.bytes = elements * typecheck::byte_size(type.dtype);
  if (collective.kind == devices::CollectiveKind::all_gather || collective.kind == devices::CollectiveKind::reduce_scatter)
    collective.bytes *= collective.group_size;
  return collective;
}

// Resharding `variable` from `from` to `to`, dimension by dimension: an axis
// that leaves one dimension for another is an all-to-all, one dropped an
// all-gather, one added a dynamic-slice.
void reshard(int variable, const typecheck::ArrayType& type, const Dims& from, const Dims& to,
             const typecheck::MeshRef& mesh, std::vector<PlannedCollective>& out) {
  std::string operand = operand_text(variable);
  typecheck::AxisSet dropped, added;
  std::vector<std::size_t> gathered_dims;
  for (std::size_t d = 0; d < std::max(from.size(), to.size()); ++d) {
    const auto& source = dim_entry(from, d);
    const auto& target = dim_entry(to, d);
    if (source == target) continue;
    for (const auto& a : source)
      if (std::find(target.begin(), target.end(), a) == target.end()) dropped.insert(a);
    for (const auto& a : target)
      if (std::find(source.begin(), source.end(), a) == source.end()) added.insert(a);
    if (!source.empty()) gathered_dims.push_back(d);
  }
  typecheck::SpecEntry moved;
  for (const auto& a : dropped)
    if (added.count(a)) moved.push_back(a);
  for (const auto& a : moved) {
    dropped.erase(a);
    added.erase(a);
  }
  if (!moved.empty())
    out.push_back(planned("all-to-all", operand + ", axes=" + axes_text(moved), variable, type, from, mesh, moved));
  if (!dropped.empty()) {
    std::string dims;
    for (std::size_t i = 0; i < gathered_dims.size(); ++i) dims += (i ? "," : "") + std::to_string(gathered_dims[i]);
    typecheck::SpecEntry axes(dropped.begin(), dropped.end());
    out.push_back(planned("all-gather", operand + ", dimensions={" + dims + "}, axes=" + axes_text(axes), variable, type,
                          from, mesh, axes));
  }
  if (!added.empty()) {
    typecheck::SpecEntry axes(added.begin(), added.end());
    out.push_back(planned("dynamic-slice", operand + ", axes=" + axes_text(axes), variable, type, from, mesh, axes));
  }
}

bool any_split(const Dims& dims) {
  return std::any_of(dims.begin(), dims.end(), [](const typecheck::SpecEntry& e) { return !e.empty(); });
}

// By variable: whether it is a random draw traced in threefry's stable mode.
std::vector<bool> stable_random_draws(const Jaxpr& program) {
  std::vector<bool> stable(program.variable_types.size(), false);
  for (const auto& e : program.equations) {
    const auto* mode = e.params.get<std::string>("mode");
    stable[static_cast<std::size_t>(e.output)] = e.primitive->name == "random_sample" && mode && *mode == "stable";
  }
  return stable;
}

const Layout& layout_of(const Jaxpr& program, int variable) {
  return *program.variable_layouts[static_cast<std::size_t>(variable)];
}

PartitionedEquation partition_equation(Evaluator& evaluator, const Jaxpr& program, const Equation& e,
                                       const std::vector<bool>& stable_draws) {
  PartitionedEquation out;
  out.equation = &e;
  bool placeable = !replayed(*e.primitive->partition) && has_layout(program, e.output) &&
                   std::all_of(e.inputs.begin(), e.inputs.end(), [&](int v) { return has_layout(program, v); });
  if (!placeable) {
    out.steps.push_back({Step::Kind::replay, -1, {}, replayed_collectives(program, e)});
    return out;
  }
  std::vector<const typecheck::ArrayType*> types;
  std::vector<const Layout*> layouts;
  std::vector<bool> stable;
  for (int v : e.inputs) {
    types.push_back(&program.variable_types[static_cast<std::size_t>(v)]);
    layouts.push_back(&layout_of(program, v));
    stable.push_back(stable_draws[static_cast<std::size_t>(v)]);
  }
  // The decision the trace made, else made now from the recorded types and layouts.
  out.placement = e.placement;
  if (!out.placement) {
    std::vector<ArrayRef> operands;
    for (int v : e.inputs)
      operands.push_back(make_abstract_array(program.variable_types[static_cast<std::size_t>(v)], layout_of(program, v),
                                             program.variable_committed[static_cast<std::size_t>(v)]));
    ContextMeshScope context(runtime_of(evaluator), e.context_mesh);
    out.placement = std::make_shared<const Placement>(
        e.primitive->partition->place(evaluator, *e.primitive, operands, e.params));
  }
  out.steps = plan_steps(*out.placement, types, layouts, e.inputs, e.output, stable);
  return out;
}

}  // namespace

bool has_layout(const Jaxpr& program, int variable) {
  auto index = static_cast<std::size_t>(variable);
  return index < program.variable_layouts.size() && program.variable_layouts[index].has_value();
}

ArrayRef ProgramValues::where_needed(Evaluator& evaluator, int variable, const Layout& needed) {
  const ArrayRef& value = values_[static_cast<std::size_t>(variable)];
  if (value->layout.mesh == needed.mesh && value->layout.dims == needed.dims) return value;
  const auto index = static_cast<std::size_t>(variable);
  const bool kept = kept_moves_ && same_every_run_ && index < same_every_run_->size() && (*same_every_run_)[index] &&
                    !value->abstract();
  if (kept && kept_moves_->size() <= index) kept_moves_->resize(values_.size());
  auto& moved = kept ? (*kept_moves_)[index] : moved_[index];
  for (const ArrayRef& copy : moved)
    if (copy->layout.mesh == needed.mesh && copy->layout.dims == needed.dims) return copy;
  ArrayRef copy = relayout(evaluator, value, needed);
  if (copy != value) moved.push_back(copy);
  return copy;
}

std::vector<Step> plan_steps(const Placement& placement, const std::vector<const typecheck::ArrayType*>& operand_types,
                             const std::vector<const Layout*>& operand_layouts, const std::vector<int>& inputs,
                             int output, const std::vector<bool>& stable_draws) {
  std::vector<Step> steps;
  const typecheck::MeshRef& mesh = placement.layout.mesh->abstract;
  for (std::size_t i = 0; i < operand_types.size(); ++i) {
    const typecheck::ArrayType& type = *operand_types[i];
    const Layout& layout = *operand_layouts[i];
    // A stable-mode draw split across devices needs counters another
    // device's block holds: XLA partitions it with a collective-permute.
    bool stable = i < stable_draws.size() && stable_draws[i] && type.shape == placement.type.shape &&
                  (any_split(placement.layout.dims) || any_split(layout.dims));
    if (!stable && layout == placement.operands[i]) continue;  // where the kernel needs it
    Step step{Step::Kind::reshard, static_cast<int>(i), placement.operands[i], {}};
    int variable = i < inputs.size() ? inputs[i] : -1;
    if (stable)
      step.collectives.push_back(planned("collective-permute", operand_text(variable) + ", threefry stable mode", variable,
                                         type, layout.dims, mesh, {}));
    reshard(variable, type, layout.dims, placement.operands[i].dims, mesh, step.collectives);
    if (!step.collectives.empty() || !(layout == placement.operands[i])) steps.push_back(std::move(step));
  }
  steps.push_back({Step::Kind::kernel, -1, {}, {}});
  if (!placement.summed.empty()) {
    // Bytes per device: the result's shard (a reduce-scatter's, times the group).
    PlannedCollective sum = planned(placement.scatter_dimension >= 0 ? "reduce-scatter" : "all-reduce",
                                    operand_text(output) + ", axes=" + axes_text(placement.summed), output,
                                    placement.type, placement.layout.dims, mesh, placement.summed, true);
    steps.push_back({Step::Kind::combine, -1, {}, {std::move(sum)}});
  }
  steps.push_back({Step::Kind::finish, -1, {}, {}});
  return steps;
}

PartitionedProgram partition_program(Evaluator& evaluator, std::shared_ptr<const Jaxpr> program) {
  PartitionedProgram out;
  out.jaxpr = std::move(program);
  out.equations.reserve(out.jaxpr->equations.size());
  std::vector<bool> stable_draws = stable_random_draws(*out.jaxpr);
  for (const auto& e : out.jaxpr->equations)
    out.equations.push_back(partition_equation(evaluator, *out.jaxpr, e, stable_draws));
  return out;
}

void mark_constants(PartitionedProgram& program) {
  const Jaxpr& jaxpr = *program.jaxpr;
  std::vector<bool> constant(jaxpr.variable_types.size(), false);
  for (const auto& [variable, value] : jaxpr.constants) constant[static_cast<std::size_t>(variable)] = true;
  std::vector<bool> is_output(jaxpr.variable_types.size(), false);
  for (int output : jaxpr.outputs) is_output[static_cast<std::size_t>(output)] = true;
  auto all_constant = [&](const std::vector<int>& inputs) {
    return !inputs.empty() &&
           std::all_of(inputs.begin(), inputs.end(), [&](int v) { return constant[static_cast<std::size_t>(v)]; });
  };
  for (std::size_t k = 0; k < program.equations.size(); ++k) {
    PartitionedEquation& pe = program.equations[k];
    const Equation& e = *pe.equation;
    bool folds = false;
    if (pe.fusion >= 0) {
      // Decided at the fusion's first equation for all of its members.
      const Fusion& fusion = program.fusions[static_cast<std::size_t>(pe.fusion)];
      if (fusion.equations.front() != k) continue;
      folds = all_constant(fusion.inputs) && !is_output[static_cast<std::size_t>(fusion.output)];
      for (std::size_t member : fusion.equations) program.equations[member].constant = folds;
      constant[static_cast<std::size_t>(fusion.output)] = folds;
      continue;
    }
    folds = !e.primitive->effect && all_constant(e.inputs) && !is_output[static_cast<std::size_t>(e.output)];
    pe.constant = folds;
    constant[static_cast<std::size_t>(e.output)] = folds;
  }
  program.same_every_run = std::move(constant);
}

std::vector<PlannedCollective> replayed_collectives(const Jaxpr& program, const Equation& e) {
  std::vector<PlannedCollective> out;
  if (e.primitive->partition->replayed) e.primitive->partition->replayed(program, e, out);
  return out;
}

std::string xla_name(const Primitive& primitive) {
  if (primitive.collective != devices::CollectiveKind::none)
    return std::string(devices::collective_kind_name(primitive.collective));
  return std::string(primitive.name);
}

namespace {

// shard_map's entry, replayed: its operand resharded to the in_spec. Where
// the program recorded no layout, the type's sharding.
void shard_map_entry_collectives(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out) {
  int variable = e.inputs[0];
  const auto& type = program.variable_types[static_cast<std::size_t>(variable)];
  Dims from = type.sharding.dims;
  typecheck::MeshRef mesh = type.sharding.mesh;
  if (has_layout(program, variable)) {
    from = layout_of(program, variable).dims;
    mesh = layout_of(program, variable).mesh->abstract;
  }
  const Layout& in_spec = *e.params.get<Layout>("in_spec");
  if (!mesh && in_spec.mesh) mesh = in_spec.mesh->abstract;
  reshard(variable, type, from, in_spec.dims, mesh, out);
}

}  // namespace

namespace partitioning {
const Partitioning shard_map_entry{"replay", nullptr, nullptr, nullptr, shard_map_entry_collectives};
}  // namespace partitioning

}  // namespace interp
