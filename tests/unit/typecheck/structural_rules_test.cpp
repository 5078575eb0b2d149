// concatenate/stack/split/pad/tile/roll, slicing, dynamic slices, take and
// .at[].set: reference §2.7, §2.8.
#include "typecheck/structural_rules.hpp"

#include "rule_test_support.hpp"

namespace typecheck {
namespace {

using namespace typecheck::testing;
using Item = IndexItem;

const std::string xy_repr = "AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit))";

TEST(Concatenate, IdenticalShardingsOnly) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(concatenate_rule(parse_all({"f32[8@X,4]", "f32[8@X,4]"}, mesh), 0)), "f32[16@X,4]");
  EXPECT_EQ(outcome(concatenate_rule(parse_all({"f32[8@X,4]", "f32[8,4]"}, mesh), 1)),
            "ShardingTypeError: All operands should have the same sharding. Got shardings NamedSharding(mesh=" +
                xy_repr + ", spec=P('X', None)), NamedSharding(mesh=" + xy_repr + ", spec=P(None, None))");
  EXPECT_EQ(outcome(concatenate_rule(parse_all({"f32[8,4]", "f32[8]"}, mesh), 0)),
            "TypeError: Cannot concatenate arrays with different numbers of dimensions: got (8, 4), (8,).");
  EXPECT_EQ(outcome(concatenate_rule(parse_all({"f32[8,4]", "f32[8,3]"}, mesh), 0)),
            "TypeError: Cannot concatenate arrays with shapes that differ in dimensions other than the one being "
            "concatenated: concatenating along dimension 0 for shapes (8, 4), (8, 3).");
}

TEST(Stack, NewDimUnsharded) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(stack_rule(parse_all({"f32[32@X,64]", "f32[32@X,64]"}, mesh), 0)), "f32[2,32@X,64]");
  EXPECT_EQ(outcome(stack_rule(parse_all({"f32[32@X,64]", "f32[32@X,64]"}, mesh), -1)), "f32[32@X,64,2]");
  EXPECT_EQ(outcome(stack_rule(parse_all({"f32[32@X,64]", "f32[32,64]"}, mesh), 0)).substr(0, 70),
            "ShardingTypeError: All operands should have the same sharding. Got sha");
  EXPECT_EQ(outcome(stack_rule(parse_all({"f32[32]", "f32[16]"}, mesh), 0)),
            "ValueError: All input arrays must have the same shape.");
}

TEST(Split, PiecesMustStayDivisible) {
  const MeshRef mesh = xy_mesh();
  const ArrayType x = parse("f32[16@X,4]", mesh);
  EXPECT_EQ(outcome(split_rule(x, split_sizes_for_sections(16, 2).value(), 0)), "f32[8@X,4], f32[8@X,4]");
  const std::int64_t at[] = {6};
  EXPECT_EQ(outcome(split_rule(x, split_sizes_for_indices(16, at), 0)),
            "ShardingTypeError: split on sharded dims where out dim (6) is not divisible by mesh axes (4) with spec "
            "(X) is not implemented. Got input type=f32[16@X,4] and output shape=(6, 4)");
  EXPECT_EQ(split_sizes_for_sections(16, 3).error().str(),
            "ValueError: array split does not result in an equal division");
  EXPECT_EQ(outcome(split_rule(x, split_sizes_for_sections(4, 2).value(), 1)), "f32[16@X,2], f32[16@X,2]");
}

TEST(Pad, VaryingOutShape) {
  const MeshRef mesh = xy_mesh();
  const ArrayType x = parse("f32[8@(X,Y),4]", mesh);
  const PadConfig grow[] = {{4, 4, 0}, {1, 1, 0}};
  EXPECT_EQ(outcome(pad_rule(x, parse("f32[]", mesh), grow)), "f32[16@(X,Y),6]");
  const PadConfig odd[] = {{1, 0, 0}, {0, 0, 0}};
  EXPECT_EQ(outcome(pad_rule(x, parse("f32[]", mesh), odd)),
            "ShardingTypeError: padding on sharded dims where out dim (9) is not divisible by mesh axes (8) with spec "
            "(('X', 'Y')) is not implemented. Got input type=f32[8@(X,Y),4] and output shape=(9, 4)");
}

TEST(Tile, TiledDimsUnsharded) {
  const MeshRef mesh = xy_mesh();
  const std::int64_t reps[] = {1, 3};
  EXPECT_EQ(outcome(tile_rule(parse("f32[8@X,4]", mesh), reps)), "f32[8@X,12]");
  const std::int64_t bad[] = {2};
  EXPECT_EQ(outcome(tile_rule(parse("f32[8@X]", mesh), bad)),
            "ShardingTypeError: Operand cannot be sharded on dimension 0 when the tiling is non-trivial. Got input "
            "type: float32[8@X] with reps: (2,)");
  const std::int64_t longer[] = {2, 1};
  EXPECT_EQ(outcome(tile_rule(parse("f32[8@X]", mesh), longer)), "f32[2,8@X]");
}

TEST(Roll, KeepsShardingOrRavels) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(roll_rule(parse("f32[8@X,4@Y]", mesh), std::vector<std::int64_t>{0})), "f32[8@X,4@Y]");
  EXPECT_EQ(outcome(roll_rule(parse("f32[8@X,4]", mesh), std::nullopt)), "f32[8@X,4]");
  EXPECT_EQ(outcome(roll_rule(parse("f32[8,4@Y]", mesh), std::nullopt)).substr(0, 54),
            "ShardingTypeError: This reshape is not supported. Plea");
}

TEST(StaticIndex, SlicesAndIntegers) {
  const MeshRef mesh = xy_mesh();
  const ArrayType x = parse("f32[8@X]", mesh);
  const Item middle[] = {Item::range(2, 6)};
  EXPECT_EQ(outcome(static_index_rule(x, middle)), "f32[4@X]");
  const Item head[] = {Item::range(0, 2)};
  EXPECT_EQ(outcome(static_index_rule(x, head)),
            "ShardingTypeError: slicing on sharded dims where out dim (2) is not divisible by mesh axes (4) with spec "
            "(X) is not implemented. Got input type=f32[8@X] and output shape=(2,)");
  const ArrayType matrix = parse("f32[8@X,4]", mesh);
  const Item column[] = {Item::range(), Item::integer(1)};
  EXPECT_EQ(outcome(static_index_rule(matrix, column)), "f32[8@X]");
  const Item row[] = {Item::integer(0)};
  EXPECT_EQ(outcome(static_index_rule(matrix, row)),
            "ShardingTypeError: slicing on sharded dims where out dim (1) is not divisible by mesh axes (4) with spec "
            "(X) is not implemented. Got input type=f32[8@X,4] and output shape=(1, 4)");
  // test_slice_fully_replicated: x[0, 0] on i32[4@x,2] is a replicated scalar.
  const Item corner[] = {Item::integer(0), Item::integer(0)};
  EXPECT_EQ(outcome(static_index_rule(parse("i32[4@X,2]", mesh), corner)), "i32[]");
}

TEST(StaticIndex, NewaxisEllipsisAndSteps) {
  const MeshRef mesh = xy_mesh();
  const ArrayType x = parse("f32[8@X,4@Y]", mesh);
  const Item newaxis[] = {Item::range(), Item::newaxis()};
  EXPECT_EQ(outcome(static_index_rule(x, newaxis)), "f32[8@X,1,4@Y]");
  const Item last[] = {Item::ellipsis(), Item::integer(0)};
  EXPECT_EQ(outcome(static_index_rule(parse("f32[8@X,4]", mesh), last)), "f32[8@X]");
  const Item reversed[] = {Item::range(std::nullopt, std::nullopt, -1)};
  EXPECT_EQ(outcome(static_index_rule(x, reversed)), "f32[8@X,4@Y]");
  const Item every_other[] = {Item::range(std::nullopt, std::nullopt, 2)};
  EXPECT_EQ(outcome(static_index_rule(parse("f32[16@X]", mesh), every_other)), "f32[8@X]");
  const Item out_of_range[] = {Item::integer(8)};
  EXPECT_EQ(outcome(static_index_rule(x, out_of_range)), "IndexError: index 8 is out of bounds for axis 0 with size 8");
  const Item too_many[] = {Item::integer(0), Item::integer(0), Item::integer(0)};
  EXPECT_EQ(outcome(static_index_rule(x, too_many)),
            "IndexError: Too many indices: array is 2-dimensional, but 3 were indexed");
}

TEST(DynamicSlice, RulesOfSlicing) {
  const MeshRef mesh = xy_mesh();
  const std::int64_t sizes[] = {4, 2};
  EXPECT_EQ(outcome(dynamic_slice_rule(parse("f32[8@X,4]", mesh), sizes)), "f32[4@X,2]");
  const std::int64_t odd[] = {2, 4};
  EXPECT_EQ(outcome(dynamic_slice_rule(parse("f32[8@X,4]", mesh), odd)).substr(0, 60),
            "ShardingTypeError: dynamic_slice on sharded dims where out d");
  const std::int64_t big[] = {9, 4};
  EXPECT_EQ(outcome(dynamic_slice_rule(parse("f32[8@X,4]", mesh), big)),
            "TypeError: dynamic_slice slice_sizes must be less than or equal to operand shape, got slice_sizes (9, 4) "
            "for operand shape (8, 4).");
}

TEST(DynamicUpdateSlice, EqualShardings) {
  const MeshRef mesh = mesh_of({{"x", 2, AxisType::Explicit}});
  EXPECT_EQ(outcome(dynamic_update_slice_rule(parse("f32[16@x]", mesh), parse("f32[4@x]", mesh))), "f32[16@x]");
  EXPECT_EQ(outcome(dynamic_update_slice_rule(parse("f32[16@x]", mesh), parse("f32[4]", mesh))),
            "ShardingTypeError: dynamic_update_slice operand sharding must be equal to update sharding, got operand "
            "sharding float32[16@x]({Explicit: ('x',)}) and update sharding float32[4]({Explicit: ('x',)}).");
}

TEST(Take, GatherResolution) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(take_rule(parse("f32[8,4@Y]", mesh), parse("i32[3]", mesh), 0)), "f32[3,4@Y]");
  EXPECT_EQ(outcome(take_rule(parse("f32[8,4]", mesh), parse("i32[2,3]", mesh), 1)), "f32[8,2,3]");
  EXPECT_EQ(outcome(take_rule(parse("f32[8@X,4]", mesh), parse("i32[3]", mesh), 0)),
            "ShardingTypeError: Use .at[...].get(out_sharding=) to provide output PartitionSpec for the gather "
            "indexing as out sharding could not be resolved unambiguously (or would require collectives on inputs). "
            "Got operand=ShapedArray(float32[8@X,4]), indices=ShapedArray(int32[3,1])");
  const Sharding chosen = make_sharding(mesh, spec_of({{"X"}}), Shape{4, 4}).value();
  EXPECT_EQ(outcome(take_rule(parse("f32[8@X,4]", mesh), parse("i32[4]", mesh), 0, chosen)), "f32[4@X,4]");
}

TEST(Scatter, AtSet) {
  const MeshRef mesh = xy_mesh();
  const Item row[] = {Item::integer(0)};
  EXPECT_EQ(outcome(scatter_rule("set", parse("f32[8,4@Y]", mesh), row, parse("f32[4@Y]", mesh))), "f32[8,4@Y]");
  EXPECT_EQ(outcome(scatter_rule("set", parse("f32[8,4@Y]", mesh), row, parse("~f32[]", nullptr))), "f32[8,4@Y]");
  EXPECT_EQ(outcome(scatter_rule("set", parse("f32[8@X,4]", mesh), row, parse("f32[4]", mesh))),
            "ShardingTypeError: Use .at[...].set(out_sharding=) to provide output PartitionSpec for the scatter "
            "update as out sharding could not be resolved unambiguously (or would require collectives on inputs). "
            "Got operand=ShapedArray(float32[8@X,4]), updates=ShapedArray(float32[4])");
  const Sharding chosen = make_sharding(mesh, spec_of({{"X"}}), Shape{8, 4}).value();
  EXPECT_EQ(outcome(scatter_rule("add", parse("f32[8@X,4]", mesh), row, parse("f32[4]", mesh), chosen)),
            "f32[8@X,4]");
}

}  // namespace
}  // namespace typecheck
