// Composing and transposing pytrees (tree_module.hpp): PyTreeDef.compose
// and flatten_up_to, jax.tree.transpose / jax.tree_util.tree_transpose, and
// jax.tree_util.Partial, a functools.partial that is a pytree (its args and
// keywords are children, its function the auxiliary data), as JAX's.
#include "interp/library/host_modules.hpp"
#include "interp/library/tree_module.hpp"
#include "interp/python/builtins.hpp"

namespace interp {

TreeDef TreeDef::compose(const TreeDef& inner) const {
  if (kind == Kind::leaf) return inner;
  TreeDef out = *this;
  for (auto& child : out.children) child = child.compose(inner);
  return out;
}

namespace {

// jaxlib's flatten-up-to error for `object` where `def` has a node.
[[noreturn]] void mismatch(const std::string& text) { raise(exc::ValueError(), text); }

// The structure of `object`'s top node, its children leaves.
TreeDef one_level(Evaluator& evaluator, const Value& object) {
  TreeDef level;
  tree_flatten(evaluator, object, level, Value(native("is_leaf(x)", [&object](Evaluator&, Arguments& a) {
    return Value::boolean(!a[0].is_same(object));
  })));
  return level;
}

void flatten_up_to_into(Evaluator& evaluator, const TreeDef& def, const Value& object, std::vector<Value>& out) {
  auto repr = [&] { return evaluator.repr(object); };
  auto arity = [&](std::size_t got, const char* what, const char* noun) {
    if (got != def.children.size())
      mismatch(std::string(what) + " arity mismatch: " + std::to_string(got) + " != " + std::to_string(def.children.size()) +
               "; " + noun + ": " + repr() + ".");
  };
  std::vector<Value> children;
  switch (def.kind) {
    case TreeDef::Kind::leaf:
      out.push_back(object);
      return;
    case TreeDef::Kind::none:
      if (!object.is_none())
        mismatch("Expected None, got " + repr() + ".\n\nIn previous releases of JAX, flatten-up-to used to consider None "
                 "to be a tree-prefix of non-None values. To obtain the previous behavior, you can usually write:\n"
                 "  jax.tree.map(lambda x, y: None if x is None else f(x, y), a, b, is_leaf=lambda x: x is None)");
      return;
    case TreeDef::Kind::tuple:
      if (!object.as<TupleObject>() || is_named_tuple(object)) mismatch("Expected tuple, got " + repr() + ".");
      children = object.as<TupleObject>()->items;
      arity(children.size(), "Tuple", "tuple");
      break;
    case TreeDef::Kind::list:
      if (!object.as<ListObject>()) mismatch("Expected list, got " + repr() + ".");
      children = object.as<ListObject>()->items;
      arity(children.size(), "List", "list");
      break;
    case TreeDef::Kind::dict: {
      if (!object.as<DictObject>()) mismatch("Expected dict, got " + repr() + ".");
      TreeDef level = one_level(evaluator, object);
      bool same = level.keys.size() == def.keys.size();
      for (std::size_t i = 0; same && i < def.keys.size(); ++i) same = values_equal(level.keys[i], def.keys[i]);
      if (!same)
        mismatch("Dict key mismatch; expected keys: " + evaluator.repr(make_list(def.keys)) +
                 "; present keys: " + evaluator.repr(make_list(level.keys)) + ".");
      children = *node_children(evaluator, object);
      break;
    }
    case TreeDef::Kind::custom: {
      TreeDef level = one_level(evaluator, object);
      if (!def.node) {
        if (!is_named_tuple(object)) mismatch("Expected named tuple, got " + repr() + ".");
        arity(level.children.size(), "Named tuple", "tuple");
        if (!level.node_class.is_same(def.node_class))
          mismatch("Named tuple type mismatch: expected type: " + evaluator.repr(def.node_class) + ", tuple: " + repr() + ".");
      } else {
        if (level.kind != TreeDef::Kind::custom || level.node != def.node)
          mismatch("Custom node type mismatch: expected type: " + evaluator.repr(def.node_class) + ", value: " + repr() + ".");
        TreeDef same_aux = level;
        same_aux.aux = def.aux;
        if (!(same_aux == level))
          mismatch("Mismatch custom node data: " + evaluator.repr(def.aux) + " != " + evaluator.repr(level.aux) +
                   "; value: " + repr() + ".");
        if (level.children.size() != def.children.size())
          mismatch("Custom type arity mismatch: " + std::to_string(level.children.size()) + " != " +
                   std::to_string(def.children.size()) + "; value: " + repr() + ".");
      }
      children = *node_children(evaluator, object);
      break;
    }
  }
  for (std::size_t i = 0; i < def.children.size(); ++i) flatten_up_to_into(evaluator, def.children[i], children[i], out);
}

// jax.tree.transpose(outer_treedef, inner_treedef, pytree_to_transpose).
Value tree_transpose(Evaluator& evaluator, const TreeDef& outer, const Value& inner_argument, const Value& tree) {
  TreeDef def, inner;
  std::vector<Value> flat = tree_flatten(evaluator, tree, def);
  if (inner_argument.is_none()) {
    std::vector<Value> subtrees = outer.flatten_up_to(evaluator, tree);
    if (subtrees.empty()) raise(exc::IndexError(), "list index out of range");
    tree_flatten(evaluator, subtrees[0], inner);
  } else {
    inner = treedef_argument(inner_argument);
  }
  const std::size_t inner_size = inner.leaf_count(), outer_size = outer.leaf_count();
  if (flat.size() != inner_size * outer_size)
    raise(exc::TypeError(), "Mismatch\nPyTreeDef(" + def.str(evaluator) + ")\n != \nPyTreeDef(" +
                                outer.compose(inner).str(evaluator) + ")");
  std::vector<Value> subtrees;
  for (std::size_t i = 0; i < inner_size; ++i) {
    std::vector<Value> column;
    for (std::size_t o = 0; o < outer_size; ++o) column.push_back(flat[o * inner_size + i]);
    subtrees.push_back(tree_unflatten(evaluator, outer, column));
  }
  return tree_unflatten(evaluator, inner, subtrees);
}

// Made with its constructor once per process, as partial_type() is.
const TypeRef& partial_class() {
  static const TypeRef type = [] {
    TypeRef made = make_type("Partial", partial_type());
    made->set_constructor(partial_constructor(made));
    return made;
  }();
  return type;
}

}  // namespace

std::vector<Value> TreeDef::flatten_up_to(Evaluator& evaluator, const Value& tree) const {
  std::vector<Value> out;
  flatten_up_to_into(evaluator, *this, tree, out);
  return out;
}

void install_tree_transpose(Evaluator& evaluator, ModuleObject& tree, ModuleObject& tree_util) {
  auto transpose = [](Evaluator& ev, Arguments& a) { return tree_transpose(ev, treedef_argument(a[0]), a[1], a[2]); };
  tree.add_function("transpose(outer_treedef, inner_treedef, pytree_to_transpose)", transpose);
  tree_util.add_function("tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose)", transpose);

  // Partial: children (args, keywords), the function its auxiliary data;
  // Partial(f, ...) of a partial keeps that partial as its function (its
  // arguments are not merged into this one's pytree).
  tree_util.add("Partial", Value(partial_class()));
  PytreeNodeType node;
  node.cls = partial_class();
  node.flatten = Value(native("flatten(partial_)", [](Evaluator& ev, Arguments& a) {
    return make_tuple({make_tuple({ev.get_attribute(a[0], "args"), ev.get_attribute(a[0], "keywords")}),
                       ev.get_attribute(a[0], "func")});
  }));
  node.unflatten = Value(native("unflatten(func, xs)", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> xs = ev.to_vector(a[1]);
    CallArgs call{{a[0]}, {}};
    for (const Value& arg : ev.to_vector(xs.at(0))) call.positional.push_back(arg);
    for (const auto& entry : xs.at(1).as<DictObject>()->table.entries())
      if (entry.live) call.keywords.emplace_back(ev.str(entry.key), entry.value);
    return ev.call(Value(partial_class()), call);
  }));
  node.flatten_with_keys = Value();
  evaluator.pytree_node_types.push_back(std::make_shared<const PytreeNodeType>(std::move(node)));
}

}  // namespace interp
