// The command line of cli.md: `shardlang run|check|repl|lsp`, `shardlang FILE`,
// `--version`, `--help`. Written against the public API only
// (include/shardlang/shardlang.hpp), as lua.c is written against lua.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "shardlang/shardlang.hpp"

namespace repl {

enum class Command { run, check, repl, lsp, version, help };
enum class DiagnosticFormat { text, json };

struct CommandLine {
  Command command = Command::repl;
  // Common flags; the defaults are those of shardlang::Options.
  std::optional<std::string> platform;
  std::optional<int> devices;
  std::optional<std::string> chip;
  std::optional<std::uint64_t> host_memory_bytes;
  std::optional<std::uint64_t> hbm_bytes;  // --hbm: each TPU's HBM
  std::vector<std::string> include_directories;  // -I DIR, in order: searched by imports
  // `run` only.
  bool profile = false;
  std::optional<std::string> trace_path;
  // `check` only.
  DiagnosticFormat format = DiagnosticFormat::text;
  // `lsp` only: a context mesh ("data=2,model=4") and a check's time limit.
  std::optional<std::string> mesh;
  std::optional<double> time_limit_seconds;
  // `run`: exactly one; `check`: one or more; otherwise none.
  std::vector<std::string> files;
  std::vector<std::string> script_arguments;  // `run`: what follows the file
  // Under mpirun: the job this process runs in with others.
  std::shared_ptr<shardlang::ProcessGroup> processes;
};

struct UsageError {
  std::string message;
};

// Parses the arguments after the program name. `is_file` says whether a path
// names an existing file (so that `shardlang FILE` can be told from an
// unknown command word).
std::variant<CommandLine, UsageError> parse_command_line(const std::vector<std::string>& arguments,
                                                         const std::function<bool(const std::string&)>& is_file);

// "4G", "512M", "64K", "1024": a byte count (binary multiples); nullopt when
// the text is not one.
std::optional<std::uint64_t> parse_size(const std::string& text);

// Whether a --platform / --chip value (or a configuration's) is one the
// interpreter accepts: nullopt when it is, else the message.
std::optional<std::string> platform_problem(const std::string& value);
std::optional<std::string> chip_problem(const std::string& value);

// The --help text.
const char* usage_text();

// Everything `main` does: parse, run the command, return the exit status.
int run_command_line(const std::vector<std::string>& arguments);

}  // namespace repl
