#include "lang/ast.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace lang::ast {

// ORDER BinaryOperator
const char* binary_operator_symbol(BinaryOperator op) {
  static const char* const symbols[] = {"+", "-", "*", "@", "/", "//", "%", "**", "<<", ">>", "|", "^", "&"};
  return symbols[static_cast<int>(op)];
}

const char* unary_operator_symbol(UnaryOperator op) {
  switch (op) {
    case UnaryOperator::invert: return "~";
    case UnaryOperator::not_: return "not";
    case UnaryOperator::uadd: return "+";
    case UnaryOperator::usub: return "-";
  }
  return "?";
}

// ORDER CompareOperator
const char* compare_operator_symbol(CompareOperator op) {
  static const char* const symbols[] = {"==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"};
  return symbols[static_cast<int>(op)];
}

namespace {

// Python-like repr of a string constant, single-quoted.
std::string quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
          out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        else
          out += c;
    }
  }
  return out + "'";
}

std::string constant_text(const Constant& constant) {
  return std::visit(
      [](const auto& value) -> std::string {
        using Value = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<Value, NoneLiteral>) return "None";
        else if constexpr (std::is_same_v<Value, EllipsisLiteral>) return "...";
        else if constexpr (std::is_same_v<Value, bool>) return value ? "True" : "False";
        else if constexpr (std::is_same_v<Value, std::int64_t>) return std::to_string(value);
        else if constexpr (std::is_same_v<Value, double>) return fmt::format("{}", value);
        else return quote(value);
      },
      constant.value);
}

class Dumper {
 public:
  std::string out;

  void line(int depth, const std::string& text, const Span& span) {
    out.append(static_cast<std::size_t>(depth) * 2, ' ');
    out += text;
    if (span.file != nullptr) {
      Position position = span.file->position(span.begin);
      out += fmt::format(" {}:{}", position.line, position.column);
    }
    out += '\n';
  }
  void label(int depth, const char* name) {
    out.append(static_cast<std::size_t>(depth) * 2, ' ');
    out += name;
    out += ":\n";
  }

  void field(int depth, const char* name, const ExprPtr& expr) {
    if (!expr) return;
    label(depth, name);
    this->expr(depth + 1, *expr);
  }
  void field(int depth, const char* name, const ExprList& exprs) {
    if (exprs.empty()) return;
    label(depth, name);
    for (const ExprPtr& each : exprs) expr(depth + 1, *each);
  }
  void field(int depth, const char* name, const Body& body) {
    if (body.empty()) return;
    label(depth, name);
    for (const StmtPtr& each : body) stmt(depth + 1, *each);
  }

  void generators(int depth, const std::vector<Comprehension>& comprehensions) {
    for (const Comprehension& each : comprehensions) {
      label(depth, "comprehension");
      field(depth + 1, "target", each.target);
      field(depth + 1, "iter", each.iter);
      field(depth + 1, "ifs", each.ifs);
    }
  }

  void parameter(int depth, const char* kind, const Parameter& parameter) {
    line(depth, fmt::format("{} {}", kind, parameter.name.name), parameter.name.span);
    field(depth + 1, "annotation", parameter.annotation);
    field(depth + 1, "default", parameter.default_);
  }

  void parameters(int depth, const Parameters& parameters) {
    for (const Parameter& each : parameters.positional) parameter(depth, "arg", each);
    if (parameters.varargs) parameter(depth, "vararg", *parameters.varargs);
    for (const Parameter& each : parameters.keyword_only) parameter(depth, "kwonlyarg", each);
    if (parameters.kwargs) parameter(depth, "kwarg", *parameters.kwargs);
  }

  void expr(int depth, const Expr& expr) {
    const Span& span = expr.span;
    std::visit(
        [&](const auto& node) {
          using Node = std::decay_t<decltype(node)>;
          if constexpr (std::is_same_v<Node, Constant>) {
            line(depth, "Constant " + constant_text(node), span);
          } else if constexpr (std::is_same_v<Node, Name>) {
            line(depth, "Name " + node.id, span);
          } else if constexpr (std::is_same_v<Node, JoinedStr>) {
            line(depth, "JoinedStr", span);
            for (const auto& part : node.parts) {
              if (const auto* text = std::get_if<std::string>(&part)) {
                line(depth + 1, "text " + quote(*text), Span{});
              } else {
                const auto& value = std::get<FormattedValue>(part);
                std::string detail = "FormattedValue";
                if (value.conversion != 0) detail += std::string(" !") + value.conversion;
                if (!value.format_spec.empty()) detail += " :" + quote(value.format_spec);
                line(depth + 1, detail, Span{});
                this->expr(depth + 2, *value.value);
                if (value.format_spec_expr) this->expr(depth + 2, *value.format_spec_expr);
              }
            }
          } else if constexpr (std::is_same_v<Node, Tuple> || std::is_same_v<Node, List> || std::is_same_v<Node, Set>) {
            line(depth, std::is_same_v<Node, Tuple> ? "Tuple" : std::is_same_v<Node, List> ? "List" : "Set", span);
            for (const ExprPtr& each : node.elts) this->expr(depth + 1, *each);
          } else if constexpr (std::is_same_v<Node, Dict>) {
            line(depth, "Dict", span);
            for (std::size_t i = 0; i < node.values.size(); ++i) {
              if (node.keys[i]) {
                field(depth + 1, "key", node.keys[i]);
                field(depth + 1, "value", node.values[i]);
              } else {
                field(depth + 1, "unpack", node.values[i]);
              }
            }
          } else if constexpr (std::is_same_v<Node, ListComp> || std::is_same_v<Node, SetComp> ||
                               std::is_same_v<Node, GeneratorExp>) {
            line(depth,
                 std::is_same_v<Node, ListComp> ? "ListComp" : std::is_same_v<Node, SetComp> ? "SetComp" : "GeneratorExp",
                 span);
            field(depth + 1, "elt", node.elt);
            generators(depth + 1, node.generators);
          } else if constexpr (std::is_same_v<Node, DictComp>) {
            line(depth, "DictComp", span);
            field(depth + 1, "key", node.key);
            field(depth + 1, "value", node.value);
            generators(depth + 1, node.generators);
          } else if constexpr (std::is_same_v<Node, BinOp>) {
            line(depth, std::string("BinOp ") + binary_operator_symbol(node.op), span);
            this->expr(depth + 1, *node.left);
            this->expr(depth + 1, *node.right);
          } else if constexpr (std::is_same_v<Node, UnaryOp>) {
            line(depth, std::string("UnaryOp ") + unary_operator_symbol(node.op), span);
            this->expr(depth + 1, *node.operand);
          } else if constexpr (std::is_same_v<Node, BoolOp>) {
            line(depth, node.op == BooleanOperator::and_ ? "BoolOp and" : "BoolOp or", span);
            for (const ExprPtr& each : node.values) this->expr(depth + 1, *each);
          } else if constexpr (std::is_same_v<Node, Compare>) {
            std::string ops;
            for (CompareOperator op : node.ops) ops += std::string(" ") + compare_operator_symbol(op);
            line(depth, "Compare" + ops, span);
            this->expr(depth + 1, *node.left);
            for (const ExprPtr& each : node.comparators) this->expr(depth + 1, *each);
          } else if constexpr (std::is_same_v<Node, IfExp>) {
            line(depth, "IfExp", span);
            field(depth + 1, "test", node.test);
            field(depth + 1, "body", node.body);
            field(depth + 1, "orelse", node.orelse);
          } else if constexpr (std::is_same_v<Node, Starred>) {
            line(depth, "Starred", span);
            this->expr(depth + 1, *node.value);
          } else if constexpr (std::is_same_v<Node, Call>) {
            line(depth, "Call", span);
            field(depth + 1, "func", node.func);
            field(depth + 1, "args", node.args);
            for (const Keyword& keyword : node.keywords) {
              line(depth + 1, keyword.name ? "keyword " + keyword.name->name : std::string("keyword **"), keyword.span);
              this->expr(depth + 2, *keyword.value);
            }
          } else if constexpr (std::is_same_v<Node, Attribute>) {
            line(depth, "Attribute ." + node.attr, span);
            this->expr(depth + 1, *node.value);
          } else if constexpr (std::is_same_v<Node, Subscript>) {
            line(depth, "Subscript", span);
            field(depth + 1, "value", node.value);
            field(depth + 1, "slice", node.slice);
          } else if constexpr (std::is_same_v<Node, Slice>) {
            line(depth, "Slice", span);
            field(depth + 1, "lower", node.lower);
            field(depth + 1, "upper", node.upper);
            field(depth + 1, "step", node.step);
          } else if constexpr (std::is_same_v<Node, Lambda>) {
            line(depth, "Lambda", span);
            parameters(depth + 1, node.params);
            field(depth + 1, "body", node.body);
          } else if constexpr (std::is_same_v<Node, Yield>) {
            line(depth, "Yield", span);
            field(depth + 1, "value", node.value);
          } else if constexpr (std::is_same_v<Node, YieldFrom>) {
            line(depth, "YieldFrom", span);
            field(depth + 1, "value", node.value);
          }
        },
        expr.node);
  }

  void stmt(int depth, const Stmt& stmt) {
    const Span& span = stmt.span;
    std::visit(
        [&](const auto& node) {
          using Node = std::decay_t<decltype(node)>;
          if constexpr (std::is_same_v<Node, ExprStmt>) {
            line(depth, "Expr", span);
            this->expr(depth + 1, *node.value);
          } else if constexpr (std::is_same_v<Node, Assign>) {
            line(depth, "Assign", span);
            field(depth + 1, "targets", node.targets);
            field(depth + 1, "value", node.value);
          } else if constexpr (std::is_same_v<Node, AugAssign>) {
            line(depth, std::string("AugAssign ") + binary_operator_symbol(node.op) + "=", span);
            field(depth + 1, "target", node.target);
            field(depth + 1, "value", node.value);
          } else if constexpr (std::is_same_v<Node, AnnAssign>) {
            line(depth, "AnnAssign", span);
            field(depth + 1, "target", node.target);
            field(depth + 1, "annotation", node.annotation);
            field(depth + 1, "value", node.value);
          } else if constexpr (std::is_same_v<Node, FunctionDef>) {
            line(depth, "FunctionDef " + node.name.name, span);
            field(depth + 1, "decorators", node.decorators);
            parameters(depth + 1, node.params);
            field(depth + 1, "returns", node.returns);
            field(depth + 1, "body", node.body);
          } else if constexpr (std::is_same_v<Node, ClassDef>) {
            line(depth, "ClassDef " + node.name.name, span);
            field(depth + 1, "decorators", node.decorators);
            field(depth + 1, "bases", node.bases);
            for (const Keyword& keyword : node.keywords) {
              line(depth + 1, keyword.name ? "keyword " + keyword.name->name : std::string("keyword **"), keyword.span);
              this->expr(depth + 2, *keyword.value);
            }
            field(depth + 1, "body", node.body);
          } else if constexpr (std::is_same_v<Node, Return>) {
            line(depth, "Return", span);
            if (node.value) this->expr(depth + 1, *node.value);
          } else if constexpr (std::is_same_v<Node, If> || std::is_same_v<Node, While>) {
            line(depth, std::is_same_v<Node, If> ? "If" : "While", span);
            field(depth + 1, "test", node.test);
            field(depth + 1, "body", node.body);
            field(depth + 1, "orelse", node.orelse);
          } else if constexpr (std::is_same_v<Node, For>) {
            line(depth, "For", span);
            field(depth + 1, "target", node.target);
            field(depth + 1, "iter", node.iter);
            field(depth + 1, "body", node.body);
            field(depth + 1, "orelse", node.orelse);
          } else if constexpr (std::is_same_v<Node, Break>) {
            line(depth, "Break", span);
          } else if constexpr (std::is_same_v<Node, Continue>) {
            line(depth, "Continue", span);
          } else if constexpr (std::is_same_v<Node, Pass>) {
            line(depth, "Pass", span);
          } else if constexpr (std::is_same_v<Node, Try>) {
            line(depth, "Try", span);
            field(depth + 1, "body", node.body);
            for (const ExceptHandler& handler : node.handlers) {
              line(depth + 1, handler.name ? "ExceptHandler as " + handler.name->name : std::string("ExceptHandler"),
                   handler.span);
              field(depth + 2, "type", handler.type);
              field(depth + 2, "body", handler.body);
            }
            field(depth + 1, "orelse", node.orelse);
            field(depth + 1, "finalbody", node.finalbody);
          } else if constexpr (std::is_same_v<Node, Raise>) {
            line(depth, "Raise", span);
            field(depth + 1, "exc", node.exc);
            field(depth + 1, "cause", node.cause);
          } else if constexpr (std::is_same_v<Node, Assert>) {
            line(depth, "Assert", span);
            field(depth + 1, "test", node.test);
            field(depth + 1, "msg", node.msg);
          } else if constexpr (std::is_same_v<Node, Import> || std::is_same_v<Node, ImportFrom>) {
            if constexpr (std::is_same_v<Node, Import>)
              line(depth, "Import", span);
            else
              line(depth, "ImportFrom " + node.module, span);
            for (const Alias& alias : node.names)
              line(depth + 1, "alias " + alias.name + (alias.asname ? " as " + alias.asname->name : std::string()),
                   alias.span);
          } else if constexpr (std::is_same_v<Node, Global> || std::is_same_v<Node, Nonlocal>) {
            std::string text = std::is_same_v<Node, Global> ? "Global" : "Nonlocal";
            for (const Identifier& name : node.names) text += " " + name.name;
            line(depth, text, span);
          } else if constexpr (std::is_same_v<Node, Delete>) {
            line(depth, "Delete", span);
            for (const ExprPtr& each : node.targets) this->expr(depth + 1, *each);
          } else if constexpr (std::is_same_v<Node, With>) {
            line(depth, "With", span);
            for (const WithItem& item : node.items) {
              label(depth + 1, "withitem");
              field(depth + 2, "context_expr", item.context_expr);
              field(depth + 2, "optional_vars", item.optional_vars);
            }
            field(depth + 1, "body", node.body);
          } else if constexpr (std::is_same_v<Node, LineMagic>) {
            std::string text = "LineMagic %" + node.name.name;
            for (const std::string& option : node.options) text += " " + option;
            line(depth, text, span);
            this->stmt(depth + 1, *node.statement);
          }
        },
        stmt.node);
  }
};

}  // namespace

std::string dump(const Module& module) {
  Dumper dumper;
  dumper.out = "Module\n";
  for (const StmtPtr& each : module.body) dumper.stmt(1, *each);
  return dumper.out;
}

}  // namespace lang::ast
