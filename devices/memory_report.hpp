// The device-memory section of `--profile` (docs/memory.md): from a run's or
// a check's ledger, the highest peak of any device and the spread of the
// per-device peaks, the allocation that reached the highest one, and the
// largest buffers live at that moment.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "devices/memory.hpp"

namespace devices {

struct MemoryReport {
  std::string peak_device;  // "TPU 0"; empty when nothing was allocated
  std::int64_t peak = 0;    // that device's peak bytes in use
  std::int64_t min_peak = 0, max_peak = 0;  // over every device
  std::optional<std::int64_t> capacity;     // the peak device's HBM
  std::string reached_by, reached_at;       // the allocation's type and source ("model.shl:14")
  std::vector<MemoryLedger::PeakMoment::Buffer> largest;
};

// The ledger's report; its peak moment is kept while keep_peak_moment(true).
MemoryReport memory_report(const MemoryLedger& ledger);

// The section's text, ending in a newline.
std::string render_memory_report(const MemoryReport& report);

}  // namespace devices
