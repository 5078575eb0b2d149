// Editor support of the public API (include/shardlang/shardlang.hpp
// "editor support"): Interpreter::analyze checks a program as `check` does
// while an Evaluator::Observer notes the type of every expression and
// assigned name that holds an array; the cost model's charges give each
// line's estimate; the checked namespace answers completion queries.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "interp/embed/api_state.hpp"
#include "interp/ops/array.hpp"
#include "interp/python/format.hpp"
#include "interp/python/stack.hpp"
#include "shardlang/shardlang.hpp"

namespace shardlang {

struct Analysis::Impl {
  std::vector<Diagnostic> diagnostics;
  std::vector<TypedSpan> types;
  std::vector<LineCost> line_costs;
  std::string chip;
  std::vector<std::string> mesh_axis_names;
  // The checked program's evaluator, for the completion queries; its
  // functions hold their programs, which hold the source file.
  std::unique_ptr<interp::Evaluator> evaluator;

  ~Impl() {
    // Deeply nested values are freed recursively: do it on a large stack.
    if (evaluator) interp::run_with_large_stack([&]() { evaluator.reset(); });
  }
};

Analysis::Analysis() : impl_(std::make_unique<Impl>()) {}
Analysis::Analysis(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Analysis::~Analysis() = default;
Analysis::Analysis(Analysis&&) noexcept = default;
Analysis& Analysis::operator=(Analysis&&) noexcept = default;

const std::vector<Diagnostic>& Analysis::diagnostics() const { return impl_->diagnostics; }
const std::vector<TypedSpan>& Analysis::types() const { return impl_->types; }
const std::vector<LineCost>& Analysis::line_costs() const { return impl_->line_costs; }
const std::string& Analysis::chip() const { return impl_->chip; }
std::vector<std::string> Analysis::mesh_axis_names() const { return impl_->mesh_axis_names; }

namespace {

// The types one span held, as the checker saw them.
struct SeenTypes {
  lang::Span span;
  bool assignment = false;
  std::vector<typecheck::ArrayType> types;  // distinct, in the order first seen
  std::size_t last = 0;                     // the index of the latest
  bool more = false;
};

constexpr std::size_t max_types_per_span = 4;

// Notes every array value of an expression or assignment of one file, and
// the meshes of those arrays in the order first met.
class TypeRecorder : public interp::Evaluator::Observer {
 public:
  explicit TypeRecorder(const lang::SourceFile* file) : file_(file) {}

  void evaluated(const lang::ast::Expr& expression, const interp::Value& value) override {
    record(expression.span, value, false);
  }
  void assigned(const lang::ast::Expr& target, const interp::Value& value) override {
    record(target.span, value, true);
  }

  const std::unordered_map<std::uint64_t, SeenTypes>& seen() const { return seen_; }
  const std::vector<typecheck::MeshRef>& meshes() const { return meshes_; }

 private:
  void record(const lang::Span& span, const interp::Value& value, bool assignment) {
    if (span.file != file_) return;
    const auto* array = value.as<interp::ArrayObject>();
    if (!array) return;
    // An assignment's target and an expression never share a span, but keep
    // them apart anyway: the key is (begin, end, assignment).
    std::uint64_t key = (static_cast<std::uint64_t>(span.begin) << 33) | (static_cast<std::uint64_t>(span.end) << 1) |
                        (assignment ? 1 : 0);
    SeenTypes& seen = seen_[key];
    const typecheck::ArrayType& type = array->aval;
    if (!seen.types.empty() && seen.types[seen.last] == type) return;
    if (seen.types.empty()) {
      seen.span = span;
      seen.assignment = assignment;
    }
    auto found = std::find(seen.types.begin(), seen.types.end(), type);
    if (found != seen.types.end()) {
      seen.last = static_cast<std::size_t>(found - seen.types.begin());
      return;
    }
    if (seen.types.size() == max_types_per_span) {
      seen.more = true;
      return;
    }
    seen.types.push_back(type);
    seen.last = seen.types.size() - 1;
    note_mesh(type.sharding.mesh);
  }

  void note_mesh(const typecheck::MeshRef& mesh) {
    if (!mesh || std::find(meshes_.begin(), meshes_.end(), mesh) != meshes_.end()) return;
    meshes_.push_back(mesh);
  }

  const lang::SourceFile* file_;
  std::unordered_map<std::uint64_t, SeenTypes> seen_;
  std::vector<typecheck::MeshRef> meshes_;
};

Location location_of(const lang::Span& span) {
  lang::SourceRange range = lang::resolve(span);
  return Location{range.file_name, range.begin.line, range.begin.column, range.end.line, range.end.column};
}

std::vector<TypedSpan> typed_spans(const TypeRecorder& recorder) {
  std::vector<const SeenTypes*> ordered;
  for (const auto& [key, seen] : recorder.seen()) ordered.push_back(&seen);
  // By start, outer spans first; an assignment target before an expression.
  std::sort(ordered.begin(), ordered.end(), [](const SeenTypes* a, const SeenTypes* b) {
    if (a->span.begin != b->span.begin) return a->span.begin < b->span.begin;
    if (a->span.end != b->span.end) return a->span.end > b->span.end;
    return a->assignment > b->assignment;
  });
  std::vector<TypedSpan> spans;
  for (const SeenTypes* seen : ordered) {
    TypedSpan typed;
    typed.where = location_of(seen->span);
    typed.assignment = seen->assignment;
    for (const auto& type : seen->types) typed.types.push_back(type.short_str());
    typed.more_types = seen->more;
    const typecheck::ArrayType& last = seen->types[seen->last];
    typed.shard_shape = typecheck::local_shape(last);
    typed.shard_bytes = typecheck::byte_size(last.dtype);
    for (std::int64_t extent : typed.shard_shape) typed.shard_bytes *= extent;
    spans.push_back(std::move(typed));
  }
  return spans;
}

// Each line's charges of one file, summed as the cost model makes them.
class LineCostRecorder {
 public:
  explicit LineCostRecorder(const lang::SourceFile* file) : file_(file) {}

  void add(const devices::Charge& charge, const lang::Span& span) {
    if (span.file != file_) return;
    int line = file_->position(span.begin).line;
    LineCost& cost = lines_[line];
    cost.line = line;
    cost.seconds += charge.seconds;
    auto operation = std::find_if(cost.operations.begin(), cost.operations.end(),
                                  [&](const LineCost::Operation& o) { return o.name == charge.operation; });
    if (operation == cost.operations.end()) {
      cost.operations.push_back(LineCost::Operation{charge.operation, 0, 0, 0});
      operation = cost.operations.end() - 1;
    }
    ++operation->count;
    operation->seconds += charge.seconds;
    operation->bytes_moved += charge.bytes_moved;
  }

  std::vector<LineCost> costs() const {
    std::vector<LineCost> out;
    for (const auto& [line, cost] : lines_) out.push_back(cost);
    return out;
  }

 private:
  const lang::SourceFile* file_;
  std::map<int, LineCost> lines_;
};

void add_axis_names(std::vector<std::string>& names, const typecheck::MeshRef& mesh) {
  if (!mesh) return;
  for (const auto& axis : mesh->axes())
    if (std::find(names.begin(), names.end(), axis.name) == names.end()) names.push_back(axis.name);
}

// The context mesh's axes, then those of the arrays' meshes as first met,
// then those of meshes bound to globals (by name).
std::vector<std::string> mesh_axis_names(interp::Evaluator& evaluator, const TypeRecorder& recorder) {
  std::vector<std::string> names;
  if (const auto& context = evaluator.runtime->context_mesh) add_axis_names(names, context->mesh->abstract);
  for (const auto& mesh : recorder.meshes()) add_axis_names(names, mesh);
  std::map<std::string, typecheck::MeshRef> bound;
  for (const auto& [name, value] : evaluator.globals)
    if (const auto* mesh = value.as<interp::MeshObject>()) bound[name] = mesh->mesh->abstract;
  for (const auto& [name, mesh] : bound) add_axis_names(names, mesh);
  return names;
}

// The script that sets Interpreter::analyze's context mesh.
std::string context_mesh_script(const std::vector<MeshAxis>& axes) {
  std::string jax = "__shardlang_context_mesh_jax";
  std::string sizes, names;
  for (const auto& axis : axes) {
    sizes += std::to_string(axis.size) + ", ";
    names += interp::string_repr(axis.name) + ", ";
  }
  return "import jax as " + jax + "\n" + jax + ".set_mesh(" + jax + ".make_mesh((" + sizes + "), (" + names +
         "), axis_types=(" + jax + ".sharding.AxisType.Explicit,) * " + std::to_string(axes.size()) + "))\ndel " +
         jax + "\n";
}

}  // namespace

Analysis Interpreter::analyze(std::string_view source, std::string_view name, const AnalysisOptions& options) {
  auto impl = std::make_unique<Analysis::Impl>();
  impl->chip = state_->options.chip;
  try {
    std::unique_ptr<interp::Evaluator> evaluator;  // outlives the scope that interrupt() reaches it through
    RunningScope running(state_->running, state_->interrupting, state_->interrupt_pending);
    evaluator = state_->make_evaluator(interp::Evaluator::Mode::check, false);
    running.attach(*evaluator);
    // The file is made here so that the recorders know it; execute finds it.
    RetainedSources sources;
    auto file = lang::SourceFile::from_text(std::string(name), std::string(source));
    sources[std::string(name) + '\0' + std::string(source)] = file;
    // The cost model charges every application for the per-line estimates,
    // whatever Options::profile says, keeping sums rather than a profile.
    LineCostRecorder line_costs(file.get());
    interp::Runtime& runtime = *evaluator->runtime;
    if (options.line_costs) {
      runtime.costs = std::make_shared<interp::CostRecorder>(runtime.options().chip, runtime.options().device_count, false);
      runtime.costs->watch([&line_costs](const devices::Charge& charge, const lang::Span& span) { line_costs.add(charge, span); });
    }
    if (!options.context_mesh.empty()) {
      Result made = execute(*evaluator, context_mesh_script(options.context_mesh), "<context mesh>", RunKind::script);
      for (Diagnostic diagnostic : made.diagnostics()) {
        diagnostic.where = Location{};
        diagnostic.source_line.clear();
        diagnostic.traceback.clear();
        diagnostic.message = "the context mesh: " + diagnostic.message;
        impl->diagnostics.push_back(std::move(diagnostic));
      }
    }
    TypeRecorder recorder(file.get());
    set_script_path(*evaluator, name);
    evaluator->observer = &recorder;
    Result checked = execute(*evaluator, source, name, RunKind::script, &sources);
    evaluator->observer = nullptr;
    impl->diagnostics.insert(impl->diagnostics.end(), checked.diagnostics().begin(), checked.diagnostics().end());
    if (options.line_costs) {
      (void)runtime.costs->clock_seconds();  // charges what the overlap window still holds
      runtime.costs->watch({});
    }
    impl->types = typed_spans(recorder);
    impl->line_costs = line_costs.costs();
    impl->mesh_axis_names = mesh_axis_names(*evaluator, recorder);
    impl->evaluator = std::move(evaluator);
  } catch (const std::exception& error) {
    impl->diagnostics.push_back(internal_error(std::string("RuntimeError: internal error: ") + error.what()));
  } catch (...) {
    impl->diagnostics.push_back(internal_error("RuntimeError: internal error"));
  }
  return Analysis(std::move(impl));
}

// ------------------------------------------------------------ completion queries

std::vector<std::string> Analysis::global_names() const {
  std::vector<std::string> names;
  if (!impl_->evaluator) return names;
  try {
    for (const auto& [name, value] : impl_->evaluator->globals)
      if (!name.starts_with("__")) names.push_back(name);
    for (const auto& [name, value] : impl_->evaluator->builtins)
      if (!name.starts_with("__")) names.push_back(name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  } catch (...) {
    names.clear();
  }
  return names;
}

namespace {

// A function's signature text, through a bound method to its function.
std::string signature_of(interp::Evaluator& evaluator, const interp::Value& value) {
  const interp::Object* object = value.is_object() ? value.object().get() : nullptr;
  if (const auto* method = dynamic_cast<const interp::BoundMethod*>(object)) object = method->function().get();
  if (const auto* native = dynamic_cast<const interp::NativeFunction*>(object))
    return interp::signature_text(evaluator, native->signature());
  if (const auto* function = dynamic_cast<const interp::FunctionObject*>(object))
    return interp::signature_text(evaluator, function->signature);
  return {};
}

std::string kind_of(const interp::Value& value) {
  if (value.as<interp::ModuleObject>()) return "module";
  if (value.as<interp::TypeObject>()) return "class";
  if (value.as<interp::ArrayObject>()) return "array";
  if (value.is_object() && value.object()->callable()) return "function";
  return "value";
}

}  // namespace

std::vector<Member> Analysis::members(std::string_view dotted_name) const {
  std::vector<Member> members;
  if (!impl_->evaluator) return members;
  try {
    interp::Evaluator& evaluator = *impl_->evaluator;
    auto value = resolve_dotted_name(evaluator, dotted_name);
    if (!value) return members;
    const auto* module = value->as<interp::ModuleObject>();
    std::vector<std::string> names =
        value->is_object() ? value->object()->attribute_names() : interp::type_of(*value)->attribute_names();
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const std::string& name : names) {
      Member member{name, module ? "value" : "attribute", {}};
      // A module's members are table entries: read them. Another object's
      // attributes may be computed (an array's .T), so only their names are given.
      if (const interp::Value* found = module ? module->find(name) : nullptr) {
        member.kind = kind_of(*found);
        member.signature = signature_of(evaluator, *found);
      }
      members.push_back(std::move(member));
    }
  } catch (...) {
    members.clear();
  }
  return members;
}

std::string Analysis::signature(std::string_view dotted_name) const {
  if (!impl_->evaluator) return {};
  try {
    auto value = resolve_dotted_name(*impl_->evaluator, dotted_name);
    return value ? signature_of(*impl_->evaluator, *value) : std::string();
  } catch (...) {
    return {};
  }
}

}  // namespace shardlang
