// The built-in modules. Each module is a namespace object created here;
// its members are registered one line each in its install function
// (module.add_function("name(signature)", body) or module.add(name, value)).
// The jax family starts empty: the array, mesh and sharding work adds members
// to those modules without touching the evaluator.
#include <cstdio>

#include "interp/library/host_modules.hpp"
#include "interp/ops/array.hpp"
#include "interp/python/builtin_types.hpp"
#include "interp/python/builtins.hpp"
#include "interp/python/format.hpp"

namespace interp {

namespace {

// ------------------------------------------------------------ functools

class PartialObject : public Object {
 public:
  PartialObject(TypeRef type, Value function, std::vector<Value> args, std::vector<std::pair<std::string, Value>> keywords)
      : type_(std::move(type)), function_(std::move(function)), args_(std::move(args)), keywords_(std::move(keywords)) {}
  const TypeRef& type() const override { return type_; }
  // CPython's: the class's name ("functools.partial", a subclass's own).
  std::string repr(Evaluator& evaluator) const override {
    std::string out = type_->name() + "(" + evaluator.repr(function_);
    for (const auto& a : args_) out += ", " + evaluator.repr(a);
    for (const auto& [name, value] : keywords_) out += ", " + name + "=" + evaluator.repr(value);
    return out + ")";
  }
  bool callable() const override { return true; }
  Value call(Evaluator& evaluator, CallArgs& args) override {
    CallArgs merged;
    merged.positional = args_;
    merged.positional.insert(merged.positional.end(), args.positional.begin(), args.positional.end());
    merged.keywords = keywords_;
    for (auto& [name, value] : args.keywords) {
      // Named copy: clang 14 cannot capture a structured binding in a lambda.
      auto existing = std::find_if(merged.keywords.begin(), merged.keywords.end(),
                                   [&key = name](const auto& k) { return k.first == key; });
      if (existing != merged.keywords.end()) existing->second = value;
      else merged.keywords.emplace_back(name, value);
    }
    return evaluator.call(function_, merged);
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "func") return function_;
    if (name == "args") return make_tuple(args_);
    if (name == "keywords") {
      auto d = make_dict();
      for (const auto& [k, v] : keywords_) d->table.insert(make_str(k), v);
      return Value(d);
    }
    return Object::get_attribute(evaluator, name);
  }

 private:
  TypeRef type_;
  Value function_;
  std::vector<Value> args_;
  std::vector<std::pair<std::string, Value>> keywords_;
};

void install_functools(Evaluator&, ModuleObject& module) {
  install_functools_wrappers(module);
  module.add("partial", Value(partial_type()));
  module.add_function("reduce(function, iterable, initial=?, /)", [](Evaluator& ev, Arguments& a) {
    IteratorRef it = ev.iterate(a[1]);
    std::optional<Value> total;
    if (a.has(2)) total = a[2];
    while (auto v = it->next(ev)) total = total ? ev.call(a[0], {*total, *v}) : *v;
    if (!total) raise(exc::TypeError(), "reduce() of empty iterable with no initial value");
    return *total;
  });
}

// ------------------------------------------------------------ typing

// A typing construct (Optional, Sequence, Any): usable in annotations and
// subscriptable; it has no behaviour beyond its name.
class TypingObject : public Object {
 public:
  explicit TypingObject(std::string name) : name_(std::move(name)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("typing._SpecialForm");
    return type;
  }
  std::string repr(Evaluator&) const override { return "typing." + name_; }
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override {
    std::string inside;
    if (auto* t = key.as<TupleObject>()) {
      for (std::size_t i = 0; i < t->items.size(); ++i) inside += (i ? ", " : "") + name_of(evaluator, t->items[i]);
    } else {
      inside = name_of(evaluator, key);
    }
    return Value(std::make_shared<TypingObject>(name_ + "[" + inside + "]"));
  }

 private:
  static std::string name_of(Evaluator& evaluator, const Value& v) {
    if (auto* t = v.as<TypeObject>()) return t->name();
    if (v.is_none()) return "None";
    std::string r = evaluator.repr(v);
    return r.rfind("typing.", 0) == 0 ? r.substr(7) : r;
  }
  std::string name_;
};

void install_typing(Evaluator& evaluator, ModuleObject& module) {
  install_typing_named_tuple(evaluator, module);
  for (const char* name : {"Any", "Optional", "Sequence", "Union", "Callable", "Tuple", "List", "Dict", "ClassVar",
                           "Iterable", "Iterator", "Generator", "Mapping", "Type", "Literal", "Final", "Set",
                           "FrozenSet", "Hashable"})
    module.add(name, Value(std::make_shared<TypingObject>(name)));
  module.add("TYPE_CHECKING", Value::boolean(false));
  module.add_function("cast(typ, val)", [](Evaluator&, Arguments& a) { return a[1]; });
  module.add_function("TypeVar(name, *constraints, bound=None, covariant=False, contravariant=False)",
                      [](Evaluator& ev, Arguments& a) { return Value(std::make_shared<TypingObject>(ev.str(a[0]))); });
}

// ------------------------------------------------------------ textwrap

// Python's textwrap.fill with its defaults (expand tabs, whitespace to
// spaces, break long words, drop whitespace at line ends).
std::string wrap_text(const std::string& text, std::int64_t width) {
  if (width <= 0) raise(exc::ValueError(), "invalid width " + std::to_string(width) + " (must be > 0)");
  std::string expanded;
  for (char c : text) {
    if (c == '\t') {
      do expanded += ' ';
      while (expanded.size() % 8 != 0);
    } else if (c == '\n' || c == '\v' || c == '\f' || c == '\r') {
      expanded += ' ';
    } else {
      expanded += c;
    }
  }
  std::vector<std::string> chunks;  // words and runs of spaces, in order
  for (std::size_t i = 0; i < expanded.size();) {
    std::size_t j = i;
    bool space = expanded[i] == ' ';
    while (j < expanded.size() && (expanded[j] == ' ') == space) ++j;
    chunks.push_back(expanded.substr(i, j - i));
    i = j;
  }
  auto is_space = [](const std::string& chunk) { return chunk.find_first_not_of(' ') == std::string::npos; };
  std::reverse(chunks.begin(), chunks.end());
  std::vector<std::string> lines;
  auto w = static_cast<std::size_t>(width);
  while (!chunks.empty()) {
    std::vector<std::string> line;
    std::size_t length = 0;
    if (is_space(chunks.back()) && !lines.empty()) chunks.pop_back();
    while (!chunks.empty() && length + chunks.back().size() <= w) {
      length += chunks.back().size();
      line.push_back(chunks.back());
      chunks.pop_back();
    }
    if (!chunks.empty() && chunks.back().size() > w) {
      std::size_t space_left = w > length ? w - length : 1;
      std::string& chunk = chunks.back();
      std::size_t end = space_left;
      if (chunk.size() > space_left) {
        std::size_t hyphen = chunk.rfind('-', space_left - 1);
        if (hyphen != std::string::npos && hyphen > 0 && hyphen < space_left &&
            chunk.find_first_not_of('-') < hyphen)
          end = hyphen + 1;
      }
      line.push_back(chunk.substr(0, end));
      chunk = chunk.substr(end);
    }
    if (!line.empty() && is_space(line.back())) line.pop_back();
    if (!line.empty()) {
      std::string joined;
      for (const auto& part : line) joined += part;
      lines.push_back(joined);
    }
  }
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

void install_textwrap(Evaluator&, ModuleObject& module) {
  module.add_function("fill(text, width=70)", [](Evaluator& ev, Arguments& a) {
    const std::string* text = string_of(a[0]);
    if (!text) raise(exc::TypeError(), "fill() argument 'text' must be str, not " + type_name(a[0]));
    return make_str(wrap_text(*text, ev.index_of(a[1])));
  });
}

// ------------------------------------------------------------ termcolor

int termcolor_code(Evaluator& ev, const Value& name, std::initializer_list<std::pair<const char*, int>> table) {
  const std::string* text = string_of(name);
  if (text)
    for (const auto& [key, code] : table)
      if (*text == key) return code;
  raise_value(exc::KeyError(), make_str(ev.str(name)));
}

void install_termcolor(Evaluator&, ModuleObject& module) {
  // termcolor 2.x: the colour, then the highlight, then each attribute wraps the text.
  // Output is always coloured (as with force_color=True) unless no_color=True asks for the plain text.
  module.add_function("colored(text, color=None, on_color=None, attrs=None, *, no_color=None, force_color=None)",
                      [](Evaluator& ev, Arguments& a) {
    std::string result = ev.str(a[0]);
    if (!a[4].is_none() && ev.truthy(a[4])) return make_str(result);
    auto wrap = [&](int code) { result = "\033[" + std::to_string(code) + "m" + result; };
    if (!a[1].is_none())
      wrap(termcolor_code(ev, a[1], {{"black", 30}, {"grey", 30}, {"red", 31}, {"green", 32}, {"yellow", 33},
                                      {"blue", 34}, {"magenta", 35}, {"cyan", 36}, {"light_grey", 37},
                                      {"dark_grey", 90}, {"light_red", 91}, {"light_green", 92},
                                      {"light_yellow", 93}, {"light_blue", 94}, {"light_magenta", 95},
                                      {"light_cyan", 96}, {"white", 97}}));
    if (!a[2].is_none())
      wrap(termcolor_code(ev, a[2], {{"on_black", 40}, {"on_grey", 40}, {"on_red", 41}, {"on_green", 42},
                                      {"on_yellow", 43}, {"on_blue", 44}, {"on_magenta", 45}, {"on_cyan", 46},
                                      {"on_light_grey", 47}, {"on_dark_grey", 100}, {"on_light_red", 101},
                                      {"on_light_green", 102}, {"on_light_yellow", 103}, {"on_light_blue", 104},
                                      {"on_light_magenta", 105}, {"on_light_cyan", 106}, {"on_white", 107}}));
    if (!a[3].is_none())
      for (const auto& attr : ev.to_vector(a[3]))
        wrap(termcolor_code(ev, attr, {{"bold", 1}, {"dark", 2}, {"underline", 4}, {"blink", 5}, {"reverse", 7},
                                        {"concealed", 8}, {"strike", 9}}));
    return make_str(result + "\033[0m");
  });
}

}  // namespace

void install_modules(Evaluator& evaluator) {
  // The jax family and numpy: namespaces that the array work fills.
  for (const char* name : {"jax", "jax.numpy", "jax.lax", "jax.random", "jax.sharding", "jax.experimental",
                           "jax.experimental.mesh_utils", "jax.experimental.multihost_utils", "jax.debug", "jax.distributed",
                           "jax.tree", "jax.config", "numpy",
                           "numpy.testing"})
    evaluator.module(name);
  install_array_members(evaluator);
  using Installer = void (*)(Evaluator&, ModuleObject&);
  const std::pair<const char*, Installer> installers[] = {
      {"__future__", install_future},
      {"collections", install_collections},
      {"contextlib", install_contextlib},
      {"dataclasses", install_dataclasses},
      {"enum", install_enum},
      {"functools", install_functools},
      {"itertools", install_itertools},
      {"json", install_json},
      {"math", install_math},
      {"os", install_os},
      {"operator", install_operator},
      {"pathlib", install_pathlib},
#if defined(SHARDLANG_HAVE_PCRE2)
      {"re", install_re},
#endif
      {"string", install_string},
      {"termcolor", install_termcolor},
      {"textwrap", install_textwrap},
      {"typing", install_typing},
  };
  for (const auto& [name, install] : installers) install(evaluator, *evaluator.module(name));
  install_open(evaluator);
}

// Made with its constructor once per process: every interpreter shares the
// class (setting the constructor per interpreter raced between threads).
const TypeRef& partial_type() {
  static const TypeRef type = [] {
    TypeRef made = make_type("functools.partial");
    made->set_constructor(partial_constructor(made));
    return made;
  }();
  return type;
}

std::function<Value(Evaluator&, CallArgs&)> partial_constructor(const TypeRef& type) {
  return constructor(type->name() + "(func, /, *args, **keywords)", [type](Evaluator&, Arguments& a) {
    if (!a[0].is_object() || !a[0].object()->callable()) raise(exc::TypeError(), "the first argument must be callable");
    std::vector<std::pair<std::string, Value>> keywords;
    for (const auto& e : a[2].as<DictObject>()->table.entries())
      if (e.live) keywords.emplace_back(*string_of(e.key), e.value);
    return Value(std::make_shared<PartialObject>(type, a[0], a[1].as<TupleObject>()->items, std::move(keywords)));
  });
}

}  // namespace interp
