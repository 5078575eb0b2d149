// jax.checkpoint / jax.remat, the policies, checkpoint_name and
// print_saved_residuals (remat.hpp).
#include "interp/transforms/remat.hpp"

#include <set>

#include "interp/ops/shaped_array.hpp"
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

class PolicyObject : public Object {
 public:
  PolicyObject(std::string name, Saveable saveable) : name(std::move(name)), saveable(std::move(saveable)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("function");
    return type;
  }
  std::string repr(Evaluator&) const override { return "<function " + name + ">"; }

  std::string name;
  Saveable saveable;
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
  Linearization local = lin;
  for (std::size_t i = region.begin; i < region.end; ++i) {
    if (!recompute[i - region.begin]) continue;
    const Equation& e = program.equations[i];
    std::vector<ArrayRef> operands;
    for (int input : e.inputs) operands.push_back(local.values.at(input));
    ContextMeshScope context(runtime_of(evaluator), e);
    local.values[e.output] = leaf_array(evaluator, bind(evaluator, *e.primitive, std::move(operands), e.params));
  }
  std::map<int, ArrayRef> cotangents;
  for (std::size_t k = 0; k < out_cts.size(); ++k)
    if (out_cts[k]) cotangents[region.outputs[k]] = out_cts[k];
  auto active = [&](int variable) { return lin.active.count(variable) > 0; };
  walk_range(evaluator, local, region.begin, region.end, &region, active, cotangents);
  std::vector<ArrayRef> in_cts;
  for (int variable : region.inputs) {
    auto found = cotangents.find(variable);
    in_cts.push_back(found != cotangents.end() ? found->second : nullptr);
  }
  return in_cts;
}

class RematFunction : public Object {
 public:
  RematFunction(Value function, Saveable saveable) : function(std::move(function)), saveable(std::move(saveable)) {}
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
};

Value RematFunction::call(Evaluator& evaluator, CallArgs& args) {
  int level = 0;
  JitTrace* trace = differentiating_trace(evaluator, level);
  if (!trace || level != 0) return evaluator.call(function, args);
  std::size_t begin = trace->program->equations.size();
  Value out = evaluator.call(function, args);
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

Value checkpoint(Evaluator& evaluator, const Value& function, const Value& policy_value, const Value& static_argnums) {
  for (const auto& argnum : static_argnums.is_int() ? std::vector<Value>{static_argnums} : evaluator.to_vector(static_argnums))
    evaluator.index_of(argnum);  // ints; a static argument is used as it is given
  Saveable saveable = [](Evaluator&, const Equation&, const std::map<int, ArrayRef>&) { return false; };
  if (!policy_value.is_none()) saveable = policy_argument(evaluator, policy_value);
  return Value(std::make_shared<RematFunction>(function, saveable));
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
    std::set<std::string> names = names_of(ev, a[0]);
    return policy("save_only_these_names", [names](const Equation& e) {
      const std::string* name = name_of(e);
      return name && names.count(*name) > 0;
    });
  });
  policies->add_function("save_any_names_but_these(*names_not_to_save)", [](Evaluator& ev, Arguments& a) {
    std::set<std::string> names = names_of(ev, a[0]);
    return policy("save_any_names_but_these", [names](const Equation& e) {
      const std::string* name = name_of(e);
      return name && names.count(*name) == 0;
    });
  });
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
                           saved.insert(offloaded.begin(), offloaded.end());
                           return policy("save_and_offload_only_these_names", [saved](const Equation& e) {
                             const std::string* name = name_of(e);
                             return name && saved.count(*name) > 0;
                           });
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
