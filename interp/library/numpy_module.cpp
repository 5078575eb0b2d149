// jnp / lax / numpy members built from the primitives (numpy_module.hpp):
// dtype conversion, where/clip, var/std and the shape functions. Each composite binds primitives, so it runs eagerly,
// traces under jit and type-checks in check mode alike.
#include "interp/library/numpy_module.hpp"

#include <algorithm>
#include <cmath>

#include "interp/library/tree_module.hpp"
#include "interp/python/builtins.hpp"
#include "interp/ops/primitives.hpp"
#include "typecheck/creation_rules.hpp"
#include "typecheck/elementwise_rules.hpp"
#include "typecheck/reduction_rules.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shape_rules.hpp"
#include "typecheck/structural_rules.hpp"

namespace interp {

using typecheck::DType;

std::vector<std::int64_t> int_values(Evaluator& evaluator, const Value& value) {
  if (value.is_integral()) return {value.as_int()};
  std::vector<std::int64_t> out;
  for (const auto& v : evaluator.to_vector(value)) out.push_back(evaluator.index_of(v));
  return out;
}

Value dtype_value(DType dtype) { return Value(std::make_shared<DTypeObject>(dtype)); }

Value Jnp::operator()(const std::string& name, std::vector<Value> args,
                     std::vector<std::pair<std::string, Value>> keywords) const {
  auto member = module.get_attribute(ev, name);
  if (!member) raise(exc::AttributeError(), "module has no attribute '" + name + "'");
  CallArgs call{std::move(args), std::move(keywords)};
  return ev.call(*member, call);
}

namespace {

std::int64_t normalized_axis(std::int64_t axis, std::size_t ndim) {
  auto n = static_cast<std::int64_t>(ndim);
  if (axis < -n || axis >= n)
    raise(exc::ValueError(), "axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(n));
  return axis < 0 ? axis + n : axis;
}

ArrayRef array_of(const Value& value) { return std::static_pointer_cast<ArrayObject>(value.object()); }

Value bind_broadcast(Evaluator& evaluator, const ArrayRef& operand, const typecheck::Shape& shape,
                     const std::vector<std::int64_t>& dimensions) {
  if (operand->aval.shape == shape) return Value(operand);
  Params params;
  params.set("shape", std::vector<std::int64_t>(shape.begin(), shape.end()));
  params.set("broadcast_dimensions", dimensions);
  return bind(evaluator, primitive("broadcast_in_dim"), {operand}, std::move(params));
}

// NumPy broadcasting: trailing dims aligned.
typecheck::Shape broadcast_shape(const std::vector<ArrayRef>& operands) {
  std::vector<typecheck::Shape> shapes;
  for (const auto& a : operands) shapes.push_back(a->aval.shape);
  std::optional<typecheck::Shape> out = typecheck::broadcast_shapes(shapes);
  if (!out) raise(exc::ValueError(), "Incompatible shapes for broadcasting: shapes do not match");
  return *out;
}

Value broadcast_to(Evaluator& evaluator, const ArrayRef& operand, const typecheck::Shape& shape) {
  std::vector<std::int64_t> dimensions;
  for (std::size_t k = 0; k < operand->aval.ndim(); ++k)
    dimensions.push_back(static_cast<std::int64_t>(shape.size() - operand->aval.ndim() + k));
  return bind_broadcast(evaluator, operand, shape, dimensions);
}

Value reshaped(Evaluator& evaluator, const Value& operand, const typecheck::Shape& shape) {
  return apply_reshape(evaluator, operand, std::vector<std::int64_t>(shape.begin(), shape.end()));
}

// x[key] for a tuple of Python slices along every dim, one of them
// [start:stop] on `axis`: through the array's own static indexing.
Value slice_along(Evaluator& evaluator, const ArrayRef& operand, std::size_t axis, std::int64_t start, std::int64_t stop) {
  std::vector<Value> key;
  for (std::size_t d = 0; d < operand->aval.ndim(); ++d)
    key.push_back(d == axis ? Value(std::make_shared<SliceObject>(Value::integer(start), Value::integer(stop), Value()))
                            : Value(std::make_shared<SliceObject>(Value(), Value(), Value())));
  return *operand->get_item(evaluator, make_tuple(std::move(key)));
}

// jnp.split's and lax.split's pieces of `sizes` along `axis` (checked by split_rule).
Value split_pieces(Evaluator& evaluator, const ArrayRef& x, std::size_t axis, const std::vector<std::int64_t>& sizes) {
  (void)checked(typecheck::split_rule(x->aval, sizes, static_cast<std::int64_t>(axis)));
  std::vector<Value> pieces;
  std::int64_t start = 0;
  for (auto size : sizes) {
    pieces.push_back(slice_along(evaluator, x, axis, start, start + size));
    start += size;
  }
  return make_list(std::move(pieces));
}

Value concatenate_arrays(Evaluator& evaluator, std::vector<ArrayRef> operands, std::int64_t axis) {
  if (operands.empty()) raise(exc::ValueError(), "Need at least one array to concatenate.");
  std::vector<typecheck::ElementType> elements;
  for (const auto& a : operands) elements.push_back(a->aval.element_type());
  typecheck::ElementType common = typecheck::result_type(elements);
  if (operands[0]->aval.ndim() == 0) raise(exc::ValueError(), "Zero-dimensional arrays cannot be concatenated.");
  axis = normalized_axis(axis, operands[0]->aval.ndim());
  for (auto& a : operands) a = array_of(apply_astype(evaluator, a, common.dtype));
  if (operands.size() == 1) return Value(operands[0]);
  Params params;
  params.set("dimension", axis);
  return bind(evaluator, primitive("concatenate"), std::move(operands), std::move(params));
}

// `copies` (> 0) copies of `operand` side by side along `axis`, by doubling:
// O(log copies) concatenations, whatever the count.
ArrayRef repeated_along(Evaluator& evaluator, const ArrayRef& operand, std::int64_t axis, std::int64_t copies) {
  ArrayRef result, power = operand;
  for (std::int64_t left = copies; left > 0; left >>= 1) {
    if (left & 1) result = result ? array_of(concatenate_arrays(evaluator, {result, power}, axis)) : power;
    if (left > 1) power = array_of(concatenate_arrays(evaluator, {power, power}, axis));
  }
  return result;
}

std::vector<ArrayRef> arrays_of(Evaluator& evaluator, const Value& sequence) {
  std::vector<ArrayRef> out;
  for (const auto& v : evaluator.to_vector(sequence)) out.push_back(to_array(evaluator, v));
  return out;
}

Value expand_dims(Evaluator& evaluator, const ArrayRef& operand, std::vector<std::int64_t> axes) {
  typecheck::ArrayType type = checked(typecheck::expand_dims_rule(operand->aval, axes));
  std::vector<std::int64_t> dimensions;
  std::size_t out_rank = type.ndim();
  for (auto& a : axes) a = a < 0 ? a + static_cast<std::int64_t>(out_rank) : a;
  for (std::size_t d = 0; d < out_rank; ++d)
    if (std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) == axes.end())
      dimensions.push_back(static_cast<std::int64_t>(d));
  return bind_broadcast(evaluator, operand, type.shape, dimensions);
}

// var(x) = mean(|x - mean(x)|^2) * n / (n - ddof), in floating point.
Value variance(Evaluator& evaluator, const Value& operand_value, const Value& axis, std::int64_t ddof, bool keepdims) {
  ArrayRef x = inexact_operand(evaluator, operand_value);
  Value mean = apply_reduction(evaluator, "mean", Value(x), axis, true);
  Value centered = apply_elementwise(evaluator, primitive("subtract"), {Value(x), mean});
  Value squared = apply_elementwise(evaluator, primitive("multiply"), {centered, centered});
  Value total = apply_reduction(evaluator, "sum", squared, axis, keepdims);
  std::int64_t count = 1;
  if (axis.is_none()) count = devices::element_count(x->aval.shape);
  else
    for (auto a : int_values(evaluator, axis)) count *= x->aval.shape[static_cast<std::size_t>(normalized_axis(a, x->aval.ndim()))];
  return apply_elementwise(evaluator, primitive("divide"), {total, Value::floating(static_cast<double>(count - ddof))});
}

}  // namespace

Value apply_astype(Evaluator& evaluator, const ArrayRef& operand, DType dtype) {
  if (operand->aval.dtype == dtype && !operand->aval.weak_type) return Value(operand);
  Params params;
  params.set("new_dtype", std::string(typecheck::long_name(dtype)));
  return bind(evaluator, primitive("convert_element_type"), {operand}, std::move(params));
}

ArrayRef inexact_operand(Evaluator& evaluator, const Value& operand) {
  ArrayRef x = to_array(evaluator, operand);
  return typecheck::is_floating(x->aval.dtype) ? x : to_array(evaluator, apply_astype(evaluator, x, DType::float32));
}

Value apply_cumsum(Evaluator& evaluator, const Value& operand, const Value& axis_value, const Value& dtype_value,
                   const Value& out) {
  ArrayRef a = to_array(evaluator, operand);
  if (!out.is_none()) raise(exc::NotImplementedError(), "The 'out' argument to jnp.cumsum is not supported");
  if (axis_value.is_none() || a->aval.ndim() == 0) {
    if (auto error = typecheck::check_flattened_cumulative("cumsum", a->aval)) raise_error(*error);
    std::int64_t size = devices::element_count(a->aval.shape);
    if (a->aval.shape != typecheck::Shape{size}) a = to_array(evaluator, apply_reshape(evaluator, Value(a), {size}));
  }
  std::int64_t axis = axis_value.is_none() ? 0 : evaluator.index_of(axis_value);
  std::size_t dim = checked(typecheck::normalize_axis(axis, a->aval.ndim()));
  DType result = a->aval.dtype == DType::bool_ ? DType::int32 : a->aval.dtype;
  DType computation = result;
  if (!dtype_value.is_none()) {
    result = computation = dtype_argument(evaluator, dtype_value);
    if (result == DType::bool_) {
      // Accumulated as integers: the values themselves might cancel.
      if (a->aval.dtype != DType::bool_)
        a = to_array(evaluator, apply_elementwise(evaluator, primitive("not_equal"), {Value(a), Value::integer(0)}));
      computation = DType::int32;
    }
  }
  a = to_array(evaluator, apply_astype(evaluator, a, computation));
  Params params;
  params.set("axis", static_cast<std::int64_t>(dim)).set("reverse", false);
  ArrayRef summed = to_array(evaluator, bind(evaluator, primitive("cumsum"), {a}, std::move(params)));
  return apply_astype(evaluator, summed, result);
}

namespace {

// astype, where, clip and cumsum, and the statistics var and std.
void install_elementwise_operations(ModuleObject& module) {
  module.add_function("cumsum(a, axis=None, dtype=None, out=None)",
                      [](Evaluator& ev, Arguments& a) { return apply_cumsum(ev, a[0], a[1], a[2], a[3]); });
  module.add_function("astype(x, dtype)", [](Evaluator& ev, Arguments& a) {
    return apply_astype(ev, to_array(ev, a[0]), dtype_argument(ev, a[1]));
  });
  module.add_function("where(condition, x=None, y=None, /, *, size=None, fill_value=None)", [self = &module](Evaluator& ev, Arguments& a) {
    // One argument: the condition's nonzero positions (numpy_counting.cpp).
    if (a[1].is_none() && a[2].is_none())
      return Jnp{ev, *self}("nonzero", {a[0]}, {{"size", a[3]}, {"fill_value", a[4]}});
    if (a[1].is_none() || a[2].is_none())
      raise(exc::ValueError(), "Either both or neither of the x and y arguments should be provided to jax.numpy.where, got " +
                                   ev.repr(a[1]) + " and " + ev.repr(a[2]) + ".");
    if (!a[3].is_none() || !a[4].is_none())
      raise(exc::ValueError(), "size and fill_value arguments cannot be used in three-term where function.");
    ArrayRef condition = to_array(ev, a[0]), x = to_array(ev, a[1]), y = to_array(ev, a[2]);
    typecheck::ElementType common = typecheck::result_type(
        std::vector<typecheck::ElementType>{x->aval.element_type(), y->aval.element_type()});
    typecheck::ArrayType result = checked(typecheck::where_rule(condition->aval, x->aval, y->aval, common));
    if (condition->aval.dtype != DType::bool_)
      condition = array_of(apply_elementwise(ev, primitive("not_equal"), {Value(condition), Value::integer(0)}));
    x = array_of(apply_astype(ev, x, common.dtype));
    y = array_of(apply_astype(ev, y, common.dtype));
    typecheck::Shape shape = broadcast_shape({condition, x, y});
    // On an Explicit mesh _broadcast_arrays gives every broadcast operand the
    // common sharding (a scalar branch is laid out like the other branch).
    ArrayRef on_mesh;
    for (const auto& operand : {x, y, condition})
      if (!on_mesh && typecheck::has_explicit_axis(operand->aval.sharding.mesh)) on_mesh = operand;
    std::vector<ArrayRef> operands;
    for (const auto& operand : {condition, y, x}) {
      ArrayRef broadcast = array_of(broadcast_to(ev, operand, shape));
      if (on_mesh && broadcast != operand && !(broadcast->aval.sharding == result.sharding))
        broadcast = array_of(apply_device_put(ev, broadcast, Layout{on_mesh->layout.mesh, result.sharding.dims}, std::nullopt));
      operands.push_back(broadcast);
    }
    return bind(ev, primitive("select_n"), std::move(operands));
  });
  module.add_function("clip(arr, min=None, max=None)", [](Evaluator& ev, Arguments& a) {
    Value out = Value(to_array(ev, a[0]));
    if (!a[1].is_none()) out = apply_elementwise(ev, primitive("maximum"), {a[1], out});
    if (!a[2].is_none()) out = apply_elementwise(ev, primitive("minimum"), {a[2], out});
    return out;
  });
  module.add_function("var(a, axis=None, dtype=None, ddof=0, keepdims=False)", [](Evaluator& ev, Arguments& a) {
    return variance(ev, a[0], a[1], ev.index_of(a[3]), ev.truthy(a[4]));
  });
  module.add_function("std(a, axis=None, dtype=None, ddof=0, keepdims=False)", [](Evaluator& ev, Arguments& a) {
    return apply_elementwise(ev, primitive("sqrt"), {variance(ev, a[0], a[1], ev.index_of(a[3]), ev.truthy(a[4]))});
  });
}

// The functions that move, add, drop or broadcast axes: swapaxes, moveaxis,
// expand_dims, squeeze, broadcast_to, flip and outer.
void install_axis_operations(ModuleObject& module) {
  module.add_function("swapaxes(a, axis1, axis2)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    auto permutation = checked(typecheck::swapaxes_permutation(x->aval.ndim(), ev.index_of(a[1]), ev.index_of(a[2])));
    return apply_transpose(ev, Value(x), permutation);
  });
  module.add_function("moveaxis(a, source, destination)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    auto permutation = checked(typecheck::moveaxis_permutation(x->aval.ndim(), int_values(ev, a[1]), int_values(ev, a[2])));
    return apply_transpose(ev, Value(x), permutation);
  });
  module.add_function("expand_dims(a, axis)", [](Evaluator& ev, Arguments& a) {
    return expand_dims(ev, to_array(ev, a[0]), int_values(ev, a[1]));
  });
  module.add_function("squeeze(a, axis=None)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    std::optional<std::vector<std::int64_t>> axes;
    if (!a[1].is_none()) axes = int_values(ev, a[1]);
    typecheck::ArrayType type = checked(typecheck::squeeze_rule(x->aval, axes));
    return reshaped(ev, Value(x), type.shape);
  });
  module.add_function("broadcast_to(array, shape, *, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    auto sizes = int_values(ev, a[1]);
    std::optional<typecheck::ShardingArg> requested = sharding_argument(a[2]);
    std::optional<typecheck::Sharding> out_sharding;
    typecheck::MeshRef context = runtime_of(ev).context_mesh ? runtime_of(ev).context_mesh->mesh->abstract : nullptr;
    if (requested) out_sharding = checked(typecheck::canonicalize_out_sharding("broadcast_to", *requested, context, sizes));
    typecheck::ArrayType type = checked(typecheck::broadcast_to_rule(x->aval, sizes, out_sharding, context));
    if (!requested) return broadcast_to(ev, x, type.shape);
    std::vector<std::int64_t> dimensions;
    for (std::size_t k = 0; k < x->aval.ndim(); ++k)
      dimensions.push_back(static_cast<std::int64_t>(type.shape.size() - x->aval.ndim() + k));
    Params params;
    params.set("shape", std::vector<std::int64_t>(type.shape.begin(), type.shape.end()));
    params.set("broadcast_dimensions", dimensions);
    params.set("out_sharding", *requested);
    return bind(ev, primitive("broadcast_in_dim"), {x}, std::move(params));
  });
  module.add_function("flip(m, axis=None)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    std::vector<std::int64_t> dimensions;
    if (a[1].is_none())
      for (std::size_t d = 0; d < x->aval.ndim(); ++d) dimensions.push_back(static_cast<std::int64_t>(d));
    else
      for (auto v : int_values(ev, a[1])) dimensions.push_back(normalized_axis(v, x->aval.ndim()));
    Params params;
    params.set("dimensions", dimensions);
    return bind(ev, primitive("rev"), {x}, std::move(params));
  });
  module.add_function("outer(a, b)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]), y = to_array(ev, a[1]);
    Value column = reshaped(ev, Value(x), {devices::element_count(x->aval.shape), 1});
    Value row = reshaped(ev, Value(y), {1, devices::element_count(y->aval.shape)});
    return apply_elementwise(ev, primitive("multiply"), {column, row});
  });
}

// The functions that join arrays or cut them: concatenate, stack, split, roll
// and tile.
void install_joining_operations(ModuleObject& module) {
  module.add_function("concatenate(arrays, axis=0)", [](Evaluator& ev, Arguments& a) {
    return concatenate_arrays(ev, arrays_of(ev, a[0]), ev.index_of(a[1]));
  });
  module.add_function("stack(arrays, axis=0)", [](Evaluator& ev, Arguments& a) {
    auto arrays = arrays_of(ev, a[0]);
    if (arrays.empty()) raise(exc::ValueError(), "Need at least one array to stack.");
    std::vector<typecheck::ArrayType> types;
    for (const auto& x : arrays) types.push_back(x->aval);
    std::int64_t axis = ev.index_of(a[1]);
    (void)checked(typecheck::stack_rule(types, axis));
    std::vector<ArrayRef> expanded;
    for (const auto& x : arrays) expanded.push_back(array_of(expand_dims(ev, x, {axis})));
    return concatenate_arrays(ev, std::move(expanded), axis);
  });
  module.add_function("split(ary, indices_or_sections, axis=0)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    if (x->aval.ndim() == 0) raise(exc::ValueError(), "split of a 0-d array");
    auto axis = static_cast<std::size_t>(normalized_axis(ev.index_of(a[2]), x->aval.ndim()));
    std::int64_t size = x->aval.shape[axis];
    std::vector<std::int64_t> sizes = a[1].is_integral()
                                          ? checked(typecheck::split_sizes_for_sections(size, a[1].as_int()))
                                          : typecheck::split_sizes_for_indices(size, int_values(ev, a[1]));
    return split_pieces(ev, x, axis, sizes);
  });
  // repeat with an int count: each element `repeats` times along the axis
  // (the raveled array when axis is None), by broadcasting a new axis after
  // it and merging the two.
  module.add_function("repeat(a, repeats, axis=None)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    if (!a[1].is_integral())
      raise(exc::NotImplementedError(), "jnp.repeat: shardlang takes an int count of repeats");
    std::int64_t repeats = a[1].as_int();
    if (repeats < 0) raise(exc::ValueError(), "repeats may not contain negative values.");
    if (a[2].is_none()) {
      x = array_of(reshaped(ev, Value(x), {devices::element_count(x->aval.shape)}));
    }
    auto axis = static_cast<std::size_t>(normalized_axis(a[2].is_none() ? 0 : ev.index_of(a[2]), x->aval.ndim()));
    typecheck::Shape spread = x->aval.shape;
    spread.insert(spread.begin() + static_cast<std::ptrdiff_t>(axis) + 1, repeats);
    Value widened = expand_dims(ev, x, {static_cast<std::int64_t>(axis) + 1});
    std::vector<Value> dims;
    for (auto d : spread) dims.push_back(Value::integer(d));
    widened = ev.call(*ev.module("jax.numpy")->find("broadcast_to"), std::vector<Value>{widened, make_tuple(dims)});
    typecheck::Shape merged = x->aval.shape;
    merged[axis] *= repeats;
    return reshaped(ev, widened, merged);
  });
  module.add_function("roll(a, shift, axis=None)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    std::optional<std::vector<std::int64_t>> axes;
    if (!a[2].is_none()) axes = int_values(ev, a[2]);
    (void)checked(typecheck::roll_rule(x->aval, axes));
    auto shifts = int_values(ev, a[1]);
    Value out(x);
    typecheck::Shape shape = x->aval.shape;
    if (!axes) {  // ravel, roll, reshape back
      out = reshaped(ev, out, {devices::element_count(shape)});
      axes = std::vector<std::int64_t>{0};
    }
    if (shifts.size() == 1 && axes->size() > 1) shifts.assign(axes->size(), shifts[0]);
    if (shifts.size() != axes->size()) raise(exc::ValueError(), "roll: shift and axis must have the same length");
    for (std::size_t i = 0; i < axes->size(); ++i) {
      ArrayRef current = array_of(out);
      auto axis = static_cast<std::size_t>(normalized_axis((*axes)[i], current->aval.ndim()));
      std::int64_t n = current->aval.shape[axis];
      if (n == 0) continue;
      std::int64_t k = ((shifts[i] % n) + n) % n;
      if (k == 0) continue;
      std::vector<ArrayRef> parts{array_of(slice_along(ev, current, axis, n - k, n)),
                                  array_of(slice_along(ev, current, axis, 0, n - k))};
      out = concatenate_arrays(ev, std::move(parts), static_cast<std::int64_t>(axis));
    }
    return array_of(out)->aval.shape == shape ? out : reshaped(ev, out, shape);
  });
  module.add_function("tile(A, reps)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    auto reps = int_values(ev, a[1]);
    typecheck::ArrayType type = checked(typecheck::tile_rule(x->aval, reps));
    // Leading dims for reps longer than the rank, then reps copies of each
    // tiled dim side by side: every step keeps the operand's sharding (the
    // rule refuses tiling a sharded dim, as JAX does).
    std::size_t rank = type.ndim();
    std::vector<std::int64_t> leading;
    for (std::size_t d = 0; d + x->aval.ndim() < rank; ++d) leading.push_back(static_cast<std::int64_t>(d));
    ArrayRef out = leading.empty() ? x : array_of(expand_dims(ev, x, leading));
    std::vector<std::int64_t> full_reps(rank - reps.size(), 1);
    full_reps.insert(full_reps.end(), reps.begin(), reps.end());
    for (std::size_t d = 0; d < rank; ++d)
      if (full_reps[d] < 0) raise(exc::ValueError(), "negative dimensions are not allowed");
      else if (full_reps[d] == 0) out = array_of(slice_along(ev, out, d, 0, 0));
      else if (full_reps[d] != 1)
        out = repeated_along(ev, out, static_cast<std::int64_t>(d), full_reps[d]);
    return Value(out);
  });
}

// jax.lax.broadcast_in_dim, convert_element_type, concatenate and rev, and
// the elementwise primitives by their lax names (lax.rsqrt, lax.mul, ...;
// no implicit rank promotion is checked: operands broadcast as jnp's do).
void install_lax_shape_operations(ModuleObject& lax);

void install_lax_structural(ModuleObject& lax) {
  for (const auto& primitive : primitives()) {
    if (!is_elementwise(primitive) || primitive.name == "true_divide" || primitive.name == "floor_divide" ||
        primitive.name.starts_with("logical_"))
      continue;
    const Primitive* p = &primitive;
    // lax.bitwise_and, not lax.and (a keyword): the bitwise family by its jnp name.
    const std::string name(p->name.starts_with("bitwise_") ? p->name : p->lax.name);
    lax.add_function(name + (p->arity == 1 ? "(x, /)" : "(x, y, /)"), [p](Evaluator& ev, Arguments& a) {
      std::vector<Value> operands{a[0]};
      if (p->arity == 2) operands.push_back(a[1]);
      return apply_elementwise(ev, *p, operands);
    });
  }
  // lax.iota: jnp.arange of the size, in the dtype.
  lax.add_function("iota(dtype, size)", [](Evaluator& ev, Arguments& a) {
    CallArgs call{{a[1]}, {{"dtype", a[0]}}};
    return ev.call(*ev.module("jax.numpy")->find("arange"), call);
  });
  lax.add_function("broadcast_in_dim(operand, shape, broadcast_dimensions, out_sharding=None)",
                    [](Evaluator& ev, Arguments& a) {
                      auto sizes = int_values(ev, a[1]);
                      Params params;
                      params.set("shape", sizes);
                      params.set("broadcast_dimensions", int_values(ev, a[2]));
                      if (auto sharding = sharding_argument(a[3])) params.set("out_sharding", *sharding);
                      return bind(ev, primitive("broadcast_in_dim"), {to_array(ev, a[0])}, std::move(params));
                    });
  lax.add_function("convert_element_type(operand, new_dtype)", [](Evaluator& ev, Arguments& a) {
    return apply_astype(ev, to_array(ev, a[0]), dtype_argument(ev, a[1]));
  });
  lax.add_function("concatenate(operands, dimension)", [](Evaluator& ev, Arguments& a) {
    return concatenate_arrays(ev, arrays_of(ev, a[0]), ev.index_of(a[1]));
  });
  lax.add_function("cumsum(operand, axis=0, reverse=False)", [](Evaluator& ev, Arguments& a) {
    Params params;
    params.set("axis", ev.index_of(a[1])).set("reverse", ev.truthy(a[2]));
    return bind(ev, primitive("cumsum"), {to_array(ev, a[0])}, std::move(params));
  });
  lax.add_function("stop_gradient(x)", [](Evaluator& ev, Arguments& a) {
    return tree_map(ev, a[0], [&](const Value& leaf) {
      return bind(ev, primitive("stop_gradient"), {to_array(ev, leaf)});
    });
  });
  // lax.optimization_barrier(operand): each leaf of the pytree through the
  // optimization_barrier primitive (jit keeps it: nothing is moved across it).
  lax.add_function("optimization_barrier(operand, /)", [](Evaluator& ev, Arguments& a) {
    return tree_map(ev, a[0], [&](const Value& leaf) {
      return bind(ev, primitive("optimization_barrier"), {to_array(ev, leaf)});
    });
  });
  lax.add_function("clamp(min, x, max)", [](Evaluator& ev, Arguments& a) {
    return bind(ev, primitive("clamp"), {to_array(ev, a[0]), to_array(ev, a[1]), to_array(ev, a[2])});
  });
  lax.add_function("reduce_precision(operand, exponent_bits, mantissa_bits)", [](Evaluator& ev, Arguments& a) {
    Params params;
    params.set("exponent_bits", ev.index_of(a[1]));
    params.set("mantissa_bits", ev.index_of(a[2]));
    return bind(ev, primitive("reduce_precision"), {to_array(ev, a[0])}, std::move(params));
  });
  lax.add_function("integer_pow(x, y, /)", [](Evaluator& ev, Arguments& a) {
    if (!a[1].is_integral()) raise(exc::TypeError(), "integer_pow's exponent y must be an int, got " + ev.repr(a[1]));
    Params params;
    params.set("y", a[1].as_int());
    return bind(ev, primitive("integer_pow"), {to_array(ev, a[0])}, std::move(params));
  });
  lax.add_function("rev(operand, dimensions)", [](Evaluator& ev, Arguments& a) {
    Params params;
    params.set("dimensions", int_values(ev, a[1]));
    return bind(ev, primitive("rev"), {to_array(ev, a[0])}, std::move(params));
  });
  // lax.reduce_sum/max/min(operand, axes, *, out_sharding) and reduce_prod:
  // the reduction primitives over the axes given.
  for (const char* name : {"sum", "max", "min", "prod"}) {
    std::string reduction(name);
    lax.add_function("reduce_" + reduction + (reduction == "prod" ? "(operand, axes)" : "(operand, axes, *, out_sharding=None)"),
                     [reduction](Evaluator& ev, Arguments& a) {
                       Params params;
                       params.set("axes", int_values(ev, a[1])).set("keepdims", false);
                       if (reduction != "prod")
                         if (auto sharding = sharding_argument(a[2])) params.set("out_sharding", *sharding);
                       return bind(ev, primitive("reduce_" + reduction), {to_array(ev, a[0])}, std::move(params));
                     });
  }
  lax.add_function("transpose(operand, permutation)", [](Evaluator& ev, Arguments& a) {
    std::vector<int> permutation;
    for (auto d : int_values(ev, a[1])) permutation.push_back(static_cast<int>(d));
    return apply_transpose(ev, Value(to_array(ev, a[0])), permutation);
  });
  // lax.full and full_like: jnp.full's array, `sharding` its out_sharding.
  lax.add_function("full(shape, fill_value, dtype=None, *, sharding=None)", [](Evaluator& ev, Arguments& a) {
    CallArgs call{{a[0], a[1], a[2]}, {{"out_sharding", a[3]}}};
    return ev.call(*ev.module("jax.numpy")->find("full"), call);
  });
  lax.add_function("full_like(x, fill_value, dtype=None, shape=None, sharding=None)", [](Evaluator& ev, Arguments& a) {
    if (a[3].is_none()) {
      CallArgs call{{a[0], a[1], a[2]}, {{"out_sharding", a[4]}}};
      return ev.call(*ev.module("jax.numpy")->find("full_like"), call);
    }
    Value dtype = a[2].is_none() ? make_str(std::string(typecheck::long_name(to_array(ev, a[0])->aval.dtype))) : a[2];
    CallArgs call{{a[3], a[1], dtype}, {{"out_sharding", a[4]}}};
    return ev.call(*ev.module("jax.numpy")->find("full"), call);
  });
  install_lax_shape_operations(lax);
}

// lax.reshape, squeeze, slice, split, select and broadcasted_iota, on the
// jnp operations with lax's own checks.
Value shape_tuple(const std::vector<std::int64_t>& shape) {
  std::vector<Value> items;
  for (auto d : shape) items.push_back(Value::integer(d));
  return make_tuple(std::move(items));
}

void install_lax_shape_operations(ModuleObject& lax) {
  // `dimensions` transposes the operand first.
  lax.add_function("reshape(operand, new_sizes, dimensions=None, *, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    Value operand(to_array(ev, a[0]));
    if (!a[2].is_none()) {
      std::vector<int> permutation;
      for (auto d : int_values(ev, a[2])) permutation.push_back(static_cast<int>(d));
      operand = apply_transpose(ev, operand, permutation);
    }
    return apply_reshape(ev, operand, int_values(ev, a[1]), a[3]);
  });
  lax.add_function("squeeze(array, dimensions)", [](Evaluator& ev, Arguments& a) {
    CallArgs call{{a[0]}, {{"axis", make_tuple(ev.to_vector(a[1]))}}};
    return ev.call(*ev.module("jax.numpy")->find("squeeze"), call);
  });
  lax.add_function("slice(operand, start_indices, limit_indices, strides=None)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    auto start = int_values(ev, a[1]), limit = int_values(ev, a[2]);
    std::vector<std::int64_t> strides = a[3].is_none() ? std::vector<std::int64_t>(start.size(), 1) : int_values(ev, a[3]);
    (void)checked(typecheck::slice_rule(x->aval, start, limit, strides));
    std::vector<Value> key;
    for (std::size_t d = 0; d < start.size(); ++d)
      key.push_back(Value(std::make_shared<SliceObject>(Value::integer(start[d]), Value::integer(limit[d]),
                                                         Value::integer(strides[d]))));
    return *x->get_item(ev, make_tuple(std::move(key)));
  });
  lax.add_function("split(operand, sizes, axis=0)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    auto axis = static_cast<std::size_t>(normalized_axis(ev.index_of(a[2]), x->aval.ndim()));
    std::vector<std::int64_t> sizes = int_values(ev, a[1]);
    return split_pieces(ev, x, axis, sizes);
  });
  lax.add_function("select(pred, on_true, on_false)", [](Evaluator& ev, Arguments& a) {
    ArrayRef on_true = to_array(ev, a[1]), on_false = to_array(ev, a[2]);
    if (on_true->aval.shape != on_false->aval.shape)
      raise(exc::TypeError(), "select cases must have the same shapes, got [" + ev.repr(shape_tuple(on_true->aval.shape)) +
                                  ", " + ev.repr(shape_tuple(on_false->aval.shape)) + "].");
    return ev.call(*ev.module("jax.numpy")->find("where"), std::vector<Value>{a[0], Value(on_true), Value(on_false)});
  });
  lax.add_function("broadcasted_iota(dtype, shape, dimension, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    std::vector<std::int64_t> shape = int_values(ev, a[1]);
    auto dimension = static_cast<std::size_t>(normalized_axis(ev.index_of(a[2]), shape.size()));
    CallArgs range{{Value::integer(shape.at(dimension))}, {{"dtype", a[0]}}};
    Value iota = ev.call(*ev.module("jax.numpy")->find("arange"), range);
    std::vector<std::int64_t> column(shape.size(), 1);
    column[dimension] = shape[dimension];
    iota = reshaped(ev, iota, column);
    Value out = ev.call(*ev.module("jax.numpy")->find("broadcast_to"), std::vector<Value>{iota, shape_tuple(shape)});
    if (a[3].is_none()) return out;
    return ev.call(*ev.module("jax")->find("reshard"), std::vector<Value>{out, a[3]});
  });
}

}  // namespace

void install_array_operations(Evaluator& evaluator, ModuleObject& module, bool is_jnp) {
  install_elementwise_operations(module);
  install_axis_operations(module);
  install_joining_operations(module);
  install_structured_operations(evaluator, module, is_jnp);
  install_array_building_operations(evaluator, module);
  install_reduction_operations(evaluator, module);
  install_scan_operations(evaluator, module, is_jnp);
  install_counting_operations(evaluator, module);
  if (is_jnp) install_lax_structural(*evaluator.module("jax.lax"));
  install_sorting_operations(evaluator, module, is_jnp);
  install_math_operations(evaluator, module, is_jnp);  // after: lax.round replaces the primitive's member
  install_dtype_functions(module);
  install_nan_reductions(module);
  install_index_tools(module);
}

}  // namespace interp
