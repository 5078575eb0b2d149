// The `shardlang` executable: parse flags, call the library (repl/cli.hpp).
#include <string>
#include <vector>

#include "repl/cli.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> arguments(argv + 1, argv + argc);
  return repl::run_command_line(arguments);
}
