// Item 8 of the rule set: one table from each jnp/lax/jax name of
// language.md's library table to the rule that types it, with its factor
// mapping where the rule is one (style.md §6, §7).
//
// Contract: primitive_registry() is sorted by name (find_primitive relies on
// it); names are qualified ("jnp.add", "lax.psum", "jax.device_put").
// describe_rule() is what the REPL's `:rule NAME` prints: the rule, the
// reference section, and the factor mapping for rank-2 operands.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "typecheck/sharding_rule.hpp"

namespace typecheck {

struct PrimitiveEntry {
  std::string_view name;       // qualified, as the user calls it
  std::string_view rule;       // the typecheck function that types it
  std::string_view reference;  // the section of jax-sharding-reference.md
  // The factor mapping on rank-2 operands; null where the rule is not a
  // factor mapping (reshape, creation, resharding, control flow).
  FactorRule (*example_factor_rule)();
};

// Sorted by name.
std::span<const PrimitiveEntry> primitive_registry();

// By qualified name, or by the bare name when exactly one entry has it
// ("dot_general" finds "lax.dot_general"). Null when unknown or ambiguous.
const PrimitiveEntry* find_primitive(std::string_view name);

// "lax.dot_general: dot_general_rule (reference §2.3)\n  ([i,k],[k,j]) -> ..."
// or a line saying the name is unknown.
std::string describe_rule(std::string_view name);

}  // namespace typecheck
