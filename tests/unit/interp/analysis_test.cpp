// The public API's editor support: Interpreter::analyze and Analysis.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "shardlang/shardlang.hpp"

namespace {

constexpr const char* ambiguous_program = R"(import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P, AxisType

jax.set_mesh(jax.make_mesh((2, 4), ('X', 'Y'), axis_types=(AxisType.Explicit,) * 2))
a = jnp.zeros((8, 16), out_sharding=P('X', 'Y'))
b = jnp.zeros((16, 32), out_sharding=P('Y', None))
c = jnp.einsum('ij,jk->ik', a, b)
d = a * 2
)";

// Eight simulated v5e chips.
shardlang::Options tpu_options() {
  shardlang::Options options;
  options.platform = "tpu";
  options.devices = 8;
  return options;
}

const shardlang::TypedSpan* find_span(const shardlang::Analysis& analysis, int line, int column, bool assignment) {
  for (const auto& typed : analysis.types())
    if (typed.where.line == line && typed.where.column == column && typed.assignment == assignment) return &typed;
  return nullptr;
}

TEST(Analysis, DiagnosticsAreCheckModes) {
  shardlang::Interpreter interpreter(tpu_options());
  shardlang::Analysis analysis = interpreter.analyze(ambiguous_program, "model.shl");
  std::vector<shardlang::Diagnostic> checked = interpreter.check(ambiguous_program, "model.shl");
  ASSERT_EQ(analysis.diagnostics().size(), checked.size());
  ASSERT_EQ(checked.size(), 1u);
  EXPECT_EQ(analysis.diagnostics()[0].code, "sharding/ambiguous-contraction");
  EXPECT_EQ(analysis.diagnostics()[0].message, checked[0].message);
  EXPECT_EQ(analysis.diagnostics()[0].hint, checked[0].hint);
}

TEST(Analysis, AmbiguousContractionFixesFollowTheHint) {
  shardlang::Interpreter interpreter(tpu_options());
  shardlang::Analysis analysis = interpreter.analyze(ambiguous_program, "model.shl");
  const shardlang::Diagnostic& d = analysis.diagnostics().at(0);
  ASSERT_EQ(d.fixes.size(), 3u);
  // Each fix inserts its out_sharding after the call's last argument
  // (line 8: c = jnp.einsum('ij,jk->ik', a, b)), in the hint's order.
  std::size_t searched = 0;
  for (const auto& fix : d.fixes) {
    EXPECT_EQ(fix.where.file, "model.shl");
    EXPECT_EQ(fix.where.line, 8);
    EXPECT_EQ(fix.where.column, 33);
    EXPECT_EQ(fix.where.end_line, 8);
    EXPECT_EQ(fix.where.end_column, 33);
    EXPECT_TRUE(fix.replacement.starts_with(", out_sharding=P(")) << fix.replacement;
    std::string argument = fix.replacement.substr(2);
    std::size_t at = d.hint.find(argument, searched);
    EXPECT_NE(at, std::string::npos) << argument << " in\n" << d.hint;
    searched = at;
    EXPECT_TRUE(fix.title.starts_with(argument)) << fix.title;
  }
  std::vector<std::string> replacements;
  for (const auto& fix : d.fixes) replacements.push_back(fix.replacement);
  std::sort(replacements.begin(), replacements.end());
  EXPECT_EQ(replacements, (std::vector<std::string>{", out_sharding=P('X', 'Y')", ", out_sharding=P('X', None)",
                                                    ", out_sharding=P('X', None, unreduced={'Y'})"}));
}

TEST(Analysis, AFixReplacesAnOutShardingOfNone) {
  std::string program = ambiguous_program;
  program.replace(program.find("a, b)"), 5, "a, b, out_sharding=None)");
  shardlang::Interpreter interpreter(tpu_options());
  shardlang::Analysis analysis = interpreter.analyze(program, "model.shl");
  const shardlang::Diagnostic& d = analysis.diagnostics().at(0);
  ASSERT_EQ(d.fixes.size(), 3u);
  // c = jnp.einsum('ij,jk->ik', a, b, out_sharding=None): the None is replaced.
  for (const auto& fix : d.fixes) {
    EXPECT_EQ(fix.where.column, 48);
    EXPECT_EQ(fix.where.end_column, 52);
    EXPECT_TRUE(fix.replacement.starts_with("P('X', ")) << fix.replacement;
  }
}

TEST(Analysis, NoFixForTheMatmulOperator) {
  std::string program = ambiguous_program;
  program.replace(program.find("jnp.einsum('ij,jk->ik', a, b)"), 29, "a @ b");
  shardlang::Interpreter interpreter(tpu_options());
  shardlang::Analysis analysis = interpreter.analyze(program, "model.shl");
  ASSERT_EQ(analysis.diagnostics().size(), 1u);
  EXPECT_FALSE(analysis.diagnostics()[0].hint.empty());
  EXPECT_TRUE(analysis.diagnostics()[0].fixes.empty());
}

TEST(Analysis, TypesOfAssignmentsAndExpressions) {
  shardlang::Interpreter interpreter(tpu_options());
  shardlang::Analysis analysis = interpreter.analyze(ambiguous_program, "model.shl");
  const shardlang::TypedSpan* a = find_span(analysis, 6, 1, true);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->types, std::vector<std::string>{"f32[8@X,16@Y]"});
  EXPECT_EQ(a->shard_shape, (std::vector<std::int64_t>{4, 4}));
  EXPECT_EQ(a->shard_bytes, 64);
  EXPECT_EQ(a->where.end_column, 2);
  // `a` read on line 9 is an expression; `a * 2` another.
  const shardlang::TypedSpan* read = find_span(analysis, 9, 5, false);
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->types, std::vector<std::string>{"f32[8@X,16@Y]"});
  EXPECT_EQ(read->where.end_column, 10);  // `a * 2` starts there too and is the outer span
  // The failed contraction's best guess still has a type.
  EXPECT_NE(find_span(analysis, 8, 1, true), nullptr);
  // Sorted by start, outer first.
  const auto& types = analysis.types();
  for (std::size_t i = 1; i < types.size(); ++i) {
    auto key = [](const shardlang::TypedSpan& t) { return std::pair{t.where.line, t.where.column}; };
    EXPECT_LE(key(types[i - 1]), key(types[i]));
  }
}

TEST(Analysis, ASpanThatHeldSeveralTypesKeepsEach) {
  shardlang::Interpreter interpreter(tpu_options());
  shardlang::Analysis analysis = interpreter.analyze(
      "import jax.numpy as jnp\nfor n in range(1, 7):\n    x = jnp.zeros((n,))\n", "loop.shl");
  const shardlang::TypedSpan* x = find_span(analysis, 3, 5, true);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->types, (std::vector<std::string>{"f32[1]", "f32[2]", "f32[3]", "f32[4]"}));
  EXPECT_TRUE(x->more_types);
  EXPECT_EQ(x->shard_shape, std::vector<std::int64_t>{4});
}

TEST(Analysis, ShardMapBodiesShowVaryingAxes) {
  shardlang::Interpreter interpreter(tpu_options());
  shardlang::Analysis analysis = interpreter.analyze(R"(import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P, AxisType
jax.set_mesh(jax.make_mesh((8,), ('i',), axis_types=(AxisType.Explicit,)))
def body(block):
    local = block * 2
    return local
x = jnp.zeros((16,), out_sharding=P('i'))
y = jax.shard_map(body, in_specs=P('i'), out_specs=P('i'))(x)
)", "shmap.shl");
  const shardlang::TypedSpan* local = find_span(analysis, 6, 5, true);
  ASSERT_NE(local, nullptr);
  EXPECT_EQ(local->types, std::vector<std::string>{"f32[2]{V:i}"});
}

TEST(Analysis, LineCostsOfTheCostModel) {
  shardlang::Interpreter interpreter(tpu_options());
  shardlang::Analysis analysis = interpreter.analyze(R"(import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P, AxisType
jax.set_mesh(jax.make_mesh((2, 4), ('X', 'Y'), axis_types=(AxisType.Explicit,) * 2))
a = jnp.zeros((8, 16), out_sharding=P('X', 'Y'))
b = jnp.zeros((16, 32), out_sharding=P('Y', None))
for _ in range(3):
    c = jnp.einsum('ij,jk->ik', a, b, out_sharding=P('X', None))
)", "cost.shl");
  EXPECT_EQ(analysis.chip(), "v5e");
  const auto& costs = analysis.line_costs();
  auto line8 = std::find_if(costs.begin(), costs.end(), [](const shardlang::LineCost& c) { return c.line == 8; });
  ASSERT_NE(line8, costs.end());
  EXPECT_GT(line8->seconds, 0);
  auto all_reduce = std::find_if(line8->operations.begin(), line8->operations.end(),
                                 [](const shardlang::LineCost::Operation& o) { return o.name == "all-reduce"; });
  ASSERT_NE(all_reduce, line8->operations.end());
  EXPECT_EQ(all_reduce->count, 3);
  EXPECT_GT(all_reduce->bytes_moved, 0);
  for (std::size_t i = 1; i < costs.size(); ++i) EXPECT_LT(costs[i - 1].line, costs[i].line);
}

TEST(Analysis, LineCostsCanBeLeftOut) {
  shardlang::Interpreter interpreter(tpu_options());
  shardlang::AnalysisOptions options;
  options.line_costs = false;
  shardlang::Analysis analysis = interpreter.analyze(ambiguous_program, "model.shl", options);
  EXPECT_TRUE(analysis.line_costs().empty());
  ASSERT_EQ(analysis.diagnostics().size(), 1u);
  EXPECT_EQ(analysis.diagnostics()[0].fixes.size(), 3u);  // the hint's estimates need no line costs
  EXPECT_FALSE(analysis.types().empty());
}

TEST(Analysis, CompletionQueriesReadTheCheckedNamespace) {
  shardlang::Interpreter interpreter(tpu_options());
  shardlang::Analysis analysis = interpreter.analyze(ambiguous_program, "model.shl");
  std::vector<std::string> globals = analysis.global_names();
  EXPECT_TRUE(std::binary_search(globals.begin(), globals.end(), "jnp"));
  EXPECT_TRUE(std::binary_search(globals.begin(), globals.end(), "print"));
  std::vector<shardlang::Member> members = analysis.members("jnp");
  auto einsum = std::find_if(members.begin(), members.end(), [](const shardlang::Member& m) { return m.name == "einsum"; });
  ASSERT_NE(einsum, members.end());
  EXPECT_EQ(einsum->kind, "function");
  EXPECT_TRUE(einsum->signature.starts_with("einsum(")) << einsum->signature;
  std::vector<shardlang::Member> sharding = analysis.members("jax.sharding");
  EXPECT_TRUE(std::any_of(sharding.begin(), sharding.end(),
                          [](const shardlang::Member& m) { return m.name == "PartitionSpec" && m.kind == "class"; }));
  EXPECT_EQ(analysis.signature("jnp.einsum"), einsum->signature);
  EXPECT_EQ(analysis.signature("a"), "");
  EXPECT_TRUE(analysis.members("no_such_name").empty());
  EXPECT_TRUE(analysis.members("jnp.(").empty());
  EXPECT_EQ(analysis.mesh_axis_names(), (std::vector<std::string>{"X", "Y"}));
}

TEST(Analysis, AContextMeshIsSetFirst) {
  shardlang::Interpreter interpreter(tpu_options());
  std::string program = "import jax.numpy as jnp\nfrom jax.sharding import PartitionSpec as P\n"
                        "w = jnp.zeros((8, 4), out_sharding=P('data', 'model'))\n";
  shardlang::AnalysisOptions options;
  options.context_mesh = {{"data", 2}, {"model", 4}};
  shardlang::Analysis analysis = interpreter.analyze(program, "lib.shl", options);
  EXPECT_TRUE(analysis.diagnostics().empty());
  const shardlang::TypedSpan* w = find_span(analysis, 3, 1, true);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->types, std::vector<std::string>{"f32[8@data,4@model]"});
  EXPECT_EQ(analysis.mesh_axis_names(), (std::vector<std::string>{"data", "model"}));

  options.context_mesh = {{"data", 16}};
  shardlang::Analysis wrong = interpreter.analyze(program, "lib.shl", options);
  ASSERT_FALSE(wrong.diagnostics().empty());
  EXPECT_TRUE(wrong.diagnostics()[0].message.starts_with("the context mesh: ")) << wrong.diagnostics()[0].message;
  EXPECT_EQ(wrong.diagnostics()[0].where.line, 0);
}

}  // namespace
