// The time limit of a call of the public API (Options::time_limit_seconds).
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "shardlang/shardlang.hpp"

namespace {

shardlang::Options limited(double seconds) {
  shardlang::Options options;
  options.platform = "cpu";
  options.devices = 1;
  options.time_limit_seconds = seconds;
  return options;
}

TEST(TimeLimit, AnEndlessCheckStopsWithADiagnostic) {
  shardlang::Interpreter interpreter(limited(0.2));
  auto started = std::chrono::steady_clock::now();
  std::vector<shardlang::Diagnostic> diagnostics = interpreter.check(R"(n = 0
while True:
    try:
        n += 1
    except Exception:
        pass
)", "loop.shl");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(seconds, 5);
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].code, "limit/time");
  EXPECT_EQ(diagnostics[0].message, "TimeoutError: check ran past its time limit of 0.2 s");
  EXPECT_GE(diagnostics[0].where.line, 2);
  // The interpreter stays usable, and the limit is per call.
  EXPECT_TRUE(interpreter.run("x = 1").ok());
  EXPECT_TRUE(interpreter.check("y = 2", "ok.shl").empty());
}

TEST(TimeLimit, AnEndlessRunStopsAndTheScriptSeesTimeoutError) {
  shardlang::Interpreter interpreter(limited(0.2));
  shardlang::Result result = interpreter.run("while True:\n    pass\n", "loop.shl");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.exception_type(), "TimeoutError");
  const shardlang::Diagnostic& stopped = result.diagnostics().at(0);
  EXPECT_EQ(stopped.message, "TimeoutError: the script ran past its time limit of 0.2 s");
  // Located at the loop's header line, not the whole block.
  EXPECT_EQ(stopped.where.line, 1);
  EXPECT_EQ(stopped.where.end_line, 1);
  EXPECT_EQ(stopped.where.end_column, 12);
  EXPECT_TRUE(interpreter.run("try:\n    raise TimeoutError('x')\nexcept OSError:\n    pass\n").ok());
}

}  // namespace
