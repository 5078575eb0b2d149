// conv_general_dilated's and reduce_window's type rules (convolution_rules.hpp).
#include "typecheck/convolution_rules.hpp"

#include <algorithm>
#include <set>

#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/structural_rules.hpp"

namespace typecheck {

namespace {

std::string python_str(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string specs_repr(const std::vector<std::string>& specs) {
  std::string out = "(";
  for (std::size_t i = 0; i < specs.size(); ++i) out += (i ? ", " : "") + python_str(specs[i]);
  return out + (specs.size() == 1 ? ",)" : ")");
}

std::string padding_repr(const Padding& padding) {
  std::string out = "(";
  for (std::size_t i = 0; i < padding.size(); ++i)
    out += (i ? ", " : "") + std::string("(") + std::to_string(padding[i].first) + ", " +
           std::to_string(padding[i].second) + ")";
  return out + (padding.size() == 1 ? ",)" : ")");
}

// core.stride_dim: max(0, (d - window) // stride + 1), with Python's floor division.
std::int64_t stride_dim(std::int64_t size, std::int64_t window, std::int64_t stride) {
  std::int64_t difference = size - window;
  std::int64_t quotient = difference / stride;
  if (difference % stride != 0 && (difference < 0) != (stride < 0)) --quotient;
  return std::max<std::int64_t>(quotient + 1, 0);
}

std::optional<Error> check_dilations(std::span<const std::int64_t> dilation) {
  if (std::all_of(dilation.begin(), dilation.end(), [](std::int64_t d) { return d > 0; })) return std::nullopt;
  return Error{ErrorClass::TypeError, "All dilations must be positive, got " + ints_tuple_repr(dilation) + "."};
}

// The spatial sizes after padding, or JAX's error for a negative one.
Checked<std::vector<std::int64_t>> padded(std::span<const std::int64_t> sizes, const Padding& padding) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < sizes.size(); ++i) out.push_back(sizes[i] + padding[i].first + padding[i].second);
  if (std::any_of(out.begin(), out.end(), [](std::int64_t s) { return s < 0; }))
    return Error{ErrorClass::ValueError, "Negative padding is larger than the size of the corresponding dimension: got padding=" +
                                             padding_repr(padding) + " for lhs_shape[2:]=" + ints_tuple_repr(sizes)};
  return out;
}

}  // namespace

std::int64_t dilate_dim(std::int64_t size, std::int64_t dilation) {
  return dilation == 1 ? size : std::max<std::int64_t>(1 + dilation * (size - 1), 0);
}

Checked<ConvDimensionNumbers> conv_dimension_numbers(std::size_t lhs_rank, std::size_t rhs_rank,
                                                     const std::vector<std::string>* specs) {
  if (lhs_rank != rhs_rank)
    return Error{ErrorClass::TypeError, "convolution requires lhs and rhs ndim to be equal, got " +
                                            std::to_string(lhs_rank) + " and " + std::to_string(rhs_rank) + "."};
  if (lhs_rank < 2)
    return Error{ErrorClass::TypeError, "convolution requires lhs and rhs of rank at least 2 (batch and feature "
                                        "dimensions), got rank " + std::to_string(lhs_rank) + "."};
  if (!specs) {
    std::vector<int> iota(lhs_rank);
    for (std::size_t i = 0; i < lhs_rank; ++i) iota[i] = static_cast<int>(i);
    return ConvDimensionNumbers{iota, iota, iota};
  }
  if (specs->size() != 3)
    return Error{ErrorClass::TypeError, "convolution dimension_numbers list/tuple must be length 3, got " +
                                            std::to_string(specs->size()) + "."};
  for (std::size_t i = 0; i < 3; ++i)
    if ((*specs)[i].size() != lhs_rank)
      return Error{ErrorClass::TypeError, "convolution dimension_numbers[" + std::to_string(i) +
                                              "] must have len equal to the ndim of lhs and rhs, got " +
                                              std::to_string((*specs)[i].size()) + " for lhs and rhs shapes of rank " +
                                              std::to_string(lhs_rank) + "."};
  const char pairs[3][2] = {{'N', 'C'}, {'O', 'I'}, {'N', 'C'}};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string& spec = (*specs)[i];
    if (std::count(spec.begin(), spec.end(), pairs[i][0]) != 1 || std::count(spec.begin(), spec.end(), pairs[i][1]) != 1)
      return Error{ErrorClass::TypeError, "convolution dimension_numbers[" + std::to_string(i) +
                                              "] must contain the characters '" + pairs[i][0] + "' and '" + pairs[i][1] +
                                              "' exactly once, got " + spec + "."};
    if (std::set<char>(spec.begin(), spec.end()).size() != spec.size())
      return Error{ErrorClass::TypeError, "convolution dimension_numbers[" + std::to_string(i) +
                                              "] cannot have duplicate characters, got " + spec + "."};
  }
  auto spatial_set = [&](std::size_t i) {
    std::set<char> out((*specs)[i].begin(), (*specs)[i].end());
    out.erase(pairs[i][0]);
    out.erase(pairs[i][1]);
    return out;
  };
  if (spatial_set(0) != spatial_set(1) || spatial_set(1) != spatial_set(2))
    return Error{ErrorClass::TypeError, "convolution dimension_numbers elements must each have the same set of "
                                        "spatial characters, got " + specs_repr(*specs) + "."};
  const std::string& rhs_spec = (*specs)[1];
  auto permutation = [&](std::size_t i) {
    const std::string& spec = (*specs)[i];
    std::vector<int> out{static_cast<int>(spec.find(pairs[i][0])), static_cast<int>(spec.find(pairs[i][1]))};
    for (char c : rhs_spec)
      if (c != 'O' && c != 'I') out.push_back(static_cast<int>(spec.find(c)));
    return out;
  };
  return ConvDimensionNumbers{permutation(0), permutation(1), permutation(2)};
}

Checked<Padding> padtype_to_pads(std::span<const std::int64_t> in_shape, std::span<const std::int64_t> window_shape,
                                 std::span<const std::int64_t> strides, std::string_view padding) {
  std::string upper(padding);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper != "SAME" && upper != "SAME_LOWER" && upper != "VALID")
    return Error{ErrorClass::RuntimeError, "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got " +
                                               std::string(padding) + "."};
  Padding out;
  for (std::size_t i = 0; i < in_shape.size(); ++i) {
    if (upper == "VALID") {
      out.emplace_back(0, 0);
      continue;
    }
    if (i >= strides.size() || strides[i] <= 0 || i >= window_shape.size())
      return Error{ErrorClass::ValueError, "padtype_to_pads needs a positive stride and a window size for every "
                                           "dimension of the input shape " + ints_tuple_repr(in_shape)};
    std::int64_t out_size = (in_shape[i] + strides[i] - 1) / strides[i];
    std::int64_t pad = std::max<std::int64_t>((out_size - 1) * strides[i] + window_shape[i] - in_shape[i], 0);
    if (upper == "SAME") out.emplace_back(pad / 2, pad - pad / 2);
    else out.emplace_back(pad - pad / 2, pad / 2);
  }
  return out;
}

Checked<Shape> conv_general_dilated_shape(const Shape& lhs, const Shape& rhs, const ConvDimensionNumbers& numbers,
                                          const ConvWindow& window) {
  const std::int64_t groups = window.feature_group_count, batch_groups = window.batch_group_count;
  if (lhs.size() != rhs.size())
    return Error{ErrorClass::ValueError, "conv_general_dilated lhs and rhs must have the same number of dimensions, but got " +
                                             python_shape_repr(lhs) + " and " + python_shape_repr(rhs) + "."};
  if (groups <= 0)
    return Error{ErrorClass::ValueError, "conv_general_dilated feature_group_count must be a positive integer, got " +
                                             std::to_string(groups) + "."};
  auto at = [](const Shape& shape, int dim) { return shape[static_cast<std::size_t>(dim)]; };
  const std::int64_t lhs_features = at(lhs, numbers.lhs_spec[1]);
  const std::int64_t rhs_in = at(rhs, numbers.rhs_spec[1]), rhs_out = at(rhs, numbers.rhs_spec[0]);
  if (lhs_features % groups)
    return Error{ErrorClass::ValueError, "conv_general_dilated feature_group_count must divide lhs feature dimension size, but " +
                                             std::to_string(groups) + " does not divide " + std::to_string(lhs_features) + "."};
  if (lhs_features / groups != rhs_in)
    return Error{ErrorClass::ValueError,
                 "conv_general_dilated lhs feature dimension size divided by feature_group_count must equal the rhs input "
                 "feature dimension size, but " + std::to_string(lhs_features) + " // " + std::to_string(groups) +
                     " != " + std::to_string(rhs_in) + "."};
  if (rhs_out % groups)
    return Error{ErrorClass::ValueError, "conv_general_dilated rhs output feature dimension size must be a multiple of "
                                         "feature_group_count, but " + std::to_string(rhs_out) + " is not a multiple of " +
                                             std::to_string(groups) + "."};
  if (batch_groups <= 0)
    return Error{ErrorClass::ValueError, "conv_general_dilated batch_group_count must be a positive integer, got " +
                                             std::to_string(batch_groups) + "."};
  const std::int64_t lhs_batch = at(lhs, numbers.lhs_spec[0]);
  if (batch_groups > 1 && lhs_batch % batch_groups != 0)
    return Error{ErrorClass::ValueError, "conv_general_dilated batch_group_count must divide lhs batch dimension size, but " +
                                             std::to_string(batch_groups) + " does not divide " + std::to_string(lhs_batch) + "."};
  if (rhs_out % batch_groups)
    return Error{ErrorClass::ValueError, "conv_general_dilated rhs output feature dimension size must be a multiple of "
                                         "batch_group_count, but " + std::to_string(rhs_out) + " is not a multiple of " +
                                             std::to_string(batch_groups) + "."};
  if (batch_groups > 1 && groups > 1)
    return Error{ErrorClass::ValueError, "At most one of batch_group_count and feature_group_count may be > 1, got "
                                         "batch_group_count=" + std::to_string(batch_groups) +
                                             " and feature_group_count=" + std::to_string(groups)};
  const std::size_t spatial = numbers.rhs_spec.size() - 2;
  if (spatial != window.strides.size())
    return Error{ErrorClass::ValueError, "conv_general_dilated window and window_strides must have the same number of "
                                         "dimensions, but got " + std::to_string(spatial) + " and " +
                                             std::to_string(window.strides.size())};
  if (window.padding.size() != spatial)
    return Error{ErrorClass::TypeError, "Wrong number of explicit pads for convolution: expected " +
                                            std::to_string(spatial) + ", got " + std::to_string(window.padding.size()) + "."};
  for (const auto* dilation : {&window.lhs_dilation, &window.rhs_dilation}) {
    if (dilation->size() != spatial)
      return Error{ErrorClass::ValueError, "conv_general_dilated lhs_dilation and rhs_dilation must have one entry per "
                                           "spatial dimension (" + std::to_string(spatial) + "), got " +
                                               ints_tuple_repr(*dilation)};
    if (auto error = check_dilations(*dilation)) return *error;
  }
  if (std::any_of(window.strides.begin(), window.strides.end(), [](std::int64_t s) { return s <= 0; }))
    return Error{ErrorClass::ValueError, "conv_general_dilated window_strides must be positive, got " +
                                             ints_tuple_repr(window.strides)};
  std::vector<std::int64_t> lhs_spatial, rhs_spatial;
  for (std::size_t i = 0; i < spatial; ++i) {
    lhs_spatial.push_back(dilate_dim(at(lhs, numbers.lhs_spec[2 + i]), window.lhs_dilation[i]));
    rhs_spatial.push_back(dilate_dim(at(rhs, numbers.rhs_spec[2 + i]), window.rhs_dilation[i]));
  }
  Checked<std::vector<std::int64_t>> padded_sizes = padded(lhs_spatial, window.padding);
  if (!padded_sizes) return padded_sizes.error();
  std::vector<std::int64_t> canonical{batch_groups > 1 ? lhs_batch / batch_groups : lhs_batch, rhs_out};
  for (std::size_t i = 0; i < spatial; ++i)
    canonical.push_back(stride_dim(padded_sizes.value()[i], rhs_spatial[i], window.strides[i]));
  Shape out(lhs.size());
  for (std::size_t i = 0; i < canonical.size(); ++i) out[static_cast<std::size_t>(numbers.out_spec[i])] = canonical[i];
  return out;
}

Checked<ArrayType> conv_general_dilated_rule(const ArrayType& lhs, const ArrayType& rhs,
                                             const ConvDimensionNumbers& numbers, const ConvWindow& window,
                                             ElementType element, const std::optional<Sharding>& out_sharding) {
  if (lhs.dtype != rhs.dtype)
    return Error{ErrorClass::TypeError, "lax.conv_general_dilated requires arguments to have the same dtypes, got " +
                                            std::string(long_name(lhs.dtype)) + ", " + std::string(long_name(rhs.dtype)) + "."};
  if (lhs.dtype == DType::bool_)
    return Error{ErrorClass::TypeError, "conv_general_dilated does not accept dtype bool. Accepted dtypes are subtypes of "
                                        "number."};
  Checked<Shape> shape = conv_general_dilated_shape(lhs.shape, rhs.shape, numbers, window);
  if (!shape) return shape.error();
  const ArrayType* operands[] = {&lhs, &rhs};
  std::variant<MeshRef, MeshMismatch> mesh = common_mesh(operands);
  if (auto* mismatch = std::get_if<MeshMismatch>(&mesh))
    return Error{ErrorClass::ShardingTypeError, "Mesh of both lhs and rhs should match. Got lhs: " +
                                                    mismatch->first->repr() + " and rhs: " + mismatch->second->repr()};
  ArrayType result = make_result(element, shape.value(), std::get<MeshRef>(mesh), varying_union(operands));
  if (out_sharding) {
    result.sharding = *out_sharding;
    return result;
  }
  const bool feature_unsharded =
      lhs.sharding.dims.empty() || lhs.sharding.dims[static_cast<std::size_t>(numbers.lhs_spec[1])].empty();
  if (!fully_replicated(rhs) || !feature_unsharded)
    return Error{ErrorClass::ShardingTypeError,
                 "Please specify the output sharding via `out_sharding` parameter of `conv_general_dilated`"};
  if (!lhs.sharding.mesh) return result;
  Checked<Sharding> sharding = varying_out_shape_sharding(result.shape, lhs, "conv_general_dilated");
  if (!sharding) return sharding.error();
  result.sharding = std::move(sharding).value();
  return result;
}

Checked<Shape> reduce_window_shape(std::string_view name, const Shape& operand, std::span<const std::int64_t> window,
                                   const ConvWindow& params) {
  auto check_shapelike = [&](std::string_view arg, std::span<const std::int64_t> values, bool non_zero) -> std::optional<Error> {
    const std::int64_t lower = non_zero ? 1 : 0;
    if (std::all_of(values.begin(), values.end(), [&](std::int64_t d) { return d >= lower; })) return std::nullopt;
    return Error{ErrorClass::TypeError, "reduce_window " + std::string(arg) + " must have every element be " +
                                            (non_zero ? "strictly positive" : "nonnegative") + ", got " +
                                            ints_tuple_repr(values) + "."};
  };
  if (auto e = check_shapelike("window_dimensions", window, true)) return *e;
  if (auto e = check_shapelike("window_strides", params.strides, true)) return *e;
  if (auto e = check_shapelike("base_dilation", params.lhs_dilation, false)) return *e;
  if (auto e = check_shapelike("window_dilation", params.rhs_dilation, false)) return *e;
  if (operand.size() != window.size())
    return Error{ErrorClass::TypeError, std::string(name) + " got the wrong number of window_dimensions for operand: got "
                                        "operand shape " + python_shape_repr(operand) + " with window_dimensions " +
                                            ints_tuple_repr(window) + "."};
  const std::pair<std::string_view, const std::vector<std::int64_t>*> others[] = {
      {"window_strides", &params.strides}, {"base_dilation", &params.lhs_dilation}, {"window_dilation", &params.rhs_dilation}};
  for (const auto& [arg, values] : others)
    if (values->size() != window.size())
      return Error{ErrorClass::TypeError, std::string(name) + " got inconsistent " + std::string(arg) +
                                              " and window_dimensions: got " + std::string(arg) + " " +
                                              ints_tuple_repr(*values) + " and window_dimensions " +
                                              ints_tuple_repr(window) + "."};
  if (params.padding.size() != window.size())
    return Error{ErrorClass::TypeError, std::string(name) + " got the wrong number of padding pairs: expected " +
                                            std::to_string(window.size()) + ", got " +
                                            std::to_string(params.padding.size()) + "."};
  if (auto error = check_dilations(params.lhs_dilation)) return *error;
  if (auto error = check_dilations(params.rhs_dilation)) return *error;
  Shape out;
  for (std::size_t i = 0; i < window.size(); ++i) {
    std::int64_t size = dilate_dim(operand[i], params.lhs_dilation[i]) + params.padding[i].first + params.padding[i].second;
    out.push_back(stride_dim(size, dilate_dim(window[i], params.rhs_dilation[i]), params.strides[i]));
  }
  return out;
}

Checked<ArrayType> reduce_window_rule(std::string_view name, const ArrayType& operand,
                                      std::span<const std::int64_t> window, const ConvWindow& params) {
  if (name == "reduce_window_sum" && operand.dtype == DType::bool_)
    return Error{ErrorClass::TypeError, "operand to reduce_window_sum must have a number dtype, got bool"};
  Checked<Shape> shape = reduce_window_shape(name, operand.shape, window, params);
  if (!shape) return shape.error();
  ArrayType result = operand;
  result.shape = shape.value();
  if (!operand.sharding.mesh) return result;
  Checked<Sharding> sharding = varying_out_shape_sharding(result.shape, operand, "reduce_window");
  if (!sharding) return sharding.error();
  result.sharding = std::move(sharding).value();
  return result;
}

}  // namespace typecheck
