#include "lang/diagnostic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace lang {

Diagnostic Diagnostic::error(std::string code, const Span& span, std::string message) {
  Diagnostic diagnostic;
  diagnostic.severity = Severity::error;
  diagnostic.code = std::move(code);
  diagnostic.where = resolve(span);
  diagnostic.message = std::move(message);
  return diagnostic;
}

Diagnostic& Diagnostic::note(const Span& span, std::string message) {
  notes.push_back(DiagnosticNote{resolve(span), std::move(message)});
  return *this;
}

Diagnostic& Diagnostic::with_hint(std::string text) {
  hint = std::move(text);
  return *this;
}

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::note: return "note";
  }
  return "error";
}

namespace {

// ANSI colours of the text form; empty strings when colour is off.
struct Palette {
  std::string_view bold, error, warning, note, hint, reset;

  static Palette make(bool color) {
    if (!color) return Palette{};
    return Palette{"\033[1m", "\033[1;31m", "\033[1;33m", "\033[1;36m", "\033[1;32m", "\033[0m"};
  }

  std::string_view of(Severity severity) const {
    switch (severity) {
      case Severity::error: return error;
      case Severity::warning: return warning;
      case Severity::note: return note;
    }
    return error;
  }
};

// "file:line:col: ", "file: " or nothing, depending on what is known.
std::string location_prefix(const SourceRange& where) {
  if (where.file_name.empty()) return {};
  if (!where.known()) return where.file_name + ": ";
  return fmt::format("{}:{}:{}: ", where.file_name, where.begin.line, where.begin.column);
}

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The caret line under the first line of the span: whitespace up to the
// start column (tabs kept, so the caret lines up with the source line), then
// one '^' per code point of the span on that line, at least one.
std::string caret_line(const SourceRange& where) {
  std::string padding;
  std::size_t byte = 0;
  for (int column = 1; column < where.begin.column && byte < where.line_text.size(); ++column) {
    padding += where.line_text[byte] == '\t' ? '\t' : ' ';
    ++byte;
    while (byte < where.line_text.size() && is_continuation_byte(where.line_text[byte])) ++byte;
  }
  int width = 1;
  if (where.end.line == where.begin.line) {
    width = std::max(1, where.end.column - where.begin.column);
  } else {  // a span over several lines: mark the rest of its first line
    int rest = 0;
    for (std::size_t i = byte; i < where.line_text.size(); ++i)
      if (!is_continuation_byte(where.line_text[i])) ++rest;
    width = std::max(1, rest);
  }
  return padding + std::string(static_cast<std::size_t>(width), '^');
}

// The length of the UTF-8 sequence a lead byte starts; 0 for a byte that
// cannot start one.
std::size_t utf8_sequence_length(unsigned char lead) {
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    auto byte = static_cast<unsigned char>(text[i]);
    switch (byte) {
      case '"': out += "\\\""; ++i; continue;
      case '\\': out += "\\\\"; ++i; continue;
      case '\n': out += "\\n"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      case '\b': out += "\\b"; ++i; continue;
      case '\f': out += "\\f"; ++i; continue;
      default: break;
    }
    if (byte < 0x20) {
      out += fmt::format("\\u{:04x}", byte);
      ++i;
      continue;
    }
    if (byte < 0x80) {
      out += static_cast<char>(byte);
      ++i;
      continue;
    }
    // Non-ASCII passes through as UTF-8; a malformed sequence becomes U+FFFD
    // so that the line stays valid JSON whatever bytes the source held.
    std::size_t length = utf8_sequence_length(byte);
    bool valid = length != 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k) valid = is_continuation_byte(text[i + k]);
    if (valid && length >= 3) {  // reject overlong forms, surrogates and code points past U+10FFFF
      auto second = static_cast<unsigned char>(text[i + 1]);
      if (byte == 0xE0 && second < 0xA0) valid = false;
      if (byte == 0xED && second >= 0xA0) valid = false;
      if (byte == 0xF0 && second < 0x90) valid = false;
      if (byte == 0xF4 && second >= 0x90) valid = false;
    }
    if (valid) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  out += '"';
}

}  // namespace

std::string render_text(const Diagnostic& diagnostic, const RenderOptions& options) {
  const Palette palette = Palette::make(options.color);
  const SourceRange& where = diagnostic.where;
  std::string out;
  out += fmt::format("{}{}{}{}:{} {}\n", palette.bold, location_prefix(where),
                     palette.of(diagnostic.severity), severity_name(diagnostic.severity), palette.reset,
                     diagnostic.message);
  if (where.known()) {
    std::string number = std::to_string(where.begin.line);
    std::size_t gutter = std::max<std::size_t>(5, number.size());
    out += fmt::format("{:>{}} | {}\n", number, gutter, where.line_text);
    out += fmt::format("{:>{}} | {}{}{}\n", "", gutter, palette.of(diagnostic.severity), caret_line(where),
                       palette.reset);
  }
  for (const DiagnosticNote& note : diagnostic.notes) {
    std::string prefix = note.where.known() ? location_prefix(note.where) : std::string();
    out += fmt::format("{}{}note:{} {}\n", prefix, palette.note, palette.reset, note.message);
  }
  if (!diagnostic.hint.empty()) {
    out += fmt::format("{}hint:{} {}", palette.hint, palette.reset, diagnostic.hint);
    if (diagnostic.hint.back() != '\n') out += '\n';
  }
  return out;
}

std::string render_json(const Diagnostic& diagnostic) {
  const SourceRange& where = diagnostic.where;
  std::string out = "{\"file\":";
  append_json_string(out, where.file_name);
  out += fmt::format(",\"line\":{},\"column\":{},\"end_line\":{},\"end_column\":{},\"severity\":", where.begin.line,
                     where.begin.column, where.end.line, where.end.column);
  append_json_string(out, severity_name(diagnostic.severity));
  out += ",\"code\":";
  append_json_string(out, diagnostic.code);
  out += ",\"message\":";
  append_json_string(out, diagnostic.message);
  out += ",\"notes\":[";
  for (std::size_t i = 0; i < diagnostic.notes.size(); ++i) {
    const DiagnosticNote& note = diagnostic.notes[i];
    if (i > 0) out += ',';
    out += "{\"file\":";
    append_json_string(out, note.where.file_name);
    out += fmt::format(",\"line\":{},\"column\":{},\"message\":", note.where.begin.line, note.where.begin.column);
    append_json_string(out, note.message);
    out += '}';
  }
  out += "],\"hint\":";
  append_json_string(out, diagnostic.hint);
  out += '}';
  return out;
}

}  // namespace lang
