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
#include "interp/python/objects.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/python/value.hpp"
#include "shardlang/shardlang.hpp"

namespace {

std::string signature_text(interp::Evaluator& evaluator, const interp::Signature& signature) {
  using Kind = interp::Parameter::Kind;
  std::vector<std::string> parts;
  bool keyword_marker_needed = true;
  const auto& parameters = signature.parameters;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const interp::Parameter& parameter = parameters[i];
    if (parameter.kind == Kind::keyword_only && keyword_marker_needed) {
      parts.emplace_back("*");
      keyword_marker_needed = false;
    }
    std::string text = parameter.name;
    if (parameter.kind == Kind::varargs) {
      text = "*" + text;
      keyword_marker_needed = false;
    } else if (parameter.kind == Kind::kwargs) {
      text = "**" + text;
    } else if (parameter.default_value) {
      text += "=" + evaluator.repr(*parameter.default_value);
    } else if (!parameter.required) {
      text += "=<optional>";  // may be left out; no default value stands for it
    }
    parts.push_back(text);
    bool last_positional_only = parameter.kind == Kind::positional_only &&
                                (i + 1 == parameters.size() || parameters[i + 1].kind != Kind::positional_only);
    if (last_positional_only) parts.emplace_back("/");
  }
  std::string out = signature.name + "(";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + ")";
}

void print_member(interp::Evaluator& evaluator, const std::string& module, const std::string& name,
                  const interp::Value& value) {
  std::string kind = "value";
  std::string detail = interp::type_name(value);
  if (auto* function = value.as<interp::NativeFunction>()) {
    kind = "function";
    detail = signature_text(evaluator, function->signature());
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
                << (primitive.lax_name.empty() ? "-" : primitive.lax_name) << '\t'
                << (interp::is_differentiable(primitive) ? "grad" : "-") << '\n';
  } catch (const std::exception& error) {
    std::cerr << "shardlang_list_api: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
