// The REPL loop (repl::Session) driven by scripted lines instead of a
// terminal: prompts, continuation of blocks, echo, errors that keep the
// session, Ctrl-C at the prompt, history entries.
#include <gtest/gtest.h>

#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "repl/repl.hpp"

namespace {

using repl::InputLine;

class ScriptedReader : public repl::LineReader {
 public:
  explicit ScriptedReader(std::deque<InputLine> lines) : lines_(std::move(lines)) {}

  InputLine read_line(const std::string& prompt) override {
    prompts.push_back(prompt);
    if (lines_.empty()) return InputLine{InputLine::Kind::end_of_input, {}};
    InputLine next = std::move(lines_.front());
    lines_.pop_front();
    return next;
  }
  void remember(const std::string& entry) override { history.push_back(entry); }

  std::vector<std::string> prompts;
  std::vector<std::string> history;

 private:
  std::deque<InputLine> lines_;
};

InputLine typed(std::string text) { return InputLine{InputLine::Kind::line, std::move(text)}; }

struct Transcript {
  std::string output;
  std::string errors;
  std::vector<std::string> prompts;
  std::vector<std::string> history;
};

Transcript run_session(std::deque<InputLine> lines) {
  Transcript transcript;
  shardlang::Options options;
  options.output = [&transcript](std::string_view text) { transcript.output += text; };
  shardlang::Interpreter interpreter(std::move(options));
  ScriptedReader reader(std::move(lines));
  auto capture = [](std::string& into) { return [&into](std::string_view text) { into += text; }; };
  repl::Session session(interpreter, reader, capture(transcript.output), capture(transcript.errors), false);
  session.run();
  transcript.prompts = reader.prompts;
  transcript.history = reader.history;
  return transcript;
}

TEST(Session, BlockContinuesUntilAnEmptyLine) {
  Transcript t = run_session({typed("def f(x):"), typed("    return x + 1"), typed(""), typed("f(2)")});
  EXPECT_EQ(t.prompts, (std::vector<std::string>{">>> ", "... ", "... ", ">>> ", ">>> "}));
  EXPECT_EQ(t.output, "3\n");
  EXPECT_EQ(t.errors, "");
  EXPECT_EQ(t.history, (std::vector<std::string>{"def f(x):\n    return x + 1", "f(2)"}));
}

TEST(Session, OpenBracketContinues) {
  Transcript t = run_session({typed("(1 +"), typed(" 2)")});
  EXPECT_EQ(t.prompts, (std::vector<std::string>{">>> ", "... ", ">>> "}));
  EXPECT_EQ(t.output, "3\n");
}

TEST(Session, ErrorKeepsTheVariables) {
  Transcript t = run_session({typed("a = 5"), typed("nope"), typed("a * 2")});
  EXPECT_NE(t.errors.find("<stdin>:1:1: error:"), std::string::npos) << t.errors;
  EXPECT_NE(t.errors.find("name 'nope' is not defined"), std::string::npos) << t.errors;
  EXPECT_EQ(t.output, "10\n");
}

TEST(Session, ErrorLinesCountWithinTheEntry) {
  Transcript t = run_session({typed("def g():"), typed("    return undefined_z"), typed(""), typed("g()")});
  EXPECT_NE(t.errors.find("<stdin>:2:"), std::string::npos) << t.errors;
}

TEST(Session, NoneIsNotEchoedAndBlankLinesAreSkipped) {
  Transcript t = run_session({typed(""), typed("   "), typed("None"), typed("print('hi')")});
  EXPECT_EQ(t.output, "hi\n");
  EXPECT_EQ(t.history, (std::vector<std::string>{"None", "print('hi')"}));
}

TEST(Session, InterruptAbandonsTheEntry) {
  Transcript t = run_session({typed("x = (1,"), InputLine{InputLine::Kind::interrupted, {}}, typed("'still here'")});
  EXPECT_EQ(t.errors, "KeyboardInterrupt\n");
  EXPECT_EQ(t.output, "'still here'\n");
  EXPECT_EQ(t.prompts.at(2), ">>> ");
}

TEST(Session, LoadRunsAFileIntoTheSession) {
  std::string path = ::testing::TempDir() + "session_test_load.shl";
  std::FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs("loaded = 41\n", file);
  std::fclose(file);
  Transcript t = run_session({typed(":load " + path), typed("loaded + 1")});
  std::remove(path.c_str());
  EXPECT_EQ(t.errors, "");
  EXPECT_EQ(t.output, "42\n");
}

TEST(Session, CommandsHelpQuitAndUnknown) {
  Transcript t = run_session({typed(":help"), typed(":nonsense"), typed(":quit"), typed("'not reached'")});
  EXPECT_NE(t.output.find(":load FILE"), std::string::npos) << t.output;
  EXPECT_EQ(t.output.find("not reached"), std::string::npos) << t.output;
  EXPECT_NE(t.errors.find("unknown command ':nonsense'"), std::string::npos) << t.errors;
  EXPECT_EQ(t.prompts.size(), 3u);
}

}  // namespace
