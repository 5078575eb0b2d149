// The host interpreter through the public embedding API.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "session.hpp"
#include "shardlang/shardlang.hpp"

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(Interpreter, RunsAndPrints) {
  Session s;
  EXPECT_EQ(s.run("print(1 + 2, 'x', [0.5, None])"), "3 x [0.5, None]\n");
  EXPECT_TRUE(s.last.ok());
  EXPECT_EQ(s.last.exception_type(), "");
}

TEST(Interpreter, XmodeMinimalLeavesTheTracebackOut) {
  Session s;
  EXPECT_EQ(s.run("%xmode minimal\n"), "Exception reporting mode: Minimal\n");
  s.run("def inner():\n    return 1 // 0\ninner()\n");
  ASSERT_EQ(s.last.diagnostics().size(), 1u);
  const shardlang::Diagnostic& d = s.last.diagnostics()[0];
  EXPECT_TRUE(d.traceback.empty());
  EXPECT_EQ(d.where.line, 2);
  EXPECT_EQ(d.render().find("Traceback"), std::string::npos);
  s.run("%xmode Context\n");
  s.run("inner()\n");
  EXPECT_EQ(s.last.diagnostics()[0].traceback.size(), 2u);
}

TEST(Interpreter, GlobalsPersistBetweenRuns) {
  Session s;
  s.run("def f(x):\n    return x * k\nk = 3\n");
  EXPECT_EQ(s.run("print(f(2))"), "6\n");
}

TEST(Interpreter, UncaughtErrorIsADiagnosticWithTraceback) {
  Session s;
  s.run("def inner():\n    return 1 // 0\ndef outer():\n    return inner()\nouter()\n");
  ASSERT_FALSE(s.last.ok());
  EXPECT_EQ(s.last.exception_type(), "ZeroDivisionError");
  ASSERT_EQ(s.last.diagnostics().size(), 1u);
  const shardlang::Diagnostic& d = s.last.diagnostics()[0];
  EXPECT_EQ(d.code, "runtime");
  EXPECT_EQ(d.message, "ZeroDivisionError: integer division or modulo by zero");
  EXPECT_EQ(d.where.file, "test.shl");
  EXPECT_EQ(d.where.line, 2);
  EXPECT_EQ(d.where.column, 12);
  ASSERT_EQ(d.traceback.size(), 3u);
  EXPECT_EQ(d.traceback[0], "test.shl:5, in <module>");
  EXPECT_EQ(d.traceback[1], "test.shl:4, in outer");
  EXPECT_EQ(d.traceback[2], "test.shl:2, in inner");
  std::string text = d.render();
  EXPECT_NE(text.find("File \"test.shl\", line 4, in outer"), std::string::npos);
  EXPECT_NE(text.find("test.shl:2:12: error: ZeroDivisionError"), std::string::npos);
}

TEST(Interpreter, NameErrorHasCodeName) {
  Session s;
  s.run("x = 1\nprint(y)\n");
  ASSERT_EQ(s.last.diagnostics().size(), 1u);
  EXPECT_EQ(s.last.diagnostics()[0].code, "name");
  EXPECT_EQ(s.last.diagnostics()[0].message, "NameError: name 'y' is not defined");
  EXPECT_EQ(s.last.exception_type(), "NameError");
}

TEST(Interpreter, ErrorsKeepTheNamespace) {
  Session s;
  s.run("a = 5\nb = a + undefined\n");
  EXPECT_FALSE(s.last.ok());
  EXPECT_EQ(s.run("print(a)"), "5\n");
}

TEST(Interpreter, RunInteractiveEchoesExpressionsAndBindsUnderscore) {
  Session s;
  s.output.clear();
  EXPECT_TRUE(s.interpreter.run_interactive("1 + 1").ok());
  EXPECT_EQ(s.output, "2\n");
  s.output.clear();
  s.interpreter.run_interactive("_ * 10");
  EXPECT_EQ(s.output, "20\n");
  s.output.clear();
  s.interpreter.run_interactive("None");
  s.interpreter.run_interactive("x = 'quiet'");
  EXPECT_EQ(s.output, "");
  s.interpreter.run_interactive("x");
  EXPECT_EQ(s.output, "'quiet'\n");
  // As in Python, every module-level expression statement of the entry echoes.
  s.output.clear();
  s.interpreter.run_interactive("for i in range(2):\n    i\n");
  EXPECT_EQ(s.output, "0\n1\n");
  s.output.clear();
  s.interpreter.run_interactive("def f():\n    5\n    return 6\nf()\n");
  EXPECT_EQ(s.output, "6\n");
  // A script run does not echo.
  s.output.clear();
  s.interpreter.run("7");
  EXPECT_EQ(s.output, "");
}

TEST(Interpreter, SyntaxErrorIsReported) {
  Session s;
  s.run("x = (1,\n");
  ASSERT_FALSE(s.last.ok());
  EXPECT_EQ(s.last.diagnostics()[0].code, "syntax");
}

TEST(Interpreter, NonlocalWithoutBindingIsASyntaxError) {
  Session s;
  s.run("def f():\n    nonlocal q\n");
  ASSERT_FALSE(s.last.ok());
  EXPECT_EQ(s.last.diagnostics()[0].code, "syntax");
  EXPECT_NE(s.last.diagnostics()[0].message.find("no binding for nonlocal 'q' found"), std::string::npos);
}

TEST(Interpreter, CheckDiscardsOutputAndUsesAFreshNamespace) {
  Session s;
  s.run("secret = 1");
  s.output.clear();
  auto diagnostics = s.interpreter.check("print('hidden')\nprint(secret)\n", "c.shl");
  EXPECT_EQ(s.output, "");
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].code, "name");
  EXPECT_EQ(diagnostics[0].where.line, 2);
  EXPECT_TRUE(s.interpreter.check("try:\n    missing\nexcept NameError:\n    pass\n").empty());
}

TEST(Interpreter, GetAndSetConvertValues) {
  Session s;
  s.interpreter.set("v", shardlang::Value::list({shardlang::Value::integer(1), shardlang::Value::string("a"),
                                                 shardlang::Value::tuple({shardlang::Value::number(0.5)})}));
  EXPECT_EQ(s.run("print(v, type(v[2]).__name__)"), "[1, 'a', (0.5,)] tuple\n");
  s.run("w = {'k': [True, None]}\nn = 2 ** 40\nf = 1.25\n");
  auto n = s.interpreter.get("n");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->kind(), shardlang::Value::Kind::integer);
  EXPECT_EQ(n->as_int(), std::int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(s.interpreter.get("f")->as_double(), 1.25);
  auto w = s.interpreter.get("w");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->kind(), shardlang::Value::Kind::other);
  EXPECT_EQ(w->repr(), "{'k': [True, None]}");
  EXPECT_FALSE(s.interpreter.get("nothing").has_value());
  // An `other` value goes back into the script as the same object.
  s.interpreter.set("w2", *w);
  EXPECT_EQ(s.run("print(w2 is w)"), "True\n");
}

TEST(Interpreter, HostFunctionsReceiveArgumentsAndRaise) {
  Session s;
  s.interpreter.def("scale", [](const shardlang::Args& args) -> shardlang::HostResult {
    if (args.positional.size() != 1) return shardlang::HostResult::error("TypeError", "scale() takes one argument");
    double factor = 2;
    for (const auto& [name, value] : args.keywords)
      if (name == "by") factor = value.as_double();
    if (args.positional[0].kind() == shardlang::Value::Kind::string)
      return shardlang::HostResult::error("ValueError", "cannot scale a string");
    return shardlang::Value::number(args.positional[0].as_double() * factor);
  });
  EXPECT_EQ(s.run("print(scale(3), scale(1, by=0.5))"), "6.0 0.5\n");
  EXPECT_EQ(s.run("try:\n    scale('x')\nexcept ValueError as e:\n    print('caught', e)\n"), "caught cannot scale a string\n");
  s.run("scale()");
  EXPECT_EQ(s.last.exception_type(), "TypeError");
}

TEST(Interpreter, InterruptRaisesKeyboardInterrupt) {
  Session s;
  shardlang::Interpreter* self = &s.interpreter;
  s.interpreter.def("stop", [self](const shardlang::Args&) -> shardlang::HostResult {
    self->interrupt();
    return shardlang::Value::none();
  });
  s.run("stop()\nwhile True:\n    pass\n");
  EXPECT_EQ(s.last.exception_type(), "KeyboardInterrupt");
  EXPECT_EQ(s.run("print('still alive')"), "still alive\n");
}

TEST(Interpreter, DeepRecursionIsARecursionError) {
  Session s;
  s.run("def f(n):\n    return f(n + 1)\nf(0)\n");
  EXPECT_EQ(s.last.exception_type(), "RecursionError");
  // The traceback collapses the repeated frame as Python does.
  const auto& traceback = s.last.diagnostics()[0].traceback;
  EXPECT_LT(traceback.size(), 10u);
  EXPECT_NE(traceback.back().find("more times]"), std::string::npos);
}

TEST(Interpreter, DeeplyNestedValuesAreFreedSafely) {
  auto interpreter = std::make_unique<shardlang::Interpreter>();
  EXPECT_TRUE(interpreter->run("a = []\nfor i in range(100000):\n    a = [a]\n").ok());
  interpreter.reset();  // frees 100000 nested lists without overflowing the stack
}

TEST(Interpreter, TwoInterpretersAreIndependent) {
  Session a, b;
  a.run("x = 'a'");
  b.run("x = 'b'");
  EXPECT_EQ(a.run("print(x)"), "a\n");
  EXPECT_EQ(b.run("print(x)"), "b\n");
}

// re.error is made once per process: the end of one interpreter (its
// teardown sweep) must leave it whole for the next.
TEST(Interpreter, ProcessWideClassesOutliveAnInterpreter) {
  const char* program = "import re\nprint(re.error.__module__, re.error.__qualname__)";
  {
    Session first;
    EXPECT_EQ(first.run(program), "re error\n");
  }
  Session second;
  EXPECT_EQ(second.run(program), "re error\n");
}

// Runs `program` with host functions held0, held1, ... (`count` of them),
// each holding an object of the test's: once the interpreter has ended, an
// object nothing but the test holds (use_count 1) shows that its function,
// and what held it, was freed.
void expect_freed_at_the_end(std::size_t count, const std::string& program) {
  std::vector<std::shared_ptr<int>> sentinels;
  for (std::size_t i = 0; i < count; ++i) sentinels.push_back(std::make_shared<int>());
  {
    Session s;
    for (std::size_t i = 0; i < count; ++i)
      s.interpreter.def("held" + std::to_string(i), [held = sentinels[i]](const shardlang::Args&) -> shardlang::HostResult {
        return shardlang::Value::none();
      });
    s.run(program);
    EXPECT_TRUE(s.last.ok());
  }
  for (const auto& sentinel : sentinels) EXPECT_EQ(sentinel.use_count(), 1);
}

// A dict, list or function that holds itself and that no name reaches any
// more is freed when its interpreter ends. There is no cycle collector: the
// teardown sweep empties what the store that made the cycle remembered.
// Each cycle also holds a host function whose capture shows whether it was.
TEST(Interpreter, UnreachableSelfHoldingContainersAreFreedAtTheEnd) {
  expect_freed_at_the_end(3,
                          "d = {'f': held0}\nd['c'] = d\n"
                          "items = [held1]\nitems.append(items)\n"
                          "def g(): pass\ng.f = held2\ng.me = g\n"
                          "d = items = g = None\ndel held0, held1, held2\n");
}

// An instance that holds itself is freed at the end too, however its
// attributes came to hold it: an instance is remembered for the sweep when
// it first holds an object, over a number or not, in a method (a store the
// site's cache answers), by object.__setattr__ or setattr().
TEST(Interpreter, UnreachableSelfHoldingInstancesAreFreedAtTheEnd) {
  expect_freed_at_the_end(4,
                          "class C:\n"
                          "    def __init__(self):\n        self.me = 0\n"
                          "    def hold(self, value):\n        self.me = value\n"
                          "a = C()\na.me = (a, held0)\n"
                          "b = C()\nb.hold(1)\nb.hold(2)\nb.hold((b, held1))\n"
                          "c = C()\nobject.__setattr__(c, 'me', (c, held2))\n"
                          "d = C()\nsetattr(d, 'other', [d, held3])\n"
                          "a = b = c = d = None\ndel held0, held1, held2, held3\n");
}

TEST(Interpreter, CompletionNames) {
  Session s;
  s.run("import jax\nimport jax.numpy as jnp\nimport functools\nitems = [1]\n");
  auto globals = s.interpreter.global_names();
  EXPECT_TRUE(contains(globals, "jnp"));
  EXPECT_TRUE(contains(globals, "print"));
  EXPECT_TRUE(contains(s.interpreter.member_names("jax"), "numpy"));
  EXPECT_TRUE(contains(s.interpreter.member_names("items"), "append"));
  EXPECT_TRUE(contains(s.interpreter.member_names("functools"), "partial"));
  EXPECT_TRUE(contains(s.interpreter.member_names("jax.numpy"), "__name__") == false);
  EXPECT_TRUE(s.interpreter.member_names("print(1)").empty());
  EXPECT_TRUE(s.interpreter.member_names("nothing.here").empty());
}

TEST(Interpreter, IsComplete) {
  EXPECT_TRUE(shardlang::Interpreter::is_complete("x = 1"));
  EXPECT_FALSE(shardlang::Interpreter::is_complete("x = (1,"));
  EXPECT_FALSE(shardlang::Interpreter::is_complete("def f():"));
}

TEST(Interpreter, TimeitPrintsIPythonsLineThenTheSimulatedTime) {
  Session s;
  std::string out = s.run("%timeit -n 3 -r 2 x = sum(range(10))\n");
  // Host-only work costs the simulated TPU nothing.
  EXPECT_TRUE(std::regex_match(out, std::regex("3 loops, best of 2: [0-9.e+-]+ (s|ms|\xc2\xb5s|ns) per loop\n"
                                               "simulated TPU v5e: 0 \xc2\xb5s per loop\n")))
      << out;
  // One execution of a sharded sin: the VPU's time for a 1/8 shard plus the eager dispatch (costmodel.md).
  out = s.run("import jax, jax.numpy as jnp\n"
              "x = jax.device_put(jnp.ones((1024, 1024)), jax.sharding.NamedSharding("
              "jax.make_mesh((8,), ('X',)), jax.sharding.PartitionSpec('X')))\n"
              "%timeit -n 1 -r 1 jnp.sin(x)\n");
  EXPECT_NE(out.find("\nsimulated TPU v5e: 1.01 ms per loop\n"), std::string::npos) << out;
}

TEST(Interpreter, ValueReprMatchesPython) {
  using shardlang::Value;
  EXPECT_EQ(Value::tuple({Value::integer(1)}).repr(), "(1,)");
  EXPECT_EQ(Value::list({Value::number(0.1), Value::string("it's"), Value::boolean(false), Value::none()}).repr(),
            "[0.1, \"it's\", False, None]");
  EXPECT_FALSE(shardlang::Interpreter::version().empty());
}

TEST(Interpreter, RunFileReportsUnreadableFiles) {
  Session s;
  shardlang::Result r = s.interpreter.run_file("/nonexistent/script.shl");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics()[0].code, "io");
}

}  // namespace
