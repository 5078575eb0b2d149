// The front end's contract: source text in, AST or diagnostics out.
//
//   SourceFile --scanner--> text with block markers + offset map
//              --grammar (Boost.Spirit X3)--> ast::Module
//
// A syntax error is a Diagnostic with code "syntax", the position where
// parsing stopped and what was expected there
// ("expected ':' after the condition of `if`").
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "lang/ast.hpp"
#include "lang/diagnostic.hpp"
#include "lang/source.hpp"

namespace lang {

struct ParseResult {
  std::shared_ptr<ast::Module> module;  // null when there are errors
  std::vector<Diagnostic> diagnostics;

  bool ok() const { return module != nullptr; }
};

ParseResult parse(std::shared_ptr<const SourceFile> source);

// For the REPL: is this text a whole entry, or does it need more lines?
// `incomplete` for an open bracket, a trailing `\`, a block header whose body
// has not started, or (when the text has a block or starts with a compound
// statement, even one on one line: `for i in x: f(i)`) a last line that is
// not blank, as Python's interactive interpreter decides. `complete` otherwise, also when the text has a syntax error (the
// error is reported when it is parsed).
enum class InputState { complete, incomplete };
InputState input_state(std::string_view text);

}  // namespace lang
