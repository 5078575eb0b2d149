// The border between host numbers and device arrays: arrays made on the host
// from numbers (given values, one value, ranges, the identity) or from bytes,
// and an array's elements read back as numbers or bytes. interp/ reaches a
// Buffer's contents only through these and the kernels (kernels.hpp,
// indexing.hpp); nothing here knows about shardings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "devices/kernels.hpp"

namespace devices {

// An array of `dtype` and `shape` holding `values` (row-major, one per
// element). An integer dtype takes each value truncated toward zero and
// wrapped to its width, bool takes value != 0, and a float dtype takes it
// rounded to float32 and then to the dtype.
Expected<LocalArray> from_values(const std::shared_ptr<MemoryLedger>& ledger, typecheck::DType dtype, Shape shape,
                                 std::span<const double> values);
// The same from integers, without rounding them to doubles first.
Expected<LocalArray> from_values(const std::shared_ptr<MemoryLedger>& ledger, typecheck::DType dtype, Shape shape,
                                 std::span<const std::int64_t> values);
// An array of `dtype` and `shape` whose every element is `value`, taken as
// from_values takes it.
Expected<LocalArray> full(const std::shared_ptr<MemoryLedger>& ledger, typecheck::DType dtype, Shape shape,
                          double value);

// jnp.arange's values start + i * step for i < shape[0]: an integer dtype
// computes them exactly in 64 bits (start and step truncated) and wraps them;
// a float dtype computes each in double, rounds it to float32 and then to the
// dtype.
Expected<LocalArray> arange(const std::shared_ptr<MemoryLedger>& ledger, typecheck::DType dtype, Shape shape,
                            double start, double step);
// jnp.linspace's float32 formula: start * (1 - t) + stop * t with t = i / div
// (div = num - 1 with the endpoint, else num), the last element exactly stop
// with the endpoint; an integer dtype takes the floor, then convert's rules.
Expected<LocalArray> linspace(const std::shared_ptr<MemoryLedger>& ledger, typecheck::DType dtype, std::int64_t num,
                              double start, double stop, bool endpoint);
// jnp.eye: rows x columns, ones on the k-th diagonal, zeros elsewhere.
Expected<LocalArray> eye(const std::shared_ptr<MemoryLedger>& ledger, typecheck::DType dtype, std::int64_t rows,
                         std::int64_t columns, std::int64_t k);

// The elements, row-major, as doubles (exact for every dtype).
std::vector<double> element_values(const LocalArray& array);
// The elements, row-major, as integers: exact for the integer dtypes and
// bool; a float dtype is converted to int32 first (convert's rules).
Expected<std::vector<std::int64_t>> integer_values(const LocalArray& array);

// The elements' bytes, row-major, each stored as storage_t of the dtype
// (little-endian: NumPy's layout of the same dtype).
std::span<const std::byte> element_bytes(const LocalArray& array);
// An array of `dtype` and `shape` whose elements are `bytes` (as
// element_bytes gives them); INVALID_ARGUMENT when the sizes differ.
Expected<LocalArray> from_element_bytes(const std::shared_ptr<MemoryLedger>& ledger, typecheck::DType dtype,
                                        Shape shape, std::span<const std::byte> bytes);

}  // namespace devices
