#include "repl/console.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

namespace repl {

bool read_all(std::FILE* stream, std::string& contents) {
  contents.clear();
  char buffer[1 << 16];
  std::size_t count = 0;
  while ((count = std::fread(buffer, 1, sizeof buffer, stream)) > 0) contents.append(buffer, count);
  return std::ferror(stream) == 0;
}

std::optional<std::string> read_whole_file(const std::string& path, std::string& contents) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return "cannot open '" + path + "': " + std::strerror(errno);
  // Reading a directory "opens" but fails here with EISDIR.
  if (!read_all(file.get(), contents)) return "cannot read '" + path + "': " + std::strerror(errno);
  return std::nullopt;
}

void write_to_stdout(std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); }

bool stderr_wants_color() {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return isatty(STDERR_FILENO) != 0;
}

void print_error(const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "shardlang: %s\n", message.c_str());
}

void print_diagnostics(const std::vector<shardlang::Diagnostic>& diagnostics) {
  std::fflush(stdout);
  bool color = stderr_wants_color();
  for (const shardlang::Diagnostic& diagnostic : diagnostics) std::fputs(diagnostic.render(color).c_str(), stderr);
  std::fflush(stderr);
}

namespace {

// What the SIGINT handler may touch: lock-free atomics only.
std::atomic<shardlang::Interpreter*> running_interpreter{nullptr};
std::atomic<int> interrupts_during_run{0};
std::atomic<bool> pending_interrupt{false};
// A pipe the handler writes a byte to for a pending interrupt (the
// self-pipe trick): written by the handler, read by the prompt.
int wakeup_pipe[2] = {-1, -1};

extern "C" void on_interrupt(int) {
  shardlang::Interpreter* interpreter = running_interpreter.load();
  if (interpreter == nullptr) {
    pending_interrupt.store(true);
    if (wakeup_pipe[1] >= 0) {
      int saved_errno = errno;
      (void)!write(wakeup_pipe[1], "!", 1);  // a full pipe already wakes the prompt
      errno = saved_errno;
    }
    return;
  }
  if (interrupts_during_run.fetch_add(1) > 0) {  // the first one went unanswered
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
    return;
  }
  interpreter->interrupt();
}

}  // namespace

void install_interrupt_handler() {
  if (wakeup_pipe[0] < 0 && pipe(wakeup_pipe) == 0) {
    for (int end : wakeup_pipe) {
      fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK);
      fcntl(end, F_SETFD, FD_CLOEXEC);
    }
  }
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  // SA_RESTART keeps the script's own stdio from failing with EINTR; select()
  // and pselect() are interrupted regardless, which is what the prompt needs.
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
}

InterruptibleRun::InterruptibleRun(shardlang::Interpreter& interpreter) {
  install_interrupt_handler();
  interrupts_during_run.store(0);
  running_interpreter.store(&interpreter);
}

InterruptibleRun::~InterruptibleRun() { running_interpreter.store(nullptr); }

namespace {

// A run that failed on one process of several: one of those that failed
// says why, with its process, and ends the job (docs/scale-out.md).
[[noreturn]] void fail_job(shardlang::ProcessGroup& group, const std::vector<shardlang::Diagnostic>& diagnostics) {
  std::fflush(stdout);
  if (group.reports_failure()) {
    print_error("error on process " + std::to_string(group.index()) + " of " + std::to_string(group.count()) +
                "; every process stops");
    print_diagnostics(diagnostics);
    group.abort(exit_failure);
  }
  // The process that reports ends the job; should it not, end this one.
  std::this_thread::sleep_for(std::chrono::seconds(10));
  std::_Exit(exit_failure);
}

}  // namespace

int run_program(shardlang::Options options, const std::string& source, const std::string& name,
                const std::function<bool(const shardlang::Interpreter&)>& report) {
  options.output = write_to_stdout;
  options.log = [](std::string_view text) {
    std::fflush(stdout);  // in order with what the script printed before
    std::fwrite(text.data(), 1, text.size(), stderr);
  };
  std::shared_ptr<shardlang::ProcessGroup> group = options.processes;
  bool first_process = !group || group->index() == 0;
  shardlang::Interpreter interpreter(std::move(options));
  shardlang::Result result;
  {
    InterruptibleRun running(interpreter);
    result = interpreter.run(source, name);
  }
  if (!result.ok() && group && group->count() > 1) fail_job(*group, result.diagnostics());
  // What every process would say alike (warnings, reports) comes from the first.
  if (first_process) print_diagnostics(result.diagnostics());
  if (report && first_process && !report(interpreter)) return exit_usage;
  return result.ok() ? exit_success : exit_failure;
}

bool take_pending_interrupt() {
  if (wakeup_pipe[0] >= 0) {
    char drained[64];
    while (read(wakeup_pipe[0], drained, sizeof drained) > 0) {
    }
  }
  return pending_interrupt.exchange(false);
}

int interrupt_wakeup_descriptor() { return wakeup_pipe[0]; }

}  // namespace repl
