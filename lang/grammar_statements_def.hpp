// The statement grammar: the file, blocks, simple and compound statements,
// with the production each rule implements written above it. Included only
// by grammar_statements.cpp. NEWLINE, INDENT and DEDENT are the scanner's
// markers (scanner.hpp).
#pragma once

#include "lang/grammar.hpp"
#include "lang/grammar_actions.hpp"
#include "lang/grammar_tokens.hpp"

namespace lang::grammar::statement_grammar {

using namespace actions;
using ast::BinaryOperator;

// Rules of the expression module (grammar_expressions_def.hpp); X3 finds
// their definitions by rule ID.
expression_rule const expression = "an expression";
bit_or_expression_rule const bit_or = "an expression";
expression_list_rule const expression_list = "an expression";
target_list_rule const target_list = "a target";
arguments_rule const arguments = "arguments";
yield_expression_rule const yield_expression = "a yield expression";

x3::rule<class statement_id> const statement = "a statement";
x3::rule<class simple_statement_id> const simple_statement = "a statement";
x3::rule<class small_statement_id> const small_statement = "a statement";
x3::rule<class function_def_id> const function_def = "a function definition";
x3::rule<class class_def_id> const class_def = "a class definition";
x3::rule<class parameters_id> const parameters = "parameters";
file_input_rule const file_input = "a statement";

auto const newline = marker_token(marker::newline);
auto const indent = marker_token(marker::indent);
auto const dedent = marker_token(marker::dedent);

// NAME, with a clear error for a keyword written where a name belongs.
auto const name = identifier_token{} | act(keyword_used_as_name)[any_keyword_token{}];

// suite: simple_statement | NEWLINE INDENT statement+ DEDENT
auto suite(const char* block_name) {
  return named(block_name)[act(make_body)[(newline > named(block_name)[indent] > +statement >
                                           named("a statement")[dedent]) |
                                          simple_statement]];
}

// ---------------------------------------------------------------- simple statements

// return_statement: 'return' [expression_list]
auto const return_statement = act(make_return)[kw("return") >> -expression_list];

// raise_statement: 'raise' [test ['from' test]]
auto const raise_statement =
    act(make_raise)[kw("raise") >> -(expression >> -(kw("from") > named("an exception after `from`")[expression]))];

// assert_statement: 'assert' test [',' test]
auto const assert_statement = act(make_assert)[kw("assert") > named("a condition after `assert`")[expression] >
                                               -(op(",") > named("a message after ','")[expression])];

// global_statement: 'global' NAME (',' NAME)*;  nonlocal_statement likewise
auto const global_statement =
    act(make_global)[kw("global") > named("a name after `global`")[name] > *(op(",") > named("a name after ','")[name])];
auto const nonlocal_statement = act(make_nonlocal)[kw("nonlocal") > named("a name after `nonlocal`")[name] >
                                                   *(op(",") > named("a name after ','")[name])];

// delete_statement: 'del' target_list
auto const delete_statement = act(make_delete)[kw("del") > named("a target after `del`")[target_list]];

// dotted_name: NAME ('.' NAME)*
auto const dotted_name = act(make_dotted_name)[name >> *(op(".") > named("a name after '.'")[name])];

// import_statement: 'import' dotted_name ['as' NAME] (',' dotted_name ['as' NAME])*
auto const import_alias = act(make_alias)[dotted_name >> -(kw("as") > named("a name after `as`")[name])];
auto const import_statement = act(make_import)[kw("import") > named("a module name after `import`")[import_alias] >
                                               *(op(",") > named("a module name after ','")[import_alias])];

// relative_module: ('.' | '...')+ [dotted_name]  (`from .. import x`, `from .mod import y`)
auto const relative_module =
    act(make_relative_module)[+(op("...") | op(".")) >> -(!kw("import") >> dotted_name)];

// from_statement: 'from' (relative_module | dotted_name) 'import' ('*' | '(' names ')' | names)
// names: NAME ['as' NAME] (',' NAME ['as' NAME])* [',']
auto const from_alias = act(make_alias)[name >> -(kw("as") > named("a name after `as`")[name])];
auto const from_names = from_alias >> *act(keep)[op(",") >> from_alias] >> -op(",");
auto const from_statement =
    act(make_import_from)[kw("from") > named("a module name after `from`")[relative_module | dotted_name] >
                          named("`import` after the module name")[kw("import")] >
                          named("the names to import")[act(make_star_alias)[op("*")] |
                                                       (op("(") > from_names > named("',' or ')'")[op(")")]) | from_names]];

// expression_statement: (yield_expression | expression_list)
//     ( augmented_operator (yield_expression | expression_list)
//     | ':' test ['=' (yield_expression | expression_list)]
//     | ('=' (yield_expression | expression_list))* )
template <BinaryOperator Op>
void push_augmented(Builder& builder, const Match&) {
  builder.push(AugmentedTail{Op});
}
auto const augmented_operator =
    act(push_augmented<BinaryOperator::add>)[op("+=")] | act(push_augmented<BinaryOperator::sub>)[op("-=")] |
    act(push_augmented<BinaryOperator::mult>)[op("*=")] | act(push_augmented<BinaryOperator::div>)[op("/=")] |
    act(push_augmented<BinaryOperator::floordiv>)[op("//=")] | act(push_augmented<BinaryOperator::mod>)[op("%=")] |
    act(push_augmented<BinaryOperator::matmult>)[op("@=")] | act(push_augmented<BinaryOperator::pow>)[op("**=")] |
    act(push_augmented<BinaryOperator::bitand_>)[op("&=")] | act(push_augmented<BinaryOperator::bitor_>)[op("|=")] |
    act(push_augmented<BinaryOperator::bitxor>)[op("^=")] | act(push_augmented<BinaryOperator::lshift>)[op("<<=")] |
    act(push_augmented<BinaryOperator::rshift>)[op(">>=")];
auto const assigned_value = yield_expression | expression_list;
auto const expression_statement = act(make_expression_statement)[
    assigned_value >>
    -((augmented_operator > named("an expression after the augmented assignment")[assigned_value]) |
      (act(push_default<AnnotationTail>)[op(":")] > named("an annotation after ':'")[expression] >
       -(op("=") > named("a value after '='")[assigned_value])) |
      +(op("=") > named("a value after '='")[assigned_value]))];

// line_magic: '%' NAME option* small_statement   (IPython's %timeit)
auto const line_magic = act(make_line_magic)[op("%") > named("a magic name after '%'")[identifier_token{}] >
                                             magic_options_token{} >
                                             named("a statement after the magic")[small_statement]];

// small_statement: pass | break | continue | return | raise | assert | global
//     | nonlocal | del | import | from | line_magic | expression_statement
auto const small_statement_def =
    act(make_pass)[kw("pass")] | act(make_break)[kw("break")] | act(make_continue)[kw("continue")] |
    return_statement | raise_statement | assert_statement | global_statement | nonlocal_statement | delete_statement |
    import_statement | from_statement | line_magic | expression_statement;

// simple_statement: small_statement (';' small_statement)* [';'] NEWLINE
auto const simple_statement_def = small_statement >> *act(keep)[op(";") >> small_statement] >> -op(";") >
                                  named("a newline or ';' after the statement")[newline];

// ---------------------------------------------------------------- compound statements

// else_clause: 'else' ':' suite
auto const else_clause =
    act(make_else)[kw("else") > named("':' after `else`")[op(":")] > suite("an indented block after `else`")];

// if_statement: 'if' test ':' suite ('elif' test ':' suite)* [else_clause]
auto const if_statement = act(make_if)[
    kw("if") > named("a condition after `if`")[expression] > named("':' after the condition of `if`")[op(":")] >
    suite("an indented block after `if`") >
    *act(make_elif)[kw("elif") > named("a condition after `elif`")[expression] >
                    named("':' after the condition of `elif`")[op(":")] > suite("an indented block after `elif`")] >>
    -else_clause];

// while_statement: 'while' test ':' suite [else_clause]
auto const while_statement =
    act(make_while)[kw("while") > named("a condition after `while`")[expression] >
                    named("':' after the condition of `while`")[op(":")] > suite("an indented block after `while`") >
                    -else_clause];

// for_statement: 'for' target_list 'in' expression_list ':' suite [else_clause]
auto const for_statement =
    act(make_for)[kw("for") > named("a target after `for`")[target_list] >
                  named("`in` after the target of `for`")[kw("in")] > named("an iterable after `in`")[expression_list] >
                  named("':' after the iterable of `for`")[op(":")] > suite("an indented block after `for`") >
                  -else_clause];

// try_statement: 'try' ':' suite (except_clause+ [else_clause] [finally_clause] | finally_clause)
// except_clause: 'except' [test ['as' NAME]] ':' suite
// finally_clause: 'finally' ':' suite
auto const except_clause =
    act(make_except_handler)[kw("except") >> -(expression >> -(kw("as") > named("a name after `as`")[name])) >
                             named("':' after `except`")[op(":")] > suite("an indented block after `except`")];
auto const finally_clause = act(make_finally)[kw("finally") > named("':' after `finally`")[op(":")] >
                                              suite("an indented block after `finally`")];
auto const try_statement =
    act(make_try)[kw("try") > named("':' after `try`")[op(":")] > suite("an indented block after `try`") >
                  named("`except` or `finally` after the `try` block")[(+except_clause >> -else_clause >> -finally_clause) |
                                                                       finally_clause]];

// with_statement: 'with' with_item (',' with_item)* ':' suite
// with_item: test ['as' target]
auto const with_item =
    act(make_with_item)[expression >> -(kw("as") > named("a target after `as`")[bit_or])];
auto const with_statement =
    act(make_with)[kw("with") > named("a context manager after `with`")[with_item] >
                   *(op(",") > named("a context manager after ','")[with_item]) >
                   named("':' after the items of `with`")[op(":")] > suite("an indented block after `with`")];

// parameter: NAME [':' test] ['=' test]
// parameters: item (',' item)* [',']; item: '**' parameter | '*' [parameter] | parameter
auto const def_parameter =
    act(make_plain_parameter)[name >> -(act(push_default<AnnotationTail>)[op(":")] >
                                        named("an annotation after ':'")[expression]) >>
                              -(op("=") > named("a default value after '='")[expression])];
auto const parameter_item = act(make_kwargs_parameter)[op("**") > named("a parameter name after '**'")[def_parameter]] |
                            act(make_varargs_parameter)[op("*") >> -def_parameter] | def_parameter;
auto const parameters_def = parameter_item >> *act(keep)[op(",") >> parameter_item] >> -op(",");

// function_def: 'def' NAME '(' [parameters] ')' ['->' test] ':' suite
auto const function_def_def =
    act(make_function_def)[kw("def") > named("a function name after `def`")[name] >
                           named("'(' after the function name")[op("(")] > -parameters >
                           named("',' or ')' in the parameters")[op(")")] >
                           -(act(push_default<AnnotationTail>)[op("->")] >
                             named("a return annotation after '->'")[expression]) >
                           named("':' after the function signature")[op(":")] > suite("an indented block after `def`")];

// class_def: 'class' NAME ['(' [arguments] ')'] ':' suite
auto const class_def_def =
    act(make_class_def)[kw("class") > named("a class name after `class`")[name] >
                        -(op("(") >> -arguments > named("',' or ')' in the bases")[op(")")]) >
                        named("':' after the class name")[op(":")] > suite("an indented block after `class`")];

// decorated: ('@' test NEWLINE)+ (function_def | class_def)
auto const decorated =
    act(make_decorated)[+(op("@") > named("a decorator after '@'")[expression] >
                          named("a newline after the decorator")[newline]) >
                        named("`def` or `class` after the decorators")[function_def | class_def]];

// statement: compound_statement | simple_statement
// (an INDENT here, an else/elif/except/finally with no statement to belong
// to, or a statement of Python that shardlang leaves out is an error)
auto const statement_def = if_statement | while_statement | for_statement | try_statement | with_statement |
                           function_def | class_def | decorated | simple_statement |
                           act(unexpected_indent)[indent] |
                           act(stray_clause)[kw("else") | kw("elif") | kw("except") | kw("finally")] |
                           act(unsupported_statement)[kw("async") | kw("await")];

// file_input: (NEWLINE | statement)* end-of-input
auto const file_input_def = act(make_body)[*(newline | statement)] > named("a statement")[x3::eoi];

BOOST_SPIRIT_DEFINE(statement, simple_statement, small_statement, function_def, class_def, parameters, file_input)

}  // namespace lang::grammar::statement_grammar
