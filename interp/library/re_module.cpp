// re: Python's regular expressions on PCRE2 (Debian's libpcre2-dev; built
// only when it is found, SHARDLANG_HAVE_PCRE2). Patterns are compiled in
// PCRE2's UTF mode with Unicode classes (Python's default for str patterns),
// after the few spellings where Python and PCRE2 differ are translated
// (\Z, {,n}); positions are code points, as in Python. Matching with empty
// matches follows Python 3.7+: an empty match may follow a non-empty one,
// and never repeats at the place of the last empty match.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <cctype>

#include "interp/library/host_modules.hpp"
#include "interp/python/classes.hpp"

namespace interp {

namespace {

// Python's flag values.
constexpr std::int64_t flag_ascii = 256, flag_ignorecase = 2, flag_multiline = 8, flag_dotall = 16,
                       flag_unicode = 32, flag_verbose = 64;

// re.error, a class of the module re deriving from Exception.
const TypeRef& error_type() {
  static const TypeRef type = [] {
    std::vector<TypeRef> bases{exc::Exception()};
    auto error = std::make_shared<ClassObject>(
        "error", "error", bases, class_mro(bases),
        AttributeList{{"__module__", make_str("re")}, {"__qualname__", make_str("error")}});
    error->process_wide = true;
    return error;
  }();
  return type;
}

[[noreturn]] void raise_error(const std::string& message) { raise(error_type(), message); }

const TypeRef& pattern_type();
const TypeRef& match_type();

// A subject string with its byte and code point positions.
class Subject {
 public:
  explicit Subject(std::string text) : text_(std::move(text)) {
    for (unsigned char c : text_)
      if (c >= 0x80) ascii_ = false;
    if (ascii_) return;
    for (std::size_t i = 0; i < text_.size(); ++i)
      if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) starts_.push_back(i);
  }
  const std::string& text() const { return text_; }
  std::int64_t length() const { return ascii_ ? static_cast<std::int64_t>(text_.size()) : static_cast<std::int64_t>(starts_.size()); }
  std::int64_t index(std::size_t byte) const {  // code point index of a byte offset
    if (ascii_) return static_cast<std::int64_t>(byte);
    return static_cast<std::int64_t>(std::lower_bound(starts_.begin(), starts_.end(), byte) - starts_.begin());
  }
  std::size_t byte(std::int64_t index) const {  // byte offset of a code point index (clamped)
    index = std::clamp<std::int64_t>(index, 0, length());
    if (ascii_) return static_cast<std::size_t>(index);
    return index == length() ? text_.size() : starts_[static_cast<std::size_t>(index)];
  }

 private:
  std::string text_;
  bool ascii_ = true;
  std::vector<std::size_t> starts_;
};

// Python's spellings that PCRE2 reads otherwise: \Z (PCRE2's \z) and {,n}.
std::string translate(const std::string& pattern) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      out += '\\';
      out += pattern[i + 1] == 'Z' ? 'z' : pattern[i + 1];
      ++i;
    } else if (c == '{' && i + 1 < pattern.size() && pattern[i + 1] == ',') {
      out += "{0";
    } else {
      out += c;
    }
  }
  return out;
}

class PatternObject : public Object {
 public:
  PatternObject(std::string pattern, std::int64_t flags) : pattern(std::move(pattern)), flags(flags) {
    std::uint32_t options = PCRE2_UTF | PCRE2_ALT_BSUX;
    if (!(flags & flag_ascii)) options |= PCRE2_UCP;
    if (flags & flag_ignorecase) options |= PCRE2_CASELESS;
    if (flags & flag_multiline) options |= PCRE2_MULTILINE;
    if (flags & flag_dotall) options |= PCRE2_DOTALL;
    if (flags & flag_verbose) options |= PCRE2_EXTENDED;
    std::string translated = translate(this->pattern);
    int code = 0;
    PCRE2_SIZE offset = 0;
    code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(), options, &code, &offset,
                          nullptr);
    if (!code_) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(code, message, sizeof message);
      raise_error(std::string(reinterpret_cast<const char*>(message)) + " at position " + std::to_string(offset));
    }
    std::uint32_t count = 0;
    pcre2_pattern_info(code_, PCRE2_INFO_CAPTURECOUNT, &count);
    groups = count;
    std::uint32_t names = 0, entry_size = 0;
    PCRE2_SPTR table = nullptr;
    pcre2_pattern_info(code_, PCRE2_INFO_NAMECOUNT, &names);
    pcre2_pattern_info(code_, PCRE2_INFO_NAMEENTRYSIZE, &entry_size);
    pcre2_pattern_info(code_, PCRE2_INFO_NAMETABLE, &table);
    for (std::uint32_t i = 0; i < names; ++i) {
      PCRE2_SPTR entry = table + static_cast<std::size_t>(i) * entry_size;
      std::size_t number = (static_cast<std::size_t>(entry[0]) << 8) | entry[1];
      group_names.emplace_back(reinterpret_cast<const char*>(entry + 2), number);
    }
    std::sort(group_names.begin(), group_names.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
  }
  ~PatternObject() override { pcre2_code_free(code_); }
  PatternObject(const PatternObject&) = delete;
  PatternObject& operator=(const PatternObject&) = delete;

  const TypeRef& type() const override { return pattern_type(); }
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  std::optional<std::size_t> hash() const override { return std::hash<std::string>{}(pattern) ^ static_cast<std::size_t>(flags); }
  bool equals(const Value& other) const override {
    auto* p = other.as<PatternObject>();
    return p && p->pattern == pattern && p->flags == flags;
  }

  // Matches at or after `start` (bytes) within [0, end); the offsets of the
  // groups (PCRE2_UNSET for those that did not take part), or empty.
  std::vector<std::size_t> run(const Subject& subject, std::size_t start, std::size_t end, std::uint32_t options) const {
    if (start > end) return {};
    pcre2_match_data* data = pcre2_match_data_create_from_pattern(code_, nullptr);
    int found = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(subject.text().data()), end, start, options, data, nullptr);
    std::vector<std::size_t> offsets;
    if (found > 0) {
      PCRE2_SIZE* vector = pcre2_get_ovector_pointer(data);
      offsets.assign(vector, vector + 2 * (groups + 1));
      for (std::size_t i = static_cast<std::size_t>(found); i <= groups; ++i)
        offsets[2 * i] = offsets[2 * i + 1] = PCRE2_UNSET;
    }
    pcre2_match_data_free(data);
    if (found < 0 && found != PCRE2_ERROR_NOMATCH) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(found, message, sizeof message);
      raise_error(reinterpret_cast<const char*>(message));
    }
    return offsets;
  }
  std::optional<std::size_t> group_number(const std::string& name) const {
    for (const auto& [n, number] : group_names)
      if (n == name) return number;
    return std::nullopt;
  }

  std::string pattern;
  std::int64_t flags;
  std::size_t groups = 0;
  std::vector<std::pair<std::string, std::size_t>> group_names;  // by group number

 private:
  pcre2_code* code_ = nullptr;
};

class MatchObject : public Object {
 public:
  MatchObject(std::shared_ptr<PatternObject> pattern, std::shared_ptr<const Subject> subject,
              std::vector<std::size_t> offsets, std::int64_t pos, std::int64_t endpos)
      : pattern(std::move(pattern)), subject(std::move(subject)), offsets(std::move(offsets)), pos(pos), endpos(endpos) {}
  const TypeRef& type() const override { return match_type(); }
  std::string repr(Evaluator& evaluator) const override {
    return "<re.Match object; span=(" + std::to_string(start(0)) + ", " + std::to_string(end(0)) +
           "), match=" + evaluator.repr(group(0)) + ">";
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  std::optional<Value> get_item(Evaluator&, const Value& key) override { return group(index(key)); }
  bool truthy(Evaluator&) const override { return true; }

  bool took_part(std::size_t i) const { return offsets[2 * i] != PCRE2_UNSET; }
  std::int64_t start(std::size_t i) const { return took_part(i) ? subject->index(offsets[2 * i]) : -1; }
  std::int64_t end(std::size_t i) const { return took_part(i) ? subject->index(offsets[2 * i + 1]) : -1; }
  Value group(std::size_t i, const Value& absent = Value::none()) const {
    if (!took_part(i)) return absent;
    return make_str(subject->text().substr(offsets[2 * i], offsets[2 * i + 1] - offsets[2 * i]));
  }
  // A group given by number or name; IndexError("no such group") otherwise.
  std::size_t index(const Value& key) const {
    if (key.is_integral()) {
      std::int64_t i = key.as_int();
      if (i >= 0 && static_cast<std::size_t>(i) <= pattern->groups) return static_cast<std::size_t>(i);
    } else if (const std::string* name = string_of(key)) {
      if (auto number = pattern->group_number(*name)) return *number;
    }
    raise(exc::IndexError(), "no such group");
  }

  std::shared_ptr<PatternObject> pattern;
  std::shared_ptr<const Subject> subject;
  std::vector<std::size_t> offsets;
  std::int64_t pos, endpos;
};

std::string flags_text(std::int64_t flags) {
  const std::pair<std::int64_t, const char*> names[] = {{flag_ignorecase, "re.IGNORECASE"}, {flag_multiline, "re.MULTILINE"},
                                                        {flag_dotall, "re.DOTALL"},         {flag_verbose, "re.VERBOSE"},
                                                        {flag_ascii, "re.ASCII"}};
  std::string out;
  for (const auto& [flag, name] : names)
    if (flags & flag) out += (out.empty() ? "" : "|") + std::string(name);
  return out;
}

std::string PatternObject::repr(Evaluator& evaluator) const {
  std::string shown = flags_text(flags);
  return "re.compile(" + evaluator.repr(make_str(pattern)) + (shown.empty() ? "" : ", " + shown) + ")";
}

const std::string& text_argument(const Value& value, const char* what) {
  const std::string* text = string_of(value);
  if (!text) raise(exc::TypeError(), std::string("expected string or bytes-like object, got '") + type_name(value) + "'" + what);
  return *text;
}

// The pattern of a module-level call: a compiled one, or a string compiled now.
std::shared_ptr<PatternObject> pattern_of(const Value& pattern, std::int64_t flags) {
  if (auto* compiled = pattern.as<PatternObject>()) {
    if (flags != 0) raise(exc::ValueError(), "cannot process flags argument with a compiled pattern");
    return std::static_pointer_cast<PatternObject>(compiled->self());
  }
  return std::make_shared<PatternObject>(text_argument(pattern, ""), flags);
}

// Every match in [pos, endpos), Python's way with empty matches.
std::vector<std::shared_ptr<MatchObject>> all_matches(const std::shared_ptr<PatternObject>& pattern,
                                                      const std::shared_ptr<const Subject>& subject, std::int64_t pos,
                                                      std::int64_t endpos, std::size_t limit = 0) {
  std::vector<std::shared_ptr<MatchObject>> matches;
  std::size_t end = subject->byte(endpos), at = subject->byte(pos);
  bool after_empty = false;
  while (at <= end && (limit == 0 || matches.size() < limit)) {
    auto offsets = pattern->run(*subject, at, end, after_empty ? PCRE2_NOTEMPTY_ATSTART : 0);
    if (offsets.empty()) break;
    after_empty = offsets[0] == offsets[1];
    at = offsets[1];
    matches.push_back(std::make_shared<MatchObject>(pattern, subject, std::move(offsets), pos, endpos));
  }
  return matches;
}

// match / fullmatch / search from Python's positions.
Value match_at(const std::shared_ptr<PatternObject>& pattern, const Value& string, std::int64_t pos,
               std::optional<std::int64_t> endpos, std::uint32_t options) {
  auto subject = std::make_shared<const Subject>(text_argument(string, ""));
  std::int64_t length = subject->length();
  pos = std::clamp<std::int64_t>(pos < 0 ? 0 : pos, 0, length);
  std::int64_t stop = std::clamp<std::int64_t>(endpos.value_or(length), 0, length);
  if (pos > stop) return Value::none();
  auto offsets = pattern->run(*subject, subject->byte(pos), subject->byte(stop), options);
  if (offsets.empty()) return Value::none();
  return Value(std::make_shared<MatchObject>(pattern, subject, std::move(offsets), pos, stop));
}

// The replacement of one match: a template with \1, \g<name> and escapes, or a function's result.
std::string expand(Evaluator& evaluator, const std::shared_ptr<MatchObject>& matched, const Value& replacement) {
  const MatchObject& match = *matched;
  if (!string_of(replacement)) return text_argument(evaluator.call(replacement, std::vector<Value>{Value(matched)}), "");
  const std::string& text = *string_of(replacement);
  std::string out;
  auto group_text = [&](std::size_t i) {
    if (match.took_part(i)) out += match.subject->text().substr(match.offsets[2 * i], match.offsets[2 * i + 1] - match.offsets[2 * i]);
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '\\' || i + 1 == text.size()) {
      out += c;
      continue;
    }
    char e = text[++i];
    if (std::isdigit(static_cast<unsigned char>(e))) {
      std::size_t number = static_cast<std::size_t>(e - '0');
      if (i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))
        number = number * 10 + static_cast<std::size_t>(text[++i] - '0');
      if (number > match.pattern->groups) raise_error("invalid group reference " + std::to_string(number));
      group_text(number);
    } else if (e == 'g') {
      std::size_t close = text.find('>', i);
      if (i + 1 >= text.size() || text[i + 1] != '<' || close == std::string::npos) raise_error("missing <");
      std::string name = text.substr(i + 2, close - i - 2);
      i = close;
      bool numeric = !name.empty() && std::all_of(name.begin(), name.end(), [](char d) { return std::isdigit(static_cast<unsigned char>(d)); });
      std::optional<std::size_t> number = numeric ? std::optional<std::size_t>(std::stoul(name)) : match.pattern->group_number(name);
      if (!number || *number > match.pattern->groups)
        numeric ? raise_error("invalid group reference " + name) : raise(exc::IndexError(), "unknown group name '" + name + "'");
      group_text(*number);
    } else {
      const std::string escapes = "abfnrtv\\";
      const std::string values = "\a\b\f\n\r\t\v\\";
      auto at = escapes.find(e);
      if (at != std::string::npos) out += values[at];
      else if (std::isalpha(static_cast<unsigned char>(e))) raise_error(std::string("bad escape \\") + e);
      else out += std::string("\\") + e;
    }
  }
  return out;
}

Value substitute(Evaluator& evaluator, const std::shared_ptr<PatternObject>& pattern, const Value& replacement,
                 const Value& string, std::int64_t count, bool with_count) {
  auto subject = std::make_shared<const Subject>(text_argument(string, ""));
  if (!string_of(replacement) && !(replacement.is_object() && replacement.object()->callable()))
    raise(exc::TypeError(), "expected str instance, " + type_name(replacement) + " found");
  auto matches = all_matches(pattern, subject, 0, subject->length(), count > 0 ? static_cast<std::size_t>(count) : 0);
  std::string out;
  std::size_t last = 0;
  for (const auto& match : matches) {
    out += subject->text().substr(last, match->offsets[0] - last);
    out += expand(evaluator, match, replacement);
    last = match->offsets[1];
  }
  out += subject->text().substr(last);
  if (!with_count) return make_str(std::move(out));
  return make_tuple({make_str(std::move(out)), Value::integer(static_cast<std::int64_t>(matches.size()))});
}

Value split(const std::shared_ptr<PatternObject>& pattern, const Value& string, std::int64_t maxsplit) {
  auto subject = std::make_shared<const Subject>(text_argument(string, ""));
  std::vector<Value> parts;
  if (maxsplit < 0) return make_list({make_str(subject->text())});
  auto matches = all_matches(pattern, subject, 0, subject->length(), static_cast<std::size_t>(maxsplit));
  std::size_t last = 0;
  for (const auto& match : matches) {
    parts.push_back(make_str(subject->text().substr(last, match->offsets[0] - last)));
    for (std::size_t g = 1; g <= pattern->groups; ++g) parts.push_back(match->group(g));
    last = match->offsets[1];
  }
  parts.push_back(make_str(subject->text().substr(last)));
  return make_list(std::move(parts));
}

Value findall(const std::shared_ptr<PatternObject>& pattern, const Value& string, std::int64_t pos,
              std::optional<std::int64_t> endpos) {
  auto subject = std::make_shared<const Subject>(text_argument(string, ""));
  std::int64_t stop = std::clamp<std::int64_t>(endpos.value_or(subject->length()), 0, subject->length());
  std::vector<Value> found;
  for (const auto& match : all_matches(pattern, subject, std::clamp<std::int64_t>(pos, 0, stop), stop)) {
    if (pattern->groups == 0) {
      found.push_back(match->group(0));
    } else if (pattern->groups == 1) {
      found.push_back(match->group(1, make_str("")));
    } else {
      std::vector<Value> groups;
      for (std::size_t g = 1; g <= pattern->groups; ++g) groups.push_back(match->group(g, make_str("")));
      found.push_back(make_tuple(std::move(groups)));
    }
  }
  return make_list(std::move(found));
}

Value finditer(Evaluator& evaluator, const std::shared_ptr<PatternObject>& pattern, const Value& string,
               std::int64_t pos, std::optional<std::int64_t> endpos) {
  auto subject = std::make_shared<const Subject>(text_argument(string, ""));
  std::int64_t stop = std::clamp<std::int64_t>(endpos.value_or(subject->length()), 0, subject->length());
  std::vector<Value> matches;
  for (auto& match : all_matches(pattern, subject, std::clamp<std::int64_t>(pos, 0, stop), stop))
    matches.emplace_back(std::move(match));
  return Value(evaluator.iterate(make_list(std::move(matches))));
}

std::optional<std::int64_t> optional_int(const Arguments& a, std::size_t i) {
  if (!a.has(i) || a[i].is_none()) return std::nullopt;
  return a[i].as_int();
}

std::shared_ptr<PatternObject> self_pattern(const Arguments& a) {
  return std::static_pointer_cast<PatternObject>(a[0].object());
}

const TypeRef& pattern_type() {
  static const TypeRef type = [] {
    TypeRef t = make_type("Pattern", types::object());
    t->add_method("match(self, /, string, pos=0, endpos=None)", [](Evaluator&, Arguments& a) {
      return match_at(self_pattern(a), a[1], a[2].as_int(), optional_int(a, 3), PCRE2_ANCHORED);
    });
    t->add_method("fullmatch(self, /, string, pos=0, endpos=None)", [](Evaluator&, Arguments& a) {
      return match_at(self_pattern(a), a[1], a[2].as_int(), optional_int(a, 3), PCRE2_ANCHORED | PCRE2_ENDANCHORED);
    });
    t->add_method("search(self, /, string, pos=0, endpos=None)", [](Evaluator&, Arguments& a) {
      return match_at(self_pattern(a), a[1], a[2].as_int(), optional_int(a, 3), 0);
    });
    t->add_method("findall(self, /, string, pos=0, endpos=None)", [](Evaluator&, Arguments& a) {
      return findall(self_pattern(a), a[1], a[2].as_int(), optional_int(a, 3));
    });
    t->add_method("finditer(self, /, string, pos=0, endpos=None)", [](Evaluator& ev, Arguments& a) {
      return finditer(ev, self_pattern(a), a[1], a[2].as_int(), optional_int(a, 3));
    });
    t->add_method("sub(self, /, repl, string, count=0)", [](Evaluator& ev, Arguments& a) {
      return substitute(ev, self_pattern(a), a[1], a[2], a[3].as_int(), false);
    });
    t->add_method("subn(self, /, repl, string, count=0)", [](Evaluator& ev, Arguments& a) {
      return substitute(ev, self_pattern(a), a[1], a[2], a[3].as_int(), true);
    });
    t->add_method("split(self, /, string, maxsplit=0)", [](Evaluator&, Arguments& a) {
      return split(self_pattern(a), a[1], a[2].as_int());
    });
    return t;
  }();
  return type;
}

std::optional<Value> PatternObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "pattern") return make_str(pattern);
  if (name == "flags") return Value::integer(flags | (flags & flag_ascii ? 0 : flag_unicode));
  if (name == "groups") return Value::integer(static_cast<std::int64_t>(groups));
  if (name == "groupindex") {
    auto dict = make_dict();
    for (const auto& [n, number] : group_names) dict->table.insert(make_str(n), Value::integer(static_cast<std::int64_t>(number)));
    return Value(dict);
  }
  return Object::get_attribute(evaluator, name);
}

MatchObject& self_match(const Arguments& a) { return *a[0].as<MatchObject>(); }

const TypeRef& match_type() {
  static const TypeRef type = [] {
    TypeRef t = make_type("Match", types::object());
    t->add_method("group(self, /, *groups)", [](Evaluator&, Arguments& a) {
      MatchObject& m = self_match(a);
      const auto& groups = a[1].as<TupleObject>()->items;
      if (groups.empty()) return m.group(0);
      if (groups.size() == 1) return m.group(m.index(groups[0]));
      std::vector<Value> out;
      for (const Value& g : groups) out.push_back(m.group(m.index(g)));
      return make_tuple(std::move(out));
    });
    t->add_method("groups(self, /, default=None)", [](Evaluator&, Arguments& a) {
      MatchObject& m = self_match(a);
      std::vector<Value> out;
      for (std::size_t g = 1; g <= m.pattern->groups; ++g) out.push_back(m.group(g, a[1]));
      return make_tuple(std::move(out));
    });
    t->add_method("groupdict(self, /, default=None)", [](Evaluator&, Arguments& a) {
      MatchObject& m = self_match(a);
      auto dict = make_dict();
      for (const auto& [name, number] : m.pattern->group_names) dict->table.insert(make_str(name), m.group(number, a[1]));
      return Value(dict);
    });
    t->add_method("span(self, group=0, /)", [](Evaluator&, Arguments& a) {
      MatchObject& m = self_match(a);
      std::size_t g = m.index(a[1]);
      return make_tuple({Value::integer(m.start(g)), Value::integer(m.end(g))});
    });
    t->add_method("start(self, group=0, /)", [](Evaluator&, Arguments& a) {
      return Value::integer(self_match(a).start(self_match(a).index(a[1])));
    });
    t->add_method("end(self, group=0, /)", [](Evaluator&, Arguments& a) {
      return Value::integer(self_match(a).end(self_match(a).index(a[1])));
    });
    t->add_method("expand(self, /, template)", [](Evaluator& ev, Arguments& a) {
      text_argument(a[1], "");
      return make_str(expand(ev, std::static_pointer_cast<MatchObject>(a[0].object()), a[1]));
    });
    return t;
  }();
  return type;
}

std::optional<Value> MatchObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "string") return make_str(subject->text());
  if (name == "re") return Value(pattern);
  if (name == "pos") return Value::integer(pos);
  if (name == "endpos") return Value::integer(endpos);
  if (name == "lastindex" || name == "lastgroup") {
    // The group that closed last: the one ending last, the outermost on a tie.
    std::optional<std::size_t> last;
    for (std::size_t g = 1; g <= pattern->groups; ++g)
      if (took_part(g) && (!last || offsets[2 * g + 1] > offsets[2 * *last + 1])) last = g;
    if (!last) return Value::none();
    if (name == "lastindex") return Value::integer(static_cast<std::int64_t>(*last));
    for (const auto& [n, number] : pattern->group_names)
      if (number == *last) return make_str(n);
    return Value::none();
  }
  return Object::get_attribute(evaluator, name);
}

std::string escape(const std::string& text) {
  static const std::string special = "()[]{}?*+-|^$\\.&~# \t\n\r\v\f";
  std::string out;
  for (char c : text) {
    if (special.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

void install_re(Evaluator&, ModuleObject& module) {
  const std::pair<const char*, std::int64_t> flags[] = {
      {"ASCII", flag_ascii},   {"A", flag_ascii},   {"IGNORECASE", flag_ignorecase}, {"I", flag_ignorecase},
      {"MULTILINE", flag_multiline}, {"M", flag_multiline}, {"DOTALL", flag_dotall}, {"S", flag_dotall},
      {"VERBOSE", flag_verbose}, {"X", flag_verbose}, {"UNICODE", flag_unicode}, {"U", flag_unicode}, {"NOFLAG", 0}};
  for (const auto& [name, value] : flags) module.add(name, Value::integer(value));
  module.add("error", Value(error_type()));
  module.add("Pattern", Value(pattern_type()));
  module.add("Match", Value(match_type()));
  module.add_function("compile(pattern, flags=0)", [](Evaluator&, Arguments& a) {
    return Value(pattern_of(a[0], a[1].as_int()));
  });
  module.add_function("match(pattern, string, flags=0)", [](Evaluator&, Arguments& a) {
    return match_at(pattern_of(a[0], a[2].as_int()), a[1], 0, std::nullopt, PCRE2_ANCHORED);
  });
  module.add_function("fullmatch(pattern, string, flags=0)", [](Evaluator&, Arguments& a) {
    return match_at(pattern_of(a[0], a[2].as_int()), a[1], 0, std::nullopt, PCRE2_ANCHORED | PCRE2_ENDANCHORED);
  });
  module.add_function("search(pattern, string, flags=0)", [](Evaluator&, Arguments& a) {
    return match_at(pattern_of(a[0], a[2].as_int()), a[1], 0, std::nullopt, 0);
  });
  module.add_function("findall(pattern, string, flags=0)", [](Evaluator&, Arguments& a) {
    return findall(pattern_of(a[0], a[2].as_int()), a[1], 0, std::nullopt);
  });
  module.add_function("finditer(pattern, string, flags=0)", [](Evaluator& ev, Arguments& a) {
    return finditer(ev, pattern_of(a[0], a[2].as_int()), a[1], 0, std::nullopt);
  });
  module.add_function("sub(pattern, repl, string, count=0, flags=0)", [](Evaluator& ev, Arguments& a) {
    return substitute(ev, pattern_of(a[0], a[4].as_int()), a[1], a[2], a[3].as_int(), false);
  });
  module.add_function("subn(pattern, repl, string, count=0, flags=0)", [](Evaluator& ev, Arguments& a) {
    return substitute(ev, pattern_of(a[0], a[4].as_int()), a[1], a[2], a[3].as_int(), true);
  });
  module.add_function("split(pattern, string, maxsplit=0, flags=0)", [](Evaluator&, Arguments& a) {
    return split(pattern_of(a[0], a[3].as_int()), a[1], a[2].as_int());
  });
  module.add_function("escape(pattern)", [](Evaluator&, Arguments& a) {
    return make_str(escape(text_argument(a[0], "")));
  });
  module.add_function("purge()", [](Evaluator&, Arguments&) { return Value::none(); });
}

}  // namespace interp
