// The elementwise family's decision and kernel (placement.hpp): operands
// promoted, typed by typecheck's elementwise rules, laid out as the result
// (which follows the most sharded operand of its shape on Auto axes), the
// unary or binary kernel per device.
#include <algorithm>

#include "interp/ops/placement.hpp"
#include "interp/ops/primitives.hpp"
#include "typecheck/elementwise_rules.hpp"

namespace interp {

namespace {

using typecheck::DType;
using R = ElementwiseResult;

Placement place_elementwise(Evaluator&, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                            const Params&) {
  Placement placement;
  DeviceMeshRef mesh = computation_mesh(primitive.api_name, operands);

  // Dtypes: promote, then the primitive's own result kind.
  typecheck::ElementType common = promoted(operands);
  if (primitive.result == R::floating && !typecheck::is_floating(common.dtype)) common = {DType::float32, common.weak_type};
  // lax's and, or, xor and not take integers and bool only (JAX's dtype rule).
  const bool bitwise = primitive.arity == 1 ? primitive.unary == devices::UnaryOp::bitwise_not
                                            : (primitive.binary == devices::BinaryOp::bitwise_and ||
                                               primitive.binary == devices::BinaryOp::bitwise_or ||
                                               primitive.binary == devices::BinaryOp::bitwise_xor);
  // An n-ary rule names the position (jnp promoted both operands, so the first fails).
  if (bitwise && typecheck::is_floating(common.dtype)) {
    const std::string position = primitive.arity == 1 ? "" : " at position 0";
    raise(exc::TypeError(), std::string(primitive.lax.name) + " does not accept dtype " +
                                std::string(typecheck::long_name(common.dtype)) + position + ". Accepted dtypes" +
                                position + " are subtypes of integer, bool.");
  }
  typecheck::ElementType result = primitive.result == R::boolean ? typecheck::ElementType{DType::bool_, false} : common;
  placement.compute = common.dtype;
  if (primitive.binary == devices::BinaryOp::logical_and || primitive.binary == devices::BinaryOp::logical_or ||
      primitive.unary == devices::UnaryOp::logical_not)
    placement.compute = DType::bool_;

  // Shapes and shardings: the typecheck rule.
  std::vector<typecheck::ArrayType> types;
  for (const auto& a : operands) types.push_back(a->aval);
  placement.type = primitive.arity == 1 ? checked(typecheck::unary_rule(primitive.lax.name, types[0], result))
                                        : checked(typecheck::jnp_elementwise_rule(primitive.lax.name, types, result));
  const typecheck::ArrayType& out_type = placement.type;

  // Auto: the result follows the most sharded operand of the result's rank.
  std::vector<typecheck::SpecEntry> auto_dims(out_type.ndim());
  std::size_t best = 0;
  for (const auto& a : operands) {
    if (a->aval.shape != out_type.shape) continue;
    auto dims = dims_on(*a, mesh);
    auto sharded = static_cast<std::size_t>(std::count_if(dims.begin(), dims.end(), [](const auto& e) { return !e.empty(); }));
    if (sharded > best) {
      best = sharded;
      auto_dims = dims;
    }
  }
  placement.layout = result_layout(out_type, mesh, auto_dims);
  placement.computed = placement.layout;
  placement.committed = any_committed(operands);

  // Each operand in the result's layout on its trailing dims (size-1 and
  // missing dims broadcast, so they are whole on every device).
  for (const auto& a : operands) {
    Layout needed{mesh, {}};
    std::size_t offset = out_type.ndim() - a->aval.ndim();
    for (std::size_t d = 0; d < a->aval.ndim(); ++d)
      needed.dims.push_back(a->aval.shape[d] == out_type.shape[d + offset] ? placement.layout.dims[d + offset]
                                                                            : typecheck::SpecEntry{});
    placement.operands.push_back(std::move(needed));
  }
  return placement;
}

ArrayRef elementwise_kernel(Evaluator& evaluator, const Primitive& primitive, const Placement& placement,
                            const std::vector<ArrayRef>& operands, const Params&) {
  std::vector<ArrayRef> inputs;
  for (const auto& a : operands) inputs.push_back(astype(evaluator, a, placement.compute));
  // Operands of lower rank get leading 1s so the kernel broadcasts them.
  const std::size_t rank = placement.type.ndim();
  std::vector<devices::Shape> shapes;
  for (const auto& in : inputs) {
    devices::Shape shape = in->layout.shard_shape(in->aval.shape);
    shape.insert(shape.begin(), rank - std::min(rank, shape.size()), 1);
    shapes.push_back(std::move(shape));
  }
  auto shards = run_per_position(evaluator, placement.layout.mesh, inputs, std::move(shapes),
                                 [&](const std::vector<devices::LocalArray>& in, std::size_t) {
                                   if (primitive.arity == 1) return devices::unary(primitive.unary, in[0]);
                                   return devices::binary(primitive.binary, in[0], in[1]);
                                 });
  // The compute dtype is the result's, but for comparisons and logical
  // operations, whose kernels give bool.
  return make_array(evaluator, placement.type, placement.layout, std::move(shards), placement.committed);
}

// lax.reduce_precision's kernel per device (its params: exponent_bits,
// mantissa_bits), placed as any unary elementwise operation.
ArrayRef reduce_precision_kernel(Evaluator& evaluator, const Primitive&, const Placement& placement,
                                 const std::vector<ArrayRef>& operands, const Params& params) {
  const int exponent_bits = static_cast<int>(*params.get<std::int64_t>("exponent_bits"));
  const int mantissa_bits = static_cast<int>(*params.get<std::int64_t>("mantissa_bits"));
  auto shards = run_per_position(evaluator, placement.layout.mesh, operands, [&](const std::vector<devices::LocalArray>& in) {
    return devices::reduce_precision(in[0], exponent_bits, mantissa_bits);
  });
  return make_array(evaluator, placement.type, placement.layout, std::move(shards), placement.committed);
}

}  // namespace

namespace partitioning {
const Partitioning elementwise{
    .name = "elementwise", .place = place_elementwise, .kernel = elementwise_kernel, .decided_by_operands = true};
const Partitioning reduce_precision{
    .name = "elementwise", .place = place_elementwise, .kernel = reduce_precision_kernel, .decided_by_operands = true};
}  // namespace partitioning

}  // namespace interp
