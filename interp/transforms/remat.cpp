// jax.checkpoint / jax.remat, the policies, checkpoint_name and
// print_saved_residuals (remat.hpp).
#include "interp/transforms/remat.hpp"

#include <array>
#include <optional>
#include <set>

#include "interp/ops/shaped_array.hpp"
#include "interp/python/builtin_types.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/cache_misses.hpp"
#include "interp/transforms/check_mode.hpp"
#include "interp/transforms/custom_derivatives.hpp"
#include "interp/transforms/reverse_mode.hpp"

namespace interp {

namespace {

ArrayRef leaf_array(Evaluator& evaluator, const Value& leaf) {
  return leaf.as<ArrayObject>() ? std::static_pointer_cast<ArrayObject>(leaf.object()) : to_array(evaluator, leaf);
}

// Whether the forward value of an equation's output may be kept for the
// backward pass (JAX's policy(prim, *avals, **params)), given the forward
// values by variable.
using Saveable = std::function<bool(Evaluator&, const Equation&, const std::map<int, ArrayRef>&)>;
using EquationTest = std::function<bool(const Equation&)>;

// A policy: a function of jax.checkpoint_policies, or an instance of one
// of its name-based dataclasses (SaveOnlyTheseNames, ...: `cls` and its
// fields, which custom_remat's forward rules read).
class PolicyObject : public Object {
 public:
  PolicyObject(std::string name, Saveable saveable) : name(std::move(name)), saveable(std::move(saveable)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("function");
    return cls ? cls : type;
  }
  std::string repr(Evaluator& evaluator) const override {
    if (!cls) return "<function " + name + ">";
    std::string out = name + "(";
    for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? ", " : "") + fields[i].first + "=" + evaluator.repr(fields[i].second);
    return out + ")";
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& attribute) override {
    for (const auto& [field, value] : fields)
      if (field == attribute) return value;
    return Object::get_attribute(evaluator, attribute);
  }
  bool equals(const Value& other) const override {
    auto* o = other.as<PolicyObject>();
    if (!o || !cls) return o == this;
    if (o->cls != cls || o->fields.size() != fields.size()) return false;
    for (std::size_t i = 0; i < fields.size(); ++i)
      if (!values_equal(fields[i].second, o->fields[i].second)) return false;
    return true;
  }
  std::optional<std::size_t> hash() const override {
    if (!cls) return Object::hash();
    std::size_t h = std::hash<std::string>{}(name);
    for (const auto& field : fields) h = h * 31 + hash_value(field.second);
    return h;
  }

  std::string name;
  Saveable saveable;
  TypeRef cls;
  std::vector<std::pair<std::string, Value>> fields;
};

const std::string* name_of(const Equation& e) {
  return e.primitive->name == "name" ? e.params.get<std::string>("name") : nullptr;
}

bool is_dot(const Equation& e, bool without_batch_dims) {
  if (e.primitive->name != "dot_general") return false;
  if (!without_batch_dims) return true;
  const auto* batch = e.params.get<std::vector<std::int64_t>>("lhs_batch");
  return !batch || batch->empty();
}

// A jax.checkpoint_policies policy: a test of the equation alone.
Value policy(std::string name, EquationTest test) {
  Saveable saveable = [test = std::move(test)](Evaluator&, const Equation& e, const std::map<int, ArrayRef>&) { return test(e); };
  return Value(std::make_shared<PolicyObject>(std::move(name), std::move(saveable)));
}

// A policy function of one's own, called as policy(prim, *avals): the
// primitive as its name (str(prim) is JAX's primitive name), the operands'
// ShapedArrays; JAX's **params are not passed.
Saveable user_policy(const Value& function) {
  return [function](Evaluator& ev, const Equation& e, const std::map<int, ArrayRef>& values) {
    std::vector<Value> args{make_str(std::string(e.primitive->name))};
    for (int input : e.inputs)
      if (auto found = values.find(input); found != values.end()) args.push_back(shaped_array(found->second));
    return ev.truthy(ev.call(function, args));
  };
}

std::set<std::string> names_of(Evaluator& evaluator, const Value& tuple) {
  std::set<std::string> names;
  for (const auto& item : evaluator.to_vector(tuple)) names.insert(evaluator.str(item));
  return names;
}

Value frozenset_of(Evaluator& evaluator, const std::set<std::string>& names) {
  std::vector<Value> items;
  for (const auto& name : names) items.push_back(make_str(name));
  return evaluator.call(Value(types::frozenset()), {make_list(std::move(items))});
}

bool named_in(const Equation& e, const std::set<std::string>& names) {
  const std::string* name = name_of(e);
  return name && names.count(*name) > 0;
}

// The name-based policies are instances of JAX's dataclasses.
enum class NamePolicy { save_only, save_any_but, save_and_offload };

// `saved` may be kept; for save_and_offload, `offloaded` too (the simulated
// devices keep an offloaded residual where it is, so it is saved).
Value name_policy(Evaluator& evaluator, NamePolicy kind, const std::set<std::string>& saved,
                  const std::set<std::string>& offloaded = {}, const Value& src = Value(), const Value& dst = Value());

// The classes, made with their constructors once per process: every
// interpreter shares them (setting the constructors per interpreter raced
// between threads).
const TypeRef& name_policy_class(NamePolicy kind) {
  static const std::array<TypeRef, 3> classes = [] {
    std::array<TypeRef, 3> made{make_type("SaveOnlyTheseNames", types::object()),
                                make_type("SaveAnyNamesButThese", types::object()),
                                make_type("SaveAndOffloadOnlyTheseNames", types::object())};
    made[0]->set_constructor(constructor("SaveOnlyTheseNames(saveable_names)", [](Evaluator& ev, Arguments& a) {
      return name_policy(ev, NamePolicy::save_only, names_of(ev, a[0]));
    }));
    made[1]->set_constructor(constructor("SaveAnyNamesButThese(names)", [](Evaluator& ev, Arguments& a) {
      return name_policy(ev, NamePolicy::save_any_but, names_of(ev, a[0]));
    }));
    made[2]->set_constructor(constructor(
        "SaveAndOffloadOnlyTheseNames(names_which_can_be_saved, names_which_can_be_offloaded, offload_src, offload_dst)",
        [](Evaluator& ev, Arguments& a) {
          return name_policy(ev, NamePolicy::save_and_offload, names_of(ev, a[0]), names_of(ev, a[1]), a[2], a[3]);
        }));
    return made;
  }();
  return classes[static_cast<int>(kind)];
}

Value name_policy(Evaluator& evaluator, NamePolicy kind, const std::set<std::string>& saved,
                  const std::set<std::string>& offloaded, const Value& src, const Value& dst) {
  Saveable test = [kind, saved, offloaded](Evaluator&, const Equation& e, const std::map<int, ArrayRef>&) {
    if (kind == NamePolicy::save_any_but) return name_of(e) && !named_in(e, saved);
    return named_in(e, saved) || named_in(e, offloaded);
  };
  auto made = std::make_shared<PolicyObject>(name_policy_class(kind)->name(), std::move(test));
  made->cls = name_policy_class(kind);
  switch (kind) {
    case NamePolicy::save_only: made->fields = {{"saveable_names", frozenset_of(evaluator, saved)}}; break;
    case NamePolicy::save_any_but: made->fields = {{"names", frozenset_of(evaluator, saved)}}; break;
    case NamePolicy::save_and_offload:
      made->fields = {{"names_which_can_be_saved", frozenset_of(evaluator, saved)},
                      {"names_which_can_be_offloaded", frozenset_of(evaluator, offloaded)},
                      {"offload_src", src},
                      {"offload_dst", dst}};
      break;
  }
  return Value(made);
}

Saveable policy_argument(Evaluator& evaluator, const Value& value) {
  if (auto* p = value.as<PolicyObject>()) return p->saveable;
  if (value.is_object() && value.object()->callable()) return user_policy(value);
  raise(exc::TypeError(), "a checkpoint policy must be callable, got " + evaluator.repr(value));
}

// The region's rule: recompute what the walk reads and the policy did not
// save, then walk the region backwards on those values.
class RematRule : public CustomRule {
 public:
  explicit RematRule(Saveable saveable) : saveable_(std::move(saveable)) {}
  bool transposable() const override { return true; }
  std::vector<ArrayRef> transpose(Evaluator& evaluator, const Linearization& lin, const CustomRegion& region,
                                  const std::vector<ArrayRef>& out_cts) const override;
  std::shared_ptr<const CustomRule> carried(const std::function<int(int)>&) const override {
    return std::make_shared<RematRule>(saveable_);
  }

 private:
  Saveable saveable_;
};

std::vector<ArrayRef> RematRule::transpose(Evaluator& evaluator, const Linearization& lin, const CustomRegion& region,
                                           const std::vector<ArrayRef>& out_cts) const {
  const Jaxpr& program = *lin.trace->program;
  // The walk reads the operands and results of the equations a cotangent reaches.
  std::set<int> needed;
  for (std::size_t i = region.begin; i < region.end; ++i) {
    const Equation& e = program.equations[i];
    if (!lin.active.count(e.output)) continue;
    needed.insert(e.output);
    needed.insert(e.inputs.begin(), e.inputs.end());
  }
  std::vector<bool> recompute(region.end - region.begin, false);
  for (std::size_t i = region.end; i-- > region.begin;) {
    const Equation& e = program.equations[i];
    if (!needed.count(e.output) || saveable_(evaluator, e, lin.values)) continue;
    recompute[i - region.begin] = true;
    needed.insert(e.inputs.begin(), e.inputs.end());
  }
  // The recomputed values stand in for the forward pass's during this walk
  // only (Linearization::values): what they displace is put back after it.
  struct Displaced {
    std::map<int, ArrayRef>& values;
    std::vector<std::pair<int, std::optional<ArrayRef>>> kept;  // none: there was no value
    ~Displaced() {
      for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
        if (it->second)
          values[it->first] = std::move(*it->second);
        else
          values.erase(it->first);
      }
    }
  } displaced{lin.values, {}};
  for (std::size_t i = region.begin; i < region.end; ++i) {
    if (!recompute[i - region.begin]) continue;
    const Equation& e = program.equations[i];
    std::vector<ArrayRef> operands;
    for (int input : e.inputs) operands.push_back(lin.values.at(input));
    ContextMeshScope context(runtime_of(evaluator), e);
    ArrayRef value = leaf_array(evaluator, bind(evaluator, *e.primitive, std::move(operands), e.params));
    auto [slot, added] = lin.values.try_emplace(e.output);
    displaced.kept.emplace_back(e.output, added ? std::nullopt : std::optional<ArrayRef>(slot->second));
    slot->second = std::move(value);
  }
  std::map<int, ArrayRef> cotangents;
  for (std::size_t k = 0; k < out_cts.size(); ++k)
    if (out_cts[k]) cotangents[region.outputs[k]] = out_cts[k];
  auto active = [&](int variable) { return lin.active.count(variable) > 0; };
  walk_range(evaluator, lin, region.begin, region.end, &region, active, cotangents);
  std::vector<ArrayRef> in_cts;
  for (int variable : region.inputs) {
    auto found = cotangents.find(variable);
    in_cts.push_back(found != cotangents.end() ? found->second : nullptr);
  }
  return in_cts;
}

class RematFunction : public Object {
 public:
  RematFunction(Value function, Saveable saveable, Value policy)
      : function(std::move(function)), saveable(std::move(saveable)), policy(std::move(policy)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("function");
    return type;
  }
  std::string repr(Evaluator& evaluator) const override { return "<checkpoint of " + evaluator.repr(function) + ">"; }
  bool callable() const override { return true; }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "__wrapped__") return function;
    if (name == "__name__" || name == "__qualname__" || name == "__doc__") return evaluator.get_attribute(function, name);
    return std::nullopt;
  }
  Value call(Evaluator& evaluator, CallArgs& args) override;
  // A method of a class: bound to the instance it is read through.
  std::optional<Value> descriptor_get(Evaluator&, const Value& instance, const Value&) override {
    if (instance.is_none()) return std::nullopt;
    return Value(std::make_shared<BoundMethod>(instance, shared_from_this()));
  }

  Value function;
  Saveable saveable;
  Value policy;  // what custom_remat's forward rules receive: the policy, or None (no policy, nothing_saveable)
};

// The policy of the checkpoint region being recorded, for custom_remat.
struct AmbientPolicy {
  AmbientPolicy(Evaluator& evaluator, const Value& policy) : runtime(runtime_of(evaluator)) {
    runtime.remat_policies.push_back(policy);
  }
  ~AmbientPolicy() { runtime.remat_policies.pop_back(); }
  AmbientPolicy(const AmbientPolicy&) = delete;
  AmbientPolicy& operator=(const AmbientPolicy&) = delete;
  Runtime& runtime;
};

Value RematFunction::call(Evaluator& evaluator, CallArgs& args) {
  int level = 0;
  JitTrace* trace = differentiating_trace(evaluator, level);
  if (!trace || level != 0) return evaluator.call(function, args);
  std::size_t begin = trace->program->equations.size();
  Value out;
  {
    AmbientPolicy ambient(evaluator, policy);
    out = evaluator.call(function, args);
  }
  if (is_unknown(out)) return out;
  TreeDef def;
  std::vector<Value> leaves = tree_flatten(evaluator, out, def);
  std::vector<int> outputs = region_outputs(evaluator, *trace, begin, leaves);
  // The region's inputs: what its equations read from before it.
  std::set<int> made;
  std::vector<int> inputs;
  for (std::size_t i = begin; i < trace->program->equations.size(); ++i) {
    const Equation& e = trace->program->equations[i];
    for (int input : e.inputs)
      if (!made.count(input) && std::find(inputs.begin(), inputs.end(), input) == inputs.end()) inputs.push_back(input);
    made.insert(e.output);
  }
  trace->regions.push_back({begin, trace->program->equations.size(), 0, std::move(inputs), std::move(outputs),
                            std::make_shared<RematRule>(saveable)});
  return tree_unflatten(evaluator, def, leaves);
}

// jax.custom_remat(f, f_fwd, f_rem, f_bwd): `f`, except where a checkpoint
// region is recorded for reverse-mode differentiation. There it is a
// custom_vjp whose forward rule is f_fwd(policy, *args) -> (out, res) (the
// region's policy, None for none or nothing_saveable), keeping res and the
// arguments, and whose backward rule rematerializes with
// f_rem(res, *args) -> (out, res2) and returns f_bwd(res2, g).
class CustomRematFunction : public Object {
 public:
  CustomRematFunction(Value f, Value fwd, Value rem, Value bwd)
      : f(std::move(f)), fwd(std::move(fwd)), rem(std::move(rem)), bwd(std::move(bwd)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("function");
    return type;
  }
  std::string repr(Evaluator& evaluator) const override { return "<custom_remat of " + evaluator.repr(f) + ">"; }
  bool callable() const override { return true; }
  std::optional<Value> descriptor_get(Evaluator&, const Value& instance, const Value&) override {
    if (instance.is_none()) return std::nullopt;
    return Value(std::make_shared<BoundMethod>(instance, shared_from_this()));
  }
  Value call(Evaluator& evaluator, CallArgs& args) override;
  Value f, fwd, rem, bwd;
};

std::vector<Value> rule_pair(Evaluator& evaluator, const Value& rule, const Value& result) {
  std::vector<Value> items = result.as<TupleObject>() || result.as<ListObject>() ? evaluator.to_vector(result) : std::vector<Value>{};
  if (items.size() != 2)
    raise(exc::TypeError(), "custom_remat rule " + qualified_name(rule) + " must return a pair (output, residuals), got " +
                                evaluator.repr(result));
  return items;
}

Value CustomRematFunction::call(Evaluator& evaluator, CallArgs& args) {
  const auto& policies = runtime_of(evaluator).remat_policies;
  int level = 0;
  JitTrace* trace = differentiating_trace(evaluator, level);
  if (policies.empty() || !trace || level != 0) return evaluator.call(f, args);
  if (!args.keywords.empty())
    raise(exc::TypeError(), "a custom_remat function takes its arguments by position under jax.checkpoint");
  Value policy = policies.back();
  Value fwd_rule = fwd, rem_rule = rem, bwd_rule = bwd;
  Value forward(native("custom_remat_fwd(*args)", [policy, fwd_rule](Evaluator& ev, Arguments& a) {
    std::vector<Value> call_args{policy};
    for (const auto& arg : ev.to_vector(a[0])) call_args.push_back(arg);
    std::vector<Value> pair = rule_pair(ev, fwd_rule, ev.call(fwd_rule, std::move(call_args)));
    return make_tuple({pair[0], make_tuple({pair[1], a[0]})});
  }));
  Value backward(native("custom_remat_bwd(saved, g)", [rem_rule, bwd_rule](Evaluator& ev, Arguments& a) {
    std::vector<Value> saved = ev.to_vector(a[0]);
    std::vector<Value> call_args{saved.at(0)};
    for (const auto& arg : ev.to_vector(saved.at(1))) call_args.push_back(arg);
    std::vector<Value> pair = rule_pair(ev, rem_rule, ev.call(rem_rule, std::move(call_args)));
    return ev.call(bwd_rule, {pair[1], a[1]});
  }));
  Value helper = evaluator.call(*evaluator.module("jax")->find("custom_vjp"), {f});
  evaluator.call(evaluator.get_attribute(helper, "defvjp"), {forward, backward});
  return evaluator.call(helper, args);
}

Value checkpoint(Evaluator& evaluator, const Value& function, const Value& policy_value, const Value& static_argnums) {
  for (const auto& argnum : static_argnums.is_int() ? std::vector<Value>{static_argnums} : evaluator.to_vector(static_argnums))
    evaluator.index_of(argnum);  // ints; a static argument is used as it is given
  Saveable saveable = [](Evaluator&, const Equation&, const std::map<int, ArrayRef>&) { return false; };
  if (!policy_value.is_none()) saveable = policy_argument(evaluator, policy_value);
  // JAX hands custom_remat None for nothing_saveable, as for no policy.
  Value ambient = policy_value;
  if (auto* p = policy_value.as<PolicyObject>(); p && p->name == "nothing_saveable") ambient = Value();
  return Value(std::make_shared<RematFunction>(function, saveable, ambient));
}

// One residual the backward pass reads: its type and where it comes from.
struct Residual {
  typecheck::ArrayType type;
  std::string source;
};

std::vector<Residual> saved_residuals(Evaluator& evaluator, const Value& function, const std::vector<Value>& args,
                                      const Value& kwargs) {
  CallArgs call{args, {}};
  if (auto* dict = kwargs.as<DictObject>())
    for (const auto& entry : dict->table.entries())
      if (entry.live) call.keywords.emplace_back(evaluator.str(entry.key), entry.value);
  std::vector<std::int64_t> argnums;
  for (std::size_t i = 0; i < args.size(); ++i) argnums.push_back(static_cast<std::int64_t>(i));
  auto lin = trace_at(evaluator, function, call, argnums, false);
  TreeDef out_def;
  std::vector<int> out_variables;
  for (const auto& leaf : tree_flatten(evaluator, lin->returned, out_def))
    out_variables.push_back(lin->trace->variable_of(leaf_array(evaluator, leaf)));
  replay_forward(evaluator, *lin);
  // The backward pass recorded on stand-ins: the forward values it reads are its constants.
  Linearization recorded = *lin;
  std::map<const ArrayObject*, int> stand_ins;
  for (auto& [variable, value] : recorded.values) {
    value = make_abstract_array(value->aval, value->layout, value->committed);
    stand_ins[value.get()] = variable;
  }
  JitTrace backward_trace(false);
  std::map<int, ArrayRef> cotangents;
  for (int variable : out_variables)
    if (recorded.active.count(variable) && !cotangents.count(variable))
      cotangents[variable] = backward_trace.add_input(*recorded.values.at(variable));
  {
    TraceScope scope(evaluator, backward_trace);
    backward(evaluator, recorded, std::move(cotangents));
  }
  std::set<int> read;
  for (const auto& [variable, array] : backward_trace.program->constants)
    if (auto found = stand_ins.find(array.get()); found != stand_ins.end()) read.insert(found->second);
  const Jaxpr& program = *lin->trace->program;
  std::vector<Residual> residuals;
  auto line = [&](int variable, const std::string& source) {
    residuals.push_back({program.variable_types.at(static_cast<std::size_t>(variable)), source});
  };
  // (A Python scalar is a literal in JAX's program, not a residual.)
  for (const auto& [variable, constant] : program.constants)
    if (read.count(variable) && constant->aval.ndim() > 0) line(variable, "from a constant");
  Value unwrapped = function;
  while (auto* remat = unwrapped.as<RematFunction>()) unwrapped = remat->function;
  std::vector<std::string> names = argument_names(evaluator, unwrapped, args);
  for (std::size_t i = 0; i < program.inputs.size(); ++i)
    if (read.count(program.inputs[i]))
      line(program.inputs[i], i < names.size() && !names[i].empty() ? "from the argument " + names[i]
                                                                      : "from the argument at flattened index " + std::to_string(i));
  for (std::size_t i = 0; i < program.equations.size(); ++i) {
    const Equation& e = program.equations[i];
    if (!read.count(e.output)) continue;
    std::string source = i < lin->trace->sources.size() ? lin->trace->sources[i] : "unknown";
    if (const std::string* name = name_of(e)) line(e.output, "named '" + *name + "' from " + source);
    else line(e.output, "output of " + std::string(e.primitive->name) + " from " + source);
  }
  return residuals;
}

std::vector<Value> call_arguments(const Arguments& a) { return a[1].as<TupleObject>()->items; }

void install_policies(Evaluator& evaluator) {
  auto policies = evaluator.module("jax.checkpoint_policies");
  policies->add("everything_saveable", policy("everything_saveable", [](const Equation&) { return true; }));
  policies->add("nothing_saveable", policy("nothing_saveable", [](const Equation&) { return false; }));
  for (const char* name : {"dots_saveable", "checkpoint_dots"})
    policies->add(name, policy(name, [](const Equation& e) { return is_dot(e, false); }));
  for (const char* name : {"dots_with_no_batch_dims_saveable", "checkpoint_dots_with_no_batch_dims"})
    policies->add(name, policy(name, [](const Equation& e) { return is_dot(e, true); }));
  policies->add_function("save_only_these_names(*names_which_can_be_saved)", [](Evaluator& ev, Arguments& a) {
    return name_policy(ev, NamePolicy::save_only, names_of(ev, a[0]));
  });
  policies->add_function("save_any_names_but_these(*names_not_to_save)", [](Evaluator& ev, Arguments& a) {
    return name_policy(ev, NamePolicy::save_any_but, names_of(ev, a[0]));
  });
  for (NamePolicy kind : {NamePolicy::save_only, NamePolicy::save_any_but, NamePolicy::save_and_offload})
    policies->add(name_policy_class(kind)->name(), Value(name_policy_class(kind)));
  policies->add_function("save_anything_except_these_names(*names_not_to_save)", [](Evaluator& ev, Arguments& a) {
    std::set<std::string> names = names_of(ev, a[0]);
    return policy("save_anything_except_these_names", [names](const Equation& e) {
      const std::string* name = name_of(e);
      return !name || names.count(*name) == 0;
    });
  });
  // Offloading moves a residual to host memory; the simulated devices keep it
  // where it is, so an offloadable name is saved.
  policies->add_function("save_and_offload_only_these_names(*, names_which_can_be_saved, names_which_can_be_offloaded, "
                         "offload_src, offload_dst)",
                         [](Evaluator& ev, Arguments& a) {
                           std::set<std::string> saved = names_of(ev, a[0]), offloaded = names_of(ev, a[1]);
                           for (const auto& name : saved)
                             if (offloaded.count(name))
                               raise(exc::ValueError(), "The names should be exclusive and should not intersect in "
                                                        "`names_which_can_be_saved` and `names_which_can_be_offloaded`.");
                           return name_policy(ev, NamePolicy::save_and_offload, saved, offloaded, a[2], a[3]);
                         });
  policies->add_function("save_from_both_policies(policy_1, policy_2)", [](Evaluator& ev, Arguments& a) {
    Saveable first = policy_argument(ev, a[0]), second = policy_argument(ev, a[1]);
    Saveable both = [first, second](Evaluator& e, const Equation& q, const std::map<int, ArrayRef>& v) {
      return first(e, q, v) || second(e, q, v);
    };
    return Value(std::make_shared<PolicyObject>("save_from_both_policies", std::move(both)));
  });
}

}  // namespace

void install_remat(Evaluator& evaluator) {
  install_policies(evaluator);
  auto jax = evaluator.module("jax");
  auto ad_checkpoint = evaluator.module("jax.ad_checkpoint");
  for (auto* module : {jax.get(), ad_checkpoint.get()})
    for (const char* name : {"checkpoint", "remat"})
      module->add_function(std::string(name) + "(fun, *, prevent_cse=True, policy=None, static_argnums=())",
                           [](Evaluator& ev, Arguments& a) { return checkpoint(ev, a[0], a[2], a[3]); });
  jax->add_function("custom_remat(f, f_fwd, f_rem, f_bwd)", [](Evaluator& ev, Arguments& a) {
    return Value(std::make_shared<CustomRematFunction>(a[0], a[1], a[2], a[3]));
  });
  ad_checkpoint->add_function("checkpoint_name(x, name)", [](Evaluator& ev, Arguments& a) {
    std::string name = ev.str(a[1]);
    return tree_map(ev, a[0], [&](const Value& leaf) {
      Params params;
      params.set("name", name);
      return bind(ev, primitive("name"), {leaf_array(ev, leaf)}, std::move(params));
    });
  });
  ad_checkpoint->add_function("print_saved_residuals(f, *args, **kwargs)", [](Evaluator& ev, Arguments& a) {
    for (const auto& residual : saved_residuals(ev, a[0], call_arguments(a), a[2]))
      ev.write(residual.type.short_str() + " " + residual.source + "\n");
    return Value();
  });
  // JAX's list of (abstract value, description) pairs.
  ad_checkpoint->add_function("saved_residuals(f, *args, **kwargs)", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> pairs;
    for (const auto& residual : saved_residuals(ev, a[0], call_arguments(a), a[2])) {
      ArrayRef stand_in = make_abstract_array(residual.type, default_layout(ev, residual.type.ndim()), false);
      pairs.push_back(make_tuple({shaped_array(stand_in), make_str(residual.source)}));
    }
    return make_list(std::move(pairs));
  });
  Value policies(evaluator.module("jax.checkpoint_policies"));
  jax->add("checkpoint_policies", policies);
  ad_checkpoint->add("checkpoint_policies", policies);
  jax->add("ad_checkpoint", Value(ad_checkpoint));
}

}  // namespace interp
