// collections: defaultdict, OrderedDict and Counter (dicts with their own
// type: dict's methods are theirs too), deque, and namedtuple
// (named_tuples.cpp), with CPython 3.11's behaviour and text forms. User
// classes may derive from the first four (their subclass makers: an empty
// SubclassInstance that the type's __init__ fills); each repr names the
// instance's class, as CPython's do.
#include <algorithm>
#include <deque>

#include "interp/library/host_modules.hpp"
#include "interp/python/builtin_subclasses.hpp"

namespace interp {

namespace {

using Op = lang::ast::BinaryOperator;

// dict(*args, **kwargs)'s table, for the dict subclasses' constructors.
ValueTable dict_table(Evaluator& evaluator, std::vector<Value> positional, std::vector<std::pair<std::string, Value>> keywords) {
  CallArgs args{std::move(positional), std::move(keywords)};
  Value made = evaluator.call(Value(types::dict()), args);
  return made.as<DictObject>()->table;
}

std::string items_repr(Evaluator& evaluator, const ValueTable& table) {
  std::string out;
  for (const auto& e : table.entries())
    if (e.live) out += (out.empty() ? "" : ", ") + evaluator.repr(e.key) + ": " + evaluator.repr(e.value);
  return "{" + out + "}";
}

// ------------------------------------------------------------ defaultdict

class DefaultDict : public DictObject {
 public:
  explicit DefaultDict(Value factory) : factory(std::move(factory)) {}
  const TypeRef& type() const override { return defaultdict_type(); }
  std::string repr(Evaluator& evaluator) const override {
    if (!evaluator.enter_repr(this)) return "...";
    std::string out = type()->name() + "(" + evaluator.repr(factory) + ", " + items_repr(evaluator, table) + ")";
    evaluator.leave_repr(this);
    return out;
  }
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override {
    if (Value* found = table.find(key)) return *found;
    if (factory.is_none()) raise_value(exc::KeyError(), key);
    Value made = evaluator.call(factory, std::vector<Value>{});
    table.insert(key, made);
    return made;
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "default_factory") return factory;
    return DictObject::get_attribute(evaluator, name);
  }
  Value factory;
};

}  // namespace

const TypeRef& defaultdict_type() {
  static const TypeRef type = [] {
    TypeRef t = make_type("defaultdict", types::dict());
    // defaultdict(default_factory=None, /, *args, **kwargs): the factory, then dict's arguments.
    auto init = [](Evaluator& ev, DefaultDict& d, CallArgs& args) {
      if (!args.positional.empty()) {
        d.factory = args.positional.front();
        args.positional.erase(args.positional.begin());
        if (!d.factory.is_none() && !(d.factory.has_hooks() && d.factory.object()->callable()))
          raise(exc::TypeError(), "first argument must be callable or None");
      }
      ValueTable given = dict_table(ev, args.positional, args.keywords);
      for (const auto& e : given.entries())
        if (e.live) d.table.insert(e.key, e.value);
    };
    t->set_constructor([init](Evaluator& ev, CallArgs& args) {
      auto d = std::make_shared<DefaultDict>(Value::none());
      init(ev, *d, args);
      return Value(d);
    });
    t->add_method("__init__(self, /, *args, **kwargs)", [init](Evaluator& ev, Arguments& a) {
      CallArgs args{a[1].as<TupleObject>()->items, keyword_arguments(a[2])};
      init(ev, *a[0].as<DefaultDict>(), args);
      return Value::none();
    });
    t->set_subclass_maker([](Evaluator& ev, const TypeRef& cls) {
      return Value(std::make_shared<SubclassInstance<DefaultDict>>(cls, ev, Value::none()));
    });
    t->add_method("copy(self, /)", [](Evaluator&, Arguments& a) {
      auto* self = a[0].as<DefaultDict>();
      auto d = std::make_shared<DefaultDict>(self->factory);
      d->table = self->table;
      return Value(d);
    });
    return t;
  }();
  return type;
}

namespace {

// ------------------------------------------------------------ OrderedDict

class OrderedDict : public DictObject {
 public:
  const TypeRef& type() const override { return ordered_dict_type(); }
  std::string repr(Evaluator& evaluator) const override {
    if (table.size() == 0) return type()->name() + "()";
    if (!evaluator.enter_repr(this)) return "...";
    std::string out;
    for (const auto& e : table.entries())
      if (e.live) out += (out.empty() ? "" : ", ") + ("(" + evaluator.repr(e.key) + ", " + evaluator.repr(e.value) + ")");
    evaluator.leave_repr(this);
    return type()->name() + "([" + out + "])";
  }
};

}  // namespace

const TypeRef& ordered_dict_type() {
  static const TypeRef type = [] {
    TypeRef t = make_type("OrderedDict", types::dict());
    t->set_constructor([](Evaluator& ev, CallArgs& args) {
      auto d = std::make_shared<OrderedDict>();
      d->table = dict_table(ev, args.positional, args.keywords);
      return Value(d);
    });
    // OrderedDict.__init__ stores each item through self[key] = value (a subclass's __setitem__).
    t->add_method("__init__(self, /, *args, **kwargs)", [](Evaluator& ev, Arguments& a) {
      ValueTable given = dict_table(ev, a[1].as<TupleObject>()->items, keyword_arguments(a[2]));
      for (const auto& e : given.entries())
        if (e.live) ev.set_item(a[0], e.key, e.value);
      return Value::none();
    });
    t->set_subclass_maker([](Evaluator& ev, const TypeRef& cls) {
      return Value(std::make_shared<SubclassInstance<OrderedDict>>(cls, ev));
    });
    t->add_method("move_to_end(self, /, key, last=True)", [](Evaluator& ev, Arguments& a) {
      auto& table = a[0].as<DictObject>()->table;
      const Value* found = table.find(a[1]);
      if (!found) raise_value(exc::KeyError(), a[1]);
      Value value = *found;
      std::vector<std::pair<Value, Value>> rest;
      if (!ev.truthy(a[2]))
        for (const auto& e : table.entries())
          if (e.live && !values_equal(e.key, a[1])) rest.emplace_back(e.key, e.value);
      table.erase(a[1]);
      if (ev.truthy(a[2])) {
        table.insert(a[1], value);
      } else {
        table.clear();
        table.insert(a[1], value);
        for (const auto& [k, v] : rest) table.insert(k, v);
      }
      return Value::none();
    });
    t->add_method("popitem(self, /, last=True)", [](Evaluator& ev, Arguments& a) {
      auto& table = a[0].as<DictObject>()->table;
      const auto& entries = table.entries();
      bool last = ev.truthy(a[1]);
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto& e = entries[last ? entries.size() - 1 - i : i];
        if (!e.live) continue;
        Value key = e.key, pair = make_tuple({e.key, e.value});
        table.erase(key);
        return pair;
      }
      raise(exc::KeyError(), "dictionary is empty");
    });
    t->add_method("copy(self, /)", [](Evaluator&, Arguments& a) {
      auto d = std::make_shared<OrderedDict>();
      d->table = a[0].as<DictObject>()->table;
      return Value(d);
    });
    return t;
  }();
  return type;
}

namespace {

// ------------------------------------------------------------ Counter

const TypeRef& counter_type();

class Counter : public DictObject {
 public:
  const TypeRef& type() const override { return counter_type(); }
  std::string repr(Evaluator& evaluator) const override {
    if (table.size() == 0) return type()->name() + "()";
    std::string out;
    for (const auto& [key, count] : most_common(evaluator))
      out += (out.empty() ? "" : ", ") + evaluator.repr(key) + ": " + evaluator.repr(count);
    return type()->name() + "({" + out + "})";
  }
  std::optional<Value> get_item(Evaluator&, const Value& key) override {
    if (Value* found = table.find(key)) return *found;
    return Value::integer(0);
  }
  std::optional<Value> binary_op(Evaluator& evaluator, Op op, const Value& other, bool reflected) override {
    auto* right = other.as<Counter>();
    if (right == nullptr || reflected) return DictObject::binary_op(evaluator, op, other, reflected);
    auto out = std::make_shared<Counter>();
    auto count = [](const ValueTable& t, const Value& key) { const Value* v = t.find(key); return v ? *v : Value::integer(0); };
    auto keep_positive = [&](const Value& key, const Value& value) {
      if (evaluator.compare_bool(lang::ast::CompareOperator::gt, value, Value::integer(0))) out->table.insert(key, value);
    };
    auto both = [&](auto combine) {
      for (const auto& e : table.entries())
        if (e.live) keep_positive(e.key, combine(e.value, count(right->table, e.key)));
      for (const auto& e : right->table.entries())
        if (e.live && !table.find(e.key)) keep_positive(e.key, combine(Value::integer(0), e.value));
    };
    using Cmp = lang::ast::CompareOperator;
    switch (op) {
      case Op::add: both([&](const Value& a, const Value& b) { return evaluator.binary(Op::add, a, b); }); break;
      case Op::sub: both([&](const Value& a, const Value& b) { return evaluator.binary(Op::sub, a, b); }); break;
      case Op::bitor_: both([&](const Value& a, const Value& b) { return evaluator.compare_bool(Cmp::lt, a, b) ? b : a; }); break;
      case Op::bitand_: both([&](const Value& a, const Value& b) { return evaluator.compare_bool(Cmp::lt, a, b) ? a : b; }); break;
      default: return DictObject::binary_op(evaluator, op, other, reflected);
    }
    return Value(out);
  }
  // Items by count, largest first; ties in insertion order.
  std::vector<std::pair<Value, Value>> most_common(Evaluator& evaluator) const {
    std::vector<std::pair<Value, Value>> items;
    for (const auto& e : table.entries())
      if (e.live) items.emplace_back(e.key, e.value);
    std::stable_sort(items.begin(), items.end(), [&](const auto& x, const auto& y) {
      return evaluator.compare_bool(lang::ast::CompareOperator::gt, x.second, y.second);
    });
    return items;
  }
  // update (sign 1) and subtract (sign -1) from an iterable or a mapping.
  void add_counts(Evaluator& evaluator, const Value& source, bool subtract) {
    Op op = subtract ? Op::sub : Op::add;
    auto add = [&](const Value& key, const Value& amount) {
      const Value* existing = table.find(key);
      table.insert(key, evaluator.binary(op, existing ? *existing : Value::integer(0), amount));
    };
    if (auto* mapping = source.as<DictObject>()) {
      for (const auto& e : mapping->table.entries())
        if (e.live) add(e.key, e.value);
    } else {
      IteratorRef it = evaluator.iterate(source);
      while (auto v = it->next(evaluator)) add(*v, Value::integer(1));
    }
  }
};

void install_counter_methods(TypeObject& t) {
  t.add_method("most_common(self, n=None, /)", [](Evaluator& ev, Arguments& a) {
    auto items = a[0].as<Counter>()->most_common(ev);
    std::size_t n = a[1].is_none() ? items.size() : static_cast<std::size_t>(std::max<std::int64_t>(ev.index_of(a[1]), 0));
    std::vector<Value> out;
    for (std::size_t i = 0; i < items.size() && i < n; ++i) out.push_back(make_tuple({items[i].first, items[i].second}));
    return make_list(std::move(out));
  });
  t.add_method("elements(self, /)", [](Evaluator&, Arguments& a) {
    std::vector<Value> out;
    for (const auto& e : a[0].as<Counter>()->table.entries())
      if (e.live)
        for (std::int64_t i = 0; i < (e.value.is_integral() ? e.value.as_int() : 0); ++i) out.push_back(e.key);
    return Value(std::make_shared<ListIterator>(std::move(out), types::list_iterator()));
  });
  for (bool subtract : {false, true})
    t.add_method(subtract ? "subtract(self, iterable=None, /, **kwds)" : "update(self, iterable=None, /, **kwds)",
                 [subtract](Evaluator& ev, Arguments& a) {
      auto* counter = a[0].as<Counter>();
      if (!a[1].is_none()) counter->add_counts(ev, a[1], subtract);
      counter->add_counts(ev, a[2], subtract);
      return Value::none();
    });
  t.add_method("total(self, /)", [](Evaluator& ev, Arguments& a) {
    Value total = Value::integer(0);
    for (const auto& e : a[0].as<Counter>()->table.entries())
      if (e.live) total = ev.binary(Op::add, total, e.value);
    return total;
  });
  t.add_method("copy(self, /)", [](Evaluator&, Arguments& a) {
    auto c = std::make_shared<Counter>();
    c->table = a[0].as<DictObject>()->table;
    return Value(c);
  });
}

const TypeRef& counter_type() {
  static const TypeRef type = [] {
    TypeRef t = make_type("Counter", types::dict());
    t->set_constructor([](Evaluator& ev, CallArgs& args) {
      static const Signature signature = Signature::parse("Counter(iterable=None, /, **kwds)");
      Arguments a = bind_arguments(ev, signature, args);
      auto c = std::make_shared<Counter>();
      if (!a[0].is_none()) c->add_counts(ev, a[0], false);
      c->add_counts(ev, a[1], false);
      return Value(c);
    });
    t->add_method("__init__(self, iterable=None, /, **kwds)", [](Evaluator& ev, Arguments& a) {
      auto* counter = a[0].as<Counter>();
      if (!a[1].is_none()) counter->add_counts(ev, a[1], false);
      counter->add_counts(ev, a[2], false);
      return Value::none();
    });
    t->set_subclass_maker([](Evaluator& ev, const TypeRef& cls) {
      return Value(std::make_shared<SubclassInstance<Counter>>(cls, ev));
    });
    install_counter_methods(*t);
    return t;
  }();
  return type;
}

// ------------------------------------------------------------ deque

const TypeRef& deque_type();

class Deque : public Object {
 public:
  const TypeRef& type() const override { return deque_type(); }
  std::string repr(Evaluator& evaluator) const override {
    if (!evaluator.enter_repr(this)) return "[...]";
    std::string out;
    for (const Value& v : items) out += (out.empty() ? "" : ", ") + evaluator.repr(v);
    evaluator.leave_repr(this);
    return type()->name() + "([" + out + "]" + (maxlen >= 0 ? ", maxlen=" + std::to_string(maxlen) : "") + ")";
  }
  std::optional<std::int64_t> length(Evaluator&) const override { return static_cast<std::int64_t>(items.size()); }
  bool truthy(Evaluator&) const override { return !items.empty(); }
  IteratorRef iterate(Evaluator&) override {
    return std::make_shared<ListIterator>(std::vector<Value>(items.begin(), items.end()), types::list_iterator());
  }
  std::optional<bool> contains(Evaluator&, const Value& item) override {
    return std::any_of(items.begin(), items.end(), [&](const Value& v) { return v.is_same(item) || values_equal(v, item); });
  }
  std::size_t position(Evaluator& evaluator, const Value& key) const {
    std::int64_t i = evaluator.index_of(key);
    if (i < 0) i += static_cast<std::int64_t>(items.size());
    if (i < 0 || i >= static_cast<std::int64_t>(items.size())) raise(exc::IndexError(), "deque index out of range");
    return static_cast<std::size_t>(i);
  }
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override { return items[position(evaluator, key)]; }
  bool set_item(Evaluator& evaluator, const Value& key, const Value& value) override {
    items[position(evaluator, key)] = value;
    return true;
  }
  bool equals(const Value& other) const override {
    auto* d = other.as<Deque>();
    if (!d || d->items.size() != items.size()) return false;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (!items[i].is_same(d->items[i]) && !values_equal(items[i], d->items[i])) return false;
    return true;
  }
  std::optional<Value> compare(Evaluator&, lang::ast::CompareOperator op, const Value& other, bool) override {
    if (!other.as<Deque>()) return std::nullopt;
    if (op == lang::ast::CompareOperator::eq) return Value::boolean(equals(other));
    if (op == lang::ast::CompareOperator::not_eq_) return Value::boolean(!equals(other));
    return std::nullopt;
  }
  std::optional<std::size_t> hash() const override { return std::nullopt; }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "maxlen") return maxlen < 0 ? Value::none() : Value::integer(maxlen);
    return Object::get_attribute(evaluator, name);
  }
  void push(Value value, bool left) {
    if (maxlen == 0) return;
    if (left) items.push_front(std::move(value));
    else items.push_back(std::move(value));
    if (maxlen > 0 && static_cast<std::int64_t>(items.size()) > maxlen) {
      if (left) items.pop_back();
      else items.pop_front();
    }
  }
  std::deque<Value> items;
  std::int64_t maxlen = -1;  // -1: unbounded
};

Deque& deque_of(const Value& v) { return *v.as<Deque>(); }

void install_deque_methods(TypeObject& t) {
  for (bool left : {false, true}) {
    t.add_method(left ? "appendleft(self, x, /)" : "append(self, x, /)", [left](Evaluator&, Arguments& a) {
      deque_of(a[0]).push(a[1], left);
      return Value::none();
    });
    t.add_method(left ? "extendleft(self, iterable, /)" : "extend(self, iterable, /)", [left](Evaluator& ev, Arguments& a) {
      for (const Value& v : ev.to_vector(a[1])) deque_of(a[0]).push(v, left);
      return Value::none();
    });
    t.add_method(left ? "popleft(self, /)" : "pop(self, /)", [left](Evaluator&, Arguments& a) {
      auto& items = deque_of(a[0]).items;
      if (items.empty()) raise(exc::IndexError(), "pop from an empty deque");
      Value out = left ? items.front() : items.back();
      if (left) items.pop_front();
      else items.pop_back();
      return out;
    });
  }
  t.add_method("rotate(self, n=1, /)", [](Evaluator& ev, Arguments& a) {
    auto& items = deque_of(a[0]).items;
    if (items.empty()) return Value::none();
    auto size = static_cast<std::int64_t>(items.size());
    std::int64_t n = ((ev.index_of(a[1]) % size) + size) % size;
    std::rotate(items.begin(), items.begin() + (size - n), items.end());
    return Value::none();
  });
  t.add_method("clear(self, /)", [](Evaluator&, Arguments& a) {
    deque_of(a[0]).items.clear();
    return Value::none();
  });
  t.add_method("reverse(self, /)", [](Evaluator&, Arguments& a) {
    std::reverse(deque_of(a[0]).items.begin(), deque_of(a[0]).items.end());
    return Value::none();
  });
  t.add_method("count(self, value, /)", [](Evaluator&, Arguments& a) {
    const auto& items = deque_of(a[0]).items;
    return Value::integer(std::count_if(items.begin(), items.end(), [&](const Value& v) { return v.is_same(a[1]) || values_equal(v, a[1]); }));
  });
  t.add_method("index(self, value, /)", [](Evaluator& ev, Arguments& a) {
    const auto& items = deque_of(a[0]).items;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (items[i].is_same(a[1]) || values_equal(items[i], a[1])) return Value::integer(static_cast<std::int64_t>(i));
    raise(exc::ValueError(), ev.repr(a[1]) + " is not in deque");
  });
  t.add_method("remove(self, value, /)", [](Evaluator&, Arguments& a) {
    auto& items = deque_of(a[0]).items;
    for (auto it = items.begin(); it != items.end(); ++it)
      if (it->is_same(a[1]) || values_equal(*it, a[1])) {
        items.erase(it);
        return Value::none();
      }
    raise(exc::ValueError(), "deque.remove(x): x not in deque");
  });
  t.add_method("copy(self, /)", [](Evaluator&, Arguments& a) {
    auto d = std::make_shared<Deque>();
    d->items = deque_of(a[0]).items;
    d->maxlen = deque_of(a[0]).maxlen;
    return Value(d);
  });
}

const TypeRef& deque_type() {
  static const TypeRef type = [] {
    TypeRef t = make_type("deque", types::object());
    // deque(iterable=(), maxlen=None); __init__ empties the deque first, as CPython's.
    auto init = [](Evaluator& ev, Deque& d, const Arguments& a, std::size_t first) {
      d.items.clear();
      d.maxlen = -1;
      if (!a[first + 1].is_none()) {
        d.maxlen = ev.index_of(a[first + 1]);
        if (d.maxlen < 0) raise(exc::ValueError(), "maxlen must be non-negative");
      }
      if (a.has(first))
        for (const Value& v : ev.to_vector(a[first])) d.push(v, false);
    };
    t->set_constructor([init](Evaluator& ev, CallArgs& args) {
      static const Signature signature = Signature::parse("deque(iterable=?, maxlen=None)");
      Arguments a = bind_arguments(ev, signature, args);
      auto d = std::make_shared<Deque>();
      init(ev, *d, a, 0);
      return Value(d);
    });
    t->add_method("__init__(self, iterable=?, maxlen=None)", [init](Evaluator& ev, Arguments& a) {
      init(ev, deque_of(a[0]), a, 1);
      return Value::none();
    });
    t->set_subclass_maker([](Evaluator& ev, const TypeRef& cls) {
      return Value(std::make_shared<SubclassInstance<Deque>>(cls, ev));
    });
    install_deque_methods(*t);
    return t;
  }();
  return type;
}

}  // namespace

void install_collections(Evaluator& evaluator, ModuleObject& module) {
  module.add("defaultdict", Value(defaultdict_type()));
  module.add("OrderedDict", Value(ordered_dict_type()));
  module.add("Counter", Value(counter_type()));
  module.add("deque", Value(deque_type()));
  install_named_tuple_function(evaluator, module);
}

}  // namespace interp
