// jax.shard_map and the lax collectives' API (sharding.md "shard_map
// typing", reference §4). A shard_map call binds shard_map_enter per array
// argument (the argument laid out by its in_spec becomes each position's
// local block), runs the body with the body mesh as the context mesh (so
// every operation inside works on manual arrays, collectives.hpp), checks
// the outputs against out_specs and binds shard_map_exit per output. Being
// ordinary primitives, these trace into jit programs like any other.
#pragma once

#include "interp/python/evaluator.hpp"
#include "typecheck/collective_rules.hpp"

namespace interp {

// jax.shard_map, jax.lax.{psum, pmean, pmax, pmin, all_gather, psum_scatter,
// all_to_all, ppermute, axis_index, axis_size, pvary}.
void install_shard_map(Evaluator& evaluator);

}  // namespace interp
