// The VJP rules of slicing and indexing: static and dynamic slices, window
// updates, gather and scatter (vjp_rules.hpp).
#include <algorithm>
#include <limits>

#include "interp/ops/vjp_rules.hpp"
#include "interp/ops/vjp_support.hpp"

namespace interp::vjp {

using typecheck::DType;

namespace {

// `like`'s type in `dtype`.
typecheck::ArrayType ct_type(const ArrayRef& like, DType dtype) {
  typecheck::ArrayType type = like->aval;
  type.dtype = dtype;
  return type;
}

}  // namespace

// A static slice (x[1:3], x[0]): the cotangent written into zeros at the window.
Cotangents slice_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
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
  return {apply(ev, "update_slice", {zeros_for(ev, x[0], window_ct, x[0]->aval.dtype), window_ct}, std::move(update))};
}

// x.at[window].set(update): the window's cotangent goes to the update, the rest to x.
Cotangents update_slice_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  const auto& start = *int_param(params, "start_indices");
  Cotangents out(2);
  if (needs[0]) {
    Params update;
    update.set("start_indices", start);
    out[0] = apply(ev, "update_slice", {ct, zeros_for(ev, x[1], ct, ct->aval.dtype)}, std::move(update));
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
Cotangents dynamic_slice_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  Cotangents out(x.size());
  std::vector<ArrayRef> operands{zeros_for(ev, x[0], ct, x[0]->aval.dtype), convert(ev, ct, x[0]->aval.dtype)};
  operands.insert(operands.end(), x.begin() + 1, x.end());
  out[0] = apply(ev, "dynamic_update_slice", std::move(operands));
  return out;
}

// dynamic_update_slice(x, update, *starts).
Cotangents dynamic_update_slice_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  Cotangents out(x.size());
  std::vector<ArrayRef> starts(x.begin() + 2, x.end());
  if (needs[0]) {
    std::vector<ArrayRef> operands{ct, zeros_for(ev, x[1], ct, ct->aval.dtype)};
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
Cotangents gather_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
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

namespace {

// `a` flattened, with one `pad` element after its last: the place of
// position x.size, where a scatter drops an update.
ArrayRef padded_flat(Evaluator& ev, const ArrayRef& a, double pad) {
  std::int64_t size = devices::element_count(a->aval.shape);
  typecheck::ArrayType one = a->aval;
  one.shape = {1};
  ArrayRef tail = broadcast(ev, convert(ev, scalar(ev, pad), a->aval.dtype), one.shape, {});
  return concatenate(ev, {reshape(ev, a, {size}), tail}, 0);
}

// A padded flat array read at scatter positions (their shape).
ArrayRef read_at(Evaluator& ev, const ArrayRef& padded, const ArrayRef& positions) {
  Params params;
  params.set("axis", std::int64_t{0});
  return apply(ev, "gather", {padded, positions}, std::move(params));
}

ArrayRef scatter(Evaluator& ev, const ArrayRef& x, const ArrayRef& positions, const ArrayRef& updates,
                 std::string method) {
  Params params;
  params.set("method", std::move(method));
  return apply(ev, "scatter", {x, positions, updates}, std::move(params));
}

// Zeros of `like`'s shape flattened, in `dtype`.
ArrayRef flat_zeros(Evaluator& ev, const ArrayRef& like, DType dtype) {
  typecheck::ArrayType type = like->aval;
  type.dtype = dtype;
  type.shape = {devices::element_count(like->aval.shape)};
  return zeros_like(ev, type);
}

// How many updates land where each one does, counting those `counted` marks (0/1).
ArrayRef landing_count(Evaluator& ev, const ArrayRef& x, const ArrayRef& positions, const ArrayRef& counted) {
  ArrayRef sums = scatter(ev, flat_zeros(ev, x, counted->aval.dtype), positions, counted, "add");
  return read_at(ev, padded_flat(ev, sums, 0.0), positions);
}

// min/max: JAX's _scatter_extremal_jvp, transposed. An element's cotangent
// is shared evenly among the values that tie for it: x's own (when the
// result kept it) and the updates that equal the result there.
Cotangents extremal_scatter_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  const ArrayRef& positions = x[1];
  DType dtype = ct->aval.dtype;
  double nan = std::numeric_limits<double>::quiet_NaN();
  ArrayRef target = read_at(ev, padded_flat(ev, result, nan), positions);
  ArrayRef successful = apply(ev, "equal", {x[2], target});
  ArrayRef retained = apply(ev, "equal", {read_at(ev, padded_flat(ev, x[0], nan), positions), target});
  ArrayRef num_updates = landing_count(ev, x[0], positions, convert(ev, successful, dtype));
  ArrayRef num_refs = landing_count(ev, x[0], positions, add(ev, zeros_like(ev, ct_type(x[2], dtype)), 1.0));
  ArrayRef zeros = zeros_like(ev, ct_type(x[2], dtype));
  ArrayRef shared = div(ev, scalar(ev, 1.0), add(ev, num_updates, 1.0));
  ArrayRef updates_normalizer = apply(ev, "select_n", {retained, div(ev, scalar(ev, 1.0), num_updates), shared});
  ArrayRef updates_coef = apply(ev, "select_n", {successful, zeros, updates_normalizer});
  ArrayRef operand_normalizer = apply(ev, "select_n", {retained, zeros, shared});
  ArrayRef operand_coef = div(ev, add(ev, operand_normalizer, -1.0), num_refs);
  ArrayRef ct_at = read_at(ev, padded_flat(ev, ct, 0.0), positions);
  Cotangents out(3);
  if (needs[0]) {
    ArrayRef moved = scatter(ev, flat_zeros(ev, x[0], dtype), positions, mul(ev, operand_coef, ct_at), "add");
    out[0] = add(ev, ct, reshape(ev, moved, x[0]->aval.shape));
  }
  if (needs[2]) out[2] = mul(ev, updates_coef, ct_at);
  return out;
}

}  // namespace

// scatter(x, positions, updates) as x.at[index].set/add/multiply/min/max
// binds it (flat positions; x.size drops an update). JAX's rules: add gives
// the cotangent to x and to every update; set gives a written element's to
// the update that wrote it last and zero to x there; multiply gives x the
// cotangent scatter-multiplied by the updates and, for the updates, raises
// JAX's NotImplementedError (its rule needs unique indices); min/max share
// it among ties.
Cotangents scatter_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  const std::string& method = *params.get<std::string>("method");
  if (method == "min" || method == "max") return extremal_scatter_vjp(call);
  const ArrayRef& positions = x[1];
  DType dtype = ct->aval.dtype;
  Cotangents out(3);
  // Init-captures: clang before 16 cannot capture structured bindings.
  auto ct_at = [&ev = ev, &ct = ct, &positions] { return read_at(ev, padded_flat(ev, ct, 0.0), positions); };
  if (method == "add") {
    if (needs[0]) out[0] = ct;
    if (needs[2]) out[2] = ct_at();
  } else if (method == "set") {
    if (needs[0]) out[0] = scatter(ev, ct, positions, zeros_like(ev, ct_type(x[2], dtype)), "set");
    if (needs[2]) {
      // The update each element kept: scatter the updates' ids, read them back.
      std::int64_t count = devices::element_count(positions->aval.shape);
      std::vector<Value> ids;
      for (std::int64_t k = 0; k < count; ++k) ids.push_back(Value::integer(k));
      ArrayRef id = reshape(ev, to_array(ev, make_list(std::move(ids)), DType::int32), positions->aval.shape);
      ArrayRef kept = scatter(ev, flat_zeros(ev, x[0], DType::int32), positions, id, "set");
      ArrayRef won = indicator(ev, "equal", read_at(ev, padded_flat(ev, kept, -1.0), positions), id, dtype);
      out[2] = mul(ev, ct_at(), won);
    }
  } else {  // multiply
    if (needs[0]) out[0] = scatter(ev, ct, positions, convert(ev, x[2], dtype), "multiply");
    if (needs[2]) raise(exc::NotImplementedError(), "scatter_mul gradients are only implemented if `unique_indices=True`");
  }
  return out;
}

}  // namespace interp::vjp
