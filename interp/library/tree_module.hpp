// Pytrees (language.md "pytrees"): nested tuples, lists and dicts whose
// other values are leaves; None is a node without children. jax.tree's
// members, and the one walker of pytrees every transformation uses (jit,
// grad, shard_map, lax control flow, device_put, sharding constraints):
// flatten to leaves and a TreeDef, unflatten back, as JAX's tree_util does
// (a dict's children in sorted key order).
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "interp/python/evaluator.hpp"

namespace interp {

// A class registered with jax.tree_util as a pytree node: how its
// instances flatten to children and an auxiliary value, and back.
struct PytreeNodeType {
  enum class How {
    functions,   // register_pytree_node(cls, flatten, unflatten)
    methods,     // register_pytree_node_class: x.tree_flatten(), cls.tree_unflatten(aux, children)
    dataclass,   // register_dataclass: data fields are children, meta fields the aux tuple
    static_,     // register_static: no children, the object itself is the aux
  };
  TypeRef cls;
  How how = How::functions;
  Value flatten, unflatten;
  Value flatten_with_keys;  // register_pytree_node's flatten_with_keys_func, or None: the children's key paths
  std::vector<std::string> data_fields, meta_fields;
};

// The structure of a pytree without its leaves.
struct TreeDef {
  // custom: a named tuple (node == null) or an instance of a registered class.
  enum class Kind { leaf, none, tuple, list, dict, custom };
  Kind kind = Kind::leaf;
  std::vector<Value> keys;  // dict keys, in flattening order (sorted, as JAX sorts them)
  std::vector<TreeDef> children;
  // custom nodes: the class, its registration, the auxiliary data, and the
  // children's attribute names where they have them (named tuples, dataclasses).
  Value node_class;
  std::shared_ptr<const PytreeNodeType> node;
  Value aux;
  std::vector<std::string> field_names;

  std::size_t leaf_count() const;
  // "PyTreeDef([(*, *), {'a': *}])" without the PyTreeDef( ).
  std::string str(Evaluator& evaluator) const;
  bool operator==(const TreeDef& other) const;
  // Equal treedefs hash equal (the structure and the dict keys).
  std::size_t hash() const;
  // Each leaf's key path as JAX's keystr prints it ("[0]['w']"; "" for a
  // tree that is one leaf), in flattening order (tree_paths.cpp).
  std::vector<std::string> leaf_paths(Evaluator& evaluator) const;
  // PyTreeDef.compose: this structure with each leaf replaced by `inner`
  // (tree_compose.cpp).
  TreeDef compose(const TreeDef& inner) const;
  // PyTreeDef.flatten_up_to: the subtrees of `tree` at this structure's
  // leaves; jaxlib's ValueError where `tree` does not have its nodes.
  std::vector<Value> flatten_up_to(Evaluator& evaluator, const Value& tree) const;
};

// The leaves of `tree`, depth first; `is_leaf` (a callable or None) stops
// the descent where it returns True.
std::vector<Value> tree_flatten(Evaluator& evaluator, const Value& tree, TreeDef& def, const Value& is_leaf = Value());
// The leaves of `tree`, whose structure must be `def`'s (JAX's ValueError
// "Custom node type mismatch; ..." otherwise), as jax.tree.map takes its
// further trees.
std::vector<Value> leaves_of_same_structure(Evaluator& evaluator, const TreeDef& def, const Value& tree,
                                            const Value& is_leaf);
// `def` as a Python PyTreeDef object, and back (TypeError for another value).
Value treedef_value(TreeDef def);
const TreeDef& treedef_argument(const Value& value);
// The tree of `def` with `leaves` in order; ValueError on a count mismatch.
Value tree_unflatten(Evaluator& evaluator, const TreeDef& def, std::span<const Value> leaves);

// jax.tree.map of one tree: `f` of each leaf, in flattening order, in the
// same structure.
Value tree_map(Evaluator& evaluator, const Value& tree, const std::function<Value(const Value&)>& f);

// The leaves of trees of one structure, position by position: columns[k]
// holds leaf k of every tree, in the trees' order. Returns that structure,
// or nullopt when a tree's structure differs from the first's.
std::optional<TreeDef> tree_zip(Evaluator& evaluator, std::span<const Value> trees,
                                std::vector<std::vector<Value>>& columns);

// JAX's flatten_axes: `prefix` (a tree prefix of `full`, None a leaf) with
// each of its leaves repeated for every leaf of `full` below it, one value
// per leaf of `full` in flattening order. A prefix that does not match
// raises JAX's ValueError ("<name> specification must be a tree prefix of
// the corresponding value; ..." with its mismatch details).
std::vector<Value> broadcast_prefix(Evaluator& evaluator, const Value& prefix, const Value& full, const std::string& name);

// The children of a pytree node one level down (a tuple's items, a named
// tuple's fields, a registered class's flattened children; a dict's values
// in key order), or nullopt for a leaf or None.
std::optional<std::vector<Value>> node_children(Evaluator& evaluator, const Value& tree);

// jax.tree and jax.tree_util.
void install_tree_module(Evaluator& evaluator);

}  // namespace interp
