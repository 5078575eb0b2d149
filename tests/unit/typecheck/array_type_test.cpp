// ArrayType construction (JAX's invariants and errors), printing in the long
// and short forms, local shapes, and parse <-> print round trips.
#include <gtest/gtest.h>

#include "typecheck/array_type.hpp"
#include "typecheck/type_parser.hpp"

namespace typecheck {
namespace {

using In = SpecInput;

MeshRef mesh_of(std::vector<MeshAxis> axes) { return AbstractMesh::make(std::move(axes)).value(); }
MeshRef xy_mesh() { return mesh_of({{"X", 4, AxisType::Explicit}, {"Y", 2, AxisType::Explicit}}); }
MeshRef model_data_mesh() {
  return mesh_of({{"model", 2, AxisType::Explicit}, {"data", 2, AxisType::Explicit}});
}

PartitionSpec spec_of(std::vector<SpecInput> partitions, AxisSet unreduced = {}) {
  return PartitionSpec::make(partitions, unreduced).value();
}

ArrayType type_of(DType dtype, Shape shape, const MeshRef& mesh, const PartitionSpec& spec,
                  ManualAxisType manual = {}, bool weak = false) {
  Checked<ArrayType> type = make_array_type({dtype, weak}, std::move(shape), mesh, spec, std::move(manual));
  EXPECT_TRUE(type.ok()) << type.error().str();
  return type ? type.value() : ArrayType{};
}

// pjit_test.py::test_aval_repr, mesh (2,2) ('model','data'), shape (128,64).
TEST(ArrayTypePrint, AvalReprTable) {
  const MeshRef mesh = model_data_mesh();
  struct Row {
    std::vector<SpecInput> spec;
    const char* long_form;
    const char* short_form;
  };
  const Row rows[] = {
      {{In::name("model"), In::name("data")}, "float32[128@model,64@data]", "f32[128@model,64@data]"},
      {{In::name("model"), In::none()}, "float32[128@model,64]", "f32[128@model,64]"},
      {{In::none(), In::name("data")}, "float32[128,64@data]", "f32[128,64@data]"},
      {{In::none(), In::none()}, "float32[128,64]", "f32[128,64]"},
      {{In::tuple({In::name("model"), In::name("data")}), In::none()}, "float32[128@(model,data),64]",
       "f32[128@(model,data),64]"},
  };
  for (const Row& row : rows) {
    const ArrayType type = type_of(DType::float32, {128, 64}, mesh, spec_of(row.spec));
    EXPECT_EQ(type.str(), row.long_form);
    EXPECT_EQ(type.short_str(), row.short_form);
  }
}

TEST(ArrayTypePrint, ScalarsWeakTypesAndConformanceExamples) {
  EXPECT_EQ(type_of(DType::float32, {}, nullptr, {}).str(), "float32[]");
  const ArrayType weak_scalar = type_of(DType::float32, {}, nullptr, {}, {}, true);
  EXPECT_EQ(weak_scalar.str(), "~float32[]");
  EXPECT_EQ(weak_scalar.short_str(), "f32[]");  // str_short never marks weakness
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(type_of(DType::int32, {8, 2}, mesh, spec_of({In::name("X"), In::name("Y")})).str(), "int32[8@X,2@Y]");
  EXPECT_EQ(type_of(DType::int32, {8, 2}, mesh, spec_of({In::tuple({In::name("X"), In::name("Y")}), In::none()}))
                .str(),
            "int32[8@(X,Y),2]");
  EXPECT_EQ(type_of(DType::bfloat16, {2048, 8192}, mesh, spec_of({In::name("Y")})).str(), "bfloat16[2048@Y,8192]");
  EXPECT_EQ(type_of(DType::bfloat16, {8, 2048}, mesh, spec_of({In::name("X"), In::name("Y")})).short_str(),
            "bf16[8@X,2048@Y]");
}

TEST(ArrayTypePrint, ManualAndUnreducedBlocks) {
  const MeshRef manual = mesh_of({{"i", 2, AxisType::Manual}, {"j", 2, AxisType::Manual}});
  EXPECT_EQ(type_of(DType::float32, {3}, manual, {}, {.varying = {"i"}}).str(), "float32[3]{V:i}");
  // Axes inside an entry follow the mesh order, not the set's.
  const MeshRef ji = mesh_of({{"j", 2, AxisType::Manual}, {"i", 2, AxisType::Manual}});
  EXPECT_EQ(type_of(DType::float32, {2, 2}, ji, {}, {.varying = {"i", "j"}}).str(), "float32[2,2]{V:(j,i)}");
  EXPECT_EQ(type_of(DType::float32, {8, 16}, xy_mesh(), spec_of({In::none(), In::none()}, {"X"})).str(),
            "float32[8,16]{U:X}");
  const MeshRef mixed = mesh_of({{"x", 2, AxisType::Manual}, {"y", 2, AxisType::Explicit}});
  EXPECT_EQ(type_of(DType::float32, {1, 2}, mixed, spec_of({}, {"y"}), {.varying = {"x"}}).str(),
            "float32[1,2]{V:x, U:y}");
  EXPECT_EQ(type_of(DType::float32, {4, 2}, mixed, spec_of({In::none(), In::name("y")}), {.varying = {"x"}}).str(),
            "float32[4,2@y]{V:x}");
  EXPECT_EQ(type_of(DType::float32, {4}, manual, {}, {.reduced = {"i"}}).str(), "float32[4]{R:i}");
}

TEST(MakeSharding, PadsToRankAndKeepsOnlyExplicitAxes) {
  const MeshRef mesh = mesh_of({{"x", 2, AxisType::Explicit}, {"y", 2, AxisType::Auto}});
  // test_mix_axis_type_in_pspec: P(('x','y'), None) types as P('x', None).
  const ArrayType type =
      type_of(DType::float32, {8, 4}, mesh, spec_of({In::tuple({In::name("x"), In::name("y")}), In::none()}));
  EXPECT_EQ(type.sharding.spec().repr(), "P('x', None)");
  const ArrayType auto_only = type_of(DType::float32, {8, 4}, mesh, spec_of({In::none(), In::name("y")}));
  EXPECT_EQ(auto_only.str(), "float32[8,4]");
  const ArrayType padded = type_of(DType::float32, {8, 4, 2}, mesh, spec_of({In::name("x")}));
  EXPECT_EQ(padded.sharding.dims.size(), 3u);
  EXPECT_EQ(padded.sharding.spec().repr(), "P('x', None, None)");
}

TEST(MakeSharding, Divisibility) {
  Checked<Sharding> sharding = make_sharding(xy_mesh(), spec_of({In::name("X")}), Shape{6});
  ASSERT_FALSE(sharding.ok());
  EXPECT_EQ(sharding.error().error_class, ErrorClass::ValueError);
  EXPECT_EQ(sharding.error().message,
            "Sharding spec ('X',) implies that array axis 0 is partitioned 4 times, but does not evenly divide the "
            "dimension size 6. Got shape: (6,) and sharding NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, "
            "axis_types=(Explicit, Explicit)), spec=P('X',))");
  Checked<Sharding> tuple_entry =
      make_sharding(xy_mesh(), spec_of({In::none(), In::tuple({In::name("X"), In::name("Y")})}), Shape{3, 4});
  ASSERT_FALSE(tuple_entry.ok());
  EXPECT_EQ(tuple_entry.error().message,
            "Sharding spec ('X', 'Y') implies that array axis 1 is partitioned 8 times, but does not evenly divide "
            "the dimension size 4. Got shape: (3, 4) and sharding NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, "
            "axis_types=(Explicit, Explicit)), spec=P(None, ('X', 'Y')))");
}

TEST(MakeSharding, SpecLongerThanRank) {
  Checked<Sharding> sharding = make_sharding(xy_mesh(), spec_of({In::name("X"), In::name("Y")}), Shape{8});
  ASSERT_FALSE(sharding.ok());
  EXPECT_EQ(sharding.error().message,
            "Length of sharding.spec (2) must be equal to aval's ndim (1). Got sharding.spec P('X', 'Y'), aval.ndim 1 "
            "and sharding NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit)), "
            "spec=P('X', 'Y'))");
}

TEST(MakeSharding, SpecErrorsComeFromCheckSpec) {
  Checked<Sharding> missing = make_sharding(xy_mesh(), spec_of({In::name("Z")}), Shape{8});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "Resource axis: Z of P('Z',) is not found in mesh: ('X', 'Y').");
  Checked<Sharding> twice = make_sharding(xy_mesh(), spec_of({In::name("X"), In::name("X")}), Shape{8, 8});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().error_class, ErrorClass::DuplicateSpecError);
  Checked<Sharding> no_mesh = make_sharding(nullptr, spec_of({In::name("X")}), Shape{8});
  ASSERT_FALSE(no_mesh.ok());
  EXPECT_EQ(no_mesh.error().message, "Resource axis: X of P('X',) is not found in mesh: ().");
}

TEST(MakeArrayType, ManualAxesMustBeManual) {
  Checked<ArrayType> type = make_array_type({DType::float32, false}, {4}, xy_mesh(), {}, {.varying = {"X"}});
  ASSERT_FALSE(type.ok());
  EXPECT_EQ(type.error().error_class, ErrorClass::ValueError);
  EXPECT_NE(type.error().message.find("should be of type Manual"), std::string::npos);
}

TEST(LocalShape, DividesEachDimensionByItsShards) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(local_shape(type_of(DType::float32, {8, 2}, mesh, spec_of({In::name("X"), In::name("Y")}))),
            (Shape{2, 1}));
  EXPECT_EQ(local_shape(type_of(DType::float32, {16, 3}, mesh, spec_of({In::tuple({In::name("X"), In::name("Y")})}))),
            (Shape{2, 3}));
  EXPECT_EQ(local_shape(type_of(DType::float32, {}, mesh, {})), Shape{});
}

// Every printed form parses back to the same type, in both spellings.
TEST(TypeParser, RoundTrips) {
  const MeshRef mesh = mesh_of({{"X", 4, AxisType::Explicit},
                                {"Y", 2, AxisType::Explicit},
                                {"i", 2, AxisType::Manual},
                                {"j", 2, AxisType::Manual}});
  const char* texts[] = {
      "float32[]",          "~float32[]",           "int32[8@X,2@Y]",   "int32[8@(X,Y),2]",
      "bfloat16[2048@Y,8192]", "float32[3]{V:i}",    "float32[2,2]{V:(i,j)}", "float32[8,16]{U:X}",
      "float32[4]{R:i}",    "float32[1,2]{V:i, U:Y}", "uint32[8,8,8@Y]",  "bool[4@X]",
      "int8[0]",            "float16[16@(Y,X),1]",  "~int32[]",         "float32[8,16]{U:(X,Y)}",
      "float32[4]{V:j, U:i, R:X}",
  };
  for (const char* text : texts) {
    Checked<ArrayType> type = parse_array_type(text, mesh);
    ASSERT_TRUE(type.ok()) << text << ": " << type.error().str();
    EXPECT_EQ(type.value().str(), text);
    Checked<ArrayType> again = parse_array_type(type.value().short_str(), mesh);
    ASSERT_TRUE(again.ok()) << type.value().short_str() << ": " << again.error().str();
    ArrayType expected = type.value();
    expected.weak_type = false;  // the short form does not print "~"
    EXPECT_EQ(again.value(), expected) << text;
  }
}

TEST(TypeParser, AcceptsTheDocsSpacing) {
  Checked<ArrayType> type = parse_array_type("f32[8@X, 4@Y]", xy_mesh());
  ASSERT_TRUE(type.ok()) << type.error().str();
  EXPECT_EQ(type.value().str(), "float32[8@X,4@Y]");
  EXPECT_EQ(type.value().short_str(), "f32[8@X,4@Y]");
  EXPECT_TRUE(same_mesh(type.value().sharding.mesh, xy_mesh()));
}

TEST(TypeParser, SyntaxErrorsNameTheColumn) {
  const MeshRef mesh = xy_mesh();
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"f32[8@", "cannot parse the array type 'f32[8@': expected a mesh axis name or '(' after '@' at column 7"},
      {"f64[8]", "cannot parse the array type 'f64[8]': unknown dtype 'f64' at column 4"},
      {"[8]", "cannot parse the array type '[8]': expected a dtype at column 1"},
      {"f32 8", "cannot parse the array type 'f32 8': expected '[' at column 5"},
      {"f32[8,]", "cannot parse the array type 'f32[8,]': expected a dimension size at column 7"},
      {"f32[8}", "cannot parse the array type 'f32[8}': expected ',' or ']' at column 6"},
      {"f32[8]{W:X}", "cannot parse the array type 'f32[8]{W:X}': expected V, U or R at column 9"},
      {"f32[8] x", "cannot parse the array type 'f32[8] x': unexpected text after the type at column 8"},
      {"f32[1234567890123456789]",
       "cannot parse the array type 'f32[1234567890123456789]': expected a dimension size at column 23"},
  };
  for (const Case& c : cases) {
    Checked<ArrayType> type = parse_array_type(c.text, mesh);
    ASSERT_FALSE(type.ok()) << c.text;
    EXPECT_EQ(type.error().error_class, ErrorClass::ValueError);
    EXPECT_EQ(type.error().message, c.message);
  }
}

TEST(TypeParser, SemanticErrorsAreJaxs) {
  Checked<ArrayType> missing = parse_array_type("f32[8@Z]", xy_mesh());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "Resource axis: Z of P('Z',) is not found in mesh: ('X', 'Y').");
  Checked<ArrayType> indivisible = parse_array_type("f32[6@X]", xy_mesh());
  ASSERT_FALSE(indivisible.ok());
  EXPECT_NE(indivisible.error().message.find("does not evenly divide the dimension size 6"), std::string::npos);
  Checked<ArrayType> twice = parse_array_type("f32[8@X,8@X]", xy_mesh());
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().error_class, ErrorClass::DuplicateSpecError);
}

}  // namespace
}  // namespace typecheck
