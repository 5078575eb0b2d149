// The profile of one run: every charge of the cost model, placed on the
// timelines of the devices that ran it, and the `--profile` table that
// ranks them (runtime.md "The cost model", cli.md). The caller names source
// locations; nothing here knows the language.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "devices/cost_model.hpp"
#include "devices/error.hpp"

namespace devices {

// A charge as it ran: on which devices, from when, and how much time it
// added to the run (its own estimate, less what overlapping compute hid).
struct TimedCharge {
  Charge charge;
  // Shared by consecutive charges on the same devices (an SPMD program's
  // charges all run on its whole mesh).
  std::shared_ptr<const std::vector<int>> devices;
  double start_seconds = 0;
  double charged_seconds = 0;
  bool overlapped = false;  // a collective run beside independent compute
};

// One device's bytes in use from `seconds` on its timeline (--trace's
// memory counter tracks).
struct MemorySample {
  int device = 0;
  double seconds = 0;
  std::int64_t bytes = 0;
};

class Profile {
 public:
  Profile(std::string chip_name, int device_count);

  // The text the table shows for `source` ("model.shl:14"); an unlabelled
  // source shows as "#<id>".
  void label_source(SourceId source, std::string label);
  std::string source_label(SourceId source) const;
  // A jitted call site's label ("step at decode.py:38"), and one more call
  // of it: the table's last section gives each site's time per call.
  void label_call(CallId call, std::string label);
  void count_call(CallId call) { ++call_counts_[call]; }

  // Runs `charge` on `devices`: they start it together once the last of them
  // is free, as an SPMD operation or a collective does. Fails on a device id
  // outside the run or on no device at all.
  Status add(Charge charge, std::span<const int> devices);
  // A collective the program overlaps by hand with independent compute (one
  // step of a collective matmul): both start together and the pair costs
  // the longer of the two.
  Status add_overlapped(Charge compute, Charge communication, std::span<const int> devices);

  const std::vector<TimedCharge>& charges() const { return charges_; }
  int device_count() const { return static_cast<int>(device_clock_.size()); }
  // When the last device finishes: the run's estimated time.
  double total_seconds() const;
  // The time each device spent in charges (the same for every device of an
  // SPMD program; less on devices an operation did not use).
  double device_busy_seconds(int device) const;

  // Device memory over time, kept only while tracing (the ledger's listener
  // calls it, memory.hpp): `devices` hold `bytes_in_use` from their clocks now.
  void record_memory(std::span<const int> devices, std::int64_t bytes_in_use);
  // A jitted program's memory plan is charged before the program runs
  // (memory_plan.hpp): while staging, each change is held for the program
  // step it belongs to (`step`: before equation `step`, the last step's
  // frees before the end) and taken at the devices' clocks when that
  // equation starts (memory_step_starts) or when anything else changes
  // memory (release_memory_steps): so the counters step with the program's
  // equations, in the ledger's order.
  void stage_memory_step(int step) { staging_step_ = step; }
  void end_memory_staging() { staging_step_ = -1; }
  void memory_step_starts(int step);
  void release_memory_steps();
  // The samples so far, in the order memory changed (each device's in time
  // order); samples still held for a program step are not among them.
  const std::vector<MemorySample>& memory_samples() const { return memory_samples_; }

  // The table: the `max_rows` most expensive (source, operation, shardings,
  // collective) rows with bytes moved, estimated µs and share of the charged
  // time; a summary per collective kind; the time per call of each jitted
  // call site; a footer naming what the model cannot see. Rows of equal
  // cost keep the order they first ran in.
  std::string render(std::size_t max_rows = 20) const;

 private:
  // The jitted call sites' section of the table ("" when none ran).
  std::string render_calls(double charged_total) const;
  Status check_devices(std::span<const int> devices) const;
  // `devices` checked, as a set shared with the previous charge when equal.
  Expected<std::shared_ptr<const std::vector<int>>> device_set(std::span<const int> devices);
  double start_of(std::span<const int> devices) const;
  void finish(std::span<const int> devices, double end_seconds, double busy_seconds);

  std::string chip_name_;
  std::vector<double> device_clock_;
  std::vector<double> device_busy_;
  std::vector<TimedCharge> charges_;
  std::map<SourceId, std::string> source_labels_;
  std::map<CallId, std::string> call_labels_;
  std::map<CallId, int> call_counts_;
  std::shared_ptr<const std::vector<int>> last_devices_;
  struct HeldChange {
    int step;
    std::vector<int> devices;
    std::int64_t bytes;
  };
  void sample(std::span<const int> devices, std::int64_t bytes);
  std::vector<MemorySample> memory_samples_;
  std::vector<HeldChange> held_changes_;  // in the ledger's order
  std::size_t held_taken_ = 0;            // those before it are sampled
  int staging_step_ = -1;                 // -1: not staging
};

}  // namespace devices
