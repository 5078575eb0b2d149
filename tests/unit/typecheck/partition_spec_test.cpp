// PartitionSpec canonicalization, reprs and validation against a mesh.
#include <gtest/gtest.h>

#include "typecheck/partition_spec.hpp"

namespace typecheck {
namespace {

using In = SpecInput;

PartitionSpec spec_of(std::vector<SpecInput> partitions, AxisSet unreduced = {}, AxisSet reduced = {}) {
  Checked<PartitionSpec> spec = PartitionSpec::make(partitions, unreduced, reduced);
  EXPECT_TRUE(spec.ok()) << spec.error().str();
  return spec ? spec.value() : PartitionSpec();
}

MeshRef mesh_of(std::vector<MeshAxis> axes) { return AbstractMesh::make(std::move(axes)).value(); }

MeshRef xy_mesh() { return mesh_of({{"X", 4, AxisType::Explicit}, {"Y", 2, AxisType::Explicit}}); }

TEST(PartitionSpecRepr, AsJaxPrintsIt) {
  EXPECT_EQ(spec_of({}).repr(), "P()");
  EXPECT_EQ(spec_of({In::name("X")}).repr(), "P('X',)");
  EXPECT_EQ(spec_of({In::none()}).repr(), "P(None,)");
  EXPECT_EQ(spec_of({In::name("a"), In::none()}).repr(), "P('a', None)");
  EXPECT_EQ(spec_of({In::tuple({In::name("x"), In::name("y")})}).repr(), "P(('x', 'y'),)");
  EXPECT_EQ(spec_of({In::name("X"), In::tuple({In::name("Y"), In::name("Z")})}).repr(), "P('X', ('Y', 'Z'))");
}

TEST(PartitionSpecRepr, UnreducedAndReduced) {
  EXPECT_EQ(spec_of({In::none(), In::none()}, {"X"}).repr(), "P(None, None, unreduced={'X'})");
  EXPECT_EQ(spec_of({}, {"x"}).repr(), "P(unreduced={'x'})");
  EXPECT_EQ(spec_of({In::none()}, {}, {"x"}).repr(), "P(None, reduced={'x'})");
  EXPECT_EQ(spec_of({In::name("a")}, {"x"}, {"y"}).repr(), "P('a', unreduced={'x'}, reduced={'y'})");
}

TEST(PartitionSpecCanonical, OneTuplesAndEmptyTuples) {
  // P(('x',)) is P('x'); P(()) and P([]) are P(None); lists become tuples.
  EXPECT_EQ(spec_of({In::tuple({In::name("x")})}), spec_of({In::name("x")}));
  EXPECT_EQ(spec_of({In::list({In::name("x")})}), spec_of({In::name("x")}));
  EXPECT_EQ(spec_of({In::tuple({})}), spec_of({In::none()}));
  EXPECT_EQ(spec_of({In::list({})}), spec_of({In::none()}));
  EXPECT_EQ(spec_of({In::list({In::name("x"), In::name("y")})}).repr(), "P(('x', 'y'),)");
}

TEST(PartitionSpecCanonical, NestedTupleIsAnError) {
  Checked<PartitionSpec> spec =
      PartitionSpec::make({In::tuple({In::name("x"), In::tuple({In::name("y")})})});
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().error_class, ErrorClass::ValueError);
  EXPECT_EQ(spec.error().message,
            "A tuple inside PartitionSpec cannot contain a nested tuple. Got partition: ('x', ('y',)) and the "
            "nested tuple: ('y',)");
}

TEST(PartitionSpecCanonical, OverlapErrors) {
  Checked<PartitionSpec> unreduced = PartitionSpec::make({In::name("X"), In::none()}, {"X"});
  ASSERT_FALSE(unreduced.ok());
  EXPECT_EQ(unreduced.error().message,
            "partitions cannot overlap with unreduced axes passed to PartitionSpec. Got partitions: ('X', None) and "
            "unreduced axes: frozenset({'X'})");
  Checked<PartitionSpec> reduced = PartitionSpec::make({In::tuple({In::name("X"), In::name("Y")})}, {}, {"Y"});
  ASSERT_FALSE(reduced.ok());
  EXPECT_EQ(reduced.error().message,
            "partitions cannot overlap with reduced axes passed to PartitionSpec. Got partitions: (('X', 'Y'),) and "
            "reduced axes: frozenset({'Y'})");
  Checked<PartitionSpec> both = PartitionSpec::make({}, {"X"}, {"X"});
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().message,
            "`unreduced` and `reduced` argument to PartitionSpec cannot overlap. Got unreduced: frozenset({'X'}) and "
            "reduced: frozenset({'X'})");
}

TEST(CheckSpec, AcceptsAValidSpec) {
  EXPECT_EQ(check_spec(*xy_mesh(), spec_of({In::name("X"), In::name("Y")})), std::nullopt);
  EXPECT_EQ(check_spec(*xy_mesh(), spec_of({In::tuple({In::name("X"), In::name("Y")})}, {})), std::nullopt);
}

TEST(CheckSpec, AxisNotInMesh) {
  std::optional<Error> error = check_spec(*xy_mesh(), spec_of({In::name("Z")}));
  ASSERT_TRUE(error);
  EXPECT_EQ(error->error_class, ErrorClass::ValueError);
  EXPECT_EQ(error->message, "Resource axis: Z of P('Z',) is not found in mesh: ('X', 'Y').");
}

TEST(CheckSpec, DuplicateAxis) {
  std::optional<Error> error =
      check_spec(*xy_mesh(), spec_of({In::name("X"), In::tuple({In::name("Y"), In::name("X")})}));
  ASSERT_TRUE(error);
  EXPECT_EQ(error->error_class, ErrorClass::DuplicateSpecError);
  EXPECT_EQ(error->message,
            "A single NamedSharding spec specification can map every mesh axis to at most one positional dimension, "
            "but P('X', ('Y', 'X')) has duplicate entries for `X`");
  std::optional<Error> two = check_spec(*xy_mesh(), spec_of({In::name("Y"), In::name("X"), In::name("Y"),
                                                              In::name("X")}));
  ASSERT_TRUE(two);
  EXPECT_EQ(two->message,
            "A single NamedSharding spec specification can map every mesh axis to at most one positional dimension, "
            "but P('Y', 'X', 'Y', 'X') has duplicate entries for `X`, `Y`");
}

TEST(CheckSpec, DuplicatesAreReportedBeforeMissingAxes) {
  std::optional<Error> error = check_spec(*xy_mesh(), spec_of({In::name("Z"), In::name("Z")}));
  ASSERT_TRUE(error);
  EXPECT_EQ(error->error_class, ErrorClass::DuplicateSpecError);
}

TEST(CheckSpec, ATupleMayMixExplicitAndAutoAxes) {
  MeshRef mesh = mesh_of({{"x", 2, AxisType::Explicit}, {"y", 2, AxisType::Auto}});
  EXPECT_EQ(check_spec(*mesh, spec_of({In::tuple({In::name("x"), In::name("y")})})), std::nullopt);
}

TEST(CheckSpec, UnreducedAxes) {
  std::optional<Error> missing = check_spec(*xy_mesh(), spec_of({}, {"Z"}));
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->message, "Unreduced axes Z is not found in mesh.axis_names=('X', 'Y'). Got pspec=P(unreduced={'Z'})");
  MeshRef auto_mesh = mesh_of({{"X", 4, AxisType::Auto}});
  std::optional<Error> not_explicit = check_spec(*auto_mesh, spec_of({}, {"X"}));
  ASSERT_TRUE(not_explicit);
  EXPECT_EQ(not_explicit->message,
            "Unreduced axes can only refer to mesh axes that is of type `Explicit`. Got unreduced axes: "
            "frozenset({'X'}) and mesh: AbstractMesh('X': 4, axis_types=(Auto,))");
  std::optional<Error> reduced = check_spec(*auto_mesh, spec_of({}, {}, {"X"}));
  ASSERT_TRUE(reduced);
  EXPECT_EQ(reduced->message,
            "Reduced axes can only refer to mesh axes that is of type `Explicit`. Got reduced axes: "
            "frozenset({'X'}) and mesh: AbstractMesh('X': 4, axis_types=(Auto,))");
}

TEST(Mesh, Repr) {
  EXPECT_EQ(xy_mesh()->repr(), "AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit))");
  EXPECT_EQ(xy_mesh()->axis_names_repr(), "('X', 'Y')");
  EXPECT_EQ(xy_mesh()->device_count(), 8);
  MeshRef manual = xy_mesh()->with_axis_types({"X"}, AxisType::Manual);
  EXPECT_EQ(manual->repr(), "AbstractMesh('X': 4, 'Y': 2, axis_types=(Manual, Explicit))");
  EXPECT_FALSE(same_mesh(manual, xy_mesh()));
  EXPECT_TRUE(same_mesh(xy_mesh(), xy_mesh()));
  EXPECT_FALSE(same_mesh(xy_mesh(), nullptr));
  EXPECT_TRUE(same_mesh(nullptr, nullptr));
}

TEST(Mesh, InvalidAxes) {
  EXPECT_FALSE(AbstractMesh::make({{"X", 2, AxisType::Explicit}, {"X", 2, AxisType::Explicit}}).ok());
  EXPECT_FALSE(AbstractMesh::make({{"X", 0, AxisType::Explicit}}).ok());
  EXPECT_FALSE(AbstractMesh::make({{"", 2, AxisType::Explicit}}).ok());
}

}  // namespace
}  // namespace typecheck
