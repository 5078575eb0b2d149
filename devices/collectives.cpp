#include "devices/collectives.hpp"

#include <algorithm>
#include <cstring>
#include <span>

#include <fmt/format.h>

#include "devices/half_float.hpp"

namespace devices {
namespace {

using typecheck::DType;

std::int64_t element_product(const Shape& shape) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

Error invalid(std::string message) { return Error{ErrorKind::invalid_argument, std::move(message)}; }

// Every shard present, of one dtype and of `shard_shape`.
Status check_shards(const Shards& shards, const Shape& shard_shape) {
  if (shards.empty()) return invalid("a collective needs at least one shard");
  for (std::int64_t extent : shard_shape)
    if (extent < 0) return invalid("a shard shape cannot have a negative extent");
  std::int64_t count = element_product(shard_shape);
  for (std::size_t position = 0; position < shards.size(); ++position) {
    const std::shared_ptr<Buffer>& shard = shards[position];
    if (!shard) return invalid(fmt::format("the shard of position {} is missing", position));
    if (shard->dtype() != shards.front()->dtype())
      return invalid(fmt::format("shards of one collective must share a dtype: {} and {}",
                                 typecheck::long_name(shards.front()->dtype()),
                                 typecheck::long_name(shard->dtype())));
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

// A dimension of a row-major array seen as [outer, extent, inner bytes].
struct Slab {
  std::int64_t outer = 1;
  std::int64_t extent = 1;
  std::int64_t inner_bytes = 1;
};

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

// Concatenates equally shaped pieces (each `piece` as a slab) along the slab
// dimension into `out`.
void concatenate(const std::vector<const std::byte*>& pieces, const Slab& piece, std::byte* out) {
  std::size_t row = static_cast<std::size_t>(piece.extent * piece.inner_bytes);
  for (std::int64_t o = 0; o < piece.outer; ++o)
    for (const std::byte* source : pieces) {
      std::memcpy(out, source + static_cast<std::size_t>(o) * row, row);
      out += row;
    }
}

// Copies piece `index` of `parts` equal pieces of `whole` along the slab
// dimension into `out`.
void take_piece(const std::byte* whole, const Slab& slab_of_whole, std::int64_t parts, std::int64_t index,
                std::byte* out) {
  std::int64_t piece_extent = slab_of_whole.extent / parts;
  std::size_t row = static_cast<std::size_t>(piece_extent * slab_of_whole.inner_bytes);
  for (std::int64_t o = 0; o < slab_of_whole.outer; ++o) {
    const std::byte* source = whole + static_cast<std::size_t>(
                                          (o * slab_of_whole.extent + index * piece_extent) * slab_of_whole.inner_bytes);
    std::memcpy(out, source, row);
    out += row;
  }
}

Expected<std::shared_ptr<Buffer>> allocate_like(const Buffer& model, std::int64_t element_count,
                                                Fill fill = Fill::uninitialized) {
  return Buffer::allocate(model.ledger(), model.dtype(), element_count, fill);
}

// Wrapping integer sum: unsigned arithmetic of the same width.
template <class Stored, class Unsigned>
void add_wrapping(std::span<Stored> total, std::span<const Stored> addend) {
  for (std::size_t i = 0; i < total.size(); ++i)
    total[i] = static_cast<Stored>(static_cast<Unsigned>(static_cast<Unsigned>(total[i]) + static_cast<Unsigned>(addend[i])));
}

// The elementwise sum of `group`'s shards into `out`.
void sum_into(const Shards& shards, const std::vector<int>& group, Buffer& out) {
  auto shard = [&](std::size_t member) -> const Buffer& { return *shards[static_cast<std::size_t>(group[member])]; };
  std::memcpy(out.bytes().data(), shard(0).bytes().data(), out.bytes().size());
  switch (out.dtype()) {
    case DType::float32: {
      std::span<float> total = out.elements<DType::float32>();
      for (std::size_t member = 1; member < group.size(); ++member) {
        std::span<const float> addend = shard(member).elements<DType::float32>();
        for (std::size_t i = 0; i < total.size(); ++i) total[i] += addend[i];
      }
      return;
    }
    case DType::bfloat16:
    case DType::float16: {
      bool bf16 = out.dtype() == DType::bfloat16;
      std::span<std::uint16_t> stored = bf16 ? out.elements<DType::bfloat16>() : out.elements<DType::float16>();
      std::vector<float> total(stored.size()), addend(stored.size());
      auto widen = [&](std::span<const std::uint16_t> source, std::vector<float>& wide) {
        if (bf16) float_from_bfloat16(source, wide);
        else float_from_float16(source, wide);
      };
      widen(stored, total);
      for (std::size_t member = 1; member < group.size(); ++member) {
        widen(bf16 ? shard(member).elements<DType::bfloat16>() : shard(member).elements<DType::float16>(), addend);
        for (std::size_t i = 0; i < total.size(); ++i) total[i] += addend[i];
      }
      if (bf16) bfloat16_from_float(total, stored);
      else float16_from_float(total, stored);
      return;
    }
    case DType::int32:
      for (std::size_t member = 1; member < group.size(); ++member)
        add_wrapping<std::int32_t, std::uint32_t>(out.elements<DType::int32>(), shard(member).elements<DType::int32>());
      return;
    case DType::uint32:
      for (std::size_t member = 1; member < group.size(); ++member)
        add_wrapping<std::uint32_t, std::uint32_t>(out.elements<DType::uint32>(), shard(member).elements<DType::uint32>());
      return;
    case DType::int8:
      for (std::size_t member = 1; member < group.size(); ++member)
        add_wrapping<std::int8_t, std::uint8_t>(out.elements<DType::int8>(), shard(member).elements<DType::int8>());
      return;
    case DType::bool_: {  // XLA's add on booleans is or
      std::span<std::uint8_t> total = out.elements<DType::bool_>();
      for (std::size_t member = 1; member < group.size(); ++member) {
        std::span<const std::uint8_t> addend = shard(member).elements<DType::bool_>();
        for (std::size_t i = 0; i < total.size(); ++i) total[i] = static_cast<std::uint8_t>(total[i] | addend[i]);
      }
      return;
    }
  }
}

Status check_divisible(const Shape& shape, int dimension, std::size_t parts) {
  if (shape[static_cast<std::size_t>(dimension)] % static_cast<std::int64_t>(parts) != 0)
    return invalid(fmt::format("dimension {} of extent {} cannot be split into {} equal pieces", dimension,
                               shape[static_cast<std::size_t>(dimension)], parts));
  return {};
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
  Shards result(shards.size());
  Slab piece = slab(shard_shape, dimension, shards.front()->dtype());
  for (const std::vector<int>& group : groups) {
    Expected<std::shared_ptr<Buffer>> gathered =
        allocate_like(*shards.front(), shards.front()->element_count() * static_cast<std::int64_t>(group.size()));
    if (!gathered) return gathered.error();
    std::vector<const std::byte*> pieces;
    for (int position : group) pieces.push_back(shards[static_cast<std::size_t>(position)]->bytes().data());
    concatenate(pieces, piece, (*gathered)->bytes().data());
    for (int position : group) result[static_cast<std::size_t>(position)] = *gathered;
  }
  return result;
}

Expected<Shards> all_reduce_sum(const Shards& shards, const Shape& shard_shape, const ReplicaGroups& groups) {
  if (Status s = check_shards(shards, shard_shape); !s) return s.error();
  if (Status s = check_groups(groups, shards.size()); !s) return s.error();
  Shards result(shards.size());
  for (const std::vector<int>& group : groups) {
    Expected<std::shared_ptr<Buffer>> total = allocate_like(*shards.front(), shards.front()->element_count());
    if (!total) return total.error();
    sum_into(shards, group, **total);
    for (int position : group) result[static_cast<std::size_t>(position)] = *total;
  }
  return result;
}

Expected<Shards> reduce_scatter_sum(const Shards& shards, const Shape& shard_shape, const ReplicaGroups& groups,
                                    int dimension) {
  if (Status s = check_shards(shards, shard_shape); !s) return s.error();
  if (Status s = check_groups(groups, shards.size()); !s) return s.error();
  if (Status s = check_dimension(shard_shape, dimension); !s) return s.error();
  Slab whole = slab(shard_shape, dimension, shards.front()->dtype());
  Shards result(shards.size());
  for (const std::vector<int>& group : groups) {
    if (Status s = check_divisible(shard_shape, dimension, group.size()); !s) return s.error();
    Expected<std::shared_ptr<Buffer>> total = allocate_like(*shards.front(), shards.front()->element_count());
    if (!total) return total.error();
    sum_into(shards, group, **total);
    std::int64_t parts = static_cast<std::int64_t>(group.size());
    for (std::int64_t k = 0; k < parts; ++k) {
      Expected<std::shared_ptr<Buffer>> piece = allocate_like(*shards.front(), shards.front()->element_count() / parts);
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
  DType dtype = shards.front()->dtype();
  Slab whole = slab(shard_shape, split_dimension, dtype);
  Shards result(shards.size());
  for (const std::vector<int>& group : groups) {
    if (Status s = check_divisible(shard_shape, split_dimension, group.size()); !s) return s.error();
    std::int64_t parts = static_cast<std::int64_t>(group.size());
    Shape piece_shape = shard_shape;
    piece_shape[static_cast<std::size_t>(split_dimension)] /= parts;
    std::size_t piece_bytes = static_cast<std::size_t>(element_product(piece_shape) * typecheck::byte_size(dtype));
    Slab piece_slab = slab(piece_shape, concat_dimension, dtype);
    std::vector<std::byte> received(piece_bytes * group.size());
    for (std::int64_t k = 0; k < parts; ++k) {
      std::vector<const std::byte*> pieces;
      for (std::size_t j = 0; j < group.size(); ++j) {
        std::byte* slot = received.data() + j * piece_bytes;
        take_piece(shards[static_cast<std::size_t>(group[j])]->bytes().data(), whole, parts, k, slot);
        pieces.push_back(slot);
      }
      Expected<std::shared_ptr<Buffer>> out = allocate_like(*shards.front(), shards.front()->element_count());
      if (!out) return out.error();
      concatenate(pieces, piece_slab, (*out)->bytes().data());
      result[static_cast<std::size_t>(group[static_cast<std::size_t>(k)])] = *out;
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
    // Shared, not copied: a later write copies (DeviceBuffer::writable).
    result[static_cast<std::size_t>(target)] = shards[static_cast<std::size_t>(source)];
  }
  std::shared_ptr<Buffer> zeros;
  for (std::shared_ptr<Buffer>& slot : result) {
    if (slot) continue;
    if (!zeros) {
      Expected<std::shared_ptr<Buffer>> made = allocate_like(*shards.front(), shards.front()->element_count(), Fill::zeros);
      if (!made) return made.error();
      zeros = *made;
    }
    slot = zeros;
  }
  return result;
}

}  // namespace devices
