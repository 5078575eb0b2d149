// jax.jit, Lowered, Compiled (jit.hpp).
#include "interp/transforms/jit.hpp"

#include <algorithm>
#include <set>

#include "interp/library/host_modules.hpp"
#include "interp/library/tree_module.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/cache_misses.hpp"
#include "interp/transforms/check_mode.hpp"
#include "interp/transforms/control_flow.hpp"
#include "interp/transforms/costing.hpp"
#include "interp/library/numpy_testing.hpp"
#include "interp/transforms/shard_map.hpp"
#include "interp/ops/sharding_constraint.hpp"
#include "interp/transforms/eval_shape.hpp"
#include "interp/transforms/jaxpr_value.hpp"
#include "interp/transforms/memory_plan.hpp"
#include "interp/transforms/refs.hpp"
#include "interp/transforms/trace.hpp"

namespace interp {

namespace {

struct JitOptions {
  std::set<std::int64_t> static_argnums;
  std::set<std::string> static_argnames;
  Value in_shardings;
  Value out_shardings;
  // Donated arguments (memory_plan.hpp: an output of the same type reuses the buffer).
  std::set<std::int64_t> donate_argnums;
  std::set<std::string> donate_argnames;
};

// One traced signature: the program, and where its outputs go in the result tree.
struct TracedCall {
  std::shared_ptr<const Jaxpr> program;
  Executable executable;  // compiled once, run on every cached call
  Value output_tree;  // the traced result, its array leaves standing for program outputs in order
  std::vector<Value> static_values;  // the static arguments it was traced with (the key holds their hashes)
  MemoryPlan memory;  // the program's buffers, with the donated arguments' reuse
  // Refs made outside the function (refs.hpp): the program inputs after the
  // argument leaves are the closed-over ones' values; the outputs after the
  // result's leaves are the final values of the Refs the body wrote.
  std::vector<std::shared_ptr<RefObject>> captured;
  std::size_t result_count = 0;
  struct Written {
    std::optional<std::size_t> leaf;      // an argument leaf, or
    std::shared_ptr<RefObject> captured;  // a closed-over Ref
  };
  std::vector<Written> written;
};

ArrayRef leaf_array(Evaluator& evaluator, const Value& leaf) {
  if (leaf.as<ArrayObject>()) return std::static_pointer_cast<ArrayObject>(leaf.object());
  // f.lower(ShapeDtypeStruct(...)): an abstract argument (a call refuses it below).
  if (auto array = shape_dtype_struct_array(evaluator, leaf)) return *array;
  if (leaf.is_integral() || leaf.is_float() || is_array_like(leaf) || is_unknown(leaf)) return to_array(evaluator, leaf);
  raise(exc::TypeError(), "Argument '" + evaluator.str(leaf) + "' of type " + type_name(leaf) +
                              " is not a valid JAX type");
}

// A mesh's device ids in a cache key, as runs of consecutive ids ("0-4095,"):
// the key stays short on a large mesh.
std::string device_ranges(const DeviceMesh& mesh) {
  std::string text;
  const auto& devices = mesh.devices;
  for (std::size_t i = 0; i < devices.size();) {
    std::size_t j = i;
    while (j + 1 < devices.size() && devices[j + 1].id == devices[j].id + 1) ++j;
    text += std::to_string(devices[i].id) + (j > i ? "-" + std::to_string(devices[j].id) : "") + ",";
    i = j + 1;
  }
  return text;
}

// An argument leaf's part of the key; `meshes` memoizes device_ranges over one key's leaves.
std::string leaf_key(const ArrayObject& array, std::map<const DeviceMesh*, std::string>& meshes) {
  std::string key = array.aval.str() + (array.committed ? "|c|" : "|u|");
  const DeviceMesh* mesh = array.layout.mesh.get();
  auto found = meshes.find(mesh);
  if (found == meshes.end()) found = meshes.emplace(mesh, device_ranges(*mesh)).first;
  return key + found->second + typecheck::PartitionSpec::from_entries(array.layout.dims).repr();
}

// The parts of the cache keys lately made, by their place in the key: a key
// formats each argument's tree structure and each leaf's type and layout,
// which the calls of a loop repeat unchanged. A part is reused where its
// tree is equal (as JAX compares treedefs) or its leaf the same type on the
// same mesh object and split.
class KeyParts {
 public:
  const std::string& tree(Evaluator& evaluator, std::size_t place, const TreeDef& def) {
    if (place >= trees_.size()) trees_.resize(place + 1);
    auto& [kept, text] = trees_[place];
    if (text.empty() || !(kept == def)) {
      kept = def;
      text = def.str(evaluator);
    }
    return text;
  }
  const std::string& leaf(std::size_t place, const ArrayObject& array, std::map<const DeviceMesh*, std::string>& meshes) {
    if (place >= leaves_.size()) leaves_.resize(place + 1);
    Leaf& kept = leaves_[place];
    if (kept.text.empty() || kept.committed != array.committed || kept.mesh != array.layout.mesh ||
        kept.dims != array.layout.dims || !(kept.aval == array.aval)) {
      kept = {array.aval, array.committed, array.layout.mesh, array.layout.dims, leaf_key(array, meshes)};
    }
    return kept.text;
  }

 private:
  struct Leaf {
    typecheck::ArrayType aval;
    bool committed = false;
    DeviceMeshRef mesh;
    std::vector<typecheck::SpecEntry> dims;
    std::string text;
  };
  std::vector<std::pair<TreeDef, std::string>> trees_;
  std::vector<Leaf> leaves_;
};

// `shardings` applied to the leaves of `tree` by device_put: one sharding
// for every leaf, or a pytree prefix of `tree` (a tuple with one per
// argument or output, a registered dataclass of shardings, ...), as JAX's
// in_shardings and out_shardings are; None leaves its subtree as it is.
Value apply_shardings(Evaluator& evaluator, const Value& tree, Value shardings, const std::string& name) {
  if (shardings.is_none()) return tree;
  auto put = [&](const Value& leaf, const Value& sharding) {
    if (sharding.is_none()) return leaf;
    ArrayRef array = leaf_array(evaluator, leaf);
    Layout layout = layout_for_target(evaluator, sharding, array->aval.shape);
    std::optional<typecheck::PartitionSpec> requested;
    if (auto* spec = sharding.as<PartitionSpecObject>()) requested = spec->spec;
    if (auto* named = sharding.as<NamedShardingObject>()) requested = named->spec;
    return apply_device_put(evaluator, array, layout, requested);
  };
  if (!node_children(evaluator, shardings))
    return tree_map(evaluator, tree, [&](const Value& leaf) { return put(leaf, shardings); });
  // A list of one sharding per argument or output stands for the tuple.
  if (auto* list = shardings.as<ListObject>(); list && tree.as<TupleObject>()) shardings = make_tuple(list->items);
  std::vector<Value> targets = broadcast_prefix(evaluator, shardings, tree, name);
  std::size_t next = 0;
  return tree_map(evaluator, tree, [&](const Value& leaf) { return put(leaf, targets.at(next++)); });
}

// JAX's _check_returned_refs: a jitted function returns no Ref.
void refuse_returned_refs(Evaluator& evaluator, const Value& function, const Value& result) {
  TreeDef def;
  std::vector<Value> leaves = tree_flatten(evaluator, result, def);
  std::vector<std::string> paths = def.leaf_paths(evaluator);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    auto* ref = leaves[i].as<RefObject>();
    if (!ref) continue;
    std::string where = leaves.size() == 1 && paths[i].empty() ? "" : " at output tree path result" + paths[i];
    raise(exc::ValueError(), "function " + function_source_info(evaluator, function) +
                                 " traced for jit returned a mutable array reference of type " + ref_type_str(*ref) + where +
                                 ", but mutable array references cannot be returned.");
  }
}

class JitFunctionObject : public Object {
 public:
  JitFunctionObject(Value function, JitOptions options) : function(std::move(function)), options(std::move(options)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("PjitFunction");
    return type;
  }
  std::string repr(Evaluator& evaluator) const override {
    return "<PjitFunction of " + evaluator.repr(function) + ">";
  }
  bool callable() const override { return true; }
  // A method of a class: bound to the instance it is read through.
  std::optional<Value> descriptor_get(Evaluator&, const Value& instance, const Value&) override {
    if (instance.is_none()) return std::nullopt;
    return Value(std::make_shared<BoundMethod>(instance, shared_from_this()));
  }
  Value call(Evaluator& evaluator, CallArgs& args) override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;

  // A call's dynamic arguments as array trees (in_shardings applied), their
  // leaves in program-input order, which of them are donated, the static
  // arguments, and the cache key.
  struct Signature {
    CallArgs dynamic;
    std::vector<ArrayRef> leaves;
    std::vector<bool> donated;
    std::vector<Value> static_values;
    std::string key;
    std::vector<std::shared_ptr<RefObject>> refs;  // per leaf: the Ref it is (its value the leaf), or null
  };
  Signature signature(Evaluator& evaluator, const CallArgs& args) const;
  // The entry of `signature` in `entries`, or null (equal hashes of unequal
  // static arguments drop the entry: it is traced again).
  static const TracedCall* find(std::map<std::string, TracedCall>& entries, const Signature& signature);
  // Traces (or finds in the cache) the call; `arguments` receives the
  // concrete array arguments in program-input order. With `cached_only`, a
  // signature not in the cache gives nullptr instead of a trace.
  // `refs` receives, per argument leaf, the Ref it is (null for an array);
  // the arguments end with the values of the Refs the program closes over.
  const TracedCall* trace(Evaluator& evaluator, CallArgs& args, std::vector<ArrayRef>& arguments, bool cached_only = false,
                          std::vector<std::shared_ptr<RefObject>>* refs = nullptr);
  // Check mode: follows the body on abstract arrays once per signature (its
  // diagnostics), recording the program its memory plan comes from, and
  // charges the plan as run does; a call of a signature already checked
  // charges its cached program without following the body again.
  Value check_call(Evaluator& evaluator, CallArgs& args);
  // Check mode: follows the body, recording it into `recording` when given.
  Value follow_body(Evaluator& evaluator, CallArgs& args, CheckingTrace* recording);
  // Check mode: the program `recording` made of a body that returned
  // `result`, compiled and planned; null when the body cannot be a program
  // (not `clean`: diagnostics, a branch check could not follow).
  std::optional<TracedCall> checked_program(Evaluator& evaluator, CheckingTrace& recording, const Value& result,
                                            const Signature& signature, bool clean);
  // Check mode: charges `traced`'s memory plan for a call on `arguments`.
  static void charge_plan(Evaluator& evaluator, const TracedCall& traced, const std::vector<ArrayRef>& arguments);
  // Runs a traced call's executable and rebuilds the result tree; writes
  // the Refs' final values (`refs`: per argument leaf, its Ref or null).
  static Value run(Evaluator& evaluator, const TracedCall& traced, const std::vector<ArrayRef>& arguments,
                   const std::vector<std::shared_ptr<RefObject>>& refs);
  // JAX's warning as a new signature's program is lowered, through
  // Options::log: the donated arguments no output can reuse.
  void warn_unusable_donations(Evaluator& evaluator, const TracedCall& traced, const Signature& signature) const;
  // Check mode: refuses the arguments a call refuses before tracing.
  void check_arguments(Evaluator& evaluator, const CallArgs& args) const;
  // The memory plan of a program this jit traced (with its donations), or
  // one without donations for any other.
  MemoryPlan memory_plan_of(Evaluator& evaluator, const std::shared_ptr<const Jaxpr>& program) const {
    for (const auto& entry : cache)
      if (entry.second.program == program) return entry.second.memory;
    return plan_memory(compile(evaluator, program), {});
  }
  // The options with static_argnums and static_argnames completed from each other.
  JitOptions effective_options() const;
  std::string name() const { return qualified_name(function); }

  Value function;
  JitOptions options;
  std::map<std::string, TracedCall> cache;
  mutable KeyParts key_parts;  // of the keys of this function's calls
  // Check mode's calls, by the same key: the programs their bodies recorded.
  std::map<std::string, TracedCall> checked;
};

std::size_t static_hash(Evaluator& evaluator, const Value& value) {
  try {
    return hash_value(value);
  } catch (PyError& error) {
    raise(exc::ValueError(), "Non-hashable static arguments are not allowed. An error occurred while trying to hash an "
                             "object of type " + evaluator.repr(Value(type_of(value))) + ", " + evaluator.repr(value) +
                             ". The error was:\n" + error.exception->type()->name() + ": " + error.exception->str(evaluator));
  }
}

[[noreturn]] void refuse_shape_dtype_struct() {
  raise(exc::TypeError(), "Argument of type ShapeDtypeStruct is not a valid JAX type: a jitted function is "
                          "called with arrays; use f.lower(...) or jax.eval_shape for abstract arguments");
}

bool is_static(const JitFunctionObject& jit, std::size_t position, const std::string* keyword) {
  if (keyword) return jit.options.static_argnames.count(*keyword) > 0;
  return jit.options.static_argnums.count(static_cast<std::int64_t>(position)) > 0;
}

JitOptions JitFunctionObject::effective_options() const {
  // Positional parameters named in static_argnames are static too.
  JitOptions effective = options;
  if (auto* f = function.as<FunctionObject>()) {
    const auto& parameters = f->signature.parameters;
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      if (effective.static_argnames.count(parameters[i].name)) effective.static_argnums.insert(static_cast<std::int64_t>(i));
      if (effective.static_argnums.count(static_cast<std::int64_t>(i))) effective.static_argnames.insert(parameters[i].name);
      if (effective.donate_argnames.count(parameters[i].name)) effective.donate_argnums.insert(static_cast<std::int64_t>(i));
      if (effective.donate_argnums.count(static_cast<std::int64_t>(i))) effective.donate_argnames.insert(parameters[i].name);
    }
  }
  return effective;
}

// What JAX's tracing cache keys a call on: the dynamic arguments as
// (positional tuple, keyword dict), their leaves' types and names.
TraceSignature signature_of(Evaluator& evaluator, const JitFunctionObject& view, const CallArgs& dynamic,
                            const std::vector<ArrayRef>& leaves) {
  TraceSignature signature;
  std::vector<Value> positional;
  for (std::size_t i = 0; i < dynamic.positional.size(); ++i) {
    if (is_static(view, i, nullptr)) continue;
    positional.push_back(dynamic.positional[i]);
    for (auto& name : leaf_names(evaluator, parameter_name(view.function, i), dynamic.positional[i]))
      signature.names.push_back(std::move(name));
  }
  auto keywords = make_dict();
  for (const auto& [name, value] : dynamic.keywords) {
    if (is_static(view, 0, &name)) continue;
    keywords->table.insert(make_str(name), value);
    for (auto& leaf_name : leaf_names(evaluator, name, value)) signature.names.push_back(std::move(leaf_name));
  }
  tree_flatten(evaluator, make_tuple({make_tuple(std::move(positional)), Value(keywords)}), signature.arguments);
  for (const auto& leaf : leaves) signature.types.push_back(leaf->aval);
  return signature;
}

JitFunctionObject::Signature JitFunctionObject::signature(Evaluator& evaluator, const CallArgs& args) const {
  JitFunctionObject view(function, effective_options());
  Signature out{args, {}, {}, {}, {}, {}};
  CallArgs& dynamic = out.dynamic;
  std::string& key = out.key;
  // Each dynamic argument's leaves as arrays (or Refs): the tree is rebuilt
  // only where a leaf was not an array already (a Python number).
  std::vector<std::vector<Value>> positional_leaves(dynamic.positional.size()), keyword_leaves(dynamic.keywords.size());
  std::size_t tree_parts = 0, leaf_parts = 0;  // the key's parts so far (key_parts)
  auto prepare = [&](Value& value, std::size_t position, const std::string* keyword, std::vector<Value>& items) {
    if (is_static(view, position, keyword)) {
      // Static arguments are keyed as JAX keys them: by hash, then equality (find).
      key += "s" + type_name(value) + "#" + std::to_string(static_hash(evaluator, value)) + ";";
      out.static_values.push_back(value);
      return;
    }
    TreeDef def;
    items = tree_flatten(evaluator, value, def);
    bool converted = false;
    for (auto& item : items) {
      if (item.as<RefObject>() || item.as<ArrayObject>()) continue;
      item = Value(leaf_array(evaluator, item));
      converted = true;
    }
    if (converted) value = tree_unflatten(evaluator, def, items);
    key += key_parts.tree(evaluator, tree_parts++, def) + ";";
  };
  for (std::size_t i = 0; i < dynamic.positional.size(); ++i)
    prepare(dynamic.positional[i], i, nullptr, positional_leaves[i]);
  for (std::size_t i = 0; i < dynamic.keywords.size(); ++i) {
    auto& [name, value] = dynamic.keywords[i];
    key += name + "=";
    prepare(value, 0, &name, keyword_leaves[i]);
  }
  if (!options.in_shardings.is_none()) {
    std::vector<Value> positional;
    for (std::size_t i = 0; i < dynamic.positional.size(); ++i)
      if (!is_static(view, i, nullptr)) positional.push_back(dynamic.positional[i]);
    Value placed = apply_shardings(evaluator, make_tuple(positional), options.in_shardings, "in_shardings");
    auto items = evaluator.to_vector(placed);
    for (std::size_t i = 0, k = 0; i < dynamic.positional.size(); ++i) {
      if (is_static(view, i, nullptr)) continue;
      dynamic.positional[i] = items[k++];
      TreeDef def;
      positional_leaves[i] = tree_flatten(evaluator, dynamic.positional[i], def);
    }
  }
  std::map<const DeviceMesh*, std::string> meshes;
  auto collect = [&](const std::vector<Value>& leaves, bool donate) {
    for (const auto& leaf : leaves) {
      auto ref = leaf.as<RefObject>() ? std::static_pointer_cast<RefObject>(leaf.object()) : nullptr;
      ArrayRef array = ref ? ref->value : std::static_pointer_cast<ArrayObject>(leaf.object());
      out.leaves.push_back(array);
      out.refs.push_back(ref);
      out.donated.push_back(donate || ref);  // a Ref's final value takes its buffer
      key += std::string(ref ? "ref|" : "") + key_parts.leaf(leaf_parts++, *array, meshes) + ";";
    }
  };
  for (std::size_t i = 0; i < dynamic.positional.size(); ++i)
    if (!is_static(view, i, nullptr)) collect(positional_leaves[i], view.options.donate_argnums.count(static_cast<std::int64_t>(i)) > 0);
  for (std::size_t i = 0; i < dynamic.keywords.size(); ++i) {
    const std::string& name = dynamic.keywords[i].first;
    if (!is_static(view, 0, &name)) collect(keyword_leaves[i], view.options.donate_argnames.count(name) > 0);
  }
  // Random draws are traced in the current threefry mode; JAX's cache keys on that flag too.
  if (runtime_of(evaluator).threefry_mode == devices::ThreefryMode::stable) key += "threefry=stable;";
  return out;
}

const TracedCall* JitFunctionObject::find(std::map<std::string, TracedCall>& entries, const Signature& signature) {
  auto found = entries.find(signature.key);
  if (found == entries.end()) return nullptr;
  const auto& cached = found->second.static_values;
  const auto& given = signature.static_values;
  bool same = cached.size() == given.size();
  for (std::size_t i = 0; same && i < given.size(); ++i)
    same = given[i].is_same(cached[i]) || values_equal(given[i], cached[i]);
  if (same) return &found->second;
  entries.erase(found);
  return nullptr;
}

// JAX's check_no_aliased_ref_args: one Ref passed as two arguments.
void refuse_aliased_refs(Evaluator& evaluator, const JitFunctionObject& view, const CallArgs& dynamic,
                         const std::vector<ArrayRef>& leaves, const std::vector<std::shared_ptr<RefObject>>& refs) {
  for (std::size_t i = 0; i < refs.size(); ++i)
    for (std::size_t j = 0; refs[i] && j < i; ++j) {
      if (refs[j] != refs[i]) continue;
      std::vector<std::string> names = signature_of(evaluator, view, dynamic, leaves).names;
      auto name = [&](std::size_t k) { return k < names.size() && !names[k].empty() ? names[k] : std::string("unknown"); };
      raise(exc::ValueError(), "only one reference to a mutable array may be passed as an argument to a function, but "
                               "when tracing " + function_source_info(evaluator, view.function) +
                                   " for jit the mutable array reference of type " + ref_type_str(*refs[i]) +
                                   " appeared at both " + name(j) + " and " + name(i) + ".");
    }
}

const TracedCall* JitFunctionObject::trace(Evaluator& evaluator, CallArgs& args, std::vector<ArrayRef>& arguments,
                                           bool cached_only, std::vector<std::shared_ptr<RefObject>>* argument_refs) {
  JitFunctionObject view(function, effective_options());
  Signature signature = this->signature(evaluator, args);
  arguments = signature.leaves;
  if (argument_refs) *argument_refs = signature.refs;
  refuse_aliased_refs(evaluator, view, signature.dynamic, signature.leaves, signature.refs);
  if (const TracedCall* found = find(cache, signature)) {
    for (const auto& ref : found->captured) arguments.push_back(ref->value);
    return found;
  }
  if (cached_only) return nullptr;
  note_tracing_cache_miss(evaluator, function, signature_of(evaluator, view, signature.dynamic, signature.leaves));

  // Trace: the body runs once with abstract stand-ins for the arguments.
  JitTrace jit_trace;
  jit_trace.ref_effects = std::make_shared<RefEffects>();
  std::map<const ArrayObject*, ArrayRef> tracers;
  for (std::size_t i = 0; i < signature.leaves.size(); ++i) {
    ArrayRef tracer = jit_trace.add_input(*signature.leaves[i]);
    if (signature.refs[i]) jit_trace.ref_effects->lifted.push_back({signature.refs[i], i, tracer, false});
    else tracers.emplace(signature.leaves[i].get(), tracer);
  }
  auto substitute = [&](Value& value, std::size_t position, const std::string* keyword) {
    if (is_static(view, position, keyword)) return;
    value = tree_map(evaluator, value, [&](const Value& leaf) {
      return leaf.as<RefObject>() ? leaf : Value(tracers.at(leaf.as<ArrayObject>()));
    });
  };
  CallArgs traced_args = signature.dynamic;
  for (std::size_t i = 0; i < traced_args.positional.size(); ++i) substitute(traced_args.positional[i], i, nullptr);
  for (auto& [name, value] : traced_args.keywords) substitute(value, 0, &name);
  Value result;
  {
    TraceScope scope(evaluator, jit_trace);
    result = evaluator.call(function, traced_args);
    refuse_returned_refs(evaluator, function, result);
    result = tree_map(evaluator, result, [&](const Value& leaf) { return Value(leaf_array(evaluator, leaf)); });
    result = apply_shardings(evaluator, result, options.out_shardings, "out_shardings");
  }
  TreeDef result_def;
  for (const auto& leaf : tree_flatten(evaluator, result, result_def))
    jit_trace.program->outputs.push_back(jit_trace.variable_of(std::static_pointer_cast<ArrayObject>(leaf.object())));
  TracedCall traced{jit_trace.program, Executable(nullptr), result, signature.static_values, {}, {}, 0, {}};
  traced.result_count = jit_trace.program->outputs.size();
  std::vector<bool> donated = signature.donated;
  for (const auto& lifted : jit_trace.ref_effects->lifted) {
    bool argument = lifted.input < signature.leaves.size();
    if (!argument) {
      traced.captured.push_back(lifted.ref);
      arguments.push_back(lifted.ref->value);
      donated.push_back(true);
    }
    if (!lifted.written) continue;
    jit_trace.program->outputs.push_back(jit_trace.variable_of(lifted.current));
    traced.written.push_back({argument ? std::optional(lifted.input) : std::nullopt, argument ? nullptr : lifted.ref});
  }
  traced.executable = compile(evaluator, jit_trace.program);
  traced.memory = plan_memory(traced.executable, donated);
  warn_unusable_donations(evaluator, traced, signature);
  return &cache.emplace(signature.key, std::move(traced)).first->second;
}

void JitFunctionObject::warn_unusable_donations(Evaluator& evaluator, const TracedCall& traced,
                                                const Signature& signature) const {
  if (!evaluator.log) return;
  std::vector<bool> donated;  // by the caller: a Ref's buffer is the program's to reuse, silently
  for (std::size_t i = 0; i < signature.donated.size(); ++i) donated.push_back(signature.donated[i] && !signature.refs[i]);
  auto avals = unusable_donations(*traced.program, traced.memory, donated, !options.out_shardings.is_none());
  if (avals.empty()) return;
  // Python's warnings line, at the call that lowers the program (its file
  // named as JAX's logged locations are: source_summary).
  lang::Span span = current_span(evaluator);
  std::string where;
  if (!span.empty()) {
    std::string file = span.file->name();
    if (auto slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
    where = file + ":" + std::to_string(span.file->position(span.begin).line) + ": ";
  }
  evaluator.log(where + unusable_donations_warning(avals));
}

void JitFunctionObject::check_arguments(Evaluator& evaluator, const CallArgs& args) const {
  // Check mode follows the body directly: what a call refuses before tracing
  // (an unhashable static argument, a ShapeDtypeStruct) is refused here.
  JitFunctionObject view(function, effective_options());
  auto check = [&](const Value& value, std::size_t position, const std::string* keyword) {
    if (is_static(view, position, keyword)) {
      (void)static_hash(evaluator, value);
      return;
    }
    TreeDef def;
    for (const auto& leaf : tree_flatten(evaluator, value, def))
      if (shape_dtype_struct_array(evaluator, leaf)) refuse_shape_dtype_struct();
  };
  for (std::size_t i = 0; i < args.positional.size(); ++i) check(args.positional[i], i, nullptr);
  for (const auto& [name, value] : args.keywords) check(value, 0, &name);
}

Value JitFunctionObject::call(Evaluator& evaluator, CallArgs& args) {
  // Inside another jit the body is inlined into the outer program; check
  // mode follows the body on abstract arrays directly.
  if (tracing_jit(evaluator)) {
    JittedBodyScope no_dispatch(evaluator);
    Value result = evaluator.call(function, args);
    return apply_shardings(evaluator, result, options.out_shardings, "out_shardings");
  }
  JitCallScope timed(evaluator, function);
  if (evaluator.mode == Evaluator::Mode::check) return check_call(evaluator, args);
  std::vector<ArrayRef> arguments;
  std::vector<std::shared_ptr<RefObject>> refs;
  const TracedCall* traced = trace(evaluator, args, arguments, false, &refs);
  for (const auto& argument : arguments)
    if (argument->abstract()) refuse_shape_dtype_struct();
  return run(evaluator, *traced, arguments, refs);
}

Value JitFunctionObject::check_call(Evaluator& evaluator, CallArgs& args) {
  check_arguments(evaluator, args);
  // Inside a transformation's trace (grad's, an outer body being checked)
  // the body is part of that trace's program.
  if (!runtime_of(evaluator).trace_stack.empty()) return follow_body(evaluator, args, nullptr);
  std::optional<Signature> signature;
  {
    ++evaluator.try_depth;  // what a call refuses here, following the body reports
    try {
      signature = this->signature(evaluator, args);
    } catch (PyError&) {
      signature.reset();
    }
    --evaluator.try_depth;
  }
  if (!signature) return follow_body(evaluator, args, nullptr);
  // A signature checked before: its program, as a run's cached call runs it.
  if (const TracedCall* traced = find(checked, *signature)) {
    charge_checked_program(evaluator, traced->executable.program(), signature->leaves);
    charge_plan(evaluator, *traced, signature->leaves);
    const Jaxpr& program = *traced->program;
    std::size_t next = 0;
    return tree_map(evaluator, traced->output_tree, [&](const Value&) {
      auto v = static_cast<std::size_t>(program.outputs.at(next++));
      ArrayRef output = make_abstract_array(program.variable_types[v], *program.variable_layouts[v],
                                            program.variable_committed[v]);
      charge_if_held(evaluator, *output);
      return Value(output);
    });
  }
  CheckingTrace recording;
  // The caller's arrays are the program's inputs (the body is followed on them).
  {
    JitFunctionObject view(function, effective_options());
    std::vector<Value> given;
    auto leaves = [&](const Value& value) {
      TreeDef def;
      for (const auto& leaf : tree_flatten(evaluator, value, def)) given.push_back(leaf);
    };
    for (std::size_t i = 0; i < args.positional.size(); ++i)
      if (!is_static(view, i, nullptr)) leaves(args.positional[i]);
    for (const auto& [name, value] : args.keywords)
      if (!is_static(view, 0, &name)) leaves(value);
    for (std::size_t i = 0; i < signature->leaves.size(); ++i) {
      auto* array = i < given.size() ? given[i].as<ArrayObject>() : nullptr;
      recording.recorder.add_argument(array ? std::static_pointer_cast<ArrayObject>(given[i].object()) : signature->leaves[i]);
    }
  }
  std::size_t errors = evaluator.recorded_errors.size(), warnings = evaluator.check_warnings.size();
  Value result = follow_body(evaluator, args, &recording);
  bool clean = evaluator.recorded_errors.size() == errors && evaluator.check_warnings.size() == warnings;
  if (std::optional<TracedCall> traced = checked_program(evaluator, recording, result, *signature, clean)) {
    warn_unusable_donations(evaluator, *traced, *signature);
    charge_plan(evaluator, checked.insert_or_assign(signature->key, std::move(*traced)).first->second, signature->leaves);
  }
  TreeDef def;
  for (const auto& leaf : tree_flatten(evaluator, result, def))
    if (auto* array = leaf.as<ArrayObject>()) charge_if_held(evaluator, *array);
  return result;
}

Value JitFunctionObject::follow_body(Evaluator& evaluator, CallArgs& args, CheckingTrace* recording) {
  // The body's values are the program's (charged by its plan).
  UnchargedScope program_values(evaluator);
  JittedBodyScope no_dispatch(evaluator);
  std::optional<TraceScope> scope;
  if (recording) scope.emplace(evaluator, *recording);
  Value result = evaluator.call(function, args);
  return apply_shardings(evaluator, result, options.out_shardings, "out_shardings");
}

std::optional<TracedCall> JitFunctionObject::checked_program(Evaluator& evaluator, CheckingTrace& recording,
                                                             const Value& result, const Signature& signature, bool clean) {
  JitTrace& recorder = recording.recorder;
  // Only a body that checked cleanly is a program (its diagnostics are reported instead).
  if (!clean || recording.poisoned) return std::nullopt;
  Value outputs;
  try {
    ++evaluator.try_depth;
    outputs = tree_map(evaluator, result, [&](const Value& leaf) { return Value(leaf_array(evaluator, leaf)); });
    --evaluator.try_depth;
  } catch (PyError&) {
    --evaluator.try_depth;
    return std::nullopt;  // an unknown, or what is no array: not a program's output
  }
  TreeDef def;
  for (const auto& leaf : tree_flatten(evaluator, outputs, def)) {
    auto array = std::static_pointer_cast<ArrayObject>(leaf.object());
    if (array->poisoned) return std::nullopt;
    recorder.program->outputs.push_back(recorder.variable_of(array));
  }
  Executable executable = compile(evaluator, recorder.program);
  MemoryPlan memory = plan_memory(executable, signature.donated);
  return TracedCall{recorder.program, std::move(executable), outputs, signature.static_values, std::move(memory), {}, 0, {}};
}

void JitFunctionObject::charge_plan(Evaluator& evaluator, const TracedCall& traced, const std::vector<ArrayRef>& arguments) {
  try {
    ProgramMemory memory(evaluator, *traced.memory.program, traced.memory, arguments, current_span(evaluator));
  } catch (PyError& error) {
    if (!recover_in_check(evaluator, error, false)) throw;
  }
}

Value JitFunctionObject::run(Evaluator& evaluator, const TracedCall& traced, const std::vector<ArrayRef>& arguments,
                             const std::vector<std::shared_ptr<RefObject>>& refs) {
  std::vector<ArrayRef> outputs;
  {
    // The plan holds the program's buffers while it runs; its outputs are
    // charged as the arrays returned once it is done.
    ProgramMemory memory(evaluator, *traced.memory.program, traced.memory, arguments, current_span(evaluator));
    UnchargedScope program_values(evaluator);
    outputs = traced.executable.run(evaluator, arguments);
  }
  for (const auto& output : outputs) charge_device_memory(evaluator, *output);
  for (std::size_t k = 0; k < traced.written.size(); ++k) {
    const auto& written = traced.written[k];
    write_back(evaluator, written.leaf ? *refs.at(*written.leaf) : *written.captured, outputs.at(traced.result_count + k));
  }
  // A result that holds a Ref's buffer is an array of its own (later writes do not reach it).
  std::vector<const ArrayObject*> buffers;
  for (const auto& ref : refs)
    if (ref) buffers.push_back(ref->value.get());
  for (const auto& ref : traced.captured) buffers.push_back(ref->value.get());
  std::size_t next = 0;
  return tree_map(evaluator, traced.output_tree, [&](const Value&) {
    ArrayRef output = outputs.at(next++);
    for (const auto* buffer : buffers)
      if (shares_buffers(*output, *buffer)) output = array_copy(evaluator, output);
    return Value(output);
  });
}

// compiled.memory_analysis(): JAX's CompiledMemoryStats fields, in bytes on
// one device (memory_plan.hpp); nothing is placed in host memory.
Value memory_stats(Evaluator& evaluator, const Jaxpr& program, const MemoryPlan& plan) {
  MemoryAnalysis analysis = analyse_memory(program, plan);
  std::vector<std::string> fields{"generated_code_size_in_bytes", "argument_size_in_bytes", "output_size_in_bytes",
                                  "alias_size_in_bytes", "temp_size_in_bytes", "host_generated_code_size_in_bytes",
                                  "host_argument_size_in_bytes", "host_output_size_in_bytes", "host_alias_size_in_bytes",
                                  "host_temp_size_in_bytes", "peak_memory_in_bytes"};
  std::vector<Value> values{Value::integer(analysis.generated_code), Value::integer(analysis.argument),
                            Value::integer(analysis.output), Value::integer(analysis.alias), Value::integer(analysis.temp)};
  for (int host = 0; host < 5; ++host) values.push_back(Value::integer(0));
  values.push_back(Value::integer(analysis.peak));
  return make_named_tuple(evaluator, "jax.stages", "CompiledMemoryStats", fields, std::move(values));
}

// What f.lower(*args) was called with: the compiled program is called with
// the dynamic arguments only, the static ones staying as lowered.
struct LoweredCall {
  std::shared_ptr<JitFunctionObject> jit;
  CallArgs args;
};

// f.lower(*args).compile(): the executable's text and cost; calling it runs
// the program on arguments of the lowered types.
class CompiledObject : public Object {
 public:
  CompiledObject(std::shared_ptr<const Jaxpr> program, std::string name, LoweredCall lowered)
      : program(std::move(program)), name(std::move(name)), lowered(std::move(lowered)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("Compiled");
    return type;
  }
  std::string repr(Evaluator&) const override { return "<jax.stages.Compiled object>"; }
  bool callable() const override { return true; }
  Value call(Evaluator& evaluator, CallArgs& args) override {
    JitFunctionObject view(lowered.jit->function, lowered.jit->effective_options());
    CallArgs full = lowered.args;
    std::size_t dynamic_count = 0, next = 0;
    for (std::size_t i = 0; i < full.positional.size(); ++i)
      if (!is_static(view, i, nullptr)) {
        ++dynamic_count;
        if (next < args.positional.size()) full.positional[i] = args.positional[next++];
      }
    if (args.positional.size() != dynamic_count)
      raise(exc::TypeError(), "Compiled function called with " + std::to_string(args.positional.size()) +
                                  " positional arguments, expected " + std::to_string(dynamic_count));
    for (auto& given : args.keywords) {
      const std::string& keyword = given.first;
      auto found = std::find_if(full.keywords.begin(), full.keywords.end(),
                                [&](const auto& entry) { return entry.first == keyword && !is_static(view, 0, &entry.first); });
      if (found == full.keywords.end())
        raise(exc::TypeError(), "Compiled function called with unexpected keyword argument '" + keyword + "'");
      found->second = given.second;
    }
    if (tracing_jit(evaluator) || evaluator.mode == Evaluator::Mode::check) return lowered.jit->call(evaluator, full);
    std::vector<ArrayRef> arguments;
    // The lowered signature is in the jit's cache; other types are not traced.
    std::vector<std::shared_ptr<RefObject>> refs;
    const TracedCall* traced = lowered.jit->trace(evaluator, full, arguments, true, &refs);
    if (!traced || traced->program != program)
      raise(exc::TypeError(), "Argument types differ from the types for which this computation was compiled.");
    return JitFunctionObject::run(evaluator, *traced, arguments, refs);
  }
  std::optional<Value> get_attribute(Evaluator&, const std::string& attribute) override {
    auto program_ref = program;
    auto function_name = name;
    if (attribute == "as_text")
      return Value(native("as_text()", [program_ref, function_name](Evaluator& evaluator, Arguments&) {
        return make_str(compile(evaluator, program_ref).text(function_name));
      }));
    if (attribute == "memory_analysis")
      return Value(native("memory_analysis()", [program_ref, jit = lowered.jit](Evaluator& evaluator, Arguments&) {
        MemoryPlan plan = jit->memory_plan_of(evaluator, program_ref);
        return memory_stats(evaluator, *plan.program, plan);
      }));
    if (attribute == "cost_analysis")
      return Value(native("cost_analysis()", [program_ref](Evaluator& evaluator, Arguments&) {
        // The per-device program the call runs, as as_text() prints it.
        Executable executable = compile(evaluator, program_ref);
        Cost cost = program_cost(executable.program());
        auto out = make_dict();
        out->table.insert(make_str("flops"), Value::floating(cost.flops));
        out->table.insert(make_str("bytes accessed"), Value::floating(cost.bytes_accessed));
        // The cost model's figures on the chosen chip (costing.hpp).
        Runtime& runtime = runtime_of(evaluator);
        devices::CostModel model(devices::chip_spec(runtime.options().chip));
        DeviceMeshRef mesh = runtime.context_mesh ? runtime.context_mesh->mesh : nullptr;
        for (const auto& constant : program_ref->constants)
          if (constant.second->layout.mesh && constant.second->layout.mesh->devices.size() > 1)
            mesh = constant.second->layout.mesh;
        out->table.insert(make_str("collective bytes"),
                          Value::floating(program_collective_bytes(model, executable.partitioned(), mesh)));
        out->table.insert(make_str("estimated time"),
                          Value::floating(program_seconds(model, executable.partitioned(), mesh)));
        return Value(out);
      }));
    return std::nullopt;
  }
  std::shared_ptr<const Jaxpr> program;
  std::string name;
  LoweredCall lowered;
};

// f.lower(*args): the traced program.
class LoweredObject : public Object {
 public:
  LoweredObject(std::shared_ptr<const Jaxpr> program, std::string name, LoweredCall lowered)
      : program(std::move(program)), name(std::move(name)), lowered(std::move(lowered)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("Lowered");
    return type;
  }
  std::string repr(Evaluator&) const override { return "<jax.stages.Lowered object>"; }
  std::optional<Value> get_attribute(Evaluator&, const std::string& attribute) override {
    auto program_ref = program;
    auto function_name = name;
    if (attribute == "as_text")
      return Value(native("as_text()", [program_ref](Evaluator&, Arguments&) { return make_str(program_ref->str()); }));
    if (attribute == "compile")
      return Value(native("compile()", [program_ref, function_name, lowered = lowered](Evaluator&, Arguments&) {
        return Value(std::make_shared<CompiledObject>(program_ref, function_name, lowered));
      }));
    return std::nullopt;
  }
  std::shared_ptr<const Jaxpr> program;
  std::string name;
  LoweredCall lowered;
};

// f.trace(*args): the traced stage, whose .jaxpr is the program and
// .lower() the lowered one.
class TracedObject : public Object {
 public:
  TracedObject(std::shared_ptr<const Jaxpr> program, std::string name, LoweredCall lowered)
      : program(std::move(program)), name(std::move(name)), lowered(std::move(lowered)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("Traced");
    return type;
  }
  std::string repr(Evaluator&) const override { return "<jax.stages.Traced object>"; }
  std::optional<Value> get_attribute(Evaluator&, const std::string& attribute) override {
    if (attribute == "jaxpr") return jaxpr_value(program);
    if (attribute == "lower")
      return Value(native("lower()", [program = program, name = name, lowered = lowered](Evaluator&, Arguments&) {
        return Value(std::make_shared<LoweredObject>(program, name, lowered));
      }));
    return std::nullopt;
  }
  std::shared_ptr<const Jaxpr> program;
  std::string name;
  LoweredCall lowered;
};

// A native `(*args, **kwargs)`'s arguments as a call's.
CallArgs star_arguments(Evaluator& evaluator, Arguments& a) {
  CallArgs call{a[0].as<TupleObject>()->items, {}};
  if (auto* kwargs = a[1].as<DictObject>())
    for (const auto& e : kwargs->table.entries())
      if (e.live) call.keywords.emplace_back(evaluator.str(e.key), e.value);
  return call;
}

std::optional<Value> JitFunctionObject::get_attribute(Evaluator& evaluator, const std::string& attribute) {
  auto self = std::static_pointer_cast<JitFunctionObject>(shared_from_this());
  if (attribute == "lower" || attribute == "trace")
    return Value(native(attribute + "(*args, **kwargs)", [self, attribute](Evaluator& ev, Arguments& a) {
      CallArgs call = star_arguments(ev, a);
      std::vector<ArrayRef> arguments;
      const TracedCall& traced = *self->trace(ev, call, arguments);
      std::string name = self->name();
      auto dot = name.rfind('.');
      std::string short_name = dot == std::string::npos ? name : name.substr(dot + 1);
      if (attribute == "trace")
        return Value(std::make_shared<TracedObject>(traced.program, short_name, LoweredCall{self, call}));
      return Value(std::make_shared<LoweredObject>(traced.program, short_name, LoweredCall{self, call}));
    }));
  if (attribute == "__wrapped__") return function;
  return evaluator.find_attribute(function, attribute);
}

std::set<std::int64_t> int_set(Evaluator& evaluator, const Value& value) {
  std::set<std::int64_t> out;
  if (value.is_none()) return out;
  if (value.is_integral()) return {value.as_int()};
  for (const auto& v : evaluator.to_vector(value)) out.insert(evaluator.index_of(v));
  return out;
}

std::set<std::string> name_set(Evaluator& evaluator, const Value& value) {
  std::set<std::string> out;
  if (value.is_none()) return out;
  if (auto* s = string_of(value)) return {*s};
  for (const auto& v : evaluator.to_vector(value)) {
    auto* s = string_of(v);
    if (!s) raise(exc::TypeError(), "static_argnames must be strings");
    out.insert(*s);
  }
  return out;
}

// jax.ensure_compile_time_eval() and jax.named_scope(name): context managers
// that count an open block (Runtime::compile_time_eval) or push a name
// (Runtime::name_stack) while the block runs.
class RuntimeScopeContext : public Object {
 public:
  explicit RuntimeScopeContext(std::optional<std::string> name) : name_(std::move(name)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("_GeneratorContextManager");
    return type;
  }
  std::optional<Value> enter(Evaluator& evaluator) override {
    Runtime& runtime = runtime_of(evaluator);
    if (name_) runtime.name_stack.push_back(*name_);
    else ++runtime.compile_time_eval;
    return Value::none();
  }
  bool exit(Evaluator& evaluator, const Value*) override {
    Runtime& runtime = runtime_of(evaluator);
    if (name_) runtime.name_stack.pop_back();
    else --runtime.compile_time_eval;
    return false;
  }

 private:
  std::optional<std::string> name_;
};

// jax.make_jaxpr(fun, ...)(*args): fun traced as jit traces it (static
// arguments, pytrees, ShapeDtypeStructs, sharded arrays), its program as a
// ClosedJaxpr; with return_shape, also the output's ShapeDtypeStructs.
Value make_jaxpr(Evaluator& evaluator, Arguments& a) {
  if (!a[0].is_object() || !a[0].object()->callable())
    raise(exc::TypeError(), "Expected a callable value, got " + evaluator.repr(a[0]));
  // axis_env binds collective axis names outside any mapped trace; abstracted_axes is dynamic shapes.
  if (!a[2].is_none() && evaluator.truthy(a[2]))
    raise(exc::NotImplementedError(), "make_jaxpr's axis_env is not supported: trace collectives inside "
                                      "jax.shard_map or jax.vmap(axis_name=...)");
  if (!a[4].is_none())
    raise(exc::NotImplementedError(), "make_jaxpr's abstracted_axes (dynamic shapes) is not supported");
  JitOptions options;
  options.static_argnums = int_set(evaluator, a[1]);
  auto jitted = std::make_shared<JitFunctionObject>(a[0], options);
  bool return_shape = evaluator.truthy(a[3]);
  return Value(native("make_jaxpr_f(*args, **kwargs)", [jitted, return_shape](Evaluator& ev, Arguments& inner) {
    CallArgs call = star_arguments(ev, inner);
    std::vector<ArrayRef> arguments;
    const TracedCall& traced = *jitted->trace(ev, call, arguments);
    Value jaxpr = jaxpr_value(traced.program);
    if (!return_shape) return jaxpr;
    Value shapes = tree_map(ev, traced.output_tree, [&](const Value& leaf) {
      return shape_dtype_struct_of(ev, *to_array(ev, leaf));
    });
    return make_tuple({jaxpr, shapes});
  }));
}

}  // namespace

void install_jit(Evaluator& evaluator) {
  install_shard_map(evaluator);
  install_control_flow(evaluator);
  install_sharding_constraint(evaluator);
  install_numpy_testing(evaluator);
  install_refs(evaluator);
  evaluator.module("jax")->add_function(
      "jit(fun=None, /, *, in_shardings=None, out_shardings=None, static_argnums=None, static_argnames=None, "
      "donate_argnums=None, donate_argnames=None, keep_unused=False, device=None, backend=None, inline=False)",
      [](Evaluator& ev, Arguments& a) {
        JitOptions options{int_set(ev, a[3]), name_set(ev, a[4]), a[1], a[2], int_set(ev, a[5]), name_set(ev, a[6])};
        if (a[0].is_none())  // jax.jit(static_argnums=...) as a decorator factory
          return Value(native("jit(fun)", [options](Evaluator&, Arguments& inner) {
            return Value(std::make_shared<JitFunctionObject>(inner[0], options));
          }));
        if (!a[0].is_object() || !a[0].object()->callable())
          raise(exc::TypeError(), "Expected a callable value, got " + ev.repr(a[0]));
        return Value(std::make_shared<JitFunctionObject>(a[0], options));
      });
  evaluator.module("jax")->add_function(
      "make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False, abstracted_axes=None)", make_jaxpr);
  evaluator.module("jax")->add_function("ensure_compile_time_eval()", [](Evaluator&, Arguments&) {
    return Value(std::make_shared<RuntimeScopeContext>(std::nullopt));
  });
  evaluator.module("jax")->add_function("named_scope(name)", [](Evaluator&, Arguments& a) {
    const std::string* name = string_of(a[0]);
    if (!name) raise(exc::TypeError(), "named_scope name argument must be a string.");
    return Value(std::make_shared<RuntimeScopeContext>(*name));
  });
}

}  // namespace interp
