#include "devices/chip.hpp"

#include <array>

namespace devices {
namespace {

constexpr std::int64_t gib = std::int64_t{1} << 30;

// ORDER Chip. Sources, as costmodel.md cites them:
//  - Google Cloud TPU documentation (cloud.google.com/tpu/docs: system
//    architecture, v4, v5e, v5p, v6e pages): HBM sizes and bandwidth, peak
//    FLOP/s, topologies and wraparound;
//  - "How to Scale Your Model" (jax-ml/scaling-book, chapter "How to Think
//    About TPUs"): ICI bandwidth per link, per-hop latency, wraparound rules;
//  - JAX's jax/_src/tpu_info.py: per-chip HBM and device kinds.
// v2/v3 figures are per core (each core is a device): a v2 chip has 16 GiB
// of HBM, 8 GiB per core.
// The VPU's transcendental rate is known only for v2/v3 (about 6.9e9
// elements/s per core, costmodel.md, from the distributed arrays tutorial's
// jnp.sin timing); other chips scale it by their MXU peak over a v3 chip's
// (two cores, 1.23e14 FLOP/s), no per-chip figure being public.
constexpr std::array<ChipSpec, 6> chip_table = {{
    {Chip::v2, "v2", "TPU v2", 2, 2, 8 * gib, 2.3e13, std::nullopt, 3.58e11, 6e10,
     Wraparound::full_pod, 16, 1e-6, 128, 6.9e9},
    {Chip::v3, "v3", "TPU v3", 2, 2, 16 * gib, 6.15e13, std::nullopt, 4.5e11, 1e11,
     Wraparound::full_pod, 32, 1e-6, 128, 6.9e9},
    {Chip::v4, "v4", "TPU v4", 1, 3, 32'000'000'000, 2.75e14, 2.75e14, 1.2e12, 4.5e10,
     Wraparound::multiple_of_4, 0, 1e-6, 128, 1.54e10},
    {Chip::v5e, "v5e", "TPU v5 lite", 1, 2, 16'000'000'000, 1.97e14, 3.94e14, 8.2e11, 4.5e10,
     Wraparound::length_16, 0, 1e-6, 128, 1.1e10},
    {Chip::v5p, "v5p", "TPU v5", 1, 3, 95'000'000'000, 4.59e14, 9.18e14, 2.8e12, 9e10,
     Wraparound::multiple_of_4, 0, 1e-6, 128, 2.58e10},
    {Chip::v6e, "v6e", "TPU v6 lite", 1, 2, 32'000'000'000, 9.2e14, 1.84e15, 1.6e12, 9e10,
     Wraparound::length_16, 0, 1e-6, 256, 5.16e10},
}};

}  // namespace

const ChipSpec& chip_spec(Chip chip) { return chip_table[static_cast<int>(chip)]; }

std::string_view chip_name(Chip chip) { return chip_spec(chip).name; }

std::optional<Chip> parse_chip(std::string_view name) {
  for (const ChipSpec& row : chip_table)
    if (row.name == name) return row.chip;
  return std::nullopt;
}

std::string_view platform_name(Platform platform) {
  return platform == Platform::tpu ? "tpu" : "cpu";
}

std::string_view platform_display_name(Platform platform) {
  return platform == Platform::tpu ? "TPU" : "CPU";
}

std::optional<Platform> parse_platform(std::string_view name) {
  if (name == "tpu") return Platform::tpu;
  if (name == "cpu") return Platform::cpu;
  return std::nullopt;
}

bool axis_wraps(const ChipSpec& spec, int axis_chips) {
  switch (spec.wraparound) {
    case Wraparound::full_pod: return axis_chips == spec.pod_axis_chips;
    case Wraparound::multiple_of_4: return axis_chips > 0 && axis_chips % 4 == 0;
    case Wraparound::length_16: return axis_chips == 16;
  }
  return false;
}

}  // namespace devices
