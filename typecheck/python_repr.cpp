#include "typecheck/python_repr.hpp"

namespace typecheck {

std::string python_string_repr(std::string_view text) {
  // Python picks double quotes only when the text has ' and no ".
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (char c : text) {
    if (c == '\\' || c == quote) out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += quote;
  return out;
}

std::string python_tuple_repr(const std::vector<std::string>& item_reprs) {
  std::string out = "(";
  for (std::size_t i = 0; i < item_reprs.size(); ++i) {
    if (i > 0) out += ", ";
    out += item_reprs[i];
  }
  if (item_reprs.size() == 1) out += ',';
  out += ')';
  return out;
}

std::string python_set_repr(const std::vector<std::string>& items) {
  if (items.empty()) return "set()";
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += python_string_repr(items[i]);
  }
  out += '}';
  return out;
}

std::string python_shape_repr(std::span<const std::int64_t> shape) {
  std::vector<std::string> items;
  items.reserve(shape.size());
  for (std::int64_t size : shape) items.push_back(std::to_string(size));
  return python_tuple_repr(items);
}

}  // namespace typecheck
