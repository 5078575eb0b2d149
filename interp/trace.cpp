// The traces (trace.hpp).
#include "interp/trace.hpp"

namespace interp {

ArrayRef EagerTrace::process(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                             const Params& params) {
  return primitive.implementation(evaluator, primitive, operands, params, true);
}

ArrayRef AbstractTrace::process(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                const Params& params) {
  return primitive.implementation(evaluator, primitive, operands, params, false);
}

ArrayRef JitTrace::add_input(const ArrayObject& like) {
  ArrayRef tracer = make_abstract_array(like.aval, like.layout, like.committed);
  int number = program->add_variable(tracer->aval);
  program->inputs.push_back(number);
  variables_[tracer.get()] = {number, tracer};
  return tracer;
}

int JitTrace::variable_of(const ArrayRef& array) {
  auto found = variables_.find(array.get());
  if (found != variables_.end()) return found->second.first;
  int number = program->add_variable(array->aval);
  program->constants.emplace_back(number, array);
  variables_[array.get()] = {number, array};
  return number;
}

ArrayRef JitTrace::process(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                           const Params& params) {
  ArrayRef result = primitive.implementation(evaluator, primitive, operands, params, false);
  Equation equation{&primitive, {}, params, program->add_variable(result->aval)};
  for (const auto& operand : operands) equation.inputs.push_back(variable_of(operand));
  variables_[result.get()] = {equation.output, result};
  program->equations.push_back(std::move(equation));
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

TraceScope::TraceScope(Evaluator& evaluator, Trace& trace) : evaluator_(evaluator) {
  runtime_of(evaluator).trace_stack.push_back(&trace);
}

TraceScope::~TraceScope() { runtime_of(evaluator_).trace_stack.pop_back(); }

}  // namespace interp
