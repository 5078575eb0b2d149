// The REPL's introspection methods of the public API (:type, :vars, :mesh).
//
// They are written against the public API only: each runs a small script in
// the session's global namespace and reads its result back with get(). The
// interpreter's state (the evaluator) is private to api.cpp, which another
// change is reworking, so nothing here reaches into it.
//
// TODO(abstract trace): type_of evaluates the expression for real, arrays and
// device work included, through jax.typeof. It must move to the abstract
// trace (evaluate with Evaluator::mode = check / an AbstractTrace pushed on
// the session's evaluator) so that `:type` computes no data, as cli.md asks;
// that needs the evaluator, i.e. a method defined in api.cpp.
#include <algorithm>
#include <set>

#include "shardlang/shardlang.hpp"

namespace shardlang {

namespace {

// Scratch globals of the scripts below, deleted after each use.
constexpr const char* jax_alias = "__shardlang_repl_jax";
constexpr const char* result_name = "__shardlang_repl_value";
// The file name of the scripts: the REPL's own, since a run also sets
// sys.argv[0] to it.
constexpr const char* script_name = "<stdin>";

// A lambda giving the type text of a value: jax.typeof for arrays (the
// sharded type), the Python type name otherwise.
std::string type_text_function() {
  return std::string("(lambda v: ") + jax_alias + ".typeof(v) if type(v).__name__ == 'ArrayImpl' else type(v).__name__)";
}

void forget_scratch(Interpreter& interpreter) {
  interpreter.run(std::string(jax_alias) + " = " + result_name + " = None\ndel " + jax_alias + ", " + result_name + "\n",
                  script_name);
}

// Diagnostics of the one-line script `prefix + expression` point into the
// expression as the user typed it.
void locate_in_expression(Result& result, std::size_t prefix_length, std::string_view expression) {
  std::vector<Diagnostic> diagnostics = result.diagnostics();
  int shift = static_cast<int>(prefix_length);
  for (Diagnostic& diagnostic : diagnostics) {
    if (diagnostic.where.file != script_name || diagnostic.where.line != 1) continue;
    diagnostic.where.column = std::max(1, diagnostic.where.column - shift);
    if (diagnostic.where.end_line == 1) diagnostic.where.end_column = std::max(1, diagnostic.where.end_column - shift);
    diagnostic.source_line = std::string(expression);
  }
  result = Result(std::move(diagnostics), result.exception_type());
}

}  // namespace

Interpreter::TypeOf Interpreter::type_of(std::string_view expression) {
  TypeOf answer;
  std::string prefix = std::string("import jax as ") + jax_alias + "; " + result_name + " = " + type_text_function() + "((";
  // The closing brackets on their own line, so that a trailing comment in
  // the expression does not swallow them.
  answer.result = run(prefix + std::string(expression) + "\n))\n", script_name);
  locate_in_expression(answer.result, prefix.size(), expression);
  if (answer.result.ok()) {
    if (auto value = get(result_name); value && value->kind() == Value::Kind::string) answer.type = value->as_string();
  }
  forget_scratch(*this);
  return answer;
}

std::vector<Interpreter::Variable> Interpreter::variables() {
  // What a fresh interpreter already defines is not the user's.
  static const std::set<std::string> predefined = [] {
    std::vector<std::string> names = Interpreter().global_names();
    return std::set<std::string>(names.begin(), names.end());
  }();
  std::vector<Variable> found;
  for (const std::string& name : global_names())
    if (!predefined.contains(name) && !name.starts_with("__")) found.push_back(Variable{name, {}});
  if (found.empty()) return found;
  std::string script = std::string("import jax as ") + jax_alias + "\n" + result_name + " = [";
  for (const Variable& variable : found) script += type_text_function() + "(" + variable.name + "), ";
  script += "]\n";
  if (run(script, script_name).ok()) {
    if (auto value = get(result_name); value && value->items().size() == found.size())
      for (std::size_t i = 0; i < found.size(); ++i) found[i].type = value->items()[i].as_string();
  }
  forget_scratch(*this);
  return found;
}

Interpreter::MeshDescription Interpreter::mesh_description() {
  MeshDescription answer;
  std::string j = jax_alias;
  answer.result = run("import jax as " + j + "\n" + result_name + " = [" + j + ".sharding.get_abstract_mesh(), " + j +
                          ".devices()[0].platform, " + j + ".devices()[0].device_kind, [d.id for d in " + j +
                          ".devices()]]\n",
                      script_name);
  if (answer.result.ok()) {
    if (auto value = get(result_name); value && value->items().size() == 4) {
      const std::vector<Value>& parts = value->items();
      // get_abstract_mesh() with no mesh set is the empty mesh.
      if (parts[0].as_string() != "AbstractMesh((), axis_types=())")
        answer.context_mesh = parts[0].as_string();
      answer.platform = parts[1].as_string();
      answer.device_kind = parts[2].as_string();
      for (const Value& id : parts[3].items()) answer.device_ids.push_back(static_cast<int>(id.as_int()));
    }
  }
  forget_scratch(*this);
  return answer;
}

}  // namespace shardlang
