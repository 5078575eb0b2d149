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

class CompiledBody {
 public:
  explicit CompiledBody(const lang::ast::Body& body);
  ~CompiledBody();
  CompiledBody(const CompiledBody&) = delete;
  CompiledBody& operator=(const CompiledBody&) = delete;

  // Runs the body in its function's bound frame, as Evaluator::exec_body
  // would; a return leaves its value in frame.return_value.
  void run(Evaluator& evaluator, Frame& frame) const;

 private:
  struct Statements;
  std::unique_ptr<Statements> statements_;
};

// Runs the body of a def (a plain function's or a generator's) in its bound
// frame: compiled, except where the AST walk's hooks are needed (check mode,
// an observer).
void run_function_body(Evaluator& evaluator, const FunctionObject& function, Frame& frame);

}  // namespace interp
