#include "typecheck/control_flow_rules.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"

namespace typecheck {

namespace {

std::string long_str(const ArrayType& type) { return type.format({.short_dtypes = false, .weak_marker = false}); }

// Unsharded on no mesh or on one with only Auto axes: the type shows no
// sharding (the compiler chooses it), so which such mesh does not matter --
// a carry made by jnp.zeros may meet a closed-over array of an Auto mesh.
bool carries_no_sharding(const Sharding& sharding) {
  bool unsharded = std::all_of(sharding.dims.begin(), sharding.dims.end(), [](const SpecEntry& axes) { return axes.empty(); }) &&
                   sharding.unreduced.empty() && sharding.reduced.empty();
  return unsharded && (!sharding.mesh || sharding.mesh->all_axes_of_type(AxisType::Auto));
}

bool types_match(const ArrayType& a, const ArrayType& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.manual == b.manual &&
         (a.sharding == b.sharding || (carries_no_sharding(a.sharding) && carries_no_sharding(b.sharding)));
}

// ", so the dtypes do not match, and the shapes do not match"; empty for a
// pure sharding mismatch.
std::string mismatch_extra(const ArrayType& in, const ArrayType& out) {
  std::vector<std::string> parts;
  if (in.dtype != out.dtype) parts.emplace_back("the dtypes do not match");
  if (in.shape != out.shape) parts.emplace_back("the shapes do not match");
  if (in.manual != out.manual) parts.emplace_back("the manual axis types do not match");
  if (parts.empty()) return "";
  std::string out_text = ", so " + parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) out_text += (i + 1 == parts.size() ? ", and " : ", ") + parts[i];
  return out_text;
}

}  // namespace

std::optional<Error> check_carry_types(std::string_view body, std::string_view carry_name,
                                       std::span<const CarryLeaf> input, std::span<const CarryLeaf> output) {
  std::vector<std::string> differences;
  std::vector<std::string> hints;
  for (std::size_t i = 0; i < input.size() && i < output.size(); ++i) {
    const ArrayType& in = input[i].type;
    const ArrayType& out = output[i].type;
    if (types_match(in, out)) continue;
    const std::string component = input[i].path.empty()
                                      ? "input carry " + std::string(carry_name)
                                      : "input carry component " + std::string(carry_name) + input[i].path;
    differences.push_back(component + " has type " + long_str(in) +
                          " but the corresponding output carry component has type " + long_str(out) +
                          mismatch_extra(in, out));
    std::vector<std::string> gained;
    for (const std::string& axis : in_mesh_order(out.manual.varying, out.sharding.mesh))
      if (!in.manual.varying.contains(axis)) gained.push_back(python_string_repr(axis));
    if (!gained.empty())
      hints.push_back("applying `jax.lax.pcast(..., " + python_tuple_repr(gained) +
                      ", to='varying')`, to the initial carry value corresponding to the " + component);
  }
  if (differences.empty()) return std::nullopt;
  std::string text;
  if (differences.size() == 1) {
    text = "The " + differences[0] + ".";
  } else {
    for (std::size_t i = 0; i < differences.size(); ++i)
      text += "  * the " + differences[i] + (i + 1 == differences.size() ? "." : ";\n");
  }
  std::string hint;
  if (hints.size() == 1) hint = "This might be fixed by " + hints[0] + ".\n";
  if (hints.size() > 1) {
    hint = "This might be fixed by:\n";
    for (std::size_t i = 0; i < hints.size(); ++i)
      hint += "  * " + hints[i] + (i + 1 == hints.size() ? ".\n" : ";\n");
  }
  if (!hint.empty()) hint += "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.\n";
  return Error{ErrorClass::TypeError, std::string(body) +
                                          " function carry input and carry output must have equal types, but they "
                                          "differ:\n\n" +
                                          text + "\n" + hint +
                                          "Revise the function so that all output types match the corresponding "
                                          "input types."};
}

std::optional<Error> check_scan_xs(std::span<const ArrayType> xs) {
  bool sharded = false;
  std::string specs;
  for (const ArrayType& each : xs) {
    if (each.ndim() > 0 && !each.sharding.dims[0].empty()) sharded = true;
    specs += (specs.empty() ? "" : ", ") + each.sharding.spec().repr();
  }
  if (!sharded) return std::nullopt;
  return Error{ErrorClass::ValueError, "0th dimension of all xs should be replicated. Got " + specs};
}

std::optional<Error> check_branch_outputs(std::string_view api, const BranchOutputs& first,
                                          const BranchOutputs& second) {
  std::vector<std::string> differences;
  std::vector<std::string> hints;
  for (std::size_t i = 0; i < first.outputs.size() && i < second.outputs.size(); ++i) {
    const ArrayType& a1 = first.outputs[i].type;
    const ArrayType& a2 = second.outputs[i].type;
    if (types_match(a1, a2)) continue;
    const std::string& path = first.outputs[i].path;
    const std::string component = path.empty() ? "" : " at path " + path;
    differences.push_back("the output of " + first.name + component + " has type " + long_str(a1) +
                          " but the corresponding output of " + second.name + " has type " + long_str(a2) +
                          mismatch_extra(a1, a2));
    for (auto [name, own, other] : {std::tuple{&first.name, &a1, &a2}, std::tuple{&second.name, &a2, &a1}}) {
      std::vector<std::string> missing;
      for (const std::string& axis : in_mesh_order(other->manual.varying, other->sharding.mesh))
        if (!own->manual.varying.contains(axis)) missing.push_back(python_string_repr(axis));
      if (!missing.empty())
        hints.push_back("applying `jax.lax.pcast(..., " + python_tuple_repr(missing) +
                        ", to='varying')` to the output of " + *name + component);
    }
  }
  if (differences.empty()) return std::nullopt;
  std::string text;
  if (differences.size() == 1) {
    text = differences[0];
    text[0] = 'T';  // _capitalize: "the output" -> "The output"
    text += ".\n";
  } else {
    for (std::size_t i = 0; i + 1 < differences.size(); ++i) text += (i > 0 ? "\n" : "") + ("  * " + differences[i] + ";");
    text += "\n  * " + differences.back() + ".\n";
  }
  std::string hint;
  if (hints.size() == 1) hint = "This might be fixed by " + hints[0] + ".\n";
  if (hints.size() > 1) {
    hint = "This might be fixed by:\n";
    for (std::size_t i = 0; i + 1 < hints.size(); ++i) hint += (i > 0 ? "\n" : "") + ("  * " + hints[i] + ";");
    hint += "\n  * " + hints.back() + ".\n";
  }
  if (!hint.empty()) hint += "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.\n\n";
  return Error{ErrorClass::TypeError, std::string(api) + " branches must have equal output types but they differ.\n\n" +
                                          first.name + " is " + first.source + "\n" + second.name + " is " +
                                          second.source + "\n\n" + text + "\n" + hint + "Revise " + first.name +
                                          " and/or " + second.name + " so that all output types match."};
}

std::optional<Error> check_switch_outputs(std::span<const BranchOutputs> branches) {
  for (std::size_t i = 1; i < branches.size(); ++i) {
    BranchOutputs first = branches[0];
    first.name = "branch 0";
    BranchOutputs other = branches[i];
    other.name = "branch" + std::to_string(i);
    if (std::optional<Error> error = check_branch_outputs("switch", first, other)) return error;
  }
  return std::nullopt;
}

}  // namespace typecheck
