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
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace shardlang {

class Array;  // an array value: see "Arrays" below

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

// An edit that resolves a diagnostic (an editor's quick fix): replace the
// text of `where` by `replacement`; a range that ends where it begins is an
// insertion there.
struct Fix {
  std::string title;  // "out_sharding=P('X', 'Y')  reduce-scatter over Y  20.5 µs"
  Location where;
  std::string replacement;
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
  // The edits the hint proposes, in its order: each legal out_sharding= of
  // an ambiguous contraction, cheapest first. Empty for most diagnostics.
  std::vector<Fix> fixes;

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
// Scalars, strings, None, lists/tuples of values, and arrays (shared with
// the interpreter, not copied: arrays are immutable; see "Arrays" below).
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
  static Value array(Array array);

  enum class Kind { none, boolean, integer, number, string, list, tuple, array, other };
  Kind kind() const;
  bool as_bool() const;
  std::int64_t as_int() const;
  double as_double() const;  // also converts an integer
  const std::string& as_string() const;
  const std::vector<Value>& items() const;  // list or tuple
  const Array& as_array() const;            // an array; else an empty Array
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

// This process's part in a job that runs one script on several processes
// at once (docs/scale-out.md): under `mpirun -np P shardlang run --devices
// N FILE` every process runs the same script and holds N/P of the simulated
// devices, a contiguous block. Given to Options::processes.
class ProcessGroup {
 public:
  // Whether this build has the MPI backend.
  static bool mpi_available();
  // How many processes the launcher (mpirun) started this one among, from
  // its environment; 0 when no launcher started it.
  static int launched_process_count();
  // Joins the MPI job this process was started in: the group, or why not.
  // One per process; leaving it (the last reference) ends MPI.
  static std::variant<std::shared_ptr<ProcessGroup>, std::string> join_mpi();

  int count() const;
  int index() const;
  // After a run failed on this process: whether this process is the one to
  // print why. When every process failed at once (the same error), process
  // 0 says it; when only some did, each of those does.
  bool reports_failure();
  // Ends every process of the job with `status`.
  [[noreturn]] void abort(int status);

  struct Impl;
  explicit ProcessGroup(std::unique_ptr<Impl> impl);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// What Options::display receives: a value echoed by run_interactive (a
// notebook's Out[n]), or a picture (visualize_array_sharding's table), as
// text and, where there is one, as an HTML fragment.
struct Display {
  enum class Kind { value, picture };
  Kind kind = Kind::value;
  std::string text;  // what `output` would have received
  std::string html;  // empty when there is no HTML form
};

// ==================================================================== Arrays
//
// An array crosses the API without a copy where its layout allows: an Array
// read from the interpreter shares the shards' bytes (bytes() shows them in
// place when one buffer holds the whole array), and make_array copies a
// host buffer once, each block straight into its shard.

// The element types. ORDER DType (typecheck/dtype.hpp). Storage: bool is one
// byte (0 or 1); float16 and bfloat16 are their 16 bits (the layout of
// NumPy's float16 and ml_dtypes' bfloat16).
enum class DType { bool_, int8, int32, uint32, float16, bfloat16, float32 };
std::string_view dtype_name(DType dtype);  // "float32", as NumPy names it
std::size_t dtype_size(DType dtype);       // bytes per element
std::optional<DType> parse_dtype(std::string_view name);  // "float32" or "f32"

// How an array's dimensions are split over the mesh's axes: one entry per
// leading dimension, each the axes splitting it (major first), empty for
// None. P('X', None) is {{"X"}, {}}; P(('X', 'Y')) is {{"X", "Y"}}.
using PartitionSpec = std::vector<std::vector<std::string>>;

// A host buffer to make an array from. Its bytes are read during the call
// only.
struct HostArray {
  DType dtype = DType::float32;
  std::vector<std::int64_t> shape;
  const void* data = nullptr;
  // Byte strides per dimension (NumPy's); empty: row-major (C order).
  std::vector<std::int64_t> strides;
};

// An array held by an interpreter, as get() and host functions see it. A
// handle: copies share the array; it stays valid after the interpreter is
// gone. An empty Array (default) is no array.
class Array {
 public:
  Array();
  explicit operator bool() const;
  DType dtype() const;
  const std::vector<std::int64_t>& shape() const;
  std::int64_t size() const;       // elements
  std::size_t byte_size() const;   // size() * dtype_size(dtype())
  // Its type with its sharding, as jax.typeof prints it: "float32[8@X,2]".
  std::string type() const;
  // The partition spec of its layout on its mesh (Auto axes included).
  PartitionSpec spec() const;
  // The elements in row-major order, without a copy, when one buffer holds
  // the whole array (one device, or replicated); empty otherwise. Valid
  // while this Array or a copy of it lives.
  std::span<const std::byte> bytes() const;
  // Copies the elements in row-major order into `out` (byte_size() bytes),
  // each shard once, straight to its place. False when `size` differs.
  bool read(void* out, std::size_t size) const;

  struct Impl;
  explicit Array(std::shared_ptr<const Impl> impl);
  const std::shared_ptr<const Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// Interpreter::make_array's answer: the array, or the diagnostics of why not.
struct ArrayResult {
  Result result;
  Array array;
};

// A module's source as a host serves it (Options::module_loader).
struct ModuleSource {
  std::string source;
  // Its __file__ and the name tracebacks show; empty: "<name>".
  std::string file;
  // A package: `import name.sub` then asks the loader for "name.sub".
  bool package = false;
};

// Asked for each module the built-in ones do not provide, by its full dotted
// name ("pkg.sub"), before the filesystem is searched (as Lua's
// package.searchers and Wren's loadModuleFn let a host serve modules):
// the source, or nullopt to let the search go on. Runs on the interpreter's
// thread, during the import.
using ModuleLoader = std::function<std::optional<ModuleSource>(std::string_view name)>;

struct Options {
  std::string platform = "tpu";  // "tpu" or "cpu"
  int devices = 8;
  std::string chip = "v5e";      // v2 v3 v4 v5e v5p v6e
  // Where `print` writes; default: nothing is written (the host decides).
  std::function<void(std::string_view)> output;
  // Where the warnings JAX logs go (the jax_explain_cache_misses
  // explanations), a line each with its newline; default: nothing is
  // written. The command line writes them to stderr, as Python's logging does.
  std::function<void(std::string_view)> log;
  // Directories np.load / np.save may touch; empty: none.
  std::vector<std::string> allowed_directories;
  // Arguments visible to the script (sys.argv-like), after the file name.
  std::vector<std::string> script_arguments;
  // Keep every charge of the TPU cost model (runs and checks) for
  // profile_report() and trace_json(): `--profile`, `--trace OUT.json`.
  bool profile = false;
  // With `profile`: also keep each device's bytes in use at every change,
  // for trace_json()'s memory counter tracks (`--trace OUT.json`).
  bool trace_memory = false;
  // The job this process runs in with others (ProcessGroup::join_mpi);
  // none: this process alone holds every device.
  std::shared_ptr<ProcessGroup> processes;
  // Rich output, for hosts that show more than text (a notebook): when set,
  // run_interactive's echoed value and jax.debug.visualize_array_sharding's
  // picture come here (see Display below) instead of to `output`.
  std::function<void(const Display&)> display;

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
  // keep it running; the interpreter stays usable for the next call. The
  // diagnostic's code is "limit/time" for either.
  std::uint64_t max_steps = 0;
  double time_limit_seconds = 0;
  // Imports (docs/modules.md): directories searched after the script's own
  // (sys.path; the command line's -I DIR and SHARDLANG_PATH), and the host's
  // loader, asked before any directory.
  std::vector<std::string> module_path;
  ModuleLoader module_loader;
  // false: scripts cannot touch files (for untrusted scripts). Imports find
  // only the built-in modules and module_loader's; open(), pathlib's and
  // os's file operations, json.load/dump on such files and np.load/np.save
  // raise PermissionError.
  // Off by default, as allowed_directories is empty by default: the command
  // line turns it on.
  bool file_access = false;
};

// ------------------------------------------------------------ editor support
// What an editor shows of check mode (`shardlang lsp`, repl/lsp/): besides
// the diagnostics, the sharded type of every expression and assigned name
// the checker saw hold an array, the cost model's estimate of each line, and
// the names a program's namespace offers for completion.

// An expression, or a name an assignment binds, that held an array.
struct TypedSpan {
  Location where;
  bool assignment = false;  // the name an assignment binds (an inlay hint goes after it)
  // Its types as diagnostics print them ("bf16[256@fsdp,8192]",
  // "f32[8]{V:i}", "f32[8@X]{U:Y}"), in the order first seen: more than one
  // when the code ran several times with different types (at most four
  // are kept; `more_types` says some were left out).
  std::vector<std::string> types;
  bool more_types = false;
  // One device's shard of the last type: its shape and bytes.
  std::vector<std::int64_t> shard_shape;
  std::int64_t shard_bytes = 0;
};

// The cost model's estimate of one source line of the analysed program on
// the chosen chip: each operation it charged, summed over every time the
// line ran.
struct LineCost {
  struct Operation {
    std::string name;  // "dot_general", "all-gather", "dispatch"
    int count = 0;     // how many times it was charged
    double seconds = 0;
    std::int64_t bytes_moved = 0;  // over the interconnect, per device
  };
  int line = 0;
  double seconds = 0;
  std::vector<Operation> operations;  // in the order first charged
};

// A name for completion: a module member, an attribute or a global.
struct Member {
  std::string name;
  // "function", "class", "module", "array", "value" for a module's members;
  // "attribute" for another object's (not looked up: some are computed)
  std::string kind;
  std::string signature;  // a function's, Python-style: "zeros(shape, dtype=None, *, out_sharding=None)"
};

// A mesh axis (name and size) of a context mesh given by the host.
struct MeshAxis {
  std::string name;
  int size = 1;
};

struct AnalysisOptions {
  // When not empty: made and set as the context mesh before the source
  // runs, with Explicit axes, as jax.set_mesh(jax.make_mesh(sizes, names,
  // axis_types=Explicit)) would. An error making it is a diagnostic
  // without a location.
  std::vector<MeshAxis> context_mesh;
  // Charge the cost model for line_costs() (the check then takes about half
  // as long again); false leaves line_costs() empty.
  bool line_costs = true;
};

// What Interpreter::analyze saw. Keeps the checked program's module
// namespace (abstract arrays only) for the completion queries.
class Analysis {
 public:
  Analysis();
  ~Analysis();
  Analysis(Analysis&&) noexcept;
  Analysis& operator=(Analysis&&) noexcept;
  Analysis(const Analysis&) = delete;
  Analysis& operator=(const Analysis&) = delete;

  // What `check` reports for the same source.
  const std::vector<Diagnostic>& diagnostics() const;
  // In the analysed file only, sorted by start position (outer spans before
  // the spans they contain).
  const std::vector<TypedSpan>& types() const;
  // Sorted by line; lines that charged nothing are absent. Empty unless
  // AnalysisOptions::line_costs.
  const std::vector<LineCost>& line_costs() const;
  // The chip of the estimates ("v5e").
  const std::string& chip() const;

  // The program's globals and the builtins, sorted.
  std::vector<std::string> global_names() const;
  // The members of what a dotted name ("jnp", "jax.sharding", "x") names in
  // the program's namespace, sorted; empty when it names nothing. Looks
  // names up only: no code of the program runs.
  std::vector<Member> members(std::string_view dotted_name) const;
  // The signature of the function a dotted name names ("jnp.einsum"), else empty.
  std::string signature(std::string_view dotted_name) const;
  // The axis names of the meshes the program made or used (the context
  // mesh, meshes it bound to names, the meshes of its arrays), each once,
  // in the order first met.
  std::vector<std::string> mesh_axis_names() const;

  struct Impl;

 private:
  explicit Analysis(std::unique_ptr<Impl> impl);
  friend class Interpreter;
  std::unique_ptr<Impl> impl_;
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
  // file name shown in diagnostics ("<stdin>" for the REPL); when it is the
  // path of an existing file (a script), its directory is sys.path[0] and
  // the script's __file__, else sys.path[0] is "" (the working directory).
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
  // Editor support: checks `source` as `check` does, in a fresh namespace,
  // and keeps what the checker saw (Analysis).
  Analysis analyze(std::string_view source, std::string_view name = "<string>", const AnalysisOptions& options = {});

  std::optional<Value> get(const std::string& name) const;
  void set(const std::string& name, Value value);
  void def(const std::string& name, HostFunction function);

  // An array on this interpreter's devices from a host buffer (see "Arrays"
  // below), to set() or to return from a host function. Without `spec` it
  // is placed as jnp.asarray places a NumPy array: uncommitted, on device 0
  // (replicated on the context mesh when jax.set_mesh set one); with it,
  // as jax.device_put(x, NamedSharding(context mesh, P(*spec))) places it.
  // An error (no context mesh, an unknown axis, an indivisible dimension,
  // device memory) is a diagnostic of the result.
  ArrayResult make_array(const HostArray& data, const std::optional<PartitionSpec>& spec = std::nullopt);

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
  // track per simulated device, with its memory counter when
  // Options::trace_memory is set.
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
