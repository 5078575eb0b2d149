// Transfers between a host array in memory and the shards of an array: one
// block of the host array (any byte strides, as NumPy's) copied to or from a
// row-major shard buffer, straight to its place. A transfer of a sharded
// array copies each block once, without assembling the whole array first
// (the embedding API's make_array and Array::read).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "devices/buffer.hpp"

namespace devices {

// Where a block sits in a host array: its first index and its extent per
// dimension, and the host array's byte stride per dimension.
struct HostBlock {
  std::span<const std::int64_t> start;
  std::span<const std::int64_t> shape;
  std::span<const std::int64_t> host_strides;
};

// The byte strides of a row-major (C order) array of `shape`.
std::vector<std::int64_t> row_major_strides(std::span<const std::int64_t> shape, std::size_t element_size);

// A new shard of `dtype` holding the block of the host array at `host`
// (elements stored as Buffer stores them: NumPy's layout of the dtype).
Expected<std::shared_ptr<Buffer>> shard_from_host(const std::shared_ptr<MemoryLedger>& ledger, typecheck::DType dtype,
                                                  const std::byte* host, const HostBlock& block);
// `shard` (row-major, the block's elements) written to its block of the
// host array at `host`.
void shard_to_host(const Buffer& shard, const HostBlock& block, std::byte* host);

}  // namespace devices
