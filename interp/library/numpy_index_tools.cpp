// Index arithmetic and small array tools (numpy_module.hpp): unravel_index,
// ravel_multi_index, indices, isin, append, diagflat, and the angle
// conversions deg2rad / rad2deg (degrees, radians), composed as JAX 0.11's
// jax/_src/numpy composes them from other members, so they run under every
// trace.
#include <numbers>

#include "interp/library/numpy_module.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/trace.hpp"

namespace interp {

using typecheck::DType;

namespace {

// The sizes of a shape argument: an int or a sequence of ints.
std::vector<std::int64_t> dimensions_of(Evaluator& evaluator, const Value& shape, const char* api) {
  if (shape.is_int()) return {shape.as_int()};
  std::vector<std::int64_t> sizes;
  for (const Value& item : evaluator.to_vector(shape)) {
    if (!item.is_int()) raise(exc::ValueError(), std::string(api) + ": shape should be a scalar or 1D sequence.");
    sizes.push_back(item.as_int());
  }
  return sizes;
}

// jnp.unravel_index: each coordinate by divmod from the last dimension; an
// out-of-bounds index clips to the nearest end, as JAX's does.
Value unravel_index(const Jnp& jnp, const Value& indices, const Value& shape_argument) {
  std::vector<std::int64_t> shape = dimensions_of(jnp.ev, shape_argument, "unravel_index");
  ArrayRef rest = to_array(jnp.ev, indices);
  if (!typecheck::is_integer(rest->aval.dtype))
    raise(exc::TypeError(), "Only integer indices are accepted, got " + std::string(typecheck::long_name(rest->aval.dtype)));
  Value remaining(rest);
  std::vector<Value> coordinates(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    Value size = Value::integer(shape[i]);
    coordinates[i] = jnp("remainder", {remaining, size});
    remaining = jnp("floor_divide", {remaining, size});
  }
  Value past_end = jnp("greater", {remaining, Value::integer(0)});
  Value before_start = rest->aval.dtype == DType::uint32 ? Value::boolean(false) : jnp("less", {remaining, Value::integer(-1)});
  for (std::size_t i = 0; i < shape.size(); ++i)
    coordinates[i] = jnp("where", {past_end, Value::integer(shape[i] - 1),
                                   jnp("where", {before_start, Value::integer(0), coordinates[i]})});
  return make_tuple(std::move(coordinates));
}

// jnp.ravel_multi_index: the coordinates (checked, clipped or wrapped per
// `mode`) times the dimensions' strides in `order`.
Value ravel_multi_index(const Jnp& jnp, const Arguments& a) {
  Evaluator& ev = jnp.ev;
  std::vector<Value> coordinates = ev.to_vector(a[0]);
  std::vector<std::int64_t> dims = dimensions_of(ev, a[1], "ravel_multi_index");
  if (coordinates.size() != dims.size())
    raise(exc::ValueError(), "parameter multi_index must be a sequence of length " + std::to_string(dims.size()));
  const std::string mode = ev.str(a[2]), order = ev.str(a[3]);
  if (order != "C" && order != "F") raise(exc::ValueError(), "invalid order='" + order + "'. Expected 'C' or 'F'");
  std::vector<std::int64_t> strides(dims.size(), 1);
  for (std::size_t k = 1; k < dims.size(); ++k) {
    if (order == "F") strides[k] = strides[k - 1] * dims[k - 1];
    else strides[dims.size() - 1 - k] = strides[dims.size() - k] * dims[dims.size() - k];
  }
  Value result = Value::integer(0);
  for (std::size_t k = 0; k < dims.size(); ++k) {
    ArrayRef index = to_array(ev, coordinates[k]);
    if (!typecheck::is_integer(index->aval.dtype)) raise(exc::TypeError(), "only int indices permitted");
    Value i(index);
    const Value last = Value::integer(dims[k] - 1);
    if (mode == "raise") {
      if (index->abstract() && (tracing_jit(ev) || checking_jitted_body(ev)))
        raise(exc::ValueError(), "The error occurred because ravel_multi_index was jit-compiled with mode='raise'. "
                                 "Use mode='wrap' or mode='clip' instead.");
      // (Check mode outside jit does not know the coordinates' values.)
      Value outside = jnp("any", {jnp("logical_or", {jnp("less", {i, Value::integer(0)}), jnp("greater", {i, last})})});
      if (!index->abstract() && ev.truthy(outside)) raise(exc::ValueError(), "invalid entry in coordinates array");
    } else if (mode == "clip") {
      i = jnp("clip", {i, Value::integer(0), last});
    } else if (mode == "wrap") {
      i = jnp("remainder", {i, Value::integer(dims[k])});
    } else if (mode != "ignore") {
      raise(exc::ValueError(), "invalid mode='" + mode + "'. Expected 'raise', 'wrap', 'clip', or 'ignore'.");
    }
    result = jnp("add", {result, jnp("multiply", {jnp("astype", {i, dtype_value(DType::int32)}), Value::integer(strides[k])})});
  }
  return result;
}

// jnp.indices: one iota per dimension broadcast over the grid (sparse:
// each kept along its own axis only), stacked unless sparse.
Value indices(const Jnp& jnp, const Arguments& a) {
  Evaluator& ev = jnp.ev;
  std::vector<std::int64_t> dims = dimensions_of(ev, a[0], "indices");
  Value dtype = a[1].is_none() ? dtype_value(DType::int32) : a[1];
  const bool sparse = ev.truthy(a[2]);
  std::vector<Value> grids;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    std::vector<Value> shape(dims.size(), Value::integer(1));
    shape[i] = Value::integer(dims[i]);
    Value along = jnp("reshape", {jnp("arange", {Value::integer(dims[i])}, {{"dtype", dtype}}), make_tuple(shape)});
    if (!sparse) {
      std::vector<Value> full;
      for (std::int64_t d : dims) full.push_back(Value::integer(d));
      along = jnp("broadcast_to", {along, make_tuple(full)});
    }
    grids.push_back(along);
  }
  if (sparse) return make_tuple(std::move(grids));
  if (grids.empty()) return jnp("array", {make_list({})}, {{"dtype", dtype}});
  return jnp("stack", {make_list(std::move(grids))});
}

// jnp.isin: every element compared with every test element (JAX's
// 'compare_all' method, the one 'auto' picks), in the element's shape.
Value isin(const Jnp& jnp, const Arguments& a) {
  Evaluator& ev = jnp.ev;
  const std::string method = ev.str(a[4]);
  if (method != "auto" && method != "compare_all" && method != "binary_search" && method != "sort")
    raise(exc::ValueError(), "method='" + method + "' not recognized");
  ArrayRef element = to_array(ev, a[0]);
  Value elements = jnp("ravel", {Value(element)}), tests = jnp("ravel", {a[1]});
  const bool invert = ev.truthy(a[3]);
  std::vector<Value> shape;
  for (std::int64_t d : element->aval.shape) shape.push_back(Value::integer(d));
  if (to_array(ev, elements)->aval.shape[0] == 0 || to_array(ev, tests)->aval.shape[0] == 0)
    return jnp(invert ? "ones" : "zeros", {make_tuple(shape)}, {{"dtype", dtype_value(DType::bool_)}});
  Value column = jnp("expand_dims", {elements, Value::integer(1)}), row = jnp("expand_dims", {tests, Value::integer(0)});
  Value found = invert ? jnp("all", {jnp("not_equal", {column, row})}, {{"axis", Value::integer(-1)}})
                       : jnp("any", {jnp("equal", {column, row})}, {{"axis", Value::integer(-1)}});
  return jnp("reshape", {found, make_tuple(shape)});
}

}  // namespace

void install_index_tools(ModuleObject& module) {
  ModuleObject* self = &module;
  module.add_function("unravel_index(indices, shape)", [self](Evaluator& ev, Arguments& a) {
    return unravel_index(Jnp{ev, *self}, a[0], a[1]);
  });
  module.add_function("ravel_multi_index(multi_index, dims, mode='raise', order='C')", [self](Evaluator& ev, Arguments& a) {
    return ravel_multi_index(Jnp{ev, *self}, a);
  });
  module.add_function("indices(dimensions, dtype=None, sparse=False)", [self](Evaluator& ev, Arguments& a) {
    return indices(Jnp{ev, *self}, a);
  });
  module.add_function("isin(element, test_elements, assume_unique=False, invert=False, *, method='auto')",
                      [self](Evaluator& ev, Arguments& a) { return isin(Jnp{ev, *self}, a); });
  module.add_function("append(arr, values, axis=None)", [self](Evaluator& ev, Arguments& a) {
    Jnp jnp{ev, *self};
    if (a[2].is_none()) return jnp("concatenate", {make_list({jnp("ravel", {a[0]}), jnp("ravel", {a[1]})})}, {{"axis", Value::integer(0)}});
    return jnp("concatenate", {make_list({a[0], a[1]})}, {{"axis", a[2]}});
  });
  module.add_function("diagflat(v, k=0)", [self](Evaluator& ev, Arguments& a) {
    Jnp jnp{ev, *self};
    return jnp("diag", {jnp("ravel", {a[0]}), a[1]});
  });
  // Angles: x times pi/180 or 180/pi in x's inexact dtype.
  for (auto [name, alias, factor] : {std::tuple{"deg2rad", "radians", std::numbers::pi / 180},
                                     std::tuple{"rad2deg", "degrees", 180 / std::numbers::pi}}) {
    module.add_function(std::string(name) + "(x, /)", [factor](Evaluator& ev, Arguments& a) {
      return Value(apply_elementwise(ev, primitive("multiply"), {Value(inexact_operand(ev, a[0])), Value::floating(factor)}));
    });
    module.add(alias, *module.find(name));
  }
}

}  // namespace interp
