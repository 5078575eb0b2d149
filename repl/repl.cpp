#include "repl/repl.hpp"

#include <readline/history.h>
#include <readline/readline.h>
#include <sys/select.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "repl/console.hpp"

namespace repl {

namespace {

constexpr const char* help_header = "Enter shardlang statements; a block ends with an empty line.\n";
constexpr const char* help_footer =
    "Tab completes names, module members (jnp.si<TAB>), attributes (x.sh<TAB>) and commands.\n"
    "`_` holds the last value echoed; `%timeit STATEMENT` times a statement.\n"
    "Ctrl-C abandons the current input or interrupts a running computation.\n";

std::string help_text() {
  std::string text = help_header;
  for (const CommandInfo& info : commands()) {
    std::string usage = std::string(info.name) + (info.argument[0] != '\0' ? " " : "") + info.argument;
    text += "  " + usage + std::string(usage.size() < 13 ? 13 - usage.size() : 1, ' ') + info.summary + "\n";
  }
  return text + help_footer;
}

// :profile when the interpreter keeps no charges (Options::profile off).
constexpr const char* profile_off =
    "the cost model keeps no charges in this session (the interpreter was made without Options::profile)\n";

bool is_blank(std::string_view text) { return text.find_first_not_of(" \t\r\f\v") == std::string_view::npos; }

std::string join_lines(const std::vector<std::string>& lines) {
  std::string joined;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) joined += '\n';
    joined += lines[i];
  }
  return joined;
}

std::string trim(std::string_view text) {
  auto begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  auto end = text.find_last_not_of(" \t");
  return std::string(text.substr(begin, end + 1 - begin));
}

bool is_name_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

}  // namespace

const std::vector<CommandInfo>& commands() {
  static const std::vector<CommandInfo> table = {
      {":type", "EXPR", "the type of EXPR with its sharding (float32[8@X,2]), computing no data"},
      {":vars", "", "the variables defined here, with their types"},
      {":mesh", "", "the current mesh (jax.set_mesh) and the devices"},
      {":profile", "", "the simulated cost of the last statement"},
      {":load", "FILE", "run a file into this session"},
      {":help", "", "this text"},
      {":quit", "", "leave (as does Ctrl-D)"},
  };
  return table;
}

std::optional<std::vector<std::string>> completions(const shardlang::Interpreter& interpreter, std::string_view line,
                                                    std::size_t start, std::size_t end) {
  end = std::min(end, line.size());
  start = std::min(start, end);
  std::string_view word = line.substr(start, end - start);
  std::vector<std::string> found;
  std::string_view before = line.substr(0, start);
  if (before.starts_with(':')) {
    // The command word itself (readline broke the word at the ':').
    if (trim(before) == ":") {
      for (const CommandInfo& info : commands())
        if (std::string_view(info.name + 1).starts_with(word)) found.push_back(info.name + 1);
      return found;
    }
    if (trim(before).starts_with(":load")) return std::nullopt;
  }
  auto dot = word.rfind('.');
  if (dot == std::string_view::npos) {
    if (!word.empty() && !is_name_character(word.front())) return found;
    for (const std::string& name : interpreter.global_names())
      if (name.starts_with(word)) found.push_back(name);
    return found;
  }
  std::string_view base = word.substr(0, dot);
  std::string_view prefix = word.substr(dot + 1);
  for (const std::string& member : interpreter.member_names(base))
    if (member.starts_with(prefix)) found.push_back(std::string(base) + "." + member);
  return found;
}

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
  interpreter_.restart_profile();  // :profile shows the last entry's cost
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
  std::string argument = name_end == std::string::npos ? "" : trim(std::string_view(text).substr(name_end));
  if (name == ":q") name = ":quit";
  auto info = std::find_if(commands().begin(), commands().end(),
                           [&](const CommandInfo& candidate) { return name == candidate.name; });
  if (info == commands().end()) {
    errors_("unknown command '" + text + "'; :help lists the commands\n");
    return true;
  }
  if (argument.empty() != (info->argument[0] == '\0')) {
    errors_(std::string("usage: ") + info->name + (info->argument[0] != '\0' ? " " : "") + info->argument + "\n");
    return true;
  }
  if (name == ":quit") return false;
  if (name == ":help") {
    output_(help_text());
  } else if (name == ":type") {
    show_type(argument);
  } else if (name == ":vars") {
    show_variables();
  } else if (name == ":mesh") {
    show_mesh();
  } else if (name == ":profile") {
    std::string report = interpreter_.profile_report();
    if (report.empty()) errors_(profile_off);
    else output_(report);
  } else if (name == ":load") {
    std::string source;
    if (auto problem = read_whole_file(argument, source)) {
      errors_("shardlang: " + *problem + "\n");
      return true;
    }
    interpreter_.restart_profile();
    report(run_guarded([&] { return interpreter_.run(source, argument); }));
  }
  return true;
}

void Session::show_type(const std::string& expression) {
  shardlang::Interpreter::TypeOf type;
  report(run_guarded([&] {
    type = interpreter_.type_of(expression);
    return type.result;
  }));
  if (type.result.ok()) output_(expression + " : " + type.type + "\n");
}

void Session::show_variables() {
  std::vector<shardlang::Interpreter::Variable> variables;
  run_guarded([&] {
    variables = interpreter_.variables();
    return shardlang::Result();
  });
  if (variables.empty()) {
    output_("no variables defined yet\n");
    return;
  }
  std::size_t width = 0;
  for (const auto& variable : variables) width = std::max(width, variable.name.size());
  for (const auto& variable : variables)
    output_(variable.name + std::string(width - variable.name.size() + 2, ' ') +
            (variable.type.empty() ? "?" : variable.type) + "\n");
}

void Session::show_mesh() {
  shardlang::Interpreter::MeshDescription mesh;
  report(run_guarded([&] {
    mesh = interpreter_.mesh_description();
    return mesh.result;
  }));
  if (!mesh.result.ok()) return;
  output_("mesh:    " + (mesh.context_mesh.empty() ? std::string("none set (jax.set_mesh(mesh) sets one)")
                                                      : mesh.context_mesh) +
          "\n");
  std::string ids;
  for (std::size_t i = 0; i < mesh.device_ids.size(); ++i) ids += (i ? " " : "") + std::to_string(mesh.device_ids[i]);
  output_("devices: " + std::to_string(mesh.device_ids.size()) + " x " + mesh.device_kind + " (platform " +
          mesh.platform + "), ids " + ids + "\n");
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
    // between the check and the wait; one that another thread handles while
    // this one has it blocked wakes the wait through the console's pipe.
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
      int wakeup = interrupt_wakeup_descriptor();
      if (wakeup >= 0) FD_SET(wakeup, &readable);
      int ready = pselect(std::max(STDIN_FILENO, wakeup) + 1, &readable, nullptr, nullptr, nullptr, &previous);
      if (ready < 0) {
        if (errno == EINTR) continue;
        break;  // stdin is gone: end of input
      }
      if (FD_ISSET(STDIN_FILENO, &readable)) rl_callback_read_char();
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

  static char** complete(const char* text, int start, int end) {
    rl_attempted_completion_over = 1;  // no file names unless completions() asks for them
    if (active_reader == nullptr) return nullptr;
    auto found = completions(active_reader->interpreter_, rl_line_buffer, static_cast<std::size_t>(start),
                             static_cast<std::size_t>(end));
    if (!found) {
      rl_attempted_completion_over = 0;
      return nullptr;
    }
    // A command word is followed by its argument; after a name the user
    // goes on with '(', '.' or an operator, as Python's rlcompleter leaves it.
    rl_completion_append_character = std::string_view(rl_line_buffer).starts_with(':') && start <= 1 ? ' ' : '\0';
    active_reader->candidates_ = std::move(*found);
    active_reader->next_candidate_ = 0;
    return rl_completion_matches(text, &ReadlineReader::next_completion);
  }

  static char* next_completion(const char* /*text*/, int /*state*/) {
    if (active_reader == nullptr || active_reader->next_candidate_ >= active_reader->candidates_.size())
      return nullptr;
    return strdup(active_reader->candidates_[active_reader->next_candidate_++].c_str());
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
  options.log = write_to_stderr_now;
  options.profile = true;  // :profile; restarted at each entry, so it stays small
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
