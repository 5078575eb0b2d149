// The stack switch under generators (lang/coroutine.hpp): a body
// runs on its own stack, suspends and resumes with its registers and
// floating-point state intact, catches its own exceptions, and ends.
#include "lang/coroutine.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace {

struct Body {
  lang::Coroutine coroutine;
  std::vector<int> seen;
  int step = 0;
  bool finished = false;
  double accumulated = 0;
};

void counting(void* argument) {
  auto* body = static_cast<Body*>(argument);
  double x = 1.5;  // lives across suspensions (callee-saved registers or the body's stack)
  for (int i = 0; i < 3; ++i) {
    body->seen.push_back(body->step);
    x = x * 2 + std::sqrt(static_cast<double>(i));
    body->coroutine.suspend();
  }
  try {
    throw std::runtime_error("caught on the body's stack");
  } catch (const std::runtime_error&) {
    body->accumulated = x;
  }
  body->finished = true;
}

TEST(Coroutine, SuspendsResumesAndEnds) {
  std::vector<char> stack(256 * 1024);
  Body body;
  body.coroutine.start(stack.data(), stack.size(), &counting, &body);
  for (int i = 0; i < 3; ++i) {
    body.step = i * 10;
    body.coroutine.resume();
    EXPECT_FALSE(body.finished);
  }
  body.coroutine.resume();
  EXPECT_TRUE(body.finished);
  EXPECT_EQ(body.seen, (std::vector<int>{0, 10, 20}));
  EXPECT_DOUBLE_EQ(body.accumulated, ((1.5 * 2 + 0) * 2 + 1) * 2 + std::sqrt(2.0));
}

TEST(Coroutine, ManyAtOnce) {
  constexpr int count = 4;
  std::vector<std::vector<char>> stacks(count, std::vector<char>(128 * 1024));
  std::vector<Body> bodies(count);
  for (int i = 0; i < count; ++i) bodies[i].coroutine.start(stacks[i].data(), stacks[i].size(), &counting, &bodies[i]);
  for (int round = 0; round < 4; ++round)
    for (auto& body : bodies) {
      body.step = round;
      body.coroutine.resume();
    }
  for (const auto& body : bodies) {
    EXPECT_TRUE(body.finished);
    EXPECT_EQ(body.seen, (std::vector<int>{0, 1, 2}));
  }
}

}  // namespace
