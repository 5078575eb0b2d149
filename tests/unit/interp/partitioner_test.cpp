// The partitioner's per-device program from a traced program: each
// equation's decision made from the layouts the program recorded for its
// variables (on a mesh with Auto axes the types show no sharding), its
// collectives as explicit steps around the kernel.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "devices/kernels.hpp"
#include "interp/ops/contractions.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/transforms/partitioner.hpp"
#include "interp/transforms/trace.hpp"

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
// Each collective of the one-equation program's steps: "name(details)",
// with " after" for the result's.
std::vector<std::string> collectives(const Jaxpr& built) {
  Evaluator evaluator;
  PartitionedProgram partitioned = partition_program(evaluator, std::make_shared<const Jaxpr>(built));
  std::vector<std::string> out;
  for (const auto& step : partitioned.equations.at(0).steps)
    for (const auto& planned : step.collectives) out.push_back(planned.name + planned.details + (planned.after ? " after" : ""));
  return out;
}

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
  // Explicit types make the summed contraction's result ambiguous: the
  // program says it is replicated.
  if (explicit_axes) e.params.set("out_sharding", typecheck::ShardingArg{mesh.abstract, typecheck::PartitionSpec::from_entries(whole)});
  program.equations.push_back(e);
  return collectives(program);
}

TEST(PartitionerTest, AutoAxisLayoutSplittingTheContractionGivesAnAllReduce) {
  EXPECT_EQ(gradient_contraction(typecheck::AxisType::Auto, true),
            std::vector<std::string>{"all-reduce(c), axes={x} after"});
}

TEST(PartitionerTest, AnEquationWithoutRecordedLayoutsIsReplayedAndPlansNothing) {
  EXPECT_TRUE(gradient_contraction(typecheck::AxisType::Auto, false).empty());
}

TEST(PartitionerTest, ExplicitTypesGiveTheSameAllReduce) {
  EXPECT_EQ(gradient_contraction(typecheck::AxisType::Explicit, true),
            std::vector<std::string>{"all-reduce(c), axes={x} after"});
}

TEST(PartitionerTest, ASplitContractionIsAKernelThenACombineStep) {
  Mesh1D mesh = mesh_of(typecheck::AxisType::Auto);
  std::vector<typecheck::SpecEntry> rows_split{{"x"}, {}}, whole{{}, {}};
  Jaxpr program;
  int ct = add(program, mesh, {16, 3}, whole, rows_split);
  int x = add(program, mesh, {16, 4}, whole, rows_split);
  int g = add(program, mesh, {3, 4}, whole, whole);
  Equation e{&primitive("dot_general"), {ct, x}, {}, g};
  set_dot_dimension_numbers(e.params, typecheck::DotDimensionNumbers{{0}, {0}, {}, {}}, 2);
  program.equations.push_back(e);
  Evaluator evaluator;
  PartitionedProgram partitioned = partition_program(evaluator, std::make_shared<const Jaxpr>(program));
  const auto& equation = partitioned.equations.at(0);
  ASSERT_NE(equation.placement, nullptr);
  EXPECT_EQ(equation.placement->summed, typecheck::SpecEntry{"x"});
  std::vector<Step::Kind> kinds;
  for (const auto& step : equation.steps) kinds.push_back(step.kind);
  EXPECT_EQ(kinds, (std::vector<Step::Kind>{Step::Kind::kernel, Step::Kind::combine, Step::Kind::finish}));
  // Each device multiplies its two rows of both operands.
  EXPECT_EQ(equation.placement->operands[0].shard_shape({16, 3}), (typecheck::Shape{2, 3}));
}

TEST(PartitionerTest, AutoLayoutOfAnElementwiseOperandIsResharded) {
  Mesh1D mesh = mesh_of(typecheck::AxisType::Auto);
  Jaxpr program;
  int a = add(program, mesh, {8}, {{}}, std::vector<typecheck::SpecEntry>{{"x"}});
  int b = add(program, mesh, {8}, {{}}, std::vector<typecheck::SpecEntry>{{}});
  int sum = add(program, mesh, {8}, {{}}, std::vector<typecheck::SpecEntry>{{"x"}});
  program.equations.push_back(Equation{&primitive("add"), {a, b}, {}, sum});
  EXPECT_EQ(collectives(program), std::vector<std::string>{"dynamic-slice(b), axes={x}"});
}

// A traced equation keeps the decision its application made: the
// partitioner plans from it rather than deciding again.
TEST(PartitionerTest, TheDecisionATraceMadeIsTheOnePartitioned) {
  Mesh1D mesh = mesh_of(typecheck::AxisType::Auto);
  typecheck::ArrayType type;
  type.shape = {8};
  type.sharding.mesh = mesh.abstract;
  type.sharding.dims = {{}};
  Evaluator evaluator;
  JitTrace trace;
  ArrayRef a = trace.add_input(*make_abstract_array(type, Layout{mesh.devices, {{"x"}}}, false));
  ArrayRef b = trace.add_input(*make_abstract_array(type, Layout{mesh.devices, {{}}}, false));
  ArrayRef sum = trace.process(evaluator, primitive("add"), {a, b}, {});
  const Jaxpr& program = *trace.program;
  ASSERT_EQ(program.equations.size(), 1u);
  ASSERT_NE(program.equations[0].placement, nullptr);
  EXPECT_EQ(program.equations[0].placement->layout, sum->layout);
  PartitionedProgram partitioned = partition_program(evaluator, trace.program);
  EXPECT_EQ(partitioned.equations.at(0).placement, program.equations[0].placement);
}

// Equations computed from the program's constants alone are marked
// constant (runs after the first reuse their values), unless one is a
// program output; one reading an argument is not, nor what follows from it.
TEST(PartitionerTest, EquationsOfConstantsAloneAreMarkedConstant) {
  Mesh1D mesh = mesh_of(typecheck::AxisType::Auto);
  Jaxpr program;
  int constant = add(program, mesh, {8}, {{}}, std::nullopt);
  int argument = add(program, mesh, {8}, {{}}, std::nullopt);
  int negated = add(program, mesh, {8}, {{}}, std::nullopt);
  int doubled = add(program, mesh, {8}, {{}}, std::nullopt);
  int sum = add(program, mesh, {8}, {{}}, std::nullopt);
  int output = add(program, mesh, {8}, {{}}, std::nullopt);
  program.constants.emplace_back(constant, nullptr);
  program.inputs = {argument};
  program.equations.push_back(Equation{&primitive("negative"), {constant}, {}, negated});
  program.equations.push_back(Equation{&primitive("add"), {negated, negated}, {}, doubled});
  program.equations.push_back(Equation{&primitive("add"), {argument, doubled}, {}, sum});
  program.equations.push_back(Equation{&primitive("negative"), {constant}, {}, output});
  program.outputs = {sum, output};
  Evaluator evaluator;
  PartitionedProgram partitioned = partition_program(evaluator, std::make_shared<const Jaxpr>(program));
  mark_constants(partitioned);
  std::vector<bool> marked;
  for (const auto& pe : partitioned.equations) marked.push_back(pe.constant);
  EXPECT_EQ(marked, (std::vector<bool>{true, true, false, false}));
  // By variable: the constant and the values made from it alone.
  EXPECT_EQ(partitioned.same_every_run, (std::vector<bool>{true, false, true, true, false, false}));
}

// A value moved where a kernel needs it is moved once per run; one the
// same on every run once for every run (the executable keeps the copy).
TEST(PartitionerTest, ValuesTheSameOnEveryRunAreMovedOnce) {
  Evaluator evaluator;
  Runtime& runtime = runtime_of(evaluator);
  typecheck::ArrayType type;
  type.shape = {8};
  type.sharding = typecheck::Sharding::replicated(nullptr, 1);
  ArrayRef value = host_array(evaluator, type, [&] {
    return devices::make_local_array(runtime.ledger(), typecheck::DType::float32, {8}).value();
  });
  const Layout elsewhere{runtime.single_device_mesh(1), {{}}};
  const std::vector<bool> same_every_run{true, false};
  MovedValues kept;
  auto moved = [&](int variable) {
    ProgramValues values(2, &same_every_run, &kept);
    values[variable] = value;
    ArrayRef first = values.where_needed(evaluator, variable, elsewhere);
    EXPECT_EQ(values.where_needed(evaluator, variable, elsewhere), first);  // once per run
    EXPECT_EQ(first->layout, elsewhere);
    return first;
  };
  EXPECT_EQ(moved(0), moved(0));
  EXPECT_NE(moved(1), moved(1));
}

}  // namespace
}  // namespace interp
