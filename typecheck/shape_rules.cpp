#include "typecheck/shape_rules.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shape_arithmetic.hpp"

namespace typecheck {

std::optional<Shape> broadcast_shapes(std::span<const Shape> shapes) {
  Shape out;
  for (const Shape& shape : shapes) {
    if (shape.size() > out.size()) out.insert(out.begin(), shape.size() - out.size(), 1);
    for (std::size_t d = 0; d < shape.size(); ++d) {
      std::int64_t& size = out[out.size() - shape.size() + d];
      if (size == 1) size = shape[d];
      else if (shape[d] != 1 && shape[d] != size) return std::nullopt;
    }
  }
  return out;
}

namespace {

// The size of a shape: an existing array's, so it fits.
std::int64_t product(std::span<const std::int64_t> sizes) { return checked_product(sizes).value_or(-1); }

// Whether `sizes`, which a user wrote, hold exactly `size` elements.
bool has_size(std::span<const std::int64_t> sizes, std::int64_t size) { return checked_product(sizes) == size; }

Error unsupported_reshape(const ArrayType& operand, std::span<const std::int64_t> new_sizes) {
  return Error{ErrorClass::ShardingTypeError,
               "This reshape is not supported. Please specify the sharding of the output via the `out_sharding` "
               "argument of jax.lax.reshape. Got operand type: " +
                   operand.format({.short_dtypes = false, .weak_marker = false}) +
                   ", new sizes: " + python_shape_repr(new_sizes)};
}

// split_partitions: hand the axes of one entry, major first, to consecutive
// pieces; a piece of size o takes axes while o > 1, each dividing it. Every
// axis must find a piece.
std::optional<std::vector<SpecEntry>> split_partitions(const MeshRef& mesh, const SpecEntry& axes,
                                                       std::span<const std::int64_t> pieces) {
  std::vector<SpecEntry> out(pieces.size());
  std::size_t next = 0;
  for (std::size_t p = 0; p < pieces.size(); ++p) {
    std::int64_t remaining = pieces[p];
    while (remaining > 1 && next < axes.size()) {
      const std::int64_t size = axes_size(mesh, {axes[next]});
      if (remaining % size != 0) return std::nullopt;
      remaining /= size;
      out[p].push_back(axes[next++]);
    }
  }
  if (next != axes.size()) return std::nullopt;
  return out;
}

// One group of `wide` consecutive dims whose product is one dim of `narrow`,
// every other dim mapped 1:1 (_split_on_one_axis, and merge with the roles
// swapped). Returns, per narrow dim, the [begin, end) range of wide dims.
std::optional<std::vector<std::pair<std::size_t, std::size_t>>> one_group(std::span<const std::int64_t> narrow,
                                                                          std::span<const std::int64_t> wide) {
  if (wide.size() <= narrow.size()) return std::nullopt;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  std::size_t j = 0;
  int groups = 0;
  for (std::size_t i = 0; i < narrow.size(); ++i) {
    if (j < wide.size() && wide[j] == narrow[i]) {
      ranges.emplace_back(j, j + 1);
      ++j;
      continue;
    }
    if (++groups > 1) return std::nullopt;
    const std::size_t begin = j;
    std::int64_t accumulated = 1;
    while (j < wide.size() && accumulated < narrow[i]) accumulated *= wide[j++];
    if (accumulated != narrow[i]) return std::nullopt;
    ranges.emplace_back(begin, j);
  }
  if (j != wide.size()) return std::nullopt;
  return ranges;
}

}  // namespace

Checked<Shape> resolve_reshape_sizes(std::span<const std::int64_t> operand_shape,
                                     std::span<const std::int64_t> sizes) {
  const std::int64_t size = product(operand_shape);
  Shape resolved(sizes.begin(), sizes.end());
  const auto unknowns = std::count(sizes.begin(), sizes.end(), -1);
  if (unknowns > 1)
    return Error{ErrorClass::ValueError,
                 "can only specify one unknown axis size with a `-1` value, got " + python_shape_repr(sizes)};
  for (std::int64_t each : sizes)
    if (each < -1)
      return Error{ErrorClass::TypeError, "reshape new_sizes must all be positive, got " + python_shape_repr(sizes) + "."};
  if (unknowns == 1) {
    Shape known_sizes;
    std::copy_if(sizes.begin(), sizes.end(), std::back_inserter(known_sizes), [](std::int64_t each) { return each != -1; });
    std::optional<std::int64_t> product_of_known = checked_product(known_sizes);
    const std::int64_t known = product_of_known.value_or(0);
    if (known == 0 || size % known != 0)
      return Error{ErrorClass::TypeError, "cannot reshape array of shape " + python_shape_repr(operand_shape) +
                                              " (size " + std::to_string(size) + ") into shape " +
                                              python_shape_repr(sizes) +
                                              " because the product of specified axis sizes (" +
                                              exact_product_text(known_sizes) + ") does not evenly divide " +
                                              std::to_string(size)};
    *std::find(resolved.begin(), resolved.end(), -1) = size / known;
  } else if (!has_size(sizes, size)) {
    return Error{ErrorClass::TypeError, "cannot reshape array of shape " + python_shape_repr(operand_shape) +
                                            " (size " + std::to_string(size) + ") into shape " +
                                            python_shape_repr(sizes) + " (size " + exact_product_text(sizes) + ")"};
  }
  return resolved;
}

Checked<ArrayType> reshape_rule(const ArrayType& operand, std::span<const std::int64_t> new_sizes,
                                const std::optional<std::vector<int>>& dimensions,
                                const std::optional<Sharding>& out_sharding) {
  for (std::int64_t each : new_sizes)
    if (each < 0)
      return Error{ErrorClass::TypeError,
                   "reshape new_sizes must all be positive, got " + python_shape_repr(new_sizes) + "."};
  if (!has_size(new_sizes, product(operand.shape)))
    return Error{ErrorClass::TypeError, "reshape total size must be unchanged, got new_sizes " +
                                            python_shape_repr(new_sizes) + " (of total " +
                                            exact_product_text(new_sizes) + ") for shape " +
                                            python_shape_repr(operand.shape) + " (of total " +
                                            std::to_string(product(operand.shape)) + ")."};
  if (dimensions) {
    std::vector<int> sorted = *dimensions;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> identity(operand.ndim());
    std::iota(identity.begin(), identity.end(), 0);
    if (sorted != identity)
      return Error{ErrorClass::TypeError, "reshape dimensions must be a permutation of operand dimensions, got "
                                          "dimensions " +
                                              ints_tuple_repr(*dimensions)};
  }

  ArrayType result = operand;
  result.shape.assign(new_sizes.begin(), new_sizes.end());
  result.sharding.dims.assign(new_sizes.size(), SpecEntry{});

  if (out_sharding) {
    // Unreduced/reduced axes pass through a reshape unchanged.
    for (auto [label, operand_axes, requested] :
         {std::tuple{"unreduced", &operand.sharding.unreduced, &out_sharding->unreduced},
          std::tuple{"reduced", &operand.sharding.reduced, &out_sharding->reduced}}) {
      if (operand_axes->empty() && !requested->empty())
        return Error{ErrorClass::ValueError, std::string("out_sharding passed to reshape cannot contain ") + label +
                                                 " axes. Got " + out_sharding->repr()};
      if (!operand_axes->empty() && *operand_axes != *requested)
        return Error{ErrorClass::ValueError, std::string("out_sharding passed to reshape must be ") + label +
                                                 " over the same mesh axes as operand. Got out_sharding: " +
                                                 out_sharding->spec().repr() + " and operand type: " + operand.str()};
    }
    result.sharding = *out_sharding;
    return result;
  }
  if (!has_explicit_axis(operand.sharding.mesh) || fully_replicated(operand)) return result;
  if (operand.shape == result.shape && !dimensions) return operand;

  const MeshRef& mesh = operand.sharding.mesh;
  std::vector<std::int64_t> operand_non1, new_non1;
  std::vector<SpecEntry> non1_specs;
  for (std::size_t dim = 0; dim < operand.ndim(); ++dim)
    if (operand.shape[dim] != 1) {
      operand_non1.push_back(operand.shape[dim]);
      non1_specs.push_back(operand.sharding.dims[dim]);
    }
  for (std::int64_t each : new_sizes)
    if (each != 1) new_non1.push_back(each);

  // Only singleton dims inserted or removed: the sharded dims keep their specs.
  if (operand_non1 == new_non1 && !dimensions) {
    std::size_t next = 0;
    for (std::size_t dim = 0; dim < new_sizes.size(); ++dim)
      if (new_sizes[dim] != 1) result.sharding.dims[dim] = non1_specs[next++];
    return result;
  }

  // A split: one operand dim becomes several consecutive output dims.
  if (auto ranges = one_group(operand.shape, new_sizes)) {
    for (std::size_t dim = 0; dim < operand.ndim(); ++dim) {
      auto [begin, end] = (*ranges)[dim];
      const SpecEntry& entry = operand.sharding.dims[dim];
      if (end - begin == 1) {
        result.sharding.dims[begin] = entry;
        continue;
      }
      if (entry.empty()) continue;
      if (dimensions) return unsupported_reshape(operand, new_sizes);
      auto pieces = split_partitions(mesh, entry, new_sizes.subspan(begin, end - begin));
      if (!pieces) return unsupported_reshape(operand, new_sizes);
      std::copy(pieces->begin(), pieces->end(), result.sharding.dims.begin() + static_cast<std::ptrdiff_t>(begin));
    }
    // Size-1 output dims keep the operand's spec at the same position, if it
    // is a size-1 dim there too.
    for (std::size_t dim = 0; dim < new_sizes.size(); ++dim)
      if (new_sizes[dim] == 1)
        result.sharding.dims[dim] =
            dim < operand.ndim() && operand.shape[dim] == 1 ? operand.sharding.dims[dim] : SpecEntry{};
    return result;
  }

  // A merge: several consecutive operand dims become one output dim.
  if (auto ranges = one_group(new_sizes, operand.shape)) {
    for (std::size_t out_dim = 0; out_dim < new_sizes.size(); ++out_dim) {
      auto [begin, end] = (*ranges)[out_dim];
      // The group's axes in order, None marking an unsharded dim; a None
      // before a sharded dim cannot be expressed.
      std::vector<std::optional<std::string>> flat;
      for (std::size_t dim = begin; dim < end; ++dim) {
        if (operand.sharding.dims[dim].empty()) flat.emplace_back();
        for (const std::string& axis : operand.sharding.dims[dim]) flat.emplace_back(axis);
      }
      while (!flat.empty() && !flat.back()) flat.pop_back();
      SpecEntry merged;
      for (const std::optional<std::string>& axis : flat) {
        if (!axis) return unsupported_reshape(operand, new_sizes);
        merged.push_back(*axis);
      }
      if (!merged.empty() && !split_partitions(mesh, merged, std::span(new_sizes).subspan(out_dim, 1)))
        return unsupported_reshape(operand, new_sizes);
      result.sharding.dims[out_dim] = merged;
    }
    return result;
  }
  return unsupported_reshape(operand, new_sizes);
}

Checked<ArrayType> transpose_rule(const ArrayType& operand, std::span<const int> permutation) {
  std::vector<int> sorted(permutation.begin(), permutation.end());
  std::sort(sorted.begin(), sorted.end());
  bool valid = sorted.size() == operand.ndim();
  for (std::size_t i = 0; valid && i < sorted.size(); ++i) valid = sorted[i] == static_cast<int>(i);
  if (!valid)
    return Error{ErrorClass::TypeError, "transpose permutation isn't a permutation of operand dimensions, got "
                                        "permutation " +
                                            ints_tuple_repr(permutation) + " for operand shape " +
                                            python_shape_repr(operand.shape) + "."};
  ArrayType result = operand;
  for (std::size_t k = 0; k < permutation.size(); ++k) {
    result.shape[k] = operand.shape[permutation[k]];
    result.sharding.dims[k] = operand.sharding.dims[permutation[k]];
  }
  return result;
}

FactorRule transpose_factor_rule(std::span<const int> permutation) {
  FactorRule rule;
  rule.operands.emplace_back();
  for (std::size_t dim = 0; dim < permutation.size(); ++dim) {
    rule.factor_names.push_back(factor_name(static_cast<int>(dim)));
    rule.factor_kinds.push_back(FactorKind::pass_through);
    rule.operands[0].push_back(static_cast<int>(dim));
  }
  rule.result.assign(permutation.begin(), permutation.end());
  return rule;
}

std::vector<int> reversed_permutation(std::size_t ndim) {
  std::vector<int> permutation(ndim);
  for (std::size_t k = 0; k < ndim; ++k) permutation[k] = static_cast<int>(ndim - 1 - k);
  return permutation;
}

Checked<std::vector<int>> swapaxes_permutation(std::size_t ndim, std::int64_t axis1, std::int64_t axis2) {
  Checked<std::size_t> first = normalize_axis(axis1, ndim);
  if (!first) return first.error();
  Checked<std::size_t> second = normalize_axis(axis2, ndim);
  if (!second) return second.error();
  std::vector<int> permutation(ndim);
  std::iota(permutation.begin(), permutation.end(), 0);
  std::swap(permutation[first.value()], permutation[second.value()]);
  return permutation;
}

Checked<std::vector<int>> moveaxis_permutation(std::size_t ndim, std::span<const std::int64_t> source,
                                               std::span<const std::int64_t> destination) {
  if (source.size() != destination.size())
    return Error{ErrorClass::ValueError, "Inconsistent number of elements: " + std::to_string(source.size()) +
                                             " vs " + std::to_string(destination.size())};
  std::vector<std::size_t> from, to;
  for (auto [axes, out] : {std::pair{source, &from}, std::pair{destination, &to}})
    for (std::int64_t axis : axes) {
      Checked<std::size_t> normalized = normalize_axis(axis, ndim);
      if (!normalized) return normalized.error();
      out->push_back(normalized.value());
    }
  // numpy: the other axes keep their order; the moved ones go to their places.
  std::vector<int> permutation;
  for (std::size_t dim = 0; dim < ndim; ++dim)
    if (std::find(from.begin(), from.end(), dim) == from.end()) permutation.push_back(static_cast<int>(dim));
  std::vector<std::pair<std::size_t, std::size_t>> moves;
  for (std::size_t k = 0; k < from.size(); ++k) moves.emplace_back(to[k], from[k]);
  std::sort(moves.begin(), moves.end());
  for (auto [destination_dim, source_dim] : moves)
    permutation.insert(permutation.begin() + static_cast<std::ptrdiff_t>(std::min(destination_dim, permutation.size())),
                       static_cast<int>(source_dim));
  return permutation;
}

Checked<ArrayType> expand_dims_rule(const ArrayType& operand, std::span<const std::int64_t> axes) {
  const std::size_t out_rank = operand.ndim() + axes.size();
  std::set<std::size_t> positions;
  for (std::int64_t axis : axes) {
    Checked<std::size_t> normalized = normalize_axis(axis, out_rank);
    if (!normalized) return normalized.error();
    positions.insert(normalized.value());
  }
  if (positions.size() != axes.size())
    return Error{ErrorClass::ValueError, "repeated axis in lax.expand_dims: " + ints_tuple_repr(axes)};
  ArrayType result = operand;
  for (std::size_t position : positions) {
    result.shape.insert(result.shape.begin() + static_cast<std::ptrdiff_t>(position), 1);
    result.sharding.dims.insert(result.sharding.dims.begin() + static_cast<std::ptrdiff_t>(position), SpecEntry{});
  }
  return result;
}

Checked<ArrayType> squeeze_rule(const ArrayType& operand, const std::optional<std::vector<std::int64_t>>& axes) {
  std::set<std::size_t> dims;
  if (!axes) {
    for (std::size_t dim = 0; dim < operand.ndim(); ++dim)
      if (operand.shape[dim] == 1) dims.insert(dim);
  } else {
    for (std::int64_t axis : *axes) {
      Checked<std::size_t> normalized = normalize_axis(axis, operand.ndim());
      if (!normalized) return normalized.error();
      dims.insert(normalized.value());
    }
    if (dims.size() != axes->size())
      return Error{ErrorClass::ValueError, "dimensions are not unique: " + ints_tuple_repr(*axes)};
    for (std::size_t dim : dims)
      if (operand.shape[dim] != 1)
        return Error{ErrorClass::ValueError, "cannot select an axis to squeeze out which has size not equal to one, "
                                             "got shape=" +
                                                 python_shape_repr(operand.shape) +
                                                 " and dimensions=" + ints_tuple_repr(*axes)};
  }
  ArrayType result = operand;
  result.shape.clear();
  result.sharding.dims.clear();
  for (std::size_t dim = 0; dim < operand.ndim(); ++dim)
    if (!dims.contains(dim)) {
      result.shape.push_back(operand.shape[dim]);
      result.sharding.dims.push_back(operand.sharding.dims[dim]);
    }
  return result;
}

Checked<ArrayType> broadcast_in_dim_rule(const ArrayType& operand, std::span<const std::int64_t> shape,
                                         std::span<const int> broadcast_dimensions,
                                         const std::optional<Sharding>& out_sharding, const MeshRef& context_mesh) {
  const std::string dims_text = ints_tuple_repr(broadcast_dimensions);
  if (broadcast_dimensions.size() != operand.ndim())
    return Error{ErrorClass::TypeError, "broadcast_in_dim broadcast_dimensions must have length equal to operand "
                                        "ndim; got broadcast_dimensions " +
                                            dims_text + " for operand ndim " + std::to_string(operand.ndim()) + "."};
  if (shape.size() < operand.ndim())
    return Error{ErrorClass::TypeError, "broadcast_in_dim target broadcast shape must have equal or higher rank to "
                                        "the operand shape; got operand ndim " +
                                            std::to_string(operand.ndim()) + " and target broadcast ndim " +
                                            std::to_string(shape.size()) + "."};
  for (std::size_t k = 0; k < broadcast_dimensions.size(); ++k) {
    const int dim = broadcast_dimensions[k];
    if (dim < 0 || static_cast<std::size_t>(dim) >= shape.size())
      return Error{ErrorClass::TypeError, "broadcast_in_dim broadcast_dimensions must be a subset of output "
                                          "dimensions, got " +
                                              dims_text + " for operand ndim " + std::to_string(operand.ndim()) +
                                              " and shape " + python_shape_repr(shape) + "."};
    if (operand.shape[k] != 1 && operand.shape[k] != shape[dim])
      return Error{ErrorClass::TypeError, "broadcast_in_dim operand dimension sizes must either be 1, or be equal to "
                                          "their corresponding dimensions in the target broadcast shape; got operand "
                                          "of shape " +
                                              python_shape_repr(operand.shape) + ", target broadcast shape " +
                                              python_shape_repr(shape) + ", broadcast_dimensions " + dims_text};
    if (k > 0 && dim <= broadcast_dimensions[k - 1])
      return Error{ErrorClass::TypeError,
                   "broadcast_in_dim broadcast_dimensions must be strictly increasing; got broadcast_dimensions " +
                       dims_text};
  }
  ArrayType result = operand;
  result.shape.assign(shape.begin(), shape.end());
  if (out_sharding) {
    result.sharding = *out_sharding;
    return result;
  }
  result.sharding = Sharding::replicated(operand.sharding.mesh ? operand.sharding.mesh : context_mesh, shape.size());
  result.sharding.unreduced = operand.sharding.unreduced;
  result.sharding.reduced = operand.sharding.reduced;
  for (std::size_t k = 0; k < broadcast_dimensions.size(); ++k)
    if (operand.shape[k] == shape[broadcast_dimensions[k]])
      result.sharding.dims[broadcast_dimensions[k]] = operand.sharding.dims[k];
  return result;
}

FactorRule broadcast_in_dim_factor_rule(std::size_t result_rank, std::span<const int> broadcast_dimensions) {
  FactorRule rule;
  for (std::size_t dim = 0; dim < result_rank; ++dim) {
    rule.factor_names.push_back(factor_name(static_cast<int>(dim)));
    rule.factor_kinds.push_back(FactorKind::pass_through);
    rule.result.push_back(static_cast<int>(dim));
  }
  rule.operands.emplace_back(broadcast_dimensions.begin(), broadcast_dimensions.end());
  return rule;
}

Checked<ArrayType> broadcast_to_rule(const ArrayType& operand, std::span<const std::int64_t> shape,
                                     const std::optional<Sharding>& out_sharding, const MeshRef& context_mesh) {
  const bool compatible =
      shape.size() >= operand.ndim() &&
      std::equal(operand.shape.begin(), operand.shape.end(), shape.end() - static_cast<std::ptrdiff_t>(operand.ndim()),
                 [](std::int64_t have, std::int64_t want) { return have == 1 || have == want; });
  if (!compatible)
    return Error{ErrorClass::ValueError, "Incompatible shapes for broadcasting: " + python_shape_repr(operand.shape) +
                                             " and requested shape " + python_shape_repr(shape)};
  if (Shape(shape.begin(), shape.end()) == operand.shape && !out_sharding) return operand;
  const std::size_t leading = shape.size() - operand.ndim();
  std::vector<int> broadcast_dimensions(operand.ndim());
  std::iota(broadcast_dimensions.begin(), broadcast_dimensions.end(), static_cast<int>(leading));
  if (out_sharding) {
    for (std::size_t k = 0; k < operand.ndim(); ++k) {
      const SpecEntry& have = operand.sharding.dims[k];
      if (!have.empty() && have != out_sharding->dims[leading + k]) {
        ArrayType requested = operand;
        requested.shape.assign(shape.begin(), shape.end());
        requested.sharding = *out_sharding;
        return Error{ErrorClass::ValueError,
                     "Incompatible types for broadcasting: input type=" +
                         operand.format({.short_dtypes = false, .weak_marker = false}) +
                         " and requested type=" + requested.format({.short_dtypes = false, .weak_marker = false})};
      }
    }
  }
  return broadcast_in_dim_rule(operand, shape, broadcast_dimensions, out_sharding, context_mesh);
}

}  // namespace typecheck
