// The one table of primitives (architecture.md "One table of primitives").
// Every array operation is an entry: its name (as a Jaxpr prints it), the
// typecheck rule that types it (called by its implementation), its
// implementation, its cost, its VJP rule for grad, its batching rule for
// vmap and its partitioning (the family's one decision: ops/placement.hpp).
//
// An implementation is the eager kernel plus its layout planning. With
// `execute` false it stops after the typecheck rule and the layout planning
// and returns an abstract array (no buffers): that is the primitive's
// abstract evaluation, used by the abstract trace (check mode) and the jit
// trace. With `execute` true it runs on the mesh: when every operand's
// shards already match what the output layout needs, the kernel runs per
// device; otherwise the operands move by collectives first (relayout), and a
// sharded contraction or reduction is all-reduced. For the families with a
// decision (ops/placement.hpp) the implementation is run_placed, and the
// same decision is what a jitted program's partitioned steps run.
//
// Array-level API functions (jnp.*, lax.*, methods, operators) parse their
// Python arguments into operands and static Params and call bind(), which
// hands the application to the current trace (trace.hpp).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "devices/cost_model.hpp"
#include "devices/kernels.hpp"
#include "interp/ops/array.hpp"
#include "typecheck/creation_rules.hpp"

namespace interp {

// A static parameter of a primitive application.
using ParamValue = std::variant<bool, std::int64_t, std::vector<std::int64_t>, std::string, Layout,
                                typecheck::ShardingArg>;

// Static parameters by name, in the order they print.
struct Params {
  std::vector<std::pair<std::string, ParamValue>> entries;

  Params& set(std::string name, ParamValue value) {
    entries.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  template <class T>
  const T* get(std::string_view name) const {
    for (const auto& [key, value] : entries)
      if (key == name) return std::get_if<T>(&value);
    return nullptr;
  }
  // "[axes=(0,) keepdims=False]", or "" when there are none.
  std::string str() const;
  // Each param's name and value text, in the order they were set.
  std::vector<std::pair<std::string, std::string>> texts() const;
};

enum class ElementwiseResult {
  promoted,  // the operands' promoted dtype
  boolean,   // comparisons and logical ops
  floating,  // true division, transcendental ops: integers become float32
};

struct Primitive;

// The eager implementation, or with execute=false the abstract evaluation.
using Implementation = ArrayRef (*)(Evaluator& evaluator, const Primitive& primitive,
                                    const std::vector<ArrayRef>& operands, const Params& params, bool execute);

// Where one device's share of an application runs, as the TPU cost model
// (transforms/costing.cpp) times it.
enum class CostUnit {
  none,    // only moves data between devices or marks types: its cost is the collectives it is or plans
  mxu,     // a contraction on the matrix unit
  vector,  // arithmetic per element on the vector unit
  memory,  // one pass over memory: copies, layout changes
  slice,   // reads only the window it returns; a matmul that consumes it reads the window itself
};

// What one application costs, from the types alone: the flops and bytes of
// cost_analysis, and how the cost model times it.
struct Cost {
  double flops = 0;
  double bytes_accessed = 0;  // operands read plus the result written
  CostUnit unit = CostUnit::memory;
  bool transcendental = false;     // vector: one transcendental per element (exp, log, sin, ...)
  bool reads_result_only = false;  // memory: reads only as many bytes as it writes (a gather)
  // mxu: the matmul the MXU runs, where it is not dot_general's (a
  // convolution's output positions by its output features); none: the
  // cost model reads dot_general's dimension numbers.
  std::optional<devices::MatmulWork> matmul = {};
};
using CostRule = Cost (*)(const Primitive& primitive, const std::vector<typecheck::ArrayType>& operands,
                          const typecheck::ArrayType& result, const Params& params);
// The bytes of the operands and the result (Cost::bytes_accessed).
double bytes_accessed(const std::vector<typecheck::ArrayType>& operands, const typecheck::ArrayType& result);

// The family's decision about one application (ops/placement.hpp): where
// the result lies and what moves; eager execution, the partitioned program
// of a jitted call (transforms/partitioner.hpp), as_text() and the cost
// model all use it.
struct Partitioning;

// grad's rule: the operands' cotangents from the result's. Each is built
// from bind() (ops/vjp_support.hpp), so the backward pass runs, is recorded
// under jit or is type-checked as the current trace does. The rules live
// with their family in ops/*_vjp.cpp (declared in ops/vjp_rules.hpp);
// grad (transforms/grad.cpp) only walks the program backwards calling them.
struct VjpCall {
  Evaluator& evaluator;
  const std::vector<ArrayRef>& operands;  // the primal operands
  const Params& params;
  const ArrayRef& result;                 // the primal result
  const ArrayRef& cotangent;              // the result's cotangent
  const std::vector<bool>& needs;         // whether operand i needs a cotangent
  const Primitive& primitive;
};
// One cotangent per operand; null where none is needed or none flows (an
// integer operand, an index). A primitive JAX does not differentiate has
// vjp::not_differentiable, which raises JAX's NotImplementedError.
using VjpRule = std::vector<ArrayRef> (*)(const VjpCall& call);

// vmap's rule: the application on operands of which some carry the mapped
// axis (BatchAxis, runtime.hpp) as an extra dimension. Built from bind()
// like a VJP rule; the rules live in ops/batching*.cpp (declared in
// ops/batching.hpp); vmap (transforms/vmap.cpp) walks the traced program
// calling them.
struct BatchCall {
  Evaluator& evaluator;
  const std::vector<ArrayRef>& operands;  // batched where dims[i] is a dimension
  const std::vector<int>& dims;           // operand i's mapped dimension, or -1 (batching::not_mapped)
  const Params& params;
  const BatchAxis& axis;
  const Primitive& primitive;
  const typecheck::ArrayType& example;    // the result's type for one example, as traced
};
// The result and its mapped dimension (-1: the same for every index).
struct Batched {
  ArrayRef value;
  int dim = -1;
};
using BatchRule = Batched (*)(const BatchCall& call);

// JAX's params of one application as a jaxpr prints them (ops/jaxpr_params.hpp):
// each name and its text, in any order (the printer sorts them, as JAX's does).
using PrintedParams = std::vector<std::pair<std::string, std::string>>;
using JaxprParamsRule = PrintedParams (*)(const Params& params, const std::vector<typecheck::ArrayType>& operands,
                                          const typecheck::ArrayType& result);

// What JAX calls the primitive: its lax primitive's name (what a jaxpr
// prints, and its sharding errors say: "mul", "dot_general"; ours where JAX
// has no such primitive) and how a jaxpr shows its params (null: ours, each
// as Params::str writes it).
struct LaxForm {
  std::string_view name;
  JaxprParamsRule params = nullptr;
};

struct Primitive {
  std::string_view name;       // the table's key: "add", "multiply", "dot_general", "reduce_sum"
  std::string_view api_name;   // the jnp/jax name typecheck's rules and errors use: "add", "dot", "sum"
  LaxForm lax;                 // as JAX names and prints it
  Implementation implementation;
  CostRule cost;
  VjpRule vjp;
  BatchRule batch;
  const Partitioning* partition;
  // shard_map body collectives only: the collective the primitive is (its
  // XLA instruction: psum is an all-reduce).
  devices::CollectiveKind collective = devices::CollectiveKind::none;
  // Elementwise primitives only.
  int arity = 0;
  devices::UnaryOp unary = devices::UnaryOp::neg;
  devices::BinaryOp binary = devices::BinaryOp::add;
  ElementwiseResult result = ElementwiseResult::promoted;
  // Applying it does something besides making its result (jax.debug.print
  // prints): a jitted program keeps it when its result is unused.
  bool effect = false;
};

// Sorted by name (find_primitive relies on it).
std::span<const Primitive> primitives();
const Primitive* find_primitive(std::string_view name);
// A primitive the interpreter itself names; it must exist.
const Primitive& primitive(std::string_view name);
bool is_elementwise(const Primitive& primitive);
// Whether jax.grad differentiates through it (its vjp is not vjp::not_differentiable).
bool is_differentiable(const Primitive& primitive);

// Applies `primitive` through the current trace (trace.hpp).
Value bind(Evaluator& evaluator, const Primitive& primitive, std::vector<ArrayRef> operands, Params params = {});

// ------------------------------------------------------------ API helpers
// Parse Python arguments into operands and params, then bind.

// jnp.<name>(*operands) with Python scalars as weak operands. x ** y with
// y a Python int is lax.integer_pow(x, y), as jnp.power's concrete-integer
// case (exact for x ** 2, and a jaxpr shows integer_pow[y=2]).
Value apply_elementwise(Evaluator& evaluator, const Primitive& primitive, const std::vector<Value>& operands);
// The number of elements a reduction over `axis` (None: all) combines into each result.
double reduced_element_count(Evaluator& evaluator, const typecheck::Shape& shape, const Value& axis);
// jnp.sum/mean/max/min/prod/argmax/argmin(x, axis=, keepdims=): mean is
// reduce_sum and a division, as JAX's (float32 for integers); sum and prod widen booleans and int8 to int32 first
// (promote_integers).
Value apply_reduction(Evaluator& evaluator, std::string_view name, const Value& operand, const Value& axis,
                      bool keepdims);
// The reduction primitive itself, in the operand's dtype (lax.reduce_sum's rules).
Value bind_reduction(Evaluator& evaluator, std::string_view name, const Value& operand, const Value& axis,
                     bool keepdims);
// x.reshape / jnp.reshape and x.T / jnp.transpose.
// jnp.reshape(x, sizes, out_sharding=): `sizes` may hold one -1.
Value apply_reshape(Evaluator& evaluator, const Value& operand, const std::vector<std::int64_t>& sizes,
                    const Value& out_sharding = Value());
Value apply_transpose(Evaluator& evaluator, const Value& operand, const std::vector<int>& permutation);
// jax.device_put of one array to `layout` (a committed array); `requested`
// is the spec as the user wrote it (.sharding.spec shows it). jax.reshard
// binds its own primitive, "reshard", with the same rules (JAX's reshard_p:
// a jaxpr shows which of the two the user called).
Value apply_device_put(Evaluator& evaluator, const ArrayRef& operand, const Layout& layout,
                       const std::optional<typecheck::PartitionSpec>& requested,
                       std::string_view primitive_name = "device_put");

// The sharding argument as a typecheck ShardingArg (a P or a NamedSharding), or nullopt for None.
std::optional<typecheck::ShardingArg> sharding_argument(const Value& value);

}  // namespace interp
