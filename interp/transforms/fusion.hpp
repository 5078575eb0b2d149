// Loop fusion of the per-device program, as XLA fuses a jitted program's
// elementwise chains (a kLoop fusion): consecutive float elementwise
// equations (f32, bf16 or f16) of one dtype, shape and layout whose
// intermediate values nothing else reads become one fused loop per device
// (devices/kernels/fusion.hpp), run blockwise in cache, with no whole
// temporaries. One such equation alone is a loop too (planned once rather
// than dispatched at every run), printed as its own instruction.
//
// What fuses: the elementwise family's float operations placed where they
// need no collective of their own, and lax.integer_pow of a float. Operands
// from outside the fusion (broadcast ones too: a softmax's row maxima, a
// literal) are moved where the kernel needs them first, as the unfused
// steps move them. A value an equation outside the fusion reads, or a
// program output, ends a fusion. A static slice that only fusions read
// (RoPE's halves of a projection) is read by them in place, a window of its
// operand's shard, and not made. The result equals the unfused program's
// bit for bit.
//
// Only running and as_text() see fusions: the memory plan and the cost
// model still charge each equation (docs/memory.md, costmodel.md).
#pragma once

#include <cstddef>
#include <vector>

#include "devices/kernels/fusion.hpp"
#include "interp/transforms/jaxpr.hpp"

namespace interp {

struct PartitionedProgram;

struct Fusion {
  // The equations it replaces (indices into PartitionedProgram::equations),
  // in order; the last makes `output`.
  std::vector<std::size_t> equations;
  // The variables it reads from outside, numbered as the loop's inputs, and
  // where each must lie for the loop.
  std::vector<int> inputs;
  std::vector<Layout> input_layouts;
  // Per input: the static slice of it the loop reads instead (the index of
  // a slice equation that only fusions read, PartitionedEquation::windowed),
  // or -1 where it reads all of it.
  std::vector<int> windows;
  // The loop, planned for the inputs' shards (each device's, all of one
  // shape); for a concatenation's part, to write into its window of the
  // concatenation's shard.
  devices::FusedPlan plan;
  int concatenation = -1;  // the Concatenation it is a part of (run there), or -1
  int output = -1;
  Layout layout;  // where the output lies
  bool committed = false;
};

// A concatenate whose operands are fusions' results that nothing else
// reads (RoPE's two rotated halves), each lying as the result does, the
// joined axis split in none: each fusion writes its result straight into
// its window of the concatenation's shard, all of them in one pass per
// device, at the concatenate (XLA's loop fusion with a concatenate root).
struct Concatenation {
  std::size_t equation = 0;        // the concatenate (PartitionedProgram::equations)
  std::vector<std::size_t> parts;  // its operands' fusions (PartitionedProgram::fusions), in order
};

// Finds the program's fusions and the concatenations of fusions, and marks
// their equations (PartitionedEquation::fusion, ::concatenation).
void fuse_elementwise(PartitionedProgram& program);

// Runs `fusion` on the program's values (its inputs computed) and returns
// its output.
class ProgramValues;
ArrayRef run_fusion(Evaluator& evaluator, const Jaxpr& program, const Fusion& fusion, ProgramValues& values);
// Runs the concatenation's fusions into its result (their inputs computed) and returns it.
ArrayRef run_concatenation(Evaluator& evaluator, const PartitionedProgram& program, const Concatenation& concatenation,
                           ProgramValues& values);

}  // namespace interp
