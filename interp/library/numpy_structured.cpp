// jnp's triangles, padding, take and take_along_axis, float classification and the
// constants nan inf pi e newaxis
// (numpy_module.hpp): composed from other jnp members, so they run under
// every trace as user code does.
#include <cmath>

#include "interp/library/numpy_module.hpp"
#include "interp/ops/array.hpp"
#include "interp/ops/indexing_ops.hpp"
#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shape_arithmetic.hpp"
#include "interp/python/builtins.hpp"

namespace interp {

namespace {

Value int_tuple(const std::vector<std::int64_t>& values) {
  std::vector<Value> items;
  for (auto v : values) items.push_back(Value::integer(v));
  return make_tuple(std::move(items));
}

// jax.numpy.take: the gather pad and take_along_axis build on, numpy's
// too (numpy has no take member: NumPy's raises out of range by default).
Value jnp_take(const Jnp& jnp, std::vector<Value> args, std::vector<std::pair<std::string, Value>> keywords = {}) {
  return Jnp{jnp.ev, *jnp.ev.module("jax.numpy")}("take", std::move(args), std::move(keywords));
}

Value int_list_value(const std::vector<std::int64_t>& values) {
  std::vector<Value> items;
  for (auto v : values) items.push_back(Value::integer(v));
  return make_list(std::move(items));
}

// tri(N, M, k) as booleans: row + k >= column.
Value triangle(const Jnp& jnp, std::int64_t rows, std::int64_t columns, std::int64_t k) {
  Value row = jnp("reshape", {jnp("arange", {Value::integer(rows)}), int_tuple({rows, 1})});
  Value column = jnp("reshape", {jnp("arange", {Value::integer(columns)}), int_tuple({1, columns})});
  return jnp("greater_equal", {jnp("add", {row, Value::integer(k)}), column});
}

// Per axis (before, after) from NumPy's pad_width forms.
std::vector<std::pair<std::int64_t, std::int64_t>> pad_widths(Evaluator& ev, const Value& width, std::size_t ndim) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  auto pair_of = [&](const Value& v) -> std::pair<std::int64_t, std::int64_t> {
    if (v.is_integral()) return {v.as_int(), v.as_int()};
    auto items = ev.to_vector(v);
    if (items.size() == 1) return {ev.index_of(items[0]), ev.index_of(items[0])};
    if (items.size() != 2) raise(exc::ValueError(), "pad_width entries must be an int or a (before, after) pair");
    return {ev.index_of(items[0]), ev.index_of(items[1])};
  };
  if (width.is_integral()) {
    out.assign(ndim, pair_of(width));
  } else {
    auto items = ev.to_vector(width);
    bool nested = !items.empty() && !items[0].is_integral();
    if (!nested) out.assign(ndim, pair_of(width));
    else if (items.size() == 1) out.assign(ndim, pair_of(items[0]));
    else if (items.size() != ndim)
      raise(exc::ValueError(), "operands could not be broadcast together with remapped shapes [original->remapped]: (" +
                                   std::to_string(items.size()) + ",2) and requested shape (" + std::to_string(ndim) + ",2)");
    else
      for (const auto& item : items) out.push_back(pair_of(item));
  }
  for (const auto& [before, after] : out)
    if (before < 0 || after < 0) raise(exc::ValueError(), "index can't contain negative values");
  return out;
}

// The source position along an axis of length n of padded position i (the
// padding `before` long), for the modes that copy the array's own values.
std::int64_t pad_source(const std::string& mode, std::int64_t i, std::int64_t before, std::int64_t n) {
  std::int64_t j = i - before;
  auto modulo = [](std::int64_t a, std::int64_t m) { return ((a % m) + m) % m; };
  if (mode == "edge") return std::clamp<std::int64_t>(j, 0, n - 1);
  if (mode == "wrap") return modulo(j, n);
  if (mode == "reflect") {
    if (n == 1) return 0;
    std::int64_t r = modulo(j, 2 * (n - 1));
    return r >= n ? 2 * (n - 1) - r : r;
  }
  std::int64_t r = modulo(j, 2 * n);  // symmetric
  return r >= n ? 2 * n - 1 - r : r;
}

Value pad(const Jnp& jnp, const Value& array_value, const Value& width, const std::string& mode, const Value& constant) {
  ArrayRef array = to_array(jnp.ev, array_value);
  auto widths = pad_widths(jnp.ev, width, array->aval.ndim());
  if (mode != "constant" && mode != "edge" && mode != "wrap" && mode != "reflect" && mode != "symmetric")
    raise(exc::NotImplementedError(), "jnp.pad with mode='" + mode + "': the modes are constant, edge, wrap, reflect "
                                      "and symmetric");
  // The padded shape first, checked: widths past 64 bits raise NumPy's
  // error instead of wrapping (issue 17's overflow rule).
  typecheck::Shape padded = array->aval.shape;
  for (std::size_t d = 0; d < widths.size(); ++d) {
    auto size = typecheck::checked_add(padded[d], widths[d].first);
    if (size) size = typecheck::checked_add(*size, widths[d].second);
    if (!size) raise_error(typecheck::array_too_big());
    padded[d] = *size;
  }
  if (auto error = typecheck::check_array_size(padded, array->aval.dtype)) raise_error(*error);
  Value out(array);
  for (std::size_t d = 0; d < widths.size(); ++d) {
    auto [before, after] = widths[d];
    if (before == 0 && after == 0) continue;
    const std::int64_t n = to_array(jnp.ev, out)->aval.shape[d];
    const Value axis = Value::integer(static_cast<std::int64_t>(d));
    if (n == 0 && mode != "constant")
      raise(exc::ValueError(), "can't extend empty axis " + std::to_string(d) + " using modes other than 'constant' or 'empty'");
    // Every padded position reads a position of the array (the constant
    // mode the nearest, then replaced), so the result stays where it is.
    std::vector<std::int64_t> sources;
    std::vector<Value> inside;
    for (std::int64_t i = 0; i < before + n + after; ++i) {
      sources.push_back(pad_source(mode == "constant" ? "edge" : mode, i, before, std::max<std::int64_t>(n, 1)));
      inside.push_back(Value::boolean(i >= before && i < before + n));
    }
    const Value int32(std::make_shared<DTypeObject>(typecheck::DType::int32));
    if (n == 0) {
      typecheck::Shape shape = to_array(jnp.ev, out)->aval.shape;
      shape[d] = before + after;
      out = jnp("full", {int_tuple(shape), constant}, {{"dtype", Value(std::make_shared<DTypeObject>(array->aval.dtype))}});
      continue;
    }
    out = jnp_take(jnp, {out, jnp("array", {int_list_value(sources)}, {{"dtype", int32}})}, {{"axis", axis}});
    if (mode == "constant") {
      std::vector<std::int64_t> along(array->aval.ndim(), 1);
      along[d] = before + n + after;
      Value mask = jnp("reshape", {jnp("array", {make_list(std::move(inside))}), int_tuple(along)});
      Value fill = jnp("asarray", {constant}, {{"dtype", Value(std::make_shared<DTypeObject>(array->aval.dtype))}});
      out = jnp("where", {mask, out, fill});
    }
  }
  return out;
}

// jnp.take's mode argument: 'fill', 'wrap' or 'clip' ('raise' is JAX's
// NotImplementedError).
std::string take_mode(Evaluator& ev, const Value& mode_value) {
  if (mode_value.is_none()) return "fill";
  const std::string* mode = string_of(mode_value);
  if (!mode) raise(exc::TypeError(), "mode must be a string, got " + ev.repr(mode_value));
  if (*mode == "raise") raise(exc::NotImplementedError(), "The 'raise' mode to jnp.take is not supported.");
  if (*mode != "fill" && *mode != "wrap" && *mode != "clip") raise(exc::ValueError(), "Invalid mode '" + *mode + "' for np.take");
  return *mode;
}

// What a 'fill' gather gives out of range: fill_value, else NaN for inexact
// dtypes, the smallest value for signed integers, the largest for unsigned
// ones and True for booleans.
Value fill_or_default(const Jnp& jnp, const ArrayRef& operand, const Value& fill_value) {
  const Value dtype(std::make_shared<DTypeObject>(operand->aval.dtype));
  if (!fill_value.is_none()) return jnp("asarray", {fill_value}, {{"dtype", dtype}});
  const typecheck::DType t = operand->aval.dtype;
  if (t == typecheck::DType::bool_) return jnp("asarray", {Value::boolean(true)});
  if (!typecheck::is_integer(t)) return jnp("asarray", {Value::floating(NAN)}, {{"dtype", dtype}});
  Value info = jnp("iinfo", {dtype});
  return jnp("asarray", {jnp.ev.get_attribute(info, t == typecheck::DType::uint32 ? "max" : "min")}, {{"dtype", dtype}});
}

// The flat position of every pick (its index along `axis`, the other
// dimensions' own positions), taken from the flattened array.
Value take_flattened(const Jnp& jnp, const ArrayRef& arr, const Value& picks, std::int64_t axis,
                     const std::vector<std::int64_t>& out_shape, const std::vector<std::int64_t>& strides) {
  const auto rank = static_cast<std::int64_t>(arr->aval.ndim());
  const auto& shape = arr->aval.shape;
  const Value int32(std::make_shared<DTypeObject>(typecheck::DType::int32));
  Value flat = jnp("multiply", {jnp("broadcast_to", {picks, int_tuple(out_shape)}), Value::integer(strides[static_cast<std::size_t>(axis)])});
  for (std::int64_t d = 0; d < rank; ++d) {
    auto u = static_cast<std::size_t>(d);
    if (d == axis || shape[u] == 1) continue;
    std::vector<std::int64_t> along(static_cast<std::size_t>(rank), 1);
    along[u] = out_shape[u];
    Value position = jnp("reshape", {jnp("arange", {Value::integer(out_shape[u])}, {{"dtype", int32}}), int_tuple(along)});
    flat = jnp("add", {flat, jnp("multiply", {position, Value::integer(strides[u])})});
  }
  return jnp_take(jnp, {jnp("reshape", {Value(arr), Value::integer(-1)}), flat});
}

// Whether a dimension other than `axis` is split over an Explicit mesh
// axis: the flattened array's gather would need all of it on every device.
bool split_beside(const ArrayRef& arr, std::size_t axis) {
  const typecheck::Sharding& sharding = arr->aval.sharding;
  if (!typecheck::has_explicit_axis(sharding.mesh)) return false;
  for (std::size_t d = 0; d < sharding.dims.size(); ++d)
    if (d != axis && !sharding.dims[d].empty()) return true;
  return false;
}

// The picks made where the rows lie (the split dimensions are batch
// dimensions, as JAX's gather has them): each pick compared with every
// position along `axis`, the matching element selected and summed over
// that axis. No collective; memory is the array's times the picks per row.
Value take_where_rows_lie(const Jnp& jnp, const ArrayRef& arr, const Value& picks, std::int64_t axis,
                          const std::vector<std::int64_t>& out_shape) {
  const auto rank = static_cast<std::int64_t>(arr->aval.ndim());
  const std::int64_t extent = arr->aval.shape[static_cast<std::size_t>(axis)];
  // picks as [..., k, 1, ...], the array as [..., 1, extent, ...], positions along axis + 1.
  Value wanted = jnp("expand_dims", {jnp("broadcast_to", {picks, int_tuple(out_shape)}), Value::integer(axis + 1)});
  Value rows = jnp("expand_dims", {Value(arr), Value::integer(axis)});
  std::vector<std::int64_t> along(static_cast<std::size_t>(rank + 1), 1);
  along[static_cast<std::size_t>(axis + 1)] = extent;
  const Value int32(std::make_shared<DTypeObject>(typecheck::DType::int32));
  Value positions = jnp("reshape", {jnp("arange", {Value::integer(extent)}, {{"dtype", int32}}), int_tuple(along)});
  Value chosen = jnp("where", {jnp("equal", {wanted, positions}), rows, Value::integer(0)});
  return jnp("sum", {chosen}, {{"axis", Value::integer(axis + 1)}, {"dtype", Value(std::make_shared<DTypeObject>(arr->aval.dtype))}});
}

// NumPy's take_along_axis: the indices checked and normalized as JAX's
// modes say, then picked from the flattened array, or where the rows lie
// when a dimension beside `axis` is split.
Value take_along_axis(const Jnp& jnp, const Value& arr_value, const Value& indices_value, const Value& axis_value,
                      const Value& mode_value, const Value& fill_value) {
  ArrayRef arr = to_array(jnp.ev, arr_value);
  ArrayRef indices = to_array(jnp.ev, indices_value);
  if (!typecheck::is_integer(indices->aval.dtype))
    raise(exc::TypeError(), "take_along_axis indices must be of integer type, got " + std::string(typecheck::long_name(indices->aval.dtype)));
  if (axis_value.is_none()) {
    if (indices->aval.ndim() != 1)
      raise(exc::ValueError(), "when axis=None, `indices` must have a single dimension.");
    return take_along_axis(jnp, jnp("reshape", {Value(arr), Value::integer(-1)}), Value(indices), Value::integer(0),
                           mode_value, fill_value);
  }
  const auto rank = static_cast<std::int64_t>(arr->aval.ndim());
  if (static_cast<std::int64_t>(indices->aval.ndim()) != rank)
    raise(exc::ValueError(), "indices and arr must have the same number of dimensions; " +
                                 std::to_string(indices->aval.ndim()) + " vs. " + std::to_string(rank));
  std::int64_t axis = jnp.ev.index_of(axis_value);
  if (axis < -rank || axis >= rank)
    raise(exc::ValueError(), "axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(rank));
  if (axis < 0) axis += rank;
  const auto& shape = arr->aval.shape;
  std::vector<std::int64_t> out_shape(shape.size()), strides(shape.size(), 1);
  for (std::int64_t d = rank - 1; d >= 0; --d) {
    auto u = static_cast<std::size_t>(d);
    if (d + 1 < rank) strides[u] = strides[u + 1] * shape[u + 1];
    std::int64_t i = indices->aval.shape[u];
    if (d == axis) out_shape[u] = i;
    else if (i == shape[u] || shape[u] == 1 || i == 1) out_shape[u] = std::max(i, shape[u]);
    else
      raise(exc::ValueError(), "shape mismatch: indices " + typecheck::python_shape_repr(indices->aval.shape) +
                                   " and array " + typecheck::python_shape_repr(shape) + " do not broadcast");
  }
  const Value int32(std::make_shared<DTypeObject>(typecheck::DType::int32));
  Value picks = jnp("asarray", {Value(indices)}, {{"dtype", int32}});
  const std::int64_t extent = shape[static_cast<std::size_t>(axis)];
  const auto length = Value::integer(extent);
  // JAX's modes: negative indices count from the end (but under
  // promise_in_bounds); then 'clip' clamps, promise_in_bounds clamps as
  // XLA's gather does, and 'fill' (the default) gives fill_value.
  const std::string mode = gather_mode(jnp.ev, mode_value, "fill");
  if (mode != "promise_in_bounds")
    picks = jnp("where", {jnp("less", {picks, Value::integer(0)}), jnp("add", {picks, length}), picks});
  Value in_range = jnp("logical_and", {jnp("greater_equal", {picks, Value::integer(0)}), jnp("less", {picks, length})});
  picks = jnp("clip", {picks, Value::integer(0), Value::integer(std::max<std::int64_t>(extent - 1, 0))});
  Value taken = split_beside(arr, static_cast<std::size_t>(axis))
                    ? take_where_rows_lie(jnp, arr, picks, axis, out_shape)
                    : take_flattened(jnp, arr, picks, axis, out_shape, strides);
  if (mode != "fill") return taken;
  // where broadcasts the mask itself: on an Explicit mesh it then takes the
  // result's sharding.
  return jnp("where", {in_range, taken, fill_or_default(jnp, arr, fill_value)});
}

// jnp.take: the gather along `axis` in JAX's modes. 'fill' (the default)
// and 'wrap' count negative indices from the end; 'clip' clamps them to 0
// as NumPy does.
Value take(const Jnp& jnp, const Value& a_value, const Value& indices_value, const Value& axis_value, const Value& out,
           const Value& mode_value, const Value& fill_value, const Value& out_sharding) {
  if (!out.is_none()) raise(exc::NotImplementedError(), "The 'out' argument to jnp.take is not supported.");
  const std::string mode = take_mode(jnp.ev, mode_value);
  ArrayRef a = to_array(jnp.ev, a_value);
  ArrayRef indices = to_array(jnp.ev, indices_value);
  std::int64_t axis = 0;
  ArrayRef along = a;
  if (axis_value.is_none()) {
    along = to_array(jnp.ev, jnp("ravel", {Value(a)}));
  } else {
    axis = jnp.ev.index_of(axis_value);
    const auto rank = static_cast<std::int64_t>(a->aval.ndim());
    if (axis < -rank || axis >= rank)
      raise(exc::ValueError(), "axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(rank));
    if (axis < 0) axis += rank;
  }
  const std::int64_t extent = along->aval.shape[static_cast<std::size_t>(axis)];
  if (extent == 0 && devices::element_count(indices->aval.shape) != 0)
    raise(exc::IndexError(), "Cannot do a non-empty jnp.take() from an empty axis.");
  const auto length = Value::integer(extent);
  Value picks(indices);
  if (mode == "wrap" && extent > 0) picks = jnp("mod", {picks, length});
  if (mode == "clip") picks = jnp("clip", {picks, Value::integer(0), Value::integer(std::max<std::int64_t>(extent - 1, 0))});
  Value taken = gather_along(jnp.ev, along, picks, axis, out_sharding);
  if (mode != "fill" || fill_value.is_none()) return taken;
  // The gather filled out-of-range picks with the dtype's default: put
  // fill_value there instead, the picks' mask laid along `axis`.
  Value in_range = jnp("logical_and", {jnp("greater_equal", {picks, jnp("negative", {length})}), jnp("less", {picks, length})});
  // (where broadcasts it: on an Explicit mesh it then takes the result's sharding).
  std::vector<std::int64_t> mask_shape(static_cast<std::size_t>(axis), 1);
  mask_shape.insert(mask_shape.end(), indices->aval.shape.begin(), indices->aval.shape.end());
  mask_shape.resize(to_array(jnp.ev, taken)->aval.ndim(), 1);
  Value mask = jnp("reshape", {in_range, int_tuple(mask_shape)});
  return jnp("where", {mask, taken, fill_or_default(jnp, along, fill_value)});
}

}  // namespace

void install_structured_operations(Evaluator& evaluator, ModuleObject& module, bool is_jnp) {
  module.add("nan", Value::floating(NAN));
  module.add("inf", Value::floating(INFINITY));
  module.add("pi", Value::floating(M_PI));
  module.add("e", Value::floating(M_E));
  module.add("newaxis", Value());
  ModuleObject* self = &module;
  auto jnp_of = [self](Evaluator& ev) { return Jnp{ev, *self}; };
  module.add_function("isnan(x, /)", [jnp_of](Evaluator& ev, Arguments& a) {
    Value x(to_array(ev, a[0]));
    return jnp_of(ev)("not_equal", {x, x});
  });
  module.add_function("isinf(x, /)", [jnp_of](Evaluator& ev, Arguments& a) {
    return jnp_of(ev)("equal", {jnp_of(ev)("abs", {Value(to_array(ev, a[0]))}), Value::floating(INFINITY)});
  });
  module.add_function("isfinite(x, /)", [jnp_of](Evaluator& ev, Arguments& a) {
    Value x(to_array(ev, a[0]));
    return jnp_of(ev)("equal", {jnp_of(ev)("subtract", {x, x}), Value::integer(0)});
  });
  module.add_function("logaddexp(x1, x2, /)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    Value x1(to_array(ev, a[0])), x2(to_array(ev, a[1]));
    Value larger = jnp("maximum", {x1, x2});
    Value delta = jnp("subtract", {x1, x2});
    Value rest = jnp("log1p", {jnp("exp", {jnp("negative", {jnp("abs", {delta})})})});
    return jnp("where", {jnp("isnan", {delta}), jnp("add", {x1, x2}), jnp("add", {larger, rest})});
  });
  module.add_function("tri(N, M=None, k=0, dtype=None)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    std::int64_t rows = ev.index_of(a[0]), columns = a[1].is_none() ? rows : ev.index_of(a[1]);
    Value dtype = a[3].is_none() ? Value(std::make_shared<DTypeObject>(typecheck::DType::float32)) : a[3];
    return jnp("asarray", {triangle(jnp, rows, columns, ev.index_of(a[2]))}, {{"dtype", dtype}});
  });
  for (bool lower : {true, false})
    module.add_function(std::string(lower ? "tril" : "triu") + "(m, k=0)", [jnp_of, lower](Evaluator& ev, Arguments& a) {
      Jnp jnp = jnp_of(ev);
      ArrayRef m = to_array(ev, a[0]);
      if (m->aval.ndim() < 2)
        raise(exc::ValueError(), std::string(lower ? "tril" : "triu") + " requires an array of at least two dimensions");
      const auto& shape = m->aval.shape;
      std::int64_t k = ev.index_of(a[1]);
      Value zero = jnp("zeros_like", {Value(m)});
      Value below = triangle(jnp, shape[shape.size() - 2], shape.back(), lower ? k : k - 1);
      return lower ? jnp("where", {below, Value(m), zero}) : jnp("where", {below, zero, Value(m)});
    });
  module.add_function("pad(array, pad_width, mode='constant', *, constant_values=0)", [jnp_of](Evaluator& ev, Arguments& a) {
    auto* mode = string_of(a[2]);
    if (!mode) raise(exc::TypeError(), "jnp.pad: mode must be a string");
    return pad(jnp_of(ev), a[0], a[1], *mode, a[3]);
  });
  module.add_function("take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None)", [jnp_of](Evaluator& ev, Arguments& a) {
    return take_along_axis(jnp_of(ev), a[0], a[1], a[2], a[3], a[4]);
  });
  if (is_jnp)
    module.add_function("take(a, indices, axis=None, out=None, mode=None, unique_indices=False, indices_are_sorted=False, "
                        "fill_value=None, *, out_sharding=None)", [jnp_of](Evaluator& ev, Arguments& a) {
      return take(jnp_of(ev), a[0], a[1], a[2], a[3], a[4], a[7], a[8]);
    });
  (void)evaluator;
}

}  // namespace interp
