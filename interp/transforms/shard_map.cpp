// jax.shard_map and the collectives' API (shard_map.hpp).
#include "interp/transforms/shard_map.hpp"

#include <algorithm>
#include <functional>

#include "interp/library/tree_module.hpp"
#include "interp/python/builtins.hpp"
#include "interp/ops/collectives.hpp"
#include "interp/transforms/check_mode.hpp"
#include "interp/transforms/trace.hpp"
#include "typecheck/shard_map_rules.hpp"

namespace interp {

namespace {

// check_vma of the shard_map bodies being run, innermost last.
thread_local std::vector<bool> check_vma_stack;

struct ArrayLeaf {
  std::string path;  // keystr: "[0][1]", "['w']", "" for the root
  ArrayRef array;
};

// The leaves of `tree` as arrays, with their key paths (tree_module's walker).
std::vector<ArrayLeaf> flatten(Evaluator& evaluator, const Value& tree) {
  TreeDef def;
  std::vector<Value> leaves = tree_flatten(evaluator, tree, def);
  std::vector<std::string> paths = def.leaf_paths(evaluator);
  std::vector<ArrayLeaf> out;
  for (std::size_t k = 0; k < leaves.size(); ++k) out.push_back({paths[k], to_array(evaluator, leaves[k])});
  return out;
}

// `tree` with its leaves replaced by leaves[next], leaves[next + 1], ... in
// flatten's order; `next` moves past them.
Value unflatten(Evaluator& evaluator, const Value& tree, const std::vector<Value>& leaves, std::size_t& next) {
  TreeDef def;
  tree_flatten(evaluator, tree, def);
  std::size_t count = def.leaf_count();
  std::span<const Value> rest = std::span<const Value>(leaves).subspan(std::min(next, leaves.size()));
  Value out = tree_unflatten(evaluator, def, rest.first(std::min(count, rest.size())));
  next += count;
  return out;
}

// One spec per leaf: a bare P applies to every leaf below it; a tuple or
// list of specs is a prefix of the tree's top level.
struct SpecFor {
  std::string spec_path;
  typecheck::PartitionSpec spec;
};

typecheck::PartitionSpec spec_value(Evaluator& evaluator, const Value& value, std::string_view what) {
  if (auto* p = value.as<PartitionSpecObject>()) return p->spec;
  if (value.is_none()) return typecheck::PartitionSpec();
  raise(exc::TypeError(), std::string(what) + " must be a PartitionSpec or a tuple of them, got " + evaluator.repr(value));
}

// The specs for the leaves of `tree` (each leaf path starting with the
// top-level index when `specs` is a tuple).
std::vector<SpecFor> specs_for(Evaluator& evaluator, const Value& specs, const Value& tree, std::string_view what) {
  std::vector<SpecFor> out;
  if (specs.as<TupleObject>() || specs.as<ListObject>()) {
    auto per_item = evaluator.to_vector(specs);
    auto items = tree.as<TupleObject>() || tree.as<ListObject>() ? evaluator.to_vector(tree) : std::vector<Value>{tree};
    if (per_item.size() != items.size())
      raise(exc::ValueError(), std::string(what) + " has " + std::to_string(per_item.size()) + " entries but the " +
                                   (what == "in_specs" ? "arguments have " : "outputs have ") +
                                   std::to_string(items.size()));
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::vector<ArrayLeaf> leaves = flatten(evaluator, items[i]);
      if (per_item[i].as<TupleObject>() || per_item[i].as<ListObject>()) {
        auto nested = specs_for(evaluator, per_item[i], items[i], what);
        for (auto& n : nested) out.push_back({"[" + std::to_string(i) + "]" + n.spec_path, n.spec});
        continue;
      }
      for (std::size_t k = 0; k < leaves.size(); ++k)
        out.push_back({"[" + std::to_string(i) + "]", spec_value(evaluator, per_item[i], what)});
    }
    return out;
  }
  std::vector<ArrayLeaf> leaves = flatten(evaluator, tree);
  for (std::size_t k = 0; k < leaves.size(); ++k) out.push_back({"", spec_value(evaluator, specs, what)});
  return out;
}

// The span of the last `return` in a def's body (where a replication error
// is reported: the line that returned the value).
std::optional<lang::Span> last_return(const lang::ast::Body& body) {
  std::optional<lang::Span> found;
  for (const auto& stmt : body) {
    if (std::holds_alternative<lang::ast::Return>(stmt->node)) found = stmt->span;
    if (const auto* branch = std::get_if<lang::ast::If>(&stmt->node)) {
      if (auto inner = last_return(branch->body)) found = inner;
      if (auto inner = last_return(branch->orelse)) found = inner;
    }
  }
  return found;
}

std::string function_name(const Value& function) {
  std::string name = qualified_name(function);
  auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

// Restores the context mesh and the check_vma stack when the body ends.
class BodyScope {
 public:
  BodyScope(Runtime& runtime, std::shared_ptr<MeshObject> body_mesh, bool check_vma)
      : runtime_(runtime), saved_(runtime.context_mesh) {
    runtime.context_mesh = std::move(body_mesh);
    check_vma_stack.push_back(check_vma);
  }
  ~BodyScope() {
    runtime_.context_mesh = saved_;
    check_vma_stack.pop_back();
  }
  BodyScope(const BodyScope&) = delete;
  BodyScope& operator=(const BodyScope&) = delete;

 private:
  Runtime& runtime_;
  std::shared_ptr<MeshObject> saved_;
};

struct ShardMapOptions {
  Value mesh;
  Value in_specs;  // None: inferred from the arguments' types
  Value out_specs;
  typecheck::AxisSet axis_names;
  bool check_vma = true;
};

class ShardMapObject : public Object {
 public:
  ShardMapObject(Value function, ShardMapOptions options) : function(std::move(function)), options(std::move(options)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("function");
    return type;
  }
  std::string repr(Evaluator& evaluator) const override { return "<shard_map of " + evaluator.repr(function) + ">"; }
  bool callable() const override { return true; }
  // JAX's shard_map wraps its function (functools.wraps).
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "__wrapped__") return function;
    if (name == "__name__" || name == "__qualname__" || name == "__doc__") return evaluator.get_attribute(function, name);
    return std::nullopt;
  }
  Value call(Evaluator& evaluator, CallArgs& args) override;

  Value function;
  ShardMapOptions options;
};

// Raises the error for outputs that vary over axes their out_specs say they
// don't. shardlang's note names the user's function and the line that returned
// the varying value; the hint is the fix (check_mode.hpp's notes). Check mode
// records the error and goes on with replicated guesses of the outputs.
Value recover_out_replication(Evaluator& evaluator, const typecheck::ReplicationError& failure, const Value& function,
                              const typecheck::MeshRef& mesh, const DeviceMeshRef& devices,
                              const std::vector<ArrayLeaf>& outputs, const std::vector<SpecFor>& out_specs,
                              const Value& result) {
  auto* f = function.as<FunctionObject>();
  std::optional<lang::Span> at = f && f->body ? last_return(*f->body) : std::nullopt;
  try {
    raise_error(failure.error);
  } catch (PyError& error) {
    for (const auto& output : failure.failures) {
      std::string axes;
      for (const auto& axis : output.offending) axes += (axes.empty() ? "'" : ", '") + axis + "'";
      std::string who = f ? "`" + f->scope->qualname + "`" : std::string("the function");
      error.exception->notes.emplace_back(at.value_or(lang::Span{}), who + " returns output " + std::to_string(output.output) +
                                                                         " varying over " + axes + " here");
    }
    if (!failure.failures.empty()) error.exception->hint = typecheck::replication_fix_hint(failure.failures[0]);
    if (at) {
      error.exception->frame_span = *at;
      error.exception->frame_span_set = true;
    }
    // Check mode records the error at the current statement: the return.
    lang::Span call_site = evaluator.statement_span;
    if (at) evaluator.statement_span = *at;
    bool recovered = recover_in_check(evaluator, error, false);
    evaluator.statement_span = call_site;
    if (!recovered) throw;
  }
  std::vector<Value> poisoned;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    typecheck::ArrayType type = outputs[i].array->aval;
    type.manual = {};
    type.sharding = typecheck::Sharding::replicated(mesh, type.ndim());
    // The body's block is local: the guess has the global shape.
    type.shape = checked(typecheck::shard_map_global_shape(*mesh, out_specs[i].spec, type.shape));
    Layout layout = checked(make_layout(devices, out_specs[i].spec, type.shape));
    ArrayRef guess = make_abstract_array(type, layout, true);
    guess->poisoned = true;
    poisoned.push_back(Value(guess));
  }
  std::size_t next = 0;
  return unflatten(evaluator, result, poisoned, next);
}

Value ShardMapObject::call(Evaluator& evaluator, CallArgs& args) {
  Runtime& runtime = runtime_of(evaluator);
  if (!args.keywords.empty()) raise(exc::TypeError(), "shard_map functions take positional arguments only");
  // The mesh and the manual axes.
  auto* given = options.mesh.as<MeshObject>();
  typecheck::MeshRef context = runtime.context_mesh ? runtime.context_mesh->mesh->abstract : nullptr;
  typecheck::MeshRef mesh = checked(typecheck::shard_map_mesh(context, given ? given->mesh->abstract : nullptr));
  DeviceMeshRef devices = given ? given->mesh : runtime.context_mesh->mesh;
  typecheck::ShardMapSignature signature{function_name(function), mesh,
                                         checked(typecheck::shard_map_axis_names(*mesh, options.axis_names)),
                                         options.check_vma};

  // Arguments and their in_specs.
  Value arguments = make_tuple(args.positional);
  std::vector<ArrayLeaf> leaves = flatten(evaluator, arguments);
  std::vector<typecheck::PartitionSpec> in_specs;
  std::vector<std::string> spec_paths(leaves.size());
  if (options.in_specs.is_none()) {
    if (auto error = typecheck::check_in_specs_inferable(signature)) raise_error(*error);
    std::vector<typecheck::ArrayType> types;
    for (const auto& leaf : leaves) types.push_back(leaf.array->aval);
    in_specs = checked(typecheck::infer_in_specs(signature, types));
  } else {
    Value specs = options.in_specs;
    // A bare P for a one-argument function applies to that argument.
    auto matched = specs_for(evaluator, specs, args.positional.size() == 1 && !(specs.as<TupleObject>() || specs.as<ListObject>())
                                                   ? args.positional[0] : arguments, "in_specs");
    std::vector<typecheck::SpecLeaf> spec_leaves;
    for (std::size_t i = 0; i < matched.size(); ++i) {
      in_specs.push_back(matched[i].spec);
      spec_paths[i] = matched[i].spec_path;
      spec_leaves.push_back({matched[i].spec_path, matched[i].spec});
    }
    if (auto error = typecheck::check_specs_manual(typecheck::SpecSide::in, signature, spec_leaves)) raise_error(*error);
  }
  std::vector<std::string> parameters;
  if (auto* f = function.as<FunctionObject>())
    for (const auto& p : f->signature.parameters) parameters.push_back(p.name);
  std::vector<typecheck::ShardMapArgument> described;
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    std::string parameter;
    auto close = leaves[i].path.find(']');
    if (close != std::string::npos) {
      std::size_t index = std::stoul(leaves[i].path.substr(1, close - 1));
      if (index < parameters.size()) parameter = parameters[index];
    }
    described.push_back({leaves[i].path, parameter, spec_paths[i], in_specs[i], leaves[i].array->aval});
  }
  if (auto error = typecheck::check_in_specs_vs_args(signature, described)) raise_error(*error);

  // The body mesh, and the arguments as local blocks.
  auto body = std::make_shared<DeviceMesh>(*devices);
  body->abstract = typecheck::body_mesh(signature);
  Layout body_layout{body, {}};
  std::vector<Value> entered;
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    Params params;
    params.set("in_spec", checked(make_layout(devices, in_specs[i], leaves[i].array->aval.shape)));
    if (!in_specs[i].unreduced().empty() || !in_specs[i].reduced().empty())
      params.set("spec", typecheck::ShardingArg{std::nullopt, in_specs[i]});
    params.set("mesh", body_layout).set("check_vma", options.check_vma);
    entered.push_back(bind(evaluator, primitive("shard_map_enter"), {leaves[i].array}, std::move(params)));
  }
  std::size_t next = 0;
  Value local_arguments = unflatten(evaluator, arguments, entered, next);

  Value result;
  {
    BodyScope scope(runtime, std::make_shared<MeshObject>(body), options.check_vma);
    result = evaluator.call(function, evaluator.to_vector(local_arguments));
  }
  // Check mode could not follow the body (a branch on array data): nor its outputs.
  if (is_unknown(result)) return result;

  // Outputs against out_specs.
  std::vector<ArrayLeaf> outputs = flatten(evaluator, result);
  auto out_specs = specs_for(evaluator, options.out_specs, result, "out_specs");
  std::vector<typecheck::SpecLeaf> out_spec_leaves;
  std::vector<typecheck::ShardMapOutput> checked_outputs;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    out_spec_leaves.push_back({out_specs[i].spec_path, out_specs[i].spec});
    checked_outputs.push_back({outputs[i].path, out_specs[i].spec_path, out_specs[i].spec,
                               typecheck::with_implicit_pvary(signature, out_specs[i].spec, outputs[i].array->aval)});
  }
  if (auto error = typecheck::check_specs_manual(typecheck::SpecSide::out, signature, out_spec_leaves)) raise_error(*error);
  if (auto error = typecheck::check_out_ranks(signature, checked_outputs)) raise_error(*error);
  if (auto failure = typecheck::check_out_replication(signature, checked_outputs))
    return recover_out_replication(evaluator, *failure, function, mesh, devices, outputs, out_specs, result);
  std::vector<Value> exited;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& type = outputs[i].array->aval;
    Params params;
    typecheck::Shape global = checked(typecheck::shard_map_global_shape(*mesh, out_specs[i].spec, type.shape));
    params.set("out_spec", checked(make_layout(devices, out_specs[i].spec, global)));
    if (!out_specs[i].spec.unreduced().empty() || !out_specs[i].spec.reduced().empty())
      params.set("spec", typecheck::ShardingArg{std::nullopt, out_specs[i].spec});
    params.set("mesh", body_layout).set("check_vma", options.check_vma);
    exited.push_back(bind(evaluator, primitive("shard_map_exit"), {outputs[i].array}, std::move(params)));
  }
  next = 0;
  return unflatten(evaluator, result, exited, next);
}

typecheck::AxisSet axis_name_set(Evaluator& evaluator, const Value& value) {
  typecheck::AxisSet out;
  if (value.is_none()) return out;
  for (const auto& v : evaluator.to_vector(value)) {
    auto* s = string_of(v);
    if (!s) raise(exc::TypeError(), "axis_names must be strings");
    out.insert(*s);
  }
  return out;
}

// axis_name: a str or a tuple of them.
typecheck::AxisList axis_list(Evaluator& evaluator, const Value& value) {
  if (auto* s = string_of(value)) return {*s};
  typecheck::AxisList out;
  for (const auto& v : evaluator.to_vector(value)) {
    auto* s = string_of(v);
    if (!s) raise(exc::TypeError(), "axis_name must be a string or a tuple of strings, got " + evaluator.repr(value));
    out.push_back(*s);
  }
  return out;
}

std::string joined(const typecheck::AxisList& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? "," : "") + names[i];
  return out;
}

// The current body's mesh and check_vma as params, or a NameError outside
// any shard_map (JAX's unbound axis name error comes from the rule).
Params collective_params(Evaluator& evaluator, const typecheck::AxisList& names) {
  auto& runtime = runtime_of(evaluator);
  Params params;
  params.set("axis_name", joined(names));
  if (!runtime.context_mesh || !runtime.context_mesh->mesh->abstract->has_axis_of_type(typecheck::AxisType::Manual))
    raise(exc::NameError(), "unbound axis name: " + (names.empty() ? std::string() : names[0]) +
                                ". The following axis names (e.g. defined by shard_map) are available to collective "
                                "operations: ");
  params.set("mesh", Layout{runtime.context_mesh->mesh, {}});
  params.set("check_vma", check_vma_stack.empty() ? true : check_vma_stack.back());
  return params;
}

// The innermost vmap in progress (batching.hpp) whose axis_name is `name`, or null.
const BatchAxis* vmap_axis(Evaluator& evaluator, const std::string& name) {
  const auto& axes = runtime_of(evaluator).batch_axes;
  for (auto it = axes.rbegin(); it != axes.rend(); ++it)
    if (it->name == name) return &*it;
  return nullptr;
}

Params vmap_axis_params(const BatchAxis& axis) {
  Params params;
  params.set("axis_name", axis.name).set("axis_size", axis.size);
  return params;
}

// A collective over one vmap's axis, or over a shard_map body's axes.
Params named_axis_params(Evaluator& evaluator, const typecheck::AxisList& names, std::string_view api_name) {
  for (const auto& name : names)
    if (const BatchAxis* axis = vmap_axis(evaluator, name)) {
      if (names.size() != 1)
        raise(exc::NotImplementedError(), std::string(api_name) + " over a vmap axis together with other axes is not supported");
      return vmap_axis_params(*axis);
    }
  return collective_params(evaluator, names);
}

// Applies a one-operand collective to every leaf of `tree`.
Value per_leaf(Evaluator& evaluator, const Value& tree, const std::function<Value(const ArrayRef&)>& f) {
  std::vector<ArrayLeaf> leaves = flatten(evaluator, tree);
  std::vector<Value> results;
  for (const auto& leaf : leaves) results.push_back(f(leaf.array));
  std::size_t next = 0;
  return unflatten(evaluator, tree, results, next);
}

}  // namespace

typecheck::CollectiveContext collective_context(Evaluator& evaluator) {
  auto& runtime = runtime_of(evaluator);
  return {runtime.context_mesh ? runtime.context_mesh->mesh->abstract : nullptr,
          check_vma_stack.empty() ? true : check_vma_stack.back(), true};
}

void install_shard_map(Evaluator& evaluator) {
  evaluator.module("jax")->add_function(
      "shard_map(f=None, /, *, out_specs, in_specs=None, mesh=None, axis_names=None, check_vma=True)",
      [](Evaluator& ev, Arguments& a) {
        ShardMapOptions options{a[3], a[2], a[1], axis_name_set(ev, a[4]), ev.truthy(a[5])};
        if (a[0].is_none())
          return Value(native("shard_map(f)", [options](Evaluator&, Arguments& inner) {
            return Value(std::make_shared<ShardMapObject>(inner[0], options));
          }));
        return Value(std::make_shared<ShardMapObject>(a[0], options));
      });

  auto lax = evaluator.module("jax.lax");
  // A reduction over mesh axes and vmap axes: over the mesh axes, then over
  // each vmap's.
  for (const char* name : {"psum", "pmean", "pmax", "pmin"})
    lax->add_function(std::string(name) + "(x, axis_name)", [name](Evaluator& ev, Arguments& a) {
      typecheck::AxisList mesh_names;
      std::vector<Params> steps;
      for (const auto& axis : axis_list(ev, a[1])) {
        if (const BatchAxis* vmapped = vmap_axis(ev, axis)) steps.push_back(vmap_axis_params(*vmapped));
        else mesh_names.push_back(axis);
      }
      if (!mesh_names.empty() || steps.empty()) steps.insert(steps.begin(), collective_params(ev, mesh_names));
      return per_leaf(ev, a[0], [&](const ArrayRef& x) {
        Value out(x);
        for (const auto& params : steps) out = bind(ev, primitive(name), {to_array(ev, out)}, params);
        return out;
      });
    });
  lax->add_function("all_gather(x, axis_name, *, axis=0, tiled=False)", [](Evaluator& ev, Arguments& a) {
    Params params = named_axis_params(ev, axis_list(ev, a[1]), "all_gather");
    params.set("axis", ev.index_of(a[2])).set("tiled", ev.truthy(a[3]));
    return per_leaf(ev, a[0], [&](const ArrayRef& x) { return bind(ev, primitive("all_gather"), {x}, params); });
  });
  lax->add_function("psum_scatter(x, axis_name, *, scatter_dimension=0, tiled=False)", [](Evaluator& ev, Arguments& a) {
    Params params = named_axis_params(ev, axis_list(ev, a[1]), "psum_scatter");
    params.set("scatter_dimension", ev.index_of(a[2])).set("tiled", ev.truthy(a[3]));
    return per_leaf(ev, a[0], [&](const ArrayRef& x) { return bind(ev, primitive("psum_scatter"), {x}, params); });
  });
  lax->add_function("all_to_all(x, axis_name, split_axis, concat_axis, *, tiled=False)", [](Evaluator& ev, Arguments& a) {
    Params params = named_axis_params(ev, axis_list(ev, a[1]), "all_to_all");
    params.set("split_axis", ev.index_of(a[2])).set("concat_axis", ev.index_of(a[3])).set("tiled", ev.truthy(a[4]));
    return per_leaf(ev, a[0], [&](const ArrayRef& x) { return bind(ev, primitive("all_to_all"), {x}, params); });
  });
  lax->add_function("ppermute(x, axis_name, perm)", [](Evaluator& ev, Arguments& a) {
    Params params = named_axis_params(ev, axis_list(ev, a[1]), "ppermute");
    std::vector<std::int64_t> flat;
    for (const auto& pair : ev.to_vector(a[2])) {
      auto items = ev.to_vector(pair);
      if (items.size() != 2) raise(exc::ValueError(), "ppermute perm must be a list of (source, destination) pairs");
      flat.push_back(ev.index_of(items[0]));
      flat.push_back(ev.index_of(items[1]));
    }
    params.set("perm", flat);
    return per_leaf(ev, a[0], [&](const ArrayRef& x) { return bind(ev, primitive("ppermute"), {x}, params); });
  });
  lax->add_function("pvary(x, axis_name)", [](Evaluator& ev, Arguments& a) {
    Params params = named_axis_params(ev, axis_list(ev, a[1]), "pvary");
    return per_leaf(ev, a[0], [&](const ArrayRef& x) { return bind(ev, primitive("pvary"), {x}, params); });
  });
  lax->add_function("pcast(x, axis_name, *, to)", [](Evaluator& ev, Arguments& a) {
    if (a[1].as<SetObject>())
      raise(exc::TypeError(), "axis_name=" + ev.repr(a[1]) + " must be a tuple or a str. Got " + ev.repr(a[1]));
    if (!ev.truthy(a[1])) return a[0];
    auto names = axis_list(ev, a[1]);
    const std::string to = ev.str(a[2]);
    Params params = named_axis_params(ev, names, "pcast");
    return per_leaf(ev, a[0], [&](const ArrayRef& x) {
      // The rule names the unsupported combinations; the cast is the one from x's state.
      (void)checked(typecheck::pcast_rule(x->aval, names, to, collective_context(ev)));
      bool reduced = std::all_of(names.begin(), names.end(), [&](const auto& n) { return x->aval.manual.reduced.contains(n); });
      std::string_view cast = to == "reduced" ? "preduced" : to == "unreduced" ? "vary_unreduced_cast"
                                                         : reduced ? "reduced_vary_cast" : "pvary";
      return bind(ev, primitive(cast), {x}, params);
    });
  });
  lax->add_function("axis_index(axis_name)", [](Evaluator& ev, Arguments& a) {
    return bind(ev, primitive("axis_index"), {}, named_axis_params(ev, axis_list(ev, a[0]), "axis_index"));
  });
  lax->add_function("axis_size(axis_name)", [](Evaluator& ev, Arguments& a) {
    auto names = axis_list(ev, a[0]);
    if (names.size() == 1)
      if (const BatchAxis* vmapped = vmap_axis(ev, names[0])) return Value::integer(vmapped->size);
    return Value::integer(checked(typecheck::axis_size_rule(axis_list(ev, a[0]), collective_context(ev))));
  });
}

}  // namespace interp
