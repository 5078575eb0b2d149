// `--trace OUT.json`: a profile as a Chrome trace (the Trace Event Format
// that chrome://tracing and ui.perfetto.dev open). Each simulated device is
// one process with two threads, compute and communication; each charge is a
// complete ("X") event on every device that ran it, ts and dur in µs, its
// source label, shardings and bytes in args. Each device also has a memory
// counter track ("C" events named "memory TPU 3", args {"bytes": N}): its
// bytes in use from every change the profile sampled (Profile::record_memory).
#pragma once

#include <span>
#include <string>

#include "devices/profile.hpp"

namespace devices {

// `device_labels[i]` names device i's track ("TPU 0"); devices without a
// label are named "device i".
std::string chrome_trace_json(const Profile& profile, std::span<const std::string> device_labels);

}  // namespace devices
