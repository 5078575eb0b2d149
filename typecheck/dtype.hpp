// Array element types and their names.
#pragma once

#include <optional>
#include <string_view>

namespace typecheck {

// ORDER DType: the table in dtype.cpp lists the same, in this order.
enum class DType { bool_, int8, int32, uint32, float16, bfloat16, float32 };

std::string_view long_name(DType dtype);   // "float32", as numpy and jax.typeof print it
std::string_view short_name(DType dtype);  // "f32", as diagnostics print it
int byte_size(DType dtype);
bool is_floating(DType dtype);
bool is_integer(DType dtype);  // signed or unsigned; bool is neither

// Reads either spelling ("f32" or "float32"; also "bool_").
std::optional<DType> parse_dtype(std::string_view name);

}  // namespace typecheck
