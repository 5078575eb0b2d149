// itertools: lazy iterators with CPython's semantics and error texts. Each
// is a FunctionIterator whose step function holds the iterator's state.
#include <algorithm>
#include <map>

#include "interp/library/host_modules.hpp"

namespace interp {

namespace {

using Op = lang::ast::BinaryOperator;

// The iterator type named as CPython names it (type(x).__name__).
const TypeRef& iterator_type(const char* name) {
  static const std::map<std::string, TypeRef> made = [] {
    std::map<std::string, TypeRef> table;
    for (const char* type : {"count", "repeat", "cycle", "chain", "islice", "accumulate", "zip_longest", "starmap",
                             "pairwise", "compress", "takewhile", "dropwhile", "filterfalse", "groupby", "_grouper",
                             "product", "combinations", "combinations_with_replacement", "permutations"})
      table[type] = make_type(type, types::iterator());
    return table;
  }();
  return made.at(name);
}

Value iterator(const char* name, FunctionIterator::Step step) {
  return Value(std::make_shared<FunctionIterator>(std::move(step), iterator_type(name)));
}

std::vector<Value> items_of(const Value& tuple) { return tuple.as<TupleObject>()->items; }

std::int64_t non_negative(Evaluator& ev, const Value& value, const char* message) {
  std::int64_t n = ev.index_of(value);
  if (n < 0) raise(exc::ValueError(), message);
  return n;
}

// The index vectors of combinations/permutations, advanced in CPython's order.
bool next_combination(std::vector<std::size_t>& indices, std::size_t n, bool with_replacement) {
  std::size_t r = indices.size();
  std::size_t i = r;
  while (i > 0) {
    --i;
    std::size_t limit = with_replacement ? n - 1 : i + n - r;
    if (indices[i] != limit) {
      ++indices[i];
      for (std::size_t j = i + 1; j < r; ++j) indices[j] = with_replacement ? indices[i] : indices[j - 1] + 1;
      return true;
    }
  }
  return false;
}

void install_infinite(ModuleObject& module) {
  module.add_function("count(start=0, step=1)", [](Evaluator&, Arguments& a) {
    Value current = a[0], step = a[1];
    return iterator("count", [current, step](Evaluator& ev) mutable -> std::optional<Value> {
      Value out = current;
      current = ev.binary(Op::add, current, step);
      return out;
    });
  });
  module.add_function("repeat(object, times=?)", [](Evaluator& ev, Arguments& a) {
    Value object = a[0];
    std::int64_t left = a.has(1) ? std::max<std::int64_t>(ev.index_of(a[1]), 0) : -1;
    return iterator("repeat", [object, left](Evaluator&) mutable -> std::optional<Value> {
      if (left == 0) return std::nullopt;
      if (left > 0) --left;
      return object;
    });
  });
  module.add_function("cycle(iterable, /)", [](Evaluator& ev, Arguments& a) {
    IteratorRef source = ev.iterate(a[0]);
    auto saved = std::make_shared<std::vector<Value>>();
    std::size_t position = 0;
    return iterator("cycle", [source, saved, position](Evaluator& ev) mutable -> std::optional<Value> {
      if (source) {
        if (auto v = source->next(ev)) {
          saved->push_back(*v);
          return v;
        }
        source = nullptr;
      }
      if (saved->empty()) return std::nullopt;
      return (*saved)[position++ % saved->size()];
    });
  });
}

// chain(*iterables) and chain.from_iterable(iterable).
Value chain_of(IteratorRef sources) {
  IteratorRef current;
  return iterator("chain", [sources, current](Evaluator& ev) mutable -> std::optional<Value> {
    while (true) {
      if (current)
        if (auto v = current->next(ev)) return v;
      auto next_source = sources->next(ev);
      if (!next_source) return std::nullopt;
      current = ev.iterate(*next_source);
    }
  });
}

class ChainFunction : public NativeFunction {
 public:
  ChainFunction()
      : NativeFunction(Signature::parse("chain(*iterables)"), [](Evaluator& ev, Arguments& a) {
          return chain_of(ev.iterate(a[0]));
        }) {}
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "from_iterable")
      return Value(native("from_iterable(iterable, /)", [](Evaluator& ev, Arguments& a) { return chain_of(ev.iterate(a[0])); }));
    return NativeFunction::get_attribute(evaluator, name);
  }
};

void install_finite(ModuleObject& module) {
  module.add("chain", Value(std::make_shared<ChainFunction>()));
  module.add_function("islice(iterable, /, *args)", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> args = items_of(a[1]);
    if (args.empty() || args.size() > 3) raise(exc::TypeError(), "islice expected at most 4 arguments, got " + std::to_string(args.size() + 1));
    const char* message = "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize.";
    std::int64_t start = 0, step = 1, stop = -1;
    const Value& stop_value = args.size() == 1 ? args[0] : args[1];
    if (!stop_value.is_none()) stop = non_negative(ev, stop_value, message);
    if (args.size() >= 2 && !args[0].is_none())
      start = non_negative(ev, args[0], "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.");
    if (args.size() == 3 && !args[2].is_none()) {
      step = ev.index_of(args[2]);
      if (step <= 0) raise(exc::ValueError(), "Step for islice() must be a positive integer or None.");
    }
    IteratorRef source = ev.iterate(a[0]);
    std::int64_t position = 0, next_index = start;
    return iterator("islice", [=](Evaluator& ev) mutable -> std::optional<Value> {
      while (stop < 0 || next_index < stop) {
        auto v = source->next(ev);
        if (!v) return std::nullopt;
        if (position++ == next_index) {
          next_index += step;
          return v;
        }
      }
      return std::nullopt;
    });
  });
  module.add_function("accumulate(iterable, func=None, *, initial=None)", [](Evaluator& ev, Arguments& a) {
    IteratorRef source = ev.iterate(a[0]);
    Value function = a[1];
    std::optional<Value> total;
    bool emit_initial = !a[2].is_none();
    if (emit_initial) total = a[2];
    return iterator("accumulate", [=](Evaluator& ev) mutable -> std::optional<Value> {
      if (emit_initial) {
        emit_initial = false;
        return total;
      }
      auto v = source->next(ev);
      if (!v) return std::nullopt;
      total = !total ? *v : function.is_none() ? ev.binary(Op::add, *total, *v) : ev.call(function, {*total, *v});
      return total;
    });
  });
  module.add_function("zip_longest(*iterables, fillvalue=None)", [](Evaluator& ev, Arguments& a) {
    std::vector<IteratorRef> sources;
    for (const Value& v : items_of(a[0])) sources.push_back(ev.iterate(v));
    Value fill = a[1];
    std::size_t active = sources.size();
    return iterator("zip_longest", [=](Evaluator& ev) mutable -> std::optional<Value> {
      if (active == 0) return std::nullopt;
      std::vector<Value> row;
      for (auto& source : sources) {
        std::optional<Value> v;
        if (source) {
          v = source->next(ev);
          if (!v) {
            source = nullptr;
            if (--active == 0) return std::nullopt;
          }
        }
        row.push_back(v ? *v : fill);
      }
      return make_tuple(std::move(row));
    });
  });
  module.add_function("starmap(function, iterable, /)", [](Evaluator& ev, Arguments& a) {
    Value function = a[0];
    IteratorRef source = ev.iterate(a[1]);
    return iterator("starmap", [=](Evaluator& ev) -> std::optional<Value> {
      auto v = source->next(ev);
      if (!v) return std::nullopt;
      return ev.call(function, ev.to_vector(*v));
    });
  });
  module.add_function("pairwise(iterable, /)", [](Evaluator& ev, Arguments& a) {
    IteratorRef source = ev.iterate(a[0]);
    std::optional<Value> previous;
    return iterator("pairwise", [=](Evaluator& ev) mutable -> std::optional<Value> {
      if (!previous && !(previous = source->next(ev))) return std::nullopt;
      auto v = source->next(ev);
      if (!v) return std::nullopt;
      Value pair = make_tuple({*previous, *v});
      previous = v;
      return pair;
    });
  });
  module.add_function("compress(data, selectors)", [](Evaluator& ev, Arguments& a) {
    IteratorRef data = ev.iterate(a[0]), selectors = ev.iterate(a[1]);
    return iterator("compress", [=](Evaluator& ev) -> std::optional<Value> {
      while (true) {
        auto d = data->next(ev);
        auto s = selectors->next(ev);
        if (!d || !s) return std::nullopt;
        if (ev.truthy(*s)) return d;
      }
    });
  });
}

void install_filters(ModuleObject& module) {
  for (const char* name : {"takewhile", "dropwhile", "filterfalse"}) {
    std::string which = name;
    module.add_function(which + "(predicate, iterable, /)", [which](Evaluator& ev, Arguments& a) {
      Value predicate = a[0];
      IteratorRef source = ev.iterate(a[1]);
      bool done = false;
      return iterator(which == "takewhile" ? "takewhile" : which == "dropwhile" ? "dropwhile" : "filterfalse",
                      [=](Evaluator& ev) mutable -> std::optional<Value> {
        while (auto v = source->next(ev)) {
          bool holds = predicate.is_none() ? ev.truthy(*v) : ev.truthy(ev.call(predicate, {*v}));
          if (which == "takewhile") {
            if (done || !holds) {
              done = true;
              return std::nullopt;
            }
            return v;
          }
          if (which == "dropwhile") {
            if (done || !holds) {
              done = true;
              return v;
            }
            continue;
          }
          if (!holds) return v;
        }
        return std::nullopt;
      });
    });
  }
  module.add_function("groupby(iterable, key=None)", [](Evaluator& ev, Arguments& a) {
    // Each group is materialised when its key is reached (CPython shares one
    // source between the groups; a group read after the next key is empty there).
    IteratorRef source = ev.iterate(a[0]);
    Value key_function = a[1];
    std::optional<Value> pending;
    return iterator("groupby", [=](Evaluator& ev) mutable -> std::optional<Value> {
      if (!pending && !(pending = source->next(ev))) return std::nullopt;
      auto key_of = [&](const Value& v) { return key_function.is_none() ? v : ev.call(key_function, {v}); };
      Value key = key_of(*pending);
      std::vector<Value> group{*pending};
      pending.reset();
      while (auto v = source->next(ev)) {
        if (!ev.compare_bool(lang::ast::CompareOperator::eq, key_of(*v), key)) {
          pending = v;
          break;
        }
        group.push_back(*v);
      }
      return make_tuple({key, Value(std::make_shared<ListIterator>(std::move(group), iterator_type("_grouper")))});
    });
  });
}

void install_combinatorics(ModuleObject& module) {
  module.add_function("product(*iterables, repeat=1)", [](Evaluator& ev, Arguments& a) {
    std::int64_t repeat = non_negative(ev, a[1], "repeat argument cannot be negative");
    std::vector<std::vector<Value>> pools;
    for (const Value& v : items_of(a[0])) pools.push_back(ev.to_vector(v));
    std::vector<std::vector<Value>> all;
    for (std::int64_t r = 0; r < repeat; ++r) all.insert(all.end(), pools.begin(), pools.end());
    std::vector<std::size_t> indices(all.size(), 0);
    bool done = std::any_of(all.begin(), all.end(), [](const auto& pool) { return pool.empty(); });
    return iterator("product", [=](Evaluator&) mutable -> std::optional<Value> {
      if (done) return std::nullopt;
      std::vector<Value> row;
      for (std::size_t i = 0; i < all.size(); ++i) row.push_back(all[i][indices[i]]);
      std::size_t i = all.size();
      done = true;
      while (i > 0) {
        --i;
        if (++indices[i] < all[i].size()) {
          done = false;
          break;
        }
        indices[i] = 0;
      }
      return make_tuple(std::move(row));
    });
  });
  for (bool with_replacement : {false, true}) {
    const char* name = with_replacement ? "combinations_with_replacement" : "combinations";
    module.add_function(std::string(name) + "(iterable, r)", [with_replacement, name](Evaluator& ev, Arguments& a) {
      std::vector<Value> pool = ev.to_vector(a[0]);
      auto r = static_cast<std::size_t>(non_negative(ev, a[1], "r must be non-negative"));
      std::vector<std::size_t> indices(r);
      for (std::size_t i = 0; i < r; ++i) indices[i] = with_replacement ? 0 : i;
      bool done = with_replacement ? (pool.empty() && r > 0) : r > pool.size();
      return iterator(name, [=](Evaluator&) mutable -> std::optional<Value> {
        if (done) return std::nullopt;
        std::vector<Value> row;
        for (std::size_t i : indices) row.push_back(pool[i]);
        done = !next_combination(indices, pool.size(), with_replacement);
        return make_tuple(std::move(row));
      });
    });
  }
  module.add_function("permutations(iterable, r=None)", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> pool = ev.to_vector(a[0]);
    std::size_t n = pool.size();
    std::size_t r = a[1].is_none() ? n : static_cast<std::size_t>(non_negative(ev, a[1], "r must be non-negative"));
    // CPython's algorithm: indices and cycles, yielding in lexicographic order of positions.
    std::vector<std::size_t> indices(n), cycles(r);
    for (std::size_t i = 0; i < n; ++i) indices[i] = i;
    for (std::size_t i = 0; i < r; ++i) cycles[i] = n - i;
    bool first = true, done = r > n;
    return iterator("permutations", [=](Evaluator&) mutable -> std::optional<Value> {
      if (done) return std::nullopt;
      if (!first) {
        std::size_t i = r;
        bool advanced = false;
        while (i > 0) {
          --i;
          if (--cycles[i] == 0) {
            std::rotate(indices.begin() + static_cast<std::ptrdiff_t>(i), indices.begin() + static_cast<std::ptrdiff_t>(i) + 1, indices.end());
            cycles[i] = n - i;
          } else {
            std::swap(indices[i], indices[n - cycles[i]]);
            advanced = true;
            break;
          }
        }
        if (!advanced) {
          done = true;
          return std::nullopt;
        }
      }
      first = false;
      std::vector<Value> row;
      for (std::size_t i = 0; i < r; ++i) row.push_back(pool[indices[i]]);
      return make_tuple(std::move(row));
    });
  });
}

}  // namespace

void install_itertools(Evaluator&, ModuleObject& module) {
  install_infinite(module);
  install_finite(module);
  install_filters(module);
  install_combinatorics(module);
}

}  // namespace interp
