#include "devices/buffer.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <iterator>
#include <list>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace devices {
namespace {

constexpr std::align_val_t buffer_alignment{64};

// Small blocks a thread freed, by power-of-two size class, kept for its own
// next allocations without a lock: malloc's 64-byte-aligned path and the
// free after it cost more than the kernel of a small shard (an eager op on
// 1,024 elements over 8 devices allocates 8 such shards). A class keeps up
// to 1 MiB of blocks, and at least 64: a jitted step of small arrays on 8
// devices frees a few hundred shards (and their Buffer objects) of one class
// at once and asks for as many again at its next call. At most 11 MiB a
// thread.
struct SmallBlocks {
  static constexpr std::size_t smallest_class = 64;
  static constexpr std::size_t largest_class = std::size_t{1} << 15;
  static constexpr std::size_t classes = 10;  // 64 B .. 32 KiB
  static constexpr std::size_t bytes_per_class = std::size_t{1} << 20;

  // The class of a small size: 64 << index bytes is the least that holds it.
  static std::size_t class_index(std::size_t size) {
    return static_cast<std::size_t>(std::bit_width(std::max(size, smallest_class) - 1)) - 6;
  }
  static constexpr std::size_t blocks_per_class(std::size_t index) {
    return std::max<std::size_t>(64, bytes_per_class / (smallest_class << index));
  }

  std::array<std::vector<void*>, classes> blocks;
};

// This thread's small blocks: null before first use and after the thread's
// exit began (a buffer freed then, by a static's destructor, goes to the heap).
thread_local SmallBlocks* this_thread_blocks = nullptr;
thread_local bool this_thread_exiting = false;

struct SmallBlocksOwner {
  SmallBlocks kept;
  SmallBlocksOwner() { this_thread_blocks = &kept; }
  ~SmallBlocksOwner() {
    for (const std::vector<void*>& blocks : kept.blocks)
      for (void* block : blocks) ::operator delete(block, buffer_alignment);
    this_thread_blocks = nullptr;
    this_thread_exiting = true;
  }
};

SmallBlocks* thread_small_blocks() {
  if (this_thread_blocks || this_thread_exiting) return this_thread_blocks;
  thread_local SmallBlocksOwner owner;
  return this_thread_blocks;
}

// Recently freed blocks, kept for the next allocation of their size:
// - small ones in the freeing thread's SmallBlocks;
// - large ones (from 1 MiB): a program that computes arrays of one shape in a
//   loop then reuses memory whose pages are already mapped, instead of paying
//   a page fault per 4 KiB (the kernels' main cost on large arrays) and the
//   unmapping, as XLA's allocator reuses device memory. Bounded, so the
//   process stays near its live size.
class BlockCache {
 public:
  static constexpr std::size_t smallest_block = std::size_t{1} << 20;

  static BlockCache& instance() {
    static BlockCache cache;
    return cache;
  }

  // A block of `size` bytes (rounded up to its class when small).
  void* allocate(std::size_t size) {
    if (size <= SmallBlocks::largest_class) {
      const std::size_t index = SmallBlocks::class_index(size);
      if (SmallBlocks* small = thread_small_blocks(); small && !small->blocks[index].empty()) {
        void* block = small->blocks[index].back();
        small->blocks[index].pop_back();
        return block;
      }
      return ::operator new(SmallBlocks::smallest_class << index, buffer_alignment, std::nothrow);
    }
    if (size >= smallest_block) {
      std::lock_guard<std::mutex> lock(mutex_);
      // The most recently given block of this size (its pages the likeliest in cache).
      auto found = std::find_if(blocks_.rbegin(), blocks_.rend(), [&](const auto& kept) { return kept.first == size; });
      if (found != blocks_.rend()) {
        void* block = found->second;
        blocks_.erase(std::next(found).base());
        held_ -= size;
        return block;
      }
    }
    return ::operator new(size, buffer_alignment, std::nothrow);
  }

  // Keeps the block, or frees it (and older ones) to stay within the limit.
  void give(void* block, std::size_t size) {
    if (size <= SmallBlocks::largest_class) {
      const std::size_t index = SmallBlocks::class_index(size);
      if (SmallBlocks* small = thread_small_blocks();
          small && small->blocks[index].size() < SmallBlocks::blocks_per_class(index)) {
        try {
          small->blocks[index].push_back(block);
          return;
        } catch (const std::bad_alloc&) {  // no room to keep it: freed below
        }
      }
    } else if (size >= smallest_block && size <= limit_ / 2) {
      std::lock_guard<std::mutex> lock(mutex_);
      // The oldest go first: blocks freed a while ago (a setup's temporaries)
      // are less likely needed than the ones a loop frees and asks for again.
      while (held_ + size > limit_ && !blocks_.empty()) {
        held_ -= blocks_.front().first;
        ::operator delete(blocks_.front().second, buffer_alignment);
        blocks_.pop_front();
      }
      blocks_.emplace_back(size, block);
      held_ += size;
      return;
    }
    ::operator delete(block, buffer_alignment);
  }

  ~BlockCache() {
    for (auto& [size, block] : blocks_) ::operator delete(block, buffer_alignment);
  }

 private:
  // 1/16 of physical memory, at most 512 MiB.
  BlockCache()
      : limit_(static_cast<std::size_t>(std::min<std::int64_t>(std::int64_t{512} << 20, physical_memory_bytes() / 16))) {}

  std::mutex mutex_;
  std::list<std::pair<std::size_t, void*>> blocks_;  // (size, block), in the order given
  std::size_t held_ = 0;
  std::size_t limit_;
};

std::size_t storage_size(std::int64_t byte_size) { return static_cast<std::size_t>(std::max<std::int64_t>(byte_size, 1)); }

// Allocates the Buffer objects themselves (with their shared_ptr's count)
// from the block cache too: each shard's buffer would otherwise cost a
// malloc and a free of its own.
template <class T>
struct CachedAllocator {
  using value_type = T;
  CachedAllocator() = default;
  template <class U>
  CachedAllocator(const CachedAllocator<U>&) {}  // implicit: the library rebinds allocators

  T* allocate(std::size_t n) {
    void* block = BlockCache::instance().allocate(n * sizeof(T));
    if (!block) throw std::bad_alloc();
    return static_cast<T*>(block);
  }
  void deallocate(T* p, std::size_t n) { BlockCache::instance().give(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const CachedAllocator<U>&) const { return true; }
};

}  // namespace

struct Buffer::Made final : Buffer {
  template <class... Args>
  explicit Made(Args&&... args) : Buffer(std::forward<Args>(args)...) {}
};

template <class... Args>
std::shared_ptr<Buffer> Buffer::make(Args&&... args) {
  return std::allocate_shared<Made>(CachedAllocator<Made>(), std::forward<Args>(args)...);
}

Buffer::Buffer(std::shared_ptr<MemoryLedger> ledger, typecheck::DType dtype, std::int64_t element_count,
               std::int64_t byte_size, std::byte* data, int process)
    : ledger_(std::move(ledger)), dtype_(dtype), element_count_(element_count), byte_size_(byte_size),
      data_(data), process_(process) {}

Buffer::~Buffer() {
  if (owner_ || is_remote()) return;  // the owner frees the bytes and counted them; a placeholder has none
  BlockCache::instance().give(data_, storage_size(byte_size_));
  ledger_->release_host(byte_size_);
}

std::shared_ptr<Buffer> Buffer::remote(std::shared_ptr<MemoryLedger> ledger, int process, typecheck::DType dtype,
                                       std::int64_t element_count) {
  return make(std::move(ledger), dtype, element_count, element_count * typecheck::byte_size(dtype), nullptr, process);
}

std::shared_ptr<Buffer> Buffer::remote_unsized(std::shared_ptr<MemoryLedger> ledger, int process) {
  return make(std::move(ledger), typecheck::DType::float32, std::int64_t{-1}, std::int64_t{0}, nullptr, process);
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
  void* data = BlockCache::instance().allocate(storage_size(byte_size));
  if (data == nullptr) {
    ledger->release_host(byte_size);
    return Error{ErrorKind::host_out_of_memory,
                 fmt::format("the host could not allocate {}", describe_bytes(byte_size))};
  }
  if (fill == Fill::zeros) std::memset(data, 0, static_cast<std::size_t>(byte_size));
  return make(std::move(ledger), dtype, element_count, byte_size, static_cast<std::byte*>(data));
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
  std::shared_ptr<Buffer> made = make(owner->ledger_, owner->dtype_, element_count, element_count * element_size, data);
  made->owner_ = std::move(owner);
  return made;
}

Expected<std::shared_ptr<Buffer>> Buffer::clone() const {
  Expected<std::shared_ptr<Buffer>> copy = allocate(ledger_, dtype_, element_count_, Fill::uninitialized);
  if (copy) std::memcpy((*copy)->data_, data_, static_cast<std::size_t>(byte_size_));
  return copy;
}

Expected<Buffer*> DeviceBuffer::writable() {
  if (shard_.use_count() > 1 || shard_->is_view()) {
    Expected<std::shared_ptr<Buffer>> copy = shard_->clone();
    if (!copy) return copy.error();
    shard_ = std::move(*copy);
  }
  return shard_.get();
}

}  // namespace devices
