// Key paths (jax.tree_util): the key entries SequenceKey, DictKey,
// GetAttrKey and FlattenedIndexKey, keystr, and the *_with_path forms of
// flatten, leaves and map (also in jax.tree). A leaf's path is the keys
// followed from the root: a list or tuple item's index, a dict's key, a
// named tuple's or registered dataclass's field name, and for another
// registered class the keys its flatten_with_keys function gives, else the
// child's position (FlattenedIndexKey), as JAX's pytree registry gives them.
#include "interp/library/tree_module.hpp"
#include "interp/python/builtin_types.hpp"
#include "interp/python/builtins.hpp"

namespace interp {

void install_tree_paths(ModuleObject& tree, ModuleObject& tree_util);

namespace {

enum class KeyKind { sequence, dict, attribute, flattened };

struct KeyKindInfo {
  const char* class_name;
  const char* field;
};

const KeyKindInfo& info(KeyKind kind) {
  static const KeyKindInfo infos[] = {
      {"SequenceKey", "idx"}, {"DictKey", "key"}, {"GetAttrKey", "name"}, {"FlattenedIndexKey", "key"}};
  return infos[static_cast<int>(kind)];
}

const TypeRef& key_type(KeyKind kind);

class KeyEntryObject : public Object {
 public:
  KeyEntryObject(KeyKind kind, Value value) : kind(kind), value(std::move(value)) {}
  const TypeRef& type() const override { return key_type(kind); }
  std::string repr(Evaluator& evaluator) const override {
    std::string shown = kind == KeyKind::attribute ? "'" + evaluator.str(value) + "'" : evaluator.repr(value);
    return std::string(info(kind).class_name) + "(" + info(kind).field + "=" + shown + ")";
  }
  std::string str(Evaluator& evaluator) const override {
    switch (kind) {
      case KeyKind::sequence: return "[" + evaluator.repr(value) + "]";
      case KeyKind::dict: return "[" + evaluator.repr(value) + "]";
      case KeyKind::attribute: return "." + evaluator.str(value);
      case KeyKind::flattened: return "[<flat index " + evaluator.repr(value) + ">]";
    }
    return "";
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == info(kind).field) return value;
    return Object::get_attribute(evaluator, name);
  }
  bool equals(const Value& other) const override {
    auto* o = other.as<KeyEntryObject>();
    return o && o->kind == kind && values_equal(o->value, value);
  }
  std::optional<std::size_t> hash() const override { return hash_value(value) * 31 + static_cast<std::size_t>(kind); }
  KeyKind kind;
  Value value;
};

Value key_entry(KeyKind kind, Value value) { return Value(std::make_shared<KeyEntryObject>(kind, std::move(value))); }

constexpr KeyKind key_kinds[] = {KeyKind::sequence, KeyKind::dict, KeyKind::attribute, KeyKind::flattened};

// The classes, made with their constructors once per process: interpreters
// on several threads share them (setting a constructor per interpreter was
// a data race).
const TypeRef& key_type(KeyKind kind) {
  static const std::vector<TypeRef> types = [] {
    std::vector<TypeRef> made;
    for (KeyKind each : key_kinds) {
      TypeRef type = make_type(info(each).class_name, types::object());
      std::string signature = std::string(info(each).class_name) + "(" + info(each).field + ")";
      type->set_constructor(constructor(signature, [each](Evaluator& ev, Arguments& a) {
        if (each == KeyKind::sequence || each == KeyKind::flattened) (void)ev.index_of(a[0]);
        return key_entry(each, each == KeyKind::attribute ? make_str(ev.str(a[0])) : a[0]);
      }));
      made.push_back(std::move(type));
    }
    return made;
  }();
  return types[static_cast<int>(kind)];
}

// Each leaf's key path and the leaf, in flattening order: `value` is the
// (sub)tree that `def` describes.
void paths_into(Evaluator& evaluator, const Value& value, const TreeDef& def, std::vector<Value>& path,
                std::vector<Value>& out) {
  if (def.kind == TreeDef::Kind::leaf) {
    out.push_back(make_tuple({make_tuple(path), value}));
    return;
  }
  std::vector<Value> keys, children;
  if (def.kind == TreeDef::Kind::dict) {
    for (const Value& key : def.keys) {
      keys.push_back(key_entry(KeyKind::dict, key));
      children.push_back(*value.as<DictObject>()->table.find(key));
    }
  } else if (def.kind == TreeDef::Kind::custom && def.node && def.node->how == PytreeNodeType::How::functions &&
             !def.node->flatten_with_keys.is_none()) {
    std::vector<Value> parts = evaluator.to_vector(evaluator.call(def.node->flatten_with_keys, {value}));
    if (parts.size() != 2)
      raise(exc::ValueError(), "The flatten_with_keys function of a pytree node must return a pair (children, aux_data)");
    for (const Value& pair : evaluator.to_vector(parts[0])) {
      std::vector<Value> key_and_child = evaluator.to_vector(pair);
      if (key_and_child.size() != 2) raise(exc::ValueError(), "flatten_with_keys must give (key, child) pairs");
      keys.push_back(key_and_child[0]);
      children.push_back(key_and_child[1]);
    }
  } else if (def.kind != TreeDef::Kind::none) {
    children = *node_children(evaluator, value);
    for (std::size_t i = 0; i < children.size(); ++i) {
      Value index = Value::integer(static_cast<std::int64_t>(i));
      if (def.kind == TreeDef::Kind::custom)
        keys.push_back(i < def.field_names.size() ? key_entry(KeyKind::attribute, make_str(def.field_names[i]))
                                                  : key_entry(KeyKind::flattened, index));
      else
        keys.push_back(key_entry(KeyKind::sequence, index));
    }
  }
  if (children.size() != def.children.size()) raise(exc::ValueError(), "pytree node changed its number of children");
  for (std::size_t i = 0; i < children.size(); ++i) {
    path.push_back(keys[i]);
    paths_into(evaluator, children[i], def.children[i], path, out);
    path.pop_back();
  }
}

// [(path, leaf), ...] of `tree` and its treedef.
std::vector<Value> flatten_with_path(Evaluator& evaluator, const Value& tree, const Value& is_leaf, TreeDef& def) {
  tree_flatten(evaluator, tree, def, is_leaf);
  std::vector<Value> path, out;
  paths_into(evaluator, tree, def, path, out);
  return out;
}

std::string keystr(Evaluator& evaluator, const Value& keys, bool simple, const std::string& separator) {
  std::string out;
  bool first = true;
  for (const Value& key : evaluator.to_vector(keys)) {
    if (!first) out += separator;
    first = false;
    auto* entry = key.as<KeyEntryObject>();
    out += simple && entry ? evaluator.str(entry->value) : evaluator.str(key);
  }
  return out;
}

}  // namespace

std::vector<std::string> TreeDef::leaf_paths(Evaluator& evaluator) const {
  std::vector<std::string> out;
  std::function<void(const TreeDef&, const std::string&)> walk = [&](const TreeDef& def, const std::string& path) {
    if (def.kind == Kind::leaf) {
      out.push_back(path);
      return;
    }
    for (std::size_t i = 0; i < def.children.size(); ++i) {
      Value index = Value::integer(static_cast<std::int64_t>(i));
      Value key = def.kind == Kind::dict ? key_entry(KeyKind::dict, def.keys[i]) : key_entry(KeyKind::sequence, index);
      if (def.kind == Kind::custom)
        key = i < def.field_names.size() ? key_entry(KeyKind::attribute, make_str(def.field_names[i]))
                                         : key_entry(KeyKind::flattened, index);
      walk(def.children[i], path + evaluator.str(key));
    }
  };
  walk(*this, "");
  return out;
}

void install_tree_paths(ModuleObject& tree, ModuleObject& tree_util) {
  for (KeyKind kind : key_kinds) tree_util.add(info(kind).class_name, Value(key_type(kind)));
  auto flatten = [](Evaluator& ev, Arguments& a) {
    TreeDef def;
    std::vector<Value> pairs = flatten_with_path(ev, a[0], a[1], def);
    return make_tuple({make_list(std::move(pairs)), treedef_value(std::move(def))});
  };
  auto leaves = [](Evaluator& ev, Arguments& a) {
    TreeDef def;
    return make_list(flatten_with_path(ev, a[0], a[1], def));
  };
  auto map = [](Evaluator& ev, Arguments& a) {
    TreeDef def;
    std::vector<Value> pairs = flatten_with_path(ev, a[1], a[3], def);
    std::vector<std::vector<Value>> others;
    for (const auto& other : ev.to_vector(a[2])) others.push_back(leaves_of_same_structure(ev, def, other, a[3]));
    std::vector<Value> mapped;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      std::vector<Value> arguments = ev.to_vector(pairs[i]);
      for (const auto& o : others) arguments.push_back(o[i]);
      mapped.push_back(ev.call(a[0], std::move(arguments)));
    }
    return tree_unflatten(ev, def, mapped);
  };
  tree.add_function("flatten_with_path(tree, is_leaf=None)", flatten);
  tree.add_function("leaves_with_path(tree, is_leaf=None)", leaves);
  tree.add_function("map_with_path(f, tree, *rest, is_leaf=None)", map);
  tree_util.add_function("tree_flatten_with_path(tree, is_leaf=None)", flatten);
  tree_util.add_function("tree_leaves_with_path(tree, is_leaf=None)", leaves);
  tree_util.add_function("tree_map_with_path(f, tree, *rest, is_leaf=None)", map);
  tree_util.add_function("keystr(keys, *, simple=False, separator='')", [](Evaluator& ev, Arguments& a) {
    return make_str(keystr(ev, a[0], ev.truthy(a[1]), ev.str(a[2])));
  });
}

}  // namespace interp
