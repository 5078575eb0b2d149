// The primitive table, bind, and the implementations (primitives.hpp).
#include "interp/ops/primitives.hpp"

#include <algorithm>
#include <array>

#include "devices/collectives.hpp"
#include "devices/kernels/cumulative.hpp"
#include "devices/kernels/linalg.hpp"
#include "devices/kernels/sort.hpp"
#include "interp/python/builtins.hpp"
#include "interp/ops/collectives.hpp"
#include "interp/ops/contractions.hpp"
#include "interp/ops/convolution.hpp"
#include "interp/ops/debug_ops.hpp"
#include "interp/ops/sharding_constraint.hpp"
#include "interp/ops/batching.hpp"
#include "interp/transforms/costing.hpp"
#include "interp/transforms/partitioner.hpp"
#include "interp/ops/vjp_rules.hpp"
#include "interp/library/random_module.hpp"
#include "interp/ops/indexing_ops.hpp"
#include "interp/ops/jaxpr_params.hpp"
#include "interp/ops/placement.hpp"
#include "interp/transforms/trace.hpp"
#include "typecheck/creation_rules.hpp"
#include "typecheck/elementwise_rules.hpp"
#include "typecheck/linalg_rules.hpp"
#include "typecheck/python_repr.hpp"
#include "typecheck/reduction_rules.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shape_rules.hpp"

namespace interp {

using devices::BinaryOp;
using devices::CollectiveKind;
using devices::UnaryOp;
using typecheck::DType;
using R = ElementwiseResult;

namespace {

std::int64_t elements(const typecheck::ArrayType& type) {
  std::int64_t n = 1;
  for (auto s : type.shape) n *= s;
  return n;
}

double bytes_of(const typecheck::ArrayType& type) {
  return static_cast<double>(elements(type)) * static_cast<double>(typecheck::byte_size(type.dtype));
}

// The elementwise operations the vector unit evaluates as a transcendental.
constexpr bool is_transcendental(const Primitive& primitive) {
  if (primitive.arity == 2) return primitive.binary == BinaryOp::pow || primitive.binary == BinaryOp::atan2;
  switch (primitive.unary) {
    case UnaryOp::cos: case UnaryOp::exp: case UnaryOp::expm1: case UnaryOp::log: case UnaryOp::log1p:
    case UnaryOp::sin: case UnaryOp::tan: case UnaryOp::tanh:
      return true;
    default:
      return false;
  }
}

// One flop per result element on the vector unit.
Cost elementwise_cost(const Primitive& primitive, const std::vector<typecheck::ArrayType>& operands,
                      const typecheck::ArrayType& result, const Params&) {
  return {static_cast<double>(elements(result)), bytes_accessed(operands, result), CostUnit::vector,
          is_transcendental(primitive)};
}

// One flop per result element, timed as a pass over memory: a convert or a
// select is no vector work XLA would not fuse away.
Cost memory_bound_cost(const Primitive&, const std::vector<typecheck::ArrayType>& operands,
                       const typecheck::ArrayType& result, const Params&) {
  return {static_cast<double>(elements(result)), bytes_accessed(operands, result), CostUnit::memory};
}

// A multiply and an add per result element per contracted element.
Cost dot_cost(const Primitive&, const std::vector<typecheck::ArrayType>& operands, const typecheck::ArrayType& result, const Params&) {
  double contracted = operands.empty() || operands[0].shape.empty() ? 1.0 : static_cast<double>(operands[0].shape.back());
  return {2.0 * static_cast<double>(elements(result)) * contracted, bytes_accessed(operands, result), CostUnit::mxu};
}

// One flop per operand element.
Cost reduction_cost(const Primitive&, const std::vector<typecheck::ArrayType>& operands,
                    const typecheck::ArrayType& result, const Params&) {
  return {operands.empty() ? 0.0 : static_cast<double>(elements(operands[0])), bytes_accessed(operands, result),
          CostUnit::vector};
}

// Per batch matrix [m, n] (k = min(m, n)), on the vector unit, in
// multiply-adds: linalg_solve an LU factorization and two triangular solves
// (2/3 n^3 + 2 n^2 k, k the right-hand sides), slogdet the factorization
// (2/3 n^3), cholesky n^3 / 3, geqrf Householder's 2 m n k - 2/3 k^3, qr
// as much again to form Q, svd a bidiagonal reduction and its vectors (4 m n k +
// 8 k^3), eigh a tridiagonal reduction and its vectors (4/3 n^3 + 2 n^3 + 3 n^3).
Cost linalg_cost(const Primitive& primitive, const std::vector<typecheck::ArrayType>& operands,
                 const typecheck::ArrayType& result, const Params&) {
  const auto& a = operands[0].shape;
  const double m = static_cast<double>(a[a.size() - 2]), n = static_cast<double>(a.back());
  const double k = primitive.name == "linalg_solve" ? static_cast<double>(result.shape.back()) : std::min(m, n);
  const double batch = static_cast<double>(elements(operands[0])) / std::max(1.0, m * n);
  const std::string_view name = primitive.name;
  const double multiply_adds = name == "cholesky"  ? n * n * n / 3.0
                               : name == "slogdet" ? 2.0 / 3.0 * n * n * n
                               : name == "qr"      ? 2.0 * (2.0 * m * n * k - 2.0 / 3.0 * k * k * k)
                               : name == "geqrf"   ? 2.0 * m * n * k - 2.0 / 3.0 * k * k * k
                               : name == "svd"     ? 4.0 * m * n * k + 8.0 * k * k * k
                               : name == "eigh"    ? (4.0 / 3.0 + 2.0 + 3.0) * n * n * n
                                                   : 2.0 / 3.0 * n * n * n + 2.0 * n * n * k;
  return {batch * multiply_adds * 2.0, bytes_accessed(operands, result), CostUnit::vector};
}

// Data movement only.
Cost movement_cost(const Primitive&, const std::vector<typecheck::ArrayType>& operands,
                   const typecheck::ArrayType& result, const Params&) {
  return {0.0, bytes_accessed(operands, result), CostUnit::memory};
}

// A gather reads only the rows it returns.
Cost gather_cost(const Primitive&, const std::vector<typecheck::ArrayType>& operands, const typecheck::ArrayType& result, const Params&) {
  return {0.0, bytes_accessed(operands, result), CostUnit::memory, false, true};
}

// A slice or an update of one: the window only.
Cost slice_cost(const Primitive&, const std::vector<typecheck::ArrayType>& operands, const typecheck::ArrayType& result, const Params&) {
  return {0.0, bytes_accessed(operands, result), CostUnit::slice};
}

// A change of placement: its cost is the collectives the partitioner plans.
Cost relayout_cost(const Primitive&, const std::vector<typecheck::ArrayType>& operands,
                   const typecheck::ArrayType& result, const Params&) {
  return {0.0, bytes_accessed(operands, result), CostUnit::none};
}

// ------------------------------------------------------------ by their decision

// Elementwise (ops/elementwise.cpp), dot_general (ops/dot_general.cpp),
// reductions (ops/reductions.cpp), device_put and sharding_constraint: the
// family's decision run now (placement.hpp).
}  // namespace

// device_put and sharding_constraint: the operand, moved to the layout it
// must have, under the result's type.
ArrayRef relayout_kernel(Evaluator& evaluator, const Primitive&, const Placement& placement,
                         const std::vector<ArrayRef>& inputs, const Params&) {
  ArrayRef out = retyped_array(evaluator, *inputs[0], placement.type, placement.committed);
  out->requested_spec = placement.requested_spec;
  return out;
}

namespace {

ArrayRef placed_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                               const Params& params, bool execute) {
  return run_placed(evaluator, primitive, operands, params, execute);
}

// ------------------------------------------------------------ shapes

// Where a reshape's result lies when every device reshapes its own block:
// the shapes fall into groups of dimensions of equal products, and in each
// group only the first dimension may be split, on both sides, by a count
// dividing both (a block is then a contiguous run of the group's elements
// on either side). Nullopt when the operand is split otherwise.
std::optional<std::vector<typecheck::SpecEntry>> local_reshape_dims(const ArrayObject& operand,
                                                                    const typecheck::Shape& shape) {
  const typecheck::Shape& from = operand.aval.shape;
  const auto& dims = operand.layout.dims;
  if (!operand.aval.sharding.unreduced.empty() || dims.size() != from.size()) return std::nullopt;
  std::vector<typecheck::SpecEntry> out(shape.size());
  for (std::size_t i = 0, j = 0; i < from.size() || j < shape.size();) {
    const std::size_t first_from = i, first_to = j;
    std::int64_t product_from = i < from.size() ? from[i++] : 1, product_to = j < shape.size() ? shape[j++] : 1;
    while (product_from != product_to) {
      if (product_from == 0 || product_to == 0) return std::nullopt;
      if (product_from < product_to && i < from.size()) product_from *= from[i++];
      else if (product_to < product_from && j < shape.size()) product_to *= shape[j++];
      else return std::nullopt;
    }
    for (std::size_t d = first_from + 1; d < i; ++d)
      if (!dims[d].empty()) return std::nullopt;
    if (first_from == i || dims[first_from].empty()) continue;
    const std::int64_t count = operand.layout.block_count(first_from);
    if (first_to == j || shape[first_to] % count != 0) return std::nullopt;
    out[first_to] = dims[first_from];
  }
  return out;
}

}  // namespace

ArrayRef reshaped_per_block(Evaluator& evaluator, const ArrayRef& operand, const typecheck::ArrayType& type,
                            const Layout& layout) {
  auto local = local_reshape_dims(*operand, type.shape);
  if (!local || operand->layout.mesh != layout.mesh || *local != layout.dims) return nullptr;
  // A shard's elements in the block's shape: its buffer, shared (an array's
  // layout gives its shards their shape).
  return make_array(evaluator, type, layout, buffers_of(*operand), operand->committed);
}

namespace {

// params: new_sizes (already resolved, no -1).
ArrayRef reshape_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                const Params& params, bool execute) {
  const ArrayRef& operand = operands[0];
  typecheck::Shape shape = *params.get<std::vector<std::int64_t>>("new_sizes");
  std::optional<typecheck::Sharding> out_sharding;
  if (const auto* requested = params.get<typecheck::ShardingArg>("out_sharding")) {
    typecheck::MeshRef context = runtime_of(evaluator).context_mesh ? runtime_of(evaluator).context_mesh->mesh->abstract : nullptr;
    out_sharding = checked(typecheck::canonicalize_out_sharding("reshape", *requested, context, shape));
  }
  typecheck::ArrayType out_type = checked(typecheck::reshape_rule(operand->aval, shape, std::nullopt, out_sharding));
  DeviceMeshRef mesh = operand->layout.mesh;
  // Auto: a reshape keeps the layout only where it keeps the shape.
  std::vector<typecheck::SpecEntry> auto_dims(shape.size());
  if (shape == operand->aval.shape) auto_dims = operand->layout.dims;
  Layout out_layout = result_layout(out_type, mesh, auto_dims);
  if (!execute) return make_abstract_array(out_type, out_layout, operand->committed);
  if (ArrayRef local = reshaped_per_block(evaluator, operand, out_type, out_layout)) return local;
  // Whole on every device, reshaped, then split as the result wants.
  Layout whole{mesh, std::vector<typecheck::SpecEntry>(operand->aval.ndim())};
  ArrayRef input = relayout(evaluator, operand, whole);
  auto shards = run_per_position(evaluator, mesh, {input}, [&](const std::vector<devices::LocalArray>& in) {
    return devices::reshape(in[0], shape);
  });
  Layout replicated{mesh, std::vector<typecheck::SpecEntry>(shape.size())};
  ArrayRef out = make_array(evaluator, out_type, replicated, std::move(shards), operand->committed);
  return relayout(evaluator, out, out_layout);
}

// ------------------------------------------------------------ structural

std::vector<std::int64_t> int_list(const Params& params, std::string_view name) {
  const auto* values = params.get<std::vector<std::int64_t>>(name);
  return values ? *values : std::vector<std::int64_t>{};
}

std::vector<int> int32_list(const Params& params, std::string_view name) {
  std::vector<int> out;
  for (auto v : int_list(params, name)) out.push_back(static_cast<int>(v));
  return out;
}

// An array of `type` computed in layout `computed`, then moved to `target`
// (relayout keeps the type).
ArrayRef finish(Evaluator& evaluator, typecheck::ArrayType type, const Layout& computed, const Layout& target,
                std::vector<std::shared_ptr<devices::Buffer>> shards, bool committed) {
  return relayout(evaluator, make_array(evaluator, std::move(type), computed, std::move(shards), committed), target);
}

// params: dimensions (reversed whole on every device).
ArrayRef rev_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                            const Params& params, bool execute) {
  const ArrayRef& operand = operands[0];
  auto dimensions = int32_list(params, "dimensions");
  Layout needed = operand->layout;
  for (int d : dimensions) {
    if (d < 0 || static_cast<std::size_t>(d) >= operand->aval.ndim())
      raise(exc::ValueError(), "rev dimensions must be axes of the operand");
    needed.dims[static_cast<std::size_t>(d)].clear();
  }
  Layout out_layout = result_layout(operand->aval, needed.mesh, needed.dims);
  if (!execute) return make_abstract_array(operand->aval, out_layout, operand->committed);
  ArrayRef input = relayout(evaluator, operand, needed);
  auto shards = run_per_position(evaluator, needed.mesh, {input}, [&](const std::vector<devices::LocalArray>& in) {
    return devices::rev(in[0], dimensions);
  });
  return finish(evaluator, operand->aval, needed, out_layout, std::move(shards), operand->committed);
}

// cumsum: params axis, reverse. The typecheck rule refuses an Explicit split
// of the accumulated axis; where the layout splits it on Auto axes it is
// gathered first, and the result is laid out as the operand (computation
// follows data; JAX's rule gives the operand's sharding).
ArrayRef cumsum_implementation(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                               const Params& params, bool execute) {
  const ArrayRef& operand = operands[0];
  std::int64_t axis = *params.get<std::int64_t>("axis");
  bool reverse = *params.get<bool>("reverse");
  typecheck::ArrayType type = checked(typecheck::cumulative_rule(primitive.name, operand->aval, axis));
  if (!execute) return make_abstract_array(type, operand->layout, operand->committed);
  Layout needed = operand->layout;
  needed.dims[static_cast<std::size_t>(axis)].clear();
  ArrayRef input = relayout(evaluator, operand, needed);
  auto shards = run_per_position(evaluator, needed.mesh, {input}, [&](const std::vector<devices::LocalArray>& in) {
    return devices::cumulative_sum(in[0], static_cast<int>(axis), reverse);
  });
  return finish(evaluator, std::move(type), needed, operand->layout, std::move(shards), operand->committed);
}

// params: dimension, is_stable, num_keys, output (the operand returned
// permuted; the operand count for the permutation itself), descending
// (top_k's order, absent: ascending). The sorted dim is gathered (an
// Explicit one is refused by the rule), the result laid out as operand 0.
ArrayRef sort_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                             const Params& params, bool execute) {
  std::int64_t dimension = *params.get<std::int64_t>("dimension"), output = *params.get<std::int64_t>("output");
  std::vector<typecheck::ArrayType> types;
  for (const auto& a : operands) types.push_back(a->aval);
  typecheck::ArrayType out_type = checked(typecheck::sort_rule(types, dimension, output));
  DeviceMeshRef mesh = computation_mesh("sort", operands);
  Layout target = result_layout(out_type, mesh, dims_on(*operands[0], mesh));
  bool committed = any_committed(operands);
  if (!execute) return make_abstract_array(out_type, target, committed);
  Layout needed = target;
  needed.dims[static_cast<std::size_t>(dimension)].clear();
  std::vector<ArrayRef> inputs;
  for (const auto& a : operands) inputs.push_back(relayout(evaluator, a, needed));
  auto num_keys = static_cast<int>(*params.get<std::int64_t>("num_keys"));
  const bool* descending = params.get<bool>("descending");
  auto shards = run_per_position(evaluator, mesh, inputs, [&](const std::vector<devices::LocalArray>& in) {
    return devices::sort_along(in, static_cast<int>(dimension), num_keys, static_cast<int>(output), descending && *descending);
  });
  return finish(evaluator, std::move(out_type), needed, target, std::move(shards), committed);
}

// The linear-algebra primitives: every device runs `kernel` on the batch
// matrices it holds (the batch dims follow the first operand's layout, the
// matrix dims are whole on every device).
// A result of lower rank (slogdet's, one per matrix) keeps the batch dims.
ArrayRef linalg_application(Evaluator& evaluator, const std::vector<ArrayRef>& operands, const typecheck::ArrayType& out_type,
                            bool execute,
                            const std::function<devices::Expected<devices::LocalArray>(const std::vector<devices::LocalArray>&)>& kernel) {
  DeviceMeshRef mesh = computation_mesh("linalg", operands);
  std::vector<typecheck::SpecEntry> dims = dims_on(*operands[0], mesh);
  dims[dims.size() - 1].clear();
  dims[dims.size() - 2].clear();
  std::vector<typecheck::SpecEntry> out_dims(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(out_type.ndim()));
  Layout target = result_layout(out_type, mesh, out_dims);
  bool committed = any_committed(operands);
  if (!execute) return make_abstract_array(out_type, target, committed);
  Layout needed{mesh, dims};
  std::vector<ArrayRef> inputs;
  for (const auto& a : operands) inputs.push_back(relayout(evaluator, a, needed));
  auto shards = run_per_position(evaluator, mesh, inputs, kernel);
  return finish(evaluator, out_type, Layout{mesh, out_dims}, target, std::move(shards), committed);
}

// slogdet: params output (0: the sign, 1: log |det|).
ArrayRef slogdet_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                const Params& params, bool execute) {
  typecheck::ArrayType out_type = checked(typecheck::slogdet_rule(operands[0]->aval));
  const auto output = static_cast<int>(*params.get<std::int64_t>("output"));
  return linalg_application(evaluator, operands, out_type, execute,
                            [output](const std::vector<devices::LocalArray>& in) { return devices::slogdet(in[0], output); });
}

// qr: params output (0: Q, 1: R), full_matrices.
ArrayRef qr_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                           const Params& params, bool execute) {
  const auto output = static_cast<int>(*params.get<std::int64_t>("output"));
  const bool full = *params.get<bool>("full_matrices");
  typecheck::ArrayType out_type = checked(typecheck::qr_rule(operands[0]->aval, full, output));
  return linalg_application(evaluator, operands, out_type, execute, [output, full](const std::vector<devices::LocalArray>& in) {
    return devices::qr(in[0], full, output);
  });
}

// geqrf: params output (0: the packed factorization, 1: the scales).
ArrayRef geqrf_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                              const Params& params, bool execute) {
  const auto output = static_cast<int>(*params.get<std::int64_t>("output"));
  typecheck::ArrayType out_type = checked(typecheck::geqrf_rule(operands[0]->aval, output));
  return linalg_application(evaluator, operands, out_type, execute,
                            [output](const std::vector<devices::LocalArray>& in) { return devices::geqrf(in[0], output); });
}

// svd: params output (0: U, 1: S, 2: Vᴴ), full_matrices, compute_uv.
ArrayRef svd_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                            const Params& params, bool execute) {
  const auto output = static_cast<int>(*params.get<std::int64_t>("output"));
  const bool full = *params.get<bool>("full_matrices"), compute_uv = *params.get<bool>("compute_uv");
  typecheck::ArrayType out_type = checked(typecheck::svd_rule(operands[0]->aval, full, output));
  return linalg_application(evaluator, operands, out_type, execute,
                            [output, full, compute_uv](const std::vector<devices::LocalArray>& in) {
                              return devices::svd(in[0], full, compute_uv, output);
                            });
}

// eigh: params output (0: the eigenvectors, 1: the eigenvalues), lower.
ArrayRef eigh_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                             const Params& params, bool execute) {
  const auto output = static_cast<int>(*params.get<std::int64_t>("output"));
  const bool lower = *params.get<bool>("lower");
  typecheck::ArrayType out_type = checked(typecheck::eigh_rule(operands[0]->aval, output));
  return linalg_application(evaluator, operands, out_type, execute, [output, lower](const std::vector<devices::LocalArray>& in) {
    return devices::eigh(in[0], lower, output);
  });
}

ArrayRef linalg_solve_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                     const Params&, bool execute) {
  typecheck::ArrayType out_type = checked(typecheck::solve_rule(operands[0]->aval, operands[1]->aval));
  return linalg_application(evaluator, operands, out_type, execute,
                            [](const std::vector<devices::LocalArray>& in) { return devices::solve(in[0], in[1]); });
}

ArrayRef cholesky_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                 const Params&, bool execute) {
  typecheck::ArrayType out_type = checked(typecheck::cholesky_rule(operands[0]->aval));
  return linalg_application(evaluator, operands, out_type, execute,
                            [](const std::vector<devices::LocalArray>& in) { return devices::cholesky(in[0]); });
}

// Operands of one dtype; params: dimension. The concatenated dim is gathered,
// the others follow the first operand.
ArrayRef concatenate_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                    const Params& params, bool execute) {
  std::int64_t dimension = *params.get<std::int64_t>("dimension");
  std::vector<typecheck::ArrayType> types;
  types.reserve(operands.size());  // no copies on growth: RoPE concatenates every decode step
  for (const auto& a : operands) types.push_back(a->aval);
  typecheck::ArrayType out_type = checked(typecheck::concatenate_rule(types, dimension));
  DeviceMeshRef mesh = computation_mesh("concatenate", operands);
  Layout needed{mesh, dims_on(*operands[0], mesh)};
  needed.dims[static_cast<std::size_t>(dimension)].clear();
  Layout out_layout = result_layout(out_type, mesh, needed.dims);
  bool committed = any_committed(operands);
  if (!execute) return make_abstract_array(out_type, out_layout, committed);
  std::vector<ArrayRef> inputs;
  for (const auto& a : operands) inputs.push_back(relayout(evaluator, a, needed));
  auto shards = run_per_position(evaluator, mesh, inputs, [&](const std::vector<devices::LocalArray>& in) {
    return devices::concatenate(in, static_cast<int>(dimension));
  });
  return finish(evaluator, std::move(out_type), needed, out_layout, std::move(shards), committed);
}

// x.at[...].set(update) for a rectangular window: params start_indices;
// operand and update of one dtype and rank. Written whole, then laid out as
// the operand.
ArrayRef update_slice_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                     const Params& params, bool execute) {
  const ArrayRef& operand = operands[0];
  auto start = int_list(params, "start_indices");
  if (auto error = typecheck::check_update_reduction_states(operand->aval, operands[1]->aval)) raise_error(*error);
  // Both checked unsharded: their types built with that sharding rather
  // than copied and overwritten (a decode step writes its cache so).
  const typecheck::Sharding unsharded =
      typecheck::Sharding::replicated(operand->aval.sharding.mesh, operands[1]->aval.ndim());
  auto checked_type = [&](const typecheck::ArrayType& type) {
    return typecheck::ArrayType{.dtype = type.dtype, .shape = type.shape, .weak_type = type.weak_type,
                                .sharding = unsharded, .manual = type.manual};
  };
  typecheck::ArrayType out_type =
      checked(typecheck::dynamic_update_slice_rule(checked_type(operand->aval), checked_type(operands[1]->aval)));
  out_type.sharding = operand->aval.sharding;
  out_type.weak_type = operand->aval.weak_type;
  if (!execute) return make_abstract_array(out_type, operand->layout, operand->committed);
  DeviceMeshRef mesh = operand->layout.mesh;
  Layout whole{mesh, std::vector<typecheck::SpecEntry>(operand->aval.ndim())};
  ArrayRef input = relayout(evaluator, operand, whole), update = relayout(evaluator, operands[1], whole);
  auto shards = run_per_position(evaluator, mesh, {input, update}, [&](const std::vector<devices::LocalArray>& in) {
    return devices::dynamic_update_slice(in[0], in[1], start);
  });
  return finish(evaluator, std::move(out_type), whole, operand->layout, std::move(shards), operand->committed);
}

// ------------------------------------------------------------ placement

// params: layout (the target), requested (the spec as written, optional).
Placement place_device_put(Evaluator&, const Primitive&, const std::vector<ArrayRef>& operands, const Params& params) {
  const ArrayRef& operand = operands[0];
  const Layout& layout = *params.get<Layout>("layout");
  Placement placement;
  placement.type = operand->aval;
  placement.type.sharding = checked(typecheck::make_sharding(
      layout.mesh->abstract, typecheck::PartitionSpec::from_entries(layout.dims), placement.type.shape));
  // On one device without a mesh (device_put(x, device)) the array is that
  // device's; a mesh of size-1 axes keeps the spec, as JAX's types do.
  if (layout.mesh->devices.size() == 1 && (!layout.mesh->abstract || layout.mesh->abstract->axes().empty()))
    placement.type.sharding = typecheck::Sharding::replicated(nullptr, placement.type.ndim());
  // A spec's unreduced and reduced axes are part of the type (the data is
  // the logical value either way: reshard to and from them moves nothing).
  if (const auto* requested = params.get<typecheck::ShardingArg>("requested"); requested && placement.type.sharding.mesh) {
    placement.type.sharding.unreduced = requested->spec.unreduced();
    placement.type.sharding.reduced = requested->spec.reduced();
  }
  placement.layout = placement.computed = layout;
  placement.operands = {layout};
  placement.committed = true;
  if (const auto* requested = params.get<typecheck::ShardingArg>("requested")) placement.requested_spec = requested->spec;
  // An unreduced operand's devices hold partial sums: those over axes the
  // result is not unreduced on are summed where they lie (the all-reduce a
  // reshard from unreduced runs), then moved. Axes the result newly is
  // unreduced on keep the value on their first device, zeros elsewhere.
  const typecheck::AxisSet& from = operand->aval.sharding.unreduced;
  const typecheck::AxisSet& to = placement.type.sharding.unreduced;
  if (operand->layout.mesh->abstract)
    for (const auto& axis : operand->layout.mesh->abstract->axes())
      if (from.contains(axis.name) && !to.contains(axis.name)) placement.summed.push_back(axis.name);
  if (!placement.summed.empty()) placement.operands = {placement.computed = operand->layout};
  for (const auto& axis : to)
    if (!from.contains(axis)) placement.made_unreduced.insert(axis);
  return placement;
}

// device_put's work after the partial sums are combined: the value moved
// where the result lies, then made unreduced over its new axes.
ArrayRef device_put_finish(Evaluator& evaluator, const Primitive&, const Placement& placement, const ArrayRef& combined,
                           const Params&) {
  ArrayRef out = kept_on_first(evaluator, relayout(evaluator, combined, placement.layout), placement.made_unreduced);
  out->requested_spec = placement.requested_spec;
  return out;
}

// The operand itself: lax.stop_gradient (grad sends no cotangent through it),
// copy (a fresh variable for a custom rule's output) and
// ad_checkpoint.checkpoint_name's name (a mark that remat policies read).
ArrayRef identity_implementation(Evaluator&, const Primitive&, const std::vector<ArrayRef>& operands, const Params&,
                                      bool execute) {
  const ArrayRef& operand = operands[0];
  if (!execute) return make_abstract_array(operand->aval, operand->layout, operand->committed);
  return operand;
}

// lax.integer_pow(x, y): params y, a Python int. x ** y by power's rule and
// kernel, y a weak scalar (so the result has x's type); JAX's errors for a
// bool x and an integer x with a negative y.
ArrayRef integer_pow_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                    const Params& params, bool execute) {
  const ArrayRef& x = operands[0];
  const std::int64_t y = *params.get<std::int64_t>("y");
  if (x->aval.dtype == DType::bool_)
    raise(exc::TypeError(), "integer_pow does not accept dtype bool. Accepted dtypes are subtypes of number.");
  if (y < 0 && typecheck::is_integer(x->aval.dtype))
    raise(exc::TypeError(), "Integers cannot be raised to negative powers, got integer_pow(x, " + std::to_string(y) + ")");
  const Primitive& power = primitive("power");
  return power.implementation(evaluator, power, {x, to_array(evaluator, Value::integer(y))}, {}, execute);
}

// lax.clamp(min, x, max): JAX's shape rule (min and max scalars or of x's
// shape) and dtype rule (one dtype), then max(min, x) and min(.., max) by
// their rules and kernels: the result has x's type and layout.
ArrayRef clamp_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                              const Params&, bool execute) {
  const typecheck::ArrayType &lo = operands[0]->aval, &x = operands[1]->aval, &hi = operands[2]->aval;
  for (const auto& [bound, name] : {std::pair{&lo, "min"}, std::pair{&hi, "max"}})
    if (!bound->shape.empty() && bound->shape != x.shape)
      raise(exc::TypeError(), std::string("clamp requires ") + name + ".shape == operand.shape or " + name +
                                  ".shape == (), got " + name + ".shape=" + typecheck::python_shape_repr(bound->shape) +
                                  ", operand.shape=" + typecheck::python_shape_repr(x.shape) + ".");
  if (lo.dtype != x.dtype || hi.dtype != x.dtype)
    raise(exc::TypeError(), "lax.clamp requires arguments to have the same dtypes, got " +
                                std::string(typecheck::long_name(lo.dtype)) + ", " + std::string(typecheck::long_name(x.dtype)) +
                                ", " + std::string(typecheck::long_name(hi.dtype)) + ".");
  const Primitive &maximum = primitive("maximum"), &minimum = primitive("minimum");
  ArrayRef above = maximum.implementation(evaluator, maximum, {operands[1], operands[0]}, {}, execute);
  return minimum.implementation(evaluator, minimum, {above, operands[2]}, {}, execute);
}

// lax.reduce_precision(operand, exponent_bits, mantissa_bits): JAX's shape
// rule (exponent_bits >= 1, mantissa_bits >= 0) and dtype rule (floats
// only), then elementwise's placement with its own kernel.
ArrayRef reduce_precision_implementation(Evaluator& evaluator, const Primitive& primitive,
                                         const std::vector<ArrayRef>& operands, const Params& params, bool execute) {
  const std::int64_t exponent_bits = *params.get<std::int64_t>("exponent_bits");
  const std::int64_t mantissa_bits = *params.get<std::int64_t>("mantissa_bits");
  if (exponent_bits < 1)
    raise(exc::ValueError(), "reduce_precision: exponent_bits must be positive; got " + std::to_string(exponent_bits));
  if (mantissa_bits < 0)
    raise(exc::ValueError(), "reduce_precision: mantissa_bits must be non-negative; got " + std::to_string(mantissa_bits));
  if (!typecheck::is_floating(operands[0]->aval.dtype))
    raise(exc::TypeError(), "reduce_precision does not accept dtype " + std::string(typecheck::long_name(operands[0]->aval.dtype)) +
                                ". Accepted dtypes are subtypes of floating.");
  return run_placed(evaluator, primitive, operands, params, execute);
}

constexpr UnaryOp no_unary = UnaryOp::neg;
constexpr BinaryOp no_binary = BinaryOp::add;

// jnp's name -> lax's (where they differ).
constexpr std::string_view lax_name_of(std::string_view name) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 22> renamed{{
      {"arctan2", "atan2"}, {"bitwise_and", "and"}, {"bitwise_not", "not"}, {"bitwise_or", "or"},
      {"bitwise_xor", "xor"}, {"divide", "div"}, {"equal", "eq"}, {"greater", "gt"}, {"greater_equal", "ge"}, {"less", "lt"},
      {"less_equal", "le"}, {"logical_and", "and"}, {"logical_not", "not"}, {"logical_or", "or"},
      {"maximum", "max"}, {"minimum", "min"}, {"multiply", "mul"}, {"negative", "neg"}, {"not_equal", "ne"},
      {"power", "pow"}, {"remainder", "rem"}, {"subtract", "sub"}}};
  for (const auto& [jnp_name, lax] : renamed)
    if (jnp_name == name) return lax;
  if (name == "true_divide") return "div";
  if (name == "absolute") return "abs";
  return name;
}
constexpr Primitive unary(std::string_view name, UnaryOp op, R result, VjpRule vjp, JaxprParamsRule params = nullptr) {
  return {name, name, {lax_name_of(name), params}, placed_implementation, elementwise_cost, vjp, batching::elementwise,
          &partitioning::elementwise, CollectiveKind::none, 1, op, no_binary, result};
}
constexpr Primitive binary(std::string_view name, BinaryOp op, R result, VjpRule vjp) {
  return {name, name, {lax_name_of(name)}, placed_implementation, elementwise_cost, vjp, batching::elementwise,
          &partitioning::elementwise, CollectiveKind::none, 2, no_unary, op, result};
}
// A primitive whose application does more than make its result (Primitive::effect).
constexpr Primitive with_effect(Primitive primitive) {
  primitive.effect = true;
  return primitive;
}
// JAX's reduce_sum, reduce_max and reduce_min carry out_sharding, argmax and
// argmin their index_dtype, the others their axes only.
constexpr Primitive reduction(std::string_view name, std::string_view api_name, VjpRule vjp, JaxprParamsRule params) {
  return {name, api_name, {name, params}, placed_implementation, reduction_cost, vjp, batching::reduction,
          &partitioning::reduction};
}

// Sorted by name.
constexpr std::array primitive_table{
    unary("abs", UnaryOp::abs, R::promoted, vjp::abs_vjp),
    unary("absolute", UnaryOp::abs, R::promoted, vjp::abs_vjp),  // jnp.absolute is jnp.abs
    binary("add", BinaryOp::add, R::promoted, vjp::add_vjp),
    Primitive{"all_gather", "all_gather", {"all_gather"}, all_gather_implementation, collective_cost, vjp::all_gather_vjp, batching::collective, &partitioning::replay, CollectiveKind::all_gather},
    Primitive{"all_to_all", "all_to_all", {"all_to_all"}, all_to_all_implementation, collective_cost, vjp::all_to_all_vjp, batching::collective, &partitioning::replay, CollectiveKind::all_to_all},
    binary("arctan2", BinaryOp::atan2, R::floating, vjp::arctan2_vjp),
    reduction("argmax", "argmax", vjp::zero_vjp, jaxpr_params::arg_reduction),
    reduction("argmin", "argmin", vjp::zero_vjp, jaxpr_params::arg_reduction),
    Primitive{"axis_index", "axis_index", {"axis_index"}, axis_index_implementation, collective_cost, vjp::zero_vjp, batching::collective, &partitioning::replay},
    binary("bitwise_and", BinaryOp::bitwise_and, R::promoted, vjp::zero_vjp),
    unary("bitwise_not", UnaryOp::bitwise_not, R::promoted, vjp::zero_vjp),
    binary("bitwise_or", BinaryOp::bitwise_or, R::promoted, vjp::zero_vjp),
    binary("bitwise_xor", BinaryOp::bitwise_xor, R::promoted, vjp::zero_vjp),
    Primitive{"broadcast_in_dim", "broadcast_in_dim", {"broadcast_in_dim", jaxpr_params::broadcast_in_dim}, placed_implementation, movement_cost, vjp::broadcast_in_dim_vjp, batching::broadcast_in_dim, &partitioning::broadcast_in_dim},
    unary("ceil", UnaryOp::ceil, R::floating, vjp::zero_vjp),
    Primitive{"cholesky", "linalg.cholesky", {"cholesky"}, cholesky_implementation, linalg_cost, vjp::cholesky_vjp, batching::linalg, &partitioning::replay},
    Primitive{"clamp", "clamp", {"clamp"}, clamp_implementation, elementwise_cost, vjp::clamp_vjp, batching::loop, &partitioning::replay},
    Primitive{"concatenate", "concatenate", {"concatenate"}, concatenate_implementation, movement_cost, vjp::concatenate_vjp, batching::concatenate, &partitioning::replay},
    Primitive{"conv_general_dilated", "conv_general_dilated", {"conv_general_dilated"}, placed_implementation, conv_cost, vjp::conv_general_dilated_vjp, batching::conv_general_dilated, &partitioning::convolution},
    Primitive{"convert_element_type", "astype", {"convert_element_type", jaxpr_params::convert_element_type}, placed_implementation, memory_bound_cost, vjp::convert_vjp, batching::convert, &partitioning::convert},
    Primitive{"copy", "copy", {"copy"}, identity_implementation, movement_cost, vjp::identity_vjp, batching::convert, &partitioning::replay},
    unary("cos", UnaryOp::cos, R::floating, vjp::cos_vjp),
    Primitive{"cumsum", "cumsum", {"cumsum"}, cumsum_implementation, reduction_cost, vjp::cumsum_vjp, batching::cumsum, &partitioning::replay},
    with_effect(Primitive{"debug_print", "debug.print", {"debug_print"}, debug_print_implementation, movement_cost, vjp::zero_vjp, batching::loop, &partitioning::replay}),
    Primitive{"device_put", "device_put", {"device_put"}, placed_implementation, relayout_cost, vjp::device_put_vjp, batching::placement, &partitioning::device_put},
    binary("divide", BinaryOp::div, R::floating, vjp::divide_vjp),
    Primitive{"dot_general", "dot", {"dot_general", jaxpr_params::dot_general}, placed_implementation, dot_cost, vjp::dot_general_vjp, batching::dot_general, &partitioning::contraction},
    Primitive{"dynamic_slice", "dynamic_slice", {"dynamic_slice"}, dynamic_slice_implementation, slice_cost, vjp::dynamic_slice_vjp, batching::dynamic_slice, &partitioning::replay},
    Primitive{"dynamic_update_slice", "dynamic_update_slice", {"dynamic_update_slice"}, dynamic_update_slice_implementation, slice_cost, vjp::dynamic_update_slice_vjp, batching::dynamic_update_slice, &partitioning::replay},
    Primitive{"eigh", "linalg.eigh", {"eigh"}, eigh_implementation, linalg_cost, vjp::eigh_vjp, batching::linalg, &partitioning::replay},
    binary("equal", BinaryOp::eq, R::boolean, vjp::zero_vjp),
    unary("erf", UnaryOp::erf, R::floating, vjp::erf_vjp),
    unary("erf_inv", UnaryOp::erf_inv, R::floating, vjp::erf_inv_vjp),
    unary("exp", UnaryOp::exp, R::floating, vjp::exp_vjp),
    unary("expm1", UnaryOp::expm1, R::floating, vjp::expm1_vjp),
    unary("floor", UnaryOp::floor, R::floating, vjp::zero_vjp),
    binary("floor_divide", BinaryOp::floor_divide, R::promoted, vjp::zero_vjp),
    Primitive{"gather", "take", {"gather"}, gather_implementation, gather_cost, vjp::gather_vjp, batching::gather, &partitioning::replay},
    Primitive{"geqrf", "linalg.qr", {"geqrf"}, geqrf_implementation, linalg_cost, vjp::not_differentiable, batching::linalg, &partitioning::replay},
    binary("greater", BinaryOp::gt, R::boolean, vjp::zero_vjp),
    binary("greater_equal", BinaryOp::ge, R::boolean, vjp::zero_vjp),
    Primitive{"integer_pow", "integer_pow", {"integer_pow"}, integer_pow_implementation, elementwise_cost, vjp::integer_pow_vjp, batching::convert, &partitioning::replay},
    binary("less", BinaryOp::lt, R::boolean, vjp::zero_vjp),
    binary("less_equal", BinaryOp::le, R::boolean, vjp::zero_vjp),
    Primitive{"linalg_solve", "linalg.solve", {"linalg_solve"}, linalg_solve_implementation, linalg_cost, vjp::linalg_solve_vjp, batching::linalg, &partitioning::replay},
    unary("log", UnaryOp::log, R::floating, vjp::log_vjp),
    unary("log1p", UnaryOp::log1p, R::floating, vjp::log1p_vjp),
    binary("logical_and", BinaryOp::logical_and, R::boolean, vjp::zero_vjp),
    unary("logical_not", UnaryOp::logical_not, R::boolean, vjp::zero_vjp),
    binary("logical_or", BinaryOp::logical_or, R::boolean, vjp::zero_vjp),
    binary("maximum", BinaryOp::max, R::promoted, vjp::maximum_vjp),
    binary("minimum", BinaryOp::min, R::promoted, vjp::minimum_vjp),
    binary("multiply", BinaryOp::mul, R::promoted, vjp::multiply_vjp),
    Primitive{"name", "checkpoint_name", {"name"}, identity_implementation, movement_cost, vjp::identity_vjp, batching::convert, &partitioning::replay},
    unary("negative", UnaryOp::neg, R::promoted, vjp::negative_vjp),
    binary("not_equal", BinaryOp::ne, R::boolean, vjp::zero_vjp),
    Primitive{"optimization_barrier", "optimization_barrier", {"optimization_barrier"}, identity_implementation, movement_cost, vjp::identity_vjp, batching::convert, &partitioning::replay},
    Primitive{"pmax", "pmax", {"pmax"}, psum_implementation, collective_cost, vjp::not_differentiable, batching::collective, &partitioning::replay, CollectiveKind::all_reduce},
    Primitive{"pmean", "pmean", {"pmean"}, psum_implementation, collective_cost, vjp::pmean_vjp, batching::collective, &partitioning::replay, CollectiveKind::all_reduce},
    Primitive{"pmin", "pmin", {"pmin"}, psum_implementation, collective_cost, vjp::not_differentiable, batching::collective, &partitioning::replay, CollectiveKind::all_reduce},
    binary("power", BinaryOp::pow, R::promoted, vjp::power_vjp),
    Primitive{"ppermute", "ppermute", {"ppermute"}, ppermute_implementation, collective_cost, vjp::ppermute_vjp, batching::collective, &partitioning::replay, CollectiveKind::collective_permute},
    Primitive{"preduced", "pcast", {"preduced"}, pcast_implementation, collective_cost, vjp::preduced_vjp, batching::collective, &partitioning::replay},
    Primitive{"psum", "psum", {"psum"}, psum_implementation, collective_cost, vjp::psum_vjp, batching::collective, &partitioning::replay, CollectiveKind::all_reduce},
    Primitive{"psum_scatter", "psum_scatter", {"psum_scatter"}, psum_scatter_implementation, collective_cost, vjp::psum_scatter_vjp, batching::collective, &partitioning::replay, CollectiveKind::reduce_scatter},
    Primitive{"pvary", "pvary", {"pvary"}, pvary_implementation, collective_cost, vjp::pvary_vjp, batching::collective, &partitioning::replay},
    Primitive{"qr", "linalg.qr", {"qr"}, qr_implementation, linalg_cost, vjp::qr_vjp, batching::linalg, &partitioning::replay},
    Primitive{"random_fold_in", "fold_in", {"random_fold_in"}, random_fold_in_implementation, random_cost, vjp::zero_vjp, batching::loop, &partitioning::replay},
    Primitive{"random_sample", "random", {"random_sample"}, random_sample_implementation, random_cost, vjp::zero_vjp, batching::loop, &partitioning::replay},
    Primitive{"random_split", "split", {"random_split"}, random_split_implementation, random_cost, vjp::zero_vjp, batching::loop, &partitioning::replay},
    reduction("reduce_and", "all", vjp::zero_vjp, jaxpr_params::reduction),
    reduction("reduce_max", "max", vjp::reduce_extremum_vjp, jaxpr_params::sharded_reduction),
    reduction("reduce_mean", "mean", vjp::reduce_mean_vjp, jaxpr_params::sharded_reduction),
    reduction("reduce_min", "min", vjp::reduce_extremum_vjp, jaxpr_params::sharded_reduction),
    reduction("reduce_or", "any", vjp::zero_vjp, jaxpr_params::reduction),
    Primitive{"reduce_precision", "reduce_precision", {"reduce_precision"}, reduce_precision_implementation, elementwise_cost, vjp::reduce_precision_vjp, batching::convert, &partitioning::reduce_precision, CollectiveKind::none, 1},
    reduction("reduce_prod", "prod", vjp::reduce_prod_vjp, jaxpr_params::reduction),
    reduction("reduce_sum", "sum", vjp::reduce_sum_vjp, jaxpr_params::sharded_reduction),
    Primitive{"reduce_window_max", "reduce_window", {"reduce_window_max"}, reduce_window_implementation, reduce_window_cost, vjp::reduce_window_extremum_vjp, batching::reduce_window, &partitioning::replay},
    Primitive{"reduce_window_min", "reduce_window", {"reduce_window_min"}, reduce_window_implementation, reduce_window_cost, vjp::reduce_window_extremum_vjp, batching::reduce_window, &partitioning::replay},
    Primitive{"reduce_window_sum", "reduce_window", {"reduce_window_sum"}, reduce_window_implementation, reduce_window_cost, vjp::reduce_window_sum_vjp, batching::reduce_window, &partitioning::replay},
    Primitive{"reduced_vary_cast", "pcast", {"reduced_vary_cast"}, pcast_implementation, collective_cost, vjp::reduced_vary_cast_vjp, batching::collective, &partitioning::replay},
    binary("remainder", BinaryOp::rem, R::promoted, vjp::remainder_vjp),
    Primitive{"reshape", "reshape", {"reshape", jaxpr_params::reshape}, reshape_implementation, movement_cost, vjp::reshape_vjp, batching::reshape, &partitioning::replay},
    Primitive{"reshard", "reshard", {"reshard", jaxpr_params::none}, placed_implementation, relayout_cost, vjp::device_put_vjp, batching::placement, &partitioning::device_put},
    Primitive{"rev", "flip", {"rev"}, rev_implementation, movement_cost, vjp::rev_vjp, batching::rev, &partitioning::replay},
    unary("round", UnaryOp::round, R::floating, vjp::zero_vjp, jaxpr_params::round),
    unary("rsqrt", UnaryOp::rsqrt, R::floating, vjp::rsqrt_vjp),
    Primitive{"scatter", "scatter", {"scatter"}, scatter_implementation, movement_cost, vjp::scatter_vjp, batching::loop, &partitioning::replay},
    Primitive{"select_and_gather_add", "reduce_window", {"select_and_gather_add"}, selection_implementation, reduce_window_cost, vjp::select_and_gather_add_vjp, batching::reduce_window, &partitioning::replay},
    Primitive{"select_and_scatter_add", "reduce_window", {"select_and_scatter_add"}, selection_implementation, reduce_window_cost, vjp::select_and_scatter_add_vjp, batching::reduce_window, &partitioning::replay},
    Primitive{"select_n", "where", {"select_n"}, placed_implementation, memory_bound_cost, vjp::select_n_vjp, batching::select_n, &partitioning::select_n},
    Primitive{"shard_map_enter", "shard_map", {"shard_map_enter"}, shard_map_enter_implementation, collective_cost, vjp::shard_map_enter_vjp, batching::shard_map_boundary, &partitioning::shard_map_entry},
    Primitive{"shard_map_exit", "shard_map", {"shard_map_exit"}, shard_map_exit_implementation, collective_cost, vjp::shard_map_exit_vjp, batching::shard_map_boundary, &partitioning::replay},
    Primitive{"sharding_constraint", "with_sharding_constraint", {"sharding_constraint"}, placed_implementation, relayout_cost, vjp::identity_vjp, batching::placement, &partitioning::sharding_constraint},
    unary("sign", UnaryOp::sign, R::promoted, vjp::zero_vjp),
    unary("sin", UnaryOp::sin, R::floating, vjp::sin_vjp),
    Primitive{"slice", "slice", {"slice"}, static_slice_implementation, slice_cost, vjp::slice_vjp, batching::slice, &partitioning::replay},
    Primitive{"slogdet", "linalg.slogdet", {"slogdet"}, slogdet_implementation, linalg_cost, vjp::slogdet_vjp, batching::linalg, &partitioning::replay},
    Primitive{"sort", "sort", {"sort"}, sort_implementation, reduction_cost, vjp::sort_vjp, batching::sort, &partitioning::replay},
    unary("sqrt", UnaryOp::sqrt, R::floating, vjp::sqrt_vjp),
    unary("square", UnaryOp::square, R::promoted, vjp::square_vjp),
    Primitive{"stop_gradient", "stop_gradient", {"stop_gradient"}, identity_implementation, movement_cost, vjp::zero_vjp, batching::convert, &partitioning::replay},
    binary("subtract", BinaryOp::sub, R::promoted, vjp::subtract_vjp),
    Primitive{"svd", "linalg.svd", {"svd"}, svd_implementation, linalg_cost, vjp::svd_vjp, batching::linalg, &partitioning::replay},
    unary("tan", UnaryOp::tan, R::floating, vjp::tan_vjp),
    unary("tanh", UnaryOp::tanh, R::floating, vjp::tanh_vjp),
    Primitive{"transpose", "transpose", {"transpose"}, placed_implementation, movement_cost, vjp::transpose_vjp, batching::transpose, &partitioning::transpose},
    binary("true_divide", BinaryOp::div, R::floating, vjp::divide_vjp),
    Primitive{"update_slice", "at.set", {"update_slice"}, update_slice_implementation, slice_cost, vjp::update_slice_vjp, batching::update_slice, &partitioning::replay},
    Primitive{"vary_unreduced_cast", "pcast", {"vary_unreduced_cast"}, pcast_implementation, collective_cost, vjp::vary_unreduced_cast_vjp, batching::collective, &partitioning::replay},
};

constexpr bool table_sorted() {
  for (std::size_t i = 1; i < primitive_table.size(); ++i)
    if (!(primitive_table[i - 1].name < primitive_table[i].name)) return false;
  return true;
}
static_assert(table_sorted(), "primitive_table must stay sorted by name");

std::string param_text(const ParamValue& value) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(const std::vector<std::int64_t>& v) const {
      std::string out = "(";
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
      return out + (v.size() == 1 ? ",)" : ")");
    }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const Layout& l) const { return typecheck::PartitionSpec::from_entries(l.dims).repr(); }
    std::string operator()(const typecheck::ShardingArg& s) const { return s.spec.repr(); }
  };
  return std::visit(Visitor{}, value);
}

}  // namespace

double bytes_accessed(const std::vector<typecheck::ArrayType>& operands, const typecheck::ArrayType& result) {
  double bytes = bytes_of(result);
  for (const auto& operand : operands) bytes += bytes_of(operand);
  return bytes;
}

std::vector<std::pair<std::string, std::string>> Params::texts() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : entries) out.emplace_back(name, param_text(value));
  return out;
}

std::string Params::str() const {
  if (entries.empty()) return "";
  std::string out = "[";
  for (std::size_t i = 0; i < entries.size(); ++i)
    out += (i ? " " : "") + entries[i].first + "=" + param_text(entries[i].second);
  return out + "]";
}

namespace partitioning {
const Partitioning device_put{"relayout", place_device_put, relayout_kernel, device_put_finish};
}  // namespace partitioning

std::span<const Primitive> primitives() { return primitive_table; }

const Primitive* find_primitive(std::string_view name) {
  auto it = std::lower_bound(primitive_table.begin(), primitive_table.end(), name,
                             [](const Primitive& p, std::string_view n) { return p.name < n; });
  return it != primitive_table.end() && it->name == name ? &*it : nullptr;
}

const Primitive& primitive(std::string_view name) {
  const Primitive* found = find_primitive(name);
  if (!found) raise(exc::NotImplementedError(), "no primitive named " + std::string(name));
  return *found;
}

bool is_elementwise(const Primitive& primitive) { return primitive.partition == &partitioning::elementwise; }

bool is_differentiable(const Primitive& primitive) { return primitive.vjp != vjp::not_differentiable; }

Value bind(Evaluator& evaluator, const Primitive& primitive, std::vector<ArrayRef> operands, Params params) {
  // jax.ensure_compile_time_eval: what can run now does, under any trace.
  if (runtime_of(evaluator).compile_time_eval > 0 && evaluator.mode == Evaluator::Mode::run &&
      std::none_of(operands.begin(), operands.end(), [](const ArrayRef& a) { return a->abstract(); })) {
    static EagerTrace eager;
    return Value(eager.process(evaluator, primitive, operands, params));
  }
  return Value(current_trace(evaluator).process(evaluator, primitive, operands, params));
}

// ------------------------------------------------------------ API helpers

std::optional<typecheck::ShardingArg> sharding_argument(const Value& value) {
  if (value.is_none()) return std::nullopt;
  if (auto* p = value.as<PartitionSpecObject>()) return typecheck::ShardingArg{std::nullopt, p->spec};
  if (auto* n = value.as<NamedShardingObject>()) return typecheck::ShardingArg{n->mesh->abstract, n->spec};
  if (auto* n = value.as<AbstractNamedShardingObject>()) return typecheck::ShardingArg{n->mesh, n->spec};
  raise(exc::TypeError(), "out_sharding must be a PartitionSpec or a NamedSharding");
}

namespace {

// The operands of an elementwise operation as arrays. Eagerly, a Python
// number beside a concrete array is made in the dtype and on the mesh the
// operation computes in (the eager loop's `x * 2 + 1` makes one array per
// number, not three).
std::vector<ArrayRef> elementwise_operands(Evaluator& evaluator, const std::vector<Value>& values) {
  const ArrayObject* concrete = nullptr;
  if (evaluator.mode == Evaluator::Mode::run && runtime_of(evaluator).trace_stack.empty())
    for (const auto& v : values)
      if (auto* array = v.as<ArrayObject>(); array && !array->abstract()) concrete = array;
  std::vector<ArrayRef> operands;
  for (const auto& v : values)
    operands.push_back(concrete && v.is_number() ? number_beside(evaluator, v, *concrete) : to_array(evaluator, v));
  return operands;
}

}  // namespace

Value apply_elementwise(Evaluator& evaluator, const Primitive& primitive, const std::vector<Value>& values) {
  std::vector<ArrayRef> operands = elementwise_operands(evaluator, values);
  if (primitive.binary == BinaryOp::pow && primitive.arity == 2 && values[1].is_integral() &&
      operands[0]->aval.dtype != DType::bool_) {
    Params params;
    params.set("y", values[1].as_int());
    return bind(evaluator, *find_primitive("integer_pow"), {operands[0]}, std::move(params));
  }
  return bind(evaluator, primitive, std::move(operands));
}

namespace {

Value converted(Evaluator& evaluator, const Value& operand, DType dtype) {
  ArrayRef array = to_array(evaluator, operand);
  if (array->aval.dtype == dtype) return operand;
  Params params;
  params.set("new_dtype", std::string(typecheck::long_name(dtype)));
  return bind(evaluator, primitive("convert_element_type"), {array}, std::move(params));
}

// jnp.mean as JAX computes it: the sum divided by the count of the reduced
// elements, so a jaxpr shows reduce_sum and div; integers average in
// float32. JAX sums 16-bit floats in float32 (converts around the sum that
// XLA fuses away); shardlang, which does not fuse, sums them in their own
// dtype, its kernel accumulating in float32, so that no float32 copy of
// the operand counts in memory or time.
Value apply_mean(Evaluator& evaluator, const ArrayRef& operand, const Value& axis_value, bool keepdims) {
  const DType result = typecheck::is_floating(operand->aval.dtype) ? operand->aval.dtype : DType::float32;
  Value total = apply_reduction(evaluator, "sum", converted(evaluator, Value(operand), result), axis_value, keepdims);
  double count = reduced_element_count(evaluator, operand->aval.shape, axis_value);
  return apply_elementwise(evaluator, primitive("divide"), {total, Value::floating(count)});
}

}  // namespace

double reduced_element_count(Evaluator& evaluator, const typecheck::Shape& shape, const Value& axis_value) {
  const auto rank = static_cast<std::int64_t>(shape.size());
  double count = 1;
  auto count_axis = [&](std::int64_t axis) {
    if (axis < -rank || axis >= rank) return;  // the reduction itself reports it
    count *= static_cast<double>(shape[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)]);
  };
  if (axis_value.is_none())
    for (std::int64_t axis = 0; axis < rank; ++axis) count_axis(axis);
  else if (axis_value.is_integral())
    count_axis(axis_value.as_int());
  else
    for (const auto& v : evaluator.to_vector(axis_value)) count_axis(evaluator.index_of(v));
  return count;
}

Value apply_reduction(Evaluator& evaluator, std::string_view name, const Value& operand_value, const Value& axis_value,
                      bool keepdims) {
  ArrayRef operand = to_array(evaluator, operand_value);
  OneDispatchScope one_call(evaluator);  // JAX jits jnp's reductions
  if (name == "mean") return apply_mean(evaluator, operand, axis_value, keepdims);
  const bool narrow = operand->aval.dtype == DType::bool_ || operand->aval.dtype == DType::int8;
  if ((name == "sum" || name == "prod") && narrow)
    return bind_reduction(evaluator, name, converted(evaluator, Value(operand), DType::int32), axis_value, keepdims);
  return bind_reduction(evaluator, name, Value(operand), axis_value, keepdims);
}

Value bind_reduction(Evaluator& evaluator, std::string_view name, const Value& operand_value, const Value& axis_value,
                     bool keepdims) {
  ArrayRef operand = to_array(evaluator, operand_value);
  Params params;
  if (!axis_value.is_none()) {
    std::vector<std::int64_t> axes;
    if (axis_value.is_integral()) axes.push_back(axis_value.as_int());
    else
      for (const auto& v : evaluator.to_vector(axis_value)) axes.push_back(evaluator.index_of(v));
    params.set("axes", axes);
  }
  params.set("keepdims", keepdims);
  std::string primitive_name = name == "argmax" || name == "argmin" ? std::string(name) : "reduce_" + std::string(name);
  return bind(evaluator, primitive(primitive_name), {operand}, std::move(params));
}

Value apply_reshape(Evaluator& evaluator, const Value& operand_value, const std::vector<std::int64_t>& sizes,
                    const Value& out_sharding) {
  ArrayRef operand = to_array(evaluator, operand_value);
  typecheck::Shape shape = checked(typecheck::resolve_reshape_sizes(operand->aval.shape, sizes));
  Params params;
  params.set("new_sizes", std::vector<std::int64_t>(shape.begin(), shape.end()));
  if (auto requested = sharding_argument(out_sharding)) params.set("out_sharding", *requested);
  return bind(evaluator, primitive("reshape"), {operand}, std::move(params));
}

Value apply_transpose(Evaluator& evaluator, const Value& operand_value, const std::vector<int>& permutation) {
  ArrayRef operand = to_array(evaluator, operand_value);
  Params params;
  params.set("permutation", std::vector<std::int64_t>(permutation.begin(), permutation.end()));
  return bind(evaluator, primitive("transpose"), {operand}, std::move(params));
}

Value apply_device_put(Evaluator& evaluator, const ArrayRef& operand, const Layout& layout,
                       const std::optional<typecheck::PartitionSpec>& requested, std::string_view primitive_name) {
  Params params;
  params.set("layout", layout);
  if (requested) params.set("requested", typecheck::ShardingArg{std::nullopt, *requested});
  return bind(evaluator, primitive(primitive_name), {operand}, std::move(params));
}

}  // namespace interp
