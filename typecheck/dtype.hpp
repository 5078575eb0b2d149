// Array element types, their names, and JAX's type promotion.
//
// Contract: DType lists the dtypes shardlang supports (JAX with
// jax_enable_x64 off: no 64-bit types). result_type() is jnp.result_type with
// the default "standard" promotion; weak types are those of Python scalars.
#pragma once

#include <optional>
#include <span>
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

// A dtype with its weak flag: jax.typeof(2.0) is float32 weak ("~float32[]").
// A weak bool does not exist (JAX drops the flag on bool).
struct ElementType {
  DType dtype = DType::float32;
  bool weak_type = false;
  bool operator==(const ElementType&) const = default;
};

// jnp.result_type(*operands): the least upper bound on JAX's promotion
// lattice (jax/_src/dtypes.py, _type_promotion_lattice), canonicalized to
// 32 bits. Weak operands take part as Python's int/float, so
// i8 + weak int -> i8 and i8 + weak float -> weak f32. The result is weak
// when the bound is itself a weak type, or when every operand is weak.
// An empty span gives float32 (jnp's default float).
ElementType result_type(std::span<const ElementType> operands);
ElementType result_type(ElementType lhs, ElementType rhs);

// jnp.promote_types on two strong dtypes: bf16, f16 -> f32; i32, u32 -> i32.
DType promote_types(DType lhs, DType rhs);

}  // namespace typecheck
