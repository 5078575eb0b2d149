// Python's text forms of values: float repr, string repr, the format-spec
// mini-language of format()/f-strings/str.format, str.format itself, and
// the text of a function's signature.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "interp/python/value.hpp"

namespace interp {

std::string float_repr(double value);          // 0.1, 1e-05, inf, nan, 3.0
std::string string_repr(std::string_view text);  // 'it''s' -> "it's", with escapes

// format(value, spec) for ints, bools, floats and strs; other values format
// as str(value) when spec is empty (TypeError otherwise).
std::string format_value(Evaluator& evaluator, const Value& value, std::string_view spec);

// str.format(*args, **kwargs): {} {0} {name} {name.attr} {0[key]} {!r} {:spec}.
std::string format_string(Evaluator& evaluator, std::string_view format, const CallArgs& args);

// printf-style `str % args` for %s %r %d %i %f %e %g %x %o %% with flags,
// width and precision.
std::string percent_format(Evaluator& evaluator, std::string_view format, const Value& args);

// A built-in's or a def's signature as Python writes it:
// "sorted(iterable, /, *, key=None, reverse=False)"; a parameter that may be
// left out without a default value shows as `name=<optional>`.
std::string signature_text(Evaluator& evaluator, const Signature& signature);

}  // namespace interp
