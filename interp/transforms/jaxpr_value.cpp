// A jaxpr as a Python value (jaxpr_value.hpp).
#include "interp/transforms/jaxpr_value.hpp"

#include "interp/python/builtins.hpp"

namespace interp {

namespace {

// A jaxpr as a value (jit(f).trace(...).jaxpr): printed as JAX prints one;
// `.jaxpr` is itself (JAX's ClosedJaxpr.jaxpr).
class JaxprObject : public Object {
 public:
  explicit JaxprObject(std::shared_ptr<const Jaxpr> program) : program(std::move(program)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("ClosedJaxpr");
    return type;
  }
  std::string repr(Evaluator&) const override { return program->str(); }
  std::optional<Value> get_attribute(Evaluator&, const std::string& attribute) override {
    if (attribute == "jaxpr") return Value(shared_from_this());
    return std::nullopt;
  }
  std::shared_ptr<const Jaxpr> program;
};

}  // namespace

Value jaxpr_value(std::shared_ptr<const Jaxpr> program) { return Value(std::make_shared<JaxprObject>(std::move(program))); }

}  // namespace interp
