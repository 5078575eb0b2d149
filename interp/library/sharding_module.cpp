// jax.typeof's abstract value and the members of jax.sharding that switch
// meshes and axis types (sharding_module.hpp), after JAX 0.11's mesh.py,
// sharding_impls.py and pjit.py.
#include "interp/library/sharding_module.hpp"

#include "interp/library/random_module.hpp"
#include "interp/library/tree_module.hpp"
#include "interp/ops/array.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/ops/shaped_array.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/trace.hpp"
#include "typecheck/creation_rules.hpp"
#include "typecheck/python_repr.hpp"

namespace interp {

DeviceMeshRef context_device_mesh(Evaluator& evaluator) {
  auto& rt = runtime_of(evaluator);
  return rt.context_mesh ? rt.context_mesh->mesh : nullptr;
}

typecheck::MeshRef context_abstract_mesh(Evaluator& evaluator) {
  auto mesh = context_device_mesh(evaluator);
  return mesh ? mesh->abstract : nullptr;
}

AbstractMeshScope::AbstractMeshScope(Evaluator& evaluator, const typecheck::MeshRef& mesh)
    : runtime_(runtime_of(evaluator)), saved_(runtime_.context_mesh) {
  if (auto error = typecheck::check_abstract_mesh_change(context_abstract_mesh(evaluator), mesh)) raise_error(*error);
  if (!mesh || mesh->axes().empty()) {
    runtime_.context_mesh = nullptr;
    return;
  }
  auto seen = std::make_shared<DeviceMesh>();
  for (const auto& axis : mesh->axes()) seen->shape.push_back(c_int(axis.size));
  const auto count = static_cast<std::size_t>(mesh->device_count());
  if (DeviceMeshRef current = context_device_mesh(evaluator)) {
    seen->devices = current->devices;
  } else {
    const auto& all = runtime_.devices();
    if (all.size() < count)
      raise(exc::ValueError(), "Number of devices " + std::to_string(all.size()) +
                                   " must be >= the product of mesh_shape " + mesh->repr());
    seen->devices.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(count));
  }
  seen->abstract = mesh;
  runtime_.context_mesh = std::make_shared<MeshObject>(seen);
}

AbstractMeshScope::~AbstractMeshScope() { runtime_.context_mesh = saved_; }

namespace {


std::optional<std::vector<std::string>> axes_argument(Evaluator& evaluator, const Value& value) {
  if (value.is_none()) return std::nullopt;
  if (auto* name = string_of(value)) return std::vector<std::string>{*name};
  std::vector<std::string> names;
  for (const auto& item : evaluator.to_vector(value)) {
    auto* name = string_of(item);
    if (!name) raise(exc::TypeError(), "axes must be mesh axis names, got " + evaluator.repr(item));
    names.push_back(*name);
  }
  return names;
}

// The mesh of the NamedShardings among `shardings` (pjit._get_new_mesh):
// they must all be on one.
typecheck::MeshRef shardings_mesh(Evaluator& evaluator, const Value& shardings, std::string_view api) {
  typecheck::MeshRef found;
  TreeDef def;
  for (const Value& leaf : tree_flatten(evaluator, shardings, def)) {
    typecheck::MeshRef mesh;
    if (auto* named = leaf.as<NamedShardingObject>()) mesh = named->mesh->abstract;
    else if (auto* abstract = leaf.as<AbstractNamedShardingObject>()) mesh = abstract->mesh;
    else continue;
    if (found && !typecheck::same_mesh(found, mesh))
      raise(exc::ValueError(), "Shardings passed to " + std::string(api) + " should have the same mesh. Got one mesh " +
                                   found->repr() + " and another " + typecheck::mesh_repr(mesh));
    found = mesh;
  }
  return found;
}

// An array leaf retyped onto the context mesh without moving its data: its
// shards stay where they are and the type keeps only the axes that are
// Explicit there (what auto_axes does to its arguments and explicit_axes to
// its results: the axes that become Auto leave the type, and the compiler
// keeps the placement). Leaves placed elsewhere are resharded to `spec`.
Value retype_leaf(Evaluator& evaluator, const Value& leaf) {
  ArrayRef array = to_array(evaluator, leaf);
  DeviceMeshRef mesh = context_device_mesh(evaluator);
  typecheck::PartitionSpec spec = typecheck::explicit_only(array->aval.sharding.spec(), context_abstract_mesh(evaluator));
  if (!mesh) return Value(array);
  const DeviceMeshRef& from = array->layout.mesh;
  if (from && from->shape == mesh->shape && from->same_devices(*mesh))
    return apply_device_put(evaluator, array, Layout{mesh, array->layout.dims}, std::nullopt);
  return device_put_leaf(evaluator, Value(array), Value(std::make_shared<PartitionSpecObject>(spec)));
}

// auto_axes(f) and explicit_axes(f): f run with some mesh axes switched to
// Auto (resp. Explicit); the result resharded to out_sharding (resp. the
// arguments to in_sharding).
class AxesSwitchObject : public Object {
 public:
  AxesSwitchObject(Value function, typecheck::AxisType to, std::optional<std::vector<std::string>> axes, Value sharding)
      : function(std::move(function)), to(to), axes(std::move(axes)), sharding(std::move(sharding)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("function");
    return type;
  }
  std::string repr(Evaluator& evaluator) const override { return evaluator.repr(function); }
  bool callable() const override { return true; }
  std::optional<Value> descriptor_get(Evaluator&, const Value& instance, const Value&) override {
    if (instance.is_none()) return std::nullopt;
    return Value(std::make_shared<BoundMethod>(instance, shared_from_this()));
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "__wrapped__") return function;
    if (name == "__name__" || name == "__qualname__" || name == "__doc__") return evaluator.get_attribute(function, name);
    return Object::get_attribute(evaluator, name);
  }
  Value call(Evaluator& evaluator, CallArgs& args) override {
    const bool automatic = to == typecheck::AxisType::Auto;
    const std::string keyword = automatic ? "out_sharding" : "in_sharding";
    Value given = sharding;
    if (given.is_none()) {
      auto found = std::find_if(args.keywords.begin(), args.keywords.end(), [&](const auto& k) { return k.first == keyword; });
      if (found == args.keywords.end()) raise(exc::TypeError(), "Missing required keyword argument: '" + keyword + "'");
      given = found->second;
      args.keywords.erase(found);
    }
    const std::string api = automatic ? "auto_axes" : "explicit_axes";
    auto change = checked(typecheck::switch_axis_types(context_abstract_mesh(evaluator),
                                                       automatic ? shardings_mesh(evaluator, given, api) : nullptr, axes, to));
    if (!change) {
      if (!automatic)
        raise(exc::ValueError(), "Context mesh cannot be empty. Please use `jax.set_mesh` API to enter into a mesh "
                                 "context when using `explicit_axes` API.");
      return evaluator.call(function, args);
    }
    if (automatic) return call_auto(evaluator, args, *change, given);
    Value result;
    {
      AbstractMeshScope inside(evaluator, change->next);
      args.positional = evaluator.to_vector(reshard_tree(evaluator, make_tuple(args.positional), given));
      result = evaluator.call(function, args);
    }
    return tree_map(evaluator, result, [&](const Value& leaf) { return retype_leaf(evaluator, leaf); });
  }

  Value function;
  typecheck::AxisType to;
  std::optional<std::vector<std::string>> axes;
  Value sharding;  // out_sharding (auto_axes) or in_sharding (explicit_axes); None: given at each call

 private:
  Value call_auto(Evaluator& evaluator, CallArgs& args, const typecheck::MeshSwitch& change, const Value& out_sharding) {
    // Axes already Auto: a plain call.
    std::set<std::string> already;
    for (const auto& axis : change.previous->axes())
      if (axis.type == typecheck::AxisType::Auto) already.insert(axis.name);
    if (already == std::set<std::string>(change.axes.begin(), change.axes.end())) return evaluator.call(function, args);
    Value result;
    {
      AbstractMeshScope inside(evaluator, change.next);
      for (Value& argument : args.positional)
        argument = tree_map(evaluator, argument, [&](const Value& leaf) { return retype_leaf(evaluator, leaf); });
      result = evaluator.call(function, args);
    }
    return reshard_tree(evaluator, result, out_sharding);
  }
};

// use_abstract_mesh(mesh): a context manager.
class UseAbstractMeshObject : public Object {
 public:
  explicit UseAbstractMeshObject(typecheck::MeshRef mesh) : mesh(std::move(mesh)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("use_abstract_mesh");
    return type;
  }
  std::optional<Value> enter(Evaluator& evaluator) override {
    scopes_.push_back(std::make_unique<AbstractMeshScope>(evaluator, mesh));
    return Value::none();
  }
  bool exit(Evaluator&, const Value*) override {
    if (!scopes_.empty()) scopes_.pop_back();
    return false;
  }
  typecheck::MeshRef mesh;

 private:
  std::vector<std::unique_ptr<AbstractMeshScope>> scopes_;
};

// auto_axes / explicit_axes as a decorator, a factory or a call.
Value axes_switch(Evaluator& evaluator, Arguments& a, typecheck::AxisType to) {
  auto axes = axes_argument(evaluator, a[1]);
  Value sharding = a[2];
  if (a[0].is_none())
    return Value(native("decorator(f)", [to, axes, sharding](Evaluator&, Arguments& inner) {
      return Value(std::make_shared<AxesSwitchObject>(inner[0], to, axes, sharding));
    }));
  return Value(std::make_shared<AxesSwitchObject>(a[0], to, axes, sharding));
}

typecheck::MeshRef abstract_mesh_argument(Evaluator& evaluator, Arguments& a) {
  std::vector<typecheck::MeshAxis> axes;
  auto sizes = evaluator.to_vector(a[0]);
  std::vector<Value> names = string_of(a[1]) ? std::vector<Value>{a[1]} : evaluator.to_vector(a[1]);
  if (sizes.size() != names.size())
    raise(exc::ValueError(), "AbstractMesh axis_sizes and axis_names must have the same length. Got axis_sizes=" +
                                 evaluator.repr(a[0]) + " and axis_names=" + evaluator.repr(a[1]));
  std::vector<Value> types;
  if (a[2].is_none()) types.assign(names.size(), Value(std::make_shared<AxisTypeObject>(typecheck::AxisType::Explicit)));
  else if (a[2].as<AxisTypeObject>()) types = {a[2]};
  else types = evaluator.to_vector(a[2]);
  for (const Value& t : types)
    if (!t.as<AxisTypeObject>())
      raise(exc::TypeError(), "axis_types passed to AbstractMesh must be of type `jax.sharding.AxisType`. Got " +
                                  evaluator.repr(a[2]));
  if (types.size() != names.size())
    raise(exc::ValueError(), "Number of axis names should match the number of axis_types. Got axis_names=" +
                                 evaluator.repr(a[1]) + " and axis_types=" + evaluator.repr(a[2]));
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto* name = string_of(names[i]);
    if (!name) raise(exc::TypeError(), "AbstractMesh axis names must be strings, got " + evaluator.repr(names[i]));
    axes.push_back({*name, evaluator.index_of(sizes[i]), types[i].as<AxisTypeObject>()->axis_type});
  }
  std::optional<typecheck::AbstractDevice> device;
  if (auto* d = a[3].as<AbstractDeviceObject>()) device = d->device;
  else if (!a[3].is_none()) raise(exc::TypeError(), "abstract_device must be a jax.sharding.AbstractDevice");
  return checked(typecheck::AbstractMesh::make(std::move(axes), std::move(device)));
}

void install_mesh_members(Evaluator& evaluator, ModuleObject& sharding) {
  auto abstract_mesh_type = make_type("AbstractMesh");
  abstract_mesh_type->set_constructor([](Evaluator& ev, CallArgs& args) {
    static const Signature signature =
        Signature::parse("AbstractMesh(axis_sizes, axis_names, axis_types=None, *, abstract_device=None)");
    Arguments a = bind_arguments(ev, signature, args);
    typecheck::MeshRef mesh = abstract_mesh_argument(ev, a);
    return Value(std::make_shared<AbstractMeshObject>(mesh->axes().empty() ? nullptr : mesh));
  });
  sharding.add("AbstractMesh", Value(abstract_mesh_type));
  auto abstract_device_type = make_type("AbstractDevice");
  abstract_device_type->set_constructor([](Evaluator& ev, CallArgs& args) {
    static const Signature signature = Signature::parse("AbstractDevice(device_kind, num_cores, platform)");
    Arguments a = bind_arguments(ev, signature, args);
    std::optional<std::int64_t> cores;
    if (!a[1].is_none()) cores = ev.index_of(a[1]);
    return Value(std::make_shared<AbstractDeviceObject>(typecheck::AbstractDevice{ev.str(a[0]), cores, ev.str(a[2])}));
  });
  sharding.add("AbstractDevice", Value(abstract_device_type));
  sharding.add_function("get_abstract_mesh()", [](Evaluator& ev, Arguments&) {
    return Value(std::make_shared<AbstractMeshObject>(context_abstract_mesh(ev)));
  });
  sharding.add_function("use_abstract_mesh(mesh)", [](Evaluator& ev, Arguments& a) {
    auto* mesh = a[0].as<AbstractMeshObject>();
    if (!mesh)
      raise(exc::ValueError(), "Expected mesh of type `jax.sharding.AbstractMesh`. Got type: <class '" +
                                   type_name(a[0]) + "'>");
    return Value(std::make_shared<UseAbstractMeshObject>(mesh->mesh));
  });
  sharding.add_function("get_mesh()", [](Evaluator& ev, Arguments&) {
    if (tracing_jit(ev))
      raise(exc::ValueError(), "`get_mesh` can only be used outside of `jax.jit`. Maybe you want "
                               "`jax.sharding.get_abstract_mesh()`?");
    auto& rt = runtime_of(ev);
    if (rt.concrete_mesh) return Value(rt.concrete_mesh);
    auto empty = std::make_shared<DeviceMesh>();
    empty->abstract = checked(typecheck::AbstractMesh::make({}));
    return Value(std::make_shared<MeshObject>(empty));
  });
  (void)evaluator;
}

}  // namespace

namespace {

// reshard's type check (JAX's core.get_sharding): a spec longer than the value's rank.
void check_reshard_rank(Evaluator& evaluator, const Value& leaf, const Value& target) {
  const typecheck::PartitionSpec* spec = nullptr;
  typecheck::MeshRef mesh;
  if (auto* p = target.as<PartitionSpecObject>()) {
    spec = &p->spec;
    mesh = context_abstract_mesh(evaluator);
  } else if (auto* named = target.as<NamedShardingObject>()) {
    spec = &named->spec;
    mesh = named->mesh->abstract;
  }
  std::size_t ndim = to_array(evaluator, leaf)->aval.ndim();
  if (!spec || !mesh || spec->partitions().size() <= ndim) return;
  std::string length = std::to_string(spec->partitions().size()), rank = std::to_string(ndim);
  raise(exc::ValueError(), "Length of sharding.spec (" + length + ") must be equal to aval's ndim (" + rank +
                               "). Got sharding.spec " + spec->repr() + ", aval.ndim " + rank +
                               " and sharding NamedSharding(mesh=" + typecheck::mesh_repr(mesh) + ", spec=" +
                               spec->repr() + ")");
}

}  // namespace

Value reshard_tree(Evaluator& evaluator, const Value& x, const Value& out_shardings) {
  auto one = [&](const Value& leaf, const Value& target) {
    if (target.as<PartitionSpecObject>() && !context_device_mesh(evaluator))
      raise(exc::ValueError(), "Using PartitionSpec when you are not under a mesh context is not allowed. Please "
                               "pass a NamedSharding instance or enter into a mesh context via `jax.set_mesh`. Got " +
                                   evaluator.repr(target));
    if (target.is_none())
      raise(exc::ValueError(), "Reshard should only be used with out_shardings which are non-None and have a "
                               "non-empty mesh. Got sharding None.");
    check_reshard_rank(evaluator, leaf, target);
    if (auto requested = sharding_argument(target)) {
      DeviceMeshRef context = context_device_mesh(evaluator);
      typecheck::MeshRef mesh = requested->mesh ? *requested->mesh : context ? context->abstract : nullptr;
      if (mesh)
        if (auto error = typecheck::check_explicit_axes("reshard", *mesh, requested->spec)) raise_error(*error);
    }
    return device_put_leaf(evaluator, leaf, target, "reshard");
  };
  if (!out_shardings.is_none() && node_children(evaluator, out_shardings)) {
    std::vector<Value> targets = broadcast_prefix(evaluator, out_shardings, x, "reshard out_shardings");
    std::size_t next = 0;
    return tree_map(evaluator, x, [&](const Value& leaf) { return one(leaf, targets.at(next++)); });
  }
  return tree_map(evaluator, x, [&](const Value& leaf) { return one(leaf, out_shardings); });
}

Value apply_out_sharding(Evaluator& evaluator, std::string_view api, const Value& out_sharding,
                         const std::function<Value()>& make) {
  Value made = make();
  if (out_sharding.is_none()) return made;
  ArrayRef array = to_array(evaluator, made);
  if (!checked(typecheck::canonicalize_out_sharding(api, sharding_argument(out_sharding),
                                                    context_abstract_mesh(evaluator), array->aval.shape)))
    return made;
  return device_put_leaf(evaluator, made, out_sharding);
}

void install_sharding_members(Evaluator& evaluator) {
  auto sharding = evaluator.module("jax.sharding");
  install_mesh_members(evaluator, *sharding);
  sharding->add_function("auto_axes(f=None, /, *, axes=None, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    return axes_switch(ev, a, typecheck::AxisType::Auto);
  });
  sharding->add_function("explicit_axes(f=None, /, *, axes=None, in_sharding=None)", [](Evaluator& ev, Arguments& a) {
    return axes_switch(ev, a, typecheck::AxisType::Explicit);
  });
  auto jax = evaluator.module("jax");
  jax->add_function("reshard(xs, out_shardings)", [](Evaluator& ev, Arguments& a) { return reshard_tree(ev, a[0], a[1]); });
  sharding->add("reshard", *jax->find("reshard"));
  jax->add_function("typeof(x)", [](Evaluator& ev, Arguments& a) {
    if (auto key_type = key_type_text(a[0])) return make_str(*key_type);
    return shaped_array(to_array(ev, a[0]));
  });

}

}  // namespace interp
