// numpy.testing.assert_array_equal / assert_allclose: the checks example
// programs (the seed's collective matmul, c09) end with. They raise
// AssertionError with NumPy's headline when the arrays differ.
#pragma once

#include "interp/python/evaluator.hpp"

namespace interp {

void install_numpy_testing(Evaluator& evaluator);

}  // namespace interp
