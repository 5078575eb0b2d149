#include <gtest/gtest.h>

#include "parse_helpers.hpp"

namespace lang {
namespace {

using testing::parse_text;
using testing::text_of;

const ast::Expr& value_of_first_statement(const ast::Module& module) {
  return *std::get<ast::ExprStmt>(module.body.at(0)->node).value;
}

TEST(Spans, CoverExactlyTheSourceText) {
  auto module = parse_text("y = 1\nfoo(a, b=2)[1:3].bar  # comment\n");
  ASSERT_TRUE(module);
  const ast::Stmt& statement = *module->body.at(1);
  EXPECT_EQ(text_of(statement.span), "foo(a, b=2)[1:3].bar");
  const auto& attribute = std::get<ast::Attribute>(std::get<ast::ExprStmt>(statement.node).value->node);
  EXPECT_EQ(text_of(attribute.attr_span), "bar");
  const auto& subscript = std::get<ast::Subscript>(attribute.value->node);
  EXPECT_EQ(text_of(subscript.slice->span), "1:3");
  const auto& call = std::get<ast::Call>(subscript.value->node);
  EXPECT_EQ(text_of(call.keywords.at(0).span), "b=2");
  EXPECT_EQ(text_of(call.args.at(0)->span), "a");
}

TEST(Spans, SurviveLineJoiningAndContinuations) {
  auto module = parse_text("total = (first +\n         second) * \\\n    third\n");
  ASSERT_TRUE(module);
  const auto& assign = std::get<ast::Assign>(module->body.at(0)->node);
  EXPECT_EQ(text_of(assign.value->span), "(first +\n         second) * \\\n    third");
  const auto& product = std::get<ast::BinOp>(assign.value->node);
  EXPECT_EQ(text_of(product.left->span), "(first +\n         second)");
  EXPECT_EQ(text_of(product.right->span), "third");
}

TEST(Spans, CompoundStatementsEndWithTheirBody) {
  auto module = parse_text("if x:\n    a = 1\n\n# trailing comment\nb = 2\n");
  ASSERT_TRUE(module);
  EXPECT_EQ(text_of(module->body.at(0)->span), "if x:\n    a = 1");
}

TEST(Spans, FStringFieldsPointIntoTheString) {
  auto module = parse_text("f'value: {x + 1:>4}'\n");
  ASSERT_TRUE(module);
  const auto& joined = std::get<ast::JoinedStr>(value_of_first_statement(*module).node);
  const auto& field = std::get<ast::FormattedValue>(joined.parts.at(1));
  EXPECT_EQ(text_of(field.value->span), "x + 1");
  EXPECT_EQ(field.format_spec, ">4");
}

TEST(Spans, TuplesAndParentheses) {
  auto module = parse_text("(a)\n(a, b)\nc, d\n");
  ASSERT_TRUE(module);
  EXPECT_EQ(text_of(std::get<ast::ExprStmt>(module->body.at(0)->node).value->span), "(a)");
  EXPECT_EQ(text_of(std::get<ast::ExprStmt>(module->body.at(1)->node).value->span), "(a, b)");
  EXPECT_EQ(text_of(std::get<ast::ExprStmt>(module->body.at(2)->node).value->span), "c, d");
}

TEST(InputState, CompleteAndIncompleteEntries) {
  EXPECT_EQ(input_state("x = 1"), InputState::complete);
  EXPECT_EQ(input_state("f(1,"), InputState::incomplete);
  EXPECT_EQ(input_state("x = [1,\n 2"), InputState::incomplete);
  EXPECT_EQ(input_state("x = 1 + \\"), InputState::incomplete);
  EXPECT_EQ(input_state("s = '''doc"), InputState::incomplete);
  EXPECT_EQ(input_state("if x:"), InputState::incomplete);
  EXPECT_EQ(input_state("def f():\n    return 1"), InputState::incomplete);
  EXPECT_EQ(input_state("def f():\n    return 1\n"), InputState::complete);
  EXPECT_EQ(input_state("for i in x:\n    if i:\n        pass\n    "), InputState::complete);
  EXPECT_EQ(input_state("x = )"), InputState::complete);  // a syntax error: reported when parsed
  EXPECT_EQ(input_state(""), InputState::complete);
}

}  // namespace
}  // namespace lang
