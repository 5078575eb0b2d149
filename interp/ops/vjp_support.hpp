// What the VJP rules (vjp_rules.hpp) build cotangents from: small array
// operations, each one bind() of a primitive, so a rule runs eagerly, is
// recorded under jax.jit and is type-checked in check mode as any other
// operation is. Shared by the rule files of each family.
#pragma once

#include <string_view>
#include <vector>

#include "interp/ops/primitives.hpp"

namespace interp::vjp {

using Operands = std::vector<ArrayRef>;

// bind() of the primitive `name`, its result as an array.
ArrayRef apply(Evaluator& ev, std::string_view name, Operands operands, Params params = {});
// A weak-typed Python scalar, as `2.0 * x` writes one.
ArrayRef scalar(Evaluator& ev, double value);

ArrayRef add(Evaluator& ev, const ArrayRef& a, const ArrayRef& b);
ArrayRef add(Evaluator& ev, const ArrayRef& a, double b);
ArrayRef sub(Evaluator& ev, const ArrayRef& a, const ArrayRef& b);
ArrayRef mul(Evaluator& ev, const ArrayRef& a, const ArrayRef& b);
ArrayRef mul(Evaluator& ev, const ArrayRef& a, double b);
ArrayRef div(Evaluator& ev, const ArrayRef& a, const ArrayRef& b);
ArrayRef neg(Evaluator& ev, const ArrayRef& a);
// `a` in `dtype` (nothing when it already is, strongly typed).
ArrayRef convert(Evaluator& ev, const ArrayRef& a, typecheck::DType dtype);
// 0/1 (as `dtype`) where the comparison primitive `name` holds.
ArrayRef indicator(Evaluator& ev, std::string_view name, const ArrayRef& a, const ArrayRef& b, typecheck::DType dtype);

// reduce_sum over `axes` (nothing when there are none).
ArrayRef reduce_sum(Evaluator& ev, const ArrayRef& a, std::vector<std::int64_t> axes);
ArrayRef reshape(Evaluator& ev, const ArrayRef& a, const typecheck::Shape& shape);
// broadcast_in_dim of `a` to `shape`, its dims going to `dims`.
ArrayRef broadcast(Evaluator& ev, const ArrayRef& a, const typecheck::Shape& shape, std::vector<std::int64_t> dims);
ArrayRef zeros_like(Evaluator& ev, const typecheck::ArrayType& type);
// Zeros of `like`'s shape in `dtype`, on like's devices (a committed
// array's mesh or a shard_map body's), which the slicing primitives (placed
// by their first operand) then compute on.
ArrayRef zeros_on(Evaluator& ev, const ArrayRef& like, typecheck::DType dtype);
// zeros_on(like), unreduced along the axes `ct` is: the zeros a cotangent is
// written into, or that are written into it (JAX pads a slice's cotangent,
// and pad keeps its operand's unreduced axes).
ArrayRef zeros_for(Evaluator& ev, const ArrayRef& like, const ArrayRef& ct, typecheck::DType dtype);
// x[start:limit] with unit strides.
ArrayRef window_slice(Evaluator& ev, const ArrayRef& a, std::vector<std::int64_t> start, std::vector<std::int64_t> limit);
ArrayRef concatenate(Evaluator& ev, Operands parts, std::int64_t dimension);
// JAX's _reshape_axis_into: dimension `src` merged into dimension `dst`
// (numbered without `src`) as its major part.
ArrayRef reshape_axis_into(Evaluator& ev, const ArrayRef& a, int src, int dst);
// JAX's _reshape_axis_out_of: dimension `src` split into (size, rest).
ArrayRef reshape_axis_out_of(Evaluator& ev, const ArrayRef& a, int src, std::int64_t size);
// `a` spread along `dim` with stride - 1 zeros after each element (the
// transpose of a strided slice), cut to `length`.
ArrayRef dilate(Evaluator& ev, const ArrayRef& a, std::size_t dim, std::int64_t stride, std::int64_t length);
// The cotangent of an operand that elementwise broadcasting stretched to
// the cotangent's shape: summed back over the stretched dimensions.
ArrayRef unbroadcast(Evaluator& ev, const ArrayRef& ct, const ArrayRef& operand);

// A list-of-ints param, or null when absent.
const std::vector<std::int64_t>* int_param(const Params& params, std::string_view name);
// A reduction's reduced axes, non-negative (absent `axes` param: all).
std::vector<std::int64_t> reduced_axes(const Params& params, std::size_t ndim);
// A reduction's result (or cotangent) broadcast back to the operand's shape.
ArrayRef expand_reduced(Evaluator& ev, const ArrayRef& reduced, const ArrayRef& operand, const Params& params);
// How many operand elements each result element of a reduction covers.
double reduced_count(const ArrayRef& operand, const Params& params);

// A shard_map collective `name` over `names` on the body mesh of `like`'s
// params (its mesh and check_vma), with `extra` params.
ArrayRef collective(Evaluator& ev, std::string_view name, const ArrayRef& operand, const Params& like,
                    const typecheck::AxisList& names, Params extra = {});
// The axes a collective's params name.
typecheck::AxisList collective_axes(const Params& params);
bool checks_vma(const Params& params);

// With vma checking, a cotangent varying over axes its primal is invariant
// over is summed over them (the transpose of the implicit pvary that the
// primal's use inserted). grad applies it to every operand cotangent.
ArrayRef match_vma(Evaluator& ev, const ArrayRef& primal, const ArrayRef& ct);

}  // namespace interp::vjp
