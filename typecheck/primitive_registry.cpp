#include "typecheck/primitive_registry.hpp"

#include <algorithm>
#include <array>

#include "typecheck/reduction_rules.hpp"
#include "typecheck/shape_rules.hpp"

namespace typecheck {

namespace {

FactorRule unary_factors() {
  const std::size_t ranks[] = {2};
  return elementwise_factor_rule(ranks);
}
FactorRule binary_factors() {
  const std::size_t ranks[] = {2, 2};
  return elementwise_factor_rule(ranks);
}
FactorRule ternary_factors() {
  const std::size_t ranks[] = {2, 2, 2};
  return elementwise_factor_rule(ranks);
}
FactorRule matmul_factors() { return dot_general_factor_rule(2, 2, matmul_dimension_numbers()).value(); }
FactorRule outer_factors() { return dot_general_factor_rule(1, 1, {{}, {}, {}, {}}).value(); }
FactorRule reduce_first_factors() {
  const std::size_t reduced[] = {0};
  return reduction_factor_rule(2, reduced);
}
FactorRule transpose_factors() {
  const int permutation[] = {1, 0};
  return transpose_factor_rule(permutation);
}
FactorRule broadcast_factors() {
  const int dims[] = {1};
  return broadcast_in_dim_factor_rule(2, dims);
}

constexpr const char* elementwise = "jnp_elementwise_rule";
constexpr const char* unary = "unary_rule";
constexpr const char* reduction = "reduction_rule";
constexpr const char* structural = "§2.7";

// ORDER: sorted by name (find_primitive binary-searches it).
constexpr PrimitiveEntry registry[] = {
    {"jax.device_put", "device_put_rule", "§2.11", nullptr},
    {"jax.reshard", "reshard_rule", "§2.11", nullptr},
    {"jax.shard_map", "body_argument_type/check_out_replication/shard_map_output_type", "§4", nullptr},
    {"jax.sharding.auto_axes", "auto_axes_mesh/auto_axes_argument/auto_axes_result", "§3.5", nullptr},
    {"jax.sharding.explicit_axes", "explicit_axes_mesh/explicit_axes_argument/explicit_axes_result", "§3.5", nullptr},
    {"jnp.abs", unary, "§2.1", unary_factors},
    {"jnp.add", elementwise, "§2.2", binary_factors},
    {"jnp.arange", "creation_rule", "§2.9", nullptr},
    {"jnp.argmax", reduction, "§2.4", reduce_first_factors},
    {"jnp.argmin", reduction, "§2.4", reduce_first_factors},
    {"jnp.array", "creation_rule", "§2.9", nullptr},
    {"jnp.asarray", "creation_rule", "§2.9", nullptr},
    {"jnp.astype", "convert_element_type_rule", "§2.10", unary_factors},
    {"jnp.at.set", "scatter_rule", "§2.8", nullptr},
    {"jnp.broadcast_to", "broadcast_to_rule", "§2.6", broadcast_factors},
    {"jnp.clip", "clip_rule", "§2.2", unary_factors},
    {"jnp.concatenate", "concatenate_rule", structural, binary_factors},
    {"jnp.copy", unary, "§2.1", unary_factors},
    {"jnp.cos", unary, "§2.1", unary_factors},
    {"jnp.divide", elementwise, "§2.2", binary_factors},
    {"jnp.dot", "dot_general_rule", "§2.3", matmul_factors},
    {"jnp.einsum", "dot_general_rule", "§2.3", matmul_factors},
    {"jnp.equal", "comparison_rule", "§2.2", binary_factors},
    {"jnp.exp", unary, "§2.1", unary_factors},
    {"jnp.expand_dims", "expand_dims_rule", "§2.6", broadcast_factors},
    {"jnp.expm1", unary, "§2.1", unary_factors},
    {"jnp.eye", "creation_rule", "§2.9", nullptr},
    {"jnp.floor_divide", elementwise, "§2.2", binary_factors},
    {"jnp.full", "creation_rule", "§2.9", nullptr},
    {"jnp.full_like", "like_rule", "§2.9", nullptr},
    {"jnp.greater", "comparison_rule", "§2.2", binary_factors},
    {"jnp.greater_equal", "comparison_rule", "§2.2", binary_factors},
    {"jnp.less", "comparison_rule", "§2.2", binary_factors},
    {"jnp.less_equal", "comparison_rule", "§2.2", binary_factors},
    {"jnp.linspace", "creation_rule", "§2.9", nullptr},
    {"jnp.log", unary, "§2.1", unary_factors},
    {"jnp.log1p", unary, "§2.1", unary_factors},
    {"jnp.logical_and", elementwise, "§2.2", binary_factors},
    {"jnp.logical_not", unary, "§2.1", unary_factors},
    {"jnp.logical_or", elementwise, "§2.2", binary_factors},
    {"jnp.matmul", "dot_general_rule", "§2.3", matmul_factors},
    {"jnp.max", reduction, "§2.4", reduce_first_factors},
    {"jnp.maximum", elementwise, "§2.2", binary_factors},
    {"jnp.mean", reduction, "§2.4", reduce_first_factors},
    {"jnp.min", reduction, "§2.4", reduce_first_factors},
    {"jnp.minimum", elementwise, "§2.2", binary_factors},
    {"jnp.moveaxis", "transpose_rule", "§2.6", transpose_factors},
    {"jnp.multiply", elementwise, "§2.2", binary_factors},
    {"jnp.negative", unary, "§2.1", unary_factors},
    {"jnp.not_equal", "comparison_rule", "§2.2", binary_factors},
    {"jnp.ones", "creation_rule", "§2.9", nullptr},
    {"jnp.ones_like", "like_rule", "§2.9", nullptr},
    {"jnp.outer", "dot_general_rule", "§2.3", outer_factors},
    {"jnp.power", elementwise, "§2.2", binary_factors},
    {"jnp.prod", reduction, "§2.4", reduce_first_factors},
    {"jnp.reshape", "reshape_rule", "§2.5", nullptr},
    {"jnp.roll", "roll_rule", structural, unary_factors},
    {"jnp.rsqrt", unary, "§2.1", unary_factors},
    {"jnp.sign", unary, "§2.1", unary_factors},
    {"jnp.sin", unary, "§2.1", unary_factors},
    {"jnp.split", "split_rule", structural, nullptr},
    {"jnp.sqrt", unary, "§2.1", unary_factors},
    {"jnp.square", unary, "§2.1", unary_factors},
    {"jnp.squeeze", "squeeze_rule", "§2.6", nullptr},
    {"jnp.stack", "stack_rule", structural, nullptr},
    {"jnp.std", reduction, "§2.4", reduce_first_factors},
    {"jnp.subtract", elementwise, "§2.2", binary_factors},
    {"jnp.sum", reduction, "§2.4", reduce_first_factors},
    {"jnp.swapaxes", "transpose_rule", "§2.6", transpose_factors},
    {"jnp.take", "take_rule", "§2.8", nullptr},
    {"jnp.tan", unary, "§2.1", unary_factors},
    {"jnp.tanh", unary, "§2.1", unary_factors},
    {"jnp.tensordot", "dot_general_rule", "§2.3", matmul_factors},
    {"jnp.tile", "tile_rule", structural, unary_factors},
    {"jnp.transpose", "transpose_rule", "§2.6", transpose_factors},
    {"jnp.true_divide", elementwise, "§2.2", binary_factors},
    {"jnp.var", reduction, "§2.4", reduce_first_factors},
    {"jnp.where", "where_rule", "§2.2", ternary_factors},
    {"jnp.zeros", "creation_rule", "§2.9", nullptr},
    {"jnp.zeros_like", "like_rule", "§2.9", nullptr},
    {"lax.all_gather", "all_gather_rule", "§4.4", nullptr},
    {"lax.all_to_all", "all_to_all_rule", "§4.4", nullptr},
    {"lax.axis_index", "axis_index_rule", "§4.4", nullptr},
    {"lax.axis_size", "axis_size_rule", "§4.4", nullptr},
    {"lax.broadcast_in_dim", "broadcast_in_dim_rule", "§2.6", broadcast_factors},
    {"lax.cond", "check_branch_outputs", "§2.12", nullptr},
    {"lax.dot_general", "dot_general_rule", "§2.3", matmul_factors},
    {"lax.dynamic_slice", "dynamic_slice_rule", "§2.8", nullptr},
    {"lax.dynamic_slice_in_dim", "dynamic_slice_rule", "§2.8", nullptr},
    {"lax.dynamic_update_slice", "dynamic_update_slice_rule", "§2.8", nullptr},
    {"lax.fori_loop", "check_carry_types", "§2.12", nullptr},
    {"lax.pcast", "pcast_rule", "§4.4", nullptr},
    {"lax.pmax", "psum_rule", "§4.4", nullptr},
    {"lax.pmean", "psum_rule", "§4.4", nullptr},
    {"lax.pmin", "psum_rule", "§4.4", nullptr},
    {"lax.ppermute", "ppermute_rule", "§4.4", nullptr},
    {"lax.psum", "psum_rule", "§4.4", nullptr},
    {"lax.psum_scatter", "psum_scatter_rule", "§4.4", nullptr},
    {"lax.pvary", "pvary_rule", "§4.4", nullptr},
    {"lax.scan", "check_carry_types/check_scan_xs", "§2.12", nullptr},
    {"lax.switch", "check_switch_outputs", "§2.12", nullptr},
    {"lax.while_loop", "check_carry_types", "§2.12", nullptr},
    {"lax.with_sharding_constraint", "with_sharding_constraint_rule", "§2.11", nullptr},
};

constexpr bool sorted_by_name() {
  for (std::size_t i = 1; i < std::size(registry); ++i)
    if (!(registry[i - 1].name < registry[i].name)) return false;
  return true;
}
static_assert(sorted_by_name(), "primitive registry must stay sorted by name");

std::string_view bare_name(std::string_view qualified) {
  const std::size_t dot = qualified.rfind('.');
  return dot == std::string_view::npos ? qualified : qualified.substr(dot + 1);
}

}  // namespace

std::span<const PrimitiveEntry> primitive_registry() { return registry; }

const PrimitiveEntry* find_primitive(std::string_view name) {
  auto found = std::lower_bound(std::begin(registry), std::end(registry), name,
                                [](const PrimitiveEntry& entry, std::string_view key) { return entry.name < key; });
  if (found != std::end(registry) && found->name == name) return found;
  const PrimitiveEntry* match = nullptr;
  for (const PrimitiveEntry& entry : registry)
    if (bare_name(entry.name) == name) {
      if (match) return nullptr;
      match = &entry;
    }
  return match;
}

std::string describe_rule(std::string_view name) {
  const PrimitiveEntry* entry = find_primitive(name);
  if (!entry) return "no sharding rule is registered under '" + std::string(name) + "'";
  std::string out = std::string(entry->name) + ": " + std::string(entry->rule) + " (reference " +
                    std::string(entry->reference) + ")";
  if (entry->example_factor_rule) out += "\n  " + entry->example_factor_rule().str();
  else out += "\n  not a factor mapping";
  return out;
}

}  // namespace typecheck
