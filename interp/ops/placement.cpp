// Running one decision, and the helpers place rules share (placement.hpp).
#include "interp/ops/placement.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "devices/collectives.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/python/builtins.hpp"
#include "typecheck/rule_support.hpp"

namespace interp {

namespace {

std::string device_ids_text(const DeviceMesh& mesh) {
  std::string out = "[";
  auto ids = mesh.device_ids();
  for (std::size_t i = 0; i < ids.size(); ++i) out += (i ? ", " : "") + std::to_string(ids[i]);
  return out + "]";
}

}  // namespace

bool replayed(const Partitioning& partitioning) { return partitioning.place == nullptr; }

ArrayRef abstract_result(const Placement& placement) {
  ArrayRef out = make_abstract_array(placement.type, placement.layout, placement.committed);
  out->requested_spec = placement.requested_spec;
  return out;
}

ArrayRef run_kernel(Evaluator& evaluator, const Primitive& primitive, const Placement& placement,
                    const std::vector<ArrayRef>& inputs, const Params& params) {
  return primitive.partition->kernel(evaluator, primitive, placement, inputs, params);
}

ArrayRef combine_partials(Evaluator& evaluator, const Placement& placement, const ArrayRef& partial) {
  if (placement.summed.empty() || partial->abstract()) return partial;
  const DeviceMeshRef& mesh = partial->layout.mesh;
  std::vector<int> axes;
  for (const auto& axis : placement.summed) axes.push_back(static_cast<int>(*mesh->abstract->index_of(axis)));
  devices::ReplicaGroups groups = devices::replica_groups(mesh->shape, axes);
  typecheck::Shape shard_shape = partial->layout.shard_shape(partial->aval.shape);
  std::vector<std::shared_ptr<devices::Buffer>> shards;
  for (const auto& shard : partial->shards) shards.push_back(shard.shared_buffer());
  if (placement.scatter_dimension < 0) {
    shards = value_or_raise(devices::all_reduce(placement.combine, shards, shard_shape, groups));
    return make_array(evaluator, partial->aval, partial->layout, std::move(shards), partial->committed);
  }
  shards = value_or_raise(devices::reduce_scatter_sum(shards, shard_shape, groups, placement.scatter_dimension));
  return make_array(evaluator, partial->aval, placement.layout, std::move(shards), partial->committed);
}

ArrayRef run_finish(Evaluator& evaluator, const Primitive& primitive, const Placement& placement,
                    const ArrayRef& combined, const Params& params) {
  if (primitive.partition->finish) return primitive.partition->finish(evaluator, primitive, placement, combined, params);
  return combined;
}

// The last decisions of the families decided by their operands alone, with
// what each was made from: the primitive and, per operand, its type, layout
// and commitment. Meshes count by identity (a decision's result keeps the
// operands' mesh objects), so an entry matches only the same objects. A
// few entries, replaced in turn: a loop's body applies a few primitives
// to operands of the same types over and over.
struct DecisionCache {
  struct Operand {
    typecheck::ArrayType aval;
    Layout layout;
    bool committed = false;
  };
  struct Entry {
    const Primitive* primitive = nullptr;
    std::vector<Operand> operands;
    std::shared_ptr<const Placement> placement;
  };
  std::array<Entry, 8> entries;
  std::size_t next = 0;
};

namespace {

bool made_from(const DecisionCache::Entry& entry, const Primitive& primitive, const std::vector<ArrayRef>& operands) {
  if (entry.primitive != &primitive || entry.operands.size() != operands.size()) return false;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const DecisionCache::Operand& kept = entry.operands[i];
    const ArrayObject& operand = *operands[i];
    if (kept.committed != operand.committed || kept.layout.mesh != operand.layout.mesh ||
        kept.aval.sharding.mesh != operand.aval.sharding.mesh || kept.layout.dims != operand.layout.dims ||
        !(kept.aval == operand.aval))
      return false;
  }
  return true;
}

// The application's decision: its family's place rule, or the one made
// for the same operands when the family is decided by its operands alone.
std::shared_ptr<const Placement> decide(Evaluator& evaluator, const Primitive& primitive,
                                        const std::vector<ArrayRef>& operands, const Params& params) {
  if (!primitive.partition->decided_by_operands)
    return std::make_shared<const Placement>(primitive.partition->place(evaluator, primitive, operands, params));
  std::shared_ptr<DecisionCache>& cache = runtime_of(evaluator).decisions;
  if (!cache) cache = std::make_shared<DecisionCache>();
  for (const DecisionCache::Entry& entry : cache->entries)
    if (made_from(entry, primitive, operands)) return entry.placement;
  auto placement = std::make_shared<const Placement>(primitive.partition->place(evaluator, primitive, operands, params));
  DecisionCache::Entry& entry = cache->entries[cache->next];
  cache->next = (cache->next + 1) % cache->entries.size();
  entry.primitive = &primitive;
  entry.operands.clear();
  for (const ArrayRef& operand : operands) entry.operands.push_back({operand->aval, operand->layout, operand->committed});
  entry.placement = placement;
  return placement;
}

}  // namespace

ArrayRef run_placed(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                    const Params& params, bool execute) {
  std::shared_ptr<const Placement> decision = decide(evaluator, primitive, operands, params);
  const Placement& placement = *decision;
  if (!execute || std::any_of(operands.begin(), operands.end(), [](const ArrayRef& a) { return a->abstract(); })) {
    ArrayRef out = abstract_result(placement);
    runtime_of(evaluator).traced_decision = TracedDecision{std::move(decision), &primitive, &operands, &params, out.get()};
    return out;
  }
  std::vector<ArrayRef> inputs;
  for (std::size_t i = 0; i < operands.size(); ++i) inputs.push_back(relayout(evaluator, operands[i], placement.operands[i]));
  ArrayRef partial = run_kernel(evaluator, primitive, placement, inputs, params);
  return run_finish(evaluator, primitive, placement, combine_partials(evaluator, placement, partial), params);
}

std::shared_ptr<const Placement> take_traced_decision(Evaluator& evaluator, const Primitive& primitive,
                                                      const std::vector<ArrayRef>& operands, const Params& params,
                                                      const ArrayObject& result) {
  TracedDecision decision = std::exchange(runtime_of(evaluator).traced_decision, {});
  bool same = decision.primitive == &primitive && decision.operands == &operands && decision.params == &params &&
              decision.result == &result;
  return same ? std::move(decision.placement) : nullptr;
}

// ------------------------------------------------------------ for place rules

DeviceMeshRef computation_mesh(std::string_view api_name, const std::vector<ArrayRef>& operands) {
  const ArrayObject* committed = nullptr;
  std::size_t committed_index = 0;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const auto& a = operands[i];
    if (!a->committed) continue;
    if (!committed) {
      committed = a.get();
      committed_index = i;
      continue;
    }
    if (!a->layout.mesh->same_devices(*committed->layout.mesh)) {
      auto describe = [&](std::size_t index, const ArrayObject& x) {
        std::string platform(devices::platform_display_name(x.layout.mesh->devices[0].platform));
        return "argument x" + std::to_string(index + 1) + " of jax.numpy." + std::string(api_name) + " with shape " +
               x.aval.format({.short_dtypes = false, .weak_marker = false}) + " and device ids " +
               device_ids_text(*x.layout.mesh) + " on platform " + platform;
      };
      raise(exc::ValueError(), "Received incompatible devices for jitted computation. Got " +
                                   describe(committed_index, *committed) + " and " + describe(i, *a));
    }
  }
  if (committed) return committed->layout.mesh;
  const ArrayObject* widest = operands[0].get();
  for (const auto& a : operands)
    if (a->layout.mesh->devices.size() > widest->layout.mesh->devices.size()) widest = a.get();
  return widest->layout.mesh;
}

bool any_committed(const std::vector<ArrayRef>& operands) {
  return std::any_of(operands.begin(), operands.end(), [](const ArrayRef& a) { return a->committed; });
}

std::vector<typecheck::SpecEntry> dims_on(const ArrayObject& array, const DeviceMeshRef& mesh) {
  if (array.layout.mesh == mesh || (array.layout.mesh->same_devices(*mesh) &&
                                    *array.layout.mesh->abstract == *mesh->abstract))
    return array.layout.dims;
  return std::vector<typecheck::SpecEntry>(array.aval.ndim());
}

Layout result_layout(const typecheck::ArrayType& type, const DeviceMeshRef& mesh,
                     std::vector<typecheck::SpecEntry> auto_dims) {
  Layout layout{mesh, typecheck::has_explicit_axis(type.sharding.mesh) ? type.sharding.dims : std::move(auto_dims)};
  layout.dims.resize(type.ndim());
  // An out_sharding on another mesh than the operands' (uncommitted operands
  // on one device, say) names axes this mesh lacks: refuse rather than index
  // past the mesh's axes.
  for (const auto& entry : layout.dims)
    for (const auto& axis : entry)
      if (!mesh->abstract->index_of(axis))
        raise(exc::ValueError(),
              "the requested output sharding names mesh axis '" + axis +
                  "', which the operands' devices do not have; put the operands on that mesh first "
                  "(jax.device_put(x, NamedSharding(mesh, P(...))))");
  return layout;
}

void keep_unreduced_partials(Placement& placement) {
  const typecheck::AxisSet& unreduced = placement.type.sharding.unreduced;
  std::erase_if(placement.summed, [&](const std::string& axis) { return unreduced.contains(axis); });
}

typecheck::ElementType promoted(const std::vector<ArrayRef>& operands) {
  if (operands.size() == 2) return typecheck::result_type(operands[0]->aval.element_type(), operands[1]->aval.element_type());
  std::vector<typecheck::ElementType> elements;
  for (const auto& a : operands) elements.push_back(a->aval.element_type());
  return typecheck::result_type(elements);
}

namespace partitioning {
const Partitioning replay{"replay"};
}  // namespace partitioning

}  // namespace interp
