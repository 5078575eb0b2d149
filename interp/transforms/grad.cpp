// jax.grad / jax.value_and_grad (grad.hpp).
#include "interp/transforms/grad.hpp"
#include "interp/transforms/reverse_mode.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "interp/python/builtins.hpp"
#include "interp/transforms/check_mode.hpp"
#include "interp/transforms/costing.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/ops/vjp_support.hpp"
#include "interp/transforms/trace.hpp"
#include "interp/library/tree_module.hpp"
#include "interp/transforms/wrapping_function.hpp"

namespace interp {

using typecheck::DType;

namespace {

ArrayRef as_array(const Value& value) { return std::static_pointer_cast<ArrayObject>(value.object()); }

using vjp::add;
using vjp::convert;
using vjp::scalar;

struct GradOptions {
  std::vector<std::int64_t> argnums;
  bool single_argnum = true;
  bool has_aux = false;
  bool with_value = false;  // value_and_grad
};

// Differentiates `function` at `args` (grad.hpp).
Value differentiate(Evaluator& evaluator, const Value& function, CallArgs args, const GradOptions& options) {
  auto lin = trace_at(evaluator, function, std::move(args), options.argnums, true);
  if (is_unknown(lin->returned)) return lin->returned;  // check mode could not follow the function
  auto [out, aux] = split_aux(lin->returned, options.has_aux);
  if (!out.as<ArrayObject>() && !out.is_number())
    raise(exc::TypeError(), "Gradient only defined for scalar-output functions. Output was " + evaluator.repr(out) + ".");
  ArrayRef out_array = out.as<ArrayObject>() ? as_array(out) : to_array(evaluator, out);
  if (!out_array->aval.shape.empty())
    raise(exc::TypeError(), "Gradient only defined for scalar-output functions. Output had shape: " +
                                out_array->aval.str().substr(out_array->aval.str().find('[')) + ".");
  if (!typecheck::is_floating(out_array->aval.dtype))
    raise(exc::TypeError(), "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got " +
                                std::string(typecheck::long_name(out_array->aval.dtype)) + ".");
  int out_variable = lin->trace->variable_of(out_array);
  TreeDef aux_def;
  std::vector<Value> aux_leaves = tree_flatten(evaluator, aux, aux_def);
  for (const auto& leaf : aux_leaves)
    if (leaf.as<ArrayObject>()) lin->trace->variable_of(as_array(leaf));
  replay_forward(evaluator, *lin);

  std::map<int, ArrayRef> cotangents;
  if (lin->active.count(out_variable)) cotangents[out_variable] = convert(evaluator, scalar(evaluator, 1.0), out_array->aval.dtype);
  std::vector<Value> trees = backward(evaluator, *lin, std::move(cotangents));
  Value grads = options.single_argnum ? trees.at(0) : make_tuple(std::move(trees));

  Value value(lin->values.count(out_variable) ? Value(lin->values.at(out_variable)) : Value(out_array));
  if (!options.has_aux) return options.with_value ? make_tuple({value, grads}) : grads;
  Value aux_value = forward_tree(evaluator, *lin, aux);
  return options.with_value ? make_tuple({make_tuple({value, aux_value}), grads}) : make_tuple({grads, aux_value});
}

// jax.vjp(fun, *primals, has_aux): the outputs and a function from their
// cotangents to the primals' (each call walks the program backwards).
Value vector_jacobian(Evaluator& evaluator, const Value& function, const std::vector<Value>& primals, bool has_aux) {
  std::vector<std::int64_t> argnums;
  for (std::size_t i = 0; i < primals.size(); ++i) argnums.push_back(static_cast<std::int64_t>(i));
  auto lin = trace_at(evaluator, function, CallArgs{primals, {}}, argnums, false);
  auto [out, aux] = split_aux(lin->returned, has_aux);
  TreeDef out_def;
  std::vector<Value> out_leaves = tree_flatten(evaluator, out, out_def);
  std::vector<int> out_variables;
  std::vector<typecheck::DType> out_dtypes;
  for (auto& leaf : out_leaves) {
    if (!is_array_like(leaf))
      raise(exc::TypeError(), "vjp: the function returned " + evaluator.repr(leaf) + ", which is not a valid JAX type");
    ArrayRef array = leaf.as<ArrayObject>() ? as_array(leaf) : to_array(evaluator, leaf);
    out_variables.push_back(lin->trace->variable_of(array));
    out_dtypes.push_back(array->aval.dtype);
  }
  TreeDef aux_def;
  for (const auto& leaf : tree_flatten(evaluator, aux, aux_def))
    if (leaf.as<ArrayObject>()) lin->trace->variable_of(as_array(leaf));
  replay_forward(evaluator, *lin);
  std::vector<Value> out_values;
  for (int variable : out_variables) out_values.push_back(Value(lin->values.at(variable)));
  Value primals_out = tree_unflatten(evaluator, out_def, out_values);
  Value vjp_fun(native("vjp_fun(ct)", [lin, out_def, out_variables, out_dtypes](Evaluator& ev, Arguments& a) {
    TreeDef ct_def;
    std::vector<Value> ct_leaves = tree_flatten(ev, a[0], ct_def);
    if (!(ct_def == out_def))
      raise(exc::ValueError(), "unexpected tree structure.\n\nThe argument to a VJP function returned by `jax.vjp` must "
                               "match the pytree structure of the differentiated function.\n\nBut the tree structures "
                               "differ: the output was PyTreeDef(" + out_def.str(ev) + "), the argument is PyTreeDef(" +
                                   ct_def.str(ev) + ").");
    std::map<int, ArrayRef> cotangents;
    for (std::size_t k = 0; k < ct_leaves.size(); ++k) {
      ArrayRef given = to_array(ev, ct_leaves[k]);
      const typecheck::ArrayType& expected = lin->trace->program->variable_types.at(static_cast<std::size_t>(out_variables[k]));
      if (given->aval.shape != expected.shape)
        raise(exc::ValueError(), "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got " +
                                     given->aval.short_str() + ", but expected " + expected.short_str() +
                                     " because the corresponding output of the differentiated function had JAX type " +
                                     expected.short_str());
      if (!lin->active.count(out_variables[k])) continue;
      ArrayRef ct = convert(ev, given, out_dtypes[k]);
      auto& slot = cotangents[out_variables[k]];
      slot = slot ? add(ev, slot, ct) : ct;
    }
    return make_tuple(backward(ev, *lin, std::move(cotangents)));
  }));
  if (!has_aux) return make_tuple({primals_out, vjp_fun});
  return make_tuple({primals_out, vjp_fun, forward_tree(evaluator, *lin, aux)});
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
  jax->add_function("vjp(fun, *primals, has_aux=False)", [](Evaluator& ev, Arguments& a) {
    return vector_jacobian(ev, a[0], a[1].as<TupleObject>()->items, ev.truthy(a[2]));
  });
  install_linear_transpose(evaluator);
  for (bool with_value : {false, true}) {
    std::string name = with_value ? "value_and_grad" : "grad";
    jax->add_function(name + "(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False)",
                      [with_value, name](Evaluator& ev, Arguments& a) {
                        Value function = a[0];
                        GradOptions options = grad_options(ev, a[1], a[2], with_value);
                        return wrapping_function(ev, function, [function, options](Evaluator& e, CallArgs call) {
                          return differentiate(e, function, std::move(call), options);
                        });
                      });
  }
}

}  // namespace interp
