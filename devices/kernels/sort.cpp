// lax.sort's local kernel (sort.hpp).
#include "devices/kernels/sort.hpp"

#include <numeric>

#include "devices/kernels/support.hpp"

namespace devices {

using namespace kernel_support;
using typecheck::DType;

namespace {

// One key's elements as doubles (every dtype's values are exact in one),
// NaN canonical; -0.0 compares equal to 0.0 as doubles do.
std::vector<double> key_values(const LocalArray& key) {
  std::vector<double> out(static_cast<std::size_t>(element_count(key.shape)));
  (void)dispatch(key.dtype(), [&]<DType D>() -> Status {
    auto elements = key.buffer->elements<D>();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(load<D>(elements[i]));
    return {};
  });
  return out;
}

// -1, 0 or 1 in the total order (NaN last).
int compare(double a, double b) {
  const bool a_nan = std::isnan(a), b_nan = std::isnan(b);
  if (a_nan || b_nan) return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Copies `source` permuted along the slices into `result` (same dtype).
template <DType D>
void permute(const LocalArray& source, LocalArray& result, const std::vector<std::int64_t>& order, std::int64_t outer,
             std::int64_t extent, std::int64_t inner) {
  auto in = source.buffer->elements<D>();
  auto out = result.buffer->elements<D>();
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i)
      for (std::int64_t k = 0; k < extent; ++k) {
        std::int64_t slice = o * inner + i;
        std::int64_t from = order[static_cast<std::size_t>(slice * extent + k)];
        out[static_cast<std::size_t>((o * extent + k) * inner + i)] = in[static_cast<std::size_t>((o * extent + from) * inner + i)];
      }
}

}  // namespace

Expected<LocalArray> sort_along(std::span<const LocalArray> operands, int axis, int num_keys, int output, bool descending) {
  if (operands.empty()) return invalid("sort: no operands");
  for (const auto& operand : operands) {
    if (Status status = check_array(operand, "sort"); !status) return status.error();
    if (operand.shape != operands[0].shape) return invalid("sort: operands of different shapes");
  }
  const Shape& shape = operands[0].shape;
  if (axis < 0 || static_cast<std::size_t>(axis) >= shape.size())
    return invalid("sort: axis " + std::to_string(axis) + " is out of range for shape " + shape_text(shape));
  if (num_keys < 1 || static_cast<std::size_t>(num_keys) > operands.size() || output < 0 ||
      static_cast<std::size_t>(output) > operands.size())
    return invalid("sort: bad num_keys or output");
  auto a = static_cast<std::size_t>(axis);
  const std::int64_t outer = element_count(std::span(shape).first(a)), extent = shape[a];
  const std::int64_t inner = element_count(std::span(shape).subspan(a + 1));
  std::vector<std::vector<double>> keys;
  for (int k = 0; k < num_keys; ++k) keys.push_back(key_values(operands[static_cast<std::size_t>(k)]));
  // order[slice * extent + k]: the position along the axis of the k-th element of slice `slice`.
  std::vector<std::int64_t> order(static_cast<std::size_t>(outer * inner * extent));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      auto first = order.begin() + (o * inner + i) * extent;
      std::iota(first, first + extent, std::int64_t{0});
      auto at = [&](std::int64_t k) { return static_cast<std::size_t>((o * extent + k) * inner + i); };
      std::stable_sort(first, first + extent, [&](std::int64_t x, std::int64_t y) {
        for (const auto& key : keys) {
          int c = compare(key[at(x)], key[at(y)]);
          if (c != 0) return descending ? c > 0 : c < 0;
        }
        return false;
      });
    }
  const bool indices = static_cast<std::size_t>(output) == operands.size();
  const LocalArray& source = indices ? operands[0] : operands[static_cast<std::size_t>(output)];
  Expected<LocalArray> result = allocate(source.buffer->ledger(), indices ? DType::int32 : source.dtype(), shape);
  if (!result) return result;
  if (indices) {
    auto out = result->buffer->elements<DType::int32>();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i)
        for (std::int64_t k = 0; k < extent; ++k)
          out[static_cast<std::size_t>((o * extent + k) * inner + i)] =
              static_cast<std::int32_t>(order[static_cast<std::size_t>((o * inner + i) * extent + k)]);
    return result;
  }
  Status status = dispatch(source.dtype(), [&]<DType D>() -> Status {
    permute<D>(source, *result, order, outer, extent, inner);
    return {};
  });
  if (!status) return status.error();
  return result;
}

}  // namespace devices
