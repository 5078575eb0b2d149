// libFuzzer target: check mode through the public API (parse, then host code
// run with abstract arrays), and the rendering of whatever diagnostics come
// back. Nothing may crash, hang or abort. The first byte chooses the input:
// even, the rest is the source text; odd, the rest drives a generator of
// well-formed programs over a small vocabulary of sharded array operations
// (creation with out_sharding, elementwise, dot/einsum, reductions, reshape,
// transpose, reshard, host conversions and branches on array data, functions
// with array-type annotations), so that the sharding rules, check mode's
// error recovery and its unknowns are reached, not only the parser.
//
// check mode runs host-level code for real, so `while True: pass` would never
// end. The API has no step budget, so a watchdog thread calls interrupt()
// (KeyboardInterrupt) until check returns; inputs with `except` are skipped
// because a bare `except:` could swallow the interrupt forever.
#include <shardlang/shardlang.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"

namespace {

constexpr std::size_t max_input_bytes = 4096;
constexpr auto time_allowed = std::chrono::milliseconds(200);

struct MeshChoice {
  const char* setup;
  std::vector<const char*> axes;
};

// A program of up to max_statements statements over arrays v0, v1, ...
class ProgramGenerator {
 public:
  explicit ProgramGenerator(fuzz::Choices& choices) : choices_(choices) {}

  std::string generate() {
    static const MeshChoice meshes[] = {
        {"jax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y')))\n", {"X", "Y"}},
        {"jax.set_mesh(jax.make_mesh((2, 2, 2), ('X', 'Y', 'Z')))\n", {"X", "Y", "Z"}},
        {"jax.set_mesh(jax.make_mesh((8,), ('X',)))\n", {"X"}},
        {"", {"X", "Y"}},  // no context mesh: bare P(...) is an error
    };
    const MeshChoice& mesh = meshes[choices_.pick(std::size(meshes))];
    axes_ = mesh.axes;
    out_ = "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax.sharding import PartitionSpec as P\n";
    out_ += mesh.setup;
    out_ += "v0 = " + creation() + "\n";
    arrays_ = 1;
    for (int i = 0; i < max_statements && choices_.more(); ++i) statement();
    return out_;
  }

 private:
  static constexpr int max_statements = 24;

  std::string array() { return "v" + std::to_string(choices_.pick(arrays_)); }
  std::string fresh() { return "v" + std::to_string(arrays_++); }

  std::string axis_entry() {
    switch (choices_.pick(4)) {
      case 0: return "None";
      case 1: return "'" + std::string(axes_[choices_.pick(axes_.size())]) + "'";
      case 2: return "('" + std::string(axes_[choices_.pick(axes_.size())]) + "', '" +
                     std::string(axes_[choices_.pick(axes_.size())]) + "')";
      default: return "'W'";  // not a mesh axis
    }
  }
  std::string spec(std::size_t rank) {
    std::size_t entries = choices_.pick(rank + 2);  // sometimes longer than the rank
    std::string out = "P(";
    for (std::size_t i = 0; i < entries; ++i) out += (i ? ", " : "") + axis_entry();
    return out + ")";
  }
  std::vector<int> shape() {
    static const int sizes[] = {1, 2, 4, 6, 8, 16};
    std::vector<int> dims(choices_.pick(4));
    for (auto& d : dims) d = choices_.one_of(sizes);
    return dims;
  }
  static std::string shape_text(const std::vector<int>& dims) {
    std::string out = "(";
    for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
    return out + (dims.size() == 1 ? ",)" : ")");
  }
  std::string creation() {
    static const char* const makers[] = {"zeros", "ones"};
    static const char* const dtypes[] = {"jnp.float32", "jnp.bfloat16", "jnp.int32"};
    auto dims = shape();
    return std::string("jnp.") + choices_.one_of(makers) + "(" + shape_text(dims) + ", " + choices_.one_of(dtypes) +
           ", out_sharding=" + spec(dims.size()) + ")";
  }

  void statement() {
    static const char* const unary[] = {"sin", "exp", "tanh", "negative", "square", "abs", "sqrt", "log"};
    static const char* const binary[] = {" + ", " - ", " * ", " / ", " @ ", " < "};
    static const char* const reductions[] = {"sum", "mean", "max", "min", "argmax"};
    static const char* const einsums[] = {"'ij,jk->ik'", "'ij,kj->ik'", "'ij,jk->ki'", "'i,i->'"};
    static const char* const dtype_names[] = {"f32", "bf16", "i32"};
    switch (choices_.pick(14)) {
      case 0: out_ += fresh() + " = " + creation() + "\n"; break;
      case 1: out_ += fresh() + " = jnp." + choices_.one_of(unary) + "(" + array() + ")\n"; break;
      case 2: out_ += fresh() + " = " + array() + choices_.one_of(binary) + array() + "\n"; break;
      case 3: out_ += fresh() + " = jnp.dot(" + array() + ", " + array() + ", out_sharding=" + spec(2) + ")\n"; break;
      case 4:
        out_ += fresh() + " = jnp.einsum(" + choices_.one_of(einsums) + ", " + array() + ", " + array() +
                (choices_.pick(2) ? ", out_sharding=" + spec(2) : std::string()) + ")\n";
        break;
      case 5:
        out_ += fresh() + " = jnp." + choices_.one_of(reductions) + "(" + array() + ", axis=" +
                std::to_string(static_cast<int>(choices_.pick(4)) - 1) + ")\n";
        break;
      case 6: out_ += fresh() + " = " + array() + ".reshape" + shape_text(shape()) + "\n"; break;
      case 7: out_ += fresh() + " = " + array() + ".T\n"; break;
      case 8: out_ += fresh() + " = jax.reshard(" + array() + ", " + spec(choices_.pick(4)) + ")\n"; break;
      case 9: out_ += "s = float(jnp.sum(" + array() + ")) + int(" + array() + ".size)\nprint(s)\n"; break;
      case 10: {
        std::string name = "f" + std::to_string(functions_++);
        out_ += "def " + name + "(x):\n  if jnp.sum(x) > 0:\n    return x * 2\n  return x\n";
        out_ += fresh() + " = " + name + "(" + array() + ")\n";
        break;
      }
      case 11: {
        std::string name = "g" + std::to_string(functions_++);
        std::string dim = choices_.pick(2) ? "N@" + std::string(axes_[choices_.pick(axes_.size())]) : "N";
        std::string type = std::string(choices_.one_of(dtype_names)) + "[" + dim + ", M]";
        out_ += "def " + name + "(x: " + type + ") -> " + type + ":\n  return jnp.sin(x)\n";
        out_ += fresh() + " = " + name + "(" + array() + ")\n";
        break;
      }
      case 12: out_ += "print(jax.typeof(" + array() + "), " + array() + ".shape, " + array() + ".item())\n"; break;
      default: out_ += "assert " + array() + ".sum() == 0, 'data'\n"; break;
    }
  }

  fuzz::Choices& choices_;
  std::vector<const char*> axes_;
  std::string out_;
  std::size_t arrays_ = 0;
  int functions_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > max_input_bytes) return -1;
  std::optional<std::string> script =
      fuzz::script_of(data, size, [](fuzz::Choices& choices) { return ProgramGenerator(choices).generate(); });
  if (!script) return -1;
  const std::string& source = *script;
  shardlang::Interpreter interpreter;
  std::vector<shardlang::Diagnostic> diagnostics;
  {
    fuzz::Watchdog watchdog(interpreter, time_allowed);
    diagnostics = interpreter.check(source, "fuzz.shl");
  }
  for (const shardlang::Diagnostic& diagnostic : diagnostics) {
    diagnostic.render(true);
    diagnostic.render_json();
  }
  return 0;
}
