// jax.random (runtime.md "Random numbers") on the bit-exact threefry of
// devices/threefry.hpp and devices/random_samplers.hpp.
//
// A key is its data: a uint32 array whose last dimension is 2 (the two
// threefry words). jax.random.PRNGKey gives that raw array; jax.random.key
// gives a *typed* key array (KeyArrayObject), the same data with key<fry>
// as its printed type and indexing by key. Inside jit a key is the raw
// data (a u32[2] program input), so a key works in every trace.
//
// Three primitives do the work, so random numbers run eagerly, trace under
// jit and type-check alike; each carries the threefry mode it was traced in
// (`mode` = "partitionable" or "stable") as a param:
//   random_split(key)            [num, mode]           -> u32[num, 2]
//   random_fold_in(key, data)    [mode]                -> u32[2]
//   random_sample(key, *scalars) [sampler, shape, dtype, mode]
//     sampler uniform (scalars minval, maxval), normal, bernoulli (p),
//     randint (minval, maxval) or bits.
// The result is replicated on the key's mesh; every device generates it
// alone. A sampler's out_sharding= puts the sample there, and only the
// placed shards charge device memory (device_memory.hpp). The partitioner (partitioner.cpp) marks a stable-mode draw that is
// consumed sharded with the collective-permute XLA inserts for it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interp/ops/primitives.hpp"

namespace interp {

// A typed key array: data u32[*key_shape, 2], printed and typed as
// key<fry>[*key_shape]; indexing and iteration give typed keys.
class KeyArrayObject : public ArrayObject {
 public:
  const TypeRef& type() const override;
  std::string repr(Evaluator& evaluator) const override;
  std::string str(Evaluator& evaluator) const override { return repr(evaluator); }
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override;
  std::optional<std::int64_t> length(Evaluator& evaluator) const override;
  // "key<fry>[2]", as jax.typeof prints it.
  std::string key_type() const;
};

// jax.typeof's text for a typed key array, nullopt for any other value.
std::optional<std::string> key_type_text(const Value& value);

// Entries of the primitive table (primitives.cpp lists them).
ArrayRef random_fold_in_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef random_sample_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
ArrayRef random_split_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>&, const Params&, bool);
// Threefry hashing per generated element, plus the bytes written.
// jax.random.gumbel, exponential, laplace and categorical, composed on
// jax.random.uniform (random_distributions.cpp).
void install_random_distributions(Evaluator& evaluator);

Cost random_cost(const Primitive& primitive, const std::vector<typecheck::ArrayType>& operands,
                 const typecheck::ArrayType& result, const Params&);

// An array made without a device charge (in an UnchargedScope) put at
// `out_sharding`, which is checked as JAX types a created array:
// jnp.zeros(..., out_sharding=) and the samplers' out_sharding=
// (jax_modules.cpp).
Value place_created(Evaluator& evaluator, std::string_view api, const ArrayRef& array, const Value& out_sharding);

// The jax.random members.
void install_random_module(Evaluator& evaluator);

}  // namespace interp
