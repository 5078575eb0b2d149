#include "repl/lsp/features.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>

namespace lsp {

// ------------------------------------------------------------ positions and URIs

Json position_json(const DocumentView& document, int line, int column) {
  int index = std::max(0, line - 1);
  return Json{{"line", index}, {"character", document.text.character(index, std::max(0, column - 1), document.encoding)}};
}

Json range_json(const DocumentView& document, const shardlang::Location& where) {
  // A location of another file, or none: the start of the document.
  if (where.line <= 0 || where.file != document.path)
    return Json{{"start", position_json(document, 1, 1)}, {"end", position_json(document, 1, 1)}};
  int end_line = where.end_line > 0 ? where.end_line : where.line;
  int end_column = where.end_line > 0 ? where.end_column : where.column;
  return Json{{"start", position_json(document, where.line, where.column)},
              {"end", position_json(document, end_line, end_column)}};
}

std::string path_of_uri(const std::string& uri) {
  constexpr std::string_view scheme = "file://";
  if (!uri.starts_with(scheme)) return uri;
  std::string encoded = uri.substr(scheme.size());
  // file://host/path: the path starts at the first slash.
  encoded = encoded.substr(std::min(encoded.find('/'), encoded.size()));
  std::string path;
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] == '%' && i + 2 < encoded.size() && std::isxdigit(static_cast<unsigned char>(encoded[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(encoded[i + 2]))) {
      path += static_cast<char>(std::stoi(encoded.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      path += encoded[i];
    }
  }
  return path;
}

std::string uri_of_path(const std::string& path) {
  std::string uri = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", c);
      uri += escaped;
    }
  }
  return uri;
}

// ------------------------------------------------------------ diagnostics

namespace {

int severity_number(shardlang::Severity severity) {
  switch (severity) {
    case shardlang::Severity::error: return 1;
    case shardlang::Severity::warning: return 2;
    case shardlang::Severity::note: return 3;
  }
  return 1;
}

std::string trimmed_hint(std::string hint) {
  while (!hint.empty() && hint.back() == '\n') hint.pop_back();
  return hint;
}

Json diagnostic_json(const shardlang::Diagnostic& diagnostic, const DocumentView& document) {
  std::string message = diagnostic.message;
  Json related = Json::array();
  for (const auto& note : diagnostic.notes) {
    if (note.where.line <= 0) {
      message += "\n" + note.message;
      continue;
    }
    std::string uri = note.where.file == document.path ? document.uri : uri_of_path(note.where.file);
    related.push_back({{"location", {{"uri", uri}, {"range", range_json(document, note.where)}}}, {"message", note.message}});
  }
  if (!diagnostic.hint.empty()) message += "\nhint: " + trimmed_hint(diagnostic.hint);
  Json out{{"range", range_json(document, diagnostic.where)},
           {"severity", severity_number(diagnostic.severity)},
           {"source", "shardlang"},
           {"message", message}};
  if (!diagnostic.code.empty()) out["code"] = diagnostic.code;
  if (!related.empty()) out["relatedInformation"] = std::move(related);
  return out;
}

}  // namespace

Json diagnostics_json(const std::vector<shardlang::Diagnostic>& diagnostics, const DocumentView& document) {
  Json list = Json::array();
  for (const auto& diagnostic : diagnostics) list.push_back(diagnostic_json(diagnostic, document));
  return list;
}

// ------------------------------------------------------------ hover

namespace {

std::string seconds_text(double seconds) {
  char text[64];
  if (seconds >= 1) std::snprintf(text, sizeof text, "%.3g s", seconds);
  else if (seconds >= 1e-3) std::snprintf(text, sizeof text, "%.3g ms", seconds * 1e3);
  else std::snprintf(text, sizeof text, "%.3g µs", seconds * 1e6);
  return text;
}

std::string bytes_text(std::int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[64];
  if (unit == 0) std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
  else std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

// Whether the span contains the code-point position (1-based line and column).
bool contains(const shardlang::Location& where, int line, int column) {
  if (line < where.line || line > where.end_line) return false;
  if (line == where.line && column < where.column) return false;
  if (line == where.end_line && column > where.end_column) return false;  // the end counts: the cursor after a name
  return true;
}

// The byte offset of a 1-based line and code-point column.
std::size_t byte_offset(const TextDocument& text, int line, int column) {
  int index = line - 1;
  return text.offset(index, text.character(index, column - 1, PositionEncoding::utf8), PositionEncoding::utf8);
}

// The source text a location covers, on one line, shortened.
std::string source_text(const DocumentView& document, const shardlang::Location& where) {
  const TextDocument& text = document.text;
  std::size_t begin = byte_offset(text, where.line, where.column);
  bool one_line = where.end_line == where.line;
  std::size_t end = one_line ? byte_offset(text, where.end_line, where.end_column)
                             : text.offset(where.line - 1, std::numeric_limits<int>::max(), PositionEncoding::utf8);
  std::string out = text.text().substr(begin, end > begin ? end - begin : 0);
  constexpr std::size_t longest = 60;
  if (out.size() <= longest && one_line) return out;
  std::size_t cut = std::min(out.size(), longest);
  while (cut > 0 && cut < out.size() && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) --cut;  // not inside a code point
  return out.substr(0, cut) + " …";
}

std::string dtype_of(const std::string& type) { return type.substr(0, type.find('[')); }

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string line_cost_text(const shardlang::Analysis& analysis, int line) {
  const auto& costs = analysis.line_costs();
  auto cost = std::find_if(costs.begin(), costs.end(), [&](const shardlang::LineCost& c) { return c.line == line; });
  if (cost == costs.end()) return {};
  std::string out = "line " + std::to_string(line) + ", estimated on " + analysis.chip() + ": " + seconds_text(cost->seconds);
  for (const auto& operation : cost->operations) {
    out += "\n- " + operation.name + (operation.count > 1 ? " ×" + std::to_string(operation.count) : "") + ": " +
           seconds_text(operation.seconds);
    if (operation.bytes_moved > 0) out += ", " + bytes_text(operation.bytes_moved) + " moved per device";
  }
  return out;
}

}  // namespace

Json hover_json(const shardlang::Analysis& analysis, const DocumentView& document, int line, int character) {
  int at_line = line + 1;
  int at_column = document.text.column(line, character, document.encoding) + 1;
  const shardlang::TypedSpan* best = nullptr;
  for (const auto& typed : analysis.types()) {
    if (typed.where.file != document.path || !contains(typed.where, at_line, at_column)) continue;
    // The innermost: types() lists outer spans first, so a later match lies within.
    best = &typed;
  }
  if (!best) return nullptr;
  std::string types;
  for (std::size_t i = 0; i < best->types.size(); ++i) types += (i ? " | " : "") + best->types[i];
  if (best->more_types) types += " | …";
  std::string value = "```\n" + source_text(document, best->where) + ": " + types + "\n```\n\n";
  value += "per device: " + dtype_of(best->types.back()) + shape_text(best->shard_shape) + ", " +
           bytes_text(best->shard_bytes);
  if (std::string cost = line_cost_text(analysis, at_line); !cost.empty()) value += "\n\n" + cost;
  return Json{{"contents", {{"kind", "markdown"}, {"value", value}}}, {"range", range_json(document, best->where)}};
}

// ------------------------------------------------------------ inlay hints and code actions

Json inlay_hints_json(const shardlang::Analysis& analysis, const DocumentView& document, int first_line,
                      int last_line) {
  Json hints = Json::array();
  for (const auto& typed : analysis.types()) {
    if (!typed.assignment || typed.where.file != document.path) continue;
    int line = typed.where.end_line - 1;
    if (line < first_line || line > last_line) continue;
    std::string label = ":";
    for (std::size_t i = 0; i < typed.types.size(); ++i) label += (i ? " | " : " ") + typed.types[i];
    if (typed.more_types) label += " | …";
    hints.push_back({{"position", position_json(document, typed.where.end_line, typed.where.end_column)},
                     {"label", label},
                     {"kind", 1}});
  }
  return hints;
}

Json code_actions_json(const shardlang::Analysis& analysis, const DocumentView& document, int first_line,
                       int last_line) {
  Json actions = Json::array();
  for (const auto& diagnostic : analysis.diagnostics()) {
    if (diagnostic.fixes.empty() || diagnostic.where.file != document.path) continue;
    int begin = diagnostic.where.line - 1;
    int end = std::max(diagnostic.where.end_line, diagnostic.where.line) - 1;
    if (end < first_line || begin > last_line) continue;
    Json about = Json::array({diagnostic_json(diagnostic, document)});
    for (std::size_t i = 0; i < diagnostic.fixes.size(); ++i) {
      const shardlang::Fix& fix = diagnostic.fixes[i];
      if (fix.where.file != document.path) continue;
      Json edit{{"range", range_json(document, fix.where)}, {"newText", fix.replacement}};
      actions.push_back({{"title", fix.title},
                         {"kind", "quickfix"},
                         {"diagnostics", about},
                         {"isPreferred", i == 0},
                         {"edit", {{"changes", {{document.uri, Json::array({edit})}}}}}});
    }
  }
  return actions;
}

// ------------------------------------------------------------ completion and signature help

namespace {

// CompletionItemKind of a Member's kind.
int completion_kind(const std::string& kind) {
  if (kind == "function") return 3;
  if (kind == "class") return 7;
  if (kind == "module") return 9;
  if (kind == "attribute") return 10;
  return 6;  // variable
}

bool wanted(const std::string& name, const std::string& partial) {
  if (!name.starts_with(partial)) return false;
  return !name.starts_with("_") || partial.starts_with("_");
}

}  // namespace

Json completion_json(const shardlang::Analysis& names, const DocumentView& document, int line, int character) {
  std::string_view before(document.text.text().data(), document.text.offset(line, character, document.encoding));
  Json items = Json::array();
  if (auto call = enclosing_call(before); call && call->in_partition_spec) {
    for (const auto& axis : names.mesh_axis_names())
      items.push_back({{"label", axis},
                       {"kind", 20},
                       {"detail", "mesh axis"},
                       {"insertText", call->in_string ? axis : "'" + axis + "'"}});
    return Json{{"isIncomplete", false}, {"items", items}};
  }
  auto typed = name_being_typed(before);
  if (!typed) return Json{{"isIncomplete", false}, {"items", items}};
  if (!typed->object.empty()) {
    for (const auto& member : names.members(typed->object)) {
      if (!wanted(member.name, typed->partial)) continue;
      Json item{{"label", member.name}, {"kind", completion_kind(member.kind)}};
      item["detail"] = member.signature.empty() ? member.kind : member.signature;
      items.push_back(std::move(item));
    }
  } else {
    for (const auto& name : names.global_names())
      if (wanted(name, typed->partial)) items.push_back({{"label", name}, {"kind", 6}});
  }
  return Json{{"isIncomplete", false}, {"items", items}};
}

namespace {

// The parameter the cursor's argument goes to: the keyword's, else the
// positional slot (a *args takes every later one).
int active_parameter(std::string_view signature, const std::vector<std::pair<std::size_t, std::size_t>>& parameters,
                     const CallContext& call) {
  int positional = 0;
  bool keyword_only = false;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    std::string_view text = signature.substr(parameters[i].first, parameters[i].second - parameters[i].first);
    std::string_view name = text.substr(0, text.find('='));
    while (name.starts_with('*')) name.remove_prefix(1);
    if (!call.keyword.empty()) {
      if (name == call.keyword) return static_cast<int>(i);
      continue;
    }
    if (text == "/") continue;
    if (text == "*") {
      keyword_only = true;
      continue;
    }
    if (keyword_only || text.starts_with("**")) continue;
    if (text.starts_with("*") || positional == call.argument) return static_cast<int>(i);
    ++positional;
  }
  return -1;
}

}  // namespace

Json signature_help_json(const shardlang::Analysis& names, const DocumentView& document, int line, int character) {
  std::string_view before(document.text.text().data(), document.text.offset(line, character, document.encoding));
  auto call = enclosing_call(before);
  if (!call) return nullptr;
  std::string signature = names.signature(call->callee);
  if (signature.empty()) return nullptr;
  auto parameters = signature_parameters(signature);
  Json labels = Json::array();
  for (const auto& [begin, end] : parameters) {
    int from = encoded_length(std::string_view(signature).substr(0, begin), PositionEncoding::utf16);
    int to = from + encoded_length(std::string_view(signature).substr(begin, end - begin), PositionEncoding::utf16);
    labels.push_back({{"label", Json::array({from, to})}});
  }
  Json help{{"signatures", Json::array({{{"label", signature}, {"parameters", labels}}})}, {"activeSignature", 0}};
  int active = active_parameter(signature, parameters, *call);
  if (active >= 0) help["activeParameter"] = active;
  return help;
}

}  // namespace lsp
