#include "devices/memory_report.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace devices {

MemoryReport memory_report(const MemoryLedger& ledger) {
  MemoryReport report;
  MemoryLedger::PeakMoment moment = ledger.peak_moment();
  if (moment.device < 0) return report;
  report.peak_device = ledger.device_label(moment.device);
  report.peak = moment.bytes;
  report.capacity = ledger.device_stats(moment.device).bytes_limit;
  report.reached_by = moment.type;
  report.reached_at = moment.source;
  report.largest = moment.largest;
  report.min_peak = report.max_peak = moment.bytes;
  for (int device = 0; device < ledger.device_count(); ++device) {
    std::int64_t peak = ledger.device_stats(device).peak_bytes_in_use;
    report.min_peak = std::min(report.min_peak, peak);
    report.max_peak = std::max(report.max_peak, peak);
  }
  return report;
}

std::string render_memory_report(const MemoryReport& report) {
  if (report.peak_device.empty()) return "device memory: nothing allocated\n";
  std::string out = "device memory: peak " + describe_bytes(report.peak) + " on " + report.peak_device;
  if (report.capacity) out += " of " + describe_bytes(*report.capacity);
  out += "\nper-device peaks: min " + describe_bytes(report.min_peak) + ", max " + describe_bytes(report.max_peak) + "\n";
  if (!report.reached_by.empty())
    out += "reached by " + report.reached_by + (report.reached_at.empty() ? "" : " at " + report.reached_at) + "\n";
  if (report.largest.empty()) return out;
  out += "largest buffers live then:\n";
  std::size_t width = 0;
  for (const auto& buffer : report.largest) width = std::max(width, buffer.source.size());
  for (const auto& buffer : report.largest)
    out += fmt::format("  {:<{}}  {}  {}\n", buffer.source.empty() ? "-" : buffer.source, std::max<std::size_t>(width, 1),
                       buffer.type, describe_bytes(buffer.bytes));
  return out;
}

}  // namespace devices
