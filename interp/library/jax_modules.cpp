// The members of jax, jax.sharding, jax.numpy, numpy and friends that deal
// with devices, meshes, shardings and arrays: one line per member (modules.cpp
// creates the module objects; install_array_members fills them).
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "devices/device_mesh.hpp"
#include "devices/host_values.hpp"
#include "devices/random_samplers.hpp"
#include "devices/sharding_picture.hpp"
#include "interp/ops/array.hpp"
#include "interp/ops/shaped_array.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/check_mode.hpp"
#include "interp/ops/debug_ops.hpp"
#include "interp/transforms/custom_derivatives.hpp"
#include "interp/transforms/forward_mode.hpp"
#include "interp/transforms/grad.hpp"
#include "interp/transforms/remat.hpp"
#include "interp/ops/indexing_ops.hpp"
#include "interp/transforms/jit.hpp"
#include "interp/library/nn_module.hpp"
#include "interp/library/numpy_module.hpp"
#include "interp/ops/contractions.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/library/multihost.hpp"
#include "interp/library/random_module.hpp"
#include "interp/library/sharding_module.hpp"
#include "interp/transforms/trace.hpp"
#include "interp/transforms/eval_shape.hpp"
#include "interp/transforms/vmap.hpp"
#include "interp/library/tree_module.hpp"
#include "typecheck/creation_rules.hpp"
#include "typecheck/shape_arithmetic.hpp"
#include "typecheck/shape_rules.hpp"

namespace interp {

using typecheck::DType;

namespace {

// The sharding of an array on one device outside any mesh, as JAX shows it
// (a NamedSharding underneath, so it still works as a device_put target).
class SingleDeviceShardingObject final : public NamedShardingObject {
 public:
  using NamedShardingObject::NamedShardingObject;
  const TypeRef& type() const override {
    static const TypeRef type = make_type("SingleDeviceSharding");
    return type;
  }
  std::string repr(Evaluator& evaluator) const override {
    return "SingleDeviceSharding(device=" + DeviceObject(mesh->devices[0]).repr(evaluator) + ", memory_kind=device)";
  }
};

// SingleDeviceSharding(device): the array whole on that one device.
Value single_device_sharding(Evaluator& evaluator, const Value& device) {
  auto* d = device.as<DeviceObject>();
  if (!d) raise(exc::TypeError(), "SingleDeviceSharding takes a Device, got " + type_name(device));
  DeviceMeshRef mesh = runtime_of(evaluator).single_device_mesh(d->device.id);
  return Value(std::make_shared<SingleDeviceShardingObject>(mesh, typecheck::PartitionSpec()));
}

}  // namespace

Value sharding_value(const Layout& layout) {
  auto spec = typecheck::PartitionSpec::from_entries(layout.dims);
  if (layout.mesh->shape.empty() && layout.mesh->devices.size() == 1)
    return Value(std::make_shared<SingleDeviceShardingObject>(layout.mesh, std::move(spec)));
  return Value(std::make_shared<NamedShardingObject>(layout.mesh, std::move(spec)));
}

namespace {

typecheck::SpecInput spec_input(Evaluator& evaluator, const Value& value) {
  if (value.is_none()) return typecheck::SpecInput::none();
  if (auto* s = string_of(value)) return typecheck::SpecInput::name(*s);
  std::vector<typecheck::SpecInput> items;
  for (const auto& v : evaluator.to_vector(value)) items.push_back(spec_input(evaluator, v));
  if (value.as<ListObject>()) return typecheck::SpecInput::list(std::move(items));
  return typecheck::SpecInput::tuple(std::move(items));
}

// P(..., unreduced=...) and reduced=: a set (or frozenset) of axis names.
typecheck::AxisSet spec_axis_set(Evaluator& evaluator, const Value& value, std::string_view argument) {
  typecheck::AxisSet axes;
  if (value.is_none()) return axes;
  if (!value.as<SetObject>())
    raise(exc::TypeError(), "`" + std::string(argument) +
                                "` argument of PartitionSpec should be of type `frozenset` or `set`. Got type <class '" +
                                type_name(value) + "'>");
  for (const auto& item : evaluator.to_vector(value)) {
    auto* name = string_of(item);
    if (!name) raise(exc::TypeError(), "`" + std::string(argument) + "` axes of PartitionSpec must be axis names");
    axes.insert(*name);
  }
  return axes;
}

Value make_partition_spec(Evaluator& evaluator, Arguments& a) {
  std::vector<typecheck::SpecInput> parts;
  for (const auto& v : a[0].as<TupleObject>()->items) parts.push_back(spec_input(evaluator, v));
  return Value(std::make_shared<PartitionSpecObject>(checked(typecheck::PartitionSpec::make(
      parts, spec_axis_set(evaluator, a[1], "unreduced"), spec_axis_set(evaluator, a[2], "reduced")))));
}

std::vector<devices::Device> device_list(Evaluator& evaluator, const Value& value, std::vector<int>& shape) {
  if (auto* d = value.as<DeviceArrayObject>()) {
    shape = d->shape;
    return d->devices;
  }
  std::vector<devices::Device> out;
  auto items = evaluator.to_vector(value);
  shape = {static_cast<int>(items.size())};
  for (const auto& item : items) {
    if (auto* d = item.as<DeviceObject>()) out.push_back(d->device);
    else raise(exc::TypeError(), "Mesh devices must be Device objects, got " + type_name(item));
  }
  return out;
}

std::vector<std::string> axis_names(Evaluator& evaluator, const Value& value) {
  if (auto* s = string_of(value)) return {*s};
  std::vector<std::string> names;
  for (const auto& v : evaluator.to_vector(value)) {
    auto* s = string_of(v);
    if (!s) raise(exc::TypeError(), "axis names must be strings");
    names.push_back(*s);
  }
  return names;
}

std::vector<typecheck::AxisType> axis_types(Evaluator& evaluator, const Value& value, std::size_t count,
                                            typecheck::AxisType default_type) {
  if (value.is_none()) return std::vector<typecheck::AxisType>(count, default_type);
  if (auto* t = value.as<AxisTypeObject>()) return std::vector<typecheck::AxisType>(count, t->axis_type);
  std::vector<typecheck::AxisType> out;
  for (const auto& v : evaluator.to_vector(value)) {
    auto* t = v.as<AxisTypeObject>();
    if (!t) raise(exc::TypeError(), "axis_types must be AxisType values");
    out.push_back(t->axis_type);
  }
  return out;
}

std::vector<int> ints(Evaluator& evaluator, const Value& value) {
  if (value.is_integral()) return {c_int(value.as_int())};
  std::vector<int> out;
  for (const auto& v : evaluator.to_vector(value)) out.push_back(c_int(evaluator.index_of(v)));
  return out;
}


// What jax.set_mesh(mesh) returns: the mesh is the context mesh from the call
// on; as a context manager it restores the one before on exit (entering it
// again must not save the mesh it set).
class SetMeshContext final : public MeshObject {
 public:
  SetMeshContext(DeviceMeshRef mesh, std::shared_ptr<MeshObject> previous, std::shared_ptr<MeshObject> previous_concrete)
      : MeshObject(mesh ? std::move(mesh) : empty_device_mesh()), previous_(std::move(previous)),
        previous_concrete_(std::move(previous_concrete)) {}
  std::optional<Value> enter(Evaluator&) override { return Value(self()); }
  bool exit(Evaluator& evaluator, const Value*) override {
    runtime_of(evaluator).context_mesh = previous_;
    runtime_of(evaluator).concrete_mesh = previous_concrete_;
    return false;
  }

 private:
  static DeviceMeshRef empty_device_mesh() {
    auto empty = std::make_shared<DeviceMesh>();
    empty->abstract = checked(typecheck::AbstractMesh::make({}));
    return empty;
  }
  std::shared_ptr<MeshObject> previous_;
  std::shared_ptr<MeshObject> previous_concrete_;
};

}  // namespace

Layout layout_for_target(Evaluator& evaluator, const Value& target, const typecheck::Shape& shape) {
  if (auto* n = target.as<NamedShardingObject>()) return checked(make_layout(n->mesh, n->spec, shape));
  if (auto* p = target.as<PositionalShardingObject>()) {
    Layout layout = p->layout();
    // The seed tutorial's rule: a value of lower rank takes the trailing axes
    // when the leading ones it lacks are replicated (b2, a vector, under the
    // (1, 2) sharding.replicate(0) of its (4, 2) PositionalSharding).
    const std::size_t extra = layout.dims.size() > shape.size() ? layout.dims.size() - shape.size() : 0;
    if (extra > 0 && std::all_of(layout.dims.begin(), layout.dims.begin() + static_cast<std::ptrdiff_t>(extra),
                                 [](const typecheck::SpecEntry& entry) { return entry.empty(); }))
      layout.dims.erase(layout.dims.begin(), layout.dims.begin() + static_cast<std::ptrdiff_t>(extra));
    if (layout.dims.size() != shape.size()) {
      // As in JAX, a fully replicated PositionalSharding (sharding.replicate()) fits a value of any rank.
      if (!layout.fully_replicated())
        raise(exc::ValueError(), "Sharding " + evaluator.repr(target) + " is only valid for values of rank " +
                                     std::to_string(layout.dims.size()) + ", but was applied to a value of rank " +
                                     std::to_string(shape.size()));
      layout.dims.assign(shape.size(), typecheck::SpecEntry{});
    }
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (shape[d] % layout.block_count(d) != 0)
        raise(exc::ValueError(), "dimension " + std::to_string(d) + " of size " + std::to_string(shape[d]) +
                                     " is not divisible by " + std::to_string(layout.block_count(d)));
    return layout;
  }
  if (auto* abstract = target.as<AbstractNamedShardingObject>()) {
    // A sharding on an abstract mesh places on the context mesh it names.
    auto mesh = context_device_mesh(evaluator);
    if (!mesh || !typecheck::same_mesh(mesh->abstract, abstract->mesh))
      raise(exc::ValueError(), "Context mesh " + typecheck::mesh_repr(mesh ? mesh->abstract : nullptr) +
                                   " should match the mesh of sharding " + typecheck::mesh_repr(abstract->mesh) +
                                   " passed to device_put.");
    return checked(make_layout(mesh, abstract->spec, shape));
  }
  if (auto* spec = target.as<PartitionSpecObject>()) {
    auto mesh = context_device_mesh(evaluator);
    if (!mesh)
      raise(exc::ValueError(), "Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to device_put");
    return checked(make_layout(mesh, spec->spec, shape));
  }
  if (auto* d = target.as<DeviceObject>()) {
    Layout layout{runtime_of(evaluator).single_device_mesh(d->device.id), {}};
    layout.dims.resize(shape.size());
    return layout;
  }
  raise(exc::TypeError(), "device_put target must be a Sharding, a PartitionSpec or a Device, got " + type_name(target));
}

// jax.device_put(x, target) for one leaf.
Value device_put_leaf(Evaluator& evaluator, const Value& leaf, const Value& target, std::string_view primitive_name) {
  ArrayRef array = to_array(evaluator, leaf);
  if (target.is_none()) return Value(array);
  Layout layout;
  try {
    layout = layout_for_target(evaluator, target, array->aval.shape);
  } catch (PyError& error) {
    // Check mode: an unusable sharding leaves the array where it is, poisoned.
    if (!recover_in_check(evaluator, error, array->poisoned)) throw;
    ArrayRef poisoned = make_abstract_array(array->aval, array->layout, array->committed);
    poisoned->poisoned = true;
    return Value(poisoned);
  }
  // A compiled computation belongs to one set of devices: under jit an array
  // can change its layout, not its mesh (placement.md). Check mode follows a
  // jitted body as its own trace, and refuses the move as a run does.
  const bool in_jitted_body = tracing_jit(evaluator) || checking_jitted_body(evaluator);
  if (in_jitted_body && array->committed && !array->layout.mesh->same_devices(*layout.mesh)) {
    auto describe = [](const DeviceMesh& mesh) {
      std::string ids;
      for (int id : mesh.device_ids()) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
      return "device ids [" + ids + "] on platform " + std::string(devices::platform_display_name(mesh.devices[0].platform));
    };
    raise(exc::ValueError(), "Received incompatible devices for jitted computation. Got argument with shape " +
                                 array->aval.format({.short_dtypes = false, .weak_marker = false}) + " and with " +
                                 describe(*array->layout.mesh) + " and device_put inside jit with " +
                                 describe(*layout.mesh));
  }
  std::optional<typecheck::PartitionSpec> requested;
  // (A SingleDeviceSharding stays one: the array shows the sharding of where it is.)
  if (auto* named = target.as<NamedShardingObject>(); named && !target.as<SingleDeviceShardingObject>())
    requested = named->spec;
  if (auto* abstract = target.as<AbstractNamedShardingObject>()) requested = abstract->spec;
  if (auto* spec = target.as<PartitionSpecObject>()) requested = spec->spec;
  return apply_device_put(evaluator, array, layout, requested, primitive_name);
}

Value place_created(Evaluator& evaluator, std::string_view api, const ArrayRef& array, const Value& out_sharding) {
  // The requested sharding checked as JAX types a created array.
  try {
    (void)checked(typecheck::creation_rule(api, array->aval.element_type(), array->aval.shape,
                                           context_abstract_mesh(evaluator), sharding_argument(out_sharding)));
  } catch (PyError& error) {
    if (!recover_in_check(evaluator, error, false)) throw;
    array->poisoned = true;
    return Value(array);
  }
  return device_put_leaf(evaluator, Value(array), out_sharding);
}

namespace {

// jnp's choose_device_or_out_sharding: at most one of the two.
void check_device_or_out_sharding(Evaluator& evaluator, const Value& device, const Value& out_sharding) {
  if (!device.is_none() && !out_sharding.is_none())
    raise(exc::ValueError(), "Only one of `device` or `out_sharding` can be set. Got device=" + evaluator.repr(device) +
                                 " and out_sharding=" + evaluator.repr(out_sharding));
}

// A created array: `fill` gives the global data; placed by out_sharding/device.
Value create(Evaluator& evaluator, std::string_view api, DType dtype, const typecheck::Shape& shape, const Value& out_sharding,
             const Value& device, const std::function<devices::LocalArray()>& fill) {
  check_device_or_out_sharding(evaluator, device, out_sharding);
  typecheck::ArrayType aval;
  aval.dtype = dtype;
  aval.shape = shape;
  aval.sharding = typecheck::Sharding::replicated(nullptr, shape.size());
  if (auto error = typecheck::check_array_size(shape, dtype)) raise_error(*error);
  ArrayRef array;
  if (out_sharding.is_none() && device.is_none() && !context_device_mesh(evaluator)) {
    array = host_array(evaluator, aval, fill);
  } else {
    // Made where it goes: not first whole on device 0.
    UnchargedScope staged(evaluator);
    array = host_array(evaluator, aval, fill);
  }
  if (!out_sharding.is_none()) return place_created(evaluator, api, array, out_sharding);
  if (!device.is_none()) return device_put_leaf(evaluator, Value(array), device);
  if (auto mesh = context_device_mesh(evaluator)) {
    // Under a context mesh new arrays are replicated on it.
    auto spec = Value(std::make_shared<NamedShardingObject>(mesh, typecheck::PartitionSpec()));
    Value placed = device_put_leaf(evaluator, Value(array), spec);
    placed.as<ArrayObject>()->committed = false;
    return placed;
  }
  return Value(array);
}

// Integer and bool dtypes are filled in their own type (an int32 above 2^24
// or a uint32 above 2^31 is exact); Python ints wrap as convert_element_type
// does (devices::full).
devices::LocalArray filled(Evaluator& evaluator, DType dtype, const typecheck::Shape& shape, double value) {
  auto made = devices::full(runtime_of(evaluator).ledger(), dtype, shape, value);
  if (!made) raise_devices_error(made.error());
  return *made;
}

DType optional_dtype(Evaluator& evaluator, const Value& value, DType otherwise) {
  return value.is_none() ? otherwise : dtype_argument(evaluator, value);
}

std::string picture(Evaluator& evaluator, const ArrayObject& array, devices::PictureFormat format) {
  std::vector<devices::ShardPlacement> placements;
  typecheck::Shape local = array.layout.shard_shape(array.aval.shape);
  for (std::size_t p = 0; p < array.layout.position_count(); ++p) {
    devices::ShardPlacement placement{array.layout.mesh->devices[p].id, {}};
    for (std::size_t d = 0; d < array.aval.ndim(); ++d) {
      std::int64_t b = array.layout.block_index(d, static_cast<int>(p));
      placement.ranges.push_back({b * local[d], (b + 1) * local[d]});
    }
    placements.push_back(placement);
  }
  devices::PictureOptions options;
  options.format = format;
  auto text = devices::sharding_picture(array.aval.shape, placements, array.layout.mesh->devices[0].platform, options);
  if (!text) raise_devices_error(text.error());
  (void)evaluator;
  return *text;
}

void install_sharding_module(Evaluator& evaluator) {
  auto sharding = evaluator.module("jax.sharding");
  auto axis_type = make_type("AxisType");
  auto axis_type_holder = std::make_shared<ModuleObject>("AxisType");
  for (auto t : {typecheck::AxisType::Explicit, typecheck::AxisType::Auto, typecheck::AxisType::Manual})
    axis_type_holder->add(std::string(typecheck::axis_type_name(t)), Value(std::make_shared<AxisTypeObject>(t)));
  sharding->add("AxisType", Value(axis_type_holder));
  auto spec_type = make_type("PartitionSpec");
  spec_type->set_constructor([](Evaluator& ev, CallArgs& args) {
    static const Signature signature = Signature::parse("PartitionSpec(*partitions, unreduced=None, reduced=None)");
    Arguments a = bind_arguments(ev, signature, args);
    return make_partition_spec(ev, a);
  });
  sharding->add("PartitionSpec", Value(spec_type));
  auto mesh_type = make_type("Mesh");
  mesh_type->set_constructor([](Evaluator& ev, CallArgs& args) {
    static const Signature signature = Signature::parse("Mesh(devices, axis_names, axis_types=None)");
    Arguments a = bind_arguments(ev, signature, args);
    std::vector<int> shape;
    auto devices = device_list(ev, a[0], shape);
    auto names = axis_names(ev, a[1]);
    auto types = axis_types(ev, a[2], names.size(), typecheck::AxisType::Auto);
    return Value(std::make_shared<MeshObject>(make_device_mesh(shape, devices, names, types)));
  });
  sharding->add("Mesh", Value(mesh_type));
  auto named_type = make_type("NamedSharding");
  named_type->set_constructor([](Evaluator& ev, CallArgs& args) {
    static const Signature signature = Signature::parse("NamedSharding(mesh, spec)");
    Arguments a = bind_arguments(ev, signature, args);
    auto* mesh = a[0].as<MeshObject>();
    auto* spec = a[1].as<PartitionSpecObject>();
    // On an AbstractMesh: a sharding that names no devices (an out_sharding).
    if (auto* abstract = a[0].as<AbstractMeshObject>(); abstract && spec && abstract->mesh) {
      if (auto error = typecheck::check_spec(*abstract->mesh, spec->spec)) raise_error(*error);
      return Value(std::make_shared<AbstractNamedShardingObject>(abstract->mesh, spec->spec));
    }
    if (!mesh || !spec) raise(exc::TypeError(), "NamedSharding(mesh, spec) takes a Mesh and a PartitionSpec");
    if (auto error = typecheck::check_spec(*mesh->mesh->abstract, spec->spec)) raise_error(*error);
    return Value(std::make_shared<NamedShardingObject>(mesh->mesh, spec->spec));
  });
  sharding->add("NamedSharding", Value(named_type));
  auto positional_type = make_type("PositionalSharding");
  positional_type->set_constructor([](Evaluator& ev, CallArgs& args) {
    static const Signature signature = Signature::parse("PositionalSharding(devices)");
    Arguments a = bind_arguments(ev, signature, args);
    auto p = std::make_shared<PositionalShardingObject>();
    p->devices = device_list(ev, a[0], p->device_shape);
    p->collapsed.assign(p->device_shape.size(), false);
    p->dropped.assign(p->device_shape.size(), false);
    return Value(p);
  });
  sharding->add("PositionalSharding", Value(positional_type));
  auto single_type = make_type("SingleDeviceSharding");
  single_type->set_constructor([](Evaluator& ev, CallArgs& args) {
    static const Signature signature = Signature::parse("SingleDeviceSharding(device, *, memory_kind=None)");
    Arguments a = bind_arguments(ev, signature, args);
    return single_device_sharding(ev, a[0]);
  });
  sharding->add("SingleDeviceSharding", Value(single_type));
  sharding->add_function("make_single_device_sharding(device, *, memory_kind=None)", [](Evaluator& ev, Arguments& a) {
    return single_device_sharding(ev, a[0]);
  });
}

void install_jax_module(Evaluator& evaluator) {
  auto jax = evaluator.module("jax");
  auto sharding = evaluator.module("jax.sharding");
  jax->add("P", *sharding->find("PartitionSpec"));
  jax->add("NamedSharding", *sharding->find("NamedSharding"));
  jax->add_function("devices(backend=None)", [](Evaluator& ev, Arguments&) {
    std::vector<Value> out;
    for (const auto& d : runtime_of(ev).devices()) out.push_back(Value(std::make_shared<DeviceObject>(d)));
    return make_list(std::move(out));
  });
  // Every array holding device memory now, oldest first (device_memory.hpp).
  jax->add_function("live_arrays(platform=None)", [](Evaluator& ev, Arguments&) {
    std::vector<Value> out;
    for (const devices::MemoryOwner* owner : runtime_of(ev).ledger()->live_owners())
      if (auto* memory = dynamic_cast<const ArrayMemory*>(owner))
        if (auto array = memory->array.lock()) out.push_back(Value(array));
    return make_list(std::move(out));
  });
  jax->add_function("device_count(backend=None)", [](Evaluator& ev, Arguments&) {
    return Value::integer(static_cast<std::int64_t>(runtime_of(ev).devices().size()));
  });
  jax->add_function("make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None)", [](Evaluator& ev, Arguments& a) {
    auto shape = ints(ev, a[0]);
    auto names = axis_names(ev, a[1]);
    auto types = axis_types(ev, a[2], names.size(), typecheck::AxisType::Explicit);
    std::vector<devices::Device> pool = runtime_of(ev).devices();
    if (!a[3].is_none()) {
      std::vector<int> ignored;
      pool = device_list(ev, a[3], ignored);
    }
    auto ordered = devices::make_mesh_devices(shape, pool);
    if (!ordered) raise_devices_error(ordered.error());
    return Value(std::make_shared<MeshObject>(make_device_mesh(shape, *ordered, names, types)));
  });
  jax->add_function("set_mesh(mesh)", [](Evaluator& ev, Arguments& a) {
    auto* mesh = a[0].as<MeshObject>();
    if (!mesh && !a[0].is_none())
      raise(exc::ValueError(), "Expected mesh of type `jax.sharding.Mesh`. Got <class '" + type_name(a[0]) + "'>");
    if (tracing_jit(ev)) raise(exc::ValueError(), "`set_mesh` can only be used outside of `jax.jit`.");
    if (mesh && mesh->mesh->abstract->has_axis_of_type(typecheck::AxisType::Manual))
      raise(exc::ValueError(), "mesh " + mesh->str(ev) +
                                   " contains manual axes which is not allowed when using `jax.set_mesh`. Please use "
                                   "`jax.shard_map` to enter into `Manual` mode instead.");
    auto& rt = runtime_of(ev);
    auto restore = std::make_shared<SetMeshContext>(mesh ? mesh->mesh : nullptr, rt.context_mesh, rt.concrete_mesh);
    rt.context_mesh = mesh ? std::static_pointer_cast<MeshObject>(a[0].object()) : nullptr;
    rt.concrete_mesh = rt.context_mesh;
    return Value(restore);
  });
  evaluator.module("jax.sharding")->add("use_mesh", *jax->find("set_mesh"));
  jax->add_function("device_put(x, device=None)", [](Evaluator& ev, Arguments& a) {
    Value target = a[1];
    if (node_children(ev, target)) {
      // A pytree prefix of x: one target per leaf of x below each of its leaves.
      std::vector<Value> targets = broadcast_prefix(ev, target, a[0], "device_put device");
      std::size_t next = 0;
      return tree_map(ev, a[0], [&](const Value& leaf) { return device_put_leaf(ev, leaf, targets.at(next++)); });
    }
    return tree_map(ev, a[0], [&](const Value& leaf) { return device_put_leaf(ev, leaf, target); });
  });
  // device_get(x): each array leaf as np.asarray gives it (the whole value on
  // the host); traced arrays and other leaves as they are, as JAX's. (Check
  // mode's arrays are all abstract: there, a traced one is one under a trace.)
  jax->add_function("device_get(x)", [](Evaluator& ev, Arguments& a) {
    Value to_host = *ev.module("numpy")->find("asarray");
    const bool traced = ev.mode == Evaluator::Mode::run || !runtime_of(ev).trace_stack.empty();
    return tree_map(ev, a[0], [&](const Value& leaf) {
      auto* array = leaf.as<ArrayObject>();
      if (!array || (traced && array->abstract())) return leaf;
      return ev.call(to_host, {leaf});
    });
  });
  jax->add_function("block_until_ready(x)", [](Evaluator&, Arguments& a) { return a[0]; });
  // Effects (debug prints) happen in program order as the program runs: nothing to wait for.
  jax->add_function("effects_barrier()", [](Evaluator&, Arguments&) { return Value(); });
  evaluator.module("jax.config")->add_function("update(name, value)", [](Evaluator& ev, Arguments& a) {
    auto& rt = runtime_of(ev);
    const std::string* name = string_of(a[0]);
    if (!name) raise(exc::TypeError(), "config name must be a str");
    if (*name == "jax_threefry_partitionable") {
      rt.threefry_mode = ev.truthy(a[1]) ? devices::ThreefryMode::partitionable : devices::ThreefryMode::stable;
    } else if (*name == "jax_num_cpu_devices" || *name == "jax_platforms") {
      if (rt.started()) raise(exc::RuntimeError(), *name + " must be set before the devices are first used");
      if (*name == "jax_num_cpu_devices") rt.options().device_count = c_int(ev.index_of(a[1]));
      else if (auto platform = devices::parse_platform(ev.str(a[1]))) rt.options().platform = *platform;
      else raise(exc::ValueError(), "unknown platform " + ev.repr(a[1]));
    } else if (*name == "jax_explain_cache_misses") {
      rt.explain_cache_misses = ev.truthy(a[1]);
    } else if (*name == "jax_remat3") {
      // JAX's new remat (jax.checkpoint's policies on the linearized program)
      // is the only one shardlang has: True asks for it; False is refused.
      if (!ev.truthy(a[1])) raise(exc::ValueError(), "shardlang has only the remat that jax_remat3 selects");
    } else {
      raise(exc::AttributeError(), "Unrecognized config option: " + *name);
    }
    return Value();
  });
  evaluator.module("jax.experimental.mesh_utils")->add_function(
      "create_device_mesh(mesh_shape, devices=None, *, allow_split_physical_axes=False)", [](Evaluator& ev, Arguments& a) {
        auto shape = ints(ev, a[0]);
        std::vector<devices::Device> pool = runtime_of(ev).devices();
        if (!a[1].is_none()) {
          std::vector<int> ignored;
          pool = device_list(ev, a[1], ignored);
        }
        auto ordered = devices::create_device_mesh(shape, pool, {ev.truthy(a[2])});
        if (!ordered) raise_devices_error(ordered.error());
        return Value(std::make_shared<DeviceArrayObject>(shape, *ordered));
      });
  evaluator.module("jax.experimental")->add("mesh_utils", Value(evaluator.module("jax.experimental.mesh_utils")));
  auto debug = evaluator.module("jax.debug");
  debug->add_function("visualize_array_sharding(arr, *, use_color=False, scale=1.0, min_width=9, max_width=80)",
                      [](Evaluator& ev, Arguments& a) {
                        ArrayRef array = to_array(ev, a[0]);
                        // The text for terminals; an HTML table for a host that shows it (a notebook).
                        std::string html = ev.display ? picture(ev, *array, devices::PictureFormat::html) : "";
                        ev.show(Shown::picture, picture(ev, *array, devices::PictureFormat::text), html);
                        return Value();
                      });
}

// zeros, ones, full and zeros_like, ones_like, full_like: arrays of one value.
void install_filled_creation(ModuleObject& module, const std::string& placement, bool is_jnp) {
  auto sized = [&](const char* name, double value) {
    module.add_function(std::string(name) + "(shape, dtype=None" + placement + ")", [value, is_jnp, name](Evaluator& ev, Arguments& a) {
      DType dtype = optional_dtype(ev, a[1], DType::float32);
      typecheck::Shape shape = int_values(ev, a[0]);
      Value none;
      return create(ev, name, dtype, shape, is_jnp ? a[2] : none, is_jnp ? a[3] : none,
                    [&]() { return filled(ev, dtype, shape, value); });
    });
  };
  sized("zeros", 0.0);
  sized("ones", 1.0);
  sized("empty", 0.0);  // JAX's empty is zeros (XLA has no uninitialised buffers)
  module.add_function("full(shape, fill_value, dtype=None" + placement + ")", [is_jnp](Evaluator& ev, Arguments& a) {
    ArrayRef fill = to_array(ev, a[1]);
    DType dtype = optional_dtype(ev, a[2], fill->aval.dtype);
    typecheck::Shape shape = int_values(ev, a[0]);
    if (fill->aval.ndim() > 0) {  // an array fill value is broadcast to the shape, as JAX's full does
      Value cast = apply_astype(ev, fill, dtype);
      Value out = ev.call(*ev.module("jax.numpy")->find("broadcast_to"),
                          std::vector<Value>{cast, make_tuple([&] {
                            std::vector<Value> dims;
                            for (auto d : shape) dims.push_back(Value::integer(d));
                            return dims;
                          }())});
      for (std::size_t placement = 3; is_jnp && placement <= 4; ++placement)
        if (!a[placement].is_none()) return device_put_leaf(ev, out, a[placement]);
      return out;
    }
    double v = fill->abstract() ? 0.0 : element_values(ev, *fill)[0];
    Value none;
    return create(ev, "full", dtype, shape, is_jnp ? a[3] : none, is_jnp ? a[4] : none, [&]() { return filled(ev, dtype, shape, v); });
  });
  // full_like(a, fill_value, ...) takes the value as its second argument;
  // zeros_like/ones_like have it fixed.
  auto like = [&](const char* name, std::optional<double> value) {
    std::string fill = value ? "" : "fill_value, ";
    module.add_function(std::string(name) + "(a, " + fill + "dtype=None" + placement + ")", [value, is_jnp, name](Evaluator& ev, Arguments& a) {
      ArrayRef like_array = to_array(ev, a[0]);
      std::size_t rest = value ? 1 : 2;
      double fill_value = value ? *value : to_float(ev, a[1]);
      DType dtype = optional_dtype(ev, a[rest], like_array->aval.dtype);
      typecheck::Shape shape = like_array->aval.shape;
      if (is_jnp) check_device_or_out_sharding(ev, a[rest + 2], a[rest + 1]);
      ArrayRef made = to_array(ev, create(ev, name, dtype, shape, Value(), Value(), [&]() { return filled(ev, dtype, shape, fill_value); }));
      if (is_jnp && !a[rest + 1].is_none()) return device_put_leaf(ev, Value(made), a[rest + 1]);
      if (is_jnp && !a[rest + 2].is_none()) return device_put_leaf(ev, Value(made), a[rest + 2]);
      // *_like keeps the operand's layout, uncommitted.
      ArrayRef placed = relayout(ev, made, like_array->layout);
      placed->aval.sharding = like_array->aval.sharding;
      placed->committed = false;
      return Value(placed);
    });
  };
  like("zeros_like", 0.0);
  like("empty_like", 0.0);
  like("ones_like", 1.0);
  like("full_like", std::nullopt);
}

// arange, linspace and eye: arrays computed from their parameters.
void install_range_creation(ModuleObject& module, const std::string& placement, bool is_jnp) {
  module.add_function("arange(start, stop=None, step=None, dtype=None" + placement + ")", [is_jnp](Evaluator& ev, Arguments& a) {
    bool floating = a[0].is_float() || a[1].is_float() || a[2].is_float();
    double start = to_float(ev, a[0]), stop = 0, step = a[2].is_none() ? 1.0 : to_float(ev, a[2]);
    if (a[1].is_none()) std::swap(start, stop);
    else stop = to_float(ev, a[1]);
    typecheck::Shape shape = checked(typecheck::arange_shape(start, stop, step));
    DType dtype = optional_dtype(ev, a[3], floating ? DType::float32 : DType::int32);
    Value none;
    return create(ev, "arange", dtype, shape, is_jnp ? a[4] : none, is_jnp ? a[5] : none, [&]() {
      // int32 from integer arguments is exact beyond float32's 2^24; the
      // rest is computed in float32 and converted.
      bool exact = dtype == DType::int32 && !floating;
      auto made = devices::arange(runtime_of(ev).ledger(), exact ? DType::int32 : DType::float32, shape, start, step);
      if (made && made->dtype() != dtype) made = devices::convert(*made, dtype);
      if (!made) raise_devices_error(made.error());
      return *made;
    });
  });
  module.add_function("linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0" + placement + ")",
                      [is_jnp](Evaluator& ev, Arguments& a) {
    double start = to_float(ev, a[0]), stop = to_float(ev, a[1]);
    std::int64_t num = ev.index_of(a[2]);
    if (num < 0) raise(exc::ValueError(), "Number of samples, " + std::to_string(num) + ", must be non-negative.");
    if (ev.truthy(a[4])) raise(exc::NotImplementedError(), "linspace(retstep=True) in shardlang");
    if (ev.index_of(a[6]) != 0) raise(exc::NotImplementedError(), "linspace with array endpoints (axis=) in shardlang");
    bool endpoint = ev.truthy(a[3]);
    DType dtype = optional_dtype(ev, a[5], DType::float32);
    typecheck::Shape shape{num};
    Value none;
    return create(ev, "linspace", dtype, shape, is_jnp ? a[7] : none, is_jnp ? a[8] : none, [&]() {
      auto made = devices::linspace(runtime_of(ev).ledger(), dtype, num, start, stop, endpoint);
      if (!made) raise_devices_error(made.error());
      return *made;
    });
  });
  module.add_function("eye(N, M=None, k=0, dtype=None" + placement + ")", [is_jnp](Evaluator& ev, Arguments& a) {
    std::int64_t rows = ev.index_of(a[0]), columns = a[1].is_none() ? rows : ev.index_of(a[1]), k = ev.index_of(a[2]);
    DType dtype = optional_dtype(ev, a[3], DType::float32);
    typecheck::Shape shape{rows, columns};
    Value none;
    return create(ev, "eye", dtype, shape, is_jnp ? a[4] : none, is_jnp ? a[5] : none, [&]() {
      auto made = devices::eye(runtime_of(ev).ledger(), dtype, rows, columns, k);
      if (!made) raise_devices_error(made.error());
      return *made;
    });
  });
}

// array, asarray and copy: arrays from host values or other arrays.
void install_array_conversion(ModuleObject& module, const std::string& placement, bool is_jnp) {
  auto array_like = [&](const char* name) {
    module.add_function(std::string(name) + "(object, dtype=None" + placement + ")", [is_jnp](Evaluator& ev, Arguments& a) {
      // A list of devices is a numpy object array of devices.
      if (auto* list = a[0].as<ListObject>(); list && !list->items.empty() && list->items[0].as<DeviceObject>()) {
        std::vector<int> shape;
        auto devices = device_list(ev, a[0], shape);
        return Value(std::make_shared<DeviceArrayObject>(shape, devices));
      }
      std::optional<DType> dtype;
      if (!a[1].is_none()) dtype = dtype_argument(ev, a[1]);
      ArrayRef array = to_array(ev, a[0], dtype);
      // jnp.asarray(2) keeps the Python number's weak type, as JAX's does;
      // a NumPy array has none.
      if (!is_jnp && array->aval.weak_type) {
        typecheck::ArrayType strong = array->aval;
        strong.weak_type = false;
        array = retyped_array(ev, *array, strong, array->committed);
      }
      if (is_jnp) check_device_or_out_sharding(ev, a[3], a[2]);
      if (is_jnp && !a[2].is_none()) return device_put_leaf(ev, Value(array), a[2]);
      if (is_jnp && !a[3].is_none()) return device_put_leaf(ev, Value(array), a[3]);
      // np.asarray of a sharded array is a host copy: whole, on the default
      // device, uncommitted (its indexing no longer follows the sharding).
      if (!is_jnp && (array->committed || array->shards.size() > 1)) {
        ArrayRef whole = relayout(ev, array, default_layout(ev, array->aval.ndim()));
        typecheck::ArrayType aval = whole->aval;
        aval.sharding = typecheck::Sharding::replicated(nullptr, aval.ndim());
        return Value(retyped_array(ev, *whole, aval, false));
      }
      return Value(array);
    });
  };
  array_like("array");
  array_like("asarray");
  module.add_function("copy(a)", [](Evaluator& ev, Arguments& a) {
    ArrayRef array = to_array(ev, a[0]);
    return Value(relayout(ev, array, array->layout));
  });
}

// reshape/ravel's order=: only C order (row-major) is the arrays' own.
void check_order(Evaluator& evaluator, const Value& order) {
  const std::string text = evaluator.str(order);
  if (text == "C") return;
  if (text == "F" || text == "A")
    raise(exc::NotImplementedError(), "jnp.reshape order=" + text + " is not supported in shardlang");
  raise(exc::ValueError(), "Unexpected value for 'order' argument: " + text + ".");
}

// An operand of numpy's host comparisons (allclose, array_equal): its data,
// JAX's ConcretizationTypeError for a traced array, null in check mode
// (abstract arrays have none).
ArrayRef host_operand(Evaluator& evaluator, const Value& value, const std::string& function) {
  ArrayRef array = to_array(evaluator, value);
  if (evaluator.mode == Evaluator::Mode::check && array->abstract()) return nullptr;
  return concrete_or_error(evaluator, array, "The problem arose with the `" + function + "` function.");
}

// An array's elements laid over `shape`, which it broadcasts to (NumPy's
// rules: trailing dimensions aligned, extent-1 dimensions repeated).
std::vector<double> broadcast_values(Evaluator& evaluator, const ArrayObject& array, const typecheck::Shape& shape) {
  std::vector<int> trailing(array.aval.ndim());
  std::iota(trailing.begin(), trailing.end(), static_cast<int>(shape.size() - trailing.size()));
  return devices::element_values(
      value_or_raise(devices::broadcast_in_dim(global_value(evaluator, array), shape, trailing)));
}

// The elementwise primitives by name (and pow, atan2), reshape, transpose and
// allclose.
void install_numpy_computation(ModuleObject& module) {
  for (const auto& primitive : primitives()) {
    if (!is_elementwise(primitive)) continue;
    const Primitive* p = &primitive;
    std::string signature = std::string(p->name) + (p->arity == 1 ? "(x, /)" : "(x1, x2, /)");
    module.add_function(signature, [p](Evaluator& ev, Arguments& a) {
      std::vector<Value> operands{a[0]};
      if (p->arity == 2) operands.push_back(a[1]);
      return apply_elementwise(ev, *p, operands);
    });
  }
  // The array API's names (NumPy 2 and jnp have both).
  module.add("pow", *module.find("power"));
  module.add("atan2", *module.find("arctan2"));
  module.add("invert", *module.find("bitwise_not"));
  module.add("bitwise_invert", *module.find("bitwise_not"));
  // bitwise_xor of the operands as bools (JAX's composition).
  module.add_function("logical_xor(x1, x2, /)", [](Evaluator& ev, Arguments& a) {
    auto as_bool = [&](const Value& x) {
      ArrayRef array = to_array(ev, x);
      if (array->aval.dtype == typecheck::DType::bool_) return Value(array);
      return apply_elementwise(ev, primitive("not_equal"), {Value(array), Value::integer(0)});
    };
    return apply_elementwise(ev, primitive("bitwise_xor"), {as_bool(a[0]), as_bool(a[1])});
  });
  module.add_function("dtype(dtype)", [](Evaluator& ev, Arguments& a) {
    return Value(std::make_shared<DTypeObject>(dtype_argument(ev, a[0])));
  });

  module.add_function("reshape(a, shape, order='C', *, copy=None, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    check_order(ev, a[2]);
    return apply_reshape(ev, a[0], int_values(ev, a[1]), a[4]);
  });
  module.add_function("ravel(a, order='C', *, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    check_order(ev, a[1]);
    return apply_reshape(ev, a[0], {-1}, a[2]);
  });
  module.add_function("transpose(a, axes=None)", [](Evaluator& ev, Arguments& a) {
    ArrayRef array = to_array(ev, a[0]);
    auto permutation = a[1].is_none() ? typecheck::reversed_permutation(array->aval.ndim()) : ints(ev, a[1]);
    return apply_transpose(ev, Value(array), permutation);
  });
  module.add_function("allclose(a, b, rtol=1e-05, atol=1e-08)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = host_operand(ev, a[0], "allclose"), y = host_operand(ev, a[1], "allclose");
    if (!x || !y) return unknown_value();  // check mode: no data to compare
    // NumPy's broadcasting: both operands laid over their common shape.
    const typecheck::Shape shapes[] = {x->aval.shape, y->aval.shape};
    auto common = typecheck::broadcast_shapes(shapes);
    if (!common) {
      auto numpy_shape = [](const typecheck::Shape& shape) {  // NumPy's spelling: (8,3,3)
        std::string text = "(";
        for (std::size_t d = 0; d < shape.size(); ++d) text += (d ? "," : "") + std::to_string(shape[d]);
        return text + (shape.size() == 1 ? ",)" : ")");
      };
      raise(exc::ValueError(), "operands could not be broadcast together with shapes " + numpy_shape(x->aval.shape) +
                                   " " + numpy_shape(y->aval.shape) + " ");
    }
    auto xs = broadcast_values(ev, *x, *common), ys = broadcast_values(ev, *y, *common);
    double rtol = to_float(ev, a[2]), atol = to_float(ev, a[3]);
    for (std::size_t i = 0; i < xs.size(); ++i)
      if (!(std::fabs(xs[i] - ys[i]) <= atol + rtol * std::fabs(ys[i]))) return Value::boolean(false);
    return Value::boolean(true);
  });
  // numpy.array_equal compares host values into a Python bool (jnp's is
  // composed from primitives: numpy_math.cpp).
  module.add_function("array_equal(a1, a2, equal_nan=False)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]), y = to_array(ev, a[1]);
    if (x->aval.shape != y->aval.shape) return Value::boolean(false);
    x = host_operand(ev, Value(x), "array_equal");
    y = host_operand(ev, Value(y), "array_equal");
    if (!x || !y) return unknown_value();  // check mode: no data to compare
    auto xs = element_values(ev, *x), ys = element_values(ev, *y);
    bool equal_nan = ev.truthy(a[2]);
    for (std::size_t i = 0; i < xs.size(); ++i)
      if (!(xs[i] == ys[i] || (equal_nan && std::isnan(xs[i]) && std::isnan(ys[i])))) return Value::boolean(false);
    return Value::boolean(true);
  });
}

void install_numpy_members(Evaluator& evaluator, ModuleObject& module, bool is_jnp) {
  for (DType d : {DType::bool_, DType::int8, DType::int32, DType::uint32, DType::float16, DType::bfloat16, DType::float32})
    module.add(d == DType::bool_ ? "bool_" : std::string(typecheck::long_name(d)), Value(std::make_shared<DTypeObject>(d)));
  std::string placement = is_jnp ? ", out_sharding=None, device=None" : "";
  install_filled_creation(module, placement, is_jnp);
  install_range_creation(module, placement, is_jnp);
  install_array_conversion(module, placement, is_jnp);
  install_numpy_computation(module);
}

// Whether a call's arguments hold a traced (abstract) array, in tuples and
// lists too (np.stack's sequence).
bool holds_abstract_array(const Arguments& arguments) {
  std::function<bool(const Value&)> abstract = [&](const Value& value) {
    if (is_abstract_array(value)) return true;
    const std::vector<Value>* items = nullptr;
    if (auto* tuple = value.as<TupleObject>()) items = &tuple->items;
    if (auto* list = value.as<ListObject>()) items = &list->items;
    return items && std::any_of(items->begin(), items->end(), abstract);
  };
  return std::any_of(arguments.values.begin(), arguments.values.end(),
                     [&](const std::optional<Value>& value) { return value && abstract(*value); });
}

// NumPy computes on the host: a numpy function given no traced array runs
// beneath every trace, so what it gives inside jit or grad is a concrete
// array (np.prod(x.shape) is a number there, as with real NumPy), not a
// traced one. Given a traced array it is traced as jnp's is.
void compute_numpy_on_the_host(ModuleObject& numpy) {
  for (auto& [name, member] : numpy.globals()) {
    auto* function = member.as<NativeFunction>();
    if (!function) continue;
    member = Value(std::make_shared<NativeFunction>(
        function->signature(), [body = function->body()](Evaluator& ev, Arguments& a) {
          if (ev.mode != Evaluator::Mode::run || holds_abstract_array(a)) return body(ev, a);
          TraceStackCut beneath_every_trace(ev, 0);
          return body(ev, a);
        }, function->module()));
  }
}

}  // namespace

void install_test_util(Evaluator& evaluator);     // test_util_module.cpp
void install_numpy_random(Evaluator& evaluator);  // numpy_random.cpp

void install_array_members(Evaluator& evaluator) {
  install_sharding_module(evaluator);
  install_jax_module(evaluator);
  install_sharding_members(evaluator);
  install_jit(evaluator);
  install_random_module(evaluator);
  install_tree_module(evaluator);
  install_grad(evaluator);
  install_forward_mode(evaluator);
  install_custom_derivatives(evaluator);
  install_remat(evaluator);
  install_test_util(evaluator);
  install_numpy_random(evaluator);
  install_vmap(evaluator);
  install_eval_shape(evaluator);
  install_numpy_members(evaluator, *evaluator.module("jax.numpy"), true);
  install_numpy_members(evaluator, *evaluator.module("numpy"), false);
  install_array_operations(evaluator, *evaluator.module("jax.numpy"), true);
  install_array_operations(evaluator, *evaluator.module("numpy"), false);
  install_linalg_operations(evaluator);
  install_contractions(evaluator);
  install_lax_convolution(evaluator);
  install_debug_operations(evaluator);
  install_multihost(evaluator);
  install_nn_module(evaluator);
  evaluator.module("jax")->add("Array", Value(array_type()));
  evaluator.module("jax.numpy")->add("ndarray", Value(array_type()));
  auto errors = evaluator.module("jax.errors");
  errors->add("ConcretizationTypeError", Value(concretization_type_error()));
  errors->add("TracerBoolConversionError", Value(tracer_bool_conversion_error()));
  errors->add("NonConcreteBooleanIndexError", Value(non_concrete_boolean_index_error()));
  auto jax = evaluator.module("jax");
  for (const char* sub : {"errors", "numpy", "lax", "random", "sharding", "experimental", "debug", "tree", "config", "nn"})
    jax->add(sub, Value(evaluator.module(std::string("jax.") + sub)));
  compute_numpy_on_the_host(*evaluator.module("numpy"));
  evaluator.module("numpy")->add("testing", Value(evaluator.module("numpy.testing")));
}

}  // namespace interp
