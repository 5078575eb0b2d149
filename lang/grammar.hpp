// The X3 grammar of shardlang: shared declarations of its modules.
//
// The grammar reads the scanner's output (scanner.hpp). Its rules carry no
// X3 attributes; instead semantic actions build lang::ast nodes on the
// Builder's stack, which the grammar reaches through the X3 context
// (builder_tag). A production's action takes the items its sub-productions
// pushed and pushes the node they make. A production that fails takes its
// items off again, so alternatives may backtrack freely.
//
// Modules: grammar_tokens.hpp (tokens, directives), grammar_expressions
// (expressions), grammar_statements (statements and the file).
#pragma once

#include <boost/spirit/home/x3.hpp>

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "lang/ast.hpp"
#include "lang/scanner.hpp"
#include "lang/source.hpp"

namespace lang::grammar {

namespace x3 = boost::spirit::x3;

using Iterator = const char*;

// A syntax error found by an action or a token (X3's expectation_failure
// covers the rest). The span is in source offsets.
struct SyntaxError {
  Span span;
  std::string message;
};

// Items on the builder stack besides expressions and statements.
struct Comma {};           // a comma in a display: `(a,)` is a tuple, `(a)` is not
struct SliceColon {};      // the ':' of a slice, placing lower/upper/step
struct DictEntry {         // `key: value`, or `**value` (null key)
  ast::ExprPtr key;
  ast::ExprPtr value;
};
struct OrElse { ast::Body body; };   // the `else:` block of if/for/while/try
struct Finally { ast::Body body; };  // the `finally:` block of try
enum class ParameterKind { plain, varargs, bare_star, kwargs };
struct ParameterItem {
  ParameterKind kind;
  ast::Parameter parameter;  // name empty for bare_star
  Span span;
};
// What follows the first expression of an expression statement.
struct AugmentedTail { ast::BinaryOperator op; };
struct AnnotationTail {};
struct MagicOption { std::string text; };

using Item = std::variant<ast::ExprPtr, ast::StmtPtr, ast::Body, ast::Identifier, ast::Keyword,
                          ast::Comprehension, ast::ExceptHandler, ast::Alias, ast::WithItem,
                          ast::BinaryOperator, ast::UnaryOperator, ast::CompareOperator, Comma,
                          SliceColon, DictEntry, OrElse, Finally, ParameterItem, AugmentedTail,
                          AnnotationTail, MagicOption>;

// How deep the expression rules may recurse (brackets are capped by the
// scanner; this bounds `- - - x`, `not not x`, `lambda: lambda: x`, ...).
inline constexpr int max_expression_depth = 600;

class Builder {
 public:
  Builder(const SourceFile& file, const ScannedText& scanned)
      : file_(file), scanned_(scanned), text_begin_(scanned.text.data()) {}

  Span span(Iterator begin, Iterator end) const;
  Span span_at(Iterator where) const { return span(where, where); }
  const SourceFile& file() const { return file_; }
  Iterator text_begin() const { return text_begin_; }
  Iterator text_end() const { return text_begin_ + scanned_.text.size(); }

  std::size_t size() const { return items_.size(); }
  void push(Item item) { items_.push_back(std::move(item)); }
  void truncate(std::size_t size) { items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(size), items_.end()); }
  // Moves out the items from `first` on.
  std::vector<Item> take_from(std::size_t first);
  template <class T>
  T pop() {
    T value = std::get<T>(std::move(items_.back()));
    items_.pop_back();
    return value;
  }
  template <class T>
  bool top_is() const {
    return !items_.empty() && std::holds_alternative<T>(items_.back());
  }

  int depth = 0;  // current expression nesting (max_expression_depth)

 private:
  const SourceFile& file_;
  const ScannedText& scanned_;
  Iterator text_begin_;
  std::vector<Item> items_;
};

struct builder_tag;
using skipper_type = std::remove_cv_t<decltype(x3::lit(' '))>;
using phrase_context_type = x3::context<x3::skipper_tag, skipper_type const, x3::unused_type>;
using context_type = x3::context<builder_tag, Builder, phrase_context_type>;

// What a semantic action sees: the text its production matched and where its
// items start on the builder stack.
struct Match {
  Iterator begin;
  Iterator end;
  std::size_t first_item;
};
using Action = void (*)(Builder&, const Match&);

// ---------------------------------------------------------------- rules

// Rules shared between grammar modules. Each module's rules (and their ID
// classes, which X3 finds parse_rule through) live in its own namespace.
namespace expression_grammar {
using expression_rule = x3::rule<class expression_id>;
using star_or_expression_rule = x3::rule<class star_or_expression_id>;
using or_expression_rule = x3::rule<class or_expression_id>;
using bit_or_expression_rule = x3::rule<class bit_or_expression_id>;
using expression_list_rule = x3::rule<class expression_list_id>;
using target_list_rule = x3::rule<class target_list_id>;
using arguments_rule = x3::rule<class arguments_id>;
using yield_expression_rule = x3::rule<class yield_expression_id>;
BOOST_SPIRIT_DECLARE(expression_rule, star_or_expression_rule, or_expression_rule, bit_or_expression_rule,
                     expression_list_rule, target_list_rule, arguments_rule, yield_expression_rule)
}  // namespace expression_grammar
namespace statement_grammar {
using file_input_rule = x3::rule<class file_input_id>;
BOOST_SPIRIT_DECLARE(file_input_rule)
}  // namespace statement_grammar
using expression_grammar::arguments_rule;
using expression_grammar::bit_or_expression_rule;
using expression_grammar::expression_list_rule;
using expression_grammar::expression_rule;
using expression_grammar::or_expression_rule;
using expression_grammar::star_or_expression_rule;
using expression_grammar::target_list_rule;
using expression_grammar::yield_expression_rule;
using statement_grammar::file_input_rule;

// Parses the whole scanned text; on success the builder holds one ast::Body
// (grammar_statements.cpp). Throws x3::expectation_failure or SyntaxError.
bool parse_file(Builder& builder);

// Parses one f-string field expression spanning exactly [first, last) and
// pushes it (grammar_expressions.cpp).
void parse_fstring_expression(Builder& builder, Iterator first, Iterator last);

// Token lexers (grammar_tokens.cpp). Each takes `first` past what it
// consumed and returns true, or leaves it and returns false.
bool match_operator(Iterator& first, Iterator last, std::string_view token);
bool match_keyword(Iterator& first, Iterator last, std::string_view keyword);
bool match_any_keyword(Iterator& first, Iterator last);
bool is_keyword(std::string_view word);
bool lex_identifier(Iterator& first, Iterator last, std::string_view& word);
bool lex_number(Builder& builder, Iterator& first, Iterator last);
bool lex_strings(Builder& builder, Iterator& first, Iterator last);
bool lex_magic_options(Builder& builder, Iterator& first, Iterator last);

// Checks that an expression may be assigned to (or deleted): names,
// attributes, subscripts, tuples/lists of those with at most one starred.
// `verb` is "assign to" or "delete".
void check_target(const ast::Expr& target, const char* verb);

}  // namespace lang::grammar
