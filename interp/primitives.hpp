// The table of primitives the eager evaluator runs (architecture.md "One
// table of primitives"). Each entry names the primitive, the typecheck rule
// that types it (by its qualified name in typecheck's registry) and its local
// kernel; apply_* plan the per-device computation from the operands' layouts:
// when every operand's shards already match what the output layout needs,
// the kernel runs per device; otherwise the operands move by collectives
// first (relayout), and a sharded contraction or reduction is all-reduced.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "devices/kernels.hpp"
#include "interp/array.hpp"

namespace interp {

enum class ElementwiseResult {
  promoted,      // the operands' promoted dtype
  boolean,       // comparisons and logical ops
  floating,      // true division, transcendental ops: integers become float32
};

struct ElementwisePrimitive {
  std::string_view name;       // jnp's name: "add"
  std::string_view rule_name;  // typecheck's registry: "jnp.add"
  int arity;                   // 1 or 2
  devices::UnaryOp unary;      // arity 1
  devices::BinaryOp binary;    // arity 2
  ElementwiseResult result;
};

// Sorted by name (find_elementwise relies on it).
std::span<const ElementwisePrimitive> elementwise_primitives();
const ElementwisePrimitive* find_elementwise(std::string_view name);

// jnp.<name>(*operands) with Python scalars as weak operands.
Value apply_elementwise(Evaluator& evaluator, const ElementwisePrimitive& primitive, const std::vector<Value>& operands);

// jnp.dot / matmul of 1-D or 2-D operands (batch dims for rank > 2 via
// dot_general); `out_sharding` is a P or NamedSharding value or None.
Value apply_dot(Evaluator& evaluator, const Value& lhs, const Value& rhs, const Value& out_sharding);

// jnp.sum/mean/max/min/prod/argmax/argmin(x, axis=, keepdims=).
Value apply_reduction(Evaluator& evaluator, std::string_view name, const Value& operand, const Value& axis,
                      bool keepdims);

// x.reshape / jnp.reshape and x.T / jnp.transpose.
Value apply_reshape(Evaluator& evaluator, const Value& operand, const std::vector<std::int64_t>& sizes);
Value apply_transpose(Evaluator& evaluator, const Value& operand, const std::vector<int>& permutation);

}  // namespace interp
