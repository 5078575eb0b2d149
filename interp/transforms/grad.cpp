// jax.grad / jax.value_and_grad (grad.hpp).
#include "interp/transforms/grad.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "interp/python/builtins.hpp"
#include "interp/transforms/costing.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/ops/vjp_support.hpp"
#include "interp/transforms/trace.hpp"
#include "interp/library/tree_module.hpp"

namespace interp {

using typecheck::DType;

namespace {

ArrayRef as_array(const Value& value) { return std::static_pointer_cast<ArrayObject>(value.object()); }

using vjp::add;
using vjp::apply;
using vjp::convert;
using vjp::reshape;
using vjp::scalar;
using vjp::zeros_like;

struct GradOptions {
  std::vector<std::int64_t> argnums;
  bool single_argnum = true;
  bool has_aux = false;
  bool with_value = false;  // value_and_grad
};

// Differentiates `function` at `args` (grad.hpp).
Value differentiate(Evaluator& evaluator, const Value& function, CallArgs args, const GradOptions& options) {
  // The differentiated arguments' leaves become the program's inputs. Run
  // eagerly, the trace also computes values, so a cond takes one branch;
  // under jit or in check mode it only records.
  const bool concrete = evaluator.mode == Evaluator::Mode::run && !tracing_jit(evaluator);
  JitTrace trace(concrete);
  std::vector<ArrayRef> primals;
  std::vector<TreeDef> defs;
  std::vector<std::size_t> first_leaf;
  for (auto argnum : options.argnums) {
    auto position = static_cast<std::size_t>(argnum < 0 ? argnum + static_cast<std::int64_t>(args.positional.size()) : argnum);
    if (position >= args.positional.size())
      raise(exc::TypeError(), "differentiating with respect to argnums=" + std::to_string(argnum) +
                                  " requires at least " + std::to_string(argnum + 1) +
                                  " positional arguments to be passed by the caller, but got only " +
                                  std::to_string(args.positional.size()) + " positional arguments.");
    defs.emplace_back();
    first_leaf.push_back(primals.size());
    std::vector<Value> tracers;
    for (const auto& leaf : tree_flatten(evaluator, args.positional[position], defs.back())) {
      ArrayRef array = leaf.as<ArrayObject>() ? as_array(leaf) : to_array(evaluator, leaf);
      if (!typecheck::is_floating(array->aval.dtype))
        raise(exc::TypeError(), "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
                                "np.inexact), but got " + std::string(typecheck::long_name(array->aval.dtype)) +
                                    ". If you want to use Boolean- or integer-valued inputs, use vjp or set "
                                    "allow_int to True.");
      primals.push_back(array);
      tracers.push_back(Value(trace.add_input(array)));
    }
    args.positional[position] = tree_unflatten(evaluator, defs.back(), tracers);
  }

  Value returned;
  {
    TraceScope scope(evaluator, trace);
    returned = evaluator.call(function, args);
  }
  Value out = returned;
  Value aux;
  if (options.has_aux) {
    auto* pair = returned.as<TupleObject>();
    if (!pair || pair->items.size() != 2)
      raise(exc::ValueError(), "has_aux=True requires the function to return a pair (output, auxiliary data)");
    out = pair->items[0];
    aux = pair->items[1];
  }
  if (!out.as<ArrayObject>() && !out.is_number())
    raise(exc::TypeError(), "Gradient only defined for scalar-output functions. Output was " + evaluator.repr(out) + ".");
  ArrayRef out_array = out.as<ArrayObject>() ? as_array(out) : to_array(evaluator, out);
  if (!out_array->aval.shape.empty())
    raise(exc::TypeError(), "Gradient only defined for scalar-output functions. Output had shape: " +
                                out_array->aval.str().substr(out_array->aval.str().find('[')) + ".");
  if (!typecheck::is_floating(out_array->aval.dtype))
    raise(exc::TypeError(), "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got " +
                                std::string(typecheck::long_name(out_array->aval.dtype)) + ".");
  int out_variable = trace.variable_of(out_array);
  TreeDef aux_def;
  std::vector<Value> aux_leaves = tree_flatten(evaluator, aux, aux_def);
  std::vector<int> aux_variables;
  for (const auto& leaf : aux_leaves)
    aux_variables.push_back(leaf.as<ArrayObject>() ? trace.variable_of(as_array(leaf)) : -1);

  // Forward: the program replayed through the current trace (eagerly, the
  // values the trace computed are taken, and charged as if run now).
  const Jaxpr& program = *trace.program;
  const bool eager = concrete && dynamic_cast<EagerTrace*>(&current_trace(evaluator));
  std::map<int, ArrayRef> values;
  for (std::size_t i = 0; i < program.inputs.size(); ++i) values[program.inputs[i]] = primals[i];
  for (const auto& [variable, constant] : program.constants) values[variable] = constant;
  std::set<int> active(program.inputs.begin(), program.inputs.end());
  for (const auto& e : program.equations) {
    std::vector<ArrayRef> operands;
    bool depends = false;
    for (int input : e.inputs) {
      operands.push_back(values.at(input));
      depends = depends || active.count(input) > 0;
    }
    if (ArrayRef known = eager ? trace.concrete_value(e.output) : nullptr) {
      charge_application(evaluator, *e.primitive, operands, known, e.params, true);
      values[e.output] = known;
    } else {
      values[e.output] = as_array(bind(evaluator, *e.primitive, std::move(operands), e.params));
    }
    if (depends) active.insert(e.output);
  }

  // Backward: cotangents from the output's, in reverse.
  std::map<int, ArrayRef> cotangents;
  if (active.count(out_variable)) {
    ArrayRef one = convert(evaluator, scalar(evaluator, 1.0), out_array->aval.dtype);
    cotangents[out_variable] = one;
  }
  for (auto e = program.equations.rbegin(); e != program.equations.rend(); ++e) {
    auto found_ct = cotangents.find(e->output);
    if (found_ct == cotangents.end()) continue;
    std::vector<ArrayRef> operands;
    std::vector<bool> needs;
    for (int input : e->inputs) {
      operands.push_back(values.at(input));
      needs.push_back(active.count(input) > 0);
    }
    std::vector<ArrayRef> operand_cts =
        e->primitive->vjp({evaluator, operands, e->params, values.at(e->output), found_ct->second, needs, *e->primitive});
    for (std::size_t i = 0; i < e->inputs.size() && i < operand_cts.size(); ++i) {
      if (!needs[i] || !operand_cts[i]) continue;
      ArrayRef ct = vjp::match_vma(evaluator, operands[i], operand_cts[i]);
      auto& slot = cotangents[e->inputs[i]];
      slot = slot ? add(evaluator, slot, ct) : ct;
    }
  }

  // The gradients, in the primals' dtypes and shardings, as the argument trees.
  std::vector<Value> gradients;
  for (std::size_t i = 0; i < primals.size(); ++i) {
    const ArrayRef& primal = primals[i];
    auto found = cotangents.find(program.inputs[i]);
    ArrayRef g = found != cotangents.end() ? found->second : zeros_like(evaluator, primal->aval);
    g = convert(evaluator, reshape(evaluator, g, primal->aval.shape), primal->aval.dtype);
    // The layout, not the type: on an Auto mesh the types show no sharding.
    if (primal->committed && !(g->layout == primal->layout)) {
      Params params;
      params.set("layout", primal->layout);
      g = apply(evaluator, "device_put", {g}, std::move(params));
    }
    gradients.push_back(Value(g));
  }
  std::vector<Value> trees;
  for (std::size_t k = 0; k < defs.size(); ++k) {
    std::size_t end = k + 1 < defs.size() ? first_leaf[k + 1] : gradients.size();
    trees.push_back(tree_unflatten(evaluator, defs[k],
                                   std::span<const Value>(gradients).subspan(first_leaf[k], end - first_leaf[k])));
  }
  Value grads = options.single_argnum ? trees.at(0) : make_tuple(std::move(trees));

  Value value(values.count(out_variable) ? Value(values.at(out_variable)) : Value(out_array));
  if (!options.has_aux) return options.with_value ? make_tuple({value, grads}) : grads;
  for (std::size_t i = 0; i < aux_leaves.size(); ++i)
    if (aux_variables[i] >= 0) aux_leaves[i] = Value(values.at(aux_variables[i]));
  Value aux_value = tree_unflatten(evaluator, aux_def, aux_leaves);
  return options.with_value ? make_tuple({make_tuple({value, aux_value}), grads}) : make_tuple({grads, aux_value});
}

GradOptions grad_options(Evaluator& evaluator, const Value& argnums, const Value& has_aux, bool with_value) {
  GradOptions options;
  options.has_aux = evaluator.truthy(has_aux);
  options.with_value = with_value;
  if (argnums.is_integral()) {
    options.argnums = {argnums.as_int()};
  } else {
    options.single_argnum = false;
    for (const auto& v : evaluator.to_vector(argnums)) options.argnums.push_back(evaluator.index_of(v));
  }
  return options;
}

}  // namespace

void install_grad(Evaluator& evaluator) {
  auto jax = evaluator.module("jax");
  for (bool with_value : {false, true}) {
    std::string name = with_value ? "value_and_grad" : "grad";
    jax->add_function(name + "(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False)",
                      [with_value, name](Evaluator& ev, Arguments& a) {
                        Value function = a[0];
                        GradOptions options = grad_options(ev, a[1], a[2], with_value);
                        return Value(native(name + "_fun(*args, **kwargs)", [function, options](Evaluator& e, Arguments& b) {
                          CallArgs call{b[0].as<TupleObject>()->items, {}};
                          if (auto* kwargs = b[1].as<DictObject>())
                            for (const auto& entry : kwargs->table.entries())
                              if (entry.live) call.keywords.emplace_back(e.str(entry.key), entry.value);
                          return differentiate(e, function, std::move(call), options);
                        }));
                      });
  }
}

}  // namespace interp
