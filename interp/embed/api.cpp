// The public embedding API (include/shardlang/shardlang.hpp) on top of the
// evaluator. No C++ exception leaves these functions: errors become
// Diagnostics at this boundary.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <new>
#include <set>
#include <sstream>

#include "devices/chrome_trace.hpp"
#include "interp/embed/api_state.hpp"
#include "interp/transforms/check_mode.hpp"
#include "interp/transforms/costing.hpp"
#include "interp/python/classes.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/ops/runtime.hpp"
#include "interp/python/format.hpp"
#include "interp/library/npy_io.hpp"
#include "lang/diagnostic.hpp"
#include "lang/parser.hpp"
#include "shardlang/shardlang.hpp"

namespace shardlang {

// ------------------------------------------------------------ Value

struct Value::Impl {
  Kind kind = Kind::none;
  bool boolean = false;
  std::int64_t integer = 0;
  double number = 0;
  std::string text;          // a string's value, or the repr of an `other`
  std::vector<Value> items;  // list or tuple
  Array array;               // an array
  interp::Value original;    // an `other` value, to hand back to the same interpreter
};

namespace {

std::shared_ptr<const Value::Impl> make_impl(Value::Kind kind) {
  auto impl = std::make_shared<Value::Impl>();
  impl->kind = kind;
  return impl;
}

const std::string& empty_string() {
  static const std::string empty;
  return empty;
}

const std::vector<Value>& empty_items() {
  static const std::vector<Value> empty;
  return empty;
}

}  // namespace

Value::Value() : impl_(make_impl(Kind::none)) {}
Value::Value(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
Value Value::none() { return Value(); }

Value Value::boolean(bool b) {
  auto impl = std::make_shared<Impl>();
  impl->kind = Kind::boolean;
  impl->boolean = b;
  return Value(std::move(impl));
}

Value Value::integer(std::int64_t i) {
  auto impl = std::make_shared<Impl>();
  impl->kind = Kind::integer;
  impl->integer = i;
  return Value(std::move(impl));
}

Value Value::number(double d) {
  auto impl = std::make_shared<Impl>();
  impl->kind = Kind::number;
  impl->number = d;
  return Value(std::move(impl));
}

Value Value::string(std::string s) {
  auto impl = std::make_shared<Impl>();
  impl->kind = Kind::string;
  impl->text = std::move(s);
  return Value(std::move(impl));
}

Value Value::list(std::vector<Value> items) {
  auto impl = std::make_shared<Impl>();
  impl->kind = Kind::list;
  impl->items = std::move(items);
  return Value(std::move(impl));
}

Value Value::tuple(std::vector<Value> items) {
  auto impl = std::make_shared<Impl>();
  impl->kind = Kind::tuple;
  impl->items = std::move(items);
  return Value(std::move(impl));
}

Value Value::array(Array array) {
  if (!array) return Value();
  auto impl = std::make_shared<Impl>();
  impl->kind = Kind::array;
  impl->array = std::move(array);
  return Value(std::move(impl));
}

Value::Kind Value::kind() const { return impl_->kind; }
bool Value::as_bool() const { return impl_->kind == Kind::boolean ? impl_->boolean : impl_->integer != 0; }
std::int64_t Value::as_int() const {
  if (impl_->kind == Kind::boolean) return impl_->boolean ? 1 : 0;
  if (impl_->kind == Kind::number) return static_cast<std::int64_t>(impl_->number);
  return impl_->integer;
}
double Value::as_double() const {
  if (impl_->kind == Kind::integer) return static_cast<double>(impl_->integer);
  if (impl_->kind == Kind::boolean) return impl_->boolean ? 1.0 : 0.0;
  return impl_->number;
}
const std::string& Value::as_string() const { return impl_->kind == Kind::string ? impl_->text : empty_string(); }
const std::vector<Value>& Value::items() const {
  return impl_->kind == Kind::list || impl_->kind == Kind::tuple ? impl_->items : empty_items();
}

const Array& Value::as_array() const {
  static const Array empty;
  return impl_->kind == Kind::array ? impl_->array : empty;
}

std::string Value::repr() const {
  switch (impl_->kind) {
    case Kind::none: return "None";
    case Kind::boolean: return impl_->boolean ? "True" : "False";
    case Kind::integer: return std::to_string(impl_->integer);
    case Kind::number: return interp::float_repr(impl_->number);
    case Kind::string: return interp::string_repr(impl_->text);
    case Kind::list:
    case Kind::tuple: {
      bool is_list = impl_->kind == Kind::list;
      std::string out = is_list ? "[" : "(";
      for (std::size_t i = 0; i < impl_->items.size(); ++i) out += (i ? ", " : "") + impl_->items[i].repr();
      if (!is_list && impl_->items.size() == 1) out += ",";
      return out + (is_list ? "]" : ")");
    }
    case Kind::array: return impl_->text;
    case Kind::other: return impl_->text;
  }
  return {};
}

// ------------------------------------------------------------ Result, Diagnostic

bool Result::ok() const {
  for (const auto& d : diagnostics_)
    if (d.severity == Severity::error) return false;
  return true;
}

namespace {

lang::SourceRange to_range(const Location& where, const std::string& line_text) {
  lang::SourceRange range;
  range.file_name = where.file;
  range.begin = lang::Position{where.line, where.column};
  range.end = lang::Position{where.end_line, where.end_column};
  range.line_text = line_text;
  return range;
}

lang::Diagnostic to_lang(const Diagnostic& d) {
  lang::Diagnostic out;
  out.severity = static_cast<lang::Severity>(d.severity);
  out.code = d.code;
  out.where = to_range(d.where, d.source_line);
  out.message = d.message;
  for (const auto& note : d.notes) out.notes.push_back(lang::DiagnosticNote{to_range(note.where, {}), note.message});
  out.hint = d.hint;
  return out;
}

Location to_location(const lang::SourceRange& range) {
  return Location{range.file_name, range.begin.line, range.begin.column, range.end.line, range.end.column};
}

Diagnostic from_lang(const lang::Diagnostic& d) {
  Diagnostic out;
  out.severity = static_cast<Severity>(d.severity);
  out.code = d.code;
  out.where = to_location(d.where);
  out.message = d.message;
  for (const auto& note : d.notes) out.notes.push_back(DiagnosticNote{to_location(note.where), note.message});
  out.hint = d.hint;
  out.source_line = d.where.line_text;
  return out;
}

}  // namespace

std::string Diagnostic::render(bool color) const {
  std::string out;
  if (!traceback.empty()) {
    // Python's layout: each "file:line, in function" frame as `File "file", line N, in function`.
    out += "Traceback (most recent call last):\n";
    for (const auto& frame : traceback) {
      auto in = frame.rfind(", in ");
      auto colon = frame.rfind(':', in);
      if (in == std::string::npos || colon == std::string::npos) {
        out += "  " + frame + "\n";
        continue;
      }
      out += "  File \"" + frame.substr(0, colon) + "\", line " + frame.substr(colon + 1, in - colon - 1) +
             frame.substr(in) + "\n";
    }
  }
  return out + lang::render_text(to_lang(*this), lang::RenderOptions{color});
}

std::string Diagnostic::render_json() const { return lang::render_json(to_lang(*this)); }

// ------------------------------------------------------------ conversions

namespace {

constexpr int max_conversion_depth = 200;

Value to_host(interp::Evaluator& evaluator, const interp::Value& value, int depth = 0) {
  switch (value.kind()) {
    case interp::Value::Kind::none: return Value::none();
    case interp::Value::Kind::boolean: return Value::boolean(value.as_bool());
    case interp::Value::Kind::integer: return Value::integer(value.as_int());
    case interp::Value::Kind::floating: return Value::number(value.as_float());
    case interp::Value::Kind::object: break;
  }
  if (const std::string* s = interp::string_of(value)) return Value::string(*s);
  if (auto* seq = value.as<interp::SequenceObject>(); seq && depth < max_conversion_depth) {
    std::vector<Value> items;
    for (const auto& item : seq->items) items.push_back(to_host(evaluator, item, depth + 1));
    return value.as<interp::ListObject>() ? Value::list(std::move(items)) : Value::tuple(std::move(items));
  }
  auto impl = std::make_shared<Value::Impl>();
  impl->kind = Value::Kind::other;
  if (auto array = array_to_host(value)) {
    impl->kind = Value::Kind::array;
    impl->array = std::move(*array);
  }
  impl->original = value;
  try {
    impl->text = evaluator.repr(value);
  } catch (const interp::PyError&) {
    impl->text = "<" + interp::type_name(value) + " object>";
  }
  return Value(std::move(impl));
}

interp::Value from_host(interp::Evaluator& evaluator, const Value& value) {
  switch (value.kind()) {
    case Value::Kind::none: return interp::Value::none();
    case Value::Kind::boolean: return interp::Value::boolean(value.as_bool());
    case Value::Kind::integer: return interp::Value::integer(value.as_int());
    case Value::Kind::number: return interp::Value::floating(value.as_double());
    case Value::Kind::string: return interp::make_str(value.as_string());
    case Value::Kind::list:
    case Value::Kind::tuple: {
      std::vector<interp::Value> items;
      for (const auto& item : value.items()) items.push_back(from_host(evaluator, item));
      return value.kind() == Value::Kind::list ? interp::make_list(std::move(items)) : interp::make_tuple(std::move(items));
    }
    case Value::Kind::array: return array_from_host(evaluator, value.as_array());
    case Value::Kind::other: return value.impl()->original;
  }
  return interp::Value::none();
}

// A function of the host program, callable from scripts.
class HostFunctionObject : public interp::Object {
 public:
  HostFunctionObject(std::string name, HostFunction function) : name_(std::move(name)), function_(std::move(function)) {}
  const interp::TypeRef& type() const override { return interp::types::builtin_function(); }
  std::string repr(interp::Evaluator&) const override { return "<built-in function " + name_ + ">"; }
  bool callable() const override { return true; }
  interp::Value call(interp::Evaluator& evaluator, interp::CallArgs& args) override {
    Args host_args;
    for (const auto& v : args.positional) host_args.positional.push_back(to_host(evaluator, v));
    for (const auto& [name, v] : args.keywords) host_args.keywords.emplace_back(name, to_host(evaluator, v));
    std::optional<HostResult> result;
    try {
      result = function_(host_args);
    } catch (const std::exception& error) {
      interp::raise(interp::exc::RuntimeError(), name_ + "() failed in the host: " + error.what());
    } catch (const interp::PyError&) {
      throw;
    } catch (...) {
      interp::raise(interp::exc::RuntimeError(), name_ + "() failed in the host");
    }
    if (result->value) return from_host(evaluator, *result->value);
    interp::TypeRef cls = interp::exc::find(result->error_type);
    if (!cls) {
      interp::raise(interp::exc::RuntimeError(),
                    (result->error_type.empty() ? "" : result->error_type + ": ") + result->error_message);
    }
    interp::raise(cls, result->error_message);
  }

 private:
  std::string name_;
  HostFunction function_;
};

// Python's "[Previous line repeated N more times]" for long runs of one frame.
std::vector<std::string> collapse_repeats(const std::vector<std::string>& frames) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < frames.size();) {
    std::size_t j = i;
    while (j < frames.size() && frames[j] == frames[i]) ++j;
    std::size_t run = j - i;
    for (std::size_t k = 0; k < std::min<std::size_t>(run, 3); ++k) out.push_back(frames[i]);
    if (run > 3) out.push_back("[Previous line repeated " + std::to_string(run - 3) + " more times]");
    i = j;
  }
  return out;
}

std::string exception_line(interp::Evaluator& evaluator, interp::ExceptionObject& exception) {
  std::string text;
  try {
    text = exception.str(evaluator);
  } catch (const interp::PyError&) {
    text = "<exception str() failed>";
  }
  // Python names a class by its module too, unless it is __main__'s.
  std::string type = exception.type()->name();
  if (auto* cls = dynamic_cast<const interp::ClassObject*>(exception.type().get()); cls && cls->module_name() != "__main__")
    type = cls->dotted_name();
  return text.empty() ? type : type + ": " + text;
}

// The stable code of an error (docs/diagnostics.md), from its class and
// JAX's message text, which is fixed (the messages are JAX's own so that
// they can be searched for). The first row that matches wins.
std::string diagnostic_code(const std::string& type, const std::string& message) {
  if (type == "TimeoutError") return lang::code::time_limit;
  if (type == "SyntaxError") return lang::code::syntax;
  if (type == "NameError" || type == "UnboundLocalError") {
    if (message.find("unbound axis name") != std::string::npos) return "sharding/unbound-axis";
    return lang::code::name;
  }
  // The classes JAX raises for type, shape and sharding errors.
  static const std::set<std::string> jax_classes{"TypeError", "ValueError", "ShardingTypeError", "DuplicateSpecError",
                                                  "NotImplementedError"};
  if (!jax_classes.count(type)) return lang::code::runtime;
  struct Row {
    const char* type;  // empty: any class
    const char* text;  // empty: any message
    const char* code;
  };
  static constexpr Row rows[] = {
      {"TypeError", "does not match its annotation", "type/annotation"},
      {"", "Contracting dimensions are sharded and it is ambiguous", "sharding/ambiguous-contraction"},
      {"DuplicateSpecError", "", "sharding/axis-reused"},
      {"", "can map every mesh axis to at most one", "sharding/axis-reused"},
      {"", "incompatible devices", "sharding/incompatible-devices"},
      {"", "out_specs which require replication", "shard_map/out-specs-varying"},
      {"", "shard_map", "shard_map/specs"},
      {"", "is not found in mesh", "sharding/unknown-axis"},
      {"", "divisible", "sharding/indivisible"},
      {"", "evenly divide", "sharding/indivisible"},
      {"", "Mesh for all inputs should be equal", "sharding/mesh-mismatch"},
      {"", "should match the mesh", "sharding/mesh-mismatch"},
      {"", "Mesh of both lhs and rhs should match", "sharding/mesh-mismatch"},
      {"", "context mesh", "sharding/no-mesh"},
      {"", "Context mesh", "sharding/no-mesh"},
      {"", "not under a mesh context", "sharding/no-mesh"},
      {"", "unreduced", "sharding/unreduced"},
      {"", "reduced", "sharding/unreduced"},
      {"", "Incompatible shapes for broadcasting", "shape/mismatch"},
      {"", "shapes", "shape/mismatch"},
      {"", "shape", "shape/mismatch"},
      {"ShardingTypeError", "", "sharding/type"},
  };
  for (const auto& row : rows) {
    if (*row.type && type != row.type) continue;
    if (*row.text && message.find(row.text) == std::string::npos) continue;
    return row.code;
  }
  return lang::code::runtime;
}

}  // namespace

Diagnostic from_exception(interp::Evaluator& evaluator, interp::ExceptionObject& exception) {
  Diagnostic d;
  d.severity = Severity::error;
  const std::string& type = exception.type()->name();
  d.message = exception_line(evaluator, exception);
  d.code = diagnostic_code(type, d.message);
  lang::Span innermost = exception.traceback.empty() ? exception.frame_span : exception.traceback.front().span;
  lang::SourceRange where = lang::resolve(innermost);
  d.where = to_location(where);
  d.source_line = where.line_text;
  std::vector<std::string> frames;
  for (auto entry = exception.traceback.rbegin(); entry != exception.traceback.rend(); ++entry) {
    lang::SourceRange at = lang::resolve(entry->span);
    frames.push_back(at.file_name + ":" + std::to_string(at.begin.line) + ", in " + entry->function);
  }
  // %xmode Minimal: the error without the frames that led to it.
  if (evaluator.exception_mode != "Minimal") d.traceback = collapse_repeats(frames);
  auto add_chained = [&](const interp::Value& chained, const char* relation) {
    auto* other = chained.as<interp::ExceptionObject>();
    if (!other) return;
    lang::Span span = other->traceback.empty() ? other->frame_span : other->traceback.front().span;
    d.notes.push_back(DiagnosticNote{to_location(lang::resolve(span)), std::string(relation) + exception_line(evaluator, *other)});
  };
  for (const auto& [span, message] : exception.notes) d.notes.push_back(DiagnosticNote{to_location(lang::resolve(span)), message});
  d.hint = exception.hint;
  for (const auto& fix : exception.fixes)
    d.fixes.push_back(Fix{fix.title, to_location(lang::resolve(fix.where)), fix.replacement});
  if (!exception.cause.is_none()) add_chained(exception.cause, "the direct cause of this error: ");
  else add_chained(exception.context, "raised while handling: ");
  return d;
}

namespace {

// Check mode's warning where it stopped following a function.
Diagnostic data_dependent_branch(const lang::Span& span) {
  Diagnostic d;
  d.severity = Severity::warning;
  d.code = "check/data-dependent-branch";
  d.message = interp::data_dependent_branch_message;
  lang::SourceRange where = lang::resolve(span);
  d.where = to_location(where);
  d.source_line = where.line_text;
  return d;
}

}  // namespace

Diagnostic internal_error(std::string message) {
  Diagnostic d;
  d.code = lang::code::runtime;
  d.message = std::move(message);
  return d;
}

// ------------------------------------------------------------ Interpreter

void set_script_path(interp::Evaluator& evaluator, std::string_view name) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path path(name);
  if (evaluator.imports->file_access && !name.empty() && fs::is_regular_file(path, error)) {
    fs::path absolute = fs::absolute(path, error).lexically_normal();
    evaluator.imports->set_script_directory(absolute.parent_path().string());
    evaluator.globals["__file__"] = interp::make_str(absolute.string());
  } else {
    evaluator.imports->set_script_directory("");
  }
}

Result execute(interp::Evaluator& evaluator, std::string_view source, std::string_view name, RunKind kind,
               RetainedSources* retained) {
  if (auto argv = evaluator.modules.find("sys"); argv != evaluator.modules.end())
    if (const interp::Value* list = argv->second->find("argv"))
      if (auto* items = list->as<interp::ListObject>(); items && !items->items.empty())
        items->items[0] = interp::make_str(std::string(name));
  std::vector<Diagnostic> diagnostics;
  std::string exception_type;
  evaluator.budget.start();  // the budget is per call
  interp::run_with_large_stack([&]() {
    try {
      evaluator.measure_stack();
      std::shared_ptr<const lang::SourceFile> file;
      if (retained) {
        std::shared_ptr<const lang::SourceFile>& kept = (*retained)[std::string(name) + '\0' + std::string(source)];
        if (!kept) kept = lang::SourceFile::from_text(std::string(name), std::string(source));
        file = kept;
      } else {
        file = lang::SourceFile::from_text(std::string(name), std::string(source));
      }
      lang::ParseResult parsed = lang::parse(file);
      if (!parsed.ok()) {
        for (const auto& d : parsed.diagnostics) diagnostics.push_back(from_lang(d));
        exception_type = "SyntaxError";
        return;
      }
      std::vector<lang::Diagnostic> errors;
      auto program = std::make_shared<interp::Program>();
      program->module = parsed.module;
      program->resolution = interp::Resolution::analyze(*parsed.module, errors);
      if (!errors.empty()) {
        for (const auto& d : errors) diagnostics.push_back(from_lang(d));
        exception_type = "SyntaxError";
        return;
      }
      try {
        evaluator.echo_expression_statements = kind == RunKind::interactive;
        evaluator.execute(program);
      } catch (interp::PyError& error) {
        evaluator.handling.clear();
        if (interp::is_check_stop(*error.exception)) {
          (void)interp::end_checking(evaluator, *error.exception);  // a warning, not an error
        } else {
          for (const auto& recorded : evaluator.recorded_errors)
            diagnostics.push_back(from_exception(evaluator, *recorded));
          evaluator.recorded_errors.clear();
          diagnostics.push_back(from_exception(evaluator, *error.exception));
          exception_type = error.exception->type()->name();
        }
      }
      for (const auto& span : evaluator.check_warnings) diagnostics.push_back(data_dependent_branch(span));
      evaluator.check_warnings.clear();
      // Check mode's errors that the run continued past.
      for (const auto& recorded : evaluator.recorded_errors) {
        diagnostics.push_back(from_exception(evaluator, *recorded));
        if (exception_type.empty()) exception_type = recorded->type()->name();
      }
      evaluator.recorded_errors.clear();
    } catch (const std::bad_alloc&) {
      evaluator.handling.clear();
      diagnostics.push_back(internal_error("MemoryError: out of memory"));
      exception_type = "MemoryError";
    } catch (const interp::PyError& error) {
      evaluator.handling.clear();
      diagnostics.push_back(internal_error(error.exception->type()->name()));
      exception_type = error.exception->type()->name();
    } catch (const std::exception& error) {
      evaluator.handling.clear();
      diagnostics.push_back(internal_error(std::string("RuntimeError: internal error: ") + error.what()));
      exception_type = "RuntimeError";
    } catch (...) {
      evaluator.handling.clear();
      diagnostics.push_back(internal_error("RuntimeError: internal error"));
      exception_type = "RuntimeError";
    }
  });
  return Result(std::move(diagnostics), std::move(exception_type));
}

namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

Diagnostic io_error(const std::string& path) {
  Diagnostic d;
  d.code = lang::code::io;
  d.where.file = path;
  d.message = "cannot read '" + path + "'";
  return d;
}

}  // namespace

Interpreter::Interpreter(Options options) : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  state_->evaluator = state_->make_evaluator(interp::Evaluator::Mode::run, state_->options.profile);
}

Interpreter::~Interpreter() {
  // Deeply nested values are freed recursively: do it on a large stack.
  if (state_) interp::run_with_large_stack([&]() { state_.reset(); });
}
Interpreter::Interpreter(Interpreter&&) noexcept = default;
Interpreter& Interpreter::operator=(Interpreter&&) noexcept = default;

Result Interpreter::run(std::string_view source, std::string_view name) {
  state_->check_costs.reset();
  RunningScope running(state_->running, state_->interrupting, state_->interrupt_pending, *state_->evaluator);
  set_script_path(*state_->evaluator, name);
  Result result = execute(*state_->evaluator, source, name, RunKind::script, &state_->sources);
  state_->note_memory(*state_->evaluator);
  return result;
}

Result Interpreter::run_file(const std::string& path) {
  auto text = read_file(path);
  if (!text) return Result({io_error(path)});
  return run(*text, path);
}

Result Interpreter::run_interactive(std::string_view source, std::string_view name) {
  state_->check_costs.reset();
  RunningScope running(state_->running, state_->interrupting, state_->interrupt_pending, *state_->evaluator);
  set_script_path(*state_->evaluator, name);
  Result result = execute(*state_->evaluator, source, name, RunKind::interactive, &state_->sources);
  state_->note_memory(*state_->evaluator);
  return result;
}

std::vector<Diagnostic> Interpreter::check(std::string_view source, std::string_view name) {
  try {
    std::unique_ptr<interp::Evaluator> evaluator;  // outlives the scope that interrupt() reaches it through
    RunningScope running(state_->running, state_->interrupting, state_->interrupt_pending);
    // The last check's evaluator goes before this check makes its own.
    interp::run_with_large_stack([&]() { state_->checked_evaluator.reset(); });
    evaluator = state_->make_evaluator(interp::Evaluator::Mode::check, state_->options.profile);
    running.attach(*evaluator);
    set_script_path(*evaluator, name);
    std::vector<Diagnostic> diagnostics = execute(*evaluator, source, name, RunKind::script).diagnostics();
    state_->check_costs = evaluator->runtime->costs;
    state_->note_memory(*evaluator);
    // Kept until the next check or the interpreter goes (freeing a large
    // program's values is a good part of a check's time, which a host that
    // exits after checking need not pay: the command line does not).
    state_->checked_evaluator = std::move(evaluator);
    return diagnostics;
  } catch (const std::exception& error) {
    return {internal_error(std::string("RuntimeError: internal error: ") + error.what())};
  }
}

std::string Interpreter::profile_report(std::size_t max_rows) const {
  const devices::Profile* profile = state_->profile();
  if (!profile) return {};
  std::string report = profile->render(max_rows);
  if (state_->memory_report) report += "\n" + devices::render_memory_report(*state_->memory_report);
  return report;
}

std::string Interpreter::trace_json() const {
  const devices::Profile* profile = state_->profile();
  if (!profile) return {};
  std::vector<std::string> labels;
  for (int device = 0; device < profile->device_count(); ++device)
    labels.push_back(state_->options.platform == "cpu" ? "CPU " + std::to_string(device)
                                                       : "TPU " + std::to_string(device));
  return devices::chrome_trace_json(*profile, labels);
}

double Interpreter::estimated_seconds() const {
  const devices::Profile* profile = state_->profile();
  return profile ? profile->total_seconds() : 0;
}

void Interpreter::restart_profile() {
  state_->check_costs.reset();
  if (const auto& costs = state_->evaluator->runtime->costs) costs->restart_profile();
}

std::vector<Diagnostic> Interpreter::check_file(const std::string& path) {
  auto text = read_file(path);
  if (!text) return {io_error(path)};
  return check(*text, path);
}

std::optional<Value> Interpreter::get(const std::string& name) const {
  try {
    auto found = state_->evaluator->globals.find(name);
    if (found == state_->evaluator->globals.end()) return std::nullopt;
    state_->evaluator->measure_stack();
    return to_host(*state_->evaluator, found->second);
  } catch (...) {
    return std::nullopt;
  }
}

void Interpreter::set(const std::string& name, Value value) {
  try {
    state_->evaluator->globals[name] = from_host(*state_->evaluator, value);
  } catch (...) {
    // Out of memory, or an array another interpreter's devices could not
    // take: the variable stays unset.
  }
}

void Interpreter::def(const std::string& name, HostFunction function) {
  try {
    state_->evaluator->globals[name] = interp::Value(std::make_shared<HostFunctionObject>(name, std::move(function)));
  } catch (...) {
    // Out of memory while storing: the function stays undefined.
  }
}

bool Interpreter::is_complete(std::string_view source) {
  try {
    return lang::input_state(source) == lang::InputState::complete;
  } catch (...) {
    return true;
  }
}

std::vector<std::string> Interpreter::global_names() const {
  std::vector<std::string> names;
  try {
    for (const auto& [name, value] : state_->evaluator->globals) names.push_back(name);
    for (const auto& [name, value] : state_->evaluator->builtins) names.push_back(name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  } catch (...) {
    names.clear();
  }
  return names;
}

std::optional<interp::Value> resolve_dotted_name(interp::Evaluator& evaluator, std::string_view dotted_name) {
  evaluator.measure_stack();
  std::vector<std::string> parts;
  std::string current;
  for (char c : dotted_name) {
    if (c == '.') {
      parts.push_back(current);
      current.clear();
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80) {
      current += c;
    } else {
      return std::nullopt;
    }
  }
  parts.push_back(current);
  for (const auto& part : parts)
    if (part.empty() || std::isdigit(static_cast<unsigned char>(part[0]))) return std::nullopt;
  const interp::Value* root = evaluator.lookup_global(parts[0]);
  if (!root) return std::nullopt;
  interp::Value value = *root;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    auto next = evaluator.find_attribute(value, parts[i]);
    if (!next) return std::nullopt;
    value = *next;
  }
  return value;
}

std::vector<std::string> Interpreter::member_names(std::string_view expression) const {
  try {
    // Only a dotted name is looked up, so completing never runs code.
    auto value = resolve_dotted_name(*state_->evaluator, expression);
    if (!value) return {};
    if (value->is_object()) return value->object()->attribute_names();
    return interp::type_of(*value)->attribute_names();
  } catch (...) {
    return {};
  }
}

void Interpreter::interrupt() {
  state_->interrupting.fetch_add(1);
  state_->interrupt_pending.store(true);  // for a call that has no evaluator yet (RunningScope)
  if (interp::Evaluator* running = state_->running.load()) running->interrupt_requested.store(true);
  state_->interrupting.fetch_sub(1);
}

std::string Interpreter::version() { return "0.1.0"; }

}  // namespace shardlang
