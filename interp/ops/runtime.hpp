// The simulated mesh as the script sees it (runtime.md): the platform's
// devices, concrete meshes (devices laid out over named axes), the layouts
// of arrays over them, and the objects jax.sharding hands to scripts
// (Device, Mesh, PartitionSpec, NamedSharding, PositionalSharding, AxisType).
//
// One Runtime per Evaluator (Evaluator::runtime); the devices are made on
// first use so that jax.config.update('jax_num_cpu_devices', N) and
// 'jax_platforms' can still change them before.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "devices/device.hpp"
#include "devices/memory.hpp"
#include "devices/thread_pool.hpp"
#include "devices/threefry.hpp"
#include "interp/python/evaluator.hpp"
#include "typecheck/array_type.hpp"
#include "typecheck/shape_arithmetic.hpp"
#include "typecheck/error.hpp"

namespace interp {

// Devices laid out over named mesh axes: devices[k] sits at the row-major
// position k of `shape`. `abstract` holds the axis names, sizes and types.
struct DeviceMesh {
  std::vector<int> shape;
  std::vector<devices::Device> devices;
  typecheck::MeshRef abstract;

  std::vector<int> device_ids() const;
  // Whether `other` lays out the same devices in the same order (no copy of their ids).
  bool same_devices(const DeviceMesh& other) const;
  // The mesh coordinates of position k.
  std::vector<int> coordinates(int position) const;
  // Position k's coordinate along mesh axis `axis` (coordinates(k)[axis]).
  int coordinate(int position, std::size_t axis) const;
};
using DeviceMeshRef = std::shared_ptr<const DeviceMesh>;

// How an array's shards sit on a mesh: one spec entry per array dimension
// (the mesh axes that split it, major first; empty = whole on every device).
// Unlike the array's type, a layout keeps Auto axes: it is where the data is.
struct Layout {
  DeviceMeshRef mesh;
  std::vector<typecheck::SpecEntry> dims;

  std::size_t position_count() const { return mesh->devices.size(); }
  // Into how many blocks dimension d is split.
  std::int64_t block_count(std::size_t dim) const;
  // The block of dimension `dim` that mesh position `position` holds.
  std::int64_t block_index(std::size_t dim, int position) const;
  // Where every position's block starts, `block` being the shard shape:
  // block_index(d, p) * block[d] at p * block.size() + d (each mesh axis
  // looked up once, not once per position).
  std::vector<std::int64_t> block_origins(const typecheck::Shape& block) const;
  // The shape of every shard (dimensions must divide: checked by make_layout).
  typecheck::Shape shard_shape(const typecheck::Shape& global) const;
  bool fully_replicated() const;
  bool operator==(const Layout& other) const;
};

// The layout of `spec` on `mesh` for an array of `shape`: the spec padded with
// None to the rank; ValueError text when an axis is unknown or a dimension
// is not divisible by its axes.
typecheck::Checked<Layout> make_layout(const DeviceMeshRef& mesh, const typecheck::PartitionSpec& spec,
                                       const typecheck::Shape& shape);

struct RuntimeOptions {
  devices::Platform platform = devices::Platform::tpu;
  devices::Chip chip = devices::Chip::v5e;
  int device_count = 8;
  // Keep every charge of the cost model for --profile / --trace (costing.hpp).
  bool profile = false;
  // With `profile`: the profile also samples each device's bytes in use at
  // every change (--trace's memory counters, CostRecorder::trace_memory).
  bool trace_memory = false;
  // The processes the run spans (devices/processes.hpp): the devices are
  // split over them in contiguous blocks.
  devices::Processes processes;
  // The host memory budget (MemoryError past it); none: the default,
  // devices::default_host_memory_budget().
  std::optional<std::int64_t> host_memory_bytes;
  // Each TPU's HBM instead of its chip's (MemoryLedger::for_devices).
  std::optional<std::int64_t> device_memory_bytes;
};

// One jax.vmap in progress (innermost last in Runtime::batch_axes): its
// axis_name (empty: none), its size, spmd_axis_name, and the Explicit mesh
// axes the mapped inputs were split over (JAX's explicit_mesh_axis).
struct BatchAxis {
  std::string name;
  std::int64_t size = 0;
  typecheck::SpecEntry spmd_axis_name;
  typecheck::SpecEntry explicit_mesh_axis;
  // JAX's BatchTracer.val, where the vmap runs outside jit: the batched
  // value of an array its trace made (an ArrayObject), or null for any
  // other array and for one no input's mapped dimension reaches.
  std::function<std::shared_ptr<Object>(Evaluator&, const Object&)> batched_value;
};

class MeshObject;
class Trace;
struct Placement;
struct Primitive;
struct Params;
class ArrayObject;

// The decision run_placed made for the abstract result of the application
// running now (ops/placement.hpp), kept until the trace records its
// equation (JitTrace::record), so that partitioning the program uses it
// instead of deciding again. What it was made from is compared, never
// followed: the application's operands, params and result.
struct TracedDecision {
  std::shared_ptr<const Placement> placement;
  const Primitive* primitive = nullptr;
  const std::vector<std::shared_ptr<ArrayObject>>* operands = nullptr;
  const Params* params = nullptr;
  const ArrayObject* result = nullptr;
};
class CostRecorder;
class TraceHistory;
struct DecisionCache;

// Where a recorded equation lies in one lax loop: the loop's instance, the
// iteration, and the equation's index among those the iteration recorded.
// A loop runs its body once per iteration, so the equations at one place of
// a loop's iterations are one equation of JAX's loop body.
struct LoopPlace {
  int instance = 0;
  std::int64_t iteration = 0;
  std::int64_t place = 0;
};

class Runtime {
 public:
  explicit Runtime(RuntimeOptions options) : options_(options) {}

  // Settable until the devices are first used (jax.config.update).
  RuntimeOptions& options() { return options_; }
  bool started() const { return !devices_.empty(); }

  // The devices in id order; raises ValueError when the platform cannot
  // hold the requested count.
  const std::vector<devices::Device>& devices();
  const std::shared_ptr<devices::MemoryLedger>& ledger();
  // The ledger's set of `mesh`'s devices (device_memory.hpp), made once per mesh.
  devices::MemoryLedger::DeviceSet memory_set(const DeviceMeshRef& mesh);
  devices::ThreadPool& pool();
  // A one-device mesh on device `id`: where uncommitted arrays live.
  DeviceMeshRef single_device_mesh(int id);

  // The processes of the run, and which holds the shard of a mesh position:
  // its device's process, or devices::every_process on a one-device mesh
  // (every process keeps one-device arrays, as each JAX process keeps its
  // default device's, so that host code runs alike everywhere).
  const devices::Processes& processes() const { return options_.processes; }
  int holder(const DeviceMesh& mesh, std::size_t position);
  bool holds(const DeviceMesh& mesh, std::size_t position);

  // The context mesh, or null: jax.set_mesh's, with the axes that
  // shard_map, use_abstract_mesh and auto_axes/explicit_axes switch to.
  std::shared_ptr<MeshObject> context_mesh;
  // jax.set_mesh's mesh as it was set (jax.sharding.get_mesh()), or null.
  std::shared_ptr<MeshObject> concrete_mesh;
  devices::ThreefryMode threefry_mode = devices::ThreefryMode::partitionable;
  // jax.distributed.initialize was called (multihost.cpp).
  bool distributed_initialized = false;
  // Traces pushed above the mode's own (trace.hpp), innermost last.
  std::vector<Trace*> trace_stack;
  // `with jax.ensure_compile_time_eval():` blocks open now: an application
  // whose operands all have values runs eagerly under any trace (bind).
  int compile_time_eval = 0;
  // `with jax.named_scope(name):` names open now, outermost first: an
  // equation a jit trace records keeps them (Equation::scope).
  std::vector<std::string> name_stack;
  // The vmaps whose function is being traced, innermost last: collectives
  // name their axes (batching.hpp).
  std::vector<BatchAxis> batch_axes;
  // The span of the traced equation being replayed now (ContextMeshScope in
  // transforms/jaxpr.hpp), empty when none: what a trace records takes it.
  lang::Span replayed_span;
  // Set by run_placed for an abstract result, cleared when an application
  // starts (trace.cpp) and taken by the trace that records it (empty: no
  // placement).
  TracedDecision traced_decision;
  // The last decisions of families decided by their operands alone
  // (placement.cpp), made on first use.
  std::shared_ptr<DecisionCache> decisions;
  // The lax loops (fori_loop, while_loop, scan) whose body is running now,
  // outermost first: each one's instance, its current iteration and the
  // count of equations recorded when that iteration began (LoopIterations
  // in transforms/jaxpr.hpp; a backward pass's transposed loops too).
  // Equations recorded count in equations_recorded.
  struct LoopFrame {
    int instance = 0;
    std::int64_t iteration = -1;
    std::int64_t iteration_start = 0;
    int transposes = -1;  // a transposed loop: the instance of the forward loop it runs backward
  };
  std::vector<LoopFrame> loops;
  // The loop places of the traced equation being replayed now (set with
  // replayed_span): a replay recorded under fewer loops than the equation
  // was keeps the places of the loops that are not running now.
  const std::vector<LoopPlace>* replayed_loop_places = nullptr;
  int loop_instances = 0;
  std::int64_t equations_recorded = 0;
  // UnchargedScopes open now (device_memory.hpp).
  int uncharged_depth = 0;
  // The cost model's clock and profile (costing.hpp), made on first charge.
  std::shared_ptr<CostRecorder> costs;
  // jax_explain_cache_misses, and the signatures jitted functions were
  // traced with (cache_misses.hpp), made on the first trace.
  bool explain_cache_misses = false;
  // The policies of the jax.checkpoint regions being recorded for
  // differentiation, innermost last (remat.cpp's custom_remat reads them).
  std::vector<Value> remat_policies;
  std::shared_ptr<TraceHistory> trace_history;

 private:
  RuntimeOptions options_;
  std::vector<devices::Device> devices_;
  std::shared_ptr<devices::MemoryLedger> ledger_;
  std::unique_ptr<devices::ThreadPool> pool_;
  std::vector<DeviceMeshRef> single_meshes_;
  // memory_set's answers, by mesh (the weak reference tells a reused address apart).
  std::map<const DeviceMesh*, std::pair<std::weak_ptr<const DeviceMesh>, devices::MemoryLedger::DeviceSet>> memory_sets_;
};

Runtime& runtime_of(Evaluator& evaluator);

// Raises a typecheck error in the script as the Python class it names.
[[noreturn]] void raise_error(const typecheck::Error& error);
template <class T>
T checked(typecheck::Checked<T> result) {
  if (!result) raise_error(result.error());
  return std::move(result).value();
}
// A type rule's result is the type of an array about to exist, in run and
// check alike: its size must fit (typecheck::check_array_size), so that no
// kernel, stride or byte count is computed from a size that wrapped.
template <>
inline typecheck::ArrayType checked(typecheck::Checked<typecheck::ArrayType> result) {
  if (!result) raise_error(result.error());
  if (auto error = typecheck::check_array_size(result.value().shape, result.value().dtype)) raise_error(*error);
  return std::move(result).value();
}

// A Python int that must fit a C int (a mesh size, an axis): CPython's
// OverflowError otherwise, never a silent truncation.
int c_int(std::int64_t value);

// ------------------------------------------------------------ script objects

class DeviceObject : public Object {
 public:
  explicit DeviceObject(devices::Device device) : device(std::move(device)) {}
  const TypeRef& type() const override;
  std::string repr(Evaluator&) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool equals(const Value& other) const override;
  std::optional<std::size_t> hash() const override { return static_cast<std::size_t>(device.id); }
  devices::Device device;
};

// An n-d numpy object array of devices (mesh_utils.create_device_mesh).
class DeviceArrayObject : public Object {
 public:
  DeviceArrayObject(std::vector<int> shape, std::vector<devices::Device> devices)
      : shape(std::move(shape)), devices(std::move(devices)) {}
  const TypeRef& type() const override;
  std::string repr(Evaluator& evaluator) const override;
  std::string str(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override;
  IteratorRef iterate(Evaluator& evaluator) override;
  std::optional<std::int64_t> length(Evaluator&) const override;
  std::vector<int> shape;
  std::vector<devices::Device> devices;
};

class AxisTypeObject : public Object {
 public:
  explicit AxisTypeObject(typecheck::AxisType axis_type) : axis_type(axis_type) {}
  const TypeRef& type() const override;
  std::string repr(Evaluator&) const override;
  bool equals(const Value& other) const override;
  std::optional<std::size_t> hash() const override { return static_cast<std::size_t>(axis_type); }
  typecheck::AxisType axis_type;
};

class MeshObject : public Object {
 public:
  explicit MeshObject(DeviceMeshRef mesh) : mesh(std::move(mesh)) {}
  const TypeRef& type() const override;
  // repr: Mesh(axis_sizes=(4, 2), axis_names=('X', 'Y'), axis_types=(...));
  // str: Mesh('X': 4, 'Y': 2, axis_types=(...)).
  std::string repr(Evaluator& evaluator) const override;
  std::string str(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool equals(const Value& other) const override;
  // `with mesh:` / `with jax.set_mesh(mesh):` makes it the context mesh.
  std::optional<Value> enter(Evaluator& evaluator) override;
  bool exit(Evaluator& evaluator, const Value* pending) override;
  DeviceMeshRef mesh;
  std::vector<std::shared_ptr<MeshObject>> saved_context;  // per `with` entered: the context and concrete meshes
};

// jax.sharding.AbstractMesh: axis names, sizes and types, no devices (what
// jax.sharding.get_abstract_mesh() returns and jax.typeof(x).sharding.mesh
// is). A null mesh is the empty AbstractMesh((), axis_types=()).
class AbstractMeshObject : public Object {
 public:
  explicit AbstractMeshObject(typecheck::MeshRef mesh) : mesh(std::move(mesh)) {}
  const TypeRef& type() const override;
  std::string repr(Evaluator&) const override { return typecheck::mesh_repr(mesh); }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool equals(const Value& other) const override;
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override;
  std::optional<std::size_t> hash() const override { return mesh ? mesh->axes().size() : 0; }
  // AbstractMesh is not a context manager (JAX's ValueError).
  std::optional<Value> enter(Evaluator& evaluator) override;
  typecheck::MeshRef mesh;
};

// jax.sharding.AbstractDevice(device_kind, num_cores, platform).
class AbstractDeviceObject : public Object {
 public:
  explicit AbstractDeviceObject(typecheck::AbstractDevice device) : device(std::move(device)) {}
  const TypeRef& type() const override;
  std::string repr(Evaluator&) const override { return "AbstractDevice(" + device.fields_repr() + ")"; }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool equals(const Value& other) const override;
  std::optional<std::size_t> hash() const override { return device.platform.size(); }
  typecheck::AbstractDevice device;
};

// The attributes a concrete and an abstract mesh share (axis_names,
// axis_sizes, axis_types, shape, shape_tuple, size, empty, abstract_mesh).
std::optional<Value> mesh_attribute(const typecheck::MeshRef& mesh, const std::string& name);

class PartitionSpecObject : public Object {
 public:
  explicit PartitionSpecObject(typecheck::PartitionSpec spec) : spec(std::move(spec)) {}
  const TypeRef& type() const override;
  std::string repr(Evaluator&) const override { return spec.repr(); }
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override;
  std::optional<std::int64_t> length(Evaluator&) const override {
    return static_cast<std::int64_t>(spec.partitions().size());
  }
  IteratorRef iterate(Evaluator& evaluator) override;
  // unreduced, reduced (frozensets), unreduced_kind
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool equals(const Value& other) const override;
  std::optional<std::size_t> hash() const override { return spec.partitions().size(); }
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override;
  typecheck::PartitionSpec spec;
};

// NamedSharding(abstract_mesh, spec): a sharding that names no devices, as
// jax.typeof(x).sharding is; usable wherever an out_sharding is.
class AbstractNamedShardingObject : public Object {
 public:
  AbstractNamedShardingObject(typecheck::MeshRef mesh, typecheck::PartitionSpec spec)
      : mesh(std::move(mesh)), spec(std::move(spec)) {}
  const TypeRef& type() const override;
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool equals(const Value& other) const override;
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override;
  std::optional<std::size_t> hash() const override { return spec.partitions().size(); }
  typecheck::MeshRef mesh;
  typecheck::PartitionSpec spec;
};

class NamedShardingObject : public Object {
 public:
  NamedShardingObject(DeviceMeshRef mesh, typecheck::PartitionSpec spec) : mesh(std::move(mesh)), spec(std::move(spec)) {}
  const TypeRef& type() const override;
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool equals(const Value& other) const override;
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override;
  std::optional<std::size_t> hash() const override { return mesh->devices.size(); }
  DeviceMeshRef mesh;
  typecheck::PartitionSpec spec;
};

// The legacy PositionalSharding: an array of device sets. Kept as the full
// device array (`devices`, of shape `device_shape`) and, per axis, whether
// replicate() collapsed it; axes dropped by keepdims=False are listed in
// `dropped`. Its layout for an array puts dimension d on the d-th kept axis.
class PositionalShardingObject : public Object {
 public:
  const TypeRef& type() const override;
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  // The visible shape: collapsed axes are 1, dropped ones absent.
  std::vector<int> shape() const;
  // A mesh with one axis per device axis and the layout of a rank-shape().size() array.
  Layout layout() const;

  std::vector<int> device_shape;
  std::vector<devices::Device> devices;  // row-major over device_shape
  std::vector<bool> collapsed;
  std::vector<bool> dropped;
  // The device axes in the order the sharding shows them (T reverses it, and
  // the device order, which decides compatibility, stays); empty: in order.
  std::vector<std::size_t> axis_order;
  // The shown axes (dropped ones left out), in axis_order.
  std::vector<std::size_t> shown_axes() const;
};

// The sharding of an array as the script sees it: NamedSharding for layouts
// on named meshes, a PositionalSharding-derived layout prints as NamedSharding too.
Value sharding_value(const Layout& layout);
// The layout a sharding-like value asks for (NamedSharding, PositionalSharding,
// P on the context mesh, a Device), for an array of `shape`.
Layout layout_for_target(Evaluator& evaluator, const Value& target, const typecheck::Shape& shape);

// Builds a mesh object from devices and axes (raises on bad input).
DeviceMeshRef make_device_mesh(std::vector<int> shape, std::vector<devices::Device> devices,
                               const std::vector<std::string>& names, const std::vector<typecheck::AxisType>& types);

// Fills the jax.sharding / mesh_utils / jax device members (runtime.cpp).
void install_runtime_members(Evaluator& evaluator);

}  // namespace interp
