// Rendering of lang::Diagnostic as text (cli.md "Diagnostics (text)") and
// as one JSON object per line (cli.md "check mode").
#include "lang/diagnostic.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

using lang::Diagnostic;
using lang::SourceFile;

// The byte offset of the first occurrence of `needle` in the file's text.
std::uint32_t offset_of(const SourceFile& file, std::string_view needle) {
  auto found = file.text().find(needle);
  EXPECT_NE(found, std::string::npos) << needle;
  return static_cast<std::uint32_t>(found);
}

lang::Span span_of(const SourceFile& file, std::string_view needle) {
  std::uint32_t begin = offset_of(file, needle);
  return file.span(begin, begin + static_cast<std::uint32_t>(needle.size()));
}

TEST(DiagnosticText, LocationSourceLineAndCaret) {
  auto file = SourceFile::from_text("model.shl", "x = 1\ny = foo + 2\n");
  Diagnostic d = Diagnostic::error(lang::code::name, span_of(*file, "foo"), "name 'foo' is not defined");
  EXPECT_EQ(lang::render_text(d),
            "model.shl:2:5: error: name 'foo' is not defined\n"
            "    2 | y = foo + 2\n"
            "      |     ^^^\n");
}

TEST(DiagnosticText, GutterGrowsForLongLineNumbers) {
  std::string text(123456, '\n');
  text += "boom\n";
  auto file = SourceFile::from_text("big.shl", text);
  Diagnostic d = Diagnostic::error(lang::code::runtime, span_of(*file, "boom"), "bad");
  EXPECT_EQ(lang::render_text(d),
            "big.shl:123457:1: error: bad\n"
            "123457 | boom\n"
            "       | ^^^^\n");
}

TEST(DiagnosticText, EmptySpanStillHasOneCaret) {
  auto file = SourceFile::from_text("a.shl", "if x\n");
  std::uint32_t end_of_condition = offset_of(*file, "\n");
  Diagnostic d = Diagnostic::error(lang::code::syntax, file->span(end_of_condition, end_of_condition),
                                   "expected ':' after the condition of `if`");
  EXPECT_EQ(lang::render_text(d),
            "a.shl:1:5: error: expected ':' after the condition of `if`\n"
            "    1 | if x\n"
            "      |     ^\n");
}

TEST(DiagnosticText, MultiLineSpanMarksRestOfFirstLine) {
  auto file = SourceFile::from_text("a.shl", "y = f(1,\n      2)\n");
  std::uint32_t begin = offset_of(*file, "f(");
  std::uint32_t end = offset_of(*file, "2)") + 2;
  Diagnostic d = Diagnostic::error(lang::code::runtime, file->span(begin, end), "bad call");
  EXPECT_EQ(lang::render_text(d),
            "a.shl:1:5: error: bad call\n"
            "    1 | y = f(1,\n"
            "      |     ^^^^\n");
}

TEST(DiagnosticText, CaretCountsCodePointsAndKeepsTabs) {
  auto file = SourceFile::from_text("u.shl", "\ts = 'héllo' + 1\n");
  Diagnostic d = Diagnostic::error(lang::code::runtime, span_of(*file, "'héllo'"), "bad");
  EXPECT_EQ(lang::render_text(d),
            "u.shl:1:6: error: bad\n"
            "    1 | \ts = 'héllo' + 1\n"
            "      | \t    ^^^^^^^\n");
}

TEST(DiagnosticText, NotesWithAndWithoutLocationAndMultiLineHint) {
  auto file = SourceFile::from_text("m.shl", "In = put(x)\nz = dot(In, W)\n");
  Diagnostic d = Diagnostic::error("sharding/ambiguous-contraction", span_of(*file, "dot(In, W)"), "ambiguous");
  d.note(lang::Span{}, "operands are bf16[8@X,2048@Y] and bf16[2048@Y,8192]")
      .note(span_of(*file, "put(x)"), "`In` got its sharding here")
      .with_hint("choose the output sharding:\n        out_sharding=P('X', 'Y')\n        out_sharding=P('X', None)");
  EXPECT_EQ(lang::render_text(d),
            "m.shl:2:5: error: ambiguous\n"
            "    2 | z = dot(In, W)\n"
            "      |     ^^^^^^^^^^\n"
            "note: operands are bf16[8@X,2048@Y] and bf16[2048@Y,8192]\n"
            "m.shl:1:6: note: `In` got its sharding here\n"
            "hint: choose the output sharding:\n"
            "        out_sharding=P('X', 'Y')\n"
            "        out_sharding=P('X', None)\n");
}

TEST(DiagnosticText, WithoutLocationIsOneLine) {
  Diagnostic d = Diagnostic::error(lang::code::io, lang::Span{}, "cannot open 'x.shl'");
  EXPECT_EQ(lang::render_text(d), "error: cannot open 'x.shl'\n");
  d.where.file_name = "x.shl";
  EXPECT_EQ(lang::render_text(d), "x.shl: error: cannot open 'x.shl'\n");
}

TEST(DiagnosticText, WarningSeverityName) {
  auto file = SourceFile::from_text("w.shl", "if x: pass\n");
  Diagnostic d = Diagnostic::error(lang::code::runtime, span_of(*file, "x"), "cannot follow");
  d.severity = lang::Severity::warning;
  EXPECT_EQ(lang::render_text(d).substr(0, 30), "w.shl:1:4: warning: cannot fol");
}

TEST(DiagnosticText, ColourOnlyWhenAsked) {
  auto file = SourceFile::from_text("c.shl", "x\n");
  Diagnostic d = Diagnostic::error(lang::code::name, span_of(*file, "x"), "name 'x' is not defined");
  d.with_hint("define it");
  std::string plain = lang::render_text(d);
  EXPECT_EQ(plain.find('\033'), std::string::npos);
  std::string coloured = lang::render_text(d, {.color = true});
  EXPECT_NE(coloured.find("\033[1;31merror:\033[0m"), std::string::npos) << coloured;
  EXPECT_NE(coloured.find("\033[1;32mhint:\033[0m define it"), std::string::npos) << coloured;
}

TEST(DiagnosticJson, AllFieldsInOrder) {
  auto file = SourceFile::from_text("m.shl", "a = 1\nb = c\n");
  Diagnostic d = Diagnostic::error(lang::code::name, span_of(*file, "c"), "name 'c' is not defined");
  d.note(span_of(*file, "a"), "did you mean 'a'?");
  EXPECT_EQ(lang::render_json(d),
            R"({"file":"m.shl","line":2,"column":5,"end_line":2,"end_column":6,"severity":"error",)"
            R"("code":"name","message":"name 'c' is not defined",)"
            R"("notes":[{"file":"m.shl","line":1,"column":1,"message":"did you mean 'a'?"}],"hint":""})");
}

TEST(DiagnosticJson, EscapesQuotesBackslashesAndControlCharacters) {
  Diagnostic d = Diagnostic::error(lang::code::runtime, lang::Span{}, "say \"hi\"\\ \n\t\x01 é");
  d.with_hint("line one\n  line two");
  EXPECT_EQ(lang::render_json(d),
            R"({"file":"","line":0,"column":0,"end_line":0,"end_column":0,"severity":"error",)"
            R"("code":"runtime","message":"say \"hi\"\\ \n\t\u0001 é","notes":[],)"
            R"("hint":"line one\n  line two"})");
}

TEST(DiagnosticJson, MalformedUtf8BecomesReplacementCharacter) {
  Diagnostic d = Diagnostic::error(lang::code::syntax, lang::Span{}, std::string("a\xff" "b\xc3"));
  std::string json = lang::render_json(d);
  EXPECT_NE(json.find("\"message\":\"a\xEF\xBF\xBD" "b\xEF\xBF\xBD\""), std::string::npos) << json;
}

}  // namespace
