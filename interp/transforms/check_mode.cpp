// Check mode's unknowns, the check-stop signal, np.testing, and the notes and
// hints of operation errors (check_mode.hpp).
#include "interp/transforms/check_mode.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "interp/python/builtins.hpp"
#include "interp/transforms/costing.hpp"
#include "interp/python/format.hpp"
#include "lang/ast.hpp"
#include "typecheck/python_repr.hpp"

namespace interp {

// ------------------------------------------------------------ unknowns

namespace {

const TypeRef& unknown_type() {
  static const TypeRef type = make_type("unknown");
  return type;
}

// The signal is not a BaseException: no `except` clause matches it.
const TypeRef& check_stop_type() {
  static const TypeRef type = make_type("CheckStopped");
  return type;
}

}  // namespace

const TypeRef& UnknownObject::type() const { return unknown_type(); }

std::optional<Value> UnknownObject::binary_op(Evaluator&, lang::ast::BinaryOperator, const Value&, bool) {
  return unknown_value();
}

std::optional<Value> UnknownObject::unary_op(Evaluator& evaluator, lang::ast::UnaryOperator op) {
  if (op == lang::ast::UnaryOperator::not_) stop_checking(evaluator);
  return unknown_value();
}

std::optional<Value> UnknownObject::compare(Evaluator&, lang::ast::CompareOperator op, const Value&, bool) {
  using Op = lang::ast::CompareOperator;
  // Identity is known: an unknown is not None.
  if (op == Op::is) return Value::boolean(false);
  if (op == Op::is_not) return Value::boolean(true);
  return unknown_value();
}

std::optional<Value> UnknownObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  // float's and int's attributes and methods (x.item().real,
  // x.item().is_integer()) are unknown too: an unknown is callable.
  static const std::set<std::string> numeric_protocols{"__round__", "__abs__", "__trunc__", "__floor__", "__ceil__"};
  if (name.rfind("__", 0) == 0 && !numeric_protocols.count(name)) return Object::get_attribute(evaluator, name);
  return unknown_value();
}

Value UnknownObject::call(Evaluator&, CallArgs&) { return unknown_value(); }

bool UnknownObject::truthy(Evaluator& evaluator) const { stop_checking(evaluator); }
// How many items an unknown holds is not known: a loop over it cannot be followed.
IteratorRef UnknownObject::iterate(Evaluator& evaluator) { stop_checking(evaluator); }

Value unknown_value() {
  static const Value unknown(std::make_shared<UnknownObject>());
  return unknown;
}

// The one UnknownObject there is, compared by address (without a dynamic_cast).
bool is_unknown(const Value& value) { return value.is_object() && value.object() == unknown_value().object(); }

bool is_abstract_array(const Value& value) {
  auto* array = value.as<ArrayObject>();
  return array && array->abstract();
}

std::optional<Value> host_scalar_of(Evaluator& evaluator, const Value& value, HostScalar kind) {
  if (is_unknown(value)) return value;
  auto* array = value.as<ArrayObject>();
  if (!array) return std::nullopt;
  if (kind != HostScalar::boolean && array->aval.ndim() != 0) {
    if (kind == HostScalar::item && devices::element_count(array->aval.shape) != 1)
      raise(exc::ValueError(), "can only convert an array of size 1 to a Python scalar");
    if (kind != HostScalar::item)
      raise(exc::TypeError(), "Only scalar arrays can be converted to Python scalars; got arr.ndim=" +
                                  std::to_string(array->aval.ndim()));
  }
  if (kind == HostScalar::boolean && devices::element_count(array->aval.shape) != 1)
    raise(exc::ValueError(), "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
  ArrayRef concrete = std::static_pointer_cast<ArrayObject>(value.object());
  if (array->abstract()) {
    if (evaluator.mode == Evaluator::Mode::check) return unknown_value();  // no data in check mode
    // A traced array: the value eager differentiation computed, else JAX's
    // TracerBoolConversionError or ConcretizationTypeError.
    if (kind == HostScalar::boolean) return Value::boolean(array->truthy(evaluator));
    static const char* const names[] = {"float", "int", "bool", "item"};
    const std::string name = names[static_cast<int>(kind)];
    std::string context = "The problem arose with the `" + name + "` function. ";
    if (kind != HostScalar::item)
      context += "If trying to convert the data type of a value, try using `x.astype(" + name + ")` or `jnp.array(x, " +
                 name + ")` instead.";
    concrete = concrete_or_error(evaluator, concrete, context);
  }
  double element = element_values(evaluator, *concrete).at(0);
  switch (kind) {
    case HostScalar::boolean: return Value::boolean(element != 0);
    case HostScalar::integer: return Value::integer(static_cast<std::int64_t>(element));
    case HostScalar::floating: return Value::floating(element);
    case HostScalar::item: break;
  }
  if (array->aval.dtype == typecheck::DType::bool_) return Value::boolean(element != 0);
  if (typecheck::is_floating(array->aval.dtype)) return Value::floating(element);
  return Value::integer(static_cast<std::int64_t>(element));
}

// ------------------------------------------------------------ the check-stop signal


void stop_checking(Evaluator& evaluator) {
  // Run mode has no unknowns: reaching here is shardlang's bug, and ending
  // the program quietly as check's warning does would hide it.
  if (evaluator.mode != Evaluator::Mode::check)
    raise(exc::RuntimeError(), "internal error: a value without data decided control flow in run mode");
  auto stop = make_exception(check_stop_type(), data_dependent_branch_message);
  stop->frame_span = lang::first_line(evaluator.statement_span);
  stop->frame_span_set = true;
  throw PyError{stop};
}

bool is_check_stop(const ExceptionObject& exception) { return exception.type() == check_stop_type(); }

Value end_checking(Evaluator& evaluator, const ExceptionObject& stop) {
  lang::Span where = stop.traceback.empty() ? stop.frame_span : stop.traceback.back().span;
  where = lang::first_line(where);
  bool seen = std::any_of(evaluator.check_warnings.begin(), evaluator.check_warnings.end(), [&](const lang::Span& s) {
    return s.file == where.file && s.begin == where.begin;
  });
  if (!seen) evaluator.check_warnings.push_back(where);
  return unknown_value();
}

// ------------------------------------------------------------ notes and hints

namespace {

bool sharded(const typecheck::ArrayType& type) {
  if (!type.sharding.unreduced.empty()) return true;
  return std::any_of(type.sharding.dims.begin(), type.sharding.dims.end(),
                     [](const typecheck::SpecEntry& entry) { return !entry.empty(); });
}

// The name an assignment statement binds, for "`In` got its sharding here".
std::string assigned_name(const lang::ast::Stmt* statement) {
  if (!statement) return {};
  const auto* assign = std::get_if<lang::ast::Assign>(&statement->node);
  if (!assign || assign->targets.size() != 1) return {};
  const auto* name = std::get_if<lang::ast::Name>(&assign->targets[0]->node);
  return name ? name->id : std::string();
}

const ShardingOrigin* origin_of(const ArrayObject* array) { return array->sharding_origin.get(); }

std::string joined(const std::vector<std::string>& items, const std::string& last_separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += i + 1 == items.size() ? last_separator : ", ";
    out += items[i];
  }
  return out;
}

// One legal out_sharding of an ambiguous contraction, what it implies and
// its estimated time (the contraction and its collective) on the chip.
struct Choice {
  typecheck::PartitionSpec spec;
  std::string collective;
  double seconds = 0;
};

// dot_general's output dims: the lhs's free dims then the rhs's (rank <= 2
// operands, lhs contracting its last dim and rhs its first).
std::vector<Choice> contraction_choices(Evaluator& evaluator, const Primitive& primitive,
                                        const std::vector<ArrayRef>& operands, const Params& params) {
  if (operands.size() != 2) return {};
  const auto& lhs = operands[0]->aval.sharding;
  const auto& rhs = operands[1]->aval.sharding;
  if (lhs.dims.empty() || rhs.dims.empty()) return {};
  typecheck::SpecEntry contracting = lhs.dims.back();
  if (contracting.empty()) return {};
  std::vector<typecheck::SpecEntry> free(lhs.dims.begin(), lhs.dims.end() - 1);
  free.insert(free.end(), rhs.dims.begin() + 1, rhs.dims.end());
  std::string over = joined(contracting, ", ");
  typecheck::AxisSet contracting_set(contracting.begin(), contracting.end());

  std::vector<Choice> candidates;
  for (std::size_t dim = 0; dim < free.size(); ++dim) {
    if (!free[dim].empty()) continue;
    auto dims = free;
    dims[dim] = contracting;
    candidates.push_back({typecheck::PartitionSpec::from_entries(dims), "reduce-scatter over " + over});
  }
  candidates.push_back({typecheck::PartitionSpec::from_entries(free), "all-reduce over " + over});
  candidates.push_back({typecheck::PartitionSpec::from_entries(free, contracting_set),
                        "no collective now; the sum is deferred"});

  // Keep what the rule accepts, cheapest first (ties in the order above).
  std::vector<Choice> legal;
  for (auto& candidate : candidates) {
    Params attempt;
    for (const auto& entry : params.entries)
      if (entry.first != "out_sharding") attempt.entries.push_back(entry);
    attempt.set("out_sharding", typecheck::ShardingArg{lhs.mesh, candidate.spec});
    try {
      ArrayRef result = primitive.implementation(evaluator, primitive, operands, attempt, false);
      candidate.seconds = application_seconds(evaluator, primitive, operands, result, attempt);
      legal.push_back(std::move(candidate));
    } catch (PyError&) {
      continue;
    }
  }
  std::stable_sort(legal.begin(), legal.end(), [](const Choice& a, const Choice& b) { return a.seconds < b.seconds; });
  return legal;
}

// "20.5 µs", "1.25 ms": the hint's column of estimates.
std::string estimate_text(double seconds) {
  char text[64];
  if (seconds >= 1e-3) std::snprintf(text, sizeof text, "%.2f ms", seconds * 1e3);
  else std::snprintf(text, sizeof text, "%.1f µs", seconds * 1e6);
  return text;
}

std::string contraction_hint(Evaluator& evaluator, const std::vector<Choice>& choices) {
  std::size_t argument_width = 0, collective_width = 0;
  std::vector<std::string> arguments;
  for (const auto& choice : choices) {
    arguments.push_back("out_sharding=" + choice.spec.repr());
    argument_width = std::max(argument_width, arguments.back().size());
    collective_width = std::max(collective_width, choice.collective.size());
  }
  std::string hint = "choose the output sharding (estimated cost on " +
                     std::string(devices::chip_name(runtime_of(evaluator).options().chip)) + ", cheapest first):\n";
  for (std::size_t i = 0; i < choices.size(); ++i)
    hint += "        " + arguments[i] + std::string(argument_width - arguments[i].size() + 1, ' ') +
            choices[i].collective + std::string(collective_width - choices[i].collective.size() + 2, ' ') +
            estimate_text(choices[i].seconds) + "\n";
  return hint;
}

// What the program calls jax.sharding.PartitionSpec: "P" when that global
// is it, else another global bound to it (the shortest name), else
// "jax.sharding.PartitionSpec" when `jax` is the module; empty when the
// program cannot name it.
std::string partition_spec_name(Evaluator& evaluator) {
  auto sharding = evaluator.modules.find("jax.sharding");
  const Value* spec_class = sharding == evaluator.modules.end() ? nullptr : sharding->second->find("PartitionSpec");
  if (!spec_class || !spec_class->is_object()) return {};
  auto is_spec_class = [&](const Value& value) { return value.is_object() && value.object() == spec_class->object(); };
  if (auto p = evaluator.globals.find("P"); p != evaluator.globals.end() && is_spec_class(p->second)) return "P";
  std::string best;
  for (const auto& [name, value] : evaluator.globals)
    if (is_spec_class(value) && (best.empty() || name.size() < best.size() || (name.size() == best.size() && name < best)))
      best = name;
  if (!best.empty()) return best;
  auto jax = evaluator.globals.find("jax");
  auto jax_module = evaluator.modules.find("jax");
  if (jax != evaluator.globals.end() && jax_module != evaluator.modules.end() && jax->second.is_object() &&
      jax->second.object() == jax_module->second)
    return "jax.sharding.PartitionSpec";
  return {};
}

// The hint's choices as edits of the call that ran the contraction
// (jnp.einsum(...), jnp.matmul(...), lax.dot_general(...)): its
// out_sharding= argument added, or its value replaced when the call passed
// one (None). None when the contraction came from an operator (`a @ b`) or
// a function that takes no out_sharding.
std::vector<ExceptionObject::Fix> contraction_fixes(Evaluator& evaluator, const std::vector<Choice>& choices) {
  const Evaluator::RunningCall& running = evaluator.running_call;
  const auto* function = dynamic_cast<const NativeFunction*>(running.callee);
  const auto* call = running.expression ? std::get_if<lang::ast::Call>(&running.expression->node) : nullptr;
  if (!function || !call) return {};
  const auto& parameters = function->signature().parameters;
  if (std::none_of(parameters.begin(), parameters.end(), [](const Parameter& p) { return p.name == "out_sharding"; }))
    return {};
  std::string spec_name = partition_spec_name(evaluator);
  if (spec_name.empty()) return {};
  lang::Span where;
  std::string prefix;
  for (const auto& keyword : call->keywords)
    if (keyword.name && keyword.name->name == "out_sharding") where = keyword.value->span;
  if (where.empty()) {
    // After the last argument (before a trailing comma or comment).
    std::uint32_t end = 0;
    for (const auto& argument : call->args) end = std::max(end, argument->span.end);
    for (const auto& keyword : call->keywords) end = std::max(end, keyword.value->span.end);
    if (end == 0) return {};
    where = lang::Span{running.expression->span.file, end, end};
    prefix = ", out_sharding=";
  }
  std::vector<ExceptionObject::Fix> fixes;
  for (const auto& choice : choices) {
    std::string spec = spec_name + choice.spec.repr().substr(1);
    fixes.push_back({"out_sharding=" + spec + ": " + choice.collective + ", " + estimate_text(choice.seconds), where,
                     prefix + spec});
  }
  return fixes;
}

}  // namespace

void track_sharding_origin(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                           const Params& params, const ArrayRef& result) {
  if (!result || !sharded(result->aval)) return;
  if (primitive.name == "device_put" || primitive.name == "reshard" || params.get<typecheck::ShardingArg>("out_sharding")) {
    lang::Span span = lang::first_line(evaluator.statement_span);
    if (span.empty()) return;
    result->sharding_origin = std::make_shared<const ShardingOrigin>(ShardingOrigin{span, assigned_name(evaluator.statement)});
    return;
  }
  for (const auto& operand : operands)
    if (sharded(operand->aval) && operand->sharding_origin) {
      result->sharding_origin = operand->sharding_origin;
      return;
    }
}

void enrich_operation_error(Evaluator& evaluator, const Primitive& primitive, const std::vector<ArrayRef>& operands,
                            const Params& params, ExceptionObject& error) {
  if (operands.empty() || !error.notes.empty()) return;
  std::vector<std::string> types;
  for (const auto& operand : operands) types.push_back(operand->aval.short_str());
  error.notes.emplace_back(lang::Span{},
                           (types.size() == 1 ? "operand is " : "operands are ") + joined(types, " and "));
  std::vector<lang::Span> noted;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const ShardingOrigin* origin = origin_of(operands[i].get());
    if (!origin) continue;
    bool seen = std::any_of(noted.begin(), noted.end(), [&](const lang::Span& s) { return s.begin == origin->span.begin; });
    if (seen) continue;
    noted.push_back(origin->span);
    std::string who = origin->name.empty() ? "operand " + std::to_string(i + 1) : "`" + origin->name + "`";
    error.notes.emplace_back(origin->span, who + " got its sharding here");
  }
  if (primitive.name != "dot_general" || error.args.empty()) return;
  const std::string* message = string_of(error.args[0]);
  if (!message || message->find("Contracting dimensions are sharded and it is ambiguous") == std::string::npos) return;
  auto choices = contraction_choices(evaluator, primitive, operands, params);
  if (choices.empty()) return;
  error.hint = contraction_hint(evaluator, choices);
  error.fixes = contraction_fixes(evaluator, choices);
}

}  // namespace interp
