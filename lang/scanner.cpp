#include "lang/scanner.hpp"

#include <algorithm>
#include <cctype>

namespace lang {

std::uint32_t ScannedText::source_offset(std::size_t offset) const {
  if (source_offsets.empty()) return 0;
  return source_offsets[std::min(offset, source_offsets.size() - 1)];
}

std::uint32_t ScannedText::source_end(std::size_t offset) const {
  if (offset == 0 || source_offsets.empty()) return source_offset(0);
  std::size_t last = std::min(offset, source_offsets.size() - 1) - 1;
  // Markers (and spaces standing for newlines) map to where they were found;
  // a span ending at one ends there.
  return source_offsets[last] + 1;
}

namespace {

bool is_identifier_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Letters that may prefix a string literal (r, f, b, u and pairs of them).
bool is_string_prefix(std::string_view word) {
  if (word.empty() || word.size() > 2) return false;
  std::string lower;
  for (char c : word) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "r" || lower == "f" || lower == "b" || lower == "u" || lower == "rf" ||
         lower == "fr" || lower == "rb" || lower == "br";
}

// The length of the well-formed UTF-8 sequence at text[i] (Unicode's table
// 3-7: no overlong forms, no surrogates, nothing past U+10FFFF), or 0.
std::size_t utf8_sequence_at(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0; };
  auto continuation = [&](std::size_t k, unsigned char low = 0x80, unsigned char high = 0xBF) {
    return byte(k) >= low && byte(k) <= high;
  };
  unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return continuation(i + 1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    unsigned char low = lead == 0xE0 ? 0xA0 : 0x80, high = lead == 0xED ? 0x9F : 0xBF;
    return continuation(i + 1, low, high) && continuation(i + 2) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    unsigned char low = lead == 0xF0 ? 0x90 : 0x80, high = lead == 0xF4 ? 0x8F : 0xBF;
    return continuation(i + 1, low, high) && continuation(i + 2) && continuation(i + 3) ? 4 : 0;
  }
  return 0;
}

// CPython's errors for a source that is not UTF-8 text: the offset of the
// first byte that does not begin a well-formed sequence, or of a NUL.
std::optional<ScanError> encoding_error(std::string_view text, std::size_t from) {
  for (std::size_t i = from; i < text.size();) {
    if (text[i] == '\0') return ScanError{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i + 1),
                                          "source code cannot contain null bytes"};
    std::size_t length = utf8_sequence_at(text, i);
    if (length == 0) {
      static constexpr char hex[] = "0123456789abcdef";
      auto bad = static_cast<unsigned char>(text[i]);
      auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(i), '\n') + 1;
      return ScanError{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i + 1),
                       std::string("Non-UTF-8 code starting with '\\x") + hex[bad >> 4] + hex[bad & 15] + "' on line " +
                           std::to_string(line) +
                           ", but no encoding declared; see https://peps.python.org/pep-0263/ for details"};
    }
    i += length;
  }
  return std::nullopt;
}

const char* closing_for(char open) {
  switch (open) {
    case '(': return ")";
    case '[': return "]";
    default: return "}";
  }
}

class Scanner {
 public:
  explicit Scanner(std::string_view source) : source_(source) {}

  ScannedText run() {
    // A UTF-8 byte order mark is accepted and skipped, as CPython does.
    std::size_t i = source_.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    out_.error = encoding_error(source_, i);
    while (i < source_.size() && !out_.error) i = at_line_start_ && brackets_.empty() ? line_start(i) : token(i);
    if (!out_.error) finish();
    // The end of the text stands for the end of the last code, so errors
    // found at the end of input point at the last line that has code.
    out_.source_offsets.push_back(static_cast<std::uint32_t>(last_code_end_));
    return std::move(out_);
  }

 private:
  struct OpenBracket {
    char symbol;
    std::uint32_t offset;
  };

  void emit(char c, std::size_t source_offset) {
    out_.text.push_back(c);
    out_.source_offsets.push_back(static_cast<std::uint32_t>(source_offset));
    if (c != ' ' && c != marker::newline && c != marker::indent && c != marker::dedent) {
      line_has_code_ = true;
      last_code_end_ = source_offset + 1;
      last_code_char_ = c;
    }
  }

  void fail(std::size_t begin, std::size_t end, std::string message) {
    out_.error = ScanError{static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end), std::move(message)};
  }

  // Measures the indentation of a physical line and emits INDENT/DEDENT
  // markers; skips blank and comment-only lines. Returns where to go on.
  std::size_t line_start(std::size_t i) {
    std::size_t j = i;
    int column = 0;
    while (j < source_.size() && (source_[j] == ' ' || source_[j] == '\t' || source_[j] == '\f')) {
      if (source_[j] == '\t') {
        fail(j, j + 1, "tab in indentation; shardlang indents with spaces");
        return source_.size();
      }
      if (source_[j] == ' ') ++column;
      ++j;
    }
    if (j >= source_.size()) return j;
    char c = source_[j];
    if (c == '\n' || c == '\r' || c == '#') {
      while (j < source_.size() && source_[j] != '\n') ++j;
      return j + 1;  // a blank or comment-only line says nothing about blocks
    }
    if (column > indents_.back()) {
      if (static_cast<int>(indents_.size()) > max_indent_depth) {
        fail(j, j + 1, "too deeply nested: more than " + std::to_string(max_indent_depth) + " levels of indentation");
        return source_.size();
      }
      indents_.push_back(column);
      emit(marker::indent, j);
      out_.has_block = true;
    }
    while (column < indents_.back()) {
      indents_.pop_back();
      emit(marker::dedent, j);
      if (column > indents_.back()) {
        fail(i, j, "unindent does not match any outer indentation level");
        return source_.size();
      }
    }
    at_line_start_ = false;
    line_has_code_ = false;
    return j;
  }

  std::size_t token(std::size_t i) {
    char c = source_[i];
    if (c == '#') {
      while (i < source_.size() && source_[i] != '\n') ++i;
      return i;
    }
    if (c == '\n') return end_of_physical_line(i);
    if (c == '\r') {
      if (i + 1 < source_.size() && source_[i + 1] == '\n') return i + 1;
      emit(' ', i);
      return i + 1;
    }
    if (c == '\\') {
      std::size_t next = i + 1;
      if (next < source_.size() && source_[next] == '\r') ++next;
      if (next >= source_.size()) {
        out_.ends_unfinished = true;
        fail(i, i + 1, "unexpected end of file after line continuation character");
        return source_.size();
      }
      if (source_[next] != '\n') {
        fail(i, i + 1, "unexpected character after line continuation character");
        return source_.size();
      }
      emit(' ', i);
      return next + 1;
    }
    if (c == ' ' || c == '\t' || c == '\f') {
      emit(' ', i);
      return i + 1;
    }
    if (c == '\'' || c == '"') return string_literal(i, i);
    if (is_identifier_start(c)) {
      std::size_t end = i;
      while (end < source_.size() && is_identifier_char(source_[end])) ++end;
      if (end < source_.size() && (source_[end] == '\'' || source_[end] == '"') &&
          is_string_prefix(source_.substr(i, end - i)))
        return string_literal(i, end);
      for (std::size_t k = i; k < end; ++k) emit(source_[k], k);
      return end;
    }
    if (c == '(' || c == '[' || c == '{') {
      if (static_cast<int>(brackets_.size()) >= max_bracket_depth) {
        fail(i, i + 1, "too deeply nested: more than " + std::to_string(max_bracket_depth) + " levels of brackets");
        return source_.size();
      }
      brackets_.push_back(OpenBracket{c, static_cast<std::uint32_t>(i)});
      emit(c, i);
      return i + 1;
    }
    if (c == ')' || c == ']' || c == '}') {
      if (brackets_.empty()) {
        fail(i, i + 1, std::string("unmatched '") + c + "'");
        return source_.size();
      }
      OpenBracket open = brackets_.back();
      if (*closing_for(open.symbol) != c) {
        fail(i, i + 1, std::string("closing '") + c + "' does not match opening '" + open.symbol + "'");
        return source_.size();
      }
      brackets_.pop_back();
      emit(c, i);
      return i + 1;
    }
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      fail(i, i + 1, "invalid control character in source");
      return source_.size();
    }
    if (byte >= 0x80) {
      std::size_t end = i + 1;
      while (end < source_.size() && (static_cast<unsigned char>(source_[end]) & 0xC0) == 0x80) ++end;
      fail(i, end, "invalid character '" + std::string(source_.substr(i, end - i)) + "' outside a string");
      return source_.size();
    }
    emit(c, i);
    return i + 1;
  }

  std::size_t end_of_physical_line(std::size_t i) {
    if (!brackets_.empty()) {
      emit(' ', i);
      return i + 1;
    }
    end_logical_line();
    at_line_start_ = true;
    return i + 1;
  }

  void end_logical_line() {
    if (!line_has_code_) return;
    out_.ends_with_block_header = last_code_char_ == ':';
    if (out_.ends_with_block_header) out_.has_block = true;
    emit(marker::newline, last_code_end_);
    line_has_code_ = false;
  }

  // Copies a string literal (prefix at `begin`, opening quote at `quote`)
  // as a unit.
  std::size_t string_literal(std::size_t begin, std::size_t quote) {
    char q = source_[quote];
    bool triple = quote + 2 < source_.size() && source_[quote + 1] == q && source_[quote + 2] == q;
    std::size_t i = quote + (triple ? 3 : 1);
    for (;;) {
      if (i >= source_.size()) {
        if (triple) {
          out_.ends_unfinished = true;
          fail(begin, quote + 3, "unterminated triple-quoted string literal");
        } else {
          fail(begin, source_.size(), "unterminated string literal");
        }
        return source_.size();
      }
      char c = source_[i];
      if (c == '\\') {
        i += 2;  // an escaped quote or newline never ends the literal
        continue;
      }
      if (c == '\n' && !triple) {
        fail(begin, i, "unterminated string literal");
        return source_.size();
      }
      if (c == q) {
        if (!triple) {
          ++i;
          break;
        }
        if (i + 2 < source_.size() && source_[i + 1] == q && source_[i + 2] == q) {
          i += 3;
          break;
        }
      }
      ++i;
    }
    i = std::min(i, source_.size());
    for (std::size_t k = begin; k < i; ++k) emit(source_[k], k);
    return i;
  }

  void finish() {
    if (!brackets_.empty()) {
      out_.ends_unfinished = true;
      OpenBracket open = brackets_.back();
      fail(open.offset, open.offset + 1, std::string("'") + open.symbol + "' was never closed");
      return;
    }
    end_logical_line();
    while (indents_.size() > 1) {
      indents_.pop_back();
      emit(marker::dedent, last_code_end_);
    }
  }

  std::string_view source_;
  ScannedText out_;
  std::vector<int> indents_{0};
  std::vector<OpenBracket> brackets_;
  bool at_line_start_ = true;
  bool line_has_code_ = false;
  std::size_t last_code_end_ = 0;
  char last_code_char_ = 0;
};

}  // namespace

ScannedText scan(std::string_view source) { return Scanner(source).run(); }

}  // namespace lang
