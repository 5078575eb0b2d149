#include "typecheck/collective_rules.hpp"

#include <set>

#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shape_arithmetic.hpp"

namespace typecheck {

namespace {

bool is_bound(const std::string& axis, const CollectiveContext& context) {
  const MeshAxis* found = context.mesh ? context.mesh->find(axis) : nullptr;
  return found && found->type == AxisType::Manual;
}

// _check_axis_names
std::optional<Error> check_axis_names(const AxisList& axes, std::string_view api, const CollectiveContext& context) {
  for (const std::string& axis : axes)
    if (!is_bound(axis, context))
      return Error{ErrorClass::NameError, "Found an unbound axis name: " + axis + ". To fix this, please call " +
                                              std::string(api) + " under `jax.shard_map`."};
  return std::nullopt;
}

// core.check_unreduced_args
std::optional<Error> check_unreduced_args(const ArrayType& operand, const AxisList& axes, std::string_view name,
                                          const CollectiveContext& context) {
  const AxisSet named(axes.begin(), axes.end());
  for (auto [label, held] : {std::pair{"unreduced", &operand.manual.unreduced},
                             std::pair{"reduced", &operand.manual.reduced}})
    for (const std::string& axis : axes)
      if (held->contains(axis))
        return Error{ErrorClass::ValueError, std::string(name) + " cannot accept args which are " + label + ". Got " +
                                                 operand.short_str() +
                                                 " and axes=" + axis_set_repr(named, context.mesh)};
  return std::nullopt;
}

// _get_from: the one state (varying, unreduced, reduced, invarying) the axes
// share in the operand.
Checked<std::string> input_state(const ArrayType& operand, const AxisList& axes, std::string_view name) {
  static constexpr std::string_view order[] = {"varying", "unreduced", "reduced", "invarying"};
  std::set<std::string_view> states;
  for (const std::string& axis : axes) {
    if (operand.manual.varying.contains(axis)) states.insert("varying");
    else if (operand.manual.unreduced.contains(axis)) states.insert("unreduced");
    else if (operand.manual.reduced.contains(axis)) states.insert("reduced");
    else states.insert("invarying");
  }
  if (states.size() == 1) return std::string(*states.begin());
  std::vector<std::string> names;
  for (std::string_view state : order)
    if (states.contains(state)) names.emplace_back(state);
  return Error{ErrorClass::ValueError, std::string(name) +
                                           " can only accept axis_name which corresponds to one of varying, "
                                           "unreduced, reduced or invarying state of the input. Got input type: " +
                                           operand.str() + ", axes: " + axes_tuple_repr(axes) +
                                           " and input state: " + python_set_repr(names)};
}

// The pvary primitive: bound names, no unreduced/reduced, invariant input.
Checked<ArrayType> bind_pvary(const ArrayType& operand, const AxisList& axes, const CollectiveContext& context) {
  if (axes.empty()) return operand;
  if (std::optional<Error> error = check_axis_names(axes, "pvary", context)) return *error;
  if (std::optional<Error> error = check_unreduced_args(operand, axes, "pvary", context)) return *error;
  for (const std::string& axis : axes)
    if (operand.manual.varying.contains(axis))
      return Error{ErrorClass::ValueError,
                   "pvary is a invariant->variant collective. This means that the axis names mentioned in `axes` "
                   "passed to `pvary` must not be present in `jax.typeof(inp).mat.varying`. Got axes=" +
                       axes_tuple_repr(axes) + " and jax.typeof(inp)=" + operand.str()};
  ArrayType out = operand;
  out.manual.varying.insert(axes.begin(), axes.end());
  return out;
}

// insert_collective_pvary: with auto_pcast, the axes the operand does not
// vary over yet are added by a pvary.
Checked<ArrayType> insert_collective_pvary(const ArrayType& operand, const AxisList& axes,
                                           const CollectiveContext& context) {
  if (!context.auto_pcast || !context.check_vma) return operand;
  AxisList missing;
  for (const std::string& axis : axes)
    if (!operand.manual.varying.contains(axis)) missing.push_back(axis);
  return bind_pvary(operand, missing, context);
}

// collective_vma_rule: the input must vary over every axis.
Checked<AxisSet> collective_vma(std::string_view primitive, const AxisList& axes, const ArrayType& operand,
                                const CollectiveContext& context) {
  if (!context.check_vma) return AxisSet{};
  for (const std::string& axis : axes)
    if (!operand.manual.varying.contains(axis))
      return Error{ErrorClass::ValueError,
                   "Collective " + std::string(primitive) + " must be applied to a device-varying  type, but got " +
                       frozenset_repr(operand.manual.varying, context.mesh) +
                       " for collective acting over axis name " + axes_tuple_repr(axes) +
                       ". Please open an issue at https://github.com/jax-ml/jax/issues and as a temporary "
                       "workaround pass the check_vma=False argument to `jax.shard_map`"};
  return operand.manual.varying;
}

std::int64_t total_size(const AxisList& axes, const CollectiveContext& context) {
  return axes_size(context.mesh, axes);
}

AxisSet minus(const AxisSet& axes, const AxisList& removed) {
  AxisSet out = axes;
  for (const std::string& axis : removed) out.erase(axis);
  return out;
}

// The common start of the varying->varying collectives: auto pvary, bound
// names, no unreduced/reduced inputs.
Checked<ArrayType> prepare_collective(std::string_view primitive, const ArrayType& operand, const AxisList& axes,
                                      const CollectiveContext& context) {
  Checked<ArrayType> pvaried = insert_collective_pvary(operand, axes, context);
  if (!pvaried) return pvaried;
  if (std::optional<Error> error = check_axis_names(axes, primitive, context)) return *error;
  if (std::optional<Error> error = check_unreduced_args(pvaried.value(), axes, primitive, context)) return *error;
  return pvaried;
}

}  // namespace

Checked<AxisSet> standard_vma_rule(std::string_view primitive, std::span<const ArrayType* const> operands,
                                   const CollectiveContext& context) {
  if (!context.check_vma || operands.empty()) return AxisSet{};
  if (context.auto_pcast) return varying_union(operands);
  bool equal = true;
  for (const ArrayType* operand : operands) equal = equal && operand->manual.varying == operands[0]->manual.varying;
  if (equal) return operands[0]->manual.varying;
  std::string vmas;
  for (const ArrayType* operand : operands)
    vmas += (vmas.empty() ? "" : ", ") + frozenset_repr(operand->manual.varying, context.mesh);
  return Error{ErrorClass::ValueError, "Primitive " + std::string(primitive) +
                                           " requires varying manual axes to match, but got [" + vmas +
                                           "]. Please open an issue at https://github.com/jax-ml/jax/issues and as a "
                                           "temporary workaround pass the check_vma=False argument to "
                                           "`jax.shard_map`"};
}

Checked<ArrayType> psum_rule(std::string_view api, const ArrayType& operand, const AxisList& axes,
                             const CollectiveContext& context) {
  if (axes.empty()) return operand;
  const bool mean = api == "pmean";
  // pmean is psum followed by a true division by the axes' size.
  const std::string reducer = mean ? "psum" : std::string(api);
  auto finish = [&](ArrayType out) {
    if (mean && !is_floating(out.dtype)) {
      out.dtype = DType::float32;
      out.weak_type = false;
    }
    return out;
  };
  Checked<std::string> state = input_state(operand, axes, "jax.lax." + reducer);
  if (!state) return state.error();
  if (state.value() == "unreduced") {
    ArrayType out = operand;
    out.manual.unreduced = minus(out.manual.unreduced, axes);
    return finish(std::move(out));
  }
  if (!context.check_vma) {
    if (std::optional<Error> error = check_axis_names(axes, "psum", context)) return *error;
    if (std::optional<Error> error = check_unreduced_args(operand, axes, "psum", context)) return *error;
    return finish(operand);
  }
  Checked<ArrayType> pvaried = insert_collective_pvary(operand, axes, context);
  if (!pvaried) return pvaried;
  // _psum_invariant_abstract_eval
  if (std::optional<Error> error = check_axis_names(axes, "psum", context)) return *error;
  bool meets = false;
  for (const std::string& axis : axes) meets = meets || pvaried.value().manual.varying.contains(axis);
  if (!meets)
    return Error{ErrorClass::ValueError,
                 "psum is a variant->invariant collective. This means that the axis names mentioned in `axes` passed "
                 "to `psum` must be present in `jax.typeof(inp).mat.varying`. Got axes=" +
                     axes_tuple_repr(axes) + " and jax.typeof(inp).mat.varying=" +
                     frozenset_repr(pvaried.value().manual.varying, context.mesh)};
  const std::string unreduced_name = reducer == "psum" ? "psum_invariant" : reducer;
  if (std::optional<Error> error = check_unreduced_args(pvaried.value(), axes, unreduced_name, context)) return *error;
  ArrayType out = std::move(pvaried).value();
  out.manual.varying = minus(out.manual.varying, axes);
  return finish(std::move(out));
}

Checked<ArrayType> all_gather_rule(const ArrayType& operand, const AxisList& axes, std::int64_t axis, bool tiled,
                                   std::string_view to, const CollectiveContext& context) {
  if (to != "varying" && to != "invarying" && to != "reduced")
    return Error{ErrorClass::ValueError,
                 "Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` values are: {'varying', "
                 "'reduced', 'invarying'}"};
  if (axes.empty()) return operand;
  Checked<ArrayType> prepared = prepare_collective("all_gather", operand, axes, context);
  if (!prepared) return prepared;
  Checked<std::size_t> dim = normalize_axis(axis, operand.ndim() + (tiled ? 0 : 1));
  if (!dim) return dim.error();
  Checked<AxisSet> varying = collective_vma("all_gather", axes, prepared.value(), context);
  if (!varying) return varying.error();

  ArrayType out = std::move(prepared).value();
  const std::int64_t size = total_size(axes, context);
  if (tiled) {
    Checked<std::int64_t> gathered = scaled_dimension(out.shape[dim.value()], size);
    if (!gathered) return gathered.error();
    out.shape[dim.value()] = gathered.value();
  } else {
    out.shape.insert(out.shape.begin() + static_cast<std::ptrdiff_t>(dim.value()), size);
    if (out.sharding.dims.size() + 1 == out.shape.size())
      out.sharding.dims.insert(out.sharding.dims.begin() + static_cast<std::ptrdiff_t>(dim.value()), SpecEntry{});
  }
  out.manual.varying = varying.value();
  if (to != "varying") out.manual.varying = minus(out.manual.varying, axes);
  if (to == "reduced" && context.check_vma) out.manual.reduced.insert(axes.begin(), axes.end());
  return out;
}

Checked<ArrayType> psum_scatter_rule(const ArrayType& operand, const AxisList& axes, std::int64_t scatter_dimension,
                                     bool tiled, const CollectiveContext& context) {
  if (axes.empty()) return operand;
  Checked<ArrayType> prepared = prepare_collective("reduce_scatter", operand, axes, context);
  if (!prepared) return prepared;
  Checked<std::size_t> dim = normalize_axis(scatter_dimension, operand.ndim());
  if (!dim) return dim.error();
  const std::int64_t size = total_size(axes, context);
  const std::int64_t extent = operand.shape[dim.value()];
  ArrayType out = std::move(prepared).value();
  if (tiled) {
    if (extent % size != 0)
      return Error{ErrorClass::ValueError, "tiled reduce_scatter operand scatter dimension size " +
                                               std::to_string(extent) + " must be divisible by shard_count " +
                                               std::to_string(size)};
    out.shape[dim.value()] = extent / size;
  } else {
    if (extent != size)
      return Error{ErrorClass::ValueError, "reduce_scatter operand scatter dimension size " + std::to_string(extent) +
                                               " must match shard count " + std::to_string(size)};
    out.shape.erase(out.shape.begin() + static_cast<std::ptrdiff_t>(dim.value()));
    if (dim.value() < out.sharding.dims.size())
      out.sharding.dims.erase(out.sharding.dims.begin() + static_cast<std::ptrdiff_t>(dim.value()));
  }
  Checked<AxisSet> varying = collective_vma("reduce_scatter", axes, out, context);
  if (!varying) return varying.error();
  out.manual.varying = varying.value();
  return out;
}

Checked<ArrayType> ppermute_rule(const ArrayType& operand, const AxisList& axes,
                                 std::span<const std::pair<std::int64_t, std::int64_t>> perm,
                                 const CollectiveContext& context) {
  Checked<ArrayType> prepared = prepare_collective("ppermute", operand, axes, context);
  if (!prepared) return prepared;
  std::vector<std::string> pairs;
  for (auto [source, destination] : perm)
    pairs.push_back(python_tuple_repr({std::to_string(source), std::to_string(destination)}));
  const std::string perm_repr = python_tuple_repr(pairs);
  // JAX wraps indices modulo the axis size when lowering; shardlang asks
  // for indices in range, which is what every correct program passes.
  const std::int64_t size = total_size(axes, context);
  std::set<std::int64_t> sources;
  std::set<std::int64_t> destinations;
  for (auto [source, destination] : perm) {
    if (source < 0 || source >= size || destination < 0 || destination >= size)
      return Error{ErrorClass::ValueError, "ppermute perm entries must be (source, destination) indices in range(" +
                                               std::to_string(size) + ") along axis_name " + axes_tuple_repr(axes) +
                                               ", got " + perm_repr + "."};
    sources.insert(source);
    destinations.insert(destination);
  }
  if (sources.size() != perm.size() || destinations.size() != perm.size())
    return Error{ErrorClass::ValueError, "ppermute sources and destinations must be unique, got " + perm_repr + "."};
  Checked<AxisSet> varying = collective_vma("ppermute", axes, prepared.value(), context);
  if (!varying) return varying.error();
  ArrayType out = std::move(prepared).value();
  out.manual.varying = varying.value();
  return out;
}

Checked<ArrayType> all_to_all_rule(const ArrayType& operand, const AxisList& axes, std::int64_t split_axis,
                                   std::int64_t concat_axis, bool tiled, const CollectiveContext& context) {
  Checked<std::size_t> split = normalize_axis(split_axis, operand.ndim());
  if (!split) return split.error();
  Checked<std::size_t> concat = normalize_axis(concat_axis, operand.ndim());
  if (!concat) return concat.error();
  const std::int64_t size = total_size(axes, context);
  const std::int64_t extent = operand.shape[split.value()];
  const std::string axis_name = axes.size() == 1 ? axes[0] : axes_tuple_repr(axes);
  if (tiled && extent % size != 0)
    return Error{ErrorClass::ValueError, "The size of all_to_all split_axis (" + std::to_string(extent) +
                                             ") has to be divisible by the size of the named axis " + axis_name +
                                             " (" + std::to_string(size) + ")"};
  if (!tiled && extent != size)
    return Error{ErrorClass::ValueError,
                 "all_to_all requires the size of the mapped axis axis_name to equal x.shape[split_axis], but they "
                 "are " +
                     std::to_string(size) + " and " + std::to_string(extent) + " respectively."};
  Checked<ArrayType> prepared = prepare_collective("all_to_all", operand, axes, context);
  if (!prepared) return prepared;
  Checked<AxisSet> varying = collective_vma("all_to_all", axes, prepared.value(), context);
  if (!varying) return varying.error();

  ArrayType out = std::move(prepared).value();
  out.weak_type = false;
  out.manual.varying = varying.value();
  if (tiled) {
    out.shape[split.value()] /= size;
    Checked<std::int64_t> concatenated = scaled_dimension(out.shape[concat.value()], size);
    if (!concatenated) return concatenated.error();
    out.shape[concat.value()] = concatenated.value();
    return out;
  }
  // np.insert(np.delete(shape, split_axis), concat_axis, axis_size)
  auto at = [](auto& items, std::size_t index) { return items.begin() + static_cast<std::ptrdiff_t>(index); };
  out.shape.erase(at(out.shape, split.value()));
  out.shape.insert(at(out.shape, concat.value()), size);
  if (out.sharding.dims.size() == operand.ndim()) {
    out.sharding.dims.erase(at(out.sharding.dims, split.value()));
    out.sharding.dims.insert(at(out.sharding.dims, concat.value()), SpecEntry{});
  }
  return out;
}

Checked<ArrayType> axis_index_rule(const AxisList& axes, const CollectiveContext& context) {
  if (std::optional<Error> error = check_axis_names(axes, "axis_index", context)) return *error;
  AxisSet varying;
  if (context.check_vma && context.mesh && context.mesh->has_axis_of_type(AxisType::Manual))
    varying.insert(axes.begin(), axes.end());
  return make_result({DType::int32, false}, {}, context.mesh, std::move(varying));
}

Checked<std::int64_t> axis_size_rule(const AxisList& axes, const CollectiveContext& context) {
  for (const std::string& axis : axes)
    if (!is_bound(axis, context)) return Error{ErrorClass::NameError, "unbound axis name: " + axis};
  return total_size(axes, context);
}

Checked<ArrayType> pvary_rule(const ArrayType& operand, const AxisList& axes, const CollectiveContext& context) {
  if (axes.empty()) return operand;
  if (!context.mesh || !context.mesh->has_axis_of_type(AxisType::Manual))
    return Error{ErrorClass::ValueError, "pvary should be called under jax.shard_map."};
  if (!context.check_vma) return operand;
  return bind_pvary(operand, axes, context);
}

Checked<ArrayType> pcast_rule(const ArrayType& operand, const AxisList& axes, std::string_view to,
                              const CollectiveContext& context) {
  if (axes.empty()) return operand;
  if (to != "unreduced" && to != "reduced" && to != "varying")
    return Error{ErrorClass::ValueError,
                 "Got unexpected `to` value. Allowed `to` values are: {'unreduced', 'reduced', 'varying'}"};
  Checked<std::string> state = input_state(operand, axes, "jax.lax.pcast");
  if (!state) return state.error();
  const std::string& from = state.value();
  if (from == "invarying" && to == "varying") return pvary_rule(operand, axes, context);
  const bool supported = (from == "invarying" && to == "reduced") || (from == "varying" && to == "unreduced") ||
                         (from == "reduced" && to == "varying");
  if (!supported)
    return Error{ErrorClass::ValueError, "Unsupported pcast from=" + from + ", to='" + std::string(to) + "'"};
  if (std::optional<Error> error = check_axis_names(axes, "pcast", context)) return *error;
  ArrayType out = operand;
  if (!context.check_vma) return out;
  if (to == "reduced") out.manual.reduced.insert(axes.begin(), axes.end());
  if (to == "unreduced") {
    out.manual.varying = minus(out.manual.varying, axes);
    out.manual.unreduced.insert(axes.begin(), axes.end());
  }
  if (from == "reduced") {
    out.manual.reduced = minus(out.manual.reduced, axes);
    out.manual.varying.insert(axes.begin(), axes.end());
  }
  return out;
}

}  // namespace typecheck
