// A def's body compiled once, when its module's names are resolved, into a
// tree of small nodes that each know what they are: a local read is a slot
// read, a call of a plain function binds its arguments straight into the
// new frame, and no node asks the AST walk's per-node questions (which kind
// of node, is there an observer, is the stack deep) again and again. What
// the compiler does not know (most expressions; try, with, class bodies...)
// it leaves to the AST walk, node by node, so both always agree.
#pragma once

#include <memory>

#include "lang/ast.hpp"

namespace interp {

class Evaluator;
class FunctionObject;
struct Frame;
struct PausedBody;

class CompiledBody {
 public:
  // `yields`: the yield expressions of the body's own (a generator's), 0 for the rest.
  CompiledBody(const lang::ast::Body& body, std::size_t yields);
  ~CompiledBody();
  CompiledBody(const CompiledBody&) = delete;
  CompiledBody& operator=(const CompiledBody&) = delete;

  // Runs the body in its function's bound frame, as Evaluator::exec_body
  // would; a return leaves its value in frame.return_value.
  void run(Evaluator& evaluator, Frame& frame) const;
  // Whether the body is a generator's that yields only in statements of
  // their own (`yield x`), inside ifs and loops the compiler knows: it can
  // then pause and go on without a stack of its own (resume_generator_body).
  bool resumable() const { return resumable_; }
  // The levels of a PausedBody that a resumable body uses.
  std::size_t paused_levels() const { return paused_levels_; }

 private:
  friend bool resume_generator_body(Evaluator&, const FunctionObject&, Frame&, PausedBody&);
  struct Statements;
  std::unique_ptr<Statements> statements_;
  bool resumable_;
  std::size_t paused_levels_;
};

// Runs the body of a def (a plain function's or a generator's) in its bound
// frame: compiled, except where the AST walk's hooks are needed (check mode,
// an observer).
void run_function_body(Evaluator& evaluator, const FunctionObject& function, Frame& frame);

// The frame a comprehension (or generator expression) runs in, its own
// scope's, made where it is evaluated: in `enclosing` (comprehensions.cpp).
Frame comprehension_frame(Evaluator& evaluator, const lang::ast::Expr& comprehension, const Frame& enclosing);

// Whether the body of `function`, a generator, runs on its resumer's stack
// (resume_generator_body) rather than on one of its own (generators.hpp).
bool runs_on_callers_stack(const Evaluator& evaluator, const FunctionObject& function);
// Runs a resumable generator body from where `paused` says it stopped: true
// when it pauses at a yield again (its value in paused.yielded), false at
// its end (a return's value in frame.return_value).
bool resume_generator_body(Evaluator& evaluator, const FunctionObject& function, Frame& frame, PausedBody& paused);

}  // namespace interp
