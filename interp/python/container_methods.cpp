// The constructors and methods of list, tuple, dict (with its keys(),
// values() and items() views), set, range and slice.
#include "interp/python/builtin_types.hpp"

#include <algorithm>
#include <functional>

namespace interp {

namespace ast = lang::ast;

namespace {

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

}  // namespace

// Python's list.sort: stable, with an optional key, reverse keeping stability.
namespace {
// Keys that all are ints (bools too, not a subclass's instances) or all exact
// strs compare as Python compares them without the protocol: as numbers, and
// as UTF-8 bytes (whose order is the code points').
enum class KeyKind : std::uint8_t { integers, strings, other };

KeyKind key_kind(const std::vector<std::pair<Value, Value>>& decorated) {
  auto plain_int = [](const auto& entry) { return entry.first.is_integral() && !entry.first.has_hooks(); };
  auto exact_str = [](const auto& entry) {
    return entry.first.is_object() && entry.first.object()->type() == types::str() && string_of(entry.first);
  };
  if (std::all_of(decorated.begin(), decorated.end(), plain_int)) return KeyKind::integers;
  if (std::all_of(decorated.begin(), decorated.end(), exact_str)) return KeyKind::strings;
  return KeyKind::other;
}

// Items that all are plain ints (not bools: True and 1 are equal but tell
// apart) sorted as numbers; equal ones cannot be told apart, so stability
// needs no care. False: some other item, nothing done.
bool sort_plain_ints(std::vector<Value>& items, bool reverse) {
  auto plain_int = [](const Value& item) { return item.is_int() && !item.has_hooks(); };
  if (!std::all_of(items.begin(), items.end(), plain_int)) return false;
  std::vector<std::int64_t> numbers;
  numbers.reserve(items.size());
  for (const Value& item : items) numbers.push_back(item.as_int());
  if (reverse) std::sort(numbers.begin(), numbers.end(), std::greater<>());
  else std::sort(numbers.begin(), numbers.end());
  for (std::size_t i = 0; i < items.size(); ++i) items[i] = Value::integer(numbers[i]);
  return true;
}
}  // namespace

void sort_values(Evaluator& evaluator, std::vector<Value>& items, const Value& key, bool reverse) {
  if (key.is_none() && sort_plain_ints(items, reverse)) return;
  std::vector<std::pair<Value, Value>> decorated;
  decorated.reserve(items.size());
  for (auto& item : items) decorated.emplace_back(key.is_none() ? item : evaluator.call(key, {item}), item);
  if (reverse) std::reverse(decorated.begin(), decorated.end());
  switch (key_kind(decorated)) {
    case KeyKind::integers:
      std::stable_sort(decorated.begin(), decorated.end(),
                       [](const auto& a, const auto& b) { return a.first.as_int() < b.first.as_int(); });
      break;
    case KeyKind::strings:
      std::stable_sort(decorated.begin(), decorated.end(),
                       [](const auto& a, const auto& b) { return *string_of(a.first) < *string_of(b.first); });
      break;
    case KeyKind::other:
      std::stable_sort(decorated.begin(), decorated.end(), [&](const auto& a, const auto& b) {
        return evaluator.compare_bool(ast::CompareOperator::lt, a.first, b.first);
      });
  }
  if (reverse) std::reverse(decorated.begin(), decorated.end());
  for (std::size_t i = 0; i < items.size(); ++i) items[i] = std::move(decorated[i].second);
}

void install_list_type(TypeObject& type) {
  type.set_constructor(constructor("list(iterable=?, /)", [](Evaluator& ev, Arguments& a) {
    return a.has(0) ? make_list(ev.to_vector(a[0])) : make_list({});
  }));
  add_protocol_dunders<ListObject>(type, true, true);
  type.add_method("__init__(self, iterable=?, /)", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> items = a.has(1) ? ev.to_vector(a[1]) : std::vector<Value>{};
    for (const Value& item : items) ev.remember_store(list_of(a[0]), item);
    list_of(a[0]).items = std::move(items);
    return Value::none();
  });
  type.add_method("append(self, object, /)", [](Evaluator& ev, const Value* a) {
    append_to(ev, list_of(a[0]), a[1]);
    return Value::none();
  });
  type.add_method("extend(self, iterable, /)", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> extra = ev.to_vector(a[1]);
    for (const Value& item : extra) ev.remember_store(list_of(a[0]), item);
    auto& items = list_of(a[0]).items;
    items.insert(items.end(), extra.begin(), extra.end());
    return Value::none();
  });
  type.add_method("insert(self, index, object, /)", [](Evaluator& ev, Arguments& a) {
    auto& items = list_of(a[0]).items;
    std::int64_t n = static_cast<std::int64_t>(items.size());
    std::int64_t i = ev.index_of(a[1]);
    if (i < 0) i = std::max<std::int64_t>(0, i + n);
    ev.remember_store(list_of(a[0]), a[2]);
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
}

void install_tuple_type(TypeObject& type) {
  type.set_constructor(constructor("tuple(iterable=?, /)", [](Evaluator& ev, Arguments& a) {
    if (a.has(0) && a[0].as<TupleObject>() && type_of(a[0]) == types::tuple()) return a[0];
    return a.has(0) ? make_tuple(ev.to_vector(a[0])) : make_tuple({});
  }));
  add_protocol_dunders<TupleObject>(type, true, false);
  add_hash_dunder<TupleObject>(type);
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
}

void install_dict_type(TypeObject& type) {
  add_comparison_dunders<DictObject>(type);
  // `stores`: the target existed before the call (update), so what it is
  // given may lead back to it; a dict being built (the constructor) cannot.
  auto update = [](Evaluator& ev, DictObject& target, const Arguments& a, std::size_t other, std::size_t keywords,
                   bool stores) {
    auto insert = [&](const Value& key, const Value& value) {
      if (stores) ev.remember_store(target, value);
      target.table.insert(key, value);
    };
    if (a.has(other)) {
      if (auto* d = a[other].as<DictObject>()) {
        for (const auto& e : d->table.entries())
          if (e.live) insert(e.key, e.value);
      } else {
        std::size_t index = 0;
        for (const auto& pair : ev.to_vector(a[other])) {
          std::vector<Value> kv = ev.to_vector(pair);
          if (kv.size() != 2)
            raise(exc::ValueError(), "dictionary update sequence element #" + std::to_string(index) + " has length " +
                                         std::to_string(kv.size()) + "; 2 is required");
          insert(kv[0], kv[1]);
          ++index;
        }
      }
    }
    for (const auto& e : dict_of(a[keywords]).table.entries())
      if (e.live) insert(e.key, e.value);
  };
  type.set_constructor(constructor("dict(mapping=?, /, **kwargs)", [update](Evaluator& ev, Arguments& a) {
    auto d = make_dict();
    update(ev, *d, a, 0, 1, false);
    return Value(d);
  }));
  type.add_method("update(self, other=?, /, **kwargs)", [update](Evaluator& ev, Arguments& a) {
    update(ev, dict_of(a[0]), a, 1, 2, true);
    return Value::none();
  });
  type.add_method("__init__(self, other=?, /, **kwargs)", [update](Evaluator& ev, Arguments& a) {
    update(ev, dict_of(a[0]), a, 1, 2, true);
    return Value::none();
  });
  add_protocol_dunders<DictObject>(type, true, true);
  auto view = [](const Value& d, DictView::Kind kind) {
    return Value(std::make_shared<DictView>(std::static_pointer_cast<DictObject>(d.object()), kind));
  };
  type.add_method("keys(self, /)", [view](Evaluator&, Arguments& a) { return view(a[0], DictView::Kind::keys); });
  type.add_method("values(self, /)", [view](Evaluator&, Arguments& a) { return view(a[0], DictView::Kind::values); });
  type.add_method("items(self, /)", [view](Evaluator&, Arguments& a) { return view(a[0], DictView::Kind::items); });
  type.add_method("get(self, key, default=None, /)", [](Evaluator&, const Value* a) {
    const Value* v = dict_of(a[0]).table.find(a[1]);
    return v ? *v : a[2];
  });
  type.add_method("setdefault(self, key, default=None, /)", [](Evaluator& ev, Arguments& a) {
    auto& table = dict_of(a[0]).table;
    if (const Value* v = table.find(a[1])) return *v;
    ev.remember_store(dict_of(a[0]), a[2]);
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
}

void install_set_type(TypeObject& type, bool frozen) {
  add_comparison_dunders<SetObject>(type);
  if (frozen) add_hash_dunder<SetObject>(type);
  auto fill = [](Evaluator& ev, SetObject& s, const Value& iterable) {
    for (const auto& v : ev.to_vector(iterable)) s.table.insert(v, Value());
  };
  type.set_constructor(constructor(frozen ? "frozenset(iterable=?, /)" : "set(iterable=?, /)",
                                   [fill, frozen](Evaluator& ev, Arguments& a) {
    auto s = make_set();
    if (a.has(0)) fill(ev, *s, a[0]);
    s->frozen = frozen;
    return Value(s);
  }));
  add_protocol_dunders<SetObject>(type, false, false);
  // A frozenset has no mutating methods.
  if (!frozen) {
    type.add_method("__init__(self, iterable=?, /)", [fill](Evaluator& ev, Arguments& a) {
      set_of(a[0]).table.clear();
      if (a.has(1)) fill(ev, set_of(a[0]), a[1]);
      return Value::none();
    });
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
    type.add_method("clear(self, /)", [](Evaluator&, Arguments& a) {
      set_of(a[0]).table.clear();
      return Value::none();
    });
    type.add_method("update(self, /, *others)", [fill](Evaluator& ev, Arguments& a) {
      for (const auto& other : a[1].as<TupleObject>()->items) fill(ev, set_of(a[0]), other);
      return Value::none();
    });
  }
  type.add_method("copy(self, /)", [](Evaluator&, Arguments& a) {
    auto s = make_set();
    s->table = set_of(a[0]).table;
    s->frozen = set_of(a[0]).frozen;
    return Value(s);
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
  type.add_method("symmetric_difference(self, other, /)", [fill](Evaluator& ev, Arguments& a) {
    auto other = make_set();
    fill(ev, *other, a[1]);
    return ev.binary(ast::BinaryOperator::bitxor, a[0], Value(other));
  });
  type.add_method("isdisjoint(self, other, /)", [fill](Evaluator& ev, Arguments& a) {
    auto other = make_set();
    fill(ev, *other, a[1]);
    for (const auto& e : other->table.entries())
      if (e.live && set_of(a[0]).table.find(e.key)) return Value::boolean(false);
    return Value::boolean(true);
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
}

void install_range_type(TypeObject& type) {
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
}

void install_slice_type(TypeObject& type) {
  type.set_constructor(constructor("slice(*args)", [](Evaluator&, Arguments& a) {
    const auto& args = a[0].as<TupleObject>()->items;
    if (args.empty() || args.size() > 3) raise(exc::TypeError(), "slice expected 1 to 3 arguments");
    if (args.size() == 1) return Value(std::make_shared<SliceObject>(Value(), args[0], Value()));
    return Value(std::make_shared<SliceObject>(args[0], args[1], args.size() == 3 ? args[2] : Value()));
  }));
}

}  // namespace interp
