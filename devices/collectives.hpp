// Collectives on the shards of a mesh: what the partitioner inserts
// (runtime.md "Executing") and the executor runs. Each takes one shard per
// mesh position (row-major over the mesh, all of one dtype and shape, as in
// SPMD) and the replica groups that communicate, and returns one shard per
// position. Members of a group that receive equal results share one Buffer
// (stored once, as a replicated shard is); placing the results on devices,
// and so counting them in HBM, is the caller's step (the array that holds
// them, MemoryLedger::allocate).
//
// In a run over several processes (processes.hpp) every process calls each
// collective, in the same order. A position another process holds has a
// placeholder shard (Buffer::remote) and gets one in the result; a group
// whose members are on several processes communicates through the
// transport (one communicator per set of processes), moving only what
// another process needs; members on this process share memory as above.
// The results are bit for bit those of one process.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "devices/buffer.hpp"
#include "devices/error.hpp"
#include "devices/kernels.hpp"

namespace devices {

using Shape = std::vector<std::int64_t>;
using Shards = std::vector<std::shared_ptr<Buffer>>;
// Groups of mesh positions; every position in exactly one group. Within a
// group, members are in the order their pieces are concatenated.
using ReplicaGroups = std::vector<std::vector<int>>;

// The groups of positions of a mesh of `mesh_shape` that differ only along
// `axes` (indices of mesh axes; several axes act as one, the first major),
// as XLA's replica groups for a collective over those mesh axes.
ReplicaGroups replica_groups(const std::vector<int>& mesh_shape, const std::vector<int>& axes);

// Each member gets its group's shards concatenated along `dimension`.
Expected<Shards> all_gather(const Shards& shards, const Shape& shard_shape, const ReplicaGroups& groups,
                            int dimension);

// Each member gets the elementwise reduction over its group, taken member
// by member in group order: `op` is sum, max or min (bf16/f16 reduced in
// f32 and rounded once; integers wrap; float max and min propagate NaN;
// bool's sum and max are or, its min is and).
Expected<Shards> all_reduce(ReduceOp op, const Shards& shards, const Shape& shard_shape, const ReplicaGroups& groups);
// all_reduce of sum.
Expected<Shards> all_reduce_sum(const Shards& shards, const Shape& shard_shape, const ReplicaGroups& groups);

// The group's sum, split along `dimension` into as many pieces as members:
// member k gets piece k.
Expected<Shards> reduce_scatter_sum(const Shards& shards, const Shape& shard_shape,
                                    const ReplicaGroups& groups, int dimension);

// Each member splits its shard along `split_dimension` into as many pieces
// as members and sends piece k to member k; each concatenates what it
// receives along `concat_dimension`, in member order.
Expected<Shards> all_to_all(const Shards& shards, const Shape& shard_shape, const ReplicaGroups& groups,
                            int split_dimension, int concat_dimension);

// Shard of position `source` goes to position `target` for every pair; a
// position no pair targets gets zeros (XLA's collective-permute).
Expected<Shards> collective_permute(const Shards& shards, const Shape& shard_shape,
                                    const std::vector<std::pair<int, int>>& source_target_pairs);

}  // namespace devices
