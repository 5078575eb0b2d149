// The partitioner's collective planning from a traced program: on a mesh
// with Auto axes the types show no sharding, so it plans from the layouts
// the program recorded for its variables.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/ops/contractions.hpp"
#include "interp/transforms/partitioner.hpp"

namespace interp {
namespace {

struct Mesh1D {
  typecheck::MeshRef abstract;
  DeviceMeshRef devices;
};

Mesh1D mesh_of(typecheck::AxisType type) {
  typecheck::MeshRef abstract = typecheck::AbstractMesh::make({{"x", 8, type}}).value();
  auto mesh = std::make_shared<DeviceMesh>();
  mesh->shape = {8};
  mesh->abstract = abstract;
  return {abstract, mesh};
}

// A variable of `shape` whose type shows `type_dims` and whose data lies as
// `layout_dims` (no layout when nullopt).
int add(Jaxpr& program, const Mesh1D& mesh, typecheck::Shape shape, std::vector<typecheck::SpecEntry> type_dims,
        std::optional<std::vector<typecheck::SpecEntry>> layout_dims) {
  typecheck::ArrayType type;
  type.shape = shape;
  type.sharding.mesh = mesh.abstract;
  type.sharding.dims = std::move(type_dims);
  std::optional<Layout> layout;
  if (layout_dims) layout = Layout{mesh.devices, *layout_dims};
  return program.add_variable(type, layout);
}

// g = dot_general(ct, x) contracting both operands' rows (the parameter
// gradient of a data-parallel layer), rows split over 'x' in each layout.
std::vector<std::string> gradient_contraction(typecheck::AxisType axis_type, bool with_layouts) {
  Mesh1D mesh = mesh_of(axis_type);
  bool explicit_axes = axis_type == typecheck::AxisType::Explicit;
  std::vector<typecheck::SpecEntry> rows_split{{"x"}, {}};
  std::vector<typecheck::SpecEntry> whole{{}, {}};
  auto layout = [&](const std::vector<typecheck::SpecEntry>& dims) {
    return with_layouts ? std::optional(dims) : std::nullopt;
  };
  Jaxpr program;
  int ct = add(program, mesh, {16, 3}, explicit_axes ? rows_split : whole, layout(rows_split));
  int x = add(program, mesh, {16, 4}, explicit_axes ? rows_split : whole, layout(rows_split));
  int g = add(program, mesh, {3, 4}, whole, layout(whole));
  Equation e{&primitive("dot_general"), {ct, x}, {}, g};
  set_dot_dimension_numbers(e.params, typecheck::DotDimensionNumbers{{0}, {0}, {}, {}}, 2);
  std::vector<std::string> out;
  for (const auto& planned : plan_collectives(program, e))
    out.push_back(planned.name + planned.details + (planned.after ? " after" : ""));
  return out;
}

TEST(PartitionerTest, AutoAxisLayoutSplittingTheContractionGivesAnAllReduce) {
  EXPECT_EQ(gradient_contraction(typecheck::AxisType::Auto, true),
            std::vector<std::string>{"all-reduce(c), axes={x} after"});
}

TEST(PartitionerTest, AutoTypesWithoutLayoutsPlanNothing) {
  EXPECT_TRUE(gradient_contraction(typecheck::AxisType::Auto, false).empty());
}

TEST(PartitionerTest, ExplicitTypesPlanByDimensionNumbers) {
  // Explicit types show the split rows themselves: the same all-reduce,
  // with or without layouts.
  EXPECT_EQ(gradient_contraction(typecheck::AxisType::Explicit, false),
            std::vector<std::string>{"all-reduce(c), axes={x} after"});
}

TEST(PartitionerTest, AutoLayoutOfAnElementwiseOperandIsResharded) {
  Mesh1D mesh = mesh_of(typecheck::AxisType::Auto);
  Jaxpr program;
  int a = add(program, mesh, {8}, {{}}, std::vector<typecheck::SpecEntry>{{"x"}});
  int b = add(program, mesh, {8}, {{}}, std::vector<typecheck::SpecEntry>{{}});
  int sum = add(program, mesh, {8}, {{}}, std::vector<typecheck::SpecEntry>{{"x"}});
  Equation e{&primitive("add"), {a, b}, {}, sum};
  auto planned = plan_collectives(program, e);
  ASSERT_EQ(planned.size(), 1u);
  EXPECT_EQ(planned[0].name, "dynamic-slice");
  EXPECT_EQ(planned[0].details, "(b), axes={x}");
}

}  // namespace
}  // namespace interp
