#include "devices/memory.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

namespace devices {

std::int64_t physical_memory_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::int64_t{8} << 30;  // unknown: assume a small machine
  return static_cast<std::int64_t>(pages) * page_size;
}

std::int64_t default_host_memory_budget() { return physical_memory_bytes() / 4 * 3; }

std::string describe_bytes(std::int64_t bytes) {
  constexpr const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  double scaled = static_cast<double>(bytes);
  int unit = -1;
  while (scaled >= 1024.0 && unit < 3) {
    scaled /= 1024.0;
    ++unit;
  }
  return fmt::format("{} bytes ({:.2f} {})", bytes, scaled, units[unit]);
}

MemoryLedger::MemoryLedger(std::vector<DeviceMemory> devices, std::int64_t host_budget, Processes processes)
    : host_budget_(host_budget), processes_(std::move(processes)) {
  devices_.reserve(devices.size());
  for (DeviceMemory& memory : devices) devices_.push_back(DeviceState{std::move(memory)});
}

std::shared_ptr<MemoryLedger> MemoryLedger::for_devices(const std::vector<Device>& devices,
                                                        std::int64_t host_budget,
                                                        std::optional<std::int64_t> hbm_bytes, Processes processes) {
  std::vector<DeviceMemory> memories;
  memories.reserve(devices.size());
  for (const Device& device : devices) {
    std::optional<std::int64_t> capacity;
    if (device.platform == Platform::tpu && device.chip) capacity = hbm_bytes.value_or(chip_spec(*device.chip).hbm_bytes);
    memories.push_back(DeviceMemory{device_label(device), capacity});
  }
  return std::make_shared<MemoryLedger>(std::move(memories), host_budget, std::move(processes));
}

Status MemoryLedger::reserve_device(int device_id, std::int64_t bytes) {
  std::lock_guard lock(mutex_);
  if (device_id < 0 || device_id >= static_cast<int>(devices_.size()))
    return Error{ErrorKind::invalid_argument, fmt::format("there is no device with id {}", device_id)};
  DeviceState& device = devices_[static_cast<std::size_t>(device_id)];
  if (device.memory.capacity && bytes > *device.memory.capacity - device.held)
    return Error{ErrorKind::resource_exhausted,
                 fmt::format("RESOURCE_EXHAUSTED: Out of memory on {} while trying to allocate {}: {} "
                             "of its {} of HBM are already held",
                             device.memory.label, describe_bytes(bytes), describe_bytes(device.held),
                             describe_bytes(*device.memory.capacity))};
  device.held += bytes;
  device.peak = std::max(device.peak, device.held);
  return {};
}

void MemoryLedger::release_device(int device_id, std::int64_t bytes) {
  std::lock_guard lock(mutex_);
  if (device_id >= 0 && device_id < static_cast<int>(devices_.size()))
    devices_[static_cast<std::size_t>(device_id)].held -= bytes;
}

Status MemoryLedger::reserve_host(std::int64_t bytes) {
  std::lock_guard lock(mutex_);
  if (bytes > host_budget_ - host_held_)
    return Error{ErrorKind::host_out_of_memory,
                 fmt::format("host memory budget exceeded: allocating {} would bring the host memory "
                             "shardlang holds from {} to more than its budget of {}",
                             describe_bytes(bytes), describe_bytes(host_held_),
                             describe_bytes(host_budget_))};
  host_held_ += bytes;
  return {};
}

void MemoryLedger::release_host(std::int64_t bytes) {
  std::lock_guard lock(mutex_);
  host_held_ -= bytes;
}

// Queries about an id outside the mesh answer as for an empty device.
std::int64_t MemoryLedger::device_bytes_held(int device_id) const {
  std::lock_guard lock(mutex_);
  if (device_id < 0 || device_id >= static_cast<int>(devices_.size())) return 0;
  return devices_[static_cast<std::size_t>(device_id)].held;
}

std::int64_t MemoryLedger::device_peak_bytes(int device_id) const {
  std::lock_guard lock(mutex_);
  if (device_id < 0 || device_id >= static_cast<int>(devices_.size())) return 0;
  return devices_[static_cast<std::size_t>(device_id)].peak;
}

std::optional<std::int64_t> MemoryLedger::device_capacity(int device_id) const {
  std::lock_guard lock(mutex_);
  if (device_id < 0 || device_id >= static_cast<int>(devices_.size())) return std::nullopt;
  return devices_[static_cast<std::size_t>(device_id)].memory.capacity;
}

std::int64_t MemoryLedger::host_bytes_held() const {
  std::lock_guard lock(mutex_);
  return host_held_;
}

std::int64_t MemoryLedger::host_budget() const {
  std::lock_guard lock(mutex_);
  return host_budget_;
}

void MemoryLedger::set_host_budget(std::int64_t bytes) {
  std::lock_guard lock(mutex_);
  host_budget_ = bytes;
}

}  // namespace devices
