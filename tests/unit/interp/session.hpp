// An interpreter whose print output is collected, for the tests of the
// public API (api_test, embedding_limits_test).
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "shardlang/shardlang.hpp"

struct Session {
  explicit Session(shardlang::Options options = {}) : interpreter(with_output(std::move(options), output)) {}

  static shardlang::Options with_output(shardlang::Options options, std::string& sink) {
    options.output = [&sink](std::string_view text) { sink += text; };
    return options;
  }

  // Runs `source` as test.shl; returns what it printed.
  std::string run(std::string_view source) {
    output.clear();
    last = interpreter.run(source, "test.shl");
    return output;
  }

  std::string output;
  shardlang::Interpreter interpreter;
  shardlang::Result last;
};
