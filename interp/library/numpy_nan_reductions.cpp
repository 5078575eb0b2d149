// The NaN-ignoring reductions besides nansum and nanmean (numpy_scans.cpp):
// nanmax nanmin nanprod nanvar nanstd nanargmax nanargmin nancumsum
// nancumprod (numpy_module.hpp), composed as JAX 0.11's
// jax/_src/numpy/reductions.py and lax_numpy.py compose them: NaNs replaced
// by the reduction's identity, then the plain reduction; an integer or
// boolean operand, which holds no NaN, goes straight to it.
#include <limits>

#include "interp/library/numpy_module.hpp"
#include "interp/python/builtins.hpp"

namespace interp {

using typecheck::DType;

namespace {

using Keywords = std::vector<std::pair<std::string, Value>>;

bool inexact(Evaluator& evaluator, const Value& operand) {
  return typecheck::is_floating(to_array(evaluator, operand)->aval.dtype);
}

// `a` with its NaNs replaced by `fill` (JAX's _where(lax._isnan(a), fill, a)).
Value nan_replaced(const Jnp& jnp, const Value& a, double fill) {
  return jnp("where", {jnp("isnan", {a}), Value::floating(fill), a});
}

void refuse_out(const Value& out, const std::string& name) {
  if (!out.is_none()) raise(exc::NotImplementedError(), "The 'out' argument to jnp." + name + " is not supported.");
}

// JAX's _nan_reduction: the reduction of `a` with NaNs as `identity`; NaN
// where every element reduced was NaN, when `nan_if_all_nan`.
Value nan_reduction(const Jnp& jnp, const std::string& reduction, const Value& a, double identity, bool nan_if_all_nan,
                    const Value& axis, const Value& keepdims, Keywords keywords) {
  keywords.emplace_back("axis", axis);
  keywords.emplace_back("keepdims", keepdims);
  if (!inexact(jnp.ev, a)) return jnp(reduction, {a}, keywords);
  Value out = jnp(reduction, {nan_replaced(jnp, a, identity)}, keywords);
  if (!nan_if_all_nan) return out;
  Value all_nan = jnp("all", {jnp("isnan", {a})}, {{"axis", axis}, {"keepdims", keepdims}});
  return jnp("where", {all_nan, Value::floating(std::numeric_limits<double>::quiet_NaN()), out});
}

// JAX's _nanvar: the mean and the count of the non-NaN elements, the sum of
// squared deviations over count - ddof, NaN where that is not positive;
// computed in float32 for 16-bit floats and integers.
Value nanvar(const Jnp& jnp, const Arguments& a) {
  Evaluator& ev = jnp.ev;
  ArrayRef x = to_array(ev, a[0]);
  const DType own = x->aval.dtype;
  const DType result = !a[2].is_none() ? dtype_argument(ev, a[2]) : typecheck::is_floating(own) ? own : DType::float32;
  const DType computation = typecheck::is_floating(result) && typecheck::byte_size(result) == 2 ? DType::float32 : result;
  const Value axis = a[1], keepdims = a[5], where = a[6];
  Value values = jnp("astype", {Value(x), dtype_value(computation)});
  Value present = jnp("logical_not", {jnp("isnan", {values})});
  Value mean = a[7];
  if (mean.is_none()) {
    Keywords kept{{"axis", axis}, {"keepdims", Value::boolean(true)}, {"where", where}};
    mean = jnp("divide", {jnp("sum", {nan_replaced(jnp, values, 0.0)}, kept),
                          jnp("sum", {jnp("astype", {present, dtype_value(computation)})}, kept)});
  }
  Value deviation = jnp("where", {jnp("isnan", {values}), Value::floating(0.0), jnp("subtract", {values, mean})});
  Keywords reduced{{"axis", axis}, {"keepdims", keepdims}, {"where", where}};
  Value normalizer = jnp("subtract", {jnp("sum", {present}, reduced), a[4]});
  Value empty = jnp("less_equal", {normalizer, Value::integer(0)});
  Value total = jnp("sum", {jnp("square", {deviation})}, reduced);
  total = jnp("where", {empty, Value::floating(std::numeric_limits<double>::quiet_NaN()), total});
  Value divisor = jnp("astype", {jnp("where", {empty, Value::integer(1), normalizer}), dtype_value(computation)});
  return jnp("astype", {jnp("divide", {total, divisor}), dtype_value(result)});
}

// JAX's _nanargmax / _nanargmin: NaNs as the losing infinity, -1 where
// every element was NaN.
Value nan_argument(const Jnp& jnp, const std::string& reduction, const Arguments& a) {
  refuse_out(a[2], "nan" + reduction);
  Keywords keywords{{"axis", a[1]}, {"keepdims", a[3].is_none() ? Value::boolean(false) : a[3]}};
  if (!inexact(jnp.ev, a[0])) return jnp(reduction, {a[0]}, keywords);
  const double losing = (reduction == "argmax" ? -1 : 1) * std::numeric_limits<double>::infinity();
  Value found = jnp(reduction, {nan_replaced(jnp, a[0], losing)}, keywords);
  return jnp("where", {jnp("all", {jnp("isnan", {a[0]})}, keywords), Value::integer(-1), found});
}

}  // namespace

void install_nan_reductions(ModuleObject& module) {
  ModuleObject* self = &module;
  for (std::string reduction : {"max", "min"}) {
    const double identity = (reduction == "max" ? -1 : 1) * std::numeric_limits<double>::infinity();
    module.add_function("nan" + reduction + "(a, axis=None, out=None, keepdims=False, initial=None, where=None)",
                        [self, reduction, identity](Evaluator& ev, Arguments& a) {
                          refuse_out(a[2], "nan" + reduction);
                          return nan_reduction(Jnp{ev, *self}, reduction, a[0], identity, a[4].is_none(), a[1], a[3],
                                               {{"initial", a[4]}, {"where", a[5]}});
                        });
  }
  module.add_function("nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None)",
                      [self](Evaluator& ev, Arguments& a) {
                        refuse_out(a[3], "nanprod");
                        return nan_reduction(Jnp{ev, *self}, "prod", a[0], 1.0, false, a[1], a[4],
                                             {{"dtype", a[2]}, {"initial", a[5]}, {"where", a[6]}});
                      });
  module.add_function("nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None)",
                      [self](Evaluator& ev, Arguments& a) {
                        refuse_out(a[3], "nanvar");
                        return nanvar(Jnp{ev, *self}, a);
                      });
  module.add_function("nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None)",
                      [self](Evaluator& ev, Arguments& a) {
                        refuse_out(a[3], "nanstd");
                        Jnp jnp{ev, *self};
                        return jnp("sqrt", {nanvar(jnp, a)});
                      });
  for (std::string reduction : {"argmax", "argmin"})
    module.add_function("nan" + reduction + "(a, axis=None, out=None, keepdims=None)",
                        [self, reduction](Evaluator& ev, Arguments& a) {
                          return nan_argument(Jnp{ev, *self}, reduction, a);
                        });
  for (std::string cumulative : {"cumsum", "cumprod"})
    module.add_function("nan" + cumulative + "(a, axis=None, dtype=None, out=None)",
                        [self, cumulative](Evaluator& ev, Arguments& a) {
                          refuse_out(a[3], "nan" + cumulative);
                          Jnp jnp{ev, *self};
                          Value x = inexact(ev, a[0]) ? nan_replaced(jnp, a[0], cumulative == "cumsum" ? 0.0 : 1.0) : a[0];
                          return jnp(cumulative, {x}, {{"axis", a[1]}, {"dtype", a[2]}});
                        });
}

}  // namespace interp
