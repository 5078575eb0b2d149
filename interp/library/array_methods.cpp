// The array object's protocols (operators, attributes, methods, printing),
// dtype objects, and turning host values into arrays (array.hpp).
#include <algorithm>
#include <cmath>
#include <functional>

#include "devices/array_text.hpp"
#include "devices/host_values.hpp"
#include "interp/ops/array.hpp"
#include "interp/python/builtins.hpp"
#include "interp/ops/collectives.hpp"
#include "interp/ops/contractions.hpp"
#include "interp/transforms/check_mode.hpp"
#include "interp/ops/indexing_ops.hpp"
#include "interp/library/multihost.hpp"
#include "interp/library/numpy_module.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/ops/shaped_array.hpp"
#include "interp/ops/vjp_support.hpp"
#include "interp/transforms/trace.hpp"
#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shape_arithmetic.hpp"
#include "typecheck/shape_rules.hpp"
#include "typecheck/structural_rules.hpp"

namespace interp {

using typecheck::DType;

// ------------------------------------------------------------ dtypes

const TypeRef& DTypeObject::type() const {
  static const TypeRef type = make_type("dtype");
  return type;
}
std::string DTypeObject::repr(Evaluator&) const { return "dtype('" + std::string(typecheck::long_name(dtype)) + "')"; }
std::string DTypeObject::str(Evaluator&) const { return std::string(typecheck::long_name(dtype)); }

std::optional<Value> DTypeObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "name") return make_str(std::string(typecheck::long_name(dtype)));
  if (name == "itemsize") return Value::integer(typecheck::byte_size(dtype));
  // NumPy's kind codes; bfloat16 is ml_dtypes' 'V' (a NumPy extension type).
  if (name == "kind") {
    if (dtype == DType::bfloat16) return make_str("V");
    if (typecheck::is_floating(dtype)) return make_str("f");
    if (dtype == DType::uint32) return make_str("u");
    return make_str(dtype == DType::bool_ ? "b" : "i");
  }
  // jnp.float32 is both the dtype and its scalar type: the type's name and
  // its `.dtype` (jnp.bfloat16.__name__, jnp.float32.dtype).
  if (name == "type" || name == "dtype") return Value(std::make_shared<DTypeObject>(dtype));
  if (name == "__name__") return make_str(dtype == DType::bool_ ? "bool" : std::string(typecheck::long_name(dtype)));
  return Object::get_attribute(evaluator, name);
}

Value DTypeObject::call(Evaluator& evaluator, CallArgs& args) {
  if (args.positional.size() != 1) raise(exc::TypeError(), std::string(typecheck::long_name(dtype)) + "() takes one argument");
  return Value(to_array(evaluator, args.positional[0], dtype));
}

bool DTypeObject::equals(const Value& other) const {
  if (auto* d = other.as<DTypeObject>()) return d->dtype == dtype;
  if (auto* s = string_of(other)) return typecheck::parse_dtype(*s) == dtype;
  return false;
}

std::optional<Value> DTypeObject::compare(Evaluator&, lang::ast::CompareOperator op, const Value& other, bool) {
  using Op = lang::ast::CompareOperator;
  if (op == Op::eq) return Value::boolean(equals(other));
  if (op == Op::not_eq_) return Value::boolean(!equals(other));
  return std::nullopt;
}

DType dtype_argument(Evaluator& evaluator, const Value& value) {
  if (auto* d = value.as<DTypeObject>()) return d->dtype;
  if (auto* s = string_of(value))
    if (auto parsed = typecheck::parse_dtype(*s)) return *parsed;
  if (auto* t = value.as<TypeObject>()) {
    if (t->name() == "float") return DType::float32;
    if (t->name() == "int") return DType::int32;
    if (t->name() == "bool") return DType::bool_;
  }
  raise(exc::TypeError(), "data type " + evaluator.repr(value) + " not understood");
}

// ------------------------------------------------------------ host values to arrays

bool is_array_like(const Value& value) {
  return value.is_number() || value.as<ArrayObject>() || value.as<ListObject>() || value.as<TupleObject>();
}

namespace {

// Flattens nested lists/tuples of numbers and arrays; records the shape.
void flatten(Evaluator& evaluator, const Value& value, std::size_t depth, typecheck::Shape& shape,
             std::vector<double>& out, bool& any_float, bool& all_bool) {
  auto note_dim = [&](std::int64_t n) {
    if (shape.size() == depth) shape.push_back(n);
    else if (shape[depth] != n) raise(exc::ValueError(), "setting an array element with a sequence. The requested array has an inhomogeneous shape");
  };
  if (auto* a = value.as<ArrayObject>()) {
    for (std::size_t i = 0; i < a->aval.ndim(); ++i) {
      if (shape.size() == depth + i) shape.push_back(a->aval.shape[i]);
    }
    if (typecheck::is_floating(a->aval.dtype)) any_float = true;
    if (a->aval.dtype != DType::bool_) all_bool = false;
    if (!a->abstract()) {
      auto values = element_values(evaluator, *a);
      out.insert(out.end(), values.begin(), values.end());
    }
    return;
  }
  if (value.as<ListObject>() || value.as<TupleObject>()) {
    auto items = evaluator.to_vector(value);
    note_dim(static_cast<std::int64_t>(items.size()));
    for (const auto& item : items) flatten(evaluator, item, depth + 1, shape, out, any_float, all_bool);
    return;
  }
  if (is_unknown(value)) {  // check mode's host number of unknown value (float(x) of an abstract x)
    any_float = true;
    all_bool = false;
    return;  // no element: the array made is abstract
  }
  if (!value.is_number()) raise(exc::TypeError(), "Value " + evaluator.repr(value) + " with type " + type_name(value) + " is not a valid JAX type");
  if (value.is_float()) any_float = true;
  if (!value.is_bool()) all_bool = false;
  out.push_back(value.as_float());
}

bool holds_traced_array(Evaluator& evaluator, const Value& value) {
  if (auto* a = value.as<ArrayObject>()) return a->abstract();
  if (!value.as<ListObject>() && !value.as<TupleObject>()) return false;
  for (const auto& item : evaluator.to_vector(value))
    if (holds_traced_array(evaluator, item)) return true;
  return false;
}

// A nested sequence holding traced arrays, stacked by primitives so that
// the traces see it (jnp.array([x[0], 2 * x[1]]) under jit and grad).
ArrayRef stack_items(Evaluator& evaluator, const Value& value, DType dtype) {
  if (!value.as<ListObject>() && !value.as<TupleObject>()) return vjp::convert(evaluator, to_array(evaluator, value), dtype);
  std::vector<ArrayRef> parts;
  for (const auto& item : evaluator.to_vector(value)) {
    ArrayRef part = stack_items(evaluator, item, dtype);
    typecheck::Shape shape{1};
    shape.insert(shape.end(), part->aval.shape.begin(), part->aval.shape.end());
    parts.push_back(vjp::reshape(evaluator, part, shape));
  }
  return parts.size() == 1 ? parts[0] : vjp::concatenate(evaluator, parts, 0);
}

// Host values as an array of `dtype`: made as int32, or as float32 when any
// is a float or `dtype` is floating (the types from_values makes), then
// converted.
devices::LocalArray values_on_host(Evaluator& evaluator, std::span<const double> values, bool any_float, DType dtype,
                                   const typecheck::Shape& shape) {
  const DType staging = !any_float && !typecheck::is_floating(dtype) ? DType::int32 : DType::float32;
  devices::LocalArray global = value_or_raise(devices::from_values(runtime_of(evaluator).ledger(), staging, shape, values));
  if (staging == dtype) return global;
  return value_or_raise(devices::convert(global, dtype));
}

}  // namespace

ArrayRef to_array(Evaluator& evaluator, const Value& value, std::optional<DType> dtype) {
  if (value.as<ArrayObject>()) {
    auto self_ref = std::static_pointer_cast<ArrayObject>(value.object());
    if (!dtype || self_ref->aval.dtype == *dtype) return self_ref;
    // The primitive, so that a jit trace records the conversion (jnp.asarray(x, dtype=) of a tracer).
    return std::static_pointer_cast<ArrayObject>(apply_astype(evaluator, self_ref, *dtype).object());
  }
  // Check mode's unknown (a value computed from array data) may be an array
  // of any shape: a statement that makes it one cannot be followed.
  if (is_unknown(value)) stop_checking(evaluator);
  typecheck::Shape shape;
  std::vector<double> values;
  bool any_float = false, all_bool = true;
  flatten(evaluator, value, 0, shape, values, any_float, all_bool);
  bool scalar = value.is_number();
  typecheck::ArrayType aval;
  aval.dtype = dtype ? *dtype : any_float ? DType::float32 : all_bool ? DType::bool_ : DType::int32;
  aval.weak_type = scalar && !dtype && !value.is_bool();
  aval.shape = shape;
  aval.sharding = typecheck::Sharding::replicated(nullptr, shape.size());
  if (!scalar && holds_traced_array(evaluator, value)) return stack_items(evaluator, value, aval.dtype);
  if (evaluator.mode == Evaluator::Mode::check && values.size() != static_cast<std::size_t>(devices::element_count(shape)))
    return make_abstract_array(aval, default_layout(evaluator, shape.size()), false);
  return host_array(evaluator, aval, [&]() {
    // An abstract array inside (under a jit trace) has no values: its elements are zeros.
    values.resize(static_cast<std::size_t>(devices::element_count(shape)));
    return values_on_host(evaluator, values, any_float, aval.dtype, shape);
  });
}

ArrayRef number_beside(Evaluator& evaluator, const Value& number, const ArrayObject& array) {
  const typecheck::ElementType own{number.is_float() ? DType::float32 : number.is_bool() ? DType::bool_ : DType::int32,
                                   !number.is_bool()};
  const typecheck::ElementType common = typecheck::result_type(array.aval.element_type(), own);
  typecheck::ArrayType aval;
  aval.dtype = common.dtype;
  aval.weak_type = common.weak_type;
  aval.sharding = typecheck::Sharding::replicated(nullptr, 0);
  const double value = number.as_float();
  devices::LocalArray global = values_on_host(evaluator, {&value, 1}, number.is_float(), aval.dtype, {});
  return array_from_global(evaluator, global, std::move(aval), Layout{array.layout.mesh, {}}, false);
}

// ------------------------------------------------------------ ArrayObject

const TypeRef& array_type() {
  static const TypeRef type = make_type("ArrayImpl");
  return type;
}

const TypeRef& ArrayObject::type() const { return array_type(); }

namespace {
// A value in an eager shard_map body, as JAX prints one: each device's block
// under its mesh coordinates.
std::string blocks_text(Evaluator& evaluator, const ArrayObject& array) {
  const DeviceMesh& mesh = *array.layout.mesh;
  std::string names;
  for (const auto& axis : mesh.abstract->axes()) names += axis.name + ", ";
  auto self = std::static_pointer_cast<ArrayObject>(const_cast<ArrayObject&>(array).self());
  std::string text;
  for (std::size_t p = 0; p < mesh.devices.size(); ++p) {
    std::string index;
    for (int c : mesh.coordinates(static_cast<int>(p))) index += (index.empty() ? "" : ", ") + std::to_string(c);
    if (mesh.shape.size() == 1) index += ",";
    text += (p ? "\n" : "") + std::string("On ") + evaluator.str(Value(std::make_shared<DeviceObject>(mesh.devices[p]))) +
            " at mesh coordinates (" + names.substr(0, names.size() - 1) + ") = (" + index + "):\n" +
            evaluator.str(Value(block_at(evaluator, self, p))) + "\n";
  }
  return text;
}

std::string array_text(Evaluator& evaluator, const ArrayObject& array, bool as_repr) {
  if (array.abstract()) return "Array(" + array.aval.str() + ")";
  if (on_manual_mesh(array)) return blocks_text(evaluator, array);
  // An unreduced array's devices hold partial sums, not its value: JAX
  // prints its shape and sharding (str and repr alike).
  if (!array.aval.sharding.unreduced.empty()) {
    Value sharding = *const_cast<ArrayObject&>(array).get_attribute(evaluator, "sharding");
    return "Array(shape=" + typecheck::python_shape_repr(array.aval.shape) + ", dtype=" +
           std::string(typecheck::long_name(array.aval.dtype)) + (array.aval.weak_type ? ", weak_type=True" : "") +
           ", sharding=" + evaluator.repr(sharding) + ")";
  }
  auto global = global_value(evaluator, array);
  auto text = as_repr ? devices::array_repr(array.aval.dtype, array.aval.shape, devices::element_bytes(global),
                                           array.aval.weak_type)
                      : devices::array_str(array.aval.dtype, array.aval.shape, devices::element_bytes(global));
  if (!text) raise_devices_error(text.error());
  return *text;
}

std::vector<std::int64_t> size_arguments(Evaluator& evaluator, const std::vector<Value>& rest) {
  std::vector<std::int64_t> out;
  if (rest.size() == 1 && !rest[0].is_integral()) {
    for (const auto& v : evaluator.to_vector(rest[0])) out.push_back(evaluator.index_of(v));
    return out;
  }
  for (const auto& v : rest) out.push_back(evaluator.index_of(v));
  return out;
}

Value jnp_member(Evaluator& evaluator, const std::string& name) {
  return *evaluator.module("jax.numpy")->get_attribute(evaluator, name);
}

// x.tolist(): nested lists of Python scalars; a traced array has no values.
Value array_tolist(Evaluator& evaluator, const ArrayObject& array) {
  if (array.abstract()) {
    if (evaluator.mode != Evaluator::Mode::run) return unknown_value();
    std::string what = "traced array with shape " + array.aval.format({.short_dtypes = false, .weak_marker = false});
    raise(concretization_type_error(), "Abstract tracer value encountered where concrete value is expected: " + what +
                                           "\nThe tolist() method was called on " + what + ".\n");
  }
  std::vector<double> values = element_values(evaluator, array);
  auto scalar = [&](double v) {
    if (array.aval.dtype == DType::bool_) return Value::boolean(v != 0);
    if (typecheck::is_floating(array.aval.dtype)) return Value::floating(v);
    return Value::integer(static_cast<std::int64_t>(v));
  };
  std::size_t next = 0;
  std::function<Value(std::size_t)> build = [&](std::size_t dim) -> Value {
    if (dim == array.aval.ndim()) return scalar(values[next++]);
    std::vector<Value> items;
    for (std::int64_t i = 0; i < array.aval.shape[dim]; ++i) items.push_back(build(dim + 1));
    return make_list(std::move(items));
  };
  return build(0);
}

const std::vector<std::string>& array_attribute_names() {
  static const std::vector<std::string> names{"T", "addressable_data", "addressable_shards", "all", "any", "argsort", "astype", "at", "aval", "block_until_ready", "clip", "copy", "cumsum",
                                              "dtype", "is_fully_addressable", "item", "itemsize", "max", "mean", "min", "nbytes", "ndim", "repeat", "reshape",
                                              "ravel", "round", "shape", "sharding", "size", "sort", "squeeze", "std", "sum", "swapaxes", "take", "tolist",
                                              "transpose", "var"};
  return names;
}
}  // namespace

Value shape_value(const typecheck::Shape& shape) {
  std::vector<Value> items;
  for (auto s : shape) items.push_back(Value::integer(s));
  return make_tuple(std::move(items));
}

std::string ArrayObject::repr(Evaluator& evaluator) const { return array_text(evaluator, *this, true); }
std::string ArrayObject::str(Evaluator& evaluator) const { return array_text(evaluator, *this, false); }
std::vector<std::string> ArrayObject::attribute_names() const { return array_attribute_names(); }

std::optional<Value> ArrayObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  auto self_ref = std::static_pointer_cast<ArrayObject>(self());
  if (name == "shape") return shape_value(aval.shape);
  if (name == "dtype") return Value(std::make_shared<DTypeObject>(aval.dtype));
  if (name == "ndim") return Value::integer(static_cast<std::int64_t>(aval.ndim()));
  if (name == "size") return Value::integer(devices::element_count(aval.shape));
  if (name == "itemsize") return Value::integer(typecheck::byte_size(aval.dtype));
  if (name == "nbytes") {
    auto bytes = typecheck::checked_multiply(devices::element_count(aval.shape), typecheck::byte_size(aval.dtype));
    if (!bytes) raise(exc::OverflowError(), "the array's size in bytes does not fit in 64 bits");
    return Value::integer(*bytes);
  }
  if (name == "sharding") {
    if (requested_spec) return Value(std::make_shared<NamedShardingObject>(layout.mesh, *requested_spec));
    // Unreduced and reduced axes live in the type, not in the layout.
    if (!aval.sharding.unreduced.empty() || !aval.sharding.reduced.empty())
      return Value(std::make_shared<NamedShardingObject>(
          layout.mesh, typecheck::PartitionSpec::from_entries(layout.dims, aval.sharding.unreduced, aval.sharding.reduced)));
    return sharding_value(layout);
  }
  if (name == "committed") return Value::boolean(committed);
  if (name == "aval") return shaped_array(self_ref);
  if (name == "addressable_shards") return addressable_shards(evaluator, self_ref);
  if (name == "is_fully_addressable") return Value::boolean(is_fully_addressable(evaluator, *this));
  if (name == "at") return at_indexer(self_ref);
  if (name == "val")  // JAX's BatchTracer.val: inside a vmap, the batch a traced value stands for
    for (auto axis = runtime_of(evaluator).batch_axes.rbegin(); axis != runtime_of(evaluator).batch_axes.rend(); ++axis)
      if (axis->batched_value)
        if (auto batched = axis->batched_value(evaluator, *this)) return Value(batched);
  if (name == "__abs__")
    return Value(native("__abs__()", [self_ref](Evaluator& ev, Arguments&) {
      return apply_elementwise(ev, primitive("abs"), {Value(self_ref)});
    }));
  if (name == "T") return apply_transpose(evaluator, Value(self_ref), typecheck::reversed_permutation(aval.ndim()));
  if (name == "item")
    return Value(native("item()", [self_ref](Evaluator& ev, Arguments&) {
      return *host_scalar_of(ev, Value(self_ref), HostScalar::item);
    }));
  if (name == "tolist")
    return Value(native("tolist()", [self_ref](Evaluator& ev, Arguments&) { return array_tolist(ev, *self_ref); }));
  if (name == "block_until_ready")
    return Value(native("block_until_ready()", [self_ref](Evaluator&, Arguments&) { return Value(self_ref); }));
  if (name == "copy")
    return Value(native("copy()", [self_ref](Evaluator& ev, Arguments&) {
      return Value(relayout(ev, self_ref, self_ref->layout));
    }));
  if (name == "astype")
    return Value(native("astype(dtype)", [self_ref](Evaluator& ev, Arguments& a) {
      return apply_astype(ev, self_ref, dtype_argument(ev, a[0]));
    }));
  if (name == "reshape")
    return Value(native("reshape(*shape, out_sharding=None)", [self_ref](Evaluator& ev, Arguments& a) {
      return apply_reshape(ev, Value(self_ref), size_arguments(ev, a[0].as<TupleObject>()->items), a[1]);
    }));
  if (name == "transpose")
    return Value(native("transpose(*axes)", [self_ref](Evaluator& ev, Arguments& a) {
      const auto& rest = a[0].as<TupleObject>()->items;
      std::vector<int> permutation;
      if (rest.empty()) permutation = typecheck::reversed_permutation(self_ref->aval.ndim());
      else
        for (auto v : size_arguments(ev, rest)) permutation.push_back(static_cast<int>(v));
      return apply_transpose(ev, Value(self_ref), permutation);
    }));
  if (name == "cumsum")
    return Value(native("cumsum(axis=None, dtype=None, out=None)", [self_ref](Evaluator& ev, Arguments& a) {
      return apply_cumsum(ev, Value(self_ref), a[0], a[1], a[2]);
    }));
  if (name == "addressable_data")
    return Value(native("addressable_data(index)", [self_ref](Evaluator& ev, Arguments& a) {
      if (self_ref->abstract()) {  // check mode: a block of the shard shape
        typecheck::ArrayType block = self_ref->aval;
        block.shape = self_ref->layout.shard_shape(block.shape);
        block.sharding = typecheck::Sharding::replicated(nullptr, block.shape.size());
        return Value(make_abstract_array(block, default_layout(ev, block.shape.size()), true));
      }
      Value shards = addressable_shards(ev, self_ref);
      Value shard = ev.get_item(shards, a[0]);
      return ev.get_attribute(shard, "data");
    }));
  // Methods that are the jnp function of the array: x.all() is jnp.all(x).
  for (const char* function : {"all", "any", "argmax", "argmin", "argsort", "clip", "max", "mean", "min", "prod", "ravel",
                               "repeat", "round", "sort", "squeeze", "std", "sum", "swapaxes", "take", "var"})
    if (name == function)
      return Value(native(name + "(*args, **kwargs)", [self_ref, name](Evaluator& ev, Arguments& a) {
        CallArgs call{{Value(self_ref)}, {}};
        for (const auto& arg : a[0].as<TupleObject>()->items) call.positional.push_back(arg);
        if (auto* keywords = a[1].as<DictObject>())
          for (const auto& entry : keywords->table.entries())
            if (entry.live) call.keywords.emplace_back(ev.str(entry.key), entry.value);
        return ev.call(*ev.module("jax.numpy")->find(name), call);
      }));
  return Object::get_attribute(evaluator, name);
}

std::optional<Value> ArrayObject::binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                            bool reflected) {
  using Op = lang::ast::BinaryOperator;
  if (!is_array_like(other)) return std::nullopt;
  if (op == Op::matmult) return reflected ? apply_matmul(evaluator, other, Value(self()))
                                          : apply_matmul(evaluator, Value(self()), other);
  if (op == Op::mod) {  // jnp.remainder, composed (Python's sign rule)
    Value remainder = jnp_member(evaluator, "remainder");
    CallArgs args{reflected ? std::vector<Value>{other, Value(self())} : std::vector<Value>{Value(self()), other}, {}};
    return evaluator.call(remainder, args);
  }
  // Each operator's primitive, found once (an eager loop applies them per iteration).
  static const std::pair<Op, const Primitive*> elementwise_operators[] = {
      {Op::add, &primitive("add")},           {Op::sub, &primitive("subtract")},
      {Op::mult, &primitive("multiply")},     {Op::div, &primitive("divide")},
      {Op::floordiv, &primitive("floor_divide")}, {Op::pow, &primitive("power")},
      {Op::bitand_, &primitive("bitwise_and")},   {Op::bitor_, &primitive("bitwise_or")},
      {Op::bitxor, &primitive("bitwise_xor")}};
  auto found = std::find_if(std::begin(elementwise_operators), std::end(elementwise_operators),
                            [&](const auto& entry) { return entry.first == op; });
  if (found == std::end(elementwise_operators)) return std::nullopt;
  const Primitive& elementwise = *found->second;
  return reflected ? apply_elementwise(evaluator, elementwise, {other, Value(self())})
                   : apply_elementwise(evaluator, elementwise, {Value(self()), other});
}

std::optional<Value> ArrayObject::unary_op(Evaluator& evaluator, lang::ast::UnaryOperator op) {
  using Op = lang::ast::UnaryOperator;
  if (op == Op::usub) return apply_elementwise(evaluator, primitive("negative"), {Value(self())});
  if (op == Op::uadd) return Value(self());
  if (op == Op::invert) return apply_elementwise(evaluator, primitive("bitwise_not"), {Value(self())});
  return std::nullopt;
}

std::optional<Value> ArrayObject::compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other, bool) {
  using Op = lang::ast::CompareOperator;
  if (!is_array_like(other)) return std::nullopt;
  const char* name = nullptr;
  switch (op) {
    case Op::eq: name = "equal"; break;
    case Op::not_eq_: name = "not_equal"; break;
    case Op::lt: name = "less"; break;
    case Op::lt_e: name = "less_equal"; break;
    case Op::gt: name = "greater"; break;
    case Op::gt_e: name = "greater_equal"; break;
    default: return std::nullopt;
  }
  return apply_elementwise(evaluator, primitive(name), {Value(self()), other});
}

std::optional<std::int64_t> ArrayObject::length(Evaluator&) const {
  if (aval.shape.empty()) raise(exc::TypeError(), "len() of unsized object");
  return aval.shape[0];
}

const TypeRef& concretization_type_error() {
  static const TypeRef type = make_type("ConcretizationTypeError", exc::TypeError());
  return type;
}

const TypeRef& tracer_bool_conversion_error() {
  static const TypeRef type = make_type("TracerBoolConversionError", concretization_type_error());
  return type;
}

// A traced array's value where eager differentiation's trace computed it
// (as JAX's eager grad knows its primals); null otherwise.
ArrayRef known_value(Evaluator& evaluator, const ArrayObject& array) {
  for (Trace* trace : runtime_of(evaluator).trace_stack)
    if (auto* jit = dynamic_cast<JitTrace*>(trace))
      if (ArrayRef known = jit->concrete_value(array)) return known;
  return nullptr;
}

ArrayRef concrete_or_error(Evaluator& evaluator, const ArrayRef& array, const std::string& context) {
  if (!array->abstract()) return array;
  if (ArrayRef known = known_value(evaluator, *array)) return known;
  if (evaluator.mode == Evaluator::Mode::run || tracing_jit(evaluator) || checking_jitted_body(evaluator))
    raise(concretization_type_error(), "Abstract tracer value encountered where concrete value is expected: traced array "
                                       "with shape " + array->aval.format({.short_dtypes = false, .weak_marker = false}) +
                                           "\n" + context + "\n");
  return nullptr;
}

bool ArrayObject::truthy(Evaluator& evaluator) const {
  if (devices::element_count(aval.shape) != 1)
    raise(exc::ValueError(), "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
  if (abstract()) {
    // A value eager differentiation's trace computed decides, as in JAX's eager grad.
    if (ArrayRef known = known_value(evaluator, *this)) return element_values(evaluator, *known)[0] != 0;
    if (evaluator.mode == Evaluator::Mode::run && !poisoned)
      raise(tracer_bool_conversion_error(), "Attempted boolean conversion of traced array with shape " + aval.short_str() +
                                                ".\nSee https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError");
    return false;
  }
  return element_values(evaluator, *this)[0] != 0;
}

std::optional<Value> ArrayObject::get_item(Evaluator& evaluator, const Value& key) {
  if (key.as<ListObject>())  // JAX refuses what NumPy reads by heuristics
    raise(exc::TypeError(), "Using a non-tuple sequence for multidimensional indexing is not allowed; use `arr[array(seq)]` "
                            "instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 for more information.");
  if (has_index_arrays(key)) return advanced_index(evaluator, std::static_pointer_cast<ArrayObject>(self()), key);
  std::vector<Value> keys = key.as<TupleObject>() ? key.as<TupleObject>()->items : std::vector<Value>{key};
  std::vector<typecheck::IndexItem> items;
  for (const auto& k : keys) {
    if (k.is_bool()) refuse_indexer(evaluator, k);
    if (k.is_integral()) items.push_back(typecheck::IndexItem::integer(k.as_int()));
    else if (k.is_none()) items.push_back(typecheck::IndexItem::newaxis());
    else if (k.as<EllipsisObject>()) items.push_back(typecheck::IndexItem::ellipsis());
    else if (auto* s = k.as<SliceObject>()) {
      items.push_back(slice_index_item(evaluator, *s));
    } else {
      refuse_indexer(evaluator, k);
    }
  }
  typecheck::ArrayType out_type = checked(typecheck::static_index_rule(aval, items));
  // A slice primitive on the operand's devices: the result keeps the sharding
  // of the dims the index leaves whole and the operand's commitment.
  return index_static(evaluator, std::static_pointer_cast<ArrayObject>(self()), items, out_type);
}

IteratorRef ArrayObject::iterate(Evaluator& evaluator) {
  if (aval.shape.empty()) raise(exc::TypeError(), "iteration over a 0-d array");
  std::vector<Value> rows;
  for (std::int64_t i = 0; i < aval.shape[0]; ++i) rows.push_back(*get_item(evaluator, Value::integer(i)));
  return std::make_shared<ListIterator>(std::move(rows), types::list_iterator());
}

}  // namespace interp
