// shardlang's public embedding API (cli.md "Embedding").
//
// The command line and the REPL are written against this header only, as
// lua.c is written against lua.h. No C++ exception crosses it: every call
// that can fail returns a Result. There is no global state: two Interpreters
// in one process are independent.
//
//   shardlang::Interpreter interp({.platform = "tpu", .devices = 8});
//   shardlang::Result r = interp.run("y = 1 + 2");
//   if (!r) for (auto& d : r.diagnostics()) std::cerr << d.render();
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardlang {

enum class Severity { error, warning, note };

struct Location {
  std::string file;
  int line = 0;  // 1-based; 0 when unknown
  int column = 0;
  int end_line = 0;
  int end_column = 0;
};

struct DiagnosticNote {
  Location where;
  std::string message;
};

// One diagnostic: a syntax error, a name error, a sharding error, or an
// uncaught exception of a script (then `traceback` lists the shardlang frames,
// outermost first, as "file:line, in function").
struct Diagnostic {
  Severity severity = Severity::error;
  std::string code;  // stable: "syntax", "name", "sharding/ambiguous-contraction", ...
  Location where;
  std::string message;
  std::vector<DiagnosticNote> notes;
  std::string hint;
  std::vector<std::string> traceback;
  std::string source_line;  // the text of line `where.line`, for the caret

  // The text form of cli.md (traceback first, then file:line:col: error: ...,
  // the source line with a caret, notes, hint). `color` adds ANSI colours.
  std::string render(bool color = false) const;
  // One JSON object on one line, with the fields of cli.md.
  std::string render_json() const;
};

class Result {
 public:
  Result() = default;
  explicit Result(std::vector<Diagnostic> diagnostics, std::string exception_type = {})
      : diagnostics_(std::move(diagnostics)), exception_type_(std::move(exception_type)) {}

  // True when no diagnostic of severity error was produced.
  bool ok() const;
  explicit operator bool() const { return ok(); }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  // The Python exception class of an uncaught error ("NameError"), else empty.
  const std::string& exception_type() const { return exception_type_; }

 private:
  std::vector<Diagnostic> diagnostics_;
  std::string exception_type_;
};

// A host-side copy of a shardlang value, for get/set and host functions.
// Scalars, strings, None, lists/tuples of values; arrays arrive with the
// mesh-runtime work.
class Value {
 public:
  Value();  // None
  static Value none();
  static Value boolean(bool b);
  static Value integer(std::int64_t i);
  static Value number(double d);
  static Value string(std::string s);
  static Value list(std::vector<Value> items);
  static Value tuple(std::vector<Value> items);

  enum class Kind { none, boolean, integer, number, string, list, tuple, other };
  Kind kind() const;
  bool as_bool() const;
  std::int64_t as_int() const;
  double as_double() const;  // also converts an integer
  const std::string& as_string() const;
  const std::vector<Value>& items() const;  // list or tuple
  // Python's repr() of the value, as the script would print it.
  std::string repr() const;

  struct Impl;
  explicit Value(std::shared_ptr<const Impl> impl);
  const std::shared_ptr<const Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// Arguments of a host function defined with Interpreter::def.
struct Args {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;
};

// What a host function returns: a value, or an error raised in the script as
// the named Python exception class ("ValueError") with the message.
struct HostResult {
  std::optional<Value> value;
  std::string error_type;
  std::string error_message;

  HostResult(Value v) : value(std::move(v)) {}  // NOLINT: implicit on purpose
  static HostResult error(std::string type, std::string message) {
    HostResult r(Value::none());
    r.value.reset();
    r.error_type = std::move(type);
    r.error_message = std::move(message);
    return r;
  }
};

using HostFunction = std::function<HostResult(const Args&)>;

struct Options {
  std::string platform = "tpu";  // "tpu" or "cpu"
  int devices = 8;
  std::string chip = "v5e";      // v2 v3 v4 v5e v5p v6e
  // Where `print` writes; default: nothing is written (the host decides).
  std::function<void(std::string_view)> output;
  // Directories np.load / np.save may touch; empty: none.
  std::vector<std::string> allowed_directories;
  // Arguments visible to the script (sys.argv-like), after the file name.
  std::vector<std::string> script_arguments;
  // Keep every charge of the TPU cost model (runs and checks) for
  // profile_report() and trace_json(): `--profile`, `--trace OUT.json`.
  bool profile = false;

  // Limits an embedding host sets on this interpreter; 0 means no limit of
  // that kind (the default).
  //
  // Host memory this interpreter's arrays may hold; an allocation past it is
  // a MemoryError in the script (runtime.md "Host memory budget"). 0: 75%
  // of the machine's physical memory. Other interpreters have their own.
  std::int64_t host_memory_bytes = 0;
  // The HBM of each simulated TPU, instead of the chip's (16 GiB on v5e);
  // past it an allocation is RESOURCE_EXHAUSTED, as on a real chip. Not
  // used on cpu, whose devices have only the host budget.
  std::int64_t device_memory_bytes = 0;
  // Steps (statements, loop iterations and calls) one call of run,
  // run_interactive, check or type_of may take, and seconds of wall-clock
  // time it may take. Past either, the script gets a TimeoutError at its
  // next step, and again at every step after it, so that no `except` can
  // keep it running; the interpreter stays usable for the next call.
  std::uint64_t max_steps = 0;
  double time_limit_seconds = 0;
};

class Interpreter {
 public:
  explicit Interpreter(Options options = {});
  ~Interpreter();
  Interpreter(Interpreter&&) noexcept;
  Interpreter& operator=(Interpreter&&) noexcept;
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Runs source text in this interpreter's global namespace. `name` is the
  // file name shown in diagnostics ("<stdin>" for the REPL).
  Result run(std::string_view source, std::string_view name = "<string>");
  // Reads and runs a file; an unreadable file is a diagnostic with code "io".
  Result run_file(const std::string& path);
  // REPL entry: like run, but when the entry is a single expression whose
  // value is not None, its repr is written to the output and the value is
  // bound to `_`.
  Result run_interactive(std::string_view source, std::string_view name = "<stdin>");
  // check mode (cli.md): types and shardings only, every error reported,
  // program output discarded. Runs in a fresh namespace.
  std::vector<Diagnostic> check(std::string_view source, std::string_view name = "<string>");
  std::vector<Diagnostic> check_file(const std::string& path);

  std::optional<Value> get(const std::string& name) const;
  void set(const std::string& name, Value value);
  void def(const std::string& name, HostFunction function);

  // REPL support: does this text need more lines before it can run?
  static bool is_complete(std::string_view source);
  // Names visible at the prompt (globals and builtins), and the members of
  // the value an expression like "jnp" or "x" names, for tab completion.
  std::vector<std::string> global_names() const;
  std::vector<std::string> member_names(std::string_view expression) const;

  // REPL `:type EXPR`: the type of the expression's value, evaluated against
  // the global namespace as `check` evaluates (abstract arrays: no data, no
  // device work; nothing printed or assigned): an array's type with its
  // sharding ("f32[8@X,2]"), else the Python type name ("int"). An error
  // leaves `type` empty.
  struct TypeOf {
    Result result;
    std::string type;
  };
  TypeOf type_of(std::string_view expression);
  // REPL `:vars`: the variables the user defined (not the built-in names),
  // sorted by name, each with its type as type_of gives it.
  struct Variable {
    std::string name;
    std::string type;
  };
  std::vector<Variable> variables();
  // REPL `:mesh`: the context mesh (jax.set_mesh), and the devices.
  struct MeshDescription {
    Result result;
    std::string context_mesh;  // the abstract mesh's repr; empty when no mesh is set
    std::string platform;      // "tpu", "cpu"
    std::string device_kind;   // "TPU v5 lite"
    std::vector<int> device_ids;
  };
  MeshDescription mesh_description();

  // The cost model's account of what ran (needs Options::profile; empty
  // otherwise): of the runs so far, or of the last check when it came last.
  // The `--profile` table: the most expensive source lines and operations,
  // a per-collective summary, and what the model cannot see.
  std::string profile_report(std::size_t max_rows = 20) const;
  // The same charges as a Chrome trace event file (`--trace OUT.json`): one
  // track per simulated device.
  std::string trace_json() const;
  // The estimated time of the same charges on the chosen chip, in seconds.
  double estimated_seconds() const;
  // Forgets the charges so far (the REPL's `:profile` shows one entry's).
  void restart_profile();

  // Ctrl-C: asks the running script to raise KeyboardInterrupt at the next
  // statement or loop iteration. Safe to call from a signal handler and from
  // any other thread; a request made while no call runs is dropped when the
  // next call starts.
  void interrupt();

  static std::string version();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace shardlang
