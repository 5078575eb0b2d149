// The server's answers, built from an Analysis of the document
// (include/shardlang/shardlang.hpp "editor support") as LSP 3.17 JSON:
// diagnostics, hover, inlay hints, code actions, completion and signature
// help. Pure functions: the server (server.hpp) keeps the state.
#pragma once

#include <string>
#include <vector>

#include "repl/lsp/json_rpc.hpp"
#include "repl/lsp/text.hpp"
#include "shardlang/shardlang.hpp"

namespace lsp {

// The document an answer is about.
struct DocumentView {
  const TextDocument& text;
  PositionEncoding encoding;
  std::string uri;
  std::string path;  // the name the analysis was given; its locations in this file map to `uri`
};

// An LSP Position / Range from shardlang's 1-based line and column.
Json position_json(const DocumentView& document, int line, int column);
Json range_json(const DocumentView& document, const shardlang::Location& where);

// publishDiagnostics' list: each diagnostic's message with its notes that
// have no location and its hint, the notes with a location as related
// information (where each operand got its sharding).
Json diagnostics_json(const std::vector<shardlang::Diagnostic>& diagnostics, const DocumentView& document);

// textDocument/hover at (line, character): the sharded type of the innermost
// expression or name that held an array there, one device's shard and its
// bytes, and the cost model's estimate of the line. Null when none.
Json hover_json(const shardlang::Analysis& analysis, const DocumentView& document, int line, int character);

// textDocument/inlayHint: ": <type>" after each name an assignment bound to
// an array, on lines first_line..last_line (0-based, inclusive).
Json inlay_hints_json(const shardlang::Analysis& analysis, const DocumentView& document, int first_line,
                      int last_line);

// textDocument/codeAction: the fixes of the diagnostics on lines
// first_line..last_line, each a quick fix with its edit, in the order the
// hint ranks them (the first is preferred).
Json code_actions_json(const shardlang::Analysis& analysis, const DocumentView& document, int first_line,
                       int last_line);

// textDocument/completion at (line, character): mesh axis names inside
// P(...), the members after `name.`, else the names in scope. `names` is the
// last analysis of the document whose source parsed.
Json completion_json(const shardlang::Analysis& names, const DocumentView& document, int line, int character);

// textDocument/signatureHelp: the signature of the function whose call the
// cursor is in, with the argument being written. Null outside a known call.
Json signature_help_json(const shardlang::Analysis& names, const DocumentView& document, int line, int character);

// file:// URIs and paths (percent-encoding as RFC 3986 says).
std::string path_of_uri(const std::string& uri);
std::string uri_of_path(const std::string& path);

}  // namespace lsp
