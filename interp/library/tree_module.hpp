// Pytrees (language.md "pytrees"): nested tuples, lists and dicts whose
// other values are leaves; None is a node without children. jax.tree's
// members, and flatten/unflatten for the transformations (grad) that take
// pytrees of arrays.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "interp/python/evaluator.hpp"

namespace interp {

// The structure of a pytree without its leaves.
struct TreeDef {
  enum class Kind { leaf, none, tuple, list, dict };
  Kind kind = Kind::leaf;
  std::vector<Value> keys;  // dict keys, in flattening order (sorted, as JAX sorts them)
  std::vector<TreeDef> children;

  std::size_t leaf_count() const;
  // "PyTreeDef([(*, *), {'a': *}])" without the PyTreeDef( ).
  std::string str(Evaluator& evaluator) const;
  bool operator==(const TreeDef& other) const;
};

// The leaves of `tree`, depth first; `is_leaf` (a callable or None) stops
// the descent where it returns True.
std::vector<Value> tree_flatten(Evaluator& evaluator, const Value& tree, TreeDef& def, const Value& is_leaf = Value());
// The tree of `def` with `leaves` in order; ValueError on a count mismatch.
Value tree_unflatten(Evaluator& evaluator, const TreeDef& def, std::span<const Value> leaves);

// jax.tree and jax.tree_util.
void install_tree_module(Evaluator& evaluator);

}  // namespace interp
