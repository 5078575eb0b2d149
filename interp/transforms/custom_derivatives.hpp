// Custom differentiation rules: jax.custom_jvp (defjvp, defjvps) and
// jax.custom_vjp (defvjp), with nondiff_argnums.
//
// Called outside differentiation (eagerly, under jit or vmap) the function
// runs as written. Called in a trace that grad, vjp or jvp differentiates
// (reverse_mode.hpp), it records a region (trace.hpp's CustomRegion) over
// the equations it adds, and the backward walk applies the rule there in
// place of the equations' own VJPs:
// - custom_vjp: fwd runs instead of the function; its residuals are kept,
//   and the backward walk calls bwd with them and the outputs' cotangents.
// - custom_jvp: the JVP rule runs with tangents that are fresh zero arrays
//   of the trace, so its tangent outputs are linear programs of them; the
//   backward walk transposes those equations (the VJP of the rule's tangent
//   map), which is how JAX derives reverse mode from a JVP rule.
// Forward mode (forward_mode.hpp) is the transpose of that walk, so a
// custom_jvp rule gives jvp its tangents; a custom_vjp rule cannot be
// transposed and jvp raises JAX's TypeError.
//
// A rule's own call of the function it defines belongs to the
// differentiation below the current one (JAX's levels): such a region
// records its level, and replaying the program into that trace carries it
// there, so higher-order derivatives use the rule iff the rule calls the
// function, as the JAX guide says.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "interp/transforms/reverse_mode.hpp"

namespace interp {

class CustomRule {
 public:
  virtual ~CustomRule() = default;
  // Whether forward mode may transpose it (custom_jvp's may, custom_vjp's may not).
  virtual bool transposable() const = 0;
  // The region's input cotangents (null: none) from its outputs' (null:
  // none flows there).
  virtual std::vector<ArrayRef> transpose(Evaluator& evaluator, const Linearization& lin, const CustomRegion& region,
                                          const std::vector<ArrayRef>& out_cts) const = 0;
  // The rule for its region carried into another trace, whose variables
  // `rename` gives for this trace's.
  virtual std::shared_ptr<const CustomRule> carried(const std::function<int(int)>& rename) const = 0;
};

// The backward walk's step over a region of lin's trace: its inputs'
// cotangents from its outputs', added into `cotangents`.
void transpose_region(Evaluator& evaluator, const Linearization& lin, const CustomRegion& region,
                      std::map<int, ArrayRef>& cotangents);
// The regions of lin's trace for the levels below recorded in `target`,
// one level lower, after lin's program was replayed into it (`landed[i]`:
// where equation i landed; one more entry for the end).
void carry_regions(const Linearization& lin, JitTrace& target, const std::vector<std::size_t>& landed);
// The differentiating trace a custom function (or jax.checkpoint) called
// now records its region in, and the region's level; null when the call is
// not differentiated (eagerly, under jit or vmap, or a rule's own call below
// the last level).
JitTrace* differentiating_trace(Evaluator& evaluator, int& level);
// The output leaves as fresh variables of the region begun at equation
// `begin` (an input passed through, or a value made before, is copied), so
// the backward walk meets the region's outputs only at its end.
std::vector<int> region_outputs(Evaluator& evaluator, JitTrace& trace, std::size_t begin, std::vector<Value>& leaves);

// jvp's refusal of a custom_vjp function (JAX's TypeError).
void refuse_forward_mode_through_custom_vjp(const JitTrace& trace);

// jax.custom_jvp and jax.custom_vjp in the jax module.
void install_custom_derivatives(Evaluator& evaluator);

}  // namespace interp
