// Unary ops, astype, comparisons, select_n/where and clamp/clip: reference
// §2.1, §2.2 (select), §2.10, §2.13 (unreduced inputs of non-linear ops).
#include "typecheck/elementwise_rules.hpp"

#include "rule_test_support.hpp"

namespace typecheck {
namespace {

using namespace typecheck::testing;

TEST(UnaryRule, KeepsShardingAndVaryingAxes) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(unary_rule("sin", parse("f32[8@X,4@Y]", mesh), f32)), "f32[8@X,4@Y]");
  EXPECT_EQ(outcome(unary_rule("abs", parse("i32[8@(X,Y)]", mesh), i32)), "i32[8@(X,Y)]");
  const MeshRef manual = mesh_of({{"i", 2, AxisType::Manual}});
  EXPECT_EQ(unary_rule("exp", parse("f32[3]{V:i}", manual), f32).value().str(), "float32[3]{V:i}");
}

TEST(UnaryRule, UnreducedOnlyThroughLinearOps) {
  const MeshRef mesh = xy_mesh();
  const ArrayType partial = parse("f32[8,16]{U:X}", mesh);
  EXPECT_EQ(outcome(unary_rule("neg", partial, f32)), "f32[8,16]{U:X}");
  EXPECT_EQ(outcome(unary_rule("sin", partial, f32)),
            "NotImplementedError: unreduced rule for sin is not implemented. Please file an issue at "
            "https://github.com/jax-ml/jax/issues");
}

TEST(ConvertElementType, ChangesOnlyTheDtype) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(convert_element_type_rule(parse("f32[8@X,4@Y]", mesh), DType::bfloat16).value().str(),
            "bfloat16[8@X,4@Y]");
  // A weak Python scalar becomes a strong array.
  EXPECT_EQ(convert_element_type_rule(parse("~f32[]", nullptr), DType::int32).value().str(), "int32[]");
  const Sharding requested = make_sharding(mesh, spec_of({{"Y"}}), Shape{8, 4}).value();
  EXPECT_EQ(outcome(convert_element_type_rule(parse("f32[8@X,4]", mesh), DType::float16, requested)), "f16[8@Y,4]");
}

TEST(Comparison, BoolResultAfterRankPromotion) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(comparison_rule("lt", parse("f32[8@X,4]", mesh), parse("f32[4@Y]", mesh)).value().str(),
            "bool[8@X,4@Y]");
  EXPECT_EQ(outcome(comparison_rule("eq", parse("f32[8@X,4]", mesh), parse("f32[8@Y,4]", mesh))),
            "ShardingTypeError: eq got incompatible shardings for broadcasting: ('X', None), ('Y', None).");
  // A weak scalar operand: bool results are never weak.
  EXPECT_EQ(comparison_rule("gt", parse("f32[8@X]", mesh), parse("~f32[]", nullptr)).value().str(), "bool[8@X]");
}

TEST(SelectN, CasesMustHaveIdenticalShardings) {
  const MeshRef mesh = xy_mesh();
  const std::vector<ArrayType> cases = parse_all({"f32[8@X]", "f32[8]"}, mesh);
  const Checked<ArrayType> result = select_n_rule(parse("bool[]", mesh), cases);
  EXPECT_EQ(outcome(result),
            "ShardingTypeError: select cases must have the same shardings, got [NamedSharding(mesh=AbstractMesh('X': "
            "4, 'Y': 2, axis_types=(Explicit, Explicit)), spec=P('X',)), NamedSharding(mesh=AbstractMesh('X': 4, 'Y': "
            "2, axis_types=(Explicit, Explicit)), spec=P(None,))].");
  const std::vector<ArrayType> same = parse_all({"f32[8@X]", "f32[8@X]"}, mesh);
  EXPECT_EQ(outcome(select_n_rule(parse("bool[8@X]", mesh), same)), "f32[8@X]");
  EXPECT_EQ(outcome(select_n_rule(parse("bool[8]", mesh), same)),
            "ShardingTypeError: select which must be scalar or have the same sharding as cases, got which sharding "
            "NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit)), spec=P(None,)) but "
            "case sharding NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit)), "
            "spec=P('X',)).");
}

TEST(SelectN, ShapeErrorsComeFirst) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(select_n_rule(parse("bool[]", mesh), parse_all({"f32[8@X]", "f32[4]"}, mesh))),
            "TypeError: select cases must have the same shapes, got [(8,), (4,)].");
  EXPECT_EQ(outcome(select_n_rule(parse("bool[4]", mesh), parse_all({"f32[8]", "f32[8]"}, mesh))),
            "TypeError: select `which` must be scalar or have the same shape as cases, got `which` shape (4,) but "
            "case shape (8,).");
  EXPECT_EQ(outcome(select_n_rule(parse("f32[]", mesh), parse_all({"f32[8]", "f32[8]"}, mesh))),
            "TypeError: select `which` must be boolean or int32 type, got float32.");
}

TEST(Where, BroadcastsOnlyWhenShapesDiffer) {
  const MeshRef mesh = xy_mesh();
  const ArrayType x = parse("f32[8@X,4]", mesh);
  // test_where_with_scalar: jnp.where(x > 0, x, 0) is fine.
  const ArrayType positive = comparison_rule("gt", x, parse("~f32[]", nullptr)).value();
  EXPECT_EQ(outcome(where_rule(positive, x, parse("~f32[]", nullptr), f32)), "f32[8@X,4]");
  // Equal shapes: the strict select rule; None does not unify with X.
  EXPECT_EQ(where_rule(positive, x, parse("f32[8,4]", mesh), f32).error().message.substr(0, 46),
            "select cases must have the same shardings, got");
  // Different shapes: broadcast_shardings unifies None with X.
  EXPECT_EQ(outcome(where_rule(positive, x, parse("f32[4@Y]", mesh), f32)), "f32[8@X,4@Y]");
}

TEST(Clamp, ResultShardedLikeTheOperand) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(clamp_rule(parse("f32[]", mesh), parse("f32[8@X]", mesh), parse("f32[8]", mesh))), "f32[8@X]");
  EXPECT_EQ(outcome(clamp_rule(parse("f32[4]", mesh), parse("f32[8@X]", mesh), parse("f32[]", mesh))),
            "TypeError: clamp requires min.shape == operand.shape or min.shape == (), got (4,).");
}

TEST(Clip, IsMaximumThenMinimum) {
  const MeshRef mesh = xy_mesh();
  const ArrayType x = parse("f32[8@X,4]", mesh);
  EXPECT_EQ(outcome(clip_rule(x, parse("~f32[]", nullptr), parse("~f32[]", nullptr), f32)), "f32[8@X,4]");
  EXPECT_EQ(outcome(clip_rule(x, parse("f32[8@Y,4]", mesh), std::nullopt, f32)),
            "ShardingTypeError: max got incompatible shardings for broadcasting: ('Y', None), ('X', None).");
  EXPECT_EQ(outcome(clip_rule(x, std::nullopt, parse("f32[4@Y]", mesh), f32)), "f32[8@X,4@Y]");
}

}  // namespace
}  // namespace typecheck
