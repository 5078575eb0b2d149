// The kernels' fast paths (BLAS on operands in place, vectorised unary ops,
// blocked sums) against plain loops over the same data, on shapes large
// enough to take them and irregular enough to reach their edges.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "devices/half_float.hpp"
#include "devices/kernels.hpp"
#include "devices/memory.hpp"
#include "tests/unit/devices/random_arrays.hpp"

namespace devices {
namespace {

using typecheck::DType;

using testing::ledger;
using testing::ok;
using testing::random_f32;

std::vector<float> floats(const LocalArray& array) {
  auto elements = array.buffer->elements<DType::float32>();
  return {elements.begin(), elements.end()};
}

// result[b, i, j] = sum_p lhs(b, i, p) * rhs(b, p, j), by plain loops over
// accessors that know each operand's layout.
template <class Lhs, class Rhs>
std::vector<double> reference_product(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k, Lhs lhs,
                                      Rhs rhs) {
  std::vector<double> result;
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (std::int64_t p = 0; p < k; ++p) sum += static_cast<double>(lhs(b, i, p)) * rhs(b, p, j);
        result.push_back(sum);
      }
    }
  }
  return result;
}

void expect_close(const std::vector<float>& got, const std::vector<double>& expected, double tolerance) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], tolerance) << "element " << i;
}

TEST(KernelFastPaths, DotGeneralInPlaceTransposedAndGatheredLayoutsAgree) {
  const std::int64_t batch = 3, m = 17, n = 13, k = 29;
  // lhs [batch, m, k] in place; rhs [batch, n, k] in place, transposed.
  LocalArray lhs = random_f32({batch, m, k}, 1);
  LocalArray rhs_transposed = random_f32({batch, n, k}, 2);
  auto l = lhs.buffer->elements<DType::float32>();
  auto r = rhs_transposed.buffer->elements<DType::float32>();
  auto lhs_at = [&](std::int64_t b, std::int64_t i, std::int64_t p) { return l[static_cast<std::size_t>((b * m + i) * k + p)]; };
  auto rhs_t_at = [&](std::int64_t b, std::int64_t p, std::int64_t j) { return r[static_cast<std::size_t>((b * n + j) * k + p)]; };
  LocalArray product = ok(dot_general(lhs, rhs_transposed, {{0}, {0}, {2}, {2}}));
  EXPECT_EQ(product.shape, (Shape{batch, m, n}));
  expect_close(floats(product), reference_product(batch, m, n, k, lhs_at, rhs_t_at), 1e-5);

  // lhs [k, batch, m]: batch not leading, so gathered.
  LocalArray lhs_gathered = random_f32({k, batch, m}, 3);
  auto g = lhs_gathered.buffer->elements<DType::float32>();
  auto gathered_at = [&](std::int64_t b, std::int64_t i, std::int64_t p) { return g[static_cast<std::size_t>((p * batch + b) * m + i)]; };
  LocalArray product2 = ok(dot_general(lhs_gathered, rhs_transposed, {{1}, {0}, {0}, {2}}));
  EXPECT_EQ(product2.shape, (Shape{batch, m, n}));
  expect_close(floats(product2), reference_product(batch, m, n, k, gathered_at, rhs_t_at), 1e-5);

  // Two contracting axes, lhs [k1, k2, m] transposed in place.
  LocalArray lhs_two = random_f32({4, 5, m}, 4);
  LocalArray rhs_two = random_f32({4, 5, n}, 5);
  auto a = lhs_two.buffer->elements<DType::float32>();
  auto b = rhs_two.buffer->elements<DType::float32>();
  LocalArray product3 = ok(dot_general(lhs_two, rhs_two, {{}, {}, {0, 1}, {0, 1}}));
  EXPECT_EQ(product3.shape, (Shape{m, n}));
  expect_close(floats(product3),
               reference_product(
                   1, m, n, 20, [&](std::int64_t, std::int64_t i, std::int64_t p) { return a[static_cast<std::size_t>(p * m + i)]; },
                   [&](std::int64_t, std::int64_t p, std::int64_t j) { return b[static_cast<std::size_t>(p * n + j)]; }),
               1e-5);
}

TEST(KernelFastPaths, HalfFloatTranscendentalsRoundTheF32Result) {
  // More elements than one conversion block, bf16 and f16.
  const std::size_t count = 5000;
  for (DType dtype : {DType::bfloat16, DType::float16}) {
    Expected<LocalArray> made = make_local_array(ledger(), dtype, {static_cast<std::int64_t>(count)});
    ASSERT_TRUE(made.ok());
    std::vector<float> inputs(count);
    for (std::size_t i = 0; i < count; ++i) {
      float x = -8.0f + 16.0f * static_cast<float>(i) / count;
      auto elements = made->buffer->elements<DType::bfloat16>();  // both store 16 bits
      elements[i] = dtype == DType::bfloat16 ? bfloat16_from_float(x) : float16_from_float(x);
      inputs[i] = dtype == DType::bfloat16 ? float_from_bfloat16(elements[i]) : float_from_float16(elements[i]);
    }
    for (UnaryOp op : {UnaryOp::sin, UnaryOp::cos, UnaryOp::exp, UnaryOp::tanh}) {
      LocalArray result = ok(unary(op, *made));
      auto elements = result.buffer->elements<DType::bfloat16>();
      for (std::size_t i = 0; i < count; ++i) {
        double x = inputs[i];
        float exact = static_cast<float>(op == UnaryOp::sin   ? std::sin(x)
                                          : op == UnaryOp::cos ? std::cos(x)
                                          : op == UnaryOp::exp ? std::exp(x)
                                                               : std::tanh(x));
        std::uint16_t expected = dtype == DType::bfloat16 ? bfloat16_from_float(exact) : float16_from_float(exact);
        // Within one unit of the 16-bit type (its rounding of a 1-ulp f32).
        EXPECT_LE(std::abs(static_cast<int>(elements[i]) - static_cast<int>(expected)), 1)
            << "op " << static_cast<int>(op) << " x " << x;
      }
    }
  }
}

TEST(KernelFastPaths, SumsOverAdjacentAxesMatchDoubleSums) {
  // [2, 150, 3, 7]: axes {1, 2} adjacent (inner 7, more rows than a block),
  // {3} (rows), {0, 1, 2, 3} (everything), and {0, 2} (not adjacent: the
  // general loop).
  Shape shape = {2, 150, 3, 7};
  LocalArray x = random_f32(shape, 9);
  auto values = x.buffer->elements<DType::float32>();
  auto at = [&](std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) {
    return static_cast<double>(values[static_cast<std::size_t>(((a * 150 + b) * 3 + c) * 7 + d)]);
  };
  std::vector<double> middle, last, all(1, 0.0), apart;
  for (std::int64_t a = 0; a < 2; ++a)
    for (std::int64_t d = 0; d < 7; ++d) {
      double sum = 0;
      for (std::int64_t b = 0; b < 150; ++b)
        for (std::int64_t c = 0; c < 3; ++c) sum += at(a, b, c, d);
      middle.push_back(sum);
    }
  for (std::int64_t a = 0; a < 2; ++a)
    for (std::int64_t b = 0; b < 150; ++b)
      for (std::int64_t c = 0; c < 3; ++c) {
        double sum = 0;
        for (std::int64_t d = 0; d < 7; ++d) sum += at(a, b, c, d);
        last.push_back(sum);
        all[0] += sum;
      }
  for (std::int64_t b = 0; b < 150; ++b)
    for (std::int64_t d = 0; d < 7; ++d) {
      double sum = 0;
      for (std::int64_t a = 0; a < 2; ++a)
        for (std::int64_t c = 0; c < 3; ++c) sum += at(a, b, c, d);
      apart.push_back(sum);
    }
  std::vector<int> middle_axes = {2, 1}, last_axis = {3}, all_axes = {0, 1, 2, 3}, apart_axes = {0, 2};
  LocalArray middle_sum = ok(reduce(ReduceOp::sum, x, middle_axes));
  EXPECT_EQ(middle_sum.shape, (Shape{2, 7}));
  expect_close(floats(middle_sum), middle, 1e-4);
  expect_close(floats(ok(reduce(ReduceOp::sum, x, last_axis))), last, 1e-5);
  expect_close(floats(ok(reduce(ReduceOp::sum, x, all_axes))), all, 1e-3);
  expect_close(floats(ok(reduce(ReduceOp::sum, x, apart_axes))), apart, 1e-5);
  // An empty reduced axis sums to zeros.
  LocalArray empty = ok(make_local_array(ledger(), DType::float32, {3, 0, 2}));
  std::vector<int> empty_axis = {1};
  expect_close(floats(ok(reduce(ReduceOp::sum, empty, empty_axis))), std::vector<double>(6, 0.0), 0);
}

}  // namespace
}  // namespace devices

namespace devices {
namespace {

// The plain left-to-right max or min of a strided run, by float_max's rule.
float sequential_extreme(bool maximum, const float* start, std::int64_t count, std::int64_t stride) {
  float accumulator = maximum ? -INFINITY : INFINITY;
  for (std::int64_t i = 0; i < count; ++i)
    accumulator = maximum ? float_max(accumulator, start[i * stride]) : float_min(accumulator, start[i * stride]);
  return accumulator;
}

TEST(KernelFastPaths, MaxAndMinOverAdjacentAxesEqualTheSequentialOnesBitForBit) {
  // [4, 37, 5]: rows of 37 (past the 16 lanes, with a tail) and columns of
  // 37 (inner 5); signed zeros placed so the first one decides the sign,
  // one NaN row, one row of -inf, and infinities elsewhere.
  LocalArray x = random_f32({4, 37, 5}, 21);
  auto values = x.buffer->elements<DType::float32>();
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = -std::abs(values[i]);
  for (std::int64_t c = 0; c < 5; ++c) {
    values[static_cast<std::size_t>((0 * 37 + 20) * 5 + c)] = -0.0f;
    values[static_cast<std::size_t>((0 * 37 + 3) * 5 + c)] = c % 2 ? 0.0f : -0.0f;
  }
  values[static_cast<std::size_t>((1 * 37 + 30) * 5 + 2)] = NAN;
  for (std::int64_t r = 0; r < 37; ++r) values[static_cast<std::size_t>((2 * 37 + r) * 5 + 4)] = -INFINITY;
  values[static_cast<std::size_t>((3 * 37 + 36) * 5 + 1)] = INFINITY;
  const std::vector<int> last_axis = {2}, middle_axis = {1};
  for (bool maximum : {true, false}) {
    ReduceOp op = maximum ? ReduceOp::max : ReduceOp::min;
    auto rows = ok(reduce(op, x, last_axis)).buffer->elements<DType::float32>();
    auto columns = ok(reduce(op, x, middle_axis)).buffer->elements<DType::float32>();
    for (std::int64_t a = 0; a < 4; ++a) {
      for (std::int64_t b = 0; b < 37; ++b) {
        float expected = sequential_extreme(maximum, values.data() + (a * 37 + b) * 5, 5, 1);
        EXPECT_EQ(std::bit_cast<std::uint32_t>(rows[static_cast<std::size_t>(a * 37 + b)]),
                  std::bit_cast<std::uint32_t>(expected));
      }
      for (std::int64_t c = 0; c < 5; ++c) {
        float expected = sequential_extreme(maximum, values.data() + a * 37 * 5 + c, 37, 5);
        EXPECT_EQ(std::bit_cast<std::uint32_t>(columns[static_cast<std::size_t>(a * 5 + c)]),
                  std::bit_cast<std::uint32_t>(expected))
            << "max " << maximum << " at " << a << ", " << c;
      }
    }
  }
  // Rows long enough for the lanes: [3, 100], the last reduced.
  LocalArray wide = random_f32({3, 100}, 22);
  auto w = wide.buffer->elements<DType::float32>();
  for (std::size_t i = 0; i < 100; ++i) w[i] = -std::abs(w[i]) - 1.0f;
  w[9] = -0.0f;  // lane 9, before a +0 in lane 8: the first zero is -0
  w[24] = 0.0f;
  w[150] = NAN;
  const std::vector<int> second_axis = {1};
  for (bool maximum : {true, false}) {
    auto result = ok(reduce(maximum ? ReduceOp::max : ReduceOp::min, wide, second_axis)).buffer->elements<DType::float32>();
    for (std::int64_t r = 0; r < 3; ++r)
      EXPECT_EQ(std::bit_cast<std::uint32_t>(result[static_cast<std::size_t>(r)]),
                std::bit_cast<std::uint32_t>(sequential_extreme(maximum, w.data() + r * 100, 100, 1)));
  }
}

}  // namespace
}  // namespace devices
