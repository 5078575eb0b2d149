// jnp.linalg (numpy_module.hpp): norm and vector_norm, composed from jnp
// members as JAX 0.11's jax/_src/numpy/linalg.py composes them, solve and
// inv on the linalg_solve primitive, cholesky, slogdet / det, qr, svd and
// eigh / eigvalsh on the primitives of those names (LAPACK,
// devices/kernels/linalg).
#include <cmath>

#include "interp/library/host_modules.hpp"
#include "interp/library/numpy_module.hpp"
#include "interp/python/builtins.hpp"
#include "interp/ops/primitives.hpp"
#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shape_rules.hpp"

namespace interp {

using typecheck::DType;

namespace {

// An order as a number (inf for jnp.inf), or the string it is.
struct Order {
  bool none = false;
  const std::string* text = nullptr;
  double value = 0;
};

Order order_of(Evaluator& ev, const Value& ord) {
  Order out;
  if (ord.is_none()) out.none = true;
  else if ((out.text = string_of(ord))) {
  } else out.value = to_float(ev, ord);
  return out;
}

Value reduce(const Jnp& jnp, const char* name, const Value& x, const Value& axis, bool keepdims) {
  return jnp(name, {x}, {{"axis", axis}, {"keepdims", Value::boolean(keepdims)}});
}

Value vector_norm(const Jnp& jnp, const Value& x, const Order& ord, const Value& axis, bool keepdims) {
  if (ord.text) {
    std::string message = "Invalid order '" + *ord.text + "' for vector norm.";
    if (*ord.text == "inf") message += "Use 'jax.numpy.inf' instead.";
    if (*ord.text == "-inf") message += "Use '-jax.numpy.inf' instead.";
    raise(exc::ValueError(), message);
  }
  Value magnitude = jnp("abs", {x});
  if (ord.none || ord.value == 2) return jnp("sqrt", {reduce(jnp, "sum", jnp("multiply", {x, x}), axis, keepdims)});
  if (ord.value == INFINITY) return reduce(jnp, "max", magnitude, axis, keepdims);
  if (ord.value == -INFINITY) return reduce(jnp, "min", magnitude, axis, keepdims);
  if (ord.value == 0) {
    Value nonzero = jnp("astype", {jnp("not_equal", {x, Value::integer(0)}), dtype_value(to_array(jnp.ev, x)->aval.dtype)});
    return reduce(jnp, "sum", nonzero, axis, keepdims);
  }
  if (ord.value == 1) return reduce(jnp, "sum", magnitude, axis, keepdims);
  Value total = reduce(jnp, "sum", jnp("power", {magnitude, Value::floating(ord.value)}), axis, keepdims);
  return jnp("power", {total, Value::floating(1.0 / ord.value)});
}

// Output `output` of the primitive `name` (slogdet or a decomposition) of
// `x`, its bool params `flags`.
Value decomposition(Evaluator& ev, const char* name, const ArrayRef& x, std::int64_t output,
                    const std::vector<std::pair<std::string, bool>>& flags) {
  Params params;
  for (const auto& [flag, value] : flags) params.set(flag, value);
  params.set("output", output);
  return bind(ev, primitive(name), {x}, std::move(params));
}

Value singular_values(Evaluator& ev, const Value& a) {
  return decomposition(ev, "svd", inexact_operand(ev, a), 1, {{"full_matrices", false}, {"compute_uv", false}});
}

// The matrix norms of the (row, column) axes: JAX's sums of magnitudes
// along one axis, the extreme along the other; ord 2, -2 and 'nuc' the
// largest, smallest and sum of the singular values (svd without vectors).
Value matrix_norm(const Jnp& jnp, const Value& x, const Order& ord, std::int64_t row, std::int64_t column, bool keepdims) {
  Value both = make_tuple({Value::integer(row), Value::integer(column)});
  if (ord.none || (ord.text && (*ord.text == "f" || *ord.text == "fro")))
    return jnp("sqrt", {reduce(jnp, "sum", jnp("multiply", {x, x}), both, keepdims)});
  if ((ord.text && *ord.text == "nuc") || (!ord.text && (ord.value == 2 || ord.value == -2))) {
    Value moved = jnp("moveaxis", {x, both, make_tuple({Value::integer(-2), Value::integer(-1)})});
    Value s = singular_values(jnp.ev, moved);
    Value last = Value::integer(-1);
    Value y = ord.text ? jnp("sum", {s}, {{"axis", last}})
              : ord.value == 2 ? jnp("max", {s}, {{"axis", last}})
                               : jnp("min", {s}, {{"axis", last}});
    return keepdims ? jnp("expand_dims", {y, both}) : y;
  }
  if (ord.text || (ord.value != 1 && ord.value != -1 && ord.value != INFINITY && ord.value != -INFINITY))
    raise(exc::ValueError(), "Invalid order '" + (ord.text ? *ord.text : jnp.ev.repr(Value::floating(ord.value))) +
                                 "' for matrix norm.");
  const bool columns_first = ord.value == 1 || ord.value == -1;  // sum over rows, extreme over columns
  std::int64_t summed = columns_first ? row : column, extreme = columns_first ? column : row;
  if (!keepdims && extreme > summed) extreme -= 1;
  Value sums = reduce(jnp, "sum", jnp("abs", {x}), Value::integer(summed), keepdims);
  return reduce(jnp, ord.value > 0 ? "max" : "min", sums, Value::integer(extreme), keepdims);
}

Value norm(const Jnp& jnp, Arguments& a) {
  Evaluator& ev = jnp.ev;
  ArrayRef x = inexact_operand(ev, a[0]);
  const Order ord = order_of(ev, a[1]);
  const bool keepdims = ev.truthy(a[3]);
  const std::size_t ndim = x->aval.ndim();
  std::vector<std::int64_t> axes;
  if (a[2].is_none()) {
    if (ord.none) return vector_norm(jnp, Value(x), ord, Value(), keepdims);
    for (std::size_t d = 0; d < ndim; ++d) axes.push_back(static_cast<std::int64_t>(d));
  } else {
    for (auto axis : int_values(ev, a[2])) axes.push_back(static_cast<std::int64_t>(checked(typecheck::normalize_axis(axis, ndim))));
  }
  if (axes.size() == 1) return vector_norm(jnp, Value(x), ord, Value::integer(axes[0]), keepdims);
  if (axes.size() == 2) return matrix_norm(jnp, Value(x), ord, axes[0], axes[1], keepdims);
  std::string text;
  for (auto axis : axes) text += (text.empty() ? "" : ", ") + std::to_string(axis);
  raise(exc::ValueError(), "Improper number of axes for norm: axis=(" + text + (axes.size() == 1 ? ",)" : ")") +
                               ". Pass one axis to compute a vector-norm, or two axes to compute a matrix-norm.");
}

// The operands' common float dtype (float32 for integers), JAX's
// promote_dtypes_inexact.
DType inexact(const ArrayRef& a, const ArrayRef& b) {
  DType common = typecheck::result_type(std::vector<typecheck::ElementType>{a->aval.element_type(), b->aval.element_type()}).dtype;
  return typecheck::is_floating(common) ? common : DType::float32;
}

// jnp.linalg.solve: b a vector (or batch of vectors) when it has one dim
// fewer than a; both broadcast to the common batch dims, then the
// linalg_solve primitive (LAPACK's LU solve per matrix).
Value solve(const Jnp& jnp, const Value& a_value, const Value& b_value) {
  Evaluator& ev = jnp.ev;
  ArrayRef a = to_array(ev, a_value), b = to_array(ev, b_value);
  if (a->aval.ndim() < 2)
    raise(exc::ValueError(), "left hand array must be at least two dimensional; got a.shape=" +
                                 typecheck::python_shape_repr(a->aval.shape));
  const DType dtype = inexact(a, b);
  const auto& as = a->aval.shape;
  const auto& bs = b->aval.shape;
  if (bs.size() > 1 && as.size() == bs.size() + 1 && as.back() == bs.back() && as.back() != bs[bs.size() - 2])
    raise(exc::ValueError(), "Invalid shapes for solve: " + typecheck::python_shape_repr(as) + ", " +
                                 typecheck::python_shape_repr(bs) + ". Prior to JAX v0.5.0, this would have been treated "
                                 "as a batched 1-dimensional solve. To recover this behavior, use solve(a, b[..., None]).squeeze(-1).");
  const bool vector = bs.size() == 1;
  Value rhs = jnp("astype", {Value(b), dtype_value(dtype)});
  if (vector) rhs = jnp("expand_dims", {rhs, Value::integer(-1)});
  ArrayRef r = to_array(ev, rhs);
  if (r->aval.ndim() < 2 || r->aval.shape[r->aval.ndim() - 2] != as.back())
    raise(exc::ValueError(), "Incompatible shapes for solve: " + typecheck::python_shape_repr(as) + " and " +
                                 typecheck::python_shape_repr(bs));
  typecheck::Shape a_batch(as.begin(), as.end() - 2), b_batch(r->aval.shape.begin(), r->aval.shape.end() - 2);
  auto batch = typecheck::broadcast_shapes(std::vector<typecheck::Shape>{a_batch, b_batch});
  if (!batch)
    raise(exc::ValueError(), "Incompatible shapes for solve: " + typecheck::python_shape_repr(as) + " and " +
                                 typecheck::python_shape_repr(bs));
  typecheck::Shape a_shape = *batch, b_shape = *batch;
  a_shape.insert(a_shape.end(), {as.back(), as.back()});
  b_shape.insert(b_shape.end(), {as.back(), r->aval.shape.back()});
  Value lhs = jnp("broadcast_to", {jnp("astype", {Value(a), dtype_value(dtype)}), shape_value(a_shape)});
  rhs = jnp("broadcast_to", {rhs, shape_value(b_shape)});
  Value x = bind(ev, primitive("linalg_solve"), {to_array(ev, lhs), to_array(ev, rhs)});
  return vector ? jnp("squeeze", {x, Value::integer(-1)}) : x;
}

// (a + aᵀ) / 2, lax.linalg.symmetrize.
Value symmetrized(const Jnp& jnp, const Value& a) {
  return jnp("divide", {jnp("add", {a, jnp("swapaxes", {a, Value::integer(-1), Value::integer(-2)})}), Value::floating(2.0)});
}

// lax.linalg.eigh: (eigenvalues, eigenvectors) of `x` (symmetrized first
// unless told not to), the lower or upper triangle read.
std::pair<Value, Value> eigh(const Jnp& jnp, const ArrayRef& x, bool lower, bool symmetrize_input) {
  ArrayRef input = symmetrize_input && x->aval.ndim() >= 2 ? to_array(jnp.ev, symmetrized(jnp, Value(x))) : x;
  return {decomposition(jnp.ev, "eigh", input, 1, {{"lower", lower}}), decomposition(jnp.ev, "eigh", input, 0, {{"lower", lower}})};
}

// jnp.linalg.svd(hermitian=True), as JAX's: from eigh, the singular values
// the eigenvalues' magnitudes sorted descending, U the eigenvectors in that
// order, Vᴴ = (U * sign(w))ᵀ.
Value hermitian_svd(const Jnp& jnp, const ArrayRef& x, bool compute_uv) {
  auto [w, v] = eigh(jnp, x, true, true);
  Value s = jnp("abs", {w});
  const Value last = Value::integer(-1);
  if (!compute_uv) return jnp("flip", {jnp("sort", {s}, {{"axis", last}})}, {{"axis", last}});
  Value order = jnp("flip", {jnp("argsort", {s}, {{"axis", last}})}, {{"axis", last}});
  Value sign = jnp("take_along_axis", {jnp("sign", {w}), order}, {{"axis", last}});
  Value columns = jnp("expand_dims", {order, Value::integer(-2)});
  Value u = jnp("take_along_axis", {v, columns}, {{"axis", last}});
  Value vh = jnp("swapaxes", {jnp("multiply", {u, jnp("expand_dims", {sign, Value::integer(-2)})}), Value::integer(-1),
                              Value::integer(-2)});
  return make_named_tuple(jnp.ev, "jax._src.numpy.linalg", "SVDResult", {"U", "S", "Vh"},
                          {u, jnp("take_along_axis", {s, order}, {{"axis", last}}), vh});
}

// The decompositions: qr, svd, eigh and eigvalsh, each an output of its
// primitive per result.
void install_decompositions(ModuleObject& linalg, const std::function<Jnp(Evaluator&)>& jnp_of) {
  linalg.add_function("qr(a, mode='reduced')", [jnp_of](Evaluator& ev, Arguments& a) {
    ArrayRef x = inexact_operand(ev, a[0]);
    const std::string* mode = string_of(a[1]);
    if (mode && *mode == "raw") {  // lax.linalg.geqrf's packed factorization, transposed, and its scales
      Value packed = decomposition(ev, "geqrf", x, 0, {});
      return make_named_tuple(ev, "jax._src.numpy.linalg", "QRResult", {"Q", "R"},
                              {jnp_of(ev)("swapaxes", {packed, Value::integer(-1), Value::integer(-2)}),
                               decomposition(ev, "geqrf", x, 1, {})});
    }
    if (!mode || (*mode != "reduced" && *mode != "r" && *mode != "full" && *mode != "complete"))
      raise(exc::ValueError(), "Unsupported QR decomposition mode '" + ev.str(a[1]) + "'");
    const std::vector<std::pair<std::string, bool>> flags{{"full_matrices", *mode == "complete"}};
    Value r = decomposition(ev, "qr", x, 1, flags);
    if (*mode == "r") return r;
    return make_named_tuple(ev, "jax._src.numpy.linalg", "QRResult", {"Q", "R"}, {decomposition(ev, "qr", x, 0, flags), r});
  });
  linalg.add_function("svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None)",
                      [jnp_of](Evaluator& ev, Arguments& a) {
    ArrayRef x = inexact_operand(ev, a[0]);
    const bool compute_uv = ev.truthy(a[2]);
    if (!a[4].is_none()) raise(exc::NotImplementedError(), "subset_by_index not implemented for CPU and GPU");
    if (ev.truthy(a[3])) return hermitian_svd(jnp_of(ev), x, compute_uv);
    const std::vector<std::pair<std::string, bool>> flags{{"full_matrices", ev.truthy(a[1])}, {"compute_uv", compute_uv}};
    if (!compute_uv) return decomposition(ev, "svd", x, 1, flags);
    return make_named_tuple(ev, "jax._src.numpy.linalg", "SVDResult", {"U", "S", "Vh"},
                            {decomposition(ev, "svd", x, 0, flags), decomposition(ev, "svd", x, 1, flags),
                             decomposition(ev, "svd", x, 2, flags)});
  });
  auto lower_of = [](Evaluator& ev, const Value& uplo) {
    const std::string* text = string_of(uplo);
    if (uplo.is_none() || (text && *text == "L")) return true;
    if (text && *text == "U") return false;
    raise(exc::ValueError(), "UPLO must be one of None, 'L', or 'U', got " + ev.str(uplo));
  };
  linalg.add_function("eigh(a, UPLO=None, symmetrize_input=True)", [jnp_of, lower_of](Evaluator& ev, Arguments& a) {
    auto [w, v] = eigh(jnp_of(ev), inexact_operand(ev, a[0]), lower_of(ev, a[1]), ev.truthy(a[2]));
    return make_named_tuple(ev, "jax._src.numpy.linalg", "EighResult", {"eigenvalues", "eigenvectors"}, {w, v});
  });
  linalg.add_function("eigvalsh(a, UPLO='L', *, symmetrize_input=True)", [jnp_of, lower_of](Evaluator& ev, Arguments& a) {
    return eigh(jnp_of(ev), inexact_operand(ev, a[0]), lower_of(ev, a[1]), ev.truthy(a[2])).first;
  });
}

}  // namespace

void install_linalg_operations(Evaluator& evaluator) {
  ModuleObject& linalg = *evaluator.module("jax.numpy.linalg");
  auto jnp_module = evaluator.module("jax.numpy");
  auto jnp_of = [jnp_module](Evaluator& ev) { return Jnp{ev, *jnp_module}; };
  linalg.add_function("norm(x, ord=None, axis=None, keepdims=False)",
                      [jnp_of](Evaluator& ev, Arguments& a) { return norm(jnp_of(ev), a); });
  linalg.add_function("vector_norm(x, /, *, axis=None, keepdims=False, ord=2)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    ArrayRef x = inexact_operand(ev, a[0]);
    return vector_norm(jnp, Value(x), order_of(ev, a[3]), a[1], ev.truthy(a[2]));
  });
  linalg.add_function("solve(a, b)", [jnp_of](Evaluator& ev, Arguments& a) { return solve(jnp_of(ev), a[0], a[1]); });
  linalg.add_function("inv(a)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    ArrayRef x = to_array(ev, a[0]);
    const auto& shape = x->aval.shape;
    if (shape.size() < 2 || shape.back() != shape[shape.size() - 2])
      raise(exc::ValueError(), "Argument to inv must have shape [..., n, n], got " + typecheck::python_shape_repr(shape) + ".");
    DType dtype = typecheck::is_floating(x->aval.dtype) ? x->aval.dtype : DType::float32;
    Value identity = jnp("eye", {Value::integer(shape.back())}, {{"dtype", dtype_value(dtype)}});
    return solve(jnp, Value(x), jnp("broadcast_to", {identity, shape_value(shape)}));
  });
  // cholesky: the input symmetrized ((a + aᵀ)/2) unless told not to, then
  // the primitive (which reads the lower triangle); upper=True gives Lᵀ.
  linalg.add_function("cholesky(a, *, upper=False, symmetrize_input=True)", [jnp_of](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    ArrayRef x = inexact_operand(ev, a[0]);
    Value input = ev.truthy(a[2]) && x->aval.ndim() >= 2 ? symmetrized(jnp, Value(x)) : Value(x);
    Value factor = bind(ev, primitive("cholesky"), {to_array(ev, input)});
    return ev.truthy(a[1]) ? jnp("swapaxes", {factor, Value::integer(-1), Value::integer(-2)}) : factor;
  });
  // slogdet: (sign, log |det|), each an output of the slogdet primitive
  // (LAPACK's LU); det is sign * exp(log |det|).
  auto slogdet = [](Evaluator& ev, const Value& a_value) {
    ArrayRef x = inexact_operand(ev, a_value);
    return std::vector<Value>{decomposition(ev, "slogdet", x, 0, {}), decomposition(ev, "slogdet", x, 1, {})};
  };
  linalg.add_function("slogdet(a, *, method=None)", [slogdet](Evaluator& ev, Arguments& a) {
    if (!a[1].is_none() && !(string_of(a[1]) && *string_of(a[1]) == "lu"))
      raise(exc::ValueError(), "Unknown slogdet method '" + ev.str(a[1]) + "'. Supported methods are 'lu' (default).");
    return make_named_tuple(ev, "jax._src.numpy.linalg", "SlogdetResult", {"sign", "logabsdet"}, slogdet(ev, a[0]));
  });
  linalg.add_function("det(a)", [jnp_of, slogdet](Evaluator& ev, Arguments& a) {
    Jnp jnp = jnp_of(ev);
    auto parts = slogdet(ev, a[0]);
    return jnp("multiply", {parts[0], jnp("exp", {parts[1]})});
  });
  install_decompositions(linalg, jnp_of);
  jnp_module->add("linalg", Value(evaluator.module("jax.numpy.linalg")));
}

}  // namespace interp
