// JAX's printed params (jaxpr_params.hpp).
#include "interp/ops/jaxpr_params.hpp"

#include <numeric>

#include "interp/ops/contractions.hpp"
#include "typecheck/python_repr.hpp"

namespace interp::jaxpr_params {

namespace {

// Python's repr of a tuple of ints: (), (0,), (1, 0).
std::string int_tuple(const std::vector<std::int64_t>& values) {
  std::vector<std::string> items;
  for (auto v : values) items.push_back(std::to_string(v));
  return typecheck::python_tuple_repr(items);
}

// Python's repr of a list of ints: [], [1], [0, 1].
std::string int_list(const std::vector<int>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

// A sharding param: None, or the spec it was given.
std::string sharding_text(const Params& params, std::string_view name) {
  const auto* sharding = params.get<typecheck::ShardingArg>(name);
  return sharding ? sharding->spec.repr() : "None";
}

// The reduced axes: those given, or all of the operand's.
PrintedParams axes(const Params& params, const std::vector<typecheck::ArrayType>& operands) {
  const auto rank = static_cast<std::int64_t>(operands.empty() ? 0 : operands[0].ndim());
  std::vector<std::int64_t> reduced(static_cast<std::size_t>(rank));
  std::iota(reduced.begin(), reduced.end(), 0);
  if (const auto* given = params.get<std::vector<std::int64_t>>("axes")) {
    reduced = *given;
    for (auto& axis : reduced)
      if (axis < 0) axis += rank;
  }
  PrintedParams out{{"axes", int_tuple(reduced)}};
  if (const bool* keepdims = params.get<bool>("keepdims"); keepdims && *keepdims) out.emplace_back("keepdims", "True");
  return out;
}

}  // namespace

PrintedParams broadcast_in_dim(const Params& params, const std::vector<typecheck::ArrayType>&,
                               const typecheck::ArrayType&) {
  const auto* dimensions = params.get<std::vector<std::int64_t>>("broadcast_dimensions");
  if (!dimensions || dimensions->empty()) return {};
  return {{"broadcast_dimensions", int_tuple(*dimensions)}};
}

PrintedParams none(const Params&, const std::vector<typecheck::ArrayType>&, const typecheck::ArrayType&) { return {}; }

PrintedParams convert_element_type(const Params&, const std::vector<typecheck::ArrayType>&,
                                   const typecheck::ArrayType& result) {
  return {{"new_dtype", std::string(typecheck::long_name(result.dtype))}, {"weak_type", result.weak_type ? "True" : "False"}};
}

PrintedParams dot_general(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                          const typecheck::ArrayType& result) {
  typecheck::DotDimensionNumbers numbers = dot_dimension_numbers(params, operands.empty() ? 0 : operands[0].ndim());
  PrintedParams out{{"dimension_numbers", "((" + int_list(numbers.lhs_contracting) + ", " + int_list(numbers.rhs_contracting) +
                                              "), (" + int_list(numbers.lhs_batch) + ", " + int_list(numbers.rhs_batch) + "))"}};
  if (const auto* precision = params.get<std::string>("precision"))
    out.emplace_back("precision", "(Precision." + *precision + ", Precision." + *precision + ")");
  // jnp's contractions ask for the result's dtype (jnp.matmul, jnp.dot, jnp.einsum).
  out.emplace_back("preferred_element_type", std::string(typecheck::long_name(result.dtype)));
  return out;
}

PrintedParams reshape(const Params& params, const std::vector<typecheck::ArrayType>&, const typecheck::ArrayType&) {
  const auto* sizes = params.get<std::vector<std::int64_t>>("new_sizes");
  return {{"dimensions", "None"}, {"new_sizes", int_tuple(sizes ? *sizes : std::vector<std::int64_t>{})},
          {"sharding", sharding_text(params, "out_sharding")}};
}

PrintedParams round(const Params&, const std::vector<typecheck::ArrayType>&, const typecheck::ArrayType&) {
  return {{"rounding_method", "1"}};
}

PrintedParams reduction(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                        const typecheck::ArrayType&) {
  return axes(params, operands);
}

PrintedParams sharded_reduction(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                                const typecheck::ArrayType&) {
  PrintedParams out = axes(params, operands);
  out.emplace_back("out_sharding", sharding_text(params, "out_sharding"));
  return out;
}

PrintedParams arg_reduction(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                            const typecheck::ArrayType& result) {
  PrintedParams out = axes(params, operands);
  out.emplace_back("index_dtype", std::string(typecheck::long_name(result.dtype)));
  return out;
}

}  // namespace interp::jaxpr_params
