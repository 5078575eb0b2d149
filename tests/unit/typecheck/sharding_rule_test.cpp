// Factor rules, and the elementwise and dot_general sharding rules with the
// cases and error texts of reference §2.2 and §2.3.
#include <gtest/gtest.h>

#include "typecheck/sharding_rule.hpp"
#include "typecheck/type_parser.hpp"

namespace typecheck {
namespace {

MeshRef mesh_of(std::vector<MeshAxis> axes) { return AbstractMesh::make(std::move(axes)).value(); }
MeshRef xy_mesh() { return mesh_of({{"X", 4, AxisType::Explicit}, {"Y", 2, AxisType::Explicit}}); }

ArrayType parse(std::string_view text, const MeshRef& mesh) {
  Checked<ArrayType> type = parse_array_type(text, mesh);
  EXPECT_TRUE(type.ok()) << text << ": " << type.error().str();
  return type ? type.value() : ArrayType{};
}

const ElementType f32{DType::float32, false};
const ElementType i32{DType::int32, false};
const ElementType bf16{DType::bfloat16, false};

// The short form of a successful result, or "Class: message" of the error.
std::string outcome(const Checked<ArrayType>& result) {
  return result ? result.value().short_str() : result.error().str();
}

std::string elementwise(std::string_view primitive, std::vector<std::string_view> types, const MeshRef& mesh,
                        ElementType element = f32) {
  std::vector<ArrayType> operands;
  for (std::string_view text : types) operands.push_back(parse(text, mesh));
  return outcome(elementwise_rule(primitive, operands, element));
}

std::string matmul(std::string_view lhs, std::string_view rhs, const MeshRef& mesh, ElementType element = f32) {
  return outcome(dot_general_rule(parse(lhs, mesh), parse(rhs, mesh), matmul_dimension_numbers(), element));
}

TEST(FactorRule, Printing) {
  EXPECT_EQ(dot_general_factor_rule(2, 2, matmul_dimension_numbers()).value().str(),
            "([i,k],[k,j]) -> ([i,j]) reduction={k}");
  // Batched matmul: bij,bjk->bik.
  EXPECT_EQ(dot_general_factor_rule(3, 3, {{2}, {1}, {0}, {0}}).value().str(),
            "([i,j,l],[i,l,k]) -> ([i,j,k]) batch={i} reduction={l}");
  // A vector dot: every dimension contracts.
  EXPECT_EQ(dot_general_factor_rule(1, 1, {{0}, {0}, {}, {}}).value().str(), "([i],[i]) -> ([]) reduction={i}");
  const std::size_t ranks[] = {2, 0, 1};
  EXPECT_EQ(elementwise_factor_rule(ranks).str(), "([i,j],[],[j]) -> ([i,j])");
  EXPECT_EQ(factor_name(0), "i");
  EXPECT_EQ(factor_name(17), "z");
  EXPECT_EQ(factor_name(18), "f18");
}

TEST(FactorRule, InvalidDimensionNumbers) {
  Checked<FactorRule> out_of_range = dot_general_factor_rule(2, 2, {{2}, {0}, {}, {}});
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_EQ(out_of_range.error().error_class, ErrorClass::TypeError);
  EXPECT_EQ(out_of_range.error().message,
            "dot_general requires lhs dimension numbers to be distinct, nonnegative and less than the number of axes "
            "of the lhs value, got lhs_batch of () and lhs_contracting of (2,) for lhs of rank 2");
  EXPECT_FALSE(dot_general_factor_rule(2, 2, {{1}, {-1}, {}, {}}).ok());
  EXPECT_FALSE(dot_general_factor_rule(2, 2, {{1}, {0}, {1}, {1}}).ok());  // lhs dim 1 used twice
  Checked<FactorRule> unequal = dot_general_factor_rule(2, 2, {{1}, {0}, {0}, {}});
  ASSERT_FALSE(unequal.ok());
  EXPECT_EQ(unequal.error().message,
            "dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, got lhs_batch (0,) and "
            "rhs_batch ().");
}

TEST(ElementwiseRule, EqualShardingsAndScalars) {
  const MeshRef mesh = xy_mesh();
  // c05: x * 2 keeps x's type.
  EXPECT_EQ(elementwise("mul", {"i32[8@X,2@Y]", "~i32[]"}, mesh, i32), "i32[8@X,2@Y]");
  EXPECT_EQ(elementwise("add", {"f32[]", "f32[]"}, mesh), "f32[]");
}

TEST(ElementwiseRule, ReplicatedUnifiesWithSharded) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(elementwise("add", {"f32[8@X,4]", "f32[8,4@Y]"}, mesh), "f32[8@X,4@Y]");
  EXPECT_EQ(elementwise("add", {"f32[8,4]", "f32[8@X,4]", "f32[8@X,4]"}, mesh), "f32[8@X,4]");
}

TEST(ElementwiseRule, SizeOneDimensionsBroadcast) {
  // c16: dot(inputs, W1) + b1, with b1 rank-promoted to [1,64@model].
  const MeshRef mesh = mesh_of({{"batch", 4, AxisType::Explicit}, {"model", 2, AxisType::Explicit}});
  EXPECT_EQ(elementwise("add", {"f32[64@batch,64@model]", "f32[1,64@model]"}, mesh), "f32[64@batch,64@model]");
  EXPECT_EQ(elementwise("add", {"f32[1,4]", "f32[8@batch,1]"}, mesh), "f32[8@batch,4]");
}

TEST(ElementwiseRule, IncompatibleShardings) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(elementwise("mul", {"f32[8@X,16@Y]", "f32[8@Y,16@X]"}, mesh),
            "ShardingTypeError: mul got incompatible shardings for broadcasting: ('X', 'Y'), ('Y', 'X').");
  // Compared by value: 'X' and ('X','Y') conflict.
  EXPECT_EQ(elementwise("add", {"f32[8@X]", "f32[8@(X,Y)]"}, mesh),
            "ShardingTypeError: add got incompatible shardings for broadcasting: ('X',), (('X', 'Y'),).");
  // A third, replicated operand is listed too.
  EXPECT_EQ(elementwise("max", {"f32[8,8]", "f32[8@X,8]", "f32[8@Y,8]"}, mesh),
            "ShardingTypeError: max got incompatible shardings for broadcasting: (None, None), ('X', None), ('Y', "
            "None).");
}

TEST(ElementwiseRule, IllegallyShardedResult) {
  const MeshRef mesh = mesh_of({{"X", 4, AxisType::Explicit}});
  EXPECT_EQ(elementwise("add", {"i32[4@X,4]", "i32[4,4@X]"}, mesh, i32),
            "ShardingTypeError: add operation with inputs: i32[4@X,4], i32[4,4@X] produces an illegally sharded "
            "result: i32[4@X,4@X]");
}

TEST(ElementwiseRule, ShapeErrorsComeFirst) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(elementwise("add", {"f32[4]", "f32[4,4]"}, mesh),
            "TypeError: add: arrays must have the same number of dimensions, got {1, 2}");
  EXPECT_EQ(elementwise("add", {"f32[8@X,4]", "f32[4@Y,4]"}, mesh),
            "TypeError: add got incompatible shapes for broadcasting: (8, 4), (4, 4).");
}

TEST(ElementwiseRule, MeshesMustAgree) {
  const ArrayType on_xy = parse("f32[8@X]", xy_mesh());
  const ArrayType on_x = parse("f32[8@X]", mesh_of({{"X", 4, AxisType::Explicit}}));
  const ArrayType operands[] = {on_xy, on_x};
  EXPECT_EQ(outcome(elementwise_rule("add", operands, f32)),
            "ShardingTypeError: Mesh for all inputs should be equal. Got one mesh: AbstractMesh('X': 4, 'Y': 2, "
            "axis_types=(Explicit, Explicit)) and another mesh: AbstractMesh('X': 4, axis_types=(Explicit,))");
  // A NumPy constant has no mesh and never conflicts.
  const ArrayType constant = parse("f32[8]", nullptr);
  const ArrayType with_constant[] = {on_xy, constant};
  EXPECT_EQ(outcome(elementwise_rule("add", with_constant, f32)), "f32[8@X]");
}

TEST(ElementwiseRule, AutoMeshesSkipTheRule) {
  // Types on Auto axes never carry '@', and mismatched specs are not errors.
  const MeshRef mesh = mesh_of({{"X", 4, AxisType::Auto}});
  const Checked<ArrayType> result = elementwise_rule("add", std::vector{parse("f32[8]", mesh), parse("f32[8]", mesh)}, f32);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(same_mesh(result.value().sharding.mesh, mesh));
  EXPECT_EQ(result.value().str(), "float32[8]");
}

TEST(ElementwiseRule, ResultDtypeAndVaryingAxes) {
  const MeshRef mesh = mesh_of({{"i", 2, AxisType::Manual}, {"j", 2, AxisType::Manual}});
  const Checked<ArrayType> sum =
      elementwise_rule("add", std::vector{parse("f32[3]{V:i}", mesh), parse("f32[3]{V:j}", mesh)}, f32);
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(sum.value().str(), "float32[3]{V:(i,j)}");
  const Checked<ArrayType> comparison =
      elementwise_rule("lt", std::vector{parse("f32[3]", mesh), parse("~f32[]", mesh)}, {DType::bool_, false});
  ASSERT_TRUE(comparison.ok());
  EXPECT_EQ(comparison.value().str(), "bool[3]");
}

TEST(DotGeneralRule, AmbiguousContraction) {
  // c06: einsum('bd,df->bf') of bf16[8@X,2048@Y] and bf16[2048@Y,8192].
  EXPECT_EQ(matmul("bf16[8@X,2048@Y]", "bf16[2048@Y,8192]", xy_mesh(), bf16),
            "ShardingTypeError: Contracting dimensions are sharded and it is ambiguous how the output should be "
            "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
            "lhs_contracting_spec=('Y',) and rhs_contracting_spec=('Y',)");
  // Differently sharded contracting dimensions are just as ambiguous.
  EXPECT_EQ(matmul("f32[8,16@X]", "f32[16@Y,4]", xy_mesh()),
            "ShardingTypeError: Contracting dimensions are sharded and it is ambiguous how the output should be "
            "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
            "lhs_contracting_spec=('X',) and rhs_contracting_spec=('Y',)");
}

TEST(DotGeneralRule, OneSidedContractingShardingDisappears) {
  EXPECT_EQ(matmul("f32[8,4]", "f32[4@X,16]", xy_mesh()), "f32[8,16]");
  EXPECT_EQ(matmul("f32[8@Y,4@X]", "f32[4,16]", xy_mesh()), "f32[8@Y,16]");
}

TEST(DotGeneralRule, FreeDimensionsKeepTheirShardings) {
  const MeshRef mesh = mesh_of({{"batch", 4, AxisType::Explicit}, {"model", 2, AxisType::Explicit}});
  EXPECT_EQ(matmul("f32[64@batch,32]", "f32[32,64@model]", mesh), "f32[64@batch,64@model]");
}

TEST(DotGeneralRule, IllegallyShardedResult) {
  // c14: k @ m with k: f32[8@X,4] and m: f32[4,8@X].
  EXPECT_EQ(matmul("f32[8@X,4]", "f32[4,8@X]", xy_mesh()),
            "ShardingTypeError: dot_general operation with inputs: f32[8@X,4], f32[4,8@X] produces an illegally "
            "sharded result: f32[8@X,8@X]");
}

TEST(DotGeneralRule, BatchDimensions) {
  const MeshRef mesh = mesh_of({{"x", 2, AxisType::Explicit}, {"y", 2, AxisType::Explicit}});
  const DotDimensionNumbers bmm{{2}, {1}, {0}, {0}};  // bij,bjk->bik
  auto batched = [&](std::string_view lhs, std::string_view rhs) {
    return outcome(dot_general_rule(parse(lhs, mesh), parse(rhs, mesh), bmm, f32));
  };
  EXPECT_EQ(batched("f32[4@x,8@y,2]", "f32[4@x,2,6]"), "f32[4@x,8@y,6]");
  EXPECT_EQ(batched("f32[4@x,8,2]", "f32[4@y,2,8]"),
            "ShardingTypeError: dot_general requires lhs batch dimensions and rhs batch dimensions to have the same "
            "sharding, got ('x',) and ('y',).");
  // None does not unify with a sharded batch dimension.
  EXPECT_EQ(batched("f32[4@x,8,2]", "f32[4,2,8]"),
            "ShardingTypeError: dot_general requires lhs batch dimensions and rhs batch dimensions to have the same "
            "sharding, got ('x',) and (None,).");
  // Batch errors come before contracting ones.
  EXPECT_EQ(batched("f32[4@x,8,2@y]", "f32[4,2@y,8]").substr(0, 58),
            "ShardingTypeError: dot_general requires lhs batch dimensio");
}

TEST(DotGeneralRule, ShapeErrors) {
  EXPECT_EQ(matmul("f32[8,4]", "f32[5,16]", xy_mesh()),
            "TypeError: dot_general requires contracting dimensions to have the same shape, got (4,) and (5,).");
  const DotDimensionNumbers bmm{{2}, {1}, {0}, {0}};
  EXPECT_EQ(outcome(dot_general_rule(parse("f32[4,8,2]", xy_mesh()), parse("f32[2,2,8]", xy_mesh()), bmm, f32)),
            "TypeError: dot_general requires lhs batch dimensions and rhs batch dimensions to have the same shape, got "
            "(4,) and (2,).");
}

TEST(DotGeneralRule, MeshesMustMatch) {
  const ArrayType lhs = parse("f32[8,4]", xy_mesh());
  const ArrayType rhs = parse("f32[4,8]", mesh_of({{"X", 4, AxisType::Explicit}}));
  EXPECT_EQ(outcome(dot_general_rule(lhs, rhs, matmul_dimension_numbers(), f32)),
            "ShardingTypeError: Mesh of both lhs and rhs should match. Got lhs: AbstractMesh('X': 4, 'Y': 2, "
            "axis_types=(Explicit, Explicit)) and rhs: AbstractMesh('X': 4, axis_types=(Explicit,))");
}

TEST(DotGeneralRule, OutShardingResolvesTheAmbiguity) {
  const MeshRef mesh = xy_mesh();
  const ArrayType lhs = parse("bf16[8@X,2048@Y]", mesh);
  const ArrayType rhs = parse("bf16[2048@Y,8192]", mesh);
  const Shape result_shape{8, 8192};
  // c07: out_sharding=P('X', 'Y') and P('X', None).
  for (auto [spec, expected] : {std::pair{std::vector<SpecInput>{SpecInput::name("X"), SpecInput::name("Y")},
                                          "bfloat16[8@X,8192@Y]"},
                                std::pair{std::vector<SpecInput>{SpecInput::name("X"), SpecInput::none()},
                                          "bfloat16[8@X,8192]"}}) {
    const Sharding out = make_sharding(mesh, PartitionSpec::make(spec).value(), result_shape).value();
    const Checked<ArrayType> result = dot_general_rule(lhs, rhs, matmul_dimension_numbers(), bf16, out);
    ASSERT_TRUE(result.ok()) << result.error().str();
    EXPECT_EQ(result.value().str(), expected);
  }
}

TEST(DotGeneralRule, UnreducedOutSharding) {
  const MeshRef mesh = xy_mesh();
  const Shape result_shape{8, 16};
  auto unreduced_out = [&](AxisSet axes) {
    return make_sharding(mesh, PartitionSpec::make({}, axes).value(), result_shape).value();
  };
  const ArrayType lhs = parse("f32[8,4@X]", mesh);
  const Checked<ArrayType> deferred =
      dot_general_rule(lhs, parse("f32[4@X,16]", mesh), matmul_dimension_numbers(), f32, unreduced_out({"X"}));
  ASSERT_TRUE(deferred.ok()) << deferred.error().str();
  EXPECT_EQ(deferred.value().str(), "float32[8,16]{U:X}");
  EXPECT_EQ(outcome(dot_general_rule(lhs, parse("f32[4,16]", mesh), matmul_dimension_numbers(), f32,
                                     unreduced_out({"X"}))),
            "ShardingTypeError: lhs and rhs contracting dims should be sharded identically when out_sharding "
            "provided to dot_general mentions unreduced_axes. Got lhs_contracting_spec=('X',), "
            "rhs_contracting_spec=(None,)");
  EXPECT_EQ(outcome(dot_general_rule(lhs, parse("f32[4@X,16]", mesh), matmul_dimension_numbers(), f32,
                                     unreduced_out({"Y"}))),
            "ShardingTypeError: out_sharding's unreduced axes should be equal to the contracting specs. Got unreduced "
            "axes={'Y'} and contracting spec=('X',)");
}

TEST(PropagateFactors, ReportsTheConflictingFactor) {
  const MeshRef mesh = xy_mesh();
  const Checked<FactorRule> rule = dot_general_factor_rule(2, 2, matmul_dimension_numbers());
  const std::vector<ArrayType> operands{parse("f32[8@X,4@Y]", mesh), parse("f32[4@Y,16]", mesh)};
  auto factors = propagate_factors(rule.value(), operands);
  ASSERT_TRUE(std::holds_alternative<FactorConflict>(factors));
  EXPECT_EQ(std::get<FactorConflict>(factors).factor, 2);
  EXPECT_EQ(std::get<FactorConflict>(factors).kind, FactorKind::reduction);
  const std::vector<ArrayType> fine{parse("f32[8@X,4]", mesh), parse("f32[4,16@Y]", mesh)};
  auto entries = propagate_factors(rule.value(), fine);
  ASSERT_TRUE(std::holds_alternative<std::vector<SpecEntry>>(entries));
  EXPECT_EQ(std::get<std::vector<SpecEntry>>(entries), (std::vector<SpecEntry>{{"X"}, {"Y"}, {}}));
}

Checked<ArrayType> binary(std::string_view primitive, std::string_view lhs, std::string_view rhs) {
  const ArrayType operands[] = {parse(lhs, xy_mesh()), parse(rhs, xy_mesh())};
  return elementwise_rule(primitive, operands, f32);
}

TEST(UnreducedRule, AddNeedsTheSameUnreducedAxes) {
  EXPECT_EQ(outcome(binary("add", "f32[8]{U:X}", "f32[8]{U:X}")), "f32[8]{U:X}");
  EXPECT_EQ(outcome(binary("add", "f32[8]{U:X}", "f32[8]")),
            "ShardingTypeError: lhs is unreduced while rhs is not. `add` operation does not allow this because there "
            "will be implicit communication. Please reduce lhs via `reshard` before calling `add`.");
  EXPECT_EQ(outcome(binary("add", "f32[8]", "f32[8]{U:X}")),
            "ShardingTypeError: rhs is unreduced while lhs is not. `add` operation does not allow this because there "
            "will be implicit communication. Please reduce rhs via `reshard` before calling `add`.");
  EXPECT_EQ(outcome(binary("add", "f32[8]{U:X}", "f32[8]{U:Y}")),
            "ShardingTypeError: lhs and rhs to `add` must be unreduced along the same mesh axes. Got "
            "lhs=frozenset({'X'}), rhs=frozenset({'Y'})");
  EXPECT_EQ(outcome(binary("subtract", "f32[8]{U:X}", "f32[8]{U:X}")),
            "NotImplementedError: unreduced rule for subtract is not implemented. Please file an issue at "
            "https://github.com/jax-ml/jax/issues");
}

TEST(UnreducedRule, MulAndDivNeedTheOtherSideReduced) {
  EXPECT_EQ(outcome(binary("mul", "f32[8]{U:X}", "f32[8]{R:X}")), "f32[8]{U:X}");
  // test_unreduced_mul_scalar_fwd
  EXPECT_EQ(outcome(binary("multiply", "f32[8]{U:X}", "f32[]")),
            "ShardingTypeError: RHS should be reduced along the same axes LHS is unreduced on. Got "
            "lhs=float32[8]{U:X} and rhs=float32[]");
  EXPECT_EQ(outcome(binary("mul", "f32[8]", "f32[8]{U:X}")),
            "ShardingTypeError: LHS should be reduced along the same axes RHS is unreduced on. Got lhs=float32[8] "
            "and rhs=float32[8]{U:X}");
  EXPECT_EQ(outcome(binary("mul", "f32[8]{U:X}", "f32[8]{U:X}")),
            "ShardingTypeError: lhs and rhs to `mul` cannot be unreduced since mul is bilinear. Got "
            "lhs=frozenset({'X'}), rhs=frozenset({'X'})");
  // test_reduced_mul_scalar_fwd: the scalar is resharded to reduced.
  EXPECT_EQ(outcome(binary("mul", "f32[8]{R:X}", "f32[]")), "f32[8]{R:X}");
  EXPECT_EQ(outcome(binary("div", "f32[8]{U:X}", "f32[8]{R:X}")), "f32[8]{U:X}");
  EXPECT_EQ(outcome(binary("true_divide", "f32[8]", "f32[8]{U:X}")),
            "ValueError: The denominator cannot be unreduced passed to `div`. Got "
            "y=ShapedArray(float32[8]{U:X})");
  EXPECT_EQ(outcome(binary("max", "f32[8]{U:X}", "f32[8]{R:X}")),
            "NotImplementedError: unreduced rule for max is not implemented. Please file an issue at "
            "https://github.com/jax-ml/jax/issues");
}

TEST(UnreducedRule, ReducedInputs) {
  EXPECT_EQ(outcome(binary("add", "f32[8]{R:X}", "f32[8]{R:Y}")),
            "ShardingTypeError: All inputs should be reduced across the same mesh axes. Got specs: "
            "{frozenset({'X'}), frozenset({'Y'})}");
  EXPECT_EQ(outcome(binary("add", "f32[8]{R:X}", "f32[8]")),
            "ShardingTypeError: Inputs cannot be replicated on the same axes that another input is reduced on. Got "
            "input type: float32[8] and reduced spec: frozenset({'X'})");
  EXPECT_EQ(outcome(binary("add", "f32[8]{R:X}", "f32[8@X]")),
            "ShardingTypeError: Inputs cannot be sharded/varying on the same axes that another input is reduced on. "
            "Reshard the input which is reduced to be sharded on the mesh axes it is reduced on via "
            "`jax.sharding.reshard(inp, jax.P(...))`. Got input type: float32[8@X] and reduced spec: "
            "frozenset({'X'})");
  EXPECT_EQ(outcome(binary("add", "f32[8]{R:X}", "f32[8]{R:X}")), "f32[8]{R:X}");
}

TEST(UnreducedRule, DotGeneralInputsCannotBeUnreduced) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(dot_general_rule(parse("f32[8,4]{U:X}", mesh), parse("f32[4,2]", mesh),
                                     matmul_dimension_numbers(), f32)),
            "ShardingTypeError: lhs or rhs passed to dot_general cannot be unreduced. Got "
            "lhs=ShapedArray(float32[8,4]{U:X}) and rhs=ShapedArray(float32[4,2])");
}

}  // namespace
}  // namespace typecheck
