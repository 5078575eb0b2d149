// The VJP rules the primitive table's entries point to (primitives.hpp's
// VjpRule), one file per family: elementwise_vjp.cpp, shape_vjp.cpp
// (reductions, shapes, contractions), indexing_vjp.cpp (slices, gather,
// scatter), linalg_vjp.cpp (the LAPACK solvers) and collective_vjp.cpp (shard_map and its collectives). They are
// built from other primitives (vjp_support.hpp) and live in ops/ beside the
// table, not in transforms/: grad (transforms/grad.cpp) reaches them only
// through the table.
#pragma once

#include "interp/ops/primitives.hpp"

namespace interp::vjp {

using Cotangents = std::vector<ArrayRef>;

// No cotangent for any operand: comparisons, integer and boolean results,
// random bits, indices, debug prints.
Cotangents zero_vjp(const VjpCall& call);
// The result's cotangent to the first operand as it is (placement and
// sharding constraints: grad moves each gradient to its argument's layout).
Cotangents identity_vjp(const VjpCall& call);

// JAX has no rule (pmax, pmin): "Differentiation rule for 'pmax' not
// implemented", as JAX raises it.
Cotangents not_differentiable(const VjpCall& call);

// elementwise_vjp.cpp
Cotangents abs_vjp(const VjpCall& call);
Cotangents add_vjp(const VjpCall& call);
Cotangents cos_vjp(const VjpCall& call);
Cotangents divide_vjp(const VjpCall& call);
Cotangents arctan2_vjp(const VjpCall& call);
Cotangents erf_vjp(const VjpCall& call);
Cotangents erf_inv_vjp(const VjpCall& call);
Cotangents exp_vjp(const VjpCall& call);
Cotangents expm1_vjp(const VjpCall& call);
Cotangents log_vjp(const VjpCall& call);
Cotangents log1p_vjp(const VjpCall& call);
Cotangents maximum_vjp(const VjpCall& call);
Cotangents minimum_vjp(const VjpCall& call);
Cotangents multiply_vjp(const VjpCall& call);
Cotangents negative_vjp(const VjpCall& call);
Cotangents power_vjp(const VjpCall& call);
Cotangents integer_pow_vjp(const VjpCall& call);
Cotangents clamp_vjp(const VjpCall& call);
Cotangents reduce_precision_vjp(const VjpCall& call);
Cotangents remainder_vjp(const VjpCall& call);
Cotangents sort_vjp(const VjpCall& call);

// linalg_vjp.cpp
Cotangents linalg_solve_vjp(const VjpCall& call);
Cotangents cholesky_vjp(const VjpCall& call);
Cotangents slogdet_vjp(const VjpCall& call);
Cotangents qr_vjp(const VjpCall& call);
Cotangents svd_vjp(const VjpCall& call);
Cotangents eigh_vjp(const VjpCall& call);
Cotangents rsqrt_vjp(const VjpCall& call);
Cotangents select_n_vjp(const VjpCall& call);
Cotangents sin_vjp(const VjpCall& call);
Cotangents sqrt_vjp(const VjpCall& call);
Cotangents square_vjp(const VjpCall& call);
Cotangents subtract_vjp(const VjpCall& call);
Cotangents tan_vjp(const VjpCall& call);
Cotangents tanh_vjp(const VjpCall& call);

// shape_vjp.cpp
Cotangents broadcast_in_dim_vjp(const VjpCall& call);
Cotangents concatenate_vjp(const VjpCall& call);
Cotangents convert_vjp(const VjpCall& call);
Cotangents cumsum_vjp(const VjpCall& call);
Cotangents dot_general_vjp(const VjpCall& call);
Cotangents reduce_extremum_vjp(const VjpCall& call);  // reduce_max, reduce_min
Cotangents reduce_mean_vjp(const VjpCall& call);
Cotangents reduce_prod_vjp(const VjpCall& call);
Cotangents reduce_sum_vjp(const VjpCall& call);
Cotangents reshape_vjp(const VjpCall& call);
Cotangents rev_vjp(const VjpCall& call);
Cotangents transpose_vjp(const VjpCall& call);

// convolution_vjp.cpp
Cotangents conv_general_dilated_vjp(const VjpCall& call);
Cotangents reduce_window_sum_vjp(const VjpCall& call);
Cotangents reduce_window_extremum_vjp(const VjpCall& call);  // reduce_window_max, reduce_window_min
// Each other's transposes (in the source or tangents; none for the operand).
Cotangents select_and_scatter_add_vjp(const VjpCall& call);
Cotangents select_and_gather_add_vjp(const VjpCall& call);

// indexing_vjp.cpp
Cotangents dynamic_slice_vjp(const VjpCall& call);
Cotangents dynamic_update_slice_vjp(const VjpCall& call);
Cotangents gather_vjp(const VjpCall& call);
Cotangents scatter_vjp(const VjpCall& call);
Cotangents slice_vjp(const VjpCall& call);
Cotangents update_slice_vjp(const VjpCall& call);

// collective_vjp.cpp
Cotangents all_gather_vjp(const VjpCall& call);
Cotangents all_to_all_vjp(const VjpCall& call);
Cotangents pmean_vjp(const VjpCall& call);
Cotangents ppermute_vjp(const VjpCall& call);
Cotangents psum_vjp(const VjpCall& call);
Cotangents psum_scatter_vjp(const VjpCall& call);
Cotangents pvary_vjp(const VjpCall& call);
// device_put / reshard: the cotangent takes the operand's placement and its
// cotangent type (unreduced and reduced swapped, sharding-ad.md), so a cast
// to reduced transposes to the reshard from unreduced that sums.
Cotangents device_put_vjp(const VjpCall& call);
// preduced -> psum of the unreduced cotangent; vary_unreduced_cast and
// reduced_vary_cast transpose to each other (sharding-ad.md's table).
Cotangents preduced_vjp(const VjpCall& call);
Cotangents vary_unreduced_cast_vjp(const VjpCall& call);
Cotangents reduced_vary_cast_vjp(const VjpCall& call);
Cotangents shard_map_enter_vjp(const VjpCall& call);
Cotangents shard_map_exit_vjp(const VjpCall& call);

}  // namespace interp::vjp
