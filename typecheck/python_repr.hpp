// How Python prints the few values that appear inside JAX's messages:
// strings, tuples, sets and shapes. JAX's error texts are f-strings over
// these, so matching them word for word needs Python's exact spelling.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace typecheck {

// repr(str): 'X', or "it's" when the text holds a single quote.
std::string python_string_repr(std::string_view text);

// repr(tuple) from the reprs of its items: (), ('X',), ('X', None).
std::string python_tuple_repr(const std::vector<std::string>& item_reprs);

// repr(set) of strings, in the order given: {'X', 'Y'}; set() when empty.
std::string python_set_repr(const std::vector<std::string>& items);

// A shape as Python prints the tuple: (), (6,), (8, 2).
std::string python_shape_repr(std::span<const std::int64_t> shape);

}  // namespace typecheck
