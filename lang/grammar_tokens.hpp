// Tokens and directives of the X3 grammar (grammar.hpp).
//
// Tokens are small X3 primitive parsers over the scanner's text; the lexing
// itself is in grammar_tokens.cpp so that the grammar modules stay quick to
// compile. Directives:
//   act(f)[p]   parse p; on success call f with what p matched (it builds
//               nodes from the items p pushed); on failure drop those items
//   named(s)[p] p, called `s` in "expected s" messages (X3's what())
//   nested[p]   p, one level deeper (bounded by max_expression_depth)
#pragma once

#include "lang/grammar.hpp"

namespace lang::grammar {

template <class Derived>
struct token_parser : x3::parser<Derived> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;

  template <class Context, class RuleContext, class Attribute>
  bool parse(Iterator& first, Iterator const& last, Context const& context, RuleContext&, Attribute&) const {
    x3::skip_over(first, last, context);
    return static_cast<const Derived&>(*this).lex(x3::get<builder_tag>(context), first, last);
  }
};

// An operator or delimiter, matched by the longest-token rule: op("*") does
// not match the start of "**" or "*=".
struct operator_token : token_parser<operator_token> {
  constexpr explicit operator_token(const char* text) : text(text) {}
  bool lex(Builder&, Iterator& first, Iterator last) const { return match_operator(first, last, text); }
  const char* text;
};
inline operator_token op(const char* text) { return operator_token(text); }

// A keyword, not the start of a longer name (`in` does not match `index`).
struct keyword_token : token_parser<keyword_token> {
  constexpr explicit keyword_token(const char* word) : word(word) {}
  bool lex(Builder&, Iterator& first, Iterator last) const { return match_keyword(first, last, word); }
  const char* word;
};
inline keyword_token kw(const char* word) { return keyword_token(word); }

// Any keyword (for "`if` is a keyword" errors and stray clauses).
struct any_keyword_token : token_parser<any_keyword_token> {
  bool lex(Builder&, Iterator& first, Iterator last) const { return match_any_keyword(first, last); }
};

// NAME, pushed as an ast::Identifier.
struct identifier_token : token_parser<identifier_token> {
  bool lex(Builder& builder, Iterator& first, Iterator last) const {
    Iterator begin = first;
    std::string_view word;
    if (!lex_identifier(first, last, word)) return false;
    builder.push(ast::Identifier{std::string(word), builder.span(begin, first)});
    return true;
  }
};

// NAME as an expression (ast::Name), or None/True/False as a Constant.
struct name_token : token_parser<name_token> {
  bool lex(Builder& builder, Iterator& first, Iterator last) const {
    Iterator begin = first;
    std::string_view word;
    if (match_keyword(first, last, "None")) {
      builder.push(ast::make_expr(builder.span(begin, first), ast::Constant{ast::NoneLiteral{}}));
      return true;
    }
    for (bool value : {true, false}) {
      if (match_keyword(first, last, value ? "True" : "False")) {
        builder.push(ast::make_expr(builder.span(begin, first), ast::Constant{value}));
        return true;
      }
    }
    if (!lex_identifier(first, last, word)) return false;
    builder.push(ast::make_expr(builder.span(begin, first), ast::Name{std::string(word)}));
    return true;
  }
};

struct number_token : token_parser<number_token> {
  bool lex(Builder& builder, Iterator& first, Iterator last) const { return lex_number(builder, first, last); }
};

// One or more adjacent string literals, concatenated.
struct strings_token : token_parser<strings_token> {
  bool lex(Builder& builder, Iterator& first, Iterator last) const { return lex_strings(builder, first, last); }
};

// `-n 5 -r 3` after a line magic's name.
struct magic_options_token : token_parser<magic_options_token> {
  bool lex(Builder& builder, Iterator& first, Iterator last) const { return lex_magic_options(builder, first, last); }
};

// One of the scanner's markers.
struct marker_token : token_parser<marker_token> {
  constexpr explicit marker_token(char symbol) : symbol(symbol) {}
  bool lex(Builder&, Iterator& first, Iterator last) const {
    if (first == last || *first != symbol) return false;
    ++first;
    return true;
  }
  char symbol;
};

// ---------------------------------------------------------------- directives

template <class Subject>
struct action_parser : x3::unary_parser<Subject, action_parser<Subject>> {
  using base_type = x3::unary_parser<Subject, action_parser<Subject>>;
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;

  action_parser(Subject const& subject, Action action) : base_type(subject), action(action) {}

  template <class Context, class RuleContext, class Attribute>
  bool parse(Iterator& first, Iterator const& last, Context const& context, RuleContext& rule_context, Attribute&) const {
    x3::skip_over(first, last, context);
    Builder& builder = x3::get<builder_tag>(context);
    Match match{first, first, builder.size()};
    if (!this->subject.parse(first, last, context, rule_context, x3::unused)) {
      builder.truncate(match.first_item);
      first = match.begin;
      return false;
    }
    match.end = first;
    action(builder, match);
    return true;
  }

  Action action;
};

struct action_generator {
  template <class Subject>
  action_parser<typename x3::extension::as_parser<Subject>::value_type> operator[](Subject const& subject) const {
    return {x3::as_parser(subject), action};
  }
  Action action;
};
inline action_generator act(Action action) { return {action}; }

template <class Subject>
struct named_parser : x3::unary_parser<Subject, named_parser<Subject>> {
  using base_type = x3::unary_parser<Subject, named_parser<Subject>>;
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;

  named_parser(Subject const& subject, const char* name) : base_type(subject), name(name) {}

  template <class Context, class RuleContext, class Attribute>
  bool parse(Iterator& first, Iterator const& last, Context const& context, RuleContext& rule_context, Attribute&) const {
    return this->subject.parse(first, last, context, rule_context, x3::unused);
  }

  const char* name;
};

struct name_generator {
  template <class Subject>
  named_parser<typename x3::extension::as_parser<Subject>::value_type> operator[](Subject const& subject) const {
    return {x3::as_parser(subject), name};
  }
  const char* name;
};
inline name_generator named(const char* name) { return {name}; }

template <class Subject>
struct nested_parser : x3::unary_parser<Subject, nested_parser<Subject>> {
  using base_type = x3::unary_parser<Subject, nested_parser<Subject>>;
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;

  explicit nested_parser(Subject const& subject) : base_type(subject) {}

  template <class Context, class RuleContext, class Attribute>
  bool parse(Iterator& first, Iterator const& last, Context const& context, RuleContext& rule_context, Attribute&) const {
    Builder& builder = x3::get<builder_tag>(context);
    if (builder.depth >= max_expression_depth)
      throw SyntaxError{builder.span_at(first), "too deeply nested: this expression has too many levels"};
    ++builder.depth;
    struct Leave {
      Builder& builder;
      ~Leave() { --builder.depth; }
    } leave{builder};
    return this->subject.parse(first, last, context, rule_context, x3::unused);
  }
};

struct nested_generator {
  template <class Subject>
  nested_parser<typename x3::extension::as_parser<Subject>::value_type> operator[](Subject const& subject) const {
    return nested_parser<typename x3::extension::as_parser<Subject>::value_type>(x3::as_parser(subject));
  }
};
inline constexpr nested_generator nested{};

// Pushes a fixed item (an operator) when the parser before it matched.
template <auto Value>
void push_value(Builder& builder, const Match&) {
  builder.push(Value);
}
template <class T>
void push_default(Builder& builder, const Match&) {
  builder.push(T{});
}

}  // namespace lang::grammar

namespace boost::spirit::x3 {
template <class Subject>
struct get_info<lang::grammar::named_parser<Subject>> {
  using result_type = std::string;
  std::string operator()(lang::grammar::named_parser<Subject> const& parser) const { return parser.name; }
};
}  // namespace boost::spirit::x3
