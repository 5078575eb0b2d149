// The public API's private state (include/shardlang/shardlang.hpp
// Interpreter::State) and its one way of running source text, shared by the
// files that implement Interpreter: api.cpp (running, checking, values) and
// api_session.cpp (the REPL's introspection).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "devices/chip.hpp"
#include "devices/memory_report.hpp"
#include "interp/transforms/costing.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/python/imports.hpp"
#include "interp/library/npy_io.hpp"
#include "interp/python/objects.hpp"
#include "interp/ops/array.hpp"
#include "interp/ops/runtime.hpp"
#include "lang/source.hpp"
#include "shardlang/shardlang.hpp"

namespace shardlang {

// The source files of the texts run on a session's evaluator, by name and
// text: spans into them outlive the run (where a variable's array got its
// sharding, a saved exception's traceback), so each is kept for the
// session; running the same text again reuses its file.
using RetainedSources = std::unordered_map<std::string, std::shared_ptr<const lang::SourceFile>>;

// The devices' processes of a job (api_processes.cpp).
const devices::Processes& processes_of(const ProcessGroup& group);

struct Interpreter::State {
  Options options;
  RetainedSources sources;  // of the texts run on `evaluator`, which it outlives
  std::unique_ptr<interp::Evaluator> evaluator;
  // The last check's evaluator, freed by the next check (Interpreter::check).
  std::unique_ptr<interp::Evaluator> checked_evaluator;
  // The evaluator running now (the main one, or check mode's own), for
  // interrupt(), and how many interrupt() calls are reading it; and a
  // request that came while the running call had no evaluator yet (a check
  // making its own), which the call hands to it (RunningScope).
  std::atomic<interp::Evaluator*> running{nullptr};
  std::atomic<int> interrupting{0};
  std::atomic<bool> interrupt_pending{false};
  // The cost model's charges of the last check, when it ran after the last run.
  std::shared_ptr<interp::CostRecorder> check_costs;
  // The device-memory section of the last run's or check's profile.
  std::optional<devices::MemoryReport> memory_report;
  // Keeps `evaluator`'s memory report when profiling (after it ran a script).
  void note_memory(interp::Evaluator& ran) {
    memory_report.reset();
    if (options.profile && ran.runtime->costs) memory_report = devices::memory_report(*ran.runtime->ledger());
  }

  // The charges profile_report() and trace_json() show.
  const devices::Profile* profile() const {
    const auto& costs = check_costs ? check_costs : evaluator->runtime->costs;
    return costs ? costs->profile() : nullptr;
  }

  // `profile`: keep the cost model's charges (Options::profile, or an analysis).
  std::unique_ptr<interp::Evaluator> make_evaluator(interp::Evaluator::Mode mode, bool profile) const {
    auto evaluator = std::make_unique<interp::Evaluator>();
    evaluator->mode = mode;
    if (mode == interp::Evaluator::Mode::run) {
      evaluator->output = options.output;
      evaluator->log = options.log;
      if (options.display)
        evaluator->display = [display = options.display](interp::Shown kind, std::string_view text,
                                                          std::string_view html) {
          display(Display{kind == interp::Shown::picture ? Display::Kind::picture : Display::Kind::value,
                          std::string(text), std::string(html)});
        };
    }
    evaluator->budget.max_steps = options.max_steps;
    evaluator->budget.seconds = options.time_limit_seconds;
    interp::RuntimeOptions runtime;
    if (auto platform = devices::parse_platform(options.platform)) runtime.platform = *platform;
    if (auto chip = devices::parse_chip(options.chip)) runtime.chip = *chip;
    runtime.device_count = options.devices;
    runtime.profile = profile;
    runtime.trace_memory = profile && options.trace_memory;
    if (options.host_memory_bytes > 0) runtime.host_memory_bytes = options.host_memory_bytes;
    if (options.device_memory_bytes > 0) runtime.device_memory_bytes = options.device_memory_bytes;
    if (options.processes) runtime.processes = processes_of(*options.processes);
    evaluator->runtime = std::make_shared<interp::Runtime>(runtime);
    interp::install_costing(*evaluator);
    // sys.argv: the script name is filled in by each run.
    std::vector<interp::Value> argv{interp::make_str("")};
    for (const auto& argument : options.script_arguments) argv.push_back(interp::make_str(argument));
    evaluator->module("sys")->add("argv", interp::make_list(std::move(argv)));
    interp::install_npy_io(*evaluator, options.file_access ? options.allowed_directories : std::vector<std::string>{});
    interp::ImportSystem& imports = *evaluator->imports;
    imports.file_access = options.file_access;
    imports.add_search_directories(options.module_path);
    if (options.module_loader)
      imports.loader = [loader = options.module_loader](const std::string& name) -> std::optional<interp::ModuleSource> {
        std::optional<ModuleSource> served = loader(name);
        if (!served) return std::nullopt;
        return interp::ModuleSource{std::move(served->source), std::move(served->file), served->package};
      };
    return evaluator;
  }
};

enum class RunKind { script, interactive };

// Parses and runs one source text on `evaluator`, on a thread with a large
// stack, within the evaluator's budget (Options::max_steps and
// time_limit_seconds, counted afresh for each call); every failure becomes a diagnostic. `interactive` echoes expression
// statements and binds `_`. The text's source file is kept in `retained`
// when given (and taken from there when it is already).
Result execute(interp::Evaluator& evaluator, std::string_view source, std::string_view name, RunKind kind,
               RetainedSources* retained = nullptr);

// One API call's hold on interrupt(), from the call's start: a request made
// before it is stale and dropped; one made after it reaches the call's
// evaluator, even when it comes before the call has made one (check and
// analyze make their own), through `interrupt_pending`. interrupt() sets
// that flag before it reads `running`, and attach() publishes `running`
// before it reads the flag, so one of them sees the other.
// interrupt() may run on another thread (or in a signal handler) while the
// scope ends and check mode's evaluator is freed: it counts itself in
// `interrupting` before reading the slot, and the scope waits, after putting
// the previous evaluator back, until no interrupt() can still hold its own.
class RunningScope {
 public:
  RunningScope(std::atomic<interp::Evaluator*>& running, const std::atomic<int>& interrupting,
               std::atomic<bool>& interrupt_pending)
      : running_(running), interrupting_(interrupting), pending_(interrupt_pending), previous_(running.load()) {
    pending_.store(false);
  }
  RunningScope(std::atomic<interp::Evaluator*>& running, const std::atomic<int>& interrupting,
               std::atomic<bool>& interrupt_pending, interp::Evaluator& evaluator)
      : RunningScope(running, interrupting, interrupt_pending) {
    attach(evaluator);
  }
  // The call's evaluator from now on (it must outlive the scope).
  void attach(interp::Evaluator& evaluator) {
    attached_ = &evaluator;
    running_.store(&evaluator);
    if (pending_.exchange(false)) evaluator.interrupt_requested.store(true);
  }
  // A request the call did not take is stale once it ends: the evaluator is
  // left with none (the session's own scripts run on it between calls),
  // unless an enclosing call still runs on it.
  ~RunningScope() {
    running_.store(previous_);
    while (interrupting_.load() != 0) std::this_thread::yield();
    if (attached_ && attached_ != previous_) attached_->interrupt_requested.store(false);
  }
  RunningScope(const RunningScope&) = delete;
  RunningScope& operator=(const RunningScope&) = delete;

 private:
  std::atomic<interp::Evaluator*>& running_;
  const std::atomic<int>& interrupting_;
  std::atomic<bool>& pending_;
  interp::Evaluator* previous_;
  interp::Evaluator* attached_ = nullptr;
};

// The value a dotted name ("jnp", "jax.sharding", "x") names in the
// evaluator's globals and builtins, by attribute lookups only (no code
// runs); nullopt when a part is missing or the text is not a dotted name.
std::optional<interp::Value> resolve_dotted_name(interp::Evaluator& evaluator, std::string_view dotted_name);

// Interpreter::State's and Analysis's internal error diagnostic.
Diagnostic internal_error(std::string message);

// sys.path[0] and __main__.__file__ for a run of source named `name`: the
// script's directory and path when `name` is an existing file, else the
// working directory ("").
void set_script_path(interp::Evaluator& evaluator, std::string_view name);

// An uncaught exception of a script as a diagnostic (its traceback, notes,
// hint and stable code); an error outside any script.
Diagnostic from_exception(interp::Evaluator& evaluator, interp::ExceptionObject& exception);
Diagnostic internal_error(std::string message);

// Arrays (api_arrays.cpp): an array value as the host sees it (nothing for
// an abstract one), and the array a host Array or buffer becomes in
// `evaluator` (raises in the script's terms when it cannot be placed).
std::optional<Array> array_to_host(const interp::Value& value);
interp::Value array_from_host(interp::Evaluator& evaluator, const Array& array);
interp::ArrayRef array_from_host(interp::Evaluator& evaluator, const HostArray& data,
                                 const std::optional<PartitionSpec>& spec);

}  // namespace shardlang
