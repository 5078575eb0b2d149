// The str type's constructor and methods.
#include "interp/python/builtin_types.hpp"

#include <algorithm>

#include "interp/python/format.hpp"

namespace interp {

namespace ast = lang::ast;

namespace {

// str.split / str.rsplit: on runs of whitespace (sep=None) or on sep, at most
// maxsplit times, counted from the left or the right.
Value split_text(Evaluator& ev, Arguments& a, bool from_right) {
  const std::string& s = text_of(a[0], "self");
  std::int64_t maxsplit = ev.index_of(a[2]);
  std::vector<std::string> parts;
  if (a[1].is_none()) {
    std::vector<std::pair<std::size_t, std::size_t>> words;
    for (std::size_t i = 0; i < s.size();) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      if (i >= s.size()) break;
      std::size_t j = i;
      while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
      words.emplace_back(i, j);
      i = j;
    }
    if (maxsplit >= 0 && static_cast<std::int64_t>(words.size()) > maxsplit + 1) {
      if (from_right) {
        std::size_t keep = words.size() - static_cast<std::size_t>(maxsplit);
        std::string head = s.substr(words[0].first, words[keep - 1].second - words[0].first);
        parts.push_back(head);
        for (std::size_t k = keep; k < words.size(); ++k) parts.push_back(s.substr(words[k].first, words[k].second - words[k].first));
      } else {
        for (std::int64_t k = 0; k < maxsplit; ++k) parts.push_back(s.substr(words[k].first, words[k].second - words[k].first));
        std::size_t start = words[static_cast<std::size_t>(maxsplit)].first;
        std::size_t end = s.find_last_not_of(" \t\n\r\f\v");
        parts.push_back(s.substr(start, end + 1 - start));
      }
    } else {
      for (auto [i, j] : words) parts.push_back(s.substr(i, j - i));
    }
  } else {
    const std::string& sep = text_of(a[1], "separator");
    if (sep.empty()) raise(exc::ValueError(), "empty separator");
    if (!from_right) {
      std::size_t start = 0;
      for (std::int64_t n = 0; maxsplit < 0 || n < maxsplit; ++n) {
        std::size_t at = s.find(sep, start);
        if (at == std::string::npos) break;
        parts.push_back(s.substr(start, at - start));
        start = at + sep.size();
      }
      parts.push_back(s.substr(start));
    } else {
      std::size_t end = s.size();
      std::vector<std::string> reversed_parts;
      for (std::int64_t n = 0; maxsplit < 0 || n < maxsplit; ++n) {
        if (end < sep.size()) break;
        std::size_t at = s.rfind(sep, end - sep.size());
        if (at == std::string::npos) break;
        reversed_parts.push_back(s.substr(at + sep.size(), end - at - sep.size()));
        end = at;
      }
      parts.push_back(s.substr(0, end));
      parts.insert(parts.end(), reversed_parts.rbegin(), reversed_parts.rend());
    }
  }
  std::vector<Value> out;
  for (auto& p : parts) out.push_back(make_str(std::move(p)));
  return make_list(std::move(out));
}

// str.strip / lstrip / rstrip: chars (default whitespace) off either end.
Value strip_text(Arguments& a, bool left, bool right) {
  const std::string& s = text_of(a[0], "self");
  std::string chars = a[1].is_none() ? std::string(" \t\n\r\f\v") : text_of(a[1], "strip arg");
  std::size_t begin = left ? s.find_first_not_of(chars) : 0;
  if (begin == std::string::npos) return make_str("");
  std::size_t end = right ? s.find_last_not_of(chars) : s.size() - 1;
  return make_str(s.substr(begin, end + 1 - begin));
}

// str.startswith / endswith: a prefix or suffix, or any of a tuple of them.
Value has_affix(Evaluator& ev, Arguments& a, bool prefix) {
  const std::string& s = text_of(a[0], "self");
  std::vector<Value> candidates = a[1].as<TupleObject>() ? a[1].as<TupleObject>()->items : std::vector<Value>{a[1]};
  for (const auto& c : candidates) {
    const std::string* t = string_of(c);
    if (!t)
      raise(exc::TypeError(), std::string(prefix ? "startswith" : "endswith") +
                                  " first arg must be str or a tuple of str, not " + type_name(c));
    (void)ev;
    if (prefix ? s.compare(0, t->size(), *t) == 0 && s.size() >= t->size()
               : s.size() >= t->size() && s.compare(s.size() - t->size(), t->size(), *t) == 0)
      return Value::boolean(true);
  }
  return Value::boolean(false);
}

// str.upper / lower: f applied to each byte.
Value change_case(Arguments& a, int (*f)(int)) {
  std::string s = text_of(a[0], "self");
  for (auto& c : s) c = static_cast<char>(f(static_cast<unsigned char>(c)));
  return make_str(std::move(s));
}

// str.find / rfind / index: the position of sub in s[start:end], or -1.
std::int64_t find_text(Evaluator& ev, Arguments& a, bool from_right) {
  const std::string& s = text_of(a[0], "self");
  const std::string& sub = text_of(a[1], "must be str, not");
  std::int64_t n = static_cast<std::int64_t>(s.size());
  auto clamp = [&](std::int64_t i) { return i < 0 ? std::max<std::int64_t>(0, i + n) : std::min(i, n); };
  std::int64_t start = a[2].is_none() ? 0 : clamp(ev.index_of(a[2]));
  std::int64_t end = a[3].is_none() ? n : clamp(ev.index_of(a[3]));
  if (end - start < static_cast<std::int64_t>(sub.size())) return -1;
  std::string_view window = std::string_view(s).substr(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start));
  std::size_t at = from_right ? window.rfind(sub) : window.find(sub);
  return at == std::string_view::npos ? -1 : start + static_cast<std::int64_t>(at);
}

// str.ljust / rjust / center: s padded with fillchar to width code points.
Value justify_text(Evaluator& ev, Arguments& a, char align) {
  const std::string& s = text_of(a[0], "self");
  const std::string& fill = text_of(a[2], "fillchar");
  std::int64_t width = ev.index_of(a[1]);
  if (width > (std::int64_t{1} << 32)) raise(exc::MemoryError(), "");
  auto* str_object = a[0].as<StrObject>();
  std::int64_t length = str_object->code_point_count();
  if (width <= length) return a[0];
  std::int64_t missing = width - length;
  std::int64_t left = align == '<' ? 0 : align == '>' ? missing : missing / 2 + (missing & width & 1);
  std::string out;
  for (std::int64_t i = 0; i < left; ++i) out += fill;
  out += s;
  for (std::int64_t i = 0; i < missing - left; ++i) out += fill;
  return make_str(std::move(out));
}

// str.isdigit / isalpha / isspace / isalnum: a nonempty string all of whose
// bytes pass test.
Value all_chars(Arguments& a, int (*test)(int)) {
  const std::string& s = text_of(a[0], "self");
  return Value::boolean(!s.empty() && std::all_of(s.begin(), s.end(), [&](char c) { return test(static_cast<unsigned char>(c)) != 0; }));
}

}  // namespace

void install_str_type(TypeObject& type) {
  static constexpr TypeObject::OneArgument make = [](Evaluator& ev, const Value& object) {
    // A plain int's digits (the commonest str(x)), known to be ASCII.
    if (object.is_int() && !object.has_hooks())
      return Value(std::make_shared<StrObject>(std::to_string(object.as_int()), true));
    return string_of(object) && type_of(object) == types::str() ? object : make_str(ev.str(object));
  };
  type.set_constructor(constructor("str(object='', /)", [](Evaluator& ev, Arguments& a) { return make(ev, a[0]); }));
  type.set_one_argument(make);
  add_protocol_dunders<StrObject>(type, true, false);
  add_hash_dunder<StrObject>(type);
  type.add_method("__str__(self, /)", [](Evaluator&, Arguments& a) { return make_str(text_of(a[0], "self")); });
  type.add_method("format(self, /, *args, **kwargs)", [](Evaluator& ev, Arguments& a) {
    CallArgs args;
    args.positional = a[1].as<TupleObject>()->items;
    for (const auto& e : dict_of(a[2]).table.entries())
      if (e.live) args.keywords.emplace_back(*string_of(e.key), e.value);
    return make_str(format_string(ev, text_of(a[0], "self"), args));
  });
  type.add_method("join(self, iterable, /)", [](Evaluator& ev, Arguments& a) {
    std::string out;
    const std::string& sep = text_of(a[0], "self");
    std::vector<Value> items = ev.to_vector(a[1]);
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string* s = string_of(items[i]);
      if (!s) raise(exc::TypeError(), "sequence item " + std::to_string(i) + ": expected str instance, " + type_name(items[i]) + " found");
      if (i) out += sep;
      out += *s;
    }
    return make_str(std::move(out));
  });
  type.add_method("split(self, /, sep=None, maxsplit=-1)", [](Evaluator& ev, Arguments& a) { return split_text(ev, a, false); });
  type.add_method("rsplit(self, /, sep=None, maxsplit=-1)", [](Evaluator& ev, Arguments& a) { return split_text(ev, a, true); });
  type.add_method("strip(self, chars=None, /)", [](Evaluator&, Arguments& a) { return strip_text(a, true, true); });
  type.add_method("lstrip(self, chars=None, /)", [](Evaluator&, Arguments& a) { return strip_text(a, true, false); });
  type.add_method("rstrip(self, chars=None, /)", [](Evaluator&, Arguments& a) { return strip_text(a, false, true); });
  type.add_method("startswith(self, prefix, /)", [](Evaluator& ev, Arguments& a) { return has_affix(ev, a, true); });
  type.add_method("endswith(self, suffix, /)", [](Evaluator& ev, Arguments& a) { return has_affix(ev, a, false); });
  type.add_method("replace(self, old, new, count=-1, /)", [](Evaluator& ev, Arguments& a) {
    std::string s = text_of(a[0], "self");
    const std::string& old = text_of(a[1], "replace() argument 1");
    const std::string& replacement = text_of(a[2], "replace() argument 2");
    std::int64_t count = ev.index_of(a[3]);
    std::string out;
    std::size_t start = 0;
    for (std::int64_t n = 0; count < 0 || n < count; ++n) {
      std::size_t at = old.empty() ? (start <= s.size() ? start : std::string::npos) : s.find(old, start);
      if (at == std::string::npos || (old.empty() && n > static_cast<std::int64_t>(s.size()))) break;
      out += s.substr(start, at - start) + replacement;
      if (old.empty()) {
        if (at < s.size()) out += s[at];
        start = at + 1;
      } else {
        start = at + old.size();
      }
    }
    if (start <= s.size()) out += s.substr(start);
    return make_str(std::move(out));
  });
  type.add_method("upper(self, /)", [](Evaluator&, Arguments& a) { return change_case(a, ::toupper); });
  type.add_method("lower(self, /)", [](Evaluator&, Arguments& a) { return change_case(a, ::tolower); });
  type.add_method("capitalize(self, /)", [](Evaluator&, Arguments& a) {
    std::string s = text_of(a[0], "self");
    for (std::size_t i = 0; i < s.size(); ++i)
      s[i] = static_cast<char>(i == 0 ? std::toupper(static_cast<unsigned char>(s[i])) : std::tolower(static_cast<unsigned char>(s[i])));
    return make_str(std::move(s));
  });
  // Each word's first letter upper case, the rest lower: a letter after a cased one is lowered (ASCII, as upper()).
  type.add_method("title(self, /)", [](Evaluator&, Arguments& a) {
    std::string s = text_of(a[0], "self");
    bool after_cased = false;
    for (auto& c : s) {
      auto byte = static_cast<unsigned char>(c);
      c = static_cast<char>(after_cased ? std::tolower(byte) : std::toupper(byte));
      after_cased = std::isalpha(byte) != 0;
    }
    return make_str(std::move(s));
  });
  type.add_method("find(self, sub, start=None, end=None, /)", [](Evaluator& ev, Arguments& a) { return Value::integer(find_text(ev, a, false)); });
  type.add_method("rfind(self, sub, start=None, end=None, /)", [](Evaluator& ev, Arguments& a) { return Value::integer(find_text(ev, a, true)); });
  type.add_method("index(self, sub, start=None, end=None, /)", [](Evaluator& ev, Arguments& a) {
    std::int64_t at = find_text(ev, a, false);
    if (at < 0) raise(exc::ValueError(), "substring not found");
    return Value::integer(at);
  });
  type.add_method("count(self, sub, /)", [](Evaluator&, Arguments& a) {
    const std::string& s = text_of(a[0], "self");
    const std::string& sub = text_of(a[1], "must be str, not");
    if (sub.empty()) return Value::integer(static_cast<std::int64_t>(s.size()) + 1);
    std::int64_t n = 0;
    for (std::size_t at = s.find(sub); at != std::string::npos; at = s.find(sub, at + sub.size())) ++n;
    return Value::integer(n);
  });
  type.add_method("ljust(self, width, fillchar=' ', /)", [](Evaluator& ev, Arguments& a) { return justify_text(ev, a, '<'); });
  type.add_method("rjust(self, width, fillchar=' ', /)", [](Evaluator& ev, Arguments& a) { return justify_text(ev, a, '>'); });
  type.add_method("center(self, width, fillchar=' ', /)", [](Evaluator& ev, Arguments& a) { return justify_text(ev, a, '^'); });
  type.add_method("zfill(self, width, /)", [](Evaluator& ev, Arguments& a) {
    std::string s = text_of(a[0], "self");
    std::int64_t width = ev.index_of(a[1]);
    if (width > (std::int64_t{1} << 32)) raise(exc::MemoryError(), "");
    if (width <= static_cast<std::int64_t>(s.size())) return a[0];
    std::size_t sign = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    s.insert(sign, std::string(static_cast<std::size_t>(width) - s.size(), '0'));
    return make_str(std::move(s));
  });
  type.add_method("isdigit(self, /)", [](Evaluator&, Arguments& a) { return all_chars(a, ::isdigit); });
  type.add_method("isalpha(self, /)", [](Evaluator&, Arguments& a) { return all_chars(a, ::isalpha); });
  type.add_method("isspace(self, /)", [](Evaluator&, Arguments& a) { return all_chars(a, ::isspace); });
  type.add_method("isalnum(self, /)", [](Evaluator&, Arguments& a) { return all_chars(a, ::isalnum); });
  type.add_method("splitlines(self, /)", [](Evaluator&, Arguments& a) {
    const std::string& s = text_of(a[0], "self");
    std::vector<Value> lines;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\n' || s[i] == '\r') {
        lines.push_back(make_str(s.substr(start, i - start)));
        if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
        start = i + 1;
      }
    }
    if (start < s.size()) lines.push_back(make_str(s.substr(start)));
    return make_list(std::move(lines));
  });
}

}  // namespace interp
