// Generators: calling a function whose body yields makes a Generator, whose
// body then runs on a stack of its own (a Coroutine, lang/coroutine.hpp),
// suspended at each `yield` and resumed by next(), send(),
// throw() and close(), with Python's StopIteration and GeneratorExit rules.
// A body that yields only in statements of their own (compiled.hpp's
// resumable) runs on its resumer's stack instead, its place kept as data
// (a PausedBody): no switch of stacks, which costs more than the body.
#pragma once

#include <exception>
#include <memory>
#include <optional>

#include "lang/coroutine.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/python/paused_body.hpp"

namespace interp {

class Generator : public Iterator {
 public:
  Generator(std::shared_ptr<FunctionObject> function, Frame frame, Evaluator& evaluator);
  ~Generator() override;
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  const TypeRef& type() const override { return types::generator(); }
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  // resume() with nothing sent or thrown.
  std::optional<Value> next(Evaluator& evaluator) override;

  // Runs the body until its next yield (its value) or its end (nullopt; the
  // return value is then return_value()). `thrown` is raised at the yield.
  std::optional<Value> resume(Evaluator& evaluator, const Value& sent, std::shared_ptr<ExceptionObject> thrown);
  // Called by the body at a yield: hands `value` to the resumer and waits;
  // returns what send() passed, or raises what throw() passed.
  Value suspend(Value value);
  // generator.close(): GeneratorExit at the paused yield.
  void close(Evaluator& evaluator);
  const Value& return_value() const { return return_value_; }
  // The frame of whoever resumed the body last: current again while it pauses.
  Frame* resumer_frame = nullptr;

 private:
  enum class State { created, suspended, running, finished };
  static void entry(void* generator);
  void switch_in(Evaluator& evaluator);
  void run_in_place(Evaluator& evaluator);
  // resume()'s part once what is sent or thrown is set: the body run to its
  // next yield (its value) or its end (nullopt), or its error raised.
  std::optional<Value> run_body(Evaluator& evaluator);

  std::shared_ptr<FunctionObject> function_;
  Frame frame_;
  Evaluator* evaluator_;
  State state_ = State::created;
  lang::Coroutine coroutine_;
  char* stack_ = nullptr;
  // The stack the body switches back to, for AddressSanitizer's fiber
  // annotations (generators.cpp); unused in other builds.
  const void* caller_stack_bottom_ = nullptr;
  std::size_t caller_stack_size_ = 0;
  Value transfer_;  // the sent value in; the yielded value out of a body on its own stack (else in paused_body_)
  std::shared_ptr<ExceptionObject> thrown_;     // raised in the body when it resumes
  std::optional<PyError> error_;                // the body's uncaught exception
  std::exception_ptr foreign_error_;            // any other C++ exception leaving the body
  bool abandoned_ = false;                      // being destroyed while paused: unwind, run nothing
  Value return_value_;
  std::unique_ptr<PausedBody> paused_body_;  // a body run on its resumer's stack: where it paused
};

}  // namespace interp
