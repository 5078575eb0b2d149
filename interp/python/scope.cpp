#include "interp/python/scope.hpp"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "interp/python/compiled.hpp"
#include "interp/python/stack.hpp"

namespace interp {

namespace ast = lang::ast;

namespace {

// A scope as first collected (pass 1), then resolved (pass 2) and given
// slots (pass 3).
struct ScopeData {
  const void* node = nullptr;
  const ast::Body* body = nullptr;  // a def's
  ScopeData* parent = nullptr;
  bool is_function = false;  // false for the module and class bodies
  bool is_class = false;
  bool is_generator = false;
  std::size_t yields = 0;  // its yield and yield from expressions
  std::string name, qualname;
  std::vector<std::string> parameters;
  std::set<std::string> assigned, globals, nonlocals;
  std::vector<std::pair<const void*, std::string>> sites;  // every binding or use, in order
  std::vector<std::pair<std::string, lang::Span>> nonlocal_spans;
  std::vector<std::unique_ptr<ScopeData>> children;

  std::set<std::string> locals;
  std::vector<std::string> cells;  // own captured locals
  std::vector<std::string> frees;  // taken from an enclosing scope

  bool is_local(const std::string& n) const { return locals.count(n) != 0; }
  void add_unique(std::vector<std::string>& list, const std::string& n) {
    if (std::find(list.begin(), list.end(), n) == list.end()) list.push_back(n);
  }
};

class Analyzer {
 public:
  explicit Analyzer(std::vector<lang::Diagnostic>& errors) : errors_(errors) {}

  // The Name expressions among the sites, whose nodes carry their resolution.
  std::unordered_map<const void*, const ast::Name*> name_nodes;
  std::vector<const ast::Attribute*> attribute_nodes;
  // The module names each top-level statement binds (Resolution::module_bindings).
  std::unordered_map<const void*, std::vector<std::string>> module_bindings;

  std::unique_ptr<ScopeData> collect(const ast::Module& module) {
    auto root = std::make_unique<ScopeData>();
    root->node = &module;
    root->name = "<module>";
    root_ = root.get();
    for (const auto& stmt : module.body) {
      recording_ = &module_bindings[stmt.get()];
      visit(*stmt, *root);
    }
    recording_ = nullptr;
    return root;
  }

  void resolve(ScopeData& scope) {
    if (scope.is_function) {
      for (const auto& p : scope.parameters) scope.locals.insert(p);
      for (const auto& n : scope.assigned) scope.locals.insert(n);
      for (const auto& n : scope.globals) scope.locals.erase(n);
      for (const auto& n : scope.nonlocals) scope.locals.erase(n);
      for (const auto& [n, span] : scope.nonlocal_spans) {
        if (find_definer(scope.parent, n) == nullptr)
          errors_.push_back(lang::Diagnostic::error(lang::code::syntax, span,
                                                    "SyntaxError: no binding for nonlocal '" + n + "' found"));
      }
      for (const auto& [site, n] : scope.sites) {
        if (scope.is_local(n) || scope.globals.count(n)) continue;
        ScopeData* definer = find_definer(scope.parent, n);
        if (definer == nullptr) continue;  // global or built-in
        for (ScopeData* s = &scope; s != definer; s = s->parent) s->add_unique(s->frees, n);
        definer->add_unique(definer->cells, n);
      }
    } else if (scope.is_class) {
      // A class body's own names live in the class namespace; the others
      // come from the enclosing functions (as free variables) or globals.
      for (const auto& [site, n] : scope.sites) {
        if (scope.assigned.count(n)) continue;
        ScopeData* definer = find_definer(scope.parent, n);
        if (definer == nullptr) continue;
        for (ScopeData* s = &scope; s != definer; s = s->parent) s->add_unique(s->frees, n);
        definer->add_unique(definer->cells, n);
      }
    } else {
      for (const auto& [n, span] : scope.nonlocal_spans)
        errors_.push_back(lang::Diagnostic::error(lang::code::syntax, span,
                                                  "SyntaxError: nonlocal declaration not allowed at module level"));
    }
    for (auto& child : scope.children) resolve(*child);
  }

  // For each free variable of `scope`: its index in the cells of the
  // enclosing function or class body, where the closure is created.
  static std::vector<std::uint32_t> free_sources(const ScopeData& scope) {
    std::vector<std::uint32_t> sources;
    if (scope.parent == nullptr || !(scope.parent->is_function || scope.parent->is_class)) return sources;
    std::vector<std::string> parent_cells = scope.parent->cells;
    for (const auto& n : scope.parent->frees) parent_cells.push_back(n);
    for (const auto& n : scope.frees) {
      auto at = std::find(parent_cells.begin(), parent_cells.end(), n);
      sources.push_back(static_cast<std::uint32_t>(at - parent_cells.begin()));
    }
    return sources;
  }

  void assign_slots(const ScopeData& scope, Resolution& out) {
    if (scope.is_class) {
      ScopeInfo info;
      info.name = scope.name;
      info.qualname = scope.qualname;
      info.is_class = true;
      info.cell_names = scope.frees;
      for (const auto& [site, n] : scope.sites) {
        auto cell = std::find(info.cell_names.begin(), info.cell_names.end(), n);
        out.names[site] = cell != info.cell_names.end() && !scope.assigned.count(n)
                              ? NameRef{NameRef::Kind::cell, static_cast<std::uint32_t>(cell - info.cell_names.begin())}
                              : NameRef{NameRef::Kind::class_body, 0};
      }
      info.free_sources = free_sources(scope);
      out.scopes[scope.node] = std::move(info);
    } else if (scope.is_function) {
      ScopeInfo info;
      info.name = scope.name;
      info.qualname = scope.qualname;
      info.cell_names = scope.cells;
      info.own_cells = scope.cells.size();
      for (const auto& n : scope.frees) info.cell_names.push_back(n);
      for (const auto& n : scope.locals)
        if (std::find(scope.cells.begin(), scope.cells.end(), n) == scope.cells.end()) info.fast_names.push_back(n);
      auto ref_of = [&](const std::string& n) {
        auto cell = std::find(info.cell_names.begin(), info.cell_names.end(), n);
        if (cell != info.cell_names.end())
          return NameRef{NameRef::Kind::cell, static_cast<std::uint32_t>(cell - info.cell_names.begin())};
        auto fast = std::find(info.fast_names.begin(), info.fast_names.end(), n);
        if (fast != info.fast_names.end() && !scope.globals.count(n))
          return NameRef{NameRef::Kind::fast, static_cast<std::uint32_t>(fast - info.fast_names.begin())};
        return NameRef{};
      };
      for (const auto& [site, n] : scope.sites) out.names[site] = ref_of(n);
      for (const auto& p : scope.parameters) info.parameters.push_back(ref_of(p));
      info.free_sources = free_sources(scope);
      info.is_generator = scope.is_generator;
      out.scopes[scope.node] = std::move(info);
    } else {
      for (const auto& [site, n] : scope.sites) out.names[site] = NameRef{};
    }
    for (const auto& child : scope.children) assign_slots(*child, out);
  }

 private:
  // The nearest enclosing function scope where `n` is a local variable
  // (class bodies in between are skipped: their names are not visible to
  // the functions inside them).
  static ScopeData* find_definer(ScopeData* scope, const std::string& n) {
    for (; scope != nullptr && (scope->is_function || scope->is_class); scope = scope->parent) {
      if (scope->is_class) continue;
      if (scope->globals.count(n)) return nullptr;
      if (scope->is_local(n)) return scope;
    }
    return nullptr;
  }

  ScopeData& open_scope(ScopeData& parent, const void* node, std::string name) {
    auto child = std::make_unique<ScopeData>();
    child->node = node;
    child->parent = &parent;
    child->is_function = true;
    child->qualname = parent.is_function ? parent.qualname + ".<locals>." + name
                      : parent.is_class  ? parent.qualname + "." + name
                                         : name;
    child->name = std::move(name);
    parent.children.push_back(std::move(child));
    return *parent.children.back();
  }

  void bind(ScopeData& scope, const void* site, const std::string& name) {
    if (&scope == root_ && recording_ &&
        std::find(recording_->begin(), recording_->end(), name) == recording_->end())
      recording_->push_back(name);
    scope.assigned.insert(name);
    scope.sites.emplace_back(site, name);
  }

  void too_deep(const lang::Span& span) {
    if (!reported_depth_)
      errors_.push_back(lang::Diagnostic::error(
          lang::code::syntax, span, "RecursionError: maximum recursion depth exceeded during compilation"));
    reported_depth_ = true;
  }

  void visit_body(const ast::Body& body, ScopeData& scope) {
    for (const auto& stmt : body) visit(*stmt, scope);
  }

  void visit_loop_body(const ast::Body& body, ScopeData& scope) {
    ++loop_depth_;
    visit_body(body, scope);
    --loop_depth_;
  }

  void syntax_error(const lang::Span& span, const std::string& message) {
    errors_.push_back(lang::Diagnostic::error(lang::code::syntax, span, "SyntaxError: " + message));
  }

  void visit_parameters(const ast::Parameters& params, ScopeData& outer, ScopeData& inner) {
    auto add = [&](const ast::Parameter& p) {
      if (p.default_) visit(*p.default_, outer);
      inner.parameters.push_back(p.name.name);
    };
    for (const auto& p : params.positional) add(p);
    if (params.varargs) add(*params.varargs);
    for (const auto& p : params.keyword_only) add(p);
    if (params.kwargs) add(*params.kwargs);
  }

  void visit_target(const ast::Expr& target, ScopeData& scope) {
    if (limit_.exhausted()) return too_deep(target.span);
    if (auto* name = std::get_if<ast::Name>(&target.node)) {
      bind(scope, &target, name->id);
      name_nodes.emplace(&target, name);
    } else if (auto* tuple = std::get_if<ast::Tuple>(&target.node)) {
      for (const auto& e : tuple->elts) visit_target(*e, scope);
    } else if (auto* list = std::get_if<ast::List>(&target.node)) {
      for (const auto& e : list->elts) visit_target(*e, scope);
    } else if (auto* starred = std::get_if<ast::Starred>(&target.node)) {
      visit_target(*starred->value, scope);
    } else {
      visit(target, scope);  // attribute or subscript: its parts are loads
    }
  }

  void visit_comprehension(const ast::Expr& expr, const std::vector<ast::Comprehension>& generators,
                           ScopeData& scope, const char* name, const std::vector<const ast::Expr*>& elements) {
    // The first iterable is evaluated in the enclosing scope, as in Python.
    visit(*generators.front().iter, scope);
    ScopeData& inner = open_scope(scope, &expr, name);
    for (std::size_t i = 0; i < generators.size(); ++i) {
      if (i > 0) visit(*generators[i].iter, inner);
      visit_target(*generators[i].target, inner);
      for (const auto& cond : generators[i].ifs) visit(*cond, inner);
    }
    for (const auto* e : elements) visit(*e, inner);
  }

  void visit(const ast::Expr& expr, ScopeData& scope) {
    if (limit_.exhausted()) return too_deep(expr.span);
    std::visit(
        [&](const auto& node) {
          using T = std::decay_t<decltype(node)>;
          if constexpr (std::is_same_v<T, ast::Name>) {
            scope.sites.emplace_back(&expr, node.id);
            name_nodes.emplace(&expr, &node);
          } else if constexpr (std::is_same_v<T, ast::JoinedStr>) {
            for (const auto& part : node.parts)
              if (auto* field = std::get_if<ast::FormattedValue>(&part)) {
                visit(*field->value, scope);
                if (field->format_spec_expr) visit(*field->format_spec_expr, scope);
              }
          } else if constexpr (std::is_same_v<T, ast::Tuple> || std::is_same_v<T, ast::List> ||
                               std::is_same_v<T, ast::Set>) {
            for (const auto& e : node.elts) visit(*e, scope);
          } else if constexpr (std::is_same_v<T, ast::Dict>) {
            for (const auto& k : node.keys)
              if (k) visit(*k, scope);
            for (const auto& v : node.values) visit(*v, scope);
          } else if constexpr (std::is_same_v<T, ast::ListComp>) {
            visit_comprehension(expr, node.generators, scope, "<listcomp>", {node.elt.get()});
          } else if constexpr (std::is_same_v<T, ast::SetComp>) {
            visit_comprehension(expr, node.generators, scope, "<setcomp>", {node.elt.get()});
          } else if constexpr (std::is_same_v<T, ast::GeneratorExp>) {
            visit_comprehension(expr, node.generators, scope, "<genexpr>", {node.elt.get()});
          } else if constexpr (std::is_same_v<T, ast::DictComp>) {
            visit_comprehension(expr, node.generators, scope, "<dictcomp>", {node.key.get(), node.value.get()});
          } else if constexpr (std::is_same_v<T, ast::BinOp>) {
            visit(*node.left, scope);
            visit(*node.right, scope);
          } else if constexpr (std::is_same_v<T, ast::UnaryOp>) {
            visit(*node.operand, scope);
          } else if constexpr (std::is_same_v<T, ast::BoolOp>) {
            for (const auto& e : node.values) visit(*e, scope);
          } else if constexpr (std::is_same_v<T, ast::Compare>) {
            visit(*node.left, scope);
            for (const auto& e : node.comparators) visit(*e, scope);
          } else if constexpr (std::is_same_v<T, ast::IfExp>) {
            visit(*node.test, scope);
            visit(*node.body, scope);
            visit(*node.orelse, scope);
          } else if constexpr (std::is_same_v<T, ast::Starred>) {
            visit(*node.value, scope);
          } else if constexpr (std::is_same_v<T, ast::Call>) {
            visit(*node.func, scope);
            for (const auto& e : node.args) visit(*e, scope);
            for (const auto& k : node.keywords) visit(*k.value, scope);
          } else if constexpr (std::is_same_v<T, ast::Attribute>) {
            attribute_nodes.push_back(&node);
            visit(*node.value, scope);
          } else if constexpr (std::is_same_v<T, ast::Subscript>) {
            visit(*node.value, scope);
            visit(*node.slice, scope);
          } else if constexpr (std::is_same_v<T, ast::Slice>) {
            if (node.lower) visit(*node.lower, scope);
            if (node.upper) visit(*node.upper, scope);
            if (node.step) visit(*node.step, scope);
          } else if constexpr (std::is_same_v<T, ast::Lambda>) {
            ScopeData& inner = open_scope(scope, &expr, "<lambda>");
            visit_parameters(node.params, scope, inner);
            visit(*node.body, inner);
          } else if constexpr (std::is_same_v<T, ast::Yield> || std::is_same_v<T, ast::YieldFrom>) {
            if (node.value) visit(*node.value, scope);
            if (!scope.is_function) syntax_error(expr.span, "'yield' outside function");
            scope.is_generator = true;
            ++scope.yields;
          }
        },
        expr.node);
  }

  void visit(const ast::Stmt& stmt, ScopeData& scope) {
    if (limit_.exhausted()) return too_deep(stmt.span);
    std::visit(
        [&](const auto& node) {
          using T = std::decay_t<decltype(node)>;
          if constexpr (std::is_same_v<T, ast::ExprStmt>) {
            visit(*node.value, scope);
          } else if constexpr (std::is_same_v<T, ast::Assign>) {
            visit(*node.value, scope);
            for (const auto& t : node.targets) visit_target(*t, scope);
          } else if constexpr (std::is_same_v<T, ast::AugAssign>) {
            visit(*node.value, scope);
            visit_target(*node.target, scope);
          } else if constexpr (std::is_same_v<T, ast::AnnAssign>) {
            if (node.value) visit(*node.value, scope);
            visit_target(*node.target, scope);  // the annotation is not evaluated
          } else if constexpr (std::is_same_v<T, ast::FunctionDef>) {
            for (const auto& d : node.decorators) visit(*d, scope);
            ScopeData& inner = open_scope(scope, &stmt, node.name.name);
            inner.body = &node.body;
            visit_parameters(node.params, scope, inner);
            int enclosing_loops = loop_depth_;
            loop_depth_ = 0;  // a loop around the def does not contain its body
            visit_body(node.body, inner);
            loop_depth_ = enclosing_loops;
            bind(scope, &stmt, node.name.name);
          } else if constexpr (std::is_same_v<T, ast::ClassDef>) {
            for (const auto& d : node.decorators) visit(*d, scope);
            for (const auto& b : node.bases) visit(*b, scope);
            for (const auto& k : node.keywords) visit(*k.value, scope);
            ScopeData& inner = open_scope(scope, &stmt, node.name.name);
            inner.is_function = false;
            inner.is_class = true;
            int enclosing_loops = loop_depth_;
            loop_depth_ = 0;
            visit_body(node.body, inner);
            loop_depth_ = enclosing_loops;
            bind(scope, &stmt, node.name.name);
          } else if constexpr (std::is_same_v<T, ast::Return>) {
            if (!scope.is_function) syntax_error(stmt.span, "'return' outside function");
            if (node.value) visit(*node.value, scope);
          } else if constexpr (std::is_same_v<T, ast::Break>) {
            if (loop_depth_ == 0) syntax_error(stmt.span, "'break' outside loop");
          } else if constexpr (std::is_same_v<T, ast::Continue>) {
            if (loop_depth_ == 0) syntax_error(stmt.span, "'continue' not properly in loop");
          } else if constexpr (std::is_same_v<T, ast::If>) {
            visit(*node.test, scope);
            visit_body(node.body, scope);
            visit_body(node.orelse, scope);
          } else if constexpr (std::is_same_v<T, ast::While>) {
            visit(*node.test, scope);
            visit_loop_body(node.body, scope);
            visit_body(node.orelse, scope);
          } else if constexpr (std::is_same_v<T, ast::For>) {
            visit(*node.iter, scope);
            visit_target(*node.target, scope);
            visit_loop_body(node.body, scope);
            visit_body(node.orelse, scope);
          } else if constexpr (std::is_same_v<T, ast::Try>) {
            visit_body(node.body, scope);
            for (const auto& handler : node.handlers) {
              if (handler.type) visit(*handler.type, scope);
              if (handler.name) bind(scope, &handler, handler.name->name);
              visit_body(handler.body, scope);
            }
            visit_body(node.orelse, scope);
            visit_body(node.finalbody, scope);
          } else if constexpr (std::is_same_v<T, ast::Raise>) {
            if (node.exc) visit(*node.exc, scope);
            if (node.cause) visit(*node.cause, scope);
          } else if constexpr (std::is_same_v<T, ast::Assert>) {
            visit(*node.test, scope);
            if (node.msg) visit(*node.msg, scope);
          } else if constexpr (std::is_same_v<T, ast::Import>) {
            for (const auto& alias : node.names) {
              std::string bound = alias.asname ? alias.asname->name : alias.name.substr(0, alias.name.find('.'));
              bind(scope, &alias, bound);
            }
          } else if constexpr (std::is_same_v<T, ast::ImportFrom>) {
            for (const auto& alias : node.names) {
              if (alias.name != "*") bind(scope, &alias, alias.asname ? alias.asname->name : alias.name);
              else if (scope.parent != nullptr) syntax_error(alias.span, "import * only allowed at module level");
            }
          } else if constexpr (std::is_same_v<T, ast::Global>) {
            for (const auto& n : node.names) scope.globals.insert(n.name);
          } else if constexpr (std::is_same_v<T, ast::Nonlocal>) {
            for (const auto& n : node.names) {
              scope.nonlocals.insert(n.name);
              scope.nonlocal_spans.emplace_back(n.name, n.span);
            }
          } else if constexpr (std::is_same_v<T, ast::Delete>) {
            for (const auto& t : node.targets) visit_target(*t, scope);
          } else if constexpr (std::is_same_v<T, ast::With>) {
            for (const auto& item : node.items) {
              visit(*item.context_expr, scope);
              if (item.optional_vars) visit_target(*item.optional_vars, scope);
            }
            visit_body(node.body, scope);
          } else if constexpr (std::is_same_v<T, ast::LineMagic>) {
            if (node.statement) visit(*node.statement, scope);
          }
        },
        stmt.node);
  }

  std::vector<lang::Diagnostic>& errors_;
  StackLimit limit_;
  bool reported_depth_ = false;
  int loop_depth_ = 0;  // loops around the statement being visited, in its function
  const ScopeData* root_ = nullptr;
  std::vector<std::string>* recording_ = nullptr;  // the top-level statement's module_bindings
};

// Compiles the body of every def in `scope` and below, now that their names are resolved.
void compile_bodies(const ScopeData& scope, Resolution& resolution) {
  if (scope.body != nullptr) resolution.scopes.at(scope.node).compiled = std::make_shared<const CompiledBody>(*scope.body, scope.yields);
  for (const auto& child : scope.children) compile_bodies(*child, resolution);
}

}  // namespace

Resolution Resolution::analyze(const ast::Module& module, std::vector<lang::Diagnostic>& errors) {
  Analyzer analyzer(errors);
  std::unique_ptr<ScopeData> root = analyzer.collect(module);
  analyzer.resolve(*root);
  Resolution resolution;
  analyzer.assign_slots(*root, resolution);
  resolution.module_bindings = std::move(analyzer.module_bindings);
  for (const auto& [site, node] : analyzer.name_nodes) {
    const NameRef& ref = resolution.name(site);
    node->resolved_kind = static_cast<std::uint8_t>(static_cast<std::uint8_t>(ref.kind) + 1);
    node->resolved_index = ref.index;
    if (ref.kind == NameRef::Kind::global || ref.kind == NameRef::Kind::class_body) {
      node->resolved_index = static_cast<std::uint32_t>(resolution.global_sites.size());
      resolution.global_sites.push_back(GlobalSiteCache{node});
    }
  }
  for (const ast::Attribute* node : analyzer.attribute_nodes) {
    node->site = static_cast<std::uint32_t>(resolution.attribute_sites.size());
    resolution.attribute_sites.push_back(AttributeSiteCache{node});
  }
  compile_bodies(*root, resolution);
  return resolution;
}

const NameRef& Resolution::name(const void* site) const {
  static const NameRef global_ref{};
  auto found = names.find(site);
  return found == names.end() ? global_ref : found->second;
}

const ScopeInfo& Resolution::scope(const void* node) const {
  static const ScopeInfo empty{};
  auto found = scopes.find(node);
  return found == scopes.end() ? empty : found->second;
}

}  // namespace interp
