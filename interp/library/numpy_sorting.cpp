// Sorting: lax.sort, lax.sort_key_val, lax.top_k, jnp.sort, jnp.argsort and
// the order statistics jnp.quantile, percentile and median
// (numpy_module.hpp). All bind the sort primitive (one binding per result:
// an operand permuted, or the permutation) and compose the rest from jnp
// members, as JAX 0.11's jax/_src/numpy/sorting.py and reductions.py do.
#include <cmath>

#include "interp/library/numpy_module.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/python/builtins.hpp"
#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"

namespace interp {

using typecheck::DType;

namespace {

std::int64_t canonical_axis(std::int64_t axis, std::size_t ndim) {
  return static_cast<std::int64_t>(checked(typecheck::normalize_axis(axis, ndim)));
}

// One result of sorting `operands` together along `dimension`: operand
// `output` permuted, or (output == operands.size()) the int32 permutation.
ArrayRef sorted(Evaluator& ev, std::vector<ArrayRef> operands, std::int64_t dimension, bool stable, std::int64_t num_keys,
                std::int64_t output, bool descending = false) {
  Params params;
  params.set("dimension", dimension).set("is_stable", stable).set("num_keys", num_keys).set("output", output);
  if (descending) params.set("descending", true);
  return to_array(ev, bind(ev, primitive("sort"), std::move(operands), std::move(params)));
}

ArrayRef reversed(Evaluator& ev, const ArrayRef& x, std::int64_t dimension) {
  Params params;
  params.set("dimensions", std::vector<std::int64_t>{dimension});
  return to_array(ev, bind(ev, primitive("rev"), {x}, std::move(params)));
}

ArrayRef raveled(Evaluator& ev, const ArrayRef& x) {
  return to_array(ev, apply_reshape(ev, Value(x), {devices::element_count(x->aval.shape)}));
}

Value int_tuple(const std::vector<std::int64_t>& values) {
  std::vector<Value> items;
  for (auto v : values) items.push_back(Value::integer(v));
  return make_tuple(std::move(items));
}

void refuse_kind_and_order(const char* name, Arguments& a) {
  if (!a[2].is_none())
    raise(exc::TypeError(), std::string("'kind' argument to ") + name +
                                " is not supported. Use stable=True or stable=False to specify sort stability.");
  if (!a[3].is_none()) raise(exc::TypeError(), std::string("'order' argument to ") + name + " is not supported.");
}

// lax.sort(operand | operands, dimension, is_stable, num_keys).
Value lax_sort(Evaluator& ev, Arguments& a) {
  bool stable = ev.truthy(a[2]);
  std::int64_t num_keys = ev.index_of(a[3]);
  if (a[0].as<ArrayObject>() || a[0].is_number()) {
    if (num_keys != 1) raise(exc::ValueError(), "num_keys=" + std::to_string(num_keys) + " must equal 1 for a single operand.");
    ArrayRef x = to_array(ev, a[0]);
    return Value(sorted(ev, {x}, canonical_axis(ev.index_of(a[1]), x->aval.ndim()), stable, 1, 0));
  }
  std::vector<ArrayRef> operands;
  for (const auto& v : ev.to_vector(a[0])) operands.push_back(to_array(ev, v));
  if (operands.empty()) raise(exc::TypeError(), "Sort requires at least one operand");
  auto count = static_cast<std::int64_t>(operands.size());
  if (num_keys < 1 || num_keys > count)
    raise(exc::ValueError(), "num_keys=" + std::to_string(num_keys) + " must be between 1 and len(operand)=" +
                                 std::to_string(count));
  std::int64_t dimension = canonical_axis(ev.index_of(a[1]), operands[0]->aval.ndim());
  std::vector<Value> out;
  for (std::int64_t i = 0; i < count; ++i) out.push_back(Value(sorted(ev, operands, dimension, stable, num_keys, i)));
  return make_tuple(std::move(out));
}

// lax.top_k: the k largest along `axis` (NaN largest), ties in their order.
Value top_k(Evaluator& ev, Arguments& a) {
  ArrayRef x = to_array(ev, a[0]);
  std::int64_t k = ev.index_of(a[1]);
  if (k < 0) raise(exc::ValueError(), "k argument to top_k must be nonnegative, got " + std::to_string(k));
  if (x->aval.ndim() == 0)
    raise(exc::TypeError(), "top_k operand must have >= 1 dimension, got " + typecheck::python_shape_repr(x->aval.shape));
  std::int64_t axis = canonical_axis(ev.index_of(a[2]), x->aval.ndim());
  auto u = static_cast<std::size_t>(axis);
  if (x->aval.shape[u] < k)
    raise(exc::ValueError(), "k argument to top_k must be no larger than size along axis; got k=" + std::to_string(k) +
                                 " with shape=" + typecheck::python_shape_repr(x->aval.shape) + " and axis=" + std::to_string(axis));
  if (!x->aval.sharding.dims.empty() && !x->aval.sharding.dims[u].empty())
    raise_error(typecheck::Error{typecheck::ErrorClass::ShardingTypeError,
                                 "The input should be unsharded over the axis along which to compute the top_k values. "
                                 "Got input type=" + x->aval.format({.short_dtypes = false}) + " and axis=" + std::to_string(axis)});
  std::vector<std::int64_t> start(x->aval.ndim(), 0), limit(x->aval.shape.begin(), x->aval.shape.end());
  limit[u] = k;
  std::vector<Value> out;
  for (std::int64_t output : {0, 1}) {
    ArrayRef whole = sorted(ev, {x}, axis, true, 1, output, true);
    std::vector<Value> key;
    for (std::size_t d = 0; d < x->aval.ndim(); ++d)
      key.push_back(Value(std::make_shared<SliceObject>(Value(), d == u ? Value::integer(k) : Value(), Value())));
    out.push_back(*whole->get_item(ev, make_tuple(std::move(key))));
  }
  return make_tuple(std::move(out));
}

Value jnp_sort(Evaluator& ev, Arguments& a) {
  refuse_kind_and_order("sort", a);
  ArrayRef x = to_array(ev, a[0]);
  if (a[1].is_none()) x = raveled(ev, x);
  std::int64_t dimension = canonical_axis(a[1].is_none() ? 0 : ev.index_of(a[1]), x->aval.ndim());
  ArrayRef out = sorted(ev, {x}, dimension, ev.truthy(a[4]), 1, 0);
  return Value(ev.truthy(a[5]) ? reversed(ev, out, dimension) : out);
}

// argsort: the permutation; descending and stable keeps equal elements in
// their order (JAX reverses, sorts and reverses back: the same order).
Value jnp_argsort(Evaluator& ev, Arguments& a) {
  refuse_kind_and_order("argsort", a);
  ArrayRef x = to_array(ev, a[0]);
  if (a[1].is_none()) x = raveled(ev, x);
  std::int64_t dimension = canonical_axis(a[1].is_none() ? 0 : ev.index_of(a[1]), x->aval.ndim());
  bool stable = ev.truthy(a[4]), descending = ev.truthy(a[5]);
  ArrayRef out = descending && !stable ? reversed(ev, sorted(ev, {x}, dimension, false, 1, 1), dimension)
                                       : sorted(ev, {x}, dimension, stable, 1, 1, descending);
  if (a[6].is_none()) return Value(out);
  return apply_astype(ev, out, dtype_argument(ev, a[6]));
}

// JAX's _quantile without weights: NaN anywhere along the axis gives NaN;
// the sorted values at floor and ceil of q * (n - 1), combined by `method`.
Value quantile(const Jnp& jnp, ArrayRef a, ArrayRef q, const Value& axis_value, const std::string& method, bool keepdims) {
  Evaluator& ev = jnp.ev;
  static const std::vector<std::string> methods{"linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf"};
  if (std::find(methods.begin(), methods.end(), method) == methods.end())
    raise(exc::ValueError(), "method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or 'inverted_cdf'");
  a = inexact_operand(ev, Value(a));
  if (!typecheck::is_floating(q->aval.dtype))
    raise(exc::TypeError(), "floor does not accept dtype " + std::string(typecheck::long_name(q->aval.dtype)) +
                                ". Accepted dtypes are subtypes of floating.");
  std::vector<std::int64_t> keepdim;
  std::int64_t axis = 0;
  if (axis_value.is_none()) {
    if (keepdims) keepdim.assign(a->aval.ndim(), 1);
    a = raveled(ev, a);
  } else if (axis_value.is_integral()) {
    axis = canonical_axis(axis_value.as_int(), a->aval.ndim());
  } else {
    std::vector<std::int64_t> axes, kept, permutation;
    for (auto v : int_values(ev, axis_value)) axes.push_back(canonical_axis(v, a->aval.ndim()));
    std::vector<bool> reduced(a->aval.ndim(), false);
    for (auto d : axes) {
      if (reduced[static_cast<std::size_t>(d)]) raise(exc::ValueError(), "repeated axis");
      reduced[static_cast<std::size_t>(d)] = true;
    }
    keepdim.assign(a->aval.shape.begin(), a->aval.shape.end());
    std::int64_t touched = 1;
    for (std::size_t d = 0; d < reduced.size(); ++d)
      if (reduced[d]) keepdim[d] = 1, touched *= a->aval.shape[d];
      else kept.push_back(a->aval.shape[d]), permutation.push_back(static_cast<std::int64_t>(d));
    for (auto d : axes) permutation.push_back(d);
    std::sort(permutation.begin() + static_cast<std::ptrdiff_t>(kept.size()), permutation.end());
    a = to_array(ev, apply_transpose(ev, Value(a), std::vector<int>(permutation.begin(), permutation.end())));
    kept.push_back(touched);
    a = to_array(ev, apply_reshape(ev, Value(a), kept));
    axis = static_cast<std::int64_t>(kept.size()) - 1;
  }
  if (q->aval.ndim() > 1)
    raise(exc::ValueError(), "q must be have rank <= 1, got shape " + typecheck::python_shape_repr(q->aval.shape));
  const bool vector_q = q->aval.ndim() == 1;
  Value axis_arg = Value::integer(axis);
  Value x = jnp("where", {jnp("any", {jnp("isnan", {Value(a)}), axis_arg}, {{"keepdims", Value::boolean(true)}}),
                          Value::floating(NAN), Value(a)});
  x = Value(sorted(ev, {to_array(ev, x)}, axis, true, 1, 0));
  const auto n = static_cast<double>(a->aval.shape[static_cast<std::size_t>(axis)]);
  Value position = jnp("multiply", {Value(q), Value::floating(method == "inverted_cdf" ? n : n - 1)});
  Value low = jnp("floor", {position}), high = jnp("ceil", {position});
  if (method == "inverted_cdf") low = high = jnp("subtract", {high, Value::integer(1)});
  Value high_weight = jnp("subtract", {position, low});
  Value low_weight = jnp("subtract", {Value::integer(1), high_weight});
  auto index = [&](const Value& v) {
    Value clamped = jnp("clip", {v, Value::integer(0), Value::floating(n - 1)});
    return jnp("astype", {clamped, Value(std::make_shared<DTypeObject>(DType::int32))});
  };
  // The values at the indices: q's dim (if any) first, the axis dropped (kept as 1).
  auto gather = [&](const Value& indices) {
    Value picks = keepdims && axis_value.is_integral() ? jnp("expand_dims", {indices, Value::integer(-1)}) : indices;
    Value taken = jnp("take", {x, picks}, {{"axis", axis_arg}});
    if (!vector_q) return taken;
    return jnp("moveaxis", {taken, axis_arg, Value::integer(0)});
  };
  Value low_value = gather(index(low)), high_value = gather(index(high));
  if (vector_q) {
    std::vector<std::int64_t> along(to_array(ev, low_value)->aval.ndim(), 1);
    along[0] = q->aval.shape[0];
    low_weight = jnp("reshape", {low_weight, int_tuple(along)});
    high_weight = jnp("reshape", {high_weight, int_tuple(along)});
  }
  Value result;
  if (method == "linear") {
    Value q_dtype(std::make_shared<DTypeObject>(q->aval.dtype));
    result = jnp("add", {jnp("multiply", {jnp("astype", {low_value, q_dtype}), low_weight}),
                         jnp("multiply", {jnp("astype", {high_value, q_dtype}), high_weight})});
  }
  else if (method == "lower" || method == "inverted_cdf") result = low_value;
  else if (method == "higher") result = high_value;
  else if (method == "nearest") result = jnp("where", {jnp("less_equal", {high_weight, Value::floating(0.5)}), low_value, high_value});
  else result = jnp("multiply", {jnp("add", {low_value, high_value}), Value::floating(0.5)});
  if (keepdims && !keepdim.empty()) {
    if (vector_q) keepdim.insert(keepdim.begin(), q->aval.shape[0]);
    result = jnp("reshape", {result, int_tuple(keepdim)});
  }
  return apply_astype(ev, to_array(ev, result), a->aval.dtype);
}

void refuse_out(Evaluator& ev, const char* name, Arguments& a, std::size_t out, std::size_t overwrite) {
  if (!a[out].is_none() || ev.truthy(a[overwrite]))
    raise(exc::ValueError(), std::string("jax.numpy.") + name + " does not support overwrite_input=True or out != None");
}

}  // namespace

void install_sorting_operations(Evaluator& evaluator, ModuleObject& module, bool is_jnp) {
  ModuleObject* self = &module;
  auto jnp_of = [self](Evaluator& ev) { return Jnp{ev, *self}; };
  module.add_function("sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False)", jnp_sort);
  module.add_function("argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False, dtype=None)",
                      jnp_argsort);
  auto method_of = [](const Value& v) {
    auto* s = string_of(v);
    if (!s) raise(exc::TypeError(), "method must be a string");
    return *s;
  };
  module.add_function(
      "quantile(a, q, axis=None, out=None, overwrite_input=False, method='linear', keepdims=False, *, weights=None)",
      [jnp_of, method_of](Evaluator& ev, Arguments& a) {
        refuse_out(ev, "quantile", a, 3, 4);
        if (!a[7].is_none()) raise(exc::NotImplementedError(), "jnp.quantile's weights= is not supported in shardlang");
        return quantile(jnp_of(ev), to_array(ev, a[0]), to_array(ev, a[1]), a[2], method_of(a[5]), ev.truthy(a[6]));
      });
  module.add_function(
      "percentile(a, q, axis=None, out=None, overwrite_input=False, method='linear', keepdims=False, *, weights=None)",
      [jnp_of, method_of](Evaluator& ev, Arguments& a) {
        refuse_out(ev, "quantile", a, 3, 4);
        if (!a[7].is_none()) raise(exc::NotImplementedError(), "jnp.percentile's weights= is not supported in shardlang");
        ArrayRef q = to_array(ev, a[1]);
        q = inexact_operand(ev, Value(q));
        q = to_array(ev, apply_elementwise(ev, primitive("divide"), {Value(q), Value::integer(100)}));
        return quantile(jnp_of(ev), to_array(ev, a[0]), q, a[2], method_of(a[5]), ev.truthy(a[6]));
      });
  module.add_function("median(a, axis=None, out=None, overwrite_input=False, keepdims=False)",
                      [jnp_of](Evaluator& ev, Arguments& a) {
                        refuse_out(ev, "quantile", a, 2, 3);
                        return quantile(jnp_of(ev), to_array(ev, a[0]), to_array(ev, Value::floating(0.5)), a[1],
                                        "midpoint", ev.truthy(a[4]));
                      });
  if (!is_jnp) return;
  auto& lax = *evaluator.module("jax.lax");
  lax.add_function("sort(operand, dimension=-1, is_stable=True, num_keys=1)", lax_sort);
  lax.add_function("sort_key_val(keys, values, dimension=-1, is_stable=True)", [](Evaluator& ev, Arguments& a) {
    ArrayRef keys = to_array(ev, a[0]), values = to_array(ev, a[1]);
    std::int64_t dimension = canonical_axis(ev.index_of(a[2]), keys->aval.ndim());
    bool stable = ev.truthy(a[3]);
    return make_tuple({Value(sorted(ev, {keys, values}, dimension, stable, 1, 0)),
                       Value(sorted(ev, {keys, values}, dimension, stable, 1, 1))});
  });
  lax.add_function("top_k(operand, k, *, axis=-1, is_stable=True)", top_k);
}

}  // namespace interp
