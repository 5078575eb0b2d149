#include <gtest/gtest.h>

#include "parse_helpers.hpp"

namespace lang {
namespace {

using testing::error_of;

TEST(SyntaxErrors, MissingColon) {
  EXPECT_EQ(error_of("x = 1\nif x > 0\n    y = 2\n"), "2:9: expected ':' after the condition of `if`");
  EXPECT_EQ(error_of("for i in range(3)\n  pass\n"), "1:18: expected ':' after the iterable of `for`");
  EXPECT_EQ(error_of("def f()\n  pass\n"), "1:8: expected ':' after the function signature");
}

TEST(SyntaxErrors, Brackets) {
  EXPECT_EQ(error_of("x = f(1,\n      2\ny = 3\n"), "1:6: '(' was never closed");
  EXPECT_EQ(error_of("x = 1)\n"), "1:6: unmatched ')'");
  EXPECT_EQ(error_of("print(a b)\n"), "1:9: expected ',' or ')' in the call");
}

TEST(SyntaxErrors, Indentation) {
  EXPECT_EQ(error_of("x = 1\n    y = 2\n"), "2:5: unexpected indent");
  EXPECT_EQ(error_of("if x:\n\ty = 1\n"), "2:1: tab in indentation; shardlang indents with spaces");
  EXPECT_EQ(error_of("if x:\n    a\n  b\n"), "3:1: unindent does not match any outer indentation level");
  EXPECT_EQ(error_of("if x:\ny = 1\n"), "2:1: expected an indented block after `if`");
  EXPECT_EQ(error_of("def f():\n"), "1:9: expected an indented block after `def`");
}

TEST(SyntaxErrors, StrayClauses) {
  EXPECT_EQ(error_of("x = 1\nelse:\n  pass\n"), "2:1: `else` without a matching `if`, `for`, `while` or `try`");
  EXPECT_EQ(error_of("elif x:\n  pass\n"), "1:1: `elif` without a matching `if`");
  EXPECT_EQ(error_of("try:\n  pass\nx = 1\n"), "3:1: expected `except` or `finally` after the `try` block");
}

TEST(SyntaxErrors, UnsupportedStatements) {
  EXPECT_EQ(error_of("async def f():\n  pass\n"), "1:1: `async` is not supported in shardlang (language.md lists the statements)");
  EXPECT_EQ(error_of("await x\n"), "1:1: `await` is not supported in shardlang (language.md lists the statements)");
}

TEST(SyntaxErrors, InvalidTargets) {
  EXPECT_EQ(error_of("f() = 1\n"), "1:1: cannot assign to function call");
  EXPECT_EQ(error_of("a + 1 = 2\n"), "1:1: cannot assign to expression");
  EXPECT_EQ(error_of("None = 2\n"), "1:1: cannot assign to None");
  EXPECT_EQ(error_of("a, *b, *c = x\n"), "1:8: multiple starred expressions in assignment");
  EXPECT_EQ(error_of("*a = x\n"), "1:1: starred assignment target must be in a list or tuple");
  EXPECT_EQ(error_of("(a, b) += 1\n"), "1:1: illegal expression for augmented assignment");
  EXPECT_EQ(error_of("a, b: int = 1\n"), "1:1: only single target (not tuple) can be annotated");
  EXPECT_EQ(error_of("for f() in x: pass\n"), "1:5: cannot assign to function call");
  EXPECT_EQ(error_of("del 1\n"), "1:5: cannot delete literal");
}

TEST(SyntaxErrors, KeywordsAreNotNames) {
  EXPECT_EQ(error_of("def if(x): pass\n"), "1:5: `if` is a keyword and cannot be used as a name");
  EXPECT_EQ(error_of("import lambda\n"), "1:8: `lambda` is a keyword and cannot be used as a name");
  EXPECT_EQ(error_of("x.class\n"), "1:3: `class` is a keyword and cannot be used as a name");
  EXPECT_EQ(error_of("lambda = 1\n"), "1:8: expected ':' after the parameters of `lambda`");
}

TEST(SyntaxErrors, Strings) {
  EXPECT_EQ(error_of("s = 'abc\n"), "1:5: unterminated string literal");
  EXPECT_EQ(error_of("s = '''abc\n"), "1:5: unterminated triple-quoted string literal");
  EXPECT_EQ(error_of("s = f'{}'\n"), "1:7: f-string: empty expression not allowed");
  EXPECT_EQ(error_of("s = f'{x!z}'\n"), "1:9: f-string: invalid conversion character: expected 's', 'r', or 'a'");
  EXPECT_EQ(error_of("s = f'a}'\n"), "1:8: f-string: single '}' is not allowed");
  EXPECT_EQ(error_of("s = f'{x'\n"), "1:7: f-string: expecting '}'");
  EXPECT_EQ(error_of("s = f'{x +}'\n"), "1:11: expected an expression after '+'");
  EXPECT_EQ(error_of("s = b'x'\n"), "1:5: bytes literals are not supported");
}

TEST(SyntaxErrors, Numbers) {
  EXPECT_EQ(error_of("x = 0777\n"), "1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
  EXPECT_EQ(error_of("x = 1abc\n"), "1:5: invalid decimal literal");
  EXPECT_EQ(error_of("x = 99999999999999999999\n"), "1:5: integer literal is too large for a 64-bit int");
  EXPECT_EQ(error_of("x = 0x\n"), "1:5: invalid hexadecimal literal");
}

TEST(SyntaxErrors, DanglingOperatorsAndMissingParts) {
  EXPECT_EQ(error_of("def f(x):\n    return x +\n"), "2:15: expected an expression after '+'");
  EXPECT_EQ(error_of("def f:\n  pass\n"), "1:6: expected '(' after the function name");
  EXPECT_EQ(error_of("x = 1 2\n"), "1:7: expected a newline or ';' after the statement");
  EXPECT_EQ(error_of("x = y if z\n"), "1:11: expected `else` in the conditional expression");
  EXPECT_EQ(error_of("import\n"), "1:7: expected a module name after `import`");
  EXPECT_EQ(error_of("x[]\n"), "1:3: expected an index or slice");
  EXPECT_EQ(error_of("@dec\nx = 1\n"), "2:1: expected `def` or `class` after the decorators");
}

TEST(SyntaxErrors, ParametersAndArguments) {
  EXPECT_EQ(error_of("def f(a=1, b): pass\n"), "1:12: parameter without a default follows parameter with a default");
  EXPECT_EQ(error_of("def f(a, a): pass\n"), "1:10: duplicate parameter 'a' in function definition");
  EXPECT_EQ(error_of("def f(*): pass\n"), "1:7: named parameters must follow bare *");
  EXPECT_EQ(error_of("f(k=1, 2)\n"), "1:8: positional argument follows keyword argument");
  EXPECT_EQ(error_of("f(x for x in y, 1)\n"), "1:3: generator expression must be parenthesized");
}

TEST(SyntaxErrors, DeepNestingIsAnErrorNotACrash) {
  EXPECT_EQ(error_of(std::string(100000, '(')), "1:201: too deeply nested: more than 200 levels of brackets");
  std::string brackets = "x = " + std::string(150, '[') + std::string(150, ']') + "\n";
  EXPECT_EQ(error_of(brackets), "no error");
  std::string minus = "x = " + std::string(100000, '-') + "1\n";
  EXPECT_NE(error_of(minus).find("too deeply nested"), std::string::npos);
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "not ";
  EXPECT_NE(error_of(nots + "x\n").find("too deeply nested"), std::string::npos);
  std::string lambdas;
  for (int i = 0; i < 5000; ++i) lambdas += "lambda: ";
  EXPECT_NE(error_of(lambdas + "x\n").find("too deeply nested"), std::string::npos);
  std::string blocks;
  for (int i = 0; i < 150; ++i) blocks += std::string(static_cast<std::size_t>(i), ' ') + "if x:\n";
  EXPECT_NE(error_of(blocks + std::string(150, ' ') + "pass\n").find("too deeply nested"), std::string::npos);
}

}  // namespace
}  // namespace lang
