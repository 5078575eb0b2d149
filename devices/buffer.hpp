// Buffers: one shard's bytes on the host, shared by every device that holds
// the same replicated shard (runtime.md "the host stores a replicated shard
// once and shares it"), copied when one of them writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "devices/error.hpp"
#include "devices/memory.hpp"
#include "typecheck/dtype.hpp"

namespace devices {

// The C++ type a dtype is stored as. ORDER DType (typecheck/dtype.hpp).
// bool is one byte; bf16 and f16 are their 16 bits (see half_float.hpp).
template <typecheck::DType D> struct StorageOf;
template <> struct StorageOf<typecheck::DType::bool_> { using type = std::uint8_t; };
template <> struct StorageOf<typecheck::DType::int8> { using type = std::int8_t; };
template <> struct StorageOf<typecheck::DType::int32> { using type = std::int32_t; };
template <> struct StorageOf<typecheck::DType::uint32> { using type = std::uint32_t; };
template <> struct StorageOf<typecheck::DType::float16> { using type = std::uint16_t; };
template <> struct StorageOf<typecheck::DType::bfloat16> { using type = std::uint16_t; };
template <> struct StorageOf<typecheck::DType::float32> { using type = float; };
template <typecheck::DType D> using storage_t = typename StorageOf<D>::type;

enum class Fill { uninitialized, zeros };

// The host bytes of one shard: `element_count` elements of `dtype`, 64-byte
// aligned for vector loops and BLAS. Counts against the host budget while it
// lives. Shape and placement belong to whoever holds it.
//
// Or, in a run over several processes (processes.hpp), the placeholder of a
// shard another process holds: its dtype and size, no bytes, nothing counted
// against this host. A kernel's result on another process is a placeholder
// whose size is not known yet (unsized) until the array that takes it gives
// one.
class Buffer {
 public:
  static Expected<std::shared_ptr<Buffer>> allocate(std::shared_ptr<MemoryLedger> ledger,
                                                    typecheck::DType dtype, std::int64_t element_count,
                                                    Fill fill = Fill::zeros);
  static std::shared_ptr<Buffer> remote(std::shared_ptr<MemoryLedger> ledger, int process, typecheck::DType dtype,
                                        std::int64_t element_count);
  static std::shared_ptr<Buffer> remote_unsized(std::shared_ptr<MemoryLedger> ledger, int process);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // A new buffer with the same bytes.
  Expected<std::shared_ptr<Buffer>> clone() const;

  // `element_count` elements of `owner` from element `offset` on, without a
  // copy (a shard of an array split into contiguous blocks: device_put of a
  // host array then holds no second copy of it). The view keeps the owner
  // alive and is not counted against the host budget again. Its bytes start
  // 64-byte aligned only when the owner's offset is.
  static Expected<std::shared_ptr<Buffer>> view(std::shared_ptr<Buffer> owner, std::int64_t offset,
                                                std::int64_t element_count);
  bool is_view() const { return owner_ != nullptr; }
  bool is_remote() const { return process_ >= 0; }
  // The process holding a placeholder's bytes.
  int process() const { return process_; }
  // False only for an unsized placeholder (its dtype and sizes mean nothing).
  bool is_sized() const { return element_count_ >= 0; }

  typecheck::DType dtype() const { return dtype_; }
  std::int64_t element_count() const { return element_count_; }
  std::int64_t byte_size() const { return byte_size_; }
  std::span<const std::byte> bytes() const { return {data_, static_cast<std::size_t>(byte_size_)}; }
  std::span<std::byte> bytes() { return {data_, static_cast<std::size_t>(byte_size_)}; }

  // Typed views; D must be the buffer's dtype (checked by the caller, which
  // dispatches on dtype() once per buffer, not per element).
  template <typecheck::DType D>
  std::span<const storage_t<D>> elements() const {
    return {reinterpret_cast<const storage_t<D>*>(data_), static_cast<std::size_t>(element_count_)};
  }
  template <typecheck::DType D>
  std::span<storage_t<D>> elements() {
    return {reinterpret_cast<storage_t<D>*>(data_), static_cast<std::size_t>(element_count_)};
  }

  const std::shared_ptr<MemoryLedger>& ledger() const { return ledger_; }

 private:
  Buffer(std::shared_ptr<MemoryLedger> ledger, typecheck::DType dtype, std::int64_t element_count,
         std::int64_t byte_size, std::byte* data, int process = -1);
  // A Buffer made by make_shared (one allocation with its count), which
  // cannot reach the private constructor itself.
  struct Made;
  template <class... Args>
  static std::shared_ptr<Buffer> make(Args&&... args);

  std::shared_ptr<MemoryLedger> ledger_;
  typecheck::DType dtype_;
  std::int64_t element_count_;
  std::int64_t byte_size_;
  std::byte* data_;  // null for a placeholder
  std::shared_ptr<Buffer> owner_;  // set for a view: whose bytes these are
  int process_;      // -1 for bytes on this process
};

// One device's hold on a shard. Several devices may hold the same Buffer (a
// replicated shard: stored once on the host). The device's HBM is counted by
// the array that holds the shards (MemoryLedger::allocate), in a run as in
// check mode. Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer(std::shared_ptr<Buffer> shard, int device_id) : shard_(std::move(shard)), device_id_(device_id) {}
  DeviceBuffer(DeviceBuffer&& other) noexcept = default;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  int device_id() const { return device_id_; }
  const Buffer& buffer() const { return *shard_; }
  const std::shared_ptr<Buffer>& shared_buffer() const { return shard_; }
  bool shares_storage_with(const DeviceBuffer& other) const { return shard_ == other.shard_; }

  // The bytes this device may write: when other holders share them (or
  // they are a view of another buffer's), this device first gets its own
  // copy (host memory may refuse it).
  Expected<Buffer*> writable();

 private:
  std::shared_ptr<Buffer> shard_;
  int device_id_;
};

}  // namespace devices
