// The built-in functions and the methods of the built-in types. Each entry is
// one line: a Python signature and a body (see Signature::parse).
#include "interp/python/builtins.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "interp/transforms/check_mode.hpp"
#include "interp/python/format.hpp"

namespace interp {

namespace ast = lang::ast;

namespace {

const std::string& text_of(const Value& value, const char* what) {
  if (const std::string* s = string_of(value)) return *s;
  raise(exc::TypeError(), std::string(what) + " must be str, not " + type_name(value));
}

ListObject& list_of(const Value& value) { return *value.as<ListObject>(); }
DictObject& dict_of(const Value& value) { return *value.as<DictObject>(); }
SetObject& set_of(const Value& value) { return *value.as<SetObject>(); }

std::function<Value(Evaluator&, CallArgs&)> constructor(std::string_view signature, NativeFunctionBody body) {
  auto parsed = std::make_shared<Signature>(Signature::parse(signature));
  return [parsed, body = std::move(body)](Evaluator& evaluator, CallArgs& args) {
    Arguments bound = bind_arguments(evaluator, *parsed, args);
    return body(evaluator, bound);
  };
}

// A dict's keys(), values() or items(): a live view.
class DictView : public Object {
 public:
  enum class Kind { keys, values, items };
  DictView(std::shared_ptr<DictObject> dict, Kind kind) : dict_(std::move(dict)), kind_(kind) {}
  const TypeRef& type() const override {
    static const TypeRef keys = make_type("dict_keys"), values = make_type("dict_values"), items = make_type("dict_items");
    return kind_ == Kind::keys ? keys : kind_ == Kind::values ? values : items;
  }
  std::string repr(Evaluator& evaluator) const override {
    std::vector<Value> all = materialise();
    return type()->name() + "(" + evaluator.repr(make_list(std::move(all))) + ")";
  }
  IteratorRef iterate(Evaluator& evaluator) override {
    IteratorRef keys = dict_->iterate(evaluator);
    auto dict = dict_;
    Kind kind = kind_;
    return std::make_shared<FunctionIterator>(
        [keys, dict, kind](Evaluator& ev) -> std::optional<Value> {
          auto key = keys->next(ev);
          if (!key || kind == Kind::keys) return key;
          Value value = *dict->table.find(*key);
          if (kind == Kind::values) return value;
          return make_tuple({*key, value});
        },
        types::list_iterator());
  }
  std::optional<std::int64_t> length(Evaluator&) const override { return static_cast<std::int64_t>(dict_->table.size()); }
  std::optional<bool> contains(Evaluator&, const Value& item) override {
    if (kind_ == Kind::keys) return dict_->table.find(item) != nullptr;
    for (const auto& v : materialise())
      if (values_equal(v, item)) return true;
    return false;
  }

 private:
  std::vector<Value> materialise() const {
    std::vector<Value> out;
    for (const auto& e : dict_->table.entries()) {
      if (!e.live) continue;
      out.push_back(kind_ == Kind::keys ? e.key : kind_ == Kind::values ? e.value : make_tuple({e.key, e.value}));
    }
    return out;
  }
  std::shared_ptr<DictObject> dict_;
  Kind kind_;
};

// Python's list.sort: stable, with an optional key, reverse keeping stability.
void sort_values(Evaluator& evaluator, std::vector<Value>& items, const Value& key, bool reverse) {
  std::vector<std::pair<Value, Value>> decorated;
  decorated.reserve(items.size());
  for (auto& item : items) decorated.emplace_back(key.is_none() ? item : evaluator.call(key, {item}), item);
  if (reverse) std::reverse(decorated.begin(), decorated.end());
  std::stable_sort(decorated.begin(), decorated.end(), [&](const auto& a, const auto& b) {
    return evaluator.compare_bool(ast::CompareOperator::lt, a.first, b.first);
  });
  if (reverse) std::reverse(decorated.begin(), decorated.end());
  for (std::size_t i = 0; i < items.size(); ++i) items[i] = std::move(decorated[i].second);
}

Value min_max(Evaluator& evaluator, Arguments& a, bool is_max) {
  const char* name = is_max ? "max" : "min";
  const auto& args = a[0].as<TupleObject>()->items;
  if (args.empty()) raise(exc::TypeError(), std::string(name) + " expected at least 1 argument, got 0");
  std::vector<Value> candidates = args.size() == 1 ? evaluator.to_vector(args[0]) : args;
  if (candidates.empty()) {
    if (a.has(2)) return a[2];
    raise(exc::ValueError(), std::string(name) + "() arg is an empty sequence");
  }
  const Value& key = a[1];
  Value best = candidates[0];
  Value best_key = key.is_none() ? best : evaluator.call(key, {best});
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    Value k = key.is_none() ? candidates[i] : evaluator.call(key, {candidates[i]});
    if (evaluator.compare_bool(is_max ? ast::CompareOperator::gt : ast::CompareOperator::lt, k, best_key)) {
      best = candidates[i];
      best_key = k;
    }
  }
  return best;
}

std::int64_t parse_int(const std::string& text, int base) {
  std::string digits;
  for (char c : text)
    if (c != '_') digits += c;
  auto begin = digits.find_first_not_of(" \t\n\r\f\v");
  auto end = digits.find_last_not_of(" \t\n\r\f\v");
  auto invalid = [&]() -> std::int64_t {
    raise(exc::ValueError(), "invalid literal for int() with base " + std::to_string(base) + ": " + string_repr(text));
  };
  if (begin == std::string::npos || text.find("__") != std::string::npos) return invalid();
  digits = digits.substr(begin, end - begin + 1);
  bool negative = false;
  std::size_t i = 0;
  if (digits[0] == '+' || digits[0] == '-') {
    negative = digits[0] == '-';
    i = 1;
  }
  if (base == 0 || base == 16 || base == 8 || base == 2) {
    if (digits.size() > i + 1 && digits[i] == '0') {
      char p = static_cast<char>(std::tolower(static_cast<unsigned char>(digits[i + 1])));
      int prefixed = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
      if (prefixed && (base == 0 || base == prefixed)) {
        base = prefixed;
        i += 2;
      }
    }
    if (base == 0) base = 10;
  }
  if (i >= digits.size()) return invalid();
  unsigned long long value = 0;
  for (; i < digits.size(); ++i) {
    int d = std::isdigit(static_cast<unsigned char>(digits[i])) ? digits[i] - '0'
            : std::isalpha(static_cast<unsigned char>(digits[i])) ? std::tolower(static_cast<unsigned char>(digits[i])) - 'a' + 10
                                                                   : 99;
    if (d >= base) return invalid();
    if (value > (9223372036854775808ULL - static_cast<unsigned long long>(d)) / static_cast<unsigned long long>(base))
      raise(exc::OverflowError(), "int too large to fit in 64 bits: " + string_repr(text));
    value = value * static_cast<unsigned long long>(base) + static_cast<unsigned long long>(d);
  }
  if (!negative && value > 9223372036854775807ULL) raise(exc::OverflowError(), "int too large to fit in 64 bits: " + string_repr(text));
  return negative ? static_cast<std::int64_t>(0ULL - value) : static_cast<std::int64_t>(value);
}

std::int64_t float_to_int(double d) {
  if (std::isnan(d)) raise(exc::ValueError(), "cannot convert float NaN to integer");
  if (std::isinf(d)) raise(exc::OverflowError(), "cannot convert float infinity to integer");
  double t = std::trunc(d);
  if (t >= 9223372036854775808.0 || t < -9223372036854775808.0)
    raise(exc::OverflowError(), "int too large to fit in 64 bits: " + float_repr(d));
  return static_cast<std::int64_t>(t);
}

// Python's round-half-even of a double to an integer.
std::int64_t round_half_even(double d) {
  double r = std::nearbyint(d);  // default rounding mode: to nearest, ties to even
  return float_to_int(r);
}

}  // namespace

std::int64_t to_int(Evaluator& evaluator, const Value& value) {
  if (value.is_integral()) return value.as_int();
  if (value.is_float()) return float_to_int(value.as_float());
  if (const std::string* s = string_of(value)) return parse_int(*s, 10);
  if (auto scalar = host_scalar_of(evaluator, value, HostScalar::integer)) {
    if (is_unknown(*scalar)) stop_checking(evaluator);  // a size from array data
    return scalar->as_int();
  }
  if (value.is_object())
    if (auto method = evaluator.find_attribute(value, "__int__")) return to_int(evaluator, evaluator.call(*method, std::vector<Value>{}));
  raise(exc::TypeError(), "int() argument must be a string, a bytes-like object or a real number, not '" +
                              type_name(value) + "'");
}

double to_float(Evaluator& evaluator, const Value& value) {
  if (value.is_number()) return value.as_float();
  if (const std::string* s = string_of(value)) {
    std::string text;
    for (char c : *s)
      if (c != '_') text += c;
    auto begin = text.find_first_not_of(" \t\n\r");
    auto end = text.find_last_not_of(" \t\n\r");
    if (begin != std::string::npos) {
      text = text.substr(begin, end - begin + 1);
      std::string lower = text;
      for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string unsigned_part = lower[0] == '+' || lower[0] == '-' ? lower.substr(1) : lower;
      double sign = lower[0] == '-' ? -1.0 : 1.0;
      if (unsigned_part == "inf" || unsigned_part == "infinity") return sign * INFINITY;
      if (unsigned_part == "nan") return NAN;
      bool hex_or_word = unsigned_part.find_first_of("xpn") != std::string::npos;
      char* stop = nullptr;
      double d = std::strtod(text.c_str(), &stop);
      if (!hex_or_word && stop == text.c_str() + text.size()) return d;
    }
    raise(exc::ValueError(), "could not convert string to float: " + string_repr(*s));
  }
  if (auto scalar = host_scalar_of(evaluator, value, HostScalar::floating)) {
    if (is_unknown(*scalar)) stop_checking(evaluator);  // a host number from array data
    return scalar->as_float();
  }
  if (value.is_object())
    if (auto method = evaluator.find_attribute(value, "__float__")) return to_float(evaluator, evaluator.call(*method, std::vector<Value>{}));
  raise(exc::TypeError(), "float() argument must be a string or a real number, not '" + type_name(value) + "'");
}

// The methods and constructors of the built-in types, installed when each
// type is first made (value.cpp). Must not call back into types::<this type>().
void install_builtin_type(const std::string& name, TypeObject& type) {
  if (name == "int") {
    type.set_constructor(constructor("int(x=?, /, base=?)", [](Evaluator& ev, Arguments& a) -> Value {
      if (!a.has(0)) return Value::integer(0);
      if (!a.has(1))
        if (auto scalar = host_scalar_of(ev, a[0], HostScalar::integer)) return *scalar;
      if (a.has(1)) return Value::integer(parse_int(text_of(a[0], "int() can't convert non-string with explicit base: argument"), static_cast<int>(ev.index_of(a[1]))));
      return Value::integer(to_int(ev, a[0]));
    }));
    type.add_method("bit_length(self, /)", [](Evaluator&, Arguments& a) {
      std::int64_t v = a[0].as_int();
      unsigned long long m = v < 0 ? 0ULL - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
      return Value::integer(m == 0 ? 0 : 64 - __builtin_clzll(m));
    });
  } else if (name == "float") {
    type.set_constructor(constructor("float(x=0.0, /)", [](Evaluator& ev, Arguments& a) {
      if (auto scalar = host_scalar_of(ev, a[0], HostScalar::floating)) return *scalar;
      return Value::floating(to_float(ev, a[0]));
    }));
    type.add_method("is_integer(self, /)", [](Evaluator&, Arguments& a) {
      double d = a[0].as_float();
      return Value::boolean(std::isfinite(d) && d == std::floor(d));
    });
  } else if (name == "bool") {
    type.set_constructor(constructor("bool(x=False, /)", [](Evaluator& ev, Arguments& a) {
      if (auto scalar = host_scalar_of(ev, a[0], HostScalar::boolean)) return *scalar;
      return Value::boolean(ev.truthy(a[0]));
    }));
  } else if (name == "str") {
    type.set_constructor(constructor("str(object='', /)", [](Evaluator& ev, Arguments& a) {
      return string_of(a[0]) ? a[0] : make_str(ev.str(a[0]));
    }));
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
    auto split = [](Evaluator& ev, Arguments& a, bool from_right) {
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
    };
    type.add_method("split(self, /, sep=None, maxsplit=-1)", [split](Evaluator& ev, Arguments& a) { return split(ev, a, false); });
    type.add_method("rsplit(self, /, sep=None, maxsplit=-1)", [split](Evaluator& ev, Arguments& a) { return split(ev, a, true); });
    auto strip = [](Arguments& a, bool left, bool right) {
      const std::string& s = text_of(a[0], "self");
      std::string chars = a[1].is_none() ? std::string(" \t\n\r\f\v") : text_of(a[1], "strip arg");
      std::size_t begin = left ? s.find_first_not_of(chars) : 0;
      if (begin == std::string::npos) return make_str("");
      std::size_t end = right ? s.find_last_not_of(chars) : s.size() - 1;
      return make_str(s.substr(begin, end + 1 - begin));
    };
    type.add_method("strip(self, chars=None, /)", [strip](Evaluator&, Arguments& a) { return strip(a, true, true); });
    type.add_method("lstrip(self, chars=None, /)", [strip](Evaluator&, Arguments& a) { return strip(a, true, false); });
    type.add_method("rstrip(self, chars=None, /)", [strip](Evaluator&, Arguments& a) { return strip(a, false, true); });
    auto affix = [](Evaluator& ev, Arguments& a, bool prefix) {
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
    };
    type.add_method("startswith(self, prefix, /)", [affix](Evaluator& ev, Arguments& a) { return affix(ev, a, true); });
    type.add_method("endswith(self, suffix, /)", [affix](Evaluator& ev, Arguments& a) { return affix(ev, a, false); });
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
    auto change_case = [](Arguments& a, int (*f)(int)) {
      std::string s = text_of(a[0], "self");
      for (auto& c : s) c = static_cast<char>(f(static_cast<unsigned char>(c)));
      return make_str(std::move(s));
    };
    type.add_method("upper(self, /)", [change_case](Evaluator&, Arguments& a) { return change_case(a, ::toupper); });
    type.add_method("lower(self, /)", [change_case](Evaluator&, Arguments& a) { return change_case(a, ::tolower); });
    type.add_method("capitalize(self, /)", [](Evaluator&, Arguments& a) {
      std::string s = text_of(a[0], "self");
      for (std::size_t i = 0; i < s.size(); ++i)
        s[i] = static_cast<char>(i == 0 ? std::toupper(static_cast<unsigned char>(s[i])) : std::tolower(static_cast<unsigned char>(s[i])));
      return make_str(std::move(s));
    });
    auto find = [](Evaluator& ev, Arguments& a, bool from_right) -> std::int64_t {
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
    };
    type.add_method("find(self, sub, start=None, end=None, /)", [find](Evaluator& ev, Arguments& a) { return Value::integer(find(ev, a, false)); });
    type.add_method("rfind(self, sub, start=None, end=None, /)", [find](Evaluator& ev, Arguments& a) { return Value::integer(find(ev, a, true)); });
    type.add_method("index(self, sub, start=None, end=None, /)", [find](Evaluator& ev, Arguments& a) {
      std::int64_t at = find(ev, a, false);
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
    auto justify = [](Evaluator& ev, Arguments& a, char align) {
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
    };
    type.add_method("ljust(self, width, fillchar=' ', /)", [justify](Evaluator& ev, Arguments& a) { return justify(ev, a, '<'); });
    type.add_method("rjust(self, width, fillchar=' ', /)", [justify](Evaluator& ev, Arguments& a) { return justify(ev, a, '>'); });
    type.add_method("center(self, width, fillchar=' ', /)", [justify](Evaluator& ev, Arguments& a) { return justify(ev, a, '^'); });
    type.add_method("zfill(self, width, /)", [](Evaluator& ev, Arguments& a) {
      std::string s = text_of(a[0], "self");
      std::int64_t width = ev.index_of(a[1]);
      if (width > (std::int64_t{1} << 32)) raise(exc::MemoryError(), "");
      if (width <= static_cast<std::int64_t>(s.size())) return a[0];
      std::size_t sign = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
      s.insert(sign, std::string(static_cast<std::size_t>(width) - s.size(), '0'));
      return make_str(std::move(s));
    });
    auto all_chars = [](Arguments& a, int (*test)(int)) {
      const std::string& s = text_of(a[0], "self");
      return Value::boolean(!s.empty() && std::all_of(s.begin(), s.end(), [&](char c) { return test(static_cast<unsigned char>(c)) != 0; }));
    };
    type.add_method("isdigit(self, /)", [all_chars](Evaluator&, Arguments& a) { return all_chars(a, ::isdigit); });
    type.add_method("isalpha(self, /)", [all_chars](Evaluator&, Arguments& a) { return all_chars(a, ::isalpha); });
    type.add_method("isspace(self, /)", [all_chars](Evaluator&, Arguments& a) { return all_chars(a, ::isspace); });
    type.add_method("isalnum(self, /)", [all_chars](Evaluator&, Arguments& a) { return all_chars(a, ::isalnum); });
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
  } else if (name == "list") {
    type.set_constructor(constructor("list(iterable=?, /)", [](Evaluator& ev, Arguments& a) {
      return a.has(0) ? make_list(ev.to_vector(a[0])) : make_list({});
    }));
    type.add_method("append(self, object, /)", [](Evaluator&, Arguments& a) {
      list_of(a[0]).items.push_back(a[1]);
      return Value::none();
    });
    type.add_method("extend(self, iterable, /)", [](Evaluator& ev, Arguments& a) {
      std::vector<Value> extra = ev.to_vector(a[1]);
      auto& items = list_of(a[0]).items;
      items.insert(items.end(), extra.begin(), extra.end());
      return Value::none();
    });
    type.add_method("insert(self, index, object, /)", [](Evaluator& ev, Arguments& a) {
      auto& items = list_of(a[0]).items;
      std::int64_t n = static_cast<std::int64_t>(items.size());
      std::int64_t i = ev.index_of(a[1]);
      if (i < 0) i = std::max<std::int64_t>(0, i + n);
      items.insert(items.begin() + std::min(i, n), a[2]);
      return Value::none();
    });
    type.add_method("pop(self, index=-1, /)", [](Evaluator& ev, Arguments& a) {
      auto& items = list_of(a[0]).items;
      if (items.empty()) raise(exc::IndexError(), "pop from empty list");
      std::int64_t n = static_cast<std::int64_t>(items.size());
      std::int64_t i = ev.index_of(a[1]);
      if (i < 0) i += n;
      if (i < 0 || i >= n) raise(exc::IndexError(), "pop index out of range");
      Value v = items[static_cast<std::size_t>(i)];
      items.erase(items.begin() + i);
      return v;
    });
    type.add_method("remove(self, value, /)", [](Evaluator& ev, Arguments& a) {
      auto& items = list_of(a[0]).items;
      for (std::size_t i = 0; i < items.size(); ++i)
        if (items[i].is_same(a[1]) || ev.compare_bool(ast::CompareOperator::eq, items[i], a[1])) {
          items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
          return Value::none();
        }
      raise(exc::ValueError(), "list.remove(x): x not in list");
    });
    type.add_method("index(self, value, /)", [](Evaluator& ev, Arguments& a) {
      auto& items = list_of(a[0]).items;
      for (std::size_t i = 0; i < items.size(); ++i)
        if (items[i].is_same(a[1]) || ev.compare_bool(ast::CompareOperator::eq, items[i], a[1]))
          return Value::integer(static_cast<std::int64_t>(i));
      raise(exc::ValueError(), ev.repr(a[1]) + " is not in list");
    });
    type.add_method("count(self, value, /)", [](Evaluator& ev, Arguments& a) {
      std::int64_t n = 0;
      for (const auto& v : list_of(a[0]).items)
        if (v.is_same(a[1]) || ev.compare_bool(ast::CompareOperator::eq, v, a[1])) ++n;
      return Value::integer(n);
    });
    type.add_method("sort(self, /, *, key=None, reverse=False)", [](Evaluator& ev, Arguments& a) {
      std::vector<Value> items = list_of(a[0]).items;
      sort_values(ev, items, a[1], ev.truthy(a[2]));
      list_of(a[0]).items = std::move(items);
      return Value::none();
    });
    type.add_method("reverse(self, /)", [](Evaluator&, Arguments& a) {
      auto& items = list_of(a[0]).items;
      std::reverse(items.begin(), items.end());
      return Value::none();
    });
    type.add_method("copy(self, /)", [](Evaluator&, Arguments& a) { return make_list(list_of(a[0]).items); });
    type.add_method("clear(self, /)", [](Evaluator&, Arguments& a) {
      list_of(a[0]).items.clear();
      return Value::none();
    });
  } else if (name == "tuple") {
    type.set_constructor(constructor("tuple(iterable=?, /)", [](Evaluator& ev, Arguments& a) {
      if (a.has(0) && a[0].as<TupleObject>()) return a[0];
      return a.has(0) ? make_tuple(ev.to_vector(a[0])) : make_tuple({});
    }));
    type.add_method("index(self, value, /)", [](Evaluator& ev, Arguments& a) {
      const auto& items = a[0].as<TupleObject>()->items;
      for (std::size_t i = 0; i < items.size(); ++i)
        if (items[i].is_same(a[1]) || ev.compare_bool(ast::CompareOperator::eq, items[i], a[1]))
          return Value::integer(static_cast<std::int64_t>(i));
      raise(exc::ValueError(), "tuple.index(x): x not in tuple");
    });
    type.add_method("count(self, value, /)", [](Evaluator& ev, Arguments& a) {
      std::int64_t n = 0;
      for (const auto& v : a[0].as<TupleObject>()->items)
        if (v.is_same(a[1]) || ev.compare_bool(ast::CompareOperator::eq, v, a[1])) ++n;
      return Value::integer(n);
    });
  } else if (name == "dict") {
    auto update = [](Evaluator& ev, DictObject& target, const Arguments& a, std::size_t other, std::size_t keywords) {
      if (a.has(other)) {
        if (auto* d = a[other].as<DictObject>()) {
          for (const auto& e : d->table.entries())
            if (e.live) target.table.insert(e.key, e.value);
        } else {
          std::size_t index = 0;
          for (const auto& pair : ev.to_vector(a[other])) {
            std::vector<Value> kv = ev.to_vector(pair);
            if (kv.size() != 2)
              raise(exc::ValueError(), "dictionary update sequence element #" + std::to_string(index) + " has length " +
                                           std::to_string(kv.size()) + "; 2 is required");
            target.table.insert(kv[0], kv[1]);
            ++index;
          }
        }
      }
      for (const auto& e : dict_of(a[keywords]).table.entries())
        if (e.live) target.table.insert(e.key, e.value);
    };
    type.set_constructor(constructor("dict(mapping=?, /, **kwargs)", [update](Evaluator& ev, Arguments& a) {
      auto d = make_dict();
      update(ev, *d, a, 0, 1);
      return Value(d);
    }));
    type.add_method("update(self, other=?, /, **kwargs)", [update](Evaluator& ev, Arguments& a) {
      update(ev, dict_of(a[0]), a, 1, 2);
      return Value::none();
    });
    auto view = [](const Value& d, DictView::Kind kind) {
      return Value(std::make_shared<DictView>(std::static_pointer_cast<DictObject>(d.object()), kind));
    };
    type.add_method("keys(self, /)", [view](Evaluator&, Arguments& a) { return view(a[0], DictView::Kind::keys); });
    type.add_method("values(self, /)", [view](Evaluator&, Arguments& a) { return view(a[0], DictView::Kind::values); });
    type.add_method("items(self, /)", [view](Evaluator&, Arguments& a) { return view(a[0], DictView::Kind::items); });
    type.add_method("get(self, key, default=None, /)", [](Evaluator&, Arguments& a) {
      const Value* v = dict_of(a[0]).table.find(a[1]);
      return v ? *v : a[2];
    });
    type.add_method("setdefault(self, key, default=None, /)", [](Evaluator&, Arguments& a) {
      auto& table = dict_of(a[0]).table;
      if (const Value* v = table.find(a[1])) return *v;
      table.insert(a[1], a[2]);
      return a[2];
    });
    type.add_method("pop(self, key, default=?, /)", [](Evaluator&, Arguments& a) {
      auto& table = dict_of(a[0]).table;
      if (const Value* v = table.find(a[1])) {
        Value out = *v;
        table.erase(a[1]);
        return out;
      }
      if (a.has(2)) return a[2];
      raise_value(exc::KeyError(), a[1]);
    });
    type.add_method("popitem(self, /)", [](Evaluator&, Arguments& a) {
      auto& table = dict_of(a[0]).table;
      const auto& entries = table.entries();
      for (auto e = entries.rbegin(); e != entries.rend(); ++e)
        if (e->live) {
          Value pair = make_tuple({e->key, e->value});
          table.erase(Value(e->key));
          return pair;
        }
      raise(exc::KeyError(), "popitem(): dictionary is empty");
    });
    type.add_method("copy(self, /)", [](Evaluator&, Arguments& a) {
      auto d = make_dict();
      d->table = dict_of(a[0]).table;
      return Value(d);
    });
    type.add_method("clear(self, /)", [](Evaluator&, Arguments& a) {
      dict_of(a[0]).table.clear();
      return Value::none();
    });
  } else if (name == "set") {
    auto fill = [](Evaluator& ev, SetObject& s, const Value& iterable) {
      for (const auto& v : ev.to_vector(iterable)) s.table.insert(v, Value());
    };
    type.set_constructor(constructor("set(iterable=?, /)", [fill](Evaluator& ev, Arguments& a) {
      auto s = make_set();
      if (a.has(0)) fill(ev, *s, a[0]);
      return Value(s);
    }));
    type.add_method("add(self, object, /)", [](Evaluator&, Arguments& a) {
      set_of(a[0]).table.insert(a[1], Value());
      return Value::none();
    });
    type.add_method("remove(self, object, /)", [](Evaluator&, Arguments& a) {
      if (!set_of(a[0]).table.erase(a[1])) raise_value(exc::KeyError(), a[1]);
      return Value::none();
    });
    type.add_method("discard(self, object, /)", [](Evaluator&, Arguments& a) {
      set_of(a[0]).table.erase(a[1]);
      return Value::none();
    });
    type.add_method("pop(self, /)", [](Evaluator&, Arguments& a) {
      auto& table = set_of(a[0]).table;
      for (const auto& e : table.entries())
        if (e.live) {
          Value v = e.key;
          table.erase(v);
          return v;
        }
      raise(exc::KeyError(), "pop from an empty set");
    });
    type.add_method("copy(self, /)", [](Evaluator&, Arguments& a) {
      auto s = make_set();
      s->table = set_of(a[0]).table;
      return Value(s);
    });
    type.add_method("clear(self, /)", [](Evaluator&, Arguments& a) {
      set_of(a[0]).table.clear();
      return Value::none();
    });
    auto combine = [fill](Evaluator& ev, Arguments& a, ast::BinaryOperator op) {
      Value result = Value(std::make_shared<SetObject>(set_of(a[0])));
      for (const auto& other : a[1].as<TupleObject>()->items) {
        auto operand = make_set();
        fill(ev, *operand, other);
        result = ev.binary(op, result, Value(operand));
      }
      return result;
    };
    type.add_method("union(self, /, *others)", [combine](Evaluator& ev, Arguments& a) { return combine(ev, a, ast::BinaryOperator::bitor_); });
    type.add_method("intersection(self, /, *others)", [combine](Evaluator& ev, Arguments& a) { return combine(ev, a, ast::BinaryOperator::bitand_); });
    type.add_method("difference(self, /, *others)", [combine](Evaluator& ev, Arguments& a) { return combine(ev, a, ast::BinaryOperator::sub); });
    type.add_method("update(self, /, *others)", [fill](Evaluator& ev, Arguments& a) {
      for (const auto& other : a[1].as<TupleObject>()->items) fill(ev, set_of(a[0]), other);
      return Value::none();
    });
    type.add_method("issubset(self, other, /)", [fill](Evaluator& ev, Arguments& a) {
      auto other = make_set();
      fill(ev, *other, a[1]);
      return Value::boolean(set_of(a[0]).is_subset_of(*other));
    });
    type.add_method("issuperset(self, other, /)", [fill](Evaluator& ev, Arguments& a) {
      auto other = make_set();
      fill(ev, *other, a[1]);
      return Value::boolean(other->is_subset_of(set_of(a[0])));
    });
  } else if (name == "range") {
    type.set_constructor(constructor("range(*args)", [](Evaluator& ev, Arguments& a) {
      const auto& args = a[0].as<TupleObject>()->items;
      if (args.empty()) raise(exc::TypeError(), "range expected at least 1 argument, got 0");
      if (args.size() > 3) raise(exc::TypeError(), "range expected at most 3 arguments, got " + std::to_string(args.size()));
      std::int64_t start = 0, stop, step = 1;
      if (args.size() == 1) {
        stop = ev.index_of(args[0]);
      } else {
        start = ev.index_of(args[0]);
        stop = ev.index_of(args[1]);
        if (args.size() == 3) step = ev.index_of(args[2]);
      }
      if (step == 0) raise(exc::ValueError(), "range() arg 3 must not be zero");
      return Value(std::make_shared<RangeObject>(start, stop, step));
    }));
    type.add_method("index(self, value, /)", [](Evaluator& ev, Arguments& a) {
      auto* r = a[0].as<RangeObject>();
      if (!a[1].is_integral() || !r->contains_integer(a[1].as_int()))
        raise(exc::ValueError(), ev.repr(a[1]) + " is not in range");
      return Value::integer((a[1].as_int() - r->start) / r->step);
    });
  } else if (name == "slice") {
    type.set_constructor(constructor("slice(*args)", [](Evaluator&, Arguments& a) {
      const auto& args = a[0].as<TupleObject>()->items;
      if (args.empty() || args.size() > 3) raise(exc::TypeError(), "slice expected 1 to 3 arguments");
      if (args.size() == 1) return Value(std::make_shared<SliceObject>(Value(), args[0], Value()));
      return Value(std::make_shared<SliceObject>(args[0], args[1], args.size() == 3 ? args[2] : Value()));
    }));
  } else if (name == "type") {
    type.set_constructor(constructor("type(object, /)", [](Evaluator&, Arguments& a) { return Value(type_of(a[0])); }));
  }
}

void install_builtins(Evaluator& evaluator) {
  auto& b = evaluator.builtins;
  auto define = [&](std::string_view signature, NativeFunctionBody body) {
    ObjectRef function = native(signature, std::move(body));
    b[static_cast<NativeFunction&>(*function).name()] = Value(function);
  };
  for (const TypeRef* t : {&types::integer(), &types::floating(), &types::boolean(), &types::str(), &types::list(),
                           &types::tuple(), &types::dict(), &types::set(), &types::range(), &types::slice(), &types::type(),
                           &types::object()})
    b[(*t)->name()] = Value(*t);
  for (const auto& cls : exc::all()) b[cls->name()] = Value(cls);
  b["Ellipsis"] = ellipsis_value();

  define("print(*args, sep=None, end=None, file=None, flush=False)", [](Evaluator& ev, Arguments& a) {
    std::string sep = a[1].is_none() ? " " : text_of(a[1], "sep");
    std::string end = a[2].is_none() ? "\n" : text_of(a[2], "end");
    std::string out;
    const auto& items = a[0].as<TupleObject>()->items;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i) out += sep;
      out += ev.str(items[i]);
    }
    ev.write(out + end);
    return Value::none();
  });
  define("len(obj, /)", [](Evaluator& ev, Arguments& a) { return Value::integer(ev.length(a[0])); });
  define("repr(obj, /)", [](Evaluator& ev, Arguments& a) { return make_str(ev.repr(a[0])); });
  define("ascii(obj, /)", [](Evaluator& ev, Arguments& a) { return make_str(ev.repr(a[0])); });
  define("format(value, format_spec='', /)", [](Evaluator& ev, Arguments& a) {
    return make_str(format_value(ev, a[0], text_of(a[1], "format_spec")));
  });
  define("zip(*iterables, strict=False)", [](Evaluator& ev, Arguments& a) {
    std::vector<IteratorRef> iterators;
    for (const auto& it : a[0].as<TupleObject>()->items) iterators.push_back(ev.iterate(it));
    bool strict = ev.truthy(a[1]);
    return Value(std::make_shared<FunctionIterator>(
        [iterators, strict](Evaluator& e) -> std::optional<Value> {
          if (iterators.empty()) return std::nullopt;
          std::vector<Value> row;
          for (std::size_t i = 0; i < iterators.size(); ++i) {
            auto v = iterators[i]->next(e);
            if (!v) {
              if (strict && (i > 0 || std::any_of(iterators.begin() + 1, iterators.end(), [&](const IteratorRef& other) { return other->next(e).has_value(); })))
                raise(exc::ValueError(), "zip() argument " + std::to_string(i + 1) + (i > 0 ? " is shorter than argument 1" : " is shorter than argument 2"));
              return std::nullopt;
            }
            row.push_back(std::move(*v));
          }
          return make_tuple(std::move(row));
        },
        types::zip()));
  });
  define("map(function, iterable, /, *iterables)", [](Evaluator& ev, Arguments& a) {
    std::vector<IteratorRef> iterators{ev.iterate(a[1])};
    for (const auto& it : a[2].as<TupleObject>()->items) iterators.push_back(ev.iterate(it));
    Value function = a[0];
    return Value(std::make_shared<FunctionIterator>(
        [iterators, function](Evaluator& e) -> std::optional<Value> {
          std::vector<Value> args;
          for (const auto& it : iterators) {
            auto v = it->next(e);
            if (!v) return std::nullopt;
            args.push_back(std::move(*v));
          }
          return e.call(function, std::move(args));
        },
        types::map()));
  });
  define("filter(function, iterable, /)", [](Evaluator& ev, Arguments& a) {
    IteratorRef it = ev.iterate(a[1]);
    Value function = a[0];
    return Value(std::make_shared<FunctionIterator>(
        [it, function](Evaluator& e) -> std::optional<Value> {
          while (auto v = it->next(e)) {
            if (e.truthy(function.is_none() ? *v : e.call(function, {*v}))) return v;
          }
          return std::nullopt;
        },
        types::filter()));
  });
  define("enumerate(iterable, start=0)", [](Evaluator& ev, Arguments& a) {
    IteratorRef it = ev.iterate(a[0]);
    std::int64_t count = ev.index_of(a[1]);
    return Value(std::make_shared<FunctionIterator>(
        [it, count](Evaluator& e) mutable -> std::optional<Value> {
          auto v = it->next(e);
          if (!v) return std::nullopt;
          return make_tuple({Value::integer(count++), std::move(*v)});
        },
        types::enumerate()));
  });
  define("reversed(sequence, /)", [](Evaluator& ev, Arguments& a) {
    const Value& seq = a[0];
    bool reversible = seq.as<SequenceObject>() || seq.as<StrObject>() || seq.as<RangeObject>();
    if (!reversible) raise(exc::TypeError(), "'" + type_name(seq) + "' object is not reversible");
    std::int64_t index = ev.length(seq);
    return Value(std::make_shared<FunctionIterator>(
        [seq, index](Evaluator& e) mutable -> std::optional<Value> {
          if (index <= 0) return std::nullopt;
          std::int64_t n = e.length(seq);
          if (--index >= n) return std::nullopt;
          return e.get_item(seq, Value::integer(index));
        },
        types::reversed()));
  });
  define("sorted(iterable, /, *, key=None, reverse=False)", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> items = ev.to_vector(a[0]);
    sort_values(ev, items, a[1], ev.truthy(a[2]));
    return make_list(std::move(items));
  });
  define("min(*args, key=None, default=?)", [](Evaluator& ev, Arguments& a) { return min_max(ev, a, false); });
  define("max(*args, key=None, default=?)", [](Evaluator& ev, Arguments& a) { return min_max(ev, a, true); });
  define("sum(iterable, /, start=0)", [](Evaluator& ev, Arguments& a) {
    if (string_of(a[1])) raise(exc::TypeError(), "sum() can't sum strings [use ''.join(seq) instead]");
    Value total = a[1];
    IteratorRef it = ev.iterate(a[0]);
    while (auto v = it->next(ev)) total = ev.binary(ast::BinaryOperator::add, total, *v);
    return total;
  });
  define("abs(x, /)", [](Evaluator& ev, Arguments& a) -> Value {
    const Value& x = a[0];
    if (x.is_integral()) {
      if (x.as_int() == std::numeric_limits<std::int64_t>::min()) raise(exc::OverflowError(), "integer overflow: result does not fit in 64 bits");
      return Value::integer(std::abs(x.as_int()));
    }
    if (x.is_float()) return Value::floating(std::fabs(x.as_float()));
    if (auto method = ev.find_attribute(x, "__abs__")) return ev.call(*method, std::vector<Value>{});
    raise(exc::TypeError(), "bad operand type for abs(): '" + type_name(x) + "'");
  });
  define("all(iterable, /)", [](Evaluator& ev, Arguments& a) {
    IteratorRef it = ev.iterate(a[0]);
    while (auto v = it->next(ev))
      if (!ev.truthy(*v)) return Value::boolean(false);
    return Value::boolean(true);
  });
  define("any(iterable, /)", [](Evaluator& ev, Arguments& a) {
    IteratorRef it = ev.iterate(a[0]);
    while (auto v = it->next(ev))
      if (ev.truthy(*v)) return Value::boolean(true);
    return Value::boolean(false);
  });
  define("isinstance(obj, class_or_tuple, /)", [](Evaluator&, Arguments& a) {
    std::function<bool(const Value&)> check = [&](const Value& cls) -> bool {
      if (auto* t = cls.as<TypeObject>()) return type_of(a[0])->is_subclass_of(*t);
      if (auto* tuple = cls.as<TupleObject>())
        return std::any_of(tuple->items.begin(), tuple->items.end(), [&](const Value& c) { return check(c); });
      raise(exc::TypeError(), "isinstance() arg 2 must be a type, a tuple of types, or a union");
    };
    return Value::boolean(check(a[1]));
  });
  define("round(number, ndigits=None)", [](Evaluator& ev, Arguments& a) -> Value {
    const Value& x = a[0];
    if (!x.is_number()) {
      if (auto method = ev.find_attribute(x, "__round__")) {
        std::vector<Value> args;
        if (!a[1].is_none()) args.push_back(a[1]);
        return ev.call(*method, std::move(args));
      }
      raise(exc::TypeError(), "type " + type_name(x) + " doesn't define __round__ method");
    }
    if (a[1].is_none()) return Value::integer(x.is_integral() ? x.as_int() : round_half_even(x.as_float()));
    std::int64_t digits = ev.index_of(a[1]);
    if (x.is_integral()) {
      if (digits >= 0) return Value::integer(x.as_int());
      if (digits < -18) return Value::integer(0);
      std::int64_t scale = 1;
      for (std::int64_t i = 0; i < -digits; ++i) scale *= 10;
      std::int64_t v = x.as_int(), q = v / scale, r = v % scale;
      if (r < 0) {
        r += scale;
        --q;
      }
      if (2 * r > scale || (2 * r == scale && (q & 1))) ++q;
      std::int64_t out = 0;
      if (__builtin_mul_overflow(q, scale, &out)) raise(exc::OverflowError(), "integer overflow: result does not fit in 64 bits");
      return Value::integer(out);
    }
    double d = x.as_float();
    if (!std::isfinite(d)) return x;
    if (digits > 300) return x;
    if (digits >= 0) {
      // printf rounds the exact binary value correctly; reading it back gives Python's result.
      char text[400];
      std::snprintf(text, sizeof text, "%.*f", static_cast<int>(digits), d);
      return Value::floating(std::strtod(text, nullptr));
    }
    double scale = std::pow(10.0, static_cast<double>(-digits));
    return Value::floating(std::nearbyint(d / scale) * scale);
  });
  define("divmod(a, b, /)", [](Evaluator& ev, Arguments& a) {
    if (a[0].is_number() && a[1].is_number() && a[1].as_float() == 0)
      raise(exc::ZeroDivisionError(), a[0].is_integral() && a[1].is_integral() ? "integer division or modulo by zero" : "float divmod()");
    return make_tuple({ev.binary(ast::BinaryOperator::floordiv, a[0], a[1]), ev.binary(ast::BinaryOperator::mod, a[0], a[1])});
  });
  define("pow(base, exp, mod=None)", [](Evaluator& ev, Arguments& a) {
    if (a[2].is_none()) return ev.binary(ast::BinaryOperator::pow, a[0], a[1]);
    if (!a[0].is_integral() || !a[1].is_integral() || !a[2].is_integral())
      raise(exc::TypeError(), "pow() 3rd argument not allowed unless all arguments are integers");
    std::int64_t m = a[2].as_int(), e = a[1].as_int();
    if (m == 0) raise(exc::ValueError(), "pow() 3rd argument cannot be 0");
    if (e < 0) raise(exc::ValueError(), "base is not invertible for the given modulus");
    __int128 result = 1, base = ((a[0].as_int() % m) + m) % m;
    for (; e > 0; e >>= 1) {
      if (e & 1) result = result * base % m;
      base = base * base % m;
    }
    std::int64_t r = static_cast<std::int64_t>(result);
    if (r != 0 && ((r < 0) != (m < 0))) r += m;
    return Value::integer(r);
  });
  define("hash(obj, /)", [](Evaluator&, Arguments& a) {
    return Value::integer(static_cast<std::int64_t>(hash_value(a[0]) & 0x7fffffffffffffffULL));
  });
  define("iter(object, /)", [](Evaluator& ev, Arguments& a) { return Value(ev.iterate(a[0])); });
  define("next(iterator, default=?, /)", [](Evaluator& ev, Arguments& a) -> Value {
    auto* it = a[0].as<Iterator>();
    if (!it) raise(exc::TypeError(), "'" + type_name(a[0]) + "' object is not an iterator");
    if (auto v = it->next(ev)) return *v;
    if (a.has(1)) return a[1];
    throw PyError{std::make_shared<ExceptionObject>(exc::StopIteration(), std::vector<Value>{})};
  });
  define("getattr(object, name, default=?, /)", [](Evaluator& ev, Arguments& a) -> Value {
    const std::string& name = text_of(a[1], "attribute name");
    if (a.has(2)) {
      auto v = ev.find_attribute(a[0], name);
      return v ? *v : a[2];
    }
    return ev.get_attribute(a[0], name);
  });
  define("hasattr(obj, name, /)", [](Evaluator& ev, Arguments& a) {
    return Value::boolean(ev.find_attribute(a[0], text_of(a[1], "attribute name")).has_value());
  });
  define("setattr(obj, name, value, /)", [](Evaluator& ev, Arguments& a) {
    const std::string& name = text_of(a[1], "attribute name");
    if (!a[0].is_object() || !a[0].object()->set_attribute(ev, name, a[2]))
      raise(exc::AttributeError(), "'" + type_name(a[0]) + "' object has no attribute '" + name + "'");
    return Value::none();
  });
  define("callable(obj, /)", [](Evaluator&, Arguments& a) {
    return Value::boolean(a[0].is_object() && a[0].object()->callable());
  });
  define("id(obj, /)", [](Evaluator&, Arguments& a) {
    if (a[0].is_object()) return Value::integer(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(a[0].object().get())));
    return Value::integer(static_cast<std::int64_t>(hash_value(a[0]) & 0x7fffffffffffULL));
  });
  define("ord(c, /)", [](Evaluator&, Arguments& a) {
    auto* s = a[0].as<StrObject>();
    if (!s) raise(exc::TypeError(), "ord() expected string of length 1, but " + type_name(a[0]) + " found");
    if (s->code_point_count() != 1)
      raise(exc::TypeError(), "ord() expected a character, but string of length " + std::to_string(s->code_point_count()) + " found");
    const std::string& t = s->value();
    auto byte = [&](std::size_t i) { return static_cast<std::int64_t>(static_cast<unsigned char>(t[i])); };
    std::int64_t cp = byte(0);
    if (cp >= 0xF0) cp = ((cp & 0x07) << 18) | ((byte(1) & 0x3F) << 12) | ((byte(2) & 0x3F) << 6) | (byte(3) & 0x3F);
    else if (cp >= 0xE0) cp = ((cp & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F);
    else if (cp >= 0xC0) cp = ((cp & 0x1F) << 6) | (byte(1) & 0x3F);
    return Value::integer(cp);
  });
  define("chr(i, /)", [](Evaluator& ev, Arguments& a) {
    std::int64_t cp = ev.index_of(a[0]);
    if (cp < 0 || cp > 0x10FFFF) raise(exc::ValueError(), "chr() arg not in range(0x110000)");
    std::string out;
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return make_str(std::move(out));
  });
  auto in_base = [&](const char* name, const char* spec) {
    define(std::string(name) + "(number, /)", [spec](Evaluator& ev, Arguments& a) {
      return make_str(format_value(ev, Value::integer(ev.index_of(a[0])), spec));
    });
  };
  in_base("hex", "#x");
  in_base("oct", "#o");
  in_base("bin", "#b");
}

}  // namespace interp
