// json: CPython's json.loads/dumps/load/dump, byte for byte (ensure_ascii,
// indent, separators, sort_keys, default, allow_nan, float repr), and its
// JSONDecodeError messages ("Expecting value: line 1 column 1 (char 0)").
// load and dump take file objects (files_module.cpp's open()).
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <set>

#include "interp/library/host_modules.hpp"
#include "interp/python/format.hpp"
#include "lang/utf8.hpp"

namespace interp {

namespace {

const TypeRef& decode_error_type() {
  static const TypeRef type = [] {
    TypeRef t = make_type("JSONDecodeError", exc::ValueError());
    TypeObject* raw = t.get();
    t->set_constructor([raw](Evaluator&, CallArgs& args) -> Value {
      return Value(std::make_shared<ExceptionObject>(std::static_pointer_cast<TypeObject>(raw->self()), args.positional));
    });
    return t;
  }();
  return type;
}

// ------------------------------------------------------------ encoding

struct EncodeOptions {
  bool ensure_ascii = true;
  bool allow_nan = true;
  bool sort_keys = false;
  bool skip_keys = false;
  std::optional<std::string> indent;  // nullopt: one line
  std::string item_separator = ", ";
  std::string key_separator = ": ";
  Value default_function;  // None: TypeError for other objects
};

void append_code_point_escape(std::string& out, std::uint32_t code) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(code & 0xFFFF));
  out += buffer;
}

std::string encode_string(const std::string& text, bool ensure_ascii) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    if (c < 0x20) {
      append_code_point_escape(out, c);
    } else if (c < 0x80 || !ensure_ascii) {
      out += static_cast<char>(c);
    } else {
      // A UTF-8 sequence: its code point, as \uXXXX (a surrogate pair above U+FFFF).
      int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
      std::uint32_t code = c & (0x3F >> extra);
      for (int k = 0; k < extra && i + 1 < text.size(); ++k) code = (code << 6) | (static_cast<unsigned char>(text[++i]) & 0x3F);
      if (code >= 0x10000) {
        code -= 0x10000;
        append_code_point_escape(out, 0xD800 + (code >> 10));
        append_code_point_escape(out, 0xDC00 + (code & 0x3FF));
      } else {
        append_code_point_escape(out, code);
      }
    }
  }
  return out + "\"";
}

std::string encode_float(double value, const EncodeOptions& options) {
  if (std::isfinite(value)) return float_repr(value);
  if (!options.allow_nan) raise(exc::ValueError(), "Out of range float values are not JSON compliant");
  return std::isnan(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
}

class Encoder {
 public:
  Encoder(Evaluator& evaluator, EncodeOptions options) : evaluator_(evaluator), options_(std::move(options)) {}

  void encode(const Value& value, int depth) {
    evaluator_.guard_stack();
    if (value.is_none()) out += "null";
    else if (value.is_bool()) out += value.as_bool() ? "true" : "false";
    else if (value.is_int()) out += std::to_string(value.as_int());
    else if (value.is_float()) out += encode_float(value.as_float(), options_);
    else if (const std::string* text = string_of(value)) out += encode_string(*text, options_.ensure_ascii);
    else if (auto* sequence = value.as<SequenceObject>(); sequence && (value.as<ListObject>() || value.as<TupleObject>()))
      encode_array(value, sequence->items, depth);
    else if (auto* dict = value.as<DictObject>()) encode_object(value, *dict, depth);
    else encode_other(value, depth);
  }

  std::string out;

 private:
  struct Marker {
    Encoder& encoder;
    const Object* object;
    Marker(Encoder& e, const Value& value) : encoder(e), object(value.object().get()) {
      if (!encoder.active_.insert(object).second) raise(exc::ValueError(), "Circular reference detected");
    }
    ~Marker() { encoder.active_.erase(object); }
  };

  void newline(int depth) {
    if (!options_.indent) return;
    out += "\n";
    for (int i = 0; i < depth; ++i) out += *options_.indent;
  }

  void encode_array(const Value& value, const std::vector<Value>& items, int depth) {
    if (items.empty()) {
      out += "[]";
      return;
    }
    Marker marker(*this, value);
    out += "[";
    std::vector<Value> copy = items;  // the encoder may run user code (default=)
    for (std::size_t i = 0; i < copy.size(); ++i) {
      if (i) out += options_.item_separator;
      newline(depth + 1);
      encode(copy[i], depth + 1);
    }
    newline(depth);
    out += "]";
  }

  // A key as JSON writes it: str, or int/float/bool/None turned into text.
  std::optional<std::string> key_text(const Value& key) {
    if (const std::string* text = string_of(key)) return *text;
    if (key.is_none()) return "null";
    if (key.is_bool()) return key.as_bool() ? "true" : "false";
    if (key.is_int()) return std::to_string(key.as_int());
    if (key.is_float()) return encode_float(key.as_float(), options_);
    if (options_.skip_keys) return std::nullopt;
    raise(exc::TypeError(), "keys must be str, int, float, bool or None, not " + type_name(key));
  }

  void encode_object(const Value& value, const DictObject& dict, int depth) {
    std::vector<std::pair<Value, Value>> entries;
    for (const auto& e : dict.table.entries())
      if (e.live) entries.emplace_back(e.key, e.value);
    if (entries.empty()) {
      out += "{}";
      return;
    }
    if (options_.sort_keys)
      std::stable_sort(entries.begin(), entries.end(), [&](const auto& a, const auto& b) {
        return evaluator_.compare_bool(lang::ast::CompareOperator::lt, a.first, b.first);
      });
    Marker marker(*this, value);
    out += "{";
    bool first = true;
    for (const auto& [key, item] : entries) {
      std::optional<std::string> text = key_text(key);
      if (!text) continue;
      if (!first) out += options_.item_separator;
      first = false;
      newline(depth + 1);
      out += encode_string(*text, options_.ensure_ascii) + options_.key_separator;
      encode(item, depth + 1);
    }
    newline(depth);
    out += "}";
  }

  void encode_other(const Value& value, int depth) {
    if (options_.default_function.is_none())
      raise(exc::TypeError(), "Object of type " + type_name(value) + " is not JSON serializable");
    Marker marker(*this, value);
    encode(evaluator_.call(options_.default_function, {value}), depth);
  }

  Evaluator& evaluator_;
  EncodeOptions options_;
  std::set<const Object*> active_;
};

// The keyword arguments of dumps and dump (after the object, and the file for dump).
EncodeOptions encode_options(Evaluator& ev, const Arguments& a, std::size_t first) {
  EncodeOptions options;
  options.skip_keys = ev.truthy(a[first]);
  options.ensure_ascii = ev.truthy(a[first + 1]);
  options.allow_nan = ev.truthy(a[first + 3]);
  const Value& indent = a[first + 5];
  if (const std::string* text = string_of(indent)) options.indent = *text;
  else if (!indent.is_none()) options.indent = std::string(static_cast<std::size_t>(std::max<std::int64_t>(0, ev.index_of(indent))), ' ');
  if (options.indent) options.item_separator = ",";
  if (!a[first + 6].is_none()) {
    std::vector<Value> separators = ev.to_vector(a[first + 6]);
    if (separators.size() != 2 || !string_of(separators[0]) || !string_of(separators[1]))
      raise(exc::ValueError(), "separators must be a pair of strings");
    options.item_separator = *string_of(separators[0]);
    options.key_separator = *string_of(separators[1]);
  }
  options.default_function = a[first + 7];
  options.sort_keys = ev.truthy(a[first + 8]);
  return options;
}

constexpr const char* encode_keywords =
    "*, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True, cls=None, indent=None, "
    "separators=None, default=None, sort_keys=False";

std::string dumps(Evaluator& evaluator, const Value& value, EncodeOptions options) {
  Encoder encoder(evaluator, std::move(options));
  encoder.encode(value, 0);
  return std::move(encoder.out);
}

// ------------------------------------------------------------ decoding

class Decoder {
 public:
  Decoder(Evaluator& evaluator, const std::string& text) : evaluator_(evaluator), text_(text) {}

  Value document() {
    skip_space();
    Value value = parse_value();
    skip_space();
    if (at_ < text_.size()) fail("Extra data", at_);
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& message, std::size_t position) {
    int line = 1;
    std::size_t line_start = 0;
    std::int64_t characters = 0, column_characters = 0;
    for (std::size_t i = 0; i < position && i < text_.size(); ++i) {
      bool starts_character = (static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80;
      if (!starts_character) continue;
      ++characters;
      ++column_characters;
      if (text_[i] == '\n') {
        ++line;
        line_start = i + 1;
        column_characters = 0;
      }
    }
    (void)line_start;
    throw PyError{make_exception(decode_error_type(), message + ": line " + std::to_string(line) + " column " +
                                                          std::to_string(column_characters + 1) + " (char " +
                                                          std::to_string(characters) + ")")};
  }

  void skip_space() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) ++at_;
  }

  bool literal(const char* word) {
    std::size_t n = std::char_traits<char>::length(word);
    if (text_.compare(at_, n, word) != 0) return false;
    at_ += n;
    return true;
  }

  Value parse_value() {
    evaluator_.guard_stack();
    if (at_ >= text_.size()) fail("Expecting value", at_);
    char c = text_[at_];
    if (c == '{') return parse_object();
    if (c == '[') return parse_array();
    if (c == '"') return make_str(parse_string());
    if (literal("null")) return Value::none();
    if (literal("true")) return Value::boolean(true);
    if (literal("false")) return Value::boolean(false);
    if (literal("NaN")) return Value::floating(std::nan(""));
    if (literal("Infinity")) return Value::floating(HUGE_VAL);
    if (literal("-Infinity")) return Value::floating(-HUGE_VAL);
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
    fail("Expecting value", at_);
  }

  Value parse_number() {
    std::size_t start = at_;
    if (text_[at_] == '-') ++at_;
    auto digits = [&] {
      std::size_t from = at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
      return at_ - from;
    };
    if (at_ >= text_.size() || !(text_[at_] >= '0' && text_[at_] <= '9')) fail("Expecting value", start);
    if (text_[at_] == '0') ++at_;
    else digits();
    bool is_float = false;
    if (at_ + 1 < text_.size() && text_[at_] == '.' && text_[at_ + 1] >= '0' && text_[at_ + 1] <= '9') {
      ++at_;
      digits();
      is_float = true;
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      std::size_t mark = at_++;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
      if (digits() == 0) at_ = mark;
      else is_float = true;
    }
    std::string number = text_.substr(start, at_ - start);
    if (is_float) return Value::floating(std::strtod(number.c_str(), nullptr));
    errno = 0;
    long long value = std::strtoll(number.c_str(), nullptr, 10);
    if (errno == ERANGE) raise(exc::OverflowError(), "integers beyond 64 bits are not supported in shardlang");
    return Value::integer(value);
  }

  std::uint32_t hex4(std::size_t position) {
    if (position + 4 > text_.size()) fail("Invalid \\uXXXX escape", position - 1);
    std::uint32_t code = 0;
    for (std::size_t i = position; i < position + 4; ++i) {
      char h = text_[i];
      int digit = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (digit < 0) fail("Invalid \\uXXXX escape", position - 1);
      code = code * 16 + static_cast<std::uint32_t>(digit);
    }
    return code;
  }

  std::string parse_string() {
    std::size_t start = at_++;
    std::string out;
    while (true) {
      if (at_ >= text_.size()) fail("Unterminated string starting at", start);
      char c = text_[at_];
      if (c == '"') {
        ++at_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("Invalid control character at", at_);
      if (c != '\\') {
        out += c;
        ++at_;
        continue;
      }
      if (at_ + 1 >= text_.size()) fail("Unterminated string starting at", start);
      char escape = text_[at_ + 1];
      at_ += 2;
      switch (escape) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t code = hex4(at_);
          at_ += 4;
          if (code >= 0xD800 && code < 0xDC00 && text_.compare(at_, 2, "\\u") == 0) {
            std::uint32_t low = hex4(at_ + 2);
            if (low >= 0xDC00 && low < 0xE000) {
              code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
              at_ += 6;
            }
          }
          lang::append_utf8(out, code);
          break;
        }
        default: fail("Invalid \\escape", at_ - 2);
      }
    }
  }

  Value parse_array() {
    ++at_;
    std::vector<Value> items;
    skip_space();
    if (at_ < text_.size() && text_[at_] == ']') {
      ++at_;
      return make_list(std::move(items));
    }
    while (true) {
      skip_space();
      items.push_back(parse_value());
      skip_space();
      if (at_ < text_.size() && text_[at_] == ']') {
        ++at_;
        return make_list(std::move(items));
      }
      if (at_ >= text_.size() || text_[at_] != ',') fail("Expecting ',' delimiter", at_);
      ++at_;
    }
  }

  Value parse_object() {
    ++at_;
    auto dict = make_dict();
    skip_space();
    if (at_ < text_.size() && text_[at_] == '}') {
      ++at_;
      return Value(dict);
    }
    while (true) {
      if (at_ >= text_.size() || text_[at_] != '"') fail("Expecting property name enclosed in double quotes", at_);
      Value key = make_str(parse_string());
      skip_space();
      if (at_ >= text_.size() || text_[at_] != ':') fail("Expecting ':' delimiter", at_);
      ++at_;
      skip_space();
      dict->table.insert(key, parse_value());
      skip_space();
      if (at_ < text_.size() && text_[at_] == '}') {
        ++at_;
        return Value(dict);
      }
      if (at_ >= text_.size() || text_[at_] != ',') fail("Expecting ',' delimiter", at_);
      ++at_;
      skip_space();
    }
  }

  Evaluator& evaluator_;
  const std::string& text_;
  std::size_t at_ = 0;
};

Value loads(Evaluator& evaluator, const Value& source) {
  const std::string* text = string_of(source);
  if (!text) raise(exc::TypeError(), "the JSON object must be str, bytes or bytearray, not " + type_name(source));
  return Decoder(evaluator, *text).document();
}

}  // namespace

void install_json(Evaluator&, ModuleObject& module) {
  module.add("JSONDecodeError", Value(decode_error_type()));
  module.add_function("loads(s, /, **kw)", [](Evaluator& ev, Arguments& a) { return loads(ev, a[0]); });
  module.add_function("load(fp, /, **kw)", [](Evaluator& ev, Arguments& a) {
    return loads(ev, ev.call(ev.get_attribute(a[0], "read"), std::vector<Value>{}));
  });
  module.add_function(std::string("dumps(obj, /, ") + encode_keywords + ")", [](Evaluator& ev, Arguments& a) {
    return make_str(dumps(ev, a[0], encode_options(ev, a, 1)));
  });
  module.add_function(std::string("dump(obj, fp, /, ") + encode_keywords + ")", [](Evaluator& ev, Arguments& a) {
    std::string text = dumps(ev, a[0], encode_options(ev, a, 2));
    ev.call(ev.get_attribute(a[1], "write"), {make_str(std::move(text))});
    return Value::none();
  });
}

}  // namespace interp
