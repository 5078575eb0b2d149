// Arrays from and to host numbers and bytes (host_values.hpp).
#include "devices/host_values.hpp"

#include "devices/kernels/support.hpp"

namespace devices {

using namespace kernel_support;
using typecheck::DType;

namespace {

// One host value as an element of D (from_values' rules).
template <DType D, class V>
storage_t<D> element_of(V value) {
  if constexpr (D == DType::bool_) {
    return value != 0;
  } else if constexpr (is_float(D)) {
    return store<D>(static_cast<float>(value));
  } else {
    return static_cast<storage_t<D>>(static_cast<std::int64_t>(value));
  }
}

template <class V>
Expected<LocalArray> filled_from(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, Shape shape,
                                 std::span<const V> values, bool broadcast) {
  Expected<LocalArray> made = make_local_array(ledger, dtype, std::move(shape));
  if (!made) return made;
  auto count = static_cast<std::size_t>(made->buffer->element_count());
  if (!broadcast && values.size() != count)
    return invalid(fmt::format("{} values for an array of shape {}", values.size(), shape_text(made->shape)));
  dispatch(dtype, [&]<DType D>() {
    auto out = made->buffer->elements<D>();
    if (broadcast) std::fill(out.begin(), out.end(), element_of<D>(values[0]));
    else
      for (std::size_t i = 0; i < count; ++i) out[i] = element_of<D>(values[i]);
  });
  return made;
}

}  // namespace

Expected<LocalArray> from_values(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, Shape shape,
                                 std::span<const double> values) {
  return filled_from(ledger, dtype, std::move(shape), values, false);
}

Expected<LocalArray> from_values(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, Shape shape,
                                 std::span<const std::int64_t> values) {
  return filled_from(ledger, dtype, std::move(shape), values, false);
}

Expected<LocalArray> full(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, Shape shape, double value) {
  const double values[] = {value};
  return filled_from(ledger, dtype, std::move(shape), std::span<const double>(values), true);
}

Expected<LocalArray> arange(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, Shape shape, double start,
                            double step) {
  Expected<LocalArray> made = make_local_array(ledger, is_float(dtype) ? DType::float32 : dtype, std::move(shape));
  if (!made) return made;
  if (!is_float(dtype)) {
    auto first = static_cast<std::int64_t>(start), stride = static_cast<std::int64_t>(step);
    dispatch(dtype, [&]<DType D>() {
      if constexpr (!is_float(D)) {
        auto e = made->buffer->elements<D>();
        for (std::size_t i = 0; i < e.size(); ++i)
          e[i] = element_of<D>(static_cast<std::uint64_t>(first) + static_cast<std::uint64_t>(i) * static_cast<std::uint64_t>(stride));
      }
    });
    return made;
  }
  auto e = made->buffer->elements<DType::float32>();
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = static_cast<float>(start + static_cast<double>(i) * step);
  if (dtype == DType::float32) return made;
  return convert(*made, dtype);
}

Expected<LocalArray> linspace(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, std::int64_t num, double start,
                              double stop, bool endpoint) {
  Expected<LocalArray> made = make_local_array(ledger, DType::float32, Shape{num});
  if (!made) return made;
  auto e = made->buffer->elements<DType::float32>();
  auto first = static_cast<float>(start), last = static_cast<float>(stop);
  auto div = static_cast<float>(endpoint ? num - 1 : num);
  for (std::size_t i = 0; i < e.size(); ++i) {
    float t = div > 0 ? static_cast<float>(i) / div : 0.0f;
    float v = first * (1.0f - t) + last * t;
    if (endpoint && num > 1 && static_cast<std::int64_t>(i) == num - 1) v = last;
    e[i] = is_int(dtype) ? std::floor(v) : v;
  }
  if (dtype == DType::float32) return made;
  return convert(*made, dtype);
}

Expected<LocalArray> eye(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, std::int64_t rows,
                         std::int64_t columns, std::int64_t k) {
  Expected<LocalArray> made = make_local_array(ledger, dtype, Shape{rows, columns});
  if (!made) return made;
  dispatch(dtype, [&]<DType D>() {
    auto e = made->buffer->elements<D>();
    for (std::int64_t r = 0; r < rows; ++r) {
      if (r + k >= 0 && r + k < columns) e[static_cast<std::size_t>(r * columns + r + k)] = store_converted<D>(1.0);
    }
  });
  return made;
}

std::vector<double> element_values(const LocalArray& array) {
  std::vector<double> out(static_cast<std::size_t>(array.buffer->element_count()));
  dispatch(array.dtype(), [&]<DType D>() {
    auto in = array.buffer->elements<D>();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = load_as_double<D>(in[i]);
  });
  return out;
}

Expected<std::vector<std::int64_t>> integer_values(const LocalArray& array) {
  LocalArray integers = array;
  if (is_float(array.dtype())) {
    Expected<LocalArray> converted = convert(array, DType::int32);
    if (!converted) return converted.error();
    integers = *converted;
  }
  std::vector<std::int64_t> out(static_cast<std::size_t>(integers.buffer->element_count()));
  dispatch(integers.dtype(), [&]<DType D>() {
    if constexpr (!is_float(D)) {
      auto in = integers.buffer->elements<D>();
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::int64_t>(in[i]);
    }
  });
  return out;
}

std::span<const std::byte> element_bytes(const LocalArray& array) {
  const Buffer& buffer = *array.buffer;
  return buffer.bytes();
}

Expected<LocalArray> from_element_bytes(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, Shape shape,
                                        std::span<const std::byte> bytes) {
  Expected<LocalArray> made = allocate(ledger, dtype, std::move(shape));
  if (!made) return made;
  std::span<std::byte> storage = made->buffer->bytes();
  if (storage.size() != bytes.size())
    return invalid(fmt::format("{} bytes for an array of shape {} of {}-byte elements", bytes.size(),
                               shape_text(made->shape), typecheck::byte_size(dtype)));
  std::memcpy(storage.data(), bytes.data(), bytes.size());
  return made;
}

}  // namespace devices
