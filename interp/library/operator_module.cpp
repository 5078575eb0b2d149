// operator (the operators as functions, itemgetter, attrgetter,
// methodcaller) and string (its constants and capwords).
#include <map>

#include "interp/library/host_modules.hpp"

namespace interp {

namespace {

using Bin = lang::ast::BinaryOperator;
using Cmp = lang::ast::CompareOperator;
using Un = lang::ast::UnaryOperator;

// itemgetter / attrgetter / methodcaller: a callable with CPython's repr.
class Getter : public Object {
 public:
  using Body = std::function<Value(Evaluator&, const Value&)>;
  Getter(std::string kind, std::string shown, Body body)
      : kind_(std::move(kind)), shown_(std::move(shown)), body_(std::move(body)) {}
  const TypeRef& type() const override {
    static const std::map<std::string, TypeRef> made = [] {
      std::map<std::string, TypeRef> table;
      for (const char* name : {"itemgetter", "attrgetter", "methodcaller"}) table[name] = make_type(name, types::object());
      return table;
    }();
    return made.at(kind_);
  }
  std::string repr(Evaluator&) const override { return "operator." + kind_ + "(" + shown_ + ")"; }
  bool callable() const override { return true; }
  Value call(Evaluator& evaluator, CallArgs& args) override {
    if (args.positional.size() != 1 || !args.keywords.empty())
      raise(exc::TypeError(), kind_ + " expected 1 argument, got " + std::to_string(args.positional.size()));
    return body_(evaluator, args.positional[0]);
  }

 private:
  std::string kind_, shown_;
  Body body_;
};

Value dotted_attribute(Evaluator& evaluator, Value value, const std::string& path) {
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    value = evaluator.get_attribute(value, path.substr(start, dot - start));
    if (dot == std::string::npos) return value;
    start = dot + 1;
  }
}

std::string joined_reprs(Evaluator& evaluator, const std::vector<Value>& values) {
  std::string out;
  for (const Value& v : values) out += (out.empty() ? "" : ", ") + evaluator.repr(v);
  return out;
}

void install_operator_functions(ModuleObject& module) {
  const std::pair<const char*, Bin> binary[] = {
      {"add", Bin::add},       {"sub", Bin::sub},         {"mul", Bin::mult},       {"matmul", Bin::matmult},
      {"truediv", Bin::div},   {"floordiv", Bin::floordiv}, {"mod", Bin::mod},      {"pow", Bin::pow},
      {"lshift", Bin::lshift}, {"rshift", Bin::rshift},   {"and_", Bin::bitand_},   {"or_", Bin::bitor_},
      {"xor", Bin::bitxor},    {"concat", Bin::add}};
  for (auto [name, op] : binary) {
    module.add_function(std::string(name) + "(a, b, /)", [op = op](Evaluator& ev, Arguments& a) { return ev.binary(op, a[0], a[1]); });
    std::string base = name;  // iand for and_
    if (base.back() == '_') base.pop_back();
    module.add_function("i" + base + "(a, b, /)", [op = op](Evaluator& ev, Arguments& a) { return ev.inplace(op, a[0], a[1]); });
  }
  const std::pair<const char*, Cmp> comparisons[] = {{"eq", Cmp::eq}, {"ne", Cmp::not_eq_}, {"lt", Cmp::lt},
                                                     {"le", Cmp::lt_e}, {"gt", Cmp::gt}, {"ge", Cmp::gt_e}};
  for (auto [name, op] : comparisons)
    module.add_function(std::string(name) + "(a, b, /)", [op = op](Evaluator& ev, Arguments& a) { return ev.compare(op, a[0], a[1]); });
  const std::pair<const char*, Un> unary[] = {{"neg", Un::usub}, {"pos", Un::uadd}, {"invert", Un::invert}, {"inv", Un::invert}};
  for (auto [name, op] : unary)
    module.add_function(std::string(name) + "(a, /)", [op = op](Evaluator& ev, Arguments& a) { return ev.unary(op, a[0]); });
  module.add_function("not_(a, /)", [](Evaluator& ev, Arguments& a) { return Value::boolean(!ev.truthy(a[0])); });
  module.add_function("truth(a, /)", [](Evaluator& ev, Arguments& a) { return Value::boolean(ev.truthy(a[0])); });
  module.add_function("is_(a, b, /)", [](Evaluator&, Arguments& a) { return Value::boolean(a[0].is_same(a[1])); });
  module.add_function("is_not(a, b, /)", [](Evaluator&, Arguments& a) { return Value::boolean(!a[0].is_same(a[1])); });
  module.add_function("contains(a, b, /)", [](Evaluator& ev, Arguments& a) { return Value::boolean(ev.contains(a[0], a[1])); });
  module.add_function("countOf(a, b, /)", [](Evaluator& ev, Arguments& a) {
    std::int64_t count = 0;
    for (const Value& v : ev.to_vector(a[0])) count += ev.compare_bool(Cmp::eq, v, a[1]) ? 1 : 0;
    return Value::integer(count);
  });
  module.add_function("abs(a, /)", [](Evaluator& ev, Arguments& a) { return ev.call(*ev.lookup_global("abs"), {a[0]}); });
  module.add_function("index(a, /)", [](Evaluator& ev, Arguments& a) { return Value::integer(ev.index_of(a[0])); });
  module.add_function("getitem(a, b, /)", [](Evaluator& ev, Arguments& a) { return ev.get_item(a[0], a[1]); });
  module.add_function("setitem(a, b, c, /)", [](Evaluator& ev, Arguments& a) {
    ev.set_item(a[0], a[1], a[2]);
    return Value::none();
  });
}

void install_operator_getters(ModuleObject& module) {
  module.add_function("itemgetter(item, /, *items)", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> keys{a[0]};
    for (const Value& v : a[1].as<TupleObject>()->items) keys.push_back(v);
    return Value(std::make_shared<Getter>("itemgetter", joined_reprs(ev, keys), [keys](Evaluator& ev, const Value& object) {
      if (keys.size() == 1) return ev.get_item(object, keys[0]);
      std::vector<Value> out;
      for (const Value& key : keys) out.push_back(ev.get_item(object, key));
      return make_tuple(std::move(out));
    }));
  });
  module.add_function("attrgetter(attr, /, *attrs)", [](Evaluator& ev, Arguments& a) {
    std::vector<std::string> paths;
    std::vector<Value> all{a[0]};
    for (const Value& v : a[1].as<TupleObject>()->items) all.push_back(v);
    for (const Value& v : all) {
      const std::string* text = string_of(v);
      if (!text) raise(exc::TypeError(), "attribute name must be a string");
      paths.push_back(*text);
    }
    return Value(std::make_shared<Getter>("attrgetter", joined_reprs(ev, all), [paths](Evaluator& ev, const Value& object) {
      if (paths.size() == 1) return dotted_attribute(ev, object, paths[0]);
      std::vector<Value> out;
      for (const auto& path : paths) out.push_back(dotted_attribute(ev, object, path));
      return make_tuple(std::move(out));
    }));
  });
  module.add_function("methodcaller(name, /, *args, **kwargs)", [](Evaluator& ev, Arguments& a) {
    const std::string* name = string_of(a[0]);
    if (!name) raise(exc::TypeError(), "method name must be a string");
    CallArgs call;
    call.positional = a[1].as<TupleObject>()->items;
    std::string shown = ev.repr(a[0]);
    for (const Value& v : call.positional) shown += ", " + ev.repr(v);
    for (const auto& entry : a[2].as<DictObject>()->table.entries())
      if (entry.live) {
        call.keywords.emplace_back(*string_of(entry.key), entry.value);
        shown += ", " + *string_of(entry.key) + "=" + ev.repr(entry.value);
      }
    std::string method = *name;
    return Value(std::make_shared<Getter>("methodcaller", shown, [method, call](Evaluator& ev, const Value& object) {
      CallArgs copy = call;
      return ev.call(ev.get_attribute(object, method), copy);
    }));
  });
}

}  // namespace

void install_operator(Evaluator&, ModuleObject& module) {
  install_operator_functions(module);
  install_operator_getters(module);
}

void install_string(Evaluator&, ModuleObject& module) {
  const std::string lower = "abcdefghijklmnopqrstuvwxyz", upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const std::string digits = "0123456789", punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  const std::string whitespace = " \t\n\r\x0b\x0c";
  module.add("ascii_lowercase", make_str(lower));
  module.add("ascii_uppercase", make_str(upper));
  module.add("ascii_letters", make_str(lower + upper));
  module.add("digits", make_str(digits));
  module.add("hexdigits", make_str(digits + "abcdefABCDEF"));
  module.add("octdigits", make_str("01234567"));
  module.add("punctuation", make_str(punctuation));
  module.add("whitespace", make_str(whitespace));
  module.add("printable", make_str(digits + lower + upper + punctuation + whitespace));
  module.add_function("capwords(s, sep=None)", [](Evaluator& ev, Arguments& a) {
    // sep.join(word.capitalize() for word in s.split(sep))
    Value words = ev.call(ev.get_attribute(a[0], "split"), {a[1]});
    std::vector<Value> capitalized;
    for (const Value& word : ev.to_vector(words))
      capitalized.push_back(ev.call(ev.get_attribute(word, "capitalize"), std::vector<Value>{}));
    Value separator = a[1].is_none() ? make_str(" ") : a[1];
    return ev.call(ev.get_attribute(separator, "join"), {make_list(std::move(capitalized))});
  });
}

}  // namespace interp
