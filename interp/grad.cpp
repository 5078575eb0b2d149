// jax.grad / jax.value_and_grad and the VJP rules (grad.hpp).
#include "interp/grad.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "interp/builtins.hpp"
#include "interp/primitives.hpp"
#include "interp/trace.hpp"
#include "interp/tree_module.hpp"

namespace interp {

using typecheck::DType;

namespace {

ArrayRef as_array(const Value& value) { return std::static_pointer_cast<ArrayObject>(value.object()); }

ArrayRef apply(Evaluator& evaluator, std::string_view name, std::vector<ArrayRef> operands, Params params = {}) {
  return as_array(bind(evaluator, primitive(name), std::move(operands), std::move(params)));
}

// A weak-typed Python scalar, as `2.0 * x` writes one.
ArrayRef scalar(Evaluator& evaluator, double value) { return to_array(evaluator, Value::floating(value)); }

ArrayRef add(Evaluator& ev, const ArrayRef& a, const ArrayRef& b) { return apply(ev, "add", {a, b}); }
ArrayRef sub(Evaluator& ev, const ArrayRef& a, const ArrayRef& b) { return apply(ev, "subtract", {a, b}); }
ArrayRef mul(Evaluator& ev, const ArrayRef& a, const ArrayRef& b) { return apply(ev, "multiply", {a, b}); }
ArrayRef div(Evaluator& ev, const ArrayRef& a, const ArrayRef& b) { return apply(ev, "divide", {a, b}); }
ArrayRef neg(Evaluator& ev, const ArrayRef& a) { return apply(ev, "negative", {a}); }
ArrayRef mul(Evaluator& ev, const ArrayRef& a, double b) { return mul(ev, a, scalar(ev, b)); }
ArrayRef add(Evaluator& ev, const ArrayRef& a, double b) { return add(ev, a, scalar(ev, b)); }

ArrayRef convert(Evaluator& ev, const ArrayRef& a, DType dtype) {
  if (a->aval.dtype == dtype && !a->aval.weak_type) return a;
  Params params;
  params.set("new_dtype", std::string(typecheck::long_name(dtype)));
  return apply(ev, "convert_element_type", {a}, std::move(params));
}

ArrayRef reduce_sum(Evaluator& ev, const ArrayRef& a, std::vector<std::int64_t> axes) {
  if (axes.empty()) return a;
  Params params;
  params.set("axes", std::move(axes));
  params.set("keepdims", false);
  return apply(ev, "reduce_sum", {a}, std::move(params));
}

ArrayRef reshape(Evaluator& ev, const ArrayRef& a, const typecheck::Shape& shape) {
  if (a->aval.shape == shape) return a;
  Params params;
  params.set("new_sizes", std::vector<std::int64_t>(shape.begin(), shape.end()));
  return apply(ev, "reshape", {a}, std::move(params));
}

ArrayRef broadcast(Evaluator& ev, const ArrayRef& a, const typecheck::Shape& shape, std::vector<std::int64_t> dims) {
  if (a->aval.shape == shape) return a;
  Params params;
  params.set("shape", std::vector<std::int64_t>(shape.begin(), shape.end()));
  params.set("broadcast_dimensions", std::move(dims));
  return apply(ev, "broadcast_in_dim", {a}, std::move(params));
}

ArrayRef zeros_like(Evaluator& ev, const typecheck::ArrayType& type) {
  return broadcast(ev, convert(ev, scalar(ev, 0.0), type.dtype), type.shape, {});
}

// The cotangent of an operand that elementwise broadcasting stretched to
// the cotangent's shape: summed back over the stretched dimensions.
ArrayRef unbroadcast(Evaluator& ev, const ArrayRef& ct, const ArrayRef& operand) {
  const auto& target = operand->aval.shape;
  const auto& have = ct->aval.shape;
  if (have == target) return ct;
  std::size_t lead = have.size() - target.size();
  std::vector<std::int64_t> axes;
  for (std::size_t d = 0; d < lead; ++d) axes.push_back(static_cast<std::int64_t>(d));
  for (std::size_t d = 0; d < target.size(); ++d)
    if (target[d] == 1 && have[lead + d] != 1) axes.push_back(static_cast<std::int64_t>(lead + d));
  return reshape(ev, reduce_sum(ev, ct, axes), target);
}

// 0/1 (as `dtype`) where the comparison `name` holds.
ArrayRef indicator(Evaluator& ev, std::string_view name, const ArrayRef& a, const ArrayRef& b, DType dtype) {
  return convert(ev, apply(ev, name, {a, b}), dtype);
}

const std::vector<std::int64_t>* int_param(const Params& params, std::string_view name) {
  return params.get<std::vector<std::int64_t>>(name);
}

// The reduced axes of a reduction (absent: all).
std::vector<std::int64_t> reduced_axes(const Params& params, std::size_t ndim) {
  std::vector<std::int64_t> axes;
  if (const auto* given = int_param(params, "axes")) {
    for (auto a : *given) axes.push_back(a < 0 ? a + static_cast<std::int64_t>(ndim) : a);
  } else {
    for (std::size_t d = 0; d < ndim; ++d) axes.push_back(static_cast<std::int64_t>(d));
  }
  return axes;
}

// A reduction's result (or cotangent) broadcast back to the operand's shape.
ArrayRef expand_reduced(Evaluator& ev, const ArrayRef& reduced, const ArrayRef& operand, const Params& params) {
  std::size_t ndim = operand->aval.ndim();
  auto axes = reduced_axes(params, ndim);
  const bool* keepdims = params.get<bool>("keepdims");
  std::vector<std::int64_t> kept;
  for (std::size_t d = 0; d < ndim; ++d)
    if ((keepdims && *keepdims) || std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) == axes.end())
      kept.push_back(static_cast<std::int64_t>(d));
  return broadcast(ev, reduced, operand->aval.shape, kept);
}

double reduced_count(const ArrayRef& operand, const Params& params) {
  double count = 1;
  for (auto a : reduced_axes(params, operand->aval.ndim())) count *= static_cast<double>(operand->aval.shape[static_cast<std::size_t>(a)]);
  return count;
}

// A VJP rule: the operands' cotangents (null: none) from the result's.
// `needs[i]` says whether operand i needs one.
using Operands = std::vector<ArrayRef>;
using Rule = Operands (*)(Evaluator& ev, const Operands& x, const Params& params, const ArrayRef& result,
                          const ArrayRef& ct, const std::vector<bool>& needs);

Operands add_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef&, const ArrayRef& ct,
                 const std::vector<bool>&) {
  return {unbroadcast(ev, ct, x[0]), unbroadcast(ev, ct, x[1])};
}
Operands subtract_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef&, const ArrayRef& ct,
                      const std::vector<bool>& needs) {
  return {unbroadcast(ev, ct, x[0]), needs[1] ? unbroadcast(ev, neg(ev, ct), x[1]) : nullptr};
}
Operands multiply_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef&, const ArrayRef& ct,
                      const std::vector<bool>& needs) {
  return {needs[0] ? unbroadcast(ev, mul(ev, ct, x[1]), x[0]) : nullptr,
          needs[1] ? unbroadcast(ev, mul(ev, ct, x[0]), x[1]) : nullptr};
}
Operands divide_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef& result, const ArrayRef& ct,
                    const std::vector<bool>& needs) {
  return {needs[0] ? unbroadcast(ev, div(ev, ct, x[1]), x[0]) : nullptr,
          needs[1] ? unbroadcast(ev, neg(ev, div(ev, mul(ev, ct, result), x[1])), x[1]) : nullptr};
}
// max/min: the cotangent goes to the chosen operand, split evenly on ties (as JAX).
template <bool is_max>
Operands extremum_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef& result, const ArrayRef& ct,
                      const std::vector<bool>&) {
  DType dtype = result->aval.dtype;
  ArrayRef first = add(ev, indicator(ev, is_max ? "greater" : "less", x[0], x[1], dtype),
                       mul(ev, indicator(ev, "equal", x[0], x[1], dtype), 0.5));
  ArrayRef second = sub(ev, convert(ev, scalar(ev, 1.0), dtype), first);
  return {unbroadcast(ev, mul(ev, ct, first), x[0]), unbroadcast(ev, mul(ev, ct, second), x[1])};
}
Operands power_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef& result, const ArrayRef& ct,
                   const std::vector<bool>& needs) {
  ArrayRef dx, dy;
  if (needs[0]) {
    ArrayRef lowered = apply(ev, "power", {x[0], sub(ev, x[1], scalar(ev, 1.0))});
    dx = unbroadcast(ev, mul(ev, ct, mul(ev, x[1], lowered)), x[0]);
  }
  if (needs[1]) dy = unbroadcast(ev, mul(ev, ct, mul(ev, apply(ev, "log", {x[0]}), result)), x[1]);
  return {dx, dy};
}

// Unary rules: the derivative from the operand and the result.
using Derivative = ArrayRef (*)(Evaluator& ev, const ArrayRef& x, const ArrayRef& y);
template <Derivative derivative>
Operands unary_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef& result, const ArrayRef& ct,
                   const std::vector<bool>&) {
  return {mul(ev, ct, derivative(ev, x[0], result))};
}
ArrayRef d_exp(Evaluator&, const ArrayRef&, const ArrayRef& y) { return y; }
ArrayRef d_log(Evaluator& ev, const ArrayRef& x, const ArrayRef&) { return div(ev, scalar(ev, 1.0), x); }
ArrayRef d_log1p(Evaluator& ev, const ArrayRef& x, const ArrayRef&) { return div(ev, scalar(ev, 1.0), add(ev, x, 1.0)); }
ArrayRef d_expm1(Evaluator& ev, const ArrayRef&, const ArrayRef& y) { return add(ev, y, 1.0); }
ArrayRef d_sqrt(Evaluator& ev, const ArrayRef&, const ArrayRef& y) { return div(ev, scalar(ev, 0.5), y); }
ArrayRef d_rsqrt(Evaluator& ev, const ArrayRef& x, const ArrayRef& y) { return mul(ev, div(ev, y, x), -0.5); }
ArrayRef d_square(Evaluator& ev, const ArrayRef& x, const ArrayRef&) { return mul(ev, x, 2.0); }
ArrayRef d_tanh(Evaluator& ev, const ArrayRef&, const ArrayRef& y) { return sub(ev, scalar(ev, 1.0), mul(ev, y, y)); }
ArrayRef d_tan(Evaluator& ev, const ArrayRef&, const ArrayRef& y) { return add(ev, mul(ev, y, y), 1.0); }
ArrayRef d_sin(Evaluator& ev, const ArrayRef& x, const ArrayRef&) { return apply(ev, "cos", {x}); }
ArrayRef d_cos(Evaluator& ev, const ArrayRef& x, const ArrayRef&) { return neg(ev, apply(ev, "sin", {x})); }
ArrayRef d_abs(Evaluator& ev, const ArrayRef& x, const ArrayRef&) { return apply(ev, "sign", {x}); }

Operands negative_vjp(Evaluator& ev, const Operands&, const Params&, const ArrayRef&, const ArrayRef& ct,
                      const std::vector<bool>&) {
  return {neg(ev, ct)};
}
Operands zero_vjp(Evaluator&, const Operands& x, const Params&, const ArrayRef&, const ArrayRef&,
                  const std::vector<bool>&) {
  return Operands(x.size());
}
Operands identity_vjp(Evaluator&, const Operands& x, const Params&, const ArrayRef&, const ArrayRef& ct,
                      const std::vector<bool>&) {
  Operands out(x.size());
  out[0] = ct;
  return out;
}
Operands convert_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef&, const ArrayRef& ct,
                     const std::vector<bool>&) {
  if (!typecheck::is_floating(x[0]->aval.dtype)) return {nullptr};
  return {convert(ev, ct, x[0]->aval.dtype)};
}
Operands reduce_sum_vjp(Evaluator& ev, const Operands& x, const Params& params, const ArrayRef&, const ArrayRef& ct,
                        const std::vector<bool>&) {
  return {expand_reduced(ev, ct, x[0], params)};
}
Operands reduce_mean_vjp(Evaluator& ev, const Operands& x, const Params& params, const ArrayRef&, const ArrayRef& ct,
                         const std::vector<bool>&) {
  return {mul(ev, expand_reduced(ev, ct, x[0], params), 1.0 / reduced_count(x[0], params))};
}
// max/min reductions: shared evenly among the elements equal to the result.
Operands reduce_extremum_vjp(Evaluator& ev, const Operands& x, const Params& params, const ArrayRef& result,
                             const ArrayRef& ct, const std::vector<bool>&) {
  ArrayRef mask = indicator(ev, "equal", x[0], expand_reduced(ev, result, x[0], params), x[0]->aval.dtype);
  Params sum_params;
  for (const auto& entry : params.entries) sum_params.entries.push_back(entry);
  ArrayRef ties = apply(ev, "reduce_sum", {mask}, std::move(sum_params));
  return {mul(ev, mask, expand_reduced(ev, div(ev, ct, ties), x[0], params))};
}
Operands reshape_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef&, const ArrayRef& ct,
                     const std::vector<bool>&) {
  return {reshape(ev, ct, x[0]->aval.shape)};
}
Operands transpose_vjp(Evaluator& ev, const Operands&, const Params& params, const ArrayRef&, const ArrayRef& ct,
                       const std::vector<bool>&) {
  const auto& permutation = *int_param(params, "permutation");
  std::vector<std::int64_t> inverse(permutation.size());
  for (std::size_t i = 0; i < permutation.size(); ++i) inverse[static_cast<std::size_t>(permutation[i])] = static_cast<std::int64_t>(i);
  Params inverse_params;
  inverse_params.set("permutation", std::move(inverse));
  return {apply(ev, "transpose", {ct}, std::move(inverse_params))};
}
Operands broadcast_in_dim_vjp(Evaluator& ev, const Operands& x, const Params& params, const ArrayRef&,
                              const ArrayRef& ct, const std::vector<bool>&) {
  const auto& dims = *int_param(params, "broadcast_dimensions");
  const auto& operand_shape = x[0]->aval.shape;
  std::vector<std::int64_t> axes;
  for (std::size_t d = 0; d < ct->aval.ndim(); ++d) {
    auto found = std::find(dims.begin(), dims.end(), static_cast<std::int64_t>(d));
    if (found == dims.end()) axes.push_back(static_cast<std::int64_t>(d));
    else if (operand_shape[static_cast<std::size_t>(found - dims.begin())] == 1 && ct->aval.shape[d] != 1)
      axes.push_back(static_cast<std::int64_t>(d));
  }
  return {reshape(ev, reduce_sum(ev, ct, axes), operand_shape)};
}
// select_n(which, *cases): each case's cotangent is the result's where
// `which` picks it (a mask product, so mixed shardings combine as in any
// elementwise product).
Operands select_n_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef&, const ArrayRef& ct,
                      const std::vector<bool>& needs) {
  Operands out(x.size());
  DType dtype = ct->aval.dtype;
  for (std::size_t i = 1; i < x.size(); ++i) {
    if (!needs[i]) continue;
    ArrayRef mask = x[0]->aval.dtype == DType::bool_
                        ? convert(ev, x[0], dtype)
                        : indicator(ev, "equal", x[0], to_array(ev, Value::integer(static_cast<std::int64_t>(i - 1))), dtype);
    if (x[0]->aval.dtype == DType::bool_ && i == 1) mask = sub(ev, convert(ev, scalar(ev, 1.0), dtype), mask);
    out[i] = unbroadcast(ev, mul(ev, ct, mask), x[i]);
  }
  return out;
}
// A static slice (x[1:3], x[0]): the cotangent written into zeros at the window.
Operands slice_vjp(Evaluator& ev, const Operands& x, const Params& params, const ArrayRef&, const ArrayRef& ct,
                   const std::vector<bool>&) {
  const auto& start = *int_param(params, "start_indices");
  const auto& limit = *int_param(params, "limit_indices");
  typecheck::Shape window;
  for (std::size_t d = 0; d < start.size(); ++d) window.push_back(limit[d] - start[d]);
  if (const auto* strides = int_param(params, "strides"))
    for (auto s : *strides)
      if (s != 1) raise(exc::NotImplementedError(), "Differentiation of a strided slice is not implemented");
  Params update;
  update.set("start_indices", start);
  ArrayRef window_ct = convert(ev, reshape(ev, ct, window), x[0]->aval.dtype);
  return {apply(ev, "update_slice", {zeros_like(ev, x[0]->aval), window_ct}, std::move(update))};
}
Operands rev_vjp(Evaluator& ev, const Operands&, const Params& params, const ArrayRef&, const ArrayRef& ct,
                 const std::vector<bool>&) {
  return {apply(ev, "rev", {ct}, params)};
}

// The out_sharding a transposed contraction of `a` and `b` takes in
// Explicit mode: the primal operand's own sharding (when neither factor is
// on the primal's mesh, the gradient is placed there at the end instead).
Params contraction_params(const ArrayRef& primal, const ArrayRef& a, const ArrayRef& b) {
  Params params;
  const auto& sharding = primal->aval.sharding;
  bool on_mesh = a->aval.sharding.mesh == sharding.mesh || b->aval.sharding.mesh == sharding.mesh;
  if (sharding.mesh && on_mesh && sharding.mesh->has_axis_of_type(typecheck::AxisType::Explicit))
    params.set("out_sharding", typecheck::ShardingArg{sharding.mesh, typecheck::PartitionSpec::from_entries(sharding.dims)});
  return params;
}

ArrayRef transpose2d(Evaluator& ev, const ArrayRef& a) {
  Params params;
  params.set("permutation", std::vector<std::int64_t>{1, 0});
  return apply(ev, "transpose", {a}, std::move(params));
}

// lhs [m, k] . rhs [k, n] (1-D operands as [1, k] and [k, 1]):
// d lhs = ct . rhs^T, d rhs = lhs^T . ct.
Operands dot_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef&, const ArrayRef& ct,
                 const std::vector<bool>& needs) {
  const ArrayRef& lhs = x[0];
  const ArrayRef& rhs = x[1];
  typecheck::Shape lhs2 = lhs->aval.ndim() == 2 ? lhs->aval.shape : typecheck::Shape{1, lhs->aval.shape[0]};
  typecheck::Shape rhs2 = rhs->aval.ndim() == 2 ? rhs->aval.shape : typecheck::Shape{rhs->aval.shape[0], 1};
  ArrayRef ct2 = reshape(ev, ct, {lhs2[0], rhs2[1]});
  Operands out(2);
  if (needs[0]) {
    ArrayRef rhs_t = transpose2d(ev, reshape(ev, rhs, rhs2));
    ArrayRef d = apply(ev, "dot_general", {ct2, rhs_t}, contraction_params(lhs, ct2, rhs_t));
    out[0] = convert(ev, reshape(ev, d, lhs->aval.shape), lhs->aval.dtype);
  }
  if (needs[1]) {
    ArrayRef lhs_t = transpose2d(ev, reshape(ev, lhs, lhs2));
    ArrayRef d = apply(ev, "dot_general", {lhs_t, ct2}, contraction_params(rhs, lhs_t, ct2));
    out[1] = convert(ev, reshape(ev, d, rhs->aval.shape), rhs->aval.dtype);
  }
  return out;
}

// Sorted by primitive name.
const std::map<std::string_view, Rule>& vjp_rules() {
  static const std::map<std::string_view, Rule> rules{
      {"abs", unary_vjp<d_abs>},
      {"add", add_vjp},
      {"argmax", zero_vjp},
      {"argmin", zero_vjp},
      {"broadcast_in_dim", broadcast_in_dim_vjp},
      {"convert_element_type", convert_vjp},
      {"cos", unary_vjp<d_cos>},
      {"device_put", identity_vjp},
      {"divide", divide_vjp},
      {"dot_general", dot_vjp},
      {"equal", zero_vjp},
      {"exp", unary_vjp<d_exp>},
      {"expm1", unary_vjp<d_expm1>},
      {"floor_divide", zero_vjp},
      {"greater", zero_vjp},
      {"greater_equal", zero_vjp},
      {"less", zero_vjp},
      {"less_equal", zero_vjp},
      {"log", unary_vjp<d_log>},
      {"log1p", unary_vjp<d_log1p>},
      {"logical_and", zero_vjp},
      {"logical_not", zero_vjp},
      {"logical_or", zero_vjp},
      {"maximum", extremum_vjp<true>},
      {"minimum", extremum_vjp<false>},
      {"multiply", multiply_vjp},
      {"negative", negative_vjp},
      {"not_equal", zero_vjp},
      {"power", power_vjp},
      {"random_fold_in", zero_vjp},
      {"random_sample", zero_vjp},
      {"random_split", zero_vjp},
      {"reduce_max", reduce_extremum_vjp},
      {"reduce_mean", reduce_mean_vjp},
      {"reduce_min", reduce_extremum_vjp},
      {"reduce_sum", reduce_sum_vjp},
      {"reshape", reshape_vjp},
      {"rev", rev_vjp},
      {"rsqrt", unary_vjp<d_rsqrt>},
      {"select_n", select_n_vjp},
      {"sharding_constraint", identity_vjp},
      {"sign", zero_vjp},
      {"sin", unary_vjp<d_sin>},
      {"slice", slice_vjp},
      {"sqrt", unary_vjp<d_sqrt>},
      {"square", unary_vjp<d_square>},
      {"subtract", subtract_vjp},
      {"tan", unary_vjp<d_tan>},
      {"tanh", unary_vjp<d_tanh>},
      {"transpose", transpose_vjp},
      {"true_divide", divide_vjp},
  };
  return rules;
}

struct GradOptions {
  std::vector<std::int64_t> argnums;
  bool single_argnum = true;
  bool has_aux = false;
  bool with_value = false;  // value_and_grad
};

// Differentiates `function` at `args` (grad.hpp).
Value differentiate(Evaluator& evaluator, const Value& function, CallArgs args, const GradOptions& options) {
  // The differentiated arguments' leaves become the program's inputs.
  JitTrace trace;
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
      tracers.push_back(Value(trace.add_input(*array)));
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

  // Forward: the program replayed through the current trace.
  const Jaxpr& program = *trace.program;
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
    values[e.output] = as_array(bind(evaluator, *e.primitive, std::move(operands), e.params));
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
    auto rule = vjp_rules().find(e->primitive->name);
    if (rule == vjp_rules().end())
      raise(exc::NotImplementedError(), "Differentiation rule for '" + std::string(e->primitive->name) + "' not implemented");
    std::vector<ArrayRef> operands;
    std::vector<bool> needs;
    for (int input : e->inputs) {
      operands.push_back(values.at(input));
      needs.push_back(active.count(input) > 0);
    }
    Operands operand_cts = rule->second(evaluator, operands, e->params, values.at(e->output), found_ct->second, needs);
    for (std::size_t i = 0; i < e->inputs.size() && i < operand_cts.size(); ++i) {
      if (!needs[i] || !operand_cts[i]) continue;
      auto& slot = cotangents[e->inputs[i]];
      slot = slot ? add(evaluator, slot, operand_cts[i]) : operand_cts[i];
    }
  }

  // The gradients, in the primals' dtypes and shardings, as the argument trees.
  std::vector<Value> gradients;
  for (std::size_t i = 0; i < primals.size(); ++i) {
    const ArrayRef& primal = primals[i];
    auto found = cotangents.find(program.inputs[i]);
    ArrayRef g = found != cotangents.end() ? found->second : zeros_like(evaluator, primal->aval);
    g = convert(evaluator, reshape(evaluator, g, primal->aval.shape), primal->aval.dtype);
    if (primal->committed && g->aval.sharding.dims != primal->aval.sharding.dims) {
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
