// The Program IR that jit records (struct Jaxpr: interp::Program is the parsed script): a typed SSA list of primitive
// applications (a jaxpr). Variables are numbered; each has an ArrayType
// (with its sharding). Constants are arrays the traced function closed over
// or made from Python literals.
//
// Printed as JAX prints a jaxpr (jaxpr_print.cpp), in JAX's primitive names
// and params, a scalar constant inline as a literal:
//   { lambda a:f32[8]; b:f32[8@X,2@Y]. let
//       c:f32[8@X,2@Y] = mul b 2.0:f32[]
//     in (c,) }
//
// compile() runs the SPMD partitioner (partitioner.hpp) on a Jaxpr: the
// Executable holds the per-device program, each equation's decision made
// once, with its collectives as explicit steps; running, printing and
// costing the executable all read those steps.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "interp/ops/primitives.hpp"

namespace interp {

class MeshObject;

struct Equation {
  const Primitive* primitive = nullptr;
  std::vector<int> inputs;
  Params params;
  int output = -1;
  // The context mesh the equation was traced under (a shard_map body's, or
  // `with jax.set_mesh(...)`'s): implementations that consult it get the
  // same one when the executable replays them.
  std::shared_ptr<MeshObject> context_mesh = nullptr;
  // Where it was applied (the call or statement running then; a replayed
  // equation keeps its own): a program's buffers name this line.
  lang::Span span = {};
  // The family's decision, made when it was traced (null: replayed, or
  // decided when the program is partitioned).
  std::shared_ptr<const Placement> placement = nullptr;
  // Per lax loop whose body recorded it, outermost first (without_dead_code
  // keeps an equation's place in every iteration; Executable::text prints a
  // loop's first iteration as its body).
  std::vector<LoopPlace> loop_places = {};
  // The jax.named_scope names open when it was traced, joined by '/'
  // ("layer1/attn"): as_text's op_name metadata shows them.
  std::string scope = {};
};

struct Jaxpr {
  std::vector<typecheck::ArrayType> variable_types;  // by variable number
  std::vector<std::optional<Layout>> variable_layouts;  // by variable number; none for untraced programs
  std::vector<bool> variable_committed;                 // by variable number: whether its traced value was committed
  std::vector<std::pair<int, ArrayRef>> constants;   // constvars and their values
  std::vector<int> inputs;
  std::vector<Equation> equations;
  std::vector<int> outputs;

  int add_variable(typecheck::ArrayType type, std::optional<Layout> layout = std::nullopt, bool committed = false);
  // The jaxpr text, as JAX prints it (jaxpr_print.cpp).
  std::string str() const;
};

// One equation's line, its variables named afresh (JAX's str(eqn)).
std::string equation_str(const Jaxpr& program, std::size_t index);
// An equation's params as JAX shows them (its primitive's LaxForm), sorted by name.
PrintedParams printed_params(const Jaxpr& program, const Equation& e);

// The value of a constant a jaxpr prints inline (a literal): a scalar with
// data; nullopt for an array (a constvar) or an abstract value.
std::optional<double> literal_value(const ArrayObject& array);
// A literal's value as JAX prints it: 2, 2.0, 0.1 (a weak float is the
// Python float it was written as), True.
std::string literal_text(double value, typecheck::DType dtype, bool weak);

// "a", "b", ..., "z", "ba", "bb", ... as jaxprs name variables.
std::string variable_name(int number);

// The iterations of one lax loop, for the equations its body records
// (Equation::loop_places): begin() before each iteration's body runs.
class LoopIterations {
 public:
  explicit LoopIterations(Runtime& runtime);
  ~LoopIterations();
  LoopIterations(const LoopIterations&) = delete;
  LoopIterations& operator=(const LoopIterations&) = delete;
  void begin();

 private:
  Runtime& runtime_;
};

// Sets the runtime's context mesh to each equation's while it is replayed,
// placed or differentiated (enter), and restores the caller's when the
// scope ends (or raises). A shard_map body's equations thus make their
// literals, zeros and broadcasts on the body's manual mesh again, not on the
// mesh around the program. Entering an equation also makes its span the
// runtime's replayed span, so the equations a replay records keep the line
// they were first applied at (as JAX keeps an equation's source_info), and
// the places it had in loops that are not running now (Runtime::
// replayed_loop_places).
class ContextMeshScope {
 public:
  explicit ContextMeshScope(Runtime& runtime);
  ContextMeshScope(Runtime& runtime, const std::shared_ptr<MeshObject>& mesh) : ContextMeshScope(runtime) { enter(mesh); }
  ContextMeshScope(Runtime& runtime, const Equation& e) : ContextMeshScope(runtime) { enter(e); }
  ~ContextMeshScope();
  ContextMeshScope(const ContextMeshScope&) = delete;
  ContextMeshScope& operator=(const ContextMeshScope&) = delete;
  void enter(const std::shared_ptr<MeshObject>& mesh);
  void enter(const Equation& e);

 private:
  Runtime& runtime_;
  std::shared_ptr<MeshObject> saved_;
  lang::Span saved_span_;
  const std::vector<LoopPlace>* saved_loop_places_;
};

// Flops and bytes accessed of the whole program, summed over its equations
// from their types (Primitive::cost): not a model of any chip.
Cost program_cost(const Jaxpr& program);

struct PartitionedProgram;
class ProgramValues;

class Executable {
 public:
  explicit Executable(std::shared_ptr<const PartitionedProgram> program) : program_(std::move(program)) {}
  // Runs the per-device program on concrete arguments (one per program input).
  std::vector<ArrayRef> run(Evaluator& evaluator, const std::vector<ArrayRef>& arguments) const;
  // HLO-like text: each equation's steps, the collectives that move its
  // operands, its own instruction, the collectives that combine its result.
  std::string text(const std::string& name) const;
  const Jaxpr& program() const;
  const PartitionedProgram& partitioned() const { return *program_; }

 private:
  // Keeps the constant equations' values of a run (`values`), all concrete.
  void keep_constants(ProgramValues& values) const;

  std::shared_ptr<const PartitionedProgram> program_;
  // The values of the constant equations (PartitionedEquation::constant)
  // by variable, kept from the first run that computed them all concretely;
  // empty until then.
  mutable std::vector<std::pair<int, ArrayRef>> constant_values_;
  // Those values and the program's constants moved where kernels need them
  // (ProgramValues), by variable: kept for every later run.
  mutable std::vector<std::vector<ArrayRef>> moved_constants_;
};

// The program less its dead code, as XLA compiles a jitted function (JAX's
// pe.dce_jaxpr): an equation whose result no output needs, directly or
// through other equations, is dropped unless its primitive has an effect
// (Primitive::effect: jax.debug.print). A loop's body is one program in
// JAX: an equation one iteration needs is kept in every iteration (the last
// iteration's carry that nothing reads is still computed). Variables keep
// their numbers, so the traced program's types and layouts still describe
// them. `program` itself when nothing is dead.
std::shared_ptr<const Jaxpr> without_dead_code(std::shared_ptr<const Jaxpr> program);

// Partitions `program` less its dead code (partitioner.hpp) under
// `evaluator`'s runtime: running, printing and costing the executable see
// only the equations that matter.
Executable compile(Evaluator& evaluator, std::shared_ptr<const Jaxpr> program);

}  // namespace interp
