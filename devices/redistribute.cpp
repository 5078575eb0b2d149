#include "devices/redistribute.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <optional>
#include <string>

#include "devices/processes.hpp"

namespace devices {
namespace {

using Index = std::vector<std::int64_t>;

struct Box {
  Index origin;
  Index extent;
};

std::int64_t count_of(const Index& extent) {
  // An empty box's other extents may multiply past int64.
  if (std::find(extent.begin(), extent.end(), 0) != extent.end()) return 0;
  std::int64_t count = 1;
  for (std::int64_t e : extent) count *= e;
  return count;
}

bool intersect(const Box& a, const Box& b, Box& out) {
  out.origin.resize(a.origin.size());
  out.extent.resize(a.origin.size());
  for (std::size_t d = 0; d < a.origin.size(); ++d) {
    std::int64_t begin = std::max(a.origin[d], b.origin[d]);
    std::int64_t end = std::min(a.origin[d] + a.extent[d], b.origin[d] + b.extent[d]);
    if (end <= begin) return false;
    out.origin[d] = begin;
    out.extent[d] = end - begin;
  }
  return true;
}

bool contains(const Box& outer, const Box& inner) {
  for (std::size_t d = 0; d < outer.origin.size(); ++d)
    if (inner.origin[d] < outer.origin[d] || inner.origin[d] + inner.extent[d] > outer.origin[d] + outer.extent[d])
      return false;
  return true;
}

// Dimensions [first_row_dimension, rank) of `box` in a block of `shape`
// are one contiguous row: the later ones are whole in both.
std::size_t first_row_dimension(const Index& extent, const Index& a, const Index& b) {
  std::size_t k = extent.size();
  while (k > 0) {
    --k;
    if (extent[k] != a[k] || extent[k] != b[k]) break;
  }
  return k;
}

std::int64_t offset_in(const Index& block_origin, const Index& block_shape, const Index& at) {
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < block_shape.size(); ++d) offset = offset * block_shape[d] + (at[d] - block_origin[d]);
  return offset;
}

// The bytes of `box` from the block (origin, shape) at `source` into the
// block at `target`.
void copy_box(const std::byte* source, const Index& source_origin, const Index& source_shape, std::byte* target,
              const Index& target_origin, const Index& target_shape, const Box& box, std::size_t element) {
  std::size_t rank = box.extent.size();
  if (count_of(box.extent) == 0) return;
  std::size_t k = rank == 0 ? 0 : first_row_dimension(box.extent, source_shape, target_shape);
  std::size_t row = element;
  for (std::size_t d = k; d < rank; ++d) row *= static_cast<std::size_t>(box.extent[d]);
  Index at = box.origin;
  while (true) {
    std::memcpy(target + static_cast<std::size_t>(offset_in(target_origin, target_shape, at)) * element,
                source + static_cast<std::size_t>(offset_in(source_origin, source_shape, at)) * element, row);
    // The next index over dimensions [0, k), last fastest.
    std::size_t d = k;
    while (d > 0) {
      --d;
      if (++at[d] < box.origin[d] + box.extent[d]) break;
      at[d] = box.origin[d];
      if (d == 0) return;
    }
    if (k == 0) return;
  }
}

// Whether `box` is one contiguous run of bytes of the block.
bool contiguous_in(const Box& box, const Index& block_shape) {
  if (box.extent.empty()) return true;
  std::size_t k = first_row_dimension(box.extent, block_shape, block_shape);
  for (std::size_t d = 0; d < k; ++d)
    if (box.extent[d] != 1) return false;
  return true;
}

// The positions with one origin: a block and the processes that hold it.
struct Block {
  Box box;
  std::vector<int> positions;
  std::vector<int> processes;  // sorted
};

void add_processes(std::vector<int>& processes, int process, int count) {
  if (process == every_process)
    for (int p = 0; p < count; ++p) processes.push_back(p);
  else
    processes.push_back(process);
  std::sort(processes.begin(), processes.end());
  processes.erase(std::unique(processes.begin(), processes.end()), processes.end());
}

std::vector<Block> blocks_of(const Placement& placement, int process_count, bool first_only) {
  std::vector<Block> blocks;
  std::map<Index, std::size_t> by_origin;
  for (std::size_t p = 0; p < placement.positions.size(); ++p) {
    const Placement::Position& position = placement.positions[p];
    auto [found, inserted] = by_origin.emplace(position.origin, blocks.size());
    if (inserted) blocks.push_back({{position.origin, placement.block_shape}, {}, {}});
    Block& block = blocks[found->second];
    if (first_only && !block.positions.empty()) continue;
    block.positions.push_back(static_cast<int>(p));
    add_processes(block.processes, position.process, process_count);
  }
  return blocks;
}

bool holds(const Block& block, int process) {
  return std::binary_search(block.processes.begin(), block.processes.end(), process);
}

// One piece of a target block that crosses processes.
struct Transfer {
  int sender = 0;
  int receiver = 0;
  std::size_t source = 0;  // source block
  std::size_t target = 0;  // target block
  Box box;
};

// How a process gets a target block: from one source block it holds that
// covers it, or piece by piece (local pieces, then transfers).
struct Recipe {
  std::optional<std::size_t> covering;
  std::vector<std::pair<std::size_t, Box>> local_pieces;  // source block, piece
};

struct Plan {
  std::vector<Block> sources;
  std::vector<Block> targets;
  std::vector<Transfer> transfers;  // in the order both sides start them
  std::map<std::size_t, Recipe> mine;  // by target block this process needs
};

Plan plan_for(const Placement& from, const Placement& to, Replicas replicas, int me, int count) {
  Plan plan;
  plan.sources = blocks_of(from, count, replicas == Replicas::first);
  plan.targets = blocks_of(to, count, false);
  for (std::size_t t = 0; t < plan.targets.size(); ++t) {
    const Block& target = plan.targets[t];
    for (int receiver : target.processes) {
      Recipe recipe;
      for (std::size_t s = 0; s < plan.sources.size() && !recipe.covering; ++s)
        if (holds(plan.sources[s], receiver) && contains(plan.sources[s].box, target.box)) recipe.covering = s;
      for (std::size_t s = 0; s < plan.sources.size() && !recipe.covering; ++s) {
        const Block& source = plan.sources[s];
        Box piece;
        if (!intersect(source.box, target.box, piece)) continue;
        if (holds(source, receiver)) {
          recipe.local_pieces.emplace_back(s, piece);
        } else {
          int sender = source.processes[static_cast<std::size_t>(receiver) % source.processes.size()];
          plan.transfers.push_back({sender, receiver, s, t, piece});
        }
      }
      if (receiver == me) plan.mine.emplace(t, std::move(recipe));
    }
  }
  return plan;
}

bool same_placement(const Placement& a, const Placement& b) {
  return a.block_shape == b.block_shape &&
         std::equal(a.positions.begin(), a.positions.end(), b.positions.begin(), b.positions.end(),
                    [](const Placement::Position& x, const Placement::Position& y) {
                      return x.process == y.process && x.origin == y.origin;
                    });
}

// plan_for's plan, from the few this thread made last: a program's moves
// repeat with each of its calls.
std::shared_ptr<const Plan> kept_plan(const Placement& from, const Placement& to, Replicas replicas, int me, int count) {
  struct Kept {
    Placement from, to;
    Replicas replicas = Replicas::equal;
    int me = 0, count = 0;
    std::shared_ptr<const Plan> plan;
  };
  thread_local std::array<Kept, 16> kept;
  thread_local std::size_t next = 0;
  for (const Kept& entry : kept)
    if (entry.plan && entry.replicas == replicas && entry.me == me && entry.count == count &&
        same_placement(entry.from, from) && same_placement(entry.to, to))
      return entry.plan;
  auto plan = std::make_shared<const Plan>(plan_for(from, to, replicas, me, count));
  kept[next] = {from, to, replicas, me, count, plan};
  next = (next + 1) % kept.size();
  return plan;
}

// This process's shard of a source block (null when it holds none).
std::shared_ptr<Buffer> shard_here(const Shards& shards, const Block& block) {
  for (int position : block.positions) {
    const std::shared_ptr<Buffer>& shard = shards[static_cast<std::size_t>(position)];
    if (!shard->is_remote()) return shard;
  }
  return nullptr;
}

}  // namespace

Expected<Shards> redistribute(const Shards& shards, const Placement& from, const Placement& to, typecheck::DType dtype,
                              const std::shared_ptr<MemoryLedger>& ledger, Replicas replicas) {
  const Processes& processes = ledger->processes();
  int me = processes.index();
  if (shards.size() != from.positions.size())
    return Error{ErrorKind::invalid_argument, "redistribute needs one shard per position"};
  for (std::size_t p = 0; p < shards.size(); ++p) {
    int process = from.positions[p].process;
    bool here = process == every_process || process == me;
    if (!shards[p] || (here && shards[p]->is_remote()))
      return Error{ErrorKind::invalid_argument,
                   "the shard of position " + std::to_string(p) + " is missing on the process that holds it"};
  }
  const std::shared_ptr<const Plan> kept = kept_plan(from, to, replicas, me, processes.count());
  const Plan& plan = *kept;
  std::size_t element = static_cast<std::size_t>(typecheck::byte_size(dtype));
  std::int64_t block_count = count_of(to.block_shape);

  // The target blocks this process holds.
  std::map<std::size_t, std::shared_ptr<Buffer>> built;
  for (const auto& [t, recipe] : plan.mine) {
    const Block& target = plan.targets[t];
    if (recipe.covering) {
      const Block& source = plan.sources[*recipe.covering];
      std::shared_ptr<Buffer> whole = shard_here(shards, source);
      if (source.box.origin == target.box.origin && from.block_shape == to.block_shape) {
        built[t] = whole;
        continue;
      }
      // A block whose bytes are consecutive in the one covering it (and
      // start 64-byte aligned, as the kernels' buffers do) is a view of
      // them, not a copy: a host array put on a mesh is not held twice.
      std::size_t at = static_cast<std::size_t>(offset_in(source.box.origin, from.block_shape, target.box.origin));
      if (contiguous_in(target.box, from.block_shape) && at * element % 64 == 0) {
        Expected<std::shared_ptr<Buffer>> view =
            Buffer::view(whole, static_cast<std::int64_t>(at), count_of(to.block_shape));
        if (!view) return view.error();
        built[t] = *view;
        continue;
      }
    }
    Expected<std::shared_ptr<Buffer>> made = Buffer::allocate(ledger, dtype, block_count, Fill::uninitialized);
    if (!made) return made.error();
    built[t] = *made;
    auto copy_piece = [&](std::size_t s, const Box& piece) {
      copy_box(shard_here(shards, plan.sources[s])->bytes().data(), plan.sources[s].box.origin, from.block_shape,
               (*made)->bytes().data(), target.box.origin, to.block_shape, piece, element);
    };
    if (recipe.covering) copy_piece(*recipe.covering, target.box);
    for (const auto& [s, piece] : recipe.local_pieces) copy_piece(s, piece);
  }

  // What crosses processes: straight from and into the blocks when the
  // piece is contiguous there, else through a packed copy.
  struct Unpack {
    std::vector<std::byte> packed;
    const Transfer* transfer;
  };
  std::vector<std::vector<std::byte>> outgoing;
  std::vector<Unpack> incoming;
  if (!plan.transfers.empty() && processes.count() > 1) {
    Transport& transport = processes.transport();
    transport.begin_operation();
    incoming.reserve(plan.transfers.size());
    for (const Transfer& transfer : plan.transfers) {
      std::size_t bytes = static_cast<std::size_t>(count_of(transfer.box.extent)) * element;
      if (transfer.sender == me) {
        const Block& source = plan.sources[transfer.source];
        const std::byte* data = shard_here(shards, source)->bytes().data();
        if (contiguous_in(transfer.box, from.block_shape)) {
          std::size_t at = static_cast<std::size_t>(offset_in(source.box.origin, from.block_shape, transfer.box.origin));
          transport.start_send(transfer.receiver, std::span<const std::byte>(data + at * element, bytes));
        } else {
          std::vector<std::byte>& packed = outgoing.emplace_back(bytes);
          copy_box(data, source.box.origin, from.block_shape, packed.data(), transfer.box.origin, transfer.box.extent,
                   transfer.box, element);
          transport.start_send(transfer.receiver, packed);
        }
      } else if (transfer.receiver == me) {
        const Block& target = plan.targets[transfer.target];
        std::byte* data = built[transfer.target]->bytes().data();
        if (contiguous_in(transfer.box, to.block_shape)) {
          std::size_t at = static_cast<std::size_t>(offset_in(target.box.origin, to.block_shape, transfer.box.origin));
          transport.start_receive(transfer.sender, std::span<std::byte>(data + at * element, bytes));
        } else {
          Unpack& unpack = incoming.emplace_back(Unpack{std::vector<std::byte>(bytes), &transfer});
          transport.start_receive(transfer.sender, unpack.packed);
        }
      }
    }
    transport.complete();
    for (const Unpack& unpack : incoming) {
      const Transfer& transfer = *unpack.transfer;
      copy_box(unpack.packed.data(), transfer.box.origin, transfer.box.extent,
               built[transfer.target]->bytes().data(), plan.targets[transfer.target].box.origin, to.block_shape,
               transfer.box, element);
    }
  }

  Shards result(to.positions.size());
  for (std::size_t t = 0; t < plan.targets.size(); ++t)
    for (int position : plan.targets[t].positions) {
      int process = to.positions[static_cast<std::size_t>(position)].process;
      result[static_cast<std::size_t>(position)] =
          process == every_process || process == me ? built.at(t)
                                                    : Buffer::remote(ledger, process, dtype, block_count);
    }
  return result;
}

}  // namespace devices
