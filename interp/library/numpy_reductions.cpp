// jnp.sum prod max min mean argmax argmin with JAX's signatures
// (numpy_module.hpp): dtype=, where=, initial=, promote_integers= and out=
// (refused, as JAX refuses it) on top of the reduction primitives
// (apply_reduction), as jax/_src/numpy/reductions.py composes them.
#include <map>
#include <optional>

#include "interp/library/numpy_module.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/costing.hpp"
#include "typecheck/reduction_rules.hpp"

namespace interp {

using typecheck::DType;

namespace {

void refuse_out(std::string_view name, const Value& out) {
  if (!out.is_none()) raise(exc::NotImplementedError(), "The 'out' argument to jnp." + std::string(name) + " is not supported.");
}

// sum and prod: the dtype the reduction runs in. A given dtype; else
// booleans and narrow integers widen to int32 (promote_integers), as JAX's
// _reduce_sum does.
DType summing_dtype(Evaluator& ev, const ArrayRef& a, const Value& dtype, bool promote_integers) {
  if (!dtype.is_none()) return dtype_argument(ev, dtype);
  if (promote_integers && (a->aval.dtype == DType::bool_ || a->aval.dtype == DType::int8)) return DType::int32;
  return a->aval.dtype;
}

// The identity a masked-out element takes (where=), as a Python scalar
// (weak: where() keeps the dtype): a bool for booleans, an int for sum and
// prod (JAX's init_val 0 and 1) and for integers, else a float (+-inf).
Value identity_for(std::string_view name, DType dtype) {
  const double identity = typecheck::reduction_identity(name, dtype);
  if (dtype == DType::bool_) return Value::boolean(identity != 0);
  if (name == "sum" || name == "prod" || typecheck::is_integer(dtype))
    return Value::integer(static_cast<std::int64_t>(identity));
  return Value::floating(identity);
}

// One of sum, prod, max, min: the operand (masked by `where`, cast to
// `dtype`) reduced, then combined with `initial`.
Value masked_reduction(const Jnp& jnp, std::string_view name, const Value& operand, const Value& axis,
                       std::optional<DType> dtype, bool keepdims, const Value& initial, const Value& where) {
  Evaluator& ev = jnp.ev;
  ArrayRef a = to_array(ev, operand);
  const bool has_identity = name == "sum" || name == "prod";
  if (!has_identity && !where.is_none() && initial.is_none())
    raise(exc::ValueError(), "reduction operation " + std::string(name) +
                                 " does not have an identity, so to use a where mask one has to specify 'initial'");
  Value x = dtype && *dtype != a->aval.dtype ? apply_astype(ev, a, *dtype) : Value(a);
  if (!where.is_none()) x = jnp("where", {where, x, identity_for(name, to_array(ev, x)->aval.dtype)});
  // A boolean sum or product (promote_integers=False) is an `or` or an
  // `and`: the reductions max and min of booleans.
  std::string_view reduction = name;
  if (to_array(ev, x)->aval.dtype == DType::bool_ && has_identity) reduction = name == "sum" ? "max" : "min";
  Value result = bind_reduction(ev, reduction, x, axis, keepdims);
  if (initial.is_none()) return result;
  static const std::map<std::string_view, std::string> combine = {
      {"sum", "add"}, {"prod", "multiply"}, {"max", "maximum"}, {"min", "minimum"}};
  Value start = apply_astype(ev, to_array(ev, initial), to_array(ev, result)->aval.dtype);
  return jnp(combine.at(name), {start, result});
}

// mean: the sum (masked by `where`) over the count of the elements summed,
// in the result's dtype (float32 for integers). 16-bit floats are summed in
// their own dtype, the kernel accumulating in float32 (as apply_reduction's
// mean): with or without upcast_f16_for_computation, the sum is as precise
// as JAX's upcast one.
Value mean(const Jnp& jnp, const Value& operand, const Value& axis, const Value& dtype_value, bool keepdims,
           const Value& where) {
  Evaluator& ev = jnp.ev;
  ArrayRef a = to_array(ev, operand);
  const DType result = !dtype_value.is_none()                  ? dtype_argument(ev, dtype_value)
                       : typecheck::is_floating(a->aval.dtype) ? a->aval.dtype
                                                               : DType::float32;
  Value total = masked_reduction(jnp, "sum", Value(a), axis, result, keepdims, Value(), where);
  Value count = Value::floating(reduced_element_count(ev, a->aval.shape, axis));
  if (!where.is_none()) {
    std::vector<Value> sizes;
    for (auto size : a->aval.shape) sizes.push_back(Value::integer(size));
    Value mask = jnp("broadcast_to", {where, make_tuple(std::move(sizes))});
    count = masked_reduction(jnp, "sum", mask, axis, result, keepdims, Value(), Value());
  }
  return apply_astype(ev, to_array(ev, jnp("divide", {total, count})), result);
}

// argmax / argmin: the index into the flattened array when axis is None (ravel, then axis 0).
Value arg_reduction(Evaluator& ev, const std::string& name, const Value& operand, const Value& axis, bool keepdims) {
  if (!axis.is_none()) return apply_reduction(ev, name, operand, axis, keepdims);
  ArrayRef x = to_array(ev, operand);
  Value flat = apply_reshape(ev, Value(x), {devices::element_count(x->aval.shape)});
  Value index = apply_reduction(ev, name, flat, Value::integer(0), false);
  if (!keepdims) return index;
  return apply_reshape(ev, index, std::vector<std::int64_t>(x->aval.ndim(), 1));
}

}  // namespace

void install_reduction_operations(Evaluator& evaluator, ModuleObject& module) {
  auto jnp_of = [&evaluator, &module] { return Jnp{evaluator, module}; };
  for (const char* summing : {"sum", "prod"}) {
    std::string name = summing;
    module.add_function(name + "(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None, "
                               "promote_integers=True)",
                        [jnp_of, name](Evaluator& ev, Arguments& a) {
                          refuse_out(name, a[3]);
                          OneDispatchScope one_call(ev);  // JAX jits jnp's reductions
                          DType dtype = summing_dtype(ev, to_array(ev, a[0]), a[2], ev.truthy(a[7]));
                          return masked_reduction(jnp_of(), name, a[0], a[1], dtype, ev.truthy(a[4]), a[5], a[6]);
                        });
  }
  for (const char* extremum : {"max", "min"}) {
    std::string name = extremum;
    module.add_function(name + "(a, axis=None, out=None, keepdims=False, initial=None, where=None)",
                        [jnp_of, name](Evaluator& ev, Arguments& a) {
                          refuse_out(name, a[2]);
                          OneDispatchScope one_call(ev);
                          return masked_reduction(jnp_of(), name, a[0], a[1], std::nullopt, ev.truthy(a[3]), a[4], a[5]);
                        });
  }
  module.add_function("mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None, "
                      "upcast_f16_for_computation=True)",
                      [jnp_of](Evaluator& ev, Arguments& a) {
                        refuse_out("mean", a[3]);
                        OneDispatchScope one_call(ev);
                        return mean(jnp_of(), a[0], a[1], a[2], ev.truthy(a[4]), a[5]);
                      });
  for (const char* arg : {"argmax", "argmin"}) {
    std::string name = arg;
    module.add_function(name + "(a, axis=None, out=None, keepdims=None)", [name](Evaluator& ev, Arguments& a) {
      refuse_out(name, a[2]);
      OneDispatchScope one_call(ev);
      return arg_reduction(ev, name, a[0], a[1], ev.truthy(a[3]));
    });
  }
}

}  // namespace interp
