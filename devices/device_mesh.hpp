// Physical device order: which device sits at each position of a logical
// mesh, as jax.experimental.mesh_utils.create_device_mesh and jax.make_mesh
// choose it for the chip's topology (runtime.md "Physical order"), so that
// neighbours along a mesh axis are neighbours on the interconnect.
#pragma once

#include <vector>

#include "devices/device.hpp"
#include "devices/error.hpp"

namespace devices {

struct DeviceMeshOptions {
  // Let one physical torus axis be split over several mesh axes (JAX's
  // allow_split_physical_axes).
  bool allow_split_physical_axes = false;
};

// mesh_utils.create_device_mesh(mesh_shape, devices): the devices laid out
// in mesh_shape, returned flat in row-major order. Their number must equal
// the product of mesh_shape. On cpu the order is the devices' own.
Expected<std::vector<Device>> create_device_mesh(const std::vector<int>& mesh_shape,
                                                 const std::vector<Device>& devices,
                                                 const DeviceMeshOptions& options = {});

// jax.make_mesh(axis_shapes, …, devices=devices): uses the first
// product(axis_shapes) devices and, on v5e, allows splitting physical axes.
Expected<std::vector<Device>> make_mesh_devices(const std::vector<int>& axis_shapes,
                                                const std::vector<Device>& devices);

// (8,) or (4, 2), as Python prints a tuple of ints.
std::string python_tuple(const std::vector<int>& values);

}  // namespace devices
