// reshape's split/merge algorithm and the layout ops: reference §2.5, §2.6.
#include "typecheck/shape_rules.hpp"

#include "rule_test_support.hpp"

namespace typecheck {
namespace {

using namespace typecheck::testing;

std::string reshape(std::string_view type, std::vector<std::int64_t> sizes, const MeshRef& mesh) {
  return outcome(reshape_rule(parse(type, mesh), sizes));
}

std::string unsupported(std::string_view operand, std::string_view sizes) {
  return "ShardingTypeError: This reshape is not supported. Please specify the sharding of the output via the "
         "`out_sharding` argument of jax.lax.reshape. Got operand type: " +
         std::string(operand) + ", new sizes: " + std::string(sizes);
}

TEST(BroadcastShapes, NumpyTrailingAlignment) {
  const std::vector<Shape> compatible{{8, 1, 3}, {4, 1}, {}};
  EXPECT_EQ(broadcast_shapes(compatible), (Shape{8, 4, 3}));
  const std::vector<Shape> clash{{2, 3}, {4, 3}};
  EXPECT_EQ(broadcast_shapes(clash), std::nullopt);
  EXPECT_EQ(broadcast_shapes({}), Shape{});
}

TEST(Reshape, SingletonDimsOnly) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(reshape("f32[8@X,1,4@Y]", {8, 4}, mesh), "f32[8@X,4@Y]");
  EXPECT_EQ(reshape("f32[8@X,4@Y]", {1, 8, 4, 1}, mesh), "f32[1,8@X,4@Y,1]");
  EXPECT_EQ(reshape("f32[8,4]", {4, 8}, mesh), "f32[4,8]");  // fully replicated
}

TEST(Reshape, SplitDistributesAxes) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(reshape("f32[8@(X,Y),3]", {4, 2, 3}, mesh), "f32[4@X,2@Y,3]");
  EXPECT_EQ(reshape("f32[24@X]", {4, 6}, mesh), "f32[4@X,6]");
  EXPECT_EQ(reshape("f32[24@X]", {8, 3}, mesh), "f32[8@X,3]");
  EXPECT_EQ(reshape("f32[24,8@Y]", {2, 12, 8}, mesh), "f32[2,12,8@Y]");
  EXPECT_EQ(reshape("f32[16@X]", {2, 8}, mesh), unsupported("float32[16@X]", "(2, 8)"));
  // A sharded split with `dimensions` is unsupported.
  EXPECT_EQ(outcome(reshape_rule(parse("f32[24@X]", mesh), std::vector<std::int64_t>{4, 6}, std::vector<int>{0})),
            unsupported("float32[24@X]", "(4, 6)"));
}

TEST(Reshape, MergeCollectsAxes) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(reshape("f32[4@X,2@Y]", {8}, mesh), "f32[8@(X,Y)]");
  EXPECT_EQ(reshape("f32[4@X,6]", {24}, mesh), "f32[24@X]");
  EXPECT_EQ(reshape("f32[4,6@Y]", {24}, mesh), unsupported("float32[4,6@Y]", "(24,)"));
}

TEST(Reshape, UnsupportedGroups) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(reshape("f32[4@X,6@Y,8]", {4, 4, 2, 6}, mesh), unsupported("float32[4@X,6@Y,8]", "(4, 4, 2, 6)"));
  EXPECT_EQ(reshape("f32[2,4@X]", {4, 2}, mesh), unsupported("float32[2,4@X]", "(4, 2)"));
  // c14: q = jnp.zeros((4, 6), out_sharding=P(None, 'Y')); q.reshape(6, 4)
  EXPECT_EQ(reshape("f32[4,6@Y]", {6, 4}, mesh), unsupported("float32[4,6@Y]", "(6, 4)"));
}

TEST(Reshape, ShapeErrorsAndMinusOne) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(reshape("f32[4,5]", {6, 4}, mesh),
            "TypeError: reshape total size must be unchanged, got new_sizes (6, 4) (of total 24) for shape (4, 5) (of "
            "total 20).");
  const std::int64_t shape[] = {4, 5};
  EXPECT_EQ(resolve_reshape_sizes(shape, std::vector<std::int64_t>{-1, 2}).value(), (Shape{10, 2}));
  EXPECT_EQ(resolve_reshape_sizes(shape, std::vector<std::int64_t>{3, -1}).error().str(),
            "TypeError: cannot reshape array of shape (4, 5) (size 20) into shape (3, -1) because the product of "
            "specified axis sizes (3) does not evenly divide 20");
  EXPECT_EQ(resolve_reshape_sizes(shape, std::vector<std::int64_t>{-1, -1}).error().str(),
            "ValueError: can only specify one unknown axis size with a `-1` value, got (-1, -1)");
  EXPECT_EQ(resolve_reshape_sizes(shape, std::vector<std::int64_t>{6, 4}).error().str(),
            "TypeError: cannot reshape array of shape (4, 5) (size 20) into shape (6, 4) (size 24)");
}

TEST(Reshape, OutShardingAndUnreduced) {
  const MeshRef mesh = xy_mesh();
  const Sharding chosen = make_sharding(mesh, spec_of({{}, {"Y"}}), Shape{6, 4}).value();
  EXPECT_EQ(outcome(reshape_rule(parse("f32[4,6@Y]", mesh), std::vector<std::int64_t>{6, 4}, std::nullopt, chosen)),
            "f32[6,4@Y]");
  EXPECT_EQ(reshape("f32[4,8]{U:X}", {32}, mesh), "f32[32]{U:X}");
  EXPECT_EQ(outcome(reshape_rule(parse("f32[4,8]", mesh), std::vector<std::int64_t>{32}, std::nullopt,
                                 make_sharding(mesh, spec_of({{}}, {"X"}), Shape{32}).value())),
            "ValueError: out_sharding passed to reshape cannot contain unreduced axes. Got "
            "NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit)), spec=P(None, "
            "unreduced={'X'}))");
  EXPECT_EQ(outcome(reshape_rule(parse("f32[4,8]{U:X}", mesh), std::vector<std::int64_t>{32}, std::nullopt,
                                 make_sharding(mesh, spec_of({{}}, {"Y"}), Shape{32}).value())),
            "ValueError: out_sharding passed to reshape must be unreduced over the same mesh axes as operand. Got "
            "out_sharding: P(None, unreduced={'Y'}) and operand type: float32[4,8]{U:X}");
}

TEST(Transpose, PermutesSpecs) {
  const MeshRef mesh = xy_mesh();
  const ArrayType x = parse("i32[8@X,2@Y]", mesh);
  EXPECT_EQ(transpose_rule(x, reversed_permutation(2)).value().str(), "int32[2@Y,8@X]");  // c05: out.T
  const ArrayType cube = parse("f32[8@X,2@Y,3]", mesh);
  EXPECT_EQ(outcome(transpose_rule(cube, swapaxes_permutation(3, 0, -1).value())), "f32[3,2@Y,8@X]");
  const std::int64_t source[] = {0};
  const std::int64_t destination[] = {-1};
  EXPECT_EQ(outcome(transpose_rule(cube, moveaxis_permutation(3, source, destination).value())), "f32[2@Y,3,8@X]");
  const int bad[] = {0, 0};
  EXPECT_EQ(outcome(transpose_rule(x, bad)),
            "TypeError: transpose permutation isn't a permutation of operand dimensions, got permutation (0, 0) for "
            "operand shape (8, 2).");
  EXPECT_EQ(swapaxes_permutation(2, 0, 2).error().str(), "ValueError: axis 2 is out of bounds for array of dimension 2");
  const int swap[] = {1, 0};
  EXPECT_EQ(transpose_factor_rule(swap).str(), "([i,j]) -> ([j,i])");
}

TEST(ExpandSqueeze, SingletonDims) {
  const MeshRef mesh = xy_mesh();
  const std::int64_t axes[] = {0, -1};
  EXPECT_EQ(outcome(expand_dims_rule(parse("f32[8@X]", mesh), axes)), "f32[1,8@X,1]");
  const std::int64_t repeated[] = {0, 0};
  EXPECT_EQ(outcome(expand_dims_rule(parse("f32[8@X]", mesh), repeated)),
            "ValueError: repeated axis in lax.expand_dims: (0, 0)");
  EXPECT_EQ(outcome(squeeze_rule(parse("f32[1,8@X,1]", mesh), std::nullopt)), "f32[8@X]");
  EXPECT_EQ(outcome(squeeze_rule(parse("f32[1,8@X,1]", mesh), std::vector<std::int64_t>{-1})), "f32[1,8@X]");
  EXPECT_EQ(outcome(squeeze_rule(parse("f32[1,8@X]", mesh), std::vector<std::int64_t>{1})),
            "ValueError: cannot select an axis to squeeze out which has size not equal to one, got shape=(1, 8) and "
            "dimensions=(1,)");
}

TEST(BroadcastInDim, NewDimsUnsharded) {
  const MeshRef mesh = xy_mesh();
  const std::int64_t shape[] = {4, 8};
  const int dims[] = {1};
  EXPECT_EQ(outcome(broadcast_in_dim_rule(parse("f32[8@X]", mesh), shape, dims)), "f32[4,8@X]");
  // An operand with no mesh lands on the context mesh.
  EXPECT_EQ(broadcast_in_dim_rule(parse("f32[8]", nullptr), shape, dims, std::nullopt, mesh).value().sharding.repr(),
            "NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit)), spec=P(None, None))");
  const int wrong[] = {0};
  EXPECT_EQ(outcome(broadcast_in_dim_rule(parse("f32[8@X]", mesh), shape, wrong)),
            "TypeError: broadcast_in_dim operand dimension sizes must either be 1, or be equal to their corresponding "
            "dimensions in the target broadcast shape; got operand of shape (8,), target broadcast shape (4, 8), "
            "broadcast_dimensions (0,)");
  EXPECT_EQ(broadcast_in_dim_factor_rule(2, dims).str(), "([j]) -> ([i,j])");
}

TEST(BroadcastTo, RequestedShardingMustAgree) {
  const MeshRef mesh = xy_mesh();
  const std::int64_t shape[] = {8, 4};
  EXPECT_EQ(outcome(broadcast_to_rule(parse("f32[4@Y]", mesh), shape)), "f32[8,4@Y]");
  const Sharding requested = make_sharding(mesh, spec_of({{}, {"Y"}}), shape).value();
  EXPECT_EQ(outcome(broadcast_to_rule(parse("f32[4]", mesh), shape, requested)), "f32[8,4@Y]");
  const MeshRef four_two = mesh_of({{"X", 2, AxisType::Explicit}, {"Y", 2, AxisType::Explicit}});
  const Sharding other = make_sharding(four_two, spec_of({{}, {"Y"}}), shape).value();
  EXPECT_EQ(outcome(broadcast_to_rule(parse("f32[4@X]", four_two), shape, other)),
            "ValueError: Incompatible types for broadcasting: input type=float32[4@X] and requested "
            "type=float32[8,4@Y]");
  const std::int64_t bad[] = {8, 3};
  EXPECT_EQ(outcome(broadcast_to_rule(parse("f32[4]", mesh), bad)),
            "ValueError: Incompatible shapes for broadcasting: (4,) and requested shape (8, 3)");
}

}  // namespace
}  // namespace typecheck
