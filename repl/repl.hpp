// The interactive loop (cli.md "REPL"): prompts `>>> ` and `... `, an entry
// continues while Interpreter::is_complete says so (a block until an empty
// line), expression values echoed, errors shown with `<stdin>:LINE` where
// LINE counts within the entry, as Python's REPL numbers them. Commands:
// `:type EXPR`, `:vars`, `:mesh`, `:profile`, `:load FILE`, `:help`, `:quit`
// (the `commands` table below).
//
// The loop reads through LineReader so that tests can drive it with scripted
// lines; the terminal uses the GNU readline implementation.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardlang/shardlang.hpp"

namespace repl {

inline constexpr const char* primary_prompt = ">>> ";
inline constexpr const char* continuation_prompt = "... ";

struct CommandInfo {
  const char* name;      // ":type"
  const char* argument;  // "EXPR", or "" when it takes none
  const char* summary;
};
// Every `:` command, in the order :help lists them.
const std::vector<CommandInfo>& commands();

// Tab completion of the word that ends at `end` in `line` and starts at
// `start` (readline's word boundaries: '.' does not break a word, ':'
// does): `:` command names at the start of a line, the global names for a
// bare word, members for `expression.prefix` (`jnp.si` -> `jnp.sin`,
// `x.sh` -> `x.shape`). Candidates replace the whole word. nullopt when
// file names should be completed instead (the argument of `:load`).
std::optional<std::vector<std::string>> completions(const shardlang::Interpreter& interpreter, std::string_view line,
                                                    std::size_t start, std::size_t end);

struct InputLine {
  enum class Kind { line, end_of_input, interrupted };
  Kind kind = Kind::line;
  std::string text;  // without its newline
};

class LineReader {
 public:
  virtual ~LineReader() = default;
  virtual InputLine read_line(const std::string& prompt) = 0;
  // A whole entry (several lines joined by '\n') for the history.
  virtual void remember(const std::string& entry) = 0;
};

class Session {
 public:
  // `output` receives what the session itself prints (:help; the script's
  // output goes through Options::output), `errors` the rendered diagnostics
  // and notices (stderr in the terminal); `color` is passed to
  // Diagnostic::render.
  Session(shardlang::Interpreter& interpreter, LineReader& reader, std::function<void(std::string_view)> output,
          std::function<void(std::string_view)> errors, bool color);

  // Reads, runs and reports one entry. False at end of input.
  bool step();
  // step() until end of input or :quit.
  void run();

 private:
  // A line starting with ':' (cli.md "REPL"); false for :quit.
  bool command(const std::string& text);
  void show_type(const std::string& expression);
  void show_variables();
  void show_mesh();
  // Runs `body` with Ctrl-C routed to Interpreter::interrupt.
  shardlang::Result run_guarded(const std::function<shardlang::Result()>& body);
  void report(const shardlang::Result& result);

  shardlang::Interpreter& interpreter_;
  LineReader& reader_;
  std::function<void(std::string_view)> output_;
  std::function<void(std::string_view)> errors_;
  bool color_;
};

// GNU readline on the terminal: history in `history_path` (no history when
// empty), tab completion of the interpreter's names and members.
std::unique_ptr<LineReader> make_readline_reader(shardlang::Interpreter& interpreter, std::string history_path);

// The `shardlang` / `shardlang repl` command: the interactive loop when stdin
// is a terminal, else all of stdin run as one script without prompts (as
// `python3 < file`). Returns the exit status.
int run_repl(shardlang::Options options);

}  // namespace repl
