// jnp's rounding (round floor ceil trunc), remainders (remainder mod fmod),
// comparisons (isclose array_equal), nan_to_num, the logical reductions
// (all any count_nonzero), finfo and iinfo, and lax.round with its
// RoundingMethod (numpy_module.hpp). Each is composed as JAX 0.11's
// jax/_src/numpy composes it, from other members and the primitives
// (floor, ceil, round, rem, reduce_and, reduce_or), so it runs under every
// trace and differentiates where JAX does.
#include <cmath>
#include <limits>

#include "interp/library/numpy_module.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/python/builtins.hpp"
#include "typecheck/elementwise_rules.hpp"
#include "typecheck/python_repr.hpp"

namespace interp {

using typecheck::DType;

namespace {

bool is_integral_or_bool(DType dtype) { return dtype == DType::bool_ || typecheck::is_integer(dtype); }

// The limits of a floating dtype, as numpy.finfo gives them.
struct FloatLimits {
  int bits;
  double eps, max, tiny, resolution;
};

std::optional<FloatLimits> float_limits(DType dtype) {
  switch (dtype) {
    case DType::float16: return FloatLimits{16, 0x1p-10, 65504.0, 0x1p-14, 1e-3};
    case DType::bfloat16: return FloatLimits{16, 0x1p-7, 0x1.fep127, 0x1p-126, 1e-2};
    case DType::float32: return FloatLimits{32, 0x1p-23, std::numeric_limits<float>::max(), 0x1p-126, 1e-6};
    default: return std::nullopt;
  }
}

// numpy.finfo(dtype): its values are scalars of the dtype.
class FInfoObject final : public Object {
 public:
  FInfoObject(DType dtype, FloatLimits limits) : dtype_(dtype), limits_(limits) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("finfo");
    return type;
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    auto scalar = [&](double v) { return Value(to_array(evaluator, Value::floating(v), dtype_)); };
    if (name == "bits") return Value::integer(limits_.bits);
    if (name == "dtype") return dtype_value(dtype_);
    if (name == "eps") return scalar(limits_.eps);
    if (name == "max") return scalar(limits_.max);
    if (name == "min") return scalar(-limits_.max);
    if (name == "tiny" || name == "smallest_normal") return scalar(limits_.tiny);
    if (name == "resolution") return scalar(limits_.resolution);
    return Object::get_attribute(evaluator, name);
  }
  std::string repr(Evaluator& evaluator) const override {
    auto text = [&](double v) { return evaluator.str(Value(to_array(evaluator, Value::floating(v), dtype_))); };
    return "finfo(resolution=" + text(limits_.resolution) + ", min=" + text(-limits_.max) + ", max=" +
           text(limits_.max) + ", dtype=" + std::string(typecheck::long_name(dtype_)) + ")";
  }

 private:
  DType dtype_;
  FloatLimits limits_;
};

// numpy.iinfo(dtype): bits, min and max as Python ints.
class IInfoObject final : public Object {
 public:
  explicit IInfoObject(DType dtype) : dtype_(dtype) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("iinfo");
    return type;
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "bits") return Value::integer(8 * typecheck::byte_size(dtype_));
    if (name == "dtype") return dtype_value(dtype_);
    if (name == "min") return Value::integer(minimum());
    if (name == "max") return Value::integer(maximum());
    return Object::get_attribute(evaluator, name);
  }
  std::string repr(Evaluator&) const override {
    return "iinfo(min=" + std::to_string(minimum()) + ", max=" + std::to_string(maximum()) +
           ", dtype=" + std::string(typecheck::long_name(dtype_)) + ")";
  }

 private:
  std::int64_t maximum() const {
    int bits = 8 * static_cast<int>(typecheck::byte_size(dtype_));
    return (dtype_ != DType::uint32) ? (std::int64_t{1} << (bits - 1)) - 1 : (std::int64_t{1} << bits) - 1;
  }
  std::int64_t minimum() const { return (dtype_ != DType::uint32) ? -maximum() - 1 : 0; }
  DType dtype_;
};

// finfo/iinfo's argument: a dtype, its name, a Python type, or an array or scalar of it.
DType info_dtype(Evaluator& ev, const Value& value) {
  if (auto* array = value.as<ArrayObject>()) return array->aval.dtype;
  if (value.is_int()) return DType::int32;
  if (value.is_float()) return DType::float32;
  return dtype_argument(ev, value);
}

std::string numpy_type_name(DType dtype) {
  return "<class 'numpy." + std::string(dtype == DType::bool_ ? "bool" : typecheck::long_name(dtype)) + "'>";
}

// JAX's x.dtype check for lax.round, lax.floor and lax.ceil on a bool.
void refuse_bool(std::string_view name, DType dtype) {
  if (dtype == DType::bool_)
    raise(exc::TypeError(), std::string(name) + " does not accept dtype bool. Accepted dtypes are subtypes of floating.");
}

// lax.round(x, TO_NEAREST_EVEN) is the primitive; AWAY_FROM_ZERO moves the
// exact halves the primitive sent to the even neighbour: trunc(x) + sign(x)
// where |x - trunc(x)| == 0.5 (x - trunc(x) is exact in floating point).
Value lax_round(const Jnp& jnp, const Value& x, bool nearest_even) {
  Value even = apply_elementwise(jnp.ev, primitive("round"), {x});
  if (nearest_even) return even;
  Value truncated = jnp("trunc", {x});
  Value half = jnp("equal", {jnp("abs", {jnp("subtract", {x, truncated})}), Value::floating(0.5)});
  return jnp("where", {half, jnp("add", {truncated, jnp("sign", {x})}), even});
}

// jnp.round(a, decimals): a no-op on integers; floats scaled by 10**decimals,
// rounded half to even and scaled back (float16 in float32).
Value round_array(const Jnp& jnp, const Value& value, std::int64_t decimals) {
  ArrayRef a = to_array(jnp.ev, value);
  DType dtype = a->aval.dtype;
  if (typecheck::is_integer(dtype)) {
    if (decimals < 0) raise(exc::NotImplementedError(), "integer np.round not implemented for decimals < 0");
    return Value(a);
  }
  refuse_bool("round", dtype);
  if (decimals == 0) return lax_round(jnp, Value(a), true);
  if (static_cast<double>(decimals) > std::log10(float_limits(dtype)->max)) return Value(a);
  Value x(a);
  if (dtype == DType::float16) x = apply_astype(jnp.ev, a, DType::float32);
  DType compute = to_array(jnp.ev, x)->aval.dtype;
  Value factor(to_array(jnp.ev, Value::floating(std::pow(10.0, static_cast<double>(decimals))), compute));
  Value out = jnp("divide", {lax_round(jnp, jnp("multiply", {x, factor}), true), factor});
  return dtype == DType::float16 ? apply_astype(jnp.ev, to_array(jnp.ev, out), dtype) : out;
}

// floor and ceil: integers and booleans pass through, as jnp's do.
Value rounded_toward(Evaluator& ev, const char* name, const Value& value) {
  ArrayRef x = to_array(ev, value);
  if (is_integral_or_bool(x->aval.dtype)) return Value(x);
  return apply_elementwise(ev, primitive(name), {Value(x)});
}

// An integer divisor of 0 is replaced by 1 (JAX's remainder and fmod).
Value nonzero_divisor(const Jnp& jnp, const Value& x1, const Value& x2) {
  ArrayRef a = to_array(jnp.ev, x1), b = to_array(jnp.ev, x2);
  typecheck::ElementType common = typecheck::result_type(
      std::vector<typecheck::ElementType>{a->aval.element_type(), b->aval.element_type()});
  if (!typecheck::is_integer(common.dtype)) return Value(b);
  return jnp("where", {jnp("equal", {Value(b), Value::integer(0)}), Value::integer(1), Value(b)});
}

// Python's remainder (the divisor's sign) from lax.rem's (the dividend's).
Value remainder(const Jnp& jnp, const Value& x1, const Value& x2) {
  Value divisor = nonzero_divisor(jnp, x1, x2);
  Value truncated = apply_elementwise(jnp.ev, primitive("remainder"), {x1, divisor});
  Value zero = Value::integer(0);
  Value plus = jnp("logical_and", {jnp("not_equal", {jnp("less", {truncated, zero}), jnp("less", {divisor, zero})}),
                                   jnp("not_equal", {truncated, zero})});
  return jnp("where", {plus, jnp("add", {truncated, divisor}), truncated});
}

// jnp.all / jnp.any: the operand as booleans (where= masks it with the
// reduction's identity), then reduce_and / reduce_or.
Value logical_reduction(const Jnp& jnp, bool all, Arguments& a) {
  ArrayRef x = to_array(jnp.ev, a[0]);
  if (!a[2].is_none())
    raise(exc::NotImplementedError(), std::string("The 'out' argument to jnp.") + (all ? "all" : "any") + " is not supported.");
  Value b(x);
  if (x->aval.dtype != DType::bool_) b = jnp("not_equal", {b, Value::integer(0)});
  if (!a[4].is_none()) {
    Value where(to_array(jnp.ev, a[4], DType::bool_));
    b = all ? jnp("logical_or", {b, jnp("logical_not", {where})}) : jnp("logical_and", {b, where});
  }
  return apply_reduction(jnp.ev, all ? "and" : "or", b, a[1], jnp.ev.truthy(a[3]));
}

// isclose: |a - b| <= atol + rtol * |b| for finite b, or a == b.
Value isclose(const Jnp& jnp, Arguments& a) {
  ArrayRef x = to_array(jnp.ev, a[0]), y = to_array(jnp.ev, a[1]);
  typecheck::ElementType common = typecheck::result_type(
      std::vector<typecheck::ElementType>{x->aval.element_type(), y->aval.element_type()});
  DType dtype = typecheck::is_floating(common.dtype) ? common.dtype : DType::float32;
  Value u = apply_astype(jnp.ev, x, dtype), v = apply_astype(jnp.ev, y, dtype);
  Value rtol = apply_astype(jnp.ev, to_array(jnp.ev, a[2]), dtype);
  Value atol = apply_astype(jnp.ev, to_array(jnp.ev, a[3]), dtype);
  Value in_range = jnp("less_equal", {jnp("abs", {jnp("subtract", {u, v})}),
                                      jnp("add", {atol, jnp("multiply", {rtol, jnp("abs", {v})})})});
  Value out = jnp("logical_or", {jnp("equal", {u, v}), jnp("logical_and", {jnp("isfinite", {v}), in_range})});
  if (!jnp.ev.truthy(a[4])) return out;
  return jnp("logical_or", {out, jnp("logical_and", {jnp("isnan", {u}), jnp("isnan", {v})})});
}

Value nan_to_num(const Jnp& jnp, Arguments& a) {
  ArrayRef x = to_array(jnp.ev, a[0]);
  DType dtype = x->aval.dtype;
  if (!typecheck::is_floating(dtype)) return Value(x);
  FloatLimits limits = *float_limits(dtype);
  auto constant = [&](const Value& v, double fallback) {
    return Value(to_array(jnp.ev, v.is_none() ? Value::floating(fallback) : v, dtype));
  };
  Value out = jnp("where", {jnp("isnan", {Value(x)}), constant(a[2], 0.0), Value(x)});
  out = jnp("where", {jnp("equal", {out, Value::floating(INFINITY)}), constant(a[3], limits.max), out});
  return jnp("where", {jnp("equal", {out, Value::floating(-INFINITY)}), constant(a[4], -limits.max), out});
}

void install_info(ModuleObject& module) {
  module.add_function("finfo(dtype)", [](Evaluator& ev, Arguments& a) {
    DType dtype = info_dtype(ev, a[0]);
    auto limits = float_limits(dtype);
    if (!limits) raise(exc::ValueError(), "data type " + numpy_type_name(dtype) + " not inexact");
    return Value(std::make_shared<FInfoObject>(dtype, *limits));
  });
  module.add_function("iinfo(int_type)", [](Evaluator& ev, Arguments& a) {
    DType dtype = info_dtype(ev, a[0]);
    if (!typecheck::is_integer(dtype))
      raise(exc::ValueError(), std::string("Invalid integer data type '") +
                                   (dtype == DType::bool_ ? "b" : "f") + "'.");
    return Value(std::make_shared<IInfoObject>(dtype));
  });
}

}  // namespace

namespace {

// log2 log10 reciprocal, and the rotations fliplr flipud rot90, composed
// as JAX composes them (a jaxpr shows the same equations).
template <class JnpOf>
void install_logarithms_and_rotations(ModuleObject& module, JnpOf jnp_of) {
  for (auto [name, base] : {std::pair{"log2", 2}, std::pair{"log10", 10}})
    module.add_function(std::string(name) + "(x, /)", [jnp_of, base](Evaluator& ev, Arguments& a) {
      // lax.div(lax.log(x), lax.log(_constant_like(x, base)))
      Jnp jnp = jnp_of(ev);
      Value x(inexact_operand(ev, a[0]));
      return jnp("divide", {jnp("log", {x}), jnp("log", {Value::floating(base)})});
    });
  module.add_function("reciprocal(x, /)", [](Evaluator& ev, Arguments& a) {
    return apply_elementwise(ev, primitive("power"), {Value(inexact_operand(ev, a[0])), Value::integer(-1)});  // integer_pow[y=-1]
  });
  module.add_function("fliplr(m)", [jnp_of](Evaluator& ev, Arguments& a) {
    return jnp_of(ev)("flip", {a[0], Value::integer(1)});
  });
  module.add_function("flipud(m)", [jnp_of](Evaluator& ev, Arguments& a) {
    return jnp_of(ev)("flip", {a[0], Value::integer(0)});
  });
  module.add_function("rot90(m, k=1, axes=None)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    ArrayRef m = to_array(ev, a[0]);
    const auto rank = static_cast<std::int64_t>(m->aval.ndim());
    if (rank < 2)
      raise(exc::ValueError(), "rot90 requires its first argument to have ndim at least two, but got first argument of shape " +
                                   typecheck::python_shape_repr(m->aval.shape) + ", which has ndim " + std::to_string(rank));
    std::vector<Value> axes = a[2].is_none() ? std::vector<Value>{Value::integer(0), Value::integer(1)} : ev.to_vector(a[2]);
    if (axes.size() != 2) raise(exc::ValueError(), "len(axes) must be 2.");
    std::int64_t first = ev.index_of(axes[0]), second = ev.index_of(axes[1]);
    for (std::int64_t* axis : {&first, &second}) {
      if (*axis < -rank || *axis >= rank)
        raise(exc::ValueError(), "axis " + std::to_string(*axis) + " is out of bounds for array of dimension " + std::to_string(rank));
      if (*axis < 0) *axis += rank;
    }
    if (first == second) raise(exc::ValueError(), "Axes must be different");
    const std::int64_t k = ((ev.index_of(a[1]) % 4) + 4) % 4;
    if (k == 0) return Value(m);
    if (k == 2) return jnp("flip", {jnp("flip", {Value(m), Value::integer(first)}), Value::integer(second)});
    std::vector<Value> permutation;
    for (std::int64_t d = 0; d < rank; ++d) permutation.push_back(Value::integer(d == first ? second : d == second ? first : d));
    Value perm = make_tuple(std::move(permutation));
    if (k == 1) return jnp("transpose", {jnp("flip", {Value(m), Value::integer(second)}), perm});
    return jnp("flip", {jnp("transpose", {Value(m), perm}), Value::integer(second)});
  });
}

}  // namespace

void install_math_operations(Evaluator& evaluator, ModuleObject& module, bool is_jnp) {
  ModuleObject* self = &module;
  auto jnp_of = [self](Evaluator& ev) { return Jnp{ev, *self}; };
  for (bool all : {true, false})
    module.add_function(std::string(all ? "all" : "any") + "(a, axis=None, out=None, keepdims=False, *, where=None)",
                        [jnp_of, all](Evaluator& ev, Arguments& a) { return logical_reduction(jnp_of(ev), all, a); });
  module.add_function("count_nonzero(a, axis=None, keepdims=False)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    return apply_reduction(ev, "sum", jnp("not_equal", {Value(to_array(ev, a[0])), Value::integer(0)}), a[1],
                           ev.truthy(a[2]));
  });
  module.add_function("floor(x, /)", [](Evaluator& ev, Arguments& a) { return rounded_toward(ev, "floor", a[0]); });
  module.add_function("ceil(x, /)", [](Evaluator& ev, Arguments& a) { return rounded_toward(ev, "ceil", a[0]); });
  module.add_function("trunc(x)", [jnp_of](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    if (is_integral_or_bool(x->aval.dtype)) return Value(x);
    Jnp jnp = jnp_of(ev);
    return jnp("where", {jnp("less", {Value(x), Value::integer(0)}), jnp("ceil", {Value(x)}), jnp("floor", {Value(x)})});
  });
  for (const char* name : {"round", "around"})
    module.add_function(std::string(name) + "(a, decimals=0, out=None)", [jnp_of](Evaluator& ev, Arguments& a) {
      if (!a[2].is_none()) raise(exc::NotImplementedError(), "The 'out' argument to jnp.round is not supported.");
      return round_array(jnp_of(ev), a[0], ev.index_of(a[1]));
    });
  for (const char* name : {"remainder", "mod"})
    module.add_function(std::string(name) + "(x1, x2, /)", [jnp_of](Evaluator& ev, Arguments& a) {
      return remainder(jnp_of(ev), Value(to_array(ev, a[0])), a[1]);
    });
  module.add_function("fmod(x1, x2, /)", [jnp_of](Evaluator& ev, Arguments& a) {
    Value x1(to_array(ev, a[0]));
    return apply_elementwise(ev, primitive("remainder"), {x1, nonzero_divisor(jnp_of(ev), x1, a[1])});
  });
  module.add_function("isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)",
                      [jnp_of](Evaluator& ev, Arguments& a) { return isclose(jnp_of(ev), a); });
  module.add_function("nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None)",
                      [jnp_of](Evaluator& ev, Arguments& a) { return nan_to_num(jnp_of(ev), a); });
  install_logarithms_and_rotations(module, jnp_of);
  install_info(module);
  if (!is_jnp) return;
  module.add_function("array_equal(a1, a2, equal_nan=False)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    ArrayRef x = to_array(ev, a[0]), y = to_array(ev, a[1]);
    if (x->aval.shape != y->aval.shape) return Value(to_array(ev, Value::boolean(false)));
    Value eq = jnp("equal", {Value(x), Value(y)});
    if (ev.truthy(a[2]))
      eq = jnp("logical_or", {eq, jnp("logical_and", {jnp("isnan", {Value(x)}), jnp("isnan", {Value(y)})})});
    return jnp("all", {eq});
  });
  auto& lax = *evaluator.module("jax.lax");
  auto methods = std::make_shared<ModuleObject>("RoundingMethod");
  methods->add("AWAY_FROM_ZERO", Value::integer(0));
  methods->add("TO_NEAREST_EVEN", Value::integer(1));
  lax.add("RoundingMethod", Value(methods));
  lax.add_function("round(x, rounding_method=0)", [jnp_of](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    refuse_bool("round", x->aval.dtype);
    std::int64_t method = ev.index_of(a[1]);
    if (method != 0 && method != 1) raise(exc::ValueError(), "rounding_method must be 0 or 1, not " + std::to_string(method));
    return lax_round(jnp_of(ev), Value(x), method == 1);
  });
}

}  // namespace interp
