#include "lang/grammar_actions.hpp"

#include <algorithm>
#include <set>

namespace lang::grammar::actions {

namespace {

template <class T>
bool holds(const Item& item) {
  return std::holds_alternative<T>(item);
}

template <class T>
T take(Item& item) {
  return std::get<T>(std::move(item));
}

template <class T>
bool any_of_kind(const std::vector<Item>& items) {
  return std::any_of(items.begin(), items.end(), holds<T>);
}

[[noreturn]] void fail(Span span, std::string message) { throw SyntaxError{span, std::move(message)}; }

// The expressions among `items` in order (markers such as Comma dropped).
ast::ExprList expressions(std::vector<Item>& items) {
  ast::ExprList result;
  for (Item& item : items)
    if (holds<ast::ExprPtr>(item)) result.push_back(take<ast::ExprPtr>(item));
  return result;
}

std::vector<ast::Comprehension> comprehensions(std::vector<Item>& items) {
  std::vector<ast::Comprehension> result;
  for (Item& item : items)
    if (holds<ast::Comprehension>(item)) result.push_back(take<ast::Comprehension>(item));
  return result;
}

ast::Body statements(std::vector<Item>& items) {
  ast::Body body;
  for (Item& item : items)
    if (holds<ast::StmtPtr>(item)) body.push_back(take<ast::StmtPtr>(item));
  return body;
}

Span match_span(Builder& builder, const Match& match) { return builder.span(match.begin, match.end); }

std::string matched_text(const Match& match) {
  return std::string(match.begin, match.end);
}

// The parameters of a def or lambda from its ParameterItems, with Python's
// ordering rules.
ast::Parameters build_parameters(std::vector<Item>& items) {
  ast::Parameters parameters;
  bool after_star = false;
  bool bare_star = false;
  Span bare_star_span;
  bool seen_default = false;
  std::set<std::string> names;
  for (Item& item : items) {
    if (!holds<ParameterItem>(item)) continue;
    ParameterItem parameter = take<ParameterItem>(item);
    if (parameters.kwargs) fail(parameter.span, "parameters cannot follow the var-keyword parameter (**)");
    if (parameter.kind != ParameterKind::bare_star && !names.insert(parameter.parameter.name.name).second)
      fail(parameter.parameter.name.span,
           "duplicate parameter '" + parameter.parameter.name.name + "' in function definition");
    switch (parameter.kind) {
      case ParameterKind::kwargs:
        if (bare_star && parameters.keyword_only.empty()) fail(bare_star_span, "named parameters must follow bare *");
        parameters.kwargs = std::move(parameter.parameter);
        break;
      case ParameterKind::varargs:
      case ParameterKind::bare_star:
        if (after_star) fail(parameter.span, "* parameter may appear only once");
        after_star = true;
        if (parameter.kind == ParameterKind::varargs) {
          parameters.varargs = std::move(parameter.parameter);
        } else {
          bare_star = true;
          bare_star_span = parameter.span;
        }
        break;
      case ParameterKind::plain:
        if (after_star) {
          parameters.keyword_only.push_back(std::move(parameter.parameter));
        } else {
          if (parameter.parameter.default_) {
            seen_default = true;
          } else if (seen_default) {
            fail(parameter.span, "parameter without a default follows parameter with a default");
          }
          parameters.positional.push_back(std::move(parameter.parameter));
        }
        break;
    }
  }
  if (bare_star && parameters.keyword_only.empty() && !parameters.kwargs)
    fail(bare_star_span, "named parameters must follow bare *");
  return parameters;
}

bool is_simple_target(const ast::Expr& expr) {
  return holds_alternative<ast::Name>(expr.node) || holds_alternative<ast::Attribute>(expr.node) ||
         holds_alternative<ast::Subscript>(expr.node);
}

}  // namespace

void keep(Builder&, const Match&) {}

// ---------------------------------------------------------------- expressions

void make_binary(Builder& builder, const Match&) {
  ast::ExprPtr right = builder.pop<ast::ExprPtr>();
  auto op = builder.pop<ast::BinaryOperator>();
  ast::ExprPtr left = builder.pop<ast::ExprPtr>();
  Span span = left->span.to(right->span);
  builder.push(ast::make_expr(span, ast::BinOp{op, std::move(left), std::move(right)}));
}

void make_unary(Builder& builder, const Match& match) {
  ast::ExprPtr operand = builder.pop<ast::ExprPtr>();
  auto op = builder.pop<ast::UnaryOperator>();
  builder.push(ast::make_expr(match_span(builder, match), ast::UnaryOp{op, std::move(operand)}));
}

void make_compare(Builder& builder, const Match& match) {
  if (builder.size() == match.first_item + 1) return;  // no comparison operator
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::Compare compare;
  compare.left = take<ast::ExprPtr>(items[0]);
  for (std::size_t i = 1; i + 1 < items.size(); i += 2) {
    compare.ops.push_back(take<ast::CompareOperator>(items[i]));
    compare.comparators.push_back(take<ast::ExprPtr>(items[i + 1]));
  }
  Span span = compare.left->span.to(compare.comparators.back()->span);
  builder.push(ast::make_expr(span, std::move(compare)));
}

namespace {
void make_boolean(Builder& builder, const Match& match, ast::BooleanOperator op) {
  if (builder.size() == match.first_item + 1) return;
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::ExprList values = expressions(items);
  Span span = values.front()->span.to(values.back()->span);
  builder.push(ast::make_expr(span, ast::BoolOp{op, std::move(values)}));
}
}  // namespace

void make_and(Builder& builder, const Match& match) { make_boolean(builder, match, ast::BooleanOperator::and_); }
void make_or(Builder& builder, const Match& match) { make_boolean(builder, match, ast::BooleanOperator::or_); }

void make_if_expression(Builder& builder, const Match& match) {
  if (builder.size() == match.first_item + 1) return;
  ast::ExprPtr orelse = builder.pop<ast::ExprPtr>();
  ast::ExprPtr test = builder.pop<ast::ExprPtr>();
  ast::ExprPtr body = builder.pop<ast::ExprPtr>();
  Span span = body->span.to(orelse->span);
  builder.push(ast::make_expr(span, ast::IfExp{std::move(test), std::move(body), std::move(orelse)}));
}

void make_lambda(Builder& builder, const Match& match) {
  ast::ExprPtr body = builder.pop<ast::ExprPtr>();
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::Parameters parameters = build_parameters(items);
  builder.push(ast::make_expr(match_span(builder, match), ast::Lambda{std::move(parameters), std::move(body)}));
}

void make_starred(Builder& builder, const Match& match) {
  ast::ExprPtr value = builder.pop<ast::ExprPtr>();
  builder.push(ast::make_expr(match_span(builder, match), ast::Starred{std::move(value)}));
}

void make_ellipsis(Builder& builder, const Match& match) {
  builder.push(ast::make_expr(match_span(builder, match), ast::Constant{ast::EllipsisLiteral{}}));
}

void make_parenthesized(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  Span span = match_span(builder, match);
  if (items.empty()) {
    builder.push(ast::make_expr(span, ast::Tuple{}));
  } else if (any_of_kind<ast::Comprehension>(items)) {
    ast::ExprPtr element = take<ast::ExprPtr>(items[0]);
    builder.push(ast::make_expr(span, ast::GeneratorExp{std::move(element), comprehensions(items)}));
  } else if (any_of_kind<Comma>(items)) {
    builder.push(ast::make_expr(span, ast::Tuple{expressions(items)}));
  } else {
    ast::ExprPtr inner = take<ast::ExprPtr>(items[0]);
    if (holds_alternative<ast::Starred>(inner->node)) fail(inner->span, "cannot use starred expression here");
    // (x) is x; its span takes in the parentheses, so that the span of an
    // operation on it, `(a + b) * c`, covers them both.
    inner->span = span;
    builder.push(std::move(inner));
  }
}

void make_list(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  Span span = match_span(builder, match);
  if (any_of_kind<ast::Comprehension>(items)) {
    ast::ExprPtr element = take<ast::ExprPtr>(items[0]);
    builder.push(ast::make_expr(span, ast::ListComp{std::move(element), comprehensions(items)}));
  } else {
    builder.push(ast::make_expr(span, ast::List{expressions(items)}));
  }
}

void make_braces(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  Span span = match_span(builder, match);
  if (items.empty() || holds<DictEntry>(items[0])) {
    ast::Dict dict;
    for (Item& item : items) {
      if (holds<ast::ExprPtr>(item)) fail(std::get<ast::ExprPtr>(item)->span, "expected 'key: value' in a dict display");
      if (!holds<DictEntry>(item)) continue;
      DictEntry entry = take<DictEntry>(item);
      dict.keys.push_back(std::move(entry.key));
      dict.values.push_back(std::move(entry.value));
    }
    if (any_of_kind<ast::Comprehension>(items)) {
      if (!dict.keys[0]) fail(dict.values[0]->span, "dict unpacking cannot be used in dict comprehension");
      builder.push(ast::make_expr(span, ast::DictComp{std::move(dict.keys[0]), std::move(dict.values[0]), comprehensions(items)}));
    } else {
      builder.push(ast::make_expr(span, std::move(dict)));
    }
    return;
  }
  for (Item& item : items) {
    if (!holds<DictEntry>(item)) continue;
    DictEntry& entry = std::get<DictEntry>(item);
    fail(entry.key ? entry.key->span.to(entry.value->span) : entry.value->span,
         "a set display cannot contain 'key: value' entries");
  }
  if (any_of_kind<ast::Comprehension>(items)) {
    ast::ExprPtr element = take<ast::ExprPtr>(items[0]);
    builder.push(ast::make_expr(span, ast::SetComp{std::move(element), comprehensions(items)}));
  } else {
    builder.push(ast::make_expr(span, ast::Set{expressions(items)}));
  }
}

void make_brace_item(Builder& builder, const Match& match) {
  if (builder.size() == match.first_item + 1) return;  // a set element
  ast::ExprPtr value = builder.pop<ast::ExprPtr>();
  ast::ExprPtr key = builder.pop<ast::ExprPtr>();
  builder.push(DictEntry{std::move(key), std::move(value)});
}

void make_dict_unpacking(Builder& builder, const Match&) {
  ast::ExprPtr value = builder.pop<ast::ExprPtr>();
  builder.push(DictEntry{nullptr, std::move(value)});
}

void make_comprehension(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::ExprList parts = expressions(items);
  ast::Comprehension comprehension;
  comprehension.target = std::move(parts[0]);
  comprehension.iter = std::move(parts[1]);
  for (std::size_t i = 2; i < parts.size(); ++i) comprehension.ifs.push_back(std::move(parts[i]));
  check_target(*comprehension.target, "assign to");
  builder.push(std::move(comprehension));
}

void make_call(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::ExprPtr function = builder.pop<ast::ExprPtr>();
  ast::Call call;
  bool seen_keyword = false;
  bool seen_mapping = false;
  for (Item& item : items) {
    if (holds<ast::Keyword>(item)) {
      ast::Keyword keyword = take<ast::Keyword>(item);
      (keyword.name ? seen_keyword : seen_mapping) = true;
      call.keywords.push_back(std::move(keyword));
      continue;
    }
    ast::ExprPtr argument = take<ast::ExprPtr>(item);
    bool starred = holds_alternative<ast::Starred>(argument->node);
    if (seen_mapping)
      fail(argument->span, starred ? "iterable argument unpacking follows keyword argument unpacking"
                                   : "positional argument follows keyword argument unpacking");
    if (seen_keyword && !starred) fail(argument->span, "positional argument follows keyword argument");
    const std::string& source = builder.file().text();
    bool parenthesized = argument->span.begin < source.size() && source[argument->span.begin] == '(';
    if (holds_alternative<ast::GeneratorExp>(argument->node) && items.size() > 1 && !parenthesized)
      fail(argument->span, "generator expression must be parenthesized");
    call.args.push_back(std::move(argument));
  }
  Span span = builder.span(match.begin, match.end);
  span.begin = function->span.begin;
  call.func = std::move(function);
  builder.push(ast::make_expr(span, std::move(call)));
}

void make_keyword_argument(Builder& builder, const Match& match) {
  ast::ExprPtr value = builder.pop<ast::ExprPtr>();
  auto name = builder.pop<ast::Identifier>();
  builder.push(ast::Keyword{std::move(name), std::move(value), match_span(builder, match)});
}

void make_mapping_argument(Builder& builder, const Match& match) {
  ast::ExprPtr value = builder.pop<ast::ExprPtr>();
  builder.push(ast::Keyword{std::nullopt, std::move(value), match_span(builder, match)});
}

void make_positional_argument(Builder& builder, const Match& match) {
  if (builder.size() == match.first_item + 1) return;
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::ExprPtr element = take<ast::ExprPtr>(items[0]);
  builder.push(ast::make_expr(match_span(builder, match), ast::GeneratorExp{std::move(element), comprehensions(items)}));
}

void make_subscript(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::ExprPtr value = builder.pop<ast::ExprPtr>();
  bool is_tuple = any_of_kind<Comma>(items);
  ast::ExprList indices = expressions(items);
  ast::ExprPtr slice;
  if (is_tuple) {
    Span span = indices.front()->span.to(indices.back()->span);
    slice = ast::make_expr(span, ast::Tuple{std::move(indices)});
  } else {
    slice = std::move(indices.front());
  }
  Span span = builder.span(match.begin, match.end);
  span.begin = value->span.begin;
  builder.push(ast::make_expr(span, ast::Subscript{std::move(value), std::move(slice)}));
}

void make_subscript_item(Builder& builder, const Match& match) {
  if (builder.size() == match.first_item + 1 && builder.top_is<ast::ExprPtr>()) return;  // an index
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::Slice slice;
  int colons = 0;
  for (Item& item : items) {
    if (holds<SliceColon>(item)) {
      ++colons;
      continue;
    }
    ast::ExprPtr part = take<ast::ExprPtr>(item);
    (colons == 0 ? slice.lower : colons == 1 ? slice.upper : slice.step) = std::move(part);
  }
  builder.push(ast::make_expr(match_span(builder, match), std::move(slice)));
}

void make_attribute(Builder& builder, const Match&) {
  auto name = builder.pop<ast::Identifier>();
  ast::ExprPtr value = builder.pop<ast::ExprPtr>();
  Span span = value->span.to(name.span);
  builder.push(ast::make_expr(span, ast::Attribute{std::move(value), std::move(name.name), name.span}));
}

void make_expression_list(Builder& builder, const Match& match) {
  if (builder.size() == match.first_item + 1) return;  // one expression, no comma
  std::vector<Item> items = builder.take_from(match.first_item);
  builder.push(ast::make_expr(match_span(builder, match), ast::Tuple{expressions(items)}));
}

void make_plain_parameter(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::Parameter parameter;
  parameter.name = take<ast::Identifier>(items[0]);
  std::size_t next = 1;
  if (next < items.size() && holds<AnnotationTail>(items[next])) {
    parameter.annotation = take<ast::ExprPtr>(items[next + 1]);
    next += 2;
  }
  if (next < items.size()) parameter.default_ = take<ast::ExprPtr>(items[next]);
  builder.push(ParameterItem{ParameterKind::plain, std::move(parameter), match_span(builder, match)});
}

namespace {
void make_star_parameter(Builder& builder, const Match& match, ParameterKind kind) {
  Span span = match_span(builder, match);
  if (builder.size() == match.first_item) {
    builder.push(ParameterItem{ParameterKind::bare_star, ast::Parameter{}, span});
    return;
  }
  auto parameter = builder.pop<ParameterItem>();
  if (parameter.parameter.default_)
    fail(parameter.parameter.default_->span,
         kind == ParameterKind::varargs ? "var-positional parameter cannot have a default value"
                                        : "var-keyword parameter cannot have a default value");
  builder.push(ParameterItem{kind, std::move(parameter.parameter), span});
}
}  // namespace

void make_varargs_parameter(Builder& builder, const Match& match) {
  make_star_parameter(builder, match, ParameterKind::varargs);
}
void make_kwargs_parameter(Builder& builder, const Match& match) {
  make_star_parameter(builder, match, ParameterKind::kwargs);
}

void keyword_used_as_name(Builder& builder, const Match& match) {
  fail(match_span(builder, match), "`" + matched_text(match) + "` is a keyword and cannot be used as a name");
}

// ---------------------------------------------------------------- statements

void make_body(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  builder.push(statements(items));
}

void make_expression_statement(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  Span span = match_span(builder, match);
  if (items.size() >= 2 && holds<AugmentedTail>(items[1])) {
    ast::ExprPtr target = take<ast::ExprPtr>(items[0]);
    if (!is_simple_target(*target)) fail(target->span, "illegal expression for augmented assignment");
    builder.push(ast::make_stmt(span, ast::AugAssign{std::move(target), take<AugmentedTail>(items[1]).op,
                                                     take<ast::ExprPtr>(items[2])}));
    return;
  }
  if (items.size() >= 2 && holds<AnnotationTail>(items[1])) {
    ast::ExprPtr target = take<ast::ExprPtr>(items[0]);
    if (holds_alternative<ast::Tuple>(target->node)) fail(target->span, "only single target (not tuple) can be annotated");
    if (holds_alternative<ast::List>(target->node)) fail(target->span, "only single target (not list) can be annotated");
    if (!is_simple_target(*target)) fail(target->span, "illegal target for annotation");
    ast::ExprPtr annotation = take<ast::ExprPtr>(items[2]);
    ast::ExprPtr value = items.size() > 3 ? take<ast::ExprPtr>(items[3]) : nullptr;
    builder.push(ast::make_stmt(span, ast::AnnAssign{std::move(target), std::move(annotation), std::move(value)}));
    return;
  }
  ast::ExprList parts = expressions(items);
  if (parts.size() == 1) {
    builder.push(ast::make_stmt(span, ast::ExprStmt{std::move(parts[0])}));
    return;
  }
  ast::ExprPtr value = std::move(parts.back());
  parts.pop_back();
  for (const ast::ExprPtr& target : parts) check_target(*target, "assign to");
  builder.push(ast::make_stmt(span, ast::Assign{std::move(parts), std::move(value)}));
}

void make_pass(Builder& builder, const Match& match) { builder.push(ast::make_stmt(match_span(builder, match), ast::Pass{})); }
void make_break(Builder& builder, const Match& match) { builder.push(ast::make_stmt(match_span(builder, match), ast::Break{})); }
void make_continue(Builder& builder, const Match& match) {
  builder.push(ast::make_stmt(match_span(builder, match), ast::Continue{}));
}

void make_return(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::ExprList parts = expressions(items);
  builder.push(ast::make_stmt(match_span(builder, match), ast::Return{parts.empty() ? nullptr : std::move(parts[0])}));
}

void make_raise(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::ExprList parts = expressions(items);
  ast::Raise raise;
  if (!parts.empty()) raise.exc = std::move(parts[0]);
  if (parts.size() > 1) raise.cause = std::move(parts[1]);
  builder.push(ast::make_stmt(match_span(builder, match), std::move(raise)));
}

void make_assert(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::ExprList parts = expressions(items);
  ast::Assert assertion;
  assertion.test = std::move(parts[0]);
  if (parts.size() > 1) assertion.msg = std::move(parts[1]);
  builder.push(ast::make_stmt(match_span(builder, match), std::move(assertion)));
}

namespace {
std::vector<ast::Identifier> identifiers(std::vector<Item>& items) {
  std::vector<ast::Identifier> result;
  for (Item& item : items)
    if (holds<ast::Identifier>(item)) result.push_back(take<ast::Identifier>(item));
  return result;
}
}  // namespace

void make_global(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  builder.push(ast::make_stmt(match_span(builder, match), ast::Global{identifiers(items)}));
}

void make_nonlocal(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  builder.push(ast::make_stmt(match_span(builder, match), ast::Nonlocal{identifiers(items)}));
}

void make_delete(Builder& builder, const Match& match) {
  ast::ExprPtr target = builder.pop<ast::ExprPtr>();
  ast::ExprList targets;
  if (auto* tuple = std::get_if<ast::Tuple>(&target->node); tuple && target->span.begin == tuple->elts.front()->span.begin)
    targets = std::move(tuple->elts);  // `del a, b` deletes a and b
  else
    targets.push_back(std::move(target));
  for (const ast::ExprPtr& each : targets) check_target(*each, "delete");
  builder.push(ast::make_stmt(match_span(builder, match), ast::Delete{std::move(targets)}));
}

void make_dotted_name(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  std::string name;
  for (const ast::Identifier& part : identifiers(items)) name += (name.empty() ? "" : ".") + part.name;
  builder.push(ast::Identifier{std::move(name), match_span(builder, match)});
}

// The dots of a relative module name are kept in front of its name
// ("..a.b", "."); make_import_from turns them into the level.
void make_relative_module(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  std::string dots;
  for (char c : matched_text(match)) {
    if (c == '.') dots += c;
    else if (c != ' ' && c != '\t' && c != '\\' && c != '\n' && c != '\r') break;
  }
  std::string name = items.empty() ? std::string() : take<ast::Identifier>(items[0]).name;
  builder.push(ast::Identifier{dots + name, match_span(builder, match)});
}

void make_alias(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  std::vector<ast::Identifier> names = identifiers(items);
  ast::Alias alias{std::move(names[0].name), names[0].span, std::nullopt};
  if (names.size() > 1) alias.asname = std::move(names[1]);
  builder.push(std::move(alias));
}

// `from m import *`: one alias named "*".
void make_star_alias(Builder& builder, const Match& match) {
  builder.push(ast::Alias{"*", match_span(builder, match), std::nullopt});
}

void make_import(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::Import import;
  for (Item& item : items) import.names.push_back(take<ast::Alias>(item));
  builder.push(ast::make_stmt(match_span(builder, match), std::move(import)));
}

void make_import_from(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  auto module = take<ast::Identifier>(items[0]);
  std::size_t level = module.name.find_first_not_of('.');
  if (level == std::string::npos) level = module.name.size();
  ast::ImportFrom import{module.name.substr(level), module.span, {}, static_cast<int>(level)};
  for (std::size_t i = 1; i < items.size(); ++i) import.names.push_back(take<ast::Alias>(items[i]));
  builder.push(ast::make_stmt(match_span(builder, match), std::move(import)));
}

namespace {
// The else block at the end of `items`, if there is one.
ast::Body take_else(std::vector<Item>& items) {
  if (items.empty() || !holds<OrElse>(items.back())) return {};
  ast::Body body = take<OrElse>(items.back()).body;
  items.pop_back();
  return body;
}
}  // namespace

void make_if(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::Body orelse = take_else(items);
  // Nest the elif clauses from the last: each one is the else of the one before.
  for (std::size_t i = items.size(); i-- > 2;) {
    ast::StmtPtr clause = take<ast::StmtPtr>(items[i]);
    auto& node = std::get<ast::If>(clause->node);
    node.orelse = std::move(orelse);
    if (!node.orelse.empty()) clause->span = clause->span.to(node.orelse.back()->span);
    orelse.clear();
    orelse.push_back(std::move(clause));
  }
  ast::If statement{take<ast::ExprPtr>(items[0]), take<ast::Body>(items[1]), std::move(orelse)};
  builder.push(ast::make_stmt(match_span(builder, match), std::move(statement)));
}

void make_elif(Builder& builder, const Match& match) {
  ast::Body body = builder.pop<ast::Body>();
  ast::ExprPtr test = builder.pop<ast::ExprPtr>();
  builder.push(ast::make_stmt(match_span(builder, match), ast::If{std::move(test), std::move(body), {}}));
}

void make_else(Builder& builder, const Match&) { builder.push(OrElse{builder.pop<ast::Body>()}); }
void make_finally(Builder& builder, const Match&) { builder.push(Finally{builder.pop<ast::Body>()}); }

void make_while(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::Body orelse = take_else(items);
  ast::While statement{take<ast::ExprPtr>(items[0]), take<ast::Body>(items[1]), std::move(orelse)};
  builder.push(ast::make_stmt(match_span(builder, match), std::move(statement)));
}

void make_for(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::Body orelse = take_else(items);
  ast::For statement{take<ast::ExprPtr>(items[0]), take<ast::ExprPtr>(items[1]), take<ast::Body>(items[2]),
                     std::move(orelse)};
  check_target(*statement.target, "assign to");
  builder.push(ast::make_stmt(match_span(builder, match), std::move(statement)));
}

void make_try(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::Try statement;
  statement.body = take<ast::Body>(items[0]);
  for (std::size_t i = 1; i < items.size(); ++i) {
    if (holds<ast::ExceptHandler>(items[i])) statement.handlers.push_back(take<ast::ExceptHandler>(items[i]));
    if (holds<OrElse>(items[i])) statement.orelse = take<OrElse>(items[i]).body;
    if (holds<Finally>(items[i])) statement.finalbody = take<Finally>(items[i]).body;
  }
  builder.push(ast::make_stmt(match_span(builder, match), std::move(statement)));
}

void make_except_handler(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::ExceptHandler handler;
  for (Item& item : items) {
    if (holds<ast::ExprPtr>(item)) handler.type = take<ast::ExprPtr>(item);
    if (holds<ast::Identifier>(item)) handler.name = take<ast::Identifier>(item);
    if (holds<ast::Body>(item)) handler.body = take<ast::Body>(item);
  }
  handler.span = match_span(builder, match);
  builder.push(std::move(handler));
}

void make_yield(Builder& builder, const Match& match) {
  ast::ExprPtr value = builder.size() > match.first_item ? builder.pop<ast::ExprPtr>() : nullptr;
  builder.push(ast::make_expr(match_span(builder, match), ast::Yield{std::move(value)}));
}

void make_yield_from(Builder& builder, const Match& match) {
  ast::ExprPtr value = builder.pop<ast::ExprPtr>();
  builder.push(ast::make_expr(match_span(builder, match), ast::YieldFrom{std::move(value)}));
}

void make_with_item(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::ExprList parts = expressions(items);
  ast::WithItem item{std::move(parts[0]), parts.size() > 1 ? std::move(parts[1]) : nullptr};
  if (item.optional_vars) check_target(*item.optional_vars, "assign to");
  builder.push(std::move(item));
}

void make_with(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::With statement;
  for (Item& item : items) {
    if (holds<ast::WithItem>(item)) statement.items.push_back(take<ast::WithItem>(item));
    if (holds<ast::Body>(item)) statement.body = take<ast::Body>(item);
  }
  builder.push(ast::make_stmt(match_span(builder, match), std::move(statement)));
}

void make_function_def(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::FunctionDef function;
  function.name = take<ast::Identifier>(items[0]);
  function.body = take<ast::Body>(items.back());
  items.pop_back();
  if (items.size() >= 2 && holds<ast::ExprPtr>(items.back())) {
    function.returns = take<ast::ExprPtr>(items.back());
    items.pop_back();
  }
  function.params = build_parameters(items);
  builder.push(ast::make_stmt(match_span(builder, match), std::move(function)));
}

void make_class_def(Builder& builder, const Match& match) {
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::ClassDef definition;
  definition.name = take<ast::Identifier>(items.front());
  definition.body = take<ast::Body>(items.back());
  for (std::size_t i = 1; i + 1 < items.size(); ++i) {
    if (holds<ast::Keyword>(items[i])) {
      definition.keywords.push_back(take<ast::Keyword>(items[i]));
      continue;
    }
    ast::ExprPtr base = take<ast::ExprPtr>(items[i]);
    if (!definition.keywords.empty() && !holds_alternative<ast::Starred>(base->node))
      fail(base->span, "positional argument follows keyword argument");
    definition.bases.push_back(std::move(base));
  }
  builder.push(ast::make_stmt(match_span(builder, match), std::move(definition)));
}

void make_decorated(Builder& builder, const Match& match) {
  ast::StmtPtr definition = builder.pop<ast::StmtPtr>();
  std::vector<Item> items = builder.take_from(match.first_item);
  if (auto* function = std::get_if<ast::FunctionDef>(&definition->node)) function->decorators = expressions(items);
  else std::get<ast::ClassDef>(definition->node).decorators = expressions(items);
  builder.push(std::move(definition));
}

void make_line_magic(Builder& builder, const Match& match) {
  ast::StmtPtr statement = builder.pop<ast::StmtPtr>();
  std::vector<Item> items = builder.take_from(match.first_item);
  ast::LineMagic magic;
  magic.name = take<ast::Identifier>(items[0]);
  for (std::size_t i = 1; i < items.size(); ++i) magic.options.push_back(take<MagicOption>(items[i]).text);
  magic.statement = std::move(statement);
  builder.push(ast::make_stmt(match_span(builder, match), std::move(magic)));
}

void unexpected_indent(Builder& builder, const Match& match) {
  fail(builder.span_at(match.begin), "unexpected indent");
}

void stray_clause(Builder& builder, const Match& match) {
  std::string keyword = matched_text(match);
  std::string owners = keyword == "elif" ? "`if`" : keyword == "else" ? "`if`, `for`, `while` or `try`" : "`try`";
  fail(match_span(builder, match), "`" + keyword + "` without a matching " + owners);
}

void unsupported_statement(Builder& builder, const Match& match) {
  fail(match_span(builder, match), "`" + matched_text(match) + "` is not supported in shardlang (language.md lists the statements)");
}

}  // namespace lang::grammar::actions
