// Check mode and the diagnostics of the sharding type system through the
// public API: codes, notes, hints, warnings, annotations.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shardlang/shardlang.hpp"

namespace {

const char* const mesh_prelude =
    "import jax\n"
    "import jax.numpy as jnp\n"
    "from jax.sharding import PartitionSpec as P\n"
    "jax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y')))\n";

shardlang::Options cpu_mesh() {
  shardlang::Options options;
  options.platform = "cpu";
  options.devices = 8;
  return options;
}

std::vector<shardlang::Diagnostic> check(const std::string& body) {
  shardlang::Interpreter interpreter(cpu_mesh());
  return interpreter.check(std::string(mesh_prelude) + body, "model.shl");
}

shardlang::Result run(const std::string& body) {
  shardlang::Interpreter interpreter(cpu_mesh());
  return interpreter.run(std::string(mesh_prelude) + body, "model.shl");
}

TEST(CheckMode, AmbiguousContractionHasNotesAndHint) {
  auto diagnostics = check(
      "x = jnp.zeros((8, 2048), jnp.bfloat16)\n"                                   // 5
      "W = jnp.zeros((2048, 64), jnp.bfloat16, out_sharding=P('Y', None))\n"       // 6
      "def layer(W):\n"                                                            // 7
      "  In = jax.device_put(x, P('X', 'Y'))\n"                                    // 8
      "  return jnp.einsum('bd,df->bf', jnp.square(In), W)\n"                      // 9
      "layer(W)\n");
  ASSERT_EQ(diagnostics.size(), 1u);
  const auto& d = diagnostics[0];
  EXPECT_EQ(d.code, "sharding/ambiguous-contraction");
  EXPECT_EQ(d.where.line, 9);
  ASSERT_EQ(d.notes.size(), 3u);
  EXPECT_EQ(d.notes[0].message, "operands are bf16[8@X,2048@Y] and bf16[2048@Y,64]");
  EXPECT_EQ(d.notes[0].where.line, 0);
  EXPECT_EQ(d.notes[1].message, "`In` got its sharding here");
  EXPECT_EQ(d.notes[1].where.line, 8);
  EXPECT_EQ(d.notes[2].message, "`W` got its sharding here");
  EXPECT_EQ(d.notes[2].where.line, 6);
  EXPECT_EQ(d.hint,
            "choose the output sharding (estimated cost on v5e, cheapest first):\n"
            "        out_sharding=P('X', None, unreduced={'Y'}) no collective now; the sum is deferred  0.2 \xc2\xb5s\n"
            "        out_sharding=P('X', 'Y')                   reduce-scatter over Y                   5.2 \xc2\xb5s\n"
            "        out_sharding=P('X', None)                  all-reduce over Y                       10.2 \xc2\xb5s\n");
}

TEST(CheckMode, RunModeErrorsCarryTheSameNotes) {
  auto result = run(
      "a = jnp.zeros((8, 16), out_sharding=P('X', 'Y'))\n"
      "b = jnp.zeros((8, 16), out_sharding=P('Y', 'X'))\n"
      "c = jnp.sin(a) + b\n");
  ASSERT_EQ(result.diagnostics().size(), 1u);
  const auto& d = result.diagnostics()[0];
  EXPECT_EQ(d.code, "sharding/type");
  ASSERT_EQ(d.notes.size(), 3u);
  EXPECT_EQ(d.notes[0].message, "operands are f32[8@X,16@Y] and f32[8@Y,16@X]");
  EXPECT_EQ(d.notes[1].message, "`a` got its sharding here");  // passed on through sin
  EXPECT_EQ(d.notes[1].where.line, 5);
  EXPECT_EQ(d.notes[2].message, "`b` got its sharding here");
  EXPECT_TRUE(d.hint.empty());
}

TEST(CheckMode, ShardMapVaryingOutputNamesTheFunctionAndTheReturn) {
  auto diagnostics = check(
      "mesh = jax.make_mesh((4, 2), ('X', 'Y'))\n"                                            // 5
      "def body(block):\n"                                                                    // 6
      "  return block * 2\n"                                                                  // 7
      "a = jnp.zeros((8, 16), out_sharding=P('X', 'Y'))\n"                                    // 8
      "out = jax.shard_map(body, mesh=mesh, in_specs=P('X', 'Y'), out_specs=P('X'))(a)\n");   // 9
  ASSERT_EQ(diagnostics.size(), 1u);
  const auto& d = diagnostics[0];
  EXPECT_EQ(d.code, "shard_map/out-specs-varying");
  EXPECT_EQ(d.where.line, 7);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].message, "`body` returns output 0 varying over 'Y' here");
  EXPECT_EQ(d.notes[0].where.line, 7);
  EXPECT_EQ(d.hint,
            "reduce the value with jax.lax.psum(..., 'Y') (or pmean/pmax/pmin) before returning it, or give it an "
            "out_specs entry that names 'Y'");
}

TEST(CheckMode, StableCodes) {
  struct Case {
    const char* statement;
    const char* code;
  };
  const Case cases[] = {
      {"a = jnp.zeros((8, 8), out_sharding=P('X', 'X'))\n", "sharding/axis-reused"},
      {"a = jnp.zeros((6, 8), out_sharding=P('X'))\n", "sharding/indivisible"},
      {"a = jnp.zeros((8, 16)) + jnp.zeros((8, 4))\n", "shape/mismatch"},
      {"a = undefined_name\n", "name"},
      {"a = 1 / 0\n", "runtime"},
      {"a = jnp.zeros((8,), out_sharding=P('Z'))\n", "sharding/unknown-axis"},
  };
  for (const auto& c : cases) {
    auto diagnostics = check(c.statement);
    ASSERT_EQ(diagnostics.size(), 1u) << c.statement;
    EXPECT_EQ(diagnostics[0].code, c.code) << c.statement;
  }
}

TEST(CheckMode, UnknownsArePrintedAndAssertedWithoutDiagnostics) {
  auto diagnostics = check(
      "x = jnp.zeros((8, 16), out_sharding=P('X', 'Y'))\n"
      "s = float(jnp.sum(x))\n"
      "print(s + 1, int(x[0, 0]), bool(x[0, 0] < 1), jnp.sum(x).item(), f'{s:.3f}')\n"
      "assert s == 0.0\n"
      "assert jnp.sum(x) == 0\n"
      "assert s is not None\n");
  EXPECT_TRUE(diagnostics.empty()) << diagnostics[0].render();
}

TEST(CheckMode, DataDependentBranchWarnsOnceAndCheckingGoesOn) {
  auto diagnostics = check(
      "x = jnp.zeros((8, 16), out_sharding=P('X', 'Y'))\n"    // 5
      "def f(y):\n"                                           // 6
      "  if float(jnp.sum(y)) > 0:\n"                         // 7
      "    return y * 2\n"
      "  return y\n"
      "for _ in range(3):\n"
      "  z = f(x)\n"
      "bad = x + jnp.zeros((8, 16), out_sharding=P('Y', 'X'))\n");  // 12
  ASSERT_EQ(diagnostics.size(), 2u);
  EXPECT_EQ(diagnostics[0].severity, shardlang::Severity::warning);
  EXPECT_EQ(diagnostics[0].code, "check/data-dependent-branch");
  EXPECT_EQ(diagnostics[0].message, "check cannot follow a branch that depends on array data");
  EXPECT_EQ(diagnostics[0].where.line, 7);
  EXPECT_EQ(diagnostics[1].severity, shardlang::Severity::error);
  EXPECT_EQ(diagnostics[1].where.line, 12);
}

TEST(CheckMode, ExceptDoesNotCatchTheStop) {
  auto diagnostics = check(
      "x = jnp.zeros((8,))\n"
      "def f():\n"
      "  try:\n"
      "    while x[0] > 0:\n"  // 8
      "      pass\n"
      "  except BaseException:\n"
      "    raise ValueError('caught the stop')\n"
      "f()\n");
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].severity, shardlang::Severity::warning);
  EXPECT_EQ(diagnostics[0].where.line, 8);
}

TEST(CheckMode, RunModeConvertsScalarArrays) {
  std::string output;
  shardlang::Options options = cpu_mesh();
  options.output = [&output](std::string_view text) { output += text; };
  shardlang::Interpreter with_output(options);
  auto result = with_output.run(
      "import jax.numpy as jnp\n"
      "x = jnp.arange(6.0).reshape(2, 3)\n"
      "print(float(x[1, 2]), int(x[1, 1]), bool(x[0, 0]), x[1, 0].item(), jnp.arange(4)[3].item())\n"
      "float(x)\n",
      "scalars.shl");
  EXPECT_EQ(output, "5.0 4 False 3.0 3\n");
  ASSERT_EQ(result.diagnostics().size(), 1u);
  EXPECT_NE(result.diagnostics()[0].message.find("TypeError: Only scalar arrays can be converted to Python scalars; got arr.ndim=2"),
            std::string::npos);
}

TEST(Annotations, ShapeVariablesBindAcrossParametersAndReturn) {
  const std::string layer =
      "def layer(x: bf16[B@X, D], w: bf16[D, F@Y]) -> bf16[B@X, F@Y]:\n"
      "  return x @ w\n"
      "x = jnp.zeros((8, 16), jnp.bfloat16, out_sharding=P('X'))\n";
  EXPECT_TRUE(check(layer + "w = jnp.zeros((16, 4), jnp.bfloat16, out_sharding=P(None, 'Y'))\nlayer(x, w)\n").empty());
  auto diagnostics = check(layer + "w = jnp.zeros((8, 4), jnp.bfloat16, out_sharding=P(None, 'Y'))\nlayer(x, w)\n");
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].code, "type/annotation");
  EXPECT_EQ(diagnostics[0].message,
            "TypeError: argument 'w' of layer() does not match its annotation: expected bf16[D,F@Y], got bf16[8,4@Y] "
            "(dimension 0 is 8, but D is 16)");
}

TEST(Annotations, ReturnAndVariableAndSharding) {
  auto returned = run(
      "def f(x: f32[N@X]) -> f32[N]:\n"
      "  return x\n"
      "f(jnp.zeros((8,), out_sharding=P('X')))\n");
  ASSERT_EQ(returned.diagnostics().size(), 1u);
  EXPECT_NE(returned.diagnostics()[0].message.find(
                "the return value of f() does not match its annotation: expected f32[N], got f32[8@X] (dimension 0 is "
                "sharded over X, the annotation leaves it unsharded)"),
            std::string::npos);
  auto variable = check("y: f32[8, 16@(X, Y)] = jnp.zeros((8, 16), out_sharding=P(None, 'Y'))\n");
  ASSERT_EQ(variable.size(), 1u);
  EXPECT_NE(variable[0].message.find("variable 'y' does not match its annotation: expected f32[8,16@(X,Y)], got "
                                     "f32[8,16@Y] (dimension 1 is sharded over Y, not (X, Y))"),
            std::string::npos);
  auto dtype = check("z: bf16[4] = jnp.zeros((4,))\n");
  ASSERT_EQ(dtype.size(), 1u);
  EXPECT_NE(dtype[0].message.find("(the dtype is float32, not bfloat16)"), std::string::npos);
  // Annotations that are not array types, and non-array values, are not checked.
  EXPECT_TRUE(check("def g(n: int, m: f32[8]) -> list:\n  return [n]\ng(3, 4)\nq: f32[2] = 5\n").empty());
}

}  // namespace
