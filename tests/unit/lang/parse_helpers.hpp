// Helpers for the front-end tests: parse text and show the result compactly.
#pragma once

#include <string>
#include <string_view>

#include "lang/ast.hpp"
#include "lang/parser.hpp"

namespace lang::testing {

// Parses `text`; returns the module, or null (then `error` gets
// "LINE:COL: MESSAGE" of the one diagnostic).
std::shared_ptr<ast::Module> parse_text(std::string_view text, std::string* error = nullptr);

// ast::dump of `text`, or "error: LINE:COL: MESSAGE".
std::string dump_of(std::string_view text);

// "LINE:COL: MESSAGE" of the syntax error in `text`, or "no error".
std::string error_of(std::string_view text);

// A one-line, fully parenthesised rendering of an expression, to check
// precedence and structure tersely: `(- (** 2 2))`, `(call f 1 k=2)`.
std::string sexpr(const ast::Expr& expr);

// sexpr of the single expression statement `text`.
std::string sexpr_of(std::string_view text);

// The source text a span covers.
std::string text_of(const Span& span);

}  // namespace lang::testing
