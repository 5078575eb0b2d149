// Platforms and the TPU chip table: the one place chip constants live
// (runtime.md "The cost model", costmodel.md "Chip table").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace devices {

enum class Platform { tpu, cpu };

// ORDER Chip: chip_table in chip.cpp has one row per enumerator, in this order.
enum class Chip { v2, v3, v4, v5e, v5p, v6e };

// When a ring along one torus axis closes on itself (wraparound links).
enum class Wraparound {
  full_pod,     // v2/v3: only an axis spanning the whole pod
  multiple_of_4,  // v4/v5p: an axis whose length is a multiple of 4
  length_16,    // v5e/v6e: only an axis of 16 chips
};

// Constants of one chip, per device: for v2/v3 each of the two cores of a
// chip is a device and the figures are per core.
struct ChipSpec {
  Chip chip;
  std::string_view name;         // "v5e", as --chip spells it
  std::string_view device_kind;  // JAX's Device.device_kind ("TPU v5 lite")
  int devices_per_chip;          // 2 on v2/v3 (a core each); 1 elsewhere (megacore on v4/v5p)
  int torus_dimensions;          // 2 or 3
  std::int64_t hbm_bytes;
  double peak_bf16_flops;                // FLOP/s on the MXU in bf16
  std::optional<double> peak_int8_ops;   // OP/s; none where int8 is not native
  double hbm_bandwidth;                  // bytes/s
  double ici_link_bandwidth;             // bytes/s, one way, per link
  Wraparound wraparound;
  int pod_axis_chips;                    // chips along one axis of a full pod (for full_pod)
  double per_hop_latency_seconds;
  int matmul_padding;                    // dims padded up to this for the MXU FLOP term
  // Transcendentals (sin, exp, log, erf_inv) per second on the VPU.
  double vpu_transcendentals_per_second;
};

const ChipSpec& chip_spec(Chip chip);
std::string_view chip_name(Chip chip);
std::optional<Chip> parse_chip(std::string_view name);  // "v2" … "v6e"

std::string_view platform_name(Platform platform);  // "tpu", "cpu"
// "TPU", "CPU": as JAX's error messages print a platform.
std::string_view platform_display_name(Platform platform);
std::optional<Platform> parse_platform(std::string_view name);

// Whether a ring over `axis_chips` chips along one torus axis has wraparound
// links (then it has twice the bandwidth and half the hops).
bool axis_wraps(const ChipSpec& spec, int axis_chips);

}  // namespace devices
