// out_sharding canonicalization, creation ops, device_put/reshard/
// with_sharding_constraint, auto_axes/explicit_axes and the context-mesh
// check: reference §2.0, §2.9, §2.11, §3.4, §3.5, and c05/c12/c14.
#include "typecheck/creation_rules.hpp"

#include "rule_test_support.hpp"

namespace typecheck {
namespace {

using namespace typecheck::testing;

ShardingArg bare(std::vector<SpecEntry> entries) { return {std::nullopt, spec_of(std::move(entries))}; }
ShardingArg named(const MeshRef& mesh, std::vector<SpecEntry> entries) { return {mesh, spec_of(std::move(entries))}; }

const std::string xy_repr = "AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit))";

TEST(Creation, ReplicatedOnContextMeshOrOutSharding) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(creation_rule("jnp.zeros", f32, {8, 4}, mesh).value().str(), "float32[8,4]");
  EXPECT_EQ(creation_rule("jnp.zeros", f32, {8, 4}, mesh, bare({{"X"}})).value().str(), "float32[8@X,4]");
  EXPECT_EQ(creation_rule("jnp.zeros", bf16, {8, 2048}, mesh, bare({{"X"}, {"Y"}})).value().str(),
            "bfloat16[8@X,2048@Y]");  // c06
  EXPECT_EQ(creation_rule("jnp.ones", f32, {8}, nullptr).value().sharding.repr(),
            "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None,))");
}

TEST(Creation, ErrorsOfC14) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(creation_rule("jnp.zeros", f32, {6, 4}, mesh, bare({{"X"}}))),
            "ValueError: Sharding spec ('X',) implies that array axis 0 is partitioned 4 times, but does not evenly "
            "divide the dimension size 6. Got shape: (6, 4) and sharding NamedSharding(mesh=" +
                xy_repr + ", spec=P('X', None))");
  EXPECT_EQ(outcome(creation_rule("jnp.zeros", f32, {8, 8}, mesh, bare({{"X"}, {"X"}}))),
            "DuplicateSpecError: A single NamedSharding spec specification can map every mesh axis to at most one "
            "positional dimension, but P('X', 'X') has duplicate entries for `X`");
  EXPECT_EQ(outcome(creation_rule("jnp.zeros", f32, {8}, mesh, bare({{"Z"}}))),
            "ValueError: Resource axis: Z of P('Z',) is not found in mesh: ('X', 'Y').");
}

TEST(Creation, CanonicalizationErrors) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(creation_rule("jnp.zeros", f32, {8}, nullptr, bare({{"X"}}))),
            "ValueError: Using PartitionSpec when you are not under a mesh context is not allowed. Please pass a "
            "NamedSharding instance or enter into a mesh context via jax.set_mesh. Got P('X',)");
  const MeshRef other = mesh_of({{"X", 8, AxisType::Explicit}});
  EXPECT_EQ(outcome(creation_rule("jnp.zeros", f32, {8}, mesh, named(other, {{"X"}}))),
            "ValueError: Context mesh " + xy_repr +
                " should match the mesh of sharding AbstractMesh('X': 8, axis_types=(Explicit,)) passed to jnp.zeros.");
  const MeshRef mixed = mesh_of({{"X", 4, AxisType::Explicit}, {"Y", 2, AxisType::Auto}});
  EXPECT_EQ(outcome(creation_rule("jnp.zeros", f32, {8, 4}, mixed, bare({{}, {"Y"}}))),
            "ValueError: PartitionSpec passed to jnp.zeros cannot contain axis names that are of type Auto or Manual. "
            "Got PartitionSpec: P(None, 'Y') with axis name: Y of type: AxisType.Auto.");
  EXPECT_EQ(outcome(creation_rule("jnp.zeros", f32, {8}, mesh, bare({{"X"}}), "CpuDevice(id=0)")),
            "ValueError: Only one of device or out_sharding can be set. Got device=CpuDevice(id=0) and "
            "out_sharding=P('X',)");
}

TEST(Creation, LikeKeepsSharding) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(like_rule("jnp.zeros_like", parse("f32[8@X,4@Y]", mesh), i32, mesh)), "i32[8@X,4@Y]");
  EXPECT_EQ(outcome(like_rule("jnp.full_like", parse("f32[8@X,4@Y]", mesh), f32, mesh, bare({}))), "f32[8,4]");
  EXPECT_EQ(arange_shape(0, 10, 3).value(), Shape{4});
  EXPECT_EQ(arange_shape(5, 0, 1).value(), Shape{0});
  EXPECT_EQ(eye_shape(3, std::nullopt), (Shape{3, 3}));
}

TEST(ContextMesh, OperandsMustBeOnIt) {
  const MeshRef mesh = xy_mesh();
  const MeshRef other = mesh_of({{"X", 8, AxisType::Explicit}});
  const std::vector<ArrayType> operands = parse_all({"f32[8@X]"}, other);
  EXPECT_EQ(check_context_mesh("add", operands, mesh)->str(),
            "ValueError: For primitive add, context mesh " + xy_repr +
                " should match the aval mesh AbstractMesh('X': 8, axis_types=(Explicit,)) for shape float32[8@X].");
  EXPECT_FALSE(check_context_mesh("add", parse_all({"f32[8@X]"}, mesh), mesh));
  EXPECT_FALSE(check_context_mesh("add", operands, nullptr));
  const std::vector<ArrayType> automatic = parse_all({"f32[8]"}, auto_mesh());
  EXPECT_FALSE(check_context_mesh("add", automatic, mesh_of({{"z", 8, AxisType::Auto}})));
}

TEST(DevicePut, TypesOfC05) {
  const MeshRef mesh = mesh_of({{"X", 2, AxisType::Explicit}, {"Y", 2, AxisType::Explicit}});
  const ArrayType host = parse("i32[8,2]", nullptr);
  EXPECT_EQ(device_put_rule(host, bare({{"X"}, {"Y"}}), mesh, true).value().str(), "int32[8@X,2@Y]");
  const ArrayType out = parse("i32[8@X,2@Y]", mesh);
  EXPECT_EQ(device_put_rule(out, bare({{"X", "Y"}, {}}), mesh, true).value().str(), "int32[8@(X,Y),2]");
  EXPECT_EQ(device_put_rule(out, bare({}), mesh, true).value().str(), "int32[8,2]");
  EXPECT_EQ(device_put_rule(out, std::nullopt, mesh, true).value().sharding.mesh, nullptr);
  EXPECT_EQ(outcome(device_put_rule(host, bare({{"X"}}), nullptr, true)),
            "ValueError: Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to device_put");
}

TEST(DevicePut, Divisibility) {
  const MeshRef mesh = xy_mesh();
  const ArrayType host = parse("f32[6]", nullptr);
  EXPECT_EQ(outcome(device_put_rule(host, bare({{"X"}}), mesh, true)),
            "ValueError: One of device_put args was given the sharding NamedSharding(mesh=" + xy_repr +
                ", spec=P('X',)) implies that array axis 0 is partitioned 4 times, but the dimension size is 6 (full "
                "shape: (6,), per-dimension tiling factors: (4,) should evenly divide the shape)");
  EXPECT_EQ(outcome(device_put_rule(host, bare({{"X"}}), mesh, false)).substr(0, 46),
            "ValueError: Sharding spec ('X',) implies that ");
  // Auto axes leave the type (test_mix_axis_type_in_pspec).
  const MeshRef mixed = mesh_of({{"x", 2, AxisType::Explicit}, {"y", 2, AxisType::Auto}});
  EXPECT_EQ(outcome(device_put_rule(parse("f32[8,2]", nullptr), bare({{"x", "y"}, {}}), mixed, true)), "f32[8@x,2]");
}

TEST(Reshard, ExactlyTheRequest) {
  const MeshRef mesh = mesh_of({{"x", 4, AxisType::Explicit}, {"y", 2, AxisType::Explicit}});
  const ArrayType x = parse("f32[16@x,16@y]", mesh);
  EXPECT_EQ(reshard_rule(x, named(mesh, {{"y"}, {"x"}}), mesh).value().str(), "float32[16@y,16@x]");  // c12
  EXPECT_EQ(outcome(reshard_rule(x, bare({{"x"}}), nullptr)),
            "ValueError: Reshard should only be used with out_shardings which are non-None and have a non-empty mesh. "
            "Got sharding P('x',).");
  EXPECT_EQ(outcome(reshard_rule(x, bare({{"x"}, {}, {}, {}}), mesh)).substr(0, 64),
            "ValueError: Length of sharding.spec (4) must be equal to aval's ");
  const MeshRef mixed = mesh_of({{"x", 4, AxisType::Explicit}, {"y", 2, AxisType::Auto}});
  EXPECT_EQ(outcome(reshard_rule(parse("f32[16,16]", mixed), bare({{"y"}}), mixed)),
            "ValueError: PartitionSpec passed to reshard cannot contain axis names that are of type Auto or Manual. "
            "Got PartitionSpec: P('y',) with axis name: y of type: AxisType.Auto.");
}

TEST(WithShardingConstraint, AssertionOnExplicitMeshes) {
  const MeshRef mesh = mesh_of({{"x", 4, AxisType::Explicit}, {"y", 2, AxisType::Explicit}});
  const ArrayType x = parse("f32[16@x,16@y]", mesh);
  EXPECT_EQ(with_sharding_constraint_rule(x, named(mesh, {{"x"}, {"y"}}), mesh).value().str(), "float32[16@x,16@y]");
  EXPECT_EQ(outcome(with_sharding_constraint_rule(x, named(mesh, {{"y"}, {"x"}}), mesh)),
            "AssertionError: with_sharding_constraint acts as an assert when all axes of mesh are of type `Explicit`. "
            "The array sharding: P('x', 'y') did not match the sharding provided: P('y', 'x'). Please use "
            "`jax.sharding.reshard` to shard your input to the sharding you want.");
  EXPECT_EQ(outcome(with_sharding_constraint_rule(parse("f32[]", mesh), named(mesh, {{"x"}}), mesh)),
            "ValueError: Sharding NamedSharding(mesh=AbstractMesh('x': 4, 'y': 2, axis_types=(Explicit, Explicit)), "
            "spec=P('x',)) is only valid for values of rank at least 1, but was applied to a value of rank 0. For "
            "scalars the PartitionSpec should be P()");
}

TEST(WithShardingConstraint, HintOnAutoMeshes) {
  const MeshRef mesh = auto_mesh();
  const ArrayType x = parse("f32[8192,8192]", mesh);  // c12
  EXPECT_EQ(outcome(with_sharding_constraint_rule(x, named(mesh, {{"y"}, {"x"}}), nullptr)), "f32[8192,8192]");
  const MeshRef mixed = mesh_of({{"x", 4, AxisType::Explicit}, {"y", 2, AxisType::Auto}});
  EXPECT_EQ(outcome(with_sharding_constraint_rule(parse("f32[8,8]", mixed), named(mixed, {{"x"}}), mixed)),
            "ValueError: The spec of NamedSharding passed to with_sharding_constraint can only refer to Auto axes of "
            "the mesh. Got spec=P('x',) and mesh=AbstractMesh('x': 4, 'y': 2, axis_types=(Explicit, Auto)). You "
            "probably meant to use reshard API?");
}

TEST(ModeSwitch, AutoAndExplicitAxes) {
  const MeshRef mesh = xy_mesh();
  const auto inner = switch_axis_types(mesh, nullptr, std::vector<std::string>{"X"}, AxisType::Auto).value();
  ASSERT_TRUE(inner.has_value());
  EXPECT_EQ(inner->next->repr(), "AbstractMesh('X': 4, 'Y': 2, axis_types=(Auto, Explicit))");
  EXPECT_EQ(inner->axes, std::vector<std::string>{"X"});
  EXPECT_EQ(explicit_only(spec_of({{"X"}, {"Y"}}), inner->next).repr(), "P(None, 'Y')");
  // No mesh anywhere: nothing to switch.
  EXPECT_FALSE(switch_axis_types(nullptr, nullptr, std::nullopt, AxisType::Auto).value().has_value());
  // The shardings' mesh serves when there is no context mesh; both must agree otherwise.
  const MeshRef automatic = auto_mesh();
  EXPECT_EQ(switch_axis_types(nullptr, automatic, std::nullopt, AxisType::Explicit).value()->next->repr(),
            "AbstractMesh('x': 4, 'y': 2, axis_types=(Explicit, Explicit))");
  EXPECT_EQ(switch_axis_types(mesh, automatic, std::nullopt, AxisType::Auto).error().str(),
            "ValueError: Context mesh AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit)) must match the "
            "mesh passed to shardings AbstractMesh('x': 4, 'y': 2, axis_types=(Auto, Auto)). Recommended approach is "
            "to use `jax.set_mesh` context manager.");
  const MeshRef manual = mesh->with_axis_types({"X"}, AxisType::Manual);
  EXPECT_EQ(switch_axis_types(manual, nullptr, std::nullopt, AxisType::Auto).error().error_class,
            ErrorClass::NotImplementedError);
}

}  // namespace
}  // namespace typecheck
