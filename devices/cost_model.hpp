// The TPU cost model: the simulated time of every local operation and
// collective on the chosen chip (runtime.md "The cost model"; formulas and
// the published figures they are checked against: costmodel.md). Callers
// describe work in plain numbers (dimensions, dtypes, bytes, mesh axes);
// nothing here knows the language.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "devices/chip.hpp"
#include "devices/device.hpp"
#include "devices/error.hpp"
#include "typecheck/dtype.hpp"

namespace devices {

// lax.Precision of a dot: how many bf16 MXU passes an f32 product takes.
enum class Precision { default_precision, high, highest };

// ORDER CollectiveKind: collective_kind_name in cost_model.cpp.
enum class CollectiveKind { none, all_gather, all_reduce, reduce_scatter, all_to_all, collective_permute };

// "all-gather", as XLA names the HLO; "-" for none.
std::string_view collective_kind_name(CollectiveKind kind);
// The kind XLA's name names; none for anything else ("dynamic-slice").
CollectiveKind parse_collective_kind(std::string_view xla_name);

// One (batched) matrix product [batch, rows, contracting] x [batch,
// contracting, columns] as one device computes it: dimensions of its shard.
struct MatmulWork {
  std::int64_t batch = 1;
  std::int64_t rows = 0;
  std::int64_t contracting = 0;
  std::int64_t columns = 0;
  typecheck::DType lhs_dtype = typecheck::DType::float32;
  typecheck::DType rhs_dtype = typecheck::DType::float32;
  typecheck::DType out_dtype = typecheck::DType::float32;
  Precision precision = Precision::default_precision;
};

// An elementwise operation or reduction as one device computes it. Plain
// arithmetic on the VPU always outruns HBM, so only transcendentals (sin,
// exp, log, erf_inv, …) have a compute term.
struct ElementwiseWork {
  std::int64_t elements = 0;
  std::int64_t bytes_read = 0;
  std::int64_t bytes_written = 0;
  double transcendentals_per_element = 0;
};

// One mesh axis a collective runs over: its size and whether its ring
// closes on itself through wraparound links.
struct MeshAxisLink {
  int size = 1;
  bool wraps = false;
};

// The link of mesh axis `axis` of a mesh whose devices are `mesh_devices`
// (row-major over `mesh_shape`, as create_device_mesh returns them) in a
// slice of `slice` chips. The axis wraps when every ring along it covers one
// whole physical torus dimension of the slice and the chip's rule gives that
// dimension wraparound links (costmodel.md "wraparound on an axis"); a ring
// spanning several physical dimensions, or part of one, is a line.
Expected<MeshAxisLink> mesh_axis_link(const ChipSpec& chip, const SliceShape& slice,
                                      const std::vector<Device>& mesh_devices,
                                      const std::vector<int>& mesh_shape, int axis);

// An opaque id of the source location that caused a charge, chosen by the
// caller (the profile shows the label the caller gives it).
using SourceId = std::uint64_t;
// An opaque id of the outermost jitted call a charge ran in (a function and
// the line calling it), chosen by the caller; 0 outside any.
using CallId = std::uint64_t;

// One charged operation: what ran, on what, and its estimated time.
struct Charge {
  std::string operation;  // "dot_general", "sin", "all-gather"
  std::string shardings;  // operand and result types as the caller prints them
  CollectiveKind collective = CollectiveKind::none;
  std::int64_t bytes_moved = 0;  // over the interconnect, per device
  double seconds = 0;
  SourceId source = 0;
  CallId call = 0;
};

class CostModel {
 public:
  explicit CostModel(const ChipSpec& chip) : chip_(chip) {}

  const ChipSpec& chip() const { return chip_; }

  // bf16 MXU passes of a product of these dtypes at `precision`, counted at
  // the int8 rate when int8_rate() says so.
  double matmul_passes(typecheck::DType lhs, typecheck::DType rhs, Precision precision) const;
  // Whether a product of these dtypes runs at the chip's int8 rate.
  bool int8_rate(typecheck::DType lhs, typecheck::DType rhs) const;

  // max(2·M·K·N·passes / (0.95·C), bytes of lhs + rhs + out / W_hbm), the
  // FLOP term on dimensions padded up to the chip's MXU tile.
  double matmul_seconds(const MatmulWork& work) const;
  // max((bytes read + written) / W_hbm, elements · transcendentals / R_vpu).
  double elementwise_seconds(const ElementwiseWork& work) const;
  // Moving `bytes` through HBM (a copy, a layout change on one device).
  double memory_seconds(std::int64_t bytes) const;

  // A collective over the mesh axes `axes` at once (their sizes multiply).
  // `bytes`: the full gathered array per device for all-gather,
  // reduce-scatter and all-reduce; the total for all-to-all; what one device
  // sends for a permute. Axes of size 1 take no part; none at all costs 0.
  double collective_seconds(CollectiveKind kind, std::int64_t bytes, std::span<const MeshAxisLink> axes) const;

  // Dispatching one eager operation to `device_count` devices from the host:
  // about 1 ms for several devices on the tutorials' TPU; inside a jitted
  // program it costs nothing, and a single device's dispatch is below what
  // the model resolves.
  double eager_dispatch_seconds(int device_count) const;

  // Steps of a loop that overlaps a collective with independent compute (a
  // collective matmul): each step costs the longer of the two, not the sum.
  static double overlapped_seconds(double compute_seconds, double communication_seconds);

 private:
  const ChipSpec& chip_;
};

}  // namespace devices
