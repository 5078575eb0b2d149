// The linear-algebra rules: shapes, dtypes, and JAX's linalg_sharding_rule
// (matrix dims unsharded, one batch sharding).
#include "typecheck/linalg_rules.hpp"

#include "rule_test_support.hpp"

namespace typecheck {
namespace {

using namespace typecheck::testing;

TEST(Linalg, SolveShapesAndSharding) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(solve_rule(parse("f32[3,3]", mesh), parse("f32[3,2]", mesh))), "f32[3,2]");
  EXPECT_EQ(outcome(solve_rule(parse("f32[8@X,3,3]", mesh), parse("f32[8@X,3,1]", mesh))), "f32[8@X,3,1]");
  EXPECT_EQ(outcome(solve_rule(parse("f32[3,2]", mesh), parse("f32[3,1]", mesh))),
            "ValueError: The left-hand side of solve must be a batch of square matrices, got shape (3, 2)");
  EXPECT_EQ(outcome(solve_rule(parse("f32[3,3]", mesh), parse("f32[2,1]", mesh))),
            "ValueError: Incompatible shapes for solve: (3, 3) and (2, 1)");
  EXPECT_EQ(outcome(solve_rule(parse("f32[3,3]", mesh), parse("i32[3,1]", mesh))),
            "TypeError: solve requires operands of one float dtype, got float32 and int32");
  EXPECT_EQ(outcome(solve_rule(parse("f32[4@X,4]", mesh), parse("f32[4,1]", mesh))),
            "ShardingTypeError: Input 0 to linalg_solve must be unsharded on non-batch dimensions, but got P('X', None).");
  EXPECT_EQ(outcome(solve_rule(parse("f32[8@X,2,2]", mesh), parse("f32[8,2,1]", mesh))),
            "ShardingTypeError: All inputs to linalg_solve must have the same batch sharding, but got P('X',) and P(None,).");
}

TEST(Linalg, CholeskyShapesAndSharding) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(cholesky_rule(parse("f32[8@X,3,3]", mesh))), "f32[8@X,3,3]");
  EXPECT_EQ(outcome(cholesky_rule(parse("f32[3,2]", mesh))),
            "ValueError: The input to cholesky must be a batch of square matrices, got shape (3, 2)");
  EXPECT_EQ(outcome(cholesky_rule(parse("i32[2,2]", mesh))), "TypeError: cholesky requires a float operand, got int32");
  EXPECT_EQ(outcome(cholesky_rule(parse("f32[4,4@X]", mesh))),
            "ShardingTypeError: Input 0 to cholesky must be unsharded on non-batch dimensions, but got P(None, 'X').");
}

TEST(Linalg, SlogdetDropsTheMatrixDims) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(slogdet_rule(parse("f32[8@X,3,3]", mesh))), "f32[8@X]");
  EXPECT_EQ(outcome(slogdet_rule(parse("f32[2,2]", mesh))), "f32[]");
  EXPECT_EQ(outcome(slogdet_rule(parse("f32[2,3]", mesh))),
            "ValueError: The input to slogdet must be a batch of square matrices, got shape (2, 3)");
}

TEST(Linalg, QrShapes) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(qr_rule(parse("f32[8@X,4,3]", mesh), false, 0)), "f32[8@X,4,3]");
  EXPECT_EQ(outcome(qr_rule(parse("f32[8@X,4,3]", mesh), false, 1)), "f32[8@X,3,3]");
  EXPECT_EQ(outcome(qr_rule(parse("f32[4,3]", mesh), true, 0)), "f32[4,4]");
  EXPECT_EQ(outcome(qr_rule(parse("f32[4,3]", mesh), true, 1)), "f32[4,3]");
  EXPECT_EQ(outcome(qr_rule(parse("f32[3,5]", mesh), false, 0)), "f32[3,3]");
  EXPECT_EQ(outcome(qr_rule(parse("f32[3,5]", mesh), false, 1)), "f32[3,5]");
  EXPECT_EQ(outcome(qr_rule(parse("f32[3]", mesh), false, 0)),
            "TypeError: Input 0 to qr must have rank at least 2, but got shape=(3,)");
  EXPECT_EQ(outcome(qr_rule(parse("f32[4,4@X]", mesh), false, 0)),
            "ShardingTypeError: Input 0 to qr must be unsharded on non-batch dimensions, but got P(None, 'X').");
}

TEST(Linalg, GeqrfShapes) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(geqrf_rule(parse("f32[8@X,4,3]", mesh), 0)), "f32[8@X,4,3]");
  EXPECT_EQ(outcome(geqrf_rule(parse("f32[8@X,3,5]", mesh), 1)), "f32[8@X,3]");
}

TEST(Linalg, SvdShapes) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(svd_rule(parse("f32[8@X,4,3]", mesh), false, 0)), "f32[8@X,4,3]");
  EXPECT_EQ(outcome(svd_rule(parse("f32[8@X,4,3]", mesh), false, 1)), "f32[8@X,3]");
  EXPECT_EQ(outcome(svd_rule(parse("f32[8@X,4,3]", mesh), false, 2)), "f32[8@X,3,3]");
  EXPECT_EQ(outcome(svd_rule(parse("f32[4,3]", mesh), true, 0)), "f32[4,4]");
  EXPECT_EQ(outcome(svd_rule(parse("f32[3,5]", mesh), true, 2)), "f32[5,5]");
  EXPECT_EQ(outcome(svd_rule(parse("i32[2,2]", mesh), false, 1)), "TypeError: svd requires a float operand, got int32");
}

TEST(Linalg, EighShapes) {
  const MeshRef mesh = xy_mesh();
  EXPECT_EQ(outcome(eigh_rule(parse("f32[8@X,3,3]", mesh), 0)), "f32[8@X,3,3]");
  EXPECT_EQ(outcome(eigh_rule(parse("f32[8@X,3,3]", mesh), 1)), "f32[8@X,3]");
  EXPECT_EQ(outcome(eigh_rule(parse("f32[2,3]", mesh), 1)),
            "ValueError: Argument to symmetric eigendecomposition must have shape [..., n, n], got shape (2, 3)");
  EXPECT_EQ(outcome(eigh_rule(parse("f32[8,4@X,4]", mesh), 1)),
            "ShardingTypeError: Input 0 to eigh must be unsharded on non-batch dimensions, but got P(None, 'X', None).");
}

}  // namespace
}  // namespace typecheck
