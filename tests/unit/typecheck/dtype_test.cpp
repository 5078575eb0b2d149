// JAX's dtype promotion (jnp.result_type with x64 off, standard promotion).
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "typecheck/dtype.hpp"

namespace typecheck {
namespace {

constexpr ElementType strong(DType dtype) { return {dtype, false}; }
constexpr ElementType weak(DType dtype) { return {dtype, true}; }
const ElementType weak_int = weak(DType::int32);
const ElementType weak_float = weak(DType::float32);

struct PromotionCase {
  ElementType lhs, rhs, expected;
};

std::string element_name(ElementType element) {
  return std::string(short_name(element.dtype)) + (element.weak_type ? "(weak)" : "");
}

// Names each case in gtest's output ("bf16 + f32(weak) -> bf16") instead of a byte dump.
void PrintTo(const PromotionCase& c, std::ostream* out) {
  *out << element_name(c.lhs) << " + " << element_name(c.rhs) << " -> " << element_name(c.expected);
}

class PromotionTable : public ::testing::TestWithParam<PromotionCase> {};

TEST_P(PromotionTable, MatchesJax) {
  const PromotionCase& c = GetParam();
  EXPECT_EQ(result_type(c.lhs, c.rhs), c.expected) << element_name(c.lhs) << " + " << element_name(c.rhs);
  // Promotion is symmetric.
  EXPECT_EQ(result_type(c.rhs, c.lhs), c.expected);
}

using enum DType;
INSTANTIATE_TEST_SUITE_P(
    Jax, PromotionTable,
    ::testing::Values(
        // Weak Python scalars keep the array's width.
        PromotionCase{strong(int8), weak_int, strong(int8)}, PromotionCase{strong(uint32), weak_int, strong(uint32)},
        PromotionCase{strong(bfloat16), weak_float, strong(bfloat16)},
        PromotionCase{strong(float16), weak_int, strong(float16)},
        // An integer array with a Python float is a weak float32.
        PromotionCase{strong(int8), weak_float, weak_float}, PromotionCase{strong(int32), weak_float, weak_float},
        PromotionCase{strong(uint32), weak_float, weak_float},
        // bool is the bottom; with a weak int it gives a weak int32.
        PromotionCase{strong(bool_), weak_int, weak_int}, PromotionCase{strong(bool_), weak_float, weak_float},
        PromotionCase{strong(bool_), strong(int8), strong(int8)},
        PromotionCase{strong(bool_), strong(float16), strong(float16)},
        // The two 16-bit floats meet only at float32.
        PromotionCase{strong(bfloat16), strong(float16), strong(float32)},
        // Any integer with a float array takes the float.
        PromotionCase{strong(int32), strong(float16), strong(float16)},
        PromotionCase{strong(uint32), strong(bfloat16), strong(bfloat16)},
        PromotionCase{strong(int32), strong(float32), strong(float32)},
        // Signed with unsigned: x64 off turns u32 x i32 -> i64 into i32.
        PromotionCase{strong(uint32), strong(int32), strong(int32)},
        PromotionCase{strong(uint32), strong(int8), strong(int32)},
        PromotionCase{strong(int8), strong(int32), strong(int32)},
        // Same dtype, one weak: the strong one wins.
        PromotionCase{strong(float32), weak_float, strong(float32)},
        PromotionCase{strong(int32), weak_int, strong(int32)},
        // All weak: the bound of the strong counterparts, made weak.
        PromotionCase{weak_int, weak_float, weak_float}, PromotionCase{weak_int, weak_int, weak_int}));

TEST(ResultType, OneOperandKeepsItsWeakness) {
  const ElementType only[] = {weak_float};
  EXPECT_EQ(result_type(only), weak_float);
}

TEST(ResultType, ManyOperands) {
  const ElementType operands[] = {strong(int8), weak_float, strong(bfloat16)};
  EXPECT_EQ(result_type(operands), strong(bfloat16));
  const ElementType three[] = {strong(bfloat16), strong(float16), strong(int8)};
  EXPECT_EQ(result_type(three), strong(float32));
}

TEST(ResultType, EmptyIsDefaultFloat) { EXPECT_EQ(result_type({}), strong(float32)); }

TEST(PromoteTypes, StrongDtypes) {
  EXPECT_EQ(promote_types(bfloat16, float16), float32);
  EXPECT_EQ(promote_types(int8, uint32), int32);
  EXPECT_EQ(promote_types(bool_, bool_), bool_);
}

TEST(DTypeNames, LongShortAndParse) {
  EXPECT_EQ(long_name(bfloat16), "bfloat16");
  EXPECT_EQ(short_name(bfloat16), "bf16");
  EXPECT_EQ(short_name(uint32), "u32");
  EXPECT_EQ(parse_dtype("f16"), float16);
  EXPECT_EQ(parse_dtype("int8"), int8);
  EXPECT_EQ(parse_dtype("bool"), bool_);
  EXPECT_EQ(parse_dtype("float64"), std::nullopt);
}

}  // namespace
}  // namespace typecheck
