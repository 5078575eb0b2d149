// Reductions: reference §2.4 (spec minus the reduced dims, keepdims, dtypes)
// and §2.13 (out_sharding with unreduced axes).
#include "typecheck/reduction_rules.hpp"

#include "rule_test_support.hpp"

namespace typecheck {
namespace {

using namespace typecheck::testing;
using Axes = std::optional<std::vector<std::int64_t>>;

TEST(Reduction, DropsReducedDims) {
  const MeshRef mesh = mesh_of({{"x", 4, AxisType::Explicit}, {"y", 2, AxisType::Explicit}});
  EXPECT_EQ(outcome(reduction_rule("sum", parse("f32[8@x,2@y]", mesh), Axes{{0}})), "f32[2@y]");
  EXPECT_EQ(outcome(reduction_rule("sum", parse("i32[8@(x,y),2]", mesh), Axes{{1}})), "i32[8@(x,y)]");
  EXPECT_EQ(outcome(reduction_rule("max", parse("f32[8@x,2@y]", mesh), std::nullopt)), "f32[]");
  EXPECT_EQ(outcome(reduction_rule("min", parse("f32[8@x,2@y,4]", mesh), Axes{{-1, 0}})), "f32[2@y]");
  // c05: jnp.sum(out, axis=0) on int32[8@X,2@Y].
  EXPECT_EQ(reduction_rule("sum", parse("i32[8@X,2@Y]", xy_mesh()), Axes{{0}}).value().str(), "int32[2@Y]");
}

TEST(Reduction, KeepdimsInsertsUnshardedOnes) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(reduction_rule("sum", parse("f32[8@X,2@Y]", mesh), Axes{{1}}, true)), "f32[8@X,1]");
  EXPECT_EQ(outcome(reduction_rule("prod", parse("f32[8@X,2@Y]", mesh), std::nullopt, true)), "f32[1,1]");
}

TEST(Reduction, Dtypes) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(reduction_rule("mean", parse("i32[8@X]", mesh), std::nullopt)), "f32[]");
  EXPECT_EQ(outcome(reduction_rule("var", parse("bf16[8@X,2]", mesh), Axes{{0}})), "bf16[2]");
  // The primitive is lax's: its sums keep the dtype and refuse booleans (jnp.sum widens first).
  EXPECT_EQ(outcome(reduction_rule("sum", parse("i8[8@X]", mesh), std::nullopt)), "i8[]");
  EXPECT_EQ(outcome(reduction_rule("sum", parse("bool[8@X]", mesh), std::nullopt)),
            "TypeError: reduce_sum does not accept dtype bool. Accepted dtypes are subtypes of number.");
  EXPECT_EQ(outcome(reduction_rule("std", parse("f32[8@X,2@Y]", mesh), Axes{{1}})), "f32[8@X]");
}

// lax.sort: the result is the operand returned (or the int32 permutation);
// equal shapes; on Explicit axes unsharded over the sorted dim, equal shardings.
TEST(Reduction, SortRule) {
  const MeshRef mesh = xy_mesh();
  const std::vector<ArrayType> one{parse("f32[8@X,4]", mesh)};
  EXPECT_EQ(outcome(sort_rule(one, 1, 0)), "f32[8@X,4]");
  EXPECT_EQ(outcome(sort_rule(one, 1, 1)), "i32[8@X,4]");
  EXPECT_EQ(outcome(sort_rule(one, 0, 0)).rfind("ShardingTypeError: Arguments to sort must be unsharded over the sorting "
                                                "dimension. Got arg sharding=NamedSharding(", 0), 0u);
  const std::vector<ArrayType> shapes{parse("f32[8]", mesh), parse("i32[4]", mesh)};
  EXPECT_EQ(outcome(sort_rule(shapes, 0, 0)), "TypeError: Arguments to sort must have equal shapes, got: (8,) (4,)");
  const std::vector<ArrayType> shardings{parse("f32[8@X,4]", mesh), parse("i32[8,4]", mesh)};
  EXPECT_EQ(outcome(sort_rule(shardings, 1, 1)).rfind("ShardingTypeError: Arguments to sort must have equal shardings", 0), 0u);
}

TEST(Reduction, ArgReductions) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(reduction_rule("argmax", parse("f32[8@X,2@Y]", mesh), Axes{{1}})), "i32[8@X]");
  // axis=None ravels first: (8@X, 2@Y) merges into 16@(X,Y).
  EXPECT_EQ(outcome(reduction_rule("argmin", parse("f32[8@X,2@Y]", mesh), std::nullopt)), "i32[]");
  EXPECT_EQ(outcome(reduction_rule("argmax", parse("f32[8,2@Y]", mesh), std::nullopt)),
            "ShardingTypeError: This reshape is not supported. Please specify the sharding of the output via the "
            "`out_sharding` argument of jax.lax.reshape. Got operand type: float32[8,2@Y], new sizes: (16,)");
  EXPECT_EQ(outcome(reduction_rule("argmax", parse("f32[8,2]", mesh), Axes{{0, 1}})),
            "TypeError: argmax requires an int axis or None");
}

TEST(Reduction, AxisErrors) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(reduction_rule("sum", parse("f32[8,2]", mesh), Axes{{2}})),
            "ValueError: axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(outcome(reduction_rule("sum", parse("f32[8,2]", mesh), Axes{{0, -2}})),
            "ValueError: duplicate value in 'axis': (0, -2)");
}

TEST(Reduction, OutShardingAndUnreduced) {
  const MeshRef mesh = xy_mesh();
  const ArrayType x = parse("f32[8@X,2@Y]", mesh);
  const Sharding partial = make_sharding(mesh, spec_of({{}}, {"X"}), Shape{2}).value();
  EXPECT_EQ(reduction_rule("sum", x, Axes{{0}}, false, partial).value().str(), "float32[2]{U:X}");
  const Sharding wrong = make_sharding(mesh, spec_of({{}}, {"Y"}), Shape{2}).value();
  EXPECT_EQ(outcome(reduction_rule("sum", x, Axes{{0}}, false, wrong)),
            "ShardingTypeError: out_sharding's unreduced axes should be in operand's specs that were reduce_sum over. "
            "Got out_sharding=P(None, unreduced={'Y'}) and operand=f32[8@X,2@Y]");
  // A partial sum stays partial through a sum, not through a max.
  const ArrayType unreduced = parse("f32[8,16]{U:X}", mesh);
  EXPECT_EQ(outcome(reduction_rule("sum", unreduced, Axes{{0}})), "f32[16]{U:X}");
  EXPECT_EQ(outcome(reduction_rule("max", unreduced, Axes{{0}})),
            "NotImplementedError: unreduced rule for reduce_max is not implemented. Please file an issue at "
            "https://github.com/jax-ml/jax/issues");
}

TEST(Reduction, FactorRule) {
  const std::size_t reduced[] = {0};
  EXPECT_EQ(reduction_factor_rule(2, reduced).str(), "([i,j]) -> ([j]) reduction={i}");
}

}  // namespace
}  // namespace typecheck
