// jnp's stacking and splitting (atleast_1d/2d/3d vstack hstack dstack
// array_split), grids and products (meshgrid kron vdot inner), diagonals
// (diag diagonal trace identity triu_indices tril_indices), diff, and
// shape ndim size
// (numpy_module.hpp): composed from other jnp members as JAX 0.11's
// jax/_src/numpy/lax_numpy.py composes them, so they run under every trace.
#include <algorithm>

#include "interp/library/numpy_module.hpp"
#include "interp/python/builtins.hpp"
#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"

namespace interp {

using typecheck::DType;

namespace {

std::int64_t canonical_axis(std::int64_t axis, std::size_t ndim) {
  return static_cast<std::int64_t>(checked(typecheck::normalize_axis(axis, ndim)));
}

// atleast_1d/2d/3d of one array: NumPy's placement of the new unit axes.
Value at_least(const Jnp& jnp, const Value& value, std::size_t rank) {
  ArrayRef x = to_array(jnp.ev, value);
  const auto& shape = x->aval.shape;
  if (shape.size() >= rank) return Value(x);
  typecheck::Shape out;
  if (rank == 1) out = {1};
  else if (rank == 2) out = shape.empty() ? typecheck::Shape{1, 1} : typecheck::Shape{1, shape[0]};
  else if (shape.empty()) out = {1, 1, 1};
  else if (shape.size() == 1) out = {1, shape[0], 1};
  else out = {shape[0], shape[1], 1};
  return jnp("reshape", {Value(x), shape_value(out)});
}

// vstack / hstack / dstack: every array raised to `rank`, joined on `axis`
// (hstack joins 1-d arrays on axis 0), then cast to dtype if given.
Value stack_along(const Jnp& jnp, const Value& arrays, std::size_t rank, std::int64_t axis, const Value& dtype) {
  std::vector<Value> raised;
  for (const auto& v : jnp.ev.to_vector(arrays)) raised.push_back(at_least(jnp, v, rank));
  if (rank == 1 && !raised.empty() && to_array(jnp.ev, raised[0])->aval.ndim() == 1) axis = 0;
  Value out = jnp("concatenate", {make_list(std::move(raised)), Value::integer(axis)});
  return dtype.is_none() ? out : jnp("astype", {out, dtype});
}

Value array_split(const Jnp& jnp, const Value& ary, const Value& sections, const Value& axis_value) {
  ArrayRef x = to_array(jnp.ev, ary);
  if (x->aval.ndim() == 0) raise(exc::ValueError(), "array_split of a 0-d array");
  std::int64_t axis = canonical_axis(jnp.ev.index_of(axis_value), x->aval.ndim());
  if (!sections.is_integral()) return jnp("split", {Value(x), sections, Value::integer(axis)});
  std::int64_t count = sections.as_int();
  if (count <= 0) raise(exc::ValueError(), "number sections must be larger than 0.");
  const std::int64_t size = x->aval.shape[static_cast<std::size_t>(axis)];
  const std::int64_t part = size / count, rest = size % count;
  std::vector<Value> indices;
  std::int64_t start = 0;
  for (std::int64_t i = 0; i + 1 < count; ++i) {
    start += part + (i < rest ? 1 : 0);
    indices.push_back(Value::integer(start));
  }
  return jnp("split", {Value(x), make_list(std::move(indices)), Value::integer(axis)});
}

// meshgrid: each 1-d input laid along its own axis of the grid ('xy'
// swaps the first two), broadcast to the grid unless sparse.
Value meshgrid(const Jnp& jnp, const Value& inputs, bool copy, bool sparse, const std::string& indexing) {
  if (!copy) raise(exc::ValueError(), "jax.numpy.meshgrid only supports copy=True");
  if (indexing != "xy" && indexing != "ij")
    raise(exc::ValueError(), "Valid values for indexing are 'xy' and 'ij', got " + indexing);
  std::vector<ArrayRef> args;
  for (const auto& v : jnp.ev.to_vector(inputs)) args.push_back(to_array(jnp.ev, v));
  if (std::any_of(args.begin(), args.end(), [](const ArrayRef& a) { return a->aval.ndim() != 1; })) {
    std::string shapes;
    for (const auto& a : args) shapes += (shapes.empty() ? "" : ", ") + typecheck::python_shape_repr(a->aval.shape);
    raise(exc::ValueError(), "Arguments to jax.numpy.meshgrid must be 1D, got shapes [" + shapes + "]");
  }
  const bool swap = indexing == "xy" && args.size() >= 2;
  if (swap) std::swap(args[0], args[1]);
  typecheck::Shape grid;
  for (const auto& a : args) grid.push_back(a->aval.shape[0]);
  std::vector<Value> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    typecheck::Shape along(args.size(), 1);
    along[i] = grid[i];
    Value placed = jnp("reshape", {Value(args[i]), shape_value(along)});
    out.push_back(sparse ? placed : jnp("broadcast_to", {placed, shape_value(grid)}));
  }
  if (swap) std::swap(out[0], out[1]);
  return make_tuple(std::move(out));
}

// kron: a's axes interleaved with b's, multiplied, merged pairwise.
Value kron(const Jnp& jnp, const Value& a_value, const Value& b_value) {
  ArrayRef a = to_array(jnp.ev, a_value), b = to_array(jnp.ev, b_value);
  const std::size_t rank = std::max(a->aval.ndim(), b->aval.ndim());
  auto leading = [&](const ArrayRef& x) {
    std::vector<Value> axes;
    for (std::size_t d = 0; d + x->aval.ndim() < rank; ++d) axes.push_back(Value::integer(static_cast<std::int64_t>(d)));
    return axes.empty() ? x : to_array(jnp.ev, jnp("expand_dims", {Value(x), make_tuple(std::move(axes))}));
  };
  a = leading(a);
  b = leading(b);
  std::vector<Value> odd, even;
  typecheck::Shape shape;
  for (std::size_t d = 0; d < rank; ++d) {
    odd.push_back(Value::integer(static_cast<std::int64_t>(2 * d + 1)));
    even.push_back(Value::integer(static_cast<std::int64_t>(2 * d)));
    shape.push_back(a->aval.shape[d] * b->aval.shape[d]);
  }
  Value spread_a = rank ? jnp("expand_dims", {Value(a), make_tuple(std::move(odd))}) : Value(a);
  Value spread_b = rank ? jnp("expand_dims", {Value(b), make_tuple(std::move(even))}) : Value(b);
  return jnp("reshape", {jnp("multiply", {spread_a, spread_b}), shape_value(shape)});
}

// The offset-th diagonal of the last two axes of `a` (moved there first).
Value diagonal(const Jnp& jnp, const Value& a_value, std::int64_t offset, std::int64_t axis1, std::int64_t axis2) {
  ArrayRef a = to_array(jnp.ev, a_value);
  if (a->aval.ndim() < 2) raise(exc::ValueError(), "diagonal requires an array of at least two dimensions.");
  axis1 = canonical_axis(axis1, a->aval.ndim());
  axis2 = canonical_axis(axis2, a->aval.ndim());
  if (axis1 == axis2) raise(exc::ValueError(), "axis1 and axis2 must not be the same");
  const std::int64_t rows = a->aval.shape[static_cast<std::size_t>(axis1)];
  const std::int64_t columns = a->aval.shape[static_cast<std::size_t>(axis2)];
  const std::int64_t size = std::max<std::int64_t>(0, std::min(rows + std::min<std::int64_t>(offset, 0),
                                                               columns - std::max<std::int64_t>(offset, 0)));
  Value moved = jnp("moveaxis", {Value(a), make_tuple({Value::integer(axis1), Value::integer(axis2)}),
                                 make_tuple({Value::integer(-2), Value::integer(-1)})});
  const std::int64_t shift = offset < 0 ? -offset : offset;
  Value i = jnp("arange", {Value::integer(size)});
  Value j = jnp("arange", {Value::integer(shift), Value::integer(shift + size)});
  Value key = offset >= 0 ? make_tuple({Value(std::make_shared<EllipsisObject>()), i, j})
                          : make_tuple({Value(std::make_shared<EllipsisObject>()), j, i});
  return *to_array(jnp.ev, moved)->get_item(jnp.ev, key);
}

Value diag(const Jnp& jnp, const Value& v_value, std::int64_t k) {
  ArrayRef v = to_array(jnp.ev, v_value);
  if (v->aval.ndim() == 2) return diagonal(jnp, Value(v), k, 0, 1);
  if (v->aval.ndim() != 1) raise(exc::ValueError(), "diag input must be 1d or 2d");
  const std::int64_t shift = k < 0 ? -k : k;
  const std::int64_t n = v->aval.shape[0] + shift;
  Value padded = jnp("pad", {Value(v), make_tuple({make_tuple({Value::integer(std::max<std::int64_t>(0, -k)),
                                                               Value::integer(std::max<std::int64_t>(0, k))})})});
  Value mask = jnp("eye", {Value::integer(n)}, {{"k", Value::integer(k)}, {"dtype", dtype_value(DType::bool_)}});
  Value column = jnp("reshape", {padded, shape_value({n, 1})});
  return jnp("where", {mask, column, jnp("zeros", {make_tuple({}), dtype_value(v->aval.dtype)})});
}

Value trace(const Jnp& jnp, Arguments& a) {
  ArrayRef x = to_array(jnp.ev, a[0]);
  if (!a[5].is_none()) raise(exc::NotImplementedError(), "The 'out' argument to jnp.trace is not supported.");
  if (x->aval.ndim() < 2) raise(exc::ValueError(), "diagonal requires an array of at least two dimensions.");
  std::int64_t axis1 = jnp.ev.index_of(a[2]), axis2 = jnp.ev.index_of(a[3]);
  if (canonical_axis(axis1, x->aval.ndim()) == canonical_axis(axis2, x->aval.ndim()))
    raise(exc::ValueError(), "axis1 and axis2 can not be same. axis1=" + std::to_string(axis1) +
                                 " and axis2=" + std::to_string(axis2));
  const std::int64_t rows = x->aval.shape[static_cast<std::size_t>(canonical_axis(axis1, x->aval.ndim()))];
  const std::int64_t columns = x->aval.shape[static_cast<std::size_t>(canonical_axis(axis2, x->aval.ndim()))];
  Value moved = jnp("moveaxis", {Value(x), make_tuple({Value::integer(axis1), Value::integer(axis2)}),
                                 make_tuple({Value::integer(-2), Value::integer(-1)})});
  Value mask = jnp("eye", {Value::integer(rows), Value::integer(columns)},
                   {{"k", Value::integer(jnp.ev.index_of(a[1]))}, {"dtype", dtype_value(DType::bool_)}});
  Value kept = jnp("where", {mask, moved, jnp("zeros_like", {moved})});
  // jnp.sum's accumulation type: bool and narrow integers as int32.
  DType dtype = a[4].is_none() ? x->aval.dtype : dtype_argument(jnp.ev, a[4]);
  if (dtype == DType::bool_ || dtype == DType::int8) dtype = DType::int32;
  kept = jnp("astype", {kept, dtype_value(dtype)});
  return jnp("sum", {kept}, {{"axis", make_tuple({Value::integer(-2), Value::integer(-1)})}});
}

// triu_indices / tril_indices: the positions of tri's true (or false)
// elements, row-major, from the host (their count is static).
Value triangle_indices(const Jnp& jnp, std::int64_t n, std::int64_t k, std::int64_t m, bool upper) {
  std::vector<Value> rows, columns;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      if (upper ? j - i >= k : j - i <= k) {
        rows.push_back(Value::integer(i));
        columns.push_back(Value::integer(j));
      }
  Value int32 = dtype_value(DType::int32);
  return make_tuple({jnp("array", {make_list(std::move(rows))}, {{"dtype", int32}}),
                     jnp("array", {make_list(std::move(columns))}, {{"dtype", int32}})});
}

Value diff(const Jnp& jnp, Arguments& a) {
  ArrayRef x = to_array(jnp.ev, a[0]);
  const std::int64_t n = jnp.ev.index_of(a[1]);
  if (n == 0) return Value(x);
  if (n < 0) raise(exc::ValueError(), "order must be non-negative but got " + std::to_string(n));
  if (x->aval.ndim() == 0)
    raise(exc::ValueError(), "diff requires input that is at least one dimensional; got " + jnp.ev.repr(Value(x)));
  const std::int64_t axis = canonical_axis(jnp.ev.index_of(a[2]), x->aval.ndim());
  // prepend / append: a scalar broadcast to one slice along the axis.
  auto edge = [&](const Value& v) {
    ArrayRef e = to_array(jnp.ev, v);
    if (e->aval.ndim() != 0) return Value(e);
    typecheck::Shape shape = x->aval.shape;
    shape[static_cast<std::size_t>(axis)] = 1;
    return jnp("broadcast_to", {Value(e), shape_value(shape)});
  };
  std::vector<Value> combined;
  if (!a[3].is_none()) combined.push_back(edge(a[3]));
  combined.push_back(Value(x));
  if (!a[4].is_none()) combined.push_back(edge(a[4]));
  Value arr = combined.size() > 1 ? jnp("concatenate", {make_list(combined), Value::integer(axis)}) : Value(x);
  const bool boolean = to_array(jnp.ev, arr)->aval.dtype == DType::bool_;
  auto key = [&](Value start, Value stop) {
    std::vector<Value> items;
    for (std::size_t d = 0; d < x->aval.ndim(); ++d)
      items.push_back(static_cast<std::int64_t>(d) == axis ? Value(std::make_shared<SliceObject>(start, stop, Value()))
                                                           : Value(std::make_shared<SliceObject>(Value(), Value(), Value())));
    return make_tuple(std::move(items));
  };
  for (std::int64_t i = 0; i < n; ++i) {
    ArrayRef current = to_array(jnp.ev, arr);
    Value later = *current->get_item(jnp.ev, key(Value::integer(1), Value()));
    Value earlier = *current->get_item(jnp.ev, key(Value(), Value::integer(-1)));
    arr = jnp(boolean ? "not_equal" : "subtract", {later, earlier});
  }
  return arr;
}

}  // namespace

void install_array_building_operations(Evaluator& evaluator, ModuleObject& module) {
  ModuleObject* self = &module;
  auto jnp_of = [self](Evaluator& ev) { return Jnp{ev, *self}; };
  for (std::size_t rank : {1, 2, 3})
    module.add_function("atleast_" + std::to_string(rank) + "d(*arys)", [jnp_of, rank](Evaluator& ev, Arguments& a) {
      std::vector<Value> out;
      for (const auto& v : ev.to_vector(a[0])) out.push_back(at_least(jnp_of(ev), v, rank));
      return out.size() == 1 ? out[0] : make_list(std::move(out));
    });
  module.add_function("vstack(tup, dtype=None)", [jnp_of](Evaluator& ev, Arguments& a) {
    return stack_along(jnp_of(ev), a[0], 2, 0, a[1]);
  });
  module.add_function("hstack(tup, dtype=None)", [jnp_of](Evaluator& ev, Arguments& a) {
    return stack_along(jnp_of(ev), a[0], 1, 1, a[1]);
  });
  module.add_function("dstack(tup, dtype=None)", [jnp_of](Evaluator& ev, Arguments& a) {
    return stack_along(jnp_of(ev), a[0], 3, 2, a[1]);
  });
  module.add_function("array_split(ary, indices_or_sections, axis=0)", [jnp_of](Evaluator& ev, Arguments& a) {
    return array_split(jnp_of(ev), a[0], a[1], a[2]);
  });
  module.add_function("meshgrid(*xi, copy=True, sparse=False, indexing='xy')", [jnp_of](Evaluator& ev, Arguments& a) {
    auto* indexing = string_of(a[3]);
    if (!indexing) raise(exc::TypeError(), "meshgrid: indexing must be a string");
    return meshgrid(jnp_of(ev), a[0], ev.truthy(a[1]), ev.truthy(a[2]), *indexing);
  });
  module.add_function("kron(a, b)", [jnp_of](Evaluator& ev, Arguments& a) { return kron(jnp_of(ev), a[0], a[1]); });
  // vdot: both flattened, then dot; inner: the last axes contracted.
  module.add_function("vdot(a, b, *, precision=None, preferred_element_type=None)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    return jnp("dot", {jnp("ravel", {a[0]}), jnp("ravel", {a[1]})},
               {{"precision", a[2]}, {"preferred_element_type", a[3]}});
  });
  module.add_function("inner(a, b, *, precision=None, preferred_element_type=None)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    ArrayRef x = to_array(ev, a[0]), y = to_array(ev, a[1]);
    if (x->aval.ndim() == 0 || y->aval.ndim() == 0) return jnp("multiply", {Value(x), Value(y)});
    return jnp("tensordot", {Value(x), Value(y), make_tuple({make_tuple({Value::integer(-1)}), make_tuple({Value::integer(-1)})})},
               {{"precision", a[2]}, {"preferred_element_type", a[3]}});
  });
  module.add_function("diagonal(a, offset=0, axis1=0, axis2=1)", [jnp_of](Evaluator& ev, Arguments& a) {
    return diagonal(jnp_of(ev), a[0], ev.index_of(a[1]), ev.index_of(a[2]), ev.index_of(a[3]));
  });
  module.add_function("diag(v, k=0)", [jnp_of](Evaluator& ev, Arguments& a) { return diag(jnp_of(ev), a[0], ev.index_of(a[1])); });
  module.add_function("trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None)",
                      [jnp_of](Evaluator& ev, Arguments& a) { return trace(jnp_of(ev), a); });
  module.add_function("identity(n, dtype=None)", [jnp_of](Evaluator& ev, Arguments& a) {
    return jnp_of(ev)("eye", {Value::integer(ev.index_of(a[0]))}, {{"dtype", a[1]}});
  });
  for (bool upper : {true, false})
    module.add_function(std::string(upper ? "triu" : "tril") + "_indices(n, k=0, m=None)", [jnp_of, upper](Evaluator& ev, Arguments& a) {
      std::int64_t n = ev.index_of(a[0]);
      return triangle_indices(jnp_of(ev), n, ev.index_of(a[1]), a[2].is_none() ? n : ev.index_of(a[2]), upper);
    });
  module.add_function("shape(a)", [](Evaluator& ev, Arguments& a) { return shape_value(to_array(ev, a[0])->aval.shape); });
  module.add_function("ndim(a)", [](Evaluator& ev, Arguments& a) {
    return Value::integer(static_cast<std::int64_t>(to_array(ev, a[0])->aval.ndim()));
  });
  module.add_function("size(a, axis=None)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    if (a[1].is_none()) return Value::integer(devices::element_count(x->aval.shape));
    return Value::integer(x->aval.shape[static_cast<std::size_t>(canonical_axis(ev.index_of(a[1]), x->aval.ndim()))]);
  });
  module.add_function("diff(a, n=1, axis=-1, prepend=None, append=None)",
                      [jnp_of](Evaluator& ev, Arguments& a) { return diff(jnp_of(ev), a); });
  (void)evaluator;
}

}  // namespace interp
