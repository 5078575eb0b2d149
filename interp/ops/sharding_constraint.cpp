// jax.lax.with_sharding_constraint (sharding_constraint.hpp).
#include "interp/ops/sharding_constraint.hpp"

#include "interp/ops/placement.hpp"

#include "interp/python/builtins.hpp"
#include "interp/transforms/trace.hpp"

namespace interp {

namespace {

typecheck::MeshRef context_abstract_mesh(Evaluator& evaluator) {
  auto& runtime = runtime_of(evaluator);
  return runtime.context_mesh ? runtime.context_mesh->mesh->abstract : nullptr;
}

// The constraint as a typecheck ShardingArg: NamedSharding or P; nullopt
// for a PositionalSharding (its mesh has no named axes to check).
std::optional<typecheck::ShardingArg> named_constraint(const Value& sharding) {
  if (sharding.as<PositionalShardingObject>()) return std::nullopt;
  if (sharding.as<NamedShardingObject>() || sharding.as<AbstractNamedShardingObject>() || sharding.as<PartitionSpecObject>())
    return sharding_argument(sharding);
  raise(exc::TypeError(), "with_sharding_constraint's shardings must be a Sharding or a PartitionSpec, got " +
                              type_name(sharding));
}

// The rule's error, with the prefix JAX gives a rank mismatch.
[[noreturn]] void raise_constraint_error(Evaluator& evaluator, const Value& sharding, const typecheck::Error& error) {
  std::string message = error.message;
  if (error.error_class == typecheck::ErrorClass::ValueError && message.starts_with("Sharding "))
    message = "One of with_sharding_constraint arguments is incompatible with its sharding annotation " +
              evaluator.repr(sharding) + ": " + message;
  raise_error(typecheck::Error{error.error_class, std::move(message)});
}

Value constrain_checked(Evaluator& evaluator, const ArrayRef& operand, const Value& sharding);

// One leaf. Check mode reports a failed constraint and goes on with the
// operand's type, poisoned.
Value constrain(Evaluator& evaluator, const ArrayRef& operand, const Value& sharding) {
  try {
    return constrain_checked(evaluator, operand, sharding);
  } catch (PyError& error) {
    if (!recover_in_check(evaluator, error, operand->poisoned)) throw;
    ArrayRef poisoned = make_abstract_array(operand->aval, operand->layout, operand->committed);
    poisoned->poisoned = true;
    return Value(poisoned);
  }
}

// The assertion on an all-Explicit mesh returns `operand` itself; otherwise
// the constraint is bound.
Value constrain_checked(Evaluator& evaluator, const ArrayRef& operand, const Value& sharding) {
  std::optional<typecheck::ShardingArg> constraint = named_constraint(sharding);
  if (constraint) {
    typecheck::Checked<typecheck::ArrayType> typed =
        typecheck::with_sharding_constraint_rule(operand->aval, *constraint, context_abstract_mesh(evaluator));
    if (!typed) raise_constraint_error(evaluator, sharding, typed.error());
    const typecheck::MeshRef mesh = constraint->mesh ? *constraint->mesh : context_abstract_mesh(evaluator);
    if (!mesh || mesh->axes().empty() || mesh->all_axes_of_type(typecheck::AxisType::Explicit))
      return Value(operand);
  }
  Layout target = layout_for_target(evaluator, sharding, operand->aval.shape);
  // Explicit axes of a mixed mesh stay where the operand's type puts them.
  if (operand->layout.mesh == target.mesh)
    for (std::size_t d = 0; d < target.dims.size() && d < operand->aval.sharding.dims.size(); ++d) {
      typecheck::SpecEntry kept = operand->aval.sharding.dims[d];
      kept.insert(kept.end(), target.dims[d].begin(), target.dims[d].end());
      target.dims[d] = std::move(kept);
    }
  Params params;
  params.set("layout", target);
  if (constraint) params.set("sharding", *constraint);
  return bind(evaluator, primitive("sharding_constraint"), {operand}, std::move(params));
}

// Shardings as a tree prefix of `tree`: one sharding applies to every leaf
// below it; a tuple or list of shardings pairs with the tree's items.
Value constrain_tree(Evaluator& evaluator, const Value& tree, const Value& shardings) {
  evaluator.guard_stack();
  const std::vector<Value>* sharding_items = nullptr;
  if (auto* t = shardings.as<TupleObject>()) sharding_items = &t->items;
  if (auto* l = shardings.as<ListObject>()) sharding_items = &l->items;
  auto map_items = [&](const std::vector<Value>& items) {
    if (sharding_items && sharding_items->size() != items.size())
      raise(exc::ValueError(), "with_sharding_constraint: the shardings tree (" +
                                   std::to_string(sharding_items->size()) + " items) does not match x's (" +
                                   std::to_string(items.size()) + " items)");
    std::vector<Value> out;
    for (std::size_t i = 0; i < items.size(); ++i)
      out.push_back(constrain_tree(evaluator, items[i], sharding_items ? (*sharding_items)[i] : shardings));
    return out;
  };
  if (auto* t = tree.as<TupleObject>()) return make_tuple(map_items(t->items));
  if (auto* l = tree.as<ListObject>()) return make_list(map_items(l->items));
  if (auto* d = tree.as<DictObject>()) {
    auto out = make_dict();
    for (const auto& e : d->table.entries())
      if (e.live) out->table.insert(e.key, constrain_tree(evaluator, e.value, shardings));
    return Value(out);
  }
  if (tree.is_none()) return tree;
  if (sharding_items) raise(exc::ValueError(), "with_sharding_constraint: a tuple of shardings for a single array");
  return constrain(evaluator, to_array(evaluator, tree), shardings);
}

}  // namespace

namespace {

Placement place_sharding_constraint(Evaluator&, const Primitive&, const std::vector<ArrayRef>& operands,
                                    const Params& params) {
  const ArrayRef& operand = operands[0];
  const Layout& layout = *params.get<Layout>("layout");
  Placement placement;
  placement.type = operand->aval;
  if (layout.mesh->devices.size() == 1)
    placement.type.sharding = typecheck::Sharding::replicated(nullptr, placement.type.ndim());
  else
    placement.type.sharding = checked(typecheck::make_sharding(
        layout.mesh->abstract, typecheck::PartitionSpec::from_entries(layout.dims), placement.type.shape));
  placement.layout = placement.computed = layout;
  placement.operands = {layout};
  placement.committed = true;
  // .sharding.spec shows the spec as written when it is exactly where the data went.
  if (const auto* constraint = params.get<typecheck::ShardingArg>("sharding")) {
    std::vector<typecheck::SpecEntry> requested = constraint->spec.partitions();
    requested.resize(layout.dims.size());
    if (requested == layout.dims) placement.requested_spec = constraint->spec;
  }
  return placement;
}

}  // namespace

namespace partitioning {
const Partitioning sharding_constraint{"relayout", place_sharding_constraint, relayout_kernel};
}  // namespace partitioning

void install_sharding_constraint(Evaluator& evaluator) {
  evaluator.module("jax.lax")->add_function("with_sharding_constraint(x, shardings)", [](Evaluator& ev, Arguments& a) {
    return constrain_tree(ev, a[0], a[1]);
  });
}

}  // namespace interp
