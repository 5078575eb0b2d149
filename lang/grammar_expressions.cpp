// Instantiates the expression grammar (grammar_expressions_def.hpp).
#include "lang/grammar_expressions_def.hpp"

namespace lang::grammar {

namespace expression_grammar {
BOOST_SPIRIT_INSTANTIATE(expression_rule, Iterator, context_type)
BOOST_SPIRIT_INSTANTIATE(star_or_expression_rule, Iterator, context_type)
BOOST_SPIRIT_INSTANTIATE(or_expression_rule, Iterator, context_type)
BOOST_SPIRIT_INSTANTIATE(bit_or_expression_rule, Iterator, context_type)
BOOST_SPIRIT_INSTANTIATE(expression_list_rule, Iterator, context_type)
BOOST_SPIRIT_INSTANTIATE(target_list_rule, Iterator, context_type)
BOOST_SPIRIT_INSTANTIATE(arguments_rule, Iterator, context_type)
BOOST_SPIRIT_INSTANTIATE(yield_expression_rule, Iterator, context_type)
}  // namespace expression_grammar

void parse_fstring_expression(Builder& builder, Iterator first, Iterator last) {
  skipper_type const skipper = x3::lit(' ');
  phrase_context_type const phrase_context(skipper);
  context_type const context(builder, phrase_context);
  Iterator position = first;
  bool parsed = expression_grammar::expression.parse(position, last, context, x3::unused, x3::unused);
  x3::skip_over(position, last, context);
  if (!parsed || position != last)
    throw SyntaxError{builder.span(position, last), "f-string: invalid expression"};
}

}  // namespace lang::grammar
