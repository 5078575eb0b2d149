// When the REPL runs an entry (lang::input_state): as Python's interactive
// interpreter, a compound statement waits for an empty line even when its
// body is on the header's line; a simple statement runs at once.
#include <gtest/gtest.h>

#include "lang/parser.hpp"

namespace {

using lang::input_state;
using lang::InputState;

TEST(InputState, OneLineCompoundStatementWaitsForAnEmptyLine) {
  EXPECT_EQ(input_state("for i in range(3): print(i)"), InputState::incomplete);
  EXPECT_EQ(input_state("for i in range(3): print(i)\n"), InputState::complete);
  EXPECT_EQ(input_state("if x: y"), InputState::incomplete);
  EXPECT_EQ(input_state("if x: y\n   "), InputState::complete);
  EXPECT_EQ(input_state("while n: n -= 1"), InputState::incomplete);
  EXPECT_EQ(input_state("def f(): return 1"), InputState::incomplete);
  EXPECT_EQ(input_state("class C: pass"), InputState::incomplete);
  EXPECT_EQ(input_state("with m: pass"), InputState::incomplete);
  EXPECT_EQ(input_state("try: f()"), InputState::incomplete);
}

TEST(InputState, OneLineCompoundStatementGoesOnWithMoreLines) {
  EXPECT_EQ(input_state("if x: y\nelse: z"), InputState::incomplete);
  EXPECT_EQ(input_state("if x: y\nelse: z\n"), InputState::complete);
}

TEST(InputState, DecoratorWaitsForItsDefinition) {
  EXPECT_EQ(input_state("@jax.jit"), InputState::incomplete);
  EXPECT_EQ(input_state("@jax.jit\ndef f(x):"), InputState::incomplete);
  EXPECT_EQ(input_state("@jax.jit\ndef f(x): return x\n"), InputState::complete);
}

TEST(InputState, SimpleStatementsRunAtOnce) {
  // Names that only start like a keyword, keywords inside expressions.
  EXPECT_EQ(input_state("format_ = 1"), InputState::complete);
  EXPECT_EQ(input_state("iffy"), InputState::complete);
  EXPECT_EQ(input_state("y = a if b else c"), InputState::complete);
  EXPECT_EQ(input_state("total = [i for i in range(3)]"), InputState::complete);
  EXPECT_EQ(input_state("  # a comment\nx = 1"), InputState::complete);
  EXPECT_EQ(input_state("'for i in x: pass'"), InputState::complete);
}

}  // namespace
