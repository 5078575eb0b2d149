// A Jaxpr's text as JAX 0.11 prints a jaxpr (jax/_src/core.py:
// pp_toplevel_jaxpr, pp_jaxpr_skeleton, pp_eqn, pp_vars, pp_kv_pairs), laid
// out by the pretty printer in 80 columns. Variables are named in the order
// they are printed (constvars, invars, each equation's binder); a result
// nothing reads prints as `_`; a scalar constant prints inline as a literal
// (`2.0:f32[]`), the others are constvars; each equation shows JAX's name
// for its primitive and JAX's params (the table entry's LaxForm).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "devices/host_values.hpp"
#include "interp/python/format.hpp"
#include "interp/transforms/jaxpr.hpp"
#include "interp/transforms/pretty_printer.hpp"

namespace interp {

namespace {

// The shortest decimal that reads back as the same float32 (the Python
// float a weak literal was written as).
double shortest_float32(double value) {
  const auto target = static_cast<float>(value);
  for (int digits = 1; digits <= 9; ++digits) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, static_cast<double>(target));
    if (std::strtof(buffer, nullptr) == target) return std::strtod(buffer, nullptr);
  }
  return static_cast<double>(target);
}

}  // namespace

std::string literal_text(double value, typecheck::DType dtype, bool weak) {
  if (dtype == typecheck::DType::bool_) return value != 0 ? "True" : "False";
  if (typecheck::is_integer(dtype)) return std::to_string(static_cast<std::int64_t>(value));
  if (std::isfinite(value) && weak) return float_repr(shortest_float32(value));
  return float_repr(value);
}

std::optional<double> literal_value(const ArrayObject& array) {
  if (array.abstract() || array.aval.ndim() != 0 || !array.aval.sharding.unreduced.empty()) return std::nullopt;
  std::vector<double> values = devices::element_values(array.local(0));
  if (values.size() != 1) return std::nullopt;
  return values[0];
}

namespace {

class Printer {
 public:
  // `top_level`: the jaxpr printed whole (pp_toplevel_jaxpr), whose unread
  // results are `_`; otherwise one equation in a fresh context.
  Printer(const Jaxpr& program, bool top_level) : program_(program) {
    for (const auto& [variable, value] : program.constants)
      if (auto v = literal_value(*value)) literals_[variable] = *v;
    if (!top_level) return;
    // pp_toplevel_jaxpr's _dropvars: results nothing after them reads.
    std::set<int> used(program.outputs.begin(), program.outputs.end());
    for (auto e = program.equations.rbegin(); e != program.equations.rend(); ++e) {
      if (!used.count(e->output)) dropped_.insert(e->output);
      used.insert(e->inputs.begin(), e->inputs.end());
    }
  }

  pp::Doc jaxpr() {
    std::vector<int> constvars;
    for (const auto& constant : program_.constants)
      if (!literals_.count(constant.first)) constvars.push_back(constant.first);
    pp::Doc constants = binders(constvars), inputs = binders(program_.inputs);
    std::vector<pp::Doc> equations;
    for (const auto& e : program_.equations) equations.push_back(equation(e));
    std::vector<pp::Doc> outputs;
    for (int output : program_.outputs) outputs.push_back(atom(output, std::nullopt));
    pp::Doc out = pp::concat({pp::text("("), vars(outputs, ","), pp::text(program_.outputs.size() == 1 ? ",)" : ")")});
    return pp::concat(
        {pp::group(pp::nest(2, pp::concat({pp::text("{ "), pp::text("lambda "), constants, pp::text("; "), inputs,
                                           pp::text(". "), pp::text("let"),
                                           pp::nest(2, pp::concat({pp::brk(), pp::join(pp::brk("; "), equations)})),
                                           pp::brk(), pp::text("in "), out}))),
         pp::text(" }")});
  }

  pp::Doc equation(const Equation& e) {
    const Primitive& primitive = *e.primitive;
    pp::Doc lhs = binders({e.output});
    PrintedParams params = printed_params(program_, e);
    std::vector<pp::Doc> operands;
    for (int input : e.inputs) operands.push_back(atom(input, literal_dtype(e, input)));
    return pp::concat({lhs, pp::text(" = "), pp::text(std::string(primitive.lax.name)), kv_pairs(params),
                       pp::concat({pp::text(" "), vars(operands)})});
  }

 private:
  std::string name(int variable) {
    if (dropped_.count(variable)) return "_";
    auto found = names_.find(variable);
    if (found != names_.end()) return found->second;
    return names_[variable] = variable_name(next_++);
  }

  const typecheck::ArrayType& type(int variable) const {
    return program_.variable_types[static_cast<std::size_t>(variable)];
  }

  // A variable, or a literal (as `dtype` when the equation promotes it to that).
  pp::Doc atom(int variable, std::optional<typecheck::DType> dtype) {
    auto literal = literals_.find(variable);
    if (literal == literals_.end()) return pp::text(name(variable));
    typecheck::ArrayType shown = type(variable);
    if (dtype) shown.dtype = *dtype;
    return pp::text(literal_text(literal->second, shown.dtype, type(variable).weak_type) + ":" + shown.short_str());
  }

  // pp_vars: items separated by `separator` and a break of their own.
  static pp::Doc vars(const std::vector<pp::Doc>& items, const std::string& separator = "") {
    return pp::nest(2, pp::group(pp::join(pp::concat({pp::text(separator), pp::group(pp::brk())}), items)));
  }

  pp::Doc binders(const std::vector<int>& variables) {
    std::vector<pp::Doc> items;
    for (int v : variables) items.push_back(pp::text(name(v) + ":" + type(v).short_str()));
    return vars(items);
  }

  // An elementwise primitive promotes a weak (Python scalar) operand to the
  // others' dtype before JAX binds it: the literal shows as converted.
  std::optional<typecheck::DType> literal_dtype(const Equation& e, int input) const {
    if (!is_elementwise(*e.primitive) || !literals_.count(input) || !type(input).weak_type) return std::nullopt;
    if (e.primitive->result != ElementwiseResult::boolean) return type(e.output).dtype;
    for (int other : e.inputs)
      if (!literals_.count(other)) return type(other).dtype;
    return std::nullopt;
  }

  static pp::Doc kv_pairs(const PrintedParams& params) {
    if (params.empty()) return pp::nil();
    std::vector<pp::Doc> pairs;
    for (const auto& [key, value] : params) pairs.push_back(pp::text(key + "=" + value));
    return pp::group(pp::concat({pp::nest(2, pp::concat({pp::text("["), pp::brk(""), pp::join(pp::brk(), pairs)})),
                                 pp::brk(""), pp::text("]")}));
  }

  const Jaxpr& program_;
  std::map<int, double> literals_;
  std::set<int> dropped_;
  std::map<int, std::string> names_;
  int next_ = 0;
};

}  // namespace

std::string Jaxpr::str() const {
  Printer printer(*this, true);
  return pp::format(printer.jaxpr());
}

std::string equation_str(const Jaxpr& program, std::size_t index) {
  Printer printer(program, false);
  return pp::format(printer.equation(program.equations.at(index)));
}

PrintedParams printed_params(const Jaxpr& program, const Equation& e) {
  std::vector<typecheck::ArrayType> operands;
  for (int input : e.inputs) operands.push_back(program.variable_types[static_cast<std::size_t>(input)]);
  const typecheck::ArrayType& result = program.variable_types[static_cast<std::size_t>(e.output)];
  PrintedParams params = e.primitive->lax.params ? e.primitive->lax.params(e.params, operands, result) : e.params.texts();
  std::sort(params.begin(), params.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return params;
}

}  // namespace interp
