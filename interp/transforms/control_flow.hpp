// lax control flow (issue #5 part 5): fori_loop, while_loop, scan, cond,
// and the dynamic slicing that loop bodies index with.
//
// The loops run their body once per iteration in the current trace (so
// under jit they unroll into the program); loop bounds and predicates must
// be concrete. After each iteration the carry's leaves are checked against
// the initial carry's types (shape, dtype, sharding and varying axes) with
// JAX's message naming the leaf and both types; cond traces both branches
// and checks their outputs match.
#pragma once

#include "interp/python/evaluator.hpp"

namespace interp {

// jax.lax.{fori_loop, while_loop, scan, cond, switch, dynamic_slice,
// dynamic_slice_in_dim, dynamic_update_slice, dynamic_update_slice_in_dim}.
void install_control_flow(Evaluator& evaluator);

}  // namespace interp
