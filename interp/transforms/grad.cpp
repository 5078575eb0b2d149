// jax.grad / jax.value_and_grad and the VJP rules (grad.hpp).
#include "interp/transforms/grad.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "interp/python/builtins.hpp"
#include "interp/ops/collectives.hpp"
#include "interp/ops/contractions.hpp"
#include "interp/transforms/costing.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/transforms/trace.hpp"
#include "interp/library/tree_module.hpp"

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

// Zeros of `like`'s shape in `dtype`, on like's devices: where(False, like, 0)
// puts them on a committed array's mesh or a shard_map body's, which the
// slicing primitives (placed by their first operand) then compute on.
ArrayRef zeros_on(Evaluator& ev, const ArrayRef& like, DType dtype) {
  typecheck::ArrayType type = like->aval;
  type.dtype = dtype;
  // Outside the shard_map body, a literal would be on the context mesh, not
  // the body's: a manual array's zeros are made from it.
  if (is_manual(*like)) return mul(ev, convert(ev, like, dtype), 0.0);
  ArrayRef zeros = zeros_like(ev, type);
  if (!like->committed) return zeros;
  return apply(ev, "select_n", {to_array(ev, Value::boolean(false)), zeros, convert(ev, like, dtype)});
}

// x[start:limit] with unit strides.
ArrayRef window_slice(Evaluator& ev, const ArrayRef& a, std::vector<std::int64_t> start, std::vector<std::int64_t> limit) {
  std::vector<std::int64_t> sizes;
  for (std::size_t d = 0; d < start.size(); ++d) sizes.push_back(limit[d] - start[d]);
  Params params;
  params.set("start_indices", std::move(start)).set("limit_indices", std::move(limit));
  params.set("strides", std::vector<std::int64_t>(sizes.size(), 1)).set("new_sizes", sizes);
  return apply(ev, "slice", {a}, std::move(params));
}

ArrayRef concatenate(Evaluator& ev, std::vector<ArrayRef> parts, std::int64_t dimension) {
  Params params;
  params.set("dimension", dimension);
  return apply(ev, "concatenate", std::move(parts), std::move(params));
}

// `a` spread along `dim` with stride - 1 zeros after each element (the
// transpose of a strided slice), cut to `length`.
ArrayRef dilate(Evaluator& ev, const ArrayRef& a, std::size_t dim, std::int64_t stride, std::int64_t length) {
  typecheck::Shape shape = a->aval.shape;
  typecheck::Shape split = shape;
  split.insert(split.begin() + static_cast<std::ptrdiff_t>(dim) + 1, 1);
  typecheck::ArrayType gap_type = a->aval;
  gap_type.shape = split;
  gap_type.shape[dim + 1] = stride - 1;
  ArrayRef spread = concatenate(ev, {reshape(ev, a, split), zeros_like(ev, gap_type)}, static_cast<std::int64_t>(dim) + 1);
  typecheck::Shape merged = shape;
  merged[dim] *= stride;
  std::vector<std::int64_t> start(shape.size(), 0), limit(merged.begin(), merged.end());
  limit[dim] = length;
  return window_slice(ev, reshape(ev, spread, merged), std::move(start), std::move(limit));
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
  const auto* strides = int_param(params, "strides");
  auto stride = [&](std::size_t d) { return strides ? (*strides)[d] : std::int64_t{1}; };
  // The picked elements (integer-indexed dims kept as size 1), then spread
  // back over the window where a step skipped some.
  typecheck::Shape picked;
  for (std::size_t d = 0; d < start.size(); ++d) picked.push_back((limit[d] - start[d] + stride(d) - 1) / stride(d));
  ArrayRef window_ct = convert(ev, reshape(ev, ct, picked), x[0]->aval.dtype);
  for (std::size_t d = 0; d < start.size(); ++d)
    if (stride(d) != 1 && picked[d] > 0) window_ct = dilate(ev, window_ct, d, stride(d), limit[d] - start[d]);
  Params update;
  update.set("start_indices", start);
  return {apply(ev, "update_slice", {zeros_on(ev, x[0], x[0]->aval.dtype), window_ct}, std::move(update))};
}
Operands rev_vjp(Evaluator& ev, const Operands&, const Params& params, const ArrayRef&, const ArrayRef& ct,
                 const std::vector<bool>&) {
  return {apply(ev, "rev", {ct}, params)};
}

Operands concatenate_vjp(Evaluator& ev, const Operands& x, const Params& params, const ArrayRef&, const ArrayRef& ct,
                         const std::vector<bool>& needs) {
  auto dimension = static_cast<std::size_t>(*params.get<std::int64_t>("dimension"));
  Operands out(x.size());
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::int64_t size = x[i]->aval.shape[dimension];
    if (needs[i]) {
      std::vector<std::int64_t> start(ct->aval.ndim(), 0), limit(ct->aval.shape.begin(), ct->aval.shape.end());
      start[dimension] = offset;
      limit[dimension] = offset + size;
      out[i] = window_slice(ev, ct, std::move(start), std::move(limit));
    }
    offset += size;
  }
  return out;
}

// x.at[window].set(update): the window's cotangent goes to the update, the rest to x.
Operands update_slice_vjp(Evaluator& ev, const Operands& x, const Params& params, const ArrayRef&, const ArrayRef& ct,
                          const std::vector<bool>& needs) {
  const auto& start = *int_param(params, "start_indices");
  Operands out(2);
  if (needs[0]) {
    Params update;
    update.set("start_indices", start);
    out[0] = apply(ev, "update_slice", {ct, zeros_on(ev, x[1], ct->aval.dtype)}, std::move(update));
  }
  if (needs[1]) {
    std::vector<std::int64_t> limit;
    for (std::size_t d = 0; d < start.size(); ++d) limit.push_back(start[d] + x[1]->aval.shape[d]);
    out[1] = convert(ev, window_slice(ev, ct, start, std::move(limit)), x[1]->aval.dtype);
  }
  return out;
}

// dynamic_slice(x, *starts): the cotangent written into zeros at the same
// (equally clamped) starts; the integer starts get none.
Operands dynamic_slice_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef&, const ArrayRef& ct,
                           const std::vector<bool>&) {
  Operands out(x.size());
  std::vector<ArrayRef> operands{zeros_on(ev, x[0], x[0]->aval.dtype), convert(ev, ct, x[0]->aval.dtype)};
  operands.insert(operands.end(), x.begin() + 1, x.end());
  out[0] = apply(ev, "dynamic_update_slice", std::move(operands));
  return out;
}

// dynamic_update_slice(x, update, *starts).
Operands dynamic_update_slice_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef&, const ArrayRef& ct,
                                  const std::vector<bool>& needs) {
  Operands out(x.size());
  std::vector<ArrayRef> starts(x.begin() + 2, x.end());
  if (needs[0]) {
    std::vector<ArrayRef> operands{ct, zeros_on(ev, x[1], ct->aval.dtype)};
    operands.insert(operands.end(), starts.begin(), starts.end());
    out[0] = apply(ev, "dynamic_update_slice", std::move(operands));
  }
  if (needs[1]) {
    std::vector<ArrayRef> operands{ct};
    operands.insert(operands.end(), starts.begin(), starts.end());
    Params params;
    params.set("slice_sizes", std::vector<std::int64_t>(x[1]->aval.shape.begin(), x[1]->aval.shape.end()));
    out[1] = convert(ev, apply(ev, "dynamic_slice", std::move(operands), std::move(params)), x[1]->aval.dtype);
  }
  return out;
}

// take(x, indices, axis): a scatter-add of the cotangent, as a one-hot sum
// over the index positions: d x[.., j, ..] = sum_k (indices[k] == j) ct[.., k, ..].
// Negative indices count from the end; out-of-range ones (filled forward)
// receive nothing.
Operands gather_vjp(Evaluator& ev, const Operands& x, const Params& params, const ArrayRef&, const ArrayRef& ct,
                    const std::vector<bool>&) {
  const ArrayRef& operand = x[0];
  auto axis = static_cast<std::size_t>(*params.get<std::int64_t>("axis"));
  std::int64_t n = operand->aval.shape[axis];
  std::int64_t count = devices::element_count(x[1]->aval.shape);
  ArrayRef indices = reshape(ev, x[1], {count});
  ArrayRef wrapped = add(ev, indices, mul(ev, convert(ev, apply(ev, "less", {indices, to_array(ev, Value::integer(0))}), DType::int32),
                                          to_array(ev, Value::integer(n))));
  std::vector<Value> positions;
  for (std::int64_t j = 0; j < n; ++j) positions.push_back(Value::integer(j));
  ArrayRef iota = to_array(ev, make_list(std::move(positions)), DType::int32);
  typecheck::Shape hot_shape{count, n};
  ArrayRef one_hot = convert(ev, apply(ev, "equal", {broadcast(ev, wrapped, hot_shape, {0}), broadcast(ev, iota, hot_shape, {1})}),
                             ct->aval.dtype);
  // ct as [before.., count, after..], then [before.., count, n, after..].
  const auto& shape = operand->aval.shape;
  typecheck::Shape flat(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(axis));
  flat.push_back(count);
  flat.insert(flat.end(), shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, shape.end());
  typecheck::Shape spread = flat;
  spread.insert(spread.begin() + static_cast<std::ptrdiff_t>(axis) + 1, n);
  std::vector<std::int64_t> ct_dims;
  for (std::size_t d = 0; d < spread.size(); ++d)
    if (d != axis + 1) ct_dims.push_back(static_cast<std::int64_t>(d));
  auto a = static_cast<std::int64_t>(axis);
  ArrayRef products = mul(ev, broadcast(ev, reshape(ev, ct, flat), spread, std::move(ct_dims)),
                          broadcast(ev, one_hot, spread, {a, a + 1}));
  return {convert(ev, reduce_sum(ev, products, {a}), operand->aval.dtype), nullptr};
}

// prod: each element's cotangent is the product of the others. With z zeros
// in a group: P / x_i when z = 0, P (the nonzero elements' product) at the
// one zero when z = 1, and 0 otherwise.
Operands reduce_prod_vjp(Evaluator& ev, const Operands& x, const Params& params, const ArrayRef&, const ArrayRef& ct,
                         const std::vector<bool>&) {
  const ArrayRef& operand = x[0];
  DType dtype = operand->aval.dtype;
  ArrayRef zero = convert(ev, scalar(ev, 0.0), dtype);
  ArrayRef is_zero = indicator(ev, "equal", operand, zero, dtype);
  ArrayRef nonzero = add(ev, operand, is_zero);  // zeros replaced by ones
  Params group = params;
  ArrayRef nonzero_product = expand_reduced(ev, apply(ev, "reduce_prod", {nonzero}, group), operand, params);
  ArrayRef zeros_in_group = expand_reduced(ev, apply(ev, "reduce_sum", {is_zero}, params), operand, params);
  ArrayRef none_zero = indicator(ev, "equal", zeros_in_group, zero, dtype);
  ArrayRef one_zero = indicator(ev, "equal", zeros_in_group, convert(ev, scalar(ev, 1.0), dtype), dtype);
  ArrayRef others = add(ev, mul(ev, none_zero, div(ev, nonzero_product, nonzero)), mul(ev, mul(ev, one_zero, is_zero), nonzero_product));
  return {mul(ev, expand_reduced(ev, ct, operand, params), others)};
}

// remainder(x, y) = x - y * q with q = floor(x / y) (the rounded quotient
// the primitive used, recovered exactly as (x - r) / y).
Operands remainder_vjp(Evaluator& ev, const Operands& x, const Params&, const ArrayRef& result, const ArrayRef& ct,
                       const std::vector<bool>& needs) {
  Operands out(2);
  if (needs[0]) out[0] = unbroadcast(ev, ct, x[0]);
  if (needs[1]) {
    ArrayRef quotient = div(ev, sub(ev, x[0], result), x[1]);
    out[1] = unbroadcast(ev, neg(ev, mul(ev, ct, quotient)), x[1]);
  }
  return out;
}

// ------------------------------------------------------------ shard_map

// The axes named by a collective's params, and their total size.
typecheck::AxisList collective_axes(const Params& params) {
  typecheck::AxisList names;
  const std::string& joined = *params.get<std::string>("axis_name");
  for (std::size_t begin = 0; begin <= joined.size();) {
    auto comma = std::min(joined.find(',', begin), joined.size());
    if (comma > begin) names.push_back(joined.substr(begin, comma - begin));
    begin = comma + 1;
  }
  return names;
}

double axes_size(const DeviceMesh& mesh, const typecheck::AxisList& names) {
  double size = 1;
  for (const auto& name : names)
    if (auto index = mesh.abstract->index_of(name)) size *= mesh.shape[*index];
  return size;
}

bool checks_vma(const Params& params) {
  const bool* check = params.get<bool>("check_vma");
  return !check || *check;
}

std::string joined_axes(const typecheck::AxisList& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

// A collective over `names` on the body mesh of `like`'s params.
ArrayRef collective(Evaluator& ev, std::string_view name, const ArrayRef& operand, const Params& like,
                    const typecheck::AxisList& names, Params extra = {}) {
  Params params;
  params.set("axis_name", joined_axes(names));
  params.set("mesh", *like.get<Layout>("mesh")).set("check_vma", checks_vma(like));
  for (auto& entry : extra.entries) params.entries.push_back(std::move(entry));
  return apply(ev, name, {operand}, std::move(params));
}

// psum (pmean: scaled by 1/n). With vma checking the cotangent (invariant
// over the axes) becomes varying where x varied, and is summed where x was
// invariant (psum pvaried it first: the result was n x). Without it, the
// transpose is psum, as in JAX (the shard_map boundary scales to match).
template <bool mean>
Operands psum_vjp(Evaluator& ev, const Operands& x, const Params& params, const ArrayRef&, const ArrayRef& ct,
                  const std::vector<bool>&) {
  auto names = collective_axes(params);
  ArrayRef g = mean ? mul(ev, ct, 1.0 / axes_size(*params.get<Layout>("mesh")->mesh, names)) : ct;
  if (!checks_vma(params)) return {collective(ev, "psum", g, params, names)};
  typecheck::AxisList varied, invariant;
  for (const auto& name : names) {
    if (!x[0]->aval.manual.varying.contains(name)) invariant.push_back(name);
    else if (!g->aval.manual.varying.contains(name)) varied.push_back(name);
  }
  if (!invariant.empty()) g = collective(ev, "psum", g, params, invariant);
  if (!varied.empty()) g = collective(ev, "pvary", g, params, varied);
  return {g};
}

// pvary's transpose sums over the axes (check_vma=False: pvary is the identity).
Operands pvary_vjp(Evaluator& ev, const Operands&, const Params& params, const ArrayRef&, const ArrayRef& ct,
                   const std::vector<bool>&) {
  if (!checks_vma(params)) return {ct};
  return {collective(ev, "psum", ct, params, collective_axes(params))};
}

Operands all_gather_vjp(Evaluator& ev, const Operands&, const Params& params, const ArrayRef&, const ArrayRef& ct,
                        const std::vector<bool>&) {
  Params extra;
  extra.set("scatter_dimension", *params.get<std::int64_t>("axis")).set("tiled", *params.get<bool>("tiled"));
  return {collective(ev, "psum_scatter", ct, params, collective_axes(params), std::move(extra))};
}

Operands psum_scatter_vjp(Evaluator& ev, const Operands&, const Params& params, const ArrayRef&, const ArrayRef& ct,
                          const std::vector<bool>&) {
  Params extra;
  extra.set("axis", *params.get<std::int64_t>("scatter_dimension")).set("tiled", *params.get<bool>("tiled"));
  return {collective(ev, "all_gather", ct, params, collective_axes(params), std::move(extra))};
}

// The reverse all_to_all, split and concat axes swapped (JAX's
// _all_to_all_transpose_rule): untiled too, since the untiled result has the
// group's size at concat_axis, where the reverse one splits.
Operands all_to_all_vjp(Evaluator& ev, const Operands&, const Params& params, const ArrayRef&, const ArrayRef& ct,
                        const std::vector<bool>&) {
  Params extra;
  extra.set("split_axis", *params.get<std::int64_t>("concat_axis"))
      .set("concat_axis", *params.get<std::int64_t>("split_axis"))
      .set("tiled", *params.get<bool>("tiled"));
  return {collective(ev, "all_to_all", ct, params, collective_axes(params), std::move(extra))};
}

// ppermute's transpose sends every block back: the inverse permutation.
Operands ppermute_vjp(Evaluator& ev, const Operands&, const Params& params, const ArrayRef&, const ArrayRef& ct,
                      const std::vector<bool>&) {
  std::vector<std::int64_t> inverse = *params.get<std::vector<std::int64_t>>("perm");
  for (std::size_t i = 0; i + 1 < inverse.size(); i += 2) std::swap(inverse[i], inverse[i + 1]);
  Params extra;
  extra.set("perm", std::move(inverse));
  return {collective(ev, "ppermute", ct, params, collective_axes(params), std::move(extra))};
}

// The manual axes of a shard_map that `layout`'s dims do not mention.
typecheck::AxisList unmentioned_axes(const Layout& layout, const DeviceMesh& body) {
  typecheck::AxisList names;
  for (const auto& axis : body.abstract->axes()) {
    if (axis.type != typecheck::AxisType::Manual || layout.mesh->abstract->find(axis.name)->type == typecheck::AxisType::Manual)
      continue;
    bool mentioned = false;
    for (const auto& entry : layout.dims) mentioned = mentioned || std::find(entry.begin(), entry.end(), axis.name) != entry.end();
    if (!mentioned) names.push_back(axis.name);
  }
  return names;
}

// Entering a shard_map: the body's cotangent leaves it by the argument's
// in_spec. Without vma checking, a block replicated over an unmentioned axis
// gets the sum of its copies' cotangents (with it, the rules above already
// made the cotangent invariant there).
Operands shard_map_enter_vjp(Evaluator& ev, const Operands&, const Params& params, const ArrayRef&, const ArrayRef& ct,
                             const std::vector<bool>&) {
  const Layout& in_spec = *params.get<Layout>("in_spec");
  ArrayRef g = ct;
  if (!checks_vma(params)) {
    auto names = unmentioned_axes(in_spec, *params.get<Layout>("mesh")->mesh);
    if (!names.empty()) g = collective(ev, "psum", g, params, names);
  }
  Params exit;
  exit.set("out_spec", in_spec).set("mesh", *params.get<Layout>("mesh")).set("check_vma", checks_vma(params));
  return {apply(ev, "shard_map_exit", {g}, std::move(exit))};
}

// Leaving a shard_map: the result's cotangent enters the body by the
// out_spec. Without vma checking every copy of a replicated output takes an
// equal share, so that psum's transpose (psum) adds them back to one.
Operands shard_map_exit_vjp(Evaluator& ev, const Operands&, const Params& params, const ArrayRef&, const ArrayRef& ct,
                            const std::vector<bool>&) {
  const Layout& out_spec = *params.get<Layout>("out_spec");
  Params enter;
  enter.set("in_spec", out_spec).set("mesh", *params.get<Layout>("mesh")).set("check_vma", checks_vma(params));
  ArrayRef g = apply(ev, "shard_map_enter", {ct}, std::move(enter));
  if (!checks_vma(params)) {
    double copies = axes_size(*params.get<Layout>("mesh")->mesh, unmentioned_axes(out_spec, *params.get<Layout>("mesh")->mesh));
    if (copies != 1) g = mul(ev, g, 1.0 / copies);
  }
  return {g};
}

// With vma checking, a cotangent varying over axes its primal is invariant
// over is summed over them (the transpose of the implicit pvary that the
// primal's use inserted).
ArrayRef match_vma(Evaluator& ev, const ArrayRef& primal, const ArrayRef& ct) {
  if (!is_manual(*ct)) return ct;
  typecheck::AxisList extra;
  for (const auto& axis : ct->aval.manual.varying)
    if (!primal->aval.manual.varying.contains(axis)) extra.push_back(axis);
  if (extra.empty()) return ct;
  Params params;
  params.set("mesh", Layout{ct->layout.mesh, {}}).set("check_vma", true);
  return collective(ev, "psum", ct, params, extra);
}

// The operand cotangent of dot_general (JAX's _dot_general_transpose_lhs;
// the rhs's is the same with the operands swapped): ct contracted with the
// other operand over the other's free dims, batched over the batch dims,
// gives [batch, own free, own contracting (in the other's axis order)],
// transposed back into the operand's order. In Explicit mode the product
// takes the operand's own sharding as out_sharding (moved into the
// product's order), so grad raises no ambiguity error; when neither factor
// is on the operand's mesh, the gradient is placed there at the end instead.
ArrayRef dot_operand_cotangent(Evaluator& ev, const ArrayRef& primal, const ArrayRef& other, const ArrayRef& ct,
                               const std::vector<int>& own_batch, const std::vector<int>& own_contracting,
                               const std::vector<int>& other_batch, const std::vector<int>& other_contracting,
                               bool primal_is_lhs) {
  const std::size_t own_rank = primal->aval.ndim(), other_rank = other->aval.ndim();
  const std::size_t batch = own_batch.size();
  auto free_dims = [](std::size_t rank, const std::vector<int>& b, const std::vector<int>& c) {
    std::vector<int> free;
    for (int d = 0; d < static_cast<int>(rank); ++d)
      if (std::find(b.begin(), b.end(), d) == b.end() && std::find(c.begin(), c.end(), d) == c.end()) free.push_back(d);
    return free;
  };
  const std::vector<int> own_free = free_dims(own_rank, own_batch, own_contracting);
  const std::vector<int> other_free = free_dims(other_rank, other_batch, other_contracting);
  // ct's dims: batch, lhs free, rhs free.
  const std::size_t other_free_start = primal_is_lhs ? batch + own_free.size() : batch;
  typecheck::DotDimensionNumbers numbers;
  for (std::size_t i = 0; i < other_free.size(); ++i) {
    numbers.lhs_contracting.push_back(static_cast<int>(other_free_start + i));
    numbers.rhs_contracting.push_back(other_free[i]);
  }
  for (std::size_t i = 0; i < batch; ++i) {
    numbers.lhs_batch.push_back(static_cast<int>(i));
    numbers.rhs_batch.push_back(other_batch[i]);
  }
  // Where each of the primal's dims lies in the product.
  std::vector<int> sorted_other_contracting = other_contracting;
  std::sort(sorted_other_contracting.begin(), sorted_other_contracting.end());
  std::vector<int> position(own_rank);
  for (std::size_t i = 0; i < batch; ++i) position[own_batch[i]] = static_cast<int>(i);
  for (std::size_t i = 0; i < own_free.size(); ++i) position[own_free[i]] = static_cast<int>(batch + i);
  for (std::size_t c = 0; c < own_contracting.size(); ++c) {
    auto rank = std::find(sorted_other_contracting.begin(), sorted_other_contracting.end(), other_contracting[c]) -
                sorted_other_contracting.begin();
    position[own_contracting[c]] = static_cast<int>(batch + own_free.size() + static_cast<std::size_t>(rank));
  }
  Params params;
  set_dot_dimension_numbers(params, numbers, ct->aval.ndim());
  const auto& sharding = primal->aval.sharding;
  bool on_mesh = ct->aval.sharding.mesh == sharding.mesh || other->aval.sharding.mesh == sharding.mesh;
  if (sharding.mesh && on_mesh && sharding.mesh->has_axis_of_type(typecheck::AxisType::Explicit)) {
    std::vector<typecheck::SpecEntry> entries(own_rank);
    for (std::size_t d = 0; d < own_rank && d < sharding.dims.size(); ++d) entries[position[d]] = sharding.dims[d];
    params.set("out_sharding", typecheck::ShardingArg{sharding.mesh, typecheck::PartitionSpec::from_entries(entries)});
  }
  ArrayRef product = apply(ev, "dot_general", {ct, other}, std::move(params));
  Params permutation;
  permutation.set("permutation", std::vector<std::int64_t>(position.begin(), position.end()));
  bool identity = true;
  for (std::size_t d = 0; d < own_rank; ++d) identity = identity && position[d] == static_cast<int>(d);
  ArrayRef result = identity ? product : apply(ev, "transpose", {product}, std::move(permutation));
  return convert(ev, result, primal->aval.dtype);
}

Operands dot_vjp(Evaluator& ev, const Operands& x, const Params& params, const ArrayRef&, const ArrayRef& ct,
                 const std::vector<bool>& needs) {
  const ArrayRef& lhs = x[0];
  const ArrayRef& rhs = x[1];
  const typecheck::DotDimensionNumbers n = dot_dimension_numbers(params, lhs->aval.ndim());
  Operands out(2);
  if (needs[0])
    out[0] = dot_operand_cotangent(ev, lhs, rhs, ct, n.lhs_batch, n.lhs_contracting, n.rhs_batch, n.rhs_contracting, true);
  if (needs[1])
    out[1] = dot_operand_cotangent(ev, rhs, lhs, ct, n.rhs_batch, n.rhs_contracting, n.lhs_batch, n.lhs_contracting, false);
  return out;
}

// Sorted by primitive name.
const std::map<std::string_view, Rule>& vjp_rules() {
  static const std::map<std::string_view, Rule> rules{
      {"abs", unary_vjp<d_abs>},
      {"add", add_vjp},
      {"all_gather", all_gather_vjp},
      {"all_to_all", all_to_all_vjp},
      {"argmax", zero_vjp},
      {"argmin", zero_vjp},
      {"axis_index", zero_vjp},
      {"broadcast_in_dim", broadcast_in_dim_vjp},
      {"concatenate", concatenate_vjp},
      {"convert_element_type", convert_vjp},
      {"cos", unary_vjp<d_cos>},
      {"debug_print", zero_vjp},
      {"device_put", identity_vjp},
      {"divide", divide_vjp},
      {"dot_general", dot_vjp},
      {"dynamic_slice", dynamic_slice_vjp},
      {"dynamic_update_slice", dynamic_update_slice_vjp},
      {"equal", zero_vjp},
      {"exp", unary_vjp<d_exp>},
      {"expm1", unary_vjp<d_expm1>},
      {"floor_divide", zero_vjp},
      {"gather", gather_vjp},
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
      {"pmean", psum_vjp<true>},
      {"power", power_vjp},
      {"ppermute", ppermute_vjp},
      {"psum", psum_vjp<false>},
      {"psum_scatter", psum_scatter_vjp},
      {"pvary", pvary_vjp},
      {"random_fold_in", zero_vjp},
      {"random_sample", zero_vjp},
      {"random_split", zero_vjp},
      {"reduce_max", reduce_extremum_vjp},
      {"reduce_mean", reduce_mean_vjp},
      {"reduce_min", reduce_extremum_vjp},
      {"reduce_prod", reduce_prod_vjp},
      {"reduce_sum", reduce_sum_vjp},
      {"remainder", remainder_vjp},
      {"reshape", reshape_vjp},
      {"rev", rev_vjp},
      {"rsqrt", unary_vjp<d_rsqrt>},
      {"select_n", select_n_vjp},
      {"shard_map_enter", shard_map_enter_vjp},
      {"shard_map_exit", shard_map_exit_vjp},
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
      {"update_slice", update_slice_vjp},
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
      ArrayRef ct = match_vma(evaluator, operands[i], operand_cts[i]);
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
