// The annotation parser: reads a printed ArrayType back.
//
// Contract: parse_array_type accepts exactly what ArrayType::str() and
// short_str() print (reference §1.2), with optional spaces between tokens
// ("f32[8@X, 4@Y]", as the JAX docs write types):
//   type  ::= "~"? dtype "[" (dim ("," dim)*)? "]" ("{" entry (", " entry)* "}")?
//   dim   ::= size ("@" axes)?
//   entry ::= ("V" | "U" | "R") ":" axes
//   axes  ::= name | "(" name ("," name)* ")"
// Axes are resolved against `mesh`: "@" names build the PartitionSpec, V
// names the varying Manual axes, U and R go to the spec when the axis is
// Explicit and to the manual sets when it is Manual. The result is built by
// make_array_type, so it obeys every invariant of a type (and reports JAX's
// errors when the text names an unknown axis or an indivisible dimension).
// Syntax errors are ValueErrors naming the column.
#pragma once

#include <string_view>

#include "typecheck/array_type.hpp"

namespace typecheck {

Checked<ArrayType> parse_array_type(std::string_view text, const MeshRef& mesh);

}  // namespace typecheck
