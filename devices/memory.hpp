// Memory accounting of the simulated mesh (runtime.md "Platforms and
// devices"): each device's HBM as a real TPU would hold it (a replicated
// shard counts on every device that holds it), and the host memory shardlang
// really uses, under a budget that turns an allocation the operating system
// would kill the process for into an Error.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
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

// Thread-safe: kernels of several devices allocate at once.
class MemoryLedger {
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

  // RESOURCE_EXHAUSTED when the device's HBM cannot take `bytes` more.
  Status reserve_device(int device_id, std::int64_t bytes);
  void release_device(int device_id, std::int64_t bytes);
  // host_out_of_memory when the host budget cannot take `bytes` more.
  Status reserve_host(std::int64_t bytes);
  void release_host(std::int64_t bytes);

  int device_count() const { return static_cast<int>(devices_.size()); }
  std::int64_t device_bytes_held(int device_id) const;
  std::int64_t device_peak_bytes(int device_id) const;
  std::optional<std::int64_t> device_capacity(int device_id) const;
  std::int64_t host_bytes_held() const;
  std::int64_t host_budget() const;
  void set_host_budget(std::int64_t bytes);

 private:
  struct DeviceState {
    DeviceMemory memory;
    std::int64_t held = 0;
    std::int64_t peak = 0;
  };
  mutable std::mutex mutex_;
  std::vector<DeviceState> devices_;
  std::int64_t host_budget_;
  std::int64_t host_held_ = 0;
  Processes processes_;
};

}  // namespace devices
