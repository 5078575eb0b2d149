// The expression grammar (Python's, from `test` down to `atom`), with the
// production each rule implements written above it. Included only by
// grammar_expressions.cpp.
#pragma once

#include "lang/grammar.hpp"
#include "lang/grammar_actions.hpp"
#include "lang/grammar_tokens.hpp"

namespace lang::grammar::expression_grammar {

using namespace actions;
using ast::BinaryOperator;
using ast::CompareOperator;
using ast::UnaryOperator;

x3::rule<class atom_id> const atom = "an expression";
x3::rule<class postfix_id> const postfix = "an expression";
x3::rule<class power_id> const power = "an expression";
x3::rule<class factor_id> const factor = "an expression";
x3::rule<class term_id> const term = "an expression";
x3::rule<class arith_id> const arith = "an expression";
x3::rule<class shift_id> const shift = "an expression";
x3::rule<class bit_and_id> const bit_and = "an expression";
x3::rule<class bit_xor_id> const bit_xor = "an expression";
bit_or_expression_rule const bit_or = "an expression";
x3::rule<class comparison_id> const comparison = "an expression";
x3::rule<class not_test_id> const not_test = "an expression";
x3::rule<class and_test_id> const and_test = "an expression";
or_expression_rule const or_test = "an expression";
expression_rule const expression = "an expression";
x3::rule<class lambda_id> const lambda = "a lambda";
x3::rule<class lambda_parameters_id> const lambda_parameters = "parameters";
star_or_expression_rule const star_or_expression = "an expression";
expression_list_rule const expression_list = "an expression";
target_list_rule const target_list = "a target";
x3::rule<class comprehension_id> const comprehension = "a comprehension";
arguments_rule const arguments = "arguments";
yield_expression_rule const yield_expression = "a yield expression";
x3::rule<class subscript_item_id> const subscript_item = "an index or slice";

// A comma in a display, kept so that `(a,)` is a tuple and `(a)` is not.
auto const comma = act(push_default<Comma>)[op(",")];
auto const keyword_as_name = act(keyword_used_as_name)[any_keyword_token{}];

// ---------------------------------------------------------------- atoms

// display_items: (test|star_expr) (comp_for+ | (',' (test|star_expr))* [','])
auto const display_items =
    star_or_expression >> (+comprehension | (*act(keep)[comma >> star_or_expression] >> -comma));

// brace_item: '**' expr | test [':' test]
auto const brace_item = act(make_dict_unpacking)[op("**") > named("an expression after '**'")[bit_or]] |
                        act(make_brace_item)[star_or_expression >> -(op(":") > named("a value after ':'")[expression])];

// atom: '(' yield_expression ')' | '(' [display_items] ')' | '[' [display_items] ']'
//     | '{' [brace_item (comp_for+ | (',' brace_item)* [','])] '}'
//     | STRING+ | NUMBER | '...' | NAME | None | True | False
auto const atom_def =
    (op("(") >> yield_expression > named("')' after the yield expression")[op(")")]) |
    act(make_parenthesized)[op("(") >> -display_items > named("',' or ')'")[op(")")]] |
    act(make_list)[op("[") >> -display_items > named("',' or ']'")[op("]")]] |
    act(make_braces)[op("{") >> -(brace_item >> (+comprehension | (*act(keep)[comma >> brace_item] >> -comma))) >
                     named("',' or '}'")[op("}")]] |
    strings_token{} | number_token{} | act(make_ellipsis)[op("...")] | name_token{};

// ---------------------------------------------------------------- trailers

// argument: NAME '=' test | '**' test | '*' test | test [comp_for+]
auto const argument =
    act(make_keyword_argument)[identifier_token{} >> op("=") > named("a value after '='")[expression]] |
    act(make_mapping_argument)[op("**") > named("an expression after '**'")[expression]] |
    act(make_starred)[op("*") > named("an expression after '*'")[expression]] |
    act(make_positional_argument)[expression >> -+comprehension];

// arguments: argument (',' argument)* [',']
auto const arguments_def = argument >> *act(keep)[op(",") >> argument] >> -op(",");

auto const slice_colon = act(push_default<SliceColon>)[op(":")];

// subscript_item: test [':' [test] [':' [test]]] | ':' [test] [':' [test]]
auto const subscript_item_def =
    act(make_subscript_item)[(expression >> -(slice_colon >> -expression >> -(slice_colon >> -expression))) |
                             (slice_colon >> -expression >> -(slice_colon >> -expression))];

// postfix: atom trailer*
// trailer: '(' [arguments] ')' | '[' subscript_item (',' subscript_item)* [','] ']' | '.' NAME
auto const postfix_def =
    atom >> *(act(make_call)[op("(") >> -arguments > named("',' or ')' in the call")[op(")")]] |
              act(make_subscript)[op("[") > subscript_item > *act(keep)[comma >> subscript_item] >> -comma >
                                  named("',' or ']' in the subscript")[op("]")]] |
              act(make_attribute)[op(".") > named("an attribute name after '.'")[identifier_token{} | keyword_as_name]]);

// ---------------------------------------------------------------- operators

template <BinaryOperator Op, class Operand>
auto binary(const char* token, const char* operand_name, Operand const& operand) {
  return act(make_binary)[act(push_value<Op>)[op(token)] > named(operand_name)[operand]];
}

// power: postfix ['**' factor]   (right-associative, binds tighter than a
// unary operator on its left: -2**2 == -(2**2))
auto const power_def = postfix >> -binary<BinaryOperator::pow>("**", "an expression after '**'", factor);

// factor: ('+'|'-'|'~') factor | power
auto const unary_operator = act(push_value<UnaryOperator::uadd>)[op("+")] |
                            act(push_value<UnaryOperator::usub>)[op("-")] |
                            act(push_value<UnaryOperator::invert>)[op("~")];
auto const factor_def =
    nested[act(make_unary)[unary_operator > named("an expression after the unary operator")[factor]] | power];

// term: factor (('*'|'@'|'/'|'//'|'%') factor)*
auto const term_def = factor >> *(binary<BinaryOperator::mult>("*", "an expression after '*'", factor) |
                                  binary<BinaryOperator::matmult>("@", "an expression after '@'", factor) |
                                  binary<BinaryOperator::div>("/", "an expression after '/'", factor) |
                                  binary<BinaryOperator::floordiv>("//", "an expression after '//'", factor) |
                                  binary<BinaryOperator::mod>("%", "an expression after '%'", factor));

// arith: term (('+'|'-') term)*
auto const arith_def = term >> *(binary<BinaryOperator::add>("+", "an expression after '+'", term) |
                                 binary<BinaryOperator::sub>("-", "an expression after '-'", term));

// shift: arith (('<<'|'>>') arith)*
auto const shift_def = arith >> *(binary<BinaryOperator::lshift>("<<", "an expression after '<<'", arith) |
                                  binary<BinaryOperator::rshift>(">>", "an expression after '>>'", arith));

// bit_and: shift ('&' shift)*
auto const bit_and_def = shift >> *binary<BinaryOperator::bitand_>("&", "an expression after '&'", shift);

// bit_xor: bit_and ('^' bit_and)*
auto const bit_xor_def = bit_and >> *binary<BinaryOperator::bitxor>("^", "an expression after '^'", bit_and);

// bit_or: bit_xor ('|' bit_xor)*
auto const bit_or_def = bit_xor >> *binary<BinaryOperator::bitor_>("|", "an expression after '|'", bit_xor);

// comparison: bit_or (compare_operator bit_or)*
auto const compare_operator =
    act(push_value<CompareOperator::eq>)[op("==")] | act(push_value<CompareOperator::not_eq_>)[op("!=")] |
    act(push_value<CompareOperator::lt_e>)[op("<=")] | act(push_value<CompareOperator::gt_e>)[op(">=")] |
    act(push_value<CompareOperator::lt>)[op("<")] | act(push_value<CompareOperator::gt>)[op(">")] |
    act(push_value<CompareOperator::not_in>)[kw("not") >> kw("in")] |
    act(push_value<CompareOperator::is_not>)[kw("is") >> kw("not")] |
    act(push_value<CompareOperator::is>)[kw("is")] | act(push_value<CompareOperator::in>)[kw("in")];
auto const comparison_def =
    act(make_compare)[bit_or >> *(compare_operator > named("an expression after the comparison")[bit_or])];

// not_test: 'not' not_test | comparison
auto const not_test_def =
    nested[act(make_unary)[act(push_value<UnaryOperator::not_>)[kw("not")] > named("an expression after `not`")[not_test]] |
           comparison];

// and_test: not_test ('and' not_test)*
auto const and_test_def = act(make_and)[not_test >> *(kw("and") > named("an expression after `and`")[not_test])];

// or_test: and_test ('or' and_test)*
auto const or_test_def = act(make_or)[and_test >> *(kw("or") > named("an expression after `or`")[and_test])];

// ---------------------------------------------------------------- lambda, test

// lambda_parameter: NAME ['=' test]
auto const lambda_parameter =
    act(make_plain_parameter)[identifier_token{} >> -(op("=") > named("a default value after '='")[expression])];
// lambda_parameters: item (',' item)* [','];  item: '**' NAME | '*' [NAME] | lambda_parameter
auto const lambda_parameter_item =
    act(make_kwargs_parameter)[op("**") > named("a parameter name after '**'")[lambda_parameter]] |
    act(make_varargs_parameter)[op("*") >> -lambda_parameter] | lambda_parameter;
auto const lambda_parameters_def = lambda_parameter_item >> *act(keep)[op(",") >> lambda_parameter_item] >> -op(",");

// lambda: 'lambda' [lambda_parameters] ':' test
auto const lambda_def = act(make_lambda)[kw("lambda") >> -lambda_parameters >
                                         named("':' after the parameters of `lambda`")[op(":")] >
                                         named("an expression after `lambda ...:`")[expression]];

// test: lambda | or_test ['if' or_test 'else' test]
auto const expression_def =
    nested[lambda | act(make_if_expression)[or_test >> -(kw("if") > named("a condition after `if`")[or_test] >
                                                         named("`else` in the conditional expression")[kw("else")] >
                                                         named("an expression after `else`")[expression])]];

// star_or_expression: '*' bit_or | test
auto const star_or_expression_def =
    act(make_starred)[op("*") > named("an expression after '*'")[bit_or]] | expression;

// expression_list: star_or_expression (',' star_or_expression)* [',']
auto const expression_list_def =
    act(make_expression_list)[star_or_expression >> *act(keep)[comma >> star_or_expression] >> -comma];

// target_list: target (',' target)* [',']; target: '*' bit_or | bit_or
auto const target = act(make_starred)[op("*") > named("a target after '*'")[bit_or]] | bit_or;
auto const target_list_def = act(make_expression_list)[target >> *act(keep)[comma >> target] >> -comma];

// comprehension: 'for' target_list 'in' or_test ('if' or_test)*
auto const comprehension_def =
    act(make_comprehension)[kw("for") > named("a target after `for`")[target_list] >
                            named("`in` after the target of `for`")[kw("in")] >
                            named("an iterable after `in`")[or_test] >
                            *(kw("if") > named("a condition after `if`")[or_test])];

// yield_expression: 'yield' 'from' test | 'yield' [expression_list]
auto const yield_expression_def =
    act(make_yield_from)[kw("yield") >> kw("from") > named("an expression after `yield from`")[expression]] |
    act(make_yield)[kw("yield") >> -expression_list];

BOOST_SPIRIT_DEFINE(yield_expression, atom, postfix, power, factor, term, arith, shift, bit_and, bit_xor, bit_or, comparison, not_test,
                    and_test, or_test, expression, lambda, lambda_parameters, star_or_expression, expression_list,
                    target_list, comprehension, arguments, subscript_item)

}  // namespace lang::grammar::expression_grammar
