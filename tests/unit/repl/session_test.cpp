// The REPL loop (repl::Session) driven by scripted lines instead of a
// terminal: prompts, continuation of blocks, echo, errors that keep the
// session, Ctrl-C at the prompt, history entries.
#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "repl/repl.hpp"

namespace {

using repl::InputLine;

class ScriptedReader : public repl::LineReader {
 public:
  explicit ScriptedReader(std::deque<InputLine> lines) : lines_(std::move(lines)) {}

  InputLine read_line(const std::string& prompt) override {
    prompts.push_back(prompt);
    if (lines_.empty()) return InputLine{InputLine::Kind::end_of_input, {}};
    InputLine next = std::move(lines_.front());
    lines_.pop_front();
    return next;
  }
  void remember(const std::string& entry) override { history.push_back(entry); }

  std::vector<std::string> prompts;
  std::vector<std::string> history;

 private:
  std::deque<InputLine> lines_;
};

InputLine typed(std::string text) { return InputLine{InputLine::Kind::line, std::move(text)}; }

struct Transcript {
  std::string output;
  std::string errors;
  std::vector<std::string> prompts;
  std::vector<std::string> history;
};

Transcript run_session(std::deque<InputLine> lines, bool profile = false) {
  Transcript transcript;
  shardlang::Options options;
  options.profile = profile;
  options.output = [&transcript](std::string_view text) { transcript.output += text; };
  shardlang::Interpreter interpreter(std::move(options));
  ScriptedReader reader(std::move(lines));
  auto capture = [](std::string& into) { return [&into](std::string_view text) { into += text; }; };
  repl::Session session(interpreter, reader, capture(transcript.output), capture(transcript.errors), false);
  session.run();
  transcript.prompts = reader.prompts;
  transcript.history = reader.history;
  return transcript;
}

TEST(Session, BlockContinuesUntilAnEmptyLine) {
  Transcript t = run_session({typed("def f(x):"), typed("    return x + 1"), typed(""), typed("f(2)")});
  EXPECT_EQ(t.prompts, (std::vector<std::string>{">>> ", "... ", "... ", ">>> ", ">>> "}));
  EXPECT_EQ(t.output, "3\n");
  EXPECT_EQ(t.errors, "");
  EXPECT_EQ(t.history, (std::vector<std::string>{"def f(x):\n    return x + 1", "f(2)"}));
}

TEST(Session, OpenBracketContinues) {
  Transcript t = run_session({typed("(1 +"), typed(" 2)")});
  EXPECT_EQ(t.prompts, (std::vector<std::string>{">>> ", "... ", ">>> "}));
  EXPECT_EQ(t.output, "3\n");
}

TEST(Session, ErrorKeepsTheVariables) {
  Transcript t = run_session({typed("a = 5"), typed("nope"), typed("a * 2")});
  EXPECT_NE(t.errors.find("<stdin>:1:1: error:"), std::string::npos) << t.errors;
  EXPECT_NE(t.errors.find("name 'nope' is not defined"), std::string::npos) << t.errors;
  EXPECT_EQ(t.output, "10\n");
}

TEST(Session, ErrorLinesCountWithinTheEntry) {
  Transcript t = run_session({typed("def g():"), typed("    return undefined_z"), typed(""), typed("g()")});
  EXPECT_NE(t.errors.find("<stdin>:2:"), std::string::npos) << t.errors;
}

TEST(Session, NoneIsNotEchoedAndBlankLinesAreSkipped) {
  Transcript t = run_session({typed(""), typed("   "), typed("None"), typed("print('hi')")});
  EXPECT_EQ(t.output, "hi\n");
  EXPECT_EQ(t.history, (std::vector<std::string>{"None", "print('hi')"}));
}

TEST(Session, InterruptAbandonsTheEntry) {
  Transcript t = run_session({typed("x = (1,"), InputLine{InputLine::Kind::interrupted, {}}, typed("'still here'")});
  EXPECT_EQ(t.errors, "KeyboardInterrupt\n");
  EXPECT_EQ(t.output, "'still here'\n");
  EXPECT_EQ(t.prompts.at(2), ">>> ");
}

TEST(Session, LoadRunsAFileIntoTheSession) {
  std::string path = ::testing::TempDir() + "session_test_load.shl";
  std::FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs("loaded = 41\n", file);
  std::fclose(file);
  Transcript t = run_session({typed(":load " + path), typed("loaded + 1")});
  std::remove(path.c_str());
  EXPECT_EQ(t.errors, "");
  EXPECT_EQ(t.output, "42\n");
}

TEST(Session, CommandsHelpQuitAndUnknown) {
  Transcript t = run_session({typed(":help"), typed(":nonsense"), typed(":quit"), typed("'not reached'")});
  EXPECT_NE(t.output.find(":load FILE"), std::string::npos) << t.output;
  EXPECT_EQ(t.output.find("not reached"), std::string::npos) << t.output;
  EXPECT_NE(t.errors.find("unknown command ':nonsense'"), std::string::npos) << t.errors;
  EXPECT_EQ(t.prompts.size(), 3u);
}

}  // namespace

namespace {

constexpr const char* sharded_setup[] = {
    "import jax",
    "import jax.numpy as jnp",
    "from jax.sharding import NamedSharding, PartitionSpec as P",
    "mesh = jax.make_mesh((2, 4), ('X', 'Y'))",
    "x = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P('X', 'Y')))",
};

std::deque<InputLine> with_sharded_setup(std::deque<InputLine> more) {
  std::deque<InputLine> lines;
  for (const char* line : sharded_setup) lines.push_back(typed(line));
  for (auto& line : more) lines.push_back(std::move(line));
  return lines;
}

TEST(Session, TypeShowsTheShardedType) {
  Transcript t = run_session(with_sharded_setup({typed(":type x * 2"), typed(":type len([1])  # a comment")}));
  EXPECT_EQ(t.errors, "");
  EXPECT_NE(t.output.find("x * 2 : float32[8@X,4@Y]\n"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("len([1])  # a comment : int\n"), std::string::npos) << t.output;
}

TEST(Session, TypeErrorPointsIntoTheExpression) {
  Transcript t = run_session({typed(":type 1 + missing"), typed("'after'")});
  EXPECT_NE(t.errors.find("<stdin>:1:5: error:"), std::string::npos) << t.errors;
  EXPECT_NE(t.errors.find("1 + missing\n"), std::string::npos) << t.errors;
  EXPECT_EQ(t.errors.find("__shardlang"), std::string::npos) << t.errors;
  EXPECT_EQ(t.output, "'after'\n");
}

TEST(Session, TypeLeavesNoScratchNamesAndKeepsUnderscore) {
  Transcript t = run_session({typed("41 + 1"), typed(":type 'text'"), typed("_"), typed(":vars")});
  EXPECT_EQ(t.errors, "");
  EXPECT_EQ(t.output, "42\n'text' : str\n42\n_  int\n");
}

TEST(Session, TypeComputesNoData) {
  // 2^30 x 2^14 float32 is 64 TiB: evaluated for real it could not be allocated.
  Transcript t = run_session({typed("import jax.numpy as jnp"), typed("w = jnp.ones((1 << 14, 8))"),
                              typed(":type jnp.ones((1 << 30, 1 << 14)) @ w"), typed("'after'")});
  EXPECT_EQ(t.errors, "");
  EXPECT_EQ(t.output, "jnp.ones((1 << 30, 1 << 14)) @ w : float32[1073741824,8]\n'after'\n");
  Transcript evaluated = run_session({typed("import jax.numpy as jnp"), typed("jnp.ones((1 << 30, 1 << 14)).shape")});
  EXPECT_NE(evaluated.errors.find("error"), std::string::npos) << evaluated.output;
}

TEST(Session, TypeOfABranchOnArrayDataIsUnknown) {
  Transcript t = run_session({typed("import jax.numpy as jnp"), typed("x = jnp.arange(4.0)"),
                              typed(":type x if float(x[1]) > 0 else 2 * x")});
  EXPECT_NE(t.errors.find("warning: check cannot follow a branch that depends on array data"), std::string::npos)
      << t.errors;
  EXPECT_EQ(t.output, "x if float(x[1]) > 0 else 2 * x : unknown\n");
}

TEST(Session, TypeHasNoSideEffects) {
  Transcript t = run_session({typed("count = 1"), typed("def bump():"), typed("    global count"),
                              typed("    count = 99"), typed("    print('bumped')"), typed("    return count"),
                              typed(""), typed(":type bump()"), typed("count")});
  EXPECT_EQ(t.errors, "");
  EXPECT_EQ(t.output, "bump() : int\n1\n");

  Transcript mesh = run_session(with_sharded_setup({typed(":type jax.set_mesh(mesh)"), typed(":mesh")}));
  EXPECT_EQ(mesh.errors, "");
  EXPECT_NE(mesh.output.find("mesh:    none set"), std::string::npos) << mesh.output;
}

TEST(Session, TypeReportsAShardingError) {
  Transcript t = run_session(
      {typed("import jax"), typed("import jax.numpy as jnp"),
       typed("from jax.sharding import NamedSharding, PartitionSpec as P, AxisType"),
       typed("mesh = jax.make_mesh((2, 4), ('X', 'Y'), axis_types=(AxisType.Explicit, AxisType.Explicit))"),
       typed("x = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P('X', 'Y')))"),
       typed(":type x"), typed(":type jnp.sin(x) @ x.T"), typed("x.shape")});
  EXPECT_NE(t.output.find("x : float32[8@X,4@Y]\n"), std::string::npos) << t.output;
  EXPECT_EQ(t.output.find("jnp.sin(x) @ x.T :"), std::string::npos) << t.output;
  EXPECT_NE(t.errors.find("<stdin>:1:1: error: ShardingTypeError: Contracting dimensions are sharded"), std::string::npos) << t.errors;
  EXPECT_NE(t.errors.find("    1 | jnp.sin(x) @ x.T\n      | ^^^^^^^^^^^^^^^^\n"), std::string::npos) << t.errors;
  // The note points at the earlier entry that made x (its text is kept).
  EXPECT_NE(t.errors.find("<stdin>:1:1: note: `x` got its sharding here\n"), std::string::npos) << t.errors;
  EXPECT_NE(t.output.find("(8, 4)\n"), std::string::npos) << t.output;
}

TEST(Session, ErrorNotesPointIntoEarlierEntries) {
  Transcript t = run_session(with_sharded_setup({typed("y = x @ x.T"), typed("x.shape")}));
  EXPECT_NE(t.errors.find("    1 | y = x @ x.T\n"), std::string::npos) << t.errors;
  EXPECT_NE(t.errors.find("<stdin>:1:1: note: `x` got its sharding here\n"), std::string::npos) << t.errors;
  EXPECT_NE(t.output.find("(8, 4)\n"), std::string::npos) << t.output;
}

TEST(Session, TypeChargesNothingToTheProfile) {
  Transcript t = run_session({typed("import jax, jax.numpy as jnp"),
                              typed("x = jax.device_put(jnp.ones((64, 64)), jax.sharding.NamedSharding("
                                    "jax.make_mesh((8,), ('X',)), jax.sharding.PartitionSpec('X')))"),
                              typed("y = jnp.sin(x)"), typed(":type jnp.cos(x) + x"), typed(":profile")},
                             true);
  EXPECT_EQ(t.errors, "");
  std::size_t table = t.output.find("profile on v5e, 8 devices");
  ASSERT_NE(table, std::string::npos) << t.output;
  EXPECT_NE(t.output.find("sin", table), std::string::npos) << t.output;
  EXPECT_EQ(t.output.find("cos", table), std::string::npos) << t.output;
  EXPECT_EQ(t.output.find("add", table), std::string::npos) << t.output;
}

TEST(Session, OneLineCompoundStatementRunsAfterAnEmptyLine) {
  Transcript t = run_session({typed("for i in range(2): print(i)"), typed(""), typed("i")});
  EXPECT_EQ(t.errors, "");
  EXPECT_EQ(t.prompts, (std::vector<std::string>{">>> ", "... ", ">>> ", ">>> "}));
  EXPECT_EQ(t.output, "0\n1\n1\n");
  EXPECT_EQ(t.history, (std::vector<std::string>{"for i in range(2): print(i)", "i"}));
}

TEST(Session, VarsListsUserVariablesWithTheirTypes) {
  Transcript t = run_session(with_sharded_setup({typed("count = 3"), typed(":vars")}));
  EXPECT_EQ(t.errors, "");
  // One line per variable: the name, padded to the longest ("NamedSharding"), then the type.
  EXPECT_NE(t.output.find("\ncount          int\n"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("\nx              float32[8@X,4@Y]\n"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("\njnp            module\n"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("\nmesh           Mesh\n"), std::string::npos) << t.output;
  EXPECT_EQ(t.output.find("print"), std::string::npos) << t.output;
}

TEST(Session, VarsWhenNothingIsDefined) {
  Transcript t = run_session({typed(":vars")});
  EXPECT_EQ(t.output, "no variables defined yet\n");
}

TEST(Session, MeshShowsTheDevicesThenTheContextMesh) {
  Transcript t = run_session(with_sharded_setup({typed(":mesh"), typed("jax.set_mesh(mesh)"), typed(":mesh")}));
  EXPECT_EQ(t.errors, "");
  EXPECT_NE(t.output.find("mesh:    none set"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("devices: 8 x TPU v5 lite (platform tpu), ids 0 1 2 3 4 5 6 7\n"), std::string::npos)
      << t.output;
  EXPECT_NE(t.output.find("mesh:    AbstractMesh('X': 2, 'Y': 4"), std::string::npos) << t.output;
}

TEST(Session, CommandWithoutItsArgumentShowsItsUsage) {
  Transcript t = run_session({typed(":type"), typed(":vars x"), typed(":load")});
  EXPECT_EQ(t.errors, "usage: :type EXPR\nusage: :vars\nusage: :load FILE\n");
}

TEST(Session, ProfileWithoutChargesSaysSo) {
  Transcript t = run_session({typed("1 + 1"), typed(":profile")});
  EXPECT_NE(t.errors.find("keeps no charges"), std::string::npos) << t.errors;
}

TEST(Session, ProfileShowsTheCostOfTheLastEntryOnly) {
  Transcript t = run_session({typed("import jax, jax.numpy as jnp"),
                              typed("x = jax.device_put(jnp.ones((64, 64)), jax.sharding.NamedSharding("
                                    "jax.make_mesh((8,), ('X',)), jax.sharding.PartitionSpec('X')))"),
                              typed("y = jnp.sin(x)"), typed(":profile")},
                             true);
  EXPECT_EQ(t.errors, "");
  std::size_t table = t.output.find("profile on v5e, 8 devices");
  ASSERT_NE(table, std::string::npos) << t.output;
  EXPECT_NE(t.output.find("<stdin>:1  sin", table), std::string::npos) << t.output;
  EXPECT_EQ(t.output.find("device_put", table), std::string::npos) << t.output;
}

TEST(Session, HelpListsEveryCommand) {
  Transcript t = run_session({typed(":help")});
  for (const repl::CommandInfo& info : repl::commands())
    EXPECT_NE(t.output.find(std::string("  ") + info.name), std::string::npos) << info.name << "\n" << t.output;
}

TEST(Session, TimeitAtThePrompt) {
  Transcript t = run_session({typed("%timeit -n 3 -r 2 sum(range(10))")});
  EXPECT_EQ(t.errors, "");
  EXPECT_NE(t.output.find("3 loops, best of 2: "), std::string::npos) << t.output;
  // An echo would be a line of its own ("457 ns per loop" is a timing, not the value).
  EXPECT_EQ(("\n" + t.output).find("\n45\n"), std::string::npos) << "the timed value is not echoed\n" << t.output;
}

std::vector<std::string> complete_line(shardlang::Interpreter& interpreter, const std::string& line) {
  // readline's word start: after the last break character (not '.').
  std::size_t start = line.find_last_of(" \t(,:=[+-*/") + 1;
  if (start == std::string::npos + 1) start = 0;
  auto found = repl::completions(interpreter, line, start, line.size());
  return found ? *found : std::vector<std::string>{"<file names>"};
}

TEST(Completion, NamesMembersAttributesAndCommands) {
  shardlang::Interpreter interpreter;
  ASSERT_TRUE(interpreter.run("import jax\nimport jax.numpy as jnp\nvalues = jnp.arange(8)\nvalue_count = 8\n"));
  std::vector<std::string> sin = complete_line(interpreter, "y = jnp.si");
  EXPECT_NE(std::find(sin.begin(), sin.end(), "jnp.sin"), sin.end());
  for (const auto& candidate : sin) EXPECT_TRUE(candidate.starts_with("jnp.si")) << candidate;
  EXPECT_EQ(complete_line(interpreter, "values.sh"), (std::vector<std::string>{"values.shape", "values.sharding"}));
  EXPECT_EQ(complete_line(interpreter, "print(value"), (std::vector<std::string>{"value_count", "values"}));
  EXPECT_EQ(complete_line(interpreter, ":ty"), (std::vector<std::string>{"type"}));
  EXPECT_EQ(complete_line(interpreter, ":type values.shap"), (std::vector<std::string>{"values.shape"}));
  EXPECT_EQ(complete_line(interpreter, ":load sc"), (std::vector<std::string>{"<file names>"}));
  EXPECT_TRUE(complete_line(interpreter, "missing.x").empty());
}

}  // namespace
