#include "interp/python/evaluator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "interp/python/annotations.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/check_mode.hpp"
#include "interp/python/format.hpp"

namespace interp {

namespace ast = lang::ast;
using BinOpKind = ast::BinaryOperator;
using CmpOp = ast::CompareOperator;

namespace {

constexpr const char* unbound_local_message = "' where it is not associated with a value";

[[noreturn]] void integer_overflow() { raise(exc::OverflowError(), "integer overflow: result does not fit in 64 bits"); }

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  if (a == std::numeric_limits<std::int64_t>::min() && b == -1) integer_overflow();
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  if (b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

double float_floor_mod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  if (r == 0) r = std::copysign(0.0, b);
  return r;
}

std::int64_t int_power(std::int64_t base, std::int64_t exponent) {
  std::int64_t result = 1;
  while (exponent > 0) {
    if (exponent & 1)
      if (__builtin_mul_overflow(result, base, &result)) integer_overflow();
    exponent >>= 1;
    if (exponent > 0 && __builtin_mul_overflow(base, base, &base)) integer_overflow();
  }
  return result;
}

std::optional<Value> numeric_binary(BinOpKind op, const Value& a, const Value& b) {
  if (a.is_integral() && b.is_integral()) {
    std::int64_t x = a.as_int(), y = b.as_int(), r = 0;
    switch (op) {
      case BinOpKind::add: if (__builtin_add_overflow(x, y, &r)) integer_overflow(); return Value::integer(r);
      case BinOpKind::sub: if (__builtin_sub_overflow(x, y, &r)) integer_overflow(); return Value::integer(r);
      case BinOpKind::mult: if (__builtin_mul_overflow(x, y, &r)) integer_overflow(); return Value::integer(r);
      case BinOpKind::div:
        if (y == 0) raise(exc::ZeroDivisionError(), "division by zero");
        return Value::floating(static_cast<double>(x) / static_cast<double>(y));
      case BinOpKind::floordiv:
        if (y == 0) raise(exc::ZeroDivisionError(), "integer division or modulo by zero");
        return Value::integer(floor_div(x, y));
      case BinOpKind::mod:
        if (y == 0) raise(exc::ZeroDivisionError(), "integer modulo by zero");
        return Value::integer(floor_mod(x, y));
      case BinOpKind::pow:
        if (y < 0) {
          if (x == 0) raise(exc::ZeroDivisionError(), "0.0 cannot be raised to a negative power");
          return Value::floating(std::pow(static_cast<double>(x), static_cast<double>(y)));
        }
        return Value::integer(int_power(x, y));
      case BinOpKind::lshift:
        if (y < 0) raise(exc::ValueError(), "negative shift count");
        if (x == 0) return Value::integer(0);
        if (y >= 63 || (x > 0 ? x > (std::numeric_limits<std::int64_t>::max() >> y)
                               : x < (std::numeric_limits<std::int64_t>::min() >> y)))
          integer_overflow();
        return Value::integer(static_cast<std::int64_t>(static_cast<std::uint64_t>(x) << y));
      case BinOpKind::rshift:
        if (y < 0) raise(exc::ValueError(), "negative shift count");
        return Value::integer(y >= 63 ? (x < 0 ? -1 : 0) : x >> y);
      case BinOpKind::bitand_: return a.is_bool() && b.is_bool() ? Value::boolean(x & y) : Value::integer(x & y);
      case BinOpKind::bitor_: return a.is_bool() && b.is_bool() ? Value::boolean(x | y) : Value::integer(x | y);
      case BinOpKind::bitxor: return a.is_bool() && b.is_bool() ? Value::boolean(x ^ y) : Value::integer(x ^ y);
      case BinOpKind::matmult: return std::nullopt;
    }
    return std::nullopt;
  }
  double x = a.as_float(), y = b.as_float();
  switch (op) {
    case BinOpKind::add: return Value::floating(x + y);
    case BinOpKind::sub: return Value::floating(x - y);
    case BinOpKind::mult: return Value::floating(x * y);
    case BinOpKind::div:
      if (y == 0) raise(exc::ZeroDivisionError(), "float division by zero");
      return Value::floating(x / y);
    case BinOpKind::floordiv:
      if (y == 0) raise(exc::ZeroDivisionError(), "float floor division by zero");
      return Value::floating(std::floor(x / y));
    case BinOpKind::mod:
      if (y == 0) raise(exc::ZeroDivisionError(), "float modulo");
      return Value::floating(float_floor_mod(x, y));
    case BinOpKind::pow: {
      if (x == 0 && y < 0) raise(exc::ZeroDivisionError(), "0.0 cannot be raised to a negative power");
      if (x < 0 && y != std::floor(y)) raise(exc::ValueError(), "math domain error (a complex result)");
      double r = std::pow(x, y);
      if (std::isinf(r) && std::isfinite(x) && std::isfinite(y))
        raise(exc::OverflowError(), "(34, 'Numerical result out of range')");
      return Value::floating(r);
    }
    default: return std::nullopt;
  }
}

const char* operator_text(BinOpKind op) {
  if (op == BinOpKind::pow) return "** or pow()";
  return ast::binary_operator_symbol(op);
}

CmpOp swapped(CmpOp op) {
  switch (op) {
    case CmpOp::lt: return CmpOp::gt;
    case CmpOp::gt: return CmpOp::lt;
    case CmpOp::lt_e: return CmpOp::gt_e;
    case CmpOp::gt_e: return CmpOp::lt_e;
    default: return op;
  }
}

// -1, 0, 1, or 2 when unordered (nan).
int compare_numbers(const Value& a, const Value& b) {
  if (a.is_integral() && b.is_integral()) return a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int() ? 1 : 0;
  if (a.is_integral() != b.is_integral()) {
    // Compare an int with a float exactly where the float is integral.
    const Value& i = a.is_integral() ? a : b;
    double d = a.is_integral() ? b.as_float() : a.as_float();
    if (std::isnan(d)) return 2;
    int sign = a.is_integral() ? 1 : -1;
    if (d >= 9.3e18) return -sign;
    if (d <= -9.3e18) return sign;
    double whole = std::floor(d);
    auto w = static_cast<std::int64_t>(whole);
    if (i.as_int() < w) return -sign;
    if (i.as_int() > w) return sign;
    return d > whole ? -sign : 0;
  }
  double x = a.as_float(), y = b.as_float();
  if (std::isnan(x) || std::isnan(y)) return 2;
  return x < y ? -1 : x > y ? 1 : 0;
}

std::string format_time(double seconds) {
  // IPython's _format_time(timespan, precision=3).
  if (seconds >= 60.0) {
    std::string out;
    double leftover = seconds;
    const std::pair<const char*, double> parts[] = {{"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}};
    for (const auto& [suffix, length] : parts) {
      auto value = static_cast<long long>(leftover / length);
      if (value > 0) {
        leftover = std::fmod(leftover, length);
        out += (out.empty() ? "" : " ") + std::to_string(value) + suffix;
      }
      if (leftover < 1) break;
    }
    return out;
  }
  static const char* units[] = {"s", "ms", "\xc2\xb5s", "ns"};
  static const double scaling[] = {1, 1e3, 1e6, 1e9};
  int order = 3;
  if (seconds > 0) {
    int exponent = static_cast<int>(std::floor(std::log10(seconds)));
    int floored_thirds = exponent >= 0 ? exponent / 3 : -((-exponent + 2) / 3);  // Python's //
    order = std::clamp(-floored_thirds, 0, 3);
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.3g %s", seconds * scaling[order], units[order]);
  return text;
}

}  // namespace

// ------------------------------------------------------------ functions

std::string FunctionObject::repr(Evaluator&) const {
  char address[32];
  std::snprintf(address, sizeof address, "%p", static_cast<const void*>(this));
  return "<function " + scope->qualname + " at " + address + ">";
}

Value FunctionObject::call(Evaluator& evaluator, CallArgs& args) { return evaluator.call_function(*this, args); }

std::optional<Value> FunctionObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "__name__") return make_str(scope->name);
  if (name == "__qualname__") return make_str(scope->qualname);
  if (name == "__module__") return make_str("__main__");
  if (name == "__doc__") return Value::none();
  return Object::get_attribute(evaluator, name);
}

std::string qualified_name(const Value& callable) {
  if (auto* f = callable.as<FunctionObject>()) return f->scope->qualname;
  if (auto* n = callable.as<NativeFunction>()) return n->name();
  if (auto* t = callable.as<TypeObject>()) return t->name();
  return type_name(callable);
}

// ------------------------------------------------------------ evaluator

Evaluator::Evaluator() {
  install_builtins(*this);
  install_modules(*this);
  globals["__name__"] = make_str("__main__");  // so `if __name__ == '__main__':` runs
}

Evaluator::~Evaluator() {
  for (const auto& weak : cells_made_)
    if (CellRef cell = weak.lock()) cell->value.reset();
}

CellRef Evaluator::new_cell() {
  // Forget the cells already freed whenever the list doubles, so a long
  // session's list stays proportional to the cells alive.
  if (cells_made_.size() >= cells_prune_at_) {
    std::erase_if(cells_made_, [](const std::weak_ptr<Cell>& weak) { return weak.expired(); });
    cells_prune_at_ = std::max<std::size_t>(64, 2 * cells_made_.size());
  }
  auto cell = std::make_shared<Cell>();
  cells_made_.push_back(cell);
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

void Evaluator::poll_interrupt() {
  if (interrupt_requested.load(std::memory_order_relaxed) && interrupt_requested.exchange(false))
    throw PyError{std::make_shared<ExceptionObject>(exc::KeyboardInterrupt(), std::vector<Value>{})};
}

void Evaluator::raise_recursion() { raise(exc::RecursionError(), "maximum recursion depth exceeded"); }

bool Evaluator::enter_repr(const Object* object) { return repr_in_progress_.insert(object).second; }
void Evaluator::leave_repr(const Object* object) { repr_in_progress_.erase(object); }

namespace {
// Moves the position of the exception in the frame being left into its traceback.
void leave_frame(ExceptionObject& exception, const std::string& function) {
  exception.traceback.push_back(TracebackEntry{exception.frame_span, function});
  exception.frame_span_set = false;
}

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

void Evaluator::execute(const std::shared_ptr<const Program>& program) {
  ProgramScope scope(current_program_, program);
  Frame frame;
  frame.program = &current_program_;
  frame.resolution = &program->resolution;
  try {
    exec_body(program->module->body, frame);
  } catch (PyError& error) {
    leave_frame(*error.exception, "<module>");
    throw;
  }
}

// ------------------------------------------------------------ protocols

Value Evaluator::call(const Value& callee, CallArgs& args) {
  if (callee.is_object()) return callee.object()->call(*this, args);
  raise(exc::TypeError(), "'" + type_name(callee) + "' object is not callable");
}

Value Evaluator::call(const Value& callee, std::vector<Value> positional) {
  CallArgs args;
  args.positional = std::move(positional);
  return call(callee, args);
}

Value Evaluator::call_function(FunctionObject& function, CallArgs& args) {
  if (depth_ >= recursion_limit) raise_recursion();
  guard_stack();
  Arguments bound = bind_arguments(*this, function.signature, args);
  const ScopeInfo& scope = *function.scope;
  Frame frame;
  frame.scope = &scope;
  frame.program = &function.program;
  frame.resolution = &function.program->resolution;
  frame.fast.resize(scope.fast_names.size());
  frame.cells.reserve(scope.cell_names.size());
  for (std::size_t i = 0; i < scope.own_cells; ++i) frame.cells.push_back(new_cell());
  for (const auto& cell : function.closure) frame.cells.push_back(cell);
  if (function.parameters) {
    // Array-type annotations of the parameters, in the signature's order.
    std::vector<const ast::Parameter*> declared;
    for (const auto& p : function.parameters->positional) declared.push_back(&p);
    if (function.parameters->varargs) declared.push_back(nullptr);
    for (const auto& p : function.parameters->keyword_only) declared.push_back(&p);
    for (std::size_t i = 0; i < declared.size() && i < bound.values.size(); ++i)
      if (declared[i] && declared[i]->annotation && bound.values[i])
        check_annotation(declared[i]->annotation.get(), *bound.values[i], frame.shape_variables,
                         "argument '" + declared[i]->name.name + "' of " + scope.qualname + "()");
  }
  for (std::size_t i = 0; i < scope.parameters.size() && i < bound.values.size(); ++i) {
    const NameRef& ref = scope.parameters[i];
    if (ref.kind == NameRef::Kind::fast) frame.fast[ref.index] = std::move(bound.values[i]);
    else if (ref.kind == NameRef::Kind::cell) frame.cells[ref.index]->value = std::move(bound.values[i]);
  }
  ++depth_;
  try {
    Value result;
    if (function.lambda_body) {
      result = eval(*function.lambda_body, frame);
    } else {
      exec_body(*function.body, frame);
      result = std::move(frame.return_value);
      try {
        check_annotation(function.returns, result, frame.shape_variables,
                         "the return value of " + scope.qualname + "()");
      } catch (PyError& mismatch) {
        // Located at the return annotation, inside the function's frame.
        mismatch.exception->frame_span = function.returns->span;
        mismatch.exception->frame_span_set = true;
        throw;
      }
    }
    --depth_;
    return result;
  } catch (PyError& error) {
    --depth_;
    // A branch on array data ends checking this function, not the program.
    if (is_check_stop(*error.exception)) return end_checking(*this, *error.exception);
    leave_frame(*error.exception, scope.name);
    throw;
  }
}

std::string Evaluator::repr(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::none: return "None";
    case Value::Kind::boolean: return value.as_bool() ? "True" : "False";
    case Value::Kind::integer: return std::to_string(value.as_int());
    case Value::Kind::floating: return float_repr(value.as_float());
    case Value::Kind::object: break;
  }
  // Containers recurse through repr: count it as Python counts C recursion.
  guard_stack();
  if (depth_ >= recursion_limit)
    raise(exc::RecursionError(), "maximum recursion depth exceeded while getting the repr of an object");
  ++depth_;
  try {
    std::string text = value.object()->repr(*this);
    --depth_;
    return text;
  } catch (...) {
    --depth_;
    throw;
  }
}

std::string Evaluator::str(const Value& value) {
  if (value.is_object()) {
    guard_stack();
    return value.object()->str(*this);
  }
  return repr(value);
}

bool Evaluator::truthy(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::none: return false;
    case Value::Kind::boolean:
    case Value::Kind::integer: return value.as_int() != 0;
    case Value::Kind::floating: return value.as_float() != 0;
    case Value::Kind::object: break;
  }
  if (mode == Mode::check) {
    auto* array = value.as<ArrayObject>();
    if (array && array->abstract() && devices::element_count(array->aval.shape) == 1) stop_checking(*this);
  }
  return value.object()->truthy(*this);
}

Value Evaluator::binary(BinOpKind op, const Value& left, const Value& right) {
  if (left.is_number() && right.is_number()) {
    if (auto r = numeric_binary(op, left, right)) return *r;
  }
  if (left.is_object())
    if (auto r = left.object()->binary_op(*this, op, right, false)) return *r;
  if (right.is_object())
    if (auto r = right.object()->binary_op(*this, op, left, true)) return *r;
  raise(exc::TypeError(), std::string("unsupported operand type(s) for ") + operator_text(op) + ": '" +
                              type_name(left) + "' and '" + type_name(right) + "'");
}

Value Evaluator::inplace(BinOpKind op, const Value& left, const Value& right) {
  if (left.is_object())
    if (auto r = left.object()->binary_inplace(*this, op, right)) return *r;
  try {
    return binary(op, left, right);
  } catch (PyError& error) {
    // Python words the failure of `a += b` with "+=".
    if (error.exception->type() == exc::TypeError() && !left.is_number()) {
      auto* message = error.exception->args.empty() ? nullptr : string_of(error.exception->args[0]);
      if (message && message->rfind("unsupported operand", 0) == 0)
        raise(exc::TypeError(), std::string("unsupported operand type(s) for ") + ast::binary_operator_symbol(op) +
                                    "=: '" + type_name(left) + "' and '" + type_name(right) + "'");
    }
    throw;
  }
}

Value Evaluator::unary(ast::UnaryOperator op, const Value& operand) {
  if (op == ast::UnaryOperator::not_) return Value::boolean(!truthy(operand));
  if (operand.is_integral()) {
    std::int64_t x = operand.as_int();
    switch (op) {
      case ast::UnaryOperator::usub:
        if (x == std::numeric_limits<std::int64_t>::min()) integer_overflow();
        return Value::integer(-x);
      case ast::UnaryOperator::uadd: return Value::integer(x);
      case ast::UnaryOperator::invert: return Value::integer(~x);
      default: break;
    }
  } else if (operand.is_float()) {
    if (op == ast::UnaryOperator::usub) return Value::floating(-operand.as_float());
    if (op == ast::UnaryOperator::uadd) return operand;
  } else if (operand.is_object()) {
    if (auto r = operand.object()->unary_op(*this, op)) return *r;
  }
  raise(exc::TypeError(), std::string("bad operand type for unary ") + ast::unary_operator_symbol(op) + ": '" +
                              type_name(operand) + "'");
}

Value Evaluator::compare(CmpOp op, const Value& left, const Value& right) {
  switch (op) {
    case CmpOp::is: return Value::boolean(left.is_same(right));
    case CmpOp::is_not: return Value::boolean(!left.is_same(right));
    case CmpOp::in: return Value::boolean(contains(right, left));
    case CmpOp::not_in: return Value::boolean(!contains(right, left));
    default: break;
  }
  if (left.is_number() && right.is_number()) {
    int c = compare_numbers(left, right);
    switch (op) {
      case CmpOp::eq: return Value::boolean(c == 0);
      case CmpOp::not_eq_: return Value::boolean(c != 0);
      case CmpOp::lt: return Value::boolean(c == -1);
      case CmpOp::lt_e: return Value::boolean(c == -1 || c == 0);
      case CmpOp::gt: return Value::boolean(c == 1);
      case CmpOp::gt_e: return Value::boolean(c == 1 || c == 0);
      default: break;
    }
  }
  if (left.is_object())
    if (auto r = left.object()->compare(*this, op, right, false)) return *r;
  if (right.is_object())
    if (auto r = right.object()->compare(*this, swapped(op), left, true)) return *r;
  if (op == CmpOp::eq) return Value::boolean(left.is_same(right) || values_equal(left, right));
  if (op == CmpOp::not_eq_) return Value::boolean(!(left.is_same(right) || values_equal(left, right)));
  raise(exc::TypeError(), std::string("'") + ast::compare_operator_symbol(op) + "' not supported between instances of '" +
                              type_name(left) + "' and '" + type_name(right) + "'");
}

bool Evaluator::compare_bool(CmpOp op, const Value& left, const Value& right) { return truthy(compare(op, left, right)); }

bool Evaluator::contains(const Value& container, const Value& item) {
  if (container.is_object()) {
    if (auto r = container.object()->contains(*this, item)) return *r;
    if (IteratorRef it = container.object()->iterate(*this)) {
      while (auto v = it->next(*this))
        if (v->is_same(item) || compare_bool(CmpOp::eq, *v, item)) return true;
      return false;
    }
  }
  raise(exc::TypeError(), "argument of type '" + type_name(container) + "' is not iterable");
}

std::optional<Value> Evaluator::find_attribute(const Value& object, const std::string& name) {
  if (object.is_object()) return object.object()->get_attribute(*this, name);
  for (const TypeObject* t = type_of(object).get(); t != nullptr; t = t->base().get())
    if (const ObjectRef* method = t->find_method(name)) return Value(std::make_shared<BoundMethod>(object, *method));
  return std::nullopt;
}

Value Evaluator::get_attribute(const Value& object, const std::string& name) {
  if (auto v = find_attribute(object, name)) return *v;
  if (auto* m = object.as<ModuleObject>())
    raise(exc::AttributeError(), "module '" + m->name() + "' has no attribute '" + name + "'");
  if (auto* t = object.as<TypeObject>())
    raise(exc::AttributeError(), "type object '" + t->name() + "' has no attribute '" + name + "'");
  raise(exc::AttributeError(), "'" + type_name(object) + "' object has no attribute '" + name + "'");
}

Value Evaluator::get_item(const Value& object, const Value& key) {
  // Indexing a container by array data: check mode cannot follow it.
  if (is_unknown(key) && !object.as<ArrayObject>()) stop_checking(*this);
  if (object.is_object())
    if (auto v = object.object()->get_item(*this, key)) return *v;
  if (auto* t = object.as<TypeObject>()) {
    // list[int], tuple[int, ...]: type hints outside annotations evaluate to the class.
    (void)t;
    return object;
  }
  raise(exc::TypeError(), "'" + type_name(object) + "' object is not subscriptable");
}

void Evaluator::set_item(const Value& object, const Value& key, const Value& value) {
  if (object.is_object() && object.object()->set_item(*this, key, value)) return;
  raise(exc::TypeError(), "'" + type_name(object) + "' object does not support item assignment");
}

IteratorRef Evaluator::iterate(const Value& iterable) {
  if (iterable.is_object())
    if (IteratorRef it = iterable.object()->iterate(*this)) return it;
  raise(exc::TypeError(), "'" + type_name(iterable) + "' object is not iterable");
}

std::vector<Value> Evaluator::to_vector(const Value& iterable) {
  if (auto* seq = iterable.as<SequenceObject>()) return seq->items;
  IteratorRef it = iterate(iterable);
  std::vector<Value> out;
  while (auto v = it->next(*this)) {
    out.push_back(std::move(*v));
    if ((out.size() & 0xffff) == 0) poll_interrupt();
  }
  return out;
}

std::int64_t Evaluator::length(const Value& value) {
  if (value.is_object())
    if (auto n = value.object()->length(*this)) return *n;
  raise(exc::TypeError(), "object of type '" + type_name(value) + "' has no len()");
}

std::int64_t Evaluator::index_of(const Value& value) {
  if (value.is_integral()) return value.as_int();
  if (is_unknown(value) || (mode == Mode::check && is_abstract_array(value))) stop_checking(*this);
  raise(exc::TypeError(), "'" + type_name(value) + "' object cannot be interpreted as an integer");
}

// ------------------------------------------------------------ names

Value Evaluator::load_name(const ast::Expr& expr, const std::string& id, Frame& frame) {
  if (frame.scope != nullptr) {
    const NameRef& ref = frame.resolution->name(&expr);
    if (ref.kind == NameRef::Kind::fast) {
      if (const auto& v = frame.fast[ref.index]) return *v;
      raise(exc::UnboundLocalError(), "cannot access local variable '" + id + unbound_local_message);
    }
    if (ref.kind == NameRef::Kind::cell) {
      if (const auto& v = frame.cells[ref.index]->value) return *v;
      if (ref.index < frame.scope->own_cells)
        raise(exc::UnboundLocalError(), "cannot access local variable '" + id + unbound_local_message);
      raise(exc::NameError(), "cannot access free variable '" + id + unbound_local_message + " in enclosing scope");
    }
  }
  if (const Value* v = lookup_global(id)) return *v;
  raise(exc::NameError(), "name '" + id + "' is not defined");
}

void Evaluator::store_name(const void* site, const std::string& id, Value value, Frame& frame) {
  if (frame.scope != nullptr) {
    const NameRef& ref = frame.resolution->name(site);
    if (ref.kind == NameRef::Kind::fast) {
      frame.fast[ref.index] = std::move(value);
      return;
    }
    if (ref.kind == NameRef::Kind::cell) {
      frame.cells[ref.index]->value = std::move(value);
      return;
    }
  }
  globals[id] = std::move(value);
}

void Evaluator::delete_name(const ast::Expr& expr, const std::string& id, Frame& frame) {
  if (frame.scope != nullptr) {
    const NameRef& ref = frame.resolution->name(&expr);
    std::optional<Value>* slot = nullptr;
    if (ref.kind == NameRef::Kind::fast) slot = &frame.fast[ref.index];
    if (ref.kind == NameRef::Kind::cell) slot = &frame.cells[ref.index]->value;
    if (slot != nullptr) {
      if (!*slot) raise(exc::UnboundLocalError(), "cannot access local variable '" + id + unbound_local_message);
      slot->reset();
      return;
    }
  }
  if (globals.erase(id) == 0) raise(exc::NameError(), "name '" + id + "' is not defined");
}

void Evaluator::assign(const ast::Expr& target, Value value, Frame& frame) {
  if (auto* name = std::get_if<ast::Name>(&target.node)) {
    store_name(&target, name->id, std::move(value), frame);
    return;
  }
  if (auto* attribute = std::get_if<ast::Attribute>(&target.node)) {
    Value object = eval(*attribute->value, frame);
    if (object.is_object() && object.object()->set_attribute(*this, attribute->attr, value)) return;
    raise(exc::AttributeError(), "'" + type_name(object) + "' object has no attribute '" + attribute->attr + "'");
  }
  if (auto* subscript = std::get_if<ast::Subscript>(&target.node)) {
    Value object = eval(*subscript->value, frame);
    Value key = eval_subscript_key(*subscript->slice, frame);
    set_item(object, key, value);
    return;
  }
  const ast::ExprList* elements = nullptr;
  if (auto* tuple = std::get_if<ast::Tuple>(&target.node)) elements = &tuple->elts;
  if (auto* list = std::get_if<ast::List>(&target.node)) elements = &list->elts;
  if (elements == nullptr) raise(exc::SyntaxError(), "cannot assign to expression");
  if (!value.is_object() || !value.object()->iterate(*this))
    raise(exc::TypeError(), "cannot unpack non-iterable " + type_name(value) + " object");
  std::vector<Value> items = to_vector(value);
  std::size_t star = elements->size();
  for (std::size_t i = 0; i < elements->size(); ++i)
    if (std::holds_alternative<ast::Starred>((*elements)[i]->node)) star = i;
  if (star == elements->size()) {
    if (items.size() > elements->size())
      raise(exc::ValueError(), "too many values to unpack (expected " + std::to_string(elements->size()) + ")");
    if (items.size() < elements->size())
      raise(exc::ValueError(), "not enough values to unpack (expected " + std::to_string(elements->size()) + ", got " +
                                   std::to_string(items.size()) + ")");
    for (std::size_t i = 0; i < items.size(); ++i) assign(*(*elements)[i], std::move(items[i]), frame);
    return;
  }
  std::size_t after = elements->size() - star - 1;
  if (items.size() < star + after)
    raise(exc::ValueError(), "not enough values to unpack (expected at least " + std::to_string(star + after) +
                                 ", got " + std::to_string(items.size()) + ")");
  for (std::size_t i = 0; i < star; ++i) assign(*(*elements)[i], items[i], frame);
  std::vector<Value> middle(items.begin() + static_cast<std::ptrdiff_t>(star),
                            items.end() - static_cast<std::ptrdiff_t>(after));
  assign(*std::get<ast::Starred>((*elements)[star]->node).value, make_list(std::move(middle)), frame);
  for (std::size_t i = 0; i < after; ++i) assign(*(*elements)[star + 1 + i], items[items.size() - after + i], frame);
}

void Evaluator::delete_target(const ast::Expr& target, Frame& frame) {
  if (auto* name = std::get_if<ast::Name>(&target.node)) return delete_name(target, name->id, frame);
  if (auto* subscript = std::get_if<ast::Subscript>(&target.node)) {
    Value object = eval(*subscript->value, frame);
    Value key = eval_subscript_key(*subscript->slice, frame);
    if (object.is_object() && object.object()->delete_item(*this, key)) return;
    raise(exc::TypeError(), "'" + type_name(object) + "' object doesn't support item deletion");
  }
  if (auto* tuple = std::get_if<ast::Tuple>(&target.node)) {
    for (const auto& e : tuple->elts) delete_target(*e, frame);
    return;
  }
  if (auto* list = std::get_if<ast::List>(&target.node)) {
    for (const auto& e : list->elts) delete_target(*e, frame);
    return;
  }
  if (auto* attribute = std::get_if<ast::Attribute>(&target.node)) {
    Value object = eval(*attribute->value, frame);
    raise(exc::AttributeError(), "'" + type_name(object) + "' object attribute '" + attribute->attr + "' cannot be deleted");
  }
  raise(exc::SyntaxError(), "cannot delete expression");
}

// ------------------------------------------------------------ expressions

Value Evaluator::eval(const ast::Expr& expr, Frame& frame) {
  guard_stack();
  try {
    return eval_node(expr, frame);
  } catch (PyError& error) {
    ExceptionObject& exception = *error.exception;
    if (!exception.frame_span_set) {
      exception.frame_span = expr.span;
      exception.frame_span_set = true;
    }
    throw;
  }
}

void Evaluator::eval_elements(const ast::ExprList& elements, Frame& frame, std::vector<Value>& out) {
  out.reserve(elements.size());
  for (const auto& e : elements) {
    if (auto* starred = std::get_if<ast::Starred>(&e->node)) {
      Value iterable = eval(*starred->value, frame);
      std::vector<Value> items = to_vector(iterable);
      out.insert(out.end(), std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
    } else {
      out.push_back(eval(*e, frame));
    }
  }
}

Value Evaluator::eval_subscript_key(const ast::Expr& slice, Frame& frame) {
  if (auto* tuple = std::get_if<ast::Tuple>(&slice.node)) {
    std::vector<Value> parts;
    for (const auto& e : tuple->elts) parts.push_back(eval_subscript_key(*e, frame));
    return make_tuple(std::move(parts));
  }
  return eval(slice, frame);
}

Value Evaluator::eval_call(const ast::Call& call, Frame& frame) {
  Value callee = eval(*call.func, frame);
  CallArgs args;
  for (const auto& e : call.args) {
    if (auto* starred = std::get_if<ast::Starred>(&e->node)) {
      Value iterable = eval(*starred->value, frame);
      if (!iterable.is_object() || !iterable.object()->iterate(*this))
        raise(exc::TypeError(), qualified_name(callee) + "() argument after * must be an iterable, not " +
                                    type_name(iterable));
      std::vector<Value> items = to_vector(iterable);
      args.positional.insert(args.positional.end(), items.begin(), items.end());
    } else {
      args.positional.push_back(eval(*e, frame));
    }
  }
  for (const auto& keyword : call.keywords) {
    Value value = eval(*keyword.value, frame);
    auto add = [&](std::string name, Value v) {
      for (const auto& [existing, unused] : args.keywords)
        if (existing == name)
          raise(exc::TypeError(), qualified_name(callee) + "() got multiple values for keyword argument '" + name + "'");
      args.keywords.emplace_back(std::move(name), std::move(v));
    };
    if (keyword.name) {
      add(keyword.name->name, std::move(value));
      continue;
    }
    auto* mapping = value.as<DictObject>();
    if (!mapping)
      raise(exc::TypeError(), qualified_name(callee) + "() argument after ** must be a mapping, not " + type_name(value));
    for (const auto& entry : mapping->table.entries()) {
      if (!entry.live) continue;
      const std::string* key = string_of(entry.key);
      if (!key) raise(exc::TypeError(), "keywords must be strings");
      add(*key, entry.value);
    }
  }
  return this->call(callee, args);
}

Value Evaluator::make_function(const void* scope_node, const ast::Parameters& params, Frame& frame) {
  auto function = std::make_shared<FunctionObject>();
  function->program = *frame.program;
  function->scope = &function->program->resolution.scope(scope_node);
  function->parameters = &params;
  Signature& signature = function->signature;
  signature.name = function->scope->qualname;
  signature.user_defined = true;
  auto add = [&](const ast::Parameter& p, Parameter::Kind kind) {
    Parameter parameter;
    parameter.name = p.name.name;
    parameter.kind = kind;
    if (p.default_) {
      parameter.default_value = eval(*p.default_, frame);
      parameter.required = false;
    }
    if (kind == Parameter::Kind::varargs || kind == Parameter::Kind::kwargs) parameter.required = false;
    signature.parameters.push_back(std::move(parameter));
  };
  for (const auto& p : params.positional) add(p, Parameter::Kind::positional_or_keyword);
  if (params.varargs) add(*params.varargs, Parameter::Kind::varargs);
  for (const auto& p : params.keyword_only) add(p, Parameter::Kind::keyword_only);
  if (params.kwargs) add(*params.kwargs, Parameter::Kind::kwargs);
  for (std::uint32_t source : function->scope->free_sources) function->closure.push_back(frame.cells.at(source));
  return Value(function);
}

Value Evaluator::eval_joined_str(const ast::JoinedStr& node, Frame& frame) {
  std::string out;
  for (const auto& part : node.parts) {
    if (auto* text = std::get_if<std::string>(&part)) {
      out += *text;
      continue;
    }
    const auto& field = std::get<ast::FormattedValue>(part);
    Value value = eval(*field.value, frame);
    if (field.conversion == 'r' || field.conversion == 'a') value = make_str(repr(value));
    else if (field.conversion == 's') value = make_str(str(value));
    out += format_value(*this, value, field.format_spec);
  }
  return make_str(std::move(out));
}

Value Evaluator::eval_comprehension(const ast::Expr& expr, Frame& frame) {
  const std::vector<ast::Comprehension>* generators = nullptr;
  std::visit(
      [&](const auto& node) {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<T, ast::ListComp> || std::is_same_v<T, ast::SetComp> ||
                      std::is_same_v<T, ast::DictComp> || std::is_same_v<T, ast::GeneratorExp>)
          generators = &node.generators;
      },
      expr.node);
  Value first = eval(*generators->front().iter, frame);
  const ScopeInfo& scope = frame.resolution->scope(&expr);
  Frame inner;
  inner.scope = &scope;
  inner.program = frame.program;
  inner.resolution = frame.resolution;
  inner.fast.resize(scope.fast_names.size());
  for (std::size_t i = 0; i < scope.own_cells; ++i) inner.cells.push_back(new_cell());
  for (std::uint32_t source : scope.free_sources) inner.cells.push_back(frame.cells.at(source));

  if (auto* generator_node = std::get_if<ast::GeneratorExp>(&expr.node)) {
    auto generator = std::make_shared<GeneratorObject>();
    generator->program = *frame.program;
    generator->node = generator_node;
    generator->frame = std::move(inner);
    generator->frame.program = &generator->program;
    generator->iterators.push_back(iterate(first));  // the first iterable is taken now, as in Python
    return Value(generator);
  }

  std::vector<Value> items;
  std::shared_ptr<DictObject> dict;
  std::shared_ptr<SetObject> set;
  if (std::holds_alternative<ast::DictComp>(expr.node)) dict = make_dict();
  if (std::holds_alternative<ast::SetComp>(expr.node)) set = make_set();

  auto emit = [&]() {
    std::visit(
        [&](const auto& node) {
          using T = std::decay_t<decltype(node)>;
          if constexpr (std::is_same_v<T, ast::DictComp>) {
            Value key = eval(*node.key, inner);
            Value value = eval(*node.value, inner);
            dict->table.insert(key, std::move(value));
          } else if constexpr (std::is_same_v<T, ast::SetComp>) {
            set->table.insert(eval(*node.elt, inner), Value());
          } else if constexpr (std::is_same_v<T, ast::ListComp>) {
            items.push_back(eval(*node.elt, inner));
          }
        },
        expr.node);
  };
  std::function<void(std::size_t, const Value&)> run = [&](std::size_t level, const Value& iterable) {
    const ast::Comprehension& generator = (*generators)[level];
    IteratorRef it = iterate(iterable);
    while (auto item = it->next(*this)) {
      poll_interrupt();
      assign(*generator.target, std::move(*item), inner);
      bool keep = true;
      for (const auto& condition : generator.ifs)
        if (!truthy(eval(*condition, inner))) {
          keep = false;
          break;
        }
      if (!keep) continue;
      if (level + 1 < generators->size()) {
        guard_stack();
        run(level + 1, eval(*(*generators)[level + 1].iter, inner));
      } else {
        emit();
      }
    }
  };
  run(0, first);
  if (dict) return Value(dict);
  if (set) return Value(set);
  return make_list(std::move(items));
}

std::optional<Value> GeneratorObject::next(Evaluator& evaluator) { return evaluator.resume_generator(*this); }

std::optional<Value> Evaluator::resume_generator(GeneratorObject& generator) {
  const auto& generators = generator.node->generators;
  Frame& frame = generator.frame;
  try {
    while (!generator.finished) {
      if (generator.iterators.empty()) {
        generator.finished = true;
        break;
      }
      std::size_t level = generator.iterators.size() - 1;
      poll_interrupt();
      auto item = generator.iterators[level]->next(*this);
      if (!item) {
        generator.iterators.pop_back();
        continue;
      }
      assign(*generators[level].target, std::move(*item), frame);
      bool keep = true;
      for (const auto& condition : generators[level].ifs)
        if (!truthy(eval(*condition, frame))) {
          keep = false;
          break;
        }
      if (!keep) continue;
      if (level + 1 < generators.size()) {
        generator.iterators.push_back(iterate(eval(*generators[level + 1].iter, frame)));
        continue;
      }
      return eval(*generator.node->elt, frame);
    }
  } catch (PyError&) {
    generator.finished = true;  // a generator that raised is exhausted
    generator.iterators.clear();
    throw;
  }
  generator.iterators.clear();
  return std::nullopt;
}

Value Evaluator::eval_node(const ast::Expr& expr, Frame& frame) {
  return std::visit(
      [&](const auto& node) -> Value {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<T, ast::Constant>) {
          return std::visit(
              [](const auto& c) -> Value {
                using C = std::decay_t<decltype(c)>;
                if constexpr (std::is_same_v<C, ast::NoneLiteral>) return Value::none();
                else if constexpr (std::is_same_v<C, bool>) return Value::boolean(c);
                else if constexpr (std::is_same_v<C, std::int64_t>) return Value::integer(c);
                else if constexpr (std::is_same_v<C, double>) return Value::floating(c);
                else if constexpr (std::is_same_v<C, std::string>) return make_str(c);
                else return ellipsis_value();
              },
              node.value);
        } else if constexpr (std::is_same_v<T, ast::Name>) {
          return load_name(expr, node.id, frame);
        } else if constexpr (std::is_same_v<T, ast::JoinedStr>) {
          return eval_joined_str(node, frame);
        } else if constexpr (std::is_same_v<T, ast::Tuple>) {
          std::vector<Value> items;
          eval_elements(node.elts, frame, items);
          return make_tuple(std::move(items));
        } else if constexpr (std::is_same_v<T, ast::List>) {
          std::vector<Value> items;
          eval_elements(node.elts, frame, items);
          return make_list(std::move(items));
        } else if constexpr (std::is_same_v<T, ast::Set>) {
          std::vector<Value> items;
          eval_elements(node.elts, frame, items);
          auto set = make_set();
          for (auto& item : items) set->table.insert(item, Value());
          return Value(set);
        } else if constexpr (std::is_same_v<T, ast::Dict>) {
          auto dict = make_dict();
          for (std::size_t i = 0; i < node.values.size(); ++i) {
            if (!node.keys[i]) {
              Value other = eval(*node.values[i], frame);
              auto* mapping = other.as<DictObject>();
              if (!mapping) raise(exc::TypeError(), "'" + type_name(other) + "' object is not a mapping");
              for (const auto& entry : mapping->table.entries())
                if (entry.live) dict->table.insert(entry.key, entry.value);
              continue;
            }
            Value key = eval(*node.keys[i], frame);
            Value value = eval(*node.values[i], frame);
            dict->table.insert(key, std::move(value));
          }
          return Value(dict);
        } else if constexpr (std::is_same_v<T, ast::ListComp> || std::is_same_v<T, ast::SetComp> ||
                             std::is_same_v<T, ast::DictComp> || std::is_same_v<T, ast::GeneratorExp>) {
          return eval_comprehension(expr, frame);
        } else if constexpr (std::is_same_v<T, ast::BinOp>) {
          Value left = eval(*node.left, frame);
          Value right = eval(*node.right, frame);
          return binary(node.op, left, right);
        } else if constexpr (std::is_same_v<T, ast::UnaryOp>) {
          return unary(node.op, eval(*node.operand, frame));
        } else if constexpr (std::is_same_v<T, ast::BoolOp>) {
          Value result;
          for (const auto& e : node.values) {
            result = eval(*e, frame);
            bool t = truthy(result);
            if (node.op == ast::BooleanOperator::and_ ? !t : t) return result;
          }
          return result;
        } else if constexpr (std::is_same_v<T, ast::Compare>) {
          Value left = eval(*node.left, frame);
          Value result = Value::boolean(true);
          for (std::size_t i = 0; i < node.ops.size(); ++i) {
            Value right = eval(*node.comparators[i], frame);
            result = compare(node.ops[i], left, right);
            if (i + 1 < node.ops.size() && !truthy(result)) return result;
            left = std::move(right);
          }
          return result;
        } else if constexpr (std::is_same_v<T, ast::IfExp>) {
          return truthy(eval(*node.test, frame)) ? eval(*node.body, frame) : eval(*node.orelse, frame);
        } else if constexpr (std::is_same_v<T, ast::Starred>) {
          raise(exc::SyntaxError(), "can't use starred expression here");
        } else if constexpr (std::is_same_v<T, ast::Call>) {
          return eval_call(node, frame);
        } else if constexpr (std::is_same_v<T, ast::Attribute>) {
          return get_attribute(eval(*node.value, frame), node.attr);
        } else if constexpr (std::is_same_v<T, ast::Subscript>) {
          Value object = eval(*node.value, frame);
          Value key = eval_subscript_key(*node.slice, frame);
          return get_item(object, key);
        } else if constexpr (std::is_same_v<T, ast::Slice>) {
          Value lower = node.lower ? eval(*node.lower, frame) : Value::none();
          Value upper = node.upper ? eval(*node.upper, frame) : Value::none();
          Value step = node.step ? eval(*node.step, frame) : Value::none();
          return Value(std::make_shared<SliceObject>(std::move(lower), std::move(upper), std::move(step)));
        } else if constexpr (std::is_same_v<T, ast::Lambda>) {
          Value function = make_function(&expr, node.params, frame);
          function.as<FunctionObject>()->lambda_body = node.body.get();
          return function;
        }
      },
      expr.node);
}

// ------------------------------------------------------------ statements

Evaluator::Flow Evaluator::exec_body(const ast::Body& body, Frame& frame) {
  for (const auto& stmt : body) {
    Flow flow = exec(*stmt, frame);
    if (flow != Flow::normal) return flow;
  }
  return Flow::normal;
}

Evaluator::Flow Evaluator::exec(const ast::Stmt& stmt, Frame& frame) {
  guard_stack();
  poll_interrupt();
  struct RestoreSpan {
    lang::Span& span;
    lang::Span saved;
    ~RestoreSpan() { span = saved; }
  } restore_span{statement_span, statement_span};
  struct RestoreStatement {
    const ast::Stmt*& statement;
    const ast::Stmt* saved;
    ~RestoreStatement() { statement = saved; }
  } restore_statement{statement, statement};
  statement_span = stmt.span;
  statement = &stmt;
  try {
    return std::visit(
        [&](const auto& node) -> Flow {
          using T = std::decay_t<decltype(node)>;
          if constexpr (std::is_same_v<T, ast::ExprStmt>) {
            Value value = eval(*node.value, frame);
            if (echo_expression_statements && frame.scope == nullptr && !value.is_none()) {
              write(repr(value) + "\n");
              globals["_"] = std::move(value);
            }
          } else if constexpr (std::is_same_v<T, ast::Assign>) {
            Value value = eval(*node.value, frame);
            for (const auto& target : node.targets) assign(*target, value, frame);
          } else if constexpr (std::is_same_v<T, ast::AugAssign>) {
            const ast::Expr& target = *node.target;
            if (auto* name = std::get_if<ast::Name>(&target.node)) {
              Value current = load_name(target, name->id, frame);
              Value operand = eval(*node.value, frame);
              store_name(&target, name->id, inplace(node.op, current, operand), frame);
            } else if (auto* attribute = std::get_if<ast::Attribute>(&target.node)) {
              Value object = eval(*attribute->value, frame);
              Value current = get_attribute(object, attribute->attr);
              Value operand = eval(*node.value, frame);
              Value result = inplace(node.op, current, operand);
              if (!object.is_object() || !object.object()->set_attribute(*this, attribute->attr, result))
                raise(exc::AttributeError(), "'" + type_name(object) + "' object has no attribute '" + attribute->attr + "'");
            } else if (auto* subscript = std::get_if<ast::Subscript>(&target.node)) {
              Value object = eval(*subscript->value, frame);
              Value key = eval_subscript_key(*subscript->slice, frame);
              Value current = get_item(object, key);
              Value operand = eval(*node.value, frame);
              set_item(object, key, inplace(node.op, current, operand));
            } else {
              raise(exc::SyntaxError(), "illegal expression for augmented assignment");
            }
          } else if constexpr (std::is_same_v<T, ast::AnnAssign>) {
            // The annotation is kept unevaluated (it may name shape variables).
            if (node.value) {
              Value value = eval(*node.value, frame);
              if (const auto* name = std::get_if<ast::Name>(&node.target->node))
                check_annotation(node.annotation.get(), value, frame.shape_variables, "variable '" + name->id + "'");
              assign(*node.target, std::move(value), frame);
            }
          } else if constexpr (std::is_same_v<T, ast::FunctionDef>) {
            std::vector<Value> decorators;
            for (const auto& d : node.decorators) decorators.push_back(eval(*d, frame));
            Value function = make_function(&stmt, node.params, frame);
            auto* f = function.as<FunctionObject>();
            f->body = &node.body;
            f->returns = node.returns.get();
            for (auto d = decorators.rbegin(); d != decorators.rend(); ++d) function = call(*d, {function});
            store_name(&stmt, node.name.name, std::move(function), frame);
          } else if constexpr (std::is_same_v<T, ast::Return>) {
            frame.return_value = node.value ? eval(*node.value, frame) : Value::none();
            return Flow::return_;
          } else if constexpr (std::is_same_v<T, ast::If>) {
            return exec_body(truthy(eval(*node.test, frame)) ? node.body : node.orelse, frame);
          } else if constexpr (std::is_same_v<T, ast::While>) {
            while (true) {
              poll_interrupt();
              if (!truthy(eval(*node.test, frame))) return exec_body(node.orelse, frame);
              Flow flow = exec_body(node.body, frame);
              if (flow == Flow::break_) break;
              if (flow == Flow::return_) return flow;
            }
          } else if constexpr (std::is_same_v<T, ast::For>) {
            IteratorRef it = iterate(eval(*node.iter, frame));
            while (true) {
              poll_interrupt();
              auto item = it->next(*this);
              if (!item) return exec_body(node.orelse, frame);
              assign(*node.target, std::move(*item), frame);
              Flow flow = exec_body(node.body, frame);
              if (flow == Flow::break_) break;
              if (flow == Flow::return_) return flow;
            }
          } else if constexpr (std::is_same_v<T, ast::Break>) {
            return Flow::break_;
          } else if constexpr (std::is_same_v<T, ast::Continue>) {
            return Flow::continue_;
          } else if constexpr (std::is_same_v<T, ast::Try>) {
            return exec_try(node, frame);
          } else if constexpr (std::is_same_v<T, ast::Raise>) {
            exec_raise(node, frame);
          } else if constexpr (std::is_same_v<T, ast::Assert>) {
            Value test = eval(*node.test, frame);
            // Asserting array data that check mode does not have is skipped.
            bool unknown = is_unknown(test) || (mode == Mode::check && is_abstract_array(test));
            if (!unknown && !truthy(test)) {
              std::vector<Value> args;
              if (node.msg) args.push_back(eval(*node.msg, frame));
              throw PyError{std::make_shared<ExceptionObject>(exc::AssertionError(), std::move(args))};
            }
          } else if constexpr (std::is_same_v<T, ast::Import>) {
            exec_import(node, frame);
          } else if constexpr (std::is_same_v<T, ast::ImportFrom>) {
            exec_import_from(node, frame);
          } else if constexpr (std::is_same_v<T, ast::Delete>) {
            for (const auto& target : node.targets) delete_target(*target, frame);
          } else if constexpr (std::is_same_v<T, ast::With>) {
            return exec_with(node, frame);
          } else if constexpr (std::is_same_v<T, ast::LineMagic>) {
            exec_timeit(node, stmt, frame);
          }
          return Flow::normal;  // Pass, Global, Nonlocal: nothing to run
        },
        stmt.node);
  } catch (PyError& error) {
    ExceptionObject& exception = *error.exception;
    if (!exception.frame_span_set) {
      exception.frame_span = stmt.span;
      exception.frame_span_set = true;
    }
    throw;
  }
}

bool Evaluator::exception_matches(const ExceptionObject& exception, const Value& handler_type) {
  if (auto* cls = handler_type.as<TypeObject>()) {
    if (!cls->is_subclass_of(*exc::BaseException()))
      raise(exc::TypeError(), "catching classes that do not inherit from BaseException is not allowed");
    return exception.type()->is_subclass_of(*cls);
  }
  if (auto* tuple = handler_type.as<TupleObject>()) {
    for (const auto& item : tuple->items)
      if (exception_matches(exception, item)) return true;
    return false;
  }
  raise(exc::TypeError(), "catching classes that do not inherit from BaseException is not allowed");
}

Evaluator::Flow Evaluator::exec_try(const ast::Try& node, Frame& frame) {
  Flow flow = Flow::normal;
  std::optional<PyError> pending;
  try {
    bool raised = false;
    try {
      struct InTry {
        int& depth;
        explicit InTry(int& d) : depth(d) { ++depth; }
        ~InTry() { --depth; }
      } in_try(try_depth);
      flow = exec_body(node.body, frame);
    } catch (PyError& error) {
      raised = true;
      std::shared_ptr<ExceptionObject> exception = error.exception;
      if (is_check_stop(*exception)) throw;
      const ast::ExceptHandler* chosen = nullptr;
      for (const auto& handler : node.handlers) {
        if (!handler.type || exception_matches(*exception, eval(*handler.type, frame))) {
          chosen = &handler;
          break;
        }
      }
      if (chosen == nullptr) throw;
      if (chosen->name) store_name(chosen, chosen->name->name, Value(exception), frame);
      handling.push_back(exception);
      struct HandlingScope {
        std::vector<std::shared_ptr<ExceptionObject>>& stack;
        ~HandlingScope() { stack.pop_back(); }
      } handling_scope{handling};
      try {
        flow = exec_body(chosen->body, frame);
      } catch (PyError& inner) {
        if (inner.exception != exception && inner.exception->context.is_none())
          inner.exception->context = Value(exception);
        throw;
      }
      if (chosen->name) {
        // Python unbinds the `as` name when the handler ends.
        if (frame.scope != nullptr) {
          const NameRef& ref = frame.resolution->name(chosen);
          if (ref.kind == NameRef::Kind::fast) frame.fast[ref.index].reset();
          else if (ref.kind == NameRef::Kind::cell) frame.cells[ref.index]->value.reset();
          else globals.erase(chosen->name->name);
        } else {
          globals.erase(chosen->name->name);
        }
      }
    }
    if (!raised && flow == Flow::normal) flow = exec_body(node.orelse, frame);
  } catch (PyError& error) {
    if (node.finalbody.empty()) throw;
    pending = error;
  }
  if (!node.finalbody.empty()) {
    Value saved_return = frame.return_value;
    Flow final_flow = exec_body(node.finalbody, frame);
    if (final_flow != Flow::normal) return final_flow;  // break/continue/return discard a pending exception
    frame.return_value = std::move(saved_return);
    if (pending) throw *pending;
  }
  return flow;
}

void Evaluator::exec_raise(const ast::Raise& node, Frame& frame) {
  if (!node.exc) {
    if (handling.empty()) raise(exc::RuntimeError(), "No active exception to reraise");
    throw PyError{handling.back()};
  }
  auto to_exception = [&](const Value& v) -> std::shared_ptr<ExceptionObject> {
    if (auto* cls = v.as<TypeObject>(); cls && cls->is_subclass_of(*exc::BaseException())) {
      Value instance = call(v, std::vector<Value>{});
      return std::static_pointer_cast<ExceptionObject>(instance.object());
    }
    if (v.as<ExceptionObject>()) return std::static_pointer_cast<ExceptionObject>(v.object());
    return nullptr;
  };
  Value value = eval(*node.exc, frame);
  std::shared_ptr<ExceptionObject> exception = to_exception(value);
  if (!exception) raise(exc::TypeError(), "exceptions must derive from BaseException");
  if (node.cause) {
    Value cause = eval(*node.cause, frame);
    if (cause.is_none()) {
      exception->cause = Value::none();
    } else if (auto c = to_exception(cause)) {
      exception->cause = Value(c);
    } else {
      raise(exc::TypeError(), "exception causes must derive from BaseException");
    }
  }
  exception->reset_traceback();
  if (!handling.empty() && handling.back() != exception && exception->context.is_none())
    exception->context = Value(handling.back());
  throw PyError{exception};
}

Evaluator::Flow Evaluator::exec_with(const ast::With& node, Frame& frame) {
  std::function<Flow(std::size_t)> enter_item = [&](std::size_t index) -> Flow {
    if (index == node.items.size()) return exec_body(node.body, frame);
    const ast::WithItem& item = node.items[index];
    Value manager = eval(*item.context_expr, frame);
    std::optional<Value> entered = manager.is_object() ? manager.object()->enter(*this) : std::nullopt;
    if (!entered)
      raise(exc::TypeError(), "'" + type_name(manager) + "' object does not support the context manager protocol");
    if (item.optional_vars) assign(*item.optional_vars, *entered, frame);
    Flow flow;
    try {
      flow = enter_item(index + 1);
    } catch (PyError& error) {
      Value pending(error.exception);
      if (!manager.object()->exit(*this, &pending)) throw;
      return Flow::normal;
    }
    manager.object()->exit(*this, nullptr);
    return flow;
  };
  return enter_item(0);
}

std::shared_ptr<ModuleObject> Evaluator::import_module(const std::string& name) {
  auto found = modules.find(name);
  if (found == modules.end()) raise(exc::ModuleNotFoundError(), "No module named '" + name + "'");
  return found->second;
}

void Evaluator::exec_import(const ast::Import& node, Frame& frame) {
  for (const auto& alias : node.names) {
    std::shared_ptr<ModuleObject> module = import_module(alias.name);
    if (alias.asname) {
      store_name(&alias, alias.asname->name, Value(module), frame);
    } else {
      std::string top = alias.name.substr(0, alias.name.find('.'));
      store_name(&alias, top, Value(import_module(top)), frame);
    }
  }
}

void Evaluator::exec_import_from(const ast::ImportFrom& node, Frame& frame) {
  std::shared_ptr<ModuleObject> module = import_module(node.module);
  for (const auto& alias : node.names) {
    if (alias.name == "*") {
      for (const auto& name : module->attribute_names())
        if (name.empty() || name[0] != '_') globals[name] = *module->find(name);
      continue;
    }
    Value value;
    if (const Value* member = module->find(alias.name)) {
      value = *member;
    } else if (auto sub = modules.find(node.module + "." + alias.name); sub != modules.end()) {
      value = Value(sub->second);
    } else {
      raise(exc::ImportError(), "cannot import name '" + alias.name + "' from '" + node.module + "'");
    }
    store_name(&alias, alias.asname ? alias.asname->name : alias.name, std::move(value), frame);
  }
}

void Evaluator::exec_timeit(const ast::LineMagic& node, const ast::Stmt& stmt, Frame& frame) {
  if (node.name.name != "timeit")
    raise(exc::NameError(), "Line magic function `%" + node.name.name + "` not found.");
  long long number = 0, repeat = 7;  // IPython's defaults: number chosen below, 7 runs
  for (std::size_t i = 0; i < node.options.size(); ++i) {
    const std::string& option = node.options[i];
    auto value_of = [&](const std::string& flag) -> std::optional<long long> {
      if (option == flag && i + 1 < node.options.size()) return std::atoll(node.options[++i].c_str());
      if (option.rfind(flag, 0) == 0 && option.size() > flag.size()) return std::atoll(option.c_str() + flag.size());
      return std::nullopt;
    };
    if (auto n = value_of("-n")) number = *n;
    else if (auto r = value_of("-r")) repeat = *r;
  }
  if (repeat < 1) repeat = 1;
  // The timed statement's value is not echoed at the prompt (IPython's %timeit).
  struct NoEcho {
    bool& echo;
    bool saved;
    explicit NoEcho(bool& echo) : echo(echo), saved(echo) { echo = false; }
    ~NoEcho() { echo = saved; }
  } no_echo(echo_expression_statements);
  using Clock = std::chrono::steady_clock;
  auto time_loops = [&](long long loops) {
    auto start = Clock::now();
    for (long long k = 0; k < loops; ++k) {
      poll_interrupt();
      exec(*node.statement, frame);
    }
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  if (number <= 0) {
    // IPython: the first power of ten whose total time reaches 0.2 s.
    number = 1;
    for (int index = 0; index < 10; ++index) {
      number = 1;
      for (int k = 0; k < index; ++k) number *= 10;
      if (time_loops(number) >= 0.2) break;
    }
  }
  double best = std::numeric_limits<double>::infinity();
  for (long long r = 0; r < repeat; ++r) best = std::min(best, time_loops(number));
  best /= static_cast<double>(number);
  write(std::to_string(number) + " loop" + (number == 1 ? "" : "s") + ", best of " + std::to_string(repeat) + ": " +
        format_time(best) + " per loop\n");
  if (after_timeit) after_timeit(*this, stmt, [&] { exec(*node.statement, frame); });
}

}  // namespace interp
