#include "devices/blas.hpp"

#include <cblas.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string_view>

// OpenBLAS's dynamic-architecture entry points (exported by builds with
// DYNAMIC_ARCH, as Debian's; absent elsewhere, hence weak): forget the
// chosen core, and choose again from OPENBLAS_CORETYPE or the CPU.
extern "C" void gotoblas_dynamic_init(void) __attribute__((weak));
extern "C" void gotoblas_dynamic_quit(void) __attribute__((weak));
// Stops OpenBLAS's worker threads (pthread builds, as Debian's).
extern "C" int blas_thread_shutdown_(void) __attribute__((weak));
// The thread counts OpenBLAS's pthread builds start their workers from, when
// it initialises, unless they are set already (memory.c's gotoblas_init and
// blas_get_cpu_number); exported by Debian's.
extern "C" int blas_num_threads __attribute__((weak));
extern "C" int blas_cpu_number __attribute__((weak));

namespace devices::blas {
namespace {

// Vector instruction sets, weakest first.
enum class Level { older, avx2, avx512 };

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// What an OpenBLAS core type's sgemm uses.
Level level_of_core(std::string_view name) {
  std::string core = lowercase(name);
  if (core == "skylakex" || core == "cooperlake" || core == "sapphirerapids") return Level::avx512;
  if (core == "haswell" || core == "zen") return Level::avx2;
  return Level::older;
}

Level level_of_host() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return Level::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Level::avx2;
#endif
  return Level::older;
}

// The core to select for the host, when OpenBLAS's own is weaker.
std::optional<std::string_view> better_core() {
  const Level host = level_of_host();
  if (level_of_core(kernel_name()) >= host) return std::nullopt;
  switch (host) {
    case Level::avx512:
#if defined(__x86_64__) && defined(__GNUC__)
      if (__builtin_cpu_supports("avx512bf16")) return "Cooperlake";
#endif
      return "SkylakeX";
    case Level::avx2: return "Haswell";
    case Level::older: break;
  }
  return std::nullopt;
}

bool set_up() {
  if (gotoblas_dynamic_init != nullptr && gotoblas_dynamic_quit != nullptr) {
    if (std::optional<std::string_view> core = better_core()) {
      // OPENBLAS_CORETYPE is read only by gotoblas_dynamic_init: set for the
      // call, then put back as it was.
      const char* previous = std::getenv("OPENBLAS_CORETYPE");
      std::optional<std::string> saved = previous ? std::optional<std::string>(previous) : std::nullopt;
      setenv("OPENBLAS_CORETYPE", std::string(*core).c_str(), 1);
      // A worker thread OpenBLAS started at load may still be starting, and
      // a starting worker chooses the core itself (blas_memory_alloc calls
      // gotoblas_dynamic_init) when it finds none chosen: between quit and
      // init it would race this choice (a crash, rarely, under load). The
      // workers are stopped first; BLAS runs on the calling thread here.
      if (blas_thread_shutdown_ != nullptr) blas_thread_shutdown_();
      gotoblas_dynamic_quit();
      gotoblas_dynamic_init();
      if (saved) setenv("OPENBLAS_CORETYPE", saved->c_str(), 1);
      else unsetenv("OPENBLAS_CORETYPE");
    }
  }
  openblas_set_num_threads(1);
  return true;
}

// Before main: OpenBLAS (a shared library) is initialised by then, and this
// process has not started a thread of its own nor called BLAS.
[[maybe_unused]] const bool is_set_up = set_up();

}  // namespace

void before_openblas_loads() {
  // Not the environment (OPENBLAS_NUM_THREADS): the C library resets it to
  // the process's initial one when it initialises, after this.
  if (&blas_num_threads != nullptr && &blas_cpu_number != nullptr) {
    blas_num_threads = 1;
    blas_cpu_number = 1;
  }
}

std::string kernel_name() {
  const char* name = openblas_get_corename();
  return name ? name : "unknown";
}

bool order_fixed_by_depth() {
  static const bool fixed = [] {
    std::string core = lowercase(kernel_name());
    return core == "skylakex" || core == "cooperlake";
  }();
  return fixed;
}

}  // namespace devices::blas
