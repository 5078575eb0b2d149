// The fused loop: a chain of float elementwise operations run as one pass
// over memory, as XLA's loop fusion runs a jitted program's elementwise
// chains. The result is computed a block at a time through every
// operation while the block is in cache: each input read once, the result
// written once, no whole temporaries. Each operation computes its elements
// with the element function unary() and binary() use, in f32, and a
// bf16/f16 loop rounds each operation's result to its dtype as the unfused
// kernels store it, so the fused result equals the unfused chain's bit for
// bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "devices/kernels.hpp"

namespace devices {

// One operation of a fused loop. Values are numbered: the loop's inputs
// first, then each operation's result in order.
struct FusedOperation {
  bool binary = false;
  UnaryOp unary_op = UnaryOp::neg;
  BinaryOp binary_op = BinaryOp::add;
  int lhs = -1;  // the operand of a unary operation
  int rhs = -1;  // a binary operation's right operand; -1: `constant`
  float constant = 0;  // the right operand where rhs is -1 (lax.integer_pow's exponent)
};

struct FusedLoop {
  typecheck::DType dtype = typecheck::DType::float32;  // of every value: float32, bfloat16 or float16
  std::size_t inputs = 0;
  std::vector<FusedOperation> operations;  // the last one's result is the loop's
};

// The operations a fused loop runs: the float ones that give a float.
bool fusible(UnaryOp op);
bool fusible(BinaryOp op);

// An input of a fused loop: the array it is given, or a window of it (a
// static slice fused into the loop, read where it lies, as XLA's loop
// fusions read a slice of their parameter).
struct FusedInput {
  struct Window {
    Shape shape;
    std::vector<std::int64_t> starts;  // where it starts in the array, per axis
  };
  Shape shape;  // of the array given
  std::optional<Window> window;  // what the loop reads of it; all of it when none
};

// A fused loop arranged for its inputs' shapes, each input (or its window)
// of the result's shape or broadcasting to it by NumPy's rules (lower rank,
// or 1 where the result is longer): the result's shape and how each input
// is read, worked out once. A jitted program's fusion runs on every
// device's shard, all of one shape, on every call: it is planned when the
// program is compiled.
struct FusedPlan {
  // How one input is read for a block of the result: all of it in order,
  // one element repeated, or through strides (ranked as the result, 0 along
  // the axes it is repeated on); from `offset` (a window's start).
  struct Read {
    enum class Kind { whole, scalar, strided } kind = Kind::whole;
    std::vector<std::int64_t> strides;
    std::int64_t offset = 0;
  };
  FusedLoop loop;
  std::vector<Shape> input_shapes;  // of the arrays given
  std::vector<Read> reads;          // one per input
  Shape shape;                      // the result's: the inputs' broadcast
  std::int64_t block = 1;           // elements per block
  // A block of each constant right operand (lax.integer_pow's exponent),
  // by operation; empty for the others.
  std::vector<std::vector<float>> constants;
  // Where run_fused_into writes the result: the shape of the array it is
  // part of, and how the result's elements lie in it (a window, as a
  // strided read reads one); none for a result of its own.
  Shape whole_shape;
  std::optional<Read> written;
};
Expected<FusedPlan> plan_fused(FusedLoop loop, const std::vector<FusedInput>& inputs);
// The same, the result written into a window of an array of `whole_shape`
// starting at `starts` (a part of a concatenation: run_fused_into).
Expected<FusedPlan> plan_fused_into(FusedLoop loop, const std::vector<FusedInput>& inputs, Shape whole_shape,
                                    const std::vector<std::int64_t>& starts);

// Runs the plan's loop over `inputs` of its dtype and of the shapes it was
// planned for (one per loop input).
Expected<LocalArray> run_fused(const FusedPlan& plan, std::span<const LocalArray> inputs);
// Runs the plan's loop (planned by plan_fused_into) over `inputs`, its
// result written into its window of `whole`.
Status run_fused_into(const FusedPlan& plan, std::span<const LocalArray> inputs, LocalArray& whole);
// Plans the loop for these inputs' shapes and runs it.
Expected<LocalArray> run_fused(const FusedLoop& loop, std::span<const LocalArray> inputs);

}  // namespace devices
