// math: CPython's math module on the host's doubles and 64-bit ints, with
// its error texts ("math domain error", "factorial() not defined for
// negative values", ...).
#include <cmath>
#include <limits>
#include <numeric>

#include "interp/library/host_modules.hpp"
#include "interp/python/builtins.hpp"

namespace interp {

namespace {

constexpr double pi = 3.141592653589793;

// A real-number argument: int, bool or float (or an object with __float__,
// as a 0-d array).
double real(Evaluator& evaluator, const Value& value) {
  if (value.is_number()) return value.as_float();
  if (value.is_object() && !string_of(value) && evaluator.find_attribute(value, "__float__"))
    return to_float(evaluator, value);
  raise(exc::TypeError(), "must be real number, not " + type_name(value));
}

std::int64_t integer(const Value& value) {
  if (value.is_integral()) return value.as_int();
  raise(exc::TypeError(), "'" + type_name(value) + "' object cannot be interpreted as an integer");
}

[[noreturn]] void domain_error() { raise(exc::ValueError(), "math domain error"); }

// The result of a float function: a NaN from a non-NaN argument, or an
// infinity from a finite one, is a domain or range error as CPython reports.
Value checked(double result, double argument) {
  if (std::isnan(result) && !std::isnan(argument)) domain_error();
  if (std::isinf(result) && std::isfinite(argument)) raise(exc::OverflowError(), "math range error");
  return Value::floating(result);
}

// float -> int for floor, ceil, trunc: CPython's errors for inf and nan.
Value float_to_int(double value) {
  if (std::isnan(value)) raise(exc::ValueError(), "cannot convert float NaN to integer");
  if (std::isinf(value)) raise(exc::OverflowError(), "cannot convert float infinity to integer");
  if (value >= 9.223372036854775807e18 || value < -9.223372036854775808e18)
    raise(exc::OverflowError(), "integers beyond 64 bits are not supported in shardlang");
  return Value::integer(static_cast<std::int64_t>(value));
}

std::int64_t checked_multiply(std::int64_t a, std::int64_t b) {
  std::int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) raise(exc::OverflowError(), "integers beyond 64 bits are not supported in shardlang");
  return out;
}

using Unary = double (*)(double);

void add_unary(ModuleObject& module, const std::string& name, Unary function) {
  module.add_function(name + "(x, /)", [function](Evaluator& ev, Arguments& a) {
    double x = real(ev, a[0]);
    return checked(function(x), x);
  });
}

// floor/ceil/trunc: ints come back as they are.
void add_rounding(ModuleObject& module, const std::string& name, Unary function) {
  module.add_function(name + "(x, /)", [function](Evaluator& ev, Arguments& a) {
    if (a[0].is_integral()) return Value::integer(a[0].as_int());
    return float_to_int(function(real(ev, a[0])));
  });
}

void install_math_functions(ModuleObject& module) {
  add_unary(module, "exp", [](double x) { return std::exp(x); });
  add_unary(module, "exp2", [](double x) { return std::exp2(x); });
  add_unary(module, "expm1", [](double x) { return std::expm1(x); });
  add_unary(module, "sin", [](double x) { return std::sin(x); });
  add_unary(module, "cos", [](double x) { return std::cos(x); });
  add_unary(module, "tan", [](double x) { return std::tan(x); });
  add_unary(module, "asin", [](double x) { return std::asin(x); });
  add_unary(module, "acos", [](double x) { return std::acos(x); });
  add_unary(module, "atan", [](double x) { return std::atan(x); });
  add_unary(module, "sinh", [](double x) { return std::sinh(x); });
  add_unary(module, "cosh", [](double x) { return std::cosh(x); });
  add_unary(module, "tanh", [](double x) { return std::tanh(x); });
  add_unary(module, "asinh", [](double x) { return std::asinh(x); });
  add_unary(module, "acosh", [](double x) { return std::acosh(x); });
  add_unary(module, "atanh", [](double x) { return std::atanh(x); });
  add_unary(module, "fabs", [](double x) { return std::fabs(x); });
  add_unary(module, "erf", [](double x) { return std::erf(x); });
  add_unary(module, "erfc", [](double x) { return std::erfc(x); });
  add_unary(module, "gamma", [](double x) { return std::tgamma(x); });
  add_unary(module, "lgamma", [](double x) { return std::lgamma(x); });
  add_unary(module, "degrees", [](double x) { return x * (180.0 / pi); });
  add_unary(module, "radians", [](double x) { return x * (pi / 180.0); });
  add_rounding(module, "floor", [](double x) { return std::floor(x); });
  add_rounding(module, "ceil", [](double x) { return std::ceil(x); });
  add_rounding(module, "trunc", [](double x) { return std::trunc(x); });
  module.add_function("sqrt(x, /)", [](Evaluator& ev, Arguments& a) {
    double x = real(ev, a[0]);
    if (x < 0) domain_error();
    return Value::floating(std::sqrt(x));
  });
  module.add_function("log(x, base=?, /)", [](Evaluator& ev, Arguments& a) {
    double x = real(ev, a[0]);
    if (x <= 0) domain_error();
    double result = std::log(x);
    if (a.has(1)) {
      double base = real(ev, a[1]);
      if (base <= 0) domain_error();
      if (base == 1) raise(exc::ZeroDivisionError(), "float division by zero");
      result /= std::log(base);
    }
    return Value::floating(result);
  });
  for (auto [name, function] : {std::pair<const char*, Unary>{"log2", [](double x) { return std::log2(x); }},
                                {"log10", [](double x) { return std::log10(x); }}})
    module.add_function(std::string(name) + "(x, /)", [function = function](Evaluator& ev, Arguments& a) {
      double x = real(ev, a[0]);
      if (x <= 0) domain_error();
      return Value::floating(function(x));
    });
  module.add_function("log1p(x, /)", [](Evaluator& ev, Arguments& a) {
    double x = real(ev, a[0]);
    if (x <= -1) domain_error();
    return Value::floating(std::log1p(x));
  });
  module.add_function("pow(x, y, /)", [](Evaluator& ev, Arguments& a) {
    double x = real(ev, a[0]), y = real(ev, a[1]);
    if (x == 0 && y < 0) domain_error();
    double result = std::pow(x, y);
    if (std::isnan(result) && !std::isnan(x) && !std::isnan(y)) domain_error();
    if (std::isinf(result) && std::isfinite(x) && std::isfinite(y)) raise(exc::OverflowError(), "math range error");
    return Value::floating(result);
  });
  module.add_function("atan2(y, x, /)", [](Evaluator& ev, Arguments& a) {
    return Value::floating(std::atan2(real(ev, a[0]), real(ev, a[1])));
  });
  module.add_function("copysign(x, y, /)", [](Evaluator& ev, Arguments& a) {
    return Value::floating(std::copysign(real(ev, a[0]), real(ev, a[1])));
  });
  module.add_function("fmod(x, y, /)", [](Evaluator& ev, Arguments& a) {
    double x = real(ev, a[0]), y = real(ev, a[1]);
    if (y == 0 || std::isinf(x)) domain_error();
    return Value::floating(std::fmod(x, y));
  });
  module.add_function("remainder(x, y, /)", [](Evaluator& ev, Arguments& a) {
    double x = real(ev, a[0]), y = real(ev, a[1]);
    if (y == 0 || std::isinf(x)) domain_error();
    return Value::floating(std::remainder(x, y));
  });
  module.add_function("modf(x, /)", [](Evaluator& ev, Arguments& a) {
    double whole;
    double fraction = std::modf(real(ev, a[0]), &whole);
    return make_tuple({Value::floating(fraction), Value::floating(whole)});
  });
  module.add_function("frexp(x, /)", [](Evaluator& ev, Arguments& a) {
    int exponent = 0;
    double mantissa = std::frexp(real(ev, a[0]), &exponent);
    return make_tuple({Value::floating(mantissa), Value::integer(exponent)});
  });
  module.add_function("ldexp(x, i, /)", [](Evaluator& ev, Arguments& a) {
    double x = real(ev, a[0]);
    return checked(std::ldexp(x, static_cast<int>(integer(a[1]))), x);
  });
  module.add_function("hypot(*coordinates)", [](Evaluator& ev, Arguments& a) {
    double total = 0;
    for (const Value& c : a[0].as<TupleObject>()->items) total = std::hypot(total, real(ev, c));
    return Value::floating(total);
  });
  module.add_function("dist(p, q, /)", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> p = ev.to_vector(a[0]), q = ev.to_vector(a[1]);
    if (p.size() != q.size()) raise(exc::ValueError(), "both points must have the same number of dimensions");
    double total = 0;
    for (std::size_t i = 0; i < p.size(); ++i) total = std::hypot(total, real(ev, p[i]) - real(ev, q[i]));
    return Value::floating(total);
  });
}

void install_math_predicates(ModuleObject& module) {
  module.add_function("isfinite(x, /)", [](Evaluator& ev, Arguments& a) { return Value::boolean(std::isfinite(real(ev, a[0]))); });
  module.add_function("isinf(x, /)", [](Evaluator& ev, Arguments& a) { return Value::boolean(std::isinf(real(ev, a[0]))); });
  module.add_function("isnan(x, /)", [](Evaluator& ev, Arguments& a) { return Value::boolean(std::isnan(real(ev, a[0]))); });
  module.add_function("isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0)", [](Evaluator& ev, Arguments& a) {
    double x = real(ev, a[0]), y = real(ev, a[1]), rel = real(ev, a[2]), abs_tol = real(ev, a[3]);
    if (rel < 0 || abs_tol < 0) raise(exc::ValueError(), "tolerances must be non-negative");
    if (x == y) return Value::boolean(true);
    if (std::isinf(x) || std::isinf(y)) return Value::boolean(false);
    double difference = std::fabs(y - x);
    return Value::boolean(difference <= std::fabs(rel * y) || difference <= std::fabs(rel * x) || difference <= abs_tol);
  });
}

void install_math_integers(ModuleObject& module) {
  module.add_function("gcd(*integers)", [](Evaluator&, Arguments& a) {
    std::int64_t g = 0;
    for (const Value& v : a[0].as<TupleObject>()->items) g = std::gcd(g, integer(v));
    return Value::integer(g);
  });
  module.add_function("lcm(*integers)", [](Evaluator&, Arguments& a) {
    std::int64_t l = 1;
    for (const Value& v : a[0].as<TupleObject>()->items) {
      std::int64_t x = integer(v);
      if (x == 0 || l == 0) {
        l = 0;
        continue;
      }
      l = std::abs(checked_multiply(l / std::gcd(l, x), x));
    }
    return Value::integer(l);
  });
  module.add_function("factorial(n, /)", [](Evaluator&, Arguments& a) {
    if (a[0].is_float()) raise(exc::TypeError(), "'float' object cannot be interpreted as an integer");
    std::int64_t n = integer(a[0]);
    if (n < 0) raise(exc::ValueError(), "factorial() not defined for negative values");
    std::int64_t out = 1;
    for (std::int64_t i = 2; i <= n; ++i) out = checked_multiply(out, i);
    return Value::integer(out);
  });
  module.add_function("isqrt(n, /)", [](Evaluator&, Arguments& a) {
    std::int64_t n = integer(a[0]);
    if (n < 0) raise(exc::ValueError(), "isqrt() argument must be nonnegative");
    auto r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
    while (r * r > n) --r;
    while ((r + 1) * (r + 1) <= n) ++r;
    return Value::integer(r);
  });
  // comb and perm: the running product stays exact (each step divides evenly).
  module.add_function("comb(n, k, /)", [](Evaluator&, Arguments& a) {
    std::int64_t n = integer(a[0]), k = integer(a[1]);
    if (n < 0) raise(exc::ValueError(), "n must be a non-negative integer");
    if (k < 0) raise(exc::ValueError(), "k must be a non-negative integer");
    if (k > n) return Value::integer(0);
    k = std::min(k, n - k);
    std::int64_t out = 1;
    for (std::int64_t i = 1; i <= k; ++i) out = checked_multiply(out, n - k + i) / i;
    return Value::integer(out);
  });
  module.add_function("perm(n, k=None, /)", [](Evaluator&, Arguments& a) {
    std::int64_t n = integer(a[0]);
    std::int64_t k = a[1].is_none() ? n : integer(a[1]);
    if (n < 0) raise(exc::ValueError(), "n must be a non-negative integer");
    if (k < 0) raise(exc::ValueError(), "k must be a non-negative integer");
    if (k > n) return Value::integer(0);
    std::int64_t out = 1;
    for (std::int64_t i = 0; i < k; ++i) out = checked_multiply(out, n - i);
    return Value::integer(out);
  });
  module.add_function("prod(iterable, /, *, start=1)", [](Evaluator& ev, Arguments& a) {
    Value total = a[1];
    IteratorRef it = ev.iterate(a[0]);
    while (auto v = it->next(ev)) total = ev.binary(lang::ast::BinaryOperator::mult, total, *v);
    return total;
  });
  module.add_function("fsum(seq, /)", [](Evaluator& ev, Arguments& a) {
    // Neumaier's compensated sum: exact for the sums tests meet.
    double sum = 0, compensation = 0;
    IteratorRef it = ev.iterate(a[0]);
    while (auto v = it->next(ev)) {
      double x = real(ev, *v), t = sum + x;
      compensation += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
      sum = t;
    }
    return Value::floating(sum + compensation);
  });
}

}  // namespace

void install_math(Evaluator&, ModuleObject& module) {
  module.add("pi", Value::floating(pi));
  module.add("e", Value::floating(2.718281828459045));
  module.add("tau", Value::floating(2 * pi));
  module.add("inf", Value::floating(std::numeric_limits<double>::infinity()));
  module.add("nan", Value::floating(std::numeric_limits<double>::quiet_NaN()));
  install_math_functions(module);
  install_math_predicates(module);
  install_math_integers(module);
}

}  // namespace interp
