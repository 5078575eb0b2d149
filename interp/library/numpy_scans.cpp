// Scans and NaN-aware statistics (numpy_module.hpp): lax.associative_scan,
// jnp.cumprod / cummax / cummin and lax.cumprod / cummax / cummin /
// cumlogsumexp on one associative scan composed from slices, concatenation
// and the combining function (so grad, vmap and jit see only those), and
// jnp.heaviside, ptp, nansum, nanmean and average from other jnp members.
#include <cmath>

#include "interp/library/numpy_module.hpp"
#include "interp/library/tree_module.hpp"
#include "interp/python/builtins.hpp"
#include "typecheck/python_repr.hpp"
#include "typecheck/reduction_rules.hpp"
#include "typecheck/rule_support.hpp"

namespace interp {

using typecheck::DType;

namespace {

// x[start:stop] along `axis`, every other axis whole.
Value slice_axis(Evaluator& ev, const Value& x, std::size_t axis, Value start, Value stop) {
  ArrayRef array = to_array(ev, x);
  std::vector<Value> key;
  for (std::size_t d = 0; d < array->aval.ndim(); ++d)
    key.push_back(d == axis ? Value(std::make_shared<SliceObject>(start, stop, Value()))
                            : Value(std::make_shared<SliceObject>(Value(), Value(), Value())));
  return *array->get_item(ev, make_tuple(std::move(key)));
}

using Combine = std::function<std::vector<Value>(const std::vector<Value>&, const std::vector<Value>&)>;

// The inclusive scan of `leaves` (equal lengths along `axis`) by an
// associative `combine`: log2(n) rounds, each combining every element with
// the one `offset` before it (Hillis and Steele), combine(earlier, later).
// reverse scans from the end, as JAX's does: reversed, scanned, reversed.
std::vector<Value> scan_leaves(const Jnp& jnp, std::vector<Value> leaves, std::size_t axis, bool reverse,
                               const Combine& combine) {
  if (leaves.empty()) return leaves;
  auto flip = [&](std::vector<Value>& xs) {
    for (auto& x : xs) x = jnp("flip", {x, Value::integer(static_cast<std::int64_t>(axis))});
  };
  const std::int64_t n = to_array(jnp.ev, leaves[0])->aval.shape[axis];
  if (reverse) flip(leaves);
  for (std::int64_t offset = 1; offset < n; offset *= 2) {
    std::vector<Value> earlier, later, head;
    for (const auto& x : leaves) {
      earlier.push_back(slice_axis(jnp.ev, x, axis, Value(), Value::integer(n - offset)));
      later.push_back(slice_axis(jnp.ev, x, axis, Value::integer(offset), Value()));
      head.push_back(slice_axis(jnp.ev, x, axis, Value(), Value::integer(offset)));
    }
    std::vector<Value> combined = combine(earlier, later);
    if (combined.size() != leaves.size())
      raise(exc::ValueError(), "associative_scan: the combining function must return a pytree of the elements' structure");
    for (std::size_t i = 0; i < leaves.size(); ++i)
      leaves[i] = jnp("concatenate", {make_list({head[i], combined[i]}), Value::integer(static_cast<std::int64_t>(axis))});
  }
  if (reverse) flip(leaves);
  return leaves;
}

// lax.associative_scan(fn, elems, reverse, axis) on a pytree of arrays.
Value associative_scan(const Jnp& jnp, const Value& fn, const Value& elems, bool reverse, std::int64_t axis_value) {
  Evaluator& ev = jnp.ev;
  TreeDef def;
  std::vector<Value> leaves = tree_flatten(ev, elems, def);
  if (leaves.empty()) return elems;
  for (auto& leaf : leaves) leaf = Value(to_array(ev, leaf));
  const ArrayRef first = to_array(ev, leaves[0]);
  if (first->aval.ndim() == 0) raise(exc::ValueError(), "associative_scan: elems must have at least one dimension");
  const auto axis = checked(typecheck::normalize_axis(axis_value, first->aval.ndim()));
  const std::int64_t n = first->aval.shape[axis];
  for (const auto& leaf : leaves) {
    ArrayRef x = to_array(ev, leaf);
    if (x->aval.ndim() <= axis || x->aval.shape[axis] != n)
      raise(exc::ValueError(), "Array inputs to associative_scan must have the same first dimension. (saw: " +
                                   typecheck::python_shape_repr(first->aval.shape) + " and " +
                                   typecheck::python_shape_repr(x->aval.shape) + ")");
  }
  Combine combine = [&](const std::vector<Value>& a, const std::vector<Value>& b) {
    CallArgs call{{tree_unflatten(ev, def, a), tree_unflatten(ev, def, b)}, {}};
    TreeDef out_def;
    std::vector<Value> out = tree_flatten(ev, ev.call(fn, call), out_def);
    for (auto& x : out) x = Value(to_array(ev, x));
    return out;
  };
  return tree_unflatten(ev, def, scan_leaves(jnp, std::move(leaves), axis, reverse, combine));
}

// A scan of one array by a binary jnp member.
Value scan_by(const Jnp& jnp, const char* op, const Value& x, std::size_t axis, bool reverse) {
  Combine combine = [&](const std::vector<Value>& a, const std::vector<Value>& b) {
    return std::vector<Value>{jnp(op, {a[0], b[0]})};
  };
  return scan_leaves(jnp, {x}, axis, reverse, combine)[0];
}

// jnp.cumprod / cummax / cummin(a, axis, dtype, out), as JAX's
// _cumulative_reduction: axis=None flattens, bool accumulates as int32 for
// cumprod, dtype= gives the accumulation and result type.
Value cumulative(const Jnp& jnp, const std::string& name, const char* op, Arguments& a) {
  Evaluator& ev = jnp.ev;
  ArrayRef x = to_array(ev, a[0]);
  if (!a[3].is_none()) raise(exc::NotImplementedError(), "The 'out' argument to jnp." + name + " is not supported.");
  if (a[1].is_none() || x->aval.ndim() == 0) {
    if (auto error = typecheck::check_flattened_cumulative(name, x->aval)) raise_error(*error);
    x = to_array(ev, jnp("ravel", {Value(x)}));
  }
  const auto axis = checked(typecheck::normalize_axis(a[1].is_none() ? 0 : ev.index_of(a[1]), x->aval.ndim()));
  DType dtype = x->aval.dtype;
  if (!a[2].is_none()) dtype = dtype_argument(ev, a[2]);
  else if (name == "cumprod" && dtype == DType::bool_) dtype = DType::int32;
  Value operand = jnp("astype", {Value(x), dtype_value(dtype)});
  return scan_by(jnp, op, operand, axis, false);
}

// lax.cumprod / cummax / cummin / cumlogsumexp(operand, axis, reverse).
Value lax_cumulative(const Jnp& jnp, const char* op, Arguments& a) {
  ArrayRef x = to_array(jnp.ev, a[0]);
  const auto axis = checked(typecheck::normalize_axis(jnp.ev.index_of(a[1]), x->aval.ndim()));
  return scan_by(jnp, op, Value(x), axis, jnp.ev.truthy(a[2]));
}

// NaNs as `fill` (a copy of x when it has no NaN by type).
Value nan_filled(const Jnp& jnp, const Value& x, double fill) {
  ArrayRef array = to_array(jnp.ev, x);
  if (!typecheck::is_floating(array->aval.dtype)) return Value(array);
  return jnp("where", {jnp("isnan", {Value(array)}), Value::floating(fill), Value(array)});
}

Value average(const Jnp& jnp, Arguments& a) {
  Evaluator& ev = jnp.ev;
  ArrayRef x = to_array(ev, a[0]);
  const Value& axis = a[1];
  const bool keepdims = ev.truthy(a[4]);
  if (!typecheck::is_floating(x->aval.dtype)) x = to_array(ev, jnp("astype", {Value(x), dtype_value(DType::float32)}));
  Value total, weight_sum;
  if (a[2].is_none()) {
    total = jnp("mean", {Value(x)}, {{"axis", axis}, {"keepdims", Value::boolean(keepdims)}});
    std::int64_t count = devices::element_count(x->aval.shape) / std::max<std::int64_t>(1, devices::element_count(
                                                                                             to_array(ev, total)->aval.shape));
    weight_sum = jnp("full_like", {total, Value::integer(count)});
  } else {
    ArrayRef w = to_array(ev, a[2]);
    if (w->aval.shape != x->aval.shape) {
      if (axis.is_none())
        raise(exc::ValueError(), "Axis must be specified when shapes of a and weights differ.");
      if (w->aval.ndim() != 1)
        raise(exc::ValueError(), "1D weights expected when shapes of a and weights differ.");
      const auto along = checked(typecheck::normalize_axis(ev.index_of(axis), x->aval.ndim()));
      if (w->aval.shape[0] != x->aval.shape[along])
        raise(exc::ValueError(), "Length of weights not compatible with specified axis.");
      typecheck::Shape shape(x->aval.ndim(), 1);
      shape[along] = w->aval.shape[0];
      w = to_array(ev, jnp("reshape", {Value(w), shape_value(shape)}));
    }
    w = to_array(ev, jnp("broadcast_to", {Value(w), shape_value(x->aval.shape)}));
    weight_sum = jnp("sum", {Value(w)}, {{"axis", axis}, {"keepdims", Value::boolean(keepdims)}});
    Value weighted = jnp("sum", {jnp("multiply", {Value(x), Value(w)})}, {{"axis", axis}, {"keepdims", Value::boolean(keepdims)}});
    total = jnp("divide", {weighted, weight_sum});
  }
  if (!ev.truthy(a[3])) return total;
  ArrayRef result = to_array(ev, total);
  Value weights = jnp("astype", {jnp("broadcast_to", {weight_sum, shape_value(result->aval.shape)}),
                                 dtype_value(result->aval.dtype)});
  return make_tuple({total, weights});
}

}  // namespace

void install_scan_operations(Evaluator& evaluator, ModuleObject& module, bool is_jnp) {
  ModuleObject* self = &module;
  auto jnp_of = [self](Evaluator& ev) { return Jnp{ev, *self}; };
  using Names = std::initializer_list<std::pair<const char*, const char*>>;
  for (auto [name, op] : Names{{"cumprod", "multiply"}, {"cummax", "maximum"}, {"cummin", "minimum"}})
    module.add_function(std::string(name) + "(a, axis=None, dtype=None, out=None)",
                        [jnp_of, name = std::string(name), op = op](Evaluator& ev, Arguments& a) {
                          return cumulative(jnp_of(ev), name, op, a);
                        });
  module.add_function("heaviside(x1, x2, /)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    ArrayRef x1 = to_array(ev, a[0]), x2 = to_array(ev, a[1]);
    DType common = typecheck::result_type(std::vector<typecheck::ElementType>{x1->aval.element_type(), x2->aval.element_type()}).dtype;
    if (!typecheck::is_floating(common)) common = DType::float32;
    Value x = jnp("astype", {Value(x1), dtype_value(common)}), h = jnp("astype", {Value(x2), dtype_value(common)});
    Value zero = jnp("zeros_like", {x}), one = jnp("ones_like", {x});
    return jnp("where", {jnp("less", {x, zero}), zero, jnp("where", {jnp("greater", {x, zero}), one, h})});
  });
  module.add_function("ptp(a, axis=None, out=None, keepdims=False)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    if (!a[2].is_none()) raise(exc::NotImplementedError(), "The 'out' argument to jnp.ptp is not supported.");
    std::vector<std::pair<std::string, Value>> keywords{{"axis", a[1]}, {"keepdims", a[3]}};
    return jnp("subtract", {jnp("max", {a[0]}, keywords), jnp("min", {a[0]}, keywords)});
  });
  module.add_function("nansum(a, axis=None, dtype=None, out=None, keepdims=False)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    if (!a[3].is_none()) raise(exc::NotImplementedError(), "The 'out' argument to jnp.nansum is not supported.");
    Value x = nan_filled(jnp, a[0], 0.0);
    if (!a[2].is_none()) x = jnp("astype", {x, a[2]});
    return jnp("sum", {x}, {{"axis", a[1]}, {"keepdims", a[4]}});
  });
  module.add_function("nanmean(a, axis=None, dtype=None, out=None, keepdims=False)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    if (!a[3].is_none()) raise(exc::NotImplementedError(), "The 'out' argument to jnp.nanmean is not supported.");
    ArrayRef x = to_array(ev, a[0]);
    if (!typecheck::is_floating(x->aval.dtype)) return jnp("mean", {Value(x)}, {{"axis", a[1]}, {"keepdims", a[4]}});
    Value present = jnp("logical_not", {jnp("isnan", {Value(x)})});
    Value count = jnp("sum", {jnp("astype", {present, dtype_value(x->aval.dtype)})}, {{"axis", a[1]}, {"keepdims", a[4]}});
    Value total = jnp("sum", {nan_filled(jnp, Value(x), 0.0)}, {{"axis", a[1]}, {"keepdims", a[4]}});
    Value mean = jnp("divide", {total, count});
    return a[2].is_none() ? mean : jnp("astype", {mean, a[2]});
  });
  module.add_function("average(a, axis=None, weights=None, returned=False, keepdims=False)",
                      [jnp_of](Evaluator& ev, Arguments& a) { return average(jnp_of(ev), a); });
  if (!is_jnp) return;
  ModuleObject& lax = *evaluator.module("jax.lax");
  lax.add_function("associative_scan(fn, elems, reverse=False, axis=0)", [jnp_of](Evaluator& ev, Arguments& a) {
    return associative_scan(jnp_of(ev), a[0], a[1], ev.truthy(a[2]), ev.index_of(a[3]));
  });
  for (auto [name, op] : Names{{"cumprod", "multiply"}, {"cummax", "maximum"}, {"cummin", "minimum"},
                               {"cumlogsumexp", "logaddexp"}})
    lax.add_function(std::string(name) + "(operand, axis=0, reverse=False)", [jnp_of, op = op](Evaluator& ev, Arguments& a) {
      return lax_cumulative(jnp_of(ev), op, a);
    });
}

}  // namespace interp
