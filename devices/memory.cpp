#include "devices/memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <iterator>

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

MemoryHold::MemoryHold(MemoryHold&& other) noexcept : ledger_(std::move(other.ledger_)), id_(other.id_) {
  other.ledger_.reset();
}

MemoryHold& MemoryHold::operator=(MemoryHold&& other) noexcept {
  if (this != &other) {
    reset();
    ledger_ = std::move(other.ledger_);
    id_ = other.id_;
    other.ledger_.reset();
  }
  return *this;
}

void MemoryHold::reset() {
  if (ledger_) ledger_->free(id_);
  ledger_.reset();
}

MemoryLedger::MemoryLedger(std::vector<DeviceMemory> devices, std::int64_t host_budget, Processes processes)
    : host_budget_(host_budget), processes_(std::move(processes)) {
  // One group per capacity to begin with.
  std::map<std::optional<std::int64_t>, int> by_capacity;
  for (std::size_t id = 0; id < devices.size(); ++id) {
    auto [found, added] = by_capacity.emplace(devices[id].capacity, static_cast<int>(groups_.size()));
    if (added) groups_.push_back(Group{{}, devices[id].capacity, DeviceStats{0, 0, 0, 0, devices[id].capacity}});
    groups_[static_cast<std::size_t>(found->second)].devices.push_back(static_cast<int>(id));
    group_of_.push_back(found->second);
    labels_.push_back(std::move(devices[id].label));
  }
}

std::shared_ptr<MemoryLedger> MemoryLedger::for_devices(const std::vector<Device>& devices,
                                                        std::int64_t host_budget,
                                                        std::optional<std::int64_t> hbm_bytes, Processes processes) {
  std::vector<DeviceMemory> memories;
  memories.reserve(devices.size());
  for (const Device& device : devices) {
    std::optional<std::int64_t> capacity;
    if (device.platform == Platform::tpu && device.chip) capacity = hbm_bytes.value_or(chip_spec(*device.chip).hbm_bytes);
    memories.push_back(DeviceMemory{devices::device_label(device), capacity});
  }
  return std::make_shared<MemoryLedger>(std::move(memories), host_budget, std::move(processes));
}

// Moves the devices `inside` of `group` (some, not all) into a new group
// with the same history, which every set holding `group` holds too.
void MemoryLedger::split(std::size_t group, const std::vector<int>& inside) {
  int added = static_cast<int>(groups_.size());
  Group part{inside, groups_[group].capacity, groups_[group].stats};
  std::vector<int> rest;
  std::set_difference(groups_[group].devices.begin(), groups_[group].devices.end(), inside.begin(), inside.end(),
                      std::back_inserter(rest));
  groups_[group].devices = std::move(rest);
  for (int device : inside) group_of_[static_cast<std::size_t>(device)] = added;
  for (auto& groups : set_groups_)
    if (std::find(groups.begin(), groups.end(), static_cast<int>(group)) != groups.end()) groups.push_back(added);
  groups_.push_back(std::move(part));
}

MemoryLedger::DeviceSet MemoryLedger::device_set(std::span<const int> device_ids) {
  std::vector<int> ids(device_ids.begin(), device_ids.end());
  std::sort(ids.begin(), ids.end());
  std::lock_guard lock(mutex_);
  if (auto found = set_ids_.find(ids); found != set_ids_.end()) return found->second;
  // The groups the ids touch, and which of their devices the ids hold.
  std::map<int, std::vector<int>> touched;
  for (int id : ids) touched[group_of_.at(static_cast<std::size_t>(id))].push_back(id);
  std::vector<int> groups;
  for (auto& [group, inside] : touched) {
    if (inside.size() == groups_[static_cast<std::size_t>(group)].devices.size()) {
      groups.push_back(group);
      continue;
    }
    split(static_cast<std::size_t>(group), inside);
    groups.push_back(static_cast<int>(groups_.size()) - 1);
  }
  auto set = static_cast<DeviceSet>(set_groups_.size());
  set_groups_.push_back(std::move(groups));
  set_ids_.emplace(std::move(ids), set);
  return set;
}

bool MemoryLedger::set_holds(DeviceSet set, int group) const {
  const auto& groups = set_groups_[static_cast<std::size_t>(set)];
  return std::find(groups.begin(), groups.end(), group) != groups.end();
}

Expected<MemoryHold> MemoryLedger::allocate(DeviceSet set, std::int64_t bytes, const MemoryOwner* owner) {
  std::lock_guard lock(mutex_);
  const auto& groups = set_groups_.at(static_cast<std::size_t>(set));
  const Group* full = nullptr;
  for (int g : groups) {
    const Group& group = groups_[static_cast<std::size_t>(g)];
    if (group.capacity && bytes > *group.capacity - group.stats.bytes_in_use &&
        (!full || group.devices.front() < full->devices.front()))
      full = &group;
  }
  if (full) {
    int device = full->devices.front();
    Error error{ErrorKind::resource_exhausted,
                fmt::format("RESOURCE_EXHAUSTED: Out of memory while trying to allocate {} bytes. {} has {} of HBM "
                            "and {} in use",
                            bytes, labels_[static_cast<std::size_t>(device)], describe_bytes(*full->capacity),
                            describe_bytes(full->stats.bytes_in_use))};
    error.device = device;
    return error;
  }
  std::uint64_t id = next_id_++;
  live_.push_back(Live{id, set, bytes, owner});  // ids increase: the newest goes last
  for (int g : groups) {
    DeviceStats& stats = groups_[static_cast<std::size_t>(g)].stats;
    stats.bytes_in_use += bytes;
    stats.peak_bytes_in_use = std::max(stats.peak_bytes_in_use, stats.bytes_in_use);
    stats.largest_alloc_size = std::max(stats.largest_alloc_size, bytes);
    ++stats.num_allocs;
    if (listener_) listener_(groups_[static_cast<std::size_t>(g)].devices, stats.bytes_in_use);
    if (stats.bytes_in_use > peak_.bytes ||
        (stats.bytes_in_use == peak_.bytes && groups_[static_cast<std::size_t>(g)].devices.front() < peak_.device))
      note_peak(g, owner);
  }
  return MemoryHold(shared_from_this(), id);
}

std::optional<std::vector<MemoryHold>> MemoryLedger::charge_in_order(std::span<const Change> changes) {
  std::lock_guard lock(mutex_);
  if (listener_ || snapshots_) return std::nullopt;
  // First whether every allocation fits, on a copy of the groups' bytes in use.
  std::vector<std::int64_t> in_use(groups_.size());
  for (std::size_t g = 0; g < groups_.size(); ++g) in_use[g] = groups_[g].stats.bytes_in_use;
  for (const Change& change : changes)
    for (int g : set_groups_.at(static_cast<std::size_t>(change.set))) {
      auto& bytes = in_use[static_cast<std::size_t>(g)];
      if (change.kind == Change::Kind::freed) {
        bytes -= change.bytes;
        continue;
      }
      const auto& capacity = groups_[static_cast<std::size_t>(g)].capacity;
      if (capacity && change.bytes > *capacity - bytes) return std::nullopt;
      bytes += change.bytes;
    }
  std::vector<MemoryHold> kept;
  for (const Change& change : changes) {
    if (change.kind == Change::Kind::kept) {
      live_.push_back(Live{next_id_, change.set, change.bytes, change.owner});
      kept.emplace_back(shared_from_this(), next_id_++);
    }
    for (int g : set_groups_[static_cast<std::size_t>(change.set)]) {
      DeviceStats& stats = groups_[static_cast<std::size_t>(g)].stats;
      if (change.kind == Change::Kind::freed) {
        stats.bytes_in_use -= change.bytes;
        continue;
      }
      stats.bytes_in_use += change.bytes;
      stats.peak_bytes_in_use = std::max(stats.peak_bytes_in_use, stats.bytes_in_use);
      stats.largest_alloc_size = std::max(stats.largest_alloc_size, change.bytes);
      ++stats.num_allocs;
      if (stats.bytes_in_use > peak_.bytes ||
          (stats.bytes_in_use == peak_.bytes && groups_[static_cast<std::size_t>(g)].devices.front() < peak_.device))
        note_peak(g, change.owner);
    }
  }
  return kept;
}

void MemoryLedger::note_peak(int g, const MemoryOwner* owner) {
  const Group& group = groups_[static_cast<std::size_t>(g)];
  peak_.device = group.devices.front();
  peak_.bytes = group.stats.bytes_in_use;
  if (!snapshots_) return;
  peak_.type = owner ? owner->memory_type() : std::string();
  peak_.source = owner ? owner->memory_source() : std::string();
  std::vector<const Live*> here;
  for (const Live& live : live_)
    if (!live.freed && set_holds(live.set, g)) here.push_back(&live);
  std::size_t count = std::min<std::size_t>(here.size(), 5);
  std::partial_sort(here.begin(), here.begin() + static_cast<std::ptrdiff_t>(count), here.end(),
                    [](const Live* a, const Live* b) { return a->bytes > b->bytes; });
  peak_.largest.clear();
  for (std::size_t i = 0; i < count; ++i)
    peak_.largest.push_back({here[i]->bytes, here[i]->owner ? here[i]->owner->memory_type() : std::string(),
                             here[i]->owner ? here[i]->owner->memory_source() : std::string()});
}

void MemoryLedger::free(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  auto found = std::lower_bound(live_.begin(), live_.end(), id, [](const Live& live, std::uint64_t key) { return live.id < key; });
  if (found == live_.end() || found->id != id || found->freed) return;
  for (int g : set_groups_[static_cast<std::size_t>(found->set)]) {
    DeviceStats& stats = groups_[static_cast<std::size_t>(g)].stats;
    stats.bytes_in_use -= found->bytes;
    if (listener_) listener_(groups_[static_cast<std::size_t>(g)].devices, stats.bytes_in_use);
  }
  found->freed = true;
  if (++freed_ * 2 > live_.size()) {
    std::erase_if(live_, [](const Live& live) { return live.freed; });
    freed_ = 0;
  }
}

std::vector<MemoryLedger::LiveBuffer> MemoryLedger::largest_live(int device_id, std::size_t count) const {
  std::lock_guard lock(mutex_);
  std::vector<LiveBuffer> here;
  if (device_id < 0 || device_id >= device_count()) return here;
  int g = group_of_[static_cast<std::size_t>(device_id)];
  for (const Live& live : live_)
    if (!live.freed && set_holds(live.set, g)) here.push_back({live.bytes, live.owner});
  std::stable_sort(here.begin(), here.end(), [](const LiveBuffer& a, const LiveBuffer& b) { return a.bytes > b.bytes; });
  if (here.size() > count) here.resize(count);
  return here;
}

std::vector<const MemoryOwner*> MemoryLedger::live_owners() const {
  std::lock_guard lock(mutex_);
  std::vector<const MemoryOwner*> owners;
  for (const Live& live : live_)
    if (!live.freed) owners.push_back(live.owner);
  return owners;
}

MemoryLedger::DeviceStats MemoryLedger::device_stats(int device_id) const {
  std::lock_guard lock(mutex_);
  if (device_id < 0 || device_id >= device_count()) return {};
  return groups_[static_cast<std::size_t>(group_of_[static_cast<std::size_t>(device_id)])].stats;
}

void MemoryLedger::keep_peak_moment(bool snapshots) {
  std::lock_guard lock(mutex_);
  snapshots_ = snapshots;
}

MemoryLedger::PeakMoment MemoryLedger::peak_moment() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

void MemoryLedger::set_listener(Listener listener) {
  std::lock_guard lock(mutex_);
  listener_ = std::move(listener);
}

Status MemoryLedger::reserve_host(std::int64_t bytes) {
  std::int64_t held = host_held_.load(std::memory_order_relaxed);
  do {
    const std::int64_t budget = host_budget_.load(std::memory_order_relaxed);
    if (bytes > budget - held)
      return Error{ErrorKind::host_out_of_memory,
                   fmt::format("host memory budget exceeded: allocating {} would bring the host memory "
                               "shardlang holds from {} to more than its budget of {}",
                               describe_bytes(bytes), describe_bytes(held), describe_bytes(budget))};
  } while (!host_held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
  return {};
}

void MemoryLedger::release_host(std::int64_t bytes) { host_held_.fetch_sub(bytes, std::memory_order_relaxed); }

// Queries about an id outside the mesh answer as for an empty device.
std::int64_t MemoryLedger::device_bytes_held(int device_id) const { return device_stats(device_id).bytes_in_use; }

std::int64_t MemoryLedger::device_peak_bytes(int device_id) const { return device_stats(device_id).peak_bytes_in_use; }

std::optional<std::int64_t> MemoryLedger::device_capacity(int device_id) const {
  return device_stats(device_id).bytes_limit;
}

std::int64_t MemoryLedger::host_bytes_held() const { return host_held_.load(std::memory_order_relaxed); }

std::int64_t MemoryLedger::host_budget() const { return host_budget_.load(std::memory_order_relaxed); }

void MemoryLedger::set_host_budget(std::int64_t bytes) { host_budget_.store(bytes, std::memory_order_relaxed); }

}  // namespace devices
