// The traces (trace.hpp).
#include "interp/transforms/trace.hpp"

#include <algorithm>
#include <utility>

#include "interp/ops/batching.hpp"
#include "interp/ops/device_memory.hpp"
#include "interp/transforms/check_mode.hpp"
#include "interp/transforms/costing.hpp"

namespace interp {

namespace {

// The implementation, with shardlang's notes added to its error and the
// origin of the result's sharding remembered (check_mode.hpp).
ArrayRef apply(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
               const Params& params, bool execute) {
  ArrayRef result;
  runtime_of(evaluator).traced_decision = {};
  try {
    result = primitive.implementation(evaluator, primitive, operands, params, execute);
  } catch (PyError& error) {
    enrich_operation_error(evaluator, primitive, operands, params, *error.exception);
    throw;
  }
  track_sharding_origin(evaluator, primitive, operands, params, result);
  return result;
}

}  // namespace

ArrayRef EagerTrace::process(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                             const Params& params) {
  ArrayRef result;
  try {
    result = apply(evaluator, primitive, operands, params, true);
  } catch (PyError& error) {
    // The host ran out computing it: a TPU without room for the result
    // fails first (and check mode gives the same error).
    if (!error.exception->type()->is_subclass_of(*exc::MemoryError())) throw;
    ArrayRef typed = primitive.implementation(evaluator, primitive, operands, params, false);
    charge_device_memory(evaluator, *typed);
    throw;
  }
  charge_application(evaluator, primitive, operands, result, params, true);
  return result;
}

bool recover_in_check(Evaluator& evaluator, const PyError& error, bool from_poisoned) {
  if (evaluator.mode != Evaluator::Mode::check || evaluator.try_depth > 0) return false;
  if (!from_poisoned) {
    error.exception->reset_traceback();
    error.exception->frame_span = evaluator.statement_span;
    error.exception->frame_span_set = true;
    evaluator.recorded_errors.push_back(error.exception);
  }
  return true;
}

namespace {

// The operand with every dimension replicated: the best guess after a
// sharding conflict.
ArrayRef replicated(const ArrayRef& operand) {
  typecheck::ArrayType type = operand->aval;
  type.sharding = typecheck::Sharding::replicated(type.sharding.mesh, type.ndim());
  Layout layout{operand->layout.mesh, std::vector<typecheck::SpecEntry>(type.ndim())};
  return make_abstract_array(type, layout, operand->committed);
}

}  // namespace

ArrayRef AbstractTrace::process(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                const Params& params) {
  bool from_poisoned = std::any_of(operands.begin(), operands.end(), [](const ArrayRef& a) { return a->poisoned; });
  ArrayRef result;
  try {
    result = apply(evaluator, primitive, operands, params, false);
  } catch (PyError& error) {
    if (!recover_in_check(evaluator, error, from_poisoned)) throw;
    // Best guess: the rule's output on replicated operands (keeping an
    // out_sharding), else on replicated operands alone, else the first operand.
    std::vector<ArrayRef> plain;
    for (const auto& operand : operands) plain.push_back(replicated(operand));
    Params without_sharding;
    for (const auto& entry : params.entries)
      if (entry.first != "out_sharding") without_sharding.entries.push_back(entry);
    for (const Params* attempt : {&params, static_cast<const Params*>(&without_sharding)}) {
      try {
        result = primitive.implementation(evaluator, primitive, plain, *attempt, false);
        break;
      } catch (PyError&) {
        continue;
      }
    }
    if (!result) result = replicated(operands.at(0));
    from_poisoned = true;
  }
  if (from_poisoned) result->poisoned = true;
  charge_if_held(evaluator, *result);
  // check --profile: the program's estimated time, as if it ran eagerly.
  if (evaluator.mode == Evaluator::Mode::check) charge_application(evaluator, primitive, operands, result, params, true);
  return result;
}

ArrayRef JitTrace::add_input(const ArrayObject& like) {
  ArrayRef tracer = make_abstract_array(like.aval, like.layout, like.committed);
  int number = program->add_variable(tracer->aval, tracer->layout, tracer->committed);
  program->inputs.push_back(number);
  variables_[tracer.get()] = {number, tracer};
  return tracer;
}

void JitTrace::add_argument(const ArrayRef& array) {
  int number = program->add_variable(array->aval, array->layout, array->committed);
  program->inputs.push_back(number);
  variables_.emplace(array.get(), std::pair{number, array});
}

ArrayRef JitTrace::add_input(const ArrayRef& value) {
  ArrayRef tracer = add_input(*value);
  if (execute_ && !value->abstract()) concrete_[tracer.get()] = value;
  return tracer;
}

ArrayRef JitTrace::concrete_value(const ArrayObject& tracer) const {
  auto found = concrete_.find(&tracer);
  return found != concrete_.end() ? found->second : nullptr;
}

ArrayRef JitTrace::concrete_value(int variable) const {
  auto found = concrete_variables_.find(variable);
  return found != concrete_variables_.end() ? found->second : nullptr;
}

int JitTrace::variable_of(const ArrayRef& array) {
  auto found = variables_.find(array.get());
  if (found != variables_.end()) return found->second.first;
  int number = program->add_variable(array->aval, array->layout, array->committed);
  program->constants.emplace_back(number, array);
  variables_[array.get()] = {number, array};
  return number;
}

std::string source_summary(Evaluator& evaluator) {
  lang::Span span = evaluator.running_call.expression ? evaluator.running_call.expression->span : evaluator.statement_span;
  if (span.empty()) return "unknown";
  lang::Position position = span.file->position(span.begin);
  std::string file = span.file->name();
  if (auto slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
  std::string function = "<module>";
  if (Frame* frame = evaluator.current_frame(); frame && frame->function) {
    function = frame->function->signature.name;
    if (auto dot = function.rfind('.'); dot != std::string::npos) function = function.substr(dot + 1);
  }
  std::string where = file + ":" + std::to_string(position.line);
  if (position.column > 1) where += ":" + std::to_string(position.column - 1);
  return where + " (" + function + ")";
}

ArrayRef JitTrace::process(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                           const Params& params) {
  ArrayRef result = apply(evaluator, primitive, operands, params, false);
  // (Not a collective over a vmap axis: it has a value only once batched.)
  if (execute_ && evaluator.mode == Evaluator::Mode::run && !primitive.effect &&
      !batching::over_vmap_axis(params)) {
    // The value's application makes decisions of its own: keep the traced one.
    TracedDecision decision = std::exchange(runtime_of(evaluator).traced_decision, {});
    // The value too, when every operand's is known (a constant is its own).
    std::vector<ArrayRef> values;
    for (const auto& operand : operands) {
      ArrayRef value = operand->abstract() ? concrete_value(*operand) : operand;
      if (!value) break;
      values.push_back(std::move(value));
    }
    if (values.size() == operands.size()) concrete_[result.get()] = apply(evaluator, primitive, values, params, true);
    runtime_of(evaluator).traced_decision = std::move(decision);
  }
  record(evaluator, primitive, operands, params, result);
  return result;
}

namespace {

// The places of an equation recorded now: in the loops running, then (for a
// replayed equation) in the loops it was first recorded in that are not
// (nor run backward now: a backward pass records into the transposed loop).
std::vector<LoopPlace> current_loop_places(const Runtime& runtime) {
  std::vector<LoopPlace> places;
  for (const auto& loop : runtime.loops)
    places.push_back({loop.instance, loop.iteration, runtime.equations_recorded - loop.iteration_start});
  if (!runtime.replayed_loop_places) return places;
  for (const LoopPlace& replayed : *runtime.replayed_loop_places) {
    auto running = [&](const Runtime::LoopFrame& loop) {
      return loop.instance == replayed.instance || loop.transposes == replayed.instance;
    };
    if (std::none_of(runtime.loops.begin(), runtime.loops.end(), running)) places.push_back(replayed);
  }
  return places;
}

}  // namespace

void JitTrace::record(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                      const Params& params, const ArrayRef& result) {
  Runtime& runtime = runtime_of(evaluator);
  Equation equation{&primitive, {}, params, program->add_variable(result->aval, result->layout, result->committed),
                    runtime.context_mesh, runtime.replayed_span.empty() ? current_span(evaluator) : runtime.replayed_span,
                    take_traced_decision(evaluator, primitive, operands, params, *result)};
  for (const auto& name : runtime.name_stack) equation.scope += (equation.scope.empty() ? "" : "/") + name;
  if (auto value = concrete_value(*result)) concrete_variables_[equation.output] = value;
  for (const auto& operand : operands) equation.inputs.push_back(variable_of(operand));
  equation.loop_places = current_loop_places(runtime);
  ++runtime.equations_recorded;
  variables_[result.get()] = {equation.output, result};
  program->equations.push_back(std::move(equation));
  if (differentiating) sources.push_back(source_summary(evaluator));
}

ArrayRef CheckingTrace::process(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                const Params& params) {
  static AbstractTrace abstract;
  ArrayRef result = abstract.process(evaluator, primitive, operands, params);
  poisoned = poisoned || result->poisoned;
  recorder.record(evaluator, primitive, operands, params, result);
  return result;
}

Trace& current_trace(Evaluator& evaluator) {
  auto& stack = runtime_of(evaluator).trace_stack;
  if (!stack.empty()) return *stack.back();
  static EagerTrace eager;
  static AbstractTrace abstract;
  if (evaluator.mode == Evaluator::Mode::check) return abstract;
  return eager;
}

bool tracing_jit(Evaluator& evaluator) {
  for (Trace* trace : runtime_of(evaluator).trace_stack)
    if (dynamic_cast<JitTrace*>(trace)) return true;
  return false;
}

bool checking_jitted_body(Evaluator& evaluator) {
  for (Trace* trace : runtime_of(evaluator).trace_stack)
    if (dynamic_cast<CheckingTrace*>(trace)) return true;
  return false;
}

TraceScope::TraceScope(Evaluator& evaluator, Trace& trace) : evaluator_(evaluator) {
  runtime_of(evaluator).trace_stack.push_back(&trace);
}

TraceScope::~TraceScope() { runtime_of(evaluator_).trace_stack.pop_back(); }

TraceStackCut::TraceStackCut(Evaluator& evaluator, std::size_t keep)
    : evaluator_(evaluator), saved_(runtime_of(evaluator).trace_stack) {
  auto& stack = runtime_of(evaluator).trace_stack;
  stack.resize(std::min(keep, stack.size()));
}

TraceStackCut::~TraceStackCut() { runtime_of(evaluator_).trace_stack = saved_; }

}  // namespace interp
