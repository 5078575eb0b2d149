// run_fuzz's program generator: Python programs over the vocabulary of
// issue 17 (host code, array creation, elementwise, contraction, reduction
// and indexing operations, meshes, shardings, device_put/reshard, jit, grad,
// shard_map with collectives, control flow), mostly well formed, so that a
// run goes deep instead of stopping at the first error. Each array variable's
// shape is tracked, so operands usually fit; sizes, axes and specs are drawn
// so that they usually divide, and sometimes do not (a huge dimension, an
// axis the mesh lacks, a spec longer than the rank), to reach the errors.
// Most statements sit in try/except Exception so that one error does not end
// the run.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_support.hpp"

namespace fuzz {

class RunProgramGenerator {
 public:
  RunProgramGenerator(Choices& choices, int devices) : choices_(choices), devices_(devices) {}

  std::string generate() {
    out_ =
        "import functools\nimport jax\nimport jax.numpy as jnp\nimport numpy as np\n"
        "from jax.sharding import NamedSharding, PartitionSpec as P, AxisType\n";
    make_mesh(true);
    add_array(creation({4, 8}), {4, 8});
    for (int i = 0; i < max_statements && choices_.more(); ++i) {
      bool guarded = !choices_.chance(8);
      if (guarded) {
        out_ += "try:\n";
        indent_ = "  ";
      }
      statement();
      if (guarded) {
        indent_.clear();
        out_ += "except Exception as e:\n  print('raised', type(e).__name__, e)\n";
      }
    }
    return out_;
  }

 private:
  static constexpr int max_statements = 32;
  using Shape = std::vector<long long>;
  struct Array {
    std::string name;
    Shape shape;
  };
  struct Axis {
    std::string name;
    int size;
  };

  void line(const std::string& text) { out_ += indent_ + text + "\n"; }

  // ------------------------------------------------------------ meshes

  void make_mesh(bool first) {
    static const std::vector<std::vector<int>> shapes_of[] = {
        {{1}}, {{2}}, {{4}, {2, 2}}, {{8}, {4, 2}, {2, 4}, {2, 2, 2}}};
    int slot = devices_ >= 8 ? 3 : devices_ >= 4 ? 2 : devices_ >= 2 ? 1 : 0;
    const auto& options = shapes_of[slot];
    std::vector<int> shape = options[choices_.pick(options.size())];
    static const char* const names[] = {"X", "Y", "Z"};
    axes_.clear();
    std::string sizes, labels;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      axes_.push_back({names[i], shape[i]});
      sizes += (i ? ", " : "") + std::to_string(shape[i]);
      labels += std::string(i ? ", " : "") + "'" + names[i] + "'";
    }
    if (shape.size() == 1) sizes += ",", labels += ",";
    std::string types;
    switch (choices_.pick(3)) {
      case 0: types = ", axis_types=(AxisType.Explicit,) * " + std::to_string(shape.size()); break;
      case 1: types = ", axis_types=(AxisType.Auto,) * " + std::to_string(shape.size()); break;
      default: break;
    }
    std::string text = "mesh = jax.make_mesh((" + sizes + "), (" + labels + ")" + types + ")";
    if (first) {
      out_ += text + "\n";
      if (!choices_.chance(4)) out_ += "jax.set_mesh(mesh)\n";
    } else {
      line(text);
      line("jax.set_mesh(mesh)");
    }
  }

  std::string axis_name() {
    if (choices_.chance(16)) return "'W'";  // not a mesh axis
    return "'" + axes_[choices_.pick(axes_.size())].name + "'";
  }
  std::string spec_entry() {
    switch (choices_.pick(4)) {
      case 0: return "None";
      case 1:
        if (axes_.size() > 1) return "(" + axis_name() + ", " + axis_name() + ")";
        [[fallthrough]];
      default: return axis_name();
    }
  }
  std::string spec(std::size_t rank) {
    std::size_t entries = choices_.chance(12) ? rank + 1 : choices_.pick(rank + 1);
    std::string out = "P(";
    for (std::size_t i = 0; i < entries; ++i) out += (i ? ", " : "") + spec_entry();
    return out + ")";
  }

  // ------------------------------------------------------------ arrays

  std::string fresh() { return "v" + std::to_string(next_name_++); }
  void add_array(const std::string& expression, Shape shape) {
    std::string name = fresh();
    line(name + " = " + expression);
    arrays_.push_back({name, std::move(shape)});
  }
  // Copies, not references: add_array() may move the arrays_ they point into.
  Array array() { return arrays_[choices_.pick(arrays_.size())]; }
  // An array of rank `rank` when there is one, else any.
  Array array_of_rank(std::size_t rank) {
    std::vector<const Array*> fits;
    for (const Array& a : arrays_)
      if (a.shape.size() == rank) fits.push_back(&a);
    if (fits.empty() || choices_.chance(10)) return array();
    return *fits[choices_.pick(fits.size())];
  }

  long long dimension() {
    static const long long usual[] = {1, 2, 4, 8, 16, 2, 4, 8};
    static const long long unusual[] = {0, 3, 5, 1LL << 31, 1LL << 40, 1LL << 62, -1};
    return choices_.chance(24) ? choices_.one_of(unusual) : choices_.one_of(usual);
  }
  Shape shape() {
    Shape dims(choices_.pick(4));
    for (auto& d : dims) d = dimension();
    return dims;
  }
  static std::string shape_text(const Shape& dims) {
    std::string out = "(";
    for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
    return out + (dims.size() == 1 ? ",)" : ")");
  }
  static long long elements(const Shape& dims) {
    long long n = 1;
    for (long long d : dims) n = d > 0 && n < (1LL << 40) && d < (1LL << 20) ? n * d : 0;
    return n;
  }
  std::string dtype() {
    static const char* const dtypes[] = {"jnp.float32", "jnp.float32", "jnp.bfloat16", "jnp.int32", "jnp.bool_",
                                         "jnp.float16", "jnp.int8",    "jnp.uint32"};
    return choices_.one_of(dtypes);
  }
  std::string placement(std::size_t rank) {
    switch (choices_.pick(3)) {
      case 0: return ", out_sharding=" + spec(rank);
      case 1: return ", device=NamedSharding(mesh, " + spec(rank) + ")";
      default: return "";
    }
  }

  std::string creation(const Shape& dims) {
    std::string s = shape_text(dims);
    switch (choices_.pick(9)) {
      case 0: return "jnp.zeros(" + s + ", " + dtype() + placement(dims.size()) + ")";
      case 1: return "jnp.ones(" + s + ", " + dtype() + placement(dims.size()) + ")";
      case 2: return "jnp.full(" + s + ", 1.5" + placement(dims.size()) + ")";
      case 3:
        return "jnp.arange(" + std::to_string(elements(dims)) + ", dtype=jnp.float32).reshape(" + s + ")";
      case 4: return "jax.random.normal(jax.random.key(" + std::to_string(choices_.pick(5)) + "), " + s + ")";
      case 5: return "jax.random.uniform(jax.random.key(1), " + s + ", minval=-1.0, maxval=1.0)";
      case 6: return "jnp.linspace(-1.0, 1.0, " + std::to_string(elements(dims)) + ").reshape(" + s + ")";
      case 7: return "jax.device_put(np.ones(" + s + ", np.float32), NamedSharding(mesh, " + spec(dims.size()) + "))";
      default: return "jnp.asarray(np.arange(" + std::to_string(elements(dims)) + ") % 7 - 3.0).reshape(" + s + ")";
    }
  }

  // An elementwise expression of `x`, for bodies of jit, grad and lax.
  std::string body(const std::string& x, int depth = 0) {
    if (depth > 2 || choices_.chance(3)) return x;
    std::string a = body(x, depth + 1);
    switch (choices_.pick(8)) {
      case 0: return "jnp.sin(" + a + ")";
      case 1: return "(" + a + " * " + body(x, depth + 1) + ")";
      case 2: return "(" + a + " + 1.0)";
      case 3: return "jnp.tanh(" + a + ")";
      case 4: return "jnp.where(" + a + " > 0, " + a + ", 0.0)";
      case 5: return "jnp.exp(-jnp.abs(" + a + "))";
      case 6: return "jnp.maximum(" + a + ", " + body(x, depth + 1) + ")";
      default: return "(" + a + " / 2)";
    }
  }

  // ------------------------------------------------------------ statements

  void statement() {
    switch (choices_.pick(16)) {
      case 0: {
        Shape dims = shape();
        add_array(creation(dims), dims);
        break;
      }
      case 1: elementwise(); break;
      case 2: contraction(); break;
      case 3: reduction(); break;
      case 4: indexing(); break;
      case 5: structural(); break;
      case 6: sharding(); break;
      case 7: make_mesh(false); break;
      case 8: jit(); break;
      case 9: grad(); break;
      case 10: shard_map(); break;
      case 11: control_flow(); break;
      case 12: host(); break;
      case 13: show(); break;
      case 14: combine(); break;
      default: overflow(); break;
    }
  }

  void elementwise() {
    static const char* const unary[] = {"sin", "exp", "tanh", "negative", "square", "abs",
                                        "sqrt", "log", "cos", "floor", "sign", "logical_not"};
    const Array& a = array();
    switch (choices_.pick(5)) {
      case 0: add_array(std::string("jnp.") + choices_.one_of(unary) + "(" + a.name + ")", a.shape); break;
      case 1: add_array(a.name + ".astype(" + dtype() + ")", a.shape); break;
      case 2: add_array("jnp.clip(" + a.name + ", -1, 1)", a.shape); break;
      case 3: add_array(body(a.name), a.shape); break;
      default: add_array("jax.nn.relu(" + a.name + ")", a.shape); break;
    }
  }

  void combine() {
    static const char* const binary[] = {" + ", " - ", " * ", " / ", " < ", " // ", " ** ", " % "};
    const Array& a = array();
    const Array& b = choices_.chance(3) ? array() : array_of_rank(a.shape.size());
    switch (choices_.pick(4)) {
      case 0: add_array(a.name + choices_.one_of(binary) + b.name, a.shape); break;
      case 1: add_array(a.name + choices_.one_of(binary) + "2", a.shape); break;
      case 2: add_array("jnp.where(" + a.name + " > 0, " + a.name + ", " + b.name + ")", a.shape); break;
      default: add_array("jnp.maximum(" + a.name + ", " + b.name + ")", a.shape); break;
    }
  }

  void contraction() {
    static const char* const einsums[] = {"'ij,jk->ik'", "'ij,kj->ik'", "'ij,jk->ki'", "'i,i->'", "'bij,bjk->bik'",
                                          "'ij->ji'", "'ij,ij->i'"};
    const Array& a = array_of_rank(2);
    const Array& b = array_of_rank(2);
    Shape product = {a.shape.empty() ? 1 : a.shape[0], b.shape.size() > 1 ? b.shape[1] : 1};
    switch (choices_.pick(5)) {
      case 0: add_array(a.name + " @ " + b.name, product); break;
      case 1: add_array("jnp.dot(" + a.name + ", " + b.name + ", out_sharding=" + spec(2) + ")", product); break;
      case 2:
        add_array("jnp.einsum(" + std::string(choices_.one_of(einsums)) + ", " + a.name + ", " + b.name +
                      (choices_.chance(2) ? ", out_sharding=" + spec(2) : std::string()) + ")",
                  product);
        break;
      case 3:
        add_array("jax.lax.dot_general(" + a.name + ", " + b.name + ", (((1,), (0,)), ((), ())))", product);
        break;
      default: add_array("jnp.tensordot(" + a.name + ", " + b.name + ", axes=1)", product); break;
    }
  }

  void reduction() {
    static const char* const reductions[] = {"sum", "mean", "max", "min", "argmax", "prod", "std", "var", "any"};
    const Array& a = array();
    Shape shape = a.shape;
    int axis = static_cast<int>(choices_.pick(a.shape.size() + 2)) - 1;
    if (axis >= 0 && static_cast<std::size_t>(axis) < shape.size()) shape.erase(shape.begin() + axis);
    if (axis < 0) shape.clear();
    std::string axis_text = axis < 0 ? "" : ", axis=" + std::to_string(axis);
    if (choices_.chance(4)) {
      add_array("jnp.cumsum(" + a.name + axis_text + ")", a.shape);
      return;
    }
    add_array("jnp." + std::string(choices_.one_of(reductions)) + "(" + a.name + axis_text + ")", shape);
  }

  void indexing() {
    const Array& a = array();
    Shape rest = a.shape.empty() ? Shape{} : Shape(a.shape.begin() + 1, a.shape.end());
    std::string i = std::to_string(static_cast<int>(choices_.pick(5)) - 1);
    switch (choices_.pick(8)) {
      case 0: add_array(a.name + "[" + i + "]", rest); break;
      case 1: add_array(a.name + "[1:3]", a.shape); break;
      case 2: add_array(a.name + "[..., ::2]", a.shape); break;
      case 3: add_array(a.name + "[None]", a.shape); break;
      case 4: add_array(a.name + ".at[" + i + "].set(7.0)", a.shape); break;
      case 5: add_array(a.name + ".at[" + i + "].add(" + array().name + ")", a.shape); break;
      case 6: add_array(a.name + "[jnp.array([0, " + i + ", 1])]", a.shape); break;
      default: add_array("jnp.take(" + a.name + ", jnp.array([1, 0]), axis=0)", a.shape); break;
    }
  }

  void structural() {
    const Array& a = array();
    const Array& b = array_of_rank(a.shape.size());
    switch (choices_.pick(12)) {
      case 0: {
        Shape dims = shape();
        if (!choices_.chance(4)) dims = {elements(a.shape)};
        add_array(a.name + ".reshape" + shape_text(dims), dims);
        break;
      }
      case 1: add_array(a.name + ".T", Shape(a.shape.rbegin(), a.shape.rend())); break;
      case 2: add_array("jnp.concatenate([" + a.name + ", " + b.name + "])", a.shape); break;
      case 3: add_array("jnp.stack([" + a.name + ", " + b.name + "], axis=" + std::to_string(choices_.pick(2)) + ")", a.shape); break;
      case 4: add_array("jnp.pad(" + a.name + ", " + std::to_string(choices_.pick(3)) + ")", a.shape); break;
      case 5: add_array("jnp.tile(" + a.name + ", " + std::to_string(choices_.pick(4)) + ")", a.shape); break;
      case 6: add_array("jnp.repeat(" + a.name + ", " + std::to_string(choices_.pick(4)) + ", axis=0)", a.shape); break;
      case 7: add_array("jnp.broadcast_to(" + a.name + ", (2,) + " + a.name + ".shape)", a.shape); break;
      case 8: add_array("jnp.expand_dims(" + a.name + ", 0)", a.shape); break;
      case 9: add_array("jnp.flip(" + a.name + ")", a.shape); break;
      case 10: add_array("jnp.roll(" + a.name + ", 1)", a.shape); break;
      default: add_array("jnp.squeeze(" + a.name + ")", a.shape); break;
    }
  }

  void sharding() {
    const Array& a = array();
    switch (choices_.pick(5)) {
      case 0: add_array("jax.device_put(" + a.name + ", NamedSharding(mesh, " + spec(a.shape.size()) + "))", a.shape); break;
      case 1: add_array("jax.reshard(" + a.name + ", " + spec(a.shape.size()) + ")", a.shape); break;
      case 2: line("print(jax.typeof(" + a.name + "), " + a.name + ".sharding)"); break;
      case 3: line("jax.debug.visualize_array_sharding(" + a.name + ")"); break;
      default: {
        std::string f = "f" + std::to_string(next_function_++);
        line("@jax.jit");
        line("def " + f + "(x):");
        line("  return jax.lax.with_sharding_constraint(" + body("x") + ", " + spec(a.shape.size()) + ")");
        add_array(f + "(" + a.name + ")", a.shape);
        break;
      }
    }
  }

  void jit() {
    const Array& a = array();
    std::string f = "f" + std::to_string(next_function_++);
    switch (choices_.pick(3)) {
      case 0:
        line("@jax.jit");
        line("def " + f + "(x):");
        break;
      case 1:
        line("@functools.partial(jax.jit, static_argnums=1)");
        line("def " + f + "(x, n=2):");
        line("  for _ in range(n):");
        line("    x = " + body("x"));
        break;
      default:
        line("@functools.partial(jax.jit, out_shardings=NamedSharding(mesh, " + spec(a.shape.size()) + "))");
        line("def " + f + "(x):");
        break;
    }
    line("  y = " + body("x"));
    line("  print('tracing', y.shape)");
    line("  return y");
    add_array(f + "(" + a.name + ")", a.shape);
    if (choices_.chance(3)) line("print(jax.jit(" + f + ").lower(" + a.name + ").as_text()[:40])");
  }

  void grad() {
    const Array& a = array();
    std::string loss = "jnp.sum(" + body("x") + ")";
    switch (choices_.pick(3)) {
      case 0: add_array("jax.grad(lambda x: " + loss + ")(" + a.name + ")", a.shape); break;
      case 1:
        line("value, " + fresh() + " = jax.value_and_grad(lambda x: " + loss + ")(" + a.name + ")");
        arrays_.push_back({"v" + std::to_string(next_name_ - 1), a.shape});
        break;
      default:
        add_array("jax.jit(jax.grad(lambda x, y: jnp.sum(x * y + " + body("x") + ")))(" + a.name + ", " + array().name + ")",
                  a.shape);
        break;
    }
  }

  void shard_map() {
    const Array& a = array();
    std::string axis = axis_name();
    std::string in = spec(a.shape.size()), out = spec(a.shape.size());
    static const char* const collectives[] = {
        "jax.lax.psum(b, {a})",
        "jax.lax.pmean(b, {a})",
        "jax.lax.all_gather(b, {a}, axis=0, tiled=True)",
        "jax.lax.all_gather(b, {a})",
        "jax.lax.psum_scatter(b, {a}, scatter_dimension=0, tiled=True)",
        "jax.lax.ppermute(b, {a}, perm=[(i, (i + 1) % jax.lax.axis_size({a})) for i in range(jax.lax.axis_size({a}))])",
        "jax.lax.all_to_all(b, {a}, 0, 0, tiled=True)",
        "b * jax.lax.axis_index({a})",
        "jax.lax.pvary(b, {a})",
        "jax.lax.pmax(b, {a})",
    };
    std::string collective = choices_.one_of(collectives);
    for (std::size_t at; (at = collective.find("{a}")) != std::string::npos;) collective.replace(at, 3, axis);
    std::string check = choices_.chance(3) ? ", check_vma=False" : "";
    add_array("jax.shard_map(lambda b: " + collective + ", mesh=mesh, in_specs=" + in + ", out_specs=" + out + check +
                  ")(" + a.name + ")",
              a.shape);
  }

  void control_flow() {
    const Array& a = array();
    std::string n = std::to_string(choices_.pick(5));
    switch (choices_.pick(7)) {
      case 0:
        add_array("jax.lax.cond(jnp.sum(" + a.name + ") > 0, lambda x: " + body("x") + ", lambda x: x * 2, " + a.name + ")",
                  a.shape);
        break;
      case 1: add_array("jax.lax.fori_loop(0, " + n + ", lambda i, c: " + body("c") + ", " + a.name + ")", a.shape); break;
      case 2:
        line("carry, " + fresh() + " = jax.lax.scan(lambda c, x: (c + x, " + body("x") + "), " + a.name + "[0], " +
             a.name + ")");
        arrays_.push_back({"v" + std::to_string(next_name_ - 1), a.shape});
        break;
      case 3:
        add_array("jax.lax.while_loop(lambda c: jnp.sum(c) < 100, lambda c: c + 1, " + a.name + ")", a.shape);
        break;
      case 4:
        line("if jnp.sum(" + a.name + ") > 0:");
        line("  print('positive')");
        line("else:");
        line("  print('not positive')");
        break;
      case 5:
        line("for i in range(" + n + "):");
        line("  " + a.name + " = " + body(a.name));
        break;
      default:
        line("k = 0");
        line("while k < " + n + ":");
        line("  k += 1");
        line("  " + a.name + " = " + a.name + " * 2");
        break;
    }
  }

  void host() {
    switch (choices_.pick(8)) {
      case 0: line("xs = [i * i for i in range(" + std::to_string(choices_.pick(50)) + ")]; print(sum(xs), xs[-1:])"); break;
      case 1: line("d = {'a': 1, 'b': [1, 2]}; d['c'] = d; print(len(d), sorted(d))"); break;
      case 2: line("print(f'{3.25:>10.3f}|{2 ** 100}|{-7 // 2}|{7 % -3}')"); break;
      case 3: line("s = 'ab' * " + std::to_string(choices_.pick(100)) + "; print(s[::3][:10], s.upper()[:4])"); break;
      case 4: line("print(" + std::to_string(dimension()) + " * " + std::to_string(dimension()) + " ** 3)"); break;
      case 5: line("print([x for x in range(10) if x % 3][::-1], tuple(zip('ab', [1, 2])))"); break;
      case 6: line("while True: pass"); break;  // the watchdog ends it
      default: line("def r(n): return r(n + 1)\n" + indent_ + "r(0)"); break;  // RecursionError
    }
  }

  void show() {
    const Array& a = array();
    switch (choices_.pick(6)) {
      case 0: line("print(" + a.name + ")"); break;
      case 1: line("print(repr(" + a.name + "), " + a.name + ".shape, " + a.name + ".dtype)"); break;
      case 2: line("print(float(jnp.sum(" + a.name + ")), int(" + a.name + ".size))"); break;
      case 3: line("print(" + a.name + ".item())"); break;
      case 4: line("print(np.asarray(" + a.name + ").tolist())"); break;
      default: line("print(jnp.allclose(" + a.name + ", " + array().name + "))"); break;
    }
  }

  // Shapes whose element count or byte size overflows: each must raise.
  void overflow() {
    static const char* const huge[] = {
        "jnp.zeros((1 << 40, 1 << 40))",
        "jnp.ones((1 << 62,), out_sharding=P())",
        "jnp.zeros((1 << 31, 1 << 31, 4), jnp.int8)",
        "jnp.arange(1 << 62)",
        "jnp.broadcast_to(jnp.ones(()), (1 << 32, 1 << 32))",
        "jnp.ones((4, 4)).reshape(1 << 62, 4)",
        "jnp.tile(jnp.ones((4,)), (1 << 62,))",
        "jnp.pad(jnp.ones((4,)), 1 << 62)",
        "jnp.repeat(jnp.ones((4,)), 1 << 62)",
        "jnp.concatenate([jnp.ones((1 << 62,)), jnp.ones((1 << 62,))])",
        "jnp.einsum('i,j->ij', jnp.ones((1 << 32,)), jnp.ones((1 << 32,)))",
        "jnp.linspace(0.0, 1.0, 1 << 62)",
        "jnp.eye(1 << 32)",
        "jnp.full((-1,), 2.0)",
    };
    add_array(choices_.one_of(huge), {4});
  }

  Choices& choices_;
  int devices_;
  std::vector<Axis> axes_;
  std::vector<Array> arrays_;
  std::string out_;
  std::string indent_;
  int next_name_ = 0;
  int next_function_ = 0;
};

}  // namespace fuzz
