// lax control flow and dynamic slicing (control_flow.hpp).
#include "interp/transforms/control_flow.hpp"

#include <algorithm>
#include <functional>

#include "interp/library/sharding_module.hpp"
#include "interp/library/tree_module.hpp"
#include "interp/python/builtins.hpp"
#include "interp/ops/collectives.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/transforms/jaxpr.hpp"
#include "interp/transforms/trace.hpp"
#include "typecheck/control_flow_rules.hpp"
#include "typecheck/python_repr.hpp"

namespace interp {

namespace {

// The leaves of a carry as arrays, with their key paths.
std::vector<typecheck::CarryLeaf> leaves_of(Evaluator& evaluator, const Value& tree) {
  TreeDef def;
  std::vector<Value> leaves = tree_flatten(evaluator, tree, def);
  std::vector<std::string> paths = def.leaf_paths(evaluator);
  std::vector<typecheck::CarryLeaf> out;
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    out.push_back({paths[k], to_array(evaluator, leaves[k])->aval});
    // A Python scalar (or NumPy array) is typed on the context mesh, as JAX
    // abstracts it: `(0, 0.0)` carries what a body on a `jax.set_mesh` mesh returns.
    typecheck::ArrayType& type = out.back().type;
    if (!leaves[k].as<ArrayObject>())
      type.sharding = typecheck::Sharding::replicated(context_abstract_mesh(evaluator), type.shape.size());
  }
  return out;
}

// JAX's _promote_weak_typed_inputs: a weakly typed initial carry leaf (a
// Python scalar, say) whose type the body's output carry does not match
// becomes the result type of both, so `fori_loop(0, n, f, 0)` with a float
// body carries float32. The body's output types come from tracing it once
// (nothing runs); a body that cannot be traced keeps the carry as given.
Value promote_weak_carry(Evaluator& evaluator, const Value& init,
                         const std::function<Value(Evaluator&, const Value&)>& body) {
  auto input = leaves_of(evaluator, init);
  if (std::none_of(input.begin(), input.end(), [](const typecheck::CarryLeaf& leaf) { return leaf.type.weak_type; }))
    return init;
  std::vector<typecheck::CarryLeaf> output;
  try {
    JitTrace trace;
    Value traced = tree_map(evaluator, init, [&](const Value& leaf) { return Value(trace.add_input(*to_array(evaluator, leaf))); });
    TraceScope scope(evaluator, trace);
    output = leaves_of(evaluator, body(evaluator, traced));
  } catch (PyError&) {
    return init;
  }
  if (output.size() != input.size()) return init;
  std::size_t i = 0;
  return tree_map(evaluator, init, [&](const Value& leaf) {
    const auto& in = input[i].type;
    const auto& out = output[i++].type;
    // JAX's typematch ignores the weak flag: only a dtype change promotes.
    if (!in.weak_type || in.dtype == out.dtype) return leaf;
    auto promoted = typecheck::result_type(typecheck::ElementType{in.dtype, true}, typecheck::ElementType{out.dtype, out.weak_type});
    Params params;
    params.set("new_dtype", std::string(typecheck::long_name(promoted.dtype)));
    return bind(evaluator, primitive("convert_element_type"), {to_array(evaluator, leaf)}, std::move(params));
  });
}

// The body's output carry against its input carry.
void check_carry(std::string_view body, std::string_view carry_name, const std::vector<typecheck::CarryLeaf>& input,
                 Evaluator& evaluator, const Value& output) {
  auto produced = leaves_of(evaluator, output);
  if (produced.size() != input.size())
    raise(exc::TypeError(), std::string(body) + " function carry input and carry output must have the same pytree "
                                                "structure, but they have " + std::to_string(input.size()) + " and " +
                                std::to_string(produced.size()) + " leaves");
  if (auto error = typecheck::check_carry_types(body, carry_name, input, produced)) raise_error(*error);
}

// A concrete integer: a Python int or an array with data.
std::int64_t concrete_int(Evaluator& evaluator, const Value& value, std::string_view what) {
  if (value.is_integral()) return value.as_int();
  if (auto* array = value.as<ArrayObject>()) {
    if (array->abstract())
      raise(exc::NotImplementedError(), std::string(what) + " must be concrete in shardlang (a traced value was given)");
    return static_cast<std::int64_t>(element_values(evaluator, *array).at(0));
  }
  return evaluator.index_of(value);
}

// The predicate's value; nullopt in check mode, where arrays have no data
// (the caller then follows one path to type it).
std::optional<bool> concrete_predicate(Evaluator& evaluator, const Value& value, std::string_view what) {
  if (auto* array = value.as<ArrayObject>()) {
    if (array->abstract() && evaluator.mode == Evaluator::Mode::check) return std::nullopt;
    if (array->abstract())
      raise(exc::NotImplementedError(), std::string(what) + " needs a concrete predicate in shardlang (a traced value was given)");
    return element_values(evaluator, *array).at(0) != 0;
  }
  return evaluator.truthy(value);
}

// The value eager grad's trace computed for a traced array; null when none.
ArrayRef known_value(Evaluator& evaluator, const Value& value) {
  auto* array = value.as<ArrayObject>();
  auto* trace = dynamic_cast<JitTrace*>(&current_trace(evaluator));
  return array && array->abstract() && trace ? trace->concrete_value(*array) : nullptr;
}

// A predicate traced by jit or grad: its value is not known while tracing.
bool traced_predicate(Evaluator& evaluator, const Value& value) {
  auto* array = value.as<ArrayObject>();
  return array && array->abstract() && evaluator.mode != Evaluator::Mode::check && tracing_jit(evaluator);
}

// The branch outputs chosen leaf by leaf by a traced predicate: both
// branches were traced, and select_n picks (what JAX does with a cond
// under vmap; under jit and grad it computes the same values and gradients).
Value select_tree(Evaluator& evaluator, const ArrayRef& predicate, const Value& on_true, const Value& on_false) {
  const Value branches[] = {on_true, on_false};
  std::vector<std::vector<Value>> columns;
  std::optional<TreeDef> def = tree_zip(evaluator, branches, columns);
  if (!def) raise(exc::TypeError(), "true_fun and false_fun output must have identical types");
  std::vector<Value> selected;
  for (const auto& leaves : columns)
    selected.push_back(
        bind(evaluator, primitive("select_n"), {predicate, to_array(evaluator, leaves[1]), to_array(evaluator, leaves[0])}));
  return tree_unflatten(evaluator, *def, selected);
}

// cond's predicate as a boolean scalar (JAX: a scalar bool or integer,
// nonzero meaning true).
ArrayRef boolean_predicate(Evaluator& evaluator, const ArrayRef& predicate) {
  if (!predicate->aval.shape.empty()) {
    std::string shape = "(";
    for (auto size : predicate->aval.shape) shape += std::to_string(size) + ", ";
    shape = predicate->aval.shape.size() == 1 ? shape.substr(0, shape.size() - 1) + ")" : shape.substr(0, shape.size() - 2) + ")";
    raise(exc::TypeError(), "Pred must be a scalar, got " + evaluator.repr(Value(predicate)) + " of shape " + shape + ".");
  }
  if (predicate->aval.dtype == typecheck::DType::bool_) return predicate;
  if (!typecheck::is_integer(predicate->aval.dtype))
    raise(exc::TypeError(),
          "Pred type must be either boolean or number, got " + std::string(typecheck::long_name(predicate->aval.dtype)) + ".");
  ArrayRef zero = to_array(evaluator, Value::integer(0), predicate->aval.dtype);
  return to_array(evaluator, bind(evaluator, primitive("not_equal"), {predicate, zero}));
}

// lax.switch: branches[clamp(index, 0, len - 1)](*operands). Every branch
// is traced and their outputs must match (as cond's); a traced index picks
// with select_n, branch k where index <= k, the last otherwise.
Value lax_switch(Evaluator& evaluator, const Value& index_value, const std::vector<Value>& branches,
                 const std::optional<Value>& operand, std::vector<Value> operands) {
  for (const auto& branch : branches)
    if (!branch.is_object() || !branch.object()->callable()) raise(exc::TypeError(), "lax.switch: branches argument should be a sequence of callables.");
  if (operand) {
    if (!operands.empty())
      raise(exc::TypeError(), "if 'operand' keyword is passed then no positional operands can be passed, got operand=" +
                                  evaluator.repr(*operand) + " and positional operands " +
                                  evaluator.repr(make_tuple(operands)));
    operands = {*operand};
  }
  ArrayRef known = known_value(evaluator, index_value);
  ArrayRef index = to_array(evaluator, known ? Value(known) : index_value);
  if (!index->aval.shape.empty())
    raise(exc::TypeError(), "Branch index must be scalar, got " + evaluator.str(index_value) + " of shape " +
                                typecheck::python_shape_repr(index->aval.shape) + ".");
  if (!typecheck::is_integer(index->aval.dtype))
    raise(exc::TypeError(), "Index type must be an integer, got " + evaluator.str(index_value) + " as " +
                                std::string(typecheck::long_name(index->aval.dtype)));
  if (branches.empty()) raise(exc::ValueError(), "Empty branch sequence");
  if (branches.size() == 1) return evaluator.call(branches[0], operands);
  std::vector<Value> outputs;
  std::vector<typecheck::BranchOutputs> typed;
  for (const auto& branch : branches) {
    outputs.push_back(evaluator.call(branch, operands));
    typed.push_back({"", qualified_name(branch), leaves_of(evaluator, outputs.back())});
  }
  if (auto error = typecheck::check_switch_outputs(typed)) raise_error(*error);
  auto last = static_cast<std::int64_t>(branches.size()) - 1;
  if (!known && traced_predicate(evaluator, index_value)) {
    index = astype(evaluator, index, typecheck::DType::int32);
    Value chosen = outputs.back();
    for (std::int64_t k = last - 1; k >= 0; --k) {
      ArrayRef bound = to_array(evaluator, Value::integer(k), typecheck::DType::int32);
      chosen = select_tree(evaluator, to_array(evaluator, bind(evaluator, primitive("less_equal"), {index, bound})),
                           outputs[static_cast<std::size_t>(k)], chosen);
    }
    return chosen;
  }
  // Check mode follows branch 0 when the index is not known (the types agree).
  std::int64_t chosen = 0;
  if (!index->abstract()) chosen = std::clamp<std::int64_t>(static_cast<std::int64_t>(element_values(evaluator, *index).at(0)), 0, last);
  return outputs[static_cast<std::size_t>(chosen)];
}

ArrayRef index_array(Evaluator& evaluator, const Value& value) {
  return to_array(evaluator, value, value.is_integral() ? std::optional(typecheck::DType::int32) : std::nullopt);
}

Value dynamic_slice(Evaluator& evaluator, const Value& operand, const std::vector<Value>& starts,
                    const std::vector<std::int64_t>& sizes) {
  ArrayRef x = to_array(evaluator, operand);
  if (starts.size() != x->aval.ndim() || sizes.size() != x->aval.ndim())
    raise(exc::TypeError(), "dynamic_slice needs one start index and one size per dimension of the operand");
  std::vector<ArrayRef> operands{x};
  for (const auto& s : starts) operands.push_back(index_array(evaluator, s));
  Params params;
  params.set("slice_sizes", sizes);
  return bind(evaluator, primitive("dynamic_slice"), std::move(operands), std::move(params));
}

Value dynamic_update_slice(Evaluator& evaluator, const Value& operand, const Value& update, const std::vector<Value>& starts) {
  ArrayRef x = to_array(evaluator, operand);
  if (starts.size() != x->aval.ndim())
    raise(exc::TypeError(), "dynamic_update_slice needs one start index per dimension of the operand");
  std::vector<ArrayRef> operands{x, to_array(evaluator, update)};
  for (const auto& s : starts) operands.push_back(index_array(evaluator, s));
  return bind(evaluator, primitive("dynamic_update_slice"), std::move(operands));
}

// Start indices for `axis` only (the others 0).
std::vector<Value> starts_in_dim(std::size_t rank, std::int64_t axis, const Value& start) {
  std::vector<Value> starts(rank, Value::integer(0));
  starts.at(static_cast<std::size_t>(axis)) = start;
  return starts;
}

std::int64_t normalized_axis(Evaluator& evaluator, const Value& axis, std::size_t rank) {
  std::int64_t a = evaluator.index_of(axis);
  if (a < 0) a += static_cast<std::int64_t>(rank);
  if (a < 0 || a >= static_cast<std::int64_t>(rank))
    raise(exc::ValueError(), "axis " + std::to_string(evaluator.index_of(axis)) + " is out of bounds for an array of rank " +
                                 std::to_string(rank));
  return a;
}

// Row `i` of every array leaf of `tree` (scan's xs).
Value row_of(Evaluator& evaluator, const Value& tree, std::int64_t i) {
  return tree_map(evaluator, tree, [&](const Value& leaf) {
    ArrayRef x = to_array(evaluator, leaf);
    std::vector<typecheck::IndexItem> items{typecheck::IndexItem::integer(i)};
    return index_static(evaluator, x, items, checked(typecheck::static_index_rule(x->aval, items)));
  });
}

// The leading dimension of scan's xs.
std::optional<std::int64_t> leading_size(Evaluator& evaluator, const Value& tree) {
  std::vector<typecheck::CarryLeaf> leaves = leaves_of(evaluator, tree);
  std::vector<typecheck::ArrayType> types;
  for (const auto& leaf : leaves) types.push_back(leaf.type);
  if (auto error = typecheck::check_scan_xs(types)) raise_error(*error);
  if (leaves.empty()) return std::nullopt;
  if (leaves[0].type.shape.empty()) raise(exc::ValueError(), "scan got a scalar in xs: every xs leaf needs a leading axis");
  return leaves[0].type.shape[0];
}

// The per-iteration outputs stacked on a new leading axis, leaf by leaf.
Value stacked(Evaluator& evaluator, const std::vector<Value>& rows) {
  std::vector<std::vector<Value>> columns;
  std::optional<TreeDef> def = tree_zip(evaluator, rows, columns);
  if (!def) raise(exc::TypeError(), "scan body function ys outputs must have the same pytree structure at every step");
  // jnp.stack keeps each row's sharding on the dimensions after the new one
  // (JAX's scan gives ys of sharded rows the same sharding).
  const Value& stack = *evaluator.module("jax.numpy")->find("stack");
  std::vector<Value> leaves;
  for (auto& column : columns) leaves.push_back(evaluator.call(stack, {make_list(std::move(column))}));
  return tree_unflatten(evaluator, *def, leaves);
}

std::vector<std::int64_t> int_list(Evaluator& evaluator, const Value& value) {
  std::vector<std::int64_t> out;
  for (const auto& v : evaluator.to_vector(value)) out.push_back(evaluator.index_of(v));
  return out;
}

}  // namespace

namespace {

// lax.map: f over the leading axis of xs by a scan; with batch_size, the scan
// runs over batches of that many (f vmapped over each) and the remainder is
// one more vmapped call, as JAX's map does.
Value lax_map(Evaluator& ev, const Value& f, const Value& xs, const Value& batch_size) {
  Value scan = *ev.module("jax.lax")->find("scan");
  Value vmap = *ev.module("jax")->find("vmap");
  auto mapped_over = [&](const Value& g, const Value& values) {
    Value body(native("body(carry, x)", [g](Evaluator& inner, Arguments& b) {
      return make_tuple({b[0], inner.call(g, std::vector<Value>{b[1]})});
    }));
    return ev.to_vector(ev.call(scan, std::vector<Value>{body, Value(), values}))[1];
  };
  if (batch_size.is_none()) return mapped_over(f, xs);
  std::int64_t size = ev.index_of(batch_size);
  TreeDef def;
  std::vector<Value> leaves = tree_flatten(ev, xs, def);
  if (leaves.empty() || size <= 0) return mapped_over(f, xs);
  std::int64_t length = to_array(ev, leaves[0])->aval.shape.at(0), batches = length / size, whole = batches * size;
  Value batched_f = ev.call(vmap, std::vector<Value>{f});
  auto slice_leaves = [&](std::int64_t start, std::int64_t stop, bool in_batches) {
    return tree_map(ev, xs, [&](const Value& leaf) {
      ArrayRef x = to_array(ev, leaf);
      Value part = ev.get_item(Value(x), Value(std::make_shared<SliceObject>(Value::integer(start), Value::integer(stop), Value())));
      if (!in_batches) return part;
      std::vector<std::int64_t> shape{batches, size};
      shape.insert(shape.end(), x->aval.shape.begin() + 1, x->aval.shape.end());
      return apply_reshape(ev, part, shape);
    });
  };
  Value ys = tree_map(ev, mapped_over(batched_f, slice_leaves(0, whole, true)), [&](const Value& leaf) {
    ArrayRef y = to_array(ev, leaf);
    std::vector<std::int64_t> shape{whole};
    shape.insert(shape.end(), y->aval.shape.begin() + 2, y->aval.shape.end());
    return apply_reshape(ev, leaf, shape);
  });
  if (whole == length) return ys;
  Value rest = ev.call(batched_f, std::vector<Value>{slice_leaves(whole, length, false)});
  TreeDef ys_def;
  std::vector<Value> done = tree_flatten(ev, ys, ys_def), more = tree_flatten(ev, rest, def);
  Value concatenate = *ev.module("jax.numpy")->find("concatenate");
  for (std::size_t i = 0; i < done.size(); ++i)
    done[i] = ev.call(concatenate, std::vector<Value>{make_list({done[i], more.at(i)})});
  return tree_unflatten(ev, ys_def, done);
}

}  // namespace

void install_control_flow(Evaluator& evaluator) {
  auto lax = evaluator.module("jax.lax");
  lax->add_function("fori_loop(lower, upper, body_fun, init_val, *, unroll=None)", [](Evaluator& ev, Arguments& a) {
    std::int64_t lower = concrete_int(ev, a[0], "fori_loop's lower bound");
    std::int64_t upper = concrete_int(ev, a[1], "fori_loop's upper bound");
    Value carry = a[3];
    if (lower < upper)
      carry = promote_weak_carry(ev, carry, [&](Evaluator& e, const Value& c) {
        return e.call(a[2], {Value(to_array(e, Value::integer(lower), typecheck::DType::int32)), c});
      });
    auto input = leaves_of(ev, carry);
    LoopIterations iterations(runtime_of(ev));
    for (std::int64_t i = lower; i < upper; ++i) {
      iterations.begin();
      carry = ev.call(a[2], {Value(to_array(ev, Value::integer(i), typecheck::DType::int32)), carry});
      check_carry("scan body", "loop_carry", input, ev, carry);
    }
    return carry;
  });
  lax->add_function("while_loop(cond_fun, body_fun, init_val)", [](Evaluator& ev, Arguments& a) {
    Value carry = promote_weak_carry(ev, a[2], [&](Evaluator& e, const Value& c) { return e.call(a[1], {c}); });
    auto input = leaves_of(ev, carry);
    LoopIterations iterations(runtime_of(ev));
    for (;;) {
      iterations.begin();
      auto go_on = concrete_predicate(ev, ev.call(a[0], {carry}), "while_loop");
      if (go_on && !*go_on) break;
      carry = ev.call(a[1], {carry});
      check_carry("while_loop body", "carry", input, ev, carry);
      if (!go_on) break;  // check mode: one iteration types the body
    }
    return carry;
  });
  lax->add_function("scan(f, init, xs=None, length=None, reverse=False, unroll=1)", [](Evaluator& ev, Arguments& a) {
    Value carry = a[1];
    auto input = leaves_of(ev, carry);
    std::optional<std::int64_t> length = leading_size(ev, a[2]);
    if (!a[3].is_none()) {
      std::int64_t given = ev.index_of(a[3]);
      if (length && *length != given)
        raise(exc::ValueError(), "scan got `length` argument of " + std::to_string(given) +
                                     " which disagrees with leading axis sizes " + std::to_string(*length));
      length = given;
    }
    if (!length) raise(exc::ValueError(), "scan got no values to scan over and `length` not provided.");
    bool reverse = ev.truthy(a[4]);
    if (*length > 0) {
      Value first_row = row_of(ev, a[2], reverse ? *length - 1 : 0);
      carry = promote_weak_carry(ev, carry, [&](Evaluator& e, const Value& c) {
        Value out = e.call(a[0], {c, first_row});
        auto* pair = out.as<TupleObject>();
        return pair && pair->items.size() == 2 ? pair->items[0] : Value();
      });
      input = leaves_of(ev, carry);
    }
    std::vector<Value> ys(static_cast<std::size_t>(*length));
    LoopIterations iterations(runtime_of(ev));
    for (std::int64_t step = 0; step < *length; ++step) {
      iterations.begin();
      std::int64_t i = reverse ? *length - 1 - step : step;
      Value out = ev.call(a[0], {carry, row_of(ev, a[2], i)});
      auto pair = out.as<TupleObject>();
      if (!pair || pair->items.size() != 2)
        raise(exc::TypeError(), "scan body output must be a pair (carry, y)");
      carry = pair->items[0];
      check_carry("scan body", "carry", input, ev, carry);
      ys[static_cast<std::size_t>(i)] = pair->items[1];
    }
    if (ys.empty()) return make_tuple({carry, Value()});
    return make_tuple({carry, stacked(ev, ys)});
  });
  lax->add_function("cond(pred, true_fun, false_fun, *operands)", [](Evaluator& ev, Arguments& a) {
    // Eager grad knows the predicate's value: JAX's eager grad takes that
    // branch alone, so the other one's gradient (NaN, say) does not leak in.
    ArrayRef known = known_value(ev, a[0]);
    bool traced = !known && traced_predicate(ev, a[0]);
    bool predicate = traced || concrete_predicate(ev, known ? Value(known) : a[0], "cond").value_or(true);
    std::vector<Value> operands = a[3].as<TupleObject>()->items;
    // Both branches are traced (as JAX does) and must agree on their types.
    Value on_true = ev.call(a[1], operands), on_false = ev.call(a[2], operands);
    typecheck::BranchOutputs first{"true_fun", qualified_name(a[1]), leaves_of(ev, on_true)};
    typecheck::BranchOutputs second{"false_fun", qualified_name(a[2]), leaves_of(ev, on_false)};
    if (first.outputs.size() != second.outputs.size())
      raise(exc::TypeError(), "true_fun and false_fun output must have identical types");
    if (auto error = typecheck::check_branch_outputs("cond", first, second)) raise_error(*error);
    if (traced) return select_tree(ev, boolean_predicate(ev, to_array(ev, a[0])), on_true, on_false);
    return predicate ? on_true : on_false;
  });
  lax->add_function("switch(index, branches, *operands, operand=?)", [](Evaluator& ev, Arguments& a) {
    return lax_switch(ev, a[0], ev.to_vector(a[1]), a.has(3) ? std::optional(a[3]) : std::nullopt,
                      a[2].as<TupleObject>()->items);
  });
  lax->add_function("dynamic_slice(operand, start_indices, slice_sizes)", [](Evaluator& ev, Arguments& a) {
    return dynamic_slice(ev, a[0], ev.to_vector(a[1]), int_list(ev, a[2]));
  });
  lax->add_function("dynamic_slice_in_dim(operand, start_index, slice_size, axis=0)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    std::int64_t axis = normalized_axis(ev, a[3], x->aval.ndim());
    std::vector<std::int64_t> sizes(x->aval.shape.begin(), x->aval.shape.end());
    sizes[static_cast<std::size_t>(axis)] = ev.index_of(a[2]);
    return dynamic_slice(ev, Value(x), starts_in_dim(x->aval.ndim(), axis, a[1]), sizes);
  });
  lax->add_function("dynamic_update_slice(operand, update, start_indices)", [](Evaluator& ev, Arguments& a) {
    return dynamic_update_slice(ev, a[0], a[1], ev.to_vector(a[2]));
  });
  lax->add_function("dynamic_update_slice_in_dim(operand, update, start_index, axis)", [](Evaluator& ev, Arguments& a) {
    ArrayRef x = to_array(ev, a[0]);
    std::int64_t axis = normalized_axis(ev, a[3], x->aval.ndim());
    return dynamic_update_slice(ev, Value(x), a[1], starts_in_dim(x->aval.ndim(), axis, a[2]));
  });
  lax->add_function("map(f, xs, *, batch_size=None)", [](Evaluator& ev, Arguments& a) { return lax_map(ev, a[0], a[1], a[2]); });
}

}  // namespace interp
