// The indexing kernels (indexing.hpp): gather along an axis, take along an
// axis, and scatter at flat positions.
#include "devices/indexing.hpp"

#include "devices/kernels/support.hpp"

namespace devices {

using namespace kernel_support;
using typecheck::DType;

namespace {

// jnp's "fill" value of an out-of-range gather, stored at `element`.
void fill_out_of_range(DType dtype, std::byte* element) {
  auto store_value = [&](auto value) { std::memcpy(element, &value, sizeof value); };
  switch (dtype) {
    case DType::float32: store_value(std::numeric_limits<float>::quiet_NaN()); break;
    case DType::int32: store_value(std::numeric_limits<std::int32_t>::min()); break;
    case DType::int8: store_value(std::numeric_limits<std::int8_t>::min()); break;
    case DType::uint32: store_value(std::numeric_limits<std::uint32_t>::max()); break;
    case DType::bool_: store_value(std::uint8_t{1}); break;
    case DType::bfloat16: store_value(std::uint16_t{0x7fc0}); break;
    case DType::float16: store_value(std::uint16_t{0x7e00}); break;
  }
}

// Combines an element with one update, in the compute type.
template <typename T>
T combined(ScatterMethod method, T current, T update) {
  switch (method) {
    case ScatterMethod::set: return update;
    case ScatterMethod::add: return static_cast<T>(current + update);
    case ScatterMethod::multiply: return static_cast<T>(current * update);
    case ScatterMethod::min: return update < current ? update : current;
    case ScatterMethod::max: break;
  }
  return current < update ? update : current;
}

template <DType D>
void scatter_elements(ScatterMethod method, LocalArray& target, const LocalArray& updates,
                      std::span<const std::int64_t> positions) {
  auto out = target.buffer->elements<D>();
  auto in = updates.buffer->elements<D>();
  const auto size = static_cast<std::int64_t>(out.size());
  for (std::size_t k = 0; k < positions.size(); ++k) {
    if (positions[k] < 0 || positions[k] >= size) continue;  // out-of-range updates are dropped (JAX's default)
    auto& slot = out[static_cast<std::size_t>(positions[k])];
    slot = combined(method, slot, in[k]);
    if constexpr (D == DType::bool_) slot = slot != 0;
  }
}

}  // namespace

Expected<LocalArray> gather(const LocalArray& operand, std::size_t axis, std::span<const std::int64_t> indices,
                            std::span<const std::int64_t> indices_shape) {
  if (Status status = check_array(operand, "gather"); !status) return status.error();
  if (axis >= operand.shape.size()) return invalid(fmt::format("gather: axis {} out of range for rank {}", axis, operand.shape.size()));
  if (element_count(indices_shape) != static_cast<std::int64_t>(indices.size()))
    return invalid(fmt::format("gather: indices of shape {} hold {} elements", shape_text(indices_shape), indices.size()));
  Shape shape(operand.shape.begin(), operand.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  shape.insert(shape.end(), indices_shape.begin(), indices_shape.end());
  shape.insert(shape.end(), operand.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, operand.shape.end());
  Expected<LocalArray> made = allocate(operand.buffer->ledger(), operand.dtype(), std::move(shape));
  if (!made) return made;
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= operand.shape[d];
  for (std::size_t d = axis + 1; d < operand.shape.size(); ++d) inner *= operand.shape[d];
  std::int64_t n = operand.shape[axis];
  auto element = static_cast<std::int64_t>(typecheck::byte_size(operand.dtype()));
  const std::byte* in = operand.buffer->bytes().data();
  std::byte* out = made->buffer->bytes().data();
  auto count = static_cast<std::int64_t>(indices.size());
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t k = 0; k < count; ++k) {
      std::int64_t index = indices[static_cast<std::size_t>(k)];
      if (index < 0) index += n;
      std::byte* target = out + ((o * count + k) * inner) * element;
      if (index < 0 || index >= n) {
        for (std::int64_t i = 0; i < inner; ++i) fill_out_of_range(operand.dtype(), target + i * element);
        continue;
      }
      std::memcpy(target, in + ((o * n + index) * inner) * element, static_cast<std::size_t>(inner * element));
    }
  }
  return made;
}

Expected<LocalArray> take_along_axis(const LocalArray& operand, std::size_t axis, std::span<const std::int64_t> indices) {
  if (Status status = check_array(operand, "take_along_axis"); !status) return status.error();
  if (axis >= operand.shape.size())
    return invalid(fmt::format("take_along_axis: axis {} out of range for rank {}", axis, operand.shape.size()));
  if (static_cast<std::int64_t>(indices.size()) != element_count(operand.shape))
    return invalid("take_along_axis: one index per element of the operand");
  std::int64_t inner = 1;
  for (std::size_t d = axis + 1; d < operand.shape.size(); ++d) inner *= operand.shape[d];
  std::int64_t length = operand.shape[axis];
  for (std::int64_t index : indices) {
    if (index < 0 || index >= length) return invalid(fmt::format("take_along_axis: index {} out of range for {}", index, length));
  }
  Expected<LocalArray> made = allocate(operand.buffer->ledger(), operand.dtype(), operand.shape);
  if (!made) return made;
  dispatch_word(typecheck::byte_size(operand.dtype()), [&]<class Word>() {
    const Word* in = words<Word>(*operand.buffer);
    Word* out = words<Word>(*made->buffer);
    for (std::size_t i = 0; i < indices.size(); ++i) {
      auto position = static_cast<std::int64_t>(i);
      std::int64_t lane_start = position / (length * inner) * length * inner + position % inner;
      out[i] = in[lane_start + indices[i] * inner];
    }
  });
  return made;
}

Expected<LocalArray> scatter(const LocalArray& operand, std::span<const std::int64_t> positions,
                             const LocalArray& updates, ScatterMethod method) {
  if (Status status = check_array(operand, "scatter"); !status) return status.error();
  if (Status status = check_array(updates, "scatter"); !status) return status.error();
  if (updates.dtype() != operand.dtype()) return invalid("scatter: updates of another dtype than the operand");
  if (element_count(updates.shape) != static_cast<std::int64_t>(positions.size()))
    return invalid("scatter: one position per update");
  const DType dtype = operand.dtype();
  const DType compute = dtype == DType::bfloat16 || dtype == DType::float16 ? DType::float32 : dtype;
  Expected<LocalArray> result = convert(operand, compute);  // a fresh buffer, also when the dtype stays
  if (!result) return result;
  Expected<LocalArray> converted = convert(updates, compute);
  if (!converted) return converted;
  switch (compute) {
    case DType::int32: scatter_elements<DType::int32>(method, *result, *converted, positions); break;
    case DType::int8: scatter_elements<DType::int8>(method, *result, *converted, positions); break;
    case DType::uint32: scatter_elements<DType::uint32>(method, *result, *converted, positions); break;
    case DType::bool_: scatter_elements<DType::bool_>(method, *result, *converted, positions); break;
    default: scatter_elements<DType::float32>(method, *result, *converted, positions); break;
  }
  if (compute == dtype) return result;
  return convert(*result, dtype);
}

}  // namespace devices
