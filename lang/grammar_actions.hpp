// Semantic actions of the grammar (grammar.hpp): each builds one kind of
// AST node from the items its production pushed (Match::first_item on) and
// pushes the node. Named after the node they make; the production each
// serves is in grammar_expressions_def.hpp / grammar_statements_def.hpp.
#pragma once

#include "lang/grammar.hpp"

namespace lang::grammar::actions {

// Keeps what the production pushed (used to drop it again on failure).
void keep(Builder&, const Match&);

// ---------------------------------------------------------------- expressions
void make_binary(Builder&, const Match&);
void make_unary(Builder&, const Match&);
void make_compare(Builder&, const Match&);
void make_and(Builder&, const Match&);
void make_or(Builder&, const Match&);
void make_if_expression(Builder&, const Match&);
void make_lambda(Builder&, const Match&);
void make_starred(Builder&, const Match&);
void make_ellipsis(Builder&, const Match&);
void make_parenthesized(Builder&, const Match&);
void make_list(Builder&, const Match&);
void make_braces(Builder&, const Match&);
void make_brace_item(Builder&, const Match&);
void make_dict_unpacking(Builder&, const Match&);
void make_comprehension(Builder&, const Match&);
void make_call(Builder&, const Match&);
void make_keyword_argument(Builder&, const Match&);
void make_mapping_argument(Builder&, const Match&);
void make_positional_argument(Builder&, const Match&);
void make_subscript(Builder&, const Match&);
void make_subscript_item(Builder&, const Match&);
void make_attribute(Builder&, const Match&);
void make_expression_list(Builder&, const Match&);
void make_plain_parameter(Builder&, const Match&);
void make_varargs_parameter(Builder&, const Match&);
void make_kwargs_parameter(Builder&, const Match&);
void keyword_used_as_name(Builder&, const Match&);
void make_yield(Builder&, const Match&);
void make_yield_from(Builder&, const Match&);

// ---------------------------------------------------------------- statements
void make_body(Builder&, const Match&);
void make_expression_statement(Builder&, const Match&);
void make_pass(Builder&, const Match&);
void make_break(Builder&, const Match&);
void make_continue(Builder&, const Match&);
void make_return(Builder&, const Match&);
void make_raise(Builder&, const Match&);
void make_assert(Builder&, const Match&);
void make_global(Builder&, const Match&);
void make_nonlocal(Builder&, const Match&);
void make_delete(Builder&, const Match&);
void make_dotted_name(Builder&, const Match&);
void make_relative_module(Builder&, const Match&);
void make_alias(Builder&, const Match&);
void make_star_alias(Builder&, const Match&);
void make_import(Builder&, const Match&);
void make_import_from(Builder&, const Match&);
void make_if(Builder&, const Match&);
void make_elif(Builder&, const Match&);
void make_else(Builder&, const Match&);
void make_finally(Builder&, const Match&);
void make_while(Builder&, const Match&);
void make_for(Builder&, const Match&);
void make_try(Builder&, const Match&);
void make_except_handler(Builder&, const Match&);
void make_with_item(Builder&, const Match&);
void make_with(Builder&, const Match&);
void make_function_def(Builder&, const Match&);
void make_class_def(Builder&, const Match&);
void make_decorated(Builder&, const Match&);
void make_line_magic(Builder&, const Match&);
void unexpected_indent(Builder&, const Match&);
void stray_clause(Builder&, const Match&);
void unsupported_statement(Builder&, const Match&);

}  // namespace lang::grammar::actions
