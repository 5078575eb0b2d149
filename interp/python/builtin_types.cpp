// The built-in types' constructors and methods, installed into each type when
// it is first made: int, float, bool and type here, with Python's int() and
// float() conversions; str in str_methods.cpp; list, tuple, dict, set, range
// and slice in container_methods.cpp.
#include "interp/python/builtin_types.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "interp/python/builtins.hpp"
#include "interp/python/classes.hpp"
#include "interp/python/format.hpp"
#include "interp/transforms/check_mode.hpp"

namespace interp {

namespace ast = lang::ast;

const std::string& text_of(const Value& value, const char* what) {
  if (const std::string* s = string_of(value)) return *s;
  raise(exc::TypeError(), std::string(what) + " must be str, not " + type_name(value));
}

std::function<Value(Evaluator&, CallArgs&)> constructor(std::string_view signature, NativeFunctionBody body) {
  auto parsed = std::make_shared<Signature>(Signature::parse(signature));
  return [parsed, body = std::move(body)](Evaluator& evaluator, CallArgs& args) {
    Arguments bound = bind_arguments(evaluator, *parsed, args);
    return body(evaluator, bound);
  };
}

namespace {

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

}  // namespace

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

namespace {

// int's and float's dunders, which a subclass reaches through super() or the
// type (int.__add__(self, other)): the built-in number's own operations on
// the plain numbers, NotImplemented for an operand of another type.
void add_number_dunders(TypeObject& type, bool integral) {
  using Op = ast::BinaryOperator;
  using Cmp = ast::CompareOperator;
  auto receiver = [integral, name = type.name()](const Value& self, const std::string& method) {
    if (integral ? self.is_integral() : self.is_float()) return self.plain_number();
    raise(exc::TypeError(), "descriptor '" + method + "' requires a '" + name + "' object but received a '" +
                                type_name(self) + "'");
  };
  auto operand = [integral](const Value& other) { return integral ? other.is_integral() : other.is_number(); };
  for (Op op : {Op::add, Op::sub, Op::mult, Op::div, Op::floordiv, Op::mod, Op::pow, Op::lshift, Op::rshift, Op::bitor_,
                Op::bitxor, Op::bitand_}) {
    if (!integral && (op == Op::lshift || op == Op::rshift || op == Op::bitor_ || op == Op::bitxor || op == Op::bitand_))
      continue;
    for (bool reflected : {false, true}) {
      std::string method = binary_dunder_name(op, reflected, false);
      type.add_method(method + "(self, value, /)", [=](Evaluator& ev, Arguments& a) {
        Value self = receiver(a[0], method);
        if (!operand(a[1])) return not_implemented();
        Value other = a[1].plain_number();
        return reflected ? ev.binary(op, other, self) : ev.binary(op, self, other);
      });
    }
  }
  for (Cmp op : {Cmp::eq, Cmp::not_eq_, Cmp::lt, Cmp::lt_e, Cmp::gt, Cmp::gt_e}) {
    std::string method = compare_dunder_name(op);
    type.add_method(method + "(self, value, /)", [=](Evaluator& ev, Arguments& a) {
      Value self = receiver(a[0], method);
      return operand(a[1]) ? ev.compare(op, self, a[1].plain_number()) : not_implemented();
    });
  }
  using Unary = ast::UnaryOperator;
  for (auto [op, method] : {std::pair{Unary::usub, "__neg__"}, {Unary::uadd, "__pos__"}, {Unary::invert, "__invert__"}}) {
    if (!integral && op == Unary::invert) continue;
    type.add_method(std::string(method) + "(self, /)", [=](Evaluator& ev, Arguments& a) {
      return ev.unary(op, receiver(a[0], method));
    });
  }
  type.add_method("__abs__(self, /)", [=](Evaluator& ev, Arguments& a) {
    Value self = receiver(a[0], "__abs__");
    return ev.compare_bool(Cmp::lt, self, Value::integer(0)) ? ev.unary(Unary::usub, self) : ev.unary(Unary::uadd, self);
  });
  type.add_method("__repr__(self, /)", [=](Evaluator& ev, Arguments& a) { return make_str(ev.repr(receiver(a[0], "__repr__"))); });
  type.add_method("__format__(self, format_spec, /)", [=](Evaluator& ev, Arguments& a) {
    Value self = receiver(a[0], "__format__");
    const std::string& spec = text_of(a[1], "format_spec");
    return make_str(spec.empty() ? ev.str(a[0]) : format_value(ev, self, spec));  // '': str(self), as CPython
  });
  type.add_method("__hash__(self, /)", [=](Evaluator& ev, Arguments& a) {
    return ev.call(ev.builtins.at("hash"), {receiver(a[0], "__hash__")});
  });
  type.add_method("__bool__(self, /)", [=](Evaluator& ev, Arguments& a) { return Value::boolean(ev.truthy(receiver(a[0], "__bool__"))); });
  type.add_method("__int__(self, /)", [=](Evaluator&, Arguments& a) {
    Value self = receiver(a[0], "__int__");
    return Value::integer(self.is_float() ? float_to_int(self.as_float()) : self.as_int());
  });
  type.add_method("__float__(self, /)", [=](Evaluator&, Arguments& a) {
    return Value::floating(receiver(a[0], "__float__").as_float());
  });
  if (integral)
    type.add_method("__index__(self, /)", [=](Evaluator&, Arguments& a) { return Value::integer(receiver(a[0], "__index__").as_int()); });
}

// float(x=0.0, /) and bool(x=False, /), with CPython's words for a call
// with more arguments or a keyword.
std::function<Value(Evaluator&, CallArgs&)> one_argument_constructor(std::string name, Value (*make)(Evaluator&, const Value&),
                                                                     Value otherwise) {
  return [name = std::move(name), make, otherwise](Evaluator& ev, CallArgs& args) {
    if (!args.keywords.empty()) raise(exc::TypeError(), name + "() takes no keyword arguments");
    if (args.positional.size() > 1)
      raise(exc::TypeError(), name + " expected at most 1 argument, got " + std::to_string(args.positional.size()));
    return make(ev, args.positional.empty() ? otherwise : args.positional[0]);
  };
}

// float.as_integer_ratio(): the exact fraction in lowest terms, within 64 bits.
Value float_integer_ratio(double d) {
  if (std::isinf(d)) raise(exc::OverflowError(), "cannot convert Infinity to integer ratio");
  if (std::isnan(d)) raise(exc::ValueError(), "cannot convert NaN to integer ratio");
  int exponent = 0;
  double mantissa = std::frexp(d, &exponent);  // d = mantissa * 2**exponent, 0.5 <= |mantissa| < 1
  for (int i = 0; i < 300 && mantissa != std::floor(mantissa); ++i) {
    mantissa *= 2.0;
    --exponent;
  }
  auto numerator = static_cast<std::int64_t>(mantissa);  // |mantissa| < 2**53
  while (exponent < 0 && numerator % 2 == 0) {  // lowest terms: the denominator is a power of two
    numerator /= 2;
    ++exponent;
  }
  auto too_large = [] { raise(exc::OverflowError(), "int too large to fit in 64 bits"); };
  if (exponent >= 0) {
    if (exponent >= 63 || (numerator != 0 && std::abs(numerator) > (std::numeric_limits<std::int64_t>::max() >> exponent)))
      too_large();
    return make_tuple({Value::integer(numerator * (std::int64_t{1} << exponent)), Value::integer(1)});
  }
  if (exponent <= -63) too_large();
  return make_tuple({Value::integer(numerator), Value::integer(std::int64_t{1} << -exponent)});
}

// int's and float's parts as numbers.Complex and numbers.Rational name them:
// real, imag, conjugate(); int's numerator and denominator; and
// as_integer_ratio(), float's is_integer().
void add_number_parts(TypeObject& type, bool integral) {
  auto plain = [integral](const Value& self) {
    return integral ? Value::integer(self.as_int()) : Value::floating(self.as_float());
  };
  type.add_attribute("real", plain);
  type.add_attribute("imag", [integral](const Value&) { return integral ? Value::integer(0) : Value::floating(0.0); });
  type.add_method("conjugate(self, /)", [plain](Evaluator&, Arguments& a) { return plain(a[0]); });
  if (integral) {
    type.add_attribute("numerator", plain);
    type.add_attribute("denominator", [](const Value&) { return Value::integer(1); });
    type.add_method("as_integer_ratio(self, /)", [](Evaluator&, Arguments& a) {
      return make_tuple({Value::integer(a[0].as_int()), Value::integer(1)});
    });
    return;
  }
  type.add_method("as_integer_ratio(self, /)", [](Evaluator&, Arguments& a) { return float_integer_ratio(a[0].as_float()); });
  type.add_method("is_integer(self, /)", [](Evaluator&, Arguments& a) {
    double d = a[0].as_float();
    return Value::boolean(std::isfinite(d) && d == std::floor(d));
  });
}

}  // namespace

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
    add_number_dunders(type, true);
    add_number_parts(type, true);
  } else if (name == "float") {
    type.set_constructor(one_argument_constructor("float", [](Evaluator& ev, const Value& x) {
      if (auto scalar = host_scalar_of(ev, x, HostScalar::floating)) return *scalar;
      return Value::floating(to_float(ev, x));
    }, Value::floating(0.0)));
    add_number_dunders(type, false);
    add_number_parts(type, false);
  } else if (name == "bool") {
    type.set_constructor(one_argument_constructor("bool", [](Evaluator& ev, const Value& x) {
      if (auto scalar = host_scalar_of(ev, x, HostScalar::boolean)) return *scalar;
      return Value::boolean(ev.truthy(x));
    }, Value::boolean(false)));
  } else if (name == "str") {
    install_str_type(type);
  } else if (name == "list") {
    install_list_type(type);
  } else if (name == "tuple") {
    install_tuple_type(type);
  } else if (name == "dict") {
    install_dict_type(type);
  } else if (name == "set" || name == "frozenset") {
    install_set_type(type, name == "frozenset");
  } else if (name == "range") {
    install_range_type(type);
  } else if (name == "slice") {
    install_slice_type(type);
  } else if (name == "type") {
    type.set_constructor(constructor("type(object, /)", [](Evaluator&, Arguments& a) { return Value(type_of(a[0])); }));
  }
  // As is_subclassable_builtin(), without making the types here; and bool,
  // whose __new__ is its own (not int's, which refuses to make a bool).
  for (const char* own_new : {"int", "float", "str", "tuple", "list", "dict", "set", "frozenset", "bool"})
    if (name == own_new) add_builtin_new(type);
}

}  // namespace interp
