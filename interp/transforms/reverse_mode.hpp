// Reverse mode's parts, shared by jax.grad, jax.vjp (grad.cpp) and the
// transformations built on them (forward_mode.cpp, custom_derivatives.cpp):
// a function traced at its primals (trace_at), its program replayed
// through the current trace (replay_forward), and walked backwards from
// the outputs' cotangents calling each primitive's VJP rule (backward).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "interp/library/tree_module.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/transforms/trace.hpp"

namespace interp {

// A function traced at its primals and replayed forward: what the backward
// pass (grad's, or each call of vjp's function) starts from.
struct Linearization {
  std::shared_ptr<JitTrace> trace;
  bool concrete = false;
  std::vector<ArrayRef> primals;        // the differentiated leaves, in order
  std::vector<TreeDef> defs;            // per differentiated argument
  std::vector<std::size_t> first_leaf;  // per differentiated argument: its first primal
  Value returned;                       // what the function returned
  // Forward values by variable. Mutable: a remat region's rule swaps in the
  // values it recomputes for its own backward walk and puts the forward
  // pass's back after it (remat.cpp), instead of copying the linearization.
  mutable std::map<int, ArrayRef> values;
  std::set<int> active;                 // variables that depend on a primal
};

// Traces `function` on `args` with the leaves of the arguments at `argnums`
// as the program's inputs. Run eagerly, the trace also computes values, so
// a cond takes one branch; under jit or in check mode it only records.
std::shared_ptr<Linearization> trace_at(Evaluator& evaluator, const Value& function, CallArgs args,
                                        const std::vector<std::int64_t>& argnums, bool require_float);

// Forward: the program replayed through the current trace (eagerly, the
// values the trace computed are taken, and charged as if run now).
void replay_forward(Evaluator& evaluator, Linearization& lin);

// Backward: the primals' cotangents from the outputs' (`cotangents`, by
// variable), in reverse; each in its primal's dtype, shape and layout,
// as the argument trees (one per differentiated argument). An integer or
// boolean primal gets zeros (JAX's float0), unless `integer_cotangents`
// (linear_transpose of an integer function: its cotangents flow).
std::vector<Value> backward(Evaluator& evaluator, const Linearization& lin, std::map<int, ArrayRef> cotangents,
                            bool integer_cotangents = false);

// One equation's step of the backward walk: its operands' cotangents from
// its output's (none: nothing to do), added into `cotangents`, for the
// operands `needs_ct` names.
void transpose_equation(Evaluator& evaluator, const Linearization& lin, const Equation& equation,
                        const std::function<bool(int)>& needs_ct, std::map<int, ArrayRef>& cotangents);

// Zeros of `like`'s type, placed as `like` is (a tangent's or a
// cotangent's starting value).
ArrayRef zeros_placed_like(Evaluator& evaluator, const ArrayRef& like);

// The backward walk over equations [begin, end) of lin's program, in
// reverse: a region a custom rule differentiates (other than `skip`) by its
// rule, every other equation by transpose_equation.
void walk_range(Evaluator& evaluator, const Linearization& lin, std::size_t begin, std::size_t end,
                const CustomRegion* skip, const std::function<bool(int)>& needs_ct, std::map<int, ArrayRef>& cotangents);

// (output, aux) of a has_aux function's result.
std::pair<Value, Value> split_aux(const Value& returned, bool has_aux);

// The forward values of `tree`'s array leaves (others as they are).
Value forward_tree(Evaluator& evaluator, Linearization& lin, const Value& tree);

}  // namespace interp
