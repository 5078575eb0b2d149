#include "lang/parser.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <iterator>
#include <string>

#include "lang/grammar.hpp"
#include "lang/large_stack.hpp"
#include "lang/scanner.hpp"

namespace lang {

namespace {

Diagnostic syntax_error(const SourceFile& file, Span span, std::string message) {
  Diagnostic diagnostic;
  diagnostic.severity = Severity::error;
  diagnostic.code = code::syntax;
  diagnostic.where = file.resolve(span);
  diagnostic.message = std::move(message);
  return diagnostic;
}

// Where an "expected X" error points: past the spaces at `where`, covering
// the character found there (nothing at a marker or the end).
Span expectation_span(const grammar::Builder& builder, grammar::Iterator where) {
  grammar::Iterator end = builder.text_end();
  while (where != end && *where == ' ') ++where;
  bool at_marker = where == end || *where == marker::newline || *where == marker::indent || *where == marker::dedent;
  return at_marker ? builder.span_at(where) : builder.span(where, where + 1);
}

void parse_scanned(const std::shared_ptr<const SourceFile>& source, const ScannedText& scanned, ParseResult& result) {
  grammar::Builder builder(*source, scanned);
  try {
    if (!grammar::parse_file(builder)) {
      result.diagnostics.push_back(syntax_error(*source, source->span(0, 0), "invalid syntax"));
      return;
    }
    auto module = std::make_shared<ast::Module>();
    module->source = source;
    module->body = builder.pop<ast::Body>();
    result.module = std::move(module);
  } catch (const grammar::x3::expectation_failure<grammar::Iterator>& failure) {
    // Every expectation point names what it expects; a name that is not
    // words (an X3 type name) would be a grammar bug, so say less instead.
    const std::string& expected = failure.which();
    bool readable = expected.find(' ') != std::string::npos || expected.find('\'') != std::string::npos;
    result.diagnostics.push_back(syntax_error(*source, expectation_span(builder, failure.where()),
                                              readable ? "expected " + expected : "invalid syntax"));
  } catch (const grammar::SyntaxError& error) {
    result.diagnostics.push_back(syntax_error(*source, error.span, error.message));
  } catch (const std::exception& error) {
    // A bug in the grammar's actions, reported rather than crashing the host.
    result.diagnostics.push_back(
        syntax_error(*source, source->span(0, 0), std::string("internal parser error: ") + error.what()));
  }
}

// The grammar recurses once per nesting level (bounded by the scanner's and
// the grammar's limits); a large stack keeps those limits far from the
// calling thread's stack size.
constexpr std::size_t parser_stack_bytes = std::size_t{256} << 20;

}  // namespace

ParseResult parse(std::shared_ptr<const SourceFile> source) {
  ParseResult result;
  ScannedText scanned = scan(source->text());
  if (scanned.error) {
    result.diagnostics.push_back(
        syntax_error(*source, source->span(scanned.error->begin, scanned.error->end), scanned.error->message));
    return result;
  }
  auto work = [&] { parse_scanned(source, scanned, result); };
  run_on_large_stack(parser_stack_bytes, work);
  return result;
}

namespace {

// Whether the scanned text starts with a compound statement (a block, or a
// decorator that a def or class follows), also when its body is on the
// header's line: `for i in x: f(i)`. Python's interactive interpreter waits
// for an empty line after one.
bool starts_with_compound_statement(std::string_view scanned) {
  std::size_t begin = scanned.find_first_not_of(std::string{' ', marker::newline, marker::indent, marker::dedent});
  if (begin == std::string_view::npos) return false;
  if (scanned[begin] == '@') return true;
  std::size_t end = begin;
  while (end < scanned.size() &&
         (std::isalnum(static_cast<unsigned char>(scanned[end])) || scanned[end] == '_'))
    ++end;
  static constexpr std::string_view compound_keywords[] = {"if", "for", "while", "def", "class", "with", "try", "async"};
  std::string_view word = scanned.substr(begin, end - begin);
  return std::find(std::begin(compound_keywords), std::end(compound_keywords), word) != std::end(compound_keywords);
}

}  // namespace

InputState input_state(std::string_view text) {
  ScannedText scanned = scan(text);
  if (scanned.ends_unfinished) return InputState::incomplete;
  if (scanned.error) return InputState::complete;
  if (scanned.ends_with_block_header) return InputState::incomplete;
  if (scanned.has_block || starts_with_compound_statement(scanned.text)) {
    std::string_view last_line = text.substr(text.rfind('\n') == std::string_view::npos ? 0 : text.rfind('\n') + 1);
    bool blank = std::all_of(last_line.begin(), last_line.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
    if (!blank) return InputState::incomplete;
  }
  return InputState::complete;
}

}  // namespace lang
