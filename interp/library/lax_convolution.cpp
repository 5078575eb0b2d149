// jax.lax's convolutions and windowed reductions (numpy_module.hpp): the
// arguments as JAX 0.11's lax/convolution.py and windowed_reductions.py
// parse them, bound to conv_general_dilated and reduce_window_{sum,max,min}
// (ops/convolution.hpp).
#include <cmath>

#include "interp/library/host_modules.hpp"
#include "interp/library/numpy_module.hpp"
#include "interp/ops/contractions.hpp"
#include "interp/ops/convolution.hpp"
#include "interp/python/builtins.hpp"
#include "typecheck/python_repr.hpp"
#include "typecheck/reduction_rules.hpp"

namespace interp {

namespace {

std::vector<std::int64_t> ints_of(Evaluator& ev, const Value& value) {
  std::vector<std::int64_t> out;
  for (const auto& v : ev.to_vector(value)) out.push_back(ev.index_of(v));
  return out;
}

std::vector<std::int64_t> ones_or(Evaluator& ev, const Value& value, std::size_t count) {
  return value.is_none() ? std::vector<std::int64_t>(count, 1) : ints_of(ev, value);
}

Value conv_dimension_numbers_class(Evaluator& ev) { return *ev.module("jax.lax")->find("ConvDimensionNumbers"); }

// dimension_numbers as lax.conv_dimension_numbers reads it.
typecheck::ConvDimensionNumbers dimension_numbers_of(Evaluator& ev, const Value& value, std::size_t lhs_rank,
                                                     std::size_t rhs_rank) {
  if (value.is_none()) return checked(typecheck::conv_dimension_numbers(lhs_rank, rhs_rank, nullptr));
  if (is_named_tuple(value) && Value(type_of(value)).object() == conv_dimension_numbers_class(ev).object()) {
    auto items = ev.to_vector(value);
    auto spec = [&](std::size_t i) {
      std::vector<int> out;
      for (auto d : ints_of(ev, items.at(i))) out.push_back(static_cast<int>(d));
      return out;
    };
    return {spec(0), spec(1), spec(2)};
  }
  if (!value.as<TupleObject>() && !value.as<ListObject>())
    raise(exc::TypeError(), "convolution dimension_numbers must be tuple/list or None, got " +
                                ev.repr(Value(type_of(value))) + ".");
  std::vector<std::string> specs;
  std::vector<Value> items = ev.to_vector(value);
  if (lhs_rank == rhs_rank && items.size() != 3)
    raise(exc::TypeError(), "convolution dimension_numbers list/tuple must be length 3, got " + std::to_string(items.size()) + ".");
  std::string types;
  bool strings = true;
  for (const auto& item : items) {
    types += (types.empty() ? "" : ", ") + ev.repr(Value(type_of(item)));
    if (const std::string* s = string_of(item)) specs.push_back(*s);
    else strings = false;
  }
  if (!strings)
    raise(exc::TypeError(), "convolution dimension_numbers elements must be strings, got (" + types +
                                (items.size() == 1 ? ",)." : ")."));
  return checked(typecheck::conv_dimension_numbers(lhs_rank, rhs_rank, &specs));
}

// (low, high) pairs, or JAX's ValueError naming `what`.
typecheck::Padding padding_pairs_of(Evaluator& ev, const Value& padding, const std::string& what) {
  typecheck::Padding out;
  for (const auto& pair : ev.to_vector(padding)) {
    std::vector<Value> both = pair.as<TupleObject>() || pair.as<ListObject>() ? ev.to_vector(pair) : std::vector<Value>{};
    if (both.size() != 2)
      raise(exc::ValueError(), "padding argument to " + what +
                                   " should be a string or a sequence of (low, high) pairs, got " + ev.repr(padding));
    out.emplace_back(ev.index_of(both[0]), ev.index_of(both[1]));
  }
  return out;
}

Value conv_general_dilated(Evaluator& ev, const Value& lhs_value, const Value& rhs_value, const Value& strides,
                           const Value& padding, const Value& lhs_dilation, const Value& rhs_dilation,
                           const Value& dimension_numbers, const Value& feature_groups, const Value& batch_groups,
                           const ContractionOptions& options) {
  ArrayRef lhs = to_array(ev, lhs_value), rhs = to_array(ev, rhs_value);
  const typecheck::ConvDimensionNumbers numbers = dimension_numbers_of(ev, dimension_numbers, lhs->aval.ndim(), rhs->aval.ndim());
  const std::size_t spatial = lhs->aval.ndim() - 2;
  typecheck::ConvWindow window;
  window.strides = ints_of(ev, strides);
  window.lhs_dilation = ones_or(ev, lhs_dilation, spatial);
  window.rhs_dilation = ones_or(ev, rhs_dilation, spatial);
  window.feature_group_count = ev.index_of(feature_groups);
  window.batch_group_count = ev.index_of(batch_groups);
  if (const std::string* text = string_of(padding)) {
    if (!lhs_dilation.is_none() && std::any_of(window.lhs_dilation.begin(), window.lhs_dilation.end(), [](std::int64_t d) { return d != 1; }))
      raise(exc::ValueError(), "String padding is not implemented for transposed convolution using this op. Please "
                               "either exactly specify the required padding or use conv_transpose.");
    std::vector<std::int64_t> in, kernel;
    for (std::size_t i = 0; i < spatial; ++i) {
      in.push_back(lhs->aval.shape[static_cast<std::size_t>(numbers.lhs_spec[2 + i])]);
      const std::int64_t k = rhs->aval.shape[static_cast<std::size_t>(numbers.rhs_spec[2 + i])];
      kernel.push_back(i < window.rhs_dilation.size() ? typecheck::dilate_dim(k, window.rhs_dilation[i]) : k);
    }
    window.padding = checked(typecheck::padtype_to_pads(in, kernel, window.strides, *text));
  } else {
    window.padding = padding_pairs_of(ev, padding, "conv_general_dilated");
  }
  return Value(bind_conv(ev, lhs, rhs, numbers, window, contraction_params(ev, options)));
}

Value padtype_to_pads(Evaluator& ev, Arguments& a) {
  const std::string* text = string_of(a[3]);
  if (!text) raise(exc::TypeError(), "Unknown padding type: " + ev.repr(a[3]) + ".");
  typecheck::Padding pads = checked(typecheck::padtype_to_pads(ints_of(ev, a[0]), ints_of(ev, a[1]), ints_of(ev, a[2]), *text));
  std::vector<Value> out;
  for (const auto& [low, high] : pads) out.push_back(make_tuple({Value::integer(low), Value::integer(high)}));
  return make_list(std::move(out));
}

// Which monoid `computation` is: lax.add, lax.max, lax.min (or jnp's add,
// maximum, minimum); NotImplementedError for another callable.
const char* monoid_of(Evaluator& ev, const Value& computation) {
  const std::pair<const char*, const char*> names[] = {{"add", "reduce_window_sum"}, {"max", "reduce_window_max"},
                                                       {"min", "reduce_window_min"}};
  const std::pair<const char*, const char*> jnp_names[] = {{"add", "reduce_window_sum"}, {"maximum", "reduce_window_max"},
                                                           {"minimum", "reduce_window_min"}};
  for (const auto& [name, primitive_name] : names)
    if (auto f = ev.module("jax.lax")->find(name); f && f->object() == computation.object()) return primitive_name;
  for (const auto& [name, primitive_name] : jnp_names)
    if (auto f = ev.module("jax.numpy")->find(name); f && f->object() == computation.object()) return primitive_name;
  return nullptr;
}

[[noreturn]] void inconsistent_dtypes(typecheck::DType operand, typecheck::DType init) {
  raise(exc::TypeError(), "reduce_window got inconsistent dtypes for operands and init_values: got operand dtypes "
                          "[dtype('" + std::string(typecheck::long_name(operand)) + "')] and init_value "
                          "dtypes [dtype('" + std::string(typecheck::long_name(init)) + "')].");
}

Value tuple_of(const std::vector<std::int64_t>& values) {
  std::vector<Value> items;
  for (auto v : values) items.push_back(Value::integer(v));
  return make_tuple(std::move(items));
}

// reduce_window of any other computation (a Python callable such as lax.mul
// or a lambda): XLA's ReduceWindow as a fold, one strided slice of the
// padded operand per window position (row-major), each combined into the
// accumulator (init_value broadcast to the result's shape) where it is no
// padding. Built from jnp and lax functions, so jit, vmap and grad follow it.
Value generic_reduce_window(Evaluator& ev, const ArrayRef& operand, const ArrayRef& init, const Value& computation,
                            const std::vector<std::int64_t>& window, const typecheck::ConvWindow& w) {
  auto jnp = [&](const char* name, std::vector<Value> args, std::vector<std::pair<std::string, Value>> keywords = {}) {
    CallArgs call{std::move(args), std::move(keywords)};
    return ev.call(*ev.module("jax.numpy")->find(name), call);
  };
  const std::size_t rank = operand->aval.ndim();
  if (window.size() != rank || w.strides.size() != rank || w.padding.size() != rank)
    raise(exc::TypeError(), "reduce_window got inconsistent window_dimensions, window_strides or padding for an "
                            "operand of rank " + std::to_string(rank));
  if (std::any_of(w.lhs_dilation.begin(), w.lhs_dilation.end(), [](std::int64_t d) { return d != 1; }))
    raise(exc::NotImplementedError(), "reduce_window with a computation other than add, max or min and base_dilation");
  if (init->aval.dtype != operand->aval.dtype) inconsistent_dtypes(operand->aval.dtype, init->aval.dtype);
  bool padded = false;
  std::vector<Value> pad_width;
  std::vector<std::int64_t> out_shape, extent;
  for (std::size_t d = 0; d < rank; ++d) {
    const auto [low, high] = w.padding[d];
    if (low < 0 || high < 0) raise(exc::NotImplementedError(), "reduce_window with a computation other than add, max or min and negative padding");
    padded = padded || low != 0 || high != 0;
    pad_width.push_back(tuple_of({low, high}));
    extent.push_back(typecheck::dilate_dim(window[d], w.rhs_dilation.at(d)));
    const std::int64_t span = operand->aval.shape[d] + low + high - extent[d];
    out_shape.push_back(span < 0 ? 0 : span / w.strides[d] + 1);
  }
  if (std::any_of(out_shape.begin(), out_shape.end(), [](std::int64_t n) { return n == 0; }))
    return jnp("broadcast_to", {Value(init), tuple_of(out_shape)});
  // The result is split as the monoid reduce_window's would be (its sharding
  // rule and errors); an operand split over Explicit axes is folded whole
  // and the result split after.
  const Primitive& monoid = primitive("reduce_window_max");
  (void)monoid.implementation(ev, monoid, {operand}, reduce_window_params(window, w), false);
  const auto& dims = operand->aval.sharding.dims;
  const bool split = std::any_of(dims.begin(), dims.end(), [](const typecheck::SpecEntry& e) { return !e.empty(); });
  Value reshard = *ev.module("jax.sharding")->find("reshard"), spec;  // spec: the operand's sharding
  Value x = Value(operand), mask;
  if (split) {
    Value sharding_module(ev.module("jax.sharding"));
    spec = ev.get_attribute(x, "sharding");
    Value whole = ev.call(ev.get_attribute(sharding_module, "NamedSharding"),
                          {ev.get_attribute(spec, "mesh"), ev.call(ev.get_attribute(sharding_module, "PartitionSpec"), std::vector<Value>{})});
    x = ev.call(reshard, {x, whole});
  }
  if (padded) {
    Value bool_dtype(std::make_shared<DTypeObject>(typecheck::DType::bool_));
    mask = jnp("pad", {jnp("ones_like", {x}, {{"dtype", bool_dtype}}), make_tuple(pad_width)});
    x = jnp("pad", {x, make_tuple(pad_width)});
  }
  Value slice = *ev.module("jax.lax")->find("slice"), acc;
  std::vector<std::int64_t> offset(rank, 0);
  while (true) {
    std::vector<std::int64_t> start, limit;
    for (std::size_t d = 0; d < rank; ++d) {
      start.push_back(offset[d] * w.rhs_dilation[d]);
      limit.push_back(start[d] + (out_shape[d] - 1) * w.strides[d] + 1);
    }
    std::vector<Value> bounds{tuple_of(start), tuple_of(limit), tuple_of(w.strides)};
    Value piece = ev.call(slice, {x, bounds[0], bounds[1], bounds[2]});
    if (acc.is_none()) acc = ev.call(*ev.module("jax.lax")->find("full_like"), {piece, Value(init)});
    Value combined = ev.call(computation, {acc, piece});
    acc = padded ? jnp("where", {ev.call(slice, {mask, bounds[0], bounds[1], bounds[2]}), combined, acc}) : combined;
    std::size_t d = rank;
    while (d > 0 && ++offset[d - 1] == window[d - 1]) offset[--d] = 0;
    if (d == 0) break;
  }
  return split ? ev.call(reshard, {acc, spec}) : acc;
}

// The identity of a monoid reduce_window primitive's computation for `dtype`:
// 0 for add, the lowest value for max, the highest for min.
double monoid_identity(const std::string& primitive_name, typecheck::DType dtype) {
  return typecheck::reduction_identity(std::string_view(primitive_name).substr(std::string_view("reduce_window_").size()),
                                       dtype);
}

Value reduce_window(Evaluator& ev, Arguments& a) {
  ArrayRef operand = to_array(ev, a[0]);
  const std::vector<std::int64_t> window = ints_of(ev, a[3]);
  typecheck::ConvWindow w;
  w.strides = ones_or(ev, a[4], window.size());
  w.lhs_dilation = ones_or(ev, a[6], window.size());
  w.rhs_dilation = ones_or(ev, a[7], window.size());
  if (const std::string* text = string_of(a[5])) {
    std::vector<std::int64_t> dilated;
    for (std::size_t i = 0; i < window.size(); ++i)
      dilated.push_back(i < w.rhs_dilation.size() ? typecheck::dilate_dim(window[i], w.rhs_dilation[i]) : window[i]);
    w.padding = checked(typecheck::padtype_to_pads(operand->aval.shape, dilated, w.strides, *text));
  } else {
    w.padding = padding_pairs_of(ev, a[5], "reduce_window");
  }
  ArrayRef init = to_array(ev, a[1]);
  if (init->aval.ndim() != 0)
    raise(exc::TypeError(), "reduce_window expected init_values to be scalars but init_values have shapes [" +
                                typecheck::python_shape_repr(init->aval.shape) + "].");
  const char* name = monoid_of(ev, a[2]);
  if (!name) return generic_reduce_window(ev, operand, init, a[2], window, w);
  const std::string primitive_name(name);
  Value reduced = bind(ev, primitive(primitive_name), {operand}, reduce_window_params(window, w));
  // Check mode sees no values (its types do not depend on the init).
  if (init->abstract() && ev.mode != Evaluator::Mode::run) return reduced;
  // A concrete init_value that is the monoid's identity is JAX's monoid
  // reducer, the primitive alone.
  if (!init->abstract() && element_values(ev, *init).at(0) == monoid_identity(primitive_name, operand->aval.dtype))
    return reduced;
  // Any other (or a traced one) is XLA's ReduceWindow from that init: its
  // fold over a window's elements (padding skipped) is init combined with
  // the identity's result; JAX's generic reduce_window wants one dtype.
  if (init->aval.dtype != operand->aval.dtype) inconsistent_dtypes(operand->aval.dtype, init->aval.dtype);
  const char* combine = primitive_name == "reduce_window_sum" ? "add" : primitive_name == "reduce_window_max" ? "maximum" : "minimum";
  return apply_elementwise(ev, primitive(combine), {Value(init), reduced});
}

}  // namespace

void install_lax_convolution(Evaluator& evaluator) {
  auto lax = evaluator.module("jax.lax");
  lax->add("ConvDimensionNumbers", make_named_tuple_class(evaluator, "jax.lax", "ConvDimensionNumbers",
                                                          {"lhs_spec", "rhs_spec", "out_spec"}));
  lax->add_function(
      "conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None, "
      "dimension_numbers=None, feature_group_count=1, batch_group_count=1, precision=None, "
      "preferred_element_type=None, out_sharding=None)",
      [](Evaluator& ev, Arguments& a) {
        return conv_general_dilated(ev, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], {a[11], a[9], a[10]});
      });
  lax->add_function("conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None)",
                    [](Evaluator& ev, Arguments& a) {
                      return conv_general_dilated(ev, a[0], a[1], a[2], a[3], Value(), Value(), Value(), Value::integer(1),
                                                  Value::integer(1), {Value(), a[4], a[5]});
                    });
  lax->add_function(
      "conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, precision=None, "
      "preferred_element_type=None)",
      [](Evaluator& ev, Arguments& a) {
        return conv_general_dilated(ev, a[0], a[1], a[2], a[3], a[4], a[5], Value(), Value::integer(1), Value::integer(1),
                                    {Value(), a[6], a[7]});
      });
  lax->add_function("conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)", [](Evaluator& ev, Arguments& a) {
    const auto numbers = dimension_numbers_of(ev, a[2], ints_of(ev, a[0]).size(), ints_of(ev, a[1]).size());
    auto spec = [](const std::vector<int>& dims) {
      std::vector<Value> items;
      for (int d : dims) items.push_back(Value::integer(d));
      return make_tuple(std::move(items));
    };
    return named_tuple_of(std::static_pointer_cast<TypeObject>(conv_dimension_numbers_class(ev).object()),
                          {spec(numbers.lhs_spec), spec(numbers.rhs_spec), spec(numbers.out_spec)});
  });
  lax->add_function("padtype_to_pads(in_shape, window_shape, window_strides, padding)", padtype_to_pads);
  lax->add_function(
      "reduce_window(operand, init_value, computation, window_dimensions, window_strides=None, padding='VALID', "
      "base_dilation=None, window_dilation=None)",
      reduce_window);
}

}  // namespace interp
