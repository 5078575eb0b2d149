// jax.jvp, jax.linearize, jax.jacfwd, jax.jacrev, jax.hessian (forward_mode.hpp).
#include "interp/transforms/forward_mode.hpp"

#include "interp/ops/vjp_support.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/custom_derivatives.hpp"
#include "interp/transforms/reverse_mode.hpp"
#include "interp/transforms/wrapping_function.hpp"

namespace interp {

namespace {

ArrayRef leaf_array(Evaluator& evaluator, const Value& leaf) {
  return leaf.as<ArrayObject>() ? std::static_pointer_cast<ArrayObject>(leaf.object()) : to_array(evaluator, leaf);
}

// A function linearized at its primals: the forward values, and the
// pullback traced as a function of the output cotangents, whose backward
// walk maps input tangents to output tangents.
struct ForwardMap {
  std::shared_ptr<Linearization> primal;
  std::shared_ptr<Linearization> pullback;
  TreeDef out_def;
  std::vector<Value> out_values;
  std::vector<int> pull_outputs;  // per primal leaf: its cotangent's variable in pullback's program, or -1
  Value aux;
};

std::vector<std::int64_t> all_argnums(std::size_t count) {
  std::vector<std::int64_t> argnums;
  for (std::size_t i = 0; i < count; ++i) argnums.push_back(static_cast<std::int64_t>(i));
  return argnums;
}

std::shared_ptr<ForwardMap> linearize_at(Evaluator& evaluator, const Value& function, const std::vector<Value>& primals,
                                         bool has_aux) {
  auto map = std::make_shared<ForwardMap>();
  map->primal = trace_at(evaluator, function, CallArgs{primals, {}}, all_argnums(primals.size()), false);
  Linearization& lin = *map->primal;
  refuse_forward_mode_through_custom_vjp(*lin.trace);
  auto [out, aux] = split_aux(lin.returned, has_aux);
  std::vector<Value> out_leaves = tree_flatten(evaluator, out, map->out_def);
  std::vector<int> out_variables;
  for (auto& leaf : out_leaves) {
    if (!is_array_like(leaf))
      raise(exc::TypeError(), "jvp: the function returned " + evaluator.repr(leaf) + ", which is not a valid JAX type");
    out_variables.push_back(lin.trace->variable_of(leaf_array(evaluator, leaf)));
  }
  TreeDef aux_def;
  for (const auto& leaf : tree_flatten(evaluator, aux, aux_def))
    if (leaf.as<ArrayObject>()) lin.trace->variable_of(leaf_array(evaluator, leaf));
  replay_forward(evaluator, lin);
  for (int variable : out_variables) map->out_values.push_back(Value(lin.values.at(variable)));
  if (has_aux) map->aux = forward_tree(evaluator, lin, aux);

  // The pullback, as a function of the output cotangents (one per output leaf).
  auto primal = map->primal;
  Value pull(native("pullback(*cotangents)", [primal, out_variables](Evaluator& ev, Arguments& a) {
    const auto& cts = a[0].as<TupleObject>()->items;
    std::map<int, ArrayRef> cotangents;
    for (std::size_t k = 0; k < cts.size(); ++k) {
      if (!primal->active.count(out_variables[k])) continue;
      ArrayRef ct = leaf_array(ev, cts[k]);
      auto& slot = cotangents[out_variables[k]];
      slot = slot ? vjp::add(ev, slot, ct) : ct;
    }
    std::vector<Value> leaves;
    for (const Value& tree : backward(ev, *primal, std::move(cotangents))) {
      TreeDef def;
      for (auto& leaf : tree_flatten(ev, tree, def)) leaves.push_back(leaf);
    }
    return make_tuple(std::move(leaves));
  }));
  std::vector<Value> zeros;
  for (const auto& value : map->out_values) {
    ArrayRef out_array = leaf_array(evaluator, value);
    zeros.push_back(Value(zeros_placed_like(evaluator, out_array)));
  }
  map->pullback = trace_at(evaluator, pull, CallArgs{zeros, {}}, all_argnums(zeros.size()), false);
  for (const auto& leaf : map->pullback->returned.as<TupleObject>()->items)
    map->pull_outputs.push_back(leaf.as<ArrayObject>() ? map->pullback->trace->variable_of(leaf_array(evaluator, leaf)) : -1);
  replay_forward(evaluator, *map->pullback);
  return map;
}

// The output tangents (as the output tree) of the input tangents' leaves.
Value push_forward(Evaluator& evaluator, const ForwardMap& map, const std::vector<Value>& tangent_leaves) {
  std::map<int, ArrayRef> cotangents;
  for (std::size_t k = 0; k < tangent_leaves.size() && k < map.pull_outputs.size(); ++k) {
    int variable = map.pull_outputs[k];
    if (variable < 0 || !map.pullback->active.count(variable)) continue;
    const typecheck::ArrayType& type = map.pullback->trace->program->variable_types.at(static_cast<std::size_t>(variable));
    if (!typecheck::is_floating(type.dtype)) continue;
    ArrayRef tangent = vjp::convert(evaluator, leaf_array(evaluator, tangent_leaves[k]), type.dtype);
    auto& slot = cotangents[variable];
    slot = slot ? vjp::add(evaluator, slot, tangent) : tangent;
  }
  std::vector<Value> out = backward(evaluator, *map.pullback, std::move(cotangents));
  return tree_unflatten(evaluator, map.out_def, out);
}

std::string dtype_name(const ArrayRef& array) { return std::string(typecheck::long_name(array->aval.dtype)); }

std::string shape_text(const typecheck::Shape& shape) {
  std::string text = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) text += std::to_string(shape[d]) + (shape.size() == 1 ? "," : d + 1 < shape.size() ? ", " : "");
  return text + ")";
}

// JAX's checks of jvp's tangents against the primals.
std::vector<Value> checked_tangents(Evaluator& evaluator, const Value& primals, const Value& tangents) {
  TreeDef primal_def, tangent_def;
  std::vector<Value> primal_leaves = tree_flatten(evaluator, primals, primal_def);
  std::vector<Value> tangent_leaves = tree_flatten(evaluator, tangents, tangent_def);
  if (!(primal_def == tangent_def))
    raise(exc::TypeError(), "primal and tangent arguments to jax.jvp must have the same tree structure; primals have "
                            "tree structure PyTreeDef(" + primal_def.str(evaluator) + ") whereas tangents have tree "
                            "structure PyTreeDef(" + tangent_def.str(evaluator) + ").");
  for (std::size_t k = 0; k < primal_leaves.size(); ++k) {
    if (!is_array_like(primal_leaves[k])) continue;
    ArrayRef p = leaf_array(evaluator, primal_leaves[k]);
    ArrayRef t = leaf_array(evaluator, tangent_leaves[k]);
    if (typecheck::is_floating(p->aval.dtype) && p->aval.dtype != t->aval.dtype)
      raise(exc::TypeError(), "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in case "
                              "of int/bool primal dtype the tangent dtype must be float0.Got primal dtype " +
                                  dtype_name(p) + " and so expected tangent dtype " + dtype_name(p) +
                                  ", but got tangent dtype " + dtype_name(t) + " instead.");
    if (p->aval.shape != t->aval.shape)
      raise(exc::ValueError(), "jvp called with different primal and tangent shapes;Got primal shape " +
                                   shape_text(p->aval.shape) + " and tangent shape as " + shape_text(t->aval.shape));
  }
  return tangent_leaves;
}

Value jvp(Evaluator& evaluator, const Value& function, const Value& primals, const Value& tangents, bool has_aux) {
  auto* primal_seq = primals.as<TupleObject>() ? nullptr : primals.as<ListObject>();
  bool primal_ok = primals.as<TupleObject>() || primal_seq;
  bool tangent_ok = tangents.as<TupleObject>() || tangents.as<ListObject>();
  if (!primal_ok || !tangent_ok)
    raise(exc::TypeError(), "primal and tangent arguments to jax.jvp must be tuples or lists; found " +
                                type_name(primals) + " and " + type_name(tangents) + ".");
  std::vector<Value> tangent_leaves = checked_tangents(evaluator, primals, tangents);
  auto map = linearize_at(evaluator, function, evaluator.to_vector(primals), has_aux);
  Value primals_out = tree_unflatten(evaluator, map->out_def, map->out_values);
  Value tangents_out = push_forward(evaluator, *map, tangent_leaves);
  if (!has_aux) return make_tuple({primals_out, tangents_out});
  return make_tuple({primals_out, tangents_out, map->aux});
}

Value linearize(Evaluator& evaluator, const Value& function, const std::vector<Value>& primals, bool has_aux) {
  auto map = linearize_at(evaluator, function, primals, has_aux);
  Value primals_tree = make_tuple(primals);
  Value f_jvp(native("f_jvp(*tangents)", [map, primals_tree](Evaluator& ev, Arguments& a) {
    return push_forward(ev, *map, checked_tangents(ev, primals_tree, a[0]));
  }));
  Value primals_out = tree_unflatten(evaluator, map->out_def, map->out_values);
  if (!has_aux) return make_tuple({primals_out, f_jvp});
  return make_tuple({primals_out, f_jvp, map->aux});
}

void install_jvp(ModuleObject& jax) {
  jax.add_function("jvp(fun, primals, tangents, has_aux=False)", [](Evaluator& ev, Arguments& a) {
    return jvp(ev, a[0], a[1], a[2], ev.truthy(a[3]));
  });
  jax.add_function("linearize(fun, *primals, has_aux=False)", [](Evaluator& ev, Arguments& a) {
    return linearize(ev, a[0], a[1].as<TupleObject>()->items, ev.truthy(a[2]));
  });
}

// ------------------------------------------------------------ jacobians

struct JacobianOptions {
  Value function;
  std::vector<std::int64_t> argnums;
  bool single = true;  // argnums was an int: the Jacobian has the argument's structure, not a tuple's
  bool has_aux = false;
  bool forward = true;  // jacfwd; false: jacrev
  bool allow_int = false;
};

Value jax_member(Evaluator& evaluator, const std::string& module, const std::string& name) {
  return *evaluator.module(module)->find(name);
}

// The standard basis of `leaves` (JAX's _std_basis): one leaf per leaf of
// shape (N, *leaf.shape), N the leaves' total size, together an identity.
std::vector<Value> std_basis(Evaluator& evaluator, const std::vector<ArrayRef>& leaves) {
  std::int64_t total = 0;
  for (const auto& leaf : leaves) total += devices::element_count(leaf->aval.shape);
  CallArgs eye_args{{Value::integer(total)}, {}};
  ArrayRef eye = leaf_array(evaluator, evaluator.call(jax_member(evaluator, "jax.numpy", "eye"), eye_args));
  std::vector<Value> basis;
  std::int64_t offset = 0;
  for (const auto& leaf : leaves) {
    std::int64_t size = devices::element_count(leaf->aval.shape);
    ArrayRef part = vjp::window_slice(evaluator, eye, {0, offset}, {total, offset + size});
    typecheck::Shape shape{total};
    shape.insert(shape.end(), leaf->aval.shape.begin(), leaf->aval.shape.end());
    basis.push_back(Value(vjp::convert(evaluator, vjp::reshape(evaluator, part, shape), leaf->aval.dtype)));
    offset += size;
  }
  return basis;
}

std::vector<ArrayRef> array_leaves(Evaluator& evaluator, const Value& tree, TreeDef& def) {
  std::vector<ArrayRef> arrays;
  for (const auto& leaf : tree_flatten(evaluator, tree, def)) arrays.push_back(leaf_array(evaluator, leaf));
  return arrays;
}

// One block of a Jacobian: `jac`'s `axis` cut to [offset, offset + size)
// and reshaped to `shape`.
Value jacobian_block(Evaluator& evaluator, const ArrayRef& jac, std::size_t axis, std::int64_t offset, std::int64_t size,
                     const typecheck::Shape& shape) {
  std::vector<std::int64_t> start(jac->aval.ndim(), 0), limit(jac->aval.shape.begin(), jac->aval.shape.end());
  start[axis] = offset;
  limit[axis] = offset + size;
  return Value(vjp::reshape(evaluator, vjp::window_slice(evaluator, jac, start, limit), shape));
}

void check_jacobian_input(const JacobianOptions& options, const ArrayRef& leaf) {
  if (typecheck::is_floating(leaf->aval.dtype) || (!options.forward && options.allow_int)) return;
  std::string dtype(typecheck::long_name(leaf->aval.dtype));
  if (options.forward)
    raise(exc::TypeError(), "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but "
                            "got " + dtype + ". For holomorphic differentiation, pass holomorphic=True. For "
                            "differentiation of non-holomorphic functions involving complex inputs or integer inputs, "
                            "use jax.jvp directly.");
  raise(exc::TypeError(), "jacrev requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got " +
                              dtype + ". If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True.");
}

// The Jacobian of the output leaves `ys` by the input leaves `xs`, the
// blocks cut from the mapped results `jacs` (per output leaf for jacfwd,
// mapped on the last axis; per input leaf for jacrev, mapped on the first),
// as the output tree of input trees.
Value assemble_jacobian(Evaluator& evaluator, const JacobianOptions& options, const std::vector<ArrayRef>& xs,
                        const TreeDef& x_def, const std::vector<ArrayRef>& ys, const TreeDef& y_def,
                        const std::vector<ArrayRef>& jacs) {
  std::vector<Value> per_output;
  std::int64_t y_offset = 0;
  for (std::size_t j = 0; j < ys.size(); ++j) {
    std::int64_t y_size = devices::element_count(ys[j]->aval.shape);
    std::vector<Value> blocks;
    std::int64_t x_offset = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      std::int64_t x_size = devices::element_count(xs[i]->aval.shape);
      typecheck::Shape shape = ys[j]->aval.shape;
      shape.insert(shape.end(), xs[i]->aval.shape.begin(), xs[i]->aval.shape.end());
      if (options.forward)
        blocks.push_back(jacobian_block(evaluator, jacs[j], jacs[j]->aval.ndim() - 1, x_offset, x_size, shape));
      else
        blocks.push_back(jacobian_block(evaluator, jacs[i], 0, y_offset, y_size, shape));
      x_offset += x_size;
    }
    per_output.push_back(tree_unflatten(evaluator, x_def, blocks));
    y_offset += y_size;
  }
  return tree_unflatten(evaluator, y_def, per_output);
}

Value jacobian(Evaluator& evaluator, const JacobianOptions& options, const CallArgs& call) {
  std::vector<std::size_t> positions;
  std::vector<Value> dyn;
  for (auto argnum : options.argnums) {
    auto n = static_cast<std::int64_t>(call.positional.size());
    std::int64_t position = argnum < 0 ? argnum + n : argnum;
    if (position < 0 || position >= n)
      raise(exc::TypeError(), "differentiating with respect to argnums=" + std::to_string(argnum) + " requires at least " +
                                  std::to_string(argnum + 1) + " positional arguments to be passed by the caller, but got only " +
                                  std::to_string(n) + " positional arguments.");
    positions.push_back(static_cast<std::size_t>(position));
    dyn.push_back(call.positional[static_cast<std::size_t>(position)]);
  }
  Value function = options.function;
  Value f_partial(native("f_partial(*dyn_args)", [function, call, positions](Evaluator& ev, Arguments& a) {
    CallArgs full = call;
    const auto& given = a[0].as<TupleObject>()->items;
    for (std::size_t k = 0; k < positions.size(); ++k) full.positional[positions[k]] = given[k];
    return ev.call(function, full);
  }));
  TreeDef x_def;
  std::vector<ArrayRef> xs = array_leaves(evaluator, options.single ? dyn.at(0) : make_tuple(dyn), x_def);
  for (const auto& x : xs) check_jacobian_input(options, x);
  Value vmap = jax_member(evaluator, "jax", "vmap");
  TreeDef y_def;
  std::vector<ArrayRef> ys, jacs;
  Value aux;
  if (options.forward) {
    auto map = linearize_at(evaluator, f_partial, dyn, options.has_aux);
    aux = map->aux;
    Value f_jvp(native("f_jvp(*tangents)", [map](Evaluator& ev, Arguments& a) {
      TreeDef def;
      return push_forward(ev, *map, tree_flatten(ev, a[0], def));
    }));
    CallArgs vmap_args{{f_jvp}, {{"in_axes", Value::integer(0)}, {"out_axes", Value::integer(-1)}}};
    TreeDef dyn_def;
    std::vector<Value> basis = std_basis(evaluator, array_leaves(evaluator, make_tuple(dyn), dyn_def));
    Value basis_args = tree_unflatten(evaluator, dyn_def, basis);
    Value jac = evaluator.call(evaluator.call(vmap, vmap_args), evaluator.to_vector(basis_args));
    ys = array_leaves(evaluator, tree_unflatten(evaluator, map->out_def, map->out_values), y_def);
    TreeDef jac_def;
    jacs = array_leaves(evaluator, jac, jac_def);
  } else {
    std::vector<Value> vjp_args{f_partial};
    vjp_args.insert(vjp_args.end(), dyn.begin(), dyn.end());
    CallArgs vjp_call{vjp_args, {{"has_aux", Value::boolean(options.has_aux)}}};
    auto result = evaluator.call(jax_member(evaluator, "jax", "vjp"), vjp_call).as<TupleObject>()->items;
    if (options.has_aux) aux = result.at(2);
    ys = array_leaves(evaluator, result.at(0), y_def);
    for (const auto& y : ys)
      if (!typecheck::is_floating(y->aval.dtype))
        raise(exc::TypeError(), "jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
                                "but got " + std::string(typecheck::long_name(y->aval.dtype)) + ". For holomorphic "
                                "differentiation, pass holomorphic=True. For differentiation of non-holomorphic functions "
                                "involving complex outputs, use jax.vjp directly.");
    Value basis = tree_unflatten(evaluator, y_def, std_basis(evaluator, ys));
    CallArgs vmap_args{{result.at(1)}, {}};
    Value jac = evaluator.call(evaluator.call(vmap, vmap_args), std::vector<Value>{basis});
    TreeDef jac_def;
    jacs = array_leaves(evaluator, jac, jac_def);
  }
  Value tree = assemble_jacobian(evaluator, options, xs, x_def, ys, y_def, jacs);
  return options.has_aux ? make_tuple({tree, aux}) : tree;
}

JacobianOptions jacobian_options(Evaluator& evaluator, const Value& function, const Value& argnums, const Value& has_aux,
                                 bool forward) {
  JacobianOptions options;
  options.function = function;
  options.has_aux = evaluator.truthy(has_aux);
  options.forward = forward;
  if (argnums.is_integral()) {
    options.argnums = {argnums.as_int()};
  } else {
    options.single = false;
    for (const auto& v : evaluator.to_vector(argnums)) options.argnums.push_back(evaluator.index_of(v));
  }
  return options;
}

Value jacobian_function(Evaluator& evaluator, const Value& function, const JacobianOptions& options) {
  return wrapping_function(evaluator, function, [options](Evaluator& ev, CallArgs call) {
    return jacobian(ev, options, call);
  });
}

void install_jacobians(ModuleObject& jax) {
  jax.add_function("jacfwd(fun, argnums=0, has_aux=False, holomorphic=False)", [](Evaluator& ev, Arguments& a) {
    return jacobian_function(ev, a[0], jacobian_options(ev, a[0], a[1], a[2], true));
  });
  for (std::string name : {"jacrev", "jacobian"})
    jax.add_function(name + "(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False)",
                     [](Evaluator& ev, Arguments& a) {
                       JacobianOptions options = jacobian_options(ev, a[0], a[1], a[2], false);
                       options.allow_int = ev.truthy(a[4]);
                       return jacobian_function(ev, a[0], options);
                     });
  jax.add_function("hessian(fun, argnums=0, has_aux=False, holomorphic=False)", [](Evaluator& ev, Arguments& a) {
    Value inner = jacobian_function(ev, a[0], jacobian_options(ev, a[0], a[1], a[2], false));
    return jacobian_function(ev, a[0], jacobian_options(ev, inner, a[1], a[2], true));
  });
}

}  // namespace

void install_forward_mode(Evaluator& evaluator) {
  auto jax = evaluator.module("jax");
  install_jvp(*jax);
  install_jacobians(*jax);
}

}  // namespace interp
