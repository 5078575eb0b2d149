// The built-in functions (print, len, zip, sorted, ...). Each entry is one
// line: a Python signature and a body (see Signature::parse).
#include "interp/python/builtins.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "interp/python/builtin_types.hpp"
#include "interp/python/classes.hpp"
#include "interp/python/fast_arithmetic.hpp"
#include "interp/python/generators.hpp"
#include "interp/python/format.hpp"
#include "interp/python/loop_items.hpp"
#include "lang/utf8.hpp"

namespace interp {

namespace ast = lang::ast;

Value builtin_len(Evaluator& evaluator, const Value* arguments) {
  return Value::integer(evaluator.length(arguments[0]));
}

namespace {

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

// The attribute, or nullopt when it is missing or looking it up raised
// AttributeError (a class's __getattr__ or property may), as getattr with a
// default and hasattr see it.
std::optional<Value> find_attribute_or_none(Evaluator& evaluator, const Value& object, const std::string& name) {
  try {
    return evaluator.find_attribute(object, name);
  } catch (PyError& error) {
    if (!error.exception->type()->is_subclass_of(*exc::AttributeError())) throw;
    return std::nullopt;
  }
}

// dir()'s names: the running function's bound locals (its free variables
// too, as CPython's locals() has them), else the running module's globals.
std::vector<std::string> bound_names(const Evaluator& evaluator) {
  std::vector<std::string> names;
  const Frame* frame = evaluator.current_frame();
  if (frame == nullptr || frame->scope == nullptr) {
    for (const auto& entry : evaluator.running_globals()) names.push_back(entry.first);
    return names;
  }
  for (std::size_t i = 0; i < frame->fast.size() && i < frame->scope->fast_names.size(); ++i)
    if (frame->fast[i]) names.push_back(frame->scope->fast_names[i]);
  for (std::size_t i = 0; i < frame->cells.size() && i < frame->scope->cell_names.size(); ++i)
    if (frame->cells[i] && frame->cells[i]->value) names.push_back(frame->scope->cell_names[i]);
  return names;
}

// Binds a native function to its name in the builtins namespace.
void define(Evaluator& evaluator, std::string_view signature, NativeFunctionBody body) {
  ObjectRef function = native(signature, std::move(body));
  evaluator.builtins[static_cast<NativeFunction&>(*function).name()] = Value(function);
}
void define(Evaluator& evaluator, std::string_view signature, NativeFastBody fast) {
  auto function = std::make_shared<NativeFunction>(Signature::parse(signature), fast);
  evaluator.builtins[function->name()] = Value(function);
}

// print and the text forms of values: repr, ascii, format, ord, chr, hex, oct, bin.
void define_text_functions(Evaluator& evaluator) {
  define(evaluator, "print(*args, sep=None, end=None, file=None, flush=False)", [](Evaluator& ev, Arguments& a) {
    std::string sep = a[1].is_none() ? " " : text_of(a[1], "sep");
    std::string end = a[2].is_none() ? "\n" : text_of(a[2], "end");
    std::string out;
    const auto& items = a[0].as<TupleObject>()->items;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i) out += sep;
      out += ev.str(items[i]);
    }
    // file=: an object with a write method (an open file); None: the output.
    if (a[3].is_none()) ev.write(out + end);
    else ev.call(ev.get_attribute(a[3], "write"), {make_str(out + end)});
    return Value::none();
  });
  define(evaluator, "repr(obj, /)", [](Evaluator& ev, Arguments& a) { return make_str(ev.repr(a[0])); });
  define(evaluator, "ascii(obj, /)", [](Evaluator& ev, Arguments& a) { return make_str(ev.repr(a[0])); });
  define(evaluator, "format(value, format_spec='', /)", [](Evaluator& ev, Arguments& a) {
    return make_str(format_value(ev, a[0], text_of(a[1], "format_spec")));
  });
  define(evaluator, "ord(c, /)", [](Evaluator&, Arguments& a) {
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
  define(evaluator, "chr(i, /)", [](Evaluator& ev, Arguments& a) {
    std::int64_t cp = ev.index_of(a[0]);
    if (cp < 0 || cp > 0x10FFFF) raise(exc::ValueError(), "chr() arg not in range(0x110000)");
    std::string out;
    lang::append_utf8(out, static_cast<std::uint32_t>(cp));
    return make_str(std::move(out));
  });
  auto in_base = [&](const char* name, const char* spec) {
    define(evaluator, std::string(name) + "(number, /)", [spec](Evaluator& ev, Arguments& a) {
      return make_str(format_value(ev, Value::integer(ev.index_of(a[0])), spec));
    });
  };
  in_base("hex", "#x");
  in_base("oct", "#o");
  in_base("bin", "#b");
}

// The functions over iterables: zip, map, filter, enumerate, reversed, sorted,
// min, max, sum, all, any, iter, next.
void define_iteration_functions(Evaluator& evaluator) {
  define(evaluator, "zip(*iterables, strict=False)", [](Evaluator& ev, Arguments& a) {
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
  define(evaluator, "map(function, iterable, /, *iterables)", [](Evaluator& ev, Arguments& a) {
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
  define(evaluator, "filter(function, iterable, /)", [](Evaluator& ev, Arguments& a) {
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
  define(evaluator, "enumerate(iterable, start=0)", [](Evaluator& ev, Arguments& a) {
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
  define(evaluator, "reversed(sequence, /)", [](Evaluator& ev, Arguments& a) {
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
  define(evaluator, "sorted(iterable, /, *, key=None, reverse=False)", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> items = ev.to_vector(a[0]);
    sort_values(ev, items, a[1], ev.truthy(a[2]));
    return make_list(std::move(items));
  });
  define(evaluator, "min(*args, key=None, default=?)", [](Evaluator& ev, Arguments& a) { return min_max(ev, a, false); });
  define(evaluator, "max(*args, key=None, default=?)", [](Evaluator& ev, Arguments& a) { return min_max(ev, a, true); });
  // A list's, tuple's or range's items are taken by position (LoopItems),
  // ints and floats added without the operator's dispatch.
  define(evaluator, "sum(iterable, /, start=0)", [](Evaluator& ev, const Value* a) {
    if (string_of(a[1])) raise(exc::TypeError(), "sum() can't sum strings [use ''.join(seq) instead]");
    Value total = a[1];
    LoopItems items(ev, a[0]);
    while (auto v = items.next()) {
      Value sum;
      if (quick_binary(ast::BinaryOperator::add, total, *v, sum)) total = std::move(sum);
      else total = ev.binary(ast::BinaryOperator::add, total, *v);
    }
    return total;
  });
  define(evaluator, "all(iterable, /)", [](Evaluator& ev, const Value* a) {
    LoopItems items(ev, a[0]);
    while (auto v = items.next())
      if (!ev.truthy(*v)) return Value::boolean(false);
    return Value::boolean(true);
  });
  define(evaluator, "any(iterable, /)", [](Evaluator& ev, const Value* a) {
    LoopItems items(ev, a[0]);
    while (auto v = items.next())
      if (ev.truthy(*v)) return Value::boolean(true);
    return Value::boolean(false);
  });
  define(evaluator, "iter(object, /)", [](Evaluator& ev, Arguments& a) { return Value(ev.iterate(a[0])); });
  define(evaluator, "next(iterator, default=?, /)", [](Evaluator& ev, Arguments& a) -> Value {
    auto* it = a[0].as<Iterator>();
    if (!it) {
      // A user iterator: its __next__, whose StopIteration the default replaces.
      if (!find_class_member(*type_of(a[0]), "__next__"))
        raise(exc::TypeError(), "'" + type_name(a[0]) + "' object is not an iterator");
      try {
        return *call_special(ev, a[0], "__next__", {});
      } catch (PyError& error) {
        if (!a.has(1) || !error.exception->type()->is_subclass_of(*exc::StopIteration())) throw;
        return a[1];
      }
    }
    if (auto v = it->next(ev)) return *v;
    if (a.has(1)) return a[1];
    // A generator's return value rides on its StopIteration.
    std::vector<Value> stop_args;
    if (auto* generator = dynamic_cast<Generator*>(it); generator && !generator->return_value().is_none())
      stop_args.push_back(generator->return_value());
    throw PyError{std::make_shared<ExceptionObject>(exc::StopIteration(), std::move(stop_args))};
  });
}

// The numeric functions: abs, round, divmod, pow, hash.
void define_number_functions(Evaluator& evaluator) {
  define(evaluator, "abs(x, /)", [](Evaluator& ev, Arguments& a) -> Value {
    const Value& x = a[0];
    if (x.is_integral()) {
      if (x.as_int() == std::numeric_limits<std::int64_t>::min()) raise(exc::OverflowError(), "integer overflow: result does not fit in 64 bits");
      return Value::integer(std::abs(x.as_int()));
    }
    if (x.is_float()) return Value::floating(std::fabs(x.as_float()));
    if (auto method = ev.find_attribute(x, "__abs__")) return ev.call(*method, std::vector<Value>{});
    raise(exc::TypeError(), "bad operand type for abs(): '" + type_name(x) + "'");
  });
  define(evaluator, "round(number, ndigits=None)", [](Evaluator& ev, Arguments& a) -> Value {
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
  define(evaluator, "divmod(a, b, /)", [](Evaluator& ev, Arguments& a) {
    if (a[0].is_number() && a[1].is_number() && a[1].as_float() == 0)
      raise(exc::ZeroDivisionError(), a[0].is_integral() && a[1].is_integral() ? "integer division or modulo by zero" : "float divmod()");
    return make_tuple({ev.binary(ast::BinaryOperator::floordiv, a[0], a[1]), ev.binary(ast::BinaryOperator::mod, a[0], a[1])});
  });
  define(evaluator, "pow(base, exp, mod=None)", [](Evaluator& ev, Arguments& a) {
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
  define(evaluator, "hash(obj, /)", [](Evaluator&, Arguments& a) {
    return Value::integer(static_cast<std::int64_t>(hash_value(a[0]) & 0x7fffffffffffffffULL));
  });
}

// The functions on any object: len, isinstance, getattr, hasattr, setattr,
// callable, id.
void define_object_functions(Evaluator& evaluator) {
  define(evaluator, "len(obj, /)", builtin_len);
  define(evaluator, "isinstance(obj, class_or_tuple, /)", [](Evaluator&, Arguments& a) {
    std::function<bool(const Value&)> check = [&](const Value& cls) -> bool {
      if (auto* t = cls.as<TypeObject>()) return type_of(a[0])->is_subclass_of(*t);
      if (auto* tuple = cls.as<TupleObject>())
        return std::any_of(tuple->items.begin(), tuple->items.end(), [&](const Value& c) { return check(c); });
      raise(exc::TypeError(), "isinstance() arg 2 must be a type, a tuple of types, or a union");
    };
    return Value::boolean(check(a[1]));
  });
  define(evaluator, "getattr(object, name, default=?, /)", [](Evaluator& ev, Arguments& a) -> Value {
    const std::string& name = text_of(a[1], "attribute name");
    if (a.has(2)) {
      auto v = find_attribute_or_none(ev, a[0], name);
      return v ? *v : a[2];
    }
    return ev.get_attribute(a[0], name);
  });
  define(evaluator, "hasattr(obj, name, /)", [](Evaluator& ev, Arguments& a) {
    return Value::boolean(find_attribute_or_none(ev, a[0], text_of(a[1], "attribute name")).has_value());
  });
  define(evaluator, "setattr(obj, name, value, /)", [](Evaluator& ev, Arguments& a) {
    const std::string& name = text_of(a[1], "attribute name");
    if (!a[0].has_hooks() || !a[0].object()->set_attribute(ev, name, a[2]))
      raise(exc::AttributeError(), "'" + type_name(a[0]) + "' object has no attribute '" + name + "'");
    return Value::none();
  });
  // dir(object): its attribute names, sorted (a module's: its namespace);
  // dir(): the names bound in the running function, or the module's globals.
  define(evaluator, "dir(object=?, /)", [](Evaluator& ev, Arguments& a) {
    std::vector<std::string> names = !a.has(0)           ? bound_names(ev)
                                     : a[0].has_hooks() ? a[0].object()->attribute_names()
                                                        : type_of(a[0])->attribute_names();
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::vector<Value> items;
    for (auto& name : names) items.push_back(make_str(std::move(name)));
    return make_list(std::move(items));
  });
  define(evaluator, "callable(obj, /)", [](Evaluator&, Arguments& a) {
    return Value::boolean(a[0].has_hooks() && a[0].object()->callable());
  });
  define(evaluator, "id(obj, /)", [](Evaluator&, Arguments& a) {
    if (a[0].has_hooks()) return Value::integer(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(a[0].object().get())));
    return Value::integer(static_cast<std::int64_t>(hash_value(a[0]) & 0x7fffffffffffULL));
  });
}

// What the language leaves out (language.md), each a clear error naming it.
void define_left_out(Evaluator& evaluator) {
  define(evaluator, "exec(source, /, globals=None, locals=None)", [](Evaluator&, Arguments&) -> Value {
    raise(exc::NotImplementedError(), "exec() of a string is not supported in shardlang");
  });
  define(evaluator, "eval(source, /, globals=None, locals=None)", [](Evaluator&, Arguments&) -> Value {
    raise(exc::NotImplementedError(), "eval() of a string is not supported in shardlang");
  });
  define(evaluator, "compile(*args, **kwargs)", [](Evaluator&, Arguments&) -> Value {
    raise(exc::NotImplementedError(), "compile() is not supported in shardlang");
  });
  define(evaluator, "complex(*args, **kwargs)", [](Evaluator&, Arguments&) -> Value {
    raise(exc::NotImplementedError(), "complex numbers are not supported in shardlang");
  });
}

}  // namespace

void install_builtins(Evaluator& evaluator) {
  auto& b = evaluator.builtins;
  for (const TypeRef* t : {&types::integer(), &types::floating(), &types::boolean(), &types::str(), &types::list(),
                           &types::tuple(), &types::dict(), &types::set(), &types::frozenset(), &types::range(), &types::slice(), &types::type(),
                           &types::object()})
    b[(*t)->name()] = Value(*t);
  for (const auto& cls : exc::all()) b[cls->name()] = Value(cls);
  b["Ellipsis"] = ellipsis_value();

  define_text_functions(evaluator);
  define_iteration_functions(evaluator);
  define_number_functions(evaluator);
  define_object_functions(evaluator);
  install_class_builtins(evaluator);
  define_left_out(evaluator);
}

}  // namespace interp
