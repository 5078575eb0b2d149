#include "devices/chrome_trace.hpp"

#include <fmt/format.h>

namespace devices {
namespace {

// The two threads of a device's track.
constexpr int compute_thread = 0;
constexpr int communication_thread = 1;

// A JSON string literal: quotes, backslashes and control characters escaped.
std::string json_string(std::string_view text) {
  std::string quoted = "\"";
  for (char c : text) {
    switch (c) {
      case '"': quoted += "\\\""; break;
      case '\\': quoted += "\\\\"; break;
      case '\n': quoted += "\\n"; break;
      case '\t': quoted += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          quoted += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        else
          quoted += c;
    }
  }
  return quoted + "\"";
}

std::string metadata_event(std::string_view name, int device, int thread, std::string_view value) {
  return fmt::format(R"({{"name":{},"ph":"M","pid":{},"tid":{},"args":{{"name":{}}}}})", json_string(name), device,
                     thread, json_string(value));
}

}  // namespace

std::string chrome_trace_json(const Profile& profile, std::span<const std::string> device_labels) {
  std::string json = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  bool first = true;
  auto append = [&](const std::string& event) {
    json += first ? "\n" : ",\n";
    json += event;
    first = false;
  };
  std::vector<std::string> labels;
  for (int device = 0; device < profile.device_count(); ++device)
    labels.push_back(device < static_cast<int>(device_labels.size()) ? device_labels[device]
                                                                     : fmt::format("device {}", device));
  for (int device = 0; device < profile.device_count(); ++device) {
    const std::string& label = labels[static_cast<std::size_t>(device)];
    append(metadata_event("process_name", device, 0, label));
    append(fmt::format(R"({{"name":"process_sort_index","ph":"M","pid":{},"tid":0,"args":{{"sort_index":{}}}}})",
                       device, device));
    append(metadata_event("thread_name", device, compute_thread, "compute"));
    append(metadata_event("thread_name", device, communication_thread, "communication"));
  }
  for (const TimedCharge& timed : profile.charges()) {
    const Charge& charge = timed.charge;
    bool communication = charge.collective != CollectiveKind::none;
    std::string args = fmt::format(
        R"({{"source":{},"shardings":{},"collective":{},"bytes_moved":{},"charged_us":{:.3f},"overlapped":{}}})",
        json_string(profile.source_label(charge.source)), json_string(charge.shardings),
        json_string(collective_kind_name(charge.collective)), charge.bytes_moved, timed.charged_seconds * 1e6,
        timed.overlapped ? "true" : "false");
    for (int device : *timed.devices)
      append(fmt::format(R"({{"name":{},"cat":"{}","ph":"X","ts":{:.3f},"dur":{:.3f},"pid":{},"tid":{},"args":{}}})",
                         json_string(charge.operation), communication ? "communication" : "compute",
                         timed.start_seconds * 1e6, charge.seconds * 1e6, device,
                         communication ? communication_thread : compute_thread, args));
  }
  // Each device's memory counter: its bytes in use from each change on.
  std::vector<std::string> counter_names;
  for (const std::string& label : labels) counter_names.push_back(json_string("memory " + label));
  for (const MemorySample& sample : profile.memory_samples())
    append(fmt::format(R"({{"name":{},"ph":"C","ts":{:.3f},"pid":{},"tid":0,"args":{{"bytes":{}}}}})",
                       counter_names[static_cast<std::size_t>(sample.device)], sample.seconds * 1e6, sample.device,
                       sample.bytes));
  json += "\n]}\n";
  return json;
}

}  // namespace devices
