// How a jaxpr shows a primitive's params as JAX 0.11 prints them (the
// `params` of a table entry's LaxForm, primitives.hpp): JAX's param names
// and values where ours are stored differently, and what JAX's own
// pp_eqn rules leave out (a broadcast's shape, a result's sharding: the
// binder's type shows them).
#pragma once

#include "interp/ops/primitives.hpp"

namespace interp::jaxpr_params {

// broadcast_dimensions=(0,), left out when empty (lax._broadcast_in_dim_pp_rule).
PrintedParams broadcast_in_dim(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                               const typecheck::ArrayType& result);
// Nothing: reshard's target is the binder's type (pjit._pp_reshard).
PrintedParams none(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                   const typecheck::ArrayType& result);
// new_dtype=float32 weak_type=False.
PrintedParams convert_element_type(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                                   const typecheck::ArrayType& result);
// dimension_numbers=(([1], [0]), ([], [])) precision=... preferred_element_type=float32.
PrintedParams dot_general(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                          const typecheck::ArrayType& result);
// dimensions=None new_sizes=(2, 4) sharding=None.
PrintedParams reshape(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                      const typecheck::ArrayType& result);
// rounding_method=1 (jnp.round rounds to nearest even).
PrintedParams round(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                    const typecheck::ArrayType& result);
// Reductions: axes=(0, 1) (every axis where none was given), keepdims=True
// where the result keeps them (ours: JAX reshapes after); reduce_sum, _max,
// _min (and our reduce_mean) with out_sharding, argmax and argmin with index_dtype.
PrintedParams reduction(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                        const typecheck::ArrayType& result);
PrintedParams sharded_reduction(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                                const typecheck::ArrayType& result);
PrintedParams arg_reduction(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                            const typecheck::ArrayType& result);

}  // namespace interp::jaxpr_params
