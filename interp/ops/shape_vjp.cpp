// The VJP rules of conversions, reductions (cumsum too), shape changes and
// dot_general (vjp_rules.hpp).
#include <algorithm>

#include "interp/ops/contractions.hpp"
#include "interp/ops/vjp_rules.hpp"
#include "interp/ops/vjp_support.hpp"

namespace interp::vjp {

using typecheck::DType;

Cotangents convert_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  if (!typecheck::is_floating(x[0]->aval.dtype)) return {nullptr};
  return {convert(ev, ct, x[0]->aval.dtype)};
}
Cotangents reduce_sum_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  return {expand_reduced(ev, ct, x[0], params)};
}
Cotangents reduce_mean_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  return {mul(ev, expand_reduced(ev, ct, x[0], params), 1.0 / reduced_count(x[0], params))};
}
// max/min reductions: shared evenly among the elements equal to the result.
Cotangents reduce_extremum_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  ArrayRef mask = indicator(ev, "equal", x[0], expand_reduced(ev, result, x[0], params), x[0]->aval.dtype);
  Params sum_params;
  for (const auto& entry : params.entries) sum_params.entries.push_back(entry);
  ArrayRef ties = apply(ev, "reduce_sum", {mask}, std::move(sum_params));
  return {mul(ev, mask, expand_reduced(ev, div(ev, ct, ties), x[0], params))};
}
Cotangents reshape_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  return {reshape(ev, ct, x[0]->aval.shape)};
}
Cotangents transpose_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  const auto& permutation = *int_param(params, "permutation");
  std::vector<std::int64_t> inverse(permutation.size());
  for (std::size_t i = 0; i < permutation.size(); ++i) inverse[static_cast<std::size_t>(permutation[i])] = static_cast<std::int64_t>(i);
  Params inverse_params;
  inverse_params.set("permutation", std::move(inverse));
  return {apply(ev, "transpose", {ct}, std::move(inverse_params))};
}
Cotangents broadcast_in_dim_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
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

Cotangents rev_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  return {apply(ev, "rev", {ct}, params)};
}

Cotangents concatenate_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  auto dimension = static_cast<std::size_t>(*params.get<std::int64_t>("dimension"));
  Cotangents out(x.size());
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

// prod: each element's cotangent is the product of the others. With z zeros
// in a group: P / x_i when z = 0, P (the nonzero elements' product) at the
// one zero when z = 1, and 0 otherwise.
Cotangents reduce_prod_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
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

namespace {

// The operand cotangent of dot_general (JAX's _dot_general_transpose_lhs;
// the rhs's is the same with the operands swapped): ct contracted with the
// other operand over the other's free dims, batched over the batch dims,
// gives [batch, own free, own contracting (in the other's axis order)],
// transposed back into the operand's order. In Explicit mode the product
// takes the operand's own sharding as out_sharding (moved into the
// product's order), so grad raises no ambiguity error; an operand off the
// product's Explicit mesh gets a gradient replicated on it.
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
  auto is_explicit = [](const typecheck::MeshRef& mesh) {
    return mesh && mesh->has_axis_of_type(typecheck::AxisType::Explicit);
  };
  if (is_explicit(sharding.mesh) && on_mesh) {
    std::vector<typecheck::SpecEntry> entries(own_rank);
    for (std::size_t d = 0; d < own_rank && d < sharding.dims.size(); ++d) entries[position[d]] = sharding.dims[d];
    // The cotangent of a reduced primal is unreduced (and of an unreduced one reduced).
    params.set("out_sharding", typecheck::ShardingArg{sharding.mesh, typecheck::PartitionSpec::from_entries(
                                                                         entries, sharding.reduced, sharding.unreduced)});
  } else if (const typecheck::MeshRef& product_mesh = is_explicit(ct->aval.sharding.mesh) ? ct->aval.sharding.mesh
                                                                                         : other->aval.sharding.mesh;
             is_explicit(product_mesh) && !on_mesh) {
    // A primal off the product's Explicit mesh (a parameter made before
    // jax.set_mesh): its gradient is replicated there, summed over any
    // split contraction, as an unsharded primal's is.
    params.set("out_sharding", typecheck::ShardingArg{product_mesh, typecheck::PartitionSpec::from_entries(
                                                                        std::vector<typecheck::SpecEntry>(own_rank))});
  }
  ArrayRef product = apply(ev, "dot_general", {ct, other}, std::move(params));
  Params permutation;
  permutation.set("permutation", std::vector<std::int64_t>(position.begin(), position.end()));
  bool identity = true;
  for (std::size_t d = 0; d < own_rank; ++d) identity = identity && position[d] == static_cast<int>(d);
  ArrayRef result = identity ? product : apply(ev, "transpose", {product}, std::move(permutation));
  return convert(ev, result, primal->aval.dtype);
}

}  // namespace

Cotangents dot_general_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  const ArrayRef& lhs = x[0];
  const ArrayRef& rhs = x[1];
  const typecheck::DotDimensionNumbers n = dot_dimension_numbers(params, lhs->aval.ndim());
  Cotangents out(2);
  if (needs[0])
    out[0] = dot_operand_cotangent(ev, lhs, rhs, ct, n.lhs_batch, n.lhs_contracting, n.rhs_batch, n.rhs_contracting, true);
  if (needs[1])
    out[1] = dot_operand_cotangent(ev, rhs, lhs, ct, n.rhs_batch, n.rhs_contracting, n.lhs_batch, n.lhs_contracting, false);
  return out;
}

// cumsum is linear: its transpose accumulates the cotangent the other way
// (JAX's _cumsum_transpose_rule).
Cotangents cumsum_vjp(const VjpCall& call) {
  Params reversed;
  reversed.set("axis", *call.params.get<std::int64_t>("axis")).set("reverse", !*call.params.get<bool>("reverse"));
  return {apply(call.evaluator, "cumsum", {call.cotangent}, std::move(reversed))};
}

// sort: output i < n is operand i permuted, so its cotangent goes back
// through the inverse permutation: the cotangent sorted by the permutation
// (the unsort). The permutation output and integer operands get none.
Cotangents sort_vjp(const VjpCall& call) {
  const auto& [ev, x, params, result, ct, needs, primitive] = call;
  Cotangents out(x.size());
  auto output = static_cast<std::size_t>(*params.get<std::int64_t>("output"));
  if (output == x.size() || !needs[output]) return out;
  Params permutation;
  for (const auto& [name, value] : params.entries) permutation.set(name, name == "output" ? ParamValue(static_cast<std::int64_t>(x.size())) : value);
  ArrayRef order = apply(ev, "sort", x, permutation);
  Params unsort;
  unsort.set("dimension", *params.get<std::int64_t>("dimension")).set("is_stable", true);
  unsort.set("num_keys", std::int64_t{1}).set("output", std::int64_t{1});
  out[output] = apply(ev, "sort", {order, ct}, unsort);
  return out;
}

}  // namespace interp::vjp
