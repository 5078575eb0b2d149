// jax.lax.with_sharding_constraint (reference §2.11). On a mesh whose axes
// are all Explicit it is an assertion on the operand's type and emits
// nothing. Otherwise its spec may name only Auto axes and it binds the
// `sharding_constraint` primitive: the type is unchanged (Auto axes never
// show in types) and the data moves to the requested layout, eagerly and in
// jit programs alike, where the partitioner plans that move like a reshard.
// The constraint is a NamedSharding, a PositionalSharding, or a bare P on
// the context mesh.
#pragma once

#include "interp/ops/primitives.hpp"

namespace interp {

// The primitive's decision is partitioning::sharding_constraint
// (placement.hpp, defined here). Params: `layout` (the target), `sharding`
// (the NamedSharding or P as written, when it was one).

// jax.lax.with_sharding_constraint.
void install_sharding_constraint(Evaluator& evaluator);

}  // namespace interp
