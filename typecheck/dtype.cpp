#include "typecheck/dtype.hpp"

#include <array>

namespace typecheck {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view long_name;
  std::string_view short_name;
  int byte_size;
};

// ORDER DType: one row per enumerator, in enum order.
constexpr std::array<DTypeInfo, 7> dtype_table = {{
    {DType::bool_, "bool", "bool", 1},
    {DType::int8, "int8", "i8", 1},
    {DType::int32, "int32", "i32", 4},
    {DType::uint32, "uint32", "u32", 4},
    {DType::float16, "float16", "f16", 2},
    {DType::bfloat16, "bfloat16", "bf16", 2},
    {DType::float32, "float32", "f32", 4},
}};

const DTypeInfo& info(DType dtype) { return dtype_table[static_cast<int>(dtype)]; }

}  // namespace

std::string_view long_name(DType dtype) { return info(dtype).long_name; }
std::string_view short_name(DType dtype) { return info(dtype).short_name; }
int byte_size(DType dtype) { return info(dtype).byte_size; }

bool is_floating(DType dtype) {
  return dtype == DType::float16 || dtype == DType::bfloat16 || dtype == DType::float32;
}

bool is_integer(DType dtype) {
  return dtype == DType::int8 || dtype == DType::int32 || dtype == DType::uint32;
}

std::optional<DType> parse_dtype(std::string_view name) {
  if (name == "bool_") return DType::bool_;
  for (const DTypeInfo& row : dtype_table)
    if (name == row.long_name || name == row.short_name) return row.dtype;
  return std::nullopt;
}

}  // namespace typecheck
