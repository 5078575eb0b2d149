// Carry matching and scan's xs: reference §2.12 and the pcast hint of §4.7.
#include "typecheck/control_flow_rules.hpp"

#include "rule_test_support.hpp"

namespace typecheck {
namespace {

using namespace typecheck::testing;

TEST(CarryTypes, ShardingMismatch) {
  // test_scan_carry_shardings_diff_error: the body reshards the carry to P().
  const MeshRef mesh = mesh_of({{"x", 2, AxisType::Explicit}});
  const CarryLeaf in[] = {{"", parse("i32[4@x]", mesh)}};
  const CarryLeaf out[] = {{"", parse("i32[4]", mesh)}};
  EXPECT_EQ(check_carry_types("scan body", "carry", in, out)->str(),
            "TypeError: scan body function carry input and carry output must have equal types, but they differ:\n\n"
            "The input carry carry has type int32[4@x] but the corresponding output carry component has type "
            "int32[4].\nRevise the function so that all output types match the corresponding input types.");
  EXPECT_FALSE(check_carry_types("scan body", "carry", in, in));
}

TEST(CarryTypes, WeakTypesAreReconciled) {
  const CarryLeaf in[] = {{"", parse("~f32[]", nullptr)}};
  const CarryLeaf out[] = {{"", parse("f32[]", nullptr)}};
  EXPECT_FALSE(check_carry_types("while_loop body", "carry", in, out));
}

TEST(CarryTypes, SeveralLeavesAndThePcastHint) {
  const MeshRef mesh = mesh_of({{"i", 2, AxisType::Manual}});
  const CarryLeaf in[] = {{"[0]", parse("i32[]", mesh)}, {"[1]", parse("f32[3]", mesh)}};
  const CarryLeaf out[] = {{"[0]", parse("f32[2]", mesh)}, {"[1]", parse("f32[3]{V:i}", mesh)}};
  EXPECT_EQ(check_carry_types("scan body", "loop_carry", in, out)->message,
            "scan body function carry input and carry output must have equal types, but they differ:\n\n"
            "  * the input carry component loop_carry[0] has type int32[] but the corresponding output carry "
            "component has type float32[2], so the dtypes do not match, and the shapes do not match;\n"
            "  * the input carry component loop_carry[1] has type float32[3] but the corresponding output carry "
            "component has type float32[3]{V:i}, so the manual axis types do not match.\n"
            "This might be fixed by applying `jax.lax.pcast(..., ('i',), to='varying')`, to the initial carry value "
            "corresponding to the input carry component loop_carry[1].\n"
            "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.\n"
            "Revise the function so that all output types match the corresponding input types.");
}

TEST(ScanXs, LeadingDimReplicated) {
  const MeshRef mesh = mesh_of({{"x", 2, AxisType::Explicit}});
  const std::vector<ArrayType> xs = parse_all({"f32[4@x,2,2]", "f32[4,2]"}, mesh);
  EXPECT_EQ(check_scan_xs(xs)->str(),
            "ValueError: 0th dimension of all xs should be replicated. Got P('x', None, None), P(None, None)");
  EXPECT_FALSE(check_scan_xs(parse_all({"f32[4,2@x]"}, mesh)));
}

TEST(BranchOutputs, OneDifferenceWithThePcastHint) {
  const MeshRef mesh = mesh_of({{"y", 2, AxisType::Manual}});
  const BranchOutputs true_fun{"true_fun", "f at prog.shl:3", {{"", parse("f32[96,3]", mesh)}}};
  const BranchOutputs false_fun{"false_fun", "g at prog.shl:5", {{"", parse("f32[96,3]{V:y}", mesh)}}};
  EXPECT_EQ(check_branch_outputs("cond", true_fun, false_fun)->str(),
            "TypeError: cond branches must have equal output types but they differ.\n\n"
            "true_fun is f at prog.shl:3\nfalse_fun is g at prog.shl:5\n\n"
            "The output of true_fun has type float32[96,3] but the corresponding output of false_fun has type "
            "float32[96,3]{V:y}, so the manual axis types do not match.\n\n"
            "This might be fixed by applying `jax.lax.pcast(..., ('y',), to='varying')` to the output of true_fun.\n"
            "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.\n\n"
            "Revise true_fun and/or false_fun so that all output types match.");
  EXPECT_FALSE(check_branch_outputs("cond", true_fun, true_fun));
  // Weak types are not part of typematch.
  const BranchOutputs weak{"true_fun", "f", {{"", parse("~f32[]", nullptr)}}};
  const BranchOutputs strong{"false_fun", "g", {{"", parse("f32[]", nullptr)}}};
  EXPECT_FALSE(check_branch_outputs("cond", weak, strong));
}

TEST(BranchOutputs, SwitchBulletsAndShardings) {
  const MeshRef mesh = mesh_of({{"x", 2, AxisType::Explicit}});
  const BranchOutputs branches[] = {
      {"", "a", {{"[0]", parse("i32[4@x]", mesh)}, {"[1]", parse("f32[2]", mesh)}}},
      {"", "b", {{"[0]", parse("i32[4@x]", mesh)}, {"[1]", parse("f32[2]", mesh)}}},
      {"", "c", {{"[0]", parse("i32[4]", mesh)}, {"[1]", parse("i32[3]", mesh)}}}};
  EXPECT_EQ(check_switch_outputs(branches)->message,
            "switch branches must have equal output types but they differ.\n\n"
            "branch 0 is a\nbranch2 is c\n\n"
            "  * the output of branch 0 at path [0] has type int32[4@x] but the corresponding output of branch2 has "
            "type int32[4];\n"
            "  * the output of branch 0 at path [1] has type float32[2] but the corresponding output of branch2 has "
            "type int32[3], so the dtypes do not match, and the shapes do not match.\n\n"
            "Revise branch 0 and/or branch2 so that all output types match.");
  EXPECT_FALSE(check_switch_outputs(std::span(branches).first(2)));
}

}  // namespace
}  // namespace typecheck
