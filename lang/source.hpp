// Source files and spans.
//
// Every AST node carries a Span: byte offsets into the original source text
// (before the indentation scanner rewrote it). Offsets become line and column
// only when a diagnostic is rendered (style.md §3).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace lang {

class SourceFile;

// A half-open byte range [begin, end) of one source file.
struct Span {
  const SourceFile* file = nullptr;
  std::uint32_t begin = 0;
  std::uint32_t end = 0;

  bool empty() const { return file == nullptr; }
  // The smallest span covering both (same file assumed).
  Span to(const Span& last) const { return Span{file, begin, last.end}; }
};

// 1-based line and column; column counts code points, as editors do.
struct Position {
  int line = 0;
  int column = 0;
};

// A Span resolved to positions and the text of its first line, so that a
// diagnostic stays printable after its SourceFile is gone.
struct SourceRange {
  std::string file_name;
  Position begin;
  Position end;
  std::string line_text;  // the whole first line of the span, no newline

  bool known() const { return begin.line > 0; }
};

class SourceFile : public std::enable_shared_from_this<SourceFile> {
 public:
  static std::shared_ptr<SourceFile> from_text(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }

  Position position(std::uint32_t offset) const;
  // The byte offset of a position (the inverse of position(); clamped to the text).
  std::uint32_t offset(Position position) const;
  std::string_view line(int line_number) const;  // without its newline
  SourceRange resolve(const Span& span) const;
  Span span(std::uint32_t begin, std::uint32_t end) const { return Span{this, begin, end}; }

 private:
  SourceFile(std::string name, std::string text);

  std::string name_;
  std::string text_;
  std::vector<std::uint32_t> line_starts_;  // offset of the first byte of each line
};

// Resolves a span that may be empty (then the range is unknown).
SourceRange resolve(const Span& span);

// The part of `span` on its first line: a compound statement's header.
Span first_line(const Span& span);

}  // namespace lang
