// The evaluator itself: function objects, the evaluator's namespaces and
// modules, running a module, and calling a function (a new frame).

#include "interp/python/evaluator.hpp"

#include <cstdio>

#include "interp/python/annotations.hpp"
#include "interp/python/builtins.hpp"
#include "interp/python/compiled.hpp"
#include "interp/python/format.hpp"
#include "interp/python/generators.hpp"
#include "interp/python/imports.hpp"
#include "interp/python/teardown.hpp"
#include "interp/transforms/check_mode.hpp"

namespace interp {

namespace ast = lang::ast;

// ------------------------------------------------------------ functions

std::string FunctionObject::repr(Evaluator&) const {
  char address[32];
  std::snprintf(address, sizeof address, "%p", static_cast<const void*>(this));
  std::string qualname = scope->qualname;
  for (const auto& [key, value] : attributes)
    if (key == "__qualname__" && string_of(value)) qualname = *string_of(value);
  return "<function " + qualname + " at " + address + ">";
}

Value FunctionObject::call(Evaluator& evaluator, CallArgs& args) { return evaluator.call_function(*this, args); }

std::optional<Value> FunctionObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  for (const auto& [key, value] : attributes)
    if (key == name) return value;
  if (name == "__dict__") {
    auto dict = make_dict();
    for (const auto& [key, value] : attributes) dict->table.insert(make_str(key), value);
    return Value(dict);
  }
  if (name == "__name__") return make_str(scope->name);
  if (name == "__qualname__") return make_str(scope->qualname);
  if (name == "__module__") {
    auto found = globals->find("__name__");
    return found == globals->end() ? Value::none() : found->second;
  }
  if (name == "__doc__") return Value::none();
  return Object::get_attribute(evaluator, name);
}

bool FunctionObject::set_attribute(Evaluator& evaluator, const std::string& name, const Value& value) {
  evaluator.remember_store(*this, value);
  for (auto& [key, existing] : attributes)
    if (key == name) {
      existing = value;
      return true;
    }
  attributes.emplace_back(name, value);
  return true;
}

std::string qualified_name(const Value& callable) {
  if (auto* f = callable.as<FunctionObject>()) return f->scope->qualname;
  if (auto* n = callable.as<NativeFunction>()) return n->name();
  if (auto* t = callable.as<TypeObject>()) return t->name();
  if (auto* m = callable.as<BoundMethod>()) return qualified_name(Value(m->function()));
  return type_name(callable);
}

// ------------------------------------------------------------ evaluator

Evaluator::Evaluator() {
  install_builtins(*this);
  install_modules(*this);
  imports = std::make_unique<ImportSystem>(*this);
  globals["__name__"] = make_str("__main__");  // so `if __name__ == '__main__':` runs
  globals["__package__"] = Value::none();
}

Evaluator::~Evaluator() {
  // The reference cycles among what the scripts made (teardown.hpp): all
  // that the interpreter's names still reach, and the objects that may sit
  // in cycles nothing reaches any more.
  std::vector<Value> roots{Value(main_module)};
  for (const auto& [name, module] : modules) roots.emplace_back(module);
  namespaces_made_.for_each_alive([&](Namespace& names) {
    for (const auto& [name, value] : names) roots.push_back(value);
  });
  cycle_candidates_.for_each_alive([&](Object& owner) { roots.emplace_back(owner.shared_from_this()); });
  cells_made_.for_each_alive([&](Cell& cell) {
    if (cell.value) roots.push_back(*cell.value);
  });
  imports.reset();
  break_reference_cycles(roots);
  cells_made_.for_each_alive([](Cell& cell) { cell.value.reset(); });
}

std::shared_ptr<ModuleObject> Evaluator::new_user_module(const std::string& name) {
  auto created = std::make_shared<ModuleObject>(name);
  namespaces_made_.add(created->shared_globals());
  return created;
}

CellRef Evaluator::new_cell() {
  auto cell = std::make_shared<Cell>();
  cells_made_.add(cell);
  return cell;
}

const Value* Evaluator::lookup_global(const std::string& name) const {
  auto found = globals.find(name);
  if (found != globals.end()) return &found->second;
  auto builtin = builtins.find(name);
  return builtin == builtins.end() ? nullptr : &builtin->second;
}

std::shared_ptr<ModuleObject> Evaluator::module(const std::string& name) {
  auto found = modules.find(name);
  if (found != modules.end()) return found->second;
  auto created = std::make_shared<ModuleObject>(name);
  modules[name] = created;
  auto dot = name.rfind('.');
  if (dot != std::string::npos) module(name.substr(0, dot))->add(name.substr(dot + 1), Value(created));
  return created;
}

void Evaluator::write(std::string_view text) {
  if (mode == Mode::check || !output) return;
  output(text);
}

void Evaluator::show(Shown kind, std::string_view text, std::string_view html) {
  if (mode == Mode::check) return;
  if (display) display(kind, text, html);
  else write(text);
}

void Evaluator::count_step() {
  if (interrupt_requested.load(std::memory_order_relaxed) && interrupt_requested.exchange(false))
    throw PyError{std::make_shared<ExceptionObject>(exc::KeyboardInterrupt(), std::vector<Value>{})};
  if (!budget.active) return;
  ++budget.steps;
  // The clock is read every 64 steps; past the deadline or the step count,
  // every step raises.
  if (!budget.exhausted && budget.seconds > 0 && (budget.steps & 63) == 0 &&
      std::chrono::steady_clock::now() > budget.deadline)
    budget.exhausted = true;
  if (budget.max_steps > 0 && budget.steps > budget.max_steps) budget.exhausted = true;
  if (!budget.exhausted) return;
  std::string message = mode == Mode::check ? "check" : "the script";
  if (budget.max_steps > 0 && budget.steps > budget.max_steps)
    message += " ran past its budget of " + std::to_string(budget.max_steps) + " steps";
  else
    message += " ran past its time limit of " + float_repr(budget.seconds) + " seconds";
  // At the statement running (a loop: its header line), not the whole block.
  auto timeout = std::make_shared<ExceptionObject>(exc::TimeoutError(), std::vector<Value>{make_str(message)});
  timeout->frame_span = lang::first_line(statement_span);
  timeout->frame_span_set = !timeout->frame_span.empty();
  throw PyError{std::move(timeout)};
}

void Evaluator::raise_recursion() { raise(exc::RecursionError(), "maximum recursion depth exceeded"); }

bool Evaluator::enter_repr(const Object* object) { return repr_in_progress_.insert(object).second; }
void Evaluator::leave_repr(const Object* object) { repr_in_progress_.erase(object); }

namespace {
struct ProgramScope {
  ProgramScope(std::shared_ptr<const Program>& slot, const std::shared_ptr<const Program>& program)
      : slot_(slot), previous_(slot) {
    slot_ = program;
  }
  ~ProgramScope() { slot_ = previous_; }
  std::shared_ptr<const Program>& slot_;
  std::shared_ptr<const Program> previous_;
};
}  // namespace

void Evaluator::execute(const std::shared_ptr<const Program>& program) { execute(program, *main_module); }

void Evaluator::execute(const std::shared_ptr<const Program>& program, ModuleObject& module) {
  ProgramScope scope(current_program_, program);
  Frame frame;
  frame.globals = &module.shared_globals();
  frame.program = &current_program_;
  frame.resolution = &program->resolution;
  Frame* caller_frame = current_frame_;  // an importing statement's
  current_frame_ = &frame;
  try {
    if (mode == Mode::check) {
      exec_module_checking(program, frame);
    } else {
      exec_body(program->module->body, frame);
    }
  } catch (PyError& error) {
    current_frame_ = caller_frame;
    error.exception->leave_frame("<module>");
    throw;
  } catch (...) {
    current_frame_ = caller_frame;
    throw;
  }
  current_frame_ = caller_frame;
}

void Evaluator::exec_module_checking(const std::shared_ptr<const Program>& program, Frame& frame) {
  // A top-level statement that branches on array data ends with the check
  // warning; the names it binds become unknown and checking goes on with the
  // next statement, so that the errors after it are still reported.
  for (const auto& stmt : program->module->body) {
    try {
      exec(*stmt, frame);
    } catch (PyError& error) {
      if (!is_check_stop(*error.exception)) throw;
      (void)end_checking(*this, *error.exception);
      auto bound = program->resolution.module_bindings.find(stmt.get());
      if (bound == program->resolution.module_bindings.end()) continue;
      for (const auto& name : bound->second) (**frame.globals)[name] = unknown_value();
    }
  }
}

// ------------------------------------------------------------ protocols

Value Evaluator::call(const Value& callee, CallArgs& args) {
  if (callee.has_hooks()) return callee.object()->call(*this, args);
  raise(exc::TypeError(), "'" + type_name(callee) + "' object is not callable");
}

Value Evaluator::call(const Value& callee, std::vector<Value> positional) {
  CallArgs args;
  args.positional = std::move(positional);
  return call(callee, args);
}

namespace {
// Python's parameter binding straight into the frame's slots, for the
// common call: every argument positional, one per parameter, and no *, **
// or keyword-only parameters.
bool bind_directly(const FunctionObject& function, CallArgs& args, Frame& frame) {
  const ScopeInfo& scope = *function.scope;
  if (!function.plain_parameters || !args.keywords.empty() || args.positional.size() != scope.parameters.size())
    return false;
  for (std::size_t i = 0; i < scope.parameters.size(); ++i) frame.bind_parameter(i, std::move(args.positional[i]));
  return true;
}

// The value bound to parameter i in a frame (null when it has none).
const Value* parameter_value(const ScopeInfo& scope, std::size_t i, const Frame& frame) {
  const NameRef& ref = scope.parameters[i];
  const std::optional<Value>* slot = nullptr;
  if (ref.kind == NameRef::Kind::fast) slot = &frame.fast[ref.index];
  else if (ref.kind == NameRef::Kind::cell) slot = &frame.cells[ref.index]->value;
  return slot && *slot ? &**slot : nullptr;
}

// Checks the array-type annotations of the parameters, in the signature's order.
void check_parameter_annotations(const FunctionObject& function, Frame& frame) {
  const ast::Parameters& parameters = *function.parameters;
  const ScopeInfo& scope = *function.scope;
  std::size_t i = 0;
  auto check = [&](const ast::Parameter* p) {
    if (i < scope.parameters.size() && p && p->annotation)
      if (const Value* value = parameter_value(scope, i, frame))
        check_annotation(p->annotation.get(), *value, frame.shape_variables(),
                         "argument '" + p->name.name + "' of " + scope.qualname + "()");
    ++i;
  };
  for (const auto& p : parameters.positional) check(&p);
  if (parameters.varargs) check(nullptr);
  for (const auto& p : parameters.keyword_only) check(&p);
}
}  // namespace

Value Evaluator::call_function(FunctionObject& function, CallArgs& args) {
  if (depth_ >= recursion_limit) raise_recursion();
  guard_stack();
  const ScopeInfo& scope = *function.scope;
  Frame frame;
  enter_frame(function, frame);
  if (!bind_directly(function, args, frame)) {
    Arguments bound = bind_arguments(*this, function.signature, args);
    for (std::size_t i = 0; i < scope.parameters.size() && i < bound.values.size(); ++i)
      frame.bind_parameter(i, std::move(bound.values[i]));
  }
  if (function.annotated) check_parameter_annotations(function, frame);
  return start_function(function, frame);
}

Value Evaluator::make_generator(FunctionObject& function, Frame& frame) {
  return Value(std::make_shared<Generator>(std::static_pointer_cast<FunctionObject>(function.self()), std::move(frame), *this));
}

bool Evaluator::call_function_directly(FunctionObject& function, const Value* self, const ast::ExprList& arguments,
                                       Frame& caller, Value& result) {
  for (const auto& argument : arguments)
    if (std::holds_alternative<ast::Starred>(argument->node)) return false;
  return call_with_positional(
      function, self, arguments.size(), [&](std::size_t i) { return eval(*arguments[i], caller); }, result);
}

Value Evaluator::special_function_result(FunctionObject& function, Frame& frame) {
  if (function.lambda_body) return eval(*function.lambda_body, frame);
  run_function_body(*this, function, frame);
  Value result = std::move(frame.return_value);
  try {
    check_annotation(function.returns, result, frame.shape_variables(),
                     "the return value of " + function.scope->qualname + "()");
  } catch (PyError& mismatch) {
    // Located at the return annotation, inside the function's frame.
    mismatch.exception->frame_span = function.returns->span;
    mismatch.exception->frame_span_set = true;
    throw;
  }
  return result;
}

Value Evaluator::function_failed(FunctionObject& function, PyError& error) {
  // A branch on array data ends checking this function, not the program.
  if (is_check_stop(*error.exception)) return end_checking(*this, *error.exception);
  error.exception->leave_frame(function.scope->name);
  throw;
}

}  // namespace interp
