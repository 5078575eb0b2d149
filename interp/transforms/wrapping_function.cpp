// The function a transformation returns (wrapping_function.hpp).
#include "interp/transforms/wrapping_function.hpp"

#include "interp/python/evaluator.hpp"
#include "interp/python/objects.hpp"

namespace interp {

namespace {

// JAX's util.fun_name: the function's __name__, else a placeholder.
std::string function_name(Evaluator& evaluator, const Value& function) {
  std::optional<Value> name = evaluator.find_attribute(function, "__name__");
  if (name && string_of(*name)) return *string_of(*name);
  return "<unnamed function>";
}

}  // namespace

Value wrapping_function(Evaluator& evaluator, const Value& wrapped, WrappedCall body) {
  Signature signature = Signature::parse("wrapped(*args, **kwargs)");
  signature.name = function_name(evaluator, wrapped);
  return Value(std::make_shared<NativeFunction>(std::move(signature), [body](Evaluator& ev, Arguments& a) {
    CallArgs call{a[0].as<TupleObject>()->items, {}};
    if (auto* kwargs = a[1].as<DictObject>())
      for (const auto& entry : kwargs->table.entries())
        if (entry.live) call.keywords.emplace_back(ev.str(entry.key), entry.value);
    return body(ev, std::move(call));
  }));
}

}  // namespace interp
