// jax.debug.print (debug_ops.hpp): JAX's str.format-style `{}` / `{name}`
// formatting of arrays, printed at run time through a primitive.
#include "interp/ops/debug_ops.hpp"

#include "interp/python/builtins.hpp"
#include "interp/python/format.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/ops/runtime.hpp"

namespace interp {

ArrayRef debug_print_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                    const Params& params, bool execute) {
  typecheck::ArrayType empty;
  empty.dtype = typecheck::DType::float32;
  empty.shape = {0};
  empty.sharding = typecheck::Sharding::replicated(nullptr, 1);
  if (!execute || evaluator.mode == Evaluator::Mode::check)
    return make_abstract_array(empty, default_layout(evaluator, 1), false);
  std::vector<std::string> keywords;
  const std::string& names = *params.get<std::string>("keywords");
  for (std::size_t begin = 0; begin < names.size();) {
    std::size_t end = names.find(',', begin);
    if (end == std::string::npos) end = names.size();
    keywords.push_back(names.substr(begin, end - begin));
    begin = end + 1;
  }
  std::size_t positional = operands.size() - keywords.size();
  auto print = [&](const std::vector<ArrayRef>& values) {
    CallArgs args;
    for (std::size_t i = 0; i < positional; ++i) args.positional.emplace_back(values[i]);
    for (std::size_t k = 0; k < keywords.size(); ++k) args.keywords.emplace_back(keywords[k], Value(values[positional + k]));
    evaluator.write(format_string(evaluator, *params.get<std::string>("format"), args) + "\n");
  };
  // In a shard_map body every device prints its own values, in device order.
  Runtime& runtime = runtime_of(evaluator);
  const DeviceMesh* mesh = nullptr;
  for (const auto& operand : operands)
    if (on_manual_mesh(*operand)) mesh = operand->layout.mesh.get();
  const MeshObject* context = runtime.context_mesh.get();
  if (!mesh && context && context->mesh->abstract && context->mesh->abstract->has_axis_of_type(typecheck::AxisType::Manual))
    mesh = context->mesh.get();
  if (!mesh) {
    print(operands);
  } else {
    for (std::size_t p = 0; p < mesh->devices.size(); ++p) {
      if (!runtime.holds(*mesh, p)) continue;
      std::vector<ArrayRef> blocks;
      for (const auto& operand : operands) blocks.push_back(on_manual_mesh(*operand) ? block_at(evaluator, operand, p) : operand);
      print(blocks);
    }
  }
  return host_array(evaluator, empty, [&]() {
    auto made = devices::make_local_array(runtime_of(evaluator).ledger(), typecheck::DType::float32, {0});
    if (!made) raise_devices_error(made.error());
    return *made;
  });
}

void install_debug_operations(Evaluator& evaluator) {
  evaluator.module("jax.debug")->add_function(
      "print(fmt, *args, ordered=False, **kwargs)", [](Evaluator& ev, Arguments& a) {
        std::vector<ArrayRef> operands;
        for (const auto& item : a[1].as<TupleObject>()->items) operands.push_back(to_array(ev, item));
        std::string keywords;
        for (const auto& entry : a[3].as<DictObject>()->table.entries()) {
          if (!entry.live) continue;
          keywords += (keywords.empty() ? "" : ",") + *string_of(entry.key);
          operands.push_back(to_array(ev, entry.value));
        }
        Params params;
        const std::string* format = string_of(a[0]);
        if (!format) raise(exc::TypeError(), "jax.debug.print: fmt must be a str");
        params.set("format", *format);
        params.set("keywords", keywords);
        bind(ev, primitive("debug_print"), std::move(operands), std::move(params));
        return Value();
      });
}

}  // namespace interp
