// Name resolution, done once per parsed module before it runs (Python's
// symtable): which names are local to each function, lambda and
// comprehension, which are captured by inner scopes (cells), which are free
// (taken from an enclosing function) and which are global or built-in. The
// evaluator then reaches locals by slot index instead of by name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lang/ast.hpp"
#include "lang/diagnostic.hpp"

namespace interp {

// Where a name lives: a function's slot, a captured cell, the module's
// globals, or (in a class body) the class namespace, read with the globals
// and builtins behind it.
struct NameRef {
  enum class Kind : std::uint8_t { fast, cell, global, class_body };
  Kind kind = Kind::global;
  std::uint32_t index = 0;  // into Frame::fast or Frame::cells
};

// A Name expression's resolution, read from the node (global until resolved).
inline NameRef name_ref(const lang::ast::Name& name) {
  if (name.resolved_kind == 0) return NameRef{};
  return NameRef{static_cast<NameRef::Kind>(name.resolved_kind - 1), name.resolved_index};
}

class Value;           // value.hpp
class TypeObject;      // value.hpp
class FunctionObject;  // evaluator.hpp
class CompiledBody;    // compiled.hpp

// Where a use of a global name (a Name resolved global or class_body; its
// resolved_index is the entry's position) last found its value: in the
// globals or the builtins whose versions (Namespace::version) it records,
// valid while both hold. `site` is the Name the entry belongs to.
struct GlobalSiteCache {
  const lang::ast::Name* site = nullptr;
  std::uint64_t globals_version = 0;
  std::uint64_t builtins_version = 0;
  const Value* value = nullptr;
};

// What an attribute site (obj.name read, stored, or called as a method; its
// Attribute's `site` is the entry's position) knows about `name` on the
// instances of the user class `cls`, valid while no class namespace changes
// (class_namespaces_version(), which also moves when a class is made, so a
// class at a freed one's address is never taken for it). `index` is where
// the instance's own attribute was last found in its __dict__ (a hint,
// checked on use). `site` is the Attribute the entry belongs to.
struct AttributeSiteCache {
  const lang::ast::Attribute* site = nullptr;
  const TypeObject* cls = nullptr;
  std::uint64_t version = 0;  // 0: nothing known
  std::uint32_t index = 0;
  bool own_wins = false;      // an own attribute is what a read gives (no property `name`)
  bool plain_store = false;   // a store goes in the __dict__ (no __setattr__, no property `name`)
  const Value* method = nullptr;  // the class's `def name` that a call finds (class_function), or null
};

// One function, lambda, comprehension or class-body scope.
struct ScopeInfo {
  std::string name;      // "f", "<lambda>", "<listcomp>"
  std::string qualname;  // "counter.<locals>.bump", used in TypeErrors
  std::vector<std::string> fast_names;  // slot -> name
  std::vector<std::string> cell_names;  // own captured locals first, then free variables
  std::size_t own_cells = 0;
  // For each free variable: its index in the enclosing scope's cells, where
  // the closure is created.
  std::vector<std::uint32_t> free_sources;
  // Where each parameter lands, in order: positional, *args, keyword-only, **kwargs.
  std::vector<NameRef> parameters;
  bool is_generator = false;  // a function whose body yields
  bool is_class = false;      // a class body: its names live in the class namespace
  // A def's body compiled once its names are resolved (compiled.hpp); null
  // for lambdas, comprehensions and class bodies.
  std::shared_ptr<const CompiledBody> compiled;
};

// The resolution of one parsed module. Sites are keyed by node address: a
// Name expression, a FunctionDef statement (its name), an import Alias, an
// ExceptHandler (its `as` name), a ClassDef statement (its name). Scopes are
// keyed by the FunctionDef or ClassDef statement, the Lambda expression or
// the comprehension expression.
class Resolution {
 public:
  // Diagnostics are Python's compile-time SyntaxErrors (nonlocal without a binding).
  static Resolution analyze(const lang::ast::Module& module, std::vector<lang::Diagnostic>& errors);

  const NameRef& name(const void* site) const;  // global when the site is unknown
  const ScopeInfo& scope(const void* node) const;

  std::unordered_map<const void*, NameRef> names;
  std::unordered_map<const void*, ScopeInfo> scopes;
  // The module names each top-level statement binds, keyed by the statement
  // (check mode goes on after a statement it cannot follow, with these unknown).
  std::unordered_map<const void*, std::vector<std::string>> module_bindings;
  // One entry per use of a global name, filled as the program runs.
  mutable std::vector<GlobalSiteCache> global_sites;
  // One entry per attribute expression, filled as the program runs.
  mutable std::vector<AttributeSiteCache> attribute_sites;
};

// A parsed module with its resolution; function values keep it alive.
struct Program {
  std::shared_ptr<lang::ast::Module> module;
  Resolution resolution;
};

}  // namespace interp
