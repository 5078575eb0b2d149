// Running sums along one axis (cumulative.hpp).
#include "devices/kernels/cumulative.hpp"

#include "devices/kernels/support.hpp"

namespace devices {

using namespace kernel_support;
using typecheck::DType;

namespace {

// Running sums over [outer, extent, inner]: one accumulator per inner
// element, stepping along the axis.
template <DType D>
void cumulative_sum_typed(const LocalArray& operand, LocalArray& result, std::int64_t outer, std::int64_t extent,
                          std::int64_t inner, bool reverse) {
  using C = compute_t<D>;
  auto input = operand.buffer->elements<D>();
  auto output = result.buffer->elements<D>();
  std::vector<C> running(static_cast<std::size_t>(inner));
  for (std::int64_t o = 0; o < outer; ++o) {
    std::fill(running.begin(), running.end(), C{0});
    for (std::int64_t step = 0; step < extent; ++step) {
      std::int64_t k = reverse ? extent - 1 - step : step;
      auto base = static_cast<std::size_t>((o * extent + k) * inner);
      for (std::size_t i = 0; i < running.size(); ++i) {
        if constexpr (is_float(D)) {
          running[i] += load<D>(input[base + i]);
          output[base + i] = store<D>(running[i]);
        } else {
          running[i] = wrap<C>(static_cast<std::uint64_t>(running[i]) + static_cast<std::uint64_t>(input[base + i]));
          output[base + i] = running[i];
        }
      }
    }
  }
}

}  // namespace

Expected<LocalArray> cumulative_sum(const LocalArray& operand, int axis, bool reverse) {
  if (Status status = check_array(operand, "cumulative_sum"); !status) return status.error();
  if (axis < 0 || static_cast<std::size_t>(axis) >= operand.shape.size())
    return invalid("cumulative_sum: axis " + std::to_string(axis) + " is out of range for shape " +
                   shape_text(operand.shape));
  if (operand.dtype() == DType::bool_) return invalid("cumulative_sum of bool: convert to an integer dtype first");
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), operand.dtype(), operand.shape);
  if (!result) return result;
  auto a = static_cast<std::size_t>(axis);
  std::int64_t outer = element_count(std::span(operand.shape).first(a));
  std::int64_t inner = element_count(std::span(operand.shape).subspan(a + 1));
  Status status = dispatch(operand.dtype(), [&]<DType D>() -> Status {
    if constexpr (D != DType::bool_) cumulative_sum_typed<D>(operand, *result, outer, operand.shape[a], inner, reverse);
    return {};
  });
  if (!status) return status.error();
  return result;
}

}  // namespace devices
