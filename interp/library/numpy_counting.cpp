// Data-dependent sizes (numpy_module.hpp): jnp.nonzero, flatnonzero,
// argwhere, unique, bincount and histogram, and searchsorted, composed from
// other jnp members as JAX 0.11's lax_numpy.py and setops.py compose them.
// A result whose size depends on the values takes it from size= / length=,
// or from the concrete values outside transformations; a traced value
// without one raises JAX's ConcretizationTypeError.
#include "interp/library/numpy_module.hpp"
#include "interp/python/builtins.hpp"
#include "typecheck/rule_support.hpp"

namespace interp {

using typecheck::DType;

namespace {

// The int the traced-or-concrete scalar `count` holds: JAX's
// concrete_dim_or_error. In check mode outside jit (no values) `guess`,
// and the caller's results are marked poisoned.
std::int64_t concrete_count(const Jnp& jnp, const Value& count, const std::string& context, std::int64_t guess,
                            bool& guessed) {
  ArrayRef known = concrete_or_error(jnp.ev, to_array(jnp.ev, count), context);
  if (!known) {
    guessed = true;
    return guess;
  }
  return static_cast<std::int64_t>(element_values(jnp.ev, *known)[0]);
}

Value poisoned_if(const Value& value, bool guessed) {
  if (!guessed) return value;
  auto mark = [](const Value& v) { std::static_pointer_cast<ArrayObject>(v.object())->poisoned = true; };
  if (auto* tuple = value.as<TupleObject>())
    for (const auto& item : tuple->items) mark(item);
  else
    mark(value);
  return value;
}

// The flat positions of the first `size` true elements of the 1-d `mask`
// (a stable argsort puts them first), then `fill` (0 by default) past the
// true elements' count.
Value true_positions(const Jnp& jnp, const Value& mask, std::int64_t size, const Value& count) {
  const std::int64_t n = to_array(jnp.ev, mask)->aval.shape[0];
  Value int32 = dtype_value(DType::int32);
  Value order = jnp("argsort", {jnp("astype", {jnp("logical_not", {mask}), int32})}, {{"stable", Value::boolean(true)}});
  if (size < n) order = jnp("split", {order, make_list({Value::integer(size)})}).as<ListObject>()->items[0];
  if (size > n)
    order = jnp("concatenate", {make_list({order, jnp("zeros", {Value::integer(size - n), int32})})});
  Value past = jnp("greater_equal", {jnp("arange", {Value::integer(size)}), count});
  return jnp("where", {past, Value::integer(0), order});
}

// jnp.nonzero(a, *, size, fill_value).
Value nonzero(const Jnp& jnp, const Value& a_value, const Value& size_value, const Value& fill_value) {
  Evaluator& ev = jnp.ev;
  ArrayRef a = to_array(ev, a_value);
  if (a->aval.ndim() == 0)
    raise(exc::ValueError(), "Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() instead.");
  Value mask = a->aval.dtype == DType::bool_ ? Value(a) : jnp("not_equal", {Value(a), Value::integer(0)});
  Value count = jnp("sum", {jnp("astype", {mask, dtype_value(DType::int32)})});
  bool guessed = false;
  const std::int64_t elements = devices::element_count(a->aval.shape);
  const std::int64_t size =
      size_value.is_none()
          ? concrete_count(jnp, count,
                           "The size argument of jnp.nonzero must be statically specified to use jnp.nonzero within JAX "
                           "transformations.",
                           elements, guessed)
          : ev.index_of(size_value);
  if (size < 0) raise(exc::ValueError(), "negative dimensions are not allowed");
  std::vector<Value> fills;
  if (!fill_value.is_none()) {
    fills = fill_value.as<TupleObject>() ? fill_value.as<TupleObject>()->items
                                         : std::vector<Value>(a->aval.ndim(), fill_value);
    bool scalars = fills.size() == a->aval.ndim();
    for (const auto& f : fills) scalars = scalars && to_array(ev, f)->aval.ndim() == 0;
    if (!scalars)
      raise(exc::ValueError(), "fill_value must be a scalar or a tuple of length " + std::to_string(a->aval.ndim()) +
                                   "; got " + ev.repr(fill_value));
  }
  Value flat = elements == 0 || size == 0 ? jnp("zeros", {Value::integer(size), dtype_value(DType::int32)})
                                          : true_positions(jnp, jnp("ravel", {mask}), size, count);
  std::vector<Value> out;
  std::int64_t stride = elements;
  for (std::size_t d = 0; d < a->aval.ndim(); ++d) {
    const std::int64_t extent = a->aval.shape[d];
    stride = extent == 0 ? 0 : stride / extent;
    Value coordinate = stride == 0 ? flat : jnp("remainder", {jnp("floor_divide", {flat, Value::integer(stride)}),
                                                             Value::integer(std::max<std::int64_t>(extent, 1))});
    if (!fills.empty()) {
      Value past = jnp("greater_equal", {jnp("arange", {Value::integer(size)}), count});
      coordinate = jnp("where", {past, fills[d], coordinate});
    }
    out.push_back(coordinate);
  }
  return poisoned_if(make_tuple(std::move(out)), guessed);
}

// jnp.searchsorted(a, v, side, sorter, *, method): every query compared
// with every element of the sorted 1-d `a` (JAX's 'compare_all' method;
// the other methods give the same indices).
Value searchsorted(const Jnp& jnp, Arguments& args) {
  Evaluator& ev = jnp.ev;
  ArrayRef a = to_array(ev, args[0]);
  if (a->aval.ndim() != 1) raise(exc::ValueError(), "a should be 1-dimensional");
  auto* side = string_of(args[2]);
  if (!side || (*side != "left" && *side != "right"))
    raise(exc::ValueError(), args[2].is_none() || !side ? "side must be a string" : "unrecognized side: '" + *side + "'");
  auto* method = string_of(args[4]);
  if (!method || (*method != "scan" && *method != "scan_unrolled" && *method != "sort" && *method != "compare_all"))
    raise(exc::ValueError(), "unrecognized method: " + ev.repr(args[4]));
  Value sorted_a(a);
  if (!args[3].is_none()) sorted_a = *a->get_item(ev, Value(to_array(ev, args[3])));
  ArrayRef v = to_array(ev, args[1]);
  typecheck::Shape along(v->aval.ndim() + 1, 1);
  along.back() = a->aval.shape[0];
  Value elements = jnp("reshape", {sorted_a, shape_value(along)});
  Value queries = jnp("expand_dims", {Value(v), Value::integer(-1)});
  Value before = jnp(*side == "left" ? "less" : "less_equal", {elements, queries});
  return jnp("sum", {jnp("astype", {before, dtype_value(DType::int32)})}, {{"axis", Value::integer(-1)}});
}

// jnp.bincount: counts[k] the weights of the (clipped at 0) x equal to k,
// k < length (larger values dropped, as JAX's mode='drop').
Value bincount(const Jnp& jnp, Arguments& args) {
  Evaluator& ev = jnp.ev;
  ArrayRef x = to_array(ev, args[0]);
  if (x->aval.dtype == DType::bool_) x = to_array(ev, jnp("astype", {Value(x), dtype_value(DType::int32)}));
  if (!typecheck::is_integer(x->aval.dtype))
    raise(exc::TypeError(), "x argument to bincount must have an integer type; got " +
                                std::string(typecheck::long_name(x->aval.dtype)));
  if (x->aval.ndim() != 1) raise(exc::ValueError(), "only 1-dimensional input supported.");
  const std::int64_t minlength = ev.index_of(args[2]);
  if (minlength < 0) raise(exc::ValueError(), "minlength must be non-negative");
  bool guessed = false;
  std::int64_t length = 0;
  if (args[3].is_none()) {
    Value largest = x->aval.shape[0] ? jnp("max", {Value(x)}) : Value::integer(-1);
    length = std::max<std::int64_t>(
        minlength, concrete_count(jnp, largest,
                                  "The error occurred because of argument 'x' of jnp.bincount. To avoid this error, pass a "
                                  "static `length` argument.",
                                  minlength, guessed) + 1);
    if (x->aval.shape[0] == 0) length = minlength;
  } else {
    length = ev.index_of(args[3]);
  }
  Value weights = args[1].is_none() ? Value::integer(1) : args[1];
  if (!args[1].is_none() && to_array(ev, weights)->aval.shape != x->aval.shape)
    raise(exc::ValueError(), "type of weights must match type of x. Got typeof(x)=" + x->aval.short_str() +
                                 " and typeof(weights)=" + to_array(ev, weights)->aval.short_str());
  DType dtype = args[1].is_none() ? DType::int32 : to_array(ev, weights)->aval.dtype;
  Value bins = jnp("reshape", {jnp("arange", {Value::integer(length)}, {{"dtype", dtype_value(x->aval.dtype)}}),
                               shape_value({1, length})});
  Value clipped = jnp("reshape", {jnp("maximum", {Value(x), Value::integer(0)}), shape_value({x->aval.shape[0], 1})});
  Value column = args[1].is_none() ? weights : jnp("reshape", {weights, shape_value({x->aval.shape[0], 1})});
  Value hits = jnp("where", {jnp("equal", {clipped, bins}), column, Value::integer(0)});
  return poisoned_if(jnp("sum", {jnp("astype", {hits, dtype_value(dtype)})}, {{"axis", Value::integer(0)}}), guessed);
}

// jnp.unique of the flattened array: sorted, the first of each run of
// equal values kept (NaNs equal when equal_nan).
Value unique(const Jnp& jnp, Arguments& args) {
  Evaluator& ev = jnp.ev;
  if (!args[4].is_none())
    raise(exc::NotImplementedError(), "jnp.unique with axis=: only the flattened array's unique values (axis=None)");
  ArrayRef ar = to_array(ev, jnp("ravel", {args[0]}));
  const std::int64_t n = ar->aval.shape[0];
  const Value& size = args[6];
  if (n == 0 && !size.is_none() && ev.index_of(size) != 0 && args[7].is_none())
    raise(exc::ValueError(), "jnp.unique: for zero-sized input with nonzero size argument, fill_value must be specified");
  Value int32 = dtype_value(DType::int32);
  Value perm = jnp("argsort", {Value(ar)}, {{"stable", Value::boolean(true)}});
  Value aux = jnp("take", {Value(ar), perm});
  Value mask = jnp("ones", {Value::integer(n)}, {{"dtype", dtype_value(DType::bool_)}});
  if (n > 1) {
    auto slices = jnp("split", {aux, make_list({Value::integer(1)})}).as<ListObject>()->items;
    auto heads = jnp("split", {aux, make_list({Value::integer(n - 1)})}).as<ListObject>()->items;
    Value later = slices[1], earlier = heads[0];
    Value differs = jnp("not_equal", {later, earlier});
    if (typecheck::is_floating(ar->aval.dtype) && ev.truthy(args[5]))
      differs = jnp("logical_and", {differs, jnp("logical_not", {jnp("logical_and", {jnp("isnan", {later}),
                                                                                 jnp("isnan", {earlier})})})});
    mask = jnp("concatenate", {make_list({jnp("ones", {Value::integer(1)}, {{"dtype", dtype_value(DType::bool_)}}), differs})});
  }
  Value count = jnp("sum", {jnp("astype", {mask, int32})});
  bool guessed = false;
  const std::string hint =
      "The error arose for the first argument of jnp.unique(). To make jnp.unique() compatible with JIT and other "
      "transforms, you can specify a concrete value for the size argument, which will determine the output size.";
  if (size.is_none() && !concrete_or_error(ev, to_array(ev, args[0]), hint)) guessed = true;
  const std::int64_t kept = !size.is_none() ? ev.index_of(size) : guessed ? n : concrete_count(jnp, count, hint, n, guessed);
  Value ind = n ? true_positions(jnp, mask, kept, count) : jnp("zeros", {Value::integer(kept), int32});
  Value result = n ? jnp("take", {aux, ind}) : jnp("zeros", {Value::integer(kept), dtype_value(ar->aval.dtype)});
  Value past = jnp("greater_equal", {jnp("arange", {Value::integer(kept)}), count});
  if (!size.is_none() && !args[7].is_none())
    result = jnp("where", {past, jnp("astype", {args[7], dtype_value(ar->aval.dtype)}), result});
  std::vector<Value> out{result};
  if (ev.truthy(args[1])) out.push_back(n ? jnp("take", {perm, ind}) : jnp("zeros", {Value::integer(kept), int32}));
  if (ev.truthy(args[2])) {
    // Each sorted element's run number, scattered back to its position.
    Value run = jnp("subtract", {jnp("cumsum", {jnp("astype", {mask, int32})}), Value::integer(1)});
    Value inverse_perm = jnp("argsort", {perm});
    out.push_back(jnp("reshape", {jnp("take", {run, inverse_perm}), shape_value(to_array(ev, args[0])->aval.shape)}));
  }
  if (ev.truthy(args[3])) {
    // Run lengths: the next run's start minus this one's (n past the last).
    Value starts = n ? true_positions(jnp, mask, kept + 1, count) : jnp("zeros", {Value::integer(kept + 1), int32});
    Value ends = jnp("where", {jnp("greater_equal", {jnp("arange", {Value::integer(kept + 1)}), count}), Value::integer(n), starts});
    out.push_back(jnp("diff", {ends}));
  }
  Value value = out.size() == 1 ? out[0] : make_tuple(std::move(out));
  return poisoned_if(value, guessed);
}

// jnp.histogram: bins+1 edges over range (the data's by default), each
// value counted in the bin whose right edge passes it (the last edge in
// the last bin).
Value histogram(const Jnp& jnp, Arguments& args) {
  Evaluator& ev = jnp.ev;
  if (string_of(args[1])) raise(exc::NotImplementedError(), "string values for `bins` not implemented.");
  ArrayRef a = to_array(ev, jnp("ravel", {args[0]}));
  DType dtype = typecheck::is_floating(a->aval.dtype) ? a->aval.dtype : DType::float32;
  Value weights = args[3].is_none() ? jnp("ones_like", {Value(a)}, {{"dtype", dtype_value(dtype)}}) : args[3];
  if (!args[3].is_none()) {
    if (to_array(ev, weights)->aval.shape != to_array(ev, args[0])->aval.shape)
      raise(exc::ValueError(), "weights should have the same shape as a.");
    weights = jnp("ravel", {weights});
    DType w = to_array(ev, weights)->aval.dtype;
    if (!typecheck::is_floating(w)) weights = jnp("astype", {weights, dtype_value(dtype)});
  }
  Value x = jnp("astype", {Value(a), dtype_value(dtype)});
  Value edges;
  if (to_array(ev, args[1])->aval.ndim() == 1) {
    edges = jnp("asarray", {args[1]}, {{"dtype", dtype_value(dtype)}});
  } else {
    const std::int64_t bins = ev.index_of(args[1]);
    Value lo, hi;
    if (args[2].is_none()) {
      lo = jnp("min", {x});
      hi = jnp("max", {x});
    } else {
      auto range = ev.to_vector(args[2]);
      if (range.size() != 2)
        raise(exc::ValueError(), "`range` must be either None or a sequence of scalars, got " + ev.repr(args[2]));
      lo = jnp("asarray", {range[0]}, {{"dtype", dtype_value(dtype)}});
      hi = jnp("asarray", {range[1]}, {{"dtype", dtype_value(dtype)}});
    }
    Value empty = jnp("equal", {lo, hi});
    lo = jnp("where", {empty, jnp("subtract", {lo, Value::floating(0.5)}), lo});
    hi = jnp("where", {empty, jnp("add", {hi, Value::floating(0.5)}), hi});
    Value steps = jnp("arange", {Value::integer(bins + 1)}, {{"dtype", dtype_value(dtype)}});
    Value fraction = jnp("divide", {steps, Value::integer(bins)});
    edges = jnp("add", {lo, jnp("multiply", {jnp("subtract", {hi, lo}), fraction})});
    edges = jnp("where", {jnp("equal", {steps, Value::integer(bins)}), hi, edges});
  }
  const std::int64_t count = to_array(ev, edges)->aval.shape[0];
  Value index = jnp("searchsorted", {edges, x}, {{"side", make_str("right")}});
  Value last = *to_array(ev, edges)->get_item(ev, Value::integer(-1));
  index = jnp("where", {jnp("equal", {x, last}), Value::integer(count - 1), index});
  Value counts = jnp("bincount", {index, weights}, {{"length", Value::integer(count)}});
  counts = *to_array(ev, counts)->get_item(ev, Value(std::make_shared<SliceObject>(Value::integer(1), Value(), Value())));
  if (ev.truthy(args[4])) {
    Value widths = jnp("diff", {edges});
    counts = jnp("divide", {jnp("divide", {counts, widths}), jnp("sum", {counts})});
  }
  return make_tuple({counts, edges});
}

}  // namespace

void install_counting_operations(Evaluator& evaluator, ModuleObject& module) {
  ModuleObject* self = &module;
  auto jnp_of = [self](Evaluator& ev) { return Jnp{ev, *self}; };
  module.add_function("nonzero(a, *, size=None, fill_value=None)",
                      [jnp_of](Evaluator& ev, Arguments& a) { return nonzero(jnp_of(ev), a[0], a[1], a[2]); });
  module.add_function("flatnonzero(a, *, size=None, fill_value=None)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    return nonzero(jnp, jnp("ravel", {a[0]}), a[1], a[2]).as<TupleObject>()->items[0];
  });
  module.add_function("argwhere(a, *, size=None, fill_value=None)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    ArrayRef x = to_array(ev, a[0]);
    Value raised = x->aval.ndim() == 0 ? jnp("reshape", {Value(x), shape_value({1})}) : Value(x);
    Value coordinates = nonzero(jnp, raised, a[1], a[2]);
    Value stacked = jnp("stack", {coordinates}, {{"axis", Value::integer(1)}});
    if (x->aval.ndim() != 0) return stacked;
    const std::int64_t rows = to_array(ev, stacked)->aval.shape[0];
    return jnp("reshape", {jnp("split", {stacked, make_list({Value::integer(0)}), Value::integer(1)}).as<ListObject>()->items[0],
                           shape_value({rows, 0})});
  });
  module.add_function("searchsorted(a, v, side='left', sorter=None, *, method='scan')",
                      [jnp_of](Evaluator& ev, Arguments& a) { return searchsorted(jnp_of(ev), a); });
  module.add_function("bincount(x, weights=None, minlength=0, *, length=None)",
                      [jnp_of](Evaluator& ev, Arguments& a) { return bincount(jnp_of(ev), a); });
  module.add_function("unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, "
                      "equal_nan=True, size=None, fill_value=None, sorted=True)",
                      [jnp_of](Evaluator& ev, Arguments& a) { return unique(jnp_of(ev), a); });
  module.add_function("histogram(a, bins=10, range=None, weights=None, density=None)",
                      [jnp_of](Evaluator& ev, Arguments& a) { return histogram(jnp_of(ev), a); });
  (void)evaluator;
}

}  // namespace interp
