// The REPL's introspection methods of the public API (:type, :vars, :mesh).
//
// Each runs a small script against the session's global namespace and
// reads its result back. The scripts run the way `shardlang check` runs a
// program (AbstractEvaluation below): arrays they make are abstract, so
// `:type` computes no data and does no device work whatever the sizes, and
// what they assign is gone afterwards.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "interp/embed/api_state.hpp"
#include "interp/python/stack.hpp"
#include "lang/diagnostic.hpp"
#include "shardlang/shardlang.hpp"

namespace shardlang {

namespace {

// The scripts' own globals (in AbstractEvaluation's copy of the namespace).
constexpr const char* jax_alias = "__shardlang_repl_jax";
constexpr const char* result_name = "__shardlang_repl_value";
// The file name of the scripts: the REPL's own, since a run also sets
// sys.argv[0] to it.
constexpr const char* script_name = "<stdin>";

// A lambda giving the type text of a value: jax.typeof for arrays (the
// sharded type), the Python type name otherwise.
std::string type_text_function() {
  return std::string("(lambda v: str(") + jax_alias + ".typeof(v)) if type(v).__name__ == 'ArrayImpl' else type(v).__name__)";
}

// While alive, the session's evaluator evaluates as check mode does (arrays
// are abstract, print writes nothing, nothing is charged to the cost model)
// in a copy of the global namespace, so that what the script assigns is
// gone afterwards, as are the context mesh (jax.set_mesh) and the threefry
// setting it changes. Objects reached through the copy are the session's
// own: a method that mutates one in place (list.append) still does.
class AbstractEvaluation {
 public:
  explicit AbstractEvaluation(interp::Evaluator& evaluator)
      : evaluator_(evaluator), mode_(evaluator.mode), globals_(evaluator.globals) {
    interp::Runtime& runtime = *evaluator.runtime;
    context_mesh_ = runtime.context_mesh;
    concrete_mesh_ = runtime.concrete_mesh;
    threefry_mode_ = runtime.threefry_mode;
    costs_ = runtime.costs;
    // A recorder that keeps no profile charges nothing (CostRecorder::charging).
    runtime.costs = std::make_shared<interp::CostRecorder>(runtime.options().chip,
                                                           static_cast<int>(runtime.devices().size()), false);
    evaluator.mode = interp::Evaluator::Mode::check;
    ++runtime.uncharged_depth;  // a type asks no device memory (device_memory.hpp)
  }
  ~AbstractEvaluation() {
    --evaluator_.runtime->uncharged_depth;
    evaluator_.mode = mode_;
    evaluator_.runtime->costs = std::move(costs_);
    evaluator_.runtime->context_mesh = std::move(context_mesh_);
    evaluator_.runtime->concrete_mesh = std::move(concrete_mesh_);
    evaluator_.runtime->threefry_mode = threefry_mode_;
    evaluator_.globals.swap(globals_);
    // The script's own values may nest deeply: free them on a large stack.
    interp::run_with_large_stack([&] { globals_.clear(); });
  }
  AbstractEvaluation(const AbstractEvaluation&) = delete;
  AbstractEvaluation& operator=(const AbstractEvaluation&) = delete;

 private:
  interp::Evaluator& evaluator_;
  interp::Evaluator::Mode mode_;
  interp::Namespace globals_;
  std::shared_ptr<interp::CostRecorder> costs_;
  std::shared_ptr<interp::MeshObject> context_mesh_;
  std::shared_ptr<interp::MeshObject> concrete_mesh_;
  devices::ThreefryMode threefry_mode_;
};

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
  try {
    interp::Evaluator& evaluator = *state_->evaluator;
    AbstractEvaluation abstract(evaluator);
    // The closing brackets on their own line, so that a trailing comment in
    // the expression does not swallow them.
    answer.result = execute(evaluator, prefix + std::string(expression) + "\n))\n", script_name, RunKind::script);
    locate_in_expression(answer.result, prefix.size(), expression);
    if (answer.result.ok()) {
      auto found = evaluator.globals.find(result_name);
      const std::string* text = found == evaluator.globals.end() ? nullptr : interp::string_of(found->second);
      // No text without an error: checking stopped at a branch on array data.
      answer.type = text ? *text : "unknown";
    }
  } catch (const std::exception& error) {
    answer.result = Result({internal_error(std::string("RuntimeError: internal error: ") + error.what())}, "RuntimeError");
  }
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
  try {
    AbstractEvaluation scratch(*state_->evaluator);
    if (execute(*state_->evaluator, script, script_name, RunKind::script).ok()) {
      if (auto value = get(result_name); value && value->items().size() == found.size())
        for (std::size_t i = 0; i < found.size(); ++i) found[i].type = value->items()[i].as_string();
    }
  } catch (const std::exception&) {
    // Out of memory copying the namespace: the types stay unknown.
  }
  return found;
}

Interpreter::MeshDescription Interpreter::mesh_description() {
  MeshDescription answer;
  std::string j = jax_alias;
  std::string script = "import jax as " + j + "\n" + result_name + " = [str(" + j + ".sharding.get_abstract_mesh()), " + j +
                       ".devices()[0].platform, " + j + ".devices()[0].device_kind, [d.id for d in " + j +
                       ".devices()]]\n";
  try {
    AbstractEvaluation scratch(*state_->evaluator);
    answer.result = execute(*state_->evaluator, script, script_name, RunKind::script);
    if (auto value = answer.result.ok() ? get(result_name) : std::nullopt; value && value->items().size() == 4) {
      const std::vector<Value>& parts = value->items();
      // get_abstract_mesh() with no mesh set is the empty mesh.
      if (parts[0].as_string() != "AbstractMesh((), axis_types=())")
        answer.context_mesh = parts[0].as_string();
      answer.platform = parts[1].as_string();
      answer.device_kind = parts[2].as_string();
      for (const Value& id : parts[3].items()) answer.device_ids.push_back(static_cast<int>(id.as_int()));
    }
  } catch (const std::exception& error) {
    answer.result = Result({internal_error(std::string("RuntimeError: internal error: ") + error.what())}, "RuntimeError");
  }
  return answer;
}

}  // namespace shardlang
