// jax.debug.print (debug_ops.cpp): a debug_print primitive whose operands
// are the arrays to show, so it prints when the program runs, under jit too.
#pragma once

#include "interp/ops/array.hpp"

namespace interp {

struct Primitive;
struct Params;

// params: format (the format string), keywords (the names of the trailing
// operands passed by keyword, comma-separated). Prints at execution; its
// result is an empty float32[0] nothing reads.
ArrayRef debug_print_implementation(Evaluator& evaluator, const Primitive& primitive,
                                    const std::vector<ArrayRef>& operands, const Params& params, bool execute);

void install_debug_operations(Evaluator& evaluator);

}  // namespace interp
