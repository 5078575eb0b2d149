// shardlang_list_api: prints the API a script can reach, read from the
// interpreter's own tables, for docs/generate_api_reference.py. One member
// per line, tab-separated:
//
//   module  NAME  MEMBER  function|class|module|value  DETAIL
//   array   -     MEMBER  attribute                    -
//   primitive NAME API_NAME LAX_NAME  grad|-
//
// DETAIL is a function's Python-style signature, a module's or class's full
// name, or a value's type name. Modules are the built-in modules
// (Evaluator::modules) and `builtins`; primitives are interp/ops/primitives.cpp's
// table in its order.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "interp/python/evaluator.hpp"
#include "interp/python/format.hpp"
#include "interp/python/objects.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/python/value.hpp"
#include "shardlang/shardlang.hpp"

namespace {

void print_member(interp::Evaluator& evaluator, const std::string& module, const std::string& name,
                  const interp::Value& value) {
  std::string kind = "value";
  std::string detail = interp::type_name(value);
  if (auto* function = value.as<interp::NativeFunction>()) {
    kind = "function";
    detail = interp::signature_text(evaluator, function->signature());
  } else if (auto* submodule = value.as<interp::ModuleObject>()) {
    kind = "module";
    detail = submodule->name();
  } else if (auto* type = value.as<interp::TypeObject>()) {
    kind = "class";
    detail = type->name();
  }
  std::cout << "module\t" << module << '\t' << name << '\t' << kind << '\t' << detail << '\n';
}

}  // namespace

int main() {
  try {
    interp::Evaluator evaluator;
    for (const auto& [module_name, module] : evaluator.modules)
      for (const std::string& name : module->attribute_names())
        if (const interp::Value* value = module->find(name)) print_member(evaluator, module_name, name, *value);

    std::vector<std::string> builtin_names;
    for (const auto& [name, value] : evaluator.builtins) builtin_names.push_back(name);
    std::sort(builtin_names.begin(), builtin_names.end());
    for (const std::string& name : builtin_names)
      if (!name.starts_with("__")) print_member(evaluator, "builtins", name, evaluator.builtins.at(name));

    // An array's attributes, as the REPL completes them on an array value.
    shardlang::Interpreter interpreter;
    if (!interpreter.run("import jax.numpy as jnp\narray = jnp.zeros(2)\n")) {
      std::cerr << "shardlang_list_api: cannot make an array\n";
      return 1;
    }
    for (const std::string& name : interpreter.member_names("array")) std::cout << "array\t-\t" << name << "\tattribute\t-\n";

    for (const interp::Primitive& primitive : interp::primitives())
      std::cout << "primitive\t" << primitive.name << '\t' << primitive.api_name << '\t'
                << (primitive.lax.name.empty() ? "-" : primitive.lax.name) << '\t'
                << (interp::is_differentiable(primitive) ? "grad" : "-") << '\n';
  } catch (const std::exception& error) {
    std::cerr << "shardlang_list_api: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
