// Item 6 of the rule set (part): scan/while_loop/fori_loop carry matching
// with JAX's message and the pcast hint, and scan's xs check (reference
// §2.12, §4.7).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "typecheck/array_type.hpp"

namespace typecheck {

// One array leaf of a carry: its key path ("" for a bare array, "[1]") and type.
struct CarryLeaf {
  std::string path;
  ArrayType type;
};

// core.typematch on carry leaves (weak types reconciled first). `body` is
// "scan body" or "while_loop body"; `carry_name` the body's first parameter
// ("carry"; fori_loop's is "loop_carry").
std::optional<Error> check_carry_types(std::string_view body, std::string_view carry_name,
                                       std::span<const CarryLeaf> input, std::span<const CarryLeaf> output);

// scan: dim 0 of every xs must be unsharded.
std::optional<Error> check_scan_xs(std::span<const ArrayType> xs);

// One branch of cond/switch: its name in messages ("true_fun", "branch 0"),
// fun_sourceinfo ("f at prog.shl:3"), and its output leaves (key paths as
// for carries, "" for a bare array). Both branches have the same pytree
// structure: the evaluator checks that first.
struct BranchOutputs {
  std::string name;
  std::string source;
  std::vector<CarryLeaf> outputs;
};

// _check_branch_outputs: the branches' output types must match (typematch);
// api is "cond" or "switch". A branch whose output lacks varying axes the
// other's has gets the pcast hint naming those axes.
std::optional<Error> check_branch_outputs(std::string_view api, const BranchOutputs& first,
                                          const BranchOutputs& second);

// switch: each branch i >= 1 against branch 0, named "branch 0" and
// "branch{i}" as JAX does.
std::optional<Error> check_switch_outputs(std::span<const BranchOutputs> branches);

}  // namespace typecheck
