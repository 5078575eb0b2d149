// The indentation scanner: the first step of parsing (parser.hpp).
//
// It rewrites source text into the text the X3 grammar reads:
//   - each logical line ends with a NEWLINE marker ('\n');
//   - a deeper indentation starts with an INDENT marker, each level closed
//     by a DEDENT marker at the start of the line that closes it;
//   - newlines inside ()[]{} and `\`-continued newlines become spaces;
//   - comments, blank and comment-only lines disappear;
//   - tabs, form feeds and carriage returns outside strings become spaces,
//     so the grammar's skipper only skips ' ';
//   - string literals (all quote forms, prefixes, f-strings) are copied as
//     units, so a '#' or a bracket inside a string means nothing here.
// The source must be UTF-8 without NUL bytes (a leading byte order mark is
// skipped); otherwise the error is CPython's, at the offending byte.
// Every output byte keeps the source offset it came from (the offset map),
// so spans found in the output are turned back into source spans.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lang {

namespace marker {
inline constexpr char newline = '\n';
inline constexpr char indent = '\x01';
inline constexpr char dedent = '\x02';
}  // namespace marker

// Limits that keep the recursive-descent grammar's stack bounded.
inline constexpr int max_bracket_depth = 200;
inline constexpr int max_indent_depth = 100;

struct ScanError {
  std::uint32_t begin = 0;  // source offsets of the offending text
  std::uint32_t end = 0;
  std::string message;
};

struct ScannedText {
  std::string text;
  // source_offsets[i] is the source offset of text[i]; one extra entry at
  // the end holds the source size.
  std::vector<std::uint32_t> source_offsets;
  std::optional<ScanError> error;  // the first error; the text stops there

  // For the REPL (parser.hpp input_state): the text ends inside a bracket,
  // a triple-quoted string or after a `\` continuation.
  bool ends_unfinished = false;
  // The last logical line ends with ':' outside brackets (a block header).
  bool ends_with_block_header = false;
  // Some line is indented or ends with ':' (the entry has a block).
  bool has_block = false;

  // Source offset of output offset `offset` (clamped to the end).
  std::uint32_t source_offset(std::size_t offset) const;
  // Source offset just past output byte `offset - 1` (for span ends).
  std::uint32_t source_end(std::size_t offset) const;
};

ScannedText scan(std::string_view source);

}  // namespace lang
