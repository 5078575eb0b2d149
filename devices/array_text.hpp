// Arrays as text, as a user sees them (runtime.md "What a user sees"):
// `print(x)` prints NumPy's str of the array (np.array2string with the
// default print options: precision 8, linewidth 75, threshold 1000,
// edgeitems 3, suppress off), and `repr(x)` / the REPL echo prints JAX's
// repr, `Array([[0., 1.],\n       [2., 3.]], dtype=float32)`.
//
// Floats follow NumPy's FloatingFormat: every element in the shortest
// decimal that round-trips at the array's precision (float32 or float16),
// at most `precision` fractional digits, aligned on the point, scientific for
// the whole array when a nonzero magnitude is >= 1e8 or < 1e-4 or the range
// exceeds 1000, `1.` for integral values, `nan`/`inf` padded into the same
// width. Integers are right-aligned, bools are `True`/`False` (` True`
// inside arrays). Arrays of more than `threshold` elements are summarised
// with `...`, keeping `edgeitems` at each end of every long axis.
//
// bfloat16 is not a NumPy float: NumPy prints each element with the repr of
// ml_dtypes' scalar, which is C++ `ostream << float` (6 significant digits,
// `%g`: `0.100098`, `1`, `1e+10`), unpadded, so `[1 0.5 0.100098]`.
//
// A 0-d array prints as NumPy prints the scalar (str: `1.0`, `1e-05`,
// `True`) and in JAX's repr as `Array(1., dtype=float32)`. A weakly typed
// array (from a Python scalar) adds `, weak_type=True` to the repr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "devices/error.hpp"
#include "typecheck/dtype.hpp"

namespace devices {

// np.set_printoptions' fields that change the text.
struct PrintOptions {
  int precision = 8;
  int threshold = 1000;
  int edgeitems = 3;
  int linewidth = 75;
  bool suppress_small = false;
};

// `storage` holds the elements of `shape` in row-major order, each stored as
// devices::storage_t of `dtype` (a Buffer's bytes). INVALID_ARGUMENT when its
// size does not match the shape.
Expected<std::string> array_str(typecheck::DType dtype, std::span<const std::int64_t> shape,
                                std::span<const std::byte> storage, const PrintOptions& options = {});
Expected<std::string> array_repr(typecheck::DType dtype, std::span<const std::int64_t> shape,
                                 std::span<const std::byte> storage, bool weak_type = false,
                                 const PrintOptions& options = {});

// str() of one NumPy scalar of `dtype` whose value is `value` (exact for
// every supported dtype): `1.0`, `1e+16`, `-3`, `True`.
std::string scalar_str(typecheck::DType dtype, double value);

}  // namespace devices
