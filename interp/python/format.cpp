#include "interp/python/format.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "interp/python/evaluator.hpp"
#include "interp/python/exceptions.hpp"
#include "interp/python/objects.hpp"

namespace interp {

// ------------------------------------------------------------ repr

std::string float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string text(buffer, result.ptr);  // shortest round-trip: "-1.2345e+02"
  std::string sign;
  if (text[0] == '-') {
    sign = "-";
    text.erase(0, 1);
  }
  auto e = text.find('e');
  int exponent = std::atoi(text.c_str() + e + 1);
  std::string digits;
  for (std::size_t i = 0; i < e; ++i)
    if (text[i] != '.') digits += text[i];
  // Python's repr: positional notation for 1e-4 <= |x| < 1e16, else exponent.
  if (exponent >= -4 && exponent < 16) {
    if (exponent >= 0) {
      std::string integer_part = digits.substr(0, std::min<std::size_t>(digits.size(), exponent + 1));
      while (static_cast<int>(integer_part.size()) < exponent + 1) integer_part += '0';
      std::string fraction = digits.size() > static_cast<std::size_t>(exponent + 1) ? digits.substr(exponent + 1) : "0";
      return sign + integer_part + "." + fraction;
    }
    return sign + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  }
  std::string mantissa = digits.substr(0, 1);
  if (digits.size() > 1) mantissa += "." + digits.substr(1);
  char exponent_text[16];
  std::snprintf(exponent_text, sizeof exponent_text, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return sign + mantissa + exponent_text;
}

std::string string_repr(std::string_view text) {
  bool has_single = text.find('\'') != std::string_view::npos;
  bool has_double = text.find('"') != std::string_view::npos;
  char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c == static_cast<unsigned char>(quote)) {
          out += '\\';
          out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += quote;
  return out;
}

// ------------------------------------------------------------ format specs

namespace {

struct FormatSpec {
  std::string fill = " ";
  char align = 0;  // < > ^ =
  char sign = '-';
  bool alternate = false;
  bool zero = false;
  int width = -1;
  char grouping = 0;  // , or _
  int precision = -1;
  char type = 0;
};

std::size_t utf8_length(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

bool is_align(char c) { return c == '<' || c == '>' || c == '^' || c == '='; }

FormatSpec parse_spec(std::string_view text) {
  FormatSpec spec;
  std::size_t i = 0;
  // [[fill]align]: the fill may be a multi-byte character.
  std::size_t first_length = 1;
  if (!text.empty() && (static_cast<unsigned char>(text[0]) & 0x80))
    while (first_length < text.size() && (static_cast<unsigned char>(text[first_length]) & 0xC0) == 0x80) ++first_length;
  if (text.size() > first_length && is_align(text[first_length])) {
    spec.fill = std::string(text.substr(0, first_length));
    spec.align = text[first_length];
    i = first_length + 1;
  } else if (!text.empty() && is_align(text[0])) {
    spec.align = text[0];
    i = 1;
  }
  if (i < text.size() && (text[i] == '+' || text[i] == '-' || text[i] == ' ')) spec.sign = text[i++];
  if (i < text.size() && text[i] == '#') {
    spec.alternate = true;
    ++i;
  }
  if (i < text.size() && text[i] == '0') {
    spec.zero = true;
    ++i;
  }
  auto read_number = [&]() {
    int n = 0;
    bool any = false;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      n = n * 10 + (text[i++] - '0');
      any = true;
      if (n > 100000000) raise(exc::ValueError(), "Too many decimal digits in format string");
    }
    return any ? n : -1;
  };
  spec.width = read_number();
  if (i < text.size() && (text[i] == ',' || text[i] == '_')) spec.grouping = text[i++];
  if (i < text.size() && text[i] == '.') {
    ++i;
    spec.precision = read_number();
    if (spec.precision < 0) raise(exc::ValueError(), "Format specifier missing precision");
  }
  if (i < text.size()) spec.type = text[i++];
  if (i < text.size()) raise(exc::ValueError(), "Invalid format specifier '" + std::string(text) + "'");
  return spec;
}

// Pads `sign_and_prefix + body` to the width with the fill and alignment.
std::string pad(const FormatSpec& spec, const std::string& prefix, const std::string& body, char default_align) {
  char align = spec.align ? spec.align : default_align;
  std::string fill = spec.fill;
  if (spec.zero && !spec.align) {
    align = '=';
    fill = "0";
  }
  std::size_t length = utf8_length(prefix) + utf8_length(body);
  if (spec.width < 0 || length >= static_cast<std::size_t>(spec.width)) return prefix + body;
  std::size_t missing = static_cast<std::size_t>(spec.width) - length;
  auto repeat = [&](std::size_t n) {
    std::string out;
    for (std::size_t k = 0; k < n; ++k) out += fill;
    return out;
  };
  switch (align) {
    case '<': return prefix + body + repeat(missing);
    case '^': return repeat(missing / 2) + prefix + body + repeat(missing - missing / 2);
    case '=': return prefix + repeat(missing) + body;
    default: return repeat(missing) + prefix + body;
  }
}

std::string group_digits(const std::string& digits, char separator, std::size_t every) {
  if (!separator) return digits;
  std::string out;
  std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % every == 0) out += separator;
    out += digits[i];
  }
  return out;
}

std::string sign_of(bool negative, char sign) {
  if (negative) return "-";
  if (sign == '+') return "+";
  if (sign == ' ') return " ";
  return "";
}

std::string format_float_body(double magnitude, const FormatSpec& spec, char type, int precision) {
  if (std::isinf(magnitude)) return std::isupper(static_cast<unsigned char>(type)) ? "INF" : "inf";
  if (std::isnan(magnitude)) return std::isupper(static_cast<unsigned char>(type)) ? "NAN" : "nan";
  char format[16];
  std::snprintf(format, sizeof format, "%%%s.%d%c", spec.alternate ? "#" : "", precision, type);
  int needed = std::snprintf(nullptr, 0, format, magnitude);
  std::string out(static_cast<std::size_t>(needed) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, magnitude);
  out.resize(static_cast<std::size_t>(needed));
  return out;
}

std::string format_float(double value, const FormatSpec& spec) {
  if (spec.type && std::string_view("eEfFgGn%").find(spec.type) == std::string_view::npos)
    raise(exc::ValueError(), std::string("Unknown format code '") + spec.type + "' for object of type 'float'");
  bool negative = std::signbit(value) && !std::isnan(value);
  double magnitude = std::fabs(value);
  std::string body;
  char type = spec.type;
  if (type == 0 && spec.precision < 0) {
    body = float_repr(magnitude);
  } else if (type == 0 || type == 'n') {
    body = format_float_body(magnitude, spec, 'g', spec.precision < 0 ? 6 : spec.precision);
    if (type == 0 && std::isfinite(magnitude) && body.find_first_of(".e") == std::string::npos) body += ".0";
  } else if (type == '%') {
    body = format_float_body(magnitude * 100, spec, 'f', spec.precision < 0 ? 6 : spec.precision) + "%";
  } else {
    body = format_float_body(magnitude, spec, type, spec.precision < 0 ? 6 : spec.precision);
  }
  if (spec.grouping && std::isfinite(magnitude)) {
    std::size_t end = body.find_first_not_of("0123456789");
    if (end == std::string::npos) end = body.size();
    body = group_digits(body.substr(0, end), spec.grouping, 3) + body.substr(end);
  }
  return pad(spec, sign_of(negative, spec.sign), body, '>');
}

std::string format_int(std::int64_t value, const FormatSpec& spec) {
  char type = spec.type ? spec.type : 'd';
  if (std::string_view("eEfFgG%").find(type) != std::string_view::npos)
    return format_float(static_cast<double>(value), spec);
  if (spec.precision >= 0) raise(exc::ValueError(), "Precision not allowed in integer format specifier");
  bool negative = value < 0;
  unsigned long long magnitude = negative ? 0ULL - static_cast<unsigned long long>(value) : static_cast<unsigned long long>(value);
  std::string digits, prefix;
  std::size_t group = 3;
  auto in_base = [&](unsigned base, const char* alphabet) {
    if (magnitude == 0) return std::string("0");
    std::string out;
    for (unsigned long long m = magnitude; m > 0; m /= base) out.insert(out.begin(), alphabet[m % base]);
    return out;
  };
  switch (type) {
    case 'd':
    case 'n': digits = in_base(10, "0123456789"); break;
    case 'b': digits = in_base(2, "01"); prefix = "0b"; group = 4; break;
    case 'o': digits = in_base(8, "01234567"); prefix = "0o"; group = 4; break;
    case 'x': digits = in_base(16, "0123456789abcdef"); prefix = "0x"; group = 4; break;
    case 'X': digits = in_base(16, "0123456789ABCDEF"); prefix = "0X"; group = 4; break;
    case 'c': {
      std::string out;
      out += static_cast<char>(magnitude);
      return pad(spec, "", out, '<');
    }
    default:
      raise(exc::ValueError(), std::string("Unknown format code '") + type + "' for object of type 'int'");
  }
  if (!spec.alternate) prefix.clear();
  return pad(spec, sign_of(negative, spec.sign) + prefix, group_digits(digits, spec.grouping, group), '>');
}

std::string format_str(const std::string& value, const FormatSpec& spec) {
  if (spec.type && spec.type != 's')
    raise(exc::ValueError(), std::string("Unknown format code '") + spec.type + "' for object of type 'str'");
  if (spec.align == '=') raise(exc::ValueError(), "'=' alignment not allowed in string format specifier");
  if (spec.sign != '-') raise(exc::ValueError(), "Sign not allowed in string format specifier");
  std::string body = value;
  if (spec.precision >= 0) {
    std::size_t count = 0, i = 0;
    for (; i < body.size(); ++i) {
      if ((static_cast<unsigned char>(body[i]) & 0xC0) != 0x80) {
        if (count == static_cast<std::size_t>(spec.precision)) break;
        ++count;
      }
    }
    body.resize(i);
  }
  return pad(spec, "", body, '<');
}

}  // namespace

std::string format_value(Evaluator& evaluator, const Value& value, std::string_view spec_text) {
  if (value.has_hooks()) {
    if (auto custom = value.object()->format(evaluator, spec_text)) return *custom;
  }
  if (spec_text.empty()) return evaluator.str(value);
  FormatSpec spec = parse_spec(spec_text);
  if (value.is_integral()) return format_int(value.as_int(), spec);
  if (value.is_float()) return format_float(value.as_float(), spec);
  if (const std::string* s = string_of(value)) return format_str(*s, spec);
  raise(exc::TypeError(), "unsupported format string passed to " + type_name(value) + ".__format__");
}

// ------------------------------------------------------------ str.format

std::string format_string(Evaluator& evaluator, std::string_view format, const CallArgs& args) {
  std::string out;
  std::size_t next_auto = 0;
  bool used_auto = false, used_manual = false;

  auto resolve_field = [&](std::string_view field) -> Value {
    std::size_t end = field.find_first_of(".[");
    std::string_view head = field.substr(0, end);
    Value value;
    if (head.empty() || std::isdigit(static_cast<unsigned char>(head[0]))) {
      std::size_t index;
      if (head.empty()) {
        if (used_manual)
          raise(exc::ValueError(), "cannot switch from manual field specification to automatic field numbering");
        used_auto = true;
        index = next_auto++;
      } else {
        if (used_auto)
          raise(exc::ValueError(), "cannot switch from automatic field numbering to manual field specification");
        used_manual = true;
        index = static_cast<std::size_t>(std::atoll(std::string(head).c_str()));
      }
      if (index >= args.positional.size())
        raise(exc::IndexError(), "Replacement index " + std::to_string(index) + " out of range for positional args tuple");
      value = args.positional[index];
    } else {
      bool found = false;
      for (const auto& [name, v] : args.keywords)
        if (name == head) {
          value = v;
          found = true;
        }
      if (!found) raise_value(exc::KeyError(), make_str(std::string(head)));
    }
    while (end != std::string_view::npos && end < field.size()) {
      if (field[end] == '.') {
        std::size_t next = field.find_first_of(".[", end + 1);
        value = evaluator.get_attribute(value, std::string(field.substr(end + 1, next - end - 1)));
        end = next;
      } else {
        std::size_t close = field.find(']', end);
        if (close == std::string_view::npos) raise(exc::ValueError(), "Missing ']' in format string");
        std::string key(field.substr(end + 1, close - end - 1));
        bool numeric = !key.empty() && key.find_first_not_of("0123456789") == std::string::npos;
        value = evaluator.get_item(value, numeric ? Value::integer(std::atoll(key.c_str())) : make_str(key));
        end = close + 1;
      }
    }
    return value;
  };

  for (std::size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if (c == '}') {
      if (i + 1 < format.size() && format[i + 1] == '}') {
        out += '}';
        ++i;
        continue;
      }
      raise(exc::ValueError(), "Single '}' encountered in format string");
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    // Find the matching '}' (the spec may hold one level of nested fields).
    std::size_t depth = 1, j = i + 1;
    for (; j < format.size() && depth > 0; ++j) {
      if (format[j] == '{') ++depth;
      if (format[j] == '}') --depth;
    }
    if (depth != 0) raise(exc::ValueError(), "expected '}' before end of string");
    std::string_view inside = format.substr(i + 1, j - i - 2);
    i = j - 1;
    std::size_t colon = std::string_view::npos, bang = std::string_view::npos;
    for (std::size_t k = 0, brackets = 0; k < inside.size(); ++k) {
      if (inside[k] == '[') ++brackets;
      if (inside[k] == ']' && brackets) --brackets;
      if (brackets) continue;
      if (inside[k] == '!' && bang == std::string_view::npos && colon == std::string_view::npos) bang = k;
      if (inside[k] == ':') {
        colon = k;
        break;
      }
    }
    std::string_view field = inside.substr(0, std::min(bang, colon));
    char conversion = 0;
    if (bang != std::string_view::npos) {
      if (bang + 1 >= inside.size() || (colon != std::string_view::npos && colon != bang + 2))
        raise(exc::ValueError(), "expected ':' after conversion specifier");
      conversion = inside[bang + 1];
    }
    std::string spec = colon == std::string_view::npos ? std::string() : std::string(inside.substr(colon + 1));
    if (spec.find('{') != std::string::npos) spec = format_string(evaluator, spec, args);
    Value value = resolve_field(field);
    if (conversion == 'r') value = make_str(evaluator.repr(value));
    else if (conversion == 's') value = make_str(evaluator.str(value));
    else if (conversion == 'a') value = make_str(evaluator.repr(value));
    else if (conversion != 0) raise(exc::ValueError(), std::string("Unknown conversion specifier ") + conversion);
    out += format_value(evaluator, value, spec);
  }
  return out;
}

// ------------------------------------------------------------ printf style

std::string percent_format(Evaluator& evaluator, std::string_view format, const Value& args) {
  std::vector<Value> values;
  const DictObject* mapping = args.as<DictObject>();
  if (auto* t = args.as<TupleObject>()) values = t->items;
  else if (!mapping) values.push_back(args);
  std::size_t next = 0;
  std::string out;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    if (++i >= format.size()) raise(exc::ValueError(), "incomplete format");
    Value value;
    bool have_value = false;
    if (format[i] == '(') {
      std::size_t close = format.find(')', i);
      if (close == std::string_view::npos || !mapping) raise(exc::TypeError(), "format requires a mapping");
      value = evaluator.get_item(args, make_str(std::string(format.substr(i + 1, close - i - 1))));
      have_value = true;
      i = close + 1;
    }
    FormatSpec spec;
    for (; i < format.size() && std::string_view("-+ #0").find(format[i]) != std::string_view::npos; ++i) {
      if (format[i] == '-') spec.align = '<';
      else if (format[i] == '0') spec.zero = true;
      else if (format[i] == '#') spec.alternate = true;
      else spec.sign = format[i];
    }
    auto number = [&]() {
      int n = -1;
      if (i < format.size() && format[i] == '*') {
        if (next >= values.size()) raise(exc::TypeError(), "not enough arguments for format string");
        ++i;
        std::int64_t star = values[next++].as_int();
        if (star > 100000000 || star < -100000000) raise(exc::ValueError(), "width too big");
        return static_cast<int>(star);
      }
      while (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i]))) {
        n = (n < 0 ? 0 : n * 10) + (format[i++] - '0');
        if (n > 100000000) raise(exc::ValueError(), "width too big");
      }
      return n;
    };
    spec.width = number();
    if (i < format.size() && format[i] == '.') {
      ++i;
      spec.precision = std::max(0, number());
    }
    if (i >= format.size()) raise(exc::ValueError(), "incomplete format");
    char type = format[i];
    if (type == '%') {
      out += '%';
      continue;
    }
    if (spec.align == '<') spec.zero = false;
    if (!have_value) {
      if (next >= values.size()) raise(exc::TypeError(), "not enough arguments for format string");
      value = values[next++];
    }
    switch (type) {
      case 's': spec.type = 0; out += pad(spec, "", evaluator.str(value).substr(0, spec.precision < 0 ? std::string::npos : spec.precision), '>'); break;
      case 'r': out += pad(spec, "", evaluator.repr(value), '>'); break;
      case 'd':
      case 'i':
      case 'u':
        if (!value.is_number()) raise(exc::TypeError(), "%" + std::string(1, type) + " format: a real number is required, not " + type_name(value));
        spec.precision = -1;
        spec.type = 'd';
        out += format_int(value.is_float() ? static_cast<std::int64_t>(value.as_float()) : value.as_int(), spec);
        break;
      case 'x':
      case 'X':
      case 'o':
        if (!value.is_integral()) raise(exc::TypeError(), "%" + std::string(1, type) + " format: an integer is required, not " + type_name(value));
        spec.precision = -1;
        spec.type = type;
        out += format_int(value.as_int(), spec);
        break;
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G':
        if (!value.is_number()) raise(exc::TypeError(), "must be real number, not " + type_name(value));
        spec.type = type;
        out += format_float(value.as_float(), spec);
        break;
      case 'c': spec.type = 0; out += pad(spec, "", value.is_integral() ? std::string(1, static_cast<char>(value.as_int())) : evaluator.str(value), '>'); break;
      default: raise(exc::ValueError(), std::string("unsupported format character '") + type + "'");
    }
  }
  if (next < values.size() && !mapping) raise(exc::TypeError(), "not all arguments converted during string formatting");
  return out;
}

// ------------------------------------------------------------ signatures

std::string signature_text(Evaluator& evaluator, const Signature& signature) {
  using Kind = Parameter::Kind;
  std::vector<std::string> parts;
  bool keyword_marker_needed = true;
  const auto& parameters = signature.parameters;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const Parameter& parameter = parameters[i];
    if (parameter.kind == Kind::keyword_only && keyword_marker_needed) {
      parts.emplace_back("*");
      keyword_marker_needed = false;
    }
    std::string text = parameter.name;
    if (parameter.kind == Kind::varargs) {
      text = "*" + text;
      keyword_marker_needed = false;
    } else if (parameter.kind == Kind::kwargs) {
      text = "**" + text;
    } else if (parameter.default_value) {
      text += "=" + evaluator.repr(*parameter.default_value);
    } else if (!parameter.required) {
      text += "=<optional>";  // may be left out; no default value stands for it
    }
    parts.push_back(text);
    bool last_positional_only = parameter.kind == Kind::positional_only &&
                                (i + 1 == parameters.size() || parameters[i + 1].kind != Kind::positional_only);
    if (last_positional_only) parts.emplace_back("/");
  }
  std::string out = signature.name + "(";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + ")";
}

}  // namespace interp
