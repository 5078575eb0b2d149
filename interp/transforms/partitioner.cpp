// Collective planning from shardings (partitioner.hpp).
#include "interp/transforms/partitioner.hpp"

#include <algorithm>

#include "interp/ops/contractions.hpp"

namespace interp {

namespace {

std::string axes_text(const typecheck::SpecEntry& axes) {
  std::string out = "{";
  for (std::size_t i = 0; i < axes.size(); ++i) out += (i ? "," : "") + axes[i];
  return out + "}";
}

const typecheck::ArrayType& type_of(const Jaxpr& program, int variable) {
  return program.variable_types[static_cast<std::size_t>(variable)];
}

// Where a variable's data is split, one entry per dimension: its type's
// sharding, and on dimensions the type leaves whole, the Auto axes of the
// layout its traced value had (the compiler's choice, which the type does
// not show).
using Placement = std::vector<typecheck::SpecEntry>;

Placement placement_of(const Jaxpr& program, int variable) {
  const auto& type = type_of(program, variable);
  Placement dims = type.sharding.dims;
  dims.resize(type.ndim());
  auto index = static_cast<std::size_t>(variable);
  if (index >= program.variable_layouts.size() || !program.variable_layouts[index]) return dims;
  const Layout& layout = *program.variable_layouts[index];
  if (!layout.mesh || !layout.mesh->abstract) return dims;
  const auto& mesh = *layout.mesh->abstract;
  for (std::size_t d = 0; d < dims.size() && d < layout.dims.size(); ++d) {
    if (!dims[d].empty()) continue;
    for (const auto& axis : layout.dims[d]) {
      const typecheck::MeshAxis* found = mesh.find(axis);
      if (found && found->type == typecheck::AxisType::Auto) dims[d].push_back(axis);
    }
  }
  return dims;
}

typecheck::SpecEntry dim_entry(const Placement& dims, std::size_t d) {
  return d < dims.size() ? dims[d] : typecheck::SpecEntry{};
}

// The size of mesh axis `axis` as `variable`'s type or traced layout knows it.
std::int64_t axis_size(const Jaxpr& program, int variable, const std::string& axis) {
  if (const auto& mesh = type_of(program, variable).sharding.mesh)
    if (const typecheck::MeshAxis* found = mesh->find(axis)) return found->size;
  auto index = static_cast<std::size_t>(variable);
  if (index < program.variable_layouts.size() && program.variable_layouts[index]) {
    const Layout& layout = *program.variable_layouts[index];
    if (layout.mesh && layout.mesh->abstract)
      if (const typecheck::MeshAxis* found = layout.mesh->abstract->find(axis)) return found->size;
  }
  return 1;
}

// A collective `name` moving `variable` (split as `placement`) over `axes`.
PlannedCollective planned(const Jaxpr& program, std::string name, std::string details, int variable,
                          const Placement& placement, typecheck::SpecEntry axes, bool after = false) {
  PlannedCollective collective;
  collective.name = std::move(name);
  collective.details = std::move(details);
  collective.after = after;
  collective.kind = devices::parse_collective_kind(collective.name);
  collective.variable = variable;
  for (const auto& axis : axes) collective.group_size *= axis_size(program, variable, axis);
  collective.axes = std::move(axes);
  const auto& type = type_of(program, variable);
  std::int64_t elements = 1;
  for (std::size_t d = 0; d < type.shape.size(); ++d) {
    std::int64_t split = 1;
    for (const auto& axis : dim_entry(placement, d)) split *= axis_size(program, variable, axis);
    elements *= split > 0 ? (type.shape[d] + split - 1) / split : type.shape[d];
  }
  collective.bytes = elements * typecheck::byte_size(type.dtype);
  if (collective.kind == devices::CollectiveKind::all_gather || collective.kind == devices::CollectiveKind::reduce_scatter)
    collective.bytes *= collective.group_size;
  return collective;
}

// Resharding operand `variable` from `from` to `to`, dimension by dimension.
void reshard(const Jaxpr& program, int variable, const Placement& from, const std::vector<typecheck::SpecEntry>& to,
             std::vector<PlannedCollective>& out) {
  std::string operand = "(" + variable_name(variable) + ")";
  typecheck::AxisSet dropped, added;
  std::vector<std::size_t> gathered_dims;
  for (std::size_t d = 0; d < from.size(); ++d) {
    auto source = dim_entry(from, d);
    auto target = d < to.size() ? to[d] : typecheck::SpecEntry{};
    if (source == target) continue;
    for (const auto& a : source)
      if (std::find(target.begin(), target.end(), a) == target.end()) dropped.insert(a);
    for (const auto& a : target)
      if (std::find(source.begin(), source.end(), a) == source.end()) added.insert(a);
    if (!source.empty()) gathered_dims.push_back(d);
  }
  // An axis that leaves one dimension for another: all-to-all.
  typecheck::SpecEntry moved;
  for (const auto& a : dropped)
    if (added.count(a)) moved.push_back(a);
  for (const auto& a : moved) {
    dropped.erase(a);
    added.erase(a);
  }
  if (!moved.empty()) out.push_back(planned(program, "all-to-all", operand + ", axes=" + axes_text(moved), variable, from, moved));
  if (!dropped.empty()) {
    std::string dims;
    for (std::size_t i = 0; i < gathered_dims.size(); ++i) dims += (i ? "," : "") + std::to_string(gathered_dims[i]);
    typecheck::SpecEntry axes(dropped.begin(), dropped.end());
    out.push_back(planned(program, "all-gather", operand + ", dimensions={" + dims + "}, axes=" + axes_text(axes),
                          variable, from, axes));
  }
  if (!added.empty()) {
    typecheck::SpecEntry axes(added.begin(), added.end());
    out.push_back(planned(program, "dynamic-slice", operand + ", axes=" + axes_text(axes), variable, from, axes));
  }
}

// Whether a result may be split across devices: sharded by its type, or on a
// multi-device mesh with Auto axes, where the compiler picks the sharding
// (the type does not show it; XLA splits an elementwise result like its
// operands).
bool may_be_sharded(const typecheck::ArrayType& type) {
  const auto& sharding = type.sharding;
  if (std::any_of(sharding.dims.begin(), sharding.dims.end(), [](const typecheck::SpecEntry& axes) { return !axes.empty(); }))
    return true;
  return sharding.mesh && sharding.mesh->device_count() > 1 && sharding.mesh->has_axis_of_type(typecheck::AxisType::Auto);
}

// A random draw traced in threefry's stable mode: sharded, each shard needs
// counters another shard holds (devices/threefry.hpp), so XLA partitions
// it with a collective-permute.
bool stable_random_draw(const Jaxpr& program, int variable) {
  for (const auto& e : program.equations) {
    if (e.output != variable) continue;
    const auto* mode = e.params.get<std::string>("mode");
    return e.primitive->name == "random_sample" && mode && *mode == "stable";
  }
  return false;
}

}  // namespace

std::string xla_name(const Primitive& primitive) {
  if (primitive.collective != devices::CollectiveKind::none)
    return std::string(devices::collective_kind_name(primitive.collective));
  return std::string(primitive.name);
}

std::vector<PlannedCollective> plan_collectives(const Jaxpr& program, const Equation& e) {
  std::vector<PlannedCollective> out;
  e.primitive->partition(program, e, out);
  return out;
}

namespace partition {

void none(const Jaxpr&, const Equation&, std::vector<PlannedCollective>&) {}

void contraction(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out) {
  const Placement lhs = placement_of(program, e.inputs[0]);
  const Placement rhs = placement_of(program, e.inputs[1]);
  const Placement result = placement_of(program, e.output);
  if (lhs.empty() || rhs.empty()) return;
  const typecheck::DotDimensionNumbers numbers = dot_dimension_numbers(e.params, lhs.size());
  typecheck::AxisSet result_axes;
  for (const auto& entry : result) result_axes.insert(entry.begin(), entry.end());
  auto used_by_result = [&](const typecheck::SpecEntry& axes) {
    return std::any_of(axes.begin(), axes.end(), [&](const std::string& a) { return result_axes.count(a) > 0; });
  };
  auto contains = [](const std::vector<int>& dims, std::size_t d) {
    return std::find(dims.begin(), dims.end(), static_cast<int>(d)) != dims.end();
  };
  // Batch and free dimensions: as the result has them (its order: batch,
  // lhs free, rhs free).
  Placement lhs_target = lhs, rhs_target = rhs;
  for (std::size_t i = 0; i < numbers.lhs_batch.size() && i < numbers.rhs_batch.size(); ++i) {
    lhs_target.at(static_cast<std::size_t>(numbers.lhs_batch[i])) = dim_entry(result, i);
    rhs_target.at(static_cast<std::size_t>(numbers.rhs_batch[i])) = dim_entry(result, i);
  }
  std::size_t next = numbers.lhs_batch.size();
  std::vector<std::size_t> lhs_free, rhs_free;
  for (std::size_t d = 0; d < lhs.size(); ++d)
    if (!contains(numbers.lhs_batch, d) && !contains(numbers.lhs_contracting, d)) lhs_free.push_back(d);
  for (std::size_t d = 0; d < rhs.size(); ++d)
    if (!contains(numbers.rhs_batch, d) && !contains(numbers.rhs_contracting, d)) rhs_free.push_back(d);
  for (std::size_t d : lhs_free) lhs_target[d] = dim_entry(result, next++);
  for (std::size_t d : rhs_free) rhs_target[d] = dim_entry(result, next++);
  // A contraction split the same way in both operands is summed after the
  // product; split in one operand only (or differently), it is gathered first.
  typecheck::SpecEntry summed;
  for (std::size_t i = 0; i < numbers.lhs_contracting.size() && i < numbers.rhs_contracting.size(); ++i) {
    auto lc = static_cast<std::size_t>(numbers.lhs_contracting[i]), rc = static_cast<std::size_t>(numbers.rhs_contracting[i]);
    if (!lhs.at(lc).empty() && lhs[lc] == rhs.at(rc)) {
      summed.insert(summed.end(), lhs[lc].begin(), lhs[lc].end());
    } else {
      lhs_target.at(lc).clear();
      rhs_target.at(rc).clear();
    }
  }
  // A free dimension cannot take an axis the contraction keeps split.
  auto keeps_summed_axis = [&](const typecheck::SpecEntry& axes) {
    return std::any_of(axes.begin(), axes.end(),
                       [&](const std::string& a) { return std::find(summed.begin(), summed.end(), a) != summed.end(); });
  };
  for (std::size_t d : lhs_free)
    if (keeps_summed_axis(lhs_target[d])) lhs_target[d].clear();
  for (std::size_t d : rhs_free)
    if (keeps_summed_axis(rhs_target[d])) rhs_target[d].clear();
  reshard(program, e.inputs[0], lhs, lhs_target, out);
  reshard(program, e.inputs[1], rhs, rhs_target, out);
  if (!summed.empty()) {
    std::string operand = "(" + variable_name(e.output) + ")";
    out.push_back(planned(program, used_by_result(summed) ? "reduce-scatter" : "all-reduce",
                          operand + ", axes=" + axes_text(summed), e.output, result, summed, true));
  }
}

void reduction(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out) {
  const Placement operand = placement_of(program, e.inputs[0]);
  const auto* axes = e.params.get<std::vector<std::int64_t>>("axes");
  typecheck::SpecEntry summed;
  for (std::size_t d = 0; d < operand.size(); ++d) {
    bool reduced = !axes || std::find(axes->begin(), axes->end(), static_cast<std::int64_t>(d)) != axes->end();
    if (reduced) {
      auto entry = dim_entry(operand, d);
      summed.insert(summed.end(), entry.begin(), entry.end());
    }
  }
  if (!summed.empty())
    out.push_back(planned(program, "all-reduce", "(" + variable_name(e.output) + "), axes=" + axes_text(summed), e.output,
                          placement_of(program, e.output), summed, true));
}

void relayout(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out) {
  const auto* layout = e.params.get<Layout>("layout");
  reshard(program, e.inputs[0], placement_of(program, e.inputs[0]),
          layout ? layout->dims : placement_of(program, e.output), out);
}

void shard_map_entry(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out) {
  reshard(program, e.inputs[0], placement_of(program, e.inputs[0]), e.params.get<Layout>("in_spec")->dims, out);
}

void elementwise(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out) {
  const Placement result = placement_of(program, e.output);
  const auto& result_type = type_of(program, e.output);
  for (int input : e.inputs) {
    if (type_of(program, input).shape != result_type.shape) continue;
    if (may_be_sharded(result_type) && stable_random_draw(program, input))
      out.push_back(planned(program, "collective-permute", "(" + variable_name(input) + "), threefry stable mode", input,
                            placement_of(program, input), {}));
    reshard(program, input, placement_of(program, input), result, out);
  }
}

}  // namespace partition

}  // namespace interp
