// Reverse mode's parts (reverse_mode.hpp).
#include "interp/transforms/reverse_mode.hpp"

#include "interp/ops/vjp_support.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/costing.hpp"
#include "interp/transforms/custom_derivatives.hpp"
#include "interp/transforms/refs.hpp"

namespace interp {

namespace {

ArrayRef as_array(const Value& value) { return std::static_pointer_cast<ArrayObject>(value.object()); }

}  // namespace

using vjp::add;
using vjp::apply;
using vjp::convert;
using vjp::reshape;
using vjp::zeros_like;

// JAX's _check_input_dtype_revderiv for a Ref (jax.vjp's with_refs, which
// takes the gradient of a Ref argument into a Ref, is not provided).
namespace {
[[noreturn]] void refuse_ref_argument(bool grad) {
  if (!grad)
    raise(exc::NotImplementedError(), "shardlang: jax.vjp with respect to a Ref-typed argument (the VJP function's "
                                      "with_refs) is not supported");
  raise(exc::TypeError(), "grad cannot differentiate with respect to a Ref-typed argument, because the gradient for a "
                          "ref must itself be accumulated into a ref. Instead, use `jax.vjp` and bind a gradient ref "
                          "using the returned VJP function's `with_refs` method. (Ref arguments not selected by grad's "
                          "argnums are fine: they are treated as plumbing, and are not differentiated.)");
}
}  // namespace

// Traces `function` on `args` with the leaves of the arguments at `argnums`
// as the program's inputs. Run eagerly, the trace also computes values, so
// a cond takes one branch; under jit or in check mode it only records.
std::shared_ptr<Linearization> trace_at(Evaluator& evaluator, const Value& function, CallArgs args,
                                        const std::vector<std::int64_t>& argnums, bool require_float) {
  auto lin = std::make_shared<Linearization>();
  lin->concrete = evaluator.mode == Evaluator::Mode::run && !tracing_jit(evaluator);
  lin->trace = std::make_shared<JitTrace>(lin->concrete);
  lin->trace->differentiating = true;
  for (auto argnum : argnums) {
    auto position = static_cast<std::size_t>(argnum < 0 ? argnum + static_cast<std::int64_t>(args.positional.size()) : argnum);
    if (position >= args.positional.size())
      raise(exc::TypeError(), "differentiating with respect to argnums=" + std::to_string(argnum) +
                                  " requires at least " + std::to_string(argnum + 1) +
                                  " positional arguments to be passed by the caller, but got only " +
                                  std::to_string(args.positional.size()) + " positional arguments.");
    lin->defs.emplace_back();
    lin->first_leaf.push_back(lin->primals.size());
    std::vector<Value> tracers;
    for (const auto& leaf : tree_flatten(evaluator, args.positional[position], lin->defs.back())) {
      if (leaf.as<RefObject>()) refuse_ref_argument(require_float);
      ArrayRef array = leaf.as<ArrayObject>() ? as_array(leaf) : to_array(evaluator, leaf);
      if (require_float && !typecheck::is_floating(array->aval.dtype))
        raise(exc::TypeError(), "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
                                "np.inexact), but got " + std::string(typecheck::long_name(array->aval.dtype)) +
                                    ". If you want to use Boolean- or integer-valued inputs, use vjp or set "
                                    "allow_int to True.");
      lin->primals.push_back(array);
      tracers.push_back(Value(lin->trace->add_input(array)));
    }
    args.positional[position] = tree_unflatten(evaluator, lin->defs.back(), tracers);
  }
  TraceScope scope(evaluator, *lin->trace);
  lin->returned = evaluator.call(function, args);
  return lin;
}

// Forward: the program replayed through the current trace (eagerly, the
// values the trace computed are taken, and charged as if run now).
void replay_forward(Evaluator& evaluator, Linearization& lin) {
  const Jaxpr& program = *lin.trace->program;
  const bool eager = lin.concrete && dynamic_cast<EagerTrace*>(&current_trace(evaluator));
  auto* target = dynamic_cast<JitTrace*>(&current_trace(evaluator));
  // Where each equation lands in the trace replayed into (custom regions move with them).
  std::vector<std::size_t> landed;
  for (std::size_t i = 0; i < program.inputs.size(); ++i) lin.values[program.inputs[i]] = lin.primals[i];
  for (const auto& [variable, constant] : program.constants) lin.values[variable] = constant;
  lin.active.insert(program.inputs.begin(), program.inputs.end());
  // Each equation bound again under the context mesh it was traced under.
  ContextMeshScope context(runtime_of(evaluator));
  for (const auto& e : program.equations) {
    context.enter(e);
    if (target) landed.push_back(target->program->equations.size());
    std::vector<ArrayRef> operands;
    bool depends = false;
    for (int input : e.inputs) {
      operands.push_back(lin.values.at(input));
      depends = depends || lin.active.count(input) > 0;
    }
    if (ArrayRef known = eager ? lin.trace->concrete_value(e.output) : nullptr) {
      charge_application(evaluator, *e.primitive, operands, known, e.params, true);
      lin.values[e.output] = known;
    } else {
      lin.values[e.output] = as_array(bind(evaluator, *e.primitive, std::move(operands), e.params));
    }
    if (depends) lin.active.insert(e.output);
  }
  if (target && target->differentiating) {
    landed.push_back(target->program->equations.size());
    carry_regions(lin, *target, landed);
  }
}

// Backward: the primals' cotangents from the outputs' (`cotangents`, by
// variable), in reverse; each in its primal's dtype, shape and layout,
// as the argument trees (one per differentiated argument).
namespace {

// `value` moved to `like`'s layout when `like` is committed. The layout, not
// the type: on an Auto mesh the types show no sharding.
ArrayRef placed_like(Evaluator& evaluator, const ArrayRef& value, const ArrayRef& like) {
  if (!like->committed || value->layout == like->layout) return value;
  Params params;
  params.set("layout", like->layout);
  return apply(evaluator, "device_put", {value}, std::move(params));
}

}  // namespace

ArrayRef zeros_placed_like(Evaluator& evaluator, const ArrayRef& like) {
  // Inside a shard_map body, zeros that vary as `like` does (a literal would
  // be invariant, and a custom_jvp rule's tangent summed over the axes).
  if (like->aval.manual.varying.size() > 0) return vjp::zeros_on(evaluator, like, like->aval.dtype);
  return placed_like(evaluator, zeros_like(evaluator, like->aval), like);
}

namespace {

ArrayRef zero_cotangent(Evaluator& evaluator, const ArrayRef& primal) {
  ArrayRef zeros = zeros_like(evaluator, primal->aval);
  // A reduced primal's cotangent is unreduced, a zero one too (as JAX's).
  const typecheck::AxisSet& reduced = primal->aval.sharding.reduced;
  if (reduced.empty()) return zeros;
  Params params;
  params.set("layout", primal->layout);
  params.set("requested", typecheck::ShardingArg{std::nullopt, typecheck::PartitionSpec::from_entries(primal->layout.dims, reduced)});
  return apply(evaluator, "device_put", {zeros}, std::move(params));
}

}  // namespace

void transpose_equation(Evaluator& evaluator, const Linearization& lin, const Equation& e,
                        const std::function<bool(int)>& needs_ct, std::map<int, ArrayRef>& cotangents) {
  auto found_ct = cotangents.find(e.output);
  if (found_ct == cotangents.end()) return;
  std::vector<ArrayRef> operands;
  std::vector<bool> needs;
  for (int input : e.inputs) {
    operands.push_back(lin.values.at(input));
    needs.push_back(needs_ct(input));
  }
  // The rule builds its cotangents under the equation's context mesh, as
  // JAX transposes a shard_map body inside a shard_map of the same mesh.
  ContextMeshScope context(runtime_of(evaluator), e);
  std::vector<ArrayRef> operand_cts =
      e.primitive->vjp({evaluator, operands, e.params, lin.values.at(e.output), found_ct->second, needs, *e.primitive});
  for (std::size_t i = 0; i < e.inputs.size() && i < operand_cts.size(); ++i) {
    if (!needs[i] || !operand_cts[i]) continue;
    ArrayRef ct = vjp::match_vma(evaluator, operands[i], operand_cts[i]);
    auto& slot = cotangents[e.inputs[i]];
    slot = slot ? add(evaluator, slot, ct) : ct;
  }
}

namespace {

// The loops of a backward pass. A forward loop that the walked equations lie
// in and that is not running now (the function was traced, loop and all,
// before its backward pass) runs backward as a loop of its own, as JAX
// transposes a scan into a scan: its frames stand on Runtime::loops while
// the walk transposes that loop's equations, one iteration per forward
// iteration, last first, so the cotangents recorded get places in it.
class TransposedLoops {
 public:
  explicit TransposedLoops(Runtime& runtime) : runtime_(runtime), running_(runtime.loops.size()) {}
  ~TransposedLoops() { runtime_.loops.resize(running_); }
  TransposedLoops(const TransposedLoops&) = delete;
  TransposedLoops& operator=(const TransposedLoops&) = delete;

  // The frames for the equation transposed next.
  void enter(const Equation& e) {
    std::vector<const LoopPlace*> places;
    for (const LoopPlace& place : e.loop_places)
      if (!running(place.instance)) places.push_back(&place);
    std::size_t depth = 0;
    for (; depth < places.size() && depth < forward_.size(); ++depth) {
      if (forward_[depth].instance != places[depth]->instance) break;
      if (forward_[depth].iteration == places[depth]->iteration) continue;
      // The forward loop's previous iteration: the transposed loop's next.
      keep(depth + 1);
      forward_[depth].iteration = places[depth]->iteration;
      Runtime::LoopFrame& frame = runtime_.loops[running_ + depth];
      ++frame.iteration;
      frame.iteration_start = runtime_.equations_recorded;
    }
    keep(depth);
    for (; depth < places.size(); ++depth) {
      forward_.push_back({places[depth]->instance, places[depth]->iteration});
      runtime_.loops.push_back({runtime_.loop_instances++, 0, runtime_.equations_recorded, places[depth]->instance});
    }
  }

 private:
  struct ForwardIteration {
    int instance;
    std::int64_t iteration;
  };
  // Running, or run backward by an enclosing walk (a checkpointed region's
  // own walk inside a transposed loop stays in that loop).
  bool running(int instance) const {
    for (std::size_t i = 0; i < running_; ++i)
      if (runtime_.loops[i].instance == instance || runtime_.loops[i].transposes == instance) return true;
    return false;
  }
  void keep(std::size_t depth) {
    forward_.resize(std::min(forward_.size(), depth));
    runtime_.loops.resize(running_ + forward_.size());
  }

  Runtime& runtime_;
  std::size_t running_;  // the loops running when the walk began
  std::vector<ForwardIteration> forward_;  // per transposed frame: the forward iteration it runs backward
};

}  // namespace

void walk_range(Evaluator& evaluator, const Linearization& lin, std::size_t begin, std::size_t end,
                const CustomRegion* skip, const std::function<bool(int)>& needs_ct, std::map<int, ArrayRef>& cotangents) {
  // The regions whose rules differentiate their equations, by their last
  // equation (the outermost where several end together).
  std::map<std::size_t, const CustomRegion*> region_ends;
  for (const auto& region : lin.trace->regions) {
    if (&region == skip || region.level != 0 || region.end <= region.begin || region.begin < begin || region.end > end)
      continue;
    auto& slot = region_ends[region.end - 1];
    if (!slot || region.begin < slot->begin) slot = &region;
  }
  const Jaxpr& program = *lin.trace->program;
  TransposedLoops loops(runtime_of(evaluator));
  for (std::size_t i = end; i-- > begin;) {
    loops.enter(program.equations[i]);
    if (auto found = region_ends.find(i); found != region_ends.end()) {
      transpose_region(evaluator, lin, *found->second, cotangents);
      i = found->second->begin;
      continue;
    }
    transpose_equation(evaluator, lin, program.equations[i], needs_ct, cotangents);
  }
}

std::vector<Value> backward(Evaluator& evaluator, const Linearization& lin, std::map<int, ArrayRef> cotangents,
                            bool integer_cotangents) {
  const Jaxpr& program = *lin.trace->program;
  auto active = [&](int variable) { return lin.active.count(variable) > 0; };
  walk_range(evaluator, lin, 0, program.equations.size(), nullptr, active, cotangents);
  std::vector<Value> gradients;
  for (std::size_t i = 0; i < lin.primals.size(); ++i) {
    const ArrayRef& primal = lin.primals[i];
    auto found = cotangents.find(program.inputs[i]);
    // No cotangent flows to an integer or boolean primal (JAX's float0): zeros of its dtype.
    const bool flows = found != cotangents.end() && (integer_cotangents || typecheck::is_floating(primal->aval.dtype));
    ArrayRef g = flows ? found->second : zero_cotangent(evaluator, primal);
    g = convert(evaluator, reshape(evaluator, g, primal->aval.shape), primal->aval.dtype);
    gradients.push_back(Value(placed_like(evaluator, g, primal)));
  }
  std::vector<Value> trees;
  for (std::size_t k = 0; k < lin.defs.size(); ++k) {
    std::size_t end = k + 1 < lin.defs.size() ? lin.first_leaf[k + 1] : gradients.size();
    trees.push_back(tree_unflatten(evaluator, lin.defs[k],
                                   std::span<const Value>(gradients).subspan(lin.first_leaf[k], end - lin.first_leaf[k])));
  }
  return trees;
}

// (output, aux) of a has_aux function's result.
std::pair<Value, Value> split_aux(const Value& returned, bool has_aux) {
  if (!has_aux) return {returned, Value()};
  auto* pair = returned.as<TupleObject>();
  if (!pair || pair->items.size() != 2)
    raise(exc::ValueError(), "has_aux=True requires the function to return a pair (output, auxiliary data)");
  return {pair->items[0], pair->items[1]};
}

// The forward values of `tree`'s array leaves (others as they are).
Value forward_tree(Evaluator& evaluator, Linearization& lin, const Value& tree) {
  return tree_map(evaluator, tree, [&](const Value& leaf) {
    if (!leaf.as<ArrayObject>()) return leaf;
    return Value(lin.values.at(lin.trace->variable_of(as_array(leaf))));
  });
}

}  // namespace interp
