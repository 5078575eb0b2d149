// The primitive table (interp/ops/primitives.hpp): every entry carries every
// rule its kind of primitive needs, so adding a primitive without one fails
// here rather than in the first script that differentiates or costs it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "interp/ops/placement.hpp"
#include "interp/ops/primitives.hpp"

namespace interp {
namespace {

TEST(PrimitiveTable, SortedUniqueAndFindable) {
  auto table = primitives();
  ASSERT_FALSE(table.empty());
  for (std::size_t i = 1; i < table.size(); ++i) EXPECT_LT(table[i - 1].name, table[i].name);
  for (const Primitive& p : table) EXPECT_EQ(find_primitive(p.name), &p) << p.name;
  EXPECT_EQ(find_primitive("no_such_primitive"), nullptr);
}

TEST(PrimitiveTable, EveryEntryHasEveryRule) {
  for (const Primitive& p : primitives()) {
    SCOPED_TRACE(std::string(p.name));
    EXPECT_FALSE(p.api_name.empty());
    EXPECT_FALSE(p.lax.name.empty());  // what a jaxpr prints
    EXPECT_NE(p.implementation, nullptr);
    EXPECT_NE(p.cost, nullptr);
    EXPECT_NE(p.vjp, nullptr);  // vjp::not_differentiable where JAX has no rule
    EXPECT_NE(p.batch, nullptr);  // vmap's rule (ops/batching.hpp)
    ASSERT_NE(p.partition, nullptr);  // partitioning::replay where the family has no decision yet
    // A decision comes with its kernel; a replayed family has neither.
    EXPECT_EQ(p.partition->place == nullptr, p.partition->kernel == nullptr);
    EXPECT_TRUE(replayed(*p.partition) || p.partition->replayed == nullptr);
    if (is_elementwise(p)) {
      EXPECT_TRUE(p.arity == 1 || p.arity == 2);
    }
  }
}

TEST(PrimitiveTable, TheCollectivesAreTheirXlaInstructions) {
  // shard_map's collectives are XLA collectives; nothing else is one, and a
  // collective costs only what it moves (the cost model charges the collective).
  std::set<std::string> collectives;
  for (const Primitive& p : primitives()) {
    if (p.collective == devices::CollectiveKind::none) continue;
    collectives.insert(std::string(p.name));
    EXPECT_EQ(p.cost(p, {}, typecheck::ArrayType{}, Params{}).unit, CostUnit::none) << p.name;
  }
  EXPECT_EQ(collectives,
            (std::set<std::string>{"all_gather", "all_to_all", "pmax", "pmean", "pmin", "ppermute", "psum", "psum_scatter"}));
  EXPECT_EQ(primitive("psum").collective, devices::CollectiveKind::all_reduce);
  EXPECT_EQ(primitive("ppermute").collective, devices::CollectiveKind::collective_permute);
}

TEST(PrimitiveTable, DifferentiableAsInJax) {
  // JAX defines no differentiation rule for pmax, pmin and geqrf;
  // everything else has one (a zero cotangent for integer, boolean and
  // random results).
  std::set<std::string> not_differentiable;
  for (const Primitive& p : primitives())
    if (!is_differentiable(p)) not_differentiable.insert(std::string(p.name));
  EXPECT_EQ(not_differentiable, (std::set<std::string>{"geqrf", "pmax", "pmin"}));
}

}  // namespace
}  // namespace interp
