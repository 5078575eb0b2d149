// Overflow-checked shape arithmetic (issue 17): sizes that do not fit in 64
// bits are errors, never wrapped values, in the helpers and in the rules
// that multiply or add dimensions (tile, pad, concatenate, reshape,
// all_gather, arange).
#include "typecheck/shape_arithmetic.hpp"

#include <cstdint>
#include <limits>

#include "rule_test_support.hpp"
#include "typecheck/collective_rules.hpp"
#include "typecheck/creation_rules.hpp"
#include "typecheck/python_repr.hpp"
#include "typecheck/shape_rules.hpp"
#include "typecheck/structural_rules.hpp"

namespace typecheck {
namespace {

using namespace typecheck::testing;

constexpr std::int64_t big = std::int64_t{1} << 62;
constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
// A shape rule's one-string outcome: "(4,)" or "TypeError: ...".
std::string shape_outcome(const Checked<Shape>& result) {
  return result ? python_shape_repr(result.value()) : result.error().str();
}

const std::string too_big =
    "ValueError: array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.";

TEST(CheckedArithmetic, OverflowIsNoValue) {
  EXPECT_EQ(checked_add(max - 1, 1), max);
  EXPECT_EQ(checked_add(max, 1), std::nullopt);
  EXPECT_EQ(checked_multiply(big, 2), std::nullopt);
  EXPECT_EQ(checked_multiply(big, -2), std::numeric_limits<std::int64_t>::min());
  const std::int64_t wraps_to_four[] = {big + 1, 4};  // 2^64 + 4 would wrap to 4
  EXPECT_EQ(checked_product(wraps_to_four), std::nullopt);
  const std::int64_t with_zero[] = {big, big, 0};
  EXPECT_EQ(checked_product(with_zero), 0);
  EXPECT_EQ(checked_product({}), 1);
}

TEST(CheckedArithmetic, ExactProductText) {
  const std::int64_t sizes[] = {big + 1, 4};
  EXPECT_EQ(exact_product_text(sizes), "18446744073709551620");
  const std::int64_t negative[] = {-1, max, 3};
  EXPECT_EQ(exact_product_text(negative), "-27670116110564327421");
  const std::int64_t small[] = {2, 3};
  EXPECT_EQ(exact_product_text(small), "6");
}

TEST(CheckArraySize, CountAndBytesMustFit) {
  const std::int64_t fits[] = {std::int64_t{1} << 60};
  EXPECT_EQ(check_array_size(fits, DType::float32), std::nullopt);
  const std::int64_t bytes_overflow[] = {std::int64_t{1} << 61};
  EXPECT_EQ(check_array_size(bytes_overflow, DType::float32)->str(), too_big);
  EXPECT_EQ(check_array_size(bytes_overflow, DType::int8), std::nullopt);
  const std::int64_t count_overflow[] = {std::int64_t{1} << 40, std::int64_t{1} << 40};
  EXPECT_EQ(check_array_size(count_overflow, DType::int8)->str(), too_big);
  const std::int64_t empty_but_huge[] = {big, 0};
  EXPECT_EQ(check_array_size(empty_but_huge, DType::float32), std::nullopt);
  const std::int64_t negative[] = {2, -1};
  EXPECT_EQ(check_array_size(negative, DType::float32)->str(), "ValueError: negative dimensions are not allowed");
}

TEST(ShapeRulesOverflow, DimensionsThatWouldWrapAreErrors) {
  const MeshRef mesh = xy_mesh();
  // f32[2^62, 0]: empty, so it exists, with a huge first dimension.
  ArrayType empty = parse("f32[4,0]", mesh);
  empty.shape[0] = big;
  EXPECT_EQ(outcome(tile_rule(empty, std::vector<std::int64_t>{4, 1})), too_big);
  EXPECT_EQ(outcome(tile_rule(empty, std::vector<std::int64_t>{1, 1})), "f32[4611686018427387904,0]");
  const ArrayType three[] = {empty, empty, empty};
  EXPECT_EQ(outcome(concatenate_rule(three, 0)), too_big);
  const PadConfig config[] = {{big, big, 0}, {0, 0, 0}};
  EXPECT_EQ(outcome(pad_rule(empty, parse("f32[]", mesh), config)), too_big);
  const PadConfig interior[] = {{0, 0, 2}, {0, 0, 0}};
  EXPECT_EQ(outcome(pad_rule(empty, parse("f32[]", mesh), interior)), too_big);
}

TEST(ShapeRulesOverflow, ReshapeSizesAreExact) {
  const std::int64_t four[] = {4};
  const std::int64_t wraps_to_four[] = {big + 1, 4};
  EXPECT_EQ(shape_outcome(resolve_reshape_sizes(four, wraps_to_four)),
            "TypeError: cannot reshape array of shape (4,) (size 4) into shape (4611686018427387905, 4) "
            "(size 18446744073709551620)");
  const std::int64_t unknown[] = {-1, big, 4};
  EXPECT_EQ(shape_outcome(resolve_reshape_sizes(four, unknown)),
            "TypeError: cannot reshape array of shape (4,) (size 4) into shape (-1, 4611686018427387904, 4) because "
            "the product of specified axis sizes (18446744073709551616) does not evenly divide 4");
}

TEST(ShapeRulesOverflow, ArangeCountMustFit) {
  EXPECT_EQ(shape_outcome(arange_shape(0, 1e19, 1)), "ValueError: Maximum allowed size exceeded");
  EXPECT_EQ(shape_outcome(arange_shape(0, std::numeric_limits<double>::infinity(), 1)), "ValueError: Maximum allowed size exceeded");
  EXPECT_EQ(arange_shape(0, 10, 3).value(), Shape{4});
}

}  // namespace
}  // namespace typecheck
