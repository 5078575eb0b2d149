// The Jaxpr IR, its printing, its cost and its executable (jaxpr.hpp).
#include "interp/transforms/jaxpr.hpp"

#include "interp/transforms/costing.hpp"
#include "interp/transforms/partitioner.hpp"

namespace interp {

int Jaxpr::add_variable(typecheck::ArrayType type, std::optional<Layout> layout) {
  variable_types.push_back(std::move(type));
  variable_layouts.push_back(std::move(layout));
  return static_cast<int>(variable_types.size()) - 1;
}

std::string variable_name(int number) {
  std::string name;
  do {
    name.insert(name.begin(), static_cast<char>('a' + number % 26));
    number /= 26;
  } while (number > 0);
  return name;
}

namespace {

std::string typed(const Jaxpr& program, int variable) {
  return variable_name(variable) + ":" + program.variable_types[static_cast<std::size_t>(variable)].short_str();
}

// Sets the runtime's context mesh for each replayed equation and restores
// the caller's when the run ends (or raises).
class ContextMeshScope {
 public:
  explicit ContextMeshScope(Runtime& runtime) : runtime_(runtime), saved_(runtime.context_mesh) {}
  ~ContextMeshScope() { runtime_.context_mesh = saved_; }
  ContextMeshScope(const ContextMeshScope&) = delete;
  ContextMeshScope& operator=(const ContextMeshScope&) = delete;
  void enter(const std::shared_ptr<MeshObject>& mesh) { runtime_.context_mesh = mesh; }

 private:
  Runtime& runtime_;
  std::shared_ptr<MeshObject> saved_;
};

}  // namespace

std::string Jaxpr::str() const {
  std::string out = "{ lambda ";
  for (std::size_t i = 0; i < constants.size(); ++i) out += (i ? " " : "") + typed(*this, constants[i].first);
  out += "; ";
  for (std::size_t i = 0; i < inputs.size(); ++i) out += (i ? " " : "") + typed(*this, inputs[i]);
  out += ". let\n";
  for (const auto& e : equations) {
    out += "    " + typed(*this, e.output) + " = " + std::string(e.primitive->name) + e.params.str();
    for (int input : e.inputs) out += " " + variable_name(input);
    out += "\n";
  }
  out += "  in (";
  for (std::size_t i = 0; i < outputs.size(); ++i) out += (i ? ", " : "") + variable_name(outputs[i]);
  return out + (outputs.size() == 1 ? ",) }" : ") }");
}

Cost program_cost(const Jaxpr& program) {
  Cost total;
  for (const auto& e : program.equations) {
    std::vector<typecheck::ArrayType> operands;
    for (int input : e.inputs) operands.push_back(program.variable_types[static_cast<std::size_t>(input)]);
    Cost cost = e.primitive->cost(*e.primitive, operands, program.variable_types[static_cast<std::size_t>(e.output)]);
    total.flops += cost.flops;
    total.bytes_accessed += cost.bytes_accessed;
  }
  return total;
}

std::vector<ArrayRef> Executable::run(Evaluator& evaluator, const std::vector<ArrayRef>& arguments) const {
  const Jaxpr& program = *program_;
  std::vector<ArrayRef> values(program.variable_types.size());
  for (const auto& [number, value] : program.constants) values[static_cast<std::size_t>(number)] = value;
  for (std::size_t i = 0; i < program.inputs.size() && i < arguments.size(); ++i)
    values[static_cast<std::size_t>(program.inputs[i])] = arguments[i];
  ContextMeshScope context(runtime_of(evaluator));
  for (const auto& e : program.equations) {
    std::vector<ArrayRef> operands;
    for (int input : e.inputs) operands.push_back(values[static_cast<std::size_t>(input)]);
    context.enter(e.context_mesh);
    values[static_cast<std::size_t>(e.output)] =
        e.primitive->implementation(evaluator, *e.primitive, operands, e.params, true);
    // One program: its equations pay no dispatch of their own.
    charge_application(evaluator, *e.primitive, operands, values[static_cast<std::size_t>(e.output)], e.params, false);
  }
  std::vector<ArrayRef> outputs;
  for (int output : program.outputs) outputs.push_back(values[static_cast<std::size_t>(output)]);
  return outputs;
}

std::string Executable::text(const std::string& name) const {
  const Jaxpr& program = *program_;
  std::string out = "HloModule jit_" + name + "\n\nENTRY main {\n";
  for (std::size_t i = 0; i < program.constants.size(); ++i)
    out += "  " + typed(program, program.constants[i].first) + " = constant()\n";
  for (std::size_t i = 0; i < program.inputs.size(); ++i)
    out += "  " + typed(program, program.inputs[i]) + " = parameter(" + std::to_string(i) + ")\n";
  for (const auto& e : program.equations) {
    // The partitioner's collectives for this equation, then the equation
    // itself (a collective primitive under its XLA name).
    auto collectives = plan_collectives(program, e);
    for (const auto& collective : collectives)
      if (!collective.after) out += "  " + collective.name + collective.details + "\n";
    out += "  " + typed(program, e.output) + " = " + xla_name(*e.primitive) + "(";
    for (std::size_t i = 0; i < e.inputs.size(); ++i) out += (i ? ", " : "") + variable_name(e.inputs[i]);
    out += ")" + e.params.str() + "\n";
    for (const auto& collective : collectives)
      if (collective.after) out += "  " + collective.name + collective.details + "\n";
  }
  out += "  ROOT tuple(";
  for (std::size_t i = 0; i < program.outputs.size(); ++i) out += (i ? ", " : "") + variable_name(program.outputs[i]);
  return out + ")\n}\n";
}

Executable compile(std::shared_ptr<const Jaxpr> program) { return Executable(std::move(program)); }

}  // namespace interp
