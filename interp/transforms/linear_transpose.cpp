// jax.linear_transpose (grad.hpp): the function traced at its primals as
// jax.vjp traces it (a ShapeDtypeStruct, or any leaf with .shape and
// .dtype, stands for zeros of its type: only the values that do not depend
// on the inputs are read); each call of the transposed function checks the
// program is linear in its inputs, as JAX's backward pass does (a primitive
// with no transpose rule raises), and walks it backwards from the given
// cotangents through the VJP rules.
#include <set>

#include "interp/library/tree_module.hpp"
#include "interp/ops/shaped_array.hpp"
#include "interp/ops/vjp_support.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/eval_shape.hpp"
#include "interp/transforms/grad.hpp"
#include "interp/transforms/reverse_mode.hpp"

namespace interp {

namespace {

ArrayRef as_array(const Value& value) { return std::static_pointer_cast<ArrayObject>(value.object()); }

// How a primitive is linear, as JAX's transpose rules take its operands.
enum class Linearity {
  nonlinear,  // no transpose rule: NotImplementedError
  linear,     // linear in the operands `linear_in` allows; the others must not depend on the inputs
  bilinear,   // mul, dot_general, conv: linear in either operand, not both
  numerator,  // div: linear in the first operand only
};

struct LinearForm {
  Linearity kind = Linearity::nonlinear;
  std::vector<std::size_t> only = {};  // linear: the operands it is linear in (empty: all)
};

LinearForm linear_form(const Equation& e) {
  static const std::set<std::string_view> linear = {
      "add", "subtract", "negative", "convert_element_type", "copy", "reshape", "transpose", "broadcast_in_dim",
      "reduce_sum", "reduce_mean", "rev", "slice", "concatenate", "cumsum", "device_put", "sharding_constraint",
      "reduce_precision", "name", "optimization_barrier", "stop_gradient", "psum", "pmean", "all_gather", "all_to_all",
      "ppermute", "psum_scatter", "pvary", "preduced", "reduced_vary_cast", "vary_unreduced_cast", "shard_map_enter",
      "shard_map_exit", "reduce_window_sum", "update_slice"};
  const std::string_view name = e.primitive->name;
  if (linear.count(name)) return {Linearity::linear};
  if (name == "multiply" || name == "dot_general" || name == "conv_general_dilated") return {Linearity::bilinear};
  if (name == "divide" || name == "true_divide") return {Linearity::numerator};
  if (name == "select_n") {
    LinearForm form{Linearity::linear};
    for (std::size_t i = 1; i < e.inputs.size(); ++i) form.only.push_back(i);
    return form;
  }
  if (name == "dynamic_slice" || name == "gather" || name == "select_and_gather_add" || name == "select_and_scatter_add")
    return {Linearity::linear, {0}};
  if (name == "dynamic_update_slice") return {Linearity::linear, {0, 1}};
  if (name == "scatter") {
    const std::string* method = e.params.get<std::string>("method");
    if (method && (*method == "set" || *method == "add")) return {Linearity::linear, {0, 2}};
  }
  return {};
}

// JAX's backward pass over the equations the outputs need, last first: an
// equation with an operand that depends on the inputs must be linear in it.
void check_linear(const Linearization& lin, const std::vector<int>& outputs) {
  const Jaxpr& program = *lin.trace->program;
  std::set<int> live(outputs.begin(), outputs.end());
  for (std::size_t i = program.equations.size(); i-- > 0;) {
    const Equation& e = program.equations[i];
    if (!live.count(e.output)) continue;
    live.insert(e.inputs.begin(), e.inputs.end());
    std::vector<std::size_t> active;
    for (std::size_t k = 0; k < e.inputs.size(); ++k)
      if (lin.active.count(e.inputs[k])) active.push_back(k);
    if (active.empty()) continue;
    const LinearForm form = linear_form(e);
    switch (form.kind) {
      case Linearity::nonlinear:
        raise(exc::NotImplementedError(), "Transpose rule (for reverse-mode differentiation) for '" +
                                              std::string(e.primitive->lax.name) + "' not implemented");
      case Linearity::bilinear:
        if (active.size() > 1) raise(exc::AssertionError(), "");  // JAX's assert: linear in one of them only
        break;
      case Linearity::numerator:
        if (active[0] != 0) raise(exc::AssertionError(), "");  // JAX's assert: the numerator is the linear one
        if (active.size() > 1) raise(exc::RuntimeError(), "nonlinear div can't be transposed");
        break;
      case Linearity::linear:
        for (std::size_t k : active)
          if (!form.only.empty() && std::find(form.only.begin(), form.only.end(), k) == form.only.end())
            raise(exc::AssertionError(), "");  // JAX's assert: an index or predicate is not linear
        break;
    }
  }
}

// A primal leaf as the array the function is traced at: arrays and Python
// scalars as they are, a ShapeDtypeStruct or a value with .shape and
// .dtype as zeros of that type.
Value primal_leaf(Evaluator& evaluator, const Value& leaf) {
  if (leaf.as<ArrayObject>() || leaf.is_number()) return leaf;
  if (auto abstract = shape_dtype_struct_array(evaluator, leaf)) return Value(zeros_placed_like(evaluator, *abstract));
  auto shape = evaluator.find_attribute(leaf, "shape");
  auto dtype = evaluator.find_attribute(leaf, "dtype");
  if (shape && dtype) return evaluator.call(*evaluator.module("jax.numpy")->find("zeros"), {*shape, *dtype});
  return leaf;
}

std::string dtype_list(const std::vector<typecheck::DType>& dtypes) {
  std::string out = "[";
  for (std::size_t i = 0; i < dtypes.size(); ++i) out += (i ? ", dtype('" : "dtype('") + std::string(typecheck::long_name(dtypes[i])) + "')";
  return out + "]";
}

// The traced function, its outputs and their structure.
struct Traced {
  std::shared_ptr<Linearization> lin;
  TreeDef out_def;
  std::vector<ArrayRef> outputs;
  std::vector<int> out_variables;
};

// The transposed function's work: JAX's checks of the cotangent, the
// linearity check, then the backward walk; the primals' cotangents as a tuple.
Value transpose_call(Evaluator& evaluator, const Traced& traced, const Value& out_cotangent) {
  const Linearization& lin = *traced.lin;
  TreeDef ct_def;
  std::vector<Value> ct_leaves = tree_flatten(evaluator, out_cotangent, ct_def);
  if (!(ct_def == traced.out_def))
    raise(exc::TypeError(), "cotangent tree does not match function output, expected PyTreeDef(" + traced.out_def.str(evaluator) +
                                ") but got PyTreeDef(" + ct_def.str(evaluator) + ")");
  std::vector<ArrayRef> given;
  bool matches = true;
  for (std::size_t k = 0; k < ct_leaves.size(); ++k) {
    given.push_back(is_array_like(ct_leaves[k]) ? to_array(evaluator, ct_leaves[k]) : nullptr);
    matches = matches && given.back() && given.back()->aval.shape == traced.outputs[k]->aval.shape &&
              given.back()->aval.dtype == traced.outputs[k]->aval.dtype;
  }
  if (!matches) {
    std::vector<Value> avals;
    for (const auto& output : traced.outputs) avals.push_back(shaped_array(output));
    raise(exc::TypeError(), "cotangent type does not match function output, expected " + evaluator.repr(make_list(avals)) +
                                " but got " + evaluator.repr(make_list(ct_leaves)));
  }
  check_linear(lin, traced.out_variables);
  std::map<int, ArrayRef> cotangents;
  for (std::size_t k = 0; k < given.size(); ++k) {
    if (!lin.active.count(traced.out_variables[k])) continue;
    auto& slot = cotangents[traced.out_variables[k]];
    slot = slot ? vjp::add(evaluator, slot, given[k]) : given[k];
  }
  return make_tuple(backward(evaluator, lin, std::move(cotangents), true));
}

Value linear_transpose(Evaluator& evaluator, const Value& function, const std::vector<Value>& primals) {
  std::vector<Value> arguments;
  std::vector<typecheck::DType> in_dtypes, out_dtypes;
  for (const auto& primal : primals)
    arguments.push_back(tree_map(evaluator, primal, [&](const Value& leaf) {
      Value traced = primal_leaf(evaluator, leaf);
      if (is_array_like(traced)) in_dtypes.push_back(to_array(evaluator, traced)->aval.dtype);
      return traced;
    }));
  std::vector<std::int64_t> argnums;
  for (std::size_t i = 0; i < arguments.size(); ++i) argnums.push_back(static_cast<std::int64_t>(i));
  auto traced = std::make_shared<Traced>();
  traced->lin = trace_at(evaluator, function, CallArgs{arguments, {}}, argnums, false);
  for (const auto& leaf : tree_flatten(evaluator, traced->lin->returned, traced->out_def)) {
    if (!is_array_like(leaf))
      raise(exc::TypeError(), "linear_transpose: the function returned " + evaluator.repr(leaf) + ", which is not a valid JAX type");
    ArrayRef array = leaf.as<ArrayObject>() ? as_array(leaf) : to_array(evaluator, leaf);
    traced->outputs.push_back(array);
    traced->out_variables.push_back(traced->lin->trace->variable_of(array));
    out_dtypes.push_back(array->aval.dtype);
  }
  replay_forward(evaluator, *traced->lin);
  std::vector<typecheck::DType> all = in_dtypes;
  all.insert(all.end(), out_dtypes.begin(), out_dtypes.end());
  if (!std::all_of(all.begin(), all.end(), typecheck::is_floating) && !std::all_of(all.begin(), all.end(), typecheck::is_integer))
    raise(exc::TypeError(), "linear_transpose only supports [float or complex] -> [float or complex], and integer -> "
                            "integer functions, but got " + dtype_list(in_dtypes) + " -> " + dtype_list(out_dtypes) + ".");
  // A jax.tree_util.Partial, as JAX's: a pytree that jit takes as an argument.
  Value transposed(native("transposed_fun(out_cotangent)", [traced](Evaluator& ev, Arguments& a) {
    return transpose_call(ev, *traced, a[0]);
  }));
  return evaluator.call(*evaluator.module("jax.tree_util")->find("Partial"), {transposed});
}

}  // namespace

void install_linear_transpose(Evaluator& evaluator) {
  evaluator.module("jax")->add_function("linear_transpose(fun, *primals, reduce_axes=())", [](Evaluator& ev, Arguments& a) {
    if (ev.truthy(a[2])) raise(exc::NotImplementedError(), "reduce_axes argument to transpose is deprecated");
    return linear_transpose(ev, a[0], a[1].as<TupleObject>()->items);
  });
}

}  // namespace interp
