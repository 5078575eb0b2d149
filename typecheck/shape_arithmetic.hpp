// Overflow-checked arithmetic on dimensions, element counts and byte sizes
// (issue 17): every shape a rule produces goes through these, so that a
// shape whose size does not fit in 64 bits raises instead of wrapping to a
// small, wrong one.
//
// Contract: the checked_* functions return nullopt when the exact result
// does not fit in std::int64_t. check_array_size is the one test an array's
// type must pass before it exists, in run and check alike: every dimension
// non-negative and size * itemsize representable, else NumPy's ValueError.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "typecheck/dtype.hpp"
#include "typecheck/error.hpp"

namespace typecheck {

std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> checked_multiply(std::int64_t a, std::int64_t b);
// The product of `sizes` (1 for none).
std::optional<std::int64_t> checked_product(std::span<const std::int64_t> sizes);

// NumPy's error for an array whose size or byte size does not fit:
// "ValueError: array is too big; `arr.size * arr.dtype.itemsize` is larger
// than the maximum possible size."
Error array_too_big();

// A dimension `size` times `factor` (a tiling, a gather over mesh axes), or
// array_too_big() when it does not fit.
Checked<std::int64_t> scaled_dimension(std::int64_t size, std::int64_t factor);

// The exact product of `sizes` in decimal, however large (JAX computes sizes
// with Python ints and prints them whole in its messages).
std::string exact_product_text(std::span<const std::int64_t> sizes);


// nullopt when an array of `shape` and `dtype` can exist: no negative
// dimension (NumPy's "negative dimensions are not allowed") and a byte size
// that fits in 64 bits (array_too_big).
std::optional<Error> check_array_size(std::span<const std::int64_t> shape, DType dtype);

}  // namespace typecheck
