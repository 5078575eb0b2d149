// The windowed kernels (convolution.hpp).
#include "devices/kernels/convolution.hpp"

#include <cblas.h>

#include "devices/kernels/support.hpp"

namespace devices {

using namespace kernel_support;
using typecheck::DType;

namespace {

// Row-major decode of `flat` over `shape` into `index`.
void decode(std::int64_t flat, std::span<const std::int64_t> shape, std::vector<std::int64_t>& index) {
  index.resize(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
}

// For each dimension: for output position o and window position k, the
// operand index there (o * stride + k * window_dilation - low, in the
// base-dilated operand), or -1 for padding and dilation holes.
std::vector<std::vector<std::int64_t>> window_tables(std::span<const std::int64_t> in, std::span<const std::int64_t> out,
                                                     std::span<const std::int64_t> window, const typecheck::ConvWindow& w) {
  std::vector<std::vector<std::int64_t>> tables(in.size());
  for (std::size_t d = 0; d < in.size(); ++d)
    for (std::int64_t o = 0; o < out[d]; ++o)
      for (std::int64_t k = 0; k < window[d]; ++k) {
        std::int64_t x = o * w.strides[d] + k * w.rhs_dilation[d] - w.padding[d].first;
        std::int64_t index = -1;
        if (x >= 0 && x % w.lhs_dilation[d] == 0 && x / w.lhs_dilation[d] < in[d]) index = x / w.lhs_dilation[d];
        tables[d].push_back(index);
      }
  return tables;
}

// offsets[k * P + p]: the operand offset (sum of index * stride over the
// dims) read by window position k of output position p, or -1.
std::vector<std::int64_t> window_offsets(const std::vector<std::vector<std::int64_t>>& tables,
                                         std::span<const std::int64_t> out, std::span<const std::int64_t> window,
                                         std::span<const std::int64_t> strides) {
  const std::int64_t positions = element_count(out), taps = element_count(window);
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(positions * taps));
  std::vector<std::int64_t> o, k;
  for (std::int64_t tap = 0; tap < taps; ++tap) {
    decode(tap, window, k);
    for (std::int64_t p = 0; p < positions; ++p) {
      decode(p, out, o);
      std::int64_t offset = 0;
      for (std::size_t d = 0; d < out.size() && offset >= 0; ++d) {
        std::int64_t index = tables[d][static_cast<std::size_t>(o[d] * window[d] + k[d])];
        offset = index < 0 ? -1 : offset + index * strides[d];
      }
      offsets[static_cast<std::size_t>(tap * positions + p)] = offset;
    }
  }
  return offsets;
}

// c[m, n] = a[m, k] b[k, n], row-major.
void matmul(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c, c + m * n, 0.0f);
    return;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
              1.0f, a, static_cast<int>(k), b, static_cast<int>(n), 0.0f, c, static_cast<int>(n));
}
void matmul(const std::int64_t* a, const std::int64_t* b, std::int64_t* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      std::uint64_t sum = 0;
      for (std::int64_t x = 0; x < k; ++x)
        sum += static_cast<std::uint64_t>(a[i * k + x]) * static_cast<std::uint64_t>(b[x * n + j]);
      c[i * n + j] = static_cast<std::int64_t>(sum);
    }
}

// The operand's elements in the type T the convolution sums in.
template <class T>
std::vector<T> loaded(const LocalArray& array) {
  std::vector<T> out(static_cast<std::size_t>(element_count(array.shape)));
  dispatch(array.dtype(), [&]<DType D>() {
    auto elements = array.buffer->elements<D>();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(load<D>(elements[i]));
  });
  return out;
}

template <class T>
void convolve(const LocalArray& lhs, const LocalArray& rhs, const ConvDimensions& dims, LocalArray& result) {
  const auto& n = dims.numbers;
  const auto& w = dims.window;
  auto at = [](const Shape& shape, int d) { return shape[static_cast<std::size_t>(d)]; };
  const std::size_t spatial = n.lhs_spec.size() - 2;
  const std::int64_t groups = w.feature_group_count * w.batch_group_count;
  const std::int64_t batch_out = at(result.shape, n.out_spec[0]), out_features = at(result.shape, n.out_spec[1]);
  const std::int64_t in_features = at(rhs.shape, n.rhs_spec[1]), per_group = out_features / groups;
  std::vector<std::int64_t> in_sizes, kernel_sizes, out_sizes, lhs_spatial_strides;
  const std::vector<std::int64_t> lhs_strides = row_major_strides(lhs.shape), rhs_strides = row_major_strides(rhs.shape),
                                  out_strides = row_major_strides(result.shape);
  for (std::size_t i = 0; i < spatial; ++i) {
    in_sizes.push_back(at(lhs.shape, n.lhs_spec[2 + i]));
    kernel_sizes.push_back(at(rhs.shape, n.rhs_spec[2 + i]));
    out_sizes.push_back(at(result.shape, n.out_spec[2 + i]));
    lhs_spatial_strides.push_back(lhs_strides[static_cast<std::size_t>(n.lhs_spec[2 + i])]);
  }
  const std::int64_t taps = element_count(kernel_sizes), positions = element_count(out_sizes);
  const std::int64_t depth = in_features * taps;
  const std::vector<std::int64_t> offsets =
      window_offsets(window_tables(in_sizes, out_sizes, kernel_sizes, w), out_sizes, kernel_sizes, lhs_spatial_strides);
  // The kernel as [out_features, in_features * taps].
  const std::vector<T> lhs_values = loaded<T>(lhs), rhs_values = loaded<T>(rhs);
  std::vector<T> weights(static_cast<std::size_t>(out_features * depth));
  std::vector<std::int64_t> k;
  for (std::int64_t o = 0; o < out_features; ++o)
    for (std::int64_t c = 0; c < in_features; ++c)
      for (std::int64_t tap = 0; tap < taps; ++tap) {
        decode(tap, kernel_sizes, k);
        std::int64_t offset = o * rhs_strides[static_cast<std::size_t>(n.rhs_spec[0])] +
                              c * rhs_strides[static_cast<std::size_t>(n.rhs_spec[1])];
        for (std::size_t d = 0; d < spatial; ++d) offset += k[d] * rhs_strides[static_cast<std::size_t>(n.rhs_spec[2 + d])];
        weights[static_cast<std::size_t>(o * depth + c * taps + tap)] = rhs_values[static_cast<std::size_t>(offset)];
      }
  std::vector<T> columns(static_cast<std::size_t>(depth * positions)), product(static_cast<std::size_t>(per_group * positions));
  std::vector<std::int64_t> p_index;
  dispatch(result.dtype(), [&]<DType R>() {
    auto out = result.buffer->elements<R>();
    for (std::int64_t b = 0; b < batch_out; ++b)
      for (std::int64_t g = 0; g < groups; ++g) {
        const std::int64_t image = w.batch_group_count > 1 ? g * batch_out + b : b;
        const std::int64_t feature_base = w.feature_group_count > 1 ? g * in_features : 0;
        for (std::int64_t c = 0; c < in_features; ++c) {
          const std::int64_t base = image * lhs_strides[static_cast<std::size_t>(n.lhs_spec[0])] +
                                    (feature_base + c) * lhs_strides[static_cast<std::size_t>(n.lhs_spec[1])];
          for (std::int64_t tap = 0; tap < taps; ++tap)
            for (std::int64_t p = 0; p < positions; ++p) {
              std::int64_t offset = offsets[static_cast<std::size_t>(tap * positions + p)];
              columns[static_cast<std::size_t>((c * taps + tap) * positions + p)] =
                  offset < 0 ? T{0} : lhs_values[static_cast<std::size_t>(base + offset)];
            }
        }
        matmul(weights.data() + g * per_group * depth, columns.data(), product.data(), per_group, positions, depth);
        for (std::int64_t o = 0; o < per_group; ++o)
          for (std::int64_t p = 0; p < positions; ++p) {
            decode(p, out_sizes, p_index);
            std::int64_t offset = b * out_strides[static_cast<std::size_t>(n.out_spec[0])] +
                                  (g * per_group + o) * out_strides[static_cast<std::size_t>(n.out_spec[1])];
            for (std::size_t d = 0; d < spatial; ++d) offset += p_index[d] * out_strides[static_cast<std::size_t>(n.out_spec[2 + d])];
            out[static_cast<std::size_t>(offset)] =
                store_converted<R>(static_cast<double>(product[static_cast<std::size_t>(o * positions + p)]));
          }
      }
  });
}

template <DType D>
compute_t<D> identity_of(WindowReduction op) {
  using C = compute_t<D>;
  if (op == WindowReduction::sum) return C{0};
  if constexpr (is_float(D)) return op == WindowReduction::max ? -INFINITY : INFINITY;
  else return op == WindowReduction::max ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
}

template <DType D>
compute_t<D> combined(WindowReduction op, compute_t<D> a, compute_t<D> b) {
  if constexpr (is_float(D)) {
    if (op == WindowReduction::sum) return a + b;
    return op == WindowReduction::max ? float_max(a, b) : float_min(a, b);
  } else {
    if (op == WindowReduction::sum) return wrap<compute_t<D>>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
    return op == WindowReduction::max ? std::max(a, b) : std::min(a, b);
  }
}

struct WindowWalk {
  Shape out;
  std::vector<std::int64_t> offsets;  // window_offsets over the operand
  std::int64_t taps = 0, positions = 0;
};

Expected<WindowWalk> walk_windows(const LocalArray& operand, std::span<const std::int64_t> window_dimensions,
                                  const typecheck::ConvWindow& window, std::string_view what) {
  if (Status status = check_array(operand, what); !status) return status.error();
  typecheck::Checked<Shape> out = typecheck::reduce_window_shape(what, operand.shape, window_dimensions, window);
  if (!out) return invalid(std::string(what) + ": " + out.error().message);
  WindowWalk walk{out.value(), {}, element_count(window_dimensions), element_count(out.value())};
  walk.offsets = window_offsets(window_tables(operand.shape, walk.out, window_dimensions, window), walk.out,
                                window_dimensions, row_major_strides(operand.shape));
  return walk;
}

}  // namespace

Expected<LocalArray> conv_general_dilated(const LocalArray& lhs, const LocalArray& rhs, const ConvDimensions& dimensions) {
  if (Status status = check_array(lhs, "conv_general_dilated"); !status) return status.error();
  if (Status status = check_array(rhs, "conv_general_dilated"); !status) return status.error();
  if (lhs.dtype() != rhs.dtype() || lhs.dtype() == DType::bool_)
    return invalid("conv_general_dilated: operands of one numeric dtype expected");
  typecheck::Checked<Shape> shape =
      typecheck::conv_general_dilated_shape(lhs.shape, rhs.shape, dimensions.numbers, dimensions.window);
  if (!shape) return invalid("conv_general_dilated: " + shape.error().message);
  Expected<LocalArray> result = allocate(lhs.buffer->ledger(), dimensions.result_dtype, shape.value(), Fill::zeros);
  if (!result) return result;
  if (is_float(lhs.dtype())) convolve<float>(lhs, rhs, dimensions, *result);
  else convolve<std::int64_t>(lhs, rhs, dimensions, *result);
  return result;
}

Expected<LocalArray> reduce_window(const LocalArray& operand, WindowReduction op, std::span<const std::int64_t> window_dimensions,
                                   const typecheck::ConvWindow& window) {
  Expected<WindowWalk> walk = walk_windows(operand, window_dimensions, window, "reduce_window");
  if (!walk) return walk.error();
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), operand.dtype(), walk->out);
  if (!result) return result;
  dispatch(operand.dtype(), [&]<DType D>() {
    if constexpr (D != DType::bool_) {
      auto in = operand.buffer->elements<D>();
      auto out = result->buffer->elements<D>();
      for (std::int64_t p = 0; p < walk->positions; ++p) {
        compute_t<D> value = identity_of<D>(op);
        for (std::int64_t tap = 0; tap < walk->taps; ++tap) {
          std::int64_t offset = walk->offsets[static_cast<std::size_t>(tap * walk->positions + p)];
          if (offset >= 0) value = combined<D>(op, value, load<D>(in[static_cast<std::size_t>(offset)]));
        }
        out[static_cast<std::size_t>(p)] = store<D>(value);
      }
    }
  });
  if (operand.dtype() == DType::bool_) return invalid("reduce_window of bool: convert to a number dtype first");
  return result;
}

namespace {

// For each window, the offset of its first max (min) element in `operand`,
// or -1 for a window of padding only.
template <DType D>
std::vector<std::int64_t> chosen_offsets(const LocalArray& operand, const WindowWalk& walk, WindowReduction op) {
  auto in = operand.buffer->elements<D>();
  std::vector<std::int64_t> chosen(static_cast<std::size_t>(walk.positions), -1);
  for (std::int64_t p = 0; p < walk.positions; ++p) {
    float best = 0;
    for (std::int64_t tap = 0; tap < walk.taps; ++tap) {
      std::int64_t offset = walk.offsets[static_cast<std::size_t>(tap * walk.positions + p)];
      if (offset < 0) continue;
      float value = load<D>(in[static_cast<std::size_t>(offset)]);
      bool better = op == WindowReduction::max ? value > best : value < best;
      auto& pick = chosen[static_cast<std::size_t>(p)];
      if (pick < 0 || better || (std::isnan(value) && !std::isnan(best))) {
        pick = offset;
        best = value;
      }
    }
  }
  return chosen;
}

// The checks both selections share: float operands of one dtype, `windowed`
// of the windowed shape when `windowed_is_result` is false.
Expected<WindowWalk> selection_walk(const LocalArray& values, const LocalArray& operand, std::span<const std::int64_t> window_dimensions,
                                    const typecheck::ConvWindow& window, std::string_view what, bool values_windowed) {
  Expected<WindowWalk> walk = walk_windows(operand, window_dimensions, window, what);
  if (!walk) return walk.error();
  if (Status status = check_array(values, what); !status) return status.error();
  const Shape& expected = values_windowed ? walk->out : operand.shape;
  if (values.shape != expected || values.dtype() != operand.dtype() || !is_float(operand.dtype()))
    return invalid(std::string(what) + ": float values of shape " + shape_text(expected) + " and the operand's dtype expected");
  return walk;
}

}  // namespace

Expected<LocalArray> select_and_scatter_add(const LocalArray& source, const LocalArray& operand, WindowReduction op,
                                            std::span<const std::int64_t> window_dimensions,
                                            const typecheck::ConvWindow& window) {
  Expected<WindowWalk> walk = selection_walk(source, operand, window_dimensions, window, "select_and_scatter_add", true);
  if (!walk) return walk.error();
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), operand.dtype(), operand.shape);
  if (!result) return result;
  dispatch(operand.dtype(), [&]<DType D>() {
    if constexpr (is_float(D)) {
      auto from = source.buffer->elements<D>();
      auto out = result->buffer->elements<D>();
      std::vector<float> sums(out.size(), 0.0f);
      const std::vector<std::int64_t> chosen = chosen_offsets<D>(operand, *walk, op);
      for (std::size_t p = 0; p < chosen.size(); ++p)
        if (chosen[p] >= 0) sums[static_cast<std::size_t>(chosen[p])] += load<D>(from[p]);
      for (std::size_t i = 0; i < sums.size(); ++i) out[i] = store<D>(sums[i]);
    }
  });
  return result;
}

Expected<LocalArray> select_and_gather_add(const LocalArray& tangents, const LocalArray& operand, WindowReduction op,
                                           std::span<const std::int64_t> window_dimensions,
                                           const typecheck::ConvWindow& window) {
  Expected<WindowWalk> walk = selection_walk(tangents, operand, window_dimensions, window, "select_and_gather_add", false);
  if (!walk) return walk.error();
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), operand.dtype(), walk->out, Fill::zeros);
  if (!result) return result;
  dispatch(operand.dtype(), [&]<DType D>() {
    if constexpr (is_float(D)) {
      auto from = tangents.buffer->elements<D>();
      auto out = result->buffer->elements<D>();
      const std::vector<std::int64_t> chosen = chosen_offsets<D>(operand, *walk, op);
      for (std::size_t p = 0; p < chosen.size(); ++p)
        if (chosen[p] >= 0) out[p] = from[static_cast<std::size_t>(chosen[p])];
    }
  });
  return result;
}

}  // namespace devices
