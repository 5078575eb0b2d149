// The one decision a primitive family makes about one application (its
// table entry's `partition`, architecture.md "The path of one program").
// From the operands' types and layouts and the static params, after the
// typecheck rule, a family's place rule says where the result lies and what
// data movement computing it needs: where each operand must lie when the
// local kernel runs on every device, where the kernel leaves its result,
// and over which mesh axes those results are partial values still to be
// combined (all-reduced, or reduce-scattered into the result's split).
//
// The decision is made once per application and used three times: the
// eager trace runs it now (run_placed: operands moved, kernel, partial sums,
// finish), the partitioner (transforms/partitioner.hpp) turns each
// equation's decision into the steps of the per-device program that a
// jitted call runs, as_text() prints and the cost model charges. The
// abstract traces (check mode, jit tracing) keep the result's type and
// layout only.
//
// Families without a place rule (partitioning::replay) are replayed: their
// eager implementation runs as one step of the per-device program, moving
// what it needs inside; the partitioner names that fallback in
// architecture.md and prints the collectives its `replayed` rule reports.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "devices/kernels.hpp"
#include "interp/ops/array.hpp"

namespace interp {

struct Primitive;
struct Params;

// What a family's kernel derives from its decision and its operands'
// shapes alone (block origins, which positions share a block), made by the
// kernel's first run and kept with the decision: a jitted program keeps
// each equation's decision for every call. A family derives its own.
struct KernelPlan {
  virtual ~KernelPlan() = default;
};

struct Placement {
  typecheck::ArrayType type = {};  // the result's type
  Layout layout = {};              // where the result lies (its Auto axes too)
  bool committed = false;
  // Where each operand must lie for the kernel: collectives move an operand
  // that lies elsewhere (all-gather, all-to-all, dynamic-slice), the host an
  // operand on other devices.
  std::vector<Layout> operands = {};
  // The dtype the kernel converts its operands to (elementwise, dot,
  // reductions), resolved here so that a jitted call does not re-derive it.
  typecheck::DType compute = typecheck::DType::float32;
  // Where the kernel leaves its result: `layout`, less the summed axes a
  // reduce-scatter then splits the result by.
  Layout computed = {};
  // Mesh axes over which the kernel's results are partial values, combined
  // by `combine` (a sharded contraction or reduction), in replica-group
  // order (the first major).
  typecheck::SpecEntry summed = {};
  devices::ReduceOp combine = devices::ReduceOp::sum;
  // The result dimension the summed axes split (a reduce-scatter), or -1
  // (an all-reduce).
  int scatter_dimension = -1;
  // Reductions: the operand elements each result element reduces (a mean
  // divides by it).
  std::int64_t reduced_count = 1;
  // .sharding.spec as the user wrote it (device_put, sharding_constraint).
  std::optional<typecheck::PartitionSpec> requested_spec = {};
  // device_put: the unreduced axes the result has and the operand has not
  // (the value kept on the first device along them, zeros on the others).
  typecheck::AxisSet made_unreduced = {};
  // The kernel's plan (KernelPlan), once a run made it; null before.
  mutable std::shared_ptr<const KernelPlan> kernel_plan = nullptr;
};

// The rules of one family. A null `place` is the replay fallback.
using PlaceRule = Placement (*)(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                                const Params& params);
// The local work on every device: `inputs` lie as Placement::operands say;
// the result lies as Placement::computed (partial values where `summed`).
using KernelRule = ArrayRef (*)(Evaluator& evaluator, const Primitive& primitive, const Placement& placement,
                                const std::vector<ArrayRef>& inputs, const Params& params);
// Local work after the partial values are combined (a mean's division);
// null: the combined value is the result.
using FinishRule = ArrayRef (*)(Evaluator& evaluator, const Primitive& primitive, const Placement& placement,
                                const ArrayRef& combined, const Params& params);

// The partitioner's rule for replayed equations: the collectives their
// eager implementation runs inside, for as_text() and the cost model
// (transforms/partitioner.hpp).
struct Jaxpr;
struct Equation;
struct PlannedCollective;
using ReplayedCollectives = void (*)(const Jaxpr& program, const Equation& equation,
                                     std::vector<PlannedCollective>& out);

struct Partitioning {
  std::string_view name;  // the family, as architecture.md names it
  PlaceRule place = nullptr;
  KernelRule kernel = nullptr;
  FinishRule finish = nullptr;
  ReplayedCollectives replayed = nullptr;  // replayed families only; null: none
  // The decision follows from the primitive and its operands' types,
  // layouts and commitment alone (not from the params or the evaluator's
  // state): run_placed reuses the one it made last for the same operands.
  bool decided_by_operands = false;
};

bool replayed(const Partitioning& partitioning);

// device_put's and sharding_constraint's kernel: the operand, already where
// the result lies, under the result's type.
ArrayRef relayout_kernel(Evaluator& evaluator, const Primitive& primitive, const Placement& placement,
                         const std::vector<ArrayRef>& inputs, const Params& params);

// ------------------------------------------------------------ running a decision

// The primitive's application by its decision: with `execute`, the operands
// moved, the kernel, the partial values combined, the finish; without, the
// abstract result.
ArrayRef run_placed(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                    const Params& params, bool execute);
// The decision run_placed made for `result`, the abstract result of this
// application of `primitive` to `operands` (Runtime::traced_decision), or
// null when the implementation made none for it; the slot is emptied.
std::shared_ptr<const Placement> take_traced_decision(Evaluator& evaluator, const Primitive& primitive,
                                                      const std::vector<ArrayRef>& operands, const Params& params,
                                                      const ArrayObject& result);
// The abstract result of a decision.
ArrayRef abstract_result(const Placement& placement);
// The steps after the operands are in place, one at a time (the partitioned
// program runs them as steps of their own).
ArrayRef run_kernel(Evaluator& evaluator, const Primitive& primitive, const Placement& placement,
                    const std::vector<ArrayRef>& inputs, const Params& params);
ArrayRef combine_partials(Evaluator& evaluator, const Placement& placement, const ArrayRef& partial);
ArrayRef run_finish(Evaluator& evaluator, const Primitive& primitive, const Placement& placement,
                    const ArrayRef& combined, const Params& params);

// ------------------------------------------------------------ for place rules

// Committed operands must share their devices, in the same order (c04's
// ValueError naming jax.numpy.`api_name`). Returns the mesh the computation
// runs on: a committed operand's, else the most sharded operand's.
DeviceMeshRef computation_mesh(std::string_view api_name, const std::vector<ArrayRef>& operands);
bool any_committed(const std::vector<ArrayRef>& operands);
// A layout's dims moved onto `mesh` (the same axis names exist there when
// the meshes share devices); dims on another mesh are dropped.
std::vector<typecheck::SpecEntry> dims_on(const ArrayObject& array, const DeviceMeshRef& mesh);
// The layout of a result of `type` on `mesh`: the type's sharding where it
// has Explicit axes, else `auto_dims` (computation follows data).
Layout result_layout(const typecheck::ArrayType& type, const DeviceMeshRef& mesh,
                     std::vector<typecheck::SpecEntry> auto_dims);
// Summed axes the result's type keeps unreduced (out_sharding=P(...,
// unreduced=...)) are not combined: each device keeps its partial sum, and
// the reshard that leaves the unreduced type sums them (sharding-ad.md).
void keep_unreduced_partials(Placement& placement);
// `operand` reshaped to `type` lying as `layout`, each device reshaping its
// own block (ops/primitives.cpp: the blocks line up when only the first dim
// of each group of dims of equal products is split, by a count dividing
// both sides); null when they do not (a reshape then gathers the operand).
ArrayRef reshaped_per_block(Evaluator& evaluator, const ArrayRef& operand, const typecheck::ArrayType& type,
                            const Layout& layout);
// The operands' promoted element type (JAX's lattice).
typecheck::ElementType promoted(const std::vector<ArrayRef>& operands);

// The families' rules (ops/elementwise.cpp, dot_general.cpp, reductions.cpp,
// structural.cpp, primitives.cpp and sharding_constraint.cpp for the relayouts;
// transforms/partitioner.cpp for the replayed collectives of shard_map's
// entry).
namespace partitioning {
extern const Partitioning elementwise;   // operands as the result is split; the kernel per device
extern const Partitioning reduce_precision;  // elementwise's placement, its own kernel (params)
extern const Partitioning contraction;   // dot_general: the four sharded-matmul cases
extern const Partitioning convolution;   // conv_general_dilated: batch split, features summed, windows whole
extern const Partitioning reduction;     // sum/mean/max/min combine partial values; others gather first
extern const Partitioning device_put;           // relayout: the operand moved to the layout requested
extern const Partitioning sharding_constraint;  // relayout, as device_put
extern const Partitioning convert;           // structural (ops/structural.cpp): in place
extern const Partitioning transpose;         // structural: the operand laid out as the result, permuted
extern const Partitioning broadcast_in_dim;  // structural: kept dims keep their split
extern const Partitioning select_n;          // structural: cases laid out as the result
extern const Partitioning replay;        // fallback: the eager implementation as one step
extern const Partitioning shard_map_entry;  // fallback, with the reshard to each in_spec
}  // namespace partitioning

}  // namespace interp
