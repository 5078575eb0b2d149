// Parsing of the command line (cli.md "Commands"): command words, flags on
// either side of the command word, script arguments, usage errors.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <variant>
#include <vector>

#include "repl/cli.hpp"

namespace {

using repl::Command;
using repl::CommandLine;
using repl::UsageError;

// Only these paths "exist" in the tests.
bool existing(const std::string& path) { return std::set<std::string>{"prog", "data.txt"}.count(path) > 0; }

CommandLine parsed(std::vector<std::string> arguments) {
  auto result = repl::parse_command_line(arguments, existing);
  if (auto* error = std::get_if<UsageError>(&result)) ADD_FAILURE() << "usage error: " << error->message;
  return std::get_if<CommandLine>(&result) ? std::get<CommandLine>(result) : CommandLine{};
}

std::string usage_error(std::vector<std::string> arguments) {
  auto result = repl::parse_command_line(arguments, existing);
  if (auto* error = std::get_if<UsageError>(&result)) return error->message;
  ADD_FAILURE() << "expected a usage error";
  return {};
}

TEST(CommandLine, NoArgumentsIsTheRepl) {
  EXPECT_EQ(parsed({}).command, Command::repl);
  EXPECT_EQ(parsed({"repl", "--devices", "4"}).command, Command::repl);
}

TEST(CommandLine, RunTakesOneFileAndTheRestIsTheScripts) {
  CommandLine line = parsed({"run", "--devices", "4", "model.shl", "--lr", "0.1", "x"});
  EXPECT_EQ(line.command, Command::run);
  EXPECT_EQ(line.devices, 4);
  EXPECT_EQ(line.files, std::vector<std::string>{"model.shl"});
  EXPECT_EQ(line.script_arguments, (std::vector<std::string>{"--lr", "0.1", "x"}));
}

TEST(CommandLine, FlagsBeforeOrAfterTheCommandWord) {
  CommandLine before = parsed({"--platform", "cpu", "--chip=v2", "run", "a.shl"});
  CommandLine after = parsed({"run", "--platform=cpu", "--chip", "v2", "a.shl"});
  for (const CommandLine& line : {before, after}) {
    EXPECT_EQ(line.command, Command::run);
    EXPECT_EQ(line.platform, "cpu");
    EXPECT_EQ(line.chip, "v2");
    EXPECT_EQ(line.files, std::vector<std::string>{"a.shl"});
  }
}

TEST(CommandLine, BareFileRunsIt) {
  EXPECT_EQ(parsed({"missing.shl"}).command, Command::run);
  CommandLine line = parsed({"prog", "arg"});  // an existing file without .shl
  EXPECT_EQ(line.command, Command::run);
  EXPECT_EQ(line.files, std::vector<std::string>{"prog"});
  EXPECT_EQ(line.script_arguments, std::vector<std::string>{"arg"});
  EXPECT_NE(usage_error({"frobnicate"}).find("unknown command 'frobnicate'"), std::string::npos);
}

TEST(CommandLine, CheckTakesSeveralFilesAndAFormat) {
  CommandLine line = parsed({"check", "--format", "json", "a.shl", "b.shl"});
  EXPECT_EQ(line.command, Command::check);
  EXPECT_EQ(line.format, repl::DiagnosticFormat::json);
  EXPECT_EQ(line.files, (std::vector<std::string>{"a.shl", "b.shl"}));
  EXPECT_EQ(parsed({"check", "a.shl"}).format, repl::DiagnosticFormat::text);
}

TEST(CommandLine, VersionAndHelp) {
  EXPECT_EQ(parsed({"--version"}).command, Command::version);
  EXPECT_EQ(parsed({"--help"}).command, Command::help);
  EXPECT_EQ(parsed({"run", "--help"}).command, Command::help);
}

TEST(CommandLine, RunOnlyAndCheckOnlyFlags) {
  CommandLine line = parsed({"run", "--profile", "--trace", "out.json", "a.shl"});
  EXPECT_TRUE(line.profile);
  EXPECT_EQ(line.trace_path, "out.json");
  EXPECT_TRUE(parsed({"check", "--profile", "a.shl"}).profile);  // the estimated step time, no data needed
  EXPECT_NE(usage_error({"check", "--trace", "out.json", "a.shl"}).find("--trace"), std::string::npos);
  EXPECT_NE(usage_error({"repl", "--profile"}).find("--profile"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--format", "json", "a.shl"}).find("--format"), std::string::npos);
}

TEST(CommandLine, BadFlagsAreUsageErrors) {
  EXPECT_NE(usage_error({"--bogus"}).find("unknown flag '--bogus'"), std::string::npos);
  EXPECT_NE(usage_error({"--platform", "gpu"}).find("tpu or cpu"), std::string::npos);
  EXPECT_NE(usage_error({"--chip", "v9"}).find("v5e"), std::string::npos);
  EXPECT_NE(usage_error({"--devices", "0"}).find("positive"), std::string::npos);
  EXPECT_NE(usage_error({"--devices", "4x"}).find("positive"), std::string::npos);
  EXPECT_NE(usage_error({"--devices", "99999999999"}).find("positive"), std::string::npos);
  EXPECT_NE(usage_error({"--devices"}).find("needs a value"), std::string::npos);
  EXPECT_NE(usage_error({"--format", "xml", "check", "a.shl"}).find("text or json"), std::string::npos);
  EXPECT_NE(usage_error({"--host-memory", "lots"}).find("4G"), std::string::npos);
  EXPECT_NE(usage_error({"run"}).find("missing FILE"), std::string::npos);
  EXPECT_NE(usage_error({"check"}).find("missing FILE"), std::string::npos);
  EXPECT_NE(usage_error({"repl", "a.shl"}).find("shardlang run a.shl"), std::string::npos);
}

TEST(CommandLine, DoubleDashEndsFlags) {
  CommandLine line = parsed({"run", "--", "-odd-name.shl", "--flag"});
  EXPECT_EQ(line.files, std::vector<std::string>{"-odd-name.shl"});
  EXPECT_EQ(line.script_arguments, std::vector<std::string>{"--flag"});
}

TEST(Size, UnitsAreBinaryMultiples) {
  EXPECT_EQ(repl::parse_size("1024"), 1024u);
  EXPECT_EQ(repl::parse_size("4G"), 4ull << 30);
  EXPECT_EQ(repl::parse_size("512M"), 512ull << 20);
  EXPECT_EQ(repl::parse_size("64KiB"), 64ull << 10);
  EXPECT_EQ(repl::parse_size("2T"), 2ull << 40);
  EXPECT_FALSE(repl::parse_size(""));
  EXPECT_FALSE(repl::parse_size("G"));
  EXPECT_FALSE(repl::parse_size("-1G"));
  EXPECT_FALSE(repl::parse_size("4Q"));
  EXPECT_FALSE(repl::parse_size("99999999999999999999"));
  EXPECT_FALSE(repl::parse_size("17000000000T"));  // past 2^64 bytes
}

}  // namespace
