// The `shardlang` executable: parse flags, call the library (repl/cli.hpp).
#include <string>
#include <vector>

#include "devices/blas.hpp"
#include "repl/cli.hpp"

// Runs before the shared libraries initialise (ELF's .preinit_array, for
// executables only).
[[gnu::used, gnu::section(".preinit_array")]] static void (*before_libraries_initialise)() =
    &devices::blas::before_openblas_loads;

int main(int argc, char** argv) {
  std::vector<std::string> arguments(argv + 1, argv + argc);
  return repl::run_command_line(arguments);
}
