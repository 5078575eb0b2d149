#include "devices/host_copy.hpp"

#include <cstring>

namespace devices {

std::vector<std::int64_t> row_major_strides(std::span<const std::int64_t> shape, std::size_t element_size) {
  std::vector<std::int64_t> strides(shape.size());
  std::int64_t stride = static_cast<std::int64_t>(element_size);
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

namespace {

// Walks the block's rows (every dimension but the last), copying each run
// of the last dimension with one memcpy where the host's elements of a run
// are adjacent, element by element otherwise. `to_host` picks the direction.
void copy_block(std::byte* host, const HostBlock& block, std::size_t element_size, std::byte* shard, bool to_host) {
  std::size_t rank = block.shape.size();
  std::int64_t elements = 1;
  for (std::int64_t extent : block.shape) elements *= extent;
  if (elements == 0) return;
  std::int64_t offset = 0;  // of the block's first element in the host array
  for (std::size_t d = 0; d < rank; ++d) offset += block.start[d] * block.host_strides[d];
  if (rank == 0) {
    if (to_host) std::memcpy(host + offset, shard, element_size);
    else std::memcpy(shard, host + offset, element_size);
    return;
  }
  std::int64_t run = block.shape[rank - 1];
  std::int64_t step = block.host_strides[rank - 1];
  bool adjacent = step == static_cast<std::int64_t>(element_size);
  std::size_t run_bytes = static_cast<std::size_t>(run) * element_size;
  std::vector<std::int64_t> index(rank - 1, 0);  // the row, over the leading dimensions
  for (std::int64_t row = 0, rows = elements / run; row < rows; ++row) {
    std::int64_t row_offset = offset;
    for (std::size_t d = 0; d + 1 < rank; ++d) row_offset += index[d] * block.host_strides[d];
    std::byte* in_shard = shard + static_cast<std::size_t>(row) * run_bytes;
    if (adjacent) {
      if (to_host) std::memcpy(host + row_offset, in_shard, run_bytes);
      else std::memcpy(in_shard, host + row_offset, run_bytes);
    } else {
      for (std::int64_t i = 0; i < run; ++i) {
        std::byte* at_host = host + row_offset + i * step;
        std::byte* at_shard = in_shard + static_cast<std::size_t>(i) * element_size;
        if (to_host) std::memcpy(at_host, at_shard, element_size);
        else std::memcpy(at_shard, at_host, element_size);
      }
    }
    for (std::size_t d = rank - 1; d-- > 0;) {  // next row, last leading dimension fastest
      if (++index[d] < block.shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

Expected<std::shared_ptr<Buffer>> shard_from_host(const std::shared_ptr<MemoryLedger>& ledger, typecheck::DType dtype,
                                                  const std::byte* host, const HostBlock& block) {
  std::int64_t count = 1;
  for (std::int64_t extent : block.shape) count *= extent;
  auto shard = Buffer::allocate(ledger, dtype, count, Fill::uninitialized);
  if (!shard) return shard.error();
  // Only read through: the same walk serves both directions.
  copy_block(const_cast<std::byte*>(host), block, static_cast<std::size_t>(typecheck::byte_size(dtype)),
             (*shard)->bytes().data(), false);
  return shard;
}

void shard_to_host(const Buffer& shard, const HostBlock& block, std::byte* host) {
  copy_block(host, block, static_cast<std::size_t>(typecheck::byte_size(shard.dtype())),
             const_cast<std::byte*>(shard.bytes().data()), true);
}

}  // namespace devices
