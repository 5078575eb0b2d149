#include "devices/cost_model.hpp"

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

#include "devices/collectives.hpp"
#include "devices/device_mesh.hpp"

namespace devices {
namespace {

// costmodel.md: the MXU sustains about 95 % of its peak on large products.
constexpr double mxu_efficiency = 0.95;
// Fixed cost of launching one collective (costmodel.md t_fixed).
constexpr double collective_fixed_seconds = 4e-6;
// Link efficiency: rings that close on themselves stream near the link rate;
// short lines lose more to their ends (costmodel.md η).
constexpr double wrapped_link_efficiency = 0.95;
constexpr double line_link_efficiency = 0.8;
// An int32 product is not native on the MXU: XLA emulates it in about ten
// bf16 passes, calibrated on the unsharded v5e int32 matmul of costmodel.md
// (224 µs for 1024x2048x8192 over 8 chips).
constexpr double int32_matmul_passes = 10;
// Eager dispatch of one operation to several devices on the tutorials' TPU.
constexpr double eager_multi_device_dispatch_seconds = 1e-3;

// ORDER CollectiveKind.
constexpr std::array<std::string_view, 6> collective_kind_names = {
    "-", "all-gather", "all-reduce", "reduce-scatter", "all-to-all", "collective-permute"};

double padded(std::int64_t dimension, int tile) {
  std::int64_t rounded = (dimension + tile - 1) / tile * tile;
  return static_cast<double>(rounded);
}

// What one axis contributes to a collective: hops around (or along) it and
// the effective bandwidth of its links.
struct AxisRate {
  int hops = 0;
  double one_way_bandwidth = 0;     // η · one link
  double ring_bandwidth = 0;        // η · (both directions if it wraps)
};

AxisRate axis_rate(const ChipSpec& chip, const MeshAxisLink& axis) {
  double efficiency = axis.wraps ? wrapped_link_efficiency : line_link_efficiency;
  double one_way = efficiency * chip.ici_link_bandwidth;
  return {axis.wraps ? axis.size / 2 : axis.size - 1, one_way, axis.wraps ? 2 * one_way : one_way};
}

}  // namespace

std::string_view collective_kind_name(CollectiveKind kind) {
  return collective_kind_names[static_cast<int>(kind)];
}

CollectiveKind parse_collective_kind(std::string_view xla_name) {
  for (std::size_t kind = 1; kind < collective_kind_names.size(); ++kind)
    if (collective_kind_names[kind] == xla_name) return static_cast<CollectiveKind>(kind);
  return CollectiveKind::none;
}

Expected<MeshAxisLink> mesh_axis_link(const ChipSpec& chip, const SliceShape& slice,
                                      const std::vector<Device>& mesh_devices,
                                      const std::vector<int>& mesh_shape, int axis) {
  std::int64_t positions = 1;
  for (int size : mesh_shape) {
    if (size < 1) return Error{ErrorKind::invalid_argument, "mesh axis sizes must be positive"};
    positions *= size;
  }
  if (positions != static_cast<std::int64_t>(mesh_devices.size()))
    return Error{ErrorKind::invalid_argument,
                 fmt::format("a mesh of shape {} needs {} devices, got {}", python_tuple(mesh_shape), positions,
                             mesh_devices.size())};
  if (axis < 0 || axis >= static_cast<int>(mesh_shape.size()))
    return Error{ErrorKind::invalid_argument,
                 fmt::format("mesh axis {} out of range for a mesh of {} axes", axis, mesh_shape.size())};

  MeshAxisLink link{mesh_shape[axis], true};
  const std::array<int, 3> slice_extent = {slice.x, slice.y, slice.z};
  for (const std::vector<int>& group : replica_groups(mesh_shape, {axis})) {
    // The chips of the ring, per physical torus dimension.
    std::array<std::set<int>, 3> chips_along;
    for (int position : group) {
      const Device& device = mesh_devices[position];
      if (!device.chip) return MeshAxisLink{mesh_shape[axis], false};  // cpu: no torus
      chips_along[0].insert(device.coords.x);
      chips_along[1].insert(device.coords.y);
      chips_along[2].insert(device.coords.z);
    }
    int spanned_dimension = -1;
    int dimensions_spanned = 0;
    for (int dimension = 0; dimension < 3; ++dimension)
      if (chips_along[dimension].size() > 1) {
        spanned_dimension = dimension;
        ++dimensions_spanned;
      }
    bool whole_torus_axis = dimensions_spanned == 1 &&
                            static_cast<int>(chips_along[spanned_dimension].size()) ==
                                slice_extent[spanned_dimension];
    if (!whole_torus_axis || !axis_wraps(chip, slice_extent[spanned_dimension])) link.wraps = false;
  }
  return link;
}

bool CostModel::int8_rate(typecheck::DType lhs, typecheck::DType rhs) const {
  return lhs == typecheck::DType::int8 && rhs == typecheck::DType::int8 && chip_.peak_int8_ops.has_value();
}

double CostModel::matmul_passes(typecheck::DType lhs, typecheck::DType rhs, Precision precision) const {
  using typecheck::DType;
  if (typecheck::is_floating(lhs) || typecheck::is_floating(rhs)) {
    // bf16 operands are exact in one pass whatever the precision asked.
    if (lhs == DType::bfloat16 && rhs == DType::bfloat16) return 1;
    switch (precision) {
      case Precision::default_precision: return 1;
      case Precision::high: return 3;
      case Precision::highest: return 6;
    }
  }
  // int8 is native (at the int8 rate, or exactly in one bf16 pass where the
  // chip has no int8 rate); wider integers are emulated.
  if (lhs == DType::int8 && rhs == DType::int8) return 1;
  return int32_matmul_passes;
}

double CostModel::matmul_seconds(const MatmulWork& work) const {
  if (work.batch <= 0 || work.rows <= 0 || work.contracting <= 0 || work.columns <= 0) return 0;
  int tile = chip_.matmul_padding;
  double padded_flops = 2.0 * static_cast<double>(work.batch) * padded(work.rows, tile) *
                        padded(work.contracting, tile) * padded(work.columns, tile);
  double rate = int8_rate(work.lhs_dtype, work.rhs_dtype) ? *chip_.peak_int8_ops : chip_.peak_bf16_flops;
  double compute = padded_flops * matmul_passes(work.lhs_dtype, work.rhs_dtype, work.precision) /
                   (mxu_efficiency * rate);
  double rows = static_cast<double>(work.rows);
  double contracting = static_cast<double>(work.contracting);
  double columns = static_cast<double>(work.columns);
  double bytes = static_cast<double>(work.batch) *
                 (rows * contracting * typecheck::byte_size(work.lhs_dtype) +
                  contracting * columns * typecheck::byte_size(work.rhs_dtype) +
                  rows * columns * typecheck::byte_size(work.out_dtype));
  return std::max(compute, bytes / chip_.hbm_bandwidth);
}

double CostModel::elementwise_seconds(const ElementwiseWork& work) const {
  double memory = static_cast<double>(work.bytes_read + work.bytes_written) / chip_.hbm_bandwidth;
  double compute = static_cast<double>(work.elements) * work.transcendentals_per_element /
                   chip_.vpu_transcendentals_per_second;
  return std::max(memory, compute);
}

double CostModel::memory_seconds(std::int64_t bytes) const {
  return static_cast<double>(bytes) / chip_.hbm_bandwidth;
}

double CostModel::collective_seconds(CollectiveKind kind, std::int64_t bytes,
                                     std::span<const MeshAxisLink> axes) const {
  double devices = 1;
  int axes_used = 0;
  int hops = 0;
  double ring_bandwidth = 0;
  double one_way_bandwidth = 0;
  for (const MeshAxisLink& axis : axes) {
    if (axis.size <= 1) continue;
    AxisRate rate = axis_rate(chip_, axis);
    devices *= axis.size;
    hops += rate.hops;
    // Over several axes at once the slowest axis sets the pace of each.
    ring_bandwidth = axes_used == 0 ? rate.ring_bandwidth : std::min(ring_bandwidth, rate.ring_bandwidth);
    one_way_bandwidth =
        axes_used == 0 ? rate.one_way_bandwidth : std::min(one_way_bandwidth, rate.one_way_bandwidth);
    ++axes_used;
  }
  if (axes_used == 0 || kind == CollectiveKind::none) return 0;

  double latency = collective_fixed_seconds + hops * chip_.per_hop_latency_seconds;
  double volume = static_cast<double>(bytes);
  // k axes at once carry the data over k sets of links in parallel.
  double parallel_axes = axes_used;
  double reduce_scatter = latency + (devices - 1) / devices * volume / ring_bandwidth / parallel_axes;
  switch (kind) {
    case CollectiveKind::all_gather:
    case CollectiveKind::reduce_scatter: return reduce_scatter;
    case CollectiveKind::all_reduce: return 2 * reduce_scatter;
    case CollectiveKind::all_to_all: return latency + volume / (4 * ring_bandwidth) / parallel_axes;
    case CollectiveKind::collective_permute: return latency + volume / one_way_bandwidth / parallel_axes;
    case CollectiveKind::none: break;
  }
  return 0;
}

double CostModel::eager_dispatch_seconds(int device_count) const {
  return device_count > 1 ? eager_multi_device_dispatch_seconds : 0;
}

double CostModel::overlapped_seconds(double compute_seconds, double communication_seconds) {
  return std::max(compute_seconds, communication_seconds);
}

}  // namespace devices
