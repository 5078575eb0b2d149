// Check mode's host-side rules (cli.md "check mode"): unknown values, the
// warning that ends checking a function, and what shardlang adds to an
// operation's error (notes and hints).
//
// Turning an abstract array into a host value (float(x), bool(x < y),
// np.allclose, x.item()) gives an *unknown*. Arithmetic and comparisons on an
// unknown give unknowns; printing or asserting one is skipped. Deciding
// control flow on one (`if`, `while`, an index) cannot be followed: the
// evaluator raises the check-stop signal, which no `except` catches, and the
// enclosing function's call ends with a warning and an unknown result.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "interp/ops/array.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/ops/primitives.hpp"

namespace interp {

// ------------------------------------------------------------ unknowns

class UnknownObject : public Object {
 public:
  const TypeRef& type() const override;
  std::string repr(Evaluator&) const override { return "<unknown>"; }
  std::optional<std::string> format(Evaluator&, std::string_view) const override { return "<unknown>"; }
  std::optional<Value> binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                 bool reflected) override;
  std::optional<Value> unary_op(Evaluator& evaluator, lang::ast::UnaryOperator op) override;
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool callable() const override { return true; }
  Value call(Evaluator& evaluator, CallArgs& args) override;
  bool truthy(Evaluator& evaluator) const override;
  IteratorRef iterate(Evaluator& evaluator) override;
  std::optional<std::size_t> hash() const override { return 0; }
};

Value unknown_value();
bool is_unknown(const Value& value);
// An abstract array (check mode's arrays carry no data).
bool is_abstract_array(const Value& value);

// float(x), int(x), bool(x) and x.item() of an array: the element of a
// scalar array (TypeError for any other rank, as JAX), an unknown for an
// abstract one or an unknown. nullopt when `value` is neither.
enum class HostScalar { floating, integer, boolean, item };
std::optional<Value> host_scalar_of(Evaluator& evaluator, const Value& value, HostScalar kind);

// ------------------------------------------------------------ the check-stop signal

// The message of the warning that ends checking a function.
inline constexpr const char* data_dependent_branch_message =
    "check cannot follow a branch that depends on array data";

// Raises the signal at the current statement (check mode only).
[[noreturn]] void stop_checking(Evaluator& evaluator);
bool is_check_stop(const ExceptionObject& exception);
// Records the warning for the statement where `stop` was raised (once per
// line) and returns the unknown that the function call gives instead.
Value end_checking(Evaluator& evaluator, const ExceptionObject& stop);

// ------------------------------------------------------------ notes and hints

// Called by the traces after an operation: remembers where a sharded result
// got its sharding (a device_put, reshard or out_sharding at this statement;
// otherwise its first sharded operand's origin).
void track_sharding_origin(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                           const Params& params, const ArrayRef& result);

// Called by the traces when an operation fails: adds the operand types and
// where each operand got its sharding as notes, and for an ambiguous
// contraction a hint listing every out_sharding that type-checks with the
// collective it implies.
void enrich_operation_error(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                            const Params& params, ExceptionObject& error);

}  // namespace interp
