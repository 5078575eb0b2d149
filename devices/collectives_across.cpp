// The collectives' groups whose members are on several processes
// (collective_support.hpp): what crosses processes goes through the
// transport, and only to the processes that need it.
#include <algorithm>
#include <cstring>

#include "devices/collective_support.hpp"

namespace devices::collective_support {

namespace {

// Reductions go through the processes a piece of this many bytes at a time,
// so that the next process starts on a piece while this one works on the
// following one.
constexpr std::size_t pipeline_piece_bytes = std::size_t{4} << 20;

// Consecutive members on one process, [first, last) in member order.
struct Run {
  int process = 0;
  std::size_t first = 0;
  std::size_t last = 0;
};

std::vector<Run> runs_of(const Members& members) {
  std::vector<Run> runs;
  for (std::size_t k = 0; k < members.positions.size(); ++k) {
    if (!runs.empty() && runs.back().process == members.process[k]) runs.back().last = k + 1;
    else runs.push_back({members.process[k], k, k + 1});
  }
  return runs;
}

std::size_t index_in(const std::vector<int>& sorted, int value) {
  return static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), value) - sorted.begin());
}

const std::byte* member_bytes(const Call& call, const Members& members, std::size_t k) {
  return call.shards()[static_cast<std::size_t>(members.positions[k])]->bytes().data();
}

// The members of run `run` folded into `accumulator` for elements
// [begin, begin + count): loaded from the first when `first_run`.
void fold_run(const Call& call, const Members& members, const Fold& fold, const Run& run, bool first_run,
              std::byte* accumulator, std::size_t begin, std::size_t count) {
  std::size_t offset = begin * fold.element_bytes();
  std::size_t k = run.first;
  if (first_run) fold.load(accumulator, member_bytes(call, members, k++) + offset, count);
  for (; k < run.last; ++k) fold.combine(accumulator, member_bytes(call, members, k) + offset, count);
}

// Each process has one run: the partial result flows piece by piece along
// the runs, and the last process sends each finished piece on to the others
// as soon as it has it (when `deliver`).
void fold_pipelined(const Call& call, const Members& members, const Fold& fold, const std::vector<Run>& runs,
                    std::byte* accumulator, Buffer* out, bool deliver, std::size_t count) {
  Transport& transport = call.transport();
  std::size_t mine = 0;
  while (runs[mine].process != call.me()) ++mine;
  bool last = mine + 1 == runs.size();
  int last_process = runs.back().process;
  std::size_t piece = std::max<std::size_t>(1, pipeline_piece_bytes / fold.accumulator_bytes());
  if (deliver && !last)
    for (std::size_t begin = 0; begin < count; begin += piece)
      transport.start_receive(last_process, out->bytes().subspan(begin * fold.element_bytes(),
                                                                 std::min(piece, count - begin) * fold.element_bytes()));
  for (std::size_t begin = 0; begin < count; begin += piece) {
    std::size_t length = std::min(piece, count - begin);
    std::span<std::byte> partial(accumulator + begin * fold.accumulator_bytes(), length * fold.accumulator_bytes());
    if (mine > 0) transport.wait(transport.start_receive(runs[mine - 1].process, partial));
    fold_run(call, members, fold, runs[mine], mine == 0, partial.data(), begin, length);
    if (!last) {
      transport.start_send(runs[mine + 1].process, partial);
      continue;
    }
    std::span<std::byte> finished = out->bytes().subspan(begin * fold.element_bytes(), length * fold.element_bytes());
    fold.finish(partial.data(), finished.data(), length);
    if (deliver)
      for (int process : members.processes)
        if (process != call.me()) transport.start_send(process, finished);
  }
  transport.complete();
}

// A process has several runs: the whole partial result goes from run to
// run, then the last process broadcasts it (when `deliver`).
void fold_in_turn(const Call& call, const Members& members, const Fold& fold, const std::vector<Run>& runs,
                  std::byte* accumulator, Buffer* out, bool deliver, std::size_t count) {
  Transport& transport = call.transport();
  std::span<std::byte> partial(accumulator, count * fold.accumulator_bytes());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].process != call.me()) continue;
    if (r > 0) transport.wait(transport.start_receive(runs[r - 1].process, partial));
    fold_run(call, members, fold, runs[r], r == 0, accumulator, 0, count);
    if (r + 1 < runs.size()) transport.wait(transport.start_send(runs[r + 1].process, partial));
  }
  if (runs.back().process == call.me()) fold.finish(accumulator, out->bytes().data(), count);
  if (deliver) transport.broadcast(out->bytes(), runs.back().process, members.processes);
}

}  // namespace

void gather_across(const Call& call, const Members& members, const Slab& piece, std::byte* out) {
  std::size_t piece_bytes = static_cast<std::size_t>(piece.outer * piece.extent * piece.inner_bytes);
  std::size_t n = members.positions.size();
  // Member k's piece goes to slot k of the processes' parts, in process
  // order, each process's members in member order.
  std::vector<std::size_t> counts(members.processes.size(), 0);
  for (int process : members.process) counts[index_in(members.processes, process)] += piece_bytes;
  std::vector<std::size_t> part_start(members.processes.size(), 0);
  for (std::size_t p = 1; p < counts.size(); ++p) part_start[p] = part_start[p - 1] + counts[p - 1];
  std::vector<std::size_t> slot(n);
  std::vector<std::size_t> filled(members.processes.size(), 0);
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = index_in(members.processes, members.process[k]);
    slot[k] = part_start[p] + filled[p];
    filled[p] += piece_bytes;
  }
  // In place when that order is member order and the pieces are whole
  // rows of the result (gathering along its leading dimension).
  bool in_place = piece.outer == 1 && std::is_sorted(members.process.begin(), members.process.end());
  std::vector<std::byte> staging(in_place ? 0 : piece_bytes * n);
  std::byte* parts = in_place ? out : staging.data();
  for (std::size_t k = 0; k < n; ++k)
    if (members.process[k] == call.me()) std::memcpy(parts + slot[k], member_bytes(call, members, k), piece_bytes);
  call.transport().all_gather(std::span<std::byte>(parts, piece_bytes * n), counts, members.processes);
  if (in_place) return;
  std::vector<const std::byte*> pieces;
  for (std::size_t k = 0; k < n; ++k) pieces.push_back(parts + slot[k]);
  concatenate(pieces, piece, out);
}

Expected<std::shared_ptr<Buffer>> fold_across(const Call& call, const Members& members, const Fold& fold,
                                              std::int64_t element_count, bool deliver) {
  std::vector<Run> runs = runs_of(members);
  bool pipelined = true;
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (std::size_t s = r + 1; s < runs.size(); ++s)
      if (runs[r].process == runs[s].process) pipelined = false;
  bool last = runs.back().process == call.me();
  std::shared_ptr<Buffer> out;
  if (deliver || last) {
    Expected<std::shared_ptr<Buffer>> made = call.allocate(element_count);
    if (!made) return made;
    out = *made;
  }
  // The partial result, in the accumulator's dtype; counted as host memory.
  Expected<std::shared_ptr<Buffer>> accumulator =
      Buffer::allocate(call.ledger(), fold.accumulator(), element_count, Fill::uninitialized);
  if (!accumulator) return accumulator;
  std::size_t count = static_cast<std::size_t>(element_count);
  std::byte* partial = (*accumulator)->bytes().data();
  if (pipelined) fold_pipelined(call, members, fold, runs, partial, out.get(), deliver, count);
  else fold_in_turn(call, members, fold, runs, partial, out.get(), deliver, count);
  return out;
}

Status scatter_across(const Call& call, const Members& members, const std::shared_ptr<Buffer>& total,
                      const Slab& whole, Shards& result) {
  Transport& transport = call.transport();
  int holder = members.process.back();
  std::int64_t parts = static_cast<std::int64_t>(members.positions.size());
  std::int64_t piece_count = (whole.outer * whole.extent * whole.inner_bytes) /
                             static_cast<std::int64_t>(call.element_bytes()) / parts;
  std::vector<std::shared_ptr<Buffer>> outgoing;  // alive until complete()
  for (std::size_t k = 0; k < members.positions.size(); ++k) {
    int position = members.positions[k];
    int process = members.process[k];
    if (process != call.me() && holder != call.me()) {
      result[static_cast<std::size_t>(position)] = call.remote(position, piece_count);
      continue;
    }
    Expected<std::shared_ptr<Buffer>> piece = call.allocate(piece_count);
    if (!piece) return piece.error();
    if (holder == call.me()) take_piece(total->bytes().data(), whole, parts, static_cast<std::int64_t>(k),
                                        (*piece)->bytes().data());
    if (process == call.me()) {
      if (holder != call.me()) transport.start_receive(holder, (*piece)->bytes());
      result[static_cast<std::size_t>(position)] = *piece;
    } else {
      transport.start_send(process, (*piece)->bytes());
      outgoing.push_back(*piece);
      result[static_cast<std::size_t>(position)] = call.remote(position, piece_count);
    }
  }
  transport.complete();
  return {};
}

void exchange_across(const Call& call, const Members& members, const Slab& whole,
                     std::vector<std::vector<std::byte>>& slots) {
  Transport& transport = call.transport();
  std::size_t n = members.positions.size();
  std::int64_t parts = static_cast<std::int64_t>(n);
  std::size_t piece_bytes = static_cast<std::size_t>(whole.outer * whole.extent * whole.inner_bytes) / n;
  auto count_on = [&](int process) {
    return static_cast<std::size_t>(std::count(members.process.begin(), members.process.end(), process));
  };
  std::size_t here = count_on(call.me());
  // To each other process, per member k of its in member order: piece k of
  // each member here, in member order.
  std::vector<std::vector<std::byte>> outgoing;
  for (std::size_t k = 0; k < n; ++k) {
    if (members.process[k] == call.me()) continue;
    std::vector<std::byte>& message = outgoing.emplace_back(here * piece_bytes);
    std::byte* next = message.data();
    for (std::size_t j = 0; j < n; ++j) {
      if (members.process[j] != call.me()) continue;
      take_piece(member_bytes(call, members, j), whole, parts, static_cast<std::int64_t>(k), next);
      next += piece_bytes;
    }
    transport.start_send(members.process[k], message);
  }
  // From each other process, per member k here: its members' pieces k.
  struct Incoming {
    std::size_t k;
    int process;
    std::vector<std::byte> bytes;
  };
  std::vector<Incoming> incoming;
  for (std::size_t k = 0; k < n; ++k) {
    if (members.process[k] != call.me()) continue;
    for (int process : members.processes) {
      if (process == call.me()) continue;
      incoming.push_back({k, process, std::vector<std::byte>(count_on(process) * piece_bytes)});
    }
  }
  for (Incoming& message : incoming) transport.start_receive(message.process, message.bytes);
  transport.complete();
  if (piece_bytes == 0) return;  // empty pieces: nothing to place (and no storage to copy into)
  for (const Incoming& message : incoming) {
    const std::byte* next = message.bytes.data();
    for (std::size_t j = 0; j < n; ++j) {
      if (members.process[j] != message.process) continue;
      std::memcpy(slots[message.k].data() + j * piece_bytes, next, piece_bytes);
      next += piece_bytes;
    }
  }
}

Status permute_across(const Call& call, const std::vector<std::pair<int, int>>& pairs, std::int64_t element_count,
                      Shards& result) {
  bool crossing = false;
  for (auto [source, target] : pairs) {
    bool source_here = call.is_local(source), target_here = call.is_local(target);
    if (target_here && source_here) continue;
    if (!target_here) {
      result[static_cast<std::size_t>(target)] = call.remote(target, element_count);
      if (source_here) {
        call.transport().start_send(call.process_of(target), call.shards()[static_cast<std::size_t>(source)]->bytes());
        crossing = true;
      }
      continue;
    }
    Expected<std::shared_ptr<Buffer>> received = call.allocate(element_count);
    if (!received) return received.error();
    call.transport().start_receive(call.process_of(source), (*received)->bytes());
    result[static_cast<std::size_t>(target)] = *received;
    crossing = true;
  }
  if (crossing) call.transport().complete();
  return {};
}

}  // namespace devices::collective_support
