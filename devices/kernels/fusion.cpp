// The fused loop (kernels/fusion.hpp).
#include "devices/kernels/fusion.hpp"

#include <boost/container/small_vector.hpp>

#include "devices/kernels/support.hpp"

namespace devices {

using namespace kernel_support;
using typecheck::DType;

bool fusible(UnaryOp op) { return op != UnaryOp::logical_not && op != UnaryOp::bitwise_not; }

bool fusible(BinaryOp op) {
  switch (op) {
    case BinaryOp::eq: case BinaryOp::ne: case BinaryOp::lt: case BinaryOp::le: case BinaryOp::gt:
    case BinaryOp::ge: case BinaryOp::logical_and: case BinaryOp::logical_or:
    case BinaryOp::bitwise_and: case BinaryOp::bitwise_or: case BinaryOp::bitwise_xor:
      return false;
    default:
      return true;
  }
}

namespace {

// Elements per block: every value of a long chain stays in the first-level
// cache together (4 KiB each).
constexpr std::int64_t block_elements = 1024;

using Read = FusedPlan::Read;

// Whether a window of `window` extents at `starts` lies inside an array of `shape`, of its rank.
bool inside(const Shape& shape, const Shape& window, const std::vector<std::int64_t>& starts) {
  if (window.size() != shape.size() || starts.size() != shape.size()) return false;
  for (std::size_t axis = 0; axis < shape.size(); ++axis)
    if (starts[axis] < 0 || window[axis] < 0 || starts[axis] + window[axis] > shape[axis]) return false;
  return true;
}

// How `input` is read for a result of `result_shape`.
Read read_of(const FusedInput& input, const Shape& result_shape) {
  Read read;
  const Shape& seen = input.window ? input.window->shape : input.shape;
  const InlineStrides given = inline_row_major_strides(input.shape);
  if (input.window)
    for (std::size_t axis = 0; axis < seen.size(); ++axis) read.offset += input.window->starts[axis] * given[axis];
  const std::int64_t count = element_count(seen);
  if (!input.window && count == element_count(result_shape)) return read;
  if (count == 1) {
    read.kind = Read::Kind::scalar;
    return read;
  }
  read.kind = Read::Kind::strided;
  const std::size_t leading = result_shape.size() - seen.size();
  read.strides.assign(result_shape.size(), 0);
  for (std::size_t axis = 0; axis < seen.size(); ++axis)
    if (seen[axis] != 1) read.strides[leading + axis] = given[axis];
  return read;
}

// Calls visit(offset, done, run) for each run along the last axis of
// elements [start, start + count) of the loop's index space (`shape`): the
// offset of its first element in a strided array (`strided`), where it
// starts among the `count`, and its length. The index of `start` is found
// once, then advanced run by run.
template <class Visit>
void for_each_run(const Read& strided, const Shape& shape, std::int64_t start, std::int64_t count, Visit visit) {
  const std::size_t rank = shape.size();
  InlineStrides index(rank);
  std::int64_t offset = strided.offset;
  for (std::size_t axis = rank, remaining = static_cast<std::size_t>(start); axis-- > 0;) {
    const auto extent = static_cast<std::size_t>(shape[axis]);
    index[axis] = static_cast<std::int64_t>(remaining % extent);
    remaining /= extent;
    offset += index[axis] * strided.strides[axis];
  }
  const std::int64_t last = shape[rank - 1];
  for (std::int64_t done = 0; done < count;) {
    std::int64_t run = std::min(last - index[rank - 1], count - done);
    visit(offset, done, run);
    done += run;
    // The next run: the last axis advanced, carried into the outer axes.
    index[rank - 1] += run;
    offset += run * strided.strides[rank - 1];
    for (std::size_t axis = rank - 1; axis > 0 && index[axis] == shape[axis]; --axis) {
      offset -= index[axis] * strided.strides[axis];
      index[axis] = 0;
      ++index[axis - 1];
      offset += strided.strides[axis - 1];
    }
  }
}

// Elements [start, start + count) of the loop's index space read from a
// strided input (broadcast, or a window) as f32: each run copied (its
// stride is a row-major array's, 1) or repeated (0).
template <DType D>
void gather(const Read& read, const storage_t<D>* data, const Shape& shape, std::int64_t start, std::int64_t count,
            float* out) {
  const bool repeated = read.strides.back() == 0;
  for_each_run(read, shape, start, count, [&](std::int64_t offset, std::int64_t done, std::int64_t run) {
    if (repeated) std::fill_n(out + done, run, load<D>(data[offset]));
    else for (std::int64_t i = 0; i < run; ++i) out[done + i] = load<D>(data[offset + i]);
  });
}

// The result's elements [start, start + count), rounded to D, written into
// their window of the whole array.
template <DType D>
void scatter(const Read& written, const float* values, const Shape& shape, std::int64_t start, std::int64_t count,
             storage_t<D>* whole) {
  for_each_run(written, shape, start, count, [&](std::int64_t offset, std::int64_t done, std::int64_t run) {
    for (std::int64_t i = 0; i < run; ++i) whole[offset + i] = store<D>(values[done + i]);
  });
}

// The loop over one dtype's values, in f32 blocks. An f32 input of the
// result's size is read in place and the last operation writes the result
// in place; a bf16/f16 one is widened into its block, each operation's
// result rounded to D as the unfused kernel stores it, and the last one's
// rounded into the result.
template <DType D>
void run_blocks(const FusedPlan& plan, std::span<const LocalArray> inputs, LocalArray& result) {
  constexpr bool in_place = D == DType::float32;
  const FusedLoop& loop = plan.loop;
  const Shape& shape = plan.shape;
  const std::int64_t total = element_count(shape);
  const std::int64_t block = plan.block;
  const std::size_t values = loop.inputs + loop.operations.size();
  // Kept per thread between loops: every element a block reads is written
  // first (inputs copied or gathered, each operation's result).
  thread_local std::vector<float> scratch;
  if (scratch.size() < values * static_cast<std::size_t>(block)) scratch.resize(values * static_cast<std::size_t>(block));
  auto block_of = [&](std::size_t value) { return scratch.data() + value * static_cast<std::size_t>(block); };
  // Inline for the usual chains: a small loop is mostly this bookkeeping.
  boost::container::small_vector<const storage_t<D>*, 8> data(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    data[i] = inputs[i].buffer->elements<D>().data();
    if (plan.reads[i].kind == Read::Kind::scalar) std::fill_n(block_of(i), block, load<D>(data[i][plan.reads[i].offset]));
  }

  storage_t<D>* output = result.buffer->elements<D>().data();
  boost::container::small_vector<const float*, 16> value(values);
  for (std::int64_t start = 0; start < total; start += block) {
    const std::int64_t count = std::min(block, total - start);
    const auto n = static_cast<std::size_t>(count);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const Read& read = plan.reads[i];
      value[i] = block_of(i);
      if (read.kind == Read::Kind::strided) {
        gather<D>(read, data[i], shape, start, count, block_of(i));
      } else if (read.kind == Read::Kind::whole) {
        if constexpr (in_place) value[i] = data[i] + start;
        else for (std::size_t j = 0; j < n; ++j) block_of(i)[j] = load<D>(data[i][start + static_cast<std::int64_t>(j)]);
      }
    }
    for (std::size_t k = 0; k < loop.operations.size(); ++k) {
      const FusedOperation& op = loop.operations[k];
      const bool last = k + 1 == loop.operations.size();
      float* out = block_of(loop.inputs + k);
      if constexpr (in_place) out = last && !plan.written ? output + start : out;
      const float* lhs = value[static_cast<std::size_t>(op.lhs)];
      if (!op.binary) float_unary_block(op.unary_op, lhs, out, n);
      else float_binary_block(op.binary_op, lhs, op.rhs < 0 ? plan.constants[k].data() : value[static_cast<std::size_t>(op.rhs)], out, n);
      if (last && plan.written) {
        scatter<D>(*plan.written, out, shape, start, count, output);
      } else if constexpr (!in_place) {
        if (last) for (std::size_t j = 0; j < n; ++j) output[static_cast<std::size_t>(start) + j] = store<D>(out[j]);
        else for (std::size_t j = 0; j < n; ++j) out[j] = load<D>(store<D>(out[j]));
      }
      value[loop.inputs + k] = out;
    }
  }
}

}  // namespace

Expected<FusedPlan> plan_fused(FusedLoop loop, const std::vector<FusedInput>& inputs) {
  if (inputs.size() != loop.inputs || loop.operations.empty()) return invalid("fused loop: inputs do not match");
  if (!is_float(loop.dtype)) return invalid("fused loop: float dtypes only");
  FusedPlan plan;
  Shape& shape = plan.shape;
  for (const FusedInput& input : inputs) {
    if (input.window && !inside(input.shape, input.window->shape, input.window->starts))
      return invalid("fused loop: a window outside its input");
    const Shape& seen = input.window ? input.window->shape : input.shape;
    if (seen.size() > shape.size()) shape.insert(shape.begin(), seen.size() - shape.size(), 1);
    for (std::size_t i = 0; i < seen.size(); ++i) {
      std::int64_t& extent = shape[shape.size() - seen.size() + i];
      if (extent == 1) extent = seen[i];
      else if (seen[i] != 1 && seen[i] != extent) return invalid("fused loop: shapes do not broadcast");
    }
  }
  for (const FusedInput& input : inputs) {
    plan.reads.push_back(read_of(input, shape));
    plan.input_shapes.push_back(input.shape);
  }
  // A result smaller than a block is one block of its size (the same calls
  // of the same lengths, without a whole block's scratch to clear).
  plan.block = std::min(block_elements, std::max<std::int64_t>(element_count(shape), 1));
  for (std::size_t k = 0; k < loop.operations.size(); ++k) {
    if (!loop.operations[k].binary || loop.operations[k].rhs >= 0) continue;
    plan.constants.resize(loop.operations.size());
    plan.constants[k].assign(static_cast<std::size_t>(plan.block), loop.operations[k].constant);
  }
  plan.loop = std::move(loop);
  return plan;
}

Expected<FusedPlan> plan_fused_into(FusedLoop loop, const std::vector<FusedInput>& inputs, Shape whole_shape,
                                    const std::vector<std::int64_t>& starts) {
  Expected<FusedPlan> plan = plan_fused(std::move(loop), inputs);
  if (!plan) return plan;
  // The result's window, read as a strided input is: its own rank, inside the whole.
  FusedInput window{whole_shape, FusedInput::Window{plan->shape, starts}};
  if (plan->shape.empty() || !inside(whole_shape, plan->shape, starts))
    return invalid("fused loop: its result's window lies outside the whole");
  plan->written = read_of(window, plan->shape);
  plan->whole_shape = std::move(whole_shape);
  return plan;
}

namespace {

// Checks `inputs` against the plan: of its dtype and the shapes it was planned for.
Status check_inputs(const FusedPlan& plan, std::span<const LocalArray> inputs) {
  if (inputs.size() != plan.input_shapes.size()) return invalid("fused loop: inputs do not match");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (Status status = check_array(inputs[i], "fused loop"); !status) return status;
    if (inputs[i].dtype() != plan.loop.dtype) return invalid("fused loop: inputs of the loop's dtype only");
    if (inputs[i].shape != plan.input_shapes[i]) return invalid("fused loop: an input of a shape it was not planned for");
  }
  return {};
}

}  // namespace

Status run_fused_into(const FusedPlan& plan, std::span<const LocalArray> inputs, LocalArray& whole) {
  if (Status status = check_inputs(plan, inputs); !status) return status;
  if (!plan.written || whole.dtype() != plan.loop.dtype || whole.shape != plan.whole_shape)
    return invalid("fused loop: not planned to write into this array");
  if (Status status = check_array(whole, "fused loop"); !status) return status;
  dispatch(plan.loop.dtype, [&]<DType D>() {
    if constexpr (is_float(D)) run_blocks<D>(plan, inputs, whole);
  });
  return {};
}

Expected<LocalArray> run_fused(const FusedPlan& plan, std::span<const LocalArray> inputs) {
  if (Status status = check_inputs(plan, inputs); !status) return status.error();
  if (plan.written) return invalid("fused loop: planned to write into a larger array");
  Expected<LocalArray> result = allocate(inputs[0].buffer->ledger(), plan.loop.dtype, plan.shape);
  if (!result) return result;
  dispatch(plan.loop.dtype, [&]<DType D>() {
    if constexpr (is_float(D)) run_blocks<D>(plan, inputs, *result);
  });
  return result;
}

Expected<LocalArray> run_fused(const FusedLoop& loop, std::span<const LocalArray> inputs) {
  std::vector<FusedInput> planned;
  for (const LocalArray& input : inputs) planned.push_back({input.shape, std::nullopt});
  Expected<FusedPlan> plan = plan_fused(loop, planned);
  if (!plan) return plan.error();
  return run_fused(*plan, inputs);
}

}  // namespace devices
