// A jaxpr as a Python value (jaxpr_value.hpp).
#include "interp/transforms/jaxpr_value.hpp"

#include <cstdlib>

#include "interp/ops/shaped_array.hpp"
#include "interp/python/builtins.hpp"

namespace interp {

namespace {

using ProgramRef = std::shared_ptr<const Jaxpr>;

ArrayRef abstract_value(const Jaxpr& program, int variable) {
  auto v = static_cast<std::size_t>(variable);
  const auto& layout = program.variable_layouts[v];
  return make_abstract_array(program.variable_types[v], layout ? *layout : Layout{}, program.variable_committed[v]);
}

std::optional<double> literal_of(const Jaxpr& program, int variable) {
  for (const auto& [number, value] : program.constants)
    if (number == variable) return literal_value(*value);
  return std::nullopt;
}

// A jaxpr variable (JAX's core.Var): its abstract value; repr
// Var(id=N):f32[3], N the variable's number in the program.
class VarObject : public Object {
 public:
  VarObject(ProgramRef program, int variable) : program(std::move(program)), variable(variable) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("Var");
    return type;
  }
  std::string repr(Evaluator&) const override {
    return "Var(id=" + std::to_string(variable) + "):" +
           program->variable_types[static_cast<std::size_t>(variable)].short_str();
  }
  std::optional<Value> get_attribute(Evaluator&, const std::string& attribute) override {
    if (attribute == "aval") return shaped_array(abstract_value(*program, variable));
    return std::nullopt;
  }
  bool equals(const Value& other) const override {
    auto* var = other.as<VarObject>();
    return var && var->program == program && var->variable == variable;
  }
  std::optional<std::size_t> hash() const override { return static_cast<std::size_t>(variable); }
  ProgramRef program;
  int variable;
};

// A scalar constant an equation reads inline (JAX's core.Literal): .val, .aval.
class LiteralObject : public Object {
 public:
  LiteralObject(ProgramRef program, int variable, double value)
      : program(std::move(program)), variable(variable), value(value) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("Literal");
    return type;
  }
  std::string repr(Evaluator&) const override { return "Literal(" + text() + ")"; }
  std::optional<Value> get_attribute(Evaluator&, const std::string& attribute) override {
    if (attribute == "val") {
      const typecheck::ArrayType& type = program->variable_types[static_cast<std::size_t>(variable)];
      if (type.dtype == typecheck::DType::bool_) return Value::boolean(value != 0);
      if (typecheck::is_integer(type.dtype)) return Value::integer(static_cast<std::int64_t>(value));
      return Value::floating(value);
    }
    if (attribute == "aval") return shaped_array(abstract_value(*program, variable));
    return std::nullopt;
  }
  std::string text() const {
    const typecheck::ArrayType& type = program->variable_types[static_cast<std::size_t>(variable)];
    return literal_text(value, type.dtype, type.weak_type);
  }
  ProgramRef program;
  int variable;
  double value;
};

Value atom(const ProgramRef& program, int variable) {
  if (auto value = literal_of(*program, variable)) return Value(std::make_shared<LiteralObject>(program, variable, *value));
  return Value(std::make_shared<VarObject>(program, variable));
}

std::vector<Value> atoms(const ProgramRef& program, const std::vector<int>& variables) {
  std::vector<Value> out;
  for (int v : variables) out.push_back(atom(program, v));
  return out;
}

// A primitive as an equation names it: str() is JAX's name.
class PrimitiveObject : public Object {
 public:
  explicit PrimitiveObject(std::string name) : name(std::move(name)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("Primitive");
    return type;
  }
  std::string repr(Evaluator&) const override { return name; }
  std::optional<Value> get_attribute(Evaluator&, const std::string& attribute) override {
    if (attribute == "name") return make_str(name);
    return std::nullopt;
  }
  std::string name;
};

// A param's printed text as a Python value where it is one: None, a bool,
// an int, a tuple of ints; other params stay their text.
Value param_value(const std::string& text) {
  if (text == "None") return Value::none();
  if (text == "True" || text == "False") return Value::boolean(text == "True");
  auto integer = [](const std::string& s) -> std::optional<std::int64_t> {
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (*end != '\0') return std::nullopt;
    return static_cast<std::int64_t>(v);
  };
  if (auto v = integer(text)) return Value::integer(*v);
  if (text.size() >= 2 && text.front() == '(' && text.back() == ')') {
    std::vector<Value> items;
    std::string inner = text.substr(1, text.size() - 2), item;
    for (std::size_t start = 0; start <= inner.size();) {
      std::size_t comma = inner.find(',', start);
      item = inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      while (!item.empty() && item.front() == ' ') item.erase(item.begin());
      if (!item.empty()) {
        auto v = integer(item);
        if (!v) return make_str(text);
        items.push_back(Value::integer(*v));
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return make_tuple(std::move(items));
  }
  return make_str(text);
}

// One equation (JAX's JaxprEqn): .primitive, .params (as a jaxpr prints
// them), .invars, .outvars; str() is its line, named afresh as JAX's is.
class EqnObject : public Object {
 public:
  EqnObject(ProgramRef program, std::size_t index) : program(std::move(program)), index(index) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("JaxprEqn");
    return type;
  }
  std::string repr(Evaluator&) const override { return equation_str(*program, index); }
  std::optional<Value> get_attribute(Evaluator&, const std::string& attribute) override {
    const Equation& e = program->equations[index];
    if (attribute == "primitive") return Value(std::make_shared<PrimitiveObject>(std::string(e.primitive->lax.name)));
    if (attribute == "params") {
      auto params = std::make_shared<DictObject>();
      for (const auto& [name, text] : printed_params(*program, e)) params->table.insert(make_str(name), param_value(text));
      return Value(params);
    }
    if (attribute == "invars") return make_list(atoms(program, e.inputs));
    if (attribute == "outvars") return make_list(atoms(program, {e.output}));
    return std::nullopt;
  }
  ProgramRef program;
  std::size_t index;
};

Value equations(const ProgramRef& program) {
  std::vector<Value> out;
  for (std::size_t i = 0; i < program->equations.size(); ++i) out.push_back(Value(std::make_shared<EqnObject>(program, i)));
  return make_list(std::move(out));
}

// The constants a jaxpr does not print inline: its constvars.
std::vector<int> constvars(const Jaxpr& program) {
  std::vector<int> out;
  for (const auto& [number, value] : program.constants)
    if (!literal_value(*value)) out.push_back(number);
  return out;
}

// JAX's Jaxpr: .constvars, .invars, .outvars, .eqns; prints as the closed one.
class OpenJaxprObject : public Object {
 public:
  explicit OpenJaxprObject(ProgramRef program) : program(std::move(program)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("Jaxpr");
    return type;
  }
  std::string repr(Evaluator&) const override { return program->str(); }
  std::optional<Value> get_attribute(Evaluator&, const std::string& attribute) override {
    if (attribute == "constvars") return make_list(atoms(program, constvars(*program)));
    if (attribute == "invars") return make_list(atoms(program, program->inputs));
    if (attribute == "outvars") return make_list(atoms(program, program->outputs));
    if (attribute == "eqns") return equations(program);
    return std::nullopt;
  }
  ProgramRef program;
};

// JAX's ClosedJaxpr (jit(f).trace(...).jaxpr, jax.make_jaxpr(f)(...)):
// printed as JAX prints a jaxpr; .jaxpr, .consts (the constvars' values),
// .in_avals, .out_avals, .eqns.
class JaxprObject : public Object {
 public:
  explicit JaxprObject(ProgramRef program) : program(std::move(program)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("ClosedJaxpr");
    return type;
  }
  std::string repr(Evaluator&) const override { return program->str(); }
  std::optional<Value> get_attribute(Evaluator&, const std::string& attribute) override {
    if (attribute == "jaxpr") return Value(std::make_shared<OpenJaxprObject>(program));
    if (attribute == "consts") {
      std::vector<Value> values;
      for (int v : constvars(*program))
        for (const auto& [number, value] : program->constants)
          if (number == v) values.push_back(Value(value));
      return make_list(std::move(values));
    }
    auto avals = [&](const std::vector<int>& variables) {
      std::vector<Value> out;
      for (int v : variables) out.push_back(shaped_array(abstract_value(*program, v)));
      return make_list(std::move(out));
    };
    if (attribute == "in_avals") return avals(program->inputs);
    if (attribute == "out_avals") return avals(program->outputs);
    if (attribute == "eqns") return equations(program);
    return std::nullopt;
  }
  ProgramRef program;
};

}  // namespace

Value jaxpr_value(std::shared_ptr<const Jaxpr> program) { return Value(std::make_shared<JaxprObject>(std::move(program))); }

}  // namespace interp
