// Compiled function bodies' statements (compiled_nodes.hpp), the runs of
// their bodies, and a resumable generator's body resumed on its caller's
// stack (compiled.hpp).

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "interp/python/classes.hpp"
#include "interp/python/compiled_nodes.hpp"
#include "interp/python/fast_arithmetic.hpp"
#include "interp/python/loop_items.hpp"
#include "interp/python/paused_body.hpp"

namespace interp {

namespace ast = lang::ast;

struct CompiledStatements : Compiled {
  // What Evaluator::exec does around each statement, for the statements of
  // one body: the running statement set to each in turn and the body's
  // enclosing one restored once, when the body ends (nothing reads it between
  // two statements but a poll); an interrupt or budget polled, as exec polls
  // it, with the enclosing statement running (a timeout in a loop is
  // reported at its header line); an error located at its statement.
  class BodyRun {
   public:
    explicit BodyRun(Evaluator& ev) : ev_(ev), span_(ev.statement_span), statement_(ev.statement) {}
    ~BodyRun() { enclosing(); }
    BodyRun(const BodyRun&) = delete;
    BodyRun& operator=(const BodyRun&) = delete;
    template <class Work>
    Flow run(const Stmt& stmt, Work&& work) {
      if (ev_.step_counted()) {
        enclosing();
        ev_.count_step();
      }
      ev_.statement_span = stmt.node.span;
      ev_.statement = &stmt.node;
      try {
        return work();
      } catch (PyError& error) {
        locate(error, stmt.node.span);
        throw;
      }
    }
    Flow run(const Stmt& stmt, Frame& frame) {
      if (stmt.walked) {
        enclosing();  // Evaluator::exec does it all, from the enclosing statement
        return ev_.exec(stmt.node, frame);
      }
      return run(stmt, [&] { return stmt.exec(ev_, frame); });
    }

   private:
    void enclosing() {
      ev_.statement_span = span_;
      ev_.statement = statement_;
    }
    Evaluator& ev_;
    lang::Span span_;
    const ast::Stmt* statement_;
  };
  static Flow run_body(Evaluator& ev, const Body& body, Frame& frame) {
    return body.empty() ? Flow::normal : run_statements(ev, body, frame);  // an absent `else`: nothing to do
  }
  static Flow run_statements(Evaluator& ev, const Body& body, Frame& frame) {
    BodyRun run(ev);
    for (const auto& stmt : body) {
      Flow flow = run.run(*stmt, frame);
      if (flow != Flow::normal) return flow;
    }
    return Flow::normal;
  }
  // run_body in a generator body run on its caller's stack, its statements
  // at `level` of `paused`. A yield inside pauses the run: it returns
  // Flow::return_ with paused.paused set.
  static Flow resume_body(Evaluator& ev, const Body& body, Frame& frame, PausedBody& paused, std::size_t level) {
    return resume_statements(ev, body, frame, paused, level, 0);
  }
  // resume_body's statements from the `start`th on (none: an absent `else`,
  // or a resume after the body's last statement).
  static Flow resume_statements(Evaluator& ev, const Body& body, Frame& frame, PausedBody& paused, std::size_t level,
                                std::size_t start) {
    if (start == body.size()) return Flow::normal;
    PausedBody::Level& here = paused.levels[level];
    here.body = &body;
    BodyRun run(ev);
    for (std::size_t i = start; i < body.size(); ++i) {
      const Stmt& stmt = *body[i];
      Flow flow;
      if (stmt.yields != 0) {
        here.index = static_cast<std::uint32_t>(i);
        flow = run.run(stmt, [&] { return stmt.resume(ev, frame, paused, level); });
      } else {
        flow = run.run(stmt, frame);
      }
      if (flow != Flow::normal) return flow;
    }
    return Flow::normal;
  }
  static std::size_t yields_in(const Body& body) {
    std::size_t count = 0;
    for (const auto& stmt : body) count += stmt->yields;
    return count;
  }
  // The levels of PausedBody a resumed body uses: its own and its statements'.
  static std::size_t levels_of(const Body& body) {
    std::size_t deepest = 0;
    for (const auto& stmt : body)
      if (stmt->yields != 0) deepest = std::max(deepest, stmt->depth);
    return 1 + deepest;
  }
  // Sets a compound statement's yields and depth from its bodies'.
  static void count_yields(Stmt& stmt, const Body& body, const Body& orelse) {
    stmt.yields = yields_in(body) + yields_in(orelse);
    stmt.depth = std::max(levels_of(body), levels_of(orelse));
  }

  struct WalkedStatement : Stmt {
    explicit WalkedStatement(const ast::Stmt& node) : Stmt(node, true) {}
    Flow exec(Evaluator& ev, Frame& frame) const override { return ev.exec(node, frame); }
  };
  struct ExprStmt : Stmt {
    ExprStmt(const ast::Stmt& node, ExprPtr value) : Stmt(node), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      value->eval(ev, frame);  // a function's expression statements are not echoed
      return Flow::normal;
    }
    ExprPtr value;
  };
  // `yield value` as a statement. Walked, where the body runs on a stack of
  // its own; resumed, it pauses the run with the value, and going on from
  // it raises what throw() passed (what send() passed is dropped).
  struct YieldStmt : Stmt {
    YieldStmt(const ast::Stmt& node, const ast::Expr& expression, ExprPtr value)
        : Stmt(node), expression(expression), value(std::move(value)) {
      yields = 1;
    }
    Flow exec(Evaluator& ev, Frame& frame) const override {
      ev.eval(expression, frame);
      return Flow::normal;
    }
    Flow resume(Evaluator& ev, Frame& frame, PausedBody& paused, std::size_t level) const override {
      paused.yielded = value ? value->eval(ev, frame) : Value::none();
      paused.paused = true;
      paused.yield_level = level;
      return Flow::return_;
    }
    // Resumed here (go_on_from_yield): the yield expression is done.
    void go_on(PausedBody& paused) const {
      if (paused.thrown) {
        PyError error{std::exchange(paused.thrown, nullptr)};
        locate(error, expression.span);
        throw error;
      }
    }
    const ast::Expr& expression;
    ExprPtr value;
  };
  struct AssignLocal : Stmt {
    AssignLocal(const ast::Stmt& node, std::uint32_t slot, ExprPtr value) : Stmt(node), slot(slot), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      frame.fast[slot] = value->eval(ev, frame);
      return Flow::normal;
    }
    std::uint32_t slot;
    ExprPtr value;
  };
  struct AugmentLocal : Stmt {
    AugmentLocal(const ast::Stmt& node, const ast::Name& name, ast::BinaryOperator op, ExprPtr value)
        : Stmt(node), name(name), op(op), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      auto& slot = frame.fast[name.resolved_index];
      if (!slot) ev.load_name(name, frame);  // raises UnboundLocalError
      Value held;
      const Value& right = operand(*value, ev, frame, held);
      // Plain numbers have no in-place hooks: x += y is x + y for them.
      Value result;
      if (quick_binary(op, *slot, right, result)) *slot = std::move(result);
      else *slot = ev.inplace(op, *slot, right);
      return Flow::normal;
    }
    const ast::Name& name;
    ast::BinaryOperator op;
    ExprPtr value;
  };
  // obj.name = value, obj[key] = value: the value first, then the target's parts.
  struct AssignAttribute : Stmt {
    AssignAttribute(const ast::Stmt& node, const ast::Attribute& attribute, ExprPtr object, ExprPtr value)
        : Stmt(node), attribute(attribute), object(std::move(object)), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      Value held_value, held;
      const Value& stored = operand_before(*value, *object, ev, frame, held_value);
      const Value& target = operand(*object, ev, frame, held);
      if (InstanceObject* instance = target.is_object() ? target.object()->as_instance() : nullptr)
        if (site_store_attribute(&site, *instance, attribute.attr, stored)) return Flow::normal;
      ev.set_attribute(target, attribute.attr, stored);
      return Flow::normal;
    }
    const ast::Attribute& attribute;
    ExprPtr object, value;
    mutable AttributeSiteCache site{&attribute};
  };
  struct AssignItem : Stmt {
    AssignItem(const ast::Stmt& node, ExprPtr object, ExprPtr key, ExprPtr value)
        : Stmt(node), object(std::move(object)), key(std::move(key)), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      Value stored = value->eval(ev, frame);
      Value held, held_key;
      const Value& container = operand_before(*object, *key, ev, frame, held);
      ev.set_item(container, operand(*key, ev, frame, held_key), stored);
      return Flow::normal;
    }
    ExprPtr object, key, value;
  };
  // obj.name += value, as the walk's AugAssign: an instance's own attribute
  // through the site's entry, else Python's lookup; the operand; the store.
  struct AugmentAttribute : Stmt {
    AugmentAttribute(const ast::Stmt& node, const ast::Attribute& attribute, ast::BinaryOperator op, ExprPtr object,
                     ExprPtr value)
        : Stmt(node), attribute(attribute), op(op), object(std::move(object)), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      Value held;
      const Value& target = operand_before(*object, *value, ev, frame, held);
      InstanceObject* instance = target.is_object() ? target.object()->as_instance() : nullptr;
      const Value* own = instance ? site_own_attribute(&site, *instance, attribute.attr) : nullptr;
      Value current = own ? *own : ev.get_attribute(target, attribute.attr);
      Value operand = value->eval(ev, frame);
      Value result;
      if (!quick_binary(op, current, operand, result)) result = ev.inplace(op, current, operand);
      if (instance == nullptr || !site_store_attribute(&site, *instance, attribute.attr, result))
        ev.set_attribute(target, attribute.attr, result);
      return Flow::normal;
    }
    const ast::Attribute& attribute;
    ast::BinaryOperator op;
    ExprPtr object, value;
    mutable AttributeSiteCache site{&attribute};
  };
  struct AugmentItem : Stmt {
    AugmentItem(const ast::Stmt& node, ast::BinaryOperator op, ExprPtr object, ExprPtr key, ExprPtr value)
        : Stmt(node), op(op), object(std::move(object)), key(std::move(key)), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      Value container = object->eval(ev, frame);
      Value index = key->eval(ev, frame);
      Value current = ev.get_item(container, index);
      Value operand = value->eval(ev, frame);
      ev.set_item(container, index, ev.inplace(op, current, operand));
      return Flow::normal;
    }
    ast::BinaryOperator op;
    ExprPtr object, key, value;
  };
  struct Return : Stmt {
    Return(const ast::Stmt& node, ExprPtr value) : Stmt(node), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      frame.return_value = value ? value->eval(ev, frame) : Value::none();
      return Flow::return_;
    }
    ExprPtr value;
  };
  struct If : Stmt {
    If(const ast::Stmt& node, ExprPtr test, Body body, Body orelse)
        : Stmt(node), test(std::move(test)), body(std::move(body)), orelse(std::move(orelse)) {
      count_yields(*this, this->body, this->orelse);
    }
    Flow exec(Evaluator& ev, Frame& frame) const override {
      return run_body(ev, test->condition(ev, frame) ? body : orelse, frame);
    }
    Flow resume(Evaluator& ev, Frame& frame, PausedBody& paused, std::size_t level) const override {
      return resume_body(ev, test->condition(ev, frame) ? body : orelse, frame, paused, level + 1);
    }
    ExprPtr test;
    Body body, orelse;
  };
  // What a while or for loop (`Loop`, its go_on_looping) does once the body
  // that held a paused yield ended: its next run, or, where its else ended,
  // nothing more.
  template <class Loop>
  struct ResumableLoop : Stmt {
    using Stmt::Stmt;
    Flow after_body(Evaluator& ev, Frame& frame, PausedBody& paused, std::size_t level, Flow flow) const override {
      if (paused.levels[level].orelse) return flow;  // the loop is over
      return static_cast<const Loop&>(*this).go_on_looping(ev, frame, paused, level, flow);
    }
  };
  struct While : ResumableLoop<While> {
    While(const ast::Stmt& node, ExprPtr test, Body body, Body orelse)
        : ResumableLoop(node), test(std::move(test)), body(std::move(body)), orelse(std::move(orelse)) {
      count_yields(*this, this->body, this->orelse);
    }
    Flow exec(Evaluator& ev, Frame& frame) const override {
      while (true) {
        ev.poll_interrupt();
        if (!test->condition(ev, frame)) return run_body(ev, orelse, frame);
        Flow flow = run_body(ev, body, frame);
        if (flow == Flow::break_) return Flow::normal;
        if (flow == Flow::return_) return flow;
      }
    }
    Flow resume(Evaluator& ev, Frame& frame, PausedBody& paused, std::size_t level) const override {
      return go_on_looping(ev, frame, paused, level, Flow::normal);
    }
    // The loop, from where its body's last run ended with `flow`.
    Flow go_on_looping(Evaluator& ev, Frame& frame, PausedBody& paused, std::size_t level, Flow flow) const {
      PausedBody::Level& here = paused.levels[level];
      while (true) {
        if (flow == Flow::break_) return Flow::normal;
        if (flow == Flow::return_) return flow;
        ev.poll_interrupt();
        here.orelse = !test->condition(ev, frame);
        if (here.orelse) return resume_body(ev, orelse, frame, paused, level + 1);
        flow = resume_body(ev, body, frame, paused, level + 1);
      }
    }
    ExprPtr test;
    Body body, orelse;
  };
  // `for x in ...` with a local x.
  struct ForLocal : ResumableLoop<ForLocal> {
    ForLocal(const ast::Stmt& node, std::uint32_t slot, ExprPtr iterable, Body body, Body orelse)
        : ResumableLoop(node), slot(slot), iterable(std::move(iterable)), body(std::move(body)), orelse(std::move(orelse)) {
      count_yields(*this, this->body, this->orelse);
    }
    Flow exec(Evaluator& ev, Frame& frame) const override {
      Value values = iterable->eval(ev, frame);
      LoopItems items(ev, values);
      while (true) {
        ev.poll_interrupt();
        std::optional<Value> item = items.next();
        if (!item) return run_body(ev, orelse, frame);
        frame.fast[slot] = std::move(*item);
        Flow flow = run_body(ev, body, frame);
        if (flow == Flow::break_) return Flow::normal;
        if (flow == Flow::return_) return flow;
      }
    }
    // The loop's items are kept in its level, to go on with when resumed.
    Flow resume(Evaluator& ev, Frame& frame, PausedBody& paused, std::size_t level) const override {
      PausedBody::Level& here = paused.levels[level];
      here.iterable = iterable->eval(ev, frame);
      here.items.emplace(ev, here.iterable);
      return go_on_looping(ev, frame, paused, level, Flow::normal);
    }
    // The loop, from where its body's last run ended with `flow`.
    Flow go_on_looping(Evaluator& ev, Frame& frame, PausedBody& paused, std::size_t level, Flow flow) const {
      PausedBody::Level& here = paused.levels[level];
      while (true) {
        if (flow == Flow::return_ && paused.paused) return flow;
        if (flow == Flow::break_ || flow == Flow::return_) {
          finish(here);
          return flow == Flow::break_ ? Flow::normal : flow;
        }
        ev.poll_interrupt();
        std::optional<Value> item = here.items->next();
        here.orelse = !item;
        if (here.orelse) {
          finish(here);
          return resume_body(ev, orelse, frame, paused, level + 1);
        }
        frame.fast[slot] = std::move(*item);
        flow = resume_body(ev, body, frame, paused, level + 1);
      }
    }
    // The loop is done with its items: they and the iterable go.
    static void finish(PausedBody::Level& level) {
      level.items.reset();
      level.iterable = Value();
    }
    std::uint32_t slot;
    ExprPtr iterable;
    Body body, orelse;
  };

  static void exec_body(Evaluator& ev, const ast::Body& body, Frame& frame) { ev.exec_body(body, frame); }

  // Goes on from the yield that paused, bottom-up: the rest of the yield's
  // body, then the statement around that body (after_body: a loop's next
  // run) and the rest of its own body, and so on out to the function's
  // body, until a yield pauses the run again or the body ends. Where the
  // pause is in the innermost loop, as it mostly is, the resume runs that
  // loop alone, not every statement around it again down to it.
  static void go_on_from_yield(Evaluator& ev, Frame& frame, PausedBody& paused) {
    const ast::Stmt* resumer = ev.statement;
    const lang::Span resumer_span = ev.statement_span;
    // Each body's statements run with the statement around it as the
    // enclosing one, as the descent to them had it.
    auto enter = [&](std::size_t level) {
      if (level == 0) {
        ev.statement = resumer;
        ev.statement_span = resumer_span;
      } else {
        const ast::Stmt& around = running_statement(paused.levels[level - 1]).node;
        ev.statement = &around;
        ev.statement_span = around.span;
      }
    };
    std::size_t level = paused.yield_level;
    enter(level);
    static_cast<const YieldStmt&>(running_statement(paused.levels[level])).go_on(paused);
    Flow flow = resume_statements(ev, *paused.levels[level].body, frame, paused, level, paused.levels[level].index + 1);
    while (!paused.paused && level > 0) {
      PausedBody::Level& here = paused.levels[--level];
      const Stmt& stmt = running_statement(here);
      ev.statement = &stmt.node;
      ev.statement_span = stmt.node.span;
      try {
        flow = stmt.after_body(ev, frame, paused, level, flow);
      } catch (PyError& error) {
        locate(error, stmt.node.span);
        throw;
      }
      if (paused.paused || flow != Flow::normal) continue;  // a break or return ends the enclosing bodies too
      enter(level);
      flow = resume_statements(ev, *here.body, frame, paused, level, here.index + 1);
    }
  }
  // The statement of `level` that is running: the one a yield inside paused in.
  static const Stmt& running_statement(const PausedBody::Level& level) { return *(*level.body)[level.index]; }

  // A generator's body on its caller's stack, from its start or from where
  // it paused, as Evaluator::run_generator_body runs one on a stack of its own.
  static bool resume_generator(Evaluator& ev, const FunctionObject& function, const Body& body, Frame& frame,
                               PausedBody& paused) {
    RestoreOnExit restore_frame(ev.current_frame_);
    ev.current_frame_ = &frame;
    BodyRun resumer(ev);  // puts the resumer's running statement back when the body pauses or ends
    paused.paused = false;
    try {
      if (std::exchange(paused.resuming, false)) go_on_from_yield(ev, frame, paused);
      else resume_body(ev, body, frame, paused, 0);
    } catch (PyError& error) {
      error.exception->leave_frame(function.scope->name);
      throw;
    }
    return paused.paused;
  }

  static Body compile_body(const ast::Body& body) {
    Body out;
    out.reserve(body.size());
    for (const auto& stmt : body) out.push_back(compile_statement(*stmt));
    return out;
  }

  static StmtPtr compile_statement(const ast::Stmt& stmt) {
    if (const auto* e = std::get_if<ast::ExprStmt>(&stmt.node)) {
      if (const auto* yield = std::get_if<ast::Yield>(&e->value->node))
        return std::make_unique<YieldStmt>(stmt, *e->value, yield->value ? compile(*yield->value) : nullptr);
      return std::make_unique<ExprStmt>(stmt, compile(*e->value));
    }
    if (const auto* a = std::get_if<ast::Assign>(&stmt.node); a != nullptr && a->targets.size() == 1) {
      const ast::Expr& target = *a->targets[0];
      if (const ast::Name* local = fast_local_name(target))
        return std::make_unique<AssignLocal>(stmt, local->resolved_index, compile(*a->value));
      if (const auto* attribute = std::get_if<ast::Attribute>(&target.node))
        return std::make_unique<AssignAttribute>(stmt, *attribute, compile(*attribute->value), compile(*a->value));
      if (const auto* subscript = std::get_if<ast::Subscript>(&target.node))
        return std::make_unique<AssignItem>(stmt, compile(*subscript->value), compile_key(*subscript->slice),
                                            compile(*a->value));
    }
    if (const auto* a = std::get_if<ast::AugAssign>(&stmt.node)) {
      if (const ast::Name* local = fast_local_name(*a->target))
        return std::make_unique<AugmentLocal>(stmt, *local, a->op, compile(*a->value));
      if (const auto* attribute = std::get_if<ast::Attribute>(&a->target->node))
        return std::make_unique<AugmentAttribute>(stmt, *attribute, a->op, compile(*attribute->value), compile(*a->value));
      if (const auto* subscript = std::get_if<ast::Subscript>(&a->target->node))
        return std::make_unique<AugmentItem>(stmt, a->op, compile(*subscript->value), compile_key(*subscript->slice),
                                             compile(*a->value));
    }
    if (const auto* r = std::get_if<ast::Return>(&stmt.node))
      return std::make_unique<Return>(stmt, r->value ? compile(*r->value) : nullptr);
    if (const auto* i = std::get_if<ast::If>(&stmt.node))
      return std::make_unique<If>(stmt, compile(*i->test), compile_body(i->body), compile_body(i->orelse));
    if (const auto* w = std::get_if<ast::While>(&stmt.node))
      return std::make_unique<While>(stmt, compile(*w->test), compile_body(w->body), compile_body(w->orelse));
    if (const auto* f = std::get_if<ast::For>(&stmt.node))
      if (const ast::Name* target = fast_local_name(*f->target))
        return std::make_unique<ForLocal>(stmt, target->resolved_index, compile(*f->iter), compile_body(f->body),
                                          compile_body(f->orelse));
    return std::make_unique<WalkedStatement>(stmt);
  }
};


struct CompiledBody::Statements {
  Compiled::Body body;
};

CompiledBody::CompiledBody(const ast::Body& body, std::size_t yields)
    : statements_(std::make_unique<Statements>(Statements{CompiledStatements::compile_body(body)})),
      resumable_(yields != 0 && CompiledStatements::yields_in(statements_->body) == yields),
      paused_levels_(CompiledStatements::levels_of(statements_->body)) {}

CompiledBody::~CompiledBody() = default;

void CompiledBody::run(Evaluator& evaluator, Frame& frame) const { CompiledStatements::run_body(evaluator, statements_->body, frame); }

void run_function_body(Evaluator& evaluator, const FunctionObject& function, Frame& frame) {
  const CompiledBody* compiled = function.scope->compiled.get();
  if (compiled && !evaluator.observer && evaluator.mode == Evaluator::Mode::run) compiled->run(evaluator, frame);
  else CompiledStatements::exec_body(evaluator, *function.body, frame);
}

bool runs_on_callers_stack(const Evaluator& evaluator, const FunctionObject& function) {
  const CompiledBody* compiled = function.scope->compiled.get();
  return compiled && compiled->resumable() && !evaluator.observer && evaluator.mode == Evaluator::Mode::run;
}

bool resume_generator_body(Evaluator& evaluator, const FunctionObject& function, Frame& frame, PausedBody& paused) {
  return CompiledStatements::resume_generator(evaluator, function, function.scope->compiled->statements_->body, frame, paused);
}

}  // namespace interp
