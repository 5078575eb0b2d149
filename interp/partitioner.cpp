// Collective planning from shardings (partitioner.hpp).
#include "interp/partitioner.hpp"

#include <algorithm>

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

typecheck::SpecEntry dim_entry(const typecheck::ArrayType& type, std::size_t d) {
  return d < type.sharding.dims.size() ? type.sharding.dims[d] : typecheck::SpecEntry{};
}

// Resharding operand `variable` from `from` to `to`, dimension by dimension.
void reshard(const Jaxpr& program, int variable, const typecheck::ArrayType& from, const std::vector<typecheck::SpecEntry>& to,
             std::vector<PlannedCollective>& out) {
  std::string operand = "(" + variable_name(variable) + ")";
  typecheck::AxisSet dropped, added;
  std::vector<std::size_t> gathered_dims;
  for (std::size_t d = 0; d < from.ndim(); ++d) {
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
  if (!moved.empty()) out.push_back({"all-to-all", operand + ", axes=" + axes_text(moved)});
  if (!dropped.empty()) {
    std::string dims;
    for (std::size_t i = 0; i < gathered_dims.size(); ++i) dims += (i ? "," : "") + std::to_string(gathered_dims[i]);
    out.push_back({"all-gather", operand + ", dimensions={" + dims + "}, axes=" +
                                     axes_text(typecheck::SpecEntry(dropped.begin(), dropped.end()))});
  }
  if (!added.empty())
    out.push_back({"dynamic-slice", operand + ", axes=" + axes_text(typecheck::SpecEntry(added.begin(), added.end()))});
}

void plan_dot(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out) {
  const auto& lhs = type_of(program, e.inputs[0]);
  const auto& rhs = type_of(program, e.inputs[1]);
  const auto& result = type_of(program, e.output);
  if (lhs.ndim() == 0 || rhs.ndim() == 0) return;
  std::size_t lc = lhs.ndim() - 1;
  auto lhs_k = dim_entry(lhs, lc), rhs_k = dim_entry(rhs, 0);
  typecheck::AxisSet result_axes;
  for (const auto& entry : result.sharding.dims) result_axes.insert(entry.begin(), entry.end());
  auto used_by_result = [&](const typecheck::SpecEntry& axes) {
    return std::any_of(axes.begin(), axes.end(), [&](const std::string& a) { return result_axes.count(a) > 0; });
  };
  // Free dimensions: as the result has them.
  std::vector<typecheck::SpecEntry> lhs_target = lhs.sharding.dims, rhs_target = rhs.sharding.dims;
  lhs_target.resize(lhs.ndim());
  rhs_target.resize(rhs.ndim());
  if (lhs.ndim() == 2) lhs_target[0] = dim_entry(result, 0);
  if (rhs.ndim() == 2) rhs_target[1] = dim_entry(result, result.ndim() - 1);
  bool partial_sums = !lhs_k.empty() && lhs_k == rhs_k;
  if (!partial_sums) {
    // Split in one operand (or differently): gather the contraction.
    lhs_target[lc].clear();
    rhs_target[0].clear();
  }
  // A free dimension cannot take an axis the contraction keeps split.
  if (partial_sums) {
    if (lhs.ndim() == 2 && used_by_result(lhs_k) && lhs_target[0] == lhs_k) lhs_target[0].clear();
    if (rhs.ndim() == 2 && used_by_result(lhs_k) && rhs_target[1] == lhs_k) rhs_target[1].clear();
  }
  reshard(program, e.inputs[0], lhs, lhs_target, out);
  reshard(program, e.inputs[1], rhs, rhs_target, out);
  if (partial_sums) {
    std::string operand = "(" + variable_name(e.output) + ")";
    if (used_by_result(lhs_k)) out.push_back({"reduce-scatter", operand + ", axes=" + axes_text(lhs_k), true});
    else out.push_back({"all-reduce", operand + ", axes=" + axes_text(lhs_k), true});
  }
}

void plan_reduction(const Jaxpr& program, const Equation& e, std::vector<PlannedCollective>& out) {
  const auto& operand = type_of(program, e.inputs[0]);
  const auto* axes = e.params.get<std::vector<std::int64_t>>("axes");
  typecheck::SpecEntry summed;
  for (std::size_t d = 0; d < operand.ndim(); ++d) {
    bool reduced = !axes || std::find(axes->begin(), axes->end(), static_cast<std::int64_t>(d)) != axes->end();
    if (reduced) {
      auto entry = dim_entry(operand, d);
      summed.insert(summed.end(), entry.begin(), entry.end());
    }
  }
  if (!summed.empty()) out.push_back({"all-reduce", "(" + variable_name(e.output) + "), axes=" + axes_text(summed), true});
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
  std::string_view name = primitive.name;
  if (name == "ppermute") return "collective-permute";
  if (name == "psum" || name == "pmean" || name == "pmax" || name == "pmin") return "all-reduce";
  if (name == "all_gather") return "all-gather";
  if (name == "psum_scatter") return "reduce-scatter";
  if (name == "all_to_all") return "all-to-all";
  return std::string(name);
}

std::vector<PlannedCollective> plan_collectives(const Jaxpr& program, const Equation& e) {
  std::vector<PlannedCollective> out;
  std::string_view name = e.primitive->name;
  const auto& result = type_of(program, e.output);
  if (name == "dot_general") {
    plan_dot(program, e, out);
  } else if (name.starts_with("reduce_") || name == "argmax" || name == "argmin") {
    plan_reduction(program, e, out);
  } else if (name == "device_put" || name == "reshard" || name == "sharding_constraint") {
    const auto* layout = e.params.get<Layout>("layout");
    reshard(program, e.inputs[0], type_of(program, e.inputs[0]), layout ? layout->dims : result.sharding.dims, out);
  } else if (name == "shard_map_enter") {
    reshard(program, e.inputs[0], type_of(program, e.inputs[0]), e.params.get<Layout>("in_spec")->dims, out);
  } else if (is_elementwise(*e.primitive)) {
    for (int input : e.inputs) {
      const auto& operand = type_of(program, input);
      if (operand.shape != result.shape) continue;
      if (may_be_sharded(result) && stable_random_draw(program, input))
        out.push_back({"collective-permute", "(" + variable_name(input) + "), threefry stable mode"});
      reshard(program, input, operand, result.sharding.dims, out);
    }
  }
  return out;
}

}  // namespace interp
