// Sharding rules as factor mappings (style.md §7, Shardy's OpShardingRuleAttr),
// and the two rules built on them: n-ary elementwise ops with broadcasting
// and dot_general (reference §2.2, §2.3).
//
// Contract: a FactorRule names one factor per independent loop of the op and
// maps every operand and result dimension to a factor; matmul is
// ([i,k],[k,j]) -> ([i,j]) reduction={k}. propagate_factors derives each
// factor's sharding from the operands, or the first conflict. The op rules
// turn conflicts into JAX's errors (same class, same text) and return the
// output type: shape, the dtype the caller computed (result_type), sharding,
// and the union of the operands' varying manual axes (jax_auto_pcast).
// They do not check the context mesh (reference §2.0 step 1), which the
// evaluator owns; they do check that operands share a mesh.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "typecheck/array_type.hpp"

namespace typecheck {

// How the operands' shardings of one factor combine (reference §2.2, §2.3).
enum class FactorKind {
  pass_through,  // in the result; operands may differ where one is None or size 1
  batch,         // in every operand and the result; operands must agree exactly
  reduction,     // in operands only; sharded in two operands is ambiguous
};

struct FactorRule {
  std::vector<std::string> factor_names;  // "i", "j", "k", ...
  std::vector<FactorKind> factor_kinds;   // one per factor
  std::vector<std::vector<int>> operands;  // per operand, per dimension: a factor
  std::vector<int> result;                 // per result dimension: a factor

  // ([i,k],[k,j]) -> ([i,j]) reduction={k}; batch factors as batch={b}.
  std::string str() const;
};

// Factors a, b, ... named i, j, k, ... as Shardy prints them.
std::string factor_name(int index);

// The rule of an n-ary elementwise op whose non-scalar operands all have
// rank `rank` (jnp has already rank-promoted them): ([i,j],[i,j]) -> ([i,j]).
// Operands of rank 0 map no dimension: ([i,j],[]) -> ([i,j]).
FactorRule elementwise_factor_rule(std::span<const std::size_t> operand_ranks);

struct DotDimensionNumbers {
  std::vector<int> lhs_contracting;
  std::vector<int> rhs_contracting;
  std::vector<int> lhs_batch;
  std::vector<int> rhs_batch;
};

// The dimension numbers of a ⋅ b for 2-D operands (jnp.dot / matmul).
DotDimensionNumbers matmul_dimension_numbers();

// dot_general's rule. Factors in Shardy's order, which is also JAX's error
// precedence: batch, lhs free, rhs free, contracting. Checks that the
// dimension numbers are in range and used once (TypeError otherwise).
Checked<FactorRule> dot_general_factor_rule(std::size_t lhs_rank, std::size_t rhs_rank,
                                            const DotDimensionNumbers& dimension_numbers);

// The first factor whose operands' shardings cannot be combined.
struct FactorConflict {
  int factor = 0;
  FactorKind kind = FactorKind::pass_through;
};

// One entry per factor (reduction factors: None), or the first conflict in
// factor order. `operands` are the types the rule's operand lists describe.
std::variant<std::vector<SpecEntry>, FactorConflict> propagate_factors(const FactorRule& rule,
                                                                       std::span<const ArrayType> operands);

// broadcasting_sharding_rule for `primitive` (add, mul, ...): operands are
// the lax-level operands (same rank or scalars). `result` is the dtype the
// shape/dtype rule chose (comparisons give bool).
Checked<ArrayType> elementwise_rule(std::string_view primitive, std::span<const ArrayType> operands,
                                    ElementType result);

// The unreduced/reduced rule of an n-ary elementwise op (reference §2.13,
// lax.py's _add_ur_rule, _mul_ur_rule, _div_ur_rule, nary_ur_rule): the
// result's unreduced and reduced axes, or JAX's error. `primitive` is the lax
// or the jnp name (add, mul/multiply, div/divide/true_divide, ...). Rank-0
// operands with no axes of their own count as reduced when another operand
// is (insert_reduced_reshard).
struct UnreducedReduced {
  AxisSet unreduced;
  AxisSet reduced;
};
Checked<UnreducedReduced> nary_unreduced_rule(std::string_view primitive, std::span<const ArrayType* const> operands);

// The element type of a dot_general of operands promoted to `operands`
// with preferred_element_type `preferred` (lax._validate_preferred_element_type):
// none keeps `operands`; otherwise integers may widen to integers or become
// floats, floats may widen to floats (TypeError as JAX's otherwise).
Checked<ElementType> dot_result_element(ElementType operands, std::optional<DType> preferred);

// _dot_general_sharding_rule. `out_sharding`, already canonicalized against
// the result shape by the caller (make_sharding), is returned as given,
// after the unreduced checks of reference §2.13.
Checked<ArrayType> dot_general_rule(const ArrayType& lhs, const ArrayType& rhs,
                                    const DotDimensionNumbers& dimension_numbers, ElementType result,
                                    const std::optional<Sharding>& out_sharding = std::nullopt);

}  // namespace typecheck
