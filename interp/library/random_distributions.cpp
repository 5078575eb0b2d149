// jax.random.gumbel, exponential, laplace and categorical (random_module.hpp):
// JAX 0.11's formulas (jax/_src/random/core.py) on jax.random.uniform, so
// the draws come from the same threefry bits as JAX's and run under every
// trace.
#include <cmath>
#include <limits>

#include "interp/library/numpy_module.hpp"
#include "interp/library/random_module.hpp"
#include "interp/python/builtins.hpp"
#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"

namespace interp {

using typecheck::DType;

namespace {

// The sampler's float dtype: float32 by default, a float one required.
DType float_dtype(Evaluator& ev, const std::string& sampler, const Value& dtype) {
  DType out = dtype.is_none() ? DType::float32 : dtype_argument(ev, dtype);
  if (!typecheck::is_floating(out))
    raise(exc::ValueError(), "dtype argument to `" + sampler + "` must be a float dtype, got " +
                                 std::string(typecheck::long_name(out)));
  return out;
}

struct Modules {
  Jnp random;
  Jnp jnp;
};

Modules modules(Evaluator& ev) { return {Jnp{ev, *ev.module("jax.random")}, Jnp{ev, *ev.module("jax.numpy")}}; }

Value uniform(const Modules& m, const Value& key, const typecheck::Shape& shape, DType dtype, double minval, double maxval,
              const Value& out_sharding) {
  return m.random("uniform", {key, shape_value(shape), dtype_value(dtype)},
                  {{"minval", Value::floating(minval)}, {"maxval", Value::floating(maxval)}, {"out_sharding", out_sharding}});
}

// float32's and the 16-bit floats' smallest normal number and mantissa bits.
double tiny_of(DType dtype) {
  if (dtype == DType::float16) return 6.103515625e-05;
  if (dtype == DType::bfloat16) return 1.1754943508222875e-38;
  return std::numeric_limits<float>::min();
}
int mantissa_bits(DType dtype) { return dtype == DType::float16 ? 10 : dtype == DType::bfloat16 ? 7 : 23; }

Value gumbel(const Modules& m, const Value& key, const typecheck::Shape& shape, DType dtype, const std::string& mode,
             const Value& out_sharding) {
  if (mode == "highest")
    raise(exc::NotImplementedError(), "jax.random.gumbel with mode='highest': the modes are 'low' and 'high'");
  if (mode != "high" && mode != "low") raise(exc::ValueError(), "Must provide valid mode for gumbel got: " + mode);
  if (mode == "low") {
    Value u = uniform(m, key, shape, dtype, tiny_of(dtype), 1.0, out_sharding);
    return m.jnp("negative", {m.jnp("log", {m.jnp("negative", {m.jnp("log", {u})})})});
  }
  // 'high': a second draw fills the low bits of values under one half.
  typecheck::Shape pair{2};
  pair.insert(pair.end(), shape.begin(), shape.end());
  ArrayRef both = to_array(m.jnp.ev, uniform(m, key, pair, dtype, 0.0, 1.0, Value()));
  Value high = *both->get_item(m.jnp.ev, Value::integer(0)), low = *both->get_item(m.jnp.ev, Value::integer(1));
  const int nmant = mantissa_bits(dtype);
  const double floor_value = std::max(std::ldexp(1.0, -(2 * nmant + 1)), tiny_of(dtype));
  Value refined = m.jnp("add", {m.jnp("add", {high, m.jnp("multiply", {low, Value::floating(std::ldexp(1.0, -nmant))})}),
                                Value::floating(floor_value)});
  Value x = m.jnp("where", {m.jnp("greater_equal", {high, Value::floating(0.5)}), high, refined});
  Value out = m.jnp("negative", {m.jnp("log", {m.jnp("negative", {m.jnp("log1p", {m.jnp("negative", {x})})})})});
  if (out_sharding.is_none()) return out;
  return m.jnp.ev.call(*m.jnp.ev.module("jax")->find("reshard"), std::vector<Value>{out, out_sharding});
}

std::string mode_of(Evaluator& ev, const Value& mode) {
  if (mode.is_none()) return "low";  // jax_use_high_dynamic_range_gumbel is off
  auto* text = string_of(mode);
  if (!text) raise(exc::ValueError(), "Must provide valid mode for gumbel got: " + ev.repr(mode));
  return *text;
}

Value categorical(Evaluator& ev, Arguments& a) {
  Modules m = modules(ev);
  ArrayRef logits = to_array(ev, a[1]);
  if (logits->aval.ndim() == 0) raise(exc::ValueError(), "categorical: logits must have at least one dimension");
  const auto rank = static_cast<std::int64_t>(logits->aval.ndim());
  const auto axis = static_cast<std::int64_t>(checked(typecheck::normalize_axis(ev.index_of(a[2]), logits->aval.ndim())));
  typecheck::Shape batch = logits->aval.shape;
  batch.erase(batch.begin() + axis);
  typecheck::Shape shape = a[3].is_none() ? batch : typecheck::Shape(int_values(ev, a[3]));
  const bool suffix_ok = shape.size() >= batch.size() &&
                         std::equal(batch.begin(), batch.end(), shape.end() - static_cast<std::ptrdiff_t>(batch.size()));
  if (!suffix_ok)
    raise(exc::ValueError(), "categorical parameter shapes must be broadcast-compatible with shape argument, and the "
                             "output shape must be a suffix of the shape argument; got shape " +
                                 typecheck::python_shape_repr(shape) + " and batch shape " +
                                 typecheck::python_shape_repr(batch));
  typecheck::Shape prefix(shape.begin(), shape.end() - static_cast<std::ptrdiff_t>(batch.size()));
  DType dtype = typecheck::is_floating(logits->aval.dtype) ? logits->aval.dtype : DType::float32;
  Value typed = m.jnp("astype", {Value(logits), dtype_value(dtype)});
  const std::string mode = mode_of(ev, a[5]);
  Value out;
  if (ev.truthy(a[4])) {
    typecheck::Shape noise_shape = prefix;
    noise_shape.insert(noise_shape.end(), logits->aval.shape.begin(), logits->aval.shape.end());
    std::vector<Value> leading;
    for (std::size_t d = 0; d < prefix.size(); ++d) leading.push_back(Value::integer(static_cast<std::int64_t>(d)));
    Value spread = leading.empty() ? typed : m.jnp("expand_dims", {typed, make_tuple(std::move(leading))});
    Value noisy = m.jnp("add", {gumbel(m, a[0], noise_shape, dtype, mode, Value()), spread});
    out = m.jnp("argmax", {noisy}, {{"axis", Value::integer(axis - rank)}});
  } else {
    // Without replacement: the top k of one perturbed copy of the logits.
    std::int64_t k = 1;
    for (auto d : prefix) k *= d;
    Value noisy = m.jnp("add", {typed, gumbel(m, a[0], logits->aval.shape, dtype, mode, Value())});
    if (k > logits->aval.shape[static_cast<std::size_t>(axis)])
      raise(exc::ValueError(), "Number of samples without replacement (" + std::to_string(k) +
                                   ") cannot exceed number of categories (" +
                                   std::to_string(logits->aval.shape[static_cast<std::size_t>(axis)]) + ").");
    Value moved = m.jnp("moveaxis", {noisy, Value::integer(axis), Value::integer(-1)});
    Value indices = ev.call(*ev.module("jax.lax")->find("top_k"), std::vector<Value>{moved, Value::integer(k)})
                        .as<TupleObject>()->items[1];
    // batch + (k,) -> (k,) + batch -> prefix + batch.
    const auto nd = static_cast<std::int64_t>(batch.size());
    std::vector<Value> order{Value::integer(nd)};
    for (std::int64_t d = 0; d < nd; ++d) order.push_back(Value::integer(d));
    out = m.jnp("reshape", {m.jnp("transpose", {indices, make_tuple(std::move(order))}), shape_value(shape)});
  }
  if (a[6].is_none()) return out;
  return ev.call(*ev.module("jax")->find("reshard"), std::vector<Value>{out, a[6]});
}

}  // namespace

void install_random_distributions(Evaluator& evaluator) {
  auto random = evaluator.module("jax.random");
  random->add_function("gumbel(key, shape=(), dtype=None, mode=None, *, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    return gumbel(modules(ev), a[0], typecheck::Shape(int_values(ev, a[1])), float_dtype(ev, "gumbel", a[2]), mode_of(ev, a[3]),
                  a[4]);
  });
  random->add_function("exponential(key, shape=(), dtype=None, *, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    Modules m = modules(ev);
    Value u = uniform(m, a[0], typecheck::Shape(int_values(ev, a[1])), float_dtype(ev, "exponential", a[2]), 0.0, 1.0, a[3]);
    return m.jnp("negative", {m.jnp("log1p", {m.jnp("negative", {u})})});
  });
  random->add_function("laplace(key, shape=(), dtype=None, *, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    Modules m = modules(ev);
    DType dtype = float_dtype(ev, "laplace", a[2]);
    // finfo(dtype).epsneg: 2**-(nmant + 1).
    const double epsneg = std::ldexp(1.0, -(mantissa_bits(dtype) + 1));
    Value u = uniform(m, a[0], typecheck::Shape(int_values(ev, a[1])), dtype, -1.0 + epsneg, 1.0, a[3]);
    return m.jnp("multiply", {m.jnp("sign", {u}), m.jnp("log1p", {m.jnp("negative", {m.jnp("abs", {u})})})});
  });
  random->add_function("categorical(key, logits, axis=-1, shape=None, replace=True, mode=None, *, out_sharding=None)",
                       categorical);
}

}  // namespace interp
