// conv_general_dilated's and reduce_window's type rules against JAX 0.11's
// shapes, errors and sharding rules (lax/convolution.py, windowed_reductions.py).
#include "typecheck/convolution_rules.hpp"

#include "rule_test_support.hpp"

namespace typecheck {
namespace {

using testing::f32;
using testing::outcome;
using testing::parse;
using testing::xy_mesh;

ConvDimensionNumbers nchw() { return conv_dimension_numbers(4, 4, nullptr).value(); }

ConvWindow window(std::vector<std::int64_t> strides, Padding padding) {
  return {strides, std::move(padding), std::vector<std::int64_t>(strides.size(), 1),
          std::vector<std::int64_t>(strides.size(), 1)};
}

TEST(ConvolutionRules, DimensionNumbersFromStrings) {
  std::vector<std::string> tf{"NHWC", "HWIO", "NHWC"};
  Checked<ConvDimensionNumbers> numbers = conv_dimension_numbers(4, 4, &tf);
  ASSERT_TRUE(numbers.ok());
  EXPECT_EQ(numbers.value().lhs_spec, (std::vector<int>{0, 3, 1, 2}));
  EXPECT_EQ(numbers.value().rhs_spec, (std::vector<int>{3, 2, 0, 1}));
  std::vector<std::string> swapped{"NCWH", "OIHW", "NHWC"};  // spatial order is rhs's
  EXPECT_EQ(conv_dimension_numbers(4, 4, &swapped).value().lhs_spec, (std::vector<int>{0, 1, 3, 2}));
  std::vector<std::string> twice{"NCHH", "OIHW", "NCHW"};
  EXPECT_EQ(conv_dimension_numbers(4, 4, &twice).error().str(),
            "TypeError: convolution dimension_numbers[0] cannot have duplicate characters, got NCHH.");
  std::vector<std::string> other{"NCHW", "OIHD", "NCHW"};
  EXPECT_EQ(conv_dimension_numbers(4, 4, &other).error().str(),
            "TypeError: convolution dimension_numbers elements must each have the same set of spatial characters, got "
            "('NCHW', 'OIHD', 'NCHW').");
  EXPECT_EQ(conv_dimension_numbers(4, 3, nullptr).error().str(),
            "TypeError: convolution requires lhs and rhs ndim to be equal, got 4 and 3.");
}

TEST(ConvolutionRules, PadTypes) {
  std::vector<std::int64_t> in{5, 4}, kernel{3, 2}, strides{2, 1};
  EXPECT_EQ(padtype_to_pads(in, kernel, strides, "SAME").value(), (Padding{{1, 1}, {0, 1}}));
  EXPECT_EQ(padtype_to_pads(in, kernel, strides, "same_lower").value(), (Padding{{1, 1}, {1, 0}}));
  EXPECT_EQ(padtype_to_pads(in, kernel, strides, "VALID").value(), (Padding{{0, 0}, {0, 0}}));
  EXPECT_EQ(padtype_to_pads(in, kernel, strides, "FULL").error().str(),
            "RuntimeError: Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got FULL.");
}

TEST(ConvolutionRules, Shapes) {
  EXPECT_EQ(conv_general_dilated_shape({2, 3, 8, 8}, {4, 3, 3, 3}, nchw(), window({2, 1}, {{1, 1}, {0, 0}})).value(),
            (Shape{2, 4, 4, 6}));
  ConvWindow dilated = window({1, 1}, {{0, 0}, {0, 0}});
  dilated.lhs_dilation = {2, 2};  // 8 -> 15
  dilated.rhs_dilation = {2, 1};  // 3 -> 5
  EXPECT_EQ(conv_general_dilated_shape({1, 3, 8, 8}, {4, 3, 3, 3}, nchw(), dilated).value(), (Shape{1, 4, 11, 13}));
  ConvWindow grouped = window({1, 1}, {{0, 0}, {0, 0}});
  grouped.feature_group_count = 3;
  EXPECT_EQ(conv_general_dilated_shape({1, 6, 3, 3}, {9, 2, 1, 1}, nchw(), grouped).value(), (Shape{1, 9, 3, 3}));
  EXPECT_EQ(conv_general_dilated_shape({1, 6, 3, 3}, {8, 2, 1, 1}, nchw(), grouped).error().str(),
            "ValueError: conv_general_dilated rhs output feature dimension size must be a multiple of "
            "feature_group_count, but 8 is not a multiple of 3.");
  ConvWindow batch_grouped = window({1, 1}, {{0, 0}, {0, 0}});
  batch_grouped.batch_group_count = 2;
  EXPECT_EQ(conv_general_dilated_shape({4, 2, 3, 3}, {4, 2, 2, 2}, nchw(), batch_grouped).value(), (Shape{2, 4, 2, 2}));
  EXPECT_EQ(conv_general_dilated_shape({1, 3, 2, 2}, {4, 3, 1, 1}, nchw(), window({1, 1}, {{-3, 0}, {0, 0}})).error().str(),
            "ValueError: Negative padding is larger than the size of the corresponding dimension: got padding=((-3, "
            "0), (0, 0)) for lhs_shape[2:]=(2, 2)");
}

TEST(ConvolutionRules, ShardingFollowsTheBatchAndRefusesSplitFeaturesOrKernels) {
  MeshRef mesh = xy_mesh();
  ConvWindow same = window({1, 1}, {{1, 1}, {1, 1}});
  auto rule = [&](std::string_view lhs, std::string_view rhs, const std::optional<Sharding>& out = std::nullopt) {
    return outcome(conv_general_dilated_rule(parse(lhs, mesh), parse(rhs, mesh), nchw(), same, f32, out));
  };
  EXPECT_EQ(rule("f32[8@X,3,4,4]", "f32[5,3,3,3]"), "f32[8@X,5,4,4]");
  EXPECT_EQ(rule("f32[8,3,4@Y,4]", "f32[5,3,3,3]"), "f32[8,5,4@Y,4]");
  const std::string ask = "ShardingTypeError: Please specify the output sharding via `out_sharding` parameter of "
                          "`conv_general_dilated`";
  EXPECT_EQ(rule("f32[8,4@X,4,4]", "f32[5,4,3,3]"), ask);
  EXPECT_EQ(rule("f32[8@X,3,4,4]", "f32[4@Y,3,3,3]"), ask);
  Sharding out = Sharding::replicated(mesh, 4);
  out.dims[0] = {"X"};
  EXPECT_EQ(rule("f32[8,4@X,4,4]", "f32[5,4@X,3,3]", out), "f32[8@X,5,4,4]");
  ConvWindow strided = window({3, 1}, {{1, 1}, {1, 1}});
  EXPECT_EQ(outcome(conv_general_dilated_rule(parse("f32[8,3,4@X,4]", mesh), parse("f32[5,3,3,3]", mesh), nchw(), strided,
                                              f32, std::nullopt)),
            "ShardingTypeError: conv_general_dilated on sharded dims where out dim (2) is not divisible by mesh axes (4) "
            "with spec (X) is not implemented. Got input type=f32[8,3,4@X,4] and output shape=(8, 5, 2, 4)");
  EXPECT_EQ(rule("f32[8,3,4,4]", "bf16[5,3,3,3]"),
            "TypeError: lax.conv_general_dilated requires arguments to have the same dtypes, got float32, bfloat16.");
}

TEST(ConvolutionRules, ReduceWindow) {
  MeshRef mesh = xy_mesh();
  ConvWindow pool = window({1, 1, 2, 2}, {{0, 0}, {0, 0}, {0, 0}, {0, 0}});
  std::vector<std::int64_t> two_by_two{1, 1, 2, 2};
  EXPECT_EQ(outcome(reduce_window_rule("reduce_window_max", parse("f32[8@X,3,4,4]", mesh), two_by_two, pool)),
            "f32[8@X,3,2,2]");
  std::vector<std::int64_t> wrong{2, 2};
  EXPECT_EQ(outcome(reduce_window_rule("reduce_window_sum", parse("f32[8,3,4,4]", mesh), wrong, window({1, 1}, {{0, 0}, {0, 0}}))),
            "TypeError: reduce_window_sum got the wrong number of window_dimensions for operand: got operand shape "
            "(8, 3, 4, 4) with window_dimensions (2, 2).");
  std::vector<std::int64_t> zero{1, 1, 0, 2};
  EXPECT_EQ(outcome(reduce_window_rule("reduce_window_sum", parse("f32[8,3,4,4]", mesh), zero, pool)),
            "TypeError: reduce_window window_dimensions must have every element be strictly positive, got (1, 1, 0, 2).");
  EXPECT_EQ(outcome(reduce_window_rule("reduce_window_sum", parse("f32[8,3,4@X,4]", mesh), two_by_two, pool)),
            "ShardingTypeError: reduce_window on sharded dims where out dim (2) is not divisible by mesh axes (4) with "
            "spec (X) is not implemented. Got input type=f32[8,3,4@X,4] and output shape=(8, 3, 2, 2)");
}

}  // namespace
}  // namespace typecheck
