// A program over several processes as multi-controller JAX sees it
// (docs/scale-out.md): jax.process_count / process_index / local_devices,
// jax.distributed, jax.experimental.multihost_utils, and an array's
// addressable shards (those of this process's devices).
#pragma once

#include "interp/ops/array.hpp"

namespace interp {

// x.addressable_shards: a list of jax.Shard (device, index, replica_id,
// data), one per device of this process that holds part of `array`.
Value addressable_shards(Evaluator& evaluator, const ArrayRef& array);
// x.is_fully_addressable: every shard is on this process.
bool is_fully_addressable(Evaluator& evaluator, const ArrayObject& array);

void install_multihost(Evaluator& evaluator);

}  // namespace interp
