// libFuzzer target: running programs through the public API, on a small
// simulated mesh under small budgets (host memory, each device's HBM), so that the evaluator, the kernels, the collectives, the
// partitioner, jit, grad and shard_map are reached, not only the parser and
// the type rules. Nothing may crash, hang, report a sanitizer error or end in
// an internal error (a C++ exception that is not a Python error). An error
// the script raises, MemoryError and TimeoutError included, is fine.
//
// The first byte chooses the interpreter (platform, device count) and the
// input: bit 0 clear, the rest is source text run as is (the corpus is seeded
// with the project's scripts); set, the rest drives RunProgramGenerator
// (run_program_generator.hpp). A watchdog thread interrupts a run that takes
// longer than time_allowed (KeyboardInterrupt, which `except Exception`
// does not catch; raw inputs with `except` are skipped, as a bare `except:`
// could swallow it). After the run the interpreter runs a small statement
// again: a run that was interrupted or ran out of memory must leave it usable.
#include <shardlang/shardlang.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "run_program_generator.hpp"

namespace {

constexpr std::size_t max_input_bytes = 4096;
constexpr auto time_allowed = std::chrono::milliseconds(1000);

bool is_internal_error(const shardlang::Result& result) {
  for (const shardlang::Diagnostic& diagnostic : result.diagnostics())
    if (diagnostic.message.find("internal error") != std::string::npos) return true;
  return false;
}

void fail(const char* what, const std::string& source, const shardlang::Result& result) {
  std::fprintf(stderr, "run_fuzz: %s\n--- program ---\n%s\n--- diagnostics ---\n", what, source.c_str());
  for (const shardlang::Diagnostic& diagnostic : result.diagnostics())
    std::fprintf(stderr, "%s\n", diagnostic.render().c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > max_input_bytes) return -1;
  static const int device_counts[] = {1, 2, 4, 8};
  const int devices = device_counts[(data[0] >> 1) % 4];
  std::optional<std::string> script = fuzz::script_of(
      data, size, [devices](fuzz::Choices& choices) { return fuzz::RunProgramGenerator(choices, devices).generate(); });
  if (!script) return -1;
  const std::string& source = *script;
  // Triage: rerunning a finding (`run_fuzz ARTIFACT`) with FUZZ_PRINT set
  // shows the program that the bytes generated.
  if (std::getenv("FUZZ_PRINT")) std::fprintf(stderr, "--- program ---\n%s\n---\n", source.c_str());
  std::string output;
  shardlang::Options options;
  options.platform = data[0] & 0x20 ? "cpu" : "tpu";
  options.devices = devices;
  options.output = [&output](std::string_view text) {
    if (output.size() < (1u << 20)) output.append(text);
  };
  options.host_memory_bytes = std::int64_t{64} << 20;
  options.device_memory_bytes = std::int64_t{8} << 20;
  options.file_access = false;  // a fuzzed program must never write or read the machine's files
  shardlang::Interpreter interpreter(options);
  shardlang::Result result;
  {
    fuzz::Watchdog watchdog(interpreter, time_allowed);
    result = interpreter.run(source, "fuzz.shl");
  }
  if (is_internal_error(result)) fail("internal error", source, result);
  for (const shardlang::Diagnostic& diagnostic : result.diagnostics()) {
    (void)diagnostic.render(true);
    (void)diagnostic.render_json();
  }
  shardlang::Result again = interpreter.run("fuzz_again = [1 + 1]\n", "again.shl");
  if (!again.ok()) fail("the interpreter is not usable after a run", source, again);
  return 0;
}
