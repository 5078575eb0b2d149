#include <gtest/gtest.h>

#include "lang/scanner.hpp"

namespace lang {
namespace {

// The scanner's text with markers spelled out: NEWLINE as '|', INDENT as
// '>' and DEDENT as '<'.
std::string markers(std::string_view source) {
  ScannedText scanned = scan(source);
  if (scanned.error) return "error: " + scanned.error->message;
  std::string out;
  for (char c : scanned.text) {
    if (c == marker::newline) out += '|';
    else if (c == marker::indent) out += '>';
    else if (c == marker::dedent) out += '<';
    else out += c;
  }
  return out;
}

TEST(Scanner, MarksLogicalLinesAndBlocks) {
  EXPECT_EQ(markers("x = 1\ny = 2\n"), "x = 1|y = 2|");
  EXPECT_EQ(markers("if x:\n    y\nz\n"), "if x:|>y|<z|");
  EXPECT_EQ(markers("if a:\n  if b:\n    c\nd"), "if a:|>if b:|>c|<<d|");
}

TEST(Scanner, ClosesOpenBlocksAtEndOfInput) {
  EXPECT_EQ(markers("def f():\n    return 1"), "def f():|>return 1|<");
}

TEST(Scanner, DropsCommentsAndBlankLines) {
  EXPECT_EQ(markers("# header\n\nx = 1  # note\n   \n  # indented comment\ny\n"), "x = 1  |y|");
}

TEST(Scanner, JoinsLinesInsideBrackets) {
  EXPECT_EQ(markers("f(1,\n  2)\n"), "f(1,   2)|");
  EXPECT_EQ(markers("x = [\n    1,  # one\n    2,\n]\n"), "x = [     1,       2, ]|");
}

TEST(Scanner, JoinsBackslashContinuations) {
  EXPECT_EQ(markers("x = 1 + \\\n    2\n"), "x = 1 +      2|");
}

TEST(Scanner, KeepsStringsWhole) {
  EXPECT_EQ(markers("s = '# not a comment ('\n"), "s = '# not a comment ('|");
  EXPECT_EQ(scan("s = \"\"\"a\nb # c\n\"\"\"\n").text, "s = \"\"\"a\nb # c\n\"\"\"\n");
  EXPECT_EQ(markers("s = f'{x}]' + r'\\''\n"), "s = f'{x}]' + r'\\''|");
}

TEST(Scanner, MapsOutputOffsetsToSource) {
  ScannedText scanned = scan("if x:\n    y  # c\n");
  std::size_t y = scanned.text.find('y');
  ASSERT_NE(y, std::string::npos);
  EXPECT_EQ(scanned.source_offset(y), 10u);
  // The INDENT marker stands at the first character of its line.
  EXPECT_EQ(scanned.source_offset(scanned.text.find(marker::indent)), 10u);
  // NEWLINE stands just after the last code of its line, before the comment.
  EXPECT_EQ(scanned.source_offset(y + 1), 11u);
}

TEST(Scanner, RejectsTabsInIndentation) {
  ScannedText scanned = scan("if x:\n\ty\n");
  ASSERT_TRUE(scanned.error);
  EXPECT_EQ(scanned.error->message, "tab in indentation; shardlang indents with spaces");
  EXPECT_EQ(scanned.error->begin, 6u);
}

TEST(Scanner, RejectsInconsistentDedent) {
  EXPECT_EQ(markers("if x:\n    a\n  b\n"), "error: unindent does not match any outer indentation level");
}

TEST(Scanner, ReportsBracketErrors) {
  EXPECT_EQ(markers("f(1, [2)\n"), "error: closing ')' does not match opening '['");
  EXPECT_EQ(markers("x)\n"), "error: unmatched ')'");
  ScannedText scanned = scan("x = (1,\n  2\n");
  ASSERT_TRUE(scanned.error);
  EXPECT_EQ(scanned.error->message, "'(' was never closed");
  EXPECT_EQ(scanned.error->begin, 4u);
  EXPECT_TRUE(scanned.ends_unfinished);
}

TEST(Scanner, CapsBracketNesting) {
  std::string deep(100000, '(');
  EXPECT_EQ(markers(deep), "error: too deeply nested: more than 200 levels of brackets");
}

TEST(Scanner, ReportsUnterminatedStrings) {
  EXPECT_EQ(markers("s = 'abc\n"), "error: unterminated string literal");
  EXPECT_EQ(markers("s = '''abc\n"), "error: unterminated triple-quoted string literal");
}

TEST(Scanner, RejectsStrayCharacters) {
  EXPECT_EQ(markers("x = 1 \x01\n"), "error: invalid control character in source");
  EXPECT_EQ(markers("x = \xc3\xa9\n"), "error: invalid character '\xc3\xa9' outside a string");
}


// Where the scanner stops, and why: "offset: message".
std::string error_at(std::string_view source) {
  ScannedText scanned = scan(source);
  if (!scanned.error) return "no error";
  return std::to_string(scanned.error->begin) + ": " + scanned.error->message;
}

TEST(Scanner, RefusesSourceThatIsNotUtf8) {
  const std::string tail = ", but no encoding declared; see https://peps.python.org/pep-0263/ for details";
  EXPECT_EQ(error_at("x = 1\ny\xff = 2\n"), "7: Non-UTF-8 code starting with '\\xff' on line 2" + tail);
  EXPECT_EQ(error_at("s = 'caf\xe9'\n"), "8: Non-UTF-8 code starting with '\\xe9' on line 1" + tail);
  EXPECT_EQ(error_at("# \xc0\xaf overlong\n"), "2: Non-UTF-8 code starting with '\\xc0' on line 1" + tail);
  EXPECT_EQ(error_at("s = '\xed\xa0\x80'\n"), "5: Non-UTF-8 code starting with '\\xed' on line 1" + tail);  // a surrogate
  EXPECT_EQ(error_at("s = '\xf4\x90\x80\x80'\n"), "5: Non-UTF-8 code starting with '\\xf4' on line 1" + tail);  // past U+10FFFF
  EXPECT_EQ(error_at("s = '\x80'\n"), "5: Non-UTF-8 code starting with '\\x80' on line 1" + tail);
  EXPECT_EQ(error_at("s = 1 # \xe2\x82"), "8: Non-UTF-8 code starting with '\\xe2' on line 1" + tail);  // cut short
  EXPECT_EQ(error_at("s = '\xe2\x82\xac \xf0\x9f\x98\x80 \xc3\xa9'\n"), "no error");
}

TEST(Scanner, AcceptsByteOrderMarkRefusesNul) {
  EXPECT_EQ(markers("\xEF\xBB\xBFx = 1\n"), "x = 1|");
  EXPECT_EQ(error_at("x = 1\nbom = '\xEF\xBB\xBF'\n"), "no error");  // inside, a U+FEFF like any other
  EXPECT_EQ(error_at(std::string_view("x = 1\ns = 'a\0b'\n", 16)), "12: source code cannot contain null bytes");
}

}  // namespace
}  // namespace lang
