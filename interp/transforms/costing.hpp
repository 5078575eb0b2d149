// Charging the TPU cost model (runtime.md "The cost model", costmodel.md):
// every primitive application the eager trace runs, every equation a jitted
// program runs, and (in check mode) every application the abstract trace
// types is charged its simulated time on the chosen chip: the local work by
// the roofline, the collectives the partitioner plans for it (or the
// shard_map collective it is), and the host's dispatch of an eager
// multi-device operation. Each charge carries the statement that caused it.
//
// The Runtime owns one CostRecorder. It charges while profiling (--profile,
// --trace, the REPL's :profile) and while %timeit measures one execution.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "devices/cost_model.hpp"
#include "devices/memory.hpp"
#include "devices/profile.hpp"
#include "interp/transforms/jaxpr.hpp"
#include "interp/transforms/partitioner.hpp"

namespace interp {

// The charges of a jitted shard_map body, scheduled as XLA runs a hand-written
// collective matmul (costmodel.md: "N-1 steps cost max(compute, comm) each"):
// a collective-permute and a matmul independent of it in the data flow (the
// permute's operands do not derive from the matmul, the matmul does not
// consume the permute's result) run together and cost the longer of the two;
// a slice read only by the matmul and elementwise operations on the matmul's
// result (the accumulation of a step) fuse into it. Everything else is
// charged as it comes. Applications arrive in program order; values are named
// by opaque ids.
class OverlapWindow {
 public:
  using Id = std::uintptr_t;
  enum class Role { other, matmul, permute, slice, elementwise };
  struct Application {
    std::vector<devices::Charge> charges;
    Role role = Role::other;
    std::vector<Id> inputs;
    Id output = 0;
    std::shared_ptr<const void> keep_alive;  // keeps a held output's id from being reused
    std::vector<int> devices;
    lang::Span span;
    bool windowed = false;  // in a jitted shard_map body; otherwise charged at once
  };
  struct Sink {
    std::function<void(devices::Charge, const std::vector<int>&, const lang::Span&)> serial;
    std::function<void(devices::Charge compute, const lang::Span& compute_span, devices::Charge communication,
                       const lang::Span& communication_span, const std::vector<int>&)>
        overlapped;
  };

  explicit OverlapWindow(Sink sink) : sink_(std::move(sink)) {}

  void push(Application application);
  // Charges everything held (at the end of a body, or before the total is read).
  void flush();

 private:
  struct Held {
    devices::Charge charge;
    Id output = 0;
    std::shared_ptr<const void> keep_alive;
    std::vector<int> devices;
    lang::Span span;
  };
  struct HeldMatmul {
    Held matmul;
    std::vector<Held> fused;       // elementwise operations on its result
    std::optional<Held> partner;   // the permute it overlaps
    std::set<Id> derived;          // values computed from its result
    Id latest = 0;                 // its result, or the last fused operation's
  };
  static Held held(Application& application);
  void emit(Held held);
  void emit_matmul();

  Sink sink_;
  std::optional<HeldMatmul> matmul_;
  std::optional<Held> permute_;
  std::vector<Held> slices_;
};

class CostRecorder {
 public:
  CostRecorder(devices::Chip chip, int device_count, bool keep_profile);
  // The window's sink charges this recorder.
  CostRecorder(const CostRecorder&) = delete;
  CostRecorder& operator=(const CostRecorder&) = delete;
  ~CostRecorder();

  const devices::CostModel& model() const { return model_; }
  // Whether applications are charged now: when profiling, while %timeit
  // measures, or while watched (charging costs host time that an unprofiled
  // run need not pay).
  bool charging() const { return profile_.has_value() || measuring_ > 0 || watcher_; }
  // Tells `watcher` every charge as it is made (after the overlap window)
  // with the statement that caused it: an editor's per-line estimates,
  // without the cost of keeping a profile's timelines.
  using Watcher = std::function<void(const devices::Charge&, const lang::Span&)>;
  void watch(Watcher watcher) { watcher_ = std::move(watcher); }
  // Simulated seconds of everything charged so far.
  double clock_seconds() {
    window_.flush();
    return clock_seconds_;
  }
  // Charges while `run` runs, and returns the simulated seconds it took.
  double measure(const std::function<void()>& run);
  // The kept charges; null when not profiling.
  const devices::Profile* profile() {
    window_.flush();
    return profile_ ? &*profile_ : nullptr;
  }
  // Inside JittedBodyScopes: applications pay no dispatch.
  int jitted_body_depth = 0;
  // Inside a OneDispatchScope: whether its one dispatch is paid (null: in none).
  bool* composite_dispatch_paid = nullptr;
  // The outermost jitted call running now (0: none): the profile sums its
  // charges per call site (JitCallScope).
  devices::CallId current_call = 0;
  // The profile's id of calls of `function` from the statement at `span`,
  // counting one more call; 0 when not profiling.
  devices::CallId count_call(const std::string& function, const lang::Span& span);
  // Forgets the kept charges (the REPL profiles one entry at a time).
  void restart_profile();

  // --trace: the profile samples every change of a device's bytes in use on
  // `ledger` (Profile::record_memory), while this recorder lives.
  void trace_memory(const std::shared_ptr<devices::MemoryLedger>& ledger);
  // The profile while it samples memory, else null.
  devices::Profile* memory_timeline() { return traced_ledger_ && profile_ ? &*profile_ : nullptr; }

  // Charges `charge` on `devices`, from the statement at `span`.
  void add(devices::Charge charge, const std::vector<int>& devices, const lang::Span& span);
  // Charges a compute step and the collective it overlaps: the longer of the two.
  void add_overlapped(devices::Charge compute, const lang::Span& compute_span, devices::Charge communication,
                      const lang::Span& communication_span, const std::vector<int>& devices);
  // Charges an application's charges through the overlap window.
  void schedule(OverlapWindow::Application application) { window_.push(std::move(application)); }

  // The link of mesh axis `axis` of `mesh` (cached: meshes are few).
  devices::MeshAxisLink axis_link(const DeviceMeshRef& mesh, std::size_t axis);

 private:
  devices::SourceId source_of(const lang::Span& span);
  devices::SourceId line_source(const lang::Span& span);  // one id per (file, line)

  devices::Chip chip_;
  int device_count_;
  devices::CostModel model_;
  double clock_seconds_ = 0;
  int measuring_ = 0;
  std::optional<devices::Profile> profile_;
  std::shared_ptr<devices::MemoryLedger> traced_ledger_;
  Watcher watcher_;
  OverlapWindow window_;
  std::map<std::pair<const void*, int>, devices::SourceId> source_ids_;  // (file, line) -> id
  std::map<std::pair<const void*, std::uint32_t>, devices::SourceId> span_ids_;  // (file, offset) -> id
  std::map<std::pair<std::string, devices::SourceId>, devices::CallId> call_ids_;  // (function, call line) -> id
  std::map<std::pair<const DeviceMesh*, std::size_t>, std::pair<DeviceMeshRef, devices::MeshAxisLink>> links_;
};

// The evaluator's recorder, made on first use from the runtime's options.
CostRecorder& cost_recorder(Evaluator& evaluator);
// The profile sampling the runtime's device memory (--trace), or null: a
// jitted program's memory plan stages its changes there (memory_plan.hpp).
devices::Profile* memory_timeline(const Runtime& runtime);

// Whether charges are recorded now (a profile or a cost estimate is being
// made): otherwise charging does nothing.
bool charging_costs(Evaluator& evaluator);
// Charges one application of `primitive` that produced `result`: its local
// work and planned collectives on the devices of the result's mesh, plus the
// host's dispatch when it ran eagerly (inside a jitted program it is free).
void charge_application(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                        const ArrayRef& result, const Params& params, bool eager_dispatch);
// Charges one equation of a jitted call's per-device program: the charges of its steps
// (partitioner.hpp), on the devices of the result's mesh.
void charge_partitioned(Evaluator& evaluator, const PartitionedEquation& equation, const std::vector<ArrayRef>& operands,
                        const ArrayRef& result);
// The estimated time of one application of `primitive` inside a jitted
// program (no dispatch): its local work and the collectives planned for it,
// on the runtime's chip and the devices of `result`'s mesh. Records nothing.
double application_seconds(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                           const ArrayRef& result, const Params& params);

// Check mode, a call of a jitted program already checked (jit's cache):
// its equations charged as following the body charged them, each on an
// abstract value of its recorded type (the body is not run again).
void charge_checked_program(Evaluator& evaluator, const Jaxpr& program, const std::vector<ArrayRef>& arguments);

// An outermost jitted call, while profiling: its charges are the call's
// time in the profile's per-call section (a decode step's time, say).
class JitCallScope {
 public:
  JitCallScope(Evaluator& evaluator, const Value& function);
  ~JitCallScope();
  JitCallScope(const JitCallScope&) = delete;
  JitCallScope& operator=(const JitCallScope&) = delete;

 private:
  CostRecorder* recorder_ = nullptr;
};

// Check mode follows a jitted function's body on the abstract trace: its
// applications are one program's, with no dispatch of their own.
class JittedBodyScope {
 public:
  explicit JittedBodyScope(Evaluator& evaluator);
  ~JittedBodyScope();
  JittedBodyScope(const JittedBodyScope&) = delete;
  JittedBodyScope& operator=(const JittedBodyScope&) = delete;

 private:
  std::shared_ptr<CostRecorder> recorder_;
};

// A jnp function JAX jits (jnp.mean, jnp.sum: one compiled call when run
// eagerly) that shardlang composes of several primitives: eagerly, its
// first application pays the host's dispatch and the others none.
class OneDispatchScope {
 public:
  explicit OneDispatchScope(Evaluator& evaluator);
  ~OneDispatchScope();
  OneDispatchScope(const OneDispatchScope&) = delete;
  OneDispatchScope& operator=(const OneDispatchScope&) = delete;

 private:
  std::shared_ptr<CostRecorder> recorder_;  // null: inside another, or nothing charges
  bool paid_ = false;
};

// The estimated time of one execution of the per-device `program`
// (cost_analysis): the sum of its steps' charges, with `mesh` (may be null)
// giving the devices' places for the links.
double program_seconds(const devices::CostModel& model, const PartitionedProgram& program, const DeviceMeshRef& mesh);
// Bytes the program's collectives move per device.
double program_collective_bytes(const devices::CostModel& model, const PartitionedProgram& program,
                                const DeviceMeshRef& mesh);

// Sets the evaluator's %timeit hook: after IPython's host-time line, the
// simulated time of one execution on the chosen chip.
void install_costing(Evaluator& evaluator);

}  // namespace interp
