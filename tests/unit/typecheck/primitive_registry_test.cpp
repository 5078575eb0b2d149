// The primitive table: sorted, lookups by qualified and bare name, and the
// :rule printer.
#include "typecheck/primitive_registry.hpp"

#include <gtest/gtest.h>

namespace typecheck {
namespace {

TEST(PrimitiveRegistry, SortedAndUnique) {
  const std::span<const PrimitiveEntry> entries = primitive_registry();
  ASSERT_FALSE(entries.empty());
  for (std::size_t i = 1; i < entries.size(); ++i) EXPECT_LT(entries[i - 1].name, entries[i].name);
}

TEST(PrimitiveRegistry, Lookup) {
  ASSERT_NE(find_primitive("jnp.sum"), nullptr);
  EXPECT_EQ(find_primitive("jnp.sum")->rule, "reduction_rule");
  ASSERT_NE(find_primitive("dot_general"), nullptr);
  EXPECT_EQ(find_primitive("dot_general")->name, "lax.dot_general");
  EXPECT_EQ(find_primitive("no_such_op"), nullptr);
}

TEST(PrimitiveRegistry, ShardMapAndCollectives) {
  ASSERT_NE(find_primitive("psum"), nullptr);
  EXPECT_EQ(find_primitive("psum")->name, "lax.psum");
  EXPECT_EQ(find_primitive("lax.pmean")->rule, "psum_rule");
  EXPECT_EQ(find_primitive("ppermute")->rule, "ppermute_rule");
  EXPECT_EQ(find_primitive("switch")->rule, "check_switch_outputs");
  EXPECT_EQ(describe_rule("shard_map"),
            "jax.shard_map: body_argument_type/check_out_replication/shard_map_output_type (reference §4)\n"
            "  not a factor mapping");
}

TEST(PrimitiveRegistry, DescribeRule) {
  EXPECT_EQ(describe_rule("dot_general"),
            "lax.dot_general: dot_general_rule (reference §2.3)\n  ([i,k],[k,j]) -> ([i,j]) reduction={k}");
  EXPECT_EQ(describe_rule("jnp.add"), "jnp.add: jnp_elementwise_rule (reference §2.2)\n  ([i,j],[i,j]) -> ([i,j])");
  EXPECT_EQ(describe_rule("sum"), "jnp.sum: reduction_rule (reference §2.4)\n  ([i,j]) -> ([j]) reduction={i}");
  EXPECT_EQ(describe_rule("transpose"), "jnp.transpose: transpose_rule (reference §2.6)\n  ([i,j]) -> ([j,i])");
  EXPECT_EQ(describe_rule("reshape"), "jnp.reshape: reshape_rule (reference §2.5)\n  not a factor mapping");
  EXPECT_EQ(describe_rule("frobnicate"), "no sharding rule is registered under 'frobnicate'");
}

}  // namespace
}  // namespace typecheck
