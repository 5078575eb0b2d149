// The one Diagnostic type for every error shardlang reports (style.md §2):
// syntax errors, name errors, sharding errors, runtime errors. All render
// through the same code, as text (cli.md "Diagnostics (text)") or as one
// JSON object per line (cli.md "check mode").
#pragma once

#include <string>
#include <vector>

#include "lang/source.hpp"

namespace lang {

enum class Severity { error, warning, note };

// Stable diagnostic codes, listed in one place (docs/diagnostics.md explains
// each with an example). Later issues add their codes here.
namespace code {
inline constexpr const char* syntax = "syntax";
inline constexpr const char* name = "name";
inline constexpr const char* runtime = "runtime";  // an uncaught Python exception
inline constexpr const char* io = "io";
inline constexpr const char* time_limit = "limit/time";  // TimeoutError: a call ran past its time limit
}  // namespace code

struct DiagnosticNote {
  SourceRange where;  // may be unknown: then the note has no location
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::error;
  std::string code;
  SourceRange where;
  std::string message;
  std::vector<DiagnosticNote> notes;
  std::string hint;  // may span several lines; empty when there is none

  static Diagnostic error(std::string code, const Span& span, std::string message);
  Diagnostic& note(const Span& span, std::string message);
  Diagnostic& with_hint(std::string hint);
};

struct RenderOptions {
  bool color = false;
};

// file:line:col: error: message, the source line with a caret under the span,
// note: lines and a hint: block. Ends with a newline.
std::string render_text(const Diagnostic& diagnostic, const RenderOptions& options = {});

// One line of JSON with the fields of cli.md, no trailing newline:
// {"file","line","column","end_line","end_column","severity","code","message","notes":[...],"hint"}
std::string render_json(const Diagnostic& diagnostic);

const char* severity_name(Severity severity);

}  // namespace lang
