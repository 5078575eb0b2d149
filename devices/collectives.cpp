#include "devices/collectives.hpp"

#include <algorithm>
#include <cstring>
#include <span>

#include <fmt/format.h>

#include "devices/collective_support.hpp"
#include "devices/half_float.hpp"
#include "devices/vector_math.hpp"

namespace devices {
namespace collective_support {

std::int64_t element_product(const Shape& shape) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

Error invalid(std::string message) { return Error{ErrorKind::invalid_argument, std::move(message)}; }

Slab slab(const Shape& shape, int dimension, DType dtype) {
  Slab result;
  result.inner_bytes = typecheck::byte_size(dtype);
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    if (static_cast<int>(axis) < dimension) result.outer *= shape[axis];
    else if (static_cast<int>(axis) == dimension) result.extent = shape[axis];
    else result.inner_bytes *= shape[axis];
  }
  return result;
}

void concatenate(const std::vector<const std::byte*>& pieces, const Slab& piece, std::byte* out) {
  std::size_t row = static_cast<std::size_t>(piece.extent * piece.inner_bytes);
  if (row == 0) return;  // an empty array's buffers may have no storage at all
  for (std::int64_t o = 0; o < piece.outer; ++o)
    for (const std::byte* source : pieces) {
      std::memcpy(out, source + static_cast<std::size_t>(o) * row, row);
      out += row;
    }
}

void take_piece(const std::byte* whole, const Slab& slab_of_whole, std::int64_t parts, std::int64_t index,
                std::byte* out) {
  std::int64_t piece_extent = slab_of_whole.extent / parts;
  std::size_t row = static_cast<std::size_t>(piece_extent * slab_of_whole.inner_bytes);
  if (row == 0) return;  // an empty array's buffers may have no storage at all
  for (std::int64_t o = 0; o < slab_of_whole.outer; ++o) {
    const std::byte* source = whole + static_cast<std::size_t>(
                                          (o * slab_of_whole.extent + index * piece_extent) * slab_of_whole.inner_bytes);
    std::memcpy(out, source, row);
    out += row;
  }
}

// ------------------------------------------------------------ Fold

namespace {

bool is_half(DType dtype) { return dtype == DType::bfloat16 || dtype == DType::float16; }

// Elements widened from bf16/f16 a block at a time (no whole-shard copy).
constexpr std::size_t widen_block = 1 << 14;

void widen(DType dtype, const std::byte* source, float* out, std::size_t count) {
  std::span<const std::uint16_t> halves(reinterpret_cast<const std::uint16_t*>(source), count);
  if (dtype == DType::bfloat16) float_from_bfloat16(halves, std::span<float>(out, count));
  else float_from_float16(halves, std::span<float>(out, count));
}

template <class T>
T* as(std::byte* bytes) {
  return reinterpret_cast<T*>(bytes);
}
template <class T>
const T* as(const std::byte* bytes) {
  return reinterpret_cast<const T*>(bytes);
}

void combine_floats(ReduceOp op, float* total, const float* member, std::size_t count) {
  switch (op) {
    case ReduceOp::max:
      for (std::size_t i = 0; i < count; ++i) total[i] = float_max(total[i], member[i]);
      return;
    case ReduceOp::min:
      for (std::size_t i = 0; i < count; ++i) total[i] = float_min(total[i], member[i]);
      return;
    default: add_row_f32(total, member, count); return;
  }
}

// Integers: the sum wraps (unsigned arithmetic of the same width).
template <class Stored, class Unsigned>
void combine_integers(ReduceOp op, Stored* total, const Stored* member, std::size_t count) {
  switch (op) {
    case ReduceOp::max:
      for (std::size_t i = 0; i < count; ++i) total[i] = std::max(total[i], member[i]);
      return;
    case ReduceOp::min:
      for (std::size_t i = 0; i < count; ++i) total[i] = std::min(total[i], member[i]);
      return;
    default:
      for (std::size_t i = 0; i < count; ++i)
        total[i] = static_cast<Stored>(static_cast<Unsigned>(static_cast<Unsigned>(total[i]) + static_cast<Unsigned>(member[i])));
      return;
  }
}

}  // namespace

DType Fold::accumulator() const { return is_half(dtype_) ? DType::float32 : dtype_; }

void Fold::load(std::byte* accumulator, const std::byte* member, std::size_t count) const {
  if (is_half(dtype_)) widen(dtype_, member, as<float>(accumulator), count);
  else std::memcpy(accumulator, member, count * element_bytes());
}

void Fold::combine(std::byte* accumulator, const std::byte* member, std::size_t count) const {
  switch (dtype_) {
    case DType::float32: combine_floats(op_, as<float>(accumulator), as<float>(member), count); return;
    case DType::bfloat16:
    case DType::float16: {
      std::vector<float> wide(std::min(count, widen_block));
      for (std::size_t start = 0; start < count; start += widen_block) {
        std::size_t length = std::min(widen_block, count - start);
        widen(dtype_, member + start * 2, wide.data(), length);
        combine_floats(op_, as<float>(accumulator) + start, wide.data(), length);
      }
      return;
    }
    case DType::int32:
      combine_integers<std::int32_t, std::uint32_t>(op_, as<std::int32_t>(accumulator), as<std::int32_t>(member), count);
      return;
    case DType::uint32:
      combine_integers<std::uint32_t, std::uint32_t>(op_, as<std::uint32_t>(accumulator), as<std::uint32_t>(member), count);
      return;
    case DType::int8:
      combine_integers<std::int8_t, std::uint8_t>(op_, as<std::int8_t>(accumulator), as<std::int8_t>(member), count);
      return;
    case DType::bool_: {
      std::uint8_t* total = as<std::uint8_t>(accumulator);
      const std::uint8_t* addend = as<std::uint8_t>(member);
      if (op_ == ReduceOp::min)
        for (std::size_t i = 0; i < count; ++i) total[i] = static_cast<std::uint8_t>(total[i] & addend[i]);
      else
        for (std::size_t i = 0; i < count; ++i) total[i] = static_cast<std::uint8_t>(total[i] | addend[i]);
      return;
    }
  }
}

void Fold::finish(const std::byte* accumulator, std::byte* out, std::size_t count) const {
  if (!is_half(dtype_)) {
    if (accumulator != out) std::memcpy(out, accumulator, count * element_bytes());
    return;
  }
  std::span<const float> total(as<float>(accumulator), count);
  std::span<std::uint16_t> stored(as<std::uint16_t>(out), count);
  if (dtype_ == DType::bfloat16) bfloat16_from_float(total, stored);
  else float16_from_float(total, stored);
}

// ------------------------------------------------------------ Call

Call::Call(const Shards& shards) : shards_(shards), processes_(shards.front()->ledger()->processes()) {
  for (const std::shared_ptr<Buffer>& shard : shards) {
    if (!shard->is_sized()) continue;
    dtype_ = shard->dtype();
    dtype_known_ = true;
    if (!shard->is_remote()) break;  // a local shard's dtype is the one to trust
  }
  if (processes_.count() > 1) transport().begin_operation();
}

int Call::process_of(int position) const {
  const Buffer& shard = *shards_[static_cast<std::size_t>(position)];
  return shard.is_remote() ? shard.process() : me();
}

Expected<std::shared_ptr<Buffer>> Call::allocate(std::int64_t element_count, Fill fill) const {
  return Buffer::allocate(ledger(), dtype_, element_count, fill);
}

std::shared_ptr<Buffer> Call::remote(int position, std::int64_t element_count) const {
  int process = process_of(position);
  return dtype_known_ ? Buffer::remote(ledger(), process, dtype_, element_count) : Buffer::remote_unsized(ledger(), process);
}

Members members_of(const Call& call, const std::vector<int>& group) {
  Members members;
  members.positions = group;
  for (int position : group) {
    int process = call.process_of(position);
    members.process.push_back(process);
    if (process == call.me()) members.any_local = true;
    else members.all_local = false;
    if (std::find(members.processes.begin(), members.processes.end(), process) == members.processes.end())
      members.processes.push_back(process);
  }
  std::sort(members.processes.begin(), members.processes.end());
  return members;
}

}  // namespace collective_support

namespace {

using namespace collective_support;

// The shards this process holds are present, of one dtype and of
// `shard_shape` (the others are placeholders).
Status check_shards(const Shards& shards, const Shape& shard_shape) {
  if (shards.empty()) return invalid("a collective needs at least one shard");
  for (std::int64_t extent : shard_shape)
    if (extent < 0) return invalid("a shard shape cannot have a negative extent");
  std::int64_t count = element_product(shard_shape);
  const Buffer* first = nullptr;
  for (std::size_t position = 0; position < shards.size(); ++position) {
    const std::shared_ptr<Buffer>& shard = shards[position];
    if (!shard) return invalid(fmt::format("the shard of position {} is missing", position));
    if (shard->is_remote()) continue;
    if (!first) first = shard.get();
    if (shard->dtype() != first->dtype())
      return invalid(fmt::format("shards of one collective must share a dtype: {} and {}",
                                 typecheck::long_name(first->dtype()), typecheck::long_name(shard->dtype())));
    if (shard->element_count() != count)
      return invalid(fmt::format("the shard of position {} has {} elements, its shape needs {}", position,
                                 shard->element_count(), count));
  }
  return {};
}

// The groups name every position exactly once.
Status check_groups(const ReplicaGroups& groups, std::size_t positions) {
  std::vector<bool> seen(positions, false);
  std::size_t named = 0;
  for (const std::vector<int>& group : groups) {
    if (group.empty()) return invalid("a replica group cannot be empty");
    for (int position : group) {
      if (position < 0 || static_cast<std::size_t>(position) >= positions || seen[static_cast<std::size_t>(position)])
        return invalid(fmt::format("replica groups must name each of the {} positions once; {} is out of "
                                   "range or repeated",
                                   positions, position));
      seen[static_cast<std::size_t>(position)] = true;
      ++named;
    }
  }
  if (named != positions) return invalid(fmt::format("replica groups name {} of {} positions", named, positions));
  return {};
}

Status check_dimension(const Shape& shape, int dimension) {
  if (dimension < 0 || static_cast<std::size_t>(dimension) >= shape.size())
    return invalid(fmt::format("dimension {} is out of range for a shard of rank {}", dimension, shape.size()));
  return {};
}

Status check_divisible(const Shape& shape, int dimension, std::size_t parts) {
  if (shape[static_cast<std::size_t>(dimension)] % static_cast<std::int64_t>(parts) != 0)
    return invalid(fmt::format("dimension {} of extent {} cannot be split into {} equal pieces", dimension,
                               shape[static_cast<std::size_t>(dimension)], parts));
  return {};
}

// The members' result: `local` where this process holds the member, a
// placeholder of `element_count` elements elsewhere.
void place_result(const Call& call, const Members& members, const std::shared_ptr<Buffer>& local,
                  std::int64_t element_count, Shards& result) {
  for (std::size_t k = 0; k < members.positions.size(); ++k) {
    int position = members.positions[k];
    result[static_cast<std::size_t>(position)] =
        members.process[k] == call.me() ? local : call.remote(position, element_count);
  }
}

// The reduction of a group whose members are all here.
Expected<std::shared_ptr<Buffer>> fold_here(const Call& call, const Members& members, const Fold& fold,
                                            std::int64_t element_count) {
  Expected<std::shared_ptr<Buffer>> out = call.allocate(element_count);
  if (!out) return out;
  std::size_t count = static_cast<std::size_t>(element_count);
  std::byte* result = (*out)->bytes().data();
  std::vector<std::byte> wide;
  std::byte* accumulator = result;
  if (fold.accumulator() != fold.dtype()) {
    wide.resize(count * fold.accumulator_bytes());
    accumulator = wide.data();
  }
  auto member = [&](std::size_t k) { return call.shards()[static_cast<std::size_t>(members.positions[k])]->bytes().data(); };
  fold.load(accumulator, member(0), count);
  for (std::size_t k = 1; k < members.positions.size(); ++k) fold.combine(accumulator, member(k), count);
  fold.finish(accumulator, result, count);
  return out;
}

}  // namespace

ReplicaGroups replica_groups(const std::vector<int>& mesh_shape, const std::vector<int>& axes) {
  std::size_t rank = mesh_shape.size();
  std::vector<int> strides(rank, 1);
  for (std::size_t axis = rank; axis-- > 1;) strides[axis - 1] = strides[axis] * mesh_shape[axis];
  std::vector<int> other_axes;
  for (int axis = 0; axis < static_cast<int>(rank); ++axis)
    if (std::find(axes.begin(), axes.end(), axis) == axes.end()) other_axes.push_back(axis);
  // Row-major enumeration of the positions spanned by `along`, from `base`.
  auto positions = [&](const std::vector<int>& along, int base) {
    std::vector<int> result{base};
    for (int axis : along) {
      std::vector<int> next;
      for (int position : result)
        for (int i = 0; i < mesh_shape[static_cast<std::size_t>(axis)]; ++i)
          next.push_back(position + i * strides[static_cast<std::size_t>(axis)]);
      result = std::move(next);
    }
    return result;
  };
  ReplicaGroups groups;
  for (int base : positions(other_axes, 0)) groups.push_back(positions(axes, base));
  return groups;
}

Expected<Shards> all_gather(const Shards& shards, const Shape& shard_shape, const ReplicaGroups& groups,
                            int dimension) {
  if (Status s = check_shards(shards, shard_shape); !s) return s.error();
  if (Status s = check_groups(groups, shards.size()); !s) return s.error();
  if (Status s = check_dimension(shard_shape, dimension); !s) return s.error();
  Call call(shards);
  Shards result(shards.size());
  Slab piece = slab(shard_shape, dimension, call.dtype());
  std::int64_t count = element_product(shard_shape);
  for (const std::vector<int>& group : groups) {
    Members members = members_of(call, group);
    std::int64_t gathered_count = count * static_cast<std::int64_t>(group.size());
    std::shared_ptr<Buffer> gathered;
    if (members.any_local) {
      Expected<std::shared_ptr<Buffer>> made = call.allocate(gathered_count);
      if (!made) return made.error();
      gathered = *made;
      if (members.all_local) {
        std::vector<const std::byte*> pieces;
        for (int position : group) pieces.push_back(shards[static_cast<std::size_t>(position)]->bytes().data());
        concatenate(pieces, piece, gathered->bytes().data());
      } else {
        gather_across(call, members, piece, gathered->bytes().data());
      }
    }
    place_result(call, members, gathered, gathered_count, result);
  }
  return result;
}

Expected<Shards> all_reduce(ReduceOp op, const Shards& shards, const Shape& shard_shape, const ReplicaGroups& groups) {
  if (op != ReduceOp::sum && op != ReduceOp::max && op != ReduceOp::min)
    return invalid("all-reduce computes a sum, a max or a min");
  if (Status s = check_shards(shards, shard_shape); !s) return s.error();
  if (Status s = check_groups(groups, shards.size()); !s) return s.error();
  Call call(shards);
  Fold fold(op, call.dtype());
  std::int64_t count = element_product(shard_shape);
  Shards result(shards.size());
  for (const std::vector<int>& group : groups) {
    Members members = members_of(call, group);
    std::shared_ptr<Buffer> total;
    if (members.any_local) {
      Expected<std::shared_ptr<Buffer>> made =
          members.all_local ? fold_here(call, members, fold, count) : fold_across(call, members, fold, count, true);
      if (!made) return made.error();
      total = *made;
    }
    place_result(call, members, total, count, result);
  }
  return result;
}

Expected<Shards> all_reduce_sum(const Shards& shards, const Shape& shard_shape, const ReplicaGroups& groups) {
  return all_reduce(ReduceOp::sum, shards, shard_shape, groups);
}

Expected<Shards> reduce_scatter_sum(const Shards& shards, const Shape& shard_shape, const ReplicaGroups& groups,
                                    int dimension) {
  if (Status s = check_shards(shards, shard_shape); !s) return s.error();
  if (Status s = check_groups(groups, shards.size()); !s) return s.error();
  if (Status s = check_dimension(shard_shape, dimension); !s) return s.error();
  for (const std::vector<int>& group : groups)
    if (Status s = check_divisible(shard_shape, dimension, group.size()); !s) return s.error();
  Call call(shards);
  Fold fold(ReduceOp::sum, call.dtype());
  Slab whole = slab(shard_shape, dimension, call.dtype());
  std::int64_t count = element_product(shard_shape);
  Shards result(shards.size());
  for (const std::vector<int>& group : groups) {
    Members members = members_of(call, group);
    std::int64_t parts = static_cast<std::int64_t>(group.size());
    if (!members.any_local) {
      place_result(call, members, nullptr, count / parts, result);
      continue;
    }
    if (!members.all_local) {
      Expected<std::shared_ptr<Buffer>> total = fold_across(call, members, fold, count, false);
      if (!total) return total.error();
      if (Status s = scatter_across(call, members, *total, whole, result); !s) return s.error();
      continue;
    }
    Expected<std::shared_ptr<Buffer>> total = fold_here(call, members, fold, count);
    if (!total) return total.error();
    for (std::int64_t k = 0; k < parts; ++k) {
      Expected<std::shared_ptr<Buffer>> piece = call.allocate(count / parts);
      if (!piece) return piece.error();
      take_piece((*total)->bytes().data(), whole, parts, k, (*piece)->bytes().data());
      result[static_cast<std::size_t>(group[static_cast<std::size_t>(k)])] = *piece;
    }
  }
  return result;
}

Expected<Shards> all_to_all(const Shards& shards, const Shape& shard_shape, const ReplicaGroups& groups,
                            int split_dimension, int concat_dimension) {
  if (Status s = check_shards(shards, shard_shape); !s) return s.error();
  if (Status s = check_groups(groups, shards.size()); !s) return s.error();
  if (Status s = check_dimension(shard_shape, split_dimension); !s) return s.error();
  if (Status s = check_dimension(shard_shape, concat_dimension); !s) return s.error();
  for (const std::vector<int>& group : groups)
    if (Status s = check_divisible(shard_shape, split_dimension, group.size()); !s) return s.error();
  Call call(shards);
  DType dtype = call.dtype();
  Slab whole = slab(shard_shape, split_dimension, dtype);
  std::int64_t count = element_product(shard_shape);
  Shards result(shards.size());
  for (const std::vector<int>& group : groups) {
    Members members = members_of(call, group);
    if (!members.any_local) {
      place_result(call, members, nullptr, count, result);
      continue;
    }
    std::int64_t parts = static_cast<std::int64_t>(group.size());
    Shape piece_shape = shard_shape;
    piece_shape[static_cast<std::size_t>(split_dimension)] /= parts;
    std::size_t piece_bytes = static_cast<std::size_t>(element_product(piece_shape)) * call.element_bytes();
    Slab piece_slab = slab(piece_shape, concat_dimension, dtype);
    // slots[k]: what member k receives, one piece per member in order.
    std::vector<std::vector<std::byte>> slots(group.size());
    for (std::size_t k = 0; k < group.size(); ++k) {
      if (members.process[k] != call.me()) continue;
      slots[k].resize(piece_bytes * group.size());
      for (std::size_t j = 0; j < group.size(); ++j)
        if (members.process[j] == call.me())
          take_piece(shards[static_cast<std::size_t>(group[j])]->bytes().data(), whole, parts,
                     static_cast<std::int64_t>(k), slots[k].data() + j * piece_bytes);
    }
    if (!members.all_local) exchange_across(call, members, whole, slots);
    for (std::size_t k = 0; k < group.size(); ++k) {
      int position = group[k];
      if (members.process[k] != call.me()) {
        result[static_cast<std::size_t>(position)] = call.remote(position, count);
        continue;
      }
      std::vector<const std::byte*> pieces;
      for (std::size_t j = 0; j < group.size(); ++j) pieces.push_back(slots[k].data() + j * piece_bytes);
      Expected<std::shared_ptr<Buffer>> out = call.allocate(count);
      if (!out) return out.error();
      concatenate(pieces, piece_slab, (*out)->bytes().data());
      result[static_cast<std::size_t>(position)] = *out;
    }
  }
  return result;
}

Expected<Shards> collective_permute(const Shards& shards, const Shape& shard_shape,
                                    const std::vector<std::pair<int, int>>& source_target_pairs) {
  if (Status s = check_shards(shards, shard_shape); !s) return s.error();
  int positions = static_cast<int>(shards.size());
  std::vector<bool> is_source(shards.size(), false);
  Shards result(shards.size());
  for (auto [source, target] : source_target_pairs) {
    if (source < 0 || source >= positions || target < 0 || target >= positions)
      return invalid(fmt::format("collective-permute pair ({}, {}) is outside the {} positions", source, target,
                                 positions));
    if (is_source[static_cast<std::size_t>(source)] || result[static_cast<std::size_t>(target)])
      return invalid(fmt::format("collective-permute pairs must have distinct sources and distinct targets; "
                                 "({}, {}) repeats one",
                                 source, target));
    is_source[static_cast<std::size_t>(source)] = true;
    // Marks the target taken; the shard it gets is decided below.
    result[static_cast<std::size_t>(target)] = shards[static_cast<std::size_t>(source)];
  }
  Call call(shards);
  std::int64_t count = element_product(shard_shape);
  if (Status s = permute_across(call, source_target_pairs, count, result); !s) return s.error();
  std::shared_ptr<Buffer> zeros;
  for (std::size_t position = 0; position < result.size(); ++position) {
    std::shared_ptr<Buffer>& slot = result[position];
    if (slot) continue;
    if (!call.is_local(static_cast<int>(position))) {
      slot = call.remote(static_cast<int>(position), count);
      continue;
    }
    if (!zeros) {
      Expected<std::shared_ptr<Buffer>> made = call.allocate(count, Fill::zeros);
      if (!made) return made.error();
      zeros = *made;
    }
    slot = zeros;
  }
  return result;
}

}  // namespace devices
