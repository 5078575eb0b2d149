// What the kernel families (devices/kernels/*.cpp) share and nothing else
// sees: dtype dispatch, loading and storing elements in their compute type,
// array checks, and the strided walks that move elements.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include <boost/container/small_vector.hpp>
#include <fmt/format.h>

#include "devices/half_float.hpp"
#include "devices/kernels.hpp"

namespace devices::kernel_support {

using typecheck::DType;

inline Error invalid(std::string message) { return Error{ErrorKind::invalid_argument, std::move(message)}; }

inline std::string shape_text(std::span<const std::int64_t> shape) {
  return fmt::format("({})", fmt::join(shape, ", "));
}

// Calls body.template operator()<D>() for the runtime dtype: one dispatch per
// kernel call, so the loops inside are compiled per dtype.
template <class Body>
decltype(auto) dispatch(DType dtype, Body&& body) {
  switch (dtype) {
    case DType::bool_: return body.template operator()<DType::bool_>();
    case DType::int8: return body.template operator()<DType::int8>();
    case DType::int32: return body.template operator()<DType::int32>();
    case DType::uint32: return body.template operator()<DType::uint32>();
    case DType::float16: return body.template operator()<DType::float16>();
    case DType::bfloat16: return body.template operator()<DType::bfloat16>();
    case DType::float32: break;
  }
  return body.template operator()<DType::float32>();
}

constexpr bool is_float(DType dtype) {
  return dtype == DType::float32 || dtype == DType::bfloat16 || dtype == DType::float16;
}
constexpr bool is_int(DType dtype) { return dtype == DType::int8 || dtype == DType::int32 || dtype == DType::uint32; }

// The type a dtype is computed in: f32 for every float, the storage type
// otherwise.
template <DType D>
using compute_t = std::conditional_t<is_float(D), float, storage_t<D>>;

template <DType D>
inline compute_t<D> load(storage_t<D> value) {
  if constexpr (D == DType::bfloat16) {
    return float_from_bfloat16(value);
  } else if constexpr (D == DType::float16) {
    return float_from_float16(value);
  } else {
    return value;
  }
}

template <DType D>
inline storage_t<D> store(compute_t<D> value) {
  if constexpr (D == DType::bfloat16) {
    return bfloat16_from_float(value);
  } else if constexpr (D == DType::float16) {
    return float16_from_float(value);
  } else {
    return value;
  }
}

// Any value as dtype D, by convert's rules (see kernels.hpp).
template <DType D>
inline storage_t<D> store_converted(double value) {
  using T = storage_t<D>;
  if constexpr (D == DType::bool_) {
    return value != 0 ? 1 : 0;
  } else if constexpr (is_float(D)) {
    return store<D>(static_cast<float>(value));
  } else {
    if (std::isnan(value)) return 0;
    double truncated = std::trunc(value);
    if (truncated <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
    if (truncated >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(truncated);
  }
}

template <DType D>
inline double load_as_double(storage_t<D> value) {
  return static_cast<double>(load<D>(value));
}

inline Expected<LocalArray> allocate(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, Shape shape,
                              Fill fill = Fill::uninitialized) {
  Expected<std::shared_ptr<Buffer>> buffer = Buffer::allocate(ledger, dtype, element_count(shape), fill);
  if (!buffer) return buffer.error();
  return LocalArray{std::move(*buffer), std::move(shape)};
}

// What check_array reports, out of line: the check itself is inlined into
// every kernel call, which on a small shard is mostly such bookkeeping.
[[gnu::noinline, gnu::cold]] inline Status array_error(const LocalArray& array, std::string_view what) {
  if (!array.buffer) return invalid(fmt::format("{}: no buffer", what));
  for (std::int64_t extent : array.shape) {
    if (extent < 0) return invalid(fmt::format("{}: negative extent in shape {}", what, shape_text(array.shape)));
  }
  return invalid(fmt::format("{}: shape {} does not hold {} elements", what, shape_text(array.shape),
                             array.buffer->element_count()));
}

inline Status check_array(const LocalArray& array, std::string_view what) {
  if (!array.buffer) return array_error(array, what);
  // One pass: no negative extent, and element_count's product (0 with a zero extent).
  std::uint64_t count = 1;
  bool negative = false, empty = false;
  for (std::int64_t extent : array.shape) {
    negative = negative || extent < 0;
    empty = empty || extent == 0;
    count *= static_cast<std::uint64_t>(extent);
  }
  if (negative || (empty ? 0 : static_cast<std::int64_t>(count)) != array.buffer->element_count())
    return array_error(array, what);
  return {};
}

inline std::vector<std::int64_t> row_major_strides(std::span<const std::int64_t> shape) {
  // An empty array is never indexed, and its other extents' product may
  // overflow (a (0, 2**62, 16) cotangent): its strides are all 0.
  if (element_count(shape) == 0) return std::vector<std::int64_t>(shape.size(), 0);
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t axis = shape.size(); axis-- > 1;) strides[axis - 1] = strides[axis] * shape[axis];
  return strides;
}

// Row-major strides kept on the stack for the usual ranks: a kernel on a
// small shard is mostly its bookkeeping. (Spans take data() and size(): a
// small vector's iterators are not contiguous ones to std::span.)
using InlineStrides = boost::container::small_vector<std::int64_t, 8>;
inline InlineStrides inline_row_major_strides(std::span<const std::int64_t> shape) {
  InlineStrides strides(shape.size());
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return strides;  // as row_major_strides: never indexed, 0s
  if (shape.empty()) return strides;
  strides.back() = 1;
  for (std::size_t axis = shape.size(); axis-- > 1;) strides[axis - 1] = strides[axis] * shape[axis];
  return strides;
}
inline std::span<const std::int64_t> view(const InlineStrides& strides) { return {strides.data(), strides.size()}; }

// Visits every index of `shape` in row-major order, calling
// visit(offset_a, offset_b) with the offsets of two strided views. The last
// axis runs in an inner loop.
template <class Visit>
void walk(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides_a, std::int64_t base_a,
          std::span<const std::int64_t> strides_b, std::int64_t base_b, Visit&& visit) {
  if (element_count(shape) == 0) return;
  std::size_t rank = shape.size();
  if (rank == 0) {
    visit(base_a, base_b);
    return;
  }
  // The outer axes' indices: on the stack for the usual ranks.
  std::array<std::int64_t, 8> inline_index{};
  std::vector<std::int64_t> heap_index;
  if (rank > inline_index.size()) heap_index.assign(rank, 0);
  std::int64_t* index = rank > inline_index.size() ? heap_index.data() : inline_index.data();
  std::int64_t inner = shape[rank - 1];
  std::int64_t inner_a = strides_a[rank - 1];
  std::int64_t inner_b = strides_b[rank - 1];
  std::int64_t offset_a = base_a;
  std::int64_t offset_b = base_b;
  while (true) {
    for (std::int64_t i = 0; i < inner; ++i) visit(offset_a + i * inner_a, offset_b + i * inner_b);
    // Advance the outer axes like an odometer.
    std::size_t axis = rank - 1;
    while (true) {
      if (axis == 0) return;
      --axis;
      ++index[axis];
      offset_a += strides_a[axis];
      offset_b += strides_b[axis];
      if (index[axis] < shape[axis]) break;
      offset_a -= strides_a[axis] * shape[axis];
      offset_b -= strides_b[axis] * shape[axis];
      index[axis] = 0;
    }
  }
}

// `count` f32 elements through the element function of a float unary op
// (not logical_not) or of a binary op that gives a float (not the
// comparisons and logical ops), as unary() and binary() compute them
// (elementwise.cpp): the fused loop (fusion.cpp) calls these, so a fused
// chain equals the unfused one bit for bit.
void float_unary_block(UnaryOp op, const float* in, float* out, std::size_t count);
void float_binary_block(BinaryOp op, const float* lhs, const float* rhs, float* out, std::size_t count);

// Element words of 1, 2 or 4 bytes, for kernels that only move elements.
template <class Body>
decltype(auto) dispatch_word(int byte_size, Body&& body) {
  if (byte_size == 1) return body.template operator()<std::uint8_t>();
  if (byte_size == 2) return body.template operator()<std::uint16_t>();
  return body.template operator()<std::uint32_t>();
}

template <class Word>
const Word* words(const Buffer& buffer) {
  return reinterpret_cast<const Word*>(buffer.bytes().data());
}
template <class Word>
Word* words(Buffer& buffer) {
  return reinterpret_cast<Word*>(buffer.bytes().data());
}

// Copies each element of `shape` from source[base_a + sum(index * strides_a)]
// to destination[base_b + sum(index * strides_b)]: a row of the last axis
// consecutive in both (and not short) by one memcpy.
template <class Word>
void copy_words(const Word* source, std::span<const std::int64_t> strides_a, std::int64_t base_a, Word* destination,
                std::span<const std::int64_t> strides_b, std::int64_t base_b, std::span<const std::int64_t> shape) {
  constexpr std::int64_t shortest_copied_row = 8;
  const std::size_t rank = shape.size();
  if (rank > 0 && strides_a[rank - 1] == 1 && strides_b[rank - 1] == 1 && shape[rank - 1] >= shortest_copied_row) {
    const auto row_bytes = static_cast<std::size_t>(shape[rank - 1]) * sizeof(Word);
    walk(shape.first(rank - 1), strides_a.first(rank - 1), base_a, strides_b.first(rank - 1), base_b,
         [&](std::int64_t from, std::int64_t to) { std::memcpy(destination + to, source + from, row_bytes); });
    return;
  }
  walk(shape, strides_a, base_a, strides_b, base_b, [&](std::int64_t from, std::int64_t to) { destination[to] = source[from]; });
}

// A new array of `shape` whose element at each index is the operand's
// element at base + sum(index * strides).
inline Expected<LocalArray> strided_copy(const LocalArray& operand, Shape shape, std::span<const std::int64_t> strides,
                                  std::int64_t base) {
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), operand.dtype(), std::move(shape));
  if (!result) return result;
  const InlineStrides output_strides = inline_row_major_strides(result->shape);
  dispatch_word(typecheck::byte_size(operand.dtype()), [&]<class Word>() {
    const Word* source = words<Word>(*operand.buffer);
    Word* destination = words<Word>(*result->buffer);
    copy_words(source, strides, base, destination, view(output_strides), 0, result->shape);
  });
  return result;
}

// Writes all of `update` into `target` at base + sum(index * strides).
inline void strided_write(Buffer& target, std::span<const std::int64_t> strides, std::int64_t base,
                   const LocalArray& update) {
  const InlineStrides update_strides = inline_row_major_strides(update.shape);
  dispatch_word(typecheck::byte_size(update.dtype()), [&]<class Word>() {
    const Word* source = words<Word>(*update.buffer);
    Word* destination = words<Word>(target);
    copy_words(source, view(update_strides), 0, destination, strides, base, update.shape);
  });
}

// Wrapping integer arithmetic: compute modulo 2^64, keep the low bits.
template <class T>
inline T wrap(std::uint64_t value) {
  return static_cast<T>(value);
}

// Checks that `axes` are distinct axes of a rank-`rank` array, marking them in `used`.
inline Status check_axes(std::span<const int> axes, std::size_t rank, std::string_view what, std::span<char> used) {
  for (int axis : axes) {
    if (axis < 0 || static_cast<std::size_t>(axis) >= rank) {
      return invalid(fmt::format("{}: axis {} out of range for rank {}", what, axis, rank));
    }
    if (used[static_cast<std::size_t>(axis)]) return invalid(fmt::format("{}: axis {} named twice", what, axis));
    used[static_cast<std::size_t>(axis)] = 1;
  }
  return {};
}

}  // namespace devices::kernel_support
