#include "repl/repl.hpp"

#include <readline/history.h>
#include <readline/readline.h>
#include <sys/select.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "repl/console.hpp"

namespace repl {

namespace {

constexpr const char* help_text = R"(Enter shardlang statements; a block ends with an empty line.
  :load FILE   run a file into this session
  :help        this text
  :quit        leave (as does Ctrl-D)
Ctrl-C abandons the current input or interrupts a running computation.
)";

bool is_blank(std::string_view text) { return text.find_first_not_of(" \t\r\f\v") == std::string_view::npos; }

std::string join_lines(const std::vector<std::string>& lines) {
  std::string joined;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) joined += '\n';
    joined += lines[i];
  }
  return joined;
}

}  // namespace

Session::Session(shardlang::Interpreter& interpreter, LineReader& reader, std::function<void(std::string_view)> output,
                 std::function<void(std::string_view)> errors, bool color)
    : interpreter_(interpreter),
      reader_(reader),
      output_(std::move(output)),
      errors_(std::move(errors)),
      color_(color) {}

bool Session::step() {
  std::vector<std::string> lines;
  for (;;) {
    InputLine input = reader_.read_line(lines.empty() ? primary_prompt : continuation_prompt);
    if (input.kind == InputLine::Kind::end_of_input) return false;
    if (input.kind == InputLine::Kind::interrupted) {
      errors_("KeyboardInterrupt\n");
      return true;
    }
    if (lines.empty() && is_blank(input.text)) return true;
    if (lines.empty() && input.text.starts_with(':')) return command(input.text);
    lines.push_back(std::move(input.text));
    // Lines joined without a final newline, as Python's codeop sees them: a
    // block is complete once its last line is empty.
    if (shardlang::Interpreter::is_complete(join_lines(lines))) break;
  }
  while (is_blank(lines.back())) lines.pop_back();  // the empty line that closed a block
  std::string entry = join_lines(lines);
  reader_.remember(entry);
  report(run_guarded([&] { return interpreter_.run_interactive(entry + "\n", "<stdin>"); }));
  return true;
}

shardlang::Result Session::run_guarded(const std::function<shardlang::Result()>& body) {
  InterruptibleRun running(interpreter_);
  return body();
}

void Session::report(const shardlang::Result& result) {
  for (const shardlang::Diagnostic& diagnostic : result.diagnostics()) errors_(diagnostic.render(color_));
}

bool Session::command(const std::string& text) {
  reader_.remember(text);
  auto name_end = text.find_first_of(" \t");
  std::string name = text.substr(0, name_end);
  auto argument_begin = text.find_first_not_of(" \t", name_end);
  auto argument_end = text.find_last_not_of(" \t");
  std::string argument =
      argument_begin == std::string::npos ? "" : text.substr(argument_begin, argument_end + 1 - argument_begin);
  if (name == ":quit" || name == ":q") return false;
  if (name == ":help") {
    output_(help_text);
    return true;
  }
  if (name == ":load" && !argument.empty()) {
    std::string source;
    if (auto problem = read_whole_file(argument, source)) {
      errors_("shardlang: " + *problem + "\n");
      return true;
    }
    report(run_guarded([&] { return interpreter_.run(source, argument); }));
    return true;
  }
  errors_("unknown command '" + text + "'; :help lists the commands\n");
  return true;
}

void Session::run() {
  while (step()) {
  }
}

namespace {

// Readline's callbacks carry no user pointer: the one reader that is
// reading (there is one terminal) is reached through this.
class ReadlineReader;
ReadlineReader* active_reader = nullptr;

class ReadlineReader final : public LineReader {
 public:
  ReadlineReader(shardlang::Interpreter& interpreter, std::string history_path)
      : interpreter_(interpreter), history_path_(std::move(history_path)) {
    rl_readline_name = "shardlang";
    rl_catch_signals = 0;  // Ctrl-C is ours: it abandons the line (read_line)
    rl_attempted_completion_function = &ReadlineReader::complete;
    // '.' is not a word break, so that `jnp.si<TAB>` completes a member.
    rl_basic_word_break_characters = word_breaks;
    rl_completer_word_break_characters = word_breaks;
    // Timestamps separate entries in the file, so a multi-line entry comes
    // back as one history item.
    history_write_timestamps = 1;
    history_multiline_entries = 1;
    if (!history_path_.empty() && read_history(history_path_.c_str()) == ENOENT)
      write_history(history_path_.c_str());  // append_history needs the file to exist
    install_interrupt_handler();
    active_reader = this;
  }

  ~ReadlineReader() override {
    if (!history_path_.empty()) history_truncate_file(history_path_.c_str(), history_limit);
    active_reader = nullptr;
  }

  ReadlineReader(const ReadlineReader&) = delete;
  ReadlineReader& operator=(const ReadlineReader&) = delete;

  InputLine read_line(const std::string& prompt) override {
    finished_ = false;
    line_.reset();
    take_pending_interrupt();  // a Ctrl-C from before this prompt is stale
    // SIGINT stays blocked except inside pselect, so a Ctrl-C cannot slip in
    // between the check and the wait.
    sigset_t interrupt_only, previous;
    sigemptyset(&interrupt_only);
    sigaddset(&interrupt_only, SIGINT);
    sigprocmask(SIG_BLOCK, &interrupt_only, &previous);
    rl_callback_handler_install(prompt.c_str(), &ReadlineReader::on_line);
    InputLine result{InputLine::Kind::end_of_input, {}};
    bool interrupted = false;
    while (!finished_) {
      if (take_pending_interrupt()) {
        interrupted = true;
        break;
      }
      fd_set readable;
      FD_ZERO(&readable);
      FD_SET(STDIN_FILENO, &readable);
      int ready = pselect(STDIN_FILENO + 1, &readable, nullptr, nullptr, nullptr, &previous);
      if (ready < 0) {
        if (errno == EINTR) continue;
        break;  // stdin is gone: end of input
      }
      rl_callback_read_char();
    }
    if (interrupted) {
      rl_free_line_state();
      rl_callback_sigcleanup();
      result.kind = InputLine::Kind::interrupted;
    }
    if (!finished_) rl_callback_handler_remove();
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    if (line_) {
      result.kind = InputLine::Kind::line;
      result.text = std::move(*line_);
    } else {
      std::fputs("\n", stdout);  // Ctrl-D and Ctrl-C leave the cursor after the prompt
    }
    std::fflush(stdout);
    return result;
  }

  void remember(const std::string& entry) override {
    add_history(entry.c_str());
    if (!history_path_.empty()) append_history(1, history_path_.c_str());
  }

 private:
  static constexpr int history_limit = 1000;
  static inline char word_breaks[] = " \t\n\"\\'`@$><=;|&{(,[)]}+-*/%~^!:";

  static void on_line(char* text) {
    // Removed here, not after the loop: once this returns, readline would
    // otherwise start the next line and draw the prompt again.
    rl_callback_handler_remove();
    if (active_reader == nullptr) return;
    active_reader->finished_ = true;
    if (text != nullptr) {
      active_reader->line_ = std::string(text);
      std::free(text);
    }
  }

  static char** complete(const char* text, int /*start*/, int /*end*/) {
    rl_attempted_completion_over = 1;  // never fall back to file names
    if (active_reader == nullptr) return nullptr;
    active_reader->candidates_ = active_reader->completions_of(text);
    active_reader->next_candidate_ = 0;
    return rl_completion_matches(text, &ReadlineReader::next_completion);
  }

  static char* next_completion(const char* /*text*/, int /*state*/) {
    if (active_reader == nullptr || active_reader->next_candidate_ >= active_reader->candidates_.size())
      return nullptr;
    return strdup(active_reader->candidates_[active_reader->next_candidate_++].c_str());
  }

  // Global names for a bare word; members for `expression.prefix`.
  std::vector<std::string> completions_of(std::string_view word) const {
    std::vector<std::string> found;
    auto dot = word.rfind('.');
    if (dot == std::string_view::npos) {
      for (const std::string& name : interpreter_.global_names())
        if (name.starts_with(word)) found.push_back(name);
      return found;
    }
    std::string_view base = word.substr(0, dot);
    std::string_view prefix = word.substr(dot + 1);
    for (const std::string& member : interpreter_.member_names(base))
      if (member.starts_with(prefix)) found.push_back(std::string(base) + "." + member);
    return found;
  }

  shardlang::Interpreter& interpreter_;
  std::string history_path_;
  bool finished_ = false;
  std::optional<std::string> line_;
  std::vector<std::string> candidates_;
  std::size_t next_candidate_ = 0;
};

void write_to_stdout_now(std::string_view text) {
  write_to_stdout(text);
  std::fflush(stdout);
}

void write_to_stderr_now(std::string_view text) {
  std::fflush(stdout);
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

// All of stdin as one script, as `python3 < file` does.
int run_piped_program(shardlang::Options options) {
  std::string source;
  if (!read_all(stdin, source)) {
    print_error(std::string("cannot read stdin: ") + std::strerror(errno));
    return exit_usage;
  }
  return run_program(std::move(options), source, "<stdin>");
}

}  // namespace

std::unique_ptr<LineReader> make_readline_reader(shardlang::Interpreter& interpreter, std::string history_path) {
  return std::make_unique<ReadlineReader>(interpreter, std::move(history_path));
}

int run_repl(shardlang::Options options) {
  if (isatty(STDIN_FILENO) == 0) return run_piped_program(std::move(options));
  std::string banner = "shardlang " + shardlang::Interpreter::version() + " on a simulated " + options.platform +
                       (options.platform == "tpu" ? " " + options.chip : std::string()) + " mesh of " +
                       std::to_string(options.devices) + " devices; :help for help, Ctrl-D exits.\n";
  options.output = write_to_stdout_now;
  shardlang::Interpreter interpreter(std::move(options));
  write_to_stdout_now(banner);
  const char* home = std::getenv("HOME");
  std::string history_path = home != nullptr && home[0] != '\0' ? std::string(home) + "/.shardlang_history" : "";
  std::unique_ptr<LineReader> reader = make_readline_reader(interpreter, std::move(history_path));
  Session session(interpreter, *reader, write_to_stdout_now, write_to_stderr_now, stderr_wants_color());
  session.run();
  return exit_success;
}

}  // namespace repl
