// What collectives.cpp and collectives_across.cpp share and nothing else
// sees: moving pieces of row-major shards, reducing shards elementwise, and
// a collective call as one process of the run sees it (processes.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "devices/collectives.hpp"
#include "devices/kernels.hpp"
#include "devices/processes.hpp"

namespace devices::collective_support {

using typecheck::DType;

std::int64_t element_product(const Shape& shape);
Error invalid(std::string message);

// A dimension of a row-major array seen as [outer, extent, inner bytes].
struct Slab {
  std::int64_t outer = 1;
  std::int64_t extent = 1;
  std::int64_t inner_bytes = 1;
};
Slab slab(const Shape& shape, int dimension, DType dtype);

// Concatenates equally shaped pieces (each `piece` as a slab) along the slab
// dimension into `out`.
void concatenate(const std::vector<const std::byte*>& pieces, const Slab& piece, std::byte* out);
// Copies piece `index` of `parts` equal pieces of `whole` along the slab
// dimension into `out`.
void take_piece(const std::byte* whole, const Slab& slab_of_whole, std::int64_t parts, std::int64_t index,
                std::byte* out);

// An elementwise reduction (sum, max or min) of shards, member by member in
// group order, as XLA's all-reduce computes it: bf16 and f16 accumulate in
// f32 and round once at the end; integers wrap; bool's sum and max are or,
// its min is and; float max and min propagate NaN. Works on any run of
// elements, so a reduction can go piece by piece.
class Fold {
 public:
  Fold(ReduceOp op, DType dtype) : op_(op), dtype_(dtype) {}
  DType dtype() const { return dtype_; }
  // The dtype the running result is kept in.
  DType accumulator() const;
  std::size_t accumulator_bytes() const { return static_cast<std::size_t>(typecheck::byte_size(accumulator())); }
  std::size_t element_bytes() const { return static_cast<std::size_t>(typecheck::byte_size(dtype_)); }
  // accumulator = member (count elements)
  void load(std::byte* accumulator, const std::byte* member, std::size_t count) const;
  // accumulator = accumulator op member
  void combine(std::byte* accumulator, const std::byte* member, std::size_t count) const;
  // out = accumulator, rounded to the dtype
  void finish(const std::byte* accumulator, std::byte* out, std::size_t count) const;

 private:
  ReduceOp op_;
  DType dtype_;
};

// One collective call as this process sees it. Made once per call: on a run
// of several processes it starts one transport operation (processes.hpp).
class Call {
 public:
  explicit Call(const Shards& shards);

  const Shards& shards() const { return shards_; }
  int me() const { return processes_.index(); }
  Transport& transport() const { return processes_.transport(); }
  bool is_local(int position) const { return !shards_[static_cast<std::size_t>(position)]->is_remote(); }
  int process_of(int position) const;
  DType dtype() const { return dtype_; }
  const std::shared_ptr<MemoryLedger>& ledger() const { return shards_.front()->ledger(); }
  std::size_t element_bytes() const { return static_cast<std::size_t>(typecheck::byte_size(dtype_)); }

  // A new result buffer here.
  Expected<std::shared_ptr<Buffer>> allocate(std::int64_t element_count, Fill fill = Fill::uninitialized) const;
  // The placeholder of a result of `element_count` elements at a position
  // another process holds (unsized when no shard says the dtype).
  std::shared_ptr<Buffer> remote(int position, std::int64_t element_count) const;

 private:
  const Shards& shards_;
  const Processes& processes_;
  DType dtype_ = DType::float32;
  bool dtype_known_ = false;
};

// The members of one replica group as this process sees them.
struct Members {
  std::vector<int> positions;  // in member order
  std::vector<int> process;    // the process holding each
  std::vector<int> processes;  // those processes, sorted, once each
  bool any_local = false;
  bool all_local = true;
};
Members members_of(const Call& call, const std::vector<int>& group);

// ---- Across processes (collectives_across.cpp); `members` has members
// both here and elsewhere.

// `out` receives the group's pieces (each a `piece` slab) concatenated
// along the slab dimension.
void gather_across(const Call& call, const Members& members, const Slab& piece, std::byte* out);
// The group's reduction of `element_count` elements: on every process with
// members when `deliver`, else only on the process of the last member (and
// null elsewhere).
Expected<std::shared_ptr<Buffer>> fold_across(const Call& call, const Members& members, const Fold& fold,
                                              std::int64_t element_count, bool deliver);
// reduce_scatter_sum's pieces: member k's piece of `total` (a whole the
// process of the last member holds, null elsewhere) into result[position].
Status scatter_across(const Call& call, const Members& members, const std::shared_ptr<Buffer>& total,
                      const Slab& whole, Shards& result);
// all_to_all's exchange: for each local member k, `slots[k]` (members x
// piece bytes) receives piece k of every member's shard, in member order.
void exchange_across(const Call& call, const Members& members, const Slab& whole,
                     std::vector<std::vector<std::byte>>& slots);
// collective_permute's transfers for the pairs that cross processes
// (`result` has each target's source shard; those that cross processes
// become what arrived, or a placeholder).
Status permute_across(const Call& call, const std::vector<std::pair<int, int>>& pairs, std::int64_t element_count,
                      Shards& result);

}  // namespace devices::collective_support
