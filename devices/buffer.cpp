#include "devices/buffer.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <utility>

#include <fmt/format.h>

namespace devices {
namespace {

constexpr std::align_val_t buffer_alignment{64};

// Recently freed large blocks, kept for the next allocation of the same size:
// a program that computes arrays of one shape in a loop then reuses memory
// whose pages are already mapped, instead of paying a page fault per 4 KiB
// (the kernels' main cost on large arrays) and the unmapping, as XLA's
// allocator reuses device memory. Bounded, so the process stays near its
// live size.
class BlockCache {
 public:
  static constexpr std::size_t smallest_block = std::size_t{1} << 20;  // malloc reuses smaller ones well

  static BlockCache& instance() {
    static BlockCache cache;
    return cache;
  }

  void* take(std::size_t size) {
    if (size < smallest_block) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = blocks_.find(size);
    if (found == blocks_.end()) return nullptr;
    void* block = found->second;
    blocks_.erase(found);
    held_ -= size;
    return block;
  }

  // Keeps the block, or frees it (and older ones) to stay within the limit.
  void give(void* block, std::size_t size) {
    if (size < smallest_block || size > limit_ / 2) {
      ::operator delete(block, buffer_alignment);
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    while (held_ + size > limit_ && !blocks_.empty()) {
      auto largest = std::prev(blocks_.end());
      held_ -= largest->first;
      ::operator delete(largest->second, buffer_alignment);
      blocks_.erase(largest);
    }
    blocks_.emplace(size, block);
    held_ += size;
  }

  ~BlockCache() {
    for (auto& [size, block] : blocks_) ::operator delete(block, buffer_alignment);
  }

 private:
  // 1/16 of physical memory, at most 512 MiB.
  BlockCache()
      : limit_(static_cast<std::size_t>(std::min<std::int64_t>(std::int64_t{512} << 20, physical_memory_bytes() / 16))) {}

  std::mutex mutex_;
  std::multimap<std::size_t, void*> blocks_;
  std::size_t held_ = 0;
  std::size_t limit_;
};

std::size_t storage_size(std::int64_t byte_size) { return static_cast<std::size_t>(std::max<std::int64_t>(byte_size, 1)); }

}  // namespace

Buffer::Buffer(std::shared_ptr<MemoryLedger> ledger, typecheck::DType dtype, std::int64_t element_count,
               std::int64_t byte_size, std::byte* data)
    : ledger_(std::move(ledger)), dtype_(dtype), element_count_(element_count), byte_size_(byte_size),
      data_(data) {}

Buffer::~Buffer() {
  if (owner_) return;  // the owner frees the bytes and counted them
  BlockCache::instance().give(data_, storage_size(byte_size_));
  ledger_->release_host(byte_size_);
}

Expected<std::shared_ptr<Buffer>> Buffer::allocate(std::shared_ptr<MemoryLedger> ledger,
                                                   typecheck::DType dtype, std::int64_t element_count,
                                                   Fill fill) {
  std::int64_t byte_size = 0;
  if (element_count < 0 || __builtin_mul_overflow(element_count, typecheck::byte_size(dtype), &byte_size))
    return Error{ErrorKind::invalid_argument,
                 fmt::format("cannot allocate a buffer of {} elements of {}", element_count,
                             typecheck::long_name(dtype))};
  if (Status reserved = ledger->reserve_host(byte_size); !reserved) return reserved.error();
  // Never a null pointer, even for zero elements, so that spans stay valid.
  void* data = BlockCache::instance().take(storage_size(byte_size));
  if (data == nullptr) data = ::operator new(storage_size(byte_size), buffer_alignment, std::nothrow);
  if (data == nullptr) {
    ledger->release_host(byte_size);
    return Error{ErrorKind::host_out_of_memory,
                 fmt::format("the host could not allocate {}", describe_bytes(byte_size))};
  }
  if (fill == Fill::zeros) std::memset(data, 0, static_cast<std::size_t>(byte_size));
  // The constructor is private, hence no make_shared; it cannot throw.
  return std::shared_ptr<Buffer>(
      new Buffer(std::move(ledger), dtype, element_count, byte_size, static_cast<std::byte*>(data)));
}

Expected<std::shared_ptr<Buffer>> Buffer::view(std::shared_ptr<Buffer> owner, std::int64_t offset,
                                               std::int64_t element_count) {
  if (offset < 0 || element_count < 0 || offset + element_count > owner->element_count_)
    return Error{ErrorKind::invalid_argument,
                 fmt::format("a view of elements [{}, {}) of a buffer of {}", offset, offset + element_count,
                             owner->element_count_)};
  const std::int64_t element_size = typecheck::byte_size(owner->dtype_);
  std::byte* data = owner->data_ + offset * element_size;
  if (owner->owner_) owner = owner->owner_;  // views of views share the one owner
  auto made = std::shared_ptr<Buffer>(
      new Buffer(owner->ledger_, owner->dtype_, element_count, element_count * element_size, data));
  made->owner_ = std::move(owner);
  return made;
}

Expected<std::shared_ptr<Buffer>> Buffer::clone() const {
  Expected<std::shared_ptr<Buffer>> copy = allocate(ledger_, dtype_, element_count_, Fill::uninitialized);
  if (copy) std::memcpy((*copy)->data_, data_, static_cast<std::size_t>(byte_size_));
  return copy;
}

DeviceBuffer::DeviceBuffer(std::shared_ptr<Buffer> shard, int device_id)
    : shard_(std::move(shard)), device_id_(device_id) {}

Expected<DeviceBuffer> DeviceBuffer::place(std::shared_ptr<Buffer> shard, int device_id) {
  if (Status reserved = shard->ledger()->reserve_device(device_id, shard->byte_size()); !reserved)
    return reserved.error();
  return DeviceBuffer(std::move(shard), device_id);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : shard_(std::move(other.shard_)), device_id_(other.device_id_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    shard_ = std::move(other.shard_);
    device_id_ = other.device_id_;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  if (shard_) shard_->ledger()->release_device(device_id_, shard_->byte_size());
  shard_.reset();
}

Expected<Buffer*> DeviceBuffer::writable() {
  if (shard_.use_count() > 1 || shard_->is_view()) {
    Expected<std::shared_ptr<Buffer>> copy = shard_->clone();
    if (!copy) return copy.error();
    shard_ = std::move(*copy);
  }
  return shard_.get();
}

Expected<std::vector<DeviceBuffer>> place_replicated(const std::shared_ptr<Buffer>& shard,
                                                     const std::vector<int>& device_ids) {
  std::vector<DeviceBuffer> placed;
  placed.reserve(device_ids.size());
  for (int device_id : device_ids) {
    Expected<DeviceBuffer> one = DeviceBuffer::place(shard, device_id);
    if (!one) return one.error();  // the ones placed so far release their HBM
    placed.push_back(std::move(*one));
  }
  return placed;
}

}  // namespace devices
