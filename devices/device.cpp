#include "devices/device.hpp"

#include <bit>

#include <fmt/format.h>

namespace devices {

std::string device_repr(const Device& device) {
  if (device.platform == Platform::cpu) return fmt::format("CpuDevice(id={})", device.id);
  return fmt::format("TpuDevice(id={}, process_index={}, coords=({},{},{}), core_on_chip={})",
                     device.id, device.process_index, device.coords.x, device.coords.y,
                     device.coords.z, device.core_on_chip);
}

std::string device_label(const Device& device) {
  return fmt::format("{} {}", platform_display_name(device.platform), device.id);
}

std::string device_kind(const Device& device) {
  if (device.platform == Platform::cpu || !device.chip) return "cpu";
  return std::string(chip_spec(*device.chip).device_kind);
}

namespace {

// The factorisation a*b == n with a >= b and a/b smallest.
SliceShape most_square_2d(int n) {
  int b = 1;
  for (int candidate = 1; candidate * candidate <= n; ++candidate)
    if (n % candidate == 0) b = candidate;
  return {n / b, b, 1};
}

// The factorisation x*y*z == n, x <= y <= z, closest to a cube.
SliceShape most_cubic_3d(int n) {
  SliceShape best{1, 1, n};
  for (int x = 1; x * x * x <= n; ++x) {
    if (n % x != 0) continue;
    SliceShape rest = most_square_2d(n / x);  // rest.x >= rest.y
    if (rest.y >= x) best = {x, rest.y, rest.x};
  }
  return best;
}

// Power-of-two 2-D slices: 1x1, 2x1, 2x2, 4x2, 4x4, … (double x while x == y,
// else y). x is the longer axis so that JAX's v5e ring tables, which read
// devices x-fastest, walk a physical ring (see device_mesh.cpp).
SliceShape power_of_two_2d(int n) {
  SliceShape shape;
  while (shape.x * shape.y < n) (shape.x == shape.y ? shape.x : shape.y) *= 2;
  return shape;
}

// Power-of-two 3-D slices as v4/v5p sell them: 1x1x1, 2x1x1, 2x2x1, then
// double the shortest axis, z first on ties: 2x2x2, 2x2x4, 2x4x4, 4x4x4, …
SliceShape power_of_two_3d(int n) {
  if (n == 1) return {1, 1, 1};
  if (n == 2) return {2, 1, 1};
  SliceShape shape{2, 2, 1};
  while (shape.x * shape.y * shape.z < n) {
    if (shape.z <= shape.y && shape.z <= shape.x) shape.z *= 2;
    else if (shape.y <= shape.x) shape.y *= 2;
    else shape.x *= 2;
  }
  return shape;
}

}  // namespace

Expected<SliceShape> slice_shape(Chip chip, int device_count) {
  const ChipSpec& spec = chip_spec(chip);
  if (device_count < 1)
    return Error{ErrorKind::invalid_argument,
                 fmt::format("the number of devices must be at least 1, got {}", device_count)};
  int chips = device_count;
  if (spec.devices_per_chip > 1 && device_count > 1) {
    if (device_count % spec.devices_per_chip != 0)
      return Error{ErrorKind::invalid_argument,
                   fmt::format("TPU {} has {} cores per chip, each a device: the number of "
                               "devices must be 1 or a multiple of {}, got {}",
                               spec.name, spec.devices_per_chip, spec.devices_per_chip,
                               device_count)};
    chips = device_count / spec.devices_per_chip;
  } else if (spec.devices_per_chip > 1) {
    chips = 1;
  }
  bool power_of_two = std::has_single_bit(static_cast<unsigned>(chips));
  if (spec.torus_dimensions == 3) return power_of_two ? power_of_two_3d(chips) : most_cubic_3d(chips);
  return power_of_two ? power_of_two_2d(chips) : most_square_2d(chips);
}

Expected<std::vector<Device>> make_devices(Platform platform, Chip chip, int device_count) {
  if (device_count < 1)
    return Error{ErrorKind::invalid_argument,
                 fmt::format("the number of devices must be at least 1, got {}", device_count)};
  std::vector<Device> result;
  result.reserve(static_cast<std::size_t>(device_count));
  if (platform == Platform::cpu) {
    for (int id = 0; id < device_count; ++id) result.push_back(Device{.id = id, .platform = platform, .chip = std::nullopt, .process_index = 0, .coords = {}, .core_on_chip = 0});
    return result;
  }
  Expected<SliceShape> shape = slice_shape(chip, device_count);
  if (!shape) return shape.error();
  int cores = device_count == 1 ? 1 : chip_spec(chip).devices_per_chip;
  int id = 0;
  for (int z = 0; z < shape->z; ++z)
    for (int y = 0; y < shape->y; ++y)
      for (int x = 0; x < shape->x; ++x)
        for (int core = 0; core < cores; ++core)
          result.push_back(Device{.id = id++, .platform = platform, .chip = chip,
                                  .process_index = 0, .coords = {x, y, z}, .core_on_chip = core});
  return result;
}

}  // namespace devices
