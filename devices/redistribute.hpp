// Moving an array's blocks from one placement to another: a reshard, a move
// to other devices, a host transfer. With several processes
// (processes.hpp) each process builds the blocks it holds in the new
// placement, and only the bytes it lacks cross processes: each from one
// process that holds them, straight to the one that needs them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "devices/collectives.hpp"
#include "devices/processes.hpp"

namespace devices {

// Where each position's block lies in the whole array and who holds it.
// Blocks of distinct origins do not overlap; positions with the same
// origin hold the same block (replicas).
struct Placement {
  Shape block_shape;  // every position's block has this shape
  struct Position {
    std::vector<std::int64_t> origin;  // the block's first index, per dimension
    int process = every_process;
  };
  std::vector<Position> positions;
};

enum class Replicas {
  equal,  // any replica of a block will do: the nearest is taken
  first,  // replicas may differ (a shard_map body's values): the first
          // position's is the block, as one process reads it
};

// `shards` (one per position of `from`, placeholders where another process
// holds it) in the placement `to`: one shard per position of `to`, a
// placeholder (sized) where another process holds it. Positions of `to`
// with the same block share one buffer on each process; a block this
// process holds already is shared, not copied. Every process of the run
// calls it with the same placements (the plan is the same everywhere);
// when nothing needs to cross processes, none communicates.
Expected<Shards> redistribute(const Shards& shards, const Placement& from, const Placement& to,
                              typecheck::DType dtype, const std::shared_ptr<MemoryLedger>& ledger,
                              Replicas replicas = Replicas::equal);

}  // namespace devices
