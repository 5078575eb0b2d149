// dot_general's decision and kernel (placement.hpp): the one place a
// contraction's sharding is decided (reference §2, the four sharded-matmul
// cases). Its cost is timed from the shards this decision gives each device
// (transforms/costing.cpp), and the partitioner prints its collectives.
//
//   free dimensions split, contraction whole: no communication;
//   a contraction split alike in both operands: each device's product is a
//     partial sum over those axes, all-reduced, or reduce-scattered when the
//     result splits one dimension by them (as its minor axes);
//   a contraction split in one operand only, or differently, or by axes the
//     result uses otherwise: gathered first;
//   batch and free dimensions: the operands are laid out as the result is.
#include <algorithm>

#include "devices/kernels/window.hpp"
#include "interp/ops/contractions.hpp"
#include "interp/ops/placement.hpp"
#include "interp/ops/primitives.hpp"
#include "typecheck/sharding_rule.hpp"

namespace interp {

namespace {

// `type` converted to `dtype`, as astype types it.
typecheck::ArrayType converted_type(typecheck::ArrayType type, typecheck::DType dtype) {
  if (type.dtype != dtype) {
    type.dtype = dtype;
    type.weak_type = false;
  }
  return type;
}

bool uses_any(const typecheck::SpecEntry& entry, const typecheck::SpecEntry& axes) {
  return std::any_of(entry.begin(), entry.end(),
                     [&](const std::string& a) { return std::find(axes.begin(), axes.end(), a) != axes.end(); });
}

// The result's type and layout (Auto: every factor takes its operands' axes,
// the lhs's first; the contraction's first, then the result's in order, each
// axis once).
void place_result(Evaluator& evaluator, const std::vector<ArrayRef>& operands, const Params& params,
                  const typecheck::FactorRule& rule, const typecheck::DotDimensionNumbers& numbers,
                  const DeviceMeshRef& mesh, Placement& placement) {
  const typecheck::ArrayType lhs = converted_type(operands[0]->aval, placement.compute);
  const typecheck::ArrayType rhs = converted_type(operands[1]->aval, placement.compute);
  typecheck::ElementType result_element =
      checked(typecheck::dot_result_element(promoted(operands), dot_preferred_element_type(params)));
  auto factor_size = [&](int factor) {
    for (std::size_t k = 0; k < 2; ++k)
      for (std::size_t d = 0; d < rule.operands[k].size(); ++d)
        if (rule.operands[k][d] == factor) return operands[k]->aval.shape[d];
    return std::int64_t{1};
  };
  std::optional<typecheck::Sharding> out;
  if (const auto* argument = params.get<typecheck::ShardingArg>("out_sharding")) {
    typecheck::Shape shape;
    for (int factor : rule.result) shape.push_back(factor_size(factor));
    typecheck::MeshRef context = runtime_of(evaluator).context_mesh ? runtime_of(evaluator).context_mesh->mesh->abstract : nullptr;
    out = checked(typecheck::canonicalize_out_sharding("jnp.dot", *argument, context, shape));
  }
  placement.type = checked(typecheck::dot_general_rule(lhs, rhs, numbers, result_element, out));

  const std::vector<typecheck::SpecEntry> operand_dims[2] = {dims_on(*operands[0], mesh), dims_on(*operands[1], mesh)};
  std::vector<typecheck::SpecEntry> factor_entries(rule.factor_kinds.size());
  for (std::size_t factor = 0; factor < factor_entries.size(); ++factor)
    for (std::size_t k = 2; k-- > 0;)
      for (std::size_t d = 0; d < rule.operands[k].size(); ++d)
        if (rule.operands[k][d] == static_cast<int>(factor) && !operand_dims[k][d].empty())
          factor_entries[factor] = operand_dims[k][d];
  typecheck::AxisSet used;
  auto take = [&](const typecheck::SpecEntry& e) {
    for (const auto& a : e)
      if (used.count(a)) return typecheck::SpecEntry{};
    used.insert(e.begin(), e.end());
    return e;
  };
  for (std::size_t factor = 0; factor < factor_entries.size(); ++factor)
    if (rule.factor_kinds[factor] == typecheck::FactorKind::reduction) factor_entries[factor] = take(factor_entries[factor]);
  std::vector<typecheck::SpecEntry> auto_dims;
  for (int factor : rule.result) auto_dims.push_back(take(factor_entries[factor]));
  placement.layout = result_layout(placement.type, mesh, auto_dims);
}

// Which contractions are summed after the product and where the kernel
// leaves its result (Placement::summed, computed, scatter_dimension).
void place_sums(const std::vector<ArrayRef>& operands, const typecheck::DotDimensionNumbers& numbers,
                const DeviceMeshRef& mesh, std::vector<bool>& summed_pair, Placement& placement) {
  const std::vector<typecheck::SpecEntry> lhs = dims_on(*operands[0], mesh), rhs = dims_on(*operands[1], mesh);
  placement.computed = placement.layout;
  std::vector<typecheck::SpecEntry> pair_axes(numbers.lhs_contracting.size());
  for (std::size_t i = 0; i < numbers.lhs_contracting.size() && i < numbers.rhs_contracting.size(); ++i) {
    const auto& l = lhs.at(static_cast<std::size_t>(numbers.lhs_contracting[i]));
    summed_pair.push_back(!l.empty() && l == rhs.at(static_cast<std::size_t>(numbers.rhs_contracting[i])));
    if (summed_pair.back()) pair_axes[i] = l;
  }
  typecheck::SpecEntry summed;
  for (const auto& axes : pair_axes) summed.insert(summed.end(), axes.begin(), axes.end());
  // A result split by summed axes: a reduce-scatter when one dimension takes
  // them all as its minor axes, else those contractions are gathered first.
  std::vector<std::size_t> users;
  for (std::size_t d = 0; d < placement.layout.dims.size(); ++d)
    if (uses_any(placement.layout.dims[d], summed)) users.push_back(d);
  if (users.size() == 1) {
    const auto& entry = placement.layout.dims[users[0]];
    if (entry.size() >= summed.size() && std::equal(summed.begin(), summed.end(), entry.end() - static_cast<long>(summed.size()))) {
      placement.scatter_dimension = static_cast<int>(users[0]);
      placement.computed.dims[users[0]].resize(entry.size() - summed.size());
      placement.summed = summed;
      return;
    }
  }
  typecheck::AxisSet result_axes;
  for (const auto& e : placement.layout.dims) result_axes.insert(e.begin(), e.end());
  for (std::size_t i = 0; i < pair_axes.size(); ++i) {
    if (!summed_pair[i]) continue;
    if (std::any_of(pair_axes[i].begin(), pair_axes[i].end(), [&](const std::string& a) { return result_axes.count(a) > 0; }))
      summed_pair[i] = false;
    else
      placement.summed.insert(placement.summed.end(), pair_axes[i].begin(), pair_axes[i].end());
  }
}

Placement place_dot(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands, const Params& params) {
  Placement placement;
  DeviceMeshRef mesh = computation_mesh("dot", operands);
  placement.compute = promoted(operands).dtype;
  placement.committed = any_committed(operands);
  const typecheck::DotDimensionNumbers numbers = dot_dimension_numbers(params, operands[0]->aval.ndim());
  const typecheck::FactorRule rule =
      checked(typecheck::dot_general_factor_rule(operands[0]->aval.ndim(), operands[1]->aval.ndim(), numbers));
  place_result(evaluator, operands, params, rule, numbers, mesh, placement);
  std::vector<bool> summed_pair;
  place_sums(operands, numbers, mesh, summed_pair, placement);

  // Operands: batch and free dims as the kernel leaves the result, each
  // contraction split by its entry when it is summed, whole otherwise.
  const std::vector<typecheck::SpecEntry> operand_dims[2] = {dims_on(*operands[0], mesh), dims_on(*operands[1], mesh)};
  std::vector<typecheck::SpecEntry> factor_entries(rule.factor_kinds.size());
  for (std::size_t i = 0; i < rule.result.size(); ++i)
    factor_entries[static_cast<std::size_t>(rule.result[i])] = placement.computed.dims[i];
  for (std::size_t i = 0; i < summed_pair.size(); ++i)
    if (summed_pair[i]) {
      auto d = static_cast<std::size_t>(numbers.lhs_contracting[i]);
      factor_entries[static_cast<std::size_t>(rule.operands[0][d])] = operand_dims[0][d];
    }
  for (std::size_t k = 0; k < 2; ++k) {
    Layout needed{mesh, {}};
    for (int factor : rule.operands[k]) needed.dims.push_back(factor_entries[static_cast<std::size_t>(factor)]);
    placement.operands.push_back(std::move(needed));
  }
  keep_unreduced_partials(placement);
  return placement;
}

// Products of at most this many multiply-adds whose shards share tiles are
// computed once (shared_product).
inline constexpr double shared_product_limit = 1 << 20;

// Whether the product is best computed once for all devices: small, its
// result split along a free dimension (the devices' shards share tiles;
// split along batch dimensions only, each computes its own), all its devices
// in this process, of operands that hold one value each (no unreduced
// partial sums, no per-device values).
bool computed_once(Evaluator& evaluator, const Placement& placement, const ArrayRef& lhs, const ArrayRef& rhs,
                   const typecheck::DotDimensionNumbers& numbers) {
  const DeviceMeshRef& mesh = placement.computed.mesh;
  if (!mesh || mesh->devices.size() < 2) return false;
  bool free_split = false;
  for (std::size_t d = numbers.lhs_batch.size(); d < placement.computed.dims.size(); ++d)
    free_split = free_split || placement.computed.block_count(d) > 1;
  if (!free_split) return false;
  if (lhs->abstract() || rhs->abstract() || on_manual_mesh(*lhs) || on_manual_mesh(*rhs)) return false;
  if (!lhs->aval.sharding.unreduced.empty() || !rhs->aval.sharding.unreduced.empty() ||
      !placement.type.sharding.unreduced.empty())
    return false;
  double work = 1;
  for (std::int64_t extent : placement.type.shape) work *= static_cast<double>(extent);
  for (int axis : numbers.lhs_contracting) work *= static_cast<double>(lhs->aval.shape[static_cast<std::size_t>(axis)]);
  if (work > shared_product_limit) return false;
  Runtime& runtime = runtime_of(evaluator);
  for (std::size_t p = 0; p < mesh->devices.size(); ++p)
    if (!runtime.holds(*mesh, p)) return false;
  return true;
}

// Each position's block of an array: its shape and where each position's
// starts (rank entries per position, flat).
struct Blocks {
  typecheck::Shape shape;
  std::vector<std::int64_t> origins;
  std::span<const std::int64_t> at(std::size_t p) const { return {origins.data() + p * shape.size(), shape.size()}; }
};

Blocks blocks_of(const Layout& layout, const typecheck::Shape& whole) {
  Blocks blocks{layout.shard_shape(whole), {}};
  blocks.origins = layout.block_origins(blocks.shape);
  return blocks;
}

bool same_origin(const Blocks& blocks, std::size_t p, std::size_t q) {
  return std::ranges::equal(blocks.at(p), blocks.at(q));
}

// Arrays of at most this many elements keep their whole value once
// assembled (the host holds it twice while they live).
inline constexpr std::int64_t kept_whole_limit = 1 << 16;

// How shared_product computes a product once per block of the contraction
// and splits it into the positions' shards: everything but the values,
// derived from the decision and the operands' shapes once (a jitted
// program's dot runs it on every call).
struct SharedProductPlan final : KernelPlan {
  // What the positions of one group hold of an operand together: whole
  // along every dimension but the contracting ones, which keep the group's
  // one block.
  struct GroupOperand {
    typecheck::Shape shape;
    std::vector<std::size_t> holders;                // a first holder per distinct block
    std::vector<std::vector<std::int64_t>> origins;  // where each lies in `shape`
    bool whole = false;  // the whole array, small enough to keep assembled (ArrayObject::assembled)
  };
  // The positions holding one block of the contraction.
  struct Group {
    GroupOperand lhs, rhs;
    std::vector<std::size_t> positions;
  };
  // Where a position's shard comes from: an earlier position's (`shares`),
  // or its window of the group's product from `start` (devices::window).
  struct Shard {
    std::size_t group = 0;
    std::size_t shares = 0;
    std::vector<std::int64_t> start;
  };
  typecheck::Shape lhs_shape, rhs_shape;  // the operands' shapes it was made for
  bool complete = true;  // every group's blocks cover its value (else the product is computed per position)
  std::vector<Group> groups;
  std::vector<Shard> shards;  // per position
};

// The group's value of one operand; `complete` false when its distinct
// blocks do not cover it.
SharedProductPlan::GroupOperand group_operand(const typecheck::Shape& whole_shape, const Blocks& blocks,
                                              const std::vector<std::size_t>& group, const std::vector<int>& contracting,
                                              bool& complete) {
  SharedProductPlan::GroupOperand out;
  out.shape = whole_shape;
  for (int d : contracting) out.shape[static_cast<std::size_t>(d)] = blocks.shape[static_cast<std::size_t>(d)];
  for (std::size_t i = 0; i < group.size(); ++i) {
    const std::size_t p = group[i];
    if (std::any_of(group.begin(), group.begin() + static_cast<long>(i),
                    [&](std::size_t q) { return same_origin(blocks, p, q); }))
      continue;
    out.holders.push_back(p);
    out.origins.emplace_back(blocks.at(p).begin(), blocks.at(p).end());
    for (int d : contracting) out.origins.back()[static_cast<std::size_t>(d)] = 0;
  }
  const auto count = static_cast<std::int64_t>(out.holders.size());
  complete = complete && count * devices::element_count(blocks.shape) == devices::element_count(out.shape);
  out.whole = out.shape == whole_shape && devices::element_count(out.shape) <= kept_whole_limit;
  return out;
}

std::shared_ptr<const SharedProductPlan> plan_shared_product(const Placement& placement, const ArrayObject& lhs,
                                                             const ArrayObject& rhs,
                                                             const typecheck::DotDimensionNumbers& numbers) {
  auto plan = std::make_shared<SharedProductPlan>();
  plan->lhs_shape = lhs.aval.shape;
  plan->rhs_shape = rhs.aval.shape;
  const Blocks lhs_blocks = blocks_of(lhs.layout, lhs.aval.shape), rhs_blocks = blocks_of(rhs.layout, rhs.aval.shape);
  const Blocks result = blocks_of(placement.computed, placement.type.shape);
  const std::size_t positions = placement.computed.position_count();
  // Positions grouped by the block of the contraction they hold.
  auto same_contraction = [&](std::size_t p, std::size_t q) {
    return std::all_of(numbers.lhs_contracting.begin(), numbers.lhs_contracting.end(), [&](int d) {
      return lhs_blocks.at(p)[static_cast<std::size_t>(d)] == lhs_blocks.at(q)[static_cast<std::size_t>(d)];
    });
  };
  plan->shards.resize(positions);
  std::vector<bool> placed(positions, false);
  for (std::size_t leader = 0; leader < positions; ++leader) {
    if (placed[leader]) continue;
    SharedProductPlan::Group group;
    for (std::size_t p = leader; p < positions; ++p)
      if (same_contraction(leader, p)) group.positions.push_back(p);
    group.lhs = group_operand(lhs.aval.shape, lhs_blocks, group.positions, numbers.lhs_contracting, plan->complete);
    group.rhs = group_operand(rhs.aval.shape, rhs_blocks, group.positions, numbers.rhs_contracting, plan->complete);
    for (std::size_t i = 0; i < group.positions.size(); ++i) {
      const std::size_t p = group.positions[i];
      placed[p] = true;
      SharedProductPlan::Shard& shard = plan->shards[p];
      shard.group = plan->groups.size();
      // Positions of the group holding the same block share its buffer.
      auto same = std::find_if(group.positions.begin(), group.positions.begin() + static_cast<long>(i),
                               [&](std::size_t q) { return same_origin(result, p, q); });
      shard.shares = same != group.positions.begin() + static_cast<long>(i) ? *same : p;
      if (shard.shares != p) continue;
      shard.start.assign(result.at(p).begin(), result.at(p).end());
    }
    plan->groups.push_back(std::move(group));
  }
  return plan;
}

// The group's value of an operand, from its positions' shards.
devices::LocalArray group_value(const ArrayObject& array, const SharedProductPlan::GroupOperand& operand,
                                const typecheck::Shape& block) {
  if (operand.holders.size() == 1) return devices::LocalArray{array.shards[operand.holders.front()].shared_buffer(), block};
  if (operand.whole && array.assembled) return devices::LocalArray{array.assembled, operand.shape};
  std::vector<devices::LocalArray> parts;
  parts.reserve(operand.holders.size());
  for (std::size_t p : operand.holders) parts.push_back({array.shards[p].shared_buffer(), block});
  devices::LocalArray value = value_or_raise(devices::assemble(parts, operand.origins, operand.shape));
  if (operand.whole) array.assembled = value.buffer;
  return value;
}

// dot_general computes every tile of its grid a shard touches whole (so
// that a shard sums each element as the unsharded product does): devices
// whose shards share a tile each compute all of it. A small product is
// instead computed once per block of the contraction (once, when it is not
// split), from what the devices holding that block hold together, and split
// into their shards: the values (or partial sums) the devices' own products
// give, bit for bit, without the repeats. Null when a group lacks a block.
ArrayRef shared_product(Evaluator& evaluator, const Placement& placement, const ArrayRef& lhs, const ArrayRef& rhs,
                        const typecheck::DotDimensionNumbers& numbers) {
  auto plan = std::dynamic_pointer_cast<const SharedProductPlan>(placement.kernel_plan);
  if (!plan || plan->lhs_shape != lhs->aval.shape || plan->rhs_shape != rhs->aval.shape) {
    plan = plan_shared_product(placement, *lhs, *rhs, numbers);
    placement.kernel_plan = plan;
  }
  if (!plan->complete) return nullptr;
  devices::DotDimensions dims;
  dims.lhs_batch.assign(numbers.lhs_batch.begin(), numbers.lhs_batch.end());
  dims.rhs_batch.assign(numbers.rhs_batch.begin(), numbers.rhs_batch.end());
  dims.lhs_contracting.assign(numbers.lhs_contracting.begin(), numbers.lhs_contracting.end());
  dims.rhs_contracting.assign(numbers.rhs_contracting.begin(), numbers.rhs_contracting.end());
  dims.result_dtype = placement.type.dtype;
  const typecheck::Shape lhs_block = lhs->layout.shard_shape(lhs->aval.shape);
  const typecheck::Shape rhs_block = rhs->layout.shard_shape(rhs->aval.shape);
  const typecheck::Shape result_block = placement.computed.shard_shape(placement.type.shape);
  std::vector<devices::LocalArray> products;
  products.reserve(plan->groups.size());
  for (const SharedProductPlan::Group& group : plan->groups)
    products.push_back(value_or_raise(devices::dot_general(group_value(*lhs, group.lhs, lhs_block),
                                                           group_value(*rhs, group.rhs, rhs_block), dims)));
  std::vector<std::shared_ptr<devices::Buffer>> shards(plan->shards.size());
  for (std::size_t p = 0; p < plan->shards.size(); ++p) {
    const SharedProductPlan::Shard& shard = plan->shards[p];
    if (shard.shares != p) {
      shards[p] = shards[shard.shares];
      continue;
    }
    shards[p] = value_or_raise(devices::window(products[shard.group], shard.start, result_block)).buffer;
  }
  return make_array(evaluator, placement.type, placement.computed, std::move(shards), placement.committed);
}

ArrayRef dot_kernel(Evaluator& evaluator, const Primitive&, const Placement& placement,
                    const std::vector<ArrayRef>& operands, const Params& params) {
  ArrayRef lhs = astype(evaluator, operands[0], placement.compute);
  ArrayRef rhs = astype(evaluator, operands[1], placement.compute);
  const typecheck::DotDimensionNumbers numbers = dot_dimension_numbers(params, lhs->aval.ndim());
  if (computed_once(evaluator, placement, lhs, rhs, numbers))
    if (ArrayRef product = shared_product(evaluator, placement, lhs, rhs, numbers)) return product;
  auto is_free = [](const std::vector<int>& contracting, const std::vector<int>& batch, std::size_t d) {
    auto has = [&](const std::vector<int>& dims) { return std::find(dims.begin(), dims.end(), static_cast<int>(d)) != dims.end(); };
    return !has(contracting) && !has(batch);
  };
  // Each shard's product is placed in the whole so that the kernel sums
  // every element as the unsharded product does.
  auto free_placement = [&](const ArrayRef& operand, const devices::LocalArray& shard, const std::vector<int>& contracting,
                            const std::vector<int>& batch, int position, std::vector<std::int64_t>& origins,
                            std::vector<std::int64_t>& totals) {
    for (std::size_t d = 0; d < operand->aval.ndim(); ++d) {
      if (!is_free(contracting, batch, d)) continue;
      origins.push_back(operand->layout.block_index(d, position) * shard.shape[d]);
      totals.push_back(operand->aval.shape[d]);
    }
  };
  auto shards = run_per_position(evaluator, placement.computed.mesh, {lhs, rhs},
                                 [&](const std::vector<devices::LocalArray>& in, std::size_t p) {
    // The thread's, refilled for each device: its vectors keep their room.
    thread_local devices::DotDimensions dims;
    dims.lhs_batch.assign(numbers.lhs_batch.begin(), numbers.lhs_batch.end());
    dims.rhs_batch.assign(numbers.rhs_batch.begin(), numbers.rhs_batch.end());
    dims.lhs_contracting.assign(numbers.lhs_contracting.begin(), numbers.lhs_contracting.end());
    dims.rhs_contracting.assign(numbers.rhs_contracting.begin(), numbers.rhs_contracting.end());
    dims.result_dtype = placement.type.dtype;
    for (auto* axes : {&dims.placement.lhs_free_origins, &dims.placement.lhs_free_totals,
                       &dims.placement.rhs_free_origins, &dims.placement.rhs_free_totals})
      axes->clear();
    free_placement(lhs, in[0], numbers.lhs_contracting, numbers.lhs_batch, static_cast<int>(p),
                   dims.placement.lhs_free_origins, dims.placement.lhs_free_totals);
    free_placement(rhs, in[1], numbers.rhs_contracting, numbers.rhs_batch, static_cast<int>(p),
                   dims.placement.rhs_free_origins, dims.placement.rhs_free_totals);
    return devices::dot_general(in[0], in[1], dims);
  });
  return make_array(evaluator, placement.type, placement.computed, std::move(shards), placement.committed);
}

}  // namespace

namespace partitioning {
const Partitioning contraction{"contraction", place_dot, dot_kernel};
}  // namespace partitioning

}  // namespace interp
