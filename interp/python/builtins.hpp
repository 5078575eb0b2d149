// The built-in functions (print, len, ...) and the built-in modules, each
// installed into an Evaluator when it is made. The built-in types' methods
// are in builtin_types.hpp.
#pragma once

#include "interp/python/evaluator.hpp"

namespace interp {

// Fills evaluator.builtins (builtins.cpp).
void install_builtins(Evaluator& evaluator);
// Creates the built-in modules: jax and its submodules, numpy, functools,
// typing, textwrap, termcolor (modules.cpp).
void install_modules(Evaluator& evaluator);

// The body of the built-in len(obj), which compiled calls know (compiled.cpp).
Value builtin_len(Evaluator& evaluator, const Value* arguments);

// Python's int(x) and float(x) conversions, shared with the modules.
std::int64_t to_int(Evaluator& evaluator, const Value& value);
double to_float(Evaluator& evaluator, const Value& value);

}  // namespace interp
