// jax.test_util: check_grads, check_jvp and check_vjp, as JAX's
// public_test_util writes them: forward and reverse derivatives checked in
// one random direction against central finite differences (EPS = 1e-4),
// recursively up to `order`, with float32's gradient tolerance (2e-3) by
// default. The random directions come from jax.random (JAX draws them from
// NumPy's RandomState(0)); a mismatch raises AssertionError through
// np.testing.assert_allclose.
#include "interp/library/tree_module.hpp"
#include "interp/ops/array.hpp"
#include "interp/python/builtins.hpp"

namespace interp {

void install_test_util(Evaluator& evaluator);

namespace {

constexpr double default_eps = 1e-4;
constexpr double default_tolerance = 2e-3;

Value member(Evaluator& evaluator, const std::string& module, const std::string& name) {
  return *evaluator.module(module)->find(name);
}

using lang::ast::BinaryOperator;

double number(Evaluator& evaluator, const Value& value) {
  if (value.is_number()) return value.is_float() ? value.as_float() : static_cast<double>(value.as_int());
  return element_values(evaluator, *to_array(evaluator, value)).at(0);
}

Value leafwise(Evaluator& evaluator, const Value& a, const Value& b, BinaryOperator op) {
  Value trees[] = {a, b};
  std::vector<std::vector<Value>> columns;
  std::optional<TreeDef> def = tree_zip(evaluator, trees, columns);
  if (!def) raise(exc::ValueError(), "check_grads: trees of different structures");
  std::vector<Value> out;
  for (const auto& column : columns) out.push_back(evaluator.binary(op, column[0], column[1]));
  return tree_unflatten(evaluator, *def, out);
}

Value scaled(Evaluator& evaluator, const Value& tree, double factor) {
  return tree_map(evaluator, tree, [&](const Value& leaf) {
    return evaluator.binary(BinaryOperator::mult, leaf, Value::floating(factor));
  });
}

// A random tree like `tree` (normal draws; a Python scalar stays one).
Value rand_like(Evaluator& evaluator, const Value& tree, std::int64_t& seed) {
  return tree_map(evaluator, tree, [&](const Value& leaf) -> Value {
    Value key = evaluator.call(member(evaluator, "jax.random", "key"), std::vector<Value>{Value::integer(seed++)});
    if (leaf.is_number()) {
      Value draw = evaluator.call(member(evaluator, "jax.random", "normal"), std::vector<Value>{key});
      return Value::floating(number(evaluator, draw));
    }
    Value shape = evaluator.get_attribute(leaf, "shape");
    CallArgs args{{key, shape}, {{"dtype", evaluator.get_attribute(leaf, "dtype")}}};
    return evaluator.call(member(evaluator, "jax.random", "normal"), args);
  });
}

Value numerical_jvp(Evaluator& evaluator, const Value& f, const Value& primals, const Value& tangents, double eps) {
  Value delta = scaled(evaluator, tangents, eps);
  Value f_pos = evaluator.call(f, evaluator.to_vector(leafwise(evaluator, primals, delta, BinaryOperator::add)));
  Value f_neg = evaluator.call(f, evaluator.to_vector(leafwise(evaluator, primals, delta, BinaryOperator::sub)));
  return scaled(evaluator, leafwise(evaluator, f_pos, f_neg, BinaryOperator::sub), 0.5 / eps);
}

struct Tolerance {
  Value atol, rtol;
  double eps = default_eps;
};

void check_close(Evaluator& evaluator, const Value& xs, const Value& ys, const Tolerance& tol, const std::string& message) {
  Value trees[] = {xs, ys};
  std::vector<std::vector<Value>> columns;
  if (!tree_zip(evaluator, trees, columns)) raise(exc::AssertionError(), message + ": trees of different structures");
  for (const auto& column : columns) {
    CallArgs args{{column[0], column[1]}, {{"atol", tol.atol}, {"rtol", tol.rtol}, {"err_msg", make_str(message)}}};
    evaluator.call(member(evaluator, "numpy.testing", "assert_allclose"), args);
  }
}

Value inner_product(Evaluator& evaluator, const Value& xs, const Value& ys) {
  Value products = leafwise(evaluator, xs, ys, BinaryOperator::mult);
  TreeDef def;
  Value total = Value::floating(0.0);
  for (const auto& leaf : tree_flatten(evaluator, products, def))
    total = evaluator.binary(BinaryOperator::add, total,
                             evaluator.call(member(evaluator, "jax.numpy", "sum"), std::vector<Value>{leaf}));
  return total;
}

Value jvp_of(const Value& f) {
  return Value(native("jvp_f(primals, tangents)", [f](Evaluator& ev, Arguments& a) {
    return ev.call(member(ev, "jax", "jvp"), std::vector<Value>{f, a[0], a[1]});
  }));
}

void check_jvp(Evaluator& evaluator, const Value& f, const Value& f_jvp, const Value& args, const Tolerance& tol,
               const std::string& message) {
  std::int64_t seed = 0;
  Value tangent = rand_like(evaluator, args, seed);
  auto out = evaluator.to_vector(evaluator.call(f_jvp, std::vector<Value>{args, tangent}));
  check_close(evaluator, out.at(0), evaluator.call(f, evaluator.to_vector(args)), tol, message + " primal");
  check_close(evaluator, out.at(1), numerical_jvp(evaluator, f, args, tangent, tol.eps), tol, message + " tangent");
}

Value vjp_of(const Value& f) {
  return Value(native("vjp_f(*args)", [f](Evaluator& ev, Arguments& a) {
    std::vector<Value> call{f};
    for (const auto& arg : a[0].as<TupleObject>()->items) call.push_back(arg);
    return ev.call(member(ev, "jax", "vjp"), call);
  }));
}

void check_vjp(Evaluator& evaluator, const Value& f, const Value& f_vjp, const Value& args, const Tolerance& tol,
               const std::string& message) {
  auto out = evaluator.to_vector(evaluator.call(f_vjp, evaluator.to_vector(args)));
  check_close(evaluator, out.at(0), evaluator.call(f, evaluator.to_vector(args)), tol, message + " primal");
  std::int64_t seed = 0;
  Value tangent = rand_like(evaluator, args, seed);
  Value tangent_out = numerical_jvp(evaluator, f, args, tangent, tol.eps);
  Value cotangent = rand_like(evaluator, out.at(0), seed);
  Value cotangent_out = evaluator.call(out.at(1), std::vector<Value>{cotangent});
  check_close(evaluator, inner_product(evaluator, tangent, cotangent_out),
              inner_product(evaluator, tangent_out, cotangent), tol, message + " cotangent projection");
}

void check_grads(Evaluator& evaluator, const Value& f, const Value& args, std::int64_t order, const std::set<std::string>& modes,
                 const Tolerance& tol, const std::string& message) {
  if (modes.count("fwd")) {
    std::string fwd = message.empty() ? "JVP" : "JVP of " + message;
    check_jvp(evaluator, f, jvp_of(f), args, tol, fwd);
    if (order > 1) check_grads(evaluator, jvp_of(f), make_tuple({args, args}), order - 1, modes, tol, fwd);
  }
  if (modes.count("rev")) {
    std::string rev = message.empty() ? "VJP" : "VJP of " + message;
    check_vjp(evaluator, f, vjp_of(f), args, tol, rev);
    if (order > 1) {
      Value f_vjp(native("f_vjp(*args)", [f](Evaluator& ev, Arguments& a) {
        std::vector<Value> call{f};
        for (const auto& arg : a[0].as<TupleObject>()->items) call.push_back(arg);
        auto out = ev.to_vector(ev.call(member(ev, "jax", "vjp"), call));
        return ev.call(out.at(1), std::vector<Value>{out.at(0)});
      }));
      check_grads(evaluator, f_vjp, args, order - 1, modes, tol, rev);
    }
  }
}

Tolerance tolerance(Evaluator& evaluator, const Value& atol, const Value& rtol, const Value& eps) {
  Tolerance tol{atol.is_none() ? Value::floating(default_tolerance) : atol,
                rtol.is_none() ? Value::floating(default_tolerance) : rtol};
  if (!eps.is_none()) tol.eps = number(evaluator, eps);
  return tol;
}

}  // namespace

void install_test_util(Evaluator& evaluator) {
  auto test_util = evaluator.module("jax.test_util");
  test_util->add_function("check_grads(f, args, order, modes=None, atol=None, rtol=None, eps=None)",
                          [](Evaluator& ev, Arguments& a) {
                            std::set<std::string> modes{"fwd", "rev"};  // JAX's default, ("fwd", "rev")
                            if (!a[3].is_none()) {
                              modes.clear();
                              for (const auto& mode : ev.to_vector(a[3])) modes.insert(ev.str(mode));
                            }
                            check_grads(ev, a[0], make_tuple(ev.to_vector(a[1])), ev.index_of(a[2]), modes,
                                        tolerance(ev, a[4], a[5], a[6]), "");
                            return Value();
                          });
  test_util->add_function("check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=0.0001, err_msg='')",
                          [](Evaluator& ev, Arguments& a) {
                            check_jvp(ev, a[0], a[1], make_tuple(ev.to_vector(a[2])), tolerance(ev, a[3], a[4], a[5]),
                                      ev.str(a[6]));
                            return Value();
                          });
  test_util->add_function("check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=0.0001, err_msg='')",
                          [](Evaluator& ev, Arguments& a) {
                            check_vjp(ev, a[0], a[1], make_tuple(ev.to_vector(a[2])), tolerance(ev, a[3], a[4], a[5]),
                                      ev.str(a[6]));
                            return Value();
                          });
  evaluator.module("jax")->add("test_util", Value(test_util));
}

}  // namespace interp
