// Reduction kernels (kernels.hpp): sum, max, min, prod, argmax and argmin over axes.
#include "devices/kernels/support.hpp"

#include "devices/vector_math.hpp"

namespace devices {

using namespace kernel_support;
using typecheck::DType;

namespace {

// ---- Reductions ----

// An f32 sum over a run of adjacent axes, seen as [outer, reduced, inner]:
// rows summed by sum_f32, or for inner > 1 whole rows added in blocks (each
// block's partial sum kept apart, so the error grows with the block count,
// not the row count).
void sum_adjacent_f32(const float* input, float* output, std::int64_t outer, std::int64_t reduced,
                      std::int64_t inner) {
  std::size_t width = static_cast<std::size_t>(inner);
  if (inner == 1) {
    for (std::int64_t o = 0; o < outer; ++o) {
      output[o] = sum_f32(input + o * reduced, static_cast<std::size_t>(reduced));
    }
    return;
  }
  constexpr std::int64_t rows_per_block = 64;
  std::vector<float> block_sum(width);
  for (std::int64_t o = 0; o < outer; ++o) {
    float* out_row = output + o * inner;
    std::fill(out_row, out_row + width, 0.0f);
    for (std::int64_t start = 0; start < reduced; start += rows_per_block) {
      std::int64_t stop = std::min(reduced, start + rows_per_block);
      const float* first = input + (o * reduced + start) * inner;
      std::copy(first, first + width, block_sum.begin());
      for (std::int64_t r = start + 1; r < stop; ++r) add_row_f32(block_sum.data(), input + (o * reduced + r) * inner, width);
      add_row_f32(out_row, block_sum.data(), width);
    }
  }
}

// An f32 max or min over a run of adjacent axes, seen as [outer, reduced,
// inner]: rows by max_f32 or min_f32, or for inner > 1 whole rows combined.
void extreme_adjacent_f32(bool maximum, const float* input, float* output, std::int64_t outer, std::int64_t reduced,
                          std::int64_t inner) {
  if (inner == 1) {
    for (std::int64_t o = 0; o < outer; ++o)
      output[o] = (maximum ? max_f32 : min_f32)(input + o * reduced, static_cast<std::size_t>(reduced));
    return;
  }
  const float initial = maximum ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  for (std::int64_t o = 0; o < outer; ++o) {
    float* out_row = output + o * inner;
    std::fill(out_row, out_row + inner, initial);
    for (std::int64_t r = 0; r < reduced; ++r) {
      const float* row = input + (o * reduced + r) * inner;
      if (maximum) for (std::int64_t j = 0; j < inner; ++j) out_row[j] = float_max(out_row[j], row[j]);
      else for (std::int64_t j = 0; j < inner; ++j) out_row[j] = float_min(out_row[j], row[j]);
    }
  }
}

template <DType D>
Status reduce_typed(ReduceOp op, const LocalArray& operand, std::span<const std::int64_t> output_strides,
                    int arg_axis, LocalArray& result) {
  using S = storage_t<D>;
  auto input = operand.buffer->elements<D>();
  std::size_t outputs = static_cast<std::size_t>(result.buffer->element_count());
  std::vector<std::int64_t> input_strides = row_major_strides(operand.shape);

  if (op == ReduceOp::argmax || op == ReduceOp::argmin) {
    std::vector<double> best(outputs, 0);
    std::vector<char> seen(outputs, 0);
    auto indices = result.buffer->elements<DType::int32>();
    std::int64_t axis_stride = input_strides[static_cast<std::size_t>(arg_axis)];
    std::int64_t axis_extent = operand.shape[static_cast<std::size_t>(arg_axis)];
    bool maximum = op == ReduceOp::argmax;
    std::int64_t position = 0;
    walk(operand.shape, input_strides, 0, output_strides, 0, [&](std::int64_t from, std::int64_t to) {
      double value = load_as_double<D>(input[static_cast<std::size_t>(from)]);
      std::size_t slot = static_cast<std::size_t>(to);
      bool better = !seen[slot] || (!std::isnan(best[slot]) &&
                                    (std::isnan(value) || (maximum ? value > best[slot] : value < best[slot])));
      if (better) {
        best[slot] = value;
        seen[slot] = 1;
        indices[slot] = static_cast<std::int32_t>((position / axis_stride) % axis_extent);
      }
      ++position;
    });
    return {};
  }

  auto output = result.buffer->elements<D>();
  if constexpr (is_float(D)) {
    float initial = op == ReduceOp::sum ? 0.0f
                    : op == ReduceOp::prod ? 1.0f
                    : op == ReduceOp::max ? -std::numeric_limits<float>::infinity()
                                          : std::numeric_limits<float>::infinity();
    std::vector<float> accumulators(outputs, initial);
    auto accumulate = [&](auto combine) {
      walk(operand.shape, input_strides, 0, output_strides, 0, [&](std::int64_t from, std::int64_t to) {
        float& accumulator = accumulators[static_cast<std::size_t>(to)];
        accumulator = combine(accumulator, load<D>(input[static_cast<std::size_t>(from)]));
      });
    };
    switch (op) {
      case ReduceOp::sum: accumulate([](float a, float x) { return a + x; }); break;
      case ReduceOp::prod: accumulate([](float a, float x) { return a * x; }); break;
      case ReduceOp::max: accumulate(float_max); break;
      case ReduceOp::min: accumulate(float_min); break;
      default: break;
    }
    for (std::size_t i = 0; i < outputs; ++i) output[i] = store<D>(accumulators[i]);
    return {};
  } else {
    if (D == DType::bool_ && (op == ReduceOp::sum || op == ReduceOp::prod)) {
      return invalid("sum/prod of bool: convert to an integer dtype first");
    }
    S initial = op == ReduceOp::sum ? S{0}
                : op == ReduceOp::prod ? S{1}
                : op == ReduceOp::max ? std::numeric_limits<S>::lowest()
                                      : std::numeric_limits<S>::max();
    if constexpr (D == DType::bool_) initial = op == ReduceOp::max ? 0 : 1;
    std::vector<S> accumulators(outputs, initial);
    auto accumulate = [&](auto combine) {
      walk(operand.shape, input_strides, 0, output_strides, 0, [&](std::int64_t from, std::int64_t to) {
        S& accumulator = accumulators[static_cast<std::size_t>(to)];
        accumulator = combine(accumulator, input[static_cast<std::size_t>(from)]);
      });
    };
    switch (op) {
      case ReduceOp::sum:
        accumulate([](S a, S x) { return wrap<S>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(x)); });
        break;
      case ReduceOp::prod:
        accumulate([](S a, S x) { return wrap<S>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(x)); });
        break;
      case ReduceOp::max: accumulate([](S a, S x) { return std::max(a, x); }); break;
      case ReduceOp::min: accumulate([](S a, S x) { return std::min(a, x); }); break;
      default: break;
    }
    std::copy(accumulators.begin(), accumulators.end(), output.begin());
    return {};
  }
}

}  // namespace

DType reduce_result_dtype(ReduceOp op, DType operand) {
  return op == ReduceOp::argmax || op == ReduceOp::argmin ? DType::int32 : operand;
}

Expected<LocalArray> reduce(ReduceOp op, const LocalArray& operand, std::span<const int> axes) {
  if (Status status = check_array(operand, "reduce"); !status) return status.error();
  std::vector<char> reduced(operand.shape.size(), 0);
  if (Status status = check_axes(axes, operand.shape.size(), "reduce", reduced); !status) return status.error();
  bool arg = op == ReduceOp::argmax || op == ReduceOp::argmin;
  if (arg && axes.size() != 1) return invalid("argmax/argmin reduce exactly one axis");
  Shape result_shape;
  for (std::size_t axis = 0; axis < operand.shape.size(); ++axis) {
    if (!reduced[axis]) result_shape.push_back(operand.shape[axis]);
  }
  if (arg && operand.shape[static_cast<std::size_t>(axes[0])] == 0) {
    return invalid("argmax/argmin of an empty axis");
  }
  DType result_dtype = reduce_result_dtype(op, operand.dtype());
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), result_dtype, std::move(result_shape));
  if (!result) return result;
  int arg_axis = arg ? axes[0] : 0;
  const bool vectorised = op == ReduceOp::sum || op == ReduceOp::max || op == ReduceOp::min;
  if (vectorised && operand.dtype() == DType::float32 && !axes.empty()) {
    // Reduced axes all adjacent: the vectorised paths.
    auto [lowest, highest] = std::minmax_element(axes.begin(), axes.end());
    std::size_t first = static_cast<std::size_t>(*lowest);
    std::size_t last = static_cast<std::size_t>(*highest) + 1;
    if (last - first == axes.size()) {
      std::int64_t outer = element_count(std::span(operand.shape).first(first));
      std::int64_t reduced_count = element_count(std::span(operand.shape).subspan(first, last - first));
      std::int64_t inner = element_count(std::span(operand.shape).subspan(last));
      const float* input = operand.buffer->elements<DType::float32>().data();
      float* output = result->buffer->elements<DType::float32>().data();
      if (op == ReduceOp::sum) sum_adjacent_f32(input, output, outer, reduced_count, inner);
      else extreme_adjacent_f32(op == ReduceOp::max, input, output, outer, reduced_count, inner);
      return result;
    }
  }
  // Each input axis steps the output by its stride there, or not at all.
  std::vector<std::int64_t> result_strides = row_major_strides(result->shape);
  std::vector<std::int64_t> output_strides(operand.shape.size(), 0);
  for (std::size_t axis = 0, kept = 0; axis < operand.shape.size(); ++axis) {
    if (!reduced[axis]) output_strides[axis] = result_strides[kept++];
  }
  Status status = dispatch(operand.dtype(), [&]<DType D>() {
    return reduce_typed<D>(op, operand, output_strides, arg_axis, *result);
  });
  if (!status) return status.error();
  return result;
}

}  // namespace devices
