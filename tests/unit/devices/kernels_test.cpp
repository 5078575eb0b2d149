// Local kernels on small shards, against values computed by hand or with
// NumPy (float32 results of numpy functions, pasted).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "devices/half_float.hpp"
#include "devices/kernels.hpp"
#include "devices/kernels/convolution.hpp"
#include "devices/kernels/linalg.hpp"
#include "devices/kernels/sort.hpp"
#include "devices/memory.hpp"

namespace devices {
namespace {

using typecheck::DType;

std::shared_ptr<MemoryLedger> test_ledger() {
  return std::make_shared<MemoryLedger>(std::vector<MemoryLedger::DeviceMemory>{{"TPU 0", 1 << 30}}, 1 << 30);
}

// An array of `dtype` and `shape` holding `values` (exact, or rounded to
// nearest even for bf16/f16).
LocalArray array(DType dtype, Shape shape, const std::vector<double>& values) {
  static std::shared_ptr<MemoryLedger> ledger = test_ledger();
  Expected<LocalArray> made = make_local_array(ledger, dtype, std::move(shape));
  EXPECT_TRUE(made.ok());
  EXPECT_EQ(static_cast<std::size_t>(made->buffer->element_count()), values.size());
  Buffer& buffer = *made->buffer;
  for (std::size_t i = 0; i < values.size(); ++i) {
    switch (dtype) {
      case DType::bool_: buffer.elements<DType::bool_>()[i] = values[i] != 0; break;
      case DType::int8: buffer.elements<DType::int8>()[i] = static_cast<std::int8_t>(values[i]); break;
      case DType::int32: buffer.elements<DType::int32>()[i] = static_cast<std::int32_t>(values[i]); break;
      case DType::uint32: buffer.elements<DType::uint32>()[i] = static_cast<std::uint32_t>(values[i]); break;
      case DType::float16: buffer.elements<DType::float16>()[i] = float16_from_float(static_cast<float>(values[i])); break;
      case DType::bfloat16:
        buffer.elements<DType::bfloat16>()[i] = bfloat16_from_float(static_cast<float>(values[i]));
        break;
      case DType::float32: buffer.elements<DType::float32>()[i] = static_cast<float>(values[i]); break;
    }
  }
  return *made;
}

std::vector<double> values_of(const LocalArray& array) {
  std::vector<double> values;
  const Buffer& buffer = *array.buffer;
  for (std::int64_t i = 0; i < buffer.element_count(); ++i) {
    std::size_t at = static_cast<std::size_t>(i);
    switch (buffer.dtype()) {
      case DType::bool_: values.push_back(buffer.elements<DType::bool_>()[at]); break;
      case DType::int8: values.push_back(buffer.elements<DType::int8>()[at]); break;
      case DType::int32: values.push_back(buffer.elements<DType::int32>()[at]); break;
      case DType::uint32: values.push_back(buffer.elements<DType::uint32>()[at]); break;
      case DType::float16: values.push_back(float_from_float16(buffer.elements<DType::float16>()[at])); break;
      case DType::bfloat16: values.push_back(float_from_bfloat16(buffer.elements<DType::bfloat16>()[at])); break;
      case DType::float32: values.push_back(buffer.elements<DType::float32>()[at]); break;
    }
  }
  return values;
}

LocalArray ok(Expected<LocalArray> result) {
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  return result.ok() ? *result : LocalArray{};
}

// Exact comparison, NaN equal to NaN.
void expect_values(const LocalArray& result, const std::vector<double>& expected) {
  std::vector<double> got = values_of(result);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    } else {
      EXPECT_EQ(got[i], expected[i]) << "element " << i;
    }
  }
}

constexpr double int32_min = std::numeric_limits<std::int32_t>::min();
constexpr double int32_max = std::numeric_limits<std::int32_t>::max();
constexpr double uint32_max = std::numeric_limits<std::uint32_t>::max();

TEST(Kernels, FloatUnaryMatchesNumpyFloat32) {
  LocalArray x = array(DType::float32, {3}, {0.5, 1.0, 2.0});
  struct Case {
    UnaryOp op;
    std::vector<double> expected;
  };
  std::vector<Case> cases = {
      {UnaryOp::sin, {0.4794255495071411, 0.8414710164070129, 0.9092974066734314}},
      {UnaryOp::cos, {0.8775825500488281, 0.5403022766113281, -0.41614681482315063}},
      {UnaryOp::tan, {0.5463024973869324, 1.5574077367782593, -2.18503999710083}},
      {UnaryOp::tanh, {0.46211719512939453, 0.7615941762924194, 0.9640275835990906}},
      {UnaryOp::exp, {1.6487212181091309, 2.7182819843292236, 7.3890557289123535}},
      {UnaryOp::log, {-0.6931471824645996, 0.0, 0.6931471824645996}},
      {UnaryOp::log1p, {0.40546512603759766, 0.6931471824645996, 1.0986123085021973}},
      {UnaryOp::expm1, {0.6487212777137756, 1.718281865119934, 6.389056205749512}},
      {UnaryOp::sqrt, {0.7071067690849304, 1.0, 1.4142135381698608}},
      {UnaryOp::rsqrt, {1.4142135381698608, 1.0, 0.7071067690849304}},
      {UnaryOp::square, {0.25, 1.0, 4.0}},
      {UnaryOp::erf, {0.5204998850822449, 0.8427007794380188, 0.9953222870826721}},
      {UnaryOp::neg, {-0.5, -1.0, -2.0}},
  };
  for (const Case& test : cases) {
    std::vector<double> got = values_of(ok(unary(test.op, x)));
    for (std::size_t i = 0; i < got.size(); ++i) {
      // libm and NumPy may differ in the last bit of a transcendental.
      EXPECT_NEAR(got[i], test.expected[i], 2e-7 * std::max(1.0, std::abs(test.expected[i])))
          << "op " << static_cast<int>(test.op) << " element " << i;
    }
  }
  // erf_inv: Giles' single-precision polynomial; +-1 give infinities, beyond is NaN.
  std::vector<double> inverse = values_of(ok(unary(UnaryOp::erf_inv, x)));
  EXPECT_NEAR(inverse[0], 0.4769362762044699, 2e-7);
  EXPECT_TRUE(std::isinf(inverse[1]) && inverse[1] > 0);
  EXPECT_TRUE(std::isnan(inverse[2]));
  LocalArray signs = array(DType::float32, {4}, {-3, -0.0, 0, NAN});
  expect_values(ok(unary(UnaryOp::sign, signs)), {-1, 0, 0, NAN});
  EXPECT_TRUE(std::signbit(values_of(ok(unary(UnaryOp::sign, signs)))[1]));
  expect_values(ok(unary(UnaryOp::abs, signs)), {3, 0, 0, NAN});
  expect_values(ok(unary(UnaryOp::logical_not, signs)), {0, 1, 1, 0});
}

// floor, ceil and round (to nearest, ties to even: XLA's round_nearest_even),
// NaN and infinities through, -0.0 kept.
TEST(Kernels, FloatRounding) {
  LocalArray x = array(DType::float32, {8}, {-2.5, -1.5, -0.5, 0.5, 2.5, 3.7, INFINITY, NAN});
  expect_values(ok(unary(UnaryOp::floor, x)), {-3, -2, -1, 0, 2, 3, INFINITY, NAN});
  expect_values(ok(unary(UnaryOp::ceil, x)), {-2, -1, -0.0, 1, 3, 4, INFINITY, NAN});
  expect_values(ok(unary(UnaryOp::round, x)), {-2, -2, -0.0, 0, 2, 4, INFINITY, NAN});
  EXPECT_TRUE(std::signbit(values_of(ok(unary(UnaryOp::round, x)))[2]));
  LocalArray halves = array(DType::bfloat16, {2}, {0.5, 1.5});
  expect_values(ok(unary(UnaryOp::round, halves)), {0, 2});
}

// lax.reduce_precision's kernel (XLA's ReducePrecision): float16's widths
// round the mantissa to nearest even, overflow to infinity and flush what
// is below the smallest normal to a signed zero; NaN stays NaN while a
// mantissa bit is left; 8 exponent bits keep f32's range (and subnormals).
TEST(Kernels, ReducePrecision) {
  LocalArray x = array(DType::float32, {8}, {3.14159265, 65519.0, 65520.0, -1e-5, 1 + 0x1p-11, 1 + 3 * 0x1p-11, NAN, -INFINITY});
  expect_values(ok(reduce_precision(x, 5, 10)), {3.140625, 65504.0, INFINITY, -0.0, 1.0, 1.001953125, NAN, -INFINITY});
  EXPECT_TRUE(std::signbit(values_of(ok(reduce_precision(x, 5, 10)))[3]));
  expect_values(ok(reduce_precision(x, 8, 7)), {3.140625, 65536.0, 65536.0, -1.0013580322265625e-05, 1.0, 1.0, NAN, -INFINITY});
  EXPECT_TRUE(std::isinf(values_of(ok(reduce_precision(x, 8, 0)))[6]));
  LocalArray half = array(DType::float16, {2}, {0.333251953125, 1000.0});
  expect_values(ok(reduce_precision(half, 5, 2)), {0.3125, 1024.0});
  EXPECT_FALSE(reduce_precision(array(DType::int32, {1}, {1}), 5, 10).ok());
}

// lax.sort's kernel: NaN last, -0.0 == 0.0 kept in order (stable), several
// keys lexicographically, the permutation as int32, along an inner axis,
// and top_k's descending order (NaN first, ties in their order).
TEST(Kernels, SortAlongAnAxis) {
  LocalArray x = array(DType::float32, {6}, {3, NAN, -0.0, 1, 0, -INFINITY});
  std::vector<LocalArray> one{x};
  expect_values(ok(sort_along(one, 0, 1, 0)), {-INFINITY, -0.0, 0, 1, 3, NAN});
  expect_values(ok(sort_along(one, 0, 1, 1)), {5, 2, 4, 3, 0, 1});
  expect_values(ok(sort_along(one, 0, 1, 1, true)), {1, 0, 3, 2, 4, 5});
  LocalArray keys = array(DType::int32, {4}, {1, 0, 1, 0}), second = array(DType::int32, {4}, {3, 2, 1, 0});
  std::vector<LocalArray> two{keys, second};
  expect_values(ok(sort_along(two, 0, 2, 1)), {0, 2, 1, 3});
  expect_values(ok(sort_along(two, 0, 1, 1)), {2, 0, 3, 1});
  LocalArray m = array(DType::bfloat16, {2, 3}, {3, 1, 2, 1, 3, 1});
  std::vector<LocalArray> rows{m};
  expect_values(ok(sort_along(rows, 1, 1, 0)), {1, 2, 3, 1, 1, 3});
  expect_values(ok(sort_along(rows, 0, 1, 1)), {1, 0, 1, 0, 1, 0});
}

TEST(Kernels, IntegerUnaryWraps) {
  LocalArray x = array(DType::int32, {4}, {int32_min, -5, 0, 7});
  expect_values(ok(unary(UnaryOp::neg, x)), {int32_min, 5, 0, -7});
  expect_values(ok(unary(UnaryOp::abs, x)), {int32_min, 5, 0, 7});
  expect_values(ok(unary(UnaryOp::sign, x)), {-1, -1, 0, 1});
  expect_values(ok(unary(UnaryOp::square, array(DType::int8, {2}, {16, -3}))), {0, 9});
  expect_values(ok(unary(UnaryOp::neg, array(DType::uint32, {2}, {1, 0}))), {uint32_max, 0});
  Expected<LocalArray> refused = unary(UnaryOp::sin, x);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::invalid_argument);
}

TEST(Kernels, HalfFloatsComputeInF32AndRoundToNearestEven) {
  // 1 + 2^-8 is halfway between bf16 neighbours 1 and 1 + 2^-7: even is 1;
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: even is the latter.
  LocalArray one = array(DType::bfloat16, {2}, {1, 1});
  LocalArray small = array(DType::bfloat16, {2}, {0.00390625, 0.01171875});
  expect_values(ok(binary(BinaryOp::add, one, small)), {1.0, 1.015625});
  // float16: 2048 + 1 rounds to even 2048; 2048 + 3 to 2052.
  LocalArray big = array(DType::float16, {2}, {2048, 2048});
  LocalArray odd = array(DType::float16, {2}, {1, 3});
  expect_values(ok(binary(BinaryOp::add, big, odd)), {2048, 2052});
}

TEST(Kernels, IntegerArithmeticWrapsAndDividesAsXla) {
  LocalArray max = array(DType::int32, {2}, {int32_max, int32_min});
  LocalArray one = array(DType::int32, {2}, {1, 1});
  expect_values(ok(binary(BinaryOp::add, max, one)), {int32_min, int32_min + 1});
  expect_values(ok(binary(BinaryOp::sub, max, one)), {int32_max - 1, int32_max});
  expect_values(ok(binary(BinaryOp::mul, array(DType::int8, {1}, {100}), array(DType::int8, {1}, {3}))), {44});
  expect_values(ok(binary(BinaryOp::sub, array(DType::uint32, {1}, {0}), array(DType::uint32, {1}, {1}))), {uint32_max});

  LocalArray x = array(DType::int32, {7}, {7, -7, 7, -7, 5, 0, int32_min});
  LocalArray y = array(DType::int32, {7}, {2, 2, -2, -2, 0, 0, -1});
  expect_values(ok(binary(BinaryOp::div, x, y)), {3, -3, -3, 3, -1, -1, int32_min});
  expect_values(ok(binary(BinaryOp::rem, x, y)), {1, -1, 1, -1, 5, 0, 0});
  expect_values(ok(binary(BinaryOp::floor_divide, x, y)), {3, -4, -4, 3, -2, -1, int32_min});
  expect_values(ok(binary(BinaryOp::div, array(DType::uint32, {2}, {5, 7}), array(DType::uint32, {2}, {0, 2}))),
                {uint32_max, 3});

  LocalArray base = array(DType::int32, {6}, {2, 3, 0, 0, -2, 2});
  LocalArray exponent = array(DType::int32, {6}, {10, 0, 0, 3, 3, -1});
  expect_values(ok(binary(BinaryOp::pow, base, exponent)), {1024, 1, 1, 0, -8, 0});
  expect_values(ok(binary(BinaryOp::max, x, y)), {7, 2, 7, -2, 5, 0, -1});
}

TEST(Kernels, FloatBinaryOps) {
  LocalArray x = array(DType::float32, {4}, {7, -7, 7.5, -7.5});
  LocalArray y = array(DType::float32, {4}, {2, 2, -2, 0.5});
  expect_values(ok(binary(BinaryOp::floor_divide, x, y)), {3, -4, -4, -15});
  expect_values(ok(binary(BinaryOp::rem, x, y)), {1, -1, 1.5, -0.0});
  expect_values(ok(binary(BinaryOp::div, x, y)), {3.5, -3.5, -3.75, -15});
  expect_values(ok(binary(BinaryOp::pow, array(DType::float32, {2}, {2, 9}), array(DType::float32, {2}, {0.5, 0.5}))),
                {static_cast<float>(std::sqrt(2.0)), 3});
  // atan2(lhs, rhs): the angle of the point (rhs, lhs), in all four quadrants.
  expect_values(ok(binary(BinaryOp::atan2, array(DType::float32, {4}, {1, 1, -1, 0}), array(DType::float32, {4}, {1, -1, -1, -2}))),
                {std::atan2(1.0f, 1.0f), std::atan2(1.0f, -1.0f), std::atan2(-1.0f, -1.0f), std::atan2(0.0f, -2.0f)});
  LocalArray with_nan = array(DType::float32, {3}, {NAN, 1, 5});
  LocalArray other = array(DType::float32, {3}, {0, NAN, 3});
  expect_values(ok(binary(BinaryOp::max, with_nan, other)), {NAN, NAN, 5});
  expect_values(ok(binary(BinaryOp::min, with_nan, other)), {NAN, NAN, 3});
}

TEST(Kernels, BroadcastingFollowsNumpy) {
  LocalArray matrix = array(DType::float32, {2, 3}, {0, 1, 2, 3, 4, 5});
  LocalArray row = array(DType::float32, {3}, {10, 20, 30});
  expect_values(ok(binary(BinaryOp::add, matrix, row)), {10, 21, 32, 13, 24, 35});
  LocalArray column = array(DType::float32, {2, 1}, {100, 200});
  LocalArray across = array(DType::float32, {1, 3}, {1, 2, 3});
  LocalArray outer = ok(binary(BinaryOp::mul, column, across));
  EXPECT_EQ(outer.shape, (Shape{2, 3}));
  expect_values(outer, {100, 200, 300, 200, 400, 600});
  LocalArray scalar = array(DType::float32, {}, {2});
  expect_values(ok(binary(BinaryOp::sub, scalar, matrix)), {2, 1, 0, -1, -2, -3});
  LocalArray stack = array(DType::int32, {2, 1, 2}, {1, 2, 3, 4});
  LocalArray rows = array(DType::int32, {3, 1}, {10, 20, 30});
  LocalArray sum = ok(binary(BinaryOp::add, stack, rows));
  EXPECT_EQ(sum.shape, (Shape{2, 3, 2}));
  expect_values(sum, {11, 12, 21, 22, 31, 32, 13, 14, 23, 24, 33, 34});
  EXPECT_FALSE(binary(BinaryOp::add, matrix, array(DType::float32, {2}, {1, 2})).ok());
  EXPECT_FALSE(binary(BinaryOp::add, matrix, array(DType::int32, {3}, {1, 2, 3})).ok());
}

TEST(Kernels, ComparisonsAndLogicGiveBool) {
  LocalArray x = array(DType::float32, {4}, {1, 2, NAN, 4});
  LocalArray y = array(DType::float32, {4}, {1, 3, NAN, 0});
  LocalArray equal = ok(binary(BinaryOp::eq, x, y));
  EXPECT_EQ(equal.dtype(), DType::bool_);
  expect_values(equal, {1, 0, 0, 0});
  expect_values(ok(binary(BinaryOp::ne, x, y)), {0, 1, 1, 1});
  expect_values(ok(binary(BinaryOp::lt, x, y)), {0, 1, 0, 0});
  expect_values(ok(binary(BinaryOp::ge, x, y)), {1, 0, 0, 1});
  LocalArray p = array(DType::bool_, {4}, {1, 1, 0, 0});
  LocalArray q = array(DType::bool_, {4}, {1, 0, 1, 0});
  expect_values(ok(binary(BinaryOp::logical_and, p, q)), {1, 0, 0, 0});
  expect_values(ok(binary(BinaryOp::logical_or, p, q)), {1, 1, 1, 0});
  expect_values(ok(binary(BinaryOp::add, p, q)), {1, 1, 1, 0});
  EXPECT_FALSE(binary(BinaryOp::sub, p, q).ok());
}

TEST(Kernels, BitwiseOperationsOnIntegersAndBool) {
  LocalArray a = array(DType::int32, {4}, {12, -1, 0, 5}), b = array(DType::int32, {4}, {10, 7, 3, 5});
  expect_values(ok(binary(BinaryOp::bitwise_and, a, b)), {8, 7, 0, 5});
  expect_values(ok(binary(BinaryOp::bitwise_or, a, b)), {14, -1, 3, 5});
  expect_values(ok(binary(BinaryOp::bitwise_xor, a, b)), {6, -8, 3, 0});
  expect_values(ok(unary(UnaryOp::bitwise_not, a)), {-13, 0, -1, -6});
  expect_values(ok(unary(UnaryOp::bitwise_not, array(DType::uint32, {2}, {0, 5}))), {uint32_max, uint32_max - 5});
  LocalArray p = array(DType::bool_, {4}, {1, 1, 0, 0}), q = array(DType::bool_, {4}, {1, 0, 1, 0});
  LocalArray both = ok(binary(BinaryOp::bitwise_and, p, q));
  EXPECT_EQ(both.dtype(), DType::bool_);
  expect_values(both, {1, 0, 0, 0});
  expect_values(ok(binary(BinaryOp::bitwise_or, p, q)), {1, 1, 1, 0});
  expect_values(ok(binary(BinaryOp::bitwise_xor, p, q)), {0, 1, 1, 0});
  expect_values(ok(unary(UnaryOp::bitwise_not, p)), {0, 0, 1, 1});  // logical not, not ~1
  LocalArray f = array(DType::float32, {2}, {1, 2});
  EXPECT_FALSE(binary(BinaryOp::bitwise_and, f, f).ok());
  EXPECT_FALSE(unary(UnaryOp::bitwise_not, f).ok());
}

TEST(Kernels, SelectPicksPerElementOrByScalar) {
  LocalArray yes = array(DType::bfloat16, {3}, {1, 2, 3});
  LocalArray no = array(DType::bfloat16, {3}, {-1, -2, -3});
  expect_values(ok(select(array(DType::bool_, {3}, {1, 0, 1}), yes, no)), {1, -2, 3});
  expect_values(ok(select(array(DType::bool_, {}, {0}), yes, no)), {-1, -2, -3});
  EXPECT_FALSE(select(array(DType::int32, {3}, {1, 0, 1}), yes, no).ok());
}

TEST(Kernels, ConvertTruncatesSaturatesAndWraps) {
  LocalArray x = array(DType::float32, {6}, {1.9, -1.9, NAN, 3e9, -3e9, INFINITY});
  expect_values(ok(convert(x, DType::int32)), {1, -1, 0, int32_max, int32_min, int32_max});
  expect_values(ok(convert(x, DType::uint32)), {1, 0, 0, 3e9, 0, uint32_max});
  expect_values(ok(convert(x, DType::int8)), {1, -1, 0, 127, -128, 127});
  expect_values(ok(convert(x, DType::bool_)), {1, 1, 1, 1, 1, 1});
  expect_values(ok(convert(array(DType::int32, {3}, {300, -129, 5}), DType::int8)), {44, 127, 5});
  expect_values(ok(convert(array(DType::int32, {1}, {-1}), DType::uint32)), {uint32_max});
  expect_values(ok(convert(array(DType::float32, {2}, {1.00390625, 1.01171875}), DType::bfloat16)), {1, 1.015625});
  expect_values(ok(convert(array(DType::bool_, {2}, {1, 0}), DType::float32)), {1, 0});
  expect_values(ok(convert(array(DType::bfloat16, {1}, {0.1}), DType::float32)), {0.10009765625});
}

TEST(Kernels, ReductionsOverAxes) {
  LocalArray x = array(DType::float32, {2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<int> rows = {0};
  std::vector<int> columns = {1};
  std::vector<int> both = {1, 0};
  expect_values(ok(reduce(ReduceOp::sum, x, rows)), {5, 7, 9});
  expect_values(ok(reduce(ReduceOp::sum, x, columns)), {6, 15});
  LocalArray total = ok(reduce(ReduceOp::sum, x, both));
  EXPECT_TRUE(total.shape.empty());
  expect_values(total, {21});
  expect_values(ok(reduce(ReduceOp::prod, x, columns)), {6, 120});
  expect_values(ok(reduce(ReduceOp::max, x, rows)), {4, 5, 6});
  expect_values(ok(reduce(ReduceOp::min, x, columns)), {1, 4});

  LocalArray three = array(DType::int32, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  std::vector<int> outer_axes = {0, 2};
  expect_values(ok(reduce(ReduceOp::sum, three, outer_axes)), {14, 22});
  std::vector<int> none;
  expect_values(ok(reduce(ReduceOp::sum, three, none)), {1, 2, 3, 4, 5, 6, 7, 8});
  std::vector<int> only = {0};
  expect_values(ok(reduce(ReduceOp::sum, array(DType::int32, {2}, {int32_max, 1}), only)), {int32_min});

  // 300 ones: accumulating in bf16 would stall at 256 (its spacing there is 2).
  std::vector<double> ones(300, 1.0);
  expect_values(ok(reduce(ReduceOp::sum, array(DType::bfloat16, {300}, ones), only)), {300});

  LocalArray ties = array(DType::float32, {2, 4}, {3, 7, 7, 1, 2, NAN, 9, NAN});
  LocalArray argmax = ok(reduce(ReduceOp::argmax, ties, columns));
  EXPECT_EQ(argmax.dtype(), DType::int32);
  expect_values(argmax, {1, 1});
  expect_values(ok(reduce(ReduceOp::argmin, ties, columns)), {3, 1});
  expect_values(ok(reduce(ReduceOp::argmax, ties, rows)), {0, 1, 1, 1});
  expect_values(ok(reduce(ReduceOp::max, array(DType::bool_, {2, 2}, {0, 1, 0, 0}), columns)), {1, 0});
  EXPECT_FALSE(reduce(ReduceOp::argmax, ties, both).ok());
  EXPECT_FALSE(reduce(ReduceOp::sum, array(DType::bool_, {2}, {1, 1}), only).ok());
  std::vector<int> bad = {2};
  EXPECT_FALSE(reduce(ReduceOp::sum, x, bad).ok());
}

TEST(Kernels, DotGeneralMatmulBatchAndContractingAxes) {
  std::vector<double> b_values;
  for (int i = 0; i < 6; ++i) b_values.push_back(static_cast<float>(i) / 7.0f);
  LocalArray b = array(DType::float32, {2, 3}, b_values);
  LocalArray c = array(DType::float32, {3, 4}, {-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6});
  LocalArray product = ok(dot_general(b, c, {{}, {}, {1}, {0}}));
  EXPECT_EQ(product.shape, (Shape{2, 4}));
  std::vector<double> expected = {0.7142857313156128, 1.1428571939468384, 1.571428656578064, 2.0,
                                  -0.5714284181594849, 1.1428571939468384, 2.857142925262451, 4.5714287757873535};
  std::vector<double> got = values_of(product);
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-6);

  std::vector<double> iota12;
  for (int i = 0; i < 12; ++i) iota12.push_back(i);
  LocalArray lhs = array(DType::float32, {2, 2, 3}, iota12);
  LocalArray rhs = array(DType::float32, {2, 3, 2}, iota12);
  LocalArray batched = ok(dot_general(lhs, rhs, {{0}, {0}, {2}, {1}}));
  EXPECT_EQ(batched.shape, (Shape{2, 2, 2}));
  expect_values(batched, {10, 13, 28, 40, 172, 193, 244, 274});

  // lhs (3,2) contracted on axis 0 with rhs (4,3) on axis 1: result (2,4).
  LocalArray transposed = ok(dot_general(array(DType::float32, {3, 2}, {0, 1, 2, 3, 4, 5}),
                                         array(DType::float32, {4, 3}, iota12), {{}, {}, {0}, {1}}));
  EXPECT_EQ(transposed.shape, (Shape{2, 4}));
  expect_values(transposed, {10, 28, 46, 64, 13, 40, 67, 94});

  LocalArray bf16 = ok(dot_general(array(DType::bfloat16, {1, 3}, {1, 1, 1}),
                                   array(DType::bfloat16, {3, 1}, {256, 1, 1}), {{}, {}, {1}, {0}}));
  expect_values(bf16, {258});  // f32 accumulation, one rounding

  LocalArray wrapped = ok(dot_general(array(DType::int8, {1, 2}, {100, 100}), array(DType::int8, {2, 1}, {2, 1}),
                                      {{}, {}, {1}, {0}}));
  expect_values(wrapped, {44});  // 300 wraps to 44 in int8
  LocalArray logical = ok(dot_general(array(DType::bool_, {2, 2}, {1, 0, 0, 0}), array(DType::bool_, {2, 2}, {0, 1, 1, 1}),
                                      {{}, {}, {1}, {0}}));
  expect_values(logical, {0, 1, 0, 0});
  EXPECT_FALSE(dot_general(b, b, {{}, {}, {1}, {0}}).ok());
}

// Every shard's product, placed in the whole, is bit-identical to the whole
// product: shard extents that are not multiples of the tile, a shard inside
// one tile, the lhs stored transposed. Pseudo-random values make the
// summation order show in the last bits.
TEST(Kernels, DotGeneralShardsEqualTheWholeProductBitForBit) {
  const std::int64_t rows = 2 * dot_tile_extent + 60, depth = 300, columns = dot_tile_extent + 36;
  auto pseudo_random = [](std::int64_t count, std::uint32_t seed) {
    std::vector<double> values;
    for (std::int64_t i = 0; i < count; ++i) {
      seed = seed * 1664525u + 1013904223u;
      values.push_back(static_cast<float>(static_cast<double>(seed >> 8) / (1 << 24) - 0.5));
    }
    return values;
  };
  std::vector<double> a_values = pseudo_random(rows * depth, 1), b_values = pseudo_random(depth * columns, 2);
  LocalArray a = array(DType::float32, {rows, depth}, a_values);
  LocalArray b = array(DType::float32, {depth, columns}, b_values);
  std::vector<double> whole = values_of(ok(dot_general(a, b, {{}, {}, {1}, {0}})));
  std::vector<double> a_transposed_values;
  for (std::int64_t p = 0; p < depth; ++p)
    for (std::int64_t i = 0; i < rows; ++i) a_transposed_values.push_back(a_values[i * depth + p]);
  LocalArray a_transposed = array(DType::float32, {depth, rows}, a_transposed_values);
  std::vector<double> whole_from_transposed = values_of(ok(dot_general(a_transposed, b, {{}, {}, {0}, {0}})));
  // Rows split in 3 (190 each), columns in 2 (146 each).
  for (std::int64_t row_block = 0; row_block < 3; ++row_block) {
    for (std::int64_t column_block = 0; column_block < 2; ++column_block) {
      std::int64_t shard_rows = rows / 3, shard_columns = columns / 2;
      std::int64_t row0 = row_block * shard_rows, column0 = column_block * shard_columns;
      std::vector<double> a_shard(a_values.begin() + row0 * depth, a_values.begin() + (row0 + shard_rows) * depth);
      std::vector<double> b_shard, a_shard_transposed;
      for (std::int64_t p = 0; p < depth; ++p)
        for (std::int64_t j = 0; j < shard_columns; ++j) b_shard.push_back(b_values[p * columns + column0 + j]);
      for (std::int64_t p = 0; p < depth; ++p)
        for (std::int64_t i = 0; i < shard_rows; ++i) a_shard_transposed.push_back(a_shard[i * depth + p]);
      DotPlacement placement{row0, rows, column0, columns};
      LocalArray lhs = array(DType::float32, {shard_rows, depth}, a_shard);
      LocalArray lhs_transposed = array(DType::float32, {depth, shard_rows}, a_shard_transposed);
      LocalArray rhs = array(DType::float32, {depth, shard_columns}, b_shard);
      std::vector<double> product = values_of(ok(dot_general(lhs, rhs, {{}, {}, {1}, {0}, placement})));
      std::vector<double> from_transposed = values_of(ok(dot_general(lhs_transposed, rhs, {{}, {}, {0}, {0}, placement})));
      std::int64_t mismatched = 0, mismatched_transposed = 0;
      for (std::int64_t i = 0; i < shard_rows; ++i) {
        for (std::int64_t j = 0; j < shard_columns; ++j) {
          auto local = static_cast<std::size_t>(i * shard_columns + j);
          auto global = static_cast<std::size_t>((row0 + i) * columns + column0 + j);
          mismatched += product[local] != whole[global];
          mismatched_transposed += from_transposed[local] != whole_from_transposed[global];
        }
      }
      EXPECT_EQ(mismatched, 0) << "shard " << row_block << "," << column_block;
      EXPECT_EQ(mismatched_transposed, 0) << "shard " << row_block << "," << column_block;
    }
  }
  // A shard that does not fit in its placement is an error, not a wild write.
  EXPECT_FALSE(dot_general(a, b, {{}, {}, {1}, {0}, DotPlacement{1, rows, 0, columns}}).ok());
}

TEST(Kernels, RevReversesTheNamedAxes) {
  LocalArray x = array(DType::int32, {2, 3}, {0, 1, 2, 3, 4, 5});
  std::vector<int> columns = {1}, both = {0, 1}, twice = {1, 1}, out_of_range = {2};
  expect_values(ok(rev(x, columns)), {2, 1, 0, 5, 4, 3});
  expect_values(ok(rev(x, both)), {5, 4, 3, 2, 1, 0});
  expect_values(ok(rev(array(DType::bfloat16, {3}, {1, 2, 3}), std::vector<int>{0})), {3, 2, 1});
  EXPECT_FALSE(rev(x, twice).ok());
  EXPECT_FALSE(rev(x, out_of_range).ok());
}

TEST(Kernels, TransposeBroadcastReshape) {
  std::vector<double> iota24;
  for (int i = 0; i < 24; ++i) iota24.push_back(i);
  LocalArray x = array(DType::float32, {2, 3, 4}, iota24);
  std::vector<int> permutation = {2, 0, 1};
  LocalArray transposed = ok(transpose(x, permutation));
  EXPECT_EQ(transposed.shape, (Shape{4, 2, 3}));
  expect_values(transposed, {0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
  std::vector<int> twice = {0, 0, 1};
  EXPECT_FALSE(transpose(x, twice).ok());

  std::vector<int> to_rows = {1};
  LocalArray broadcast = ok(broadcast_in_dim(array(DType::int8, {3}, {1, 2, 3}), {2, 3}, to_rows));
  expect_values(broadcast, {1, 2, 3, 1, 2, 3});
  std::vector<int> keep = {0, 1};
  expect_values(ok(broadcast_in_dim(array(DType::int32, {2, 1}, {5, 6}), {2, 3}, keep)), {5, 5, 5, 6, 6, 6});
  EXPECT_FALSE(broadcast_in_dim(array(DType::int32, {2}, {5, 6}), {3}, std::vector<int>{0}).ok());

  LocalArray reshaped = ok(reshape(x, {6, 4}));
  EXPECT_EQ(reshaped.buffer, x.buffer);  // metadata only
  EXPECT_FALSE(reshape(x, {5, 5}).ok());
}

TEST(Kernels, SlicesAndUpdates) {
  std::vector<double> iota20;
  for (int i = 0; i < 20; ++i) iota20.push_back(i);
  LocalArray x = array(DType::bfloat16, {4, 5}, iota20);
  std::vector<std::int64_t> start = {1, 0};
  std::vector<std::int64_t> limit = {4, 5};
  std::vector<std::int64_t> strides = {2, 2};
  LocalArray sliced = ok(slice(x, start, limit, strides));
  EXPECT_EQ(sliced.shape, (Shape{2, 3}));
  expect_values(sliced, {5, 7, 9, 15, 17, 19});
  std::vector<std::int64_t> too_far = {5, 5};
  EXPECT_FALSE(slice(x, start, too_far).ok());

  std::vector<std::int64_t> dynamic_start = {3, -2};  // clamped to (2, 0)
  std::vector<std::int64_t> sizes = {2, 2};
  expect_values(ok(dynamic_slice(x, dynamic_start, sizes)), {10, 11, 15, 16});

  LocalArray update = array(DType::bfloat16, {2, 2}, {-1, -2, -3, -4});
  std::vector<std::int64_t> update_start = {0, 4};  // clamped to (0, 3)
  LocalArray updated = ok(dynamic_update_slice(x, update, update_start));
  expect_values(updated, {0, 1, 2, -1, -2, 5, 6, 7, -3, -4, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19});
  EXPECT_EQ(values_of(x)[3], 3);  // the operand is unchanged
}

// A sharded array's distinct blocks put together: rows of at least eight
// elements copied whole, shorter ones an element at a time, any block order.
TEST(Kernels, AssemblePutsEachBlockAtItsOrigin) {
  std::vector<double> first(20), second(20);
  for (int i = 0; i < 20; ++i) first[static_cast<std::size_t>(i)] = i, second[static_cast<std::size_t>(i)] = 100 + i;
  std::vector<LocalArray> rows = {array(DType::float32, {2, 10}, second), array(DType::float32, {2, 10}, first)};
  std::vector<std::vector<std::int64_t>> row_origins = {{2, 0}, {0, 0}};
  LocalArray tall = ok(assemble(rows, row_origins, {4, 10}));
  EXPECT_EQ(tall.shape, (Shape{4, 10}));
  std::vector<double> expected = first;
  expected.insert(expected.end(), second.begin(), second.end());
  expect_values(tall, expected);

  std::vector<LocalArray> quarters = {array(DType::int32, {1, 2}, {1, 2}), array(DType::int32, {1, 2}, {3, 4}),
                                      array(DType::int32, {1, 2}, {5, 6}), array(DType::int32, {1, 2}, {7, 8})};
  std::vector<std::vector<std::int64_t>> quarter_origins = {{0, 0}, {0, 2}, {1, 0}, {1, 2}};
  expect_values(ok(assemble(quarters, quarter_origins, {2, 4})), {1, 2, 3, 4, 5, 6, 7, 8});

  std::vector<std::vector<std::int64_t>> outside = {{0, 0}, {0, 3}, {1, 0}, {1, 2}};
  EXPECT_FALSE(assemble(quarters, outside, {2, 4}).ok());
  EXPECT_FALSE(assemble(quarters, std::span(quarter_origins).first(3), {2, 4}).ok());
}

TEST(Kernels, ConcatenateIotaPad) {
  std::vector<LocalArray> parts = {array(DType::int32, {2, 1}, {1, 2}), array(DType::int32, {2, 2}, {3, 4, 5, 6})};
  LocalArray joined = ok(concatenate(parts, 1));
  EXPECT_EQ(joined.shape, (Shape{2, 3}));
  expect_values(joined, {1, 3, 4, 2, 5, 6});
  EXPECT_FALSE(concatenate(parts, 0).ok());

  std::shared_ptr<MemoryLedger> ledger = test_ledger();
  expect_values(ok(iota(ledger, DType::float32, {2, 3}, 1)), {0, 1, 2, 0, 1, 2});
  expect_values(ok(iota(ledger, DType::int8, {2, 3}, 0)), {0, 0, 0, 1, 1, 1});

  LocalArray x = array(DType::int32, {2, 3}, {1, 2, 3, 4, 5, 6});
  LocalArray minus_one = array(DType::int32, {}, {-1});
  std::vector<PadConfig> edges = {{1, 0, 0}, {0, 2, 0}};
  LocalArray padded = ok(pad(x, minus_one, edges));
  EXPECT_EQ(padded.shape, (Shape{3, 5}));
  expect_values(padded, {-1, -1, -1, -1, -1, 1, 2, 3, -1, -1, 4, 5, 6, -1, -1});
  // Interior padding, and a negative low edge that crops the first element.
  std::vector<PadConfig> interior = {{0, 0, 0}, {-1, 0, 1}};
  LocalArray spread = ok(pad(x, minus_one, interior));
  EXPECT_EQ(spread.shape, (Shape{2, 4}));
  expect_values(spread, {-1, 2, -1, 3, -1, 5, -1, 6});
}

// LAPACK's LU solve per batch matrix: a pivoting case, a singular matrix
// (NaN), bfloat16 solved in float32; mismatched shapes refused.
TEST(Kernels, SolveBatches) {
  LocalArray a = array(DType::float32, {3, 2, 2}, {2, 1, 1, 3, 0, 1, 1, 0, 1, 2, 2, 4});
  LocalArray b = array(DType::float32, {3, 2, 1}, {3, 5, 2, 7, 1, 1});
  std::vector<double> got = values_of(ok(solve(a, b)));
  ASSERT_EQ(got.size(), 6u);
  EXPECT_NEAR(got[0], 0.8, 1e-6);
  EXPECT_NEAR(got[1], 1.4, 1e-6);
  EXPECT_EQ(got[2], 7.0);
  EXPECT_EQ(got[3], 2.0);
  EXPECT_TRUE(std::isnan(got[4]) && std::isnan(got[5]));
  LocalArray half_a = array(DType::bfloat16, {2, 2}, {0, 2, 4, 0});
  LocalArray half_b = array(DType::bfloat16, {2, 2}, {2, 4, 8, 16});
  expect_values(ok(solve(half_a, half_b)), {2, 4, 1, 2});
  EXPECT_FALSE(solve(a, array(DType::float32, {3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9})).ok());
}

// LAPACK's Cholesky factor per batch matrix, read from the lower triangle
// (the upper one ignored), zeros above the diagonal; not positive
// definite gives NaN.
TEST(Kernels, CholeskyBatches) {
  LocalArray a = array(DType::float32, {2, 2, 2}, {4, 99, 2, 10, 1, 2, 2, 1});
  std::vector<double> got = values_of(ok(cholesky(a)));
  ASSERT_EQ(got.size(), 8u);
  EXPECT_EQ(got[0], 2.0);
  EXPECT_EQ(got[1], 0.0);
  EXPECT_EQ(got[2], 1.0);
  EXPECT_EQ(got[3], 3.0);
  for (std::size_t i = 4; i < 8; ++i) EXPECT_TRUE(std::isnan(got[i])) << i;
  EXPECT_FALSE(cholesky(array(DType::float32, {2, 3}, {1, 2, 3, 4, 5, 6})).ok());
}

// The determinant's sign and log magnitude from LAPACK's LU: a row swap
// flips the sign, a singular matrix gives sign 0 and log -inf.
TEST(Kernels, SlogdetBatches) {
  LocalArray a = array(DType::float32, {3, 2, 2}, {2, 0, 0, 4, 0, 2, 3, 1, 1, 2, 2, 4});
  expect_values(ok(slogdet(a, 0)), {1, -1, 0});
  std::vector<double> logs = values_of(ok(slogdet(a, 1)));
  ASSERT_EQ(logs.size(), 3u);
  EXPECT_NEAR(logs[0], std::log(8.0), 1e-6);
  EXPECT_NEAR(logs[1], std::log(6.0), 1e-6);
  EXPECT_EQ(logs[2], -INFINITY);
}

// The values to within float32 rounding of LAPACK's arithmetic.
void expect_near(const LocalArray& result, const std::vector<double>& expected) {
  std::vector<double> got = values_of(result);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-5) << "element " << i;
}

// Q R reconstructs A with orthonormal Q and upper-triangular R (LAPACK's
// signs here); complete mode adds Q's last column and R's zero row.
TEST(Kernels, QrBatches) {
  LocalArray a = array(DType::float32, {1, 3, 2}, {3, 0, 4, 5, 0, 0});
  expect_near(ok(qr(a, false, 1)), {-5, -4, 0, 3});
  expect_near(ok(qr(a, false, 0)), {-0.6, -0.8, -0.8, 0.6, 0, 0});
  EXPECT_EQ(ok(qr(a, true, 0)).shape, (Shape{1, 3, 3}));
  expect_near(ok(qr(a, true, 1)), {-5, -4, 0, 3, 0, 0});
  // geqrf: R on and above the diagonal, the reflectors' tails below it.
  expect_near(ok(geqrf(a, 0)), {-5, -4, 0.5, 3, 0, 0});
  expect_near(ok(geqrf(a, 1)), {1.6, 0});
}

// Singular values descending; U and Vᴴ of a diagonal matrix are signed
// permutations; without vectors only S.
TEST(Kernels, SvdBatches) {
  LocalArray a = array(DType::float32, {2, 2, 2}, {1, 0, 0, -3, 2, 0, 0, 2});
  expect_near(ok(svd(a, false, false, 1)), {3, 1, 2, 2});
  std::vector<double> u = values_of(ok(svd(a, false, true, 0)));
  ASSERT_EQ(u.size(), 8u);
  EXPECT_NEAR(std::fabs(u[1]), 1.0, 1e-6);  // the first column picks row 1 (-3)
  EXPECT_NEAR(std::fabs(u[2]), 1.0, 1e-6);
  EXPECT_FALSE(svd(a, false, false, 0));
}

// Eigenvalues ascending, from the lower triangle only.
TEST(Kernels, EighBatches) {
  LocalArray a = array(DType::float32, {1, 2, 2}, {2, 100, 1, 2});
  expect_near(ok(eigh(a, true, 1)), {1, 3});
  expect_near(ok(eigh(a, false, 1)), {-98, 102});
  std::vector<double> v = values_of(ok(eigh(a, true, 0)));
  EXPECT_NEAR(std::fabs(v[0]), std::sqrt(0.5), 1e-6);
}

TEST(Kernels, ConvolutionWithPaddingStridesDilationsAndGroups) {
  // x = 0..8 as 1x1x3x3, kernel [[1, 2], [3, 4]].
  LocalArray x = array(DType::float32, {1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  LocalArray k = array(DType::float32, {1, 1, 2, 2}, {1, 2, 3, 4});
  ConvDimensions valid{{{0, 1, 2, 3}, {0, 1, 2, 3}, {0, 1, 2, 3}}, {{1, 1}, {{0, 0}, {0, 0}}, {1, 1}, {1, 1}}};
  expect_values(ok(conv_general_dilated(x, k, valid)), {27, 37, 57, 67});
  ConvDimensions strided = valid;
  strided.window = {{2, 2}, {{1, 0}, {1, 0}}, {1, 1}, {1, 1}};  // padded 4x4, windows at 0 and 2
  expect_values(ok(conv_general_dilated(x, k, strided)), {0, 11, 30, 67});
  ConvDimensions dilated = valid;
  dilated.window.rhs_dilation = {2, 2};  // one 3x3 window: corners 0, 2, 6, 8
  expect_values(ok(conv_general_dilated(x, k, dilated)), {0 * 1 + 2 * 2 + 6 * 3 + 8 * 4});
  // Two feature groups: each output feature sees its own input feature.
  LocalArray two = array(DType::int32, {1, 2, 1, 2}, {1, 2, 10, 20});
  LocalArray taps = array(DType::int32, {2, 1, 1, 2}, {1, 1, 1, -1});
  ConvDimensions grouped{{{0, 1, 2, 3}, {0, 1, 2, 3}, {0, 1, 2, 3}}, {{1, 1}, {{0, 0}, {0, 0}}, {1, 1}, {1, 1}, 2, 1},
                         DType::int32};
  expect_values(ok(conv_general_dilated(two, taps, grouped)), {3, -10});
  // Two batch groups: output feature g sums image g.
  LocalArray images = array(DType::float32, {2, 1, 1, 1}, {2, 5});
  LocalArray scale = array(DType::float32, {2, 1, 1, 1}, {10, 100});
  ConvDimensions batch_grouped{{{0, 1, 2, 3}, {0, 1, 2, 3}, {0, 1, 2, 3}}, {{1, 1}, {{0, 0}, {0, 0}}, {1, 1}, {1, 1}, 1, 2}};
  expect_values(ok(conv_general_dilated(images, scale, batch_grouped)), {20, 500});
  // bf16 operands, f32 result.
  ConvDimensions wide = valid;
  wide.result_dtype = DType::float32;
  LocalArray xb = array(DType::bfloat16, {1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  LocalArray kb = array(DType::bfloat16, {1, 1, 2, 2}, {1, 2, 3, 4});
  LocalArray out = ok(conv_general_dilated(xb, kb, wide));
  EXPECT_EQ(out.dtype(), DType::float32);
  expect_values(out, {27, 37, 57, 67});
  EXPECT_FALSE(conv_general_dilated(x, xb, valid).ok());
}

TEST(Kernels, WindowedReductionsAndTheirScatter) {
  LocalArray x = array(DType::float32, {5}, {1, 5, 2, 4, 3});
  typecheck::ConvWindow pairs{{2}, {{0, 0}}, {1}, {1}};
  std::vector<std::int64_t> two{2};
  expect_values(ok(reduce_window(x, WindowReduction::sum, two, pairs)), {6, 6});  // stride 2: [1, 5] [2, 4]
  expect_values(ok(reduce_window(x, WindowReduction::max, two, pairs)), {5, 4});
  typecheck::ConvWindow padded{{2}, {{1, 1}}, {1}, {1}};  // windows [pad,1] [5,2] [4,3]
  expect_values(ok(reduce_window(x, WindowReduction::min, two, padded)), {1, 2, 3});
  typecheck::ConvWindow based{{1}, {{0, 0}}, {2}, {1}};  // 1 _ 5 _ 2 _ 4 _ 3: sums of neighbours
  expect_values(ok(reduce_window(x, WindowReduction::sum, two, based)), {1, 5, 5, 2, 2, 4, 4, 3});
  LocalArray ints = array(DType::int32, {3}, {-4, -9, -1});
  std::vector<std::int64_t> one{1};
  typecheck::ConvWindow grown{{1}, {{1, 0}}, {1}, {1}};
  expect_values(ok(reduce_window(ints, WindowReduction::max, one, grown)), {int32_min, -4, -9, -1});
  // Each window's source goes to its max (min): 5 and 4 (1 and 2).
  LocalArray source = array(DType::float32, {2}, {1, 10});
  expect_values(ok(select_and_scatter_add(source, x, WindowReduction::max, two, pairs)), {0, 1, 0, 10, 0});
  expect_values(ok(select_and_scatter_add(source, x, WindowReduction::min, two, pairs)), {1, 0, 10, 0, 0});
  typecheck::ConvWindow overlapping{{1}, {{0, 0}}, {1}, {1}};  // windows [1,5] [5,2] [2,4] [4,3]
  LocalArray four = array(DType::float32, {4}, {1, 10, 100, 1000});
  expect_values(ok(select_and_scatter_add(four, x, WindowReduction::max, two, overlapping)), {0, 11, 0, 1100, 0});
  // The transpose: each window's tangent at its max (min).
  LocalArray tangents = array(DType::float32, {5}, {1, 2, 3, 4, 5});
  expect_values(ok(select_and_gather_add(tangents, x, WindowReduction::max, two, pairs)), {2, 4});
  expect_values(ok(select_and_gather_add(tangents, x, WindowReduction::min, two, overlapping)), {1, 3, 3, 5});
}

}  // namespace
}  // namespace devices
