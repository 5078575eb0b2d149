// jax.config.update("jax_explain_cache_misses", True): every trace of a
// jitted function (a miss of its tracing cache) logs JAX's explanation, a
// warning through Evaluator::log:
//
//   TRACING CACHE MISS at file.py:9:4 (<module>):
//     never seen function:
//       double id=140... defined at file.py:5
//
// or, for a function traced before, the difference from the closest
// signature it was traced with: "different input pytree" (a node's Python
// type, a list's length, a node's number of children), else "different
// input types" (each leaf's name, as JAX's debug info names arguments,
// with its type now and before), else "cache miss explanation unavailable"
// (what differs is a placement or a static argument, which JAX keys
// elsewhere). A never-seen function at a call site that already missed is
// flagged as one probably re-defined on each call.
#pragma once

#include <string>
#include <vector>

#include "interp/library/tree_module.hpp"
#include "typecheck/array_type.hpp"

namespace interp {

// What a trace of a jitted function was keyed on.
struct TraceSignature {
  TreeDef arguments;  // the dynamic arguments: a tuple of the positional ones, then a dict of the keywords
  std::vector<typecheck::ArrayType> types;  // one per leaf
  std::vector<std::string> names;           // one per leaf
};

// Logs the explanation of the miss when jax_explain_cache_misses is set,
// and remembers the signature as one `function` has been traced with.
void note_tracing_cache_miss(Evaluator& evaluator, const Value& function, TraceSignature signature);

// The names JAX's debug info gives the flattened arguments of `function`:
// the parameter's name with each leaf's key path ("params['w']"), or "" for
// a leaf it cannot name.
std::vector<std::string> argument_names(Evaluator& evaluator, const Value& function, const std::vector<Value>& args);
// The same for one argument: `name` with each leaf's key path.
std::vector<std::string> leaf_names(Evaluator& evaluator, const std::string& name, const Value& arg);
// JAX's DebugInfo.func_src_info: "f at file.py:5" (where it was defined).
std::string function_source_info(Evaluator& evaluator, const Value& function);
// The name of `function`'s parameter at `position`, or "" (none, or *args).
std::string parameter_name(const Value& function, std::size_t position);

}  // namespace interp
