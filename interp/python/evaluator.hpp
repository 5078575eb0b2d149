// The tree-walking evaluator of the host language (language.md): statements,
// expressions, scoping, calls, exceptions. Its members are defined by concept:
// evaluator.cpp (namespaces, modules, calling a function), protocols.cpp
// (repr, operators, attributes, items, iteration), expressions.cpp,
// comprehensions.cpp and statements.cpp. Built-in functions and modules live
// in builtins.cpp and library/modules.cpp; they reach the evaluator through
// the public members below.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "interp/python/exceptions.hpp"
#include "interp/python/objects.hpp"
#include "interp/python/scope.hpp"
#include "interp/python/stack.hpp"
#include "interp/python/value.hpp"

namespace interp {

class Runtime;       // runtime.hpp: the simulated mesh
class ImportSystem;  // imports.hpp: finding and loading user modules
struct PytreeNodeType;  // library/tree_module.hpp

// A captured variable shared between a frame and its closures.
// Weak references to the objects an evaluator made that may sit in
// reference cycles, for its destructor to empty. Forgets the freed ones
// whenever the list doubles, so a long session's list stays proportional to
// the objects alive.
template <class T>
class CycleCandidates {
 public:
  void add(const std::shared_ptr<T>& item) {
    if (items_.size() >= prune_at_) {
      std::erase_if(items_, [](const std::weak_ptr<T>& weak) { return weak.expired(); });
      prune_at_ = std::max<std::size_t>(64, 2 * items_.size());
    }
    items_.push_back(item);
  }
  template <class Visit>
  void for_each_alive(Visit&& visit) const {
    for (const auto& weak : items_)
      if (auto item = weak.lock()) visit(*item);
  }

 private:
  std::vector<std::weak_ptr<T>> items_;
  std::size_t prune_at_ = 64;
};

struct Cell {
  std::optional<Value> value;
};
using CellRef = std::shared_ptr<Cell>;

// A frame's local variables by slot, each unbound until assigned. Most
// functions have few: up to six live in the frame itself, without an
// allocation. (boost's small_vector did the same, but its resize was a fifth
// of what setting up a call cost.)
class LocalSlots {
 public:
  using Slot = std::optional<Value>;
  LocalSlots() = default;
  LocalSlots(LocalSlots&& other) noexcept { take(other); }
  LocalSlots& operator=(LocalSlots&& other) noexcept {
    if (this != &other) {
      clear();
      take(other);
    }
    return *this;
  }
  ~LocalSlots() { clear(); }

  // Makes n unbound slots, in place of the ones there were.
  void make(std::size_t n) {
    clear();
    void* storage = n <= inline_count ? static_cast<void*>(inline_) : ::operator new(n * sizeof(Slot));
    slots_ = static_cast<Slot*>(storage);
    for (std::size_t i = 0; i < n; ++i) new (&slots_[i]) Slot();
    size_ = n;
  }
  Slot& operator[](std::size_t i) { return slots_[i]; }
  const Slot& operator[](std::size_t i) const { return slots_[i]; }
  std::size_t size() const { return size_; }

 private:
  static constexpr std::size_t inline_count = 6;
  bool is_inline() const { return static_cast<const void*>(slots_) == static_cast<const void*>(inline_); }
  void clear() {
    for (std::size_t i = 0; i < size_; ++i) slots_[i].~Slot();
    if (slots_ != nullptr && !is_inline()) ::operator delete(slots_);
    slots_ = nullptr;
    size_ = 0;
  }
  // Takes other's slots, leaving it none: a heap array changes owner; inline
  // slots are moved into this one's.
  void take(LocalSlots& other) {
    if (other.slots_ != nullptr && other.is_inline()) {
      slots_ = reinterpret_cast<Slot*>(inline_);
      for (std::size_t i = 0; i < other.size_; ++i) new (&slots_[i]) Slot(std::move(other.slots_[i]));
      size_ = other.size_;
      other.clear();
      return;
    }
    slots_ = std::exchange(other.slots_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }

  Slot* slots_ = nullptr;
  std::size_t size_ = 0;
  alignas(Slot) std::byte inline_[inline_count * sizeof(Slot)];
};

// The activation of a function, lambda or comprehension; the module level
// has scope == nullptr. `globals` is the namespace of the module whose code
// runs here (owned by the module, a function or a generator expression).
struct Frame {
  const ScopeInfo* scope = nullptr;
  const std::shared_ptr<Namespace>* globals = nullptr;
  class FunctionObject* function = nullptr;  // the function running here (zero-argument super())
  // A class body's namespace, in definition order (its class_body names).
  std::vector<std::pair<std::string, Value>>* class_namespace = nullptr;
  class ClassBehaviour* class_behaviour = nullptr;  // of the class being made (its bases'), or null
  const std::shared_ptr<const Program>* program = nullptr;  // owner of the code running here
  const Resolution* resolution = nullptr;
  LocalSlots fast;  // the local variables by slot
  std::vector<CellRef> cells;
  Value return_value;
  // Shape variables of array-type annotations, bound at first use
  // (annotations.hpp); the map is made when a first one is.
  std::map<std::string, std::int64_t>& shape_variables() {
    if (!shape_variable_map) shape_variable_map = std::make_unique<std::map<std::string, std::int64_t>>();
    return *shape_variable_map;
  }
  std::unique_ptr<std::map<std::string, std::int64_t>> shape_variable_map;

  // Binds parameter i of the function running here to `value`.
  void bind_parameter(std::size_t i, std::optional<Value> value) {
    const NameRef& ref = scope->parameters[i];
    if (ref.kind == NameRef::Kind::fast) fast[ref.index] = std::move(value);
    else if (ref.kind == NameRef::Kind::cell) cells[ref.index]->value = std::move(value);
  }
};

// The Name that `expr` is when it names a function's local variable (one
// of Frame::fast's slots, its resolved_index), or null.
inline const lang::ast::Name* fast_local_name(const lang::ast::Expr& expr) {
  const auto* name = std::get_if<lang::ast::Name>(&expr.node);
  if (name == nullptr || name->resolved_kind == 0 || name_ref(*name).kind != NameRef::Kind::fast) return nullptr;
  return name;
}

// The index in its frame's slots (Frame::fast) of the local variable that
// `expr` names, or nullopt when `expr` is no such name.
inline std::optional<std::uint32_t> fast_local_index(const lang::ast::Expr& expr, const Frame& frame) {
  const lang::ast::Name* name = frame.scope != nullptr ? fast_local_name(expr) : nullptr;
  if (name == nullptr) return std::nullopt;
  return name->resolved_index;
}

// The value in its frame's slot of the local variable that `expr` names, or
// null when `expr` is no such name or the variable is unbound. Reading it
// there spares a copy: nothing but the frame's own code writes its slots,
// so the value stays while an operation on it runs.
inline const Value* bound_local(const lang::ast::Expr& expr, const Frame& frame) {
  std::optional<std::uint32_t> index = fast_local_index(expr, frame);
  if (!index) return nullptr;
  const std::optional<Value>& slot = frame.fast[*index];
  return slot ? &*slot : nullptr;
}

// The entry of an attribute expression's site in the cache of the program
// running in `frame`, or null when the site is not that program's.
inline AttributeSiteCache* attribute_site(const lang::ast::Attribute& node, const Frame& frame) {
  if (frame.resolution == nullptr || node.site >= frame.resolution->attribute_sites.size()) return nullptr;
  AttributeSiteCache& entry = frame.resolution->attribute_sites[node.site];
  return entry.site == &node ? &entry : nullptr;
}

// The method `name` of a str, list, tuple, dict or set (exactly those types,
// whose attributes are their type's methods), or null.
const ObjectRef* container_method(const Value& object, const std::string& name);

// A function defined by `def` or `lambda`.
class FunctionObject : public Object {
 public:
  const TypeRef& type() const override { return types::function(); }
  std::string repr(Evaluator& evaluator) const override;
  bool callable() const override { return true; }
  Value call(Evaluator& evaluator, CallArgs& args) override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool set_attribute(Evaluator& evaluator, const std::string& name, const Value& value) override;
  FunctionObject* as_function() override { return this; }

  std::shared_ptr<const Program> program;  // keeps the AST alive
  std::vector<std::pair<std::string, Value>> attributes;  // the function's __dict__ (__wrapped__, __name__ set by wraps)
  bool remembered_for_teardown = false;  // see Evaluator::remember_store()
  std::shared_ptr<Namespace> globals;       // of the module that defined it
  const ScopeInfo* scope = nullptr;
  const lang::ast::Parameters* parameters = nullptr;
  const lang::ast::Body* body = nullptr;        // def
  const lang::ast::Expr* lambda_body = nullptr; // lambda
  const lang::ast::Expr* returns = nullptr;     // the return annotation, unevaluated
  lang::Span definition;                        // the def (from its first decorator) or the lambda
  Signature signature;                          // with the defaults evaluated at def time
  std::vector<CellRef> closure;                 // the free variables
  bool plain_parameters = false;  // positional-or-keyword parameters only (calls bind them directly)
  bool annotated = false;         // some parameter has an annotation
  // Whether a call with `count` positional arguments binds them straight
  // into the new frame's slots, one per parameter (call_with_positional).
  bool takes_positional(std::size_t count) const {
    return plain_parameters && !annotated && count == scope->parameters.size();
  }
  std::weak_ptr<Object> owner_class;            // the class whose body defined it (super())
};

// The function of a value that holds one (class_function's), without a virtual call.
inline FunctionObject& the_function(const Value& method) { return static_cast<FunctionObject&>(*method.object()); }

class Generator;  // generators.hpp

// A generator expression: evaluated lazily, one item per next(), in its own
// frame. Holds its program so the AST outlives the function that made it.
class GeneratorObject : public Iterator {
 public:
  const TypeRef& type() const override { return types::generator(); }
  std::optional<Value> next(Evaluator& evaluator) override;

  std::shared_ptr<const Program> program;
  std::shared_ptr<Namespace> globals;
  const lang::ast::GeneratorExp* node = nullptr;
  Frame frame;
  std::vector<IteratorRef> iterators;  // one per `for` clause entered
  bool finished = false;
};

// What Evaluator::show displays: an interactive entry's value, or a picture.
enum class Shown { value, picture };

// Puts a variable back as it was when the scope ends: the evaluator's
// statement and running call while a statement or call runs.
template <class T>
class RestoreOnExit {
 public:
  explicit RestoreOnExit(T& slot) : slot_(slot), saved_(slot) {}
  ~RestoreOnExit() { slot_ = saved_; }
  RestoreOnExit(const RestoreOnExit&) = delete;
  RestoreOnExit& operator=(const RestoreOnExit&) = delete;

 private:
  T& slot_;
  T saved_;
};

// Runs a function's body in its bound frame (compiled.hpp).
void run_function_body(Evaluator& evaluator, const FunctionObject& function, Frame& frame);

class Evaluator {
 public:
  // run: execute everything. check: the program runs for its host-level
  // effects only (output discarded); array operations consult this flag to
  // work on abstract arrays.
  enum class Mode { run, check };

  Evaluator();
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  Mode mode = Mode::run;
  std::function<void(std::string_view)> output;  // where print writes; may be empty
  std::function<void(std::string_view)> log;     // where logged warnings go (Options::log); may be empty
  // Rich output (the public Options::display): an echoed value, or a picture
  // with an HTML form; `show` sends it here, or its text to `output`.
  std::function<void(Shown kind, std::string_view text, std::string_view html)> display;
  // Called after %timeit prints its host-time line, with the %timeit
  // statement and a function that runs the timed statement once more: the
  // cost model measures that run and adds the simulated TPU time line.
  std::function<void(Evaluator&, const lang::ast::Stmt&, const std::function<void()>& run_once)> after_timeit;
  std::atomic<bool> interrupt_requested{false};
  // The limits of one call of the embedding API (Options::max_steps and
  // time_limit_seconds; 0: none): poll_interrupt counts the steps; start()
  // begins a call's count and clock.
  struct Budget {
    std::uint64_t max_steps = 0;
    double seconds = 0;
    std::uint64_t steps = 0;
    std::chrono::steady_clock::time_point deadline{};
    bool exhausted = false;  // once past, every later step raises again
    bool active = false;     // a step count or a time limit is set (as start() found them)
    void start() {
      steps = 0;
      exhausted = false;
      active = max_steps != 0 || seconds > 0;
      if (seconds > 0)
        deadline = std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    }
  };
  Budget budget;
  int recursion_limit = 1000;
  // The devices, meshes and context mesh of this interpreter (runtime.hpp).
  std::shared_ptr<Runtime> runtime;
  // The classes registered with jax.tree_util as pytree nodes (library/tree_module.hpp).
  std::vector<std::shared_ptr<const PytreeNodeType>> pytree_node_types;
  // Check mode: errors that abstract operations reported and continued past
  // (trace.hpp), in order. An error inside a `try` body (try_depth > 0) is
  // raised instead, since the script may catch it. statement_span is the
  // statement running now, where a recorded error is reported.
  std::vector<std::shared_ptr<ExceptionObject>> recorded_errors;
  int try_depth = 0;
  lang::Span statement_span;
  const lang::ast::Stmt* statement = nullptr;  // the statement of statement_span
  // Check mode: the lines where checking a function ended on a branch that
  // depends on array data (check_mode.hpp), each reported once as a warning.
  std::vector<lang::Span> check_warnings;

  // Watches an evaluation for an editor (the embedding API's analysis): told
  // the value of each expression evaluated and of each name an assignment
  // (or augmented assignment) binds. Null, as usual: nobody watches.
  class Observer {
   public:
    virtual ~Observer() = default;
    virtual void evaluated(const lang::ast::Expr& expression, const Value& value) = 0;
    virtual void assigned(const lang::ast::Expr& target, const Value& value) = 0;
  };
  Observer* observer = nullptr;
  // The call expression whose callee runs now and that callee, while a
  // built-in one runs (a user function's body runs with none): where an
  // operation's error can propose a keyword argument (check_mode.hpp).
  struct RunningCall {
    const lang::ast::Expr* expression = nullptr;
    const Object* callee = nullptr;
  };
  RunningCall running_call;

  // Runs a program's statements in the namespace of `module` (the script's,
  // __main__, when none is given); throws PyError.
  void execute(const std::shared_ptr<const Program>& program);
  void execute(const std::shared_ptr<const Program>& program, ModuleObject& module);
  // REPL entries: every module-level expression statement whose value is not
  // None is echoed with its repr and bound to `_`, as Python's interactive mode does.
  bool echo_expression_statements = false;
  // IPython's exception reporting mode (%xmode): Plain, Context (the
  // default), Verbose, Minimal or Docs. Minimal leaves the traceback's
  // frames out of an uncaught error's report (embed/api.cpp).
  std::string exception_mode = "Context";

  // Namespaces: the script's module (__main__) and its globals, the builtins.
  std::shared_ptr<ModuleObject> main_module = std::make_shared<ModuleObject>("__main__");
  Namespace& globals = main_module->globals();
  Namespace builtins;
  const Value* lookup_global(const std::string& name) const;  // __main__'s globals, then builtins
  // A name in the globals of the code running in `frame`, then the builtins.
  const Value* lookup_global(const std::string& name, const Frame& frame) const {
    const Namespace& names = **frame.globals;
    auto found = names.find(name);
    if (found != names.end()) return &found->second;
    auto builtin = builtins.find(name);
    return builtin == builtins.end() ? nullptr : &builtin->second;
  }

  // Built-in modules by full dotted name ("jax.numpy").
  std::map<std::string, std::shared_ptr<ModuleObject>> modules;
  std::shared_ptr<ModuleObject> module(const std::string& name);  // creates it (and its parents) if absent
  // The import system (imports.hpp): sys.path, sys.modules, the host's
  // loader, whether files may be read; a user module made by the importer.
  std::unique_ptr<ImportSystem> imports;
  std::shared_ptr<ModuleObject> new_user_module(const std::string& name);

  // Python's protocols, for built-ins and new object kinds.
  Value call(const Value& callee, CallArgs& args);
  Value call(const Value& callee, std::vector<Value> positional);
  std::string repr(const Value& value);
  std::string str(const Value& value);
  // A plain None, bool, int or float is judged here, at the caller (an `if`
  // condition is mostly a comparison's bool); an object in object_truthy.
  bool truthy(const Value& value) {
    if (!value.has_hooks()) switch (value.kind()) {
        case Value::Kind::none: return false;
        case Value::Kind::boolean:
        case Value::Kind::integer: return value.as_int() != 0;
        case Value::Kind::floating: return value.as_float() != 0;
        case Value::Kind::object: break;
      }
    return object_truthy(value);
  }
  bool object_truthy(const Value& value);
  Value binary(lang::ast::BinaryOperator op, const Value& left, const Value& right);
  Value inplace(lang::ast::BinaryOperator op, const Value& left, const Value& right);
  Value unary(lang::ast::UnaryOperator op, const Value& operand);
  Value compare(lang::ast::CompareOperator op, const Value& left, const Value& right);
  bool compare_bool(lang::ast::CompareOperator op, const Value& left, const Value& right);
  bool contains(const Value& container, const Value& item);
  Value get_attribute(const Value& object, const std::string& name);
  std::optional<Value> find_attribute(const Value& object, const std::string& name);
  Value get_item(const Value& object, const Value& key);
  void set_item(const Value& object, const Value& key, const Value& value);
  IteratorRef iterate(const Value& iterable);
  std::vector<Value> to_vector(const Value& iterable);
  std::int64_t length(const Value& value);
  std::int64_t index_of(const Value& value);  // __index__: an int or bool, else TypeError

  void write(std::string_view text);
  void show(Shown kind, std::string_view text, std::string_view html = {});
  // Raises KeyboardInterrupt when Ctrl-C was requested, TimeoutError past
  // the budget. Called at every statement and loop iteration: one step.
  void poll_interrupt() {
    if (step_counted()) count_step();
  }
  // Whether poll_interrupt has work: an interrupt requested or a budget set
  // (one flag for the budget: this is asked at every statement).
  bool step_counted() const { return interrupt_requested.load(std::memory_order_relaxed) || budget.active; }
  // Raises RecursionError when the C++ stack is nearly used up.
  // Measures the stack of the calling thread: call first on each thread
  // that runs the evaluator.
  void measure_stack() { stack_limit_ = StackLimit(); }
  // A new closure cell. The evaluator remembers every cell it made so that
  // its destructor can empty them: a closure that refers to itself (a nested
  // recursive function) is a reference cycle that shared_ptr alone never frees.
  CellRef new_cell();
  // Remembers a user class or an instance of one (or of a user exception)
  // for the destructor to empty, even when nothing reaches it any more: an
  // instance that holds itself (self.parent = self) is a cycle too.
  void remember_attribute_owner(const ObjectRef& owner) { cycle_candidates_.add(owner); }
  // Remembers a list or dict that a store (append, d[k] = v, update, +=,
  // f.attr = v) has given an object, for the destructor to empty even when
  // nothing reaches it any more: such a store is how a container comes to
  // hold itself (d['self'] = d, then d rebound). A container built from
  // older values cannot, so building one pays nothing.
  template <class Container>
  void remember_store(Container& container, const Value& stored) {
    if (container.remembered_for_teardown || !stored.is_object()) return;
    container.remembered_for_teardown = true;
    cycle_candidates_.add(container.shared_from_this());
  }
  void guard_stack() {
    if (stack_limit_.exhausted()) raise_recursion();
  }

  // repr of containers that contain themselves prints "[...]".
  bool enter_repr(const Object* object);
  void leave_repr(const Object* object);

  // The exception being handled (for bare `raise` and __context__).
  std::vector<std::shared_ptr<ExceptionObject>> handling;

  // Calls a user function (used by FunctionObject::call).
  Value call_function(FunctionObject& function, CallArgs& args);
  // Calls a user function whose parameters are plain, one per argument:
  // `self` (when not null) and the values of `arguments`, evaluated in
  // `caller`, go straight into the new frame's slots. False when the
  // function is not such a one (arguments unevaluated).
  bool call_function_directly(FunctionObject& function, const Value* self, const lang::ast::ExprList& arguments,
                              Frame& caller, Value& result);
  // The next item of a generator expression (used by GeneratorObject::next).
  std::optional<Value> resume_generator(GeneratorObject& generator);
  // The innermost running frame: a function's, or a module's top level
  // (scope == nullptr); null only between programs.
  Frame* current_frame() const { return current_frame_; }
  // The globals of the code running now (__main__'s between programs).
  const Namespace& running_globals() const {
    return current_frame_ != nullptr ? **current_frame_->globals : main_module->globals();
  }
  // Runs a generator function's body (generators.cpp), from its entry to its
  // end, on the generator's own stack.
  Value run_generator_body(FunctionObject& function, Frame& frame);
  // Swaps in the stack limit of the stack the evaluator now runs on (a
  // generator's, or back); returns the previous one.
  StackLimit swap_stack_limit(StackLimit limit) {
    std::swap(limit, stack_limit_);
    return limit;
  }
  Generator* running_generator = nullptr;  // the generator whose body runs now
  int& call_depth() { return depth_; }

 private:
  // compiled_nodes.hpp: function bodies compiled once run with the evaluator's parts
  friend struct Compiled;
  friend struct CompiledExpressions;
  friend struct CompiledStatements;
  enum class Flow { normal, break_, continue_, return_ };

  Flow exec_body(const lang::ast::Body& body, Frame& frame);
  // Check mode's module body: one statement at a time, past those it cannot follow.
  void exec_module_checking(const std::shared_ptr<const Program>& program, Frame& frame);
  Flow exec(const lang::ast::Stmt& stmt, Frame& frame);
  // A bound local and a literal number are read here, at the caller (they
  // need neither the stack check nor the dispatch on node kinds); every
  // other expression in eval_expression, out of line.
  Value eval(const lang::ast::Expr& expr, Frame& frame) {
    if (!observer) {
      if (const Value* local = bound_local(expr, frame)) return *local;
      if (const auto* constant = std::get_if<lang::ast::Constant>(&expr.node)) {
        if (const auto* i = std::get_if<std::int64_t>(&constant->value)) return Value::integer(*i);
        if (const auto* d = std::get_if<double>(&constant->value)) return Value::floating(*d);
      }
    }
    return eval_expression(expr, frame);
  }
  Value eval_expression(const lang::ast::Expr& expr, Frame& frame);
  Value eval_node(const lang::ast::Expr& expr, Frame& frame);
  // The value of `expr` where an operation only reads it: a bound local in
  // its slot (bound_local), else evaluated into `held`.
  const Value& eval_operand(const lang::ast::Expr& expr, Frame& frame, Value& held) {
    if (!observer)
      if (const Value* local = bound_local(expr, frame)) return *local;
    held = eval(expr, frame);
    return held;
  }

  // The frame's slot of the local variable that an assignment's target (or
  // its one target) names, where a store needs nothing but the store (no
  // observer to tell); null otherwise.
  std::optional<Value>* local_slot(const lang::ast::Expr& target, Frame& frame) const;
  std::optional<Value>* local_slot(const lang::ast::ExprList& targets, Frame& frame) const;
  Value load_name(const lang::ast::Name& name, Frame& frame);
  // A global or built-in name's value, through the name's GlobalSiteCache
  // while neither namespace has changed; null when unbound.
  const Value* load_global(const lang::ast::Name& name, const Frame& frame) {
    if (frame.resolution != nullptr && name.resolved_index < frame.resolution->global_sites.size()) {
      const GlobalSiteCache& cache = frame.resolution->global_sites[name.resolved_index];
      if (cache.site == &name && cache.globals_version == (*frame.globals)->version() &&
          cache.builtins_version == builtins.version())
        return cache.value;
    }
    return look_up_global(name, frame);
  }
  // load_global past its cache: looks the name up and fills the cache.
  const Value* look_up_global(const lang::ast::Name& name, const Frame& frame);
  void store_name(const void* site, const std::string& id, Value value, Frame& frame);
  void store_name(const NameRef& ref, const std::string& id, Value value, Frame& frame);
  void delete_name(const lang::ast::Expr& expr, const std::string& id, Frame& frame);
  void assign(const lang::ast::Expr& target, Value value, Frame& frame);
  // object.attr = value, `object` evaluated (assign's part for an attribute target).
  void store_attribute(const lang::ast::Attribute& attribute, const Value& object, const Value& value, const Frame& frame);
  // setattr(object, name, value) past an instance's site cache: the object's set_attribute hook, or AttributeError.
  void set_attribute(const Value& object, const std::string& name, const Value& value);
  void delete_target(const lang::ast::Expr& target, Frame& frame);

  Value eval_call(const lang::ast::Expr& expression, const lang::ast::Call& call, Frame& frame);
  // call_function's parts: a frame for a call of `function`, and running its body in it.
  // Sets up `frame` for a call of `function`: its scope, its unbound slots, its cells.
  [[gnu::always_inline]] void enter_frame(FunctionObject& function, Frame& frame) {
    const ScopeInfo& scope = *function.scope;
    frame.scope = &scope;
    frame.function = &function;
    frame.globals = &function.globals;
    frame.program = &function.program;
    frame.resolution = &function.program->resolution;
    frame.fast.make(scope.fast_names.size());
    if (scope.own_cells == 0 && function.closure.empty()) return;
    frame.cells.reserve(scope.cell_names.size());
    for (std::size_t i = 0; i < scope.own_cells; ++i) frame.cells.push_back(new_cell());
    for (const auto& cell : function.closure) frame.cells.push_back(cell);
  }
  // Runs the bound frame's function: its return value.
  Value run_function(FunctionObject& function, Frame& frame) {
    RestoreOnExit restore_call(running_call);
    running_call = {};
    RestoreOnExit restore_frame(current_frame_);
    current_frame_ = &frame;
    ++depth_;
    try {
      Value result;
      if (function.lambda_body || function.returns) {
        result = special_function_result(function, frame);
      } else {
        run_function_body(*this, function, frame);
        result = std::move(frame.return_value);
      }
      --depth_;
      return result;
    } catch (PyError& error) {
      --depth_;
      return function_failed(function, error);
    }
  }
  // run_function's result of a lambda (its expression's value) or of a
  // function with a return annotation (the value checked against it).
  Value special_function_result(FunctionObject& function, Frame& frame);
  // run_function's end when `error` leaves the function: checking's end of
  // it where the error is a check stop, else the error rethrown with the
  // function's frame left in its traceback.
  Value function_failed(FunctionObject& function, PyError& error);
  // A call of `function` with `count` positional arguments (after `self`,
  // when not null), each argument(i) evaluated in the caller and bound
  // straight into the new frame's slot. False, having evaluated nothing,
  // when the call needs Python's full binding (call_function).
  template <class Argument>
  bool call_with_positional(FunctionObject& function, const Value* self, std::size_t count, Argument&& argument,
                            Value& result) {
    std::size_t offset = self != nullptr ? 1 : 0;
    if (!function.takes_positional(count + offset)) return false;
    Frame frame;
    enter_frame(function, frame);
    if (self != nullptr) frame.bind_parameter(0, *self);
    for (std::size_t i = 0; i < count; ++i) frame.bind_parameter(i + offset, argument(i));
    // As call_function checks, once the arguments are evaluated.
    if (depth_ >= recursion_limit) raise_recursion();
    guard_stack();
    result = start_function(function, frame);
    return true;
  }
  // The bound frame's function run (run_function), or its generator made.
  Value start_function(FunctionObject& function, Frame& frame) {
    if (function.scope->is_generator) return make_generator(function, frame);
    return run_function(function, frame);
  }
  Value make_generator(FunctionObject& function, Frame& frame);
  void eval_arguments(const lang::ast::Call& call, const Value& callee, Frame& frame, CallArgs& args);
  // obj.method(...) where obj is an instance and method a `def` of its class:
  // called without making the bound method. False when that is not the case.
  bool call_method(const lang::ast::Expr& expression, const lang::ast::Call& call, Frame& frame, Value& result);
  Value call_with_arguments(const lang::ast::Expr& expression, const lang::ast::Call& call, Value callee, Frame& frame);
  void eval_elements(const lang::ast::ExprList& elements, Frame& frame, std::vector<Value>& out);
  Value eval_subscript_key(const lang::ast::Expr& slice, Frame& frame);
  Value eval_comprehension(const lang::ast::Expr& expr, Frame& frame);
  Value make_function(const void* scope_node, const lang::ast::Parameters& params, Frame& frame);
  Value eval_joined_str(const lang::ast::JoinedStr& node, Frame& frame);

  Flow exec_for(const lang::ast::For& node, Frame& frame);
  Flow exec_try(const lang::ast::Try& node, Frame& frame);
  Flow exec_class_def(const lang::ast::ClassDef& node, const lang::ast::Stmt& stmt, Frame& frame);  // classes.cpp
  Value eval_yield(const lang::ast::Expr* value, Frame& frame);                                     // generators.cpp
  Value eval_yield_from(const lang::ast::Expr& iterable, Frame& frame);
  // The decorators (evaluated, with their expressions) applied to a def's or class's value, innermost first.
  Value apply_decorators(const lang::ast::ExprList& expressions, const std::vector<Value>& decorators, Value target);
  // A class body's `name: annotation`, kept in its __annotations__ (classes.cpp).
  void record_class_annotation(const std::string& name, const lang::ast::Expr& annotation, Frame& frame);
  Flow exec_with(const lang::ast::With& node, Frame& frame);
  void exec_raise(const lang::ast::Raise& node, Frame& frame);
  void exec_import(const lang::ast::Import& node, Frame& frame);
  void exec_import_from(const lang::ast::ImportFrom& node, Frame& frame);
  void exec_timeit(const lang::ast::LineMagic& node, const lang::ast::Stmt& stmt, Frame& frame);
  void exec_xmode(const lang::ast::LineMagic& node);
  bool exception_matches(const ExceptionObject& exception, const Value& handler_type);

  [[noreturn]] void raise_recursion();
  void count_step();  // poll_interrupt's work when an interrupt or a budget is pending

  // Vectors for the positional arguments of calls, kept with their storage
  // between calls so that a call allocates none (take_arguments, give_back_arguments).
  std::vector<std::vector<Value>> spare_arguments_;
  std::vector<Value> take_arguments() {
    if (spare_arguments_.empty()) return {};
    std::vector<Value> vector = std::move(spare_arguments_.back());
    spare_arguments_.pop_back();
    return vector;
  }
  void give_back_arguments(std::vector<Value>& vector) {
    vector.clear();
    if (vector.capacity() != 0 && vector.capacity() <= 64 && spare_arguments_.size() < 64)
      spare_arguments_.push_back(std::move(vector));
  }

  StackLimit stack_limit_;
  CycleCandidates<Cell> cells_made_;  // see new_cell()
  // The namespaces of user modules: a module's functions refer back to it,
  // so the destructor empties each to free them.
  CycleCandidates<Namespace> namespaces_made_;
  CycleCandidates<Object> cycle_candidates_;  // see remember_attribute_owner() and remember_store()
  int depth_ = 0;
  Frame* current_frame_ = nullptr;
  std::shared_ptr<const Program> current_program_;
  std::set<const Object*> repr_in_progress_;
};

// Formats a function's name for errors and repr: its qualified name.
std::string qualified_name(const Value& callable);

}  // namespace interp
