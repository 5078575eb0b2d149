// Lexing of the grammar's tokens (grammar_tokens.hpp), and the Builder.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "lang/grammar.hpp"
#include "lang/utf8.hpp"

namespace lang::grammar {

Span Builder::span(Iterator begin, Iterator end) const {
  // Trailing spaces and block markers belong to no node.
  while (end > begin && (end[-1] == ' ' || end[-1] == marker::newline || end[-1] == marker::indent ||
                         end[-1] == marker::dedent))
    --end;
  auto begin_offset = static_cast<std::size_t>(begin - text_begin_);
  auto end_offset = static_cast<std::size_t>(end - text_begin_);
  std::uint32_t source_begin = scanned_.source_offset(begin_offset);
  std::uint32_t source_end = end_offset > begin_offset ? scanned_.source_end(end_offset) : source_begin;
  return file_.span(source_begin, std::max(source_begin, source_end));
}

std::vector<Item> Builder::take_from(std::size_t first) {
  std::vector<Item> taken;
  taken.reserve(items_.size() - first);
  for (std::size_t i = first; i < items_.size(); ++i) taken.push_back(std::move(items_[i]));
  truncate(first);
  return taken;
}

namespace {

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Every operator and delimiter, for the longest-token rule.
constexpr std::array<std::string_view, 47> operator_tokens = {
    "**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=",
    "*=",  "/=",  "%=",  "@=",  "&=",  "|=", "^=", ":=", "+",  "-",  "*",  "/",  "%",  "@",  "&",  "|",
    "^",   "~",   "<",   ">",   "(",   ")",  "[",  "]",  "{",  "}",  ",",  ":",  ".",  ";",  "="};

constexpr std::array<std::string_view, 35> keywords = {
    "False", "None",   "True",    "and",      "as",     "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",      "elif",   "else",   "except", "finally",  "for",
    "from",  "global", "if",      "import",   "in",     "is",     "lambda", "nonlocal", "not",
    "or",    "pass",   "raise",   "return",   "try",    "while",  "with",   "yield"};

bool starts_with(Iterator first, Iterator last, std::string_view text) {
  return static_cast<std::size_t>(last - first) >= text.size() && std::equal(text.begin(), text.end(), first);
}

[[noreturn]] void fail(Builder& builder, Iterator begin, Iterator end, std::string message) {
  throw SyntaxError{builder.span(begin, end), std::move(message)};
}

}  // namespace

bool match_operator(Iterator& first, Iterator last, std::string_view token) {
  if (!starts_with(first, last, token)) return false;
  for (std::string_view other : operator_tokens)
    if (other.size() > token.size() && starts_with(first, last, other)) return false;
  first += token.size();
  return true;
}

bool is_keyword(std::string_view word) {
  return std::find(keywords.begin(), keywords.end(), word) != keywords.end();
}

bool match_keyword(Iterator& first, Iterator last, std::string_view keyword) {
  if (!starts_with(first, last, keyword)) return false;
  Iterator end = first + keyword.size();
  if (end != last && is_identifier_char(*end)) return false;
  first = end;
  return true;
}

bool match_any_keyword(Iterator& first, Iterator last) {
  Iterator end = first;
  while (end != last && is_identifier_char(*end)) ++end;
  if (end == first || !is_keyword(std::string_view(first, static_cast<std::size_t>(end - first)))) return false;
  first = end;
  return true;
}

bool lex_identifier(Iterator& first, Iterator last, std::string_view& word) {
  if (first == last || !is_identifier_start(*first)) return false;
  Iterator end = first;
  while (end != last && is_identifier_char(*end)) ++end;
  std::string_view text(first, static_cast<std::size_t>(end - first));
  if (is_keyword(text)) return false;
  word = text;
  first = end;
  return true;
}

// ---------------------------------------------------------------- numbers

namespace {

// Digits of `base` with single '_' between them; appends the digits to `out`.
Iterator read_digits(Builder& builder, Iterator p, Iterator last, int base, std::string& out) {
  auto is_base_digit = [base](char c) {
    if (base == 16) return std::isxdigit(static_cast<unsigned char>(c)) != 0;
    if (base == 8) return c >= '0' && c <= '7';
    if (base == 2) return c == '0' || c == '1';
    return is_digit(c);
  };
  while (p != last) {
    if (is_base_digit(*p)) {
      out += *p++;
    } else if (*p == '_' && !out.empty() && p + 1 != last && is_base_digit(p[1])) {
      ++p;
    } else {
      break;
    }
  }
  return p;
}

}  // namespace

bool lex_number(Builder& builder, Iterator& first, Iterator last) {
  Iterator p = first;
  if (p == last) return false;
  if (!is_digit(*p) && !(*p == '.' && p + 1 != last && is_digit(p[1]))) return false;

  auto reject_suffix = [&](Iterator at) {
    if (at == last || !is_identifier_char(*at)) return;
    if (*at == 'j' || *at == 'J') fail(builder, first, at + 1, "complex literals are not supported");
    fail(builder, first, at + 1, "invalid decimal literal");
  };

  if (*p == '0' && p + 1 != last && std::string_view("xXoObB").find(p[1]) != std::string_view::npos) {
    char kind = static_cast<char>(std::tolower(static_cast<unsigned char>(p[1])));
    int base = kind == 'x' ? 16 : kind == 'o' ? 8 : 2;
    std::string digits;
    Iterator end = read_digits(builder, p + 2, last, base, digits);
    if (end != last && *end == '_') ++end;
    if (digits.empty() || (end != last && is_identifier_char(*end)))
      fail(builder, first, end == last ? end : end + 1,
           kind == 'x' ? "invalid hexadecimal literal" : kind == 'o' ? "invalid octal literal" : "invalid binary literal");
    errno = 0;
    unsigned long long value = std::strtoull(digits.c_str(), nullptr, base);
    if (errno == ERANGE || value > static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()))
      fail(builder, first, end, "integer literal is too large for a 64-bit int");
    builder.push(ast::make_expr(builder.span(first, end), ast::Constant{static_cast<std::int64_t>(value)}));
    first = end;
    return true;
  }

  std::string text;
  Iterator end = read_digits(builder, p, last, 10, text);
  bool is_float = false;
  if (end != last && *end == '.' && !starts_with(end, last, "...")) {
    is_float = true;
    text += *end++;
    std::string fraction;
    end = read_digits(builder, end, last, 10, fraction);
    text += fraction;
  }
  if (end != last && (*end == 'e' || *end == 'E')) {
    Iterator exponent = end + 1;
    std::string sign;
    if (exponent != last && (*exponent == '+' || *exponent == '-')) sign = *exponent++;
    std::string digits;
    Iterator after = read_digits(builder, exponent, last, 10, digits);
    if (digits.empty()) fail(builder, first, exponent, "invalid decimal literal");
    is_float = true;
    text += "e" + sign + digits;
    end = after;
  }
  if (end != last && *end == '_') fail(builder, first, end + 1, "invalid decimal literal");
  reject_suffix(end);

  if (is_float) {
    double value = std::strtod(text.c_str(), nullptr);
    builder.push(ast::make_expr(builder.span(first, end), ast::Constant{value}));
  } else {
    if (text.size() > 1 && text[0] == '0' && text.find_first_not_of('0') != std::string::npos)
      fail(builder, first, end,
           "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
    errno = 0;
    unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE || value > static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()))
      fail(builder, first, end, "integer literal is too large for a 64-bit int");
    builder.push(ast::make_expr(builder.span(first, end), ast::Constant{static_cast<std::int64_t>(value)}));
  }
  first = end;
  return true;
}

// ---------------------------------------------------------------- strings

namespace {


// Decodes the escape sequence at `p` (which points at the backslash) into
// `out`; returns the position after it.
Iterator decode_escape(Builder& builder, Iterator p, Iterator end, std::string& out) {
  Iterator start = p++;
  if (p == end) {
    out += '\\';
    return p;
  }
  char c = *p++;
  auto hex = [&](int count) {
    std::uint32_t value = 0;
    for (int i = 0; i < count; ++i) {
      if (p == end || !std::isxdigit(static_cast<unsigned char>(*p)))
        fail(builder, start, p, std::string("truncated \\") + c + " escape in string literal");
      char digit = *p++;
      value = value * 16 + static_cast<std::uint32_t>(is_digit(digit) ? digit - '0' : std::tolower(digit) - 'a' + 10);
    }
    return value;
  };
  switch (c) {
    case '\n': break;  // backslash-newline continues the string
    case '\\': out += '\\'; break;
    case '\'': out += '\''; break;
    case '"': out += '"'; break;
    case 'a': out += '\a'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'n': out += '\n'; break;
    case 'r': out += '\r'; break;
    case 't': out += '\t'; break;
    case 'v': out += '\v'; break;
    case 'x': out += static_cast<char>(hex(2)); break;
    case 'u': append_utf8(out, hex(4)); break;
    case 'U': {
      std::uint32_t value = hex(8);
      if (value > 0x10FFFF) fail(builder, start, p, "illegal Unicode character in \\U escape");
      append_utf8(out, value);
      break;
    }
    case 'N': fail(builder, start, p, "\\N{...} escapes are not supported");
    default:
      if (c >= '0' && c <= '7') {
        std::uint32_t value = static_cast<std::uint32_t>(c - '0');
        for (int i = 0; i < 2 && p != end && *p >= '0' && *p <= '7'; ++i) value = value * 8 + static_cast<std::uint32_t>(*p++ - '0');
        append_utf8(out, value);
      } else {
        out += '\\';  // unknown escapes stay as written, as in Python
        out += c;
      }
  }
  return p;
}

// Where the literal whose body starts at `p` ends (at its closing quote).
Iterator find_closing_quote(Iterator p, Iterator last, char quote, bool triple) {
  while (p != last) {
    if (*p == '\\') {
      p += (last - p >= 2) ? 2 : 1;
      continue;
    }
    if (*p == quote && (!triple || (last - p >= 3 && p[1] == quote && p[2] == quote))) return p;
    ++p;
  }
  return last;
}

using Parts = std::vector<std::variant<std::string, ast::FormattedValue>>;

void append_text(Parts& parts, std::string text) {
  if (text.empty()) return;
  if (!parts.empty() && std::holds_alternative<std::string>(parts.back()))
    std::get<std::string>(parts.back()) += text;
  else
    parts.emplace_back(std::move(text));
}

// The end of an f-string field's expression: the first top-level '!', ':'
// or '}' (brackets and nested strings skipped).
Iterator find_field_expression_end(Iterator p, Iterator end) {
  int depth = 0;
  while (p != end) {
    char c = *p;
    if (c == '\'' || c == '"') {
      Iterator close = find_closing_quote(p + 1, end, c, false);
      p = close == end ? end : close + 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return p;
      --depth;
    } else if (depth == 0 && ((c == '!' && (p + 1 == end || p[1] != '=')) || c == ':')) {
      return p;
    }
    ++p;
  }
  return p;
}

// Parses the body [p, end) of an f-string into `parts`.
void parse_fstring_body(Builder& builder, Iterator p, Iterator end, bool raw, Parts& parts) {
  std::string text;
  while (p != end) {
    char c = *p;
    if (c == '\\' && !raw) {
      p = decode_escape(builder, p, end, text);
    } else if (c == '{' && p + 1 != end && p[1] == '{') {
      text += '{';
      p += 2;
    } else if (c == '}' && p + 1 != end && p[1] == '}') {
      text += '}';
      p += 2;
    } else if (c == '}') {
      fail(builder, p, p + 1, "f-string: single '}' is not allowed");
    } else if (c == '{') {
      append_text(parts, std::move(text));
      text.clear();
      Iterator open = p;
      Iterator expression_begin = p + 1;
      Iterator expression_end = find_field_expression_end(expression_begin, end);
      if (std::all_of(expression_begin, expression_end, [](char ch) { return ch == ' '; }))
        fail(builder, open, expression_end, "f-string: empty expression not allowed");
      if (expression_end == end) fail(builder, open, end, "f-string: expecting '}'");
      // f'{x=}' / f'{x = }': the expression's text, '=' and spaces come first, as literal text.
      Iterator equal = expression_end;
      while (equal != expression_begin && equal[-1] == ' ') --equal;
      bool self_documenting = equal != expression_begin && equal[-1] == '=' && equal - 1 != expression_begin &&
                              std::string_view("=!<>").find(equal[-2]) == std::string_view::npos;
      parse_fstring_expression(builder, expression_begin, self_documenting ? equal - 1 : expression_end);
      if (self_documenting) append_text(parts, std::string(expression_begin, expression_end));
      ast::FormattedValue field;
      field.value = builder.pop<ast::ExprPtr>();
      p = expression_end;
      if (*p == '!') {
        ++p;
        if (p == end || (*p != 'r' && *p != 's' && *p != 'a'))
          fail(builder, p - 1, p == end ? p : p + 1, "f-string: invalid conversion character: expected 's', 'r', or 'a'");
        field.conversion = *p++;
      }
      if (p != end && *p == ':') {
        Iterator spec_begin = ++p;
        for (int depth = 0; p != end && (depth > 0 || *p != '}'); ++p) depth += *p == '{' ? 1 : *p == '}' ? -1 : 0;
        Parts spec_parts;
        parse_fstring_body(builder, spec_begin, p, raw, spec_parts);
        bool nested = std::any_of(spec_parts.begin(), spec_parts.end(),
                                  [](const auto& part) { return std::holds_alternative<ast::FormattedValue>(part); });
        if (nested)
          field.format_spec_expr = ast::make_expr(builder.span(spec_begin, p), ast::JoinedStr{std::move(spec_parts)});
        else if (!spec_parts.empty())
          field.format_spec = std::get<std::string>(spec_parts.front());
      } else if (self_documenting && field.conversion == 0) {
        field.conversion = 'r';
      }
      if (p == end || *p != '}') fail(builder, open, p, "f-string: expecting '}'");
      ++p;
      parts.emplace_back(std::move(field));
    } else {
      text += c;
      ++p;
    }
  }
  append_text(parts, std::move(text));
}

}  // namespace

bool lex_strings(Builder& builder, Iterator& first, Iterator last) {
  Parts parts;
  bool any_literal = false;
  bool any_fstring = false;
  Iterator p = first;
  Iterator literals_end = first;
  for (;;) {
    Iterator q = p;
    if (any_literal)
      while (q != last && *q == ' ') ++q;
    Iterator literal_begin = q;
    bool raw = false, format = false, bytes = false;
    while (q != last && q - literal_begin < 2 && std::string_view("rRfFbBuU").find(*q) != std::string_view::npos) {
      char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(*q)));
      raw |= lower == 'r';
      format |= lower == 'f';
      bytes |= lower == 'b';
      ++q;
    }
    if (q == last || (*q != '\'' && *q != '"')) break;
    if (q != literal_begin && literal_begin != first && is_identifier_char(literal_begin[-1])) break;
    char quote = *q;
    bool triple = last - q >= 3 && q[1] == quote && q[2] == quote;
    Iterator body_begin = q + (triple ? 3 : 1);
    Iterator body_end = find_closing_quote(body_begin, last, quote, triple);
    if (body_end == last) fail(builder, literal_begin, last, "unterminated string literal");
    if (bytes) fail(builder, literal_begin, body_end + 1, "bytes literals are not supported");
    if (format) {
      any_fstring = true;
      parse_fstring_body(builder, body_begin, body_end, raw, parts);
    } else {
      std::string text;
      for (Iterator c = body_begin; c != body_end;) {
        if (*c == '\\' && !raw) {
          c = decode_escape(builder, c, body_end, text);
        } else {
          text += *c++;
        }
      }
      append_text(parts, std::move(text));
    }
    any_literal = true;
    p = body_end + (triple ? 3 : 1);
    literals_end = p;
  }
  if (!any_literal) return false;
  Span span = builder.span(first, literals_end);
  if (any_fstring) {
    builder.push(ast::make_expr(span, ast::JoinedStr{std::move(parts)}));
  } else {
    std::string text = parts.empty() ? std::string() : std::get<std::string>(std::move(parts.front()));
    builder.push(ast::make_expr(span, ast::Constant{std::move(text)}));
  }
  first = literals_end;
  return true;
}

bool lex_magic_options(Builder& builder, Iterator& first, Iterator last) {
  Iterator p = first;
  for (;;) {
    Iterator q = p;
    while (q != last && *q == ' ') ++q;
    if (q == last || *q != '-' || q + 1 == last || !std::isalpha(static_cast<unsigned char>(q[1]))) break;
    Iterator flag_end = q + 1;
    while (flag_end != last && std::isalpha(static_cast<unsigned char>(*flag_end))) ++flag_end;
    builder.push(MagicOption{std::string(q, flag_end)});
    p = flag_end;
    Iterator value = p;
    while (value != last && *value == ' ') ++value;
    Iterator value_end = value;
    while (value_end != last && is_digit(*value_end)) ++value_end;
    if (value_end != value && (value_end == last || !is_identifier_char(*value_end))) {
      builder.push(MagicOption{std::string(value, value_end)});
      p = value_end;
    }
  }
  first = p;
  return true;
}

// ---------------------------------------------------------------- targets

namespace {

const char* describe_for_target_error(const ast::Expr& expr) {
  return std::visit(
      [](const auto& node) -> const char* {
        using Node = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<Node, ast::Call>) return "function call";
        else if constexpr (std::is_same_v<Node, ast::Constant>) {
          if (std::holds_alternative<ast::NoneLiteral>(node.value)) return "None";
          if (std::holds_alternative<bool>(node.value)) return std::get<bool>(node.value) ? "True" : "False";
          if (std::holds_alternative<ast::EllipsisLiteral>(node.value)) return "ellipsis";
          return "literal";
        }
        else if constexpr (std::is_same_v<Node, ast::JoinedStr>) return "f-string expression";
        else if constexpr (std::is_same_v<Node, ast::Compare>) return "comparison";
        else if constexpr (std::is_same_v<Node, ast::Lambda>) return "lambda";
        else if constexpr (std::is_same_v<Node, ast::IfExp>) return "conditional expression";
        else if constexpr (std::is_same_v<Node, ast::Dict>) return "dict literal";
        else if constexpr (std::is_same_v<Node, ast::Set>) return "set display";
        else if constexpr (std::is_same_v<Node, ast::ListComp>) return "list comprehension";
        else if constexpr (std::is_same_v<Node, ast::SetComp>) return "set comprehension";
        else if constexpr (std::is_same_v<Node, ast::DictComp>) return "dict comprehension";
        else if constexpr (std::is_same_v<Node, ast::GeneratorExp>) return "generator expression";
        else if constexpr (std::is_same_v<Node, ast::Slice>) return "slice";
        else return "expression";
      },
      expr.node);
}

}  // namespace

void check_target(const ast::Expr& target, const char* verb) {
  const ast::ExprList* elements = nullptr;
  if (auto* tuple = std::get_if<ast::Tuple>(&target.node)) elements = &tuple->elts;
  if (auto* list = std::get_if<ast::List>(&target.node)) elements = &list->elts;
  if (elements != nullptr) {
    int starred = 0;
    for (const ast::ExprPtr& element : *elements) {
      if (auto* star = std::get_if<ast::Starred>(&element->node)) {
        if (++starred > 1 && std::string_view(verb) == "assign to")
          throw SyntaxError{element->span, "multiple starred expressions in assignment"};
        if (std::string_view(verb) != "assign to") throw SyntaxError{element->span, std::string("cannot ") + verb + " starred"};
        check_target(*star->value, verb);
      } else {
        check_target(*element, verb);
      }
    }
    return;
  }
  if (std::holds_alternative<ast::Name>(target.node) || std::holds_alternative<ast::Attribute>(target.node) ||
      std::holds_alternative<ast::Subscript>(target.node))
    return;
  if (std::holds_alternative<ast::Starred>(target.node))
    throw SyntaxError{target.span, std::string("starred ") + (std::string_view(verb) == "assign to" ? "assignment target" : "expression") +
                                       " must be in a list or tuple"};
  throw SyntaxError{target.span, std::string("cannot ") + verb + " " + describe_for_target_error(target)};
}

}  // namespace lang::grammar
