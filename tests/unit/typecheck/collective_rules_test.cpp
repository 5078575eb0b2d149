// Collectives and the vma rule: reference §4.3-§4.4, messages from
// jax/_src/lax/parallel.py.
#include "typecheck/collective_rules.hpp"

#include "rule_test_support.hpp"

namespace typecheck {
namespace {

using namespace typecheck::testing;

// A body mesh: x of 2 and y of 4, both Manual.
MeshRef body() { return mesh_of({{"x", 2, AxisType::Manual}, {"y", 4, AxisType::Manual}}); }
CollectiveContext in_body() { return {body(), true, true}; }
CollectiveContext strict() { return {body(), true, false}; }  // auto_pcast off

TEST(VmaRule, UnionWithAutoPcastElseEqual) {
  const ArrayType a = parse("f32[4]{V:x}", body());
  const ArrayType b = parse("f32[4]{V:y}", body());
  const ArrayType* operands[] = {&a, &b};
  EXPECT_EQ(standard_vma_rule("mul", operands, in_body()).value(), (AxisSet{"x", "y"}));
  EXPECT_EQ(standard_vma_rule("mul", operands, strict()).error().str(),
            "ValueError: Primitive mul requires varying manual axes to match, but got [frozenset({'x'}), "
            "frozenset({'y'})]. Please open an issue at https://github.com/jax-ml/jax/issues and as a temporary "
            "workaround pass the check_vma=False argument to `jax.shard_map`");
  EXPECT_TRUE(standard_vma_rule("mul", operands, {body(), false, true}).value().empty());
}

TEST(Psum, RemovesTheAxesAndAutoPvarys) {
  EXPECT_EQ(outcome(psum_rule("psum", parse("f32[4]{V:(x,y)}", body()), {"x"}, in_body())), "f32[4]{V:y}");
  // An invariant value is pvary'd first (psum of it multiplies by the size).
  EXPECT_EQ(outcome(psum_rule("psum", parse("f32[4]", body()), {"x", "y"}, in_body())), "f32[4]");
  EXPECT_EQ(outcome(psum_rule("pmax", parse("i32[4]{V:y}", body()), {"y"}, in_body())), "i32[4]");
  // c08: pmean of int32 over ('x', 'y') is float32 and invariant.
  EXPECT_EQ(outcome(psum_rule("pmean", parse("i32[4]{V:(x,y)}", body()), {"x", "y"}, in_body())), "f32[4]");
  EXPECT_EQ(psum_rule("psum", parse("f32[4]", body()), {"x"}, strict()).error().str(),
            "ValueError: psum is a variant->invariant collective. This means that the axis names mentioned in "
            "`axes` passed to `psum` must be present in `jax.typeof(inp).mat.varying`. Got axes=('x',) and "
            "jax.typeof(inp).mat.varying=frozenset()");
}

TEST(Psum, UnboundUnreducedAndMixedStates) {
  EXPECT_EQ(psum_rule("psum", parse("f32[4]", body()), {"z"}, in_body()).error().str(),
            "NameError: Found an unbound axis name: z. To fix this, please call pvary under `jax.shard_map`.");
  EXPECT_EQ(psum_rule("psum", parse("f32[4]", body()), {"z"}, {body(), false, true}).error().str(),
            "NameError: Found an unbound axis name: z. To fix this, please call psum under `jax.shard_map`.");
  EXPECT_EQ(psum_rule("pmin", parse("f32[4]{V:x}", body()), {"x", "y"}, in_body()).error().str(),
            "ValueError: jax.lax.pmin can only accept axis_name which corresponds to one of varying, unreduced, "
            "reduced or invarying state of the input. Got input type: float32[4]{V:x}, axes: ('x', 'y') and input "
            "state: {'varying', 'invarying'}");
  EXPECT_EQ(outcome(psum_rule("psum", parse("f32[4]{U:x}", body()), {"x"}, in_body())), "f32[4]");
  EXPECT_EQ(psum_rule("pmax", parse("f32[4]{R:x}", body()), {"x"}, in_body()).error().str(),
            "ValueError: pvary cannot accept args which are reduced. Got f32[4]{R:x} and axes={'x'}");
}

TEST(AllGather, ShapesAndTargets) {
  const ArrayType x = parse("f32[3,5]{V:y}", body());
  EXPECT_EQ(outcome(all_gather_rule(x, {"y"}, 0, true, "varying", in_body())), "f32[12,5]{V:y}");
  EXPECT_EQ(outcome(all_gather_rule(x, {"y"}, 2, false, "varying", in_body())), "f32[3,5,4]{V:y}");
  EXPECT_EQ(outcome(all_gather_rule(x, {"y"}, -1, true, "invarying", in_body())), "f32[3,20]");
  EXPECT_EQ(outcome(all_gather_rule(x, {"x", "y"}, 0, true, "reduced", in_body())), "f32[24,5]{R:(x,y)}");
  EXPECT_EQ(all_gather_rule(x, {"y"}, 2, true, "varying", in_body()).error().str(),
            "ValueError: axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(all_gather_rule(x, {"y"}, 0, true, "everywhere", in_body()).error().str(),
            "ValueError: Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` values are: {'varying', "
            "'reduced', 'invarying'}");
  EXPECT_EQ(all_gather_rule(parse("f32[3]", body()), {"y"}, 0, true, "varying", strict()).error().str(),
            "ValueError: Collective all_gather must be applied to a device-varying  type, but got frozenset() for "
            "collective acting over axis name ('y',). Please open an issue at https://github.com/jax-ml/jax/issues "
            "and as a temporary workaround pass the check_vma=False argument to `jax.shard_map`");
  EXPECT_EQ(all_gather_rule(parse("f32[3]{U:y}", body()), {"y"}, 0, true, "varying", in_body()).error().str(),
            "ValueError: pvary cannot accept args which are unreduced. Got f32[3]{U:y} and axes={'y'}");
}

TEST(PsumScatter, TiledAndUntiled) {
  const ArrayType x = parse("f32[8,4]{V:y}", body());
  EXPECT_EQ(outcome(psum_scatter_rule(x, {"y"}, 0, true, in_body())), "f32[2,4]{V:y}");
  EXPECT_EQ(outcome(psum_scatter_rule(x, {"y"}, 1, false, in_body())), "f32[8]{V:y}");
  EXPECT_EQ(psum_scatter_rule(x, {"x", "y"}, 1, true, in_body()).error().str(),
            "ValueError: tiled reduce_scatter operand scatter dimension size 4 must be divisible by shard_count 8");
  EXPECT_EQ(psum_scatter_rule(x, {"y"}, 0, false, in_body()).error().str(),
            "ValueError: reduce_scatter operand scatter dimension size 8 must match shard count 4");
}

TEST(Ppermute, PermIsValidated) {
  const ArrayType x = parse("i32[16,32]{V:(x,y)}", body());
  const std::vector<std::pair<std::int64_t, std::int64_t>> ring = {{0, 3}, {1, 0}, {2, 1}, {3, 2}};
  EXPECT_EQ(outcome(ppermute_rule(x, {"y"}, ring, in_body())), "i32[16,32]{V:(x,y)}");
  EXPECT_EQ(outcome(ppermute_rule(parse("f32[2]", body()), {"x"}, std::vector<std::pair<std::int64_t, std::int64_t>>{
                                                                     {0, 1}},
                                  in_body())),
            "f32[2]{V:x}");
  const std::vector<std::pair<std::int64_t, std::int64_t>> repeated = {{0, 1}, {1, 1}};
  EXPECT_EQ(ppermute_rule(x, {"y"}, repeated, in_body()).error().str(),
            "ValueError: ppermute sources and destinations must be unique, got ((0, 1), (1, 1)).");
  const std::vector<std::pair<std::int64_t, std::int64_t>> outside = {{0, 4}};
  EXPECT_EQ(ppermute_rule(x, {"y"}, outside, in_body()).error().str(),
            "ValueError: ppermute perm entries must be (source, destination) indices in range(4) along axis_name "
            "('y',), got ((0, 4),).");
  EXPECT_EQ(ppermute_rule(x, {"q"}, ring, in_body()).error().str(),
            "NameError: Found an unbound axis name: q. To fix this, please call pvary under `jax.shard_map`.");
}

TEST(AllToAll, TiledAndUntiled) {
  const ArrayType x = parse("f32[8,6]{V:y}", body());
  EXPECT_EQ(outcome(all_to_all_rule(x, {"y"}, 0, 1, true, in_body())), "f32[2,24]{V:y}");
  EXPECT_EQ(outcome(all_to_all_rule(parse("f32[4,6]{V:y}", body()), {"y"}, 0, 1, false, in_body())),
            "f32[6,4]{V:y}");
  EXPECT_EQ(all_to_all_rule(x, {"y"}, 1, 0, true, in_body()).error().str(),
            "ValueError: The size of all_to_all split_axis (6) has to be divisible by the size of the named axis y "
            "(4)");
  EXPECT_EQ(all_to_all_rule(x, {"y"}, 0, 1, false, in_body()).error().str(),
            "ValueError: all_to_all requires the size of the mapped axis axis_name to equal x.shape[split_axis], but "
            "they are 4 and 8 respectively.");
}

TEST(AxisIndexAndSize, VaryingAndBound) {
  EXPECT_EQ(outcome(axis_index_rule({"y"}, in_body())), "i32[]{V:y}");
  EXPECT_EQ(outcome(axis_index_rule({"y"}, {body(), false, true})), "i32[]");
  EXPECT_EQ(axis_index_rule({"X"}, {xy_mesh(), true, true}).error().str(),
            "NameError: Found an unbound axis name: X. To fix this, please call axis_index under `jax.shard_map`.");
  EXPECT_EQ(axis_size_rule({"x", "y"}, in_body()).value(), 8);
  EXPECT_EQ(axis_size_rule({"Y"}, {xy_mesh(), true, true}).error().str(), "NameError: unbound axis name: Y");
}

TEST(Pcast, StatesAndTransitions) {
  // c09: accum = pvary(zeros, ('X', 'Y')).
  EXPECT_EQ(outcome(pvary_rule(parse("f32[2]", body()), {"x", "y"}, in_body())), "f32[2]{V:(x,y)}");
  EXPECT_EQ(pvary_rule(parse("f32[2]{V:x}", body()), {"x"}, in_body()).error().str(),
            "ValueError: pvary is a invariant->variant collective. This means that the axis names mentioned in `axes` "
            "passed to `pvary` must not be present in `jax.typeof(inp).mat.varying`. Got axes=('x',) and "
            "jax.typeof(inp)=float32[2]{V:x}");
  EXPECT_EQ(pvary_rule(parse("f32[2]", xy_mesh()), {"X"}, {xy_mesh(), true, true}).error().str(),
            "ValueError: pvary should be called under jax.shard_map.");
  EXPECT_EQ(outcome(pcast_rule(parse("f32[2]", body()), {"y"}, "varying", in_body())), "f32[2]{V:y}");
  EXPECT_EQ(outcome(pcast_rule(parse("f32[2]", body()), {"y"}, "reduced", in_body())), "f32[2]{R:y}");
  EXPECT_EQ(outcome(pcast_rule(parse("f32[2]{V:(x,y)}", body()), {"y"}, "unreduced", in_body())), "f32[2]{V:x, U:y}");
  EXPECT_EQ(outcome(pcast_rule(parse("f32[2]{R:y}", body()), {"y"}, "varying", in_body())), "f32[2]{V:y}");
  EXPECT_EQ(pcast_rule(parse("f32[2]{V:y}", body()), {"y"}, "varying", in_body()).error().str(),
            "ValueError: Unsupported pcast from=varying, to='varying'");
  EXPECT_EQ(pcast_rule(parse("f32[2]", body()), {"y"}, "sideways", in_body()).error().str(),
            "ValueError: Got unexpected `to` value. Allowed `to` values are: {'unreduced', 'reduced', 'varying'}");
}

}  // namespace
}  // namespace typecheck
