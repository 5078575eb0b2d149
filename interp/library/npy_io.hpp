// np.save / np.load of .npy files under the host's allowed directories (npy_io.cpp).
#pragma once

#include "interp/ops/array.hpp"

namespace interp {

// numpy.save / numpy.load, reaching only under `allowed_directories`
// (Options::allowed_directories; none: every path is refused).
void install_npy_io(Evaluator& evaluator, std::vector<std::string> allowed_directories);

}  // namespace interp
