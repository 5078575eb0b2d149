// Pytrees and jax.tree (tree_module.hpp).
#include "interp/library/tree_module.hpp"

#include <algorithm>

#include "interp/library/host_modules.hpp"
#include "interp/ops/array.hpp"
#include "interp/python/builtins.hpp"

namespace interp {

void install_tree_paths(ModuleObject& tree, ModuleObject& tree_util);  // tree_paths.cpp
void install_tree_transpose(Evaluator& evaluator, ModuleObject& tree, ModuleObject& tree_util);  // tree_compose.cpp

namespace {

// A tuple, list or dict as a pytree node; null for an instance of a
// subclass (a named tuple aside), which JAX takes as a leaf unless registered.
template <class T>
T* node_as(const Value& value) {
  if (type_of(value)->as_class() && !is_named_tuple(value)) return nullptr;
  // A dict node is a dict exactly: OrderedDict and defaultdict are registered nodes, Counter a leaf.
  if constexpr (std::is_same_v<T, DictObject>)
    if (type_of(value) != types::dict()) return nullptr;
  return value.as<T>();
}

// Deeper trees than this are refused (no unbounded recursion).
constexpr int max_tree_depth = 500;

bool same_key(const Value& a, const Value& b) {
  const std::string* sa = string_of(a);
  const std::string* sb = string_of(b);
  if (sa || sb) return sa && sb && *sa == *sb;
  if (a.is_integral() && b.is_integral()) return a.as_int() == b.as_int();
  return a.is_same(b);
}

// The registration of the tree's class, or null (JAX matches the exact type).
std::shared_ptr<const PytreeNodeType> registered_node(Evaluator& evaluator, const Value& tree) {
  if (evaluator.pytree_node_types.empty() || !tree.is_object()) return nullptr;
  const TypeRef& cls = type_of(tree);
  for (const auto& node : evaluator.pytree_node_types)
    if (node->cls == cls) return node;
  return nullptr;
}

std::vector<std::string> named_tuple_fields(Evaluator& evaluator, const Value& tree) {
  std::vector<std::string> names;
  for (const Value& name : evaluator.to_vector(evaluator.get_attribute(Value(type_of(tree)), "_fields")))
    names.push_back(evaluator.str(name));
  return names;
}

// A registered node's children and auxiliary data (and, for a dataclass, the children's names).
std::vector<Value> flatten_node(Evaluator& evaluator, const PytreeNodeType& node, const Value& tree, Value& aux,
                                std::vector<std::string>& names) {
  auto split = [&](const Value& pair) {
    std::vector<Value> parts = evaluator.to_vector(pair);
    if (parts.size() != 2)
      raise(exc::ValueError(), "The flatten function of a pytree node must return a pair (children, aux_data), not " +
                                   evaluator.repr(pair));
    aux = parts[1];
    return evaluator.to_vector(parts[0]);
  };
  switch (node.how) {
    case PytreeNodeType::How::functions:
      return split(evaluator.call(node.flatten, {tree}));
    case PytreeNodeType::How::methods:
      return split(evaluator.call(evaluator.get_attribute(tree, "tree_flatten"), std::vector<Value>{}));
    case PytreeNodeType::How::dataclass: {
      std::vector<Value> children, meta;
      for (const auto& name : node.data_fields) children.push_back(evaluator.get_attribute(tree, name));
      for (const auto& name : node.meta_fields) meta.push_back(evaluator.get_attribute(tree, name));
      aux = make_tuple(std::move(meta));
      names = node.data_fields;
      return children;
    }
    case PytreeNodeType::How::static_:
      aux = tree;
      return {};
  }
  return {};
}

Value unflatten_node(Evaluator& evaluator, const TreeDef& def, std::vector<Value> children) {
  if (!def.node) return named_tuple_of(std::static_pointer_cast<TypeObject>(def.node_class.object()), std::move(children));
  const PytreeNodeType& node = *def.node;
  switch (node.how) {
    case PytreeNodeType::How::functions:
      return evaluator.call(node.unflatten, {def.aux, make_tuple(std::move(children))});
    case PytreeNodeType::How::methods:
      return evaluator.call(evaluator.get_attribute(def.node_class, "tree_unflatten"), {def.aux, make_tuple(std::move(children))});
    case PytreeNodeType::How::dataclass: {
      CallArgs args;
      for (std::size_t i = 0; i < node.data_fields.size(); ++i) args.keywords.emplace_back(node.data_fields[i], children.at(i));
      std::vector<Value> meta = evaluator.to_vector(def.aux);
      for (std::size_t i = 0; i < node.meta_fields.size(); ++i) args.keywords.emplace_back(node.meta_fields[i], meta.at(i));
      return evaluator.call(def.node_class, args);
    }
    case PytreeNodeType::How::static_:
      return def.aux;
  }
  return Value();
}

// JAX orders a dict's children by sorted key (with `<`); keys that do not
// compare raise its ValueError.
void sort_dict_entries(Evaluator& evaluator, std::vector<std::pair<Value, Value>>& entries) {
  bool all_strings = std::all_of(entries.begin(), entries.end(), [](const auto& e) { return string_of(e.first); });
  if (all_strings) {  // the common case, without calls into the evaluator
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return *string_of(a.first) < *string_of(b.first); });
    return;
  }
  try {
    std::stable_sort(entries.begin(), entries.end(), [&](const auto& a, const auto& b) {
      return evaluator.compare_bool(lang::ast::CompareOperator::lt, a.first, b.first);
    });
  } catch (PyError&) {
    raise(exc::ValueError(), "Comparator raised exception while sorting pytree dictionary keys.");
  }
}

void flatten_into(Evaluator& evaluator, const Value& tree, TreeDef& def, const Value& is_leaf, int depth,
                  std::vector<Value>& leaves) {
  if (depth > max_tree_depth) raise(exc::RecursionError(), "pytree nested too deeply");
  // Without is_leaf, an array is a leaf at once (no node type is registered
  // for it): most of a model's leaves are arrays.
  const bool leaf = is_leaf.is_none() ? tree.is_object() && is_exactly<ArrayObject>(*tree.object())
                                      : evaluator.truthy(evaluator.call(is_leaf, std::vector<Value>{tree}));
  if (leaf) {
    def.kind = TreeDef::Kind::leaf;
    leaves.push_back(tree);
    return;
  }
  auto children = [&](const std::vector<Value>& items) {
    // Room first: one allocation, not one per growth moving the subtrees so far.
    def.children.reserve(def.children.size() + items.size());
    for (const auto& item : items) {
      def.children.emplace_back();
      flatten_into(evaluator, item, def.children.back(), is_leaf, depth + 1, leaves);
    }
  };
  if (tree.is_none()) {
    def.kind = TreeDef::Kind::none;
  } else if (is_named_tuple(tree)) {
    def.kind = TreeDef::Kind::custom;
    def.node_class = Value(type_of(tree));
    def.field_names = named_tuple_fields(evaluator, tree);
    children(tree.as<TupleObject>()->items);
  } else if (auto* tuple = node_as<TupleObject>(tree)) {
    def.kind = TreeDef::Kind::tuple;
    children(tuple->items);
  } else if (auto* list = node_as<ListObject>(tree)) {
    def.kind = TreeDef::Kind::list;
    children(list->items);
  } else if (auto* dict = node_as<DictObject>(tree)) {
    def.kind = TreeDef::Kind::dict;
    std::vector<std::pair<Value, Value>> entries;
    for (const auto& e : dict->table.entries())
      if (e.live) entries.emplace_back(e.key, e.value);
    sort_dict_entries(evaluator, entries);
    std::vector<Value> values;
    for (auto& [key, value] : entries) {
      def.keys.push_back(key);
      values.push_back(value);
    }
    children(values);
  } else if (auto node = registered_node(evaluator, tree)) {
    def.kind = TreeDef::Kind::custom;
    def.node_class = Value(node->cls);
    def.node = node;
    children(flatten_node(evaluator, *node, tree, def.aux, def.field_names));
  } else {
    def.kind = TreeDef::Kind::leaf;
    leaves.push_back(tree);
  }
}

Value unflatten_from(Evaluator& evaluator, const TreeDef& def, std::span<const Value> leaves, std::size_t& next) {
  switch (def.kind) {
    case TreeDef::Kind::leaf:
      return leaves[next++];
    case TreeDef::Kind::none:
      return Value();
    case TreeDef::Kind::tuple:
    case TreeDef::Kind::list: {
      std::vector<Value> items;
      for (const auto& child : def.children) items.push_back(unflatten_from(evaluator, child, leaves, next));
      return def.kind == TreeDef::Kind::tuple ? make_tuple(std::move(items)) : make_list(std::move(items));
    }
    case TreeDef::Kind::dict: {
      auto dict = make_dict();
      for (std::size_t i = 0; i < def.children.size(); ++i)
        dict->table.insert(def.keys[i], unflatten_from(evaluator, def.children[i], leaves, next));
      return Value(dict);
    }
    case TreeDef::Kind::custom: {
      std::vector<Value> items;
      for (const auto& child : def.children) items.push_back(unflatten_from(evaluator, child, leaves, next));
      return unflatten_node(evaluator, def, std::move(items));
    }
  }
  return Value();
}

class TreeDefObject : public Object {
 public:
  explicit TreeDefObject(TreeDef def) : def(std::move(def)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("PyTreeDef");
    return type;
  }
  std::string repr(Evaluator& evaluator) const override { return "PyTreeDef(" + def.str(evaluator) + ")"; }
  std::optional<Value> get_attribute(Evaluator&, const std::string& name) override {
    if (name == "num_leaves") return Value::integer(static_cast<std::int64_t>(def.leaf_count()));
    if (name == "num_nodes") return Value::integer(static_cast<std::int64_t>(node_count(def)));
    if (name == "compose")
      return Value(native("compose(inner_treedef, /)", [outer = def](Evaluator&, Arguments& a) {
        return treedef_value(outer.compose(treedef_argument(a[0])));
      }));
    if (name == "flatten_up_to")
      return Value(native("flatten_up_to(xs, /)", [outer = def](Evaluator& ev, Arguments& a) {
        return make_list(outer.flatten_up_to(ev, a[0]));
      }));
    return std::nullopt;
  }
  bool equals(const Value& other) const override {
    auto* o = other.as<TreeDefObject>();
    return o && o->def == def;
  }
  std::optional<std::size_t> hash() const override { return def.hash(); }
  TreeDef def;

 private:
  static std::size_t node_count(const TreeDef& d) {
    std::size_t n = 1;
    for (const auto& c : d.children) n += node_count(c);
    return n;
  }
};

}  // namespace

const TreeDef& treedef_argument(const Value& value) {
  if (auto* t = value.as<TreeDefObject>()) return t->def;
  raise(exc::TypeError(), "expected a PyTreeDef");
}

std::size_t TreeDef::leaf_count() const {
  if (kind == Kind::leaf) return 1;
  std::size_t n = 0;
  for (const auto& c : children) n += c.leaf_count();
  return n;
}

std::string TreeDef::str(Evaluator& evaluator) const {
  auto joined = [&](const char* open, const char* close, bool one_comma) {
    std::string out = open;
    for (std::size_t i = 0; i < children.size(); ++i) {
      if (i) out += ", ";
      if (kind == Kind::dict) out += evaluator.repr(keys[i]) + ": ";
      out += children[i].str(evaluator);
    }
    if (one_comma && children.size() == 1) out += ",";
    return out + close;
  };
  switch (kind) {
    case Kind::leaf: return "*";
    case Kind::none: return "None";
    case Kind::tuple: return joined("(", ")", true);
    case Kind::list: return joined("[", "]", false);
    case Kind::dict: return joined("{", "}", false);
    case Kind::custom: {
      std::string name = node_class.as<TypeObject>()->name();
      std::string head = node ? name + "[" + evaluator.repr(aux) + "]" : "namedtuple[" + name + "]";
      return "CustomNode(" + head + ", " + joined("[", "]", false) + ")";
    }
  }
  return "*";
}

bool TreeDef::operator==(const TreeDef& other) const {
  if (kind != other.kind || children.size() != other.children.size() || keys.size() != other.keys.size()) return false;
  if (kind == Kind::custom) {
    if (!node_class.is_same(other.node_class)) return false;
    if (!aux.is_same(other.aux) && !values_equal(aux, other.aux)) return false;
  }
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (!same_key(keys[i], other.keys[i])) return false;
  for (std::size_t i = 0; i < children.size(); ++i)
    if (!(children[i] == other.children[i])) return false;
  return true;
}

std::size_t TreeDef::hash() const {
  std::size_t h = static_cast<std::size_t>(kind) * 0x9e3779b97f4a7c15ULL + children.size();
  for (const auto& key : keys) h = h * 31 + (string_of(key) ? std::hash<std::string>{}(*string_of(key)) : hash_value(key));
  for (const auto& child : children) h = h * 1000003 + child.hash();
  if (kind == Kind::custom) {
    h = h * 31 + std::hash<const void*>{}(node_class.object().get());
    try {
      h = h * 31 + hash_value(aux);
    } catch (PyError&) {  // unhashable auxiliary data: equality alone tells treedefs apart
    }
  }
  return h;
}

std::vector<Value> tree_flatten(Evaluator& evaluator, const Value& tree, TreeDef& def, const Value& is_leaf) {
  std::vector<Value> leaves;
  def = TreeDef{};
  flatten_into(evaluator, tree, def, is_leaf, 0, leaves);
  return leaves;
}

std::vector<Value> leaves_of_same_structure(Evaluator& evaluator, const TreeDef& def, const Value& tree, const Value& is_leaf) {
  TreeDef other;
  std::vector<Value> leaves = tree_flatten(evaluator, tree, other, is_leaf);
  if (!(other == def))
    raise(exc::ValueError(), "Custom node type mismatch; expected type: " + def.str(evaluator) + "; value: " + other.str(evaluator) + ".");
  return leaves;
}

Value treedef_value(TreeDef def) { return Value(std::make_shared<TreeDefObject>(std::move(def))); }

Value tree_unflatten(Evaluator& evaluator, const TreeDef& def, std::span<const Value> leaves) {
  if (leaves.size() != def.leaf_count())
    raise(exc::ValueError(), "Too " + std::string(leaves.size() < def.leaf_count() ? "few" : "many") +
                                 " leaves for PyTreeDef; expected " + std::to_string(def.leaf_count()) + ", got " +
                                 std::to_string(leaves.size()) + ".");
  std::size_t next = 0;
  return unflatten_from(evaluator, def, leaves, next);
}

Value tree_map(Evaluator& evaluator, const Value& tree, const std::function<Value(const Value&)>& f) {
  TreeDef def;
  std::vector<Value> leaves = tree_flatten(evaluator, tree, def);
  for (auto& leaf : leaves) leaf = f(leaf);
  return tree_unflatten(evaluator, def, leaves);
}

std::optional<TreeDef> tree_zip(Evaluator& evaluator, std::span<const Value> trees,
                                std::vector<std::vector<Value>>& columns) {
  TreeDef first;
  columns.clear();
  for (std::size_t t = 0; t < trees.size(); ++t) {
    TreeDef def;
    std::vector<Value> leaves = tree_flatten(evaluator, trees[t], def);
    if (t == 0) {
      first = std::move(def);
      columns.resize(leaves.size());
    } else if (!(def == first)) {
      return std::nullopt;
    }
    for (std::size_t k = 0; k < leaves.size(); ++k) columns[k].push_back(std::move(leaves[k]));
  }
  return first;
}

std::optional<std::vector<Value>> node_children(Evaluator& evaluator, const Value& tree) {
  if (tree.is_none()) return std::nullopt;
  if (auto* sequence = node_as<SequenceObject>(tree)) return sequence->items;
  if (node_as<DictObject>(tree) || registered_node(evaluator, tree)) {
    TreeDef def;
    std::vector<Value> leaves;
    flatten_into(evaluator, tree, def, Value(), 0, leaves);  // for the order of a dict's keys
    if (auto* dict = node_as<DictObject>(tree)) {
      std::vector<Value> values;
      for (const auto& key : def.keys) values.push_back(*dict->table.find(key));
      return values;
    }
    Value aux;
    std::vector<std::string> names;
    return flatten_node(evaluator, *def.node, tree, aux, names);
  }
  return std::nullopt;
}

namespace {

bool is_container(Evaluator& evaluator, const Value& value) {
  return node_as<TupleObject>(value) || node_as<ListObject>(value) || node_as<DictObject>(value) || registered_node(evaluator, value);
}

// A dict's keys and values in flattening (sorted) order.
std::pair<std::vector<Value>, std::vector<Value>> dict_children(Evaluator& evaluator, const Value& dict) {
  TreeDef def;
  std::vector<Value> leaves;
  flatten_into(evaluator, dict, def, Value(), 0, leaves);  // for the keys in order
  std::vector<Value> ordered;
  for (const auto& key : def.keys) ordered.push_back(*dict.as<DictObject>()->table.find(key));
  return {def.keys, ordered};
}

struct PrefixWalk {
  Evaluator& evaluator;
  const std::string& name;
  std::vector<Value> out;
  std::vector<std::string> errors;

  void leaves_of(const Value& full, const Value& value) {
    TreeDef def;
    std::size_t count = tree_flatten(evaluator, full, def).size();
    out.insert(out.end(), count, value);
  }
  std::string type_repr(const Value& value) { return evaluator.repr(Value(type_of(value))); }

  void walk(const Value& prefix, const Value& full, const std::string& path, int depth) {
    if (depth > max_tree_depth) raise(exc::RecursionError(), "pytree nested too deeply");
    if (!is_container(evaluator, prefix)) return leaves_of(full, prefix);
    if (type_of(prefix) != type_of(full)) {
      errors.push_back("pytree structure error: different types at key path\n    " + name + path +
                       "\nAt that key path, the prefix pytree " + name + " has a subtree of type\n    " +
                       type_repr(prefix) + "\nbut at the same key path the full pytree has a subtree of different type\n    " +
                       type_repr(full) + ".");
      return leaves_of(full, Value());
    }
    if (node_as<DictObject>(prefix)) {
      auto [prefix_keys, prefix_values] = dict_children(evaluator, prefix);
      auto [full_keys, full_values] = dict_children(evaluator, full);
      bool same = prefix_keys.size() == full_keys.size();
      for (std::size_t i = 0; same && i < prefix_keys.size(); ++i) same = evaluator.repr(prefix_keys[i]) == evaluator.repr(full_keys[i]);
      if (!same) {
        auto keys = [&](const std::vector<Value>& ks) {
          std::string joined;
          for (std::size_t i = 0; i < ks.size(); ++i) joined += (i ? " " : "") + evaluator.repr(ks[i]);
          return joined;
        };
        errors.push_back("pytree structure error: different numbers of pytree children at key path\n    " + name + path +
                         "\nAt that key path, the prefix pytree " + name + " has a subtree of type\n    <class 'dict'>\nwith " +
                         std::to_string(prefix_keys.size()) + " child keys\n    " + keys(prefix_keys) +
                         "\nbut at the same key path the full pytree has a subtree of the same type but with " +
                         std::to_string(full_keys.size()) + " child keys\n    " + keys(full_keys));
        return leaves_of(full, Value());
      }
      for (std::size_t i = 0; i < prefix_values.size(); ++i)
        walk(prefix_values[i], full_values[i], path + "[" + evaluator.repr(prefix_keys[i]) + "]", depth + 1);
      return;
    }
    const std::vector<Value> prefix_items = *node_children(evaluator, prefix);
    const std::vector<Value> full_items = *node_children(evaluator, full);
    if (prefix_items.size() != full_items.size()) {
      std::string type = prefix.as<TupleObject>() ? "tuple" : prefix.as<ListObject>() ? "list" : type_of(prefix)->name();
      errors.push_back("pytree structure error: different lengths of " + type + " at key path\n    " + name + path +
                       "\nAt that key path, the prefix pytree " + name + " has a subtree of type " + type + " of length " +
                       std::to_string(prefix_items.size()) + ", but the full pytree has a subtree of the same type but of length " +
                       std::to_string(full_items.size()) + ".");
      return leaves_of(full, Value());
    }
    for (std::size_t i = 0; i < prefix_items.size(); ++i)
      walk(prefix_items[i], full_items[i], path + "[" + std::to_string(i) + "]", depth + 1);
  }
};

}  // namespace

std::vector<Value> broadcast_prefix(Evaluator& evaluator, const Value& prefix, const Value& full, const std::string& name) {
  PrefixWalk walk{evaluator, name, {}, {}};
  walk.walk(prefix, full, "", 0);
  if (walk.errors.empty()) return std::move(walk.out);
  std::string details;
  for (const auto& error : walk.errors) details += "\n  " + error;
  raise(exc::ValueError(), name + " specification must be a tree prefix of the corresponding value; \n  Mismatch details (" +
                               std::to_string(walk.errors.size()) + " found):" + details);
}

namespace {

void register_node(Evaluator& evaluator, const Value& cls, PytreeNodeType node) {
  auto* type = cls.as<TypeObject>();
  if (!type) raise(exc::TypeError(), "Expected a type to register as a pytree node, got " + evaluator.repr(cls));
  node.cls = std::static_pointer_cast<TypeObject>(cls.object());
  for (const auto& existing : evaluator.pytree_node_types)
    if (existing->cls == node.cls)
      raise(exc::ValueError(), "Duplicate custom PyTreeDef type registration for " + evaluator.repr(cls) + ".");
  evaluator.pytree_node_types.push_back(std::make_shared<const PytreeNodeType>(std::move(node)));
}

std::vector<std::string> names_of(Evaluator& evaluator, const Value& names) {
  std::vector<std::string> out;
  for (const Value& name : evaluator.to_vector(names)) out.push_back(evaluator.str(name));
  return out;
}

void install_pytree_registration(ModuleObject& tree_util) {
  tree_util.add_function("register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func=None)",
                         [](Evaluator& ev, Arguments& a) {
    PytreeNodeType node;
    node.flatten = a[1];
    node.unflatten = a[2];
    node.flatten_with_keys = a[3];
    register_node(ev, a[0], std::move(node));
    return Value::none();
  });
  tree_util.add_function("register_pytree_node_class(cls)", [](Evaluator& ev, Arguments& a) {
    PytreeNodeType node;
    node.how = PytreeNodeType::How::methods;
    register_node(ev, a[0], std::move(node));
    return a[0];
  });
  tree_util.add_function("register_static(cls)", [](Evaluator& ev, Arguments& a) {
    PytreeNodeType node;
    node.how = PytreeNodeType::How::static_;
    register_node(ev, a[0], std::move(node));
    return a[0];
  });
  tree_util.add_function("register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=?)",
                         [](Evaluator& ev, Arguments& a) {
    PytreeNodeType node;
    node.how = PytreeNodeType::How::dataclass;
    if (a[1].is_none() != a[2].is_none())
      raise(exc::TypeError(), "register_dataclass: data_fields and meta_fields must both be specified when either is specified.");
    if (!a[1].is_none()) {
      node.data_fields = names_of(ev, a[1]);
      node.meta_fields = names_of(ev, a[2]);
    } else {
      // A dataclass's fields: those whose metadata says static=True are meta fields.
      auto fields = ev.find_attribute(a[0], "__dataclass_fields__");
      if (!fields)
        raise(exc::TypeError(), "register_dataclass: data_fields and meta_fields are required when nodetype is not a dataclass. Got nodetype=" + ev.repr(a[0]));
      std::vector<std::string> dropped = a.has(3) ? names_of(ev, a[3]) : std::vector<std::string>{};
      for (const Value& field : ev.to_vector(ev.call(*ev.module("dataclasses")->find("fields"), {a[0]}))) {
        std::string name = ev.str(ev.get_attribute(field, "name"));
        if (std::find(dropped.begin(), dropped.end(), name) != dropped.end()) continue;
        Value metadata = ev.get_attribute(field, "metadata");
        Value is_static = ev.call(ev.get_attribute(metadata, "get"), {make_str("static"), Value::boolean(false)});
        (ev.truthy(is_static) ? node.meta_fields : node.data_fields).push_back(name);
      }
    }
    register_node(ev, a[0], std::move(node));
    return a[0];
  });
}

// The (key, value) pairs of a dict, in insertion order or sorted by key.
std::vector<std::pair<Value, Value>> dict_entries(Evaluator& evaluator, const Value& dict, bool sorted) {
  std::vector<std::pair<Value, Value>> entries;
  for (const auto& e : dict.as<DictObject>()->table.entries())
    if (e.live) entries.emplace_back(e.key, e.value);
  if (sorted) sort_dict_entries(evaluator, entries);
  return entries;
}

// What jax.tree_util registers for collections: an OrderedDict's children in
// insertion order (its keys the aux data), a defaultdict's by sorted key
// (aux: the default factory and the keys), each keyed by DictKey.
void register_collection_nodes(Evaluator& evaluator, ModuleObject& tree_util) {
  Value dict_key = *tree_util.find("DictKey");
  for (bool ordered : {true, false}) {
    const TypeRef& type = ordered ? ordered_dict_type() : defaultdict_type();
    auto flatten = [ordered, dict_key](Evaluator& ev, const Value& tree, bool with_keys) {
      std::vector<Value> children, keys;
      for (auto& [key, value] : dict_entries(ev, tree, !ordered)) {
        children.push_back(with_keys ? make_tuple({ev.call(dict_key, {key}), value}) : value);
        keys.push_back(key);
      }
      Value aux = ordered ? make_tuple(std::move(keys))
                          : make_tuple({ev.get_attribute(tree, "default_factory"), make_tuple(std::move(keys))});
      return make_tuple({make_tuple(std::move(children)), aux});
    };
    PytreeNodeType node;
    node.cls = type;
    node.flatten = Value(native("flatten(tree)", [flatten](Evaluator& ev, Arguments& a) { return flatten(ev, a[0], false); }));
    node.flatten_with_keys =
        Value(native("flatten_with_keys(tree)", [flatten](Evaluator& ev, Arguments& a) { return flatten(ev, a[0], true); }));
    node.unflatten = Value(native("unflatten(aux, children)", [ordered, type](Evaluator& ev, Arguments& a) {
      std::vector<Value> aux = ev.to_vector(a[0]), children = ev.to_vector(a[1]);
      std::vector<Value> keys = ordered ? aux : ev.to_vector(aux.at(1)), pairs;
      if (keys.size() != children.size()) raise(exc::ValueError(), "pytree node changed its number of children");
      for (std::size_t i = 0; i < keys.size(); ++i) pairs.push_back(make_tuple({keys[i], children[i]}));
      std::vector<Value> arguments{make_list(std::move(pairs))};
      if (!ordered) arguments.insert(arguments.begin(), aux.at(0));
      return ev.call(Value(type), std::move(arguments));
    }));
    evaluator.pytree_node_types.push_back(std::make_shared<const PytreeNodeType>(std::move(node)));
  }
}

}  // namespace

void install_tree_module(Evaluator& evaluator) {
  auto tree = evaluator.module("jax.tree");
  tree->add_function("leaves(tree, is_leaf=None)", [](Evaluator& ev, Arguments& a) {
    TreeDef def;
    return make_list(tree_flatten(ev, a[0], def, a[1]));
  });
  tree->add_function("structure(tree, is_leaf=None)", [](Evaluator& ev, Arguments& a) {
    TreeDef def;
    tree_flatten(ev, a[0], def, a[1]);
    return treedef_value(std::move(def));
  });
  tree->add_function("flatten(tree, is_leaf=None)", [](Evaluator& ev, Arguments& a) {
    TreeDef def;
    auto leaves = tree_flatten(ev, a[0], def, a[1]);
    return make_tuple({make_list(std::move(leaves)), treedef_value(std::move(def))});
  });
  tree->add_function("unflatten(treedef, leaves)", [](Evaluator& ev, Arguments& a) {
    auto leaves = ev.to_vector(a[1]);
    return tree_unflatten(ev, treedef_argument(a[0]), leaves);
  });
  tree->add_function("map(f, tree, *rest, is_leaf=None)", [](Evaluator& ev, Arguments& a) {
    TreeDef def;
    auto leaves = tree_flatten(ev, a[1], def, a[3]);
    std::vector<std::vector<Value>> others;
    for (const auto& other : ev.to_vector(a[2])) others.push_back(leaves_of_same_structure(ev, def, other, a[3]));
    std::vector<Value> mapped;
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      std::vector<Value> arguments{leaves[i]};
      for (const auto& o : others) arguments.push_back(o[i]);
      mapped.push_back(ev.call(a[0], std::move(arguments)));
    }
    return tree_unflatten(ev, def, mapped);
  });
  tree->add_function("reduce(function, tree, initializer=None, is_leaf=None)", [](Evaluator& ev, Arguments& a) {
    TreeDef def;
    auto leaves = tree_flatten(ev, a[1], def, a[3]);
    std::size_t start = 0;
    Value accumulated = a[2];
    if (accumulated.is_none()) {
      if (leaves.empty()) raise(exc::TypeError(), "reduce() of empty iterable with no initial value");
      accumulated = leaves[start++];
    }
    for (std::size_t i = start; i < leaves.size(); ++i) accumulated = ev.call(a[0], std::vector<Value>{accumulated, leaves[i]});
    return accumulated;
  });
  // all(tree): whether every leaf is true (an array leaf by its truth value).
  tree->add_function("all(tree, *, is_leaf=None)", [](Evaluator& ev, Arguments& a) {
    TreeDef def;
    for (const auto& leaf : tree_flatten(ev, a[0], def, a[1]))
      if (!ev.truthy(leaf)) return Value::boolean(false);
    return Value::boolean(true);
  });
  // jax.tree_util's older names.
  auto tree_util = evaluator.module("jax.tree_util");
  for (const char* name : {"leaves", "structure", "flatten", "unflatten", "map", "reduce", "all"})
    tree_util->add(std::string("tree_") + name, *tree->find(name));
  install_pytree_registration(*tree_util);
  install_tree_paths(*tree, *tree_util);
  register_collection_nodes(evaluator, *tree_util);
  install_tree_transpose(evaluator, *tree, *tree_util);
  evaluator.module("jax")->add("tree_util", Value(tree_util));
}

}  // namespace interp
