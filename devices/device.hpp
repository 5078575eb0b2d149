// The simulated devices of one run: their ids, chip coordinates, reprs and
// labels, as JAX shows them (runtime.md "Platforms and devices").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "devices/chip.hpp"
#include "devices/error.hpp"

namespace devices {

struct Coords {
  int x = 0;
  int y = 0;
  int z = 0;
  friend bool operator==(const Coords&, const Coords&) = default;
};

struct Device {
  int id = 0;
  Platform platform = Platform::cpu;
  std::optional<Chip> chip;  // set on tpu
  int process_index = 0;
  Coords coords;             // the chip's place in the torus
  int core_on_chip = 0;      // 0 or 1 on v2/v3; 0 elsewhere
};

// As JAX prints a device: "TpuDevice(id=0, process_index=0, coords=(0,0,0),
// core_on_chip=0)" or "CpuDevice(id=0)".
std::string device_repr(const Device& device);
// The short label of visualize_array_sharding and PositionalSharding: "TPU 0".
std::string device_label(const Device& device);
// JAX's device_kind: "TPU v2", "TPU v5 lite", "cpu".
std::string device_kind(const Device& device);

// The chips of a slice, in chips along x, y, z (z is 1 on 2-D tori).
struct SliceShape {
  int x = 1;
  int y = 1;
  int z = 1;
  friend bool operator==(const SliceShape&, const SliceShape&) = default;
};

// The slice that holds `device_count` devices of `chip`: the shapes Cloud
// TPU sells for powers of two (2-D: 2x2, 4x2, 4x4, 8x4, …, x the longer axis;
// 3-D: 2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4, …), the most square factorisation
// otherwise. On v2/v3 a chip holds two devices.
Expected<SliceShape> slice_shape(Chip chip, int device_count);

// The devices of a run in id order, as jax.devices() lists them. TPU ids run
// core fastest, then x, then y, then z (JAX's single-process order), so a
// v2-8 is TPU 0,1 on chip (0,0,0), TPU 2,3 on (1,0,0), TPU 4,5 on (0,1,0),
// TPU 6,7 on (1,1,0). All devices belong to process 0: the simulation is one
// host process. `chip` is ignored on cpu.
Expected<std::vector<Device>> make_devices(Platform platform, Chip chip, int device_count);

}  // namespace devices
