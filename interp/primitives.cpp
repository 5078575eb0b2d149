// The primitive table and the eager planner (primitives.hpp).
#include "interp/primitives.hpp"

#include <algorithm>
#include <array>

#include "devices/collectives.hpp"
#include "interp/builtins.hpp"
#include "typecheck/elementwise_rules.hpp"
#include "typecheck/reduction_rules.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shape_rules.hpp"
#include "typecheck/creation_rules.hpp"

namespace interp {

using devices::BinaryOp;
using devices::UnaryOp;
using typecheck::DType;

namespace {
constexpr UnaryOp no_unary = UnaryOp::neg;
constexpr BinaryOp no_binary = BinaryOp::add;
using R = ElementwiseResult;

// Sorted by name.
constexpr std::array elementwise_table{
    ElementwisePrimitive{"abs", "jnp.abs", 1, UnaryOp::abs, no_binary, R::promoted},
    ElementwisePrimitive{"add", "jnp.add", 2, no_unary, BinaryOp::add, R::promoted},
    ElementwisePrimitive{"cos", "jnp.cos", 1, UnaryOp::cos, no_binary, R::floating},
    ElementwisePrimitive{"divide", "jnp.divide", 2, no_unary, BinaryOp::div, R::floating},
    ElementwisePrimitive{"equal", "jnp.equal", 2, no_unary, BinaryOp::eq, R::boolean},
    ElementwisePrimitive{"exp", "jnp.exp", 1, UnaryOp::exp, no_binary, R::floating},
    ElementwisePrimitive{"expm1", "jnp.expm1", 1, UnaryOp::expm1, no_binary, R::floating},
    ElementwisePrimitive{"floor_divide", "jnp.floor_divide", 2, no_unary, BinaryOp::floor_divide, R::promoted},
    ElementwisePrimitive{"greater", "jnp.greater", 2, no_unary, BinaryOp::gt, R::boolean},
    ElementwisePrimitive{"greater_equal", "jnp.greater_equal", 2, no_unary, BinaryOp::ge, R::boolean},
    ElementwisePrimitive{"less", "jnp.less", 2, no_unary, BinaryOp::lt, R::boolean},
    ElementwisePrimitive{"less_equal", "jnp.less_equal", 2, no_unary, BinaryOp::le, R::boolean},
    ElementwisePrimitive{"log", "jnp.log", 1, UnaryOp::log, no_binary, R::floating},
    ElementwisePrimitive{"log1p", "jnp.log1p", 1, UnaryOp::log1p, no_binary, R::floating},
    ElementwisePrimitive{"logical_and", "jnp.logical_and", 2, no_unary, BinaryOp::logical_and, R::boolean},
    ElementwisePrimitive{"logical_not", "jnp.logical_not", 1, UnaryOp::logical_not, no_binary, R::boolean},
    ElementwisePrimitive{"logical_or", "jnp.logical_or", 2, no_unary, BinaryOp::logical_or, R::boolean},
    ElementwisePrimitive{"maximum", "jnp.maximum", 2, no_unary, BinaryOp::max, R::promoted},
    ElementwisePrimitive{"minimum", "jnp.minimum", 2, no_unary, BinaryOp::min, R::promoted},
    ElementwisePrimitive{"multiply", "jnp.multiply", 2, no_unary, BinaryOp::mul, R::promoted},
    ElementwisePrimitive{"negative", "jnp.negative", 1, UnaryOp::neg, no_binary, R::promoted},
    ElementwisePrimitive{"not_equal", "jnp.not_equal", 2, no_unary, BinaryOp::ne, R::boolean},
    ElementwisePrimitive{"power", "jnp.power", 2, no_unary, BinaryOp::pow, R::promoted},
    ElementwisePrimitive{"remainder", "jnp.remainder", 2, no_unary, BinaryOp::rem, R::promoted},
    ElementwisePrimitive{"rsqrt", "lax.rsqrt", 1, UnaryOp::rsqrt, no_binary, R::floating},
    ElementwisePrimitive{"sign", "jnp.sign", 1, UnaryOp::sign, no_binary, R::promoted},
    ElementwisePrimitive{"sin", "jnp.sin", 1, UnaryOp::sin, no_binary, R::floating},
    ElementwisePrimitive{"sqrt", "jnp.sqrt", 1, UnaryOp::sqrt, no_binary, R::floating},
    ElementwisePrimitive{"square", "jnp.square", 1, UnaryOp::square, no_binary, R::promoted},
    ElementwisePrimitive{"subtract", "jnp.subtract", 2, no_unary, BinaryOp::sub, R::promoted},
    ElementwisePrimitive{"tan", "jnp.tan", 1, UnaryOp::tan, no_binary, R::floating},
    ElementwisePrimitive{"tanh", "jnp.tanh", 1, UnaryOp::tanh, no_binary, R::floating},
    ElementwisePrimitive{"true_divide", "jnp.true_divide", 2, no_unary, BinaryOp::div, R::floating},
};

constexpr bool table_sorted() {
  for (std::size_t i = 1; i < elementwise_table.size(); ++i)
    if (!(elementwise_table[i - 1].name < elementwise_table[i].name)) return false;
  return true;
}
static_assert(table_sorted(), "elementwise_table must stay sorted by name");

template <class T>
T value_or_raise(devices::Expected<T> result) {
  if (!result) raise_devices_error(result.error());
  return std::move(*result);
}

std::string device_ids_text(const DeviceMesh& mesh) {
  std::string out = "[";
  auto ids = mesh.device_ids();
  for (std::size_t i = 0; i < ids.size(); ++i) out += (i ? ", " : "") + std::to_string(ids[i]);
  return out + "]";
}

// Committed operands must share their devices, in the same order (c04's
// ValueError). Returns the mesh the computation runs on: a committed
// operand's, else the most sharded operand's.
DeviceMeshRef computation_mesh(Evaluator& evaluator, std::string_view api_name, const std::vector<ArrayRef>& operands) {
  const ArrayObject* committed = nullptr;
  std::size_t committed_index = 0;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const auto& a = operands[i];
    if (!a->committed) continue;
    if (!committed) {
      committed = a.get();
      committed_index = i;
      continue;
    }
    if (a->layout.mesh->device_ids() != committed->layout.mesh->device_ids()) {
      auto describe = [&](std::size_t index, const ArrayObject& x) {
        std::string platform(devices::platform_display_name(x.layout.mesh->devices[0].platform));
        return "argument x" + std::to_string(index + 1) + " of jax.numpy." + std::string(api_name) + " with shape " +
               x.aval.format({.short_dtypes = false, .weak_marker = false}) + " and device ids " +
               device_ids_text(*x.layout.mesh) + " on platform " + platform;
      };
      raise(exc::ValueError(), "Received incompatible devices for jitted computation. Got " +
                                   describe(committed_index, *committed) + " and " + describe(i, *a));
    }
  }
  if (committed) return committed->layout.mesh;
  const ArrayObject* widest = operands[0].get();
  for (const auto& a : operands)
    if (a->layout.mesh->devices.size() > widest->layout.mesh->devices.size()) widest = a.get();
  (void)evaluator;
  return widest->layout.mesh;
}

bool any_committed(const std::vector<ArrayRef>& operands) {
  return std::any_of(operands.begin(), operands.end(), [](const ArrayRef& a) { return a->committed; });
}

// A layout's dims moved onto `mesh` (the same axis names exist there when
// the meshes share devices); dims on another mesh are dropped.
std::vector<typecheck::SpecEntry> dims_on(const ArrayObject& array, const DeviceMeshRef& mesh) {
  if (array.layout.mesh == mesh || (array.layout.mesh->device_ids() == mesh->device_ids() &&
                                    *array.layout.mesh->abstract == *mesh->abstract))
    return array.layout.dims;
  return std::vector<typecheck::SpecEntry>(array.aval.ndim());
}

bool explicit_mesh(const typecheck::ArrayType& type) { return typecheck::has_explicit_axis(type.sharding.mesh); }

// The layout of a result of `type` on `mesh`: the type's sharding where it
// has Explicit axes, else `auto_dims` (computation follows data).
Layout result_layout(const typecheck::ArrayType& type, const DeviceMeshRef& mesh, std::vector<typecheck::SpecEntry> auto_dims) {
  Layout layout{mesh, explicit_mesh(type) ? type.sharding.dims : std::move(auto_dims)};
  layout.dims.resize(type.ndim());
  return layout;
}

typecheck::ElementType promoted(const std::vector<ArrayRef>& operands) {
  std::vector<typecheck::ElementType> elements;
  for (const auto& a : operands) elements.push_back(a->aval.element_type());
  return typecheck::result_type(elements);
}

}  // namespace

std::span<const ElementwisePrimitive> elementwise_primitives() { return elementwise_table; }

const ElementwisePrimitive* find_elementwise(std::string_view name) {
  auto it = std::lower_bound(elementwise_table.begin(), elementwise_table.end(), name,
                             [](const ElementwisePrimitive& p, std::string_view n) { return p.name < n; });
  return it != elementwise_table.end() && it->name == name ? &*it : nullptr;
}

Value apply_elementwise(Evaluator& evaluator, const ElementwisePrimitive& primitive, const std::vector<Value>& values) {
  std::vector<ArrayRef> operands;
  for (const auto& v : values) operands.push_back(to_array(evaluator, v));
  DeviceMeshRef mesh = computation_mesh(evaluator, primitive.name, operands);

  // Dtypes: promote, then the primitive's own result kind.
  typecheck::ElementType common = promoted(operands);
  if (primitive.result == R::floating && !typecheck::is_floating(common.dtype)) common = {DType::float32, common.weak_type};
  typecheck::ElementType result = primitive.result == R::boolean ? typecheck::ElementType{DType::bool_, false} : common;
  DType compute = common.dtype;
  if (primitive.binary == BinaryOp::logical_and || primitive.binary == BinaryOp::logical_or ||
      primitive.unary == UnaryOp::logical_not)
    compute = DType::bool_;

  // Shapes and shardings: the typecheck rule.
  std::vector<typecheck::ArrayType> types;
  for (const auto& a : operands) types.push_back(a->aval);
  typecheck::ArrayType out_type =
      primitive.arity == 1 ? checked(typecheck::unary_rule(primitive.name, types[0], result))
                           : checked(typecheck::jnp_elementwise_rule(primitive.name, types, result));

  // Auto: the result follows the most sharded operand of the result's rank.
  std::vector<typecheck::SpecEntry> auto_dims(out_type.ndim());
  std::size_t best = 0;
  for (const auto& a : operands) {
    if (a->aval.shape != out_type.shape) continue;
    auto dims = dims_on(*a, mesh);
    std::size_t sharded = static_cast<std::size_t>(std::count_if(dims.begin(), dims.end(), [](const auto& e) { return !e.empty(); }));
    if (sharded > best) {
      best = sharded;
      auto_dims = dims;
    }
  }
  Layout out_layout = result_layout(out_type, mesh, auto_dims);

  // Each operand in the result's layout on its trailing dims (size-1 and
  // missing dims broadcast, so they are whole on every device).
  std::vector<ArrayRef> inputs;
  for (const auto& a : operands) {
    Layout needed{mesh, {}};
    std::size_t offset = out_type.ndim() - a->aval.ndim();
    for (std::size_t d = 0; d < a->aval.ndim(); ++d)
      needed.dims.push_back(a->aval.shape[d] == out_type.shape[d + offset] ? out_layout.dims[d + offset]
                                                                            : typecheck::SpecEntry{});
    inputs.push_back(astype(evaluator, relayout(evaluator, a, needed), compute));
  }
  bool committed = any_committed(operands);
  if (evaluator.mode == Evaluator::Mode::check) return Value(make_abstract_array(out_type, out_layout, committed));

  auto shards = run_per_position(evaluator, mesh, inputs, [&](const std::vector<devices::LocalArray>& in) {
    if (primitive.arity == 1) return devices::unary(primitive.unary, in[0]);
    // Operands of lower rank get leading 1s so the kernel broadcasts them.
    std::vector<devices::LocalArray> ranked = in;
    std::size_t rank = std::max(in[0].shape.size(), in[1].shape.size());
    for (auto& r : ranked) {
      if (r.shape.size() == rank) continue;
      devices::Shape s(rank - r.shape.size(), 1);
      s.insert(s.end(), r.shape.begin(), r.shape.end());
      auto reshaped = devices::reshape(r, s);
      if (!reshaped) return reshaped;
      r = *reshaped;
    }
    return devices::binary(primitive.binary, ranked[0], ranked[1]);
  });
  ArrayRef out = make_array(evaluator, out_type, out_layout, std::move(shards), committed);
  if (result.dtype != compute && primitive.result != R::boolean) return Value(astype(evaluator, out, result.dtype));
  return Value(out);
}

// ------------------------------------------------------------ dot

namespace {

// The sharding argument as a typecheck ShardingArg (a P or a NamedSharding).
std::optional<typecheck::ShardingArg> sharding_argument(const Value& value) {
  if (value.is_none()) return std::nullopt;
  if (auto* p = value.as<PartitionSpecObject>()) return typecheck::ShardingArg{std::nullopt, p->spec};
  if (auto* n = value.as<NamedShardingObject>()) return typecheck::ShardingArg{n->mesh->abstract, n->spec};
  raise(exc::TypeError(), "out_sharding must be a PartitionSpec or a NamedSharding");
}

}  // namespace

Value apply_dot(Evaluator& evaluator, const Value& lhs_value, const Value& rhs_value, const Value& out_sharding) {
  ArrayRef lhs = to_array(evaluator, lhs_value), rhs = to_array(evaluator, rhs_value);
  if (lhs->aval.ndim() == 0 || rhs->aval.ndim() == 0)
    return apply_elementwise(evaluator, *find_elementwise("multiply"), {Value(lhs), Value(rhs)});
  if (lhs->aval.ndim() > 2 || rhs->aval.ndim() > 2)
    raise(exc::NotImplementedError(), "jnp.dot of operands of rank above 2");
  DeviceMeshRef mesh = computation_mesh(evaluator, "dot", {lhs, rhs});
  typecheck::ElementType element = promoted({lhs, rhs});
  lhs = astype(evaluator, lhs, element.dtype);
  rhs = astype(evaluator, rhs, element.dtype);

  typecheck::DotDimensionNumbers numbers{{static_cast<int>(lhs->aval.ndim()) - 1}, {0}, {}, {}};
  std::optional<typecheck::Sharding> out;
  if (auto argument = sharding_argument(out_sharding)) {
    typecheck::Shape shape;
    if (lhs->aval.ndim() == 2) shape.push_back(lhs->aval.shape[0]);
    if (rhs->aval.ndim() == 2) shape.push_back(rhs->aval.shape[1]);
    typecheck::MeshRef context = runtime_of(evaluator).context_mesh ? runtime_of(evaluator).context_mesh->mesh->abstract : nullptr;
    out = checked(typecheck::canonicalize_out_sharding("jnp.dot", argument, context, shape));
  }
  typecheck::ArrayType out_type = checked(typecheck::dot_general_rule(lhs->aval, rhs->aval, numbers, element, out));

  // Auto: free dims keep their operand's axes, the contraction is split as
  // the lhs's contracting dim (the rhs follows), and is all-reduced.
  auto lhs_dims = dims_on(*lhs, mesh), rhs_dims = dims_on(*rhs, mesh);
  std::size_t lc = lhs->aval.ndim() - 1;
  typecheck::SpecEntry contracting = lhs_dims[lc].empty() ? rhs_dims[0] : lhs_dims[lc];
  std::vector<typecheck::SpecEntry> auto_dims;
  typecheck::AxisSet used(contracting.begin(), contracting.end());
  auto take = [&](const typecheck::SpecEntry& e) {
    for (const auto& a : e)
      if (used.count(a)) return typecheck::SpecEntry{};
    used.insert(e.begin(), e.end());
    return e;
  };
  if (lhs->aval.ndim() == 2) auto_dims.push_back(take(lhs_dims[0]));
  if (rhs->aval.ndim() == 2) auto_dims.push_back(take(rhs_dims[1]));
  Layout out_layout = result_layout(out_type, mesh, auto_dims);

  // Operands: free dims as the result has them, contraction split by `contracting`.
  Layout lhs_needed{mesh, {}}, rhs_needed{mesh, {}};
  std::size_t k = 0;
  if (lhs->aval.ndim() == 2) lhs_needed.dims.push_back(out_layout.dims[k++]);
  lhs_needed.dims.push_back(contracting);
  rhs_needed.dims.push_back(contracting);
  if (rhs->aval.ndim() == 2) rhs_needed.dims.push_back(out_layout.dims[k]);
  // A contraction axis that the result also uses cannot be split.
  for (const auto& e : out_layout.dims)
    for (const auto& a : e)
      if (std::find(contracting.begin(), contracting.end(), a) != contracting.end()) {
        lhs_needed.dims[lhs->aval.ndim() - 1].clear();
        rhs_needed.dims[0].clear();
        contracting.clear();
      }
  lhs = relayout(evaluator, lhs, lhs_needed);
  rhs = relayout(evaluator, rhs, rhs_needed);
  bool committed = any_committed({lhs, rhs});
  if (evaluator.mode == Evaluator::Mode::check) return Value(make_abstract_array(out_type, out_layout, committed));

  devices::DotDimensions dims{{}, {}, {static_cast<int>(lhs->aval.ndim()) - 1}, {0}};
  auto shards = run_per_position(evaluator, mesh, {lhs, rhs}, [&](const std::vector<devices::LocalArray>& in) {
    return devices::dot_general(in[0], in[1], dims);
  });
  // Partial sums over a split contraction: all-reduce, and slice what the
  // result layout keeps of them.
  Layout partial{mesh, out_layout.dims};
  if (!contracting.empty()) {
    std::vector<int> axes;
    for (const auto& a : contracting) axes.push_back(static_cast<int>(*mesh->abstract->index_of(a)));
    shards = value_or_raise(devices::all_reduce_sum(shards, partial.shard_shape(out_type.shape),
                                                    devices::replica_groups(mesh->shape, axes)));
  }
  return Value(make_array(evaluator, out_type, out_layout, std::move(shards), committed));
}

// ------------------------------------------------------------ reductions

Value apply_reduction(Evaluator& evaluator, std::string_view name, const Value& operand_value, const Value& axis_value,
                      bool keepdims) {
  ArrayRef operand = to_array(evaluator, operand_value);
  std::optional<std::vector<std::int64_t>> axis;
  if (!axis_value.is_none()) {
    axis.emplace();
    if (axis_value.is_integral()) axis->push_back(axis_value.as_int());
    else
      for (const auto& v : evaluator.to_vector(axis_value)) axis->push_back(evaluator.index_of(v));
  }
  typecheck::ArrayType out_type = checked(typecheck::reduction_rule(name, operand->aval, axis, keepdims));
  auto axes = checked(typecheck::reduction_axes(axis, operand->aval.ndim()));
  DeviceMeshRef mesh = operand->layout.mesh;

  std::vector<typecheck::SpecEntry> kept;
  for (std::size_t d = 0; d < operand->aval.ndim(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced) kept.push_back(operand->layout.dims[d]);
    else if (keepdims) kept.emplace_back();
  }
  Layout out_layout = result_layout(out_type, mesh, kept);
  bool committed = operand->committed;
  if (evaluator.mode == Evaluator::Mode::check) return Value(make_abstract_array(out_type, out_layout, committed));

  // The kernels reduce whole dims: gather what the result does not keep split.
  Layout needed = operand->layout;
  bool split_reduction = false;
  std::vector<int> reduce_axes;
  for (std::size_t d : axes) {
    reduce_axes.push_back(static_cast<int>(d));
    if (!needed.dims[d].empty()) split_reduction = true;
  }
  bool sum_like = name == "sum" || name == "mean";
  if (split_reduction && !sum_like)
    for (std::size_t d : axes) needed.dims[d].clear();
  // Non-reduced dims as the result wants them.
  for (std::size_t d = 0, k = 0; d < operand->aval.ndim(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced) needed.dims[d] = out_layout.dims[k++];
    else if (keepdims) ++k;
  }
  ArrayRef input = relayout(evaluator, operand, needed);
  DType compute = out_type.dtype;
  if (name == "argmax" || name == "argmin" || name == "max" || name == "min") compute = operand->aval.dtype;
  if (compute == DType::bool_ && (name == "sum" || name == "prod")) compute = DType::int32;
  input = astype(evaluator, input, compute == DType::int32 && typecheck::is_floating(operand->aval.dtype) ? operand->aval.dtype : compute);
  devices::ReduceOp op = name == "prod" ? devices::ReduceOp::prod
                         : name == "max" ? devices::ReduceOp::max
                         : name == "min" ? devices::ReduceOp::min
                         : name == "argmax" ? devices::ReduceOp::argmax
                         : name == "argmin" ? devices::ReduceOp::argmin
                                            : devices::ReduceOp::sum;
  typecheck::Shape kept_shape;
  for (std::size_t d = 0; d < operand->aval.ndim(); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept_shape.push_back(operand->aval.shape[d]);
  Layout kept_layout{mesh, {}};
  for (std::size_t d = 0; d < operand->aval.ndim(); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept_layout.dims.push_back(needed.dims[d]);
  auto shards = run_per_position(evaluator, mesh, {input}, [&](const std::vector<devices::LocalArray>& in) {
    return devices::reduce(op, in[0], reduce_axes);
  });
  if (split_reduction && sum_like) {
    std::vector<int> mesh_axes;
    for (std::size_t d : axes)
      for (const auto& a : input->layout.dims[d]) mesh_axes.push_back(static_cast<int>(*mesh->abstract->index_of(a)));
    std::sort(mesh_axes.begin(), mesh_axes.end());
    shards = value_or_raise(devices::all_reduce_sum(shards, kept_layout.shard_shape(kept_shape),
                                                    devices::replica_groups(mesh->shape, mesh_axes)));
  }
  typecheck::ArrayType reduced_type = out_type;
  reduced_type.shape = kept_shape;
  reduced_type.dtype = shards.empty() ? compute : shards[0]->dtype();
  ArrayRef out = make_array(evaluator, reduced_type, kept_layout, std::move(shards), committed);
  if (name == "mean") {
    std::int64_t count = 1;
    for (std::size_t d : axes) count *= operand->aval.shape[d];
    out = to_array(evaluator, apply_elementwise(evaluator, *find_elementwise("divide"),
                                                {Value(out), Value::floating(static_cast<double>(count))}));
  }
  out = astype(evaluator, out, out_type.dtype);
  if (keepdims) return apply_reshape(evaluator, Value(out), out_type.shape);
  out->aval = out_type;
  return Value(out);
}

// ------------------------------------------------------------ shapes

Value apply_reshape(Evaluator& evaluator, const Value& operand_value, const std::vector<std::int64_t>& sizes) {
  ArrayRef operand = to_array(evaluator, operand_value);
  typecheck::Shape shape = checked(typecheck::resolve_reshape_sizes(operand->aval.shape, sizes));
  typecheck::ArrayType out_type = checked(typecheck::reshape_rule(operand->aval, shape));
  DeviceMeshRef mesh = operand->layout.mesh;
  // Auto: a reshape keeps the layout only where it keeps the shape.
  std::vector<typecheck::SpecEntry> auto_dims(shape.size());
  if (shape == operand->aval.shape) auto_dims = operand->layout.dims;
  Layout out_layout = result_layout(out_type, mesh, auto_dims);
  if (evaluator.mode == Evaluator::Mode::check) return Value(make_abstract_array(out_type, out_layout, operand->committed));
  // Whole on every device, reshaped, then split as the result wants.
  Layout whole{mesh, std::vector<typecheck::SpecEntry>(operand->aval.ndim())};
  ArrayRef input = relayout(evaluator, operand, whole);
  auto shards = run_per_position(evaluator, mesh, {input}, [&](const std::vector<devices::LocalArray>& in) {
    return devices::reshape(in[0], shape);
  });
  Layout replicated{mesh, std::vector<typecheck::SpecEntry>(shape.size())};
  ArrayRef out = make_array(evaluator, out_type, replicated, std::move(shards), operand->committed);
  return Value(relayout(evaluator, out, out_layout));
}

Value apply_transpose(Evaluator& evaluator, const Value& operand_value, const std::vector<int>& permutation) {
  ArrayRef operand = to_array(evaluator, operand_value);
  typecheck::ArrayType out_type = checked(typecheck::transpose_rule(operand->aval, permutation));
  std::vector<typecheck::SpecEntry> dims;
  for (int p : permutation) dims.push_back(operand->layout.dims[static_cast<std::size_t>(p)]);
  Layout out_layout = result_layout(out_type, operand->layout.mesh, dims);
  if (evaluator.mode == Evaluator::Mode::check) return Value(make_abstract_array(out_type, out_layout, operand->committed));
  // The operand laid out so that its transpose is the result's layout.
  Layout needed = operand->layout;
  for (std::size_t k = 0; k < permutation.size(); ++k) needed.dims[static_cast<std::size_t>(permutation[k])] = out_layout.dims[k];
  ArrayRef input = relayout(evaluator, operand, needed);
  auto shards = run_per_position(evaluator, operand->layout.mesh, {input}, [&](const std::vector<devices::LocalArray>& in) {
    return devices::transpose(in[0], permutation);
  });
  return Value(make_array(evaluator, out_type, out_layout, std::move(shards), operand->committed));
}

}  // namespace interp
