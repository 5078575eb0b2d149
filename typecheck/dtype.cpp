#include "typecheck/dtype.hpp"

#include <array>
#include <vector>

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

namespace typecheck {
namespace {

// The nodes of JAX's promotion lattice that shardlang's dtypes can reach.
// ORDER LatticeNode: lattice_edges below has one row per node, in this order.
enum class LatticeNode { bool_, weak_int, weak_float, int8, uint32, int32, float16, bfloat16, float32 };
constexpr int lattice_size = 9;

// jax/_src/dtypes.py, _type_promotion_lattice(strict=False, x64=False):
//   b1: [i_], i_: [u8, i8, ...], u8: [i16, u16], u16: [i32, u32],
//   u32: [i32, u64] (x64 off), i8: [i16], i16: [i32], i32: [i64], i64: [f_],
//   u64: [f_], f_: [bf16, f16, c_], bf16: [f32], f16: [f32], f32: [f64, c64].
// Restricted to the nodes above, whose least upper bounds never leave them,
// that is the order below (i_ reaches u32 through u8 and u16, i8 reaches i32
// through i16, i32 reaches f_ through i64). 64-bit and complex nodes are
// never a bound of two of our dtypes, so they are left out.
// Each row: the node's immediate successors.
constexpr std::array<std::array<bool, lattice_size>, lattice_size> lattice_edges = [] {
  std::array<std::array<bool, lattice_size>, lattice_size> edges{};
  auto edge = [&](LatticeNode from, LatticeNode to) {
    edges[static_cast<int>(from)][static_cast<int>(to)] = true;
  };
  using enum LatticeNode;
  edge(bool_, weak_int);
  edge(weak_int, int8);
  edge(weak_int, uint32);
  edge(int8, int32);
  edge(uint32, int32);
  edge(int32, weak_float);
  edge(weak_float, bfloat16);
  edge(weak_float, float16);
  edge(bfloat16, float32);
  edge(float16, float32);
  return edges;
}();

// upper_bounds[n][m]: n <= m on the lattice (reflexive, transitive closure).
constexpr std::array<std::array<bool, lattice_size>, lattice_size> upper_bounds = [] {
  auto bounds = lattice_edges;
  for (int n = 0; n < lattice_size; ++n) bounds[n][n] = true;
  for (int via = 0; via < lattice_size; ++via)
    for (int from = 0; from < lattice_size; ++from)
      for (int to = 0; to < lattice_size; ++to)
        if (bounds[from][via] && bounds[via][to]) bounds[from][to] = true;
  return bounds;
}();

// jax's _jax_type(dtype, weak_type): weak values enter as Python int/float.
LatticeNode lattice_node(ElementType type) {
  if (type.weak_type && is_integer(type.dtype)) return LatticeNode::weak_int;
  if (type.weak_type && is_floating(type.dtype)) return LatticeNode::weak_float;
  switch (type.dtype) {
    case DType::bool_: return LatticeNode::bool_;
    case DType::int8: return LatticeNode::int8;
    case DType::int32: return LatticeNode::int32;
    case DType::uint32: return LatticeNode::uint32;
    case DType::float16: return LatticeNode::float16;
    case DType::bfloat16: return LatticeNode::bfloat16;
    case DType::float32: return LatticeNode::float32;
  }
  return LatticeNode::float32;
}

// A lattice node as an array's dtype: Python int and float default to
// int32 and float32 with x64 off.
ElementType element_type(LatticeNode node) {
  switch (node) {
    case LatticeNode::bool_: return {DType::bool_, false};
    case LatticeNode::weak_int: return {DType::int32, true};
    case LatticeNode::weak_float: return {DType::float32, true};
    case LatticeNode::int8: return {DType::int8, false};
    case LatticeNode::uint32: return {DType::uint32, false};
    case LatticeNode::int32: return {DType::int32, false};
    case LatticeNode::float16: return {DType::float16, false};
    case LatticeNode::bfloat16: return {DType::bfloat16, false};
    case LatticeNode::float32: return {DType::float32, false};
  }
  return {DType::float32, false};
}

// _least_upper_bound: the common upper bound that is below every other one.
// The lattice is a lattice, so exactly one exists for any non-empty set.
LatticeNode least_upper_bound(std::span<const LatticeNode> nodes) {
  std::array<bool, lattice_size> common{};
  common.fill(true);
  for (LatticeNode node : nodes)
    for (int m = 0; m < lattice_size; ++m) common[m] = common[m] && upper_bounds[static_cast<int>(node)][m];
  for (int candidate = 0; candidate < lattice_size; ++candidate) {
    if (!common[candidate]) continue;
    bool below_all = true;
    for (int other = 0; other < lattice_size; ++other)
      if (common[other] && !upper_bounds[candidate][other]) below_all = false;
    if (below_all) return static_cast<LatticeNode>(candidate);
  }
  return LatticeNode::float32;  // the top: an upper bound of everything
}

}  // namespace

ElementType result_type(std::span<const ElementType> operands) {
  if (operands.empty()) return {DType::float32, false};
  // jax's lattice_result_type, case by case.
  if (operands.size() == 1) {
    ElementType only = operands[0];
    if (only.dtype == DType::bool_) only.weak_type = false;
    return only;
  }
  bool all_same_dtype = true;
  bool all_weak = true;
  for (const ElementType& operand : operands) {
    all_same_dtype = all_same_dtype && operand.dtype == operands[0].dtype;
    all_weak = all_weak && operand.weak_type;
  }
  if (all_same_dtype && !all_weak) return {operands[0].dtype, false};

  std::vector<LatticeNode> nodes;
  nodes.reserve(operands.size());
  for (const ElementType& operand : operands)
    // All weak: the bound of the strong counterparts, made weak afterwards.
    nodes.push_back(lattice_node({operand.dtype, operand.weak_type && !all_weak}));
  ElementType result = element_type(least_upper_bound(nodes));
  if (all_weak) result.weak_type = true;
  if (result.dtype == DType::bool_) result.weak_type = false;
  return result;
}

ElementType result_type(ElementType lhs, ElementType rhs) {
  // Every pair once, on first use: each eager elementwise operation asks.
  constexpr std::size_t dtypes = static_cast<std::size_t>(DType::float32) + 1;
  auto index = [](ElementType e) { return static_cast<std::size_t>(e.dtype) * 2 + (e.weak_type ? 1 : 0); };
  static const auto table = [] {
    std::array<ElementType, dtypes * 2 * dtypes * 2> pairs{};
    for (std::size_t a = 0; a < dtypes * 2; ++a)
      for (std::size_t b = 0; b < dtypes * 2; ++b) {
        const ElementType operands[] = {{static_cast<DType>(a / 2), a % 2 == 1}, {static_cast<DType>(b / 2), b % 2 == 1}};
        pairs[a * dtypes * 2 + b] = result_type(operands);
      }
    return pairs;
  }();
  return table[index(lhs) * dtypes * 2 + index(rhs)];
}

DType promote_types(DType lhs, DType rhs) { return result_type({lhs, false}, {rhs, false}).dtype; }

}  // namespace typecheck
