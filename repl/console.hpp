// What the CLI and the REPL share about the process they run in: files,
// stdout/stderr, colour, and Ctrl-C.
#pragma once

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardlang/shardlang.hpp"

namespace repl {

// Exit statuses (cli.md "Exit codes").
inline constexpr int exit_success = 0;
inline constexpr int exit_failure = 1;  // uncaught error (run) or diagnostics found (check)
inline constexpr int exit_usage = 2;    // bad flag, missing or unreadable file

// Reads what remains of `stream` into `contents`; false on a read error
// (then errno says why).
bool read_all(std::FILE* stream, std::string& contents);

// Reads a file into `contents`; on failure returns the message to show
// ("cannot open 'x.shl': No such file or directory").
std::optional<std::string> read_whole_file(const std::string& path, std::string& contents);

// Program output (Options::output for the CLI and the REPL).
void write_to_stdout(std::string_view text);

// Colour on stderr: only a terminal, and only when NO_COLOR is unset or empty.
bool stderr_wants_color();

// "shardlang: MESSAGE" on stderr, after flushing program output.
void print_error(const std::string& message);

// Each diagnostic's text form on stderr, after flushing program output so
// that what the script printed comes first.
void print_diagnostics(const std::vector<shardlang::Diagnostic>& diagnostics);

// Routes SIGINT (Ctrl-C) to the functions below; InterruptibleRun calls it.
void install_interrupt_handler();

// Runs `source` as a script named `name` (program output to stdout,
// diagnostics to stderr, Ctrl-C interrupts it) and returns the exit status.
// `report`, when given, runs after the script (--profile, --trace); its
// false (an unwritable file) makes the status a usage error. In a job of
// several processes (Options::processes) the diagnostics and the report
// come from process 0, and an error on any process ends them all (exit
// status 1), said once by a process that failed.
int run_program(shardlang::Options options, const std::string& source, const std::string& name,
                const std::function<bool(const shardlang::Interpreter&)>& report = {});

// While alive, Ctrl-C asks `interpreter` to raise KeyboardInterrupt; a second
// Ctrl-C during the same run ends the process as the default action would,
// so that a run that never checks for interrupts can still be stopped.
class InterruptibleRun {
 public:
  explicit InterruptibleRun(shardlang::Interpreter& interpreter);
  ~InterruptibleRun();
  InterruptibleRun(const InterruptibleRun&) = delete;
  InterruptibleRun& operator=(const InterruptibleRun&) = delete;
};

// Ctrl-C while no run is going (at the prompt): consumes and reports whether
// one arrived since the last call.
bool take_pending_interrupt();
// A descriptor that turns readable when such a Ctrl-C arrives (-1 if none
// could be made), for the prompt's wait: the signal may be handled on
// another of the process's threads, which does not interrupt that wait.
int interrupt_wakeup_descriptor();

}  // namespace repl
