// jax.vmap (vmap.hpp).
#include "interp/transforms/vmap.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "interp/library/tree_module.hpp"
#include "interp/ops/batching.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/costing.hpp"
#include "interp/transforms/refs.hpp"
#include "interp/transforms/trace.hpp"
#include "interp/transforms/wrapping_function.hpp"
#include "typecheck/python_repr.hpp"

namespace interp {

namespace {

using batching::not_mapped;

ArrayRef as_array(const Value& value) { return std::static_pointer_cast<ArrayObject>(value.object()); }

struct VmapOptions {
  Value function;
  Value in_axes;  // an int, None, or a tuple of per-argument trees
  Value out_axes;
  std::string axis_name;  // "" for none
  std::optional<std::int64_t> axis_size;
  typecheck::SpecEntry spmd_axis_name;
};

// An axis spec's leaves must be ints (None is a node without children).
bool axes_leaves_valid(Evaluator& evaluator, const Value& axes) {
  TreeDef def;
  for (const auto& leaf : tree_flatten(evaluator, axes, def))
    if (!leaf.is_int()) return false;
  return true;
}

// One flat argument leaf with its in_axes entry.
struct MappedLeaf {
  Value value;
  std::optional<std::int64_t> axis;  // canonical; nullopt: unmapped
  std::string path;                  // "argument x['w']" or "kwargs['y']", for errors
};

std::string argument_type(Evaluator& evaluator, const Value& value) {
  if (!is_array_like(value)) return "unknown";
  return to_array(evaluator, value)->aval.format({.short_dtypes = false, .weak_marker = false});
}

// The shape of a leaf JAX can map (an array or a Python scalar), or nullopt.
std::optional<typecheck::Shape> leaf_shape(const Value& value) {
  if (auto* array = value.as<ArrayObject>()) return array->aval.shape;
  if (auto* ref = value.as<RefObject>()) return ref->value->aval.shape;
  if (value.is_number()) return typecheck::Shape{};
  return std::nullopt;
}

// JAX's _mapped_axis_size: the one size of every mapped axis (and axis_size).
std::int64_t mapped_axis_size(Evaluator& evaluator, const VmapOptions& options, std::vector<MappedLeaf>& leaves,
                              const CallArgs& args) {
  std::vector<std::optional<std::int64_t>> sizes;
  for (auto& leaf : leaves) {
    if (!leaf.axis) {
      sizes.emplace_back();
      continue;
    }
    auto shape = leaf_shape(leaf.value);
    if (!shape) {
      if (!is_array_like(leaf.value))
        raise(exc::TypeError(), "Argument '" + evaluator.str(leaf.value) + "' of type " +
                                    evaluator.repr(Value(type_of(leaf.value))) + " is not a valid JAX type.");
      shape = to_array(evaluator, leaf.value)->aval.shape;
    }
    std::int64_t axis = *leaf.axis, rank = static_cast<std::int64_t>(shape->size());
    if (axis < -rank || axis >= rank) {
      std::int64_t min_rank = axis >= 0 ? axis + 1 : -axis;
      raise(exc::ValueError(), "vmap was requested to map its argument along axis " + std::to_string(axis) +
                                   ", which implies that its rank should be at least " + std::to_string(min_rank) +
                                   ", but is only " + std::to_string(rank) + " (its shape is " +
                                   typecheck::python_shape_repr(*shape) + ")");
    }
    leaf.axis = axis < 0 ? axis + rank : axis;
    sizes.push_back((*shape)[static_cast<std::size_t>(*leaf.axis)]);
  }
  // Distinct sizes by how many axes have them (most first, ties in order).
  std::vector<std::pair<std::int64_t, std::size_t>> counts;
  for (const auto& size : sizes) {
    if (!size) continue;
    auto found = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == *size; });
    if (found == counts.end()) counts.emplace_back(*size, 1);
    else ++found->second;
  }
  if (leaves.empty() && !options.axis_size) {
    std::string kwargs = "{";
    for (std::size_t i = 0; i < args.keywords.size(); ++i)
      kwargs += (i ? ", '" : "'") + args.keywords[i].first + "': " + evaluator.repr(args.keywords[i].second);
    raise(exc::ValueError(), "vmap wrapped function must be passed at least one argument containing an array or "
                             "axis_size must be specified, got empty *args=" +
                                 evaluator.repr(make_tuple(args.positional)) + " and **kwargs=" + kwargs + "}");
  }
  bool agree = counts.empty() || (counts.size() == 1 && (!options.axis_size || *options.axis_size == counts[0].first));
  if (agree) {
    if (!counts.empty()) return counts[0].first;
    if (options.axis_size) return *options.axis_size;
    raise(exc::ValueError(), "vmap must have at least one non-None value in in_axes or axis_size must be specified");
  }
  std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string message = "vmap got inconsistent sizes for array axes to be mapped:\n";
  if (options.axis_size) message += "  * the `axis_size` argument was " + std::to_string(*options.axis_size) + ";\n";
  for (std::size_t k = 0; k < counts.size(); ++k) {
    auto [size, count] = counts[k];
    std::size_t first = 0;
    while (!sizes[first] || *sizes[first] != size) ++first;
    std::string example = "axis " + std::to_string(*leaves[first].axis) + " of " + leaves[first].path + " of type " +
                          argument_type(evaluator, leaves[first].value);
    if (count == 1) message += "  * one axis had size " + std::to_string(size) + ": " + example + ";\n";
    else
      message += std::string(k == 0 ? "  * most axes (" : "  * some axes (") + std::to_string(count) +
                 " of them) had size " + std::to_string(size) + ", e.g. " + example + ";\n";
  }
  raise(exc::ValueError(), message.substr(0, message.size() - 2));
}

// JAX's _mapped_axis_spec and _check_ema_unmapped_args: the Explicit mesh
// axes the mapped dimensions are split over (all alike), which unmapped
// arguments must not use.
typecheck::SpecEntry explicit_mesh_axis(Evaluator& evaluator, const std::vector<MappedLeaf>& leaves) {
  std::optional<typecheck::SpecEntry> spec;
  auto entry_text = [](const typecheck::SpecEntry& e) {
    return e.size() == 1 ? e[0] : e.empty() ? std::string("None") : typecheck::spec_entry_tuple_repr(e);
  };
  for (const auto& leaf : leaves) {
    if (!leaf.axis) continue;
    typecheck::SpecEntry entry;
    if (auto* array = leaf.value.as<ArrayObject>())
      if (static_cast<std::size_t>(*leaf.axis) < array->aval.sharding.dims.size())
        entry = array->aval.sharding.dims[static_cast<std::size_t>(*leaf.axis)];
    if (spec && *spec != entry)
      raise(exc::ValueError(), "Mapped away dimension of inputs passed to vmap should be sharded the same. Got "
                               "inconsistent axis specs: " + entry_text(*spec) + " vs " + entry_text(entry));
    spec = entry;
  }
  typecheck::SpecEntry axes = spec ? *spec : typecheck::SpecEntry{};
  if (axes.empty()) return axes;
  for (const auto& leaf : leaves) {
    auto* array = leaf.value.as<ArrayObject>();
    if (leaf.axis || !array) continue;
    for (const auto& entry : array->aval.sharding.dims)
      for (const auto& name : entry)
        if (std::find(axes.begin(), axes.end(), name) != axes.end())
          raise(exc::ValueError(), "Unmapped values passed to vmap cannot be sharded along the mesh axis you are "
                                   "vmapping over. Got type: " + array->aval.short_str() +
                                       ", in_axes: None and vmapped mesh axis: " + typecheck::spec_entry_tuple_repr(axes));
  }
  (void)evaluator;
  return axes;
}

// One example of `array` mapped along `axis`: its type and layout without it.
ArrayObject example_of(const ArrayObject& array, std::size_t axis) {
  ArrayObject example;
  example.aval = array.aval;
  example.aval.shape.erase(example.aval.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  auto& dims = example.aval.sharding.dims;
  if (axis < dims.size()) dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(axis));
  example.layout = array.layout;
  if (axis < example.layout.dims.size())
    example.layout.dims.erase(example.layout.dims.begin() + static_cast<std::ptrdiff_t>(axis));
  example.committed = array.committed;
  return example;
}

// Pushes a vmap's axis for the collectives traced inside.
class BatchAxisScope {
 public:
  BatchAxisScope(Evaluator& evaluator, BatchAxis axis) : runtime_(runtime_of(evaluator)) {
    runtime_.batch_axes.push_back(std::move(axis));
  }
  ~BatchAxisScope() { runtime_.batch_axes.pop_back(); }
  BatchAxisScope(const BatchAxisScope&) = delete;
  BatchAxisScope& operator=(const BatchAxisScope&) = delete;

 private:
  Runtime& runtime_;
};

// A traced program's values: each variable's array and its mapped dimension.
using BatchedValues = std::map<int, Batched>;

// The program walked with the batching rules (vmap.hpp).
// `only`: the equation outputs to compute (null: all).
void batch_program(Evaluator& evaluator, const JitTrace& trace, const BatchAxis& axis, bool concrete, BatchedValues& values,
                   const std::set<int>* only = nullptr) {
  const Jaxpr& program = *trace.program;
  const bool eager = concrete && dynamic_cast<EagerTrace*>(&current_trace(evaluator));
  for (const auto& [variable, constant] : program.constants) values[variable] = {constant, not_mapped};
  // Each equation batched under the context mesh it was traced under.
  ContextMeshScope context(runtime_of(evaluator));
  for (const auto& e : program.equations) {
    if (only && !only->count(e.output)) continue;
    context.enter(e);
    std::vector<ArrayRef> operands;
    std::vector<int> dims;
    for (int input : e.inputs) {
      const Batched& value = values.at(input);
      operands.push_back(value.value);
      dims.push_back(value.dim);
    }
    const bool own_axis = batching::over_vmap_axis(e.params) && *e.params.get<std::string>("axis_name") == axis.name;
    const bool mapped = std::any_of(dims.begin(), dims.end(), [](int d) { return d != not_mapped; });
    if (mapped || own_axis) {
      values[e.output] = e.primitive->batch(
          {evaluator, operands, dims, e.params, axis, *e.primitive, program.variable_types.at(static_cast<std::size_t>(e.output))});
    } else if (ArrayRef known = eager ? trace.concrete_value(e.output) : nullptr) {
      charge_application(evaluator, *e.primitive, operands, known, e.params, true);
      values[e.output] = {known, not_mapped};
    } else {
      values[e.output] = {as_array(bind(evaluator, *e.primitive, std::move(operands), e.params)), not_mapped};
    }
  }
}

// JAX's BatchTracer.val: the batched value of `tracer` (a value `trace`
// made while it runs over `inputs`), its mapped dimension where the
// batching rules put it, computed beneath the trace from the equations it
// depends on; null for another array or an unmapped value (no BatchTracer
// in JAX).
ArrayRef batched_value(Evaluator& evaluator, const JitTrace& trace, const BatchAxis& axis, bool concrete,
                       const std::vector<std::pair<int, Batched>>& inputs, const ArrayObject& tracer) {
  auto variable = trace.traced_variable(tracer);
  if (!variable) return nullptr;
  std::set<int> needed{*variable};
  const auto& equations = trace.program->equations;
  for (auto e = equations.rbegin(); e != equations.rend(); ++e)
    if (needed.count(e->output)) needed.insert(e->inputs.begin(), e->inputs.end());
  const auto& stack = runtime_of(evaluator).trace_stack;
  auto below = static_cast<std::size_t>(std::find(stack.begin(), stack.end(), &trace) - stack.begin());
  TraceStackCut beneath(evaluator, below);
  BatchedValues values;
  for (const auto& [input, value] : inputs) values[input] = value;
  batch_program(evaluator, trace, axis, concrete, values, &needed);
  auto found = values.find(*variable);
  return found == values.end() || found->second.dim == not_mapped ? nullptr : found->second.value;
}

// A mapped Ref argument: each example reads and writes its own entry, a Ref
// of the trace (`example`) whose final value (`output`) is written back
// along the axis.
struct MappedRef {
  std::shared_ptr<RefObject> ref, example;
  int input = -1, axis = 0, output = -1;
};

void write_mapped_refs(Evaluator& evaluator, const JitTrace& trace, const BatchAxis& axis,
                       const std::vector<MappedRef>& mapped_refs, const BatchedValues& values) {
  const std::vector<ArrayRef> no_operands;
  const std::vector<int> no_dims;
  const Params no_params;
  for (const auto& mapped : mapped_refs) {
    if (mapped.output == mapped.input) continue;  // not written
    const Batched& out = values.at(mapped.output);
    const auto& example = trace.program->variable_types.at(static_cast<std::size_t>(mapped.output));
    BatchCall placing{evaluator, no_operands, no_dims, no_params, axis, primitive("broadcast_in_dim"), example};
    mapped.ref->swap(evaluator, Value(), Value(batching::match_dim(placing, out.value, out.dim, mapped.axis)));
  }
}

// An output leaf with its mapped dimension moved to its out_axes entry.
ArrayRef place_output(Evaluator& evaluator, const BatchCall& call, const Batched& out, const Value& out_axis,
                      const std::string& path) {
  if (out_axis.is_none()) {
    if (out.dim == not_mapped) return out.value;
    if (!call.axis.name.empty())
      raise(exc::ValueError(), "vmap has mapped output (axis_name=" + call.axis.name + ") but out_axes is None");
    raise(exc::ValueError(), "at vmap out_axes" + path + ", got axis spec None but output was batched on axis " +
                                 std::to_string(out.dim));
  }
  std::int64_t rank = static_cast<std::int64_t>(out.value->aval.ndim()) + (out.dim == not_mapped ? 1 : 0);
  std::int64_t axis = out_axis.as_int();
  if (axis < -rank || axis >= rank)
    raise(exc::ValueError(), "axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(rank));
  if (axis < 0) axis += rank;
  (void)evaluator;
  return batching::match_dim(call, out.value, out.dim, static_cast<int>(axis));
}

Value apply_vmap(Evaluator& evaluator, const VmapOptions& options, CallArgs args) {
  // The flat leaves of (args, kwargs) and their axes (kwargs: always 0).
  if (auto* tuple = options.in_axes.as<TupleObject>(); tuple && tuple->items.size() != args.positional.size()) {
    std::string message = "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional "
                          "arguments passed to the function, but got len(in_axes)=" +
                          std::to_string(tuple->items.size()) + ", len(args)=" + std::to_string(args.positional.size()) + ".";
    if (!args.keywords.empty()) {
      std::string names = "[";
      for (std::size_t i = 0; i < args.keywords.size(); ++i) names += (i ? ", '" : "'") + args.keywords[i].first + "'";
      message += " Note that the function was called with keyword arguments " + names +
                 "], which the entries of a tuple in_axes never correspond to: keyword arguments are always mapped "
                 "along their leading axis (axis 0). If that is the intended mapping, make in_axes correspond to the "
                 "positional arguments only; otherwise pass the arguments positionally, or bind unmapped keyword "
                 "arguments with functools.partial before applying vmap.";
    }
    raise(exc::ValueError(), message);
  }
  Value positional = make_tuple(args.positional);
  std::vector<Value> axes = broadcast_prefix(evaluator, options.in_axes, positional, "vmap in_axes");
  std::vector<std::string> parameter_names;
  if (auto* function = options.function.as<FunctionObject>())
    for (const auto& p : function->signature.parameters)
      if (p.kind == Parameter::Kind::positional_only || p.kind == Parameter::Kind::positional_or_keyword)
        parameter_names.push_back(p.name);
  std::vector<MappedLeaf> leaves;
  TreeDef args_def;
  std::vector<Value> arg_leaves = tree_flatten(evaluator, positional, args_def);
  std::vector<std::string> paths = args_def.leaf_paths(evaluator);
  for (std::size_t k = 0; k < arg_leaves.size(); ++k) {
    // "[2]['w']" -> "argument w['w']" when the function names parameter 2.
    std::string path = paths[k];
    auto close = path.find(']');
    std::size_t index = std::stoul(path.substr(1, close - 1));
    if (index < parameter_names.size()) path = "argument " + parameter_names[index] + path.substr(close + 1);
    else path = "args" + path;
    leaves.push_back({arg_leaves[k], axes[k].is_none() ? std::nullopt : std::optional(axes[k].as_int()), path});
  }
  std::vector<TreeDef> keyword_defs;
  for (const auto& [name, value] : args.keywords) {
    keyword_defs.emplace_back();
    auto keyword_leaves = tree_flatten(evaluator, value, keyword_defs.back());
    auto keyword_paths = keyword_defs.back().leaf_paths(evaluator);
    for (std::size_t k = 0; k < keyword_leaves.size(); ++k)
      leaves.push_back({keyword_leaves[k], 0, "kwargs['" + name + "']" + keyword_paths[k]});
  }

  BatchAxis axis{options.axis_name, mapped_axis_size(evaluator, options, leaves, args), options.spmd_axis_name,
                 explicit_mesh_axis(evaluator, leaves), nullptr};
  if (!options.spmd_axis_name.empty() && !axis.explicit_mesh_axis.empty()) {
    if (options.spmd_axis_name != axis.explicit_mesh_axis)
      raise(exc::ValueError(), "Only one of spmd_axis_name or arrays sharded on `Explicit` mesh axis type is allowed. Got "
                               "spmd_axis_name=" + typecheck::spec_entry_tuple_repr(options.spmd_axis_name) +
                                   " and arrays sharded on explicit_mesh_axis=" +
                                   typecheck::spec_entry_tuple_repr(axis.explicit_mesh_axis));
    axis.spmd_axis_name.clear();
  }

  // Trace one example: mapped leaves become program inputs.
  const bool concrete = evaluator.mode == Evaluator::Mode::run && !tracing_jit(evaluator);
  JitTrace trace(concrete);
  trace.batching = true;
  std::vector<std::pair<int, Batched>> inputs;
  std::vector<Value> traced;
  std::vector<MappedRef> mapped_refs;
  for (auto& leaf : leaves) {
    if (!leaf.axis) {
      traced.push_back(leaf.value);
      continue;
    }
    if (auto* ref = leaf.value.as<RefObject>()) {
      ArrayRef array = ref->read(evaluator);
      ArrayRef tracer = trace.add_input(example_of(*array, static_cast<std::size_t>(*leaf.axis)));
      inputs.emplace_back(trace.program->inputs.back(), Batched{array, static_cast<int>(*leaf.axis)});
      auto example = std::make_shared<RefObject>(tracer, &trace);
      mapped_refs.push_back({std::static_pointer_cast<RefObject>(leaf.value.object()), example, inputs.back().first,
                             static_cast<int>(*leaf.axis), -1});
      traced.push_back(Value(example));
      continue;
    }
    ArrayRef array = leaf.value.as<ArrayObject>() ? as_array(leaf.value) : to_array(evaluator, leaf.value);
    ArrayRef tracer = trace.add_input(example_of(*array, static_cast<std::size_t>(*leaf.axis)));
    inputs.emplace_back(trace.program->inputs.back(), Batched{array, static_cast<int>(*leaf.axis)});
    traced.push_back(Value(tracer));
  }
  CallArgs call{std::vector<Value>(), {}};
  {
    Value rebuilt = tree_unflatten(evaluator, args_def, std::span<const Value>(traced).first(arg_leaves.size()));
    call.positional = rebuilt.as<TupleObject>()->items;
    std::size_t next = arg_leaves.size();
    for (std::size_t i = 0; i < args.keywords.size(); ++i) {
      std::size_t count = keyword_defs[i].leaf_count();
      call.keywords.emplace_back(args.keywords[i].first,
                                 tree_unflatten(evaluator, keyword_defs[i], std::span<const Value>(traced).subspan(next, count)));
      next += count;
    }
  }
  Value returned;
  {
    BatchAxis traced_axis = axis;
    traced_axis.batched_value = [&trace, &inputs, axis, concrete](Evaluator& ev, const Object& value) -> std::shared_ptr<Object> {
      auto* tracer = dynamic_cast<const ArrayObject*>(&value);
      return tracer ? batched_value(ev, trace, axis, concrete, inputs, *tracer) : nullptr;
    };
    BatchAxisScope axis_scope(evaluator, traced_axis);
    TraceScope scope(evaluator, trace);
    returned = evaluator.call(options.function, call);
  }

  // The outputs' variables, then the program batched.
  TreeDef out_def;
  std::vector<Value> out_leaves = tree_flatten(evaluator, returned, out_def);
  std::vector<Value> out_axes = broadcast_prefix(evaluator, options.out_axes, returned, "vmap out_axes");
  std::vector<std::string> out_paths = out_def.leaf_paths(evaluator);
  std::vector<int> out_variables;
  for (const auto& leaf : out_leaves) {
    if (!is_array_like(leaf))
      raise(exc::TypeError(), "Output from batched function " + evaluator.repr(leaf) + " with type " +
                                  evaluator.repr(Value(type_of(leaf))) + " is not a valid JAX type");
    out_variables.push_back(trace.variable_of(leaf.as<ArrayObject>() ? as_array(leaf) : to_array(evaluator, leaf)));
  }
  for (auto& mapped : mapped_refs) mapped.output = trace.variable_of(mapped.example->value);
  BatchedValues values;
  for (const auto& [variable, value] : inputs) values[variable] = value;
  batch_program(evaluator, trace, axis, concrete, values);

  std::vector<Value> results;
  const std::vector<ArrayRef> no_operands;
  const std::vector<int> no_dims;
  const Params no_params;
  write_mapped_refs(evaluator, trace, axis, mapped_refs, values);
  for (std::size_t k = 0; k < out_leaves.size(); ++k) {
    const Batched& out = values.at(out_variables[k]);
    const auto& example = trace.program->variable_types.at(static_cast<std::size_t>(out_variables[k]));
    BatchCall placing{evaluator, no_operands, no_dims, no_params, axis, primitive("broadcast_in_dim"), example};
    // An unmapped output that no operation made stays as it was (a Python scalar too).
    if (out.dim == not_mapped && out_axes[k].is_none() && !out_leaves[k].as<ArrayObject>()) results.push_back(out_leaves[k]);
    else results.push_back(Value(place_output(evaluator, placing, out, out_axes[k], out_paths[k])));
  }
  return tree_unflatten(evaluator, out_def, results);
}

typecheck::SpecEntry axis_names(Evaluator& evaluator, const Value& value, const char* what) {
  typecheck::SpecEntry names;
  if (value.is_none()) return names;
  if (auto* s = string_of(value)) return {*s};
  for (const auto& item : evaluator.to_vector(value)) {
    auto* s = string_of(item);
    if (!s) raise(exc::TypeError(), std::string(what) + " must be a string or a tuple of strings, got " + evaluator.repr(value));
    names.push_back(*s);
  }
  return names;
}

}  // namespace

void install_vmap(Evaluator& evaluator) {
  evaluator.module("jax")->add_function(
      "vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None)",
      [](Evaluator& ev, Arguments& a) {
        if (!a[0].is_object() || !a[0].object()->callable())
          raise(exc::TypeError(), "Expected a callable value, got " + ev.repr(a[0]));
        VmapOptions options{a[0], a[1], a[2], "", std::nullopt, axis_names(ev, a[5], "spmd_axis_name")};
        if (auto* list = options.in_axes.as<ListObject>()) options.in_axes = make_tuple(list->items);
        const Value& in_axes = options.in_axes;
        if (!(in_axes.is_none() || in_axes.is_int() || in_axes.as<TupleObject>()))
          raise(exc::TypeError(), "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                                  "positional arguments passed to the function, but got " + ev.repr(in_axes) + ".");
        if (!axes_leaves_valid(ev, in_axes))
          raise(exc::TypeError(), "vmap in_axes must be an int, None, or (nested) container with those types as "
                                  "leaves, but got " + ev.repr(in_axes) + ".");
        if (!axes_leaves_valid(ev, options.out_axes))
          raise(exc::TypeError(), "vmap out_axes must be an int, None, or (nested) container with those types as "
                                  "leaves, but got " + ev.repr(options.out_axes) + ".");
        if (!a[3].is_none()) {
          auto* name = string_of(a[3]);
          if (!name) raise(exc::TypeError(), "vmap axis_name must be a string, got " + ev.repr(a[3]));
          options.axis_name = *name;
        }
        if (!a[4].is_none()) options.axis_size = ev.index_of(a[4]);
        return wrapping_function(ev, a[0], [options](Evaluator& e, CallArgs call) {
          return apply_vmap(e, options, std::move(call));
        });
      });
}

}  // namespace interp
