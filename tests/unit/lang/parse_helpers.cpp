#include "parse_helpers.hpp"

#include <fmt/format.h>

namespace lang::testing {

std::shared_ptr<ast::Module> parse_text(std::string_view text, std::string* error) {
  ParseResult result = parse(SourceFile::from_text("test.shl", std::string(text)));
  if (!result.ok() && error != nullptr && !result.diagnostics.empty()) {
    const Diagnostic& diagnostic = result.diagnostics.front();
    *error = fmt::format("{}:{}: {}", diagnostic.where.begin.line, diagnostic.where.begin.column, diagnostic.message);
  }
  return result.module;
}

std::string dump_of(std::string_view text) {
  std::string error;
  auto module = parse_text(text, &error);
  return module ? ast::dump(*module) : "error: " + error;
}

std::string error_of(std::string_view text) {
  std::string error;
  auto module = parse_text(text, &error);
  return module ? "no error" : error;
}

namespace {

std::string constant(const ast::Constant& constant) {
  return std::visit(
      [](const auto& value) -> std::string {
        using Value = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<Value, ast::NoneLiteral>) return "None";
        else if constexpr (std::is_same_v<Value, ast::EllipsisLiteral>) return "...";
        else if constexpr (std::is_same_v<Value, bool>) return value ? "True" : "False";
        else if constexpr (std::is_same_v<Value, std::string>) return "'" + value + "'";
        else return fmt::format("{}", value);
      },
      constant.value);
}

std::string optional(const ast::ExprPtr& expr) { return expr ? sexpr(*expr) : "_"; }

std::string list(const char* head, const ast::ExprList& items) {
  std::string out = std::string("(") + head;
  for (const ast::ExprPtr& item : items) out += " " + (item ? sexpr(*item) : std::string("_"));
  return out + ")";
}

std::string generators(const std::vector<ast::Comprehension>& comprehensions) {
  std::string out;
  for (const ast::Comprehension& each : comprehensions) {
    out += " (for " + sexpr(*each.target) + " " + sexpr(*each.iter);
    for (const ast::ExprPtr& condition : each.ifs) out += " (if " + sexpr(*condition) + ")";
    out += ")";
  }
  return out;
}

}  // namespace

std::string sexpr(const ast::Expr& expr) {
  return std::visit(
      [](const auto& node) -> std::string {
        using Node = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<Node, ast::Constant>) return constant(node);
        else if constexpr (std::is_same_v<Node, ast::Name>) return node.id;
        else if constexpr (std::is_same_v<Node, ast::BinOp>)
          return fmt::format("({} {} {})", ast::binary_operator_symbol(node.op), sexpr(*node.left), sexpr(*node.right));
        else if constexpr (std::is_same_v<Node, ast::UnaryOp>)
          return fmt::format("({} {})", ast::unary_operator_symbol(node.op), sexpr(*node.operand));
        else if constexpr (std::is_same_v<Node, ast::BoolOp>)
          return list(node.op == ast::BooleanOperator::and_ ? "and" : "or", node.values);
        else if constexpr (std::is_same_v<Node, ast::Compare>) {
          std::string out = "(compare " + sexpr(*node.left);
          for (std::size_t i = 0; i < node.ops.size(); ++i)
            out += fmt::format(" {} {}", ast::compare_operator_symbol(node.ops[i]), sexpr(*node.comparators[i]));
          return out + ")";
        } else if constexpr (std::is_same_v<Node, ast::IfExp>)
          return fmt::format("(if {} {} {})", sexpr(*node.test), sexpr(*node.body), sexpr(*node.orelse));
        else if constexpr (std::is_same_v<Node, ast::Tuple>) return list("tuple", node.elts);
        else if constexpr (std::is_same_v<Node, ast::List>) return list("list", node.elts);
        else if constexpr (std::is_same_v<Node, ast::Set>) return list("set", node.elts);
        else if constexpr (std::is_same_v<Node, ast::Dict>) {
          std::string out = "(dict";
          for (std::size_t i = 0; i < node.values.size(); ++i)
            out += node.keys[i] ? fmt::format(" {}:{}", sexpr(*node.keys[i]), sexpr(*node.values[i]))
                                : " **" + sexpr(*node.values[i]);
          return out + ")";
        } else if constexpr (std::is_same_v<Node, ast::ListComp>)
          return "(listcomp " + sexpr(*node.elt) + generators(node.generators) + ")";
        else if constexpr (std::is_same_v<Node, ast::SetComp>)
          return "(setcomp " + sexpr(*node.elt) + generators(node.generators) + ")";
        else if constexpr (std::is_same_v<Node, ast::GeneratorExp>)
          return "(genexp " + sexpr(*node.elt) + generators(node.generators) + ")";
        else if constexpr (std::is_same_v<Node, ast::DictComp>)
          return "(dictcomp " + sexpr(*node.key) + ":" + sexpr(*node.value) + generators(node.generators) + ")";
        else if constexpr (std::is_same_v<Node, ast::Starred>) return "*" + sexpr(*node.value);
        else if constexpr (std::is_same_v<Node, ast::Call>) {
          std::string out = "(call " + sexpr(*node.func);
          for (const ast::ExprPtr& argument : node.args) out += " " + sexpr(*argument);
          for (const ast::Keyword& keyword : node.keywords)
            out += " " + (keyword.name ? keyword.name->name + "=" : std::string("**")) + sexpr(*keyword.value);
          return out + ")";
        } else if constexpr (std::is_same_v<Node, ast::Attribute>)
          return "(. " + sexpr(*node.value) + " " + node.attr + ")";
        else if constexpr (std::is_same_v<Node, ast::Subscript>)
          return "([] " + sexpr(*node.value) + " " + sexpr(*node.slice) + ")";
        else if constexpr (std::is_same_v<Node, ast::Slice>)
          return fmt::format("(slice {} {} {})", optional(node.lower), optional(node.upper), optional(node.step));
        else if constexpr (std::is_same_v<Node, ast::JoinedStr>) {
          std::string out = "(f";
          for (const auto& part : node.parts) {
            if (const auto* text = std::get_if<std::string>(&part)) {
              out += " '" + *text + "'";
            } else {
              const auto& field = std::get<ast::FormattedValue>(part);
              out += " {" + sexpr(*field.value);
              if (field.conversion) out += std::string("!") + field.conversion;
              if (!field.format_spec.empty()) out += ":" + field.format_spec;
              out += "}";
            }
          }
          return out + ")";
        } else if constexpr (std::is_same_v<Node, ast::Lambda>) {
          std::string out = "(lambda";
          for (const ast::Parameter& parameter : node.params.positional)
            out += " " + parameter.name.name + (parameter.default_ ? "=" + sexpr(*parameter.default_) : "");
          if (node.params.varargs) out += " *" + node.params.varargs->name.name;
          for (const ast::Parameter& parameter : node.params.keyword_only)
            out += " " + parameter.name.name + (parameter.default_ ? "=" + sexpr(*parameter.default_) : "");
          if (node.params.kwargs) out += " **" + node.params.kwargs->name.name;
          return out + ": " + sexpr(*node.body) + ")";
        } else if constexpr (std::is_same_v<Node, ast::Yield>) {
          return "(yield" + (node.value ? " " + sexpr(*node.value) : std::string()) + ")";
        } else {
          static_assert(std::is_same_v<Node, ast::YieldFrom>);
          return "(yield-from " + sexpr(*node.value) + ")";
        }
      },
      expr.node);
}

std::string sexpr_of(std::string_view text) {
  std::string error;
  auto module = parse_text(text, &error);
  if (!module) return "error: " + error;
  if (module->body.size() != 1) return "not one statement";
  const auto* statement = std::get_if<ast::ExprStmt>(&module->body[0]->node);
  if (statement == nullptr) return "not an expression statement";
  return sexpr(*statement->value);
}

std::string text_of(const Span& span) {
  if (span.file == nullptr) return "<no span>";
  return span.file->text().substr(span.begin, span.end - span.begin);
}

}  // namespace lang::testing
