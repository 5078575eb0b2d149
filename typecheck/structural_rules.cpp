#include "typecheck/structural_rules.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shape_arithmetic.hpp"
#include "typecheck/shape_rules.hpp"

namespace typecheck {

namespace {

std::string shapes_joined(std::span<const ArrayType> operands) {
  std::string out;
  for (const ArrayType& each : operands) out += (out.empty() ? "" : ", ") + python_shape_repr(each.shape);
  return out;
}

std::optional<Error> mesh_error(std::span<const ArrayType* const> all) {
  std::variant<MeshRef, MeshMismatch> mesh = common_mesh(all);
  if (auto* mismatch = std::get_if<MeshMismatch>(&mesh))
    return Error{ErrorClass::ShardingTypeError, "Mesh for all inputs should be equal. Got one mesh: " +
                                                    mismatch->first->repr() +
                                                    " and another mesh: " + mismatch->second->repr()};
  return std::nullopt;
}

std::optional<Error> mesh_error(std::span<const ArrayType> operands) {
  std::vector<const ArrayType*> all;
  for (const ArrayType& each : operands) all.push_back(&each);
  return mesh_error(std::span<const ArrayType* const>(all));
}

// _concatenate_sharding_rule's check, shared by stack.
std::optional<Error> same_shardings(std::span<const ArrayType> operands) {
  for (const ArrayType& each : operands)
    if (each.sharding.mesh && !(each.sharding == operands[0].sharding)) {
      std::string shardings;
      for (const ArrayType& o : operands) shardings += (shardings.empty() ? "" : ", ") + o.sharding.repr();
      return Error{ErrorClass::ShardingTypeError, "All operands should have the same sharding. Got shardings " + shardings};
    }
  return std::nullopt;
}

std::string long_str(const ArrayType& type) { return type.format({.short_dtypes = false, .weak_marker = false}); }

}  // namespace

Checked<Sharding> varying_out_shape_sharding(std::span<const std::int64_t> out_shape, const ArrayType& operand,
                                             std::string_view name) {
  const bool all_ones = std::all_of(out_shape.begin(), out_shape.end(), [](std::int64_t s) { return s == 1; });
  if (out_shape.empty() || all_ones) {
    Sharding replicated = Sharding::replicated(operand.sharding.mesh, out_shape.size());
    replicated.unreduced = operand.sharding.unreduced;
    replicated.reduced = operand.sharding.reduced;
    return replicated;
  }
  for (std::size_t dim = 0; dim < operand.ndim(); ++dim) {
    const SpecEntry& entry = operand.sharding.dims[dim];
    const std::int64_t parts = axes_size(operand.sharding.mesh, entry);
    if (operand.shape[dim] != out_shape[dim] && !entry.empty() && out_shape[dim] % parts != 0)
      return Error{ErrorClass::ShardingTypeError,
                   std::string(name) + " on sharded dims where out dim (" + std::to_string(out_shape[dim]) +
                       ") is not divisible by mesh axes (" + std::to_string(parts) + ") with spec (" +
                       (entry.size() == 1 ? entry[0] : spec_entry_tuple_repr(entry)) +
                       ") is not implemented. Got input type=" + operand.short_str() +
                       " and output shape=" + python_shape_repr(out_shape)};
  }
  return operand.sharding;
}

namespace {

// The result of a varying-out-shape op: the operand with a new shape.
Checked<ArrayType> resized(const ArrayType& operand, Shape out_shape, std::string_view name) {
  Checked<Sharding> sharding = varying_out_shape_sharding(out_shape, operand, name);
  if (!sharding) return sharding.error();
  // Built from the operand's other fields, not copied whole: its shape and
  // sharding would be copied only to be replaced.
  return ArrayType{.dtype = operand.dtype,
                   .shape = std::move(out_shape),
                   .weak_type = operand.weak_type,
                   .sharding = std::move(sharding).value(),
                   .manual = operand.manual};
}

}  // namespace

Checked<ArrayType> concatenate_rule(std::span<const ArrayType> operands, std::int64_t dimension) {
  if (operands.empty()) return Error{ErrorClass::TypeError, "concatenate requires at least one operand"};
  for (const ArrayType& each : operands)
    if (each.ndim() != operands[0].ndim())
      return Error{ErrorClass::TypeError, "Cannot concatenate arrays with different numbers of dimensions: got " +
                                              shapes_joined(operands) + "."};
  const auto rank = static_cast<std::int64_t>(operands[0].ndim());
  if (dimension < 0 || dimension >= rank)
    return Error{ErrorClass::TypeError, "concatenate dimension out of bounds: dimension " + std::to_string(dimension) +
                                            " for shapes " + shapes_joined(operands) + "."};
  const auto dim = static_cast<std::size_t>(dimension);
  Shape shape = operands[0].shape;
  shape[dim] = 0;
  for (const ArrayType& each : operands) {
    for (std::size_t d = 0; d < each.ndim(); ++d)
      if (d != dim && each.shape[d] != operands[0].shape[d])
        return Error{ErrorClass::TypeError, "Cannot concatenate arrays with shapes that differ in dimensions other "
                                            "than the one being concatenated: concatenating along dimension " +
                                                std::to_string(dimension) + " for shapes " + shapes_joined(operands) +
                                                "."};
    std::optional<std::int64_t> joined = checked_add(shape[dim], each.shape[dim]);
    if (!joined) return array_too_big();
    shape[dim] = *joined;
  }
  if (auto error = mesh_error(operands)) return *error;
  std::vector<const ArrayType*> all;
  for (const ArrayType& each : operands) all.push_back(&each);
  const ArrayType* with_mesh = &operands[0];
  for (const ArrayType& each : operands)
    if (each.sharding.mesh) with_mesh = &each;
  ArrayType result = make_result(operands[0].element_type(), shape, with_mesh->sharding.mesh, varying_union(all));
  if (!has_explicit_axis(result.sharding.mesh)) return result;
  if (auto error = same_shardings(operands)) return *error;
  result.sharding = with_mesh->sharding;
  return result;
}

Checked<ArrayType> stack_rule(std::span<const ArrayType> operands, std::int64_t axis) {
  if (operands.empty()) return Error{ErrorClass::ValueError, "Need at least one array to stack."};
  for (const ArrayType& each : operands)
    if (each.shape != operands[0].shape)
      return Error{ErrorClass::ValueError, "All input arrays must have the same shape."};
  Checked<std::size_t> position = normalize_axis(axis, operands[0].ndim() + 1);
  if (!position) return position.error();
  if (auto error = mesh_error(operands)) return *error;
  std::vector<const ArrayType*> all;
  for (const ArrayType& each : operands) all.push_back(&each);
  const ArrayType* with_mesh = &operands[0];
  for (const ArrayType& each : operands)
    if (each.sharding.mesh) with_mesh = &each;
  ArrayType result = *with_mesh;
  result.manual.varying = varying_union(all);
  if (has_explicit_axis(result.sharding.mesh))
    if (auto error = same_shardings(operands)) return *error;
  if (!has_explicit_axis(result.sharding.mesh)) result.sharding = Sharding::replicated(result.sharding.mesh, result.ndim());
  const auto at = static_cast<std::ptrdiff_t>(position.value());
  result.shape.insert(result.shape.begin() + at, static_cast<std::int64_t>(operands.size()));
  result.sharding.dims.insert(result.sharding.dims.begin() + at, SpecEntry{});
  return result;
}

Checked<std::vector<std::int64_t>> split_sizes_for_sections(std::int64_t size, std::int64_t sections) {
  if (sections <= 0 || size % sections != 0)
    return Error{ErrorClass::ValueError, "array split does not result in an equal division"};
  return std::vector<std::int64_t>(static_cast<std::size_t>(sections), size / sections);
}

std::vector<std::int64_t> split_sizes_for_indices(std::int64_t size, std::span<const std::int64_t> indices) {
  // numpy clips each index to [0, size] and gives empty pieces for
  // decreasing ones.
  std::vector<std::int64_t> sizes;
  std::int64_t previous = 0;
  for (std::int64_t index : indices) {
    const std::int64_t at = std::clamp(index < 0 ? index + size : index, std::int64_t{0}, size);
    sizes.push_back(std::max<std::int64_t>(at - previous, 0));
    previous = std::max(previous, at);
  }
  sizes.push_back(size - previous);
  return sizes;
}

Checked<std::vector<ArrayType>> split_rule(const ArrayType& operand, std::span<const std::int64_t> sizes,
                                           std::int64_t axis) {
  Checked<std::size_t> dim = normalize_axis(axis, operand.ndim());
  if (!dim) return dim.error();
  const std::int64_t total = std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0});
  if (total != operand.shape[dim.value()])
    return Error{ErrorClass::ValueError, "Sum of sizes " + std::to_string(total) +
                                             " must be equal to dimension " + std::to_string(dim.value()) +
                                             " of the operand shape " + python_shape_repr(operand.shape)};
  std::vector<ArrayType> outputs;
  for (std::int64_t size : sizes) {
    Shape shape = operand.shape;
    shape[dim.value()] = size;
    Checked<ArrayType> piece = resized(operand, std::move(shape), "split");
    if (!piece) return piece.error();
    outputs.push_back(std::move(piece).value());
  }
  return outputs;
}

Checked<ArrayType> pad_rule(const ArrayType& operand, const ArrayType& padding_value,
                            std::span<const PadConfig> config) {
  auto config_repr = [&] {
    std::vector<std::string> items;
    for (const PadConfig& each : config)
      items.push_back("(" + std::to_string(each.low) + ", " + std::to_string(each.high) + ", " +
                      std::to_string(each.interior) + ")");
    return python_tuple_repr(items);
  };
  if (!padding_value.shape.empty())
    return Error{ErrorClass::TypeError, "padding_value must be a scalar, got shape " +
                                            python_shape_repr(padding_value.shape) + "."};
  if (config.size() != operand.ndim())
    return Error{ErrorClass::ValueError, "length of padding_config must equal the number of axes of operand, got "
                                         "padding_config " +
                                             config_repr() + " for operand shape " + python_shape_repr(operand.shape)};
  Shape shape;
  for (std::size_t dim = 0; dim < config.size(); ++dim) {
    if (config[dim].interior < 0)
      return Error{ErrorClass::ValueError,
                   "interior padding in padding_config must be nonnegative, got padding_config " + config_repr()};
    const std::int64_t size = operand.shape[dim];
    // low + high + size + (size - 1) * interior, each step checked.
    std::optional<std::int64_t> padded = checked_multiply(std::max<std::int64_t>(size - 1, 0), config[dim].interior);
    for (std::int64_t term : {config[dim].low, config[dim].high, size})
      if (padded) padded = checked_add(*padded, term);
    if (!padded) return array_too_big();
    shape.push_back(*padded);
  }
  if (std::any_of(shape.begin(), shape.end(), [](std::int64_t s) { return s < 0; }))
    return Error{ErrorClass::ValueError, "Dimension size after padding is not at least 0, got result shape " +
                                             python_shape_repr(shape) + ", for padding_config " + config_repr() +
                                             " and operand shape " + python_shape_repr(operand.shape)};
  return resized(operand, std::move(shape), "padding");
}

Checked<ArrayType> tile_rule(const ArrayType& operand, std::span<const std::int64_t> reps) {
  // numpy aligns reps and shape on the right, padding the shorter with 1s.
  ArrayType padded = operand;
  while (padded.ndim() < reps.size()) {
    padded.shape.insert(padded.shape.begin(), 1);
    padded.sharding.dims.insert(padded.sharding.dims.begin(), SpecEntry{});
  }
  std::vector<std::int64_t> full_reps(padded.ndim() - reps.size(), 1);
  full_reps.insert(full_reps.end(), reps.begin(), reps.end());
  for (std::size_t dim = 0; dim < padded.ndim(); ++dim)
    if (full_reps[dim] != 1 && !padded.sharding.dims[dim].empty())
      return Error{ErrorClass::ShardingTypeError, "Operand cannot be sharded on dimension " + std::to_string(dim) +
                                                      " when the tiling is non-trivial. Got input type: " +
                                                      long_str(operand) + " with reps: " + ints_tuple_repr(reps)};
  for (std::size_t dim = 0; dim < padded.ndim(); ++dim) {
    std::optional<std::int64_t> tiled = checked_multiply(padded.shape[dim], full_reps[dim]);
    if (!tiled) return array_too_big();
    padded.shape[dim] = *tiled;
  }
  return padded;
}

Checked<ArrayType> roll_rule(const ArrayType& operand, const std::optional<std::vector<std::int64_t>>& axes) {
  if (axes) {
    for (std::int64_t axis : *axes)
      if (Checked<std::size_t> dim = normalize_axis(axis, operand.ndim()); !dim) return dim.error();
    return operand;
  }
  const std::int64_t size[] = {
      std::accumulate(operand.shape.begin(), operand.shape.end(), std::int64_t{1}, std::multiplies<>())};
  Checked<ArrayType> flat = reshape_rule(operand, size);
  if (!flat) return flat;
  return reshape_rule(flat.value(), operand.shape);
}

Checked<ArrayType> slice_rule(const ArrayType& operand, std::span<const std::int64_t> start,
                              std::span<const std::int64_t> limit, std::span<const std::int64_t> strides) {
  auto shape_text = [&] { return python_shape_repr(operand.shape); };  // for the errors only
  if (start.size() != operand.ndim())
    return Error{ErrorClass::TypeError, "slice start_indices must have length equal to the number of dimensions of "
                                        "the operand, got indices " +
                                            ints_tuple_repr(start) + " for operand shape " + shape_text() + "."};
  if (limit.size() != operand.ndim())
    return Error{ErrorClass::TypeError, "slice limit_indices must have the same length as start_indices, got "
                                        "start_indices " +
                                            ints_tuple_repr(start) + " and limit_indices " + ints_tuple_repr(limit) +
                                            "."};
  for (std::size_t dim = 0; dim < operand.ndim(); ++dim) {
    if (start[dim] < 0)
      return Error{ErrorClass::TypeError, "slice start_indices must be greater than or equal to zero, got "
                                          "start_indices " +
                                              ints_tuple_repr(start) + "."};
    if (limit[dim] > operand.shape[dim])
      return Error{ErrorClass::TypeError, "slice limit_indices must be less than or equal to operand shape, got "
                                          "limit_indices " +
                                              ints_tuple_repr(limit) + " for operand shape " + shape_text() + "."};
    if (limit[dim] < start[dim])
      return Error{ErrorClass::TypeError, "slice limit_indices must be greater than or equal to start_indices, got "
                                          "start_indices " +
                                              ints_tuple_repr(start) + " and limit_indices " + ints_tuple_repr(limit) +
                                              "."};
  }
  if (!strides.empty() && strides.size() != operand.ndim())
    return Error{ErrorClass::TypeError, "slice strides must have length equal to the number of dimensions of the "
                                        "operand, got strides " +
                                            ints_tuple_repr(strides) + " for operand shape " + shape_text() + "."};
  Shape shape;
  for (std::size_t dim = 0; dim < operand.ndim(); ++dim) {
    const std::int64_t stride = strides.empty() ? 1 : strides[dim];
    if (stride <= 0)
      return Error{ErrorClass::TypeError, "slice strides must be positive, got " + ints_tuple_repr(strides)};
    shape.push_back((limit[dim] - start[dim] + stride - 1) / stride);
  }
  return resized(operand, std::move(shape), "slicing");
}

std::string index_out_of_bounds(std::int64_t index, std::size_t axis, std::int64_t size) {
  return "index " + std::to_string(index) + " is out of bounds for axis " + std::to_string(axis) + " with size " +
         std::to_string(size);
}

std::string too_many_indices(std::size_t ndim, std::size_t consumed) {
  return "Too many indices: array is " + std::to_string(ndim) + "-dimensional, but " + std::to_string(consumed) +
         " were indexed";
}

Checked<ArrayType> static_index_rule(const ArrayType& operand, std::span<const IndexItem> items) {
  const auto ellipses = std::count_if(items.begin(), items.end(),
                                      [](const IndexItem& item) { return item.kind == IndexItem::Kind::ellipsis; });
  if (ellipses > 1) return Error{ErrorClass::IndexError, "an index can only have a single ellipsis ('...')"};
  const auto regular = static_cast<std::size_t>(std::count_if(items.begin(), items.end(), [](const IndexItem& item) {
    return item.kind == IndexItem::Kind::integer || item.kind == IndexItem::Kind::slice;
  }));
  if (regular > operand.ndim())
    return Error{ErrorClass::IndexError, too_many_indices(operand.ndim(), regular)};
  // Expand `...` (or the implicit trailing one) into full slices.
  std::vector<IndexItem> expanded;
  for (const IndexItem& item : items) {
    if (item.kind == IndexItem::Kind::ellipsis)
      expanded.insert(expanded.end(), operand.ndim() - regular, IndexItem::range());
    else
      expanded.push_back(item);
  }
  if (ellipses == 0) expanded.insert(expanded.end(), operand.ndim() - regular, IndexItem::range());

  std::vector<std::int64_t> start, limit, strides;
  std::vector<std::int64_t> squeezed, inserted;  // dims of the sliced array; positions in the result
  std::size_t dim = 0;
  std::size_t result_position = 0;
  for (const IndexItem& item : expanded) {
    if (item.kind == IndexItem::Kind::newaxis) {
      inserted.push_back(static_cast<std::int64_t>(result_position++));
      continue;
    }
    const std::int64_t size = operand.shape[dim];
    if (item.kind == IndexItem::Kind::integer) {
      if (item.index < -size || item.index >= size)
        return Error{ErrorClass::IndexError, index_out_of_bounds(item.index, dim, size)};
      const std::int64_t at = item.index < 0 ? item.index + size : item.index;
      start.push_back(at);
      limit.push_back(at + 1);
      strides.push_back(1);
      squeezed.push_back(static_cast<std::int64_t>(dim));
    } else {
      // Python's slice.indices, then the ascending range lax.slice reads
      // (a negative step is a rev of it, which keeps the sharding).
      const std::int64_t step = item.step.value_or(1);
      if (step == 0) return Error{ErrorClass::ValueError, "slice step cannot be zero"};
      auto clamp_bound = [&](std::optional<std::int64_t> bound, std::int64_t fallback) {
        if (!bound) return fallback;
        std::int64_t value = *bound < 0 ? *bound + size : *bound;
        return step > 0 ? std::clamp<std::int64_t>(value, 0, size) : std::clamp<std::int64_t>(value, -1, size - 1);
      };
      const std::int64_t first = clamp_bound(item.start, step > 0 ? 0 : size - 1);
      const std::int64_t stop = clamp_bound(item.stop, step > 0 ? size : -1);
      const std::int64_t count =
          step > 0 ? std::max<std::int64_t>((stop - first + step - 1) / step, 0)
                   : std::max<std::int64_t>((first - stop + (-step) - 1) / (-step), 0);
      const std::int64_t low = step > 0 ? first : first + (count - 1) * step;
      start.push_back(count == 0 ? 0 : low);
      limit.push_back(count == 0 ? 0 : low + (count - 1) * std::abs(step) + 1);
      strides.push_back(std::abs(step));
      ++result_position;
    }
    ++dim;
  }
  Checked<ArrayType> sliced = slice_rule(operand, start, limit, strides);
  if (!sliced) return sliced;
  Checked<ArrayType> result = squeeze_rule(sliced.value(), squeezed);
  if (!result || inserted.empty()) return result;
  return expand_dims_rule(result.value(), inserted);
}

Checked<ArrayType> dynamic_slice_rule(const ArrayType& operand, std::span<const std::int64_t> slice_sizes) {
  if (slice_sizes.size() != operand.ndim())
    return Error{ErrorClass::TypeError, "dynamic_slice slice_sizes must have the same length as the shape of the "
                                        "operand, got slice_sizes " +
                                            ints_tuple_repr(slice_sizes) + " for operand shape " +
                                            python_shape_repr(operand.shape) + "."};
  for (std::size_t dim = 0; dim < operand.ndim(); ++dim)
    if (slice_sizes[dim] < 0 || slice_sizes[dim] > operand.shape[dim])
      return Error{ErrorClass::TypeError, "dynamic_slice slice_sizes must be less than or equal to operand shape, got "
                                          "slice_sizes " +
                                              ints_tuple_repr(slice_sizes) + " for operand shape " +
                                              python_shape_repr(operand.shape) + "."};
  return resized(operand, Shape(slice_sizes.begin(), slice_sizes.end()), "dynamic_slice");
}

std::optional<Error> check_update_reduction_states(const ArrayType& operand, const ArrayType& update) {
  for (const auto& [state, operand_axes, update_axes] :
       {std::tuple{"unreduced", &operand.sharding.unreduced, &update.sharding.unreduced},
        std::tuple{"reduced", &operand.sharding.reduced, &update.sharding.reduced}})
    if (*operand_axes != *update_axes)
      return Error{ErrorClass::ShardingTypeError, std::string("dynamic_update_slice operand and update must be ") + state +
                                                      " along the same axes. Got operand sharding " +
                                                      str_with_axis_types(operand) + " and update sharding " +
                                                      str_with_axis_types(update) + "."};
  return std::nullopt;
}

Checked<ArrayType> dynamic_update_slice_rule(const ArrayType& operand, const ArrayType& update) {
  if (update.ndim() != operand.ndim())
    return Error{ErrorClass::TypeError, "dynamic_update_slice update must have the same rank as operand, got update "
                                        "shape " +
                                            python_shape_repr(update.shape) + " for operand shape " +
                                            python_shape_repr(operand.shape) + "."};
  for (std::size_t dim = 0; dim < operand.ndim(); ++dim)
    if (update.shape[dim] > operand.shape[dim])
      return Error{ErrorClass::TypeError, "dynamic_update_slice update shape must be smaller than operand shape, got "
                                          "update shape " +
                                              python_shape_repr(update.shape) + " for operand shape " +
                                              python_shape_repr(operand.shape) + "."};
  const ArrayType* both[] = {&operand, &update};  // pointers: a step of a jitted decode applies it per layer
  if (auto error = mesh_error(both)) return *error;
  if (auto error = check_update_reduction_states(operand, update)) return *error;
  ArrayType result = operand;
  result.manual.varying = varying_union(both);
  if (!has_explicit_axis(operand.sharding.mesh) && !has_explicit_axis(update.sharding.mesh)) return result;
  if (!(operand.sharding == update.sharding))
    return Error{ErrorClass::ShardingTypeError, "dynamic_update_slice operand sharding must be equal to update "
                                                "sharding, got operand sharding " +
                                                    str_with_axis_types(operand) + " and update sharding " +
                                                    str_with_axis_types(update) + "."};
  return result;
}

Checked<ArrayType> take_rule(const ArrayType& operand, const ArrayType& indices, std::optional<std::int64_t> axis,
                             const std::optional<Sharding>& out_sharding) {
  if (is_floating(indices.dtype) || indices.dtype == DType::bool_)
    return Error{ErrorClass::TypeError, "take requires integer indices, got " + std::string(long_name(indices.dtype))};
  ArrayType source = operand;
  if (!axis) {
    // jnp.take(x, i) with axis=None gathers from the raveled x.
    const std::int64_t size[] = {
        std::accumulate(operand.shape.begin(), operand.shape.end(), std::int64_t{1}, std::multiplies<>())};
    Checked<ArrayType> flat = reshape_rule(operand, size);
    if (!flat) return flat;
    source = std::move(flat).value();
  }
  Checked<std::size_t> dim = normalize_axis(axis.value_or(0), source.ndim());
  if (!dim) return dim.error();
  const auto at = static_cast<std::ptrdiff_t>(dim.value());

  ArrayType result = source;
  const ArrayType* all[] = {&operand, &indices};
  result.manual.varying = varying_union(all);
  result.shape.erase(result.shape.begin() + at);
  result.shape.insert(result.shape.begin() + at, indices.shape.begin(), indices.shape.end());
  result.sharding.dims.erase(result.sharding.dims.begin() + at);
  result.sharding.dims.insert(result.sharding.dims.begin() + at, indices.ndim(), SpecEntry{});
  if (out_sharding) {
    result.sharding = *out_sharding;
    return result;
  }
  if (!has_explicit_axis(source.sharding.mesh) && !has_explicit_axis(indices.sharding.mesh)) return result;
  if (fully_replicated(source) && fully_replicated(indices)) return result;
  // The gathered dim is neither fully sliced (slice size 1) nor may it be
  // sharded; the indices' dims are all non-batch dims, so unsharded too.
  const bool gathered_dim_ok = source.sharding.dims[dim.value()].empty() || source.shape[dim.value()] == 1;
  if (gathered_dim_ok && fully_replicated(indices)) return result;
  // lax.gather sees the indices with a trailing index-vector dim of size 1.
  ArrayType gather_indices = indices;
  gather_indices.shape.push_back(1);
  gather_indices.sharding.dims.emplace_back();
  return Error{ErrorClass::ShardingTypeError,
               "Use .at[...].get(out_sharding=) to provide output PartitionSpec for the gather indexing as out "
               "sharding could not be resolved unambiguously (or would require collectives on inputs). Got operand=" +
                   shaped_array_repr(source) + ", indices=" + shaped_array_repr(gather_indices)};
}

Checked<ArrayType> scatter_rule(std::string_view method, const ArrayType& operand, std::span<const IndexItem> items,
                                const ArrayType& update, const std::optional<Sharding>& out_sharding) {
  // The window the update covers is x[items]: its shape (read on a
  // replicated copy, so only the indices are checked) and, per window dim,
  // the spec of the operand dim it slices.
  ArrayType unsharded = operand;
  unsharded.sharding = Sharding::replicated(operand.sharding.mesh, operand.ndim());
  Checked<ArrayType> window = static_index_rule(unsharded, items);
  if (!window) return window.error();
  Checked<ArrayType> broadcast_update = broadcast_to_rule(update, window.value().shape);
  if (!broadcast_update) return broadcast_update.error();
  ArrayType result = operand;
  const ArrayType* all[] = {&operand, &update};
  result.manual.varying = varying_union(all);
  if (out_sharding) {
    result.sharding = *out_sharding;
    return result;
  }
  if (!has_explicit_axis(operand.sharding.mesh) && !has_explicit_axis(update.sharding.mesh)) return result;
  // Resolvable without collectives when the indexed dims of the operand are
  // unsharded and the update is sharded as the slice of the operand it
  // replaces (a None update dim is sliced locally).
  const auto regular = static_cast<std::size_t>(std::count_if(items.begin(), items.end(), [](const IndexItem& each) {
    return each.kind == IndexItem::Kind::integer || each.kind == IndexItem::Kind::slice;
  }));
  std::vector<IndexItem> expanded;
  for (const IndexItem& item : items) {
    if (item.kind == IndexItem::Kind::ellipsis) expanded.insert(expanded.end(), operand.ndim() - regular, IndexItem::range());
    else expanded.push_back(item);
  }
  const bool has_ellipsis = std::any_of(items.begin(), items.end(), [](const IndexItem& each) {
    return each.kind == IndexItem::Kind::ellipsis;
  });
  if (!has_ellipsis) expanded.insert(expanded.end(), operand.ndim() - std::min(operand.ndim(), regular), IndexItem::range());
  bool resolvable = true;
  std::vector<SpecEntry> window_dims;
  std::size_t dim = 0;
  for (const IndexItem& item : expanded) {
    if (item.kind == IndexItem::Kind::newaxis) {
      window_dims.emplace_back();
      continue;
    }
    if (dim >= operand.ndim()) break;
    const SpecEntry& entry = operand.sharding.dims[dim++];
    const bool full = item.kind == IndexItem::Kind::slice && !item.start && !item.stop && item.step.value_or(1) == 1;
    if (!full && !entry.empty()) resolvable = false;
    if (item.kind == IndexItem::Kind::slice) window_dims.push_back(entry);
  }
  const ArrayType& update_type = broadcast_update.value();
  for (std::size_t d = 0; d < update_type.ndim() && d < window_dims.size() && resolvable; ++d)
    if (!update_type.sharding.dims[d].empty() && update_type.sharding.dims[d] != window_dims[d]) resolvable = false;
  if (resolvable) return result;
  return Error{ErrorClass::ShardingTypeError,
               "Use .at[...]." + std::string(method) +
                   "(out_sharding=) to provide output PartitionSpec for the scatter update as out sharding could not "
                   "be resolved unambiguously (or would require collectives on inputs). Got operand=" +
                   shaped_array_repr(operand) + ", updates=" + shaped_array_repr(update)};
}

}  // namespace typecheck
