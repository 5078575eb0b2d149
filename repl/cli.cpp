#include "repl/cli.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>

#include "repl/console.hpp"
#include "repl/repl.hpp"
#ifdef SHARDLANG_LSP
#include "repl/lsp/config.hpp"
#include "repl/lsp/server.hpp"
#endif
#include "shardlang/shardlang.hpp"

namespace repl {

namespace {

constexpr const char* usage = R"(usage: shardlang [flags] run FILE [ARGS...]   run a script (also: shardlang FILE)
       shardlang [flags] check FILE...        types and shardings only; no data is computed
       shardlang [flags] [repl]               the interactive prompt
       shardlang [flags] lsp                  a Language Server Protocol server on stdio
       shardlang --version | --help

flags (before or after the command word, before the file):
  --platform tpu|cpu        the simulated platform (default tpu)
  --devices N               the number of devices (default 8)
  --chip v2|v3|v4|v5e|v5p|v6e
                            the TPU generation (default v5e)
  --host-memory SIZE        host memory budget, e.g. 4G or 512M
  --hbm SIZE                each TPU's HBM instead of its chip's, e.g. 16G
  -I DIR                    imports also search DIR (after the script's directory,
                            before the directories of SHARDLANG_PATH)
  --profile                 run: print where the time went
  --trace OUT.json          run: write a Chrome trace of the run (time and memory per device)
  --format text|json        check: how diagnostics are printed (default text)
  --mesh NAME=SIZE,...      lsp: a context mesh set before each file is checked
  --time-limit SECONDS      lsp: how long one check may run (default 5)

exit status: 0 success; 1 an uncaught error (run) or diagnostics found (check);
2 a usage or I/O error.

over several processes (a build with MPI): mpirun -np P shardlang run --devices N FILE
  runs FILE on P processes, each holding N/P of the devices (docs/scale-out.md).
)";

bool is_one_of(const std::string& value, std::initializer_list<const char*> allowed) {
  for (const char* candidate : allowed)
    if (value == candidate) return true;
  return false;
}

bool looks_like_flag(const std::string& argument) { return argument.size() > 1 && argument[0] == '-'; }

// Walks the argument list; a flag's value is either the next argument or
// follows '=' ("--devices=4").
class ArgumentParser {
 public:
  ArgumentParser(const std::vector<std::string>& arguments, const std::function<bool(const std::string&)>& is_file)
      : arguments_(arguments), is_file_(is_file) {}

  std::variant<CommandLine, UsageError> parse() {
    while (index_ < arguments_.size() && !error_) {
      const std::string& argument = arguments_[index_++];
      if (argument == "--" && !only_positional_) {
        only_positional_ = true;
      } else if (looks_like_flag(argument) && !only_positional_) {
        flag(argument);
      } else if (positional(argument)) {
        break;  // the rest belongs to the script
      }
    }
    if (error_) return UsageError{*error_};
    if (help_) {
      line_.command = Command::help;
      return line_;
    }
    if (version_) {
      line_.command = Command::version;
      return line_;
    }
    if (line_.command == Command::run && line_.files.empty()) return UsageError{"run: missing FILE"};
    if (line_.command == Command::check && line_.files.empty()) return UsageError{"check: missing FILE"};
    if (line_.trace_path && line_.command != Command::run) return UsageError{"--trace is an option of `run`"};
    if (line_.profile && line_.command != Command::run && line_.command != Command::check)
      return UsageError{"--profile is an option of `run` and `check`"};
    if (format_given_ && line_.command != Command::check) return UsageError{"--format is an option of `check`"};
    if ((line_.mesh || line_.time_limit_seconds) && line_.command != Command::lsp)
      return UsageError{std::string(line_.mesh ? "--mesh" : "--time-limit") + " is an option of `lsp`"};
    return line_;
  }

 private:
  void fail(std::string message) {
    if (!error_) error_ = std::move(message);
  }

  // The value of a flag: after '=' in the same argument, else the next one.
  std::optional<std::string> value_of(const std::string& name, const std::optional<std::string>& inline_value) {
    if (inline_value) return inline_value;
    if (index_ < arguments_.size()) return arguments_[index_++];
    fail(name + " needs a value");
    return std::nullopt;
  }

  void flag(const std::string& argument) {
    std::string name = argument;
    std::optional<std::string> inline_value;
    if (auto equals = argument.find('='); equals != std::string::npos) {
      name = argument.substr(0, equals);
      inline_value = argument.substr(equals + 1);
    }
    if (argument.rfind("-I", 0) == 0) {
      // -I DIR or -IDIR: the whole rest of the argument is the directory.
      if (auto value = value_of("-I", argument.size() > 2 ? std::optional<std::string>(argument.substr(2)) : std::nullopt))
        line_.include_directories.push_back(*value);
    } else if (name == "--help" || name == "-h") {
      help_ = true;
    } else if (name == "--version") {
      version_ = true;
    } else if (name == "--profile") {
      line_.profile = true;
    } else if (name == "--platform") {
      if (auto value = value_of(name, inline_value)) {
        if (auto problem = platform_problem(*value)) fail("--" + *problem);
        line_.platform = *value;
      }
    } else if (name == "--chip") {
      if (auto value = value_of(name, inline_value)) {
        if (auto problem = chip_problem(*value)) fail("--" + *problem);
        line_.chip = *value;
      }
    } else if (name == "--devices") {
      if (auto value = value_of(name, inline_value)) {
        auto count = parse_size(*value);
        if (!count || *count == 0 || value->find_first_not_of("0123456789") != std::string::npos ||
            *count > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
          fail("--devices needs a positive number, not '" + *value + "'");
        else
          line_.devices = static_cast<int>(*count);
      }
    } else if (name == "--host-memory") {
      if (auto value = value_of(name, inline_value)) {
        line_.host_memory_bytes = parse_size(*value);
        if (!line_.host_memory_bytes || *line_.host_memory_bytes == 0)
          fail("--host-memory needs a size such as 4G or 512M, not '" + *value + "'");
      }
    } else if (name == "--hbm") {
      if (auto value = value_of(name, inline_value)) {
        line_.hbm_bytes = parse_size(*value);
        if (!line_.hbm_bytes || *line_.hbm_bytes == 0)
          fail("--hbm needs a size such as 16G or 512M, not '" + *value + "'");
      }
    } else if (name == "--mesh") {
      if (auto value = value_of(name, inline_value)) line_.mesh = *value;
    } else if (name == "--time-limit") {
      if (auto value = value_of(name, inline_value)) {
        char* end = nullptr;
        double seconds = std::strtod(value->c_str(), &end);
        if (value->empty() || *end != '\0' || !(seconds > 0) || seconds > 1e9)
          fail("--time-limit needs a positive number of seconds, not '" + *value + "'");
        else
          line_.time_limit_seconds = seconds;
      }
    } else if (name == "--trace") {
      if (auto value = value_of(name, inline_value)) line_.trace_path = *value;
    } else if (name == "--format") {
      if (auto value = value_of(name, inline_value)) {
        format_given_ = true;
        if (*value == "text")
          line_.format = DiagnosticFormat::text;
        else if (*value == "json")
          line_.format = DiagnosticFormat::json;
        else
          fail("--format must be text or json, not '" + *value + "'");
      }
    } else {
      fail("unknown flag '" + argument + "'");
    }
  }

  // Returns true when the remaining arguments are the script's.
  bool positional(const std::string& argument) {
    if (!command_given_) {
      command_given_ = true;
      if (argument == "run") {
        line_.command = Command::run;
        return false;
      }
      if (argument == "check") {
        line_.command = Command::check;
        return false;
      }
      if (argument == "repl") {
        line_.command = Command::repl;
        return false;
      }
      if (argument == "lsp") {
        line_.command = Command::lsp;
        return false;
      }
      if (!is_file_(argument) && !argument.ends_with(".shl")) {
        fail("unknown command '" + argument + "' (and no such file)");
        return false;
      }
      line_.command = Command::run;  // `shardlang FILE`
    }
    switch (line_.command) {
      case Command::run:
        line_.files.push_back(argument);
        line_.script_arguments.assign(arguments_.begin() + static_cast<std::ptrdiff_t>(index_), arguments_.end());
        return true;
      case Command::check:
        line_.files.push_back(argument);
        return false;
      case Command::lsp:
        fail("lsp takes no file: the editor opens them");
        return false;
      default:
        fail("repl takes no file; to run one: shardlang run " + argument);
        return false;
    }
  }

  const std::vector<std::string>& arguments_;
  const std::function<bool(const std::string&)>& is_file_;
  std::size_t index_ = 0;
  CommandLine line_;
  bool command_given_ = false;
  bool only_positional_ = false;
  bool help_ = false;
  bool version_ = false;
  bool format_given_ = false;
  std::optional<std::string> error_;
};

shardlang::Options options_for(const CommandLine& line) {
  shardlang::Options options;
  if (line.platform) options.platform = *line.platform;
  if (line.devices) options.devices = *line.devices;
  if (line.chip) options.chip = *line.chip;
  options.script_arguments = line.script_arguments;
  options.processes = line.processes;
  options.profile = line.profile || line.trace_path.has_value();
  options.trace_memory = line.trace_path.has_value();
  if (line.host_memory_bytes)
    options.host_memory_bytes = static_cast<std::int64_t>(
        std::min<std::uint64_t>(*line.host_memory_bytes, std::numeric_limits<std::int64_t>::max()));
  if (line.hbm_bytes)
    options.device_memory_bytes = static_cast<std::int64_t>(
        std::min<std::uint64_t>(*line.hbm_bytes, std::numeric_limits<std::int64_t>::max()));
  // Imports: the script's directory, then -I DIR, then SHARDLANG_PATH (':'-separated).
  options.file_access = true;  // scripts run from the command line read files (cli.md)
  options.module_path = line.include_directories;
  if (const char* path = std::getenv("SHARDLANG_PATH")) {
    std::string entries = path;
    for (std::size_t begin = 0; begin <= entries.size();) {
      std::size_t end = std::min(entries.find(':', begin), entries.size());
      if (end > begin) options.module_path.push_back(entries.substr(begin, end - begin));
      begin = end + 1;
    }
  }
  // The CLI lets np.load/np.save reach the working directory (cli.md).
  std::error_code error;
  std::filesystem::path working_directory = std::filesystem::current_path(error);
  if (!error) options.allowed_directories.push_back(working_directory.string());
  return options;
}

// What a job of several processes cannot do: only `run` splits the devices
// over the processes, in equal blocks.
std::optional<std::string> job_usage_error(const CommandLine& line, const shardlang::ProcessGroup& group) {
  if (group.count() == 1) return std::nullopt;
  if (line.command == Command::check || line.command == Command::repl || line.command == Command::lsp)
    return "under mpirun with several processes only `run` works: start `check`, `lsp` and the REPL without mpirun";
  int devices = line.devices.value_or(shardlang::Options{}.devices);
  if (devices % group.count() != 0)
    return "--devices " + std::to_string(devices) + " cannot be split evenly over " + std::to_string(group.count()) +
           " processes: the device count must be a multiple of mpirun's -np";
  return std::nullopt;
}

int run_script(const CommandLine& line) {
  const std::string& path = line.files.front();
  std::string source;
  if (auto problem = read_whole_file(path, source)) {
    print_error(*problem);
    return exit_usage;
  }
  auto report = [&line](const shardlang::Interpreter& interpreter) {
    if (line.profile) {
      std::fputs(interpreter.profile_report().c_str(), stdout);
      std::fflush(stdout);
    }
    if (!line.trace_path) return true;
    std::ofstream trace(*line.trace_path, std::ios::binary);
    trace << interpreter.trace_json();
    trace.close();
    if (!trace) print_error("cannot write " + *line.trace_path);
    return static_cast<bool>(trace);
  };
  return run_program(options_for(line), source, path, report);
}

int check_files(const CommandLine& line) {
  // Never freed: the process ends after the check, and the operating system
  // takes its memory back at once, where freeing the checked program's values
  // one by one would take a good part of a large check's time. Reachable from
  // a static, so it is no leak.
  static shardlang::Interpreter* checking = nullptr;
  checking = new shardlang::Interpreter(options_for(line));
  shardlang::Interpreter& interpreter = *checking;
  bool unreadable = false;
  bool found_errors = false;
  for (const std::string& path : line.files) {
    std::string source;
    if (auto problem = read_whole_file(path, source)) {
      print_error(*problem);
      unreadable = true;
      continue;
    }
    std::vector<shardlang::Diagnostic> diagnostics = interpreter.check(source, path);
    for (const shardlang::Diagnostic& diagnostic : diagnostics)
      if (diagnostic.severity == shardlang::Severity::error) found_errors = true;
    if (line.format == DiagnosticFormat::json) {
      for (const shardlang::Diagnostic& diagnostic : diagnostics) std::printf("%s\n", diagnostic.render_json().c_str());
      std::fflush(stdout);
    } else {
      print_diagnostics(diagnostics);
    }
    // check --profile: the whole program's estimated time, as if it ran.
    if (line.profile) {
      std::printf("%s: estimated step time %.6g s on %s\n%s", path.c_str(), interpreter.estimated_seconds(),
                  options_for(line).chip.c_str(), interpreter.profile_report().c_str());
      std::fflush(stdout);
    }
  }
  if (unreadable) return exit_usage;
  return found_errors ? exit_failure : exit_success;
}

// `shardlang lsp`: the flags become the server's settings, which win over
// configuration files (repl/lsp/config.hpp).
int run_language_server(const CommandLine& line) {
#ifdef SHARDLANG_LSP
  lsp::Settings flags;
  flags.platform = line.platform;
  flags.chip = line.chip;
  flags.devices = line.devices;
  flags.time_limit_seconds = line.time_limit_seconds;
  if (line.mesh) {
    auto mesh = lsp::parse_mesh(*line.mesh);
    if (auto* problem = std::get_if<std::string>(&mesh)) {
      print_error("--mesh: " + *problem);
      return exit_usage;
    }
    flags.mesh = std::get<std::vector<shardlang::MeshAxis>>(mesh);
  }
  return lsp::run_server(flags);
#else
  (void)line;
  print_error("this shardlang was built without the language server (it needs the Debian packages "
              "nlohmann-json3-dev and libtomlplusplus-dev at build time)");
  return exit_usage;
#endif
}

}  // namespace

std::optional<std::string> platform_problem(const std::string& value) {
  if (is_one_of(value, {"tpu", "cpu"})) return std::nullopt;
  return "platform must be tpu or cpu, not '" + value + "'";
}

std::optional<std::string> chip_problem(const std::string& value) {
  if (is_one_of(value, {"v2", "v3", "v4", "v5e", "v5p", "v6e"})) return std::nullopt;
  return "chip must be one of v2 v3 v4 v5e v5p v6e, not '" + value + "'";
}

std::optional<std::uint64_t> parse_size(const std::string& text) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return std::nullopt;
  std::size_t digits_end = text.find_first_not_of("0123456789");
  std::string digits = text.substr(0, digits_end);
  std::string unit = digits_end == std::string::npos ? "" : text.substr(digits_end);
  if (digits.size() > 19) return std::nullopt;  // past 2^63 either way
  std::uint64_t number = std::stoull(digits);
  int shift = 0;
  if (unit.empty() || unit == "B")
    shift = 0;
  else if (unit == "K" || unit == "KB" || unit == "KiB")
    shift = 10;
  else if (unit == "M" || unit == "MB" || unit == "MiB")
    shift = 20;
  else if (unit == "G" || unit == "GB" || unit == "GiB")
    shift = 30;
  else if (unit == "T" || unit == "TB" || unit == "TiB")
    shift = 40;
  else
    return std::nullopt;
  if (number > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
  return number << shift;
}

const char* usage_text() { return usage; }

std::variant<CommandLine, UsageError> parse_command_line(const std::vector<std::string>& arguments,
                                                         const std::function<bool(const std::string&)>& is_file) {
  return ArgumentParser(arguments, is_file).parse();
}

int run_command_line(const std::vector<std::string>& arguments) {
  auto is_file = [](const std::string& path) {
    std::error_code error;
    return std::filesystem::is_regular_file(path, error);
  };
  auto parsed = parse_command_line(arguments, is_file);
  if (auto* usage_error = std::get_if<UsageError>(&parsed)) {
    print_error(usage_error->message + "\nTry 'shardlang --help' for more information.");
    return exit_usage;
  }
  CommandLine line = std::get<CommandLine>(parsed);
  // Under mpirun: this process's part of the job (docs/scale-out.md).
  std::shared_ptr<shardlang::ProcessGroup> group;
  if (shardlang::ProcessGroup::launched_process_count() > 0) {
    auto joined = shardlang::ProcessGroup::join_mpi();
    if (auto* problem = std::get_if<std::string>(&joined)) {
      if (shardlang::ProcessGroup::launched_process_count() > 1) {
        print_error("started as one of " + std::to_string(shardlang::ProcessGroup::launched_process_count()) +
                    " processes, but " + *problem);
        return exit_usage;
      }
    } else {
      group = std::get<std::shared_ptr<shardlang::ProcessGroup>>(joined);
      if (auto problem = job_usage_error(line, *group)) {
        if (group->index() == 0) print_error(*problem + "\nTry 'shardlang --help' for more information.");
        return exit_usage;
      }
      line.processes = group;
    }
  }
  switch (line.command) {
    case Command::help:
      std::fputs(usage, stdout);
      return exit_success;
    case Command::version:
      std::printf("shardlang %s\n", shardlang::Interpreter::version().c_str());
      return exit_success;
    case Command::run:
      return run_script(line);
    case Command::check:
      return check_files(line);
    case Command::repl:
      return run_repl(options_for(line));
    case Command::lsp:
      return run_language_server(line);
  }
  return exit_usage;
}

}  // namespace repl
