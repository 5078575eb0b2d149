// The limits an embedding host sets on an interpreter (issue 17): a step and
// a time budget per call (TimeoutError, the interpreter usable afterwards),
// interrupt() from another thread (KeyboardInterrupt), a host memory budget
// of its own, and two interpreters running at once on two threads (the
// ThreadSanitizer build, .ci/tsan, runs these).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "session.hpp"
#include "shardlang/shardlang.hpp"

namespace {

using namespace std::chrono_literals;

// Options with the fields `set` sets, the others at their defaults.
template <class Set>
shardlang::Options options_with(Set set) {
  shardlang::Options options;
  set(options);
  return options;
}

TEST(EmbeddingLimits, StepBudgetStopsAnEndlessLoop) {
  Session s(options_with([](shardlang::Options& o) { o.max_steps = 100000; }));
  s.run("while True:\n    pass\n");
  EXPECT_EQ(s.last.exception_type(), "TimeoutError");
  ASSERT_FALSE(s.last.diagnostics().empty());
  EXPECT_NE(s.last.diagnostics().back().message.find("100000 steps"), std::string::npos);
  // The budget is per call: the interpreter, its globals included, goes on.
  EXPECT_EQ(s.run("x = 41\nprint(x + 1)"), "42\n");
  EXPECT_TRUE(s.last.ok());
}

TEST(EmbeddingLimits, ExhaustedBudgetCannotBeCaught) {
  Session s(options_with([](shardlang::Options& o) { o.max_steps = 100000; }));
  // Every step after the budget raises again, so `except` cannot keep the
  // script running; the handler itself runs and is stopped in its turn.
  s.run("n = 0\nwhile True:\n    try:\n        while True:\n            pass\n    except Exception as e:\n"
        "        n += 1\n");
  EXPECT_EQ(s.last.exception_type(), "TimeoutError");
  EXPECT_EQ(s.run("print(n <= 1)"), "True\n");
}

TEST(EmbeddingLimits, TimeBudgetStopsAnEndlessCheckWithADiagnostic) {
  shardlang::Interpreter interpreter(options_with([](shardlang::Options& o) { o.time_limit_seconds = 0.2; }));
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
  EXPECT_EQ(diagnostics[0].message, "TimeoutError: check ran past its time limit of 0.2 seconds");
  EXPECT_GE(diagnostics[0].where.line, 2);
  // The interpreter stays usable, and the limit is per call.
  EXPECT_TRUE(interpreter.run("x = 1").ok());
  EXPECT_TRUE(interpreter.check("y = 2", "ok.shl").empty());
}

TEST(EmbeddingLimits, TimeBudgetStopsAnEndlessRunAtTheLoopHeader) {
  shardlang::Interpreter interpreter(options_with([](shardlang::Options& o) { o.time_limit_seconds = 0.2; }));
  shardlang::Result result = interpreter.run("while True:\n    pass\n", "loop.shl");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.exception_type(), "TimeoutError");
  const shardlang::Diagnostic& stopped = result.diagnostics().at(0);
  EXPECT_EQ(stopped.message, "TimeoutError: the script ran past its time limit of 0.2 seconds");
  // Located at the loop's header line, not the whole block.
  EXPECT_EQ(stopped.where.line, 1);
  EXPECT_EQ(stopped.where.end_line, 1);
  EXPECT_EQ(stopped.where.end_column, 12);
  EXPECT_TRUE(interpreter.run("try:\n    raise TimeoutError('x')\nexcept OSError:\n    pass\n").ok());
}

TEST(EmbeddingLimits, InterruptFromAnotherThread) {
  Session s;
  std::atomic<bool> done{false};
  std::thread host([&] {
    std::this_thread::sleep_for(100ms);
    while (!done.load()) {
      s.interpreter.interrupt();
      std::this_thread::sleep_for(10ms);
    }
  });
  s.run("while True:\n    pass\n");
  done.store(true);
  host.join();
  EXPECT_EQ(s.last.exception_type(), "KeyboardInterrupt");
  EXPECT_EQ(s.run("print('usable')"), "usable\n");
  EXPECT_TRUE(s.last.ok());
}

TEST(EmbeddingLimits, InterruptRacingTheEndOfChecks) {
  // interrupt() while check mode's own evaluators come and go.
  shardlang::Interpreter interpreter;
  std::atomic<bool> done{false};
  std::thread host([&] {
    while (!done.load()) interpreter.interrupt();
  });
  for (int i = 0; i < 200; ++i) (void)interpreter.check("x = 1\n");
  done.store(true);
  host.join();
}

TEST(EmbeddingLimits, HostMemoryBudgetIsPerInterpreter) {
  Session small(options_with([](shardlang::Options& o) {
    o.platform = "cpu";
    o.devices = 1;
    o.host_memory_bytes = std::int64_t{16} << 20;
  }));
  Session other(options_with([](shardlang::Options& o) {
    o.platform = "cpu";
    o.devices = 1;
  }));
  const char* allocate = "import jax.numpy as jnp\nx = jnp.ones((8 << 20,))\nprint(x.sum())\n";  // 32 MiB
  small.run(allocate);
  EXPECT_EQ(small.last.exception_type(), "MemoryError");
  EXPECT_EQ(other.run(allocate), "8388608.0\n");
  // What fits the budget still runs, after the failure.
  EXPECT_EQ(small.run("y = jnp.ones((1024,))\nprint(y.sum())"), "1024.0\n");
}

TEST(EmbeddingLimits, DeviceMemoryBudgetIsEachTpusHbm) {
  Session s(options_with([](shardlang::Options& o) {
    o.platform = "tpu";
    o.devices = 2;
    o.device_memory_bytes = std::int64_t{1} << 20;
  }));
  s.run("import jax.numpy as jnp\nx = jnp.ones((1 << 19,))\n");  // 2 MiB on one TPU
  EXPECT_EQ(s.last.exception_type(), "RuntimeError");  // JAX's XlaRuntimeError
  ASSERT_FALSE(s.last.diagnostics().empty());
  EXPECT_NE(s.last.diagnostics().back().message.find("RESOURCE_EXHAUSTED"), std::string::npos);
}

TEST(EmbeddingLimits, FilesOnlyInsideAllowedDirectories) {
  Session s;
  s.run("import numpy as np\nnp.save('/tmp/shardlang_not_allowed.npy', np.ones(3))\n");
  EXPECT_EQ(s.last.exception_type(), "ValueError");
  s.run("import numpy as np\nnp.load('/etc/passwd')\n");
  EXPECT_EQ(s.last.exception_type(), "ValueError");
  // No other way to the file system, the network or processes exists.
  for (const char* module : {"sys.os", "subprocess", "socket", "io", "shutil"}) {
    s.run(std::string("import ") + module);
    EXPECT_FALSE(s.last.ok()) << module;
  }
  // os, pathlib and open() exist, but file access is off by default (Options::file_access).
  for (const char* call : {"open('/etc/passwd')", "import pathlib\npathlib.Path('/etc/passwd').read_text()",
                           "import os\nos.listdir('/')"}) {
    s.run(call);
    EXPECT_EQ(s.last.exception_type(), "PermissionError") << call;
  }
}

// Two interpreters at once on two threads: each its own devices, meshes,
// memory and traces; the results are those of one alone.
TEST(EmbeddingLimits, TwoInterpretersOnTwoThreads) {
  const char* script =
      "import jax\nimport jax.numpy as jnp\nfrom jax.sharding import PartitionSpec as P\n"
      "jax.set_mesh(jax.make_mesh((2, 2), ('x', 'y')))\n"
      "total = 0.0\n"
      "for i in range(5):\n"
      "    a = jnp.arange(64.0, out_sharding=P('x')).reshape(8, 8)\n"
      "    b = jax.jit(lambda m: jnp.tanh(m) @ jnp.ones((8, 8)))(a)\n"
      "    g = jax.grad(lambda m: jnp.sum(jnp.sin(m) * m))(a)\n"
      "    s = jax.shard_map(lambda v: jax.lax.psum(v, 'x'), in_specs=P('x'), out_specs=P())(a)\n"
      "    total += float(b.sum()) + float(g.sum()) + float(s.sum())\n"
      "print(round(total, 1))\n";
  auto on = [](const char* platform) {
    return options_with([platform](shardlang::Options& o) {
      o.platform = platform;
      o.devices = 4;
    });
  };
  std::string alone = Session(on("cpu")).run(script);
  ASSERT_FALSE(alone.empty());
  std::string first, second;
  std::thread one([&] { first = Session(on("cpu")).run(script); });
  std::thread two([&] { second = Session(on("tpu")).run(script); });
  one.join();
  two.join();
  EXPECT_EQ(first, alone);
  EXPECT_EQ(second, alone);
}

}  // namespace
