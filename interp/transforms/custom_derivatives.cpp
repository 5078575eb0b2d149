// jax.custom_jvp and jax.custom_vjp (custom_derivatives.hpp).
#include "interp/transforms/custom_derivatives.hpp"

#include <set>

#include "interp/ops/vjp_support.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/check_mode.hpp"

namespace interp {

namespace {

ArrayRef leaf_array(Evaluator& evaluator, const Value& leaf) {
  return leaf.as<ArrayObject>() ? std::static_pointer_cast<ArrayObject>(leaf.object()) : to_array(evaluator, leaf);
}

std::vector<int> renamed(const std::vector<int>& variables, const std::function<int(int)>& rename) {
  std::vector<int> out;
  for (int variable : variables) out.push_back(variable < 0 ? -1 : rename(variable));
  return out;
}

void accumulate(Evaluator& evaluator, std::map<int, ArrayRef>& cotangents, int variable, const ArrayRef& ct) {
  auto& slot = cotangents[variable];
  slot = slot ? vjp::add(evaluator, slot, ct) : ct;
}

// custom_jvp's rule in a region: the rule's tangent outputs are linear
// programs of its tangent inputs (zero arrays made in the region); the
// transpose walks those equations backwards.
class JvpRegionRule : public CustomRule {
 public:
  JvpRegionRule(std::vector<int> tangent_inputs, std::vector<int> tangent_outputs)
      : tangent_inputs_(std::move(tangent_inputs)), tangent_outputs_(std::move(tangent_outputs)) {}
  bool transposable() const override { return true; }
  std::vector<ArrayRef> transpose(Evaluator& evaluator, const Linearization& lin, const CustomRegion& region,
                                  const std::vector<ArrayRef>& out_cts) const override {
    const Jaxpr& program = *lin.trace->program;
    std::map<int, ArrayRef> cotangents;
    for (std::size_t k = 0; k < out_cts.size(); ++k)
      if (out_cts[k] && tangent_outputs_[k] >= 0) accumulate(evaluator, cotangents, tangent_outputs_[k], out_cts[k]);
    std::set<int> linear(tangent_inputs_.begin(), tangent_inputs_.end());
    for (std::size_t i = region.begin; i < region.end; ++i) {
      const Equation& e = program.equations[i];
      for (int input : e.inputs)
        if (linear.count(input)) linear.insert(e.output);
    }
    auto is_linear = [&](int variable) { return linear.count(variable) > 0; };
    walk_range(evaluator, lin, region.begin, region.end, &region, is_linear, cotangents);
    std::vector<ArrayRef> in_cts;
    for (int variable : tangent_inputs_) {
      auto found = cotangents.find(variable);
      in_cts.push_back(variable >= 0 && found != cotangents.end() ? found->second : nullptr);
    }
    return in_cts;
  }
  std::shared_ptr<const CustomRule> carried(const std::function<int(int)>& rename) const override {
    return std::make_shared<JvpRegionRule>(renamed(tangent_inputs_, rename), renamed(tangent_outputs_, rename));
  }

 private:
  std::vector<int> tangent_inputs_, tangent_outputs_;  // by region input / output
};

// custom_vjp's rule in a region: bwd of the residuals fwd returned.
struct VjpRuleData {
  Value bwd;
  std::vector<Value> nondiff;       // the nondiff_argnums arguments, bwd's first
  TreeDef residual_def;
  std::vector<Value> residual_leaves;  // non-array leaves as they are
  std::vector<int> residual_variables;  // array leaves' variables, -1 for others
  TreeDef out_def;
  std::vector<TreeDef> arg_defs;    // per differentiable argument
  std::string name;                 // the function's, for errors
};

class VjpRegionRule : public CustomRule {
 public:
  explicit VjpRegionRule(VjpRuleData data) : data_(std::move(data)) {}
  bool transposable() const override { return false; }
  std::vector<ArrayRef> transpose(Evaluator& evaluator, const Linearization& lin, const CustomRegion& region,
                                  const std::vector<ArrayRef>& out_cts) const override;
  std::shared_ptr<const CustomRule> carried(const std::function<int(int)>& rename) const override {
    VjpRuleData data = data_;
    data.residual_variables = renamed(data_.residual_variables, rename);
    return std::make_shared<VjpRegionRule>(std::move(data));
  }

 private:
  VjpRuleData data_;
};

std::vector<ArrayRef> VjpRegionRule::transpose(Evaluator& evaluator, const Linearization& lin, const CustomRegion& region,
                                               const std::vector<ArrayRef>& out_cts) const {
  std::vector<Value> cts;
  for (std::size_t k = 0; k < out_cts.size(); ++k) {
    ArrayRef ct = out_cts[k];
    if (!ct) {
      ArrayRef out = lin.values.at(region.outputs[k]);
      ct = zeros_placed_like(evaluator, out);
    }
    cts.push_back(Value(ct));
  }
  std::vector<Value> residuals = data_.residual_leaves;
  for (std::size_t k = 0; k < residuals.size(); ++k)
    if (data_.residual_variables[k] >= 0) residuals[k] = Value(lin.values.at(data_.residual_variables[k]));
  std::vector<Value> args = data_.nondiff;
  args.push_back(tree_unflatten(evaluator, data_.residual_def, residuals));
  args.push_back(tree_unflatten(evaluator, data_.out_def, cts));
  Value result = evaluator.call(data_.bwd, args);
  if (!result.as<TupleObject>() && !result.as<ListObject>())
    raise(exc::TypeError(), "Custom VJP bwd rule must produce a tuple (or list) of length equal to the number of "
                            "arguments to the primal function, but got bwd output type " + type_name(result) + ".");
  std::vector<Value> entries = evaluator.to_vector(result);
  if (entries.size() != data_.arg_defs.size())
    raise(exc::TypeError(), "Custom VJP bwd rule must produce an output with the same container (pytree) structure as "
                            "the args tuple of the primal function, and in particular must produce a tuple of length "
                            "equal to the number of arguments to the primal function, but got bwd output structure of "
                            "length " + std::to_string(entries.size()) + " for primal input structure of length " +
                                std::to_string(data_.arg_defs.size()) + ".");
  std::vector<ArrayRef> in_cts;
  for (std::size_t k = 0; k < entries.size(); ++k) {
    std::size_t count = data_.arg_defs[k].leaf_count();
    if (entries[k].is_none()) {
      in_cts.insert(in_cts.end(), count, nullptr);
      continue;
    }
    TreeDef def;
    std::vector<Value> leaves = tree_flatten(evaluator, entries[k], def);
    if (leaves.size() != count)
      raise(exc::ValueError(), "Custom VJP bwd rule for function " + data_.name + " must produce an output with the "
                               "same container (pytree) structure as the args tuple of the primal function, but got "
                               "PyTreeDef(" + def.str(evaluator) + ") for argument " + std::to_string(k) +
                                   " whose structure is PyTreeDef(" + data_.arg_defs[k].str(evaluator) + ").");
    for (const auto& leaf : leaves) in_cts.push_back(is_array_like(leaf) ? leaf_array(evaluator, leaf) : nullptr);
  }
  return in_cts;
}

}  // namespace

void transpose_region(Evaluator& evaluator, const Linearization& lin, const CustomRegion& region,
                      std::map<int, ArrayRef>& cotangents) {
  std::vector<ArrayRef> out_cts;
  bool any = false;
  for (int variable : region.outputs) {
    auto found = cotangents.find(variable);
    out_cts.push_back(found != cotangents.end() ? found->second : nullptr);
    any = any || out_cts.back();
  }
  if (!any) return;
  std::vector<ArrayRef> in_cts = region.rule->transpose(evaluator, lin, region, out_cts);
  for (std::size_t k = 0; k < region.inputs.size() && k < in_cts.size(); ++k) {
    int variable = region.inputs[k];
    if (variable < 0 || !in_cts[k] || !lin.active.count(variable)) continue;
    ArrayRef primal = lin.values.at(variable);
    ArrayRef ct = vjp::convert(evaluator, in_cts[k], primal->aval.dtype);
    accumulate(evaluator, cotangents, variable, ct);
  }
}

void carry_regions(const Linearization& lin, JitTrace& target, const std::vector<std::size_t>& landed) {
  auto rename = [&](int variable) { return target.variable_of(lin.values.at(variable)); };
  for (const auto& region : lin.trace->regions) {
    if (region.level < 1) continue;
    target.regions.push_back({landed.at(region.begin), landed.at(region.end), region.level - 1,
                              renamed(region.inputs, rename), renamed(region.outputs, rename),
                              region.rule->carried(rename)});
  }
}

void refuse_forward_mode_through_custom_vjp(const JitTrace& trace) {
  for (const auto& region : trace.regions)
    if (region.level == 0 && !region.rule->transposable())
      raise(exc::TypeError(), "can't apply forward-mode autodiff (jvp) to a custom_vjp function.");
}

JitTrace* differentiating_trace(Evaluator& evaluator, int& level) {
  auto* top = dynamic_cast<JitTrace*>(&current_trace(evaluator));
  if (!top || !top->differentiating) return nullptr;
  int count = 0;
  for (Trace* trace : runtime_of(evaluator).trace_stack)
    if (auto* jit = dynamic_cast<JitTrace*>(trace); jit && jit->differentiating) ++count;
  level = top->open_regions;
  return level < count ? top : nullptr;
}

namespace {

// A rule runs: its own calls of custom functions belong to the level below.
struct RuleRunning {
  explicit RuleRunning(JitTrace& trace) : trace(trace) { ++trace.open_regions; }
  ~RuleRunning() { --trace.open_regions; }
  RuleRunning(const RuleRunning&) = delete;
  RuleRunning& operator=(const RuleRunning&) = delete;
  JitTrace& trace;
};

}  // namespace

std::vector<int> region_outputs(Evaluator& evaluator, JitTrace& trace, std::size_t begin, std::vector<Value>& leaves) {
  std::set<int> made;
  for (std::size_t i = begin; i < trace.program->equations.size(); ++i) made.insert(trace.program->equations[i].output);
  std::vector<int> variables;
  for (auto& leaf : leaves) {
    if (!is_array_like(leaf))
      raise(exc::TypeError(), "Custom rule output " + evaluator.repr(leaf) + " is not a valid JAX type");
    ArrayRef array = leaf_array(evaluator, leaf);
    int variable = trace.variable_of(array);
    if (!made.count(variable)) {
      array = std::static_pointer_cast<ArrayObject>(bind(evaluator, primitive("copy"), {array}).object());
      variable = trace.variable_of(array);
      leaf = Value(array);
    }
    made.erase(variable);  // a second occurrence is copied too
    variables.push_back(variable);
  }
  return variables;
}

namespace {

std::vector<int> input_variables(Evaluator& evaluator, JitTrace& trace, const std::vector<Value>& leaves) {
  std::vector<int> variables;
  for (const auto& leaf : leaves) variables.push_back(leaf.as<ArrayObject>() ? trace.variable_of(leaf_array(evaluator, leaf)) : -1);
  return variables;
}

class CustomFunction : public Object {
 public:
  CustomFunction(Value function, std::set<std::int64_t> nondiff, bool is_jvp)
      : function(std::move(function)), nondiff(std::move(nondiff)), is_jvp(is_jvp) {}
  const TypeRef& type() const override {
    static const TypeRef jvp_type = make_type("custom_jvp");
    static const TypeRef vjp_type = make_type("custom_vjp");
    return is_jvp ? jvp_type : vjp_type;
  }
  std::string repr(Evaluator& evaluator) const override {
    return std::string("<jax.custom_") + (is_jvp ? "jvp" : "vjp") + " of " + evaluator.repr(function) + ">";
  }
  bool callable() const override { return true; }
  Value call(Evaluator& evaluator, CallArgs& args) override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  // A method of a class: bound to the instance it is read through.
  std::optional<Value> descriptor_get(Evaluator&, const Value& instance, const Value&) override {
    if (instance.is_none()) return std::nullopt;
    return Value(std::make_shared<BoundMethod>(instance, shared_from_this()));
  }

  Value function;
  std::set<std::int64_t> nondiff;
  bool is_jvp;
  Value jvp, fwd, bwd;  // the rules, None until defined

 private:
  Value call_jvp_rule(Evaluator& evaluator, JitTrace& trace, int level, const std::vector<Value>& args);
  Value call_vjp_rule(Evaluator& evaluator, JitTrace& trace, int level, const std::vector<Value>& args);
  std::vector<Value> positional(Evaluator& evaluator, const CallArgs& args) const;
};

// The call's arguments by position (keywords placed by the function's
// signature, defaults filled), as JAX resolves them with inspect.signature.
std::vector<Value> CustomFunction::positional(Evaluator& evaluator, const CallArgs& args) const {
  std::vector<Value> out = args.positional;
  if (args.keywords.empty()) return out;
  auto* f = function.as<FunctionObject>();
  if (!f) raise(exc::TypeError(), "keyword arguments to a custom_" + std::string(is_jvp ? "jvp" : "vjp") + " function need its signature");
  const auto& parameters = f->signature.parameters;
  std::vector<std::optional<Value>> slots(out.begin(), out.end());
  for (const auto& [name, value] : args.keywords) {
    std::size_t i = 0;
    while (i < parameters.size() && parameters[i].name != name) ++i;
    if (i == parameters.size())
      raise(exc::TypeError(), qualified_name(function) + "() got an unexpected keyword argument '" + name + "'");
    if (slots.size() <= i) slots.resize(i + 1);
    slots[i] = value;
  }
  out.clear();
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i] && i < parameters.size() && parameters[i].default_value) slots[i] = parameters[i].default_value;
    if (!slots[i]) raise(exc::TypeError(), qualified_name(function) + "() missing required argument '" + parameters[i].name + "'");
    out.push_back(*slots[i]);
  }
  return out;
}

Value CustomFunction::call(Evaluator& evaluator, CallArgs& args) {
  int level = 0;
  JitTrace* trace = differentiating_trace(evaluator, level);
  if (!trace) return evaluator.call(function, args);
  std::vector<Value> given = positional(evaluator, args);
  for (auto argnum : nondiff)
    if (argnum >= static_cast<std::int64_t>(given.size()))
      raise(exc::TypeError(), "nondiff_argnums " + std::to_string(argnum) + " is out of range for " +
                                  std::to_string(given.size()) + " arguments");
  return is_jvp ? call_jvp_rule(evaluator, *trace, level, given) : call_vjp_rule(evaluator, *trace, level, given);
}

Value CustomFunction::call_jvp_rule(Evaluator& evaluator, JitTrace& trace, int level, const std::vector<Value>& args) {
  if (jvp.is_none())
    raise(exc::AttributeError(), "No JVP defined for custom_jvp function " + qualified_name(function) + " using defjvp.");
  std::vector<Value> rule_args, primals, tangents, primal_leaves, tangent_leaves;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (nondiff.count(static_cast<std::int64_t>(i))) rule_args.push_back(args[i]);
  std::size_t begin = trace.program->equations.size();
  RuleRunning running(trace);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (nondiff.count(static_cast<std::int64_t>(i))) continue;
    primals.push_back(args[i]);
    TreeDef def;
    std::vector<Value> leaves = tree_flatten(evaluator, args[i], def);
    std::vector<Value> zeros;
    for (const auto& leaf : leaves) {
      primal_leaves.push_back(leaf);
      if (!is_array_like(leaf)) {
        zeros.push_back(leaf);
        tangent_leaves.push_back(Value());
        continue;
      }
      ArrayRef like = leaf_array(evaluator, leaf);
      zeros.push_back(Value(zeros_placed_like(evaluator, like)));
      tangent_leaves.push_back(zeros.back());
    }
    tangents.push_back(tree_unflatten(evaluator, def, zeros));
  }
  rule_args.push_back(make_tuple(primals));
  rule_args.push_back(make_tuple(tangents));
  Value result = evaluator.call(jvp, rule_args);
  if (is_unknown(result)) return result;  // check mode could not follow the rule
  auto* pair = result.as<TupleObject>();
  std::vector<Value> items = pair ? pair->items : result.as<ListObject>() ? evaluator.to_vector(result) : std::vector<Value>{};
  if (items.size() != 2)
    raise(exc::TypeError(), "Custom JVP rule must produce a pair (list or tuple of length two) representing primal and "
                            "tangent outputs, but got " + evaluator.repr(result) + ".");
  TreeDef out_def, tangent_def;
  std::vector<Value> out_leaves = tree_flatten(evaluator, items[0], out_def);
  std::vector<Value> tangent_out = tree_flatten(evaluator, items[1], tangent_def);
  if (!(out_def == tangent_def))
    raise(exc::TypeError(), "Custom JVP rule " + qualified_name(jvp) + " for function " + qualified_name(function) +
                                " must produce primal and tangent outputs with equal container (pytree) structures, "
                                "but got PyTreeDef(" + out_def.str(evaluator) + ") and PyTreeDef(" +
                                tangent_def.str(evaluator) + ") respectively.");
  std::vector<int> outputs = region_outputs(evaluator, trace, begin, out_leaves);
  CustomRegion region{begin, trace.program->equations.size(), level, input_variables(evaluator, trace, primal_leaves),
                      outputs, nullptr};
  region.rule = std::make_shared<JvpRegionRule>(input_variables(evaluator, trace, tangent_leaves),
                                                input_variables(evaluator, trace, tangent_out));
  trace.regions.push_back(std::move(region));
  return tree_unflatten(evaluator, out_def, out_leaves);
}

Value CustomFunction::call_vjp_rule(Evaluator& evaluator, JitTrace& trace, int level, const std::vector<Value>& args) {
  if (fwd.is_none())
    raise(exc::AttributeError(), "No VJP defined for custom_vjp function " + qualified_name(function) + " using defvjp.");
  VjpRuleData data;
  data.bwd = bwd;
  data.name = qualified_name(function);
  std::vector<Value> input_leaves;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (nondiff.count(static_cast<std::int64_t>(i))) {
      data.nondiff.push_back(args[i]);
      continue;
    }
    data.arg_defs.emplace_back();
    for (auto& leaf : tree_flatten(evaluator, args[i], data.arg_defs.back())) input_leaves.push_back(leaf);
  }
  std::size_t begin = trace.program->equations.size();
  Value result;
  {
    RuleRunning running(trace);
    result = evaluator.call(fwd, args);
  }
  if (is_unknown(result)) return result;  // check mode could not follow the rule
  auto* pair = result.as<TupleObject>();
  std::vector<Value> items = pair ? pair->items : result.as<ListObject>() ? evaluator.to_vector(result) : std::vector<Value>{};
  if (items.size() != 2)
    raise(exc::TypeError(), "Custom VJP fwd rule " + qualified_name(fwd) + " for function " + data.name +
                                " must produce a pair (list or tuple of length two) where the first element represents "
                                "the primal output (equal to the output of the custom_vjp-decorated function " +
                                data.name + ") and the second element represents residuals (i.e. values stored from "
                                "the forward pass for use on the backward pass), but got " + evaluator.repr(result) + ".");
  std::vector<Value> out_leaves = tree_flatten(evaluator, items[0], data.out_def);
  data.residual_leaves = tree_flatten(evaluator, items[1], data.residual_def);
  data.residual_variables = input_variables(evaluator, trace, data.residual_leaves);
  std::vector<int> outputs = region_outputs(evaluator, trace, begin, out_leaves);
  CustomRegion region{begin, trace.program->equations.size(), level, input_variables(evaluator, trace, input_leaves),
                      outputs, std::make_shared<VjpRegionRule>(std::move(data))};
  trace.regions.push_back(std::move(region));
  TreeDef out_def;
  tree_flatten(evaluator, items[0], out_def);
  return tree_unflatten(evaluator, out_def, out_leaves);
}

// defjvps's rule: each argument's JVP (None: zero) of its tangent, summed.
Value jvps_rule(Evaluator& evaluator, const Value& self, const std::vector<Value>& jvps, const Value& primals,
                const Value& tangents) {
  std::vector<Value> primal_args = evaluator.to_vector(primals);
  Value primal_out = evaluator.call(self, primal_args);
  std::vector<Value> tangent_args = evaluator.to_vector(tangents);
  Value total;
  for (std::size_t k = 0; k < jvps.size() && k < tangent_args.size(); ++k) {
    if (jvps[k].is_none()) continue;
    std::vector<Value> call_args{tangent_args[k], primal_out};
    call_args.insert(call_args.end(), primal_args.begin(), primal_args.end());
    Value out = evaluator.call(jvps[k], call_args);
    if (total.is_none()) {
      total = out;
      continue;
    }
    Value trees[] = {total, out};
    std::vector<std::vector<Value>> columns;
    std::optional<TreeDef> def = tree_zip(evaluator, trees, columns);
    if (!def) raise(exc::TypeError(), "defjvps: the JVPs of the arguments must have the output's structure");
    std::vector<Value> sums;
    for (const auto& column : columns) sums.push_back(evaluator.binary(lang::ast::BinaryOperator::add, column[0], column[1]));
    total = tree_unflatten(evaluator, *def, sums);
  }
  if (total.is_none())
    total = tree_map(evaluator, primal_out, [&](const Value& leaf) {
      ArrayRef like = leaf_array(evaluator, leaf);
      return Value(zeros_placed_like(evaluator, like));
    });
  return make_tuple({primal_out, total});
}

std::optional<Value> CustomFunction::get_attribute(Evaluator& evaluator, const std::string& name) {
  auto self = std::static_pointer_cast<CustomFunction>(shared_from_this());
  if (name == "fun" || name == "__wrapped__") return function;
  if (name == "nondiff_argnums") {
    std::vector<Value> items;
    for (auto argnum : nondiff) items.push_back(Value::integer(argnum));
    return make_tuple(std::move(items));
  }
  if (name == "__name__" || name == "__qualname__" || name == "__doc__") return evaluator.get_attribute(function, name);
  if (is_jvp && name == "jvp") return jvp;
  if (!is_jvp && (name == "fwd" || name == "bwd")) return name == "fwd" ? fwd : bwd;
  if (is_jvp && name == "defjvp")
    return Value(native("defjvp(jvp, symbolic_zeros=False)", [self](Evaluator&, Arguments& a) {
      self->jvp = a[0];
      return a[0];
    }));
  if (is_jvp && name == "defjvps")
    return Value(native("defjvps(*jvps)", [self](Evaluator&, Arguments& a) {
      std::vector<Value> jvps = a[0].as<TupleObject>()->items;
      // Weak: the function holds this rule, and a strong reference back
      // would be a cycle that never frees.
      std::weak_ptr<Object> owner = self;
      self->jvp = Value(native("jvp(primals, tangents)", [owner, jvps](Evaluator& ev, Arguments& b) {
        ObjectRef function = owner.lock();
        if (!function) raise(exc::RuntimeError(), "defjvps: the custom_jvp function of this rule no longer exists");
        return jvps_rule(ev, Value(function), jvps, b[0], b[1]);
      }));
      return Value();
    }));
  if (!is_jvp && name == "defvjp")
    return Value(native("defvjp(fwd, bwd, symbolic_zeros=False, optimize_remat=False)", [self](Evaluator&, Arguments& a) {
      self->fwd = a[0];
      self->bwd = a[1];
      return Value();
    }));
  return std::nullopt;
}

std::set<std::int64_t> nondiff_argnums(Evaluator& evaluator, const Value& value) {
  std::set<std::int64_t> out;
  if (value.is_int()) out.insert(value.as_int());
  else
    for (const auto& item : evaluator.to_vector(value)) out.insert(evaluator.index_of(item));
  return out;
}

}  // namespace

void install_custom_derivatives(Evaluator& evaluator) {
  auto jax = evaluator.module("jax");
  jax->add_function("custom_jvp(fun, nondiff_argnums=())", [](Evaluator& ev, Arguments& a) {
    return Value(std::make_shared<CustomFunction>(a[0], nondiff_argnums(ev, a[1]), true));
  });
  jax->add_function("custom_vjp(fun, nondiff_argnums=())", [](Evaluator& ev, Arguments& a) {
    return Value(std::make_shared<CustomFunction>(a[0], nondiff_argnums(ev, a[1]), false));
  });
}

}  // namespace interp
