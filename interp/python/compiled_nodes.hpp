// The nodes of compiled function bodies (compiled.hpp) and what both kinds
// share; a private header of interp/python. compiled.cpp defines the
// expressions (CompiledExpressions) and compiled_statements.cpp the
// statements, bodies and resumed generator bodies (CompiledStatements).
// Each node does what the AST walk does for its kind of node
// (statements.cpp, expressions.cpp), with the same evaluator calls in the
// same order, so that values, errors and the places they are reported at
// stay the same; the walk's code is the reference.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "interp/python/compiled.hpp"
#include "interp/python/evaluator.hpp"

namespace interp {

// The Evaluator's friend, as are the two structs deriving from it: the nodes
// run with the evaluator's parts.
struct Compiled {
  using Flow = Evaluator::Flow;

  struct Expr {
    explicit Expr(const lang::ast::Expr& node) : node(node) {}
    virtual ~Expr() = default;
    virtual Value eval(Evaluator& ev, Frame& frame) const = 0;
    // The value in its slot, for an operation that only reads it (as
    // Evaluator::eval_operand): a bound local's; null for the rest.
    virtual const Value* bound(Frame&) const { return nullptr; }
    // Its value's truth, as `if` and `while` test it.
    virtual bool condition(Evaluator& ev, Frame& frame) const { return ev.truthy(eval(ev, frame)); }
    // Whether nothing but reading a slot or a constant evaluates it: no side
    // effect can come between it and what is evaluated after it.
    bool simple() const { return local_slot >= 0 || constant != nullptr; }
    const lang::ast::Expr& node;
    // Set for a local's read (its slot) and a literal (its value), which
    // operand() then reads without a virtual call.
    std::int64_t local_slot = -1;
    const Value* constant = nullptr;
    // Set for an attribute read (AttributeRead::peek_own), which found_in_place
    // then reads where the value is when the site's cache finds it at once.
    const Value* (*peek)(const Expr&, Frame&) = nullptr;
  };
  // The value of `expr` where it is only read: in its slot, or evaluated into `held`.
  static const Value& operand(const Expr& expr, Evaluator& ev, Frame& frame, Value& held) {
    if (expr.constant != nullptr) return *expr.constant;
    if (expr.local_slot >= 0)
      if (const auto& value = frame.fast[static_cast<std::size_t>(expr.local_slot)]) return *value;
    held = expr.eval(ev, frame);
    return held;
  }
  // The value of `first` where `then` is evaluated after it and then both
  // used: read in place only when evaluating `then` cannot rebind it (as
  // `x[(x := y)]` would).
  static const Value& operand_before(const Expr& first, const Expr& then, Evaluator& ev, Frame& frame, Value& held) {
    return then.simple() ? operand(first, ev, frame, held) : (held = first.eval(ev, frame));
  }
  // The value of a constant or a bound local, where it is: null for any
  // other expression (or an unbound local).
  static const Value* in_place(const Expr& expr, Frame& frame) {
    if (expr.constant != nullptr) return expr.constant;
    if (expr.local_slot < 0) return nullptr;
    const auto& value = frame.fast[static_cast<std::size_t>(expr.local_slot)];
    return value ? &*value : nullptr;
  }
  // in_place's value, or an instance's own attribute that its site's cache
  // finds at once (AttributeRead::peek_own), where it is: null for any other
  // expression (or an attribute found another way). Finding one runs no
  // code: what it points at stays while another operand is found the same way.
  static const Value* found_in_place(const Expr& expr, Frame& frame) {
    if (expr.peek != nullptr) return expr.peek(expr, frame);
    return in_place(expr, frame);
  }
  using ExprPtr = std::unique_ptr<Expr>;

  struct Stmt {
    explicit Stmt(const lang::ast::Stmt& node, bool walked = false) : node(node), walked(walked) {}
    virtual ~Stmt() = default;
    // The statement's own work; BodyRun does what Evaluator::exec does around it.
    virtual Flow exec(Evaluator& ev, Frame& frame) const = 0;
    // exec in a generator body run on its caller's stack, which pauses at a
    // yield statement inside (`paused`'s levels from `level` on). Only the
    // statements with such yields inside differ.
    virtual Flow resume(Evaluator& ev, Frame& frame, PausedBody&, std::size_t) const { return exec(ev, frame); }
    // A statement with a yield inside, going on from where a yield paused
    // (compiled_statements.cpp's go_on_from_yield): what it does once the
    // body that held the yield, at the level below its own, ended with `flow`.
    virtual Flow after_body(Evaluator&, Frame&, PausedBody&, std::size_t, Flow flow) const { return flow; }
    const lang::ast::Stmt& node;
    bool walked;             // a statement the compiler does not know: Evaluator::exec runs it whole
    std::size_t yields = 0;  // the yield statements in it, itself included
    std::size_t depth = 0;   // the levels of PausedBody that resume uses below its own
  };
  using StmtPtr = std::unique_ptr<Stmt>;
  using Body = std::vector<StmtPtr>;

  // As eval_expression and exec do: an error is located at the innermost
  // expression or statement it passes that has not located it yet.
  static void locate(PyError& error, const lang::Span& span) {
    ExceptionObject& exception = *error.exception;
    if (!exception.frame_span_set) {
      exception.frame_span = span;
      exception.frame_span_set = true;
    }
  }


  // An expression's node (compiled.cpp); a subscript's key's, where a tuple is made as the walk makes it.
  static ExprPtr compile(const lang::ast::Expr& expr);
  static ExprPtr compile_key(const lang::ast::Expr& slice);
};

}  // namespace interp
