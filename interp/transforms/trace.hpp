// Traces (architecture.md "The pipeline"): bind() hands every primitive
// application to the current trace, which decides what applying it means.
//   EagerTrace:    type-check with the rule, then run now on the mesh.
//   AbstractTrace: type-check only, no buffers (check mode); in check mode a
//                  failing application is reported and yields a poisoned
//                  array of its best-guess type.
//   JitTrace:      type-check and record the application into a Jaxpr.
// The traces form a stack in the Runtime; the bottom one follows the
// evaluator's mode (eager for run, abstract for check).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/ops/primitives.hpp"
#include "interp/transforms/jaxpr.hpp"

namespace interp {

class Trace {
 public:
  virtual ~Trace() = default;
  virtual ArrayRef process(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                           const Params& params) = 0;
};

class EagerTrace : public Trace {
 public:
  ArrayRef process(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                   const Params& params) override;
};

class AbstractTrace : public Trace {
 public:
  ArrayRef process(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                   const Params& params) override;
};

class CustomRule;  // custom_derivatives.hpp
struct RefEffects;  // refs.hpp

// The span of a differentiating trace's program that a custom rule
// (jax.custom_jvp, jax.custom_vjp) differentiates in place of its
// equations (custom_derivatives.hpp).
struct CustomRegion {
  std::size_t begin = 0, end = 0;  // its equations
  // 0: this trace's backward pass applies the rule; k > 0: the k-th
  // differentiating trace below does (a rule's own call of the function it
  // defines belongs to the transformation below, as in JAX), and the
  // replay of this program into that trace carries the region down.
  int level = 0;
  std::vector<int> inputs;   // the differentiable input leaves' variables
  std::vector<int> outputs;  // the output leaves' variables
  std::shared_ptr<const CustomRule> rule;
};

// Records into `program`. Arrays it made (inputs and results) are its
// variables; any other array an operation meets is a constant of the program.
// An executing trace (eager grad) also runs each application whose operands'
// values it knows, beside the record, so a traced value can have a concrete
// value (a cond's predicate then picks its branch, as in JAX's eager grad);
// effects (debug prints) are only recorded.
class JitTrace : public Trace {
 public:
  explicit JitTrace(bool execute = false) : program(std::make_shared<Jaxpr>()), execute_(execute) {}
  ArrayRef process(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                   const Params& params) override;

  // An abstract stand-in for an argument of type `like`, as a program input.
  ArrayRef add_input(const ArrayObject& like);
  // `array` itself as the next program input (check mode follows a body on
  // the caller's arrays); an array passed twice stays its first input.
  void add_argument(const ArrayRef& array);
  // Records the application of `primitive` whose result is `result`.
  void record(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
              const Params& params, const ArrayRef& result);
  // The same; an executing trace knows its value, `value`, when it has data.
  ArrayRef add_input(const ArrayRef& value);
  // The value an executing trace computed for `tracer`, or for the program's
  // `variable`; null when unknown.
  ArrayRef concrete_value(const ArrayObject& tracer) const;
  ArrayRef concrete_value(int variable) const;
  // The variable of `array`: its own, or a new constant.
  int variable_of(const ArrayRef& array);
  // The variable of an array this trace made (an input or a result), or nullopt.
  std::optional<int> traced_variable(const ArrayObject& array) const {
    auto found = variables_.find(&array);
    if (found == variables_.end()) return std::nullopt;
    for (const auto& constant : program->constants)
      if (constant.first == found->second.first) return std::nullopt;
    return found->second.first;
  }

  std::shared_ptr<Jaxpr> program;
  // A trace that grad, vjp or jvp differentiates: custom rules called in it
  // record their regions (custom_derivatives.hpp).
  bool differentiating = false;
  int open_regions = 0;  // custom rules running now
  std::vector<CustomRegion> regions;
  // Differentiating traces: where each equation was applied, as JAX's
  // source_info_util.summarize writes it ("f.py:3:6 (g)"; the file's base name).
  std::vector<std::string> sources;
  // vmap's trace of one example (a write of its values into a Ref made
  // outside is refused, refs.hpp).
  bool batching = false;
  // A jitted function's trace from outside any trace: the Refs made outside
  // it that it reads and writes (refs.hpp); null for other traces.
  std::shared_ptr<RefEffects> ref_effects;

 private:
  std::map<const ArrayObject*, std::pair<int, ArrayRef>> variables_;
  bool execute_ = false;
  std::map<const ArrayObject*, ArrayRef> concrete_;  // tracer -> its value (executing trace)
  std::map<int, ArrayRef> concrete_variables_;       // equation output -> its value
};

// Check mode's trace of a jitted call's body: each application is checked
// as AbstractTrace checks it (diagnostics, best guesses, the profile's
// charges) and recorded into `recorder`'s program, so the one pass that
// checks the body also gives the program its memory plan is made from.
// It is not a jit trace (tracing_jit): the body is followed as check mode
// follows any code.
class CheckingTrace : public Trace {
 public:
  ArrayRef process(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                   const Params& params) override;
  JitTrace recorder;
  bool poisoned = false;  // an application failed (a best guess was recorded)
};

// Check mode, outside any `try`: records `error` (at the current statement)
// unless it follows only from poisoned operands, and returns true: the
// caller continues with a poisoned best-guess result. Otherwise false: the
// caller re-raises.
bool recover_in_check(Evaluator& evaluator, const PyError& error, bool from_poisoned);

// The trace that bind() uses now.
Trace& current_trace(Evaluator& evaluator);
// Whether a JitTrace is on the stack (jit nested in jit inlines).
bool tracing_jit(Evaluator& evaluator);
// Whether check mode is following a jitted body (a CheckingTrace is on the
// stack): its arrays are traced values, as tracing_jit's are in a run.
bool checking_jitted_body(Evaluator& evaluator);
// JAX's summary of the user frame running now (source_info_util.summarize):
// "file.py:12:4 (f)", the call's line and 0-based column (the statement's
// when no call runs) and the function; "unknown" without a source.
std::string source_summary(Evaluator& evaluator);

// Keeps only the first `keep` traces of the stack for the lifetime of the
// scope (work done beneath the traces above, as if they were not running).
class TraceStackCut {
 public:
  TraceStackCut(Evaluator& evaluator, std::size_t keep);
  ~TraceStackCut();
  TraceStackCut(const TraceStackCut&) = delete;
  TraceStackCut& operator=(const TraceStackCut&) = delete;

 private:
  Evaluator& evaluator_;
  std::vector<Trace*> saved_;
};

// Pushes a trace for the lifetime of the scope.
class TraceScope {
 public:
  TraceScope(Evaluator& evaluator, Trace& trace);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  Evaluator& evaluator_;
};

}  // namespace interp
