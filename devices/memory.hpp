// Memory accounting of the simulated mesh (runtime.md "Platforms and
// devices"): each device's HBM as a real TPU would hold it (a replicated
// shard counts on every device that holds it), and the host memory shardlang
// really uses, under a budget that turns an allocation the operating system
// would kill the process for into an Error.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "devices/device.hpp"
#include "devices/error.hpp"
#include "devices/processes.hpp"

namespace devices {

// The machine's physical memory, and 75% of it: the default host budget.
std::int64_t physical_memory_bytes();
std::int64_t default_host_memory_budget();

// "4294967296 bytes (4.00 GiB)": exact, then readable.
std::string describe_bytes(std::int64_t bytes);

// What holds a device allocation, asked only when an out-of-memory note or
// the profile names it (so that making an array formats nothing).
class MemoryOwner {
 public:
  // Its type as the script writes it ("f32[1024,256@X]").
  virtual std::string memory_type() const = 0;
  // Where it was made ("model.shl:14"), or empty.
  virtual std::string memory_source() const = 0;

 protected:
  ~MemoryOwner() = default;
};

class MemoryLedger;

// A live device allocation: its bytes stay counted until it is destroyed
// (or reset). Move-only; empty by default.
class MemoryHold {
 public:
  MemoryHold() = default;
  MemoryHold(std::shared_ptr<MemoryLedger> ledger, std::uint64_t id) : ledger_(std::move(ledger)), id_(id) {}
  MemoryHold(MemoryHold&& other) noexcept;
  MemoryHold& operator=(MemoryHold&& other) noexcept;
  MemoryHold(const MemoryHold&) = delete;
  MemoryHold& operator=(const MemoryHold&) = delete;
  ~MemoryHold() { reset(); }
  void reset();
  bool held() const { return ledger_ != nullptr; }

 private:
  std::shared_ptr<MemoryLedger> ledger_;
  std::uint64_t id_ = 0;
};

// Thread-safe: kernels of several devices allocate at once.
//
// Device memory is charged by sets of devices (an array's shards charge each
// device of its mesh the same bytes). Devices that every set so far treats
// alike share one group and one counter, so an allocation costs the groups of
// its set, not its devices: check mode of a 4096-chip mesh charges an array
// in a few steps, whatever its size.
class MemoryLedger : public std::enable_shared_from_this<MemoryLedger> {
 public:
  struct DeviceMemory {
    std::string label;                    // "TPU 3", as errors name the device
    std::optional<std::int64_t> capacity;  // HBM bytes; none on cpu (host budget only)
  };

  MemoryLedger(std::vector<DeviceMemory> devices, std::int64_t host_budget, Processes processes = {});
  // The devices' HBM from the chip table (or `hbm_bytes` for every device
  // that has HBM), indexed by device id (ids are 0..N-1).
  static std::shared_ptr<MemoryLedger> for_devices(const std::vector<Device>& devices,
                                                   std::int64_t host_budget = default_host_memory_budget(),
                                                   std::optional<std::int64_t> hbm_bytes = std::nullopt,
                                                   Processes processes = {});

  // Where the devices' memory is: the processes of the run and the one
  // holding each device (processes.hpp). Every process counts the HBM of
  // every device, so that all see the same RESOURCE_EXHAUSTED; only the
  // host bytes are this process's own.
  const Processes& processes() const { return processes_; }
  int holder(int device_id) const { return processes_.holder(device_id, device_count()); }

  // The set of `device_ids` (valid, distinct ids in any order; the same ids
  // give the same set).
  using DeviceSet = int;
  DeviceSet device_set(std::span<const int> device_ids);

  // `bytes` on each device of `set`, held until the MemoryHold goes; `owner`
  // must outlive the hold. RESOURCE_EXHAUSTED, as XLA writes it, when a
  // device cannot take them: the error's `device` is the lowest such id.
  Expected<MemoryHold> allocate(DeviceSet set, std::int64_t bytes, const MemoryOwner* owner);

  // One change of a sequence charged in one go (charge_in_order): an
  // allocation of `bytes` on each device of `set`, held until a later change
  // frees it (`kept`: held past the sequence, as a MemoryHold naming
  // `owner`), or the freeing of an earlier one (its set and bytes again).
  struct Change {
    enum class Kind : std::uint8_t { passing, kept, freed };
    DeviceSet set = 0;
    std::int64_t bytes = 0;
    Kind kind = Kind::passing;
    const MemoryOwner* owner = nullptr;
  };
  // The changes in order, under one lock, as allocate and MemoryHold::reset
  // would make them one at a time, the kept allocations' holds returned in
  // order; none, charging nothing, when one would not fit or a listener or
  // the peak moment's snapshots watch each change (the caller then charges
  // them one at a time: the error and what is watched name each buffer).
  std::optional<std::vector<MemoryHold>> charge_in_order(std::span<const Change> changes);

  struct LiveBuffer {
    std::int64_t bytes = 0;
    const MemoryOwner* owner = nullptr;
  };
  // The `count` largest allocations live on `device_id`, largest first
  // (oldest first among equals).
  std::vector<LiveBuffer> largest_live(int device_id, std::size_t count) const;
  // The owners of every live allocation, oldest first (jax.live_arrays()).
  std::vector<const MemoryOwner*> live_owners() const;

  // device.memory_stats(): as XLA's allocator reports them.
  struct DeviceStats {
    std::int64_t bytes_in_use = 0;
    std::int64_t peak_bytes_in_use = 0;
    std::int64_t largest_alloc_size = 0;
    std::int64_t num_allocs = 0;
    std::optional<std::int64_t> bytes_limit;
  };
  DeviceStats device_stats(int device_id) const;

  // The moment one device held the most bytes so far (the first device of
  // the lowest id among equals): kept while `snapshots` is on (--profile),
  // with the allocation that reached it and the largest buffers live then.
  struct PeakMoment {
    int device = -1;
    std::int64_t bytes = 0;
    std::string type, source;  // the allocation that reached the peak
    struct Buffer {
      std::int64_t bytes;
      std::string type, source;
    };
    std::vector<Buffer> largest;
  };
  void keep_peak_moment(bool snapshots);
  PeakMoment peak_moment() const;

  // Every change of a device's bytes in use, while a listener is set (the
  // trace's memory counters): the devices of the group whose use changed
  // and its bytes in use now. Called under the ledger's lock: the listener
  // must not call the ledger.
  using Listener = std::function<void(std::span<const int> devices, std::int64_t bytes_in_use)>;
  void set_listener(Listener listener);

  // host_out_of_memory when the host budget cannot take `bytes` more.
  Status reserve_host(std::int64_t bytes);
  void release_host(std::int64_t bytes);

  int device_count() const { return static_cast<int>(group_of_.size()); }
  const std::string& device_label(int device_id) const { return labels_.at(static_cast<std::size_t>(device_id)); }
  std::int64_t device_bytes_held(int device_id) const;
  std::int64_t device_peak_bytes(int device_id) const;
  std::optional<std::int64_t> device_capacity(int device_id) const;
  std::int64_t host_bytes_held() const;
  std::int64_t host_budget() const;
  void set_host_budget(std::int64_t bytes);

 private:
  friend class MemoryHold;
  void free(std::uint64_t id);

  // Devices with the same capacity that every set so far holds together.
  struct Group {
    std::vector<int> devices;  // ascending
    std::optional<std::int64_t> capacity;
    DeviceStats stats;
  };
  struct Live {
    std::uint64_t id;
    DeviceSet set;
    std::int64_t bytes;
    const MemoryOwner* owner;
    bool freed = false;
  };
  void split(std::size_t group, const std::vector<int>& inside);
  bool set_holds(DeviceSet set, int group) const;
  void note_peak(int group, const MemoryOwner* owner);

  mutable std::mutex mutex_;
  std::vector<std::string> labels_;
  std::vector<int> group_of_;  // per device id
  std::vector<Group> groups_;
  std::vector<std::vector<int>> set_groups_;         // per set: its groups
  std::map<std::vector<int>, DeviceSet> set_ids_;  // sorted device ids -> set
  // By id, oldest first (ids increase: a new one goes last). A freed one is
  // marked, and the marked are dropped once they are half the entries: no
  // node to allocate per buffer, as a map's.
  std::vector<Live> live_;
  std::size_t freed_ = 0;
  std::uint64_t next_id_ = 1;
  bool snapshots_ = false;
  PeakMoment peak_;
  Listener listener_;
  // Atomic, outside the lock: every buffer of every kernel reserves and releases.
  std::atomic<std::int64_t> host_budget_;
  std::atomic<std::int64_t> host_held_ = 0;
  Processes processes_;
};

}  // namespace devices
