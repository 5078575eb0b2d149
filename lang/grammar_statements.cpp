// Instantiates the statement grammar (grammar_statements_def.hpp).
#include "lang/grammar_statements_def.hpp"

namespace lang::grammar {

namespace statement_grammar {
BOOST_SPIRIT_INSTANTIATE(file_input_rule, Iterator, context_type)
}  // namespace statement_grammar

bool parse_file(Builder& builder) {
  skipper_type const skipper = x3::lit(' ');
  phrase_context_type const phrase_context(skipper);
  context_type const context(builder, phrase_context);
  Iterator first = builder.text_begin();
  return statement_grammar::file_input.parse(first, builder.text_end(), context, x3::unused, x3::unused);
}

}  // namespace lang::grammar
