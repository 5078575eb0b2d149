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

// How one input is read for a block of the result.
template <DType D>
struct Source {
  const storage_t<D>* data = nullptr;
  enum class Kind { whole, scalar, broadcast } kind = Kind::whole;
  std::vector<std::int64_t> strides;  // broadcast: ranked as the result, 0 along the axes it is repeated on
};

template <DType D>
Source<D> source_of(const LocalArray& input, const Shape& result_shape) {
  Source<D> source;
  source.data = input.buffer->elements<D>().data();
  std::int64_t count = element_count(input.shape);
  if (count == element_count(result_shape)) return source;
  if (count == 1) {
    source.kind = Source<D>::Kind::scalar;
    return source;
  }
  source.kind = Source<D>::Kind::broadcast;
  const std::size_t leading = result_shape.size() - input.shape.size();
  source.strides.assign(result_shape.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t axis = input.shape.size(); axis-- > 0;) {
    if (input.shape[axis] != 1) source.strides[leading + axis] = stride;
    stride *= input.shape[axis];
  }
  return source;
}

// Elements [start, start + count) of the result's index space, read from a
// broadcast input as f32: a run along the last axis at a time, copied or
// repeated. The index of `start` is found once, then advanced run by run.
template <DType D>
void gather(const Source<D>& source, const Shape& result_shape, std::int64_t start, std::int64_t count, float* out) {
  const std::size_t rank = result_shape.size();
  InlineStrides index(rank);
  std::int64_t offset = 0;
  for (std::size_t axis = rank, remaining = static_cast<std::size_t>(start); axis-- > 0;) {
    const auto extent = static_cast<std::size_t>(result_shape[axis]);
    index[axis] = static_cast<std::int64_t>(remaining % extent);
    remaining /= extent;
    offset += index[axis] * source.strides[axis];
  }
  const std::int64_t last = result_shape[rank - 1];
  const std::int64_t last_stride = source.strides[rank - 1];
  for (std::int64_t done = 0; done < count;) {
    std::int64_t run = std::min(last - index[rank - 1], count - done);
    if (last_stride == 0) std::fill_n(out + done, run, load<D>(source.data[offset]));
    else for (std::int64_t i = 0; i < run; ++i) out[done + i] = load<D>(source.data[offset + i]);
    done += run;
    // The next run: the last axis advanced, carried into the outer axes.
    index[rank - 1] += run;
    offset += run * last_stride;
    for (std::size_t axis = rank - 1; axis > 0 && index[axis] == result_shape[axis]; --axis) {
      offset -= index[axis] * source.strides[axis];
      index[axis] = 0;
      ++index[axis - 1];
      offset += source.strides[axis - 1];
    }
  }
}

// The loop over one dtype's values, in f32 blocks. An f32 input of the
// result's size is read in place and the last operation writes the result
// in place; a bf16/f16 one is widened into its block, each operation's
// result rounded to D as the unfused kernel stores it, and the last one's
// rounded into the result.
template <DType D>
void run_blocks(const FusedLoop& loop, std::span<const LocalArray> inputs, const Shape& shape, LocalArray& result) {
  constexpr bool in_place = D == DType::float32;
  const std::int64_t total = element_count(shape);
  // A result smaller than a block is one block of its size (the same calls
  // of the same lengths, without a whole block's scratch to clear).
  const std::int64_t block = std::min(block_elements, std::max<std::int64_t>(total, 1));
  const std::size_t values = loop.inputs + loop.operations.size();
  // Kept per thread between loops: every element a block reads is written
  // first (inputs copied or gathered, each operation's result).
  thread_local std::vector<float> scratch;
  if (scratch.size() < values * static_cast<std::size_t>(block)) scratch.resize(values * static_cast<std::size_t>(block));
  auto block_of = [&](std::size_t value) { return scratch.data() + value * static_cast<std::size_t>(block); };
  // Inline for the usual chains: a small loop is mostly this bookkeeping.
  boost::container::small_vector<Source<D>, 8> sources;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    sources.push_back(source_of<D>(inputs[i], shape));
    if (sources.back().kind == Source<D>::Kind::scalar)
      std::fill_n(block_of(i), block, load<D>(sources.back().data[0]));
  }
  // A constant right operand: a block of it (lax.integer_pow's exponent).
  std::vector<std::vector<float>> constants;
  for (std::size_t k = 0; k < loop.operations.size(); ++k) {
    if (!loop.operations[k].binary || loop.operations[k].rhs >= 0) continue;
    constants.resize(loop.operations.size());
    constants[k].assign(static_cast<std::size_t>(block), loop.operations[k].constant);
  }

  storage_t<D>* output = result.buffer->elements<D>().data();
  boost::container::small_vector<const float*, 16> value(values);
  for (std::int64_t start = 0; start < total; start += block) {
    const std::int64_t count = std::min(block, total - start);
    const auto n = static_cast<std::size_t>(count);
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const Source<D>& source = sources[i];
      value[i] = block_of(i);
      if (source.kind == Source<D>::Kind::broadcast) {
        gather(source, shape, start, count, block_of(i));
      } else if (source.kind == Source<D>::Kind::whole) {
        if constexpr (in_place) value[i] = source.data + start;
        else for (std::size_t j = 0; j < n; ++j) block_of(i)[j] = load<D>(source.data[start + static_cast<std::int64_t>(j)]);
      }
    }
    for (std::size_t k = 0; k < loop.operations.size(); ++k) {
      const FusedOperation& op = loop.operations[k];
      const bool last = k + 1 == loop.operations.size();
      float* out = block_of(loop.inputs + k);
      if constexpr (in_place) out = last ? output + start : out;
      const float* lhs = value[static_cast<std::size_t>(op.lhs)];
      if (!op.binary) float_unary_block(op.unary_op, lhs, out, n);
      else float_binary_block(op.binary_op, lhs, op.rhs < 0 ? constants[k].data() : value[static_cast<std::size_t>(op.rhs)], out, n);
      if constexpr (!in_place) {
        if (last) for (std::size_t j = 0; j < n; ++j) output[static_cast<std::size_t>(start) + j] = store<D>(out[j]);
        else for (std::size_t j = 0; j < n; ++j) out[j] = load<D>(store<D>(out[j]));
      }
      value[loop.inputs + k] = out;
    }
  }
}

}  // namespace

Expected<LocalArray> run_fused(const FusedLoop& loop, std::span<const LocalArray> inputs) {
  if (inputs.size() != loop.inputs || loop.operations.empty()) return invalid("fused loop: inputs do not match");
  if (!is_float(loop.dtype)) return invalid("fused loop: float dtypes only");
  Shape shape;
  for (const LocalArray& input : inputs) {
    if (Status status = check_array(input, "fused loop"); !status) return status.error();
    if (input.dtype() != loop.dtype) return invalid("fused loop: inputs of the loop's dtype only");
    if (input.shape.size() > shape.size()) shape.insert(shape.begin(), input.shape.size() - shape.size(), 1);
    for (std::size_t i = 0; i < input.shape.size(); ++i) {
      std::int64_t& extent = shape[shape.size() - input.shape.size() + i];
      if (extent == 1) extent = input.shape[i];
      else if (input.shape[i] != 1 && input.shape[i] != extent) return invalid("fused loop: shapes do not broadcast");
    }
  }
  Expected<LocalArray> result = allocate(inputs[0].buffer->ledger(), loop.dtype, shape);
  if (!result) return result;
  dispatch(loop.dtype, [&]<DType D>() {
    if constexpr (is_float(D)) run_blocks<D>(loop, inputs, shape, *result);
  });
  return result;
}

}  // namespace devices
