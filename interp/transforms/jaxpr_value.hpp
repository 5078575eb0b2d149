// A jaxpr as a Python value (jit(f).trace(...).jaxpr): JAX's ClosedJaxpr.
#pragma once

#include <memory>

#include "interp/transforms/jaxpr.hpp"

namespace interp {

Value jaxpr_value(std::shared_ptr<const Jaxpr> program);

}  // namespace interp
