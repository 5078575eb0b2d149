// jax.nn and jax.nn.initializers (nn_module.hpp): composed from jnp, lax and
// jax.random members as JAX's own jax/_src/nn/functions.py composes them,
// so they run eagerly, under jit, grad, vmap and in check mode like user code.
#include "interp/library/nn_module.hpp"

#include <cmath>

#include "interp/python/builtins.hpp"
#include "interp/ops/array.hpp"
#include "typecheck/python_repr.hpp"

namespace interp {

namespace {

// Calls of the jax modules' members, as a script makes them.
struct Calls {
  Evaluator& ev;

  Value member(const char* module, const std::string& name) const {
    auto found = ev.module(module)->get_attribute(ev, name);
    if (!found) raise(exc::AttributeError(), std::string("module '") + module + "' has no attribute '" + name + "'");
    return *found;
  }
  Value call(const char* module, const std::string& name, std::vector<Value> args,
             std::vector<std::pair<std::string, Value>> keywords = {}) const {
    CallArgs call_args{std::move(args), std::move(keywords)};
    return ev.call(member(module, name), call_args);
  }
  Value jnp(const std::string& name, std::vector<Value> args, std::vector<std::pair<std::string, Value>> keywords = {}) const {
    return call("jax.numpy", name, std::move(args), std::move(keywords));
  }
  Value lax(const std::string& name, std::vector<Value> args) const { return call("jax.lax", name, std::move(args)); }
  Value add(const Value& a, const Value& b) const { return jnp("add", {a, b}); }
  Value sub(const Value& a, const Value& b) const { return jnp("subtract", {a, b}); }
  Value mul(const Value& a, const Value& b) const { return jnp("multiply", {a, b}); }
  Value div(const Value& a, const Value& b) const { return jnp("divide", {a, b}); }
  Value where(const Value& c, const Value& a, const Value& b) const { return jnp("where", {c, a, b}); }
  Value num(double v) const { return Value::floating(v); }
  // `x` as an array (a Python scalar or list too).
  Value array(const Value& x) const { return Value(to_array(ev, x)); }
  Value reduce(const char* name, const Value& x, const Value& axis, bool keepdims) const {
    return jnp(name, {x}, {{"axis", axis}, {"keepdims", Value::boolean(keepdims)}});
  }
};

Value sigmoid(const Calls& c, const Value& x) {
  // 1 / (1 + exp(-x)) written with tanh: finite gradients for large |x|.
  return c.mul(c.num(0.5), c.add(c.jnp("tanh", {c.mul(c.num(0.5), x)}), c.num(1.0)));
}

Value softplus(const Calls& c, const Value& x) {
  // log(1 + exp(x)), and x itself past 20 (where they agree in float32).
  Value capped = c.jnp("minimum", {x, c.num(20.0)});
  return c.where(c.jnp("greater", {x, c.num(20.0)}), x, c.jnp("log1p", {c.jnp("exp", {capped})}));
}

// softmax and log_softmax: the maximum (held constant for grad) shifted out.
struct Shifted {
  Value shifted;  // x - max, -inf where `where` excludes
  Value where;
};
Shifted shift_by_max(const Calls& c, const Value& x, const Value& axis, const Value& where) {
  Value safe = where.is_none() ? x : c.where(where, x, c.num(-INFINITY));
  Value max = c.reduce("max", safe, axis, true);
  return {c.sub(safe, c.lax("stop_gradient", {max})), where};
}

Value softmax(const Calls& c, const Value& x, const Value& axis, const Value& where) {
  Shifted s = shift_by_max(c, c.array(x), axis, where);
  Value unnormalized = c.jnp("exp", {s.shifted});
  Value result = c.div(unnormalized, c.reduce("sum", unnormalized, axis, true));
  return where.is_none() ? result : c.where(where, result, c.num(0.0));
}

Value log_softmax(const Calls& c, const Value& x, const Value& axis, const Value& where) {
  Shifted s = shift_by_max(c, c.array(x), axis, where);
  Value result = c.sub(s.shifted, c.jnp("log", {c.reduce("sum", c.jnp("exp", {s.shifted}), axis, true)}));
  return where.is_none() ? result : c.where(where, result, c.num(-INFINITY));
}

// jax.nn.logsumexp(a, axis, b, keepdims, return_sign, where).
Value logsumexp(const Calls& c, const Value& a_value, const Value& axis, const Value& b, bool keepdims,
                bool return_sign, const Value& where) {
  Value a = c.array(a_value);
  if (!where.is_none()) a = c.where(where, a, c.num(-INFINITY));
  Value max = c.reduce("max", a, axis, true);
  max = c.lax("stop_gradient", {c.where(c.jnp("isfinite", {max}), max, c.num(0.0))});
  Value exp = c.jnp("exp", {c.sub(a, max)});
  if (!b.is_none()) exp = c.mul(exp, b);
  Value total = c.reduce("sum", exp, axis, true);
  Value sign = c.jnp("sign", {total});
  Value out = c.add(c.jnp("log", {c.jnp("abs", {total})}), max);
  if (!keepdims) {
    out = c.jnp("squeeze", {out}, {{"axis", axis}});
    sign = c.jnp("squeeze", {sign}, {{"axis", axis}});
  }
  if (return_sign) return make_tuple({out, sign});
  if (!b.is_none()) out = c.where(c.jnp("less", {sign, c.num(0.0)}), c.num(NAN), out);
  return out;
}

Value standardize(const Calls& c, const Value& x, const Value& axis, Value mean, Value variance, const Value& epsilon,
                  const std::string& algorithm) {
  if (mean.is_none()) mean = c.reduce("mean", x, axis, true);
  if (variance.is_none()) {
    if (algorithm == "stable") {
      variance = c.reduce("mean", c.jnp("square", {c.sub(x, mean)}), axis, true);
    } else if (algorithm == "fast") {
      variance = c.sub(c.reduce("mean", c.jnp("square", {x}), axis, true), c.jnp("square", {mean}));
      variance = c.jnp("maximum", {variance, c.num(0.0)});
    } else {
      raise(exc::ValueError(), "Unknown algorithm '" + algorithm + "'. Expected 'fast' or 'stable'.");
    }
  }
  return c.mul(c.sub(x, mean), c.lax("rsqrt", {c.add(variance, epsilon)}));
}

Value one_hot(const Calls& c, const Value& x_value, std::int64_t num_classes, const Value& dtype, std::int64_t axis) {
  ArrayRef x = to_array(c.ev, x_value);
  const auto rank = static_cast<std::int64_t>(x->aval.ndim()) + 1;
  if (axis < -rank || axis >= rank)
    raise(exc::ValueError(), "axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(rank));
  if (axis < 0) axis += rank;
  Value lhs = c.jnp("expand_dims", {Value(x), Value::integer(axis)});
  std::vector<Value> shape(static_cast<std::size_t>(rank), Value::integer(1));
  shape[static_cast<std::size_t>(axis)] = Value::integer(num_classes);
  Value classes = c.jnp("reshape", {c.jnp("arange", {Value::integer(num_classes)}, {{"dtype", Value(std::make_shared<DTypeObject>(x->aval.dtype))}}),
                                    make_tuple(shape)});
  Value out = c.jnp("equal", {lhs, classes});
  return c.call("jax.numpy", "asarray", {out}, {{"dtype", dtype.is_none() ? c.member("jax.numpy", "float32") : dtype}});
}

// dot_product_attention's XLA implementation: heads grouped as K key/value
// heads of G query heads each (GQA), logits in float32, masks as a large
// negative logit, softmax over the keys.
Value attention(const Calls& c, Arguments& a) {
  Value query = c.array(a[0]), key = c.array(a[1]), value = c.array(a[2]), bias = a[3], mask = a[4];
  const Value& scale = a[5];
  const bool is_causal = c.ev.truthy(a[6]);
  const Value& q_lengths = a[7];
  const Value& kv_lengths = a[8];
  Value window = a[9];
  if (window.is_int()) window = make_tuple({window, window});
  if (!a[10].is_none()) {
    auto* name = string_of(a[10]);
    if (!name || (*name != "xla"))
      raise(exc::ValueError(), "Unsupported implementation option: " + c.ev.str(a[10]));
  }
  const typecheck::Shape output_shape = to_array(c.ev, query)->aval.shape;
  auto ensure_4d = [&](Value t) {
    ArrayRef array = to_array(c.ev, t);
    while (array->aval.ndim() < 4) array = to_array(c.ev, c.jnp("expand_dims", {Value(array), Value::integer(0)}));
    return Value(array);
  };
  query = ensure_4d(query), key = ensure_4d(key), value = ensure_4d(value);
  if (!bias.is_none()) bias = ensure_4d(bias);
  if (!mask.is_none()) mask = ensure_4d(mask);
  const auto q = to_array(c.ev, query)->aval, k = to_array(c.ev, key)->aval, v = to_array(c.ev, value)->aval;
  auto shape_text = [](const typecheck::Shape& s) { return typecheck::python_shape_repr(s); };
  const std::int64_t B = k.shape[0], S = k.shape[1], K = k.shape[2], H = k.shape[3];
  if (v.shape != k.shape)
    raise(exc::ValueError(), "value shape should be [" + std::to_string(B) + ", " + std::to_string(S) + ", " +
                                 std::to_string(K) + ", " + std::to_string(H) + "]: but got " + shape_text(v.shape));
  if (v.dtype != k.dtype || q.dtype != k.dtype)
    raise(exc::ValueError(), std::string(v.dtype != k.dtype ? "value" : "query") + " dtype should be " +
                                 std::string(typecheck::long_name(k.dtype)) + ", but got " +
                                 std::string(typecheck::long_name(v.dtype != k.dtype ? v.dtype : q.dtype)));
  if (q.shape[0] != B || q.shape[3] != H)
    raise(exc::ValueError(), "query shape should be [" + std::to_string(B) + ", -1, -1, " + std::to_string(H) +
                                 "]: but got " + shape_text(q.shape));
  if (!mask.is_none() && to_array(c.ev, mask)->aval.dtype != typecheck::DType::bool_)
    raise(exc::ValueError(), "mask dtype should be bool, but got " +
                                 std::string(typecheck::long_name(to_array(c.ev, mask)->aval.dtype)));
  const std::int64_t T = q.shape[1], N = q.shape[2];
  if (N % K != 0)
    raise(exc::ValueError(), "The number of query heads must be a multiple of key/value heads, but got " +
                                 std::to_string(N) + " vs " + std::to_string(K));
  const std::int64_t G = N / K;
  auto shape_of = [](std::initializer_list<std::int64_t> dims) {
    std::vector<Value> items;
    for (auto d : dims) items.push_back(Value::integer(d));
    return make_tuple(std::move(items));
  };
  // Bias and mask as (B, K, G, T, S): one head broadcasts to all.
  auto grouped = [&](const Value& t) {
    if (t.is_none()) return t;
    auto shape = to_array(c.ev, t)->aval.shape;
    if (shape[1] == 1) return c.jnp("expand_dims", {t, Value::integer(2)});
    return c.jnp("reshape", {t, shape_of({shape[0], K, G, shape[2], shape[3]})});
  };
  Value grouped_query = c.jnp("reshape", {query, shape_of({B, T, K, G, H})});
  Value logits = c.jnp("einsum", {make_str("BTKGH,BSKH->BKGTS"), grouped_query, key},
                       {{"preferred_element_type", c.member("jax.numpy", "float32")}});
  double scale_value = scale.is_none() ? 1.0 / std::sqrt(static_cast<double>(H)) : to_float(c.ev, scale);
  logits = c.mul(logits, Value(to_array(c.ev, Value::floating(scale_value), to_array(c.ev, logits)->aval.dtype)));
  if (!bias.is_none()) logits = c.add(logits, grouped(bias));
  Value combined = mask.is_none() ? Value() : grouped(mask);
  auto combine = [&](const Value& m) { combined = combined.is_none() ? m : c.jnp("logical_and", {combined, m}); };
  if (is_causal) combine(c.jnp("tril", {c.jnp("ones", {shape_of({T, S})}, {{"dtype", c.member("jax.numpy", "bool_")}})}));
  // Positions as a (T, 1) column and a (1, S) row, lengths as (B, 1, 1, 1, 1).
  Value query_pos = c.jnp("reshape", {c.jnp("arange", {Value::integer(T)}), shape_of({T, 1})});
  Value key_pos = c.jnp("reshape", {c.jnp("arange", {Value::integer(S)}), shape_of({1, S})});
  if (!window.is_none()) {
    auto bounds = c.ev.to_vector(window);
    if (bounds.size() != 2) raise(exc::ValueError(), "local_window_size must be an int or a pair of ints");
    combine(c.jnp("logical_and", {c.jnp("greater_equal", {query_pos, c.sub(key_pos, bounds[1])}),
                                  c.jnp("less_equal", {query_pos, c.add(key_pos, bounds[0])})}));
  }
  auto lengths = [&](const Value& l) { return c.jnp("reshape", {c.array(l), shape_of({B, 1, 1, 1, 1})}); };
  if (!q_lengths.is_none()) combine(c.jnp("less", {query_pos, lengths(q_lengths)}));
  if (!kv_lengths.is_none()) combine(c.jnp("less", {key_pos, lengths(kv_lengths)}));
  if (!combined.is_none()) logits = c.where(combined, logits, c.num(-0.7 * 3.4028234663852886e38));
  logits = c.jnp("asarray", {logits}, {{"dtype", c.member("jax.numpy", "float32")}});
  Value probs = c.jnp("asarray", {softmax(c, logits, Value::integer(-1), Value())},
                      {{"dtype", Value(std::make_shared<DTypeObject>(k.dtype))}});
  Value encoded = c.jnp("einsum", {make_str("BKGTS,BSKH->BTKGH"), probs, value});
  if (!q_lengths.is_none()) {
    Value valid = c.jnp("less", {c.jnp("reshape", {c.jnp("arange", {Value::integer(T)}), shape_of({1, T, 1, 1, 1})}),
                                 lengths(q_lengths)});
    encoded = c.mul(encoded, c.jnp("asarray", {valid}, {{"dtype", Value(std::make_shared<DTypeObject>(k.dtype))}}));
  }
  std::vector<Value> out_shape;
  for (auto d : output_shape) out_shape.push_back(Value::integer(d));
  return c.jnp("reshape", {encoded, make_tuple(std::move(out_shape))});
}

// An initializer: init(key, shape, dtype=None) with the factory's arguments.
using InitBody = std::function<Value(const Calls&, const Value& key, const Value& shape, const Value& dtype)>;
Value initializer(const Value& default_dtype, InitBody body) {
  return Value(native("init(key, shape, dtype=None)", [default_dtype, body](Evaluator& ev, Arguments& a) {
    Calls c{ev};
    Value dtype = !a[2].is_none() ? a[2] : !default_dtype.is_none() ? default_dtype : c.member("jax.numpy", "float32");
    return body(c, a[0], a[1], dtype);
  }));
}

// JAX's _compute_fans.
std::pair<double, double> compute_fans(Evaluator& ev, const std::vector<std::int64_t>& shape, const Value& in_axis,
                                       const Value& out_axis, const Value& batch_axis) {
  if (in_axis.is_int() && in_axis.as_int() == -2 && shape.size() <= 1)
    raise(exc::ValueError(), "Can't compute input and output sizes of a " + std::to_string(shape.size()) +
                                 "-dimensional weights tensor with default in_axis. Must be at least 2D or specify "
                                 "in_axis explicitly.");
  auto size_of = [&](const Value& axes) {
    double product = 1;
    std::vector<Value> list = axes.is_int() ? std::vector<Value>{axes} : ev.to_vector(axes);
    for (const auto& axis : list) {
      std::int64_t i = ev.index_of(axis);
      if (i < 0) i += static_cast<std::int64_t>(shape.size());
      if (i < 0 || i >= static_cast<std::int64_t>(shape.size())) raise(exc::IndexError(), "tuple index out of range");
      product *= static_cast<double>(shape[static_cast<std::size_t>(i)]);
    }
    return product;
  };
  double in_size = size_of(in_axis), out_size = size_of(out_axis), batch_size = size_of(batch_axis);
  double total = 1;
  for (auto s : shape) total *= static_cast<double>(s);
  double receptive = total / in_size / out_size / batch_size;
  return {in_size * receptive, out_size * receptive};
}

Value variance_scaling(Evaluator& ev, double scale, const std::string& mode, const std::string& distribution,
                       const Value& in_axis, const Value& out_axis, const Value& batch_axis, const Value& dtype) {
  if (mode != "fan_in" && mode != "fan_out" && mode != "fan_avg" && mode != "fan_geo_avg")
    raise(exc::ValueError(), "invalid mode for variance scaling initializer: " + mode);
  if (distribution != "truncated_normal" && distribution != "normal" && distribution != "uniform")
    raise(exc::ValueError(), "invalid distribution for variance scaling initializer: " + distribution);
  (void)ev;
  return initializer(dtype, [=](const Calls& c, const Value& key, const Value& shape_value, const Value& d) {
    std::vector<std::int64_t> shape;
    for (const auto& s : c.ev.to_vector(shape_value)) shape.push_back(c.ev.index_of(s));
    auto [fan_in, fan_out] = compute_fans(c.ev, shape, in_axis, out_axis, batch_axis);
    double denominator = mode == "fan_in" ? fan_in : mode == "fan_out" ? fan_out : mode == "fan_avg" ? (fan_in + fan_out) / 2
                                                                                                      : std::sqrt(fan_in * fan_out);
    Value variance = c.jnp("asarray", {c.num(scale / denominator)}, {{"dtype", d}});
    if (distribution == "truncated_normal") {
      Value stddev = c.div(c.jnp("sqrt", {variance}), c.jnp("asarray", {c.num(.87962566103423978)}, {{"dtype", d}}));
      return c.mul(c.call("jax.random", "truncated_normal", {key, c.num(-2), c.num(2), shape_value, d}), stddev);
    }
    if (distribution == "normal")
      return c.mul(c.call("jax.random", "normal", {key, shape_value, d}), c.jnp("sqrt", {variance}));
    return c.mul(c.call("jax.random", "uniform", {key, shape_value, d, c.num(-1)}),
                 c.jnp("sqrt", {c.mul(c.num(3), variance)}));
  });
}

void install_initializers(Evaluator& evaluator) {
  auto init = evaluator.module("jax.nn.initializers");
  for (bool one : {false, true})
    init->add_function(std::string(one ? "ones" : "zeros") + "(key, shape, dtype=None, out_sharding=None)",
                       [one](Evaluator& ev, Arguments& a) {
                         Calls c{ev};
                         Value dtype = a[2].is_none() ? c.member("jax.numpy", "float32") : a[2];
                         std::vector<std::pair<std::string, Value>> keywords{{"dtype", dtype}};
                         if (!a[3].is_none()) keywords.emplace_back("out_sharding", a[3]);
                         return c.jnp(one ? "ones" : "zeros", {a[1]}, keywords);
                       });
  init->add_function("constant(value, dtype=None)", [](Evaluator&, Arguments& a) {
    Value value = a[0];
    return initializer(a[1], [value](const Calls& c, const Value&, const Value& shape, const Value& dtype) {
      return c.jnp("full", {shape, value}, {{"dtype", dtype}});
    });
  });
  init->add_function("uniform(scale=0.01, dtype=None)", [](Evaluator& ev, Arguments& a) {
    double scale = to_float(ev, a[0]);
    return initializer(a[1], [scale](const Calls& c, const Value& key, const Value& shape, const Value& dtype) {
      return c.call("jax.random", "uniform", {key, shape, dtype, c.num(0.0), c.num(scale)});
    });
  });
  init->add_function("normal(stddev=0.01, dtype=None)", [](Evaluator& ev, Arguments& a) {
    double stddev = to_float(ev, a[0]);
    return initializer(a[1], [stddev](const Calls& c, const Value& key, const Value& shape, const Value& dtype) {
      return c.mul(c.call("jax.random", "normal", {key, shape, dtype}), c.jnp("asarray", {c.num(stddev)}, {{"dtype", dtype}}));
    });
  });
  init->add_function("truncated_normal(stddev=0.01, dtype=None, lower=-2.0, upper=2.0)", [](Evaluator& ev, Arguments& a) {
    double stddev = to_float(ev, a[0]), lower = to_float(ev, a[2]), upper = to_float(ev, a[3]);
    return initializer(a[1], [=](const Calls& c, const Value& key, const Value& shape, const Value& dtype) {
      Value sample = c.call("jax.random", "truncated_normal", {key, c.num(lower), c.num(upper), shape, dtype});
      return c.mul(sample, c.jnp("asarray", {c.num(stddev)}, {{"dtype", dtype}}));
    });
  });
  init->add_function(
      "variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(), dtype=None)",
      [](Evaluator& ev, Arguments& a) {
        auto* mode = string_of(a[1]);
        auto* distribution = string_of(a[2]);
        if (!mode || !distribution) raise(exc::TypeError(), "variance_scaling: mode and distribution must be strings");
        return variance_scaling(ev, to_float(ev, a[0]), *mode, *distribution, a[3], a[4], a[5], a[6]);
      });
  // The named schemes: (scale, mode, distribution).
  struct Scheme {
    const char* name;
    double scale;
    const char* mode;
    const char* distribution;
  };
  for (const Scheme& s : {Scheme{"glorot_uniform", 1.0, "fan_avg", "uniform"}, Scheme{"glorot_normal", 1.0, "fan_avg", "truncated_normal"},
                          Scheme{"lecun_uniform", 1.0, "fan_in", "uniform"}, Scheme{"lecun_normal", 1.0, "fan_in", "truncated_normal"},
                          Scheme{"he_uniform", 2.0, "fan_in", "uniform"}, Scheme{"he_normal", 2.0, "fan_in", "truncated_normal"},
                          Scheme{"xavier_uniform", 1.0, "fan_avg", "uniform"}, Scheme{"xavier_normal", 1.0, "fan_avg", "truncated_normal"},
                          Scheme{"kaiming_uniform", 2.0, "fan_in", "uniform"}, Scheme{"kaiming_normal", 2.0, "fan_in", "truncated_normal"}})
    init->add_function(std::string(s.name) + "(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None)",
                       [s](Evaluator& ev, Arguments& a) {
                         return variance_scaling(ev, s.scale, s.mode, s.distribution, a[0], a[1], a[2], a[3]);
                       });
}

}  // namespace

void install_nn_module(Evaluator& evaluator) {
  auto nn = evaluator.module("jax.nn");
  using Unary = Value (*)(const Calls&, const Value&);
  const std::pair<const char*, Unary> unary[] = {
      {"relu", [](const Calls& c, const Value& x) { return c.where(c.jnp("greater", {x, c.num(0)}), x, c.num(0)); }},
      {"relu6",
       [](const Calls& c, const Value& x) {
         return c.where(c.jnp("greater", {x, c.num(0)}), c.where(c.jnp("less", {x, c.num(6)}), x, c.num(6)), c.num(0));
       }},
      {"sigmoid", sigmoid},
      {"softplus", softplus},
      {"silu", [](const Calls& c, const Value& x) { return c.mul(x, sigmoid(c, x)); }},
      {"swish", [](const Calls& c, const Value& x) { return c.mul(x, sigmoid(c, x)); }},
      {"log_sigmoid", [](const Calls& c, const Value& x) { return c.jnp("negative", {softplus(c, c.jnp("negative", {x}))}); }},
      {"soft_sign", [](const Calls& c, const Value& x) { return c.div(x, c.add(c.jnp("abs", {x}), c.num(1))); }},
      {"hard_tanh", [](const Calls& c, const Value& x) { return c.jnp("clip", {x, c.num(-1), c.num(1)}); }},
      {"identity", [](const Calls& c, const Value& x) { return c.array(x); }},
  };
  for (const auto& [name, f] : unary)
    nn->add_function(std::string(name) + "(x)", [f = f](Evaluator& ev, Arguments& a) { return f(Calls{ev}, Value(to_array(ev, a[0]))); });
  nn->add("tanh", *evaluator.module("jax.numpy")->get_attribute(evaluator, "tanh"));
  nn->add_function("gelu(x, approximate=True)", [](Evaluator& ev, Arguments& a) {
    Calls c{ev};
    Value x(to_array(ev, a[0]));
    if (ev.truthy(a[1])) {
      Value cubic = c.add(x, c.mul(c.num(0.044715), c.jnp("power", {x, Value::integer(3)})));
      return c.mul(x, c.mul(c.num(0.5), c.add(c.num(1), c.jnp("tanh", {c.mul(c.num(std::sqrt(2.0 / M_PI)), cubic)}))));
    }
    return c.div(c.mul(x, c.add(c.lax("erf", {c.div(x, c.num(std::sqrt(2.0)))}), c.num(1))), c.num(2));
  });
  nn->add_function("elu(x, alpha=1.0)", [](Evaluator& ev, Arguments& a) {
    Calls c{ev};
    Value x(to_array(ev, a[0]));
    Value safe = c.where(c.jnp("greater", {x, c.num(0)}), c.num(0), x);
    return c.where(c.jnp("greater", {x, c.num(0)}), x, c.mul(a[1], c.jnp("expm1", {safe})));
  });
  nn->add_function("leaky_relu(x, negative_slope=0.01)", [](Evaluator& ev, Arguments& a) {
    Calls c{ev};
    Value x(to_array(ev, a[0]));
    return c.where(c.jnp("greater_equal", {x, c.num(0)}), x, c.mul(a[1], x));
  });
  nn->add_function("softmax(x, axis=-1, where=None)",
                   [](Evaluator& ev, Arguments& a) { return softmax(Calls{ev}, a[0], a[1], a[2]); });
  nn->add_function("log_softmax(x, axis=-1, where=None)",
                   [](Evaluator& ev, Arguments& a) { return log_softmax(Calls{ev}, a[0], a[1], a[2]); });
  nn->add_function("logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None)",
                   [](Evaluator& ev, Arguments& a) {
                     return logsumexp(Calls{ev}, a[0], a[1], a[2], ev.truthy(a[3]), ev.truthy(a[4]), a[5]);
                   });
  nn->add_function("standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-05, *, algorithm='fast')",
                   [](Evaluator& ev, Arguments& a) {
                     auto* algorithm = string_of(a[5]);
                     return standardize(Calls{ev}, Value(to_array(ev, a[0])), a[1], a[2], a[3], a[4],
                                        algorithm ? *algorithm : std::string());
                   });
  nn->add_function("one_hot(x, num_classes, *, dtype=None, axis=-1)", [](Evaluator& ev, Arguments& a) {
    return one_hot(Calls{ev}, a[0], ev.index_of(a[1]), a[2], ev.index_of(a[3]));
  });
  nn->add_function("dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None, is_causal=False, "
                   "query_seq_lengths=None, key_value_seq_lengths=None, local_window_size=None, implementation=None)",
                   [](Evaluator& ev, Arguments& a) { return attention(Calls{ev}, a); });
  install_initializers(evaluator);
  nn->add("initializers", Value(evaluator.module("jax.nn.initializers")));
}

}  // namespace interp
