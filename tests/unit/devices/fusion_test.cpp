// The fused loop (devices/kernels/fusion.hpp) against the same chain run one
// kernel at a time: equal bit for bit, for every operation it fuses, in
// float32, bfloat16 and float16, with inputs of the result's shape,
// scalars, and broadcasts along leading, trailing and middle axes, on sizes
// that end inside a block.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "devices/kernels.hpp"
#include "devices/kernels/fusion.hpp"
#include "devices/memory.hpp"
#include "tests/unit/devices/random_arrays.hpp"

namespace devices {
namespace {

using typecheck::DType;

using testing::ledger;
using testing::ok;
using testing::random_f32;

constexpr DType float_dtypes[] = {DType::float32, DType::bfloat16, DType::float16};

// Random values in [low, high) of `dtype`.
LocalArray random_of(DType dtype, Shape shape, unsigned seed, float low = -3.0f, float high = 3.0f) {
  LocalArray values = random_f32(std::move(shape), seed, low, high);
  return dtype == DType::float32 ? values : ok(convert(values, dtype));
}

// The loop's chain run one kernel at a time, each on whole arrays.
LocalArray unfused(const FusedLoop& loop, const std::vector<LocalArray>& inputs) {
  std::vector<LocalArray> values = inputs;
  for (const FusedOperation& op : loop.operations) {
    const LocalArray& lhs = values[static_cast<std::size_t>(op.lhs)];
    if (!op.binary) {
      values.push_back(ok(unary(op.unary_op, lhs)));
      continue;
    }
    LocalArray rhs;
    if (op.rhs >= 0) {
      rhs = values[static_cast<std::size_t>(op.rhs)];
    } else {
      rhs = ok(make_local_array(ledger(), DType::float32, {}));
      rhs.buffer->elements<DType::float32>()[0] = op.constant;
      rhs = ok(convert(rhs, loop.dtype));
    }
    // The unfused kernel broadcasts trailing-aligned operands of equal rank.
    auto ranked = [&](LocalArray a, std::size_t rank) {
      if (a.shape.size() == rank) return a;
      Shape shape(rank - a.shape.size(), 1);
      shape.insert(shape.end(), a.shape.begin(), a.shape.end());
      return ok(reshape(a, shape));
    };
    std::size_t rank = std::max(lhs.shape.size(), rhs.shape.size());
    values.push_back(ok(binary(op.binary_op, ranked(lhs, rank), ranked(rhs, rank))));
  }
  return values.back();
}

void expect_same_bits(const LocalArray& fused, const LocalArray& reference) {
  ASSERT_EQ(fused.shape, reference.shape);
  ASSERT_EQ(fused.dtype(), reference.dtype());
  auto a = fused.buffer->bytes();
  auto b = reference.buffer->bytes();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << "byte " << i;
}

FusedOperation unary_op(UnaryOp op, int lhs) { return {false, op, BinaryOp::add, lhs, -1, 0}; }
FusedOperation binary_op(BinaryOp op, int lhs, int rhs) { return {true, UnaryOp::neg, op, lhs, rhs, 0}; }

TEST(FusedLoop, EveryUnaryOperationEqualsItsKernel) {
  for (DType dtype : float_dtypes) {
    LocalArray x = random_of(dtype, {37, 61}, 1, 0.05f, 0.95f);  // inside every op's domain (erf_inv, log, sqrt)
    for (int k = 0; k <= static_cast<int>(UnaryOp::round); ++k) {
      auto op = static_cast<UnaryOp>(k);
      if (!fusible(op)) continue;
      // Two in a row: the second reads the first's block.
      FusedLoop loop{dtype, 1, {unary_op(op, 0), binary_op(BinaryOp::mul, 1, 0)}};
      SCOPED_TRACE(::testing::Message() << typecheck::long_name(dtype) << " op " << k);
      expect_same_bits(ok(run_fused(loop, std::vector<LocalArray>{x})), unfused(loop, {x}));
    }
  }
}

TEST(FusedLoop, EveryBinaryOperationEqualsItsKernel) {
  for (DType dtype : float_dtypes) {
    LocalArray x = random_of(dtype, {3, 1500}, 2), y = random_of(dtype, {3, 1500}, 3, 0.5f, 2.0f);
    for (int k = 0; k <= static_cast<int>(BinaryOp::logical_or); ++k) {
      auto op = static_cast<BinaryOp>(k);
      if (!fusible(op)) continue;
      FusedLoop loop{dtype, 2, {binary_op(op, 0, 1), binary_op(BinaryOp::add, 2, 1)}};
      SCOPED_TRACE(::testing::Message() << typecheck::long_name(dtype) << " op " << k);
      expect_same_bits(ok(run_fused(loop, std::vector<LocalArray>{x, y})), unfused(loop, {x, y}));
    }
  }
}

TEST(FusedLoop, BroadcastInputs) {
  // exp(x - rowmax) * scale + column, over a result that ends inside a block.
  for (DType dtype : float_dtypes) {
    LocalArray x = random_of(dtype, {5, 7, 301}, 4), rows = random_of(dtype, {5, 7, 1}, 5),
               columns = random_of(dtype, {301}, 6), middle = random_of(dtype, {5, 1, 301}, 7),
               scale = random_of(dtype, {}, 8);
    FusedLoop loop{dtype, 5, {binary_op(BinaryOp::sub, 0, 1), unary_op(UnaryOp::exp, 5), binary_op(BinaryOp::mul, 6, 4),
                              binary_op(BinaryOp::add, 7, 2), binary_op(BinaryOp::max, 8, 3)}};
    std::vector<LocalArray> inputs{x, rows, columns, middle, scale};
    SCOPED_TRACE(typecheck::long_name(dtype));
    expect_same_bits(ok(run_fused(loop, inputs)), unfused(loop, inputs));
  }
}

TEST(FusedLoop, TheResultShapeComesFromBroadcastInputsAlone) {
  for (DType dtype : float_dtypes) {
    LocalArray column = random_of(dtype, {9, 1}, 9), row = random_of(dtype, {1, 2000}, 10);
    FusedLoop loop{dtype, 2, {binary_op(BinaryOp::mul, 0, 1), unary_op(UnaryOp::tanh, 2)}};
    LocalArray fused = ok(run_fused(loop, std::vector<LocalArray>{column, row}));
    EXPECT_EQ(fused.shape, (Shape{9, 2000}));
    expect_same_bits(fused, unfused(loop, {column, row}));
  }
}

TEST(FusedLoop, ConstantExponent) {
  for (DType dtype : float_dtypes) {
    LocalArray x = random_of(dtype, {2049}, 11);
    FusedLoop loop{dtype, 1, {{true, UnaryOp::neg, BinaryOp::pow, 0, -1, 3.0f}, binary_op(BinaryOp::add, 1, 0)}};
    expect_same_bits(ok(run_fused(loop, std::vector<LocalArray>{x})), unfused(loop, {x}));
  }
}

TEST(FusedLoop, EmptyResult) {
  LocalArray x = random_f32({0, 4}, 12);
  FusedLoop loop{DType::float32, 1, {unary_op(UnaryOp::exp, 0), unary_op(UnaryOp::neg, 1)}};
  EXPECT_EQ(ok(run_fused(loop, std::vector<LocalArray>{x})).shape, (Shape{0, 4}));
}

TEST(FusedLoop, OnePlanRunsEveryShardOfItsShapes) {
  // As a jitted program's fusion runs each device's shard: planned once.
  const Shape shape{3, 1, 70};
  FusedLoop loop{DType::float32, 2, {binary_op(BinaryOp::mul, 0, 1), unary_op(UnaryOp::exp, 2)}};
  Expected<FusedPlan> planned = plan_fused(loop, {{shape, std::nullopt}, {Shape{70}, std::nullopt}});
  ASSERT_TRUE(planned.ok());
  const FusedPlan& plan = *planned;
  EXPECT_EQ(plan.shape, shape);
  for (unsigned seed = 20; seed < 24; ++seed) {
    std::vector<LocalArray> inputs{random_f32(shape, seed), random_f32({70}, seed + 10)};
    expect_same_bits(ok(run_fused(plan, inputs)), unfused(loop, inputs));
  }
  // A shard of another shape is not one it was planned for.
  EXPECT_FALSE(run_fused(plan, std::vector<LocalArray>{random_f32({3, 2, 70}, 30), random_f32({70}, 31)}).ok());
  EXPECT_FALSE(plan_fused(loop, {{shape, std::nullopt}}).ok());  // one input short
}

LocalArray sliced(const LocalArray& x, std::vector<std::int64_t> start, std::vector<std::int64_t> limit) {
  return ok(slice(x, start, limit));
}

TEST(FusedLoop, ReadsWindowsOfItsInputs) {
  // RoPE's rotation with the halves of x sliced into the loop, against the
  // slices made first: x[..., :8] * cos - x[..., 8:] * sin.
  for (DType dtype : float_dtypes) {
    LocalArray x = random_of(dtype, {3, 2, 16}, 40), cos = random_of(dtype, {3, 1, 8}, 41),
               sin = random_of(dtype, {3, 1, 8}, 42);
    FusedLoop loop{dtype, 4, {binary_op(BinaryOp::mul, 0, 1), binary_op(BinaryOp::mul, 2, 3),
                              binary_op(BinaryOp::sub, 4, 5)}};
    const Shape half{3, 2, 8};
    Expected<FusedPlan> plan = plan_fused(loop, {{x.shape, FusedInput::Window{half, {0, 0, 0}}},
                                                 {cos.shape, std::nullopt},
                                                 {x.shape, FusedInput::Window{half, {0, 0, 8}}},
                                                 {sin.shape, std::nullopt}});
    ASSERT_TRUE(plan.ok());
    LocalArray first = sliced(x, {0, 0, 0}, {3, 2, 8}), second = sliced(x, {0, 0, 8}, {3, 2, 16});
    SCOPED_TRACE(typecheck::long_name(dtype));
    expect_same_bits(ok(run_fused(*plan, std::vector<LocalArray>{x, cos, x, sin})),
                     unfused(loop, {first, cos, second, sin}));
    // One element of a window, repeated.
    Expected<FusedPlan> corner = plan_fused(FusedLoop{dtype, 2, {binary_op(BinaryOp::add, 0, 1)}},
                                            {{x.shape, FusedInput::Window{{1, 1, 1}, {2, 1, 15}}}, {half, std::nullopt}});
    ASSERT_TRUE(corner.ok());
    LocalArray element = sliced(x, {2, 1, 15}, {3, 2, 16});
    expect_same_bits(ok(run_fused(*corner, std::vector<LocalArray>{x, first})),
                     unfused(corner->loop, {element, first}));
  }
  LocalArray x = random_f32({4, 4}, 43);
  EXPECT_FALSE(plan_fused(FusedLoop{DType::float32, 1, {unary_op(UnaryOp::neg, 0)}},
                          {{x.shape, FusedInput::Window{{2, 2}, {3, 0}}}}).ok());  // past the end
}

TEST(FusedLoop, WritesIntoItsWindowOfAConcatenation) {
  // Two loops, each a part of concatenate([a + b, exp(a)], axis 1), written
  // into one array as the concatenate of the unfused results.
  for (DType dtype : float_dtypes) {
    LocalArray a = random_of(dtype, {5, 3, 4}, 50), b = random_of(dtype, {5, 3, 4}, 51);
    FusedLoop sum{dtype, 2, {binary_op(BinaryOp::add, 0, 1)}}, exponential{dtype, 1, {unary_op(UnaryOp::exp, 0)}};
    const Shape whole_shape{5, 6, 4};
    Expected<FusedPlan> first = plan_fused_into(sum, {{a.shape, std::nullopt}, {b.shape, std::nullopt}}, whole_shape, {0, 0, 0});
    Expected<FusedPlan> second = plan_fused_into(exponential, {{a.shape, std::nullopt}}, whole_shape, {0, 3, 0});
    ASSERT_TRUE(first.ok() && second.ok());
    LocalArray whole = ok(make_local_array(ledger(), dtype, whole_shape));
    ASSERT_TRUE(run_fused_into(*first, std::vector<LocalArray>{a, b}, whole).ok());
    ASSERT_TRUE(run_fused_into(*second, std::vector<LocalArray>{a}, whole).ok());
    SCOPED_TRACE(typecheck::long_name(dtype));
    expect_same_bits(whole, ok(concatenate(std::vector<LocalArray>{unfused(sum, {a, b}), unfused(exponential, {a})}, 1)));
    // Planned for a window: it writes only there.
    EXPECT_FALSE(run_fused(*first, std::vector<LocalArray>{a, b}).ok());
  }
  LocalArray a = random_f32({2, 3}, 52);
  EXPECT_FALSE(plan_fused_into(FusedLoop{DType::float32, 1, {unary_op(UnaryOp::neg, 0)}}, {{a.shape, std::nullopt}},
                               {2, 4}, {0, 2}).ok());  // past the end
}

TEST(FusedLoop, RefusesWhatItCannotRun) {
  Expected<LocalArray> ints = make_local_array(ledger(), DType::int32, {4});
  FusedLoop loop{DType::float32, 1, {unary_op(UnaryOp::neg, 0)}};
  EXPECT_FALSE(run_fused(loop, std::vector<LocalArray>{*ints}).ok());
  FusedLoop half{DType::bfloat16, 1, {unary_op(UnaryOp::neg, 0)}};
  EXPECT_FALSE(run_fused(half, std::vector<LocalArray>{random_f32({4}, 15)}).ok());  // an f32 input
  LocalArray a = random_f32({3, 4}, 13), b = random_f32({5, 4}, 14);
  FusedLoop two{DType::float32, 2, {binary_op(BinaryOp::add, 0, 1)}};
  EXPECT_FALSE(run_fused(two, std::vector<LocalArray>{a, b}).ok());
  EXPECT_FALSE(fusible(UnaryOp::logical_not));
  EXPECT_FALSE(fusible(BinaryOp::lt));
}

}  // namespace
}  // namespace devices
