// The VJP rules of shard_map's boundaries and collectives (vjp_rules.hpp).
#include <algorithm>

#include "interp/ops/vjp_rules.hpp"
#include "interp/ops/vjp_support.hpp"

namespace interp::vjp {

namespace {

double axes_size(const DeviceMesh& mesh, const typecheck::AxisList& names) {
  double size = 1;
  for (const auto& name : names)
    if (auto index = mesh.abstract->index_of(name)) size *= mesh.shape[*index];
  return size;
}

// psum (pmean: scaled by 1/n). With vma checking the cotangent (invariant
// over the axes) becomes varying where x varied, and is summed where x was
// invariant (psum pvaried it first: the result was n x). Without it, the
// transpose is psum, as in JAX (the shard_map boundary scales to match).
Cotangents psum_or_pmean_vjp(const VjpCall& call, bool mean) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  auto names = collective_axes(params);
  ArrayRef g = mean ? mul(ev, ct, 1.0 / axes_size(*params.get<Layout>("mesh")->mesh, names)) : ct;
  if (!checks_vma(params)) return {collective(ev, "psum", g, params, names)};
  typecheck::AxisList varied, invariant;
  for (const auto& name : names) {
    if (!x[0]->aval.manual.varying.contains(name)) invariant.push_back(name);
    else if (!g->aval.manual.varying.contains(name)) varied.push_back(name);
  }
  if (!invariant.empty()) g = collective(ev, "psum", g, params, invariant);
  if (!varied.empty()) g = collective(ev, "pvary", g, params, varied);
  return {g};
}

}  // namespace

Cotangents psum_vjp(const VjpCall& call) { return psum_or_pmean_vjp(call, false); }
Cotangents pmean_vjp(const VjpCall& call) { return psum_or_pmean_vjp(call, true); }

// pvary's transpose sums over the axes (check_vma=False: pvary is the identity).
Cotangents pvary_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  if (!checks_vma(params)) return {ct};
  return {collective(ev, "psum", ct, params, collective_axes(params))};
}

Cotangents device_put_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  const typecheck::Sharding& primal = x[0]->aval.sharding;
  const typecheck::Sharding& given = ct->aval.sharding;
  // The cotangent goes back to the operand's layout and state (a split
  // cotangent of a device_put that split a replicated operand is gathered).
  if (given.unreduced == primal.reduced && given.reduced == primal.unreduced && ct->layout == x[0]->layout) return {ct};
  Params placed;
  placed.set("layout", x[0]->layout);
  placed.set("requested", typecheck::ShardingArg{std::nullopt, typecheck::PartitionSpec::from_entries(
                                                                   x[0]->layout.dims, primal.reduced, primal.unreduced)});
  return {apply(ev, primitive.name, {ct}, std::move(placed))};
}

Cotangents preduced_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  if (!checks_vma(params)) return {ct};
  return {collective(ev, "psum", ct, params, collective_axes(params))};
}

Cotangents vary_unreduced_cast_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  if (!checks_vma(params)) return {ct};
  return {collective(ev, "reduced_vary_cast", ct, params, collective_axes(params))};
}

Cotangents reduced_vary_cast_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  if (!checks_vma(params)) return {ct};
  return {collective(ev, "vary_unreduced_cast", ct, params, collective_axes(params))};
}

Cotangents all_gather_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  Params extra;
  extra.set("scatter_dimension", *params.get<std::int64_t>("axis")).set("tiled", *params.get<bool>("tiled"));
  return {collective(ev, "psum_scatter", ct, params, collective_axes(params), std::move(extra))};
}

Cotangents psum_scatter_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  Params extra;
  extra.set("axis", *params.get<std::int64_t>("scatter_dimension")).set("tiled", *params.get<bool>("tiled"));
  return {collective(ev, "all_gather", ct, params, collective_axes(params), std::move(extra))};
}

// The reverse all_to_all, split and concat axes swapped (JAX's
// _all_to_all_transpose_rule): untiled too, since the untiled result has the
// group's size at concat_axis, where the reverse one splits.
Cotangents all_to_all_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  Params extra;
  extra.set("split_axis", *params.get<std::int64_t>("concat_axis"))
      .set("concat_axis", *params.get<std::int64_t>("split_axis"))
      .set("tiled", *params.get<bool>("tiled"));
  return {collective(ev, "all_to_all", ct, params, collective_axes(params), std::move(extra))};
}

// ppermute's transpose sends every block back: the inverse permutation.
Cotangents ppermute_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  std::vector<std::int64_t> inverse = *params.get<std::vector<std::int64_t>>("perm");
  for (std::size_t i = 0; i + 1 < inverse.size(); i += 2) std::swap(inverse[i], inverse[i + 1]);
  Params extra;
  extra.set("perm", std::move(inverse));
  return {collective(ev, "ppermute", ct, params, collective_axes(params), std::move(extra))};
}

// The manual axes of a shard_map that `layout`'s dims do not mention.
typecheck::AxisList unmentioned_axes(const Layout& layout, const DeviceMesh& body) {
  typecheck::AxisList names;
  for (const auto& axis : body.abstract->axes()) {
    if (axis.type != typecheck::AxisType::Manual || layout.mesh->abstract->find(axis.name)->type == typecheck::AxisType::Manual)
      continue;
    bool mentioned = false;
    for (const auto& entry : layout.dims) mentioned = mentioned || std::find(entry.begin(), entry.end(), axis.name) != entry.end();
    if (!mentioned) names.push_back(axis.name);
  }
  return names;
}

// Entering a shard_map: the body's cotangent leaves it by the argument's
// in_spec. Without vma checking, a block replicated over an unmentioned axis
// gets the sum of its copies' cotangents (with it, the rules above already
// made the cotangent invariant there).
namespace {
// A boundary spec's cotangent spec: unreduced and reduced swap.
typecheck::ShardingArg swapped(const typecheck::ShardingArg& spec) {
  return {spec.mesh, typecheck::PartitionSpec::from_entries(spec.spec.partitions(), spec.spec.reduced(), spec.spec.unreduced())};
}
}  // namespace

Cotangents shard_map_enter_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  const Layout& in_spec = *params.get<Layout>("in_spec");
  ArrayRef g = ct;
  if (!checks_vma(params)) {
    auto names = unmentioned_axes(in_spec, *params.get<Layout>("mesh")->mesh);
    if (!names.empty()) g = collective(ev, "psum", g, params, names);
  }
  Params exit;
  exit.set("out_spec", in_spec).set("mesh", *params.get<Layout>("mesh")).set("check_vma", checks_vma(params));
  if (const auto* spec = params.get<typecheck::ShardingArg>("spec")) exit.set("spec", swapped(*spec));
  return {apply(ev, "shard_map_exit", {g}, std::move(exit))};
}

// Leaving a shard_map: the result's cotangent enters the body by the
// out_spec. Without vma checking every copy of a replicated output takes an
// equal share, so that psum's transpose (psum) adds them back to one.
Cotangents shard_map_exit_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  const Layout& out_spec = *params.get<Layout>("out_spec");
  Params enter;
  enter.set("in_spec", out_spec).set("mesh", *params.get<Layout>("mesh")).set("check_vma", checks_vma(params));
  if (const auto* spec = params.get<typecheck::ShardingArg>("spec")) enter.set("spec", swapped(*spec));
  ArrayRef g = apply(ev, "shard_map_enter", {ct}, std::move(enter));
  if (!checks_vma(params)) {
    double copies = axes_size(*params.get<Layout>("mesh")->mesh, unmentioned_axes(out_spec, *params.get<Layout>("mesh")->mesh));
    if (copies != 1) g = mul(ev, g, 1.0 / copies);
  }
  return {g};
}

}  // namespace interp::vjp
