// Generators (generators.hpp): the coroutine each runs on, yield and
// yield from, and the generator methods send, throw and close.

#include "interp/python/generators.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "interp/python/compiled.hpp"

namespace interp {

namespace ast = lang::ast;

namespace {

using lang::finished_switch;
using lang::starting_switch;
using lang::unpoison_stack;

// Each body gets its own stack, touched lazily; the guard keeps
// stack_reserve bytes free below the deepest call (stack.hpp).
constexpr std::size_t stack_bytes = std::size_t{4} * 1024 * 1024;
constexpr std::size_t stack_reserve = std::size_t{192} * 1024;

// Finished generators' stacks, reused by the next ones on this thread.
struct StackPool {
  std::vector<char*> free;
  ~StackPool() {
    for (char* stack : free) munmap(stack, stack_bytes);
  }
};
thread_local StackPool stack_pool;

char* take_stack() {
  if (!stack_pool.free.empty()) {
    char* stack = stack_pool.free.back();
    stack_pool.free.pop_back();
    return stack;
  }
  void* memory = mmap(nullptr, stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) raise(exc::MemoryError(), "cannot allocate a generator's stack");
  return static_cast<char*>(memory);
}

void give_back_stack(char* stack) {
  unpoison_stack(stack, stack_bytes);
  if (stack_pool.free.size() < 32) stack_pool.free.push_back(stack);
  else munmap(stack, stack_bytes);
}

// Thrown through a paused body that is being destroyed, to unwind it
// without running any Python code.
struct Abandoned {};

// While a generator is paused, the frame of whoever resumed it is the
// current one; its own again when it resumes.
struct PausedFrame {
  PausedFrame(Frame*& current, Frame* resumer, Frame* mine) : current(current), mine(mine) { current = resumer; }
  ~PausedFrame() { current = mine; }
  PausedFrame(const PausedFrame&) = delete;
  PausedFrame& operator=(const PausedFrame&) = delete;
  Frame*& current;
  Frame* mine;
};

std::shared_ptr<ExceptionObject> new_exception(const TypeRef& cls) {
  return std::make_shared<ExceptionObject>(cls, std::vector<Value>{});
}

// What throw(cls, value) raises, as Python makes it: `value` itself when it
// is an instance of cls, else cls called with it (a tuple: its items).
Value instantiate_thrown(Evaluator& evaluator, const Value& cls, const Value& value) {
  if (auto* instance = value.as<ExceptionObject>(); instance && instance->type()->is_subclass_of(*cls.as<TypeObject>()))
    return value;
  std::vector<Value> arguments;
  if (auto* tuple = value.as<TupleObject>()) arguments = tuple->items;
  else if (!value.is_none()) arguments.push_back(value);
  return evaluator.call(cls, std::move(arguments));
}

}  // namespace

Generator::Generator(std::shared_ptr<FunctionObject> function, Frame frame, Evaluator& evaluator)
    : function_(std::move(function)), frame_(std::move(frame)), evaluator_(&evaluator) {
  if (runs_on_callers_stack(evaluator, *function_)) {
    paused_body_ = std::make_unique<PausedBody>();
    paused_body_->levels.resize(function_->scope->compiled->paused_levels());
  }
}

Generator::~Generator() {
  if (state_ == State::suspended && !paused_body_) {
    // Unwind the paused body's C++ frames so the values they hold are freed.
    abandoned_ = true;
    try {
      switch_in(*evaluator_);
    } catch (...) {  // NOLINT: nothing may leave a destructor
    }
  }
  if (stack_ != nullptr) give_back_stack(stack_);
}

std::string Generator::repr(Evaluator&) const {
  char address[32];
  std::snprintf(address, sizeof address, "%p", static_cast<const void*>(this));
  return "<generator object " + function_->scope->qualname + " at " + address + ">";
}

void Generator::entry(void* argument) {
  auto* generator = static_cast<Generator*>(argument);
  finished_switch(nullptr, &generator->caller_stack_bottom_, &generator->caller_stack_size_);
  try {
    generator->return_value_ = generator->evaluator_->run_generator_body(*generator->function_, generator->frame_);
  } catch (PyError& error) {
    generator->error_ = error;
  } catch (Abandoned&) {
  } catch (...) {
    generator->foreign_error_ = std::current_exception();
  }
  generator->state_ = State::finished;
  // Returning ends the coroutine: back to the last resumer.
  starting_switch(nullptr, generator->caller_stack_bottom_, generator->caller_stack_size_);
}

// switch_in for a body run on the resumer's stack: nothing to unwind when it
// is dropped paused, and its end leaves the state as entry() would.
void Generator::run_in_place(Evaluator& evaluator) {
  evaluator.guard_stack();  // the statements run do not check it (compiled.cpp)
  PausedBody& paused = *paused_body_;
  paused.resuming = state_ == State::suspended;
  if (thrown_) paused.thrown = std::move(thrown_);
  state_ = State::running;
  try {
    if (resume_generator_body(evaluator, *function_, frame_, paused)) {
      state_ = State::suspended;  // the value yielded stays in `paused` for run_body
      return;
    }
    return_value_ = std::move(frame_.return_value);
  } catch (PyError& error) {
    error_ = error;
  } catch (...) {
    foreign_error_ = std::current_exception();
  }
  state_ = State::finished;
  paused_body_.reset();  // the loops' items go with it
}

// Runs the body from where it paused until it pauses again or ends, with
// the evaluator's notion of the running stack, frame and generator swapped.
void Generator::switch_in(Evaluator& evaluator) {
  if (stack_ == nullptr) {
    stack_ = take_stack();
    coroutine_.start(stack_, stack_bytes, &Generator::entry, this);
  }
  resumer_frame = evaluator.current_frame();
  StackLimit outer = evaluator.swap_stack_limit(StackLimit::at(stack_ + stack_reserve));
  Generator* outer_generator = evaluator.running_generator;
  evaluator.running_generator = this;
  int depth = evaluator.call_depth();
  state_ = State::running;
  void* fake_stack = nullptr;
  starting_switch(&fake_stack, stack_, stack_bytes);
  coroutine_.resume();
  finished_switch(fake_stack, nullptr, nullptr);
  if (state_ == State::running) state_ = State::suspended;
  evaluator.call_depth() = depth;
  evaluator.running_generator = outer_generator;
  evaluator.swap_stack_limit(outer);
}

std::optional<Value> Generator::resume(Evaluator& evaluator, const Value& sent,
                                       std::shared_ptr<ExceptionObject> thrown) {
  if (state_ == State::running) raise(exc::ValueError(), "generator already executing");
  if (state_ == State::finished) {
    if (thrown) throw PyError{thrown};
    return std::nullopt;
  }
  if (state_ == State::created) {
    if (!sent.is_none()) raise(exc::TypeError(), "can't send non-None value to a just-started generator");
    if (thrown) {
      state_ = State::finished;
      throw PyError{thrown};
    }
  }
  transfer_ = sent;
  thrown_ = std::move(thrown);
  return run_body(evaluator);
}

std::optional<Value> Generator::next(Evaluator& evaluator) {
  if (state_ == State::running) raise(exc::ValueError(), "generator already executing");
  if (state_ == State::finished) return std::nullopt;
  return run_body(evaluator);
}

std::optional<Value> Generator::run_body(Evaluator& evaluator) {
  if (evaluator.call_depth() >= evaluator.recursion_limit)
    raise(exc::RecursionError(), "maximum recursion depth exceeded");
  ++evaluator.call_depth();
  if (paused_body_) run_in_place(evaluator);
  else switch_in(evaluator);
  --evaluator.call_depth();
  if (state_ != State::finished) return std::exchange(paused_body_ ? paused_body_->yielded : transfer_, Value());
  if (foreign_error_) std::rethrow_exception(std::exchange(foreign_error_, nullptr));
  if (error_) {
    PyError error = std::move(*error_);
    error_.reset();
    if (error.exception->type()->is_subclass_of(*exc::StopIteration())) {
      auto replaced = make_exception(exc::RuntimeError(), "generator raised StopIteration");
      replaced->cause = Value(error.exception);
      replaced->traceback = error.exception->traceback;
      throw PyError{replaced};
    }
    throw error;
  }
  return std::nullopt;
}

Value Generator::suspend(Value value) {
  transfer_ = std::move(value);
  void* fake_stack = nullptr;
  starting_switch(&fake_stack, caller_stack_bottom_, caller_stack_size_);
  coroutine_.suspend();
  finished_switch(fake_stack, &caller_stack_bottom_, &caller_stack_size_);
  if (abandoned_) throw Abandoned{};
  if (thrown_) throw PyError{std::exchange(thrown_, nullptr)};
  return std::exchange(transfer_, Value());
}

void Generator::close(Evaluator& evaluator) {
  if (state_ != State::suspended) {
    state_ = State::finished;
    return;
  }
  try {
    if (resume(evaluator, Value::none(), new_exception(exc::GeneratorExit())))
      raise(exc::RuntimeError(), "generator ignored GeneratorExit");
  } catch (PyError& error) {
    const TypeRef& type = error.exception->type();
    if (!type->is_subclass_of(*exc::GeneratorExit()) && !type->is_subclass_of(*exc::StopIteration())) throw;
  }
}

std::optional<Value> Generator::get_attribute(Evaluator& evaluator, const std::string& name) {
  auto self_ref = std::static_pointer_cast<Generator>(self());
  auto stop = [](Generator& generator) -> Value {
    throw PyError{std::make_shared<ExceptionObject>(exc::StopIteration(), std::vector<Value>{generator.return_value()})};
  };
  if (name == "send")
    return Value(native("send(value, /)", [self_ref, stop](Evaluator& ev, Arguments& a) -> Value {
      if (auto item = self_ref->resume(ev, a[0], nullptr)) return *item;
      return stop(*self_ref);
    }));
  if (name == "throw")
    return Value(native("throw(exception, value=None, traceback=None, /)", [self_ref, stop](Evaluator& ev, Arguments& a) -> Value {
      Value exception = a[0];
      if (auto* cls = exception.as<TypeObject>(); cls && cls->is_subclass_of(*exc::BaseException()))
        exception = instantiate_thrown(ev, exception, a[1]);
      if (!exception.as<ExceptionObject>()) raise(exc::TypeError(), "exceptions must derive from BaseException");
      auto thrown = std::static_pointer_cast<ExceptionObject>(exception.object());
      if (auto item = self_ref->resume(ev, Value::none(), thrown)) return *item;
      return stop(*self_ref);
    }));
  if (name == "close")
    return Value(native("close()", [self_ref](Evaluator& ev, Arguments&) {
      self_ref->close(ev);
      return Value::none();
    }));
  if (name == "__name__") return make_str(function_->scope->name);
  if (name == "__qualname__") return make_str(function_->scope->qualname);
  return Iterator::get_attribute(evaluator, name);
}

// ------------------------------------------------------------ the evaluator's side

Value Evaluator::eval_yield(const ast::Expr* value, Frame& frame) {
  Value yielded = value ? eval(*value, frame) : Value::none();
  Generator* self = running_generator;
  if (self == nullptr) raise(exc::SyntaxError(), "'yield' outside function");
  PausedFrame paused(current_frame_, self->resumer_frame, &frame);
  return self->suspend(std::move(yielded));
}

Value Evaluator::eval_yield_from(const ast::Expr& iterable, Frame& frame) {
  Value source = eval(iterable, frame);
  Generator* self = running_generator;
  if (self == nullptr) raise(exc::SyntaxError(), "'yield' outside function");
  // While paused, the resumer's frame is the current one.
  auto pause = [&](Value item) {
    PausedFrame paused(current_frame_, self->resumer_frame, &frame);
    return self->suspend(std::move(item));
  };
  if (auto* inner = source.as<Generator>()) {
    // Delegation: what is sent or thrown into this generator goes to the inner one.
    Value sent;
    std::shared_ptr<ExceptionObject> thrown;
    while (true) {
      std::optional<Value> item = inner->resume(*this, sent, std::exchange(thrown, nullptr));
      if (!item) return inner->return_value();
      try {
        sent = pause(std::move(*item));
      } catch (PyError& error) {
        if (error.exception->type()->is_subclass_of(*exc::GeneratorExit())) {
          inner->close(*this);
          throw;
        }
        thrown = error.exception;
        sent = Value();
      }
    }
  }
  IteratorRef it = iterate(source);
  while (auto item = it->next(*this)) pause(std::move(*item));
  return Value::none();
}

Value Evaluator::run_generator_body(FunctionObject& function, Frame& frame) {
  Generator* self = running_generator;
  guard_stack();  // the statements run do not check it (compiled.cpp)
  current_frame_ = &frame;
  try {
    run_function_body(*this, function, frame);
    current_frame_ = self->resumer_frame;
    return std::move(frame.return_value);
  } catch (PyError& error) {
    current_frame_ = self->resumer_frame;
    error.exception->leave_frame(function.scope->name);
    throw;
  } catch (...) {
    current_frame_ = self->resumer_frame;
    throw;
  }
}

}  // namespace interp
