#include "devices/profile.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace devices {
namespace {

// costmodel.md: what the model cannot see, printed under every profile.
constexpr std::string_view not_modelled =
    "not modelled: overlap that XLA's scheduler finds by itself, fusion (beyond a hand-overlapped "
    "shard_map matmul step's slice and accumulation), small-matmul MXU "
    "under-utilisation, link congestion between axes";

// Columns are padded by what a terminal shows: UTF-8 continuation bytes
// ("µ") take no column of their own.
std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

enum class Align { left, right };

// Renders rows of cells as columns two spaces apart, each cell aligned as
// its column says; trailing spaces are dropped.
std::string render_columns(const std::vector<std::vector<std::string>>& rows, const std::vector<Align>& aligns) {
  std::vector<std::size_t> widths(aligns.size(), 0);
  for (const auto& row : rows)
    for (std::size_t column = 0; column < row.size() && column < widths.size(); ++column)
      widths[column] = std::max(widths[column], display_width(row[column]));
  std::string text;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t column = 0; column < row.size() && column < widths.size(); ++column) {
      if (column > 0) line += "  ";
      std::string padding(widths[column] - display_width(row[column]), ' ');
      line += aligns[column] == Align::right ? padding + row[column] : row[column] + padding;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    text += line + "\n";
  }
  return text;
}

std::string microseconds(double seconds) { return fmt::format("{:.1f}", seconds * 1e6); }

std::string share(double part, double whole) {
  return whole > 0 ? fmt::format("{:.1f}%", 100 * part / whole) : "-";
}

}  // namespace

Profile::Profile(std::string chip_name, int device_count)
    : chip_name_(std::move(chip_name)),
      device_clock_(static_cast<std::size_t>(std::max(device_count, 0)), 0.0),
      device_busy_(device_clock_.size(), 0.0) {}

void Profile::label_source(SourceId source, std::string label) { source_labels_[source] = std::move(label); }

void Profile::label_call(CallId call, std::string label) { call_labels_[call] = std::move(label); }

std::string Profile::source_label(SourceId source) const {
  auto found = source_labels_.find(source);
  return found != source_labels_.end() ? found->second : fmt::format("#{}", source);
}

Status Profile::check_devices(std::span<const int> devices) const {
  if (devices.empty()) return Error{ErrorKind::invalid_argument, "a charge must run on at least one device"};
  for (int device : devices)
    if (device < 0 || device >= device_count())
      return Error{ErrorKind::invalid_argument,
                   fmt::format("device {} is not one of the run's {} devices", device, device_count())};
  return {};
}

double Profile::start_of(std::span<const int> devices) const {
  double start = 0;
  for (int device : devices) start = std::max(start, device_clock_[device]);
  return start;
}

void Profile::finish(std::span<const int> devices, double end_seconds, double busy_seconds) {
  for (int device : devices) {
    device_clock_[device] = end_seconds;
    device_busy_[device] += busy_seconds;
  }
}

Expected<std::shared_ptr<const std::vector<int>>> Profile::device_set(std::span<const int> devices) {
  if (last_devices_ && std::equal(devices.begin(), devices.end(), last_devices_->begin(), last_devices_->end()))
    return last_devices_;
  if (Status checked = check_devices(devices); !checked) return checked.error();
  last_devices_ = std::make_shared<const std::vector<int>>(devices.begin(), devices.end());
  return last_devices_;
}

Status Profile::add(Charge charge, std::span<const int> devices) {
  auto set = device_set(devices);
  if (!set.ok()) return set.error();
  double start = start_of(devices);
  double seconds = charge.seconds;
  charges_.push_back({std::move(charge), *set, start, seconds, false});
  finish(devices, start + seconds, seconds);
  return {};
}

Status Profile::add_overlapped(Charge compute, Charge communication, std::span<const int> devices) {
  auto set = device_set(devices);
  if (!set.ok()) return set.error();
  double start = start_of(devices);
  double step = CostModel::overlapped_seconds(compute.seconds, communication.seconds);
  // The collective is charged only for what the compute did not hide.
  double exposed = step - compute.seconds;
  double compute_seconds = compute.seconds;
  charges_.push_back({std::move(compute), *set, start, compute_seconds, false});
  charges_.push_back({std::move(communication), *set, start, exposed, true});
  finish(devices, start + step, step);
  return {};
}

void Profile::sample(std::span<const int> devices, std::int64_t bytes) {
  for (int device : devices)
    if (device >= 0 && device < device_count()) memory_samples_.push_back({device, device_clock_[device], bytes});
}

void Profile::record_memory(std::span<const int> devices, std::int64_t bytes_in_use) {
  if (staging_step_ >= 0) {
    held_changes_.push_back({staging_step_, std::vector<int>(devices.begin(), devices.end()), bytes_in_use});
    return;
  }
  release_memory_steps();
  sample(devices, bytes_in_use);
}

void Profile::memory_step_starts(int step) {
  for (; held_taken_ < held_changes_.size() && held_changes_[held_taken_].step <= step; ++held_taken_)
    sample(held_changes_[held_taken_].devices, held_changes_[held_taken_].bytes);
  if (held_taken_ == held_changes_.size()) {
    held_changes_.clear();
    held_taken_ = 0;
  }
}

void Profile::release_memory_steps() { memory_step_starts(std::numeric_limits<int>::max()); }

double Profile::total_seconds() const {
  double total = 0;
  for (double clock : device_clock_) total = std::max(total, clock);
  return total;
}

double Profile::device_busy_seconds(int device) const {
  return device >= 0 && device < device_count() ? device_busy_[device] : 0;
}

std::string Profile::render_calls(double charged_total) const {
  std::map<CallId, double> call_seconds;
  for (const TimedCharge& timed : charges_)
    if (timed.charge.call != 0) call_seconds[timed.charge.call] += timed.charged_seconds;
  std::vector<std::pair<CallId, double>> sites;
  for (const auto& [call, count] : call_counts_) sites.emplace_back(call, call_seconds[call]);
  if (sites.empty()) return "";
  std::stable_sort(sites.begin(), sites.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::vector<std::string>> table = {{"jitted call", "calls", "est. µs per call", "est. µs", "share"}};
  for (const auto& [call, seconds] : sites) {
    int count = call_counts_.at(call);
    auto label = call_labels_.find(call);
    table.push_back({label != call_labels_.end() ? label->second : fmt::format("#{}", call), std::to_string(count),
                     microseconds(seconds / count), microseconds(seconds), share(seconds, charged_total)});
  }
  return "\n" + render_columns(table, {Align::left, Align::right, Align::right, Align::right, Align::right});
}

std::string Profile::render(std::size_t max_rows) const {
  // One row per (source, operation, shardings, collective), in first-run order.
  struct Row {
    SourceId source;
    const Charge* first;
    int count = 0;
    std::int64_t bytes_moved = 0;
    double charged_seconds = 0;
  };
  std::vector<Row> rows;
  std::map<std::tuple<SourceId, std::string, std::string, CollectiveKind>, std::size_t> row_of;
  struct CollectiveTotal {
    int count = 0;
    std::int64_t bytes_moved = 0;
    double estimated_seconds = 0;
    double charged_seconds = 0;
  };
  // ORDER CollectiveKind.
  std::array<CollectiveTotal, 6> per_collective{};
  double charged_total = 0;
  for (const TimedCharge& timed : charges_) {
    const Charge& charge = timed.charge;
    auto key = std::make_tuple(charge.source, charge.operation, charge.shardings, charge.collective);
    auto [found, inserted] = row_of.try_emplace(key, rows.size());
    if (inserted) rows.push_back({charge.source, &charge});
    Row& row = rows[found->second];
    ++row.count;
    row.bytes_moved += charge.bytes_moved;
    row.charged_seconds += timed.charged_seconds;
    charged_total += timed.charged_seconds;
    CollectiveTotal& total = per_collective[static_cast<int>(charge.collective)];
    ++total.count;
    total.bytes_moved += charge.bytes_moved;
    total.estimated_seconds += charge.seconds;
    total.charged_seconds += timed.charged_seconds;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.charged_seconds > b.charged_seconds; });

  std::string text = fmt::format("profile on {}, {} device{}: estimated {} µs over {} operation{}\n", chip_name_,
                                 device_count(), device_count() == 1 ? "" : "s", microseconds(total_seconds()),
                                 charges_.size(), charges_.size() == 1 ? "" : "s");
  if (!rows.empty()) {
    std::vector<std::vector<std::string>> table = {
        {"source", "operation", "shardings", "collective", "count", "bytes moved", "est. µs", "share"}};
    for (std::size_t index = 0; index < rows.size() && index < max_rows; ++index) {
      const Row& row = rows[index];
      table.push_back({source_label(row.source), row.first->operation, row.first->shardings,
                       std::string(collective_kind_name(row.first->collective)), std::to_string(row.count),
                       std::to_string(row.bytes_moved), microseconds(row.charged_seconds),
                       share(row.charged_seconds, charged_total)});
    }
    text += "\n" + render_columns(table, {Align::left, Align::left, Align::left, Align::left, Align::right,
                                          Align::right, Align::right, Align::right});
    if (rows.size() > max_rows) {
      double rest = 0;
      for (std::size_t index = max_rows; index < rows.size(); ++index) rest += rows[index].charged_seconds;
      text += fmt::format("… {} more rows: {} µs, {}\n", rows.size() - max_rows, microseconds(rest),
                          share(rest, charged_total));
    }
  }

  std::vector<std::vector<std::string>> collectives = {
      {"collective", "count", "bytes moved", "est. µs", "exposed µs", "share"}};
  for (std::size_t kind = 1; kind < per_collective.size(); ++kind) {
    const CollectiveTotal& total = per_collective[kind];
    if (total.count == 0) continue;
    collectives.push_back({std::string(collective_kind_name(static_cast<CollectiveKind>(kind))),
                           std::to_string(total.count), std::to_string(total.bytes_moved),
                           microseconds(total.estimated_seconds), microseconds(total.charged_seconds),
                           share(total.charged_seconds, charged_total)});
  }
  if (collectives.size() > 1)
    text += "\n" + render_columns(collectives, {Align::left, Align::right, Align::right, Align::right,
                                                Align::right, Align::right});
  text += render_calls(charged_total);
  text += "\n";
  text += not_modelled;
  text += "\n";
  return text;
}

}  // namespace devices
