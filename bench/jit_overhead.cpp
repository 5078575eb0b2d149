// Host overhead of calling a cached jitted function (issue #20's target: at
// most 20 µs per call beyond its kernels, for a 10-op program on small
// arrays; issue #5's was 50 µs). Built and run by bench/jit_overhead.sh.
//
// Per call: the time of `f(x)` in a script loop (the loop's own cost, timed
// with a call to a plain Python function of the same arity, subtracted)
// minus the time the same 10 kernels take when called directly.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "devices/device.hpp"
#include "devices/kernels.hpp"
#include "devices/memory.hpp"
#include "shardlang/shardlang.hpp"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kSide = 16;  // x is f32[16,16] on one device

const char* const kProgram = R"(
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
  y = x * 2.0
  y = y + 1.0
  y = jnp.sin(y)
  y = y * x
  y = y - 0.5
  y = jnp.tanh(y)
  y = jnp.abs(y)
  y = y + x
  y = jnp.exp(y)
  return y / 3.0

def plain(x):
  return x

x = jnp.ones((16, 16))
f(x)
)";

double seconds_of(shardlang::Interpreter& interpreter, const std::string& source) {
  auto start = Clock::now();
  shardlang::Result result = interpreter.run(source);
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (!result.ok()) {
    for (const auto& d : result.diagnostics()) std::fprintf(stderr, "%s\n", d.message.c_str());
    std::exit(1);
  }
  return elapsed;
}

// The ten kernels of f, run directly on one 16x16 shard.
double kernel_seconds_per_call(int calls) {
  using namespace devices;
  auto ledger = std::make_shared<MemoryLedger>(std::vector<MemoryLedger::DeviceMemory>{{"CPU 0", std::nullopt}},
                                               default_host_memory_budget());
  auto make = [&](Shape shape, float value) {
    LocalArray array = make_local_array(ledger, typecheck::DType::float32, std::move(shape)).value();
    for (float& e : array.buffer->elements<typecheck::DType::float32>()) e = value;
    return array;
  };
  LocalArray x = make({kSide, kSide}, 1.0f);
  LocalArray two = make({}, 2.0f), one = make({}, 1.0f), half = make({}, 0.5f), three = make({}, 3.0f);
  auto start = Clock::now();
  for (int i = 0; i < calls; ++i) {
    LocalArray y = binary(BinaryOp::mul, x, two).value();
    y = binary(BinaryOp::add, y, one).value();
    y = unary(UnaryOp::sin, y).value();
    y = binary(BinaryOp::mul, y, x).value();
    y = binary(BinaryOp::sub, y, half).value();
    y = unary(UnaryOp::tanh, y).value();
    y = unary(UnaryOp::abs, y).value();
    y = binary(BinaryOp::add, y, x).value();
    y = unary(UnaryOp::exp, y).value();
    y = binary(BinaryOp::div, y, three).value();
  }
  return std::chrono::duration<double>(Clock::now() - start).count() / calls;
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 20000;
  shardlang::Options options;
  options.platform = "cpu";
  options.devices = 8;
  shardlang::Interpreter interpreter(options);
  seconds_of(interpreter, kProgram);
  const std::string count = std::to_string(calls);
  // Best of 5 against load on the machine.
  double jitted = 1e9, plain = 1e9, kernels = 1e9;
  for (int round = 0; round < 5; ++round) {
    jitted = std::min(jitted, seconds_of(interpreter, "for _ in range(" + count + "):\n  f(x)\n") / calls);
    plain = std::min(plain, seconds_of(interpreter, "for _ in range(" + count + "):\n  plain(x)\n") / calls);
    kernels = std::min(kernels, kernel_seconds_per_call(calls));
  }
  const double overhead = jitted - plain - kernels;
  std::printf("calls per round: %d (best of 5 rounds)\n", calls);
  std::printf("jitted f(x), 10 ops on f32[%d,%d]: %.2f us per call\n", kSide, kSide, jitted * 1e6);
  std::printf("script loop and call of a plain function: %.2f us per call\n", plain * 1e6);
  std::printf("the 10 kernels called directly: %.2f us per call\n", kernels * 1e6);
  std::printf("host overhead beyond the kernels: %.2f us per call (target: at most 20 us): %s\n", overhead * 1e6,
              overhead <= 20e-6 ? "met" : "NOT met");
  return overhead <= 20e-6 ? 0 : 1;
}
