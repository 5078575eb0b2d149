#include "devices/kernels.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <type_traits>

#include <fmt/format.h>

#include "devices/half_float.hpp"
#include "devices/vector_math.hpp"

namespace devices {
namespace {

using typecheck::DType;

Error invalid(std::string message) { return Error{ErrorKind::invalid_argument, std::move(message)}; }

std::string shape_text(std::span<const std::int64_t> shape) {
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

Expected<LocalArray> allocate(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, Shape shape,
                              Fill fill = Fill::uninitialized) {
  Expected<std::shared_ptr<Buffer>> buffer = Buffer::allocate(ledger, dtype, element_count(shape), fill);
  if (!buffer) return buffer.error();
  return LocalArray{std::move(*buffer), std::move(shape)};
}

Status check_array(const LocalArray& array, std::string_view what) {
  if (!array.buffer) return invalid(fmt::format("{}: no buffer", what));
  for (std::int64_t extent : array.shape) {
    if (extent < 0) return invalid(fmt::format("{}: negative extent in shape {}", what, shape_text(array.shape)));
  }
  if (element_count(array.shape) != array.buffer->element_count()) {
    return invalid(fmt::format("{}: shape {} does not hold {} elements", what, shape_text(array.shape),
                               array.buffer->element_count()));
  }
  return {};
}

std::vector<std::int64_t> row_major_strides(std::span<const std::int64_t> shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t axis = shape.size(); axis-- > 1;) strides[axis - 1] = strides[axis] * shape[axis];
  return strides;
}

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
  std::vector<std::int64_t> index(rank, 0);
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

// A new array of `shape` whose element at each index is the operand's
// element at base + sum(index * strides).
Expected<LocalArray> strided_copy(const LocalArray& operand, Shape shape, std::span<const std::int64_t> strides,
                                  std::int64_t base) {
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), operand.dtype(), std::move(shape));
  if (!result) return result;
  std::vector<std::int64_t> output_strides = row_major_strides(result->shape);
  dispatch_word(typecheck::byte_size(operand.dtype()), [&]<class Word>() {
    const Word* source = words<Word>(*operand.buffer);
    Word* destination = words<Word>(*result->buffer);
    walk(result->shape, strides, base, output_strides, 0,
         [&](std::int64_t from, std::int64_t to) { destination[to] = source[from]; });
  });
  return result;
}

// Writes all of `update` into `target` at base + sum(index * strides).
void strided_write(Buffer& target, std::span<const std::int64_t> strides, std::int64_t base,
                   const LocalArray& update) {
  std::vector<std::int64_t> update_strides = row_major_strides(update.shape);
  dispatch_word(typecheck::byte_size(update.dtype()), [&]<class Word>() {
    const Word* source = words<Word>(*update.buffer);
    Word* destination = words<Word>(target);
    walk(update.shape, update_strides, 0, strides, base,
         [&](std::int64_t from, std::int64_t to) { destination[to] = source[from]; });
  });
}

// ---- Elementwise arithmetic per dtype ----

// Wrapping integer arithmetic: compute modulo 2^64, keep the low bits.
template <class T>
inline T wrap(std::uint64_t value) {
  return static_cast<T>(value);
}

template <class T>
inline T integer_div(T x, T y) {
  if (y == 0) return static_cast<T>(-1);  // all ones: -1 signed, max unsigned
  if constexpr (std::is_signed_v<T>) {
    if (x == std::numeric_limits<T>::min() && y == -1) return x;
  }
  return static_cast<T>(x / y);
}

template <class T>
inline T integer_rem(T x, T y) {
  if (y == 0) return x;
  if constexpr (std::is_signed_v<T>) {
    if (x == std::numeric_limits<T>::min() && y == -1) return 0;
  }
  return static_cast<T>(x % y);
}

template <class T>
inline int integer_sign(T x) {
  if constexpr (std::is_signed_v<T>) {
    return (x > 0) - (x < 0);
  } else {
    return x > 0;
  }
}

template <class T>
inline T integer_floor_divide(T x, T y) {
  T quotient = integer_div(x, y);
  if constexpr (std::is_signed_v<T>) {
    if (integer_sign(x) != integer_sign(y) && integer_rem(x, y) != 0) {
      return wrap<T>(static_cast<std::uint64_t>(quotient) - 1u);
    }
  }
  return quotient;
}

template <class T>
inline T integer_pow(T base, T exponent) {
  using Unsigned = std::make_unsigned_t<T>;
  T accumulator = (base == 0 && exponent != 0) ? T{0} : T{1};
  Unsigned bits = static_cast<Unsigned>(exponent);
  for (int step = 0; step < 6; ++step) {
    if (bits & 1u) accumulator = wrap<T>(static_cast<std::uint64_t>(accumulator) * static_cast<std::uint64_t>(base));
    base = wrap<T>(static_cast<std::uint64_t>(base) * static_cast<std::uint64_t>(base));
    bits = static_cast<Unsigned>(bits >> 1);
  }
  return accumulator;
}

inline float float_floor_divide(float x, float y) {
  float remainder = std::fmod(x, y);
  float quotient = (x - remainder) / y;
  bool adjust = remainder != 0 && (std::signbit(y) != std::signbit(remainder));
  if (adjust) quotient -= 1;
  return std::round(quotient);  // lax.round: half away from zero
}

inline float float_max(float x, float y) { return (std::isnan(x) || std::isnan(y)) ? NAN : std::max(x, y); }
inline float float_min(float x, float y) { return (std::isnan(x) || std::isnan(y)) ? NAN : std::min(x, y); }

template <class T>
inline float float_sign(T x) {
  return x > 0 ? 1.0f : (x < 0 ? -1.0f : x);  // keeps NaN and signed zero
}

bool is_transcendental(UnaryOp op) {
  switch (op) {
    case UnaryOp::sin: case UnaryOp::cos: case UnaryOp::tan: case UnaryOp::tanh: case UnaryOp::exp:
    case UnaryOp::log: case UnaryOp::log1p: case UnaryOp::expm1: case UnaryOp::sqrt: case UnaryOp::rsqrt:
      return true;
    default:
      return false;
  }
}

bool gives_bool(BinaryOp op) {
  switch (op) {
    case BinaryOp::eq: case BinaryOp::ne: case BinaryOp::lt: case BinaryOp::le: case BinaryOp::gt:
    case BinaryOp::ge: case BinaryOp::logical_and: case BinaryOp::logical_or:
      return true;
    default:
      return false;
  }
}

// Applies `function` to each element of dtype D into `result` (of dtype R).
template <DType D, DType R, class Function>
void map_elements(const Buffer& operand, Buffer& result, Function function) {
  auto source = operand.elements<D>();
  auto destination = result.elements<R>();
  for (std::size_t i = 0; i < source.size(); ++i) destination[i] = function(source[i]);
}

// The vectorised f32 loop of `op`, if it has one (vector_math.hpp).
using VectorisedUnary = void (*)(const float*, float*, std::size_t);
VectorisedUnary vectorised_unary(UnaryOp op) {
  switch (op) {
    case UnaryOp::sin: return sin_f32;
    case UnaryOp::cos: return cos_f32;
    case UnaryOp::exp: return exp_f32;
    case UnaryOp::log: return log_f32;
    case UnaryOp::tanh: return tanh_f32;
    default: return nullptr;
  }
}

// Runs `function` over a float buffer of dtype D: directly on f32; bf16/f16
// go through f32 in blocks that stay in cache, rounded on store.
template <DType D>
void apply_vectorised(VectorisedUnary function, const Buffer& operand, Buffer& result) {
  auto source = operand.elements<D>();
  auto destination = result.elements<D>();
  if constexpr (D == DType::float32) {
    function(source.data(), destination.data(), source.size());
  } else {
    constexpr std::size_t block = 2048;
    float wide[block];
    float computed[block];
    for (std::size_t start = 0; start < source.size(); start += block) {
      std::size_t length = std::min(block, source.size() - start);
      for (std::size_t i = 0; i < length; ++i) wide[i] = load<D>(source[start + i]);
      function(wide, computed, length);
      for (std::size_t i = 0; i < length; ++i) destination[start + i] = store<D>(computed[i]);
    }
  }
}

template <DType D>
Status unary_typed(UnaryOp op, const Buffer& operand, Buffer& result) {
  using C = compute_t<D>;
  if constexpr (is_float(D)) {
    if (VectorisedUnary function = vectorised_unary(op)) {
      apply_vectorised<D>(function, operand, result);
      return {};
    }
  }
  if (op == UnaryOp::logical_not) {
    map_elements<D, DType::bool_>(operand, result, [](storage_t<D> x) -> std::uint8_t { return load<D>(x) == 0; });
    return {};
  }
  auto apply = [&](auto function) {
    map_elements<D, D>(operand, result, [&](storage_t<D> x) { return store<D>(function(load<D>(x))); });
  };
  if constexpr (is_float(D)) {
    switch (op) {
      case UnaryOp::neg: apply([](float x) { return -x; }); break;
      case UnaryOp::abs: apply([](float x) { return std::abs(x); }); break;
      case UnaryOp::sign: apply([](float x) { return float_sign(x); }); break;
      case UnaryOp::tan: apply([](float x) { return std::tan(x); }); break;
      case UnaryOp::log1p: apply([](float x) { return std::log1p(x); }); break;
      case UnaryOp::expm1: apply([](float x) { return std::expm1(x); }); break;
      case UnaryOp::sqrt: apply([](float x) { return std::sqrt(x); }); break;
      case UnaryOp::rsqrt: apply([](float x) { return 1.0f / std::sqrt(x); }); break;
      case UnaryOp::square: apply([](float x) { return x * x; }); break;
      default: break;  // logical_not above; sin, cos, tanh, exp, log vectorised
    }
    return {};
  } else if constexpr (D == DType::bool_) {
    return invalid("unary arithmetic on bool: convert to a number first");
  } else {
    if (is_transcendental(op)) {
      return invalid(fmt::format("this unary operation needs a floating dtype, not {}", typecheck::long_name(D)));
    }
    switch (op) {
      case UnaryOp::neg: apply([](C x) { return wrap<C>(0u - static_cast<std::uint64_t>(x)); }); break;
      case UnaryOp::abs: apply([](C x) { return x < 0 ? wrap<C>(0u - static_cast<std::uint64_t>(x)) : x; }); break;
      case UnaryOp::sign: apply([](C x) { return static_cast<C>(integer_sign(x)); }); break;
      case UnaryOp::square:
        apply([](C x) { return wrap<C>(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(x)); });
        break;
      default: break;
    }
    return {};
  }
}

// The broadcast shape of two shapes, NumPy's rules.
Expected<Shape> broadcast_shapes(const Shape& lhs, const Shape& rhs) {
  std::size_t rank = std::max(lhs.size(), rhs.size());
  Shape result(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    std::int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (a != b && a != 1 && b != 1) {
      return invalid(fmt::format("shapes {} and {} do not broadcast", shape_text(lhs), shape_text(rhs)));
    }
    result[i] = a == 1 ? b : a;
  }
  return result;
}

// Strides of `shape` seen through `result_shape` (0 on broadcast axes).
std::vector<std::int64_t> broadcast_strides(const Shape& shape, const Shape& result_shape) {
  std::vector<std::int64_t> own = row_major_strides(shape);
  std::vector<std::int64_t> strides(result_shape.size(), 0);
  std::size_t offset = result_shape.size() - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) strides[offset + i] = shape[i] == 1 ? 0 : own[i];
  return strides;
}

// Runs combine(x, y) over the broadcast operands into result of dtype R.
template <DType D, DType R, class Combine>
void combine_broadcast(const LocalArray& lhs, const LocalArray& rhs, LocalArray& result, Combine combine) {
  auto x = lhs.buffer->elements<D>();
  auto y = rhs.buffer->elements<D>();
  auto out = result.buffer->elements<R>();
  if (lhs.shape == rhs.shape) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = combine(x[i], y[i]);
    return;
  }
  if (y.size() == 1) {
    storage_t<D> scalar = y[0];
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = combine(x[i], scalar);
    return;
  }
  if (x.size() == 1) {
    storage_t<D> scalar = x[0];
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = combine(scalar, y[i]);
    return;
  }
  std::vector<std::int64_t> lhs_strides = broadcast_strides(lhs.shape, result.shape);
  std::vector<std::int64_t> rhs_strides = broadcast_strides(rhs.shape, result.shape);
  std::size_t position = 0;
  walk(result.shape, lhs_strides, 0, rhs_strides, 0, [&](std::int64_t a, std::int64_t b) {
    out[position++] = combine(x[static_cast<std::size_t>(a)], y[static_cast<std::size_t>(b)]);
  });
}

template <DType D>
Status binary_typed(BinaryOp op, const LocalArray& lhs, const LocalArray& rhs, LocalArray& result) {
  using C = compute_t<D>;
  using S = storage_t<D>;
  auto arithmetic = [&](auto function) {
    combine_broadcast<D, D>(lhs, rhs, result, [&](S x, S y) { return store<D>(function(load<D>(x), load<D>(y))); });
  };
  auto predicate = [&](auto function) {
    combine_broadcast<D, DType::bool_>(lhs, rhs, result,
                                       [&](S x, S y) -> std::uint8_t { return function(load<D>(x), load<D>(y)); });
  };
  switch (op) {
    case BinaryOp::eq: predicate([](C x, C y) { return x == y; }); return {};
    case BinaryOp::ne: predicate([](C x, C y) { return x != y; }); return {};
    case BinaryOp::lt: predicate([](C x, C y) { return x < y; }); return {};
    case BinaryOp::le: predicate([](C x, C y) { return x <= y; }); return {};
    case BinaryOp::gt: predicate([](C x, C y) { return x > y; }); return {};
    case BinaryOp::ge: predicate([](C x, C y) { return x >= y; }); return {};
    case BinaryOp::logical_and: predicate([](C x, C y) { return x != 0 && y != 0; }); return {};
    case BinaryOp::logical_or: predicate([](C x, C y) { return x != 0 || y != 0; }); return {};
    default: break;
  }
  if constexpr (is_float(D)) {
    switch (op) {
      case BinaryOp::add: arithmetic([](float x, float y) { return x + y; }); break;
      case BinaryOp::sub: arithmetic([](float x, float y) { return x - y; }); break;
      case BinaryOp::mul: arithmetic([](float x, float y) { return x * y; }); break;
      case BinaryOp::div: arithmetic([](float x, float y) { return x / y; }); break;
      case BinaryOp::rem: arithmetic([](float x, float y) { return std::fmod(x, y); }); break;
      case BinaryOp::floor_divide: arithmetic(float_floor_divide); break;
      case BinaryOp::pow: arithmetic([](float x, float y) { return std::pow(x, y); }); break;
      case BinaryOp::max: arithmetic(float_max); break;
      case BinaryOp::min: arithmetic(float_min); break;
      default: break;
    }
    return {};
  } else if constexpr (D == DType::bool_) {
    switch (op) {
      case BinaryOp::add: case BinaryOp::max: arithmetic([](C x, C y) -> C { return x | y; }); return {};
      case BinaryOp::mul: case BinaryOp::min: arithmetic([](C x, C y) -> C { return x & y; }); return {};
      default: return invalid("this arithmetic is not defined on bool: convert to a number first");
    }
  } else {
    auto wide = [](C x) { return static_cast<std::uint64_t>(x); };
    switch (op) {
      case BinaryOp::add: arithmetic([&](C x, C y) { return wrap<C>(wide(x) + wide(y)); }); break;
      case BinaryOp::sub: arithmetic([&](C x, C y) { return wrap<C>(wide(x) - wide(y)); }); break;
      case BinaryOp::mul: arithmetic([&](C x, C y) { return wrap<C>(wide(x) * wide(y)); }); break;
      case BinaryOp::div: arithmetic(integer_div<C>); break;
      case BinaryOp::rem: arithmetic(integer_rem<C>); break;
      case BinaryOp::floor_divide: arithmetic(integer_floor_divide<C>); break;
      case BinaryOp::pow: arithmetic(integer_pow<C>); break;
      case BinaryOp::max: arithmetic([](C x, C y) { return std::max(x, y); }); break;
      case BinaryOp::min: arithmetic([](C x, C y) { return std::min(x, y); }); break;
      default: break;
    }
    return {};
  }
}

// ---- Reductions ----

// An f32 sum over a run of adjacent axes, seen as [outer, reduced, inner]:
// rows summed by sum_f32, or for inner > 1 whole rows added in blocks (each
// block's partial sum kept apart, so the error grows with the block count,
// not the row count).
void sum_adjacent_f32(const float* input, float* output, std::int64_t outer, std::int64_t reduced,
                      std::int64_t inner) {
  std::size_t width = static_cast<std::size_t>(inner);
  if (inner == 1) {
    for (std::int64_t o = 0; o < outer; ++o) {
      output[o] = sum_f32(input + o * reduced, static_cast<std::size_t>(reduced));
    }
    return;
  }
  constexpr std::int64_t rows_per_block = 64;
  std::vector<float> block_sum(width);
  for (std::int64_t o = 0; o < outer; ++o) {
    float* out_row = output + o * inner;
    std::fill(out_row, out_row + width, 0.0f);
    for (std::int64_t start = 0; start < reduced; start += rows_per_block) {
      std::int64_t stop = std::min(reduced, start + rows_per_block);
      const float* first = input + (o * reduced + start) * inner;
      std::copy(first, first + width, block_sum.begin());
      for (std::int64_t r = start + 1; r < stop; ++r) add_row_f32(block_sum.data(), input + (o * reduced + r) * inner, width);
      add_row_f32(out_row, block_sum.data(), width);
    }
  }
}

template <DType D>
Status reduce_typed(ReduceOp op, const LocalArray& operand, std::span<const std::int64_t> output_strides,
                    int arg_axis, LocalArray& result) {
  using S = storage_t<D>;
  auto input = operand.buffer->elements<D>();
  std::size_t outputs = static_cast<std::size_t>(result.buffer->element_count());
  std::vector<std::int64_t> input_strides = row_major_strides(operand.shape);

  if (op == ReduceOp::argmax || op == ReduceOp::argmin) {
    std::vector<double> best(outputs, 0);
    std::vector<char> seen(outputs, 0);
    auto indices = result.buffer->elements<DType::int32>();
    std::int64_t axis_stride = input_strides[static_cast<std::size_t>(arg_axis)];
    std::int64_t axis_extent = operand.shape[static_cast<std::size_t>(arg_axis)];
    bool maximum = op == ReduceOp::argmax;
    std::int64_t position = 0;
    walk(operand.shape, input_strides, 0, output_strides, 0, [&](std::int64_t from, std::int64_t to) {
      double value = load_as_double<D>(input[static_cast<std::size_t>(from)]);
      std::size_t slot = static_cast<std::size_t>(to);
      bool better = !seen[slot] || (!std::isnan(best[slot]) &&
                                    (std::isnan(value) || (maximum ? value > best[slot] : value < best[slot])));
      if (better) {
        best[slot] = value;
        seen[slot] = 1;
        indices[slot] = static_cast<std::int32_t>((position / axis_stride) % axis_extent);
      }
      ++position;
    });
    return {};
  }

  auto output = result.buffer->elements<D>();
  if constexpr (is_float(D)) {
    float initial = op == ReduceOp::sum ? 0.0f
                    : op == ReduceOp::prod ? 1.0f
                    : op == ReduceOp::max ? -std::numeric_limits<float>::infinity()
                                          : std::numeric_limits<float>::infinity();
    std::vector<float> accumulators(outputs, initial);
    auto accumulate = [&](auto combine) {
      walk(operand.shape, input_strides, 0, output_strides, 0, [&](std::int64_t from, std::int64_t to) {
        float& accumulator = accumulators[static_cast<std::size_t>(to)];
        accumulator = combine(accumulator, load<D>(input[static_cast<std::size_t>(from)]));
      });
    };
    switch (op) {
      case ReduceOp::sum: accumulate([](float a, float x) { return a + x; }); break;
      case ReduceOp::prod: accumulate([](float a, float x) { return a * x; }); break;
      case ReduceOp::max: accumulate(float_max); break;
      case ReduceOp::min: accumulate(float_min); break;
      default: break;
    }
    for (std::size_t i = 0; i < outputs; ++i) output[i] = store<D>(accumulators[i]);
    return {};
  } else {
    if (D == DType::bool_ && (op == ReduceOp::sum || op == ReduceOp::prod)) {
      return invalid("sum/prod of bool: convert to an integer dtype first");
    }
    S initial = op == ReduceOp::sum ? S{0}
                : op == ReduceOp::prod ? S{1}
                : op == ReduceOp::max ? std::numeric_limits<S>::lowest()
                                      : std::numeric_limits<S>::max();
    if constexpr (D == DType::bool_) initial = op == ReduceOp::max ? 0 : 1;
    std::vector<S> accumulators(outputs, initial);
    auto accumulate = [&](auto combine) {
      walk(operand.shape, input_strides, 0, output_strides, 0, [&](std::int64_t from, std::int64_t to) {
        S& accumulator = accumulators[static_cast<std::size_t>(to)];
        accumulator = combine(accumulator, input[static_cast<std::size_t>(from)]);
      });
    };
    switch (op) {
      case ReduceOp::sum:
        accumulate([](S a, S x) { return wrap<S>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(x)); });
        break;
      case ReduceOp::prod:
        accumulate([](S a, S x) { return wrap<S>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(x)); });
        break;
      case ReduceOp::max: accumulate([](S a, S x) { return std::max(a, x); }); break;
      case ReduceOp::min: accumulate([](S a, S x) { return std::min(a, x); }); break;
      default: break;
    }
    std::copy(accumulators.begin(), accumulators.end(), output.begin());
    return {};
  }
}

// ---- dot_general ----

Status check_axes(std::span<const int> axes, std::size_t rank, std::string_view what, std::vector<char>& used) {
  for (int axis : axes) {
    if (axis < 0 || static_cast<std::size_t>(axis) >= rank) {
      return invalid(fmt::format("{}: axis {} out of range for rank {}", what, axis, rank));
    }
    if (used[static_cast<std::size_t>(axis)]) return invalid(fmt::format("{}: axis {} named twice", what, axis));
    used[static_cast<std::size_t>(axis)] = 1;
  }
  return {};
}

// The operand's elements, converted to T, in the order of `axes` (a
// permutation of its axes).
template <class T>
std::vector<T> gather_converted(const LocalArray& operand, const std::vector<int>& axes) {
  std::vector<std::int64_t> strides = row_major_strides(operand.shape);
  Shape permuted_shape;
  std::vector<std::int64_t> permuted_strides;
  for (int axis : axes) {
    permuted_shape.push_back(operand.shape[static_cast<std::size_t>(axis)]);
    permuted_strides.push_back(strides[static_cast<std::size_t>(axis)]);
  }
  std::vector<T> values(static_cast<std::size_t>(element_count(operand.shape)));
  std::vector<std::int64_t> output_strides = row_major_strides(permuted_shape);
  dispatch(operand.dtype(), [&]<DType D>() {
    auto source = operand.buffer->elements<D>();
    walk(permuted_shape, permuted_strides, 0, output_strides, 0, [&](std::int64_t from, std::int64_t to) {
      values[static_cast<std::size_t>(to)] = static_cast<T>(load<D>(source[static_cast<std::size_t>(from)]));
    });
  });
  return values;
}

// One axis of the product: where each of the shard's `extent` rows (or
// columns) lies in the whole's `total`, increasing.
struct GlobalGrid {
  const std::int64_t* positions;
  std::int64_t total;
  std::int64_t extent;
};

// A row-major matrix operand of sgemm, stored transposed or not.
struct Operand {
  const float* data;
  bool transposed;
};

// c[m, n] = a[m, k] b[k, n] computed per tile of the global grid of
// dot_tile_extent: every tile is one sgemm of the whole tile's extent, with
// the shard's rows and columns at their global positions in it (rows or
// columns the shard lacks are zeros and discarded). OpenBLAS's order of
// summation depends on the call's extents and an element's position in the
// call, both of which are now the same sharded or not.
void tiled_sgemm(Operand a, Operand b, std::int64_t k, const GlobalGrid& rows, const GlobalGrid& columns, float* c) {
  const std::int64_t m = rows.extent;
  const std::int64_t n = columns.extent;
  const std::int64_t lda = a.transposed ? m : k;
  const std::int64_t ldb = b.transposed ? k : n;
  std::vector<float> padded_a, padded_b, padded_c;
  // The shard's rows (columns) in the tile starting at global `start`: a
  // local range, since positions increase.
  struct Span {
    std::int64_t first, last;
  };
  auto in_tile = [](const GlobalGrid& grid, std::int64_t from, std::int64_t start, std::int64_t extent) {
    Span span{from, from};
    while (span.last < grid.extent && grid.positions[span.last] < start + extent) ++span.last;
    return span;
  };
  auto tile_start = [](std::int64_t position) { return position / dot_tile_extent * dot_tile_extent; };
  for (std::int64_t next_row = 0; next_row < m;) {
    const std::int64_t row_tile = tile_start(rows.positions[next_row]);
    const std::int64_t tile_rows = std::min(dot_tile_extent, rows.total - row_tile);
    const auto [first_row, last_row] = in_tile(rows, next_row, row_tile, tile_rows);
    next_row = last_row;
    // Every row of the tile present: they are consecutive here too.
    const bool whole_rows = last_row - first_row == tile_rows;
    // The tile's lhs: in place when the shard has all its rows, else padded.
    const float* tile_a = a.transposed ? a.data + first_row : a.data + first_row * lda;
    std::int64_t tile_lda = lda;
    if (!whole_rows) {
      padded_a.assign(static_cast<std::size_t>(tile_rows * k), 0.0f);
      for (std::int64_t i = first_row; i < last_row; ++i) {
        const std::int64_t row = rows.positions[i] - row_tile;
        for (std::int64_t p = 0; p < k; ++p) {
          float value = a.transposed ? a.data[p * lda + i] : a.data[i * lda + p];
          padded_a[static_cast<std::size_t>(a.transposed ? p * tile_rows + row : row * k + p)] = value;
        }
      }
      tile_a = padded_a.data();
      tile_lda = a.transposed ? tile_rows : k;
    }
    for (std::int64_t next_column = 0; next_column < n;) {
      const std::int64_t column_tile = tile_start(columns.positions[next_column]);
      const std::int64_t tile_columns = std::min(dot_tile_extent, columns.total - column_tile);
      const auto [first_column, last_column] = in_tile(columns, next_column, column_tile, tile_columns);
      next_column = last_column;
      const bool whole_columns = last_column - first_column == tile_columns;
      const float* tile_b = b.transposed ? b.data + first_column * ldb : b.data + first_column;
      std::int64_t tile_ldb = ldb;
      if (!whole_columns) {
        padded_b.assign(static_cast<std::size_t>(k * tile_columns), 0.0f);
        for (std::int64_t j = first_column; j < last_column; ++j) {
          const std::int64_t column = columns.positions[j] - column_tile;
          for (std::int64_t p = 0; p < k; ++p) {
            float value = b.transposed ? b.data[j * ldb + p] : b.data[p * ldb + j];
            padded_b[static_cast<std::size_t>(b.transposed ? column * k + p : p * tile_columns + column)] = value;
          }
        }
        tile_b = padded_b.data();
        tile_ldb = b.transposed ? k : tile_columns;
      }
      float* tile_c = c + first_row * n + first_column;
      std::int64_t ldc = n;
      if (!whole_rows || !whole_columns) {
        padded_c.assign(static_cast<std::size_t>(tile_rows * tile_columns), 0.0f);
        tile_c = padded_c.data();
        ldc = tile_columns;
      }
      cblas_sgemm(CblasRowMajor, a.transposed ? CblasTrans : CblasNoTrans, b.transposed ? CblasTrans : CblasNoTrans,
                  static_cast<int>(tile_rows), static_cast<int>(tile_columns), static_cast<int>(k), 1.0f, tile_a,
                  static_cast<int>(tile_lda), tile_b, static_cast<int>(tile_ldb), 0.0f, tile_c, static_cast<int>(ldc));
      if (tile_c == padded_c.data()) {
        for (std::int64_t i = first_row; i < last_row; ++i) {
          const float* from = padded_c.data() + (rows.positions[i] - row_tile) * tile_columns;
          for (std::int64_t j = first_column; j < last_column; ++j)
            c[i * n + j] = from[columns.positions[j] - column_tile];
        }
      }
    }
  }
}

// Where each element of a block lies in the whole, flattened row-major: the
// block has `extents` and starts at `origins` of `totals` per axis.
Expected<std::vector<std::int64_t>> block_positions(std::span<const std::int64_t> extents,
                                                    std::span<const std::int64_t> origins,
                                                    std::span<const std::int64_t> totals) {
  if (origins.size() != extents.size() || totals.size() != extents.size())
    return invalid("dot_general: the placement names one origin and total per free axis");
  std::vector<std::int64_t> positions{0};
  for (std::size_t axis = 0; axis < extents.size(); ++axis) {
    if (origins[axis] < 0 || origins[axis] + extents[axis] > totals[axis])
      return invalid("dot_general: the shard lies outside the placement's whole product");
    std::vector<std::int64_t> next;
    next.reserve(positions.size() * static_cast<std::size_t>(extents[axis]));
    for (std::int64_t outer : positions)
      for (std::int64_t i = 0; i < extents[axis]; ++i) next.push_back(outer * totals[axis] + origins[axis] + i);
    positions = std::move(next);
  }
  return positions;
}

// The global positions of the shard's `count` rows (or columns) of free
// `extents`: per axis, flattened from `origin` of `total`, or the whole.
Expected<std::vector<std::int64_t>> grid_positions(std::span<const std::int64_t> extents, std::int64_t count,
                                                   std::span<const std::int64_t> origins,
                                                   std::span<const std::int64_t> totals, std::int64_t origin,
                                                   std::int64_t total) {
  if (!totals.empty()) return block_positions(extents, origins, totals);
  if (total > 0 && (origin < 0 || origin + count > total))
    return invalid("dot_general: the shard lies outside the placement's whole product");
  std::vector<std::int64_t> positions(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) positions[static_cast<std::size_t>(i)] = (total > 0 ? origin : 0) + i;
  return positions;
}

void single_threaded_blas() {
  // The thread pool runs one kernel per device; BLAS threads on top of it
  // would oversubscribe the host.
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

}  // namespace

std::int64_t element_count(std::span<const std::int64_t> shape) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

Expected<LocalArray> make_local_array(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, Shape shape) {
  for (std::int64_t extent : shape) {
    if (extent < 0) return invalid(fmt::format("negative extent in shape {}", shape_text(shape)));
  }
  return allocate(ledger, dtype, std::move(shape), Fill::zeros);
}

Expected<LocalArray> unary(UnaryOp op, const LocalArray& operand) {
  if (Status status = check_array(operand, "unary"); !status) return status.error();
  DType result_dtype = op == UnaryOp::logical_not ? DType::bool_ : operand.dtype();
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), result_dtype, operand.shape);
  if (!result) return result;
  Status status = dispatch(operand.dtype(), [&]<DType D>() { return unary_typed<D>(op, *operand.buffer, *result->buffer); });
  if (!status) return status.error();
  return result;
}

Expected<LocalArray> binary(BinaryOp op, const LocalArray& lhs, const LocalArray& rhs) {
  if (Status status = check_array(lhs, "binary"); !status) return status.error();
  if (Status status = check_array(rhs, "binary"); !status) return status.error();
  if (lhs.dtype() != rhs.dtype()) {
    return invalid(fmt::format("binary operands of different dtypes: {} and {}", typecheck::long_name(lhs.dtype()),
                               typecheck::long_name(rhs.dtype())));
  }
  Expected<Shape> shape = broadcast_shapes(lhs.shape, rhs.shape);
  if (!shape) return shape.error();
  DType result_dtype = gives_bool(op) ? DType::bool_ : lhs.dtype();
  Expected<LocalArray> result = allocate(lhs.buffer->ledger(), result_dtype, std::move(*shape));
  if (!result) return result;
  Status status = dispatch(lhs.dtype(), [&]<DType D>() { return binary_typed<D>(op, lhs, rhs, *result); });
  if (!status) return status.error();
  return result;
}

Expected<LocalArray> select(const LocalArray& predicate, const LocalArray& on_true, const LocalArray& on_false) {
  for (const LocalArray* array : {&predicate, &on_true, &on_false}) {
    if (Status status = check_array(*array, "select"); !status) return status.error();
  }
  if (predicate.dtype() != DType::bool_) return invalid("select: the predicate must be bool");
  if (on_true.dtype() != on_false.dtype() || on_true.shape != on_false.shape) {
    return invalid("select: both branches need one shape and dtype");
  }
  if (!predicate.shape.empty() && predicate.shape != on_true.shape) {
    return invalid(fmt::format("select: predicate shape {} is neither scalar nor {}", shape_text(predicate.shape),
                               shape_text(on_true.shape)));
  }
  Expected<LocalArray> result = allocate(on_true.buffer->ledger(), on_true.dtype(), on_true.shape);
  if (!result) return result;
  auto choose = predicate.buffer->elements<DType::bool_>();
  bool scalar = predicate.shape.empty();
  dispatch_word(typecheck::byte_size(on_true.dtype()), [&]<class Word>() {
    const Word* yes = words<Word>(*on_true.buffer);
    const Word* no = words<Word>(*on_false.buffer);
    Word* out = words<Word>(*result->buffer);
    std::size_t count = static_cast<std::size_t>(result->buffer->element_count());
    for (std::size_t i = 0; i < count; ++i) out[i] = choose[scalar ? 0 : i] ? yes[i] : no[i];
  });
  return result;
}

Expected<LocalArray> convert(const LocalArray& operand, DType to) {
  if (Status status = check_array(operand, "convert"); !status) return status.error();
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), to, operand.shape);
  if (!result) return result;
  dispatch(operand.dtype(), [&]<DType From>() {
    dispatch(to, [&]<DType To>() {
      auto source = operand.buffer->elements<From>();
      auto destination = result->buffer->elements<To>();
      if constexpr (From == DType::float32 && (To == DType::bfloat16 || To == DType::float16)) {
        // Straight from f32: one rounding.
        for (std::size_t i = 0; i < source.size(); ++i) destination[i] = store<To>(source[i]);
      } else if constexpr (!is_float(From) && is_int(To)) {
        // Integer to integer keeps the low bits (two's complement wrap).
        for (std::size_t i = 0; i < source.size(); ++i) {
          destination[i] = wrap<storage_t<To>>(static_cast<std::uint64_t>(static_cast<std::int64_t>(source[i])));
        }
      } else {
        for (std::size_t i = 0; i < source.size(); ++i) destination[i] = store_converted<To>(load_as_double<From>(source[i]));
      }
    });
  });
  return result;
}

Expected<LocalArray> reduce(ReduceOp op, const LocalArray& operand, std::span<const int> axes) {
  if (Status status = check_array(operand, "reduce"); !status) return status.error();
  std::vector<char> reduced(operand.shape.size(), 0);
  if (Status status = check_axes(axes, operand.shape.size(), "reduce", reduced); !status) return status.error();
  bool arg = op == ReduceOp::argmax || op == ReduceOp::argmin;
  if (arg && axes.size() != 1) return invalid("argmax/argmin reduce exactly one axis");
  Shape result_shape;
  for (std::size_t axis = 0; axis < operand.shape.size(); ++axis) {
    if (!reduced[axis]) result_shape.push_back(operand.shape[axis]);
  }
  if (arg && operand.shape[static_cast<std::size_t>(axes[0])] == 0) {
    return invalid("argmax/argmin of an empty axis");
  }
  // Each input axis steps the output by its stride there, or not at all.
  std::vector<std::int64_t> result_strides = row_major_strides(result_shape);
  std::vector<std::int64_t> output_strides(operand.shape.size(), 0);
  for (std::size_t axis = 0, kept = 0; axis < operand.shape.size(); ++axis) {
    if (!reduced[axis]) output_strides[axis] = result_strides[kept++];
  }
  DType result_dtype = arg ? DType::int32 : operand.dtype();
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), result_dtype, std::move(result_shape));
  if (!result) return result;
  int arg_axis = arg ? axes[0] : 0;
  if (op == ReduceOp::sum && operand.dtype() == DType::float32 && !axes.empty()) {
    // Reduced axes all adjacent: the vectorised path.
    auto [lowest, highest] = std::minmax_element(axes.begin(), axes.end());
    std::size_t first = static_cast<std::size_t>(*lowest);
    std::size_t last = static_cast<std::size_t>(*highest) + 1;
    if (last - first == axes.size()) {
      std::int64_t outer = element_count(std::span(operand.shape).first(first));
      std::int64_t reduced_count = element_count(std::span(operand.shape).subspan(first, last - first));
      std::int64_t inner = element_count(std::span(operand.shape).subspan(last));
      sum_adjacent_f32(operand.buffer->elements<DType::float32>().data(),
                       result->buffer->elements<DType::float32>().data(), outer, reduced_count, inner);
      return result;
    }
  }
  Status status = dispatch(operand.dtype(), [&]<DType D>() {
    return reduce_typed<D>(op, operand, output_strides, arg_axis, *result);
  });
  if (!status) return status.error();
  return result;
}

Expected<LocalArray> dot_general(const LocalArray& lhs, const LocalArray& rhs, const DotDimensions& dimensions) {
  if (Status status = check_array(lhs, "dot_general"); !status) return status.error();
  if (Status status = check_array(rhs, "dot_general"); !status) return status.error();
  if (lhs.dtype() != rhs.dtype()) {
    return invalid(fmt::format("dot_general operands of different dtypes: {} and {}",
                               typecheck::long_name(lhs.dtype()), typecheck::long_name(rhs.dtype())));
  }
  std::vector<char> lhs_used(lhs.shape.size(), 0);
  std::vector<char> rhs_used(rhs.shape.size(), 0);
  for (Status status : {check_axes(dimensions.lhs_batch, lhs.shape.size(), "dot_general lhs batch", lhs_used),
                        check_axes(dimensions.lhs_contracting, lhs.shape.size(), "dot_general lhs contracting", lhs_used),
                        check_axes(dimensions.rhs_batch, rhs.shape.size(), "dot_general rhs batch", rhs_used),
                        check_axes(dimensions.rhs_contracting, rhs.shape.size(), "dot_general rhs contracting", rhs_used)}) {
    if (!status) return status.error();
  }
  if (dimensions.lhs_batch.size() != dimensions.rhs_batch.size() ||
      dimensions.lhs_contracting.size() != dimensions.rhs_contracting.size()) {
    return invalid("dot_general: lhs and rhs name different numbers of batch or contracting axes");
  }
  std::int64_t batch = 1;
  std::int64_t contracted = 1;
  Shape result_shape;
  for (std::size_t i = 0; i < dimensions.lhs_batch.size(); ++i) {
    std::int64_t extent = lhs.shape[static_cast<std::size_t>(dimensions.lhs_batch[i])];
    if (extent != rhs.shape[static_cast<std::size_t>(dimensions.rhs_batch[i])]) {
      return invalid("dot_general: batch axes of different extents");
    }
    batch *= extent;
    result_shape.push_back(extent);
  }
  for (std::size_t i = 0; i < dimensions.lhs_contracting.size(); ++i) {
    std::int64_t extent = lhs.shape[static_cast<std::size_t>(dimensions.lhs_contracting[i])];
    if (extent != rhs.shape[static_cast<std::size_t>(dimensions.rhs_contracting[i])]) {
      return invalid(fmt::format("dot_general: contracting axes of extents {} and {}", extent,
                                 rhs.shape[static_cast<std::size_t>(dimensions.rhs_contracting[i])]));
    }
    contracted *= extent;
  }
  // Operands as [batch, free, contracting] and [batch, contracting, free].
  std::vector<int> lhs_order(dimensions.lhs_batch);
  std::vector<int> rhs_order(dimensions.rhs_batch);
  std::int64_t lhs_free = 1;
  std::int64_t rhs_free = 1;
  Shape lhs_free_shape;
  Shape rhs_free_shape;
  for (std::size_t axis = 0; axis < lhs.shape.size(); ++axis) {
    if (!lhs_used[axis]) {
      lhs_free_shape.push_back(lhs.shape[axis]);
      lhs_order.push_back(static_cast<int>(axis));
      lhs_free *= lhs.shape[axis];
      result_shape.push_back(lhs.shape[axis]);
    }
  }
  rhs_order.insert(rhs_order.end(), dimensions.rhs_contracting.begin(), dimensions.rhs_contracting.end());
  for (std::size_t axis = 0; axis < rhs.shape.size(); ++axis) {
    if (!rhs_used[axis]) {
      rhs_free_shape.push_back(rhs.shape[axis]);
      rhs_order.push_back(static_cast<int>(axis));
      rhs_free *= rhs.shape[axis];
      result_shape.push_back(rhs.shape[axis]);
    }
  }
  lhs_order.insert(lhs_order.end(), dimensions.lhs_contracting.begin(), dimensions.lhs_contracting.end());

  const DType result_dtype = dimensions.result_dtype.value_or(lhs.dtype());
  Expected<LocalArray> result = allocate(lhs.buffer->ledger(), result_dtype, std::move(result_shape));
  if (!result) return result;
  std::int64_t m = lhs_free;
  std::int64_t n = rhs_free;
  std::int64_t k = contracted;
  if (is_float(lhs.dtype())) {
    single_threaded_blas();
    // An f32 operand whose axes already lie as [batch, rows, columns] or
    // [batch, columns, rows] goes to BLAS in place (the second transposed);
    // others are gathered into [batch, rows, columns] first.
    struct Matrices {
      std::vector<float> gathered;
      const float* data = nullptr;
      bool transposed = false;
    };
    auto matrices = [&](const LocalArray& operand, const std::vector<int>& order, std::size_t batch_axes,
                        std::size_t row_axes) {
      Matrices view;
      if (operand.dtype() == DType::float32) {
        std::vector<int> swapped(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(batch_axes));
        swapped.insert(swapped.end(), order.begin() + static_cast<std::ptrdiff_t>(batch_axes + row_axes), order.end());
        swapped.insert(swapped.end(), order.begin() + static_cast<std::ptrdiff_t>(batch_axes),
                       order.begin() + static_cast<std::ptrdiff_t>(batch_axes + row_axes));
        auto in_place = [](const std::vector<int>& axes) {
          for (std::size_t i = 0; i < axes.size(); ++i) {
            if (axes[i] != static_cast<int>(i)) return false;
          }
          return true;
        };
        view.data = operand.buffer->elements<DType::float32>().data();
        if (in_place(order)) return view;
        view.transposed = in_place(swapped);
        if (view.transposed) return view;
      }
      view.gathered = gather_converted<float>(operand, order);
      view.data = view.gathered.data();
      return view;
    };
    std::size_t batch_axes = dimensions.lhs_batch.size();
    Matrices a = matrices(lhs, lhs_order, batch_axes, lhs_order.size() - batch_axes - dimensions.lhs_contracting.size());
    Matrices b = matrices(rhs, rhs_order, batch_axes, dimensions.rhs_contracting.size());
    bool f32 = result_dtype == DType::float32;
    std::vector<float> rounded_later(f32 ? 0 : static_cast<std::size_t>(batch * m * n), 0.0f);
    float* c = f32 ? result->buffer->elements<DType::float32>().data() : rounded_later.data();
    const DotPlacement& placement = dimensions.placement;
    Expected<std::vector<std::int64_t>> row_positions =
        grid_positions(lhs_free_shape, m, placement.lhs_free_origins, placement.lhs_free_totals, placement.row_origin,
                       placement.rows_total);
    if (!row_positions) return row_positions.error();
    Expected<std::vector<std::int64_t>> column_positions =
        grid_positions(rhs_free_shape, n, placement.rhs_free_origins, placement.rhs_free_totals,
                       placement.column_origin, placement.columns_total);
    if (!column_positions) return column_positions.error();
    if (m > 0 && n > 0 && k > 0) {
      auto total = [](std::span<const std::int64_t> totals, std::int64_t flattened, std::int64_t extent) {
        return !totals.empty() ? element_count(totals) : flattened > 0 ? flattened : extent;
      };
      GlobalGrid rows{row_positions->data(), total(placement.lhs_free_totals, placement.rows_total, m), m};
      GlobalGrid columns{column_positions->data(), total(placement.rhs_free_totals, placement.columns_total, n), n};
      for (std::int64_t index = 0; index < batch; ++index) {
        tiled_sgemm({a.data + index * m * k, a.transposed}, {b.data + index * k * n, b.transposed}, k, rows, columns,
                    c + index * m * n);
      }
    } else {
      std::fill(c, c + batch * m * n, 0.0f);
    }
    dispatch(result_dtype, [&]<DType D>() {
      if constexpr (D != DType::float32) {
        auto out = result->buffer->elements<D>();
        for (std::size_t i = 0; i < rounded_later.size(); ++i) out[i] = store_converted<D>(rounded_later[i]);
      }
    });
    return result;
  }
  std::vector<std::int64_t> a = gather_converted<std::int64_t>(lhs, lhs_order);
  std::vector<std::int64_t> b = gather_converted<std::int64_t>(rhs, rhs_order);
  std::vector<std::uint64_t> c(static_cast<std::size_t>(batch * m * n), 0);
  bool logical = lhs.dtype() == DType::bool_;
  for (std::int64_t index = 0; index < batch; ++index) {
    const std::int64_t* a_block = a.data() + index * m * k;
    const std::int64_t* b_block = b.data() + index * k * n;
    std::uint64_t* c_block = c.data() + index * m * n;
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t p = 0; p < k; ++p) {
        std::uint64_t left = static_cast<std::uint64_t>(a_block[i * k + p]);
        if (left == 0) continue;
        for (std::int64_t j = 0; j < n; ++j) {
          std::uint64_t product = left * static_cast<std::uint64_t>(b_block[p * n + j]);
          c_block[i * n + j] = logical ? (c_block[i * n + j] | (product != 0)) : c_block[i * n + j] + product;
        }
      }
    }
  }
  dispatch(result_dtype, [&]<DType D>() {
    auto out = result->buffer->elements<D>();
    if constexpr (is_float(D)) {
      // Exact integer sums, rounded once.
      for (std::size_t i = 0; i < c.size(); ++i) out[i] = store_converted<D>(static_cast<double>(static_cast<std::int64_t>(c[i])));
    } else {
      for (std::size_t i = 0; i < c.size(); ++i) out[i] = wrap<storage_t<D>>(c[i]);
    }
  });
  return result;
}

Expected<LocalArray> transpose(const LocalArray& operand, std::span<const int> permutation) {
  if (Status status = check_array(operand, "transpose"); !status) return status.error();
  std::vector<char> used(operand.shape.size(), 0);
  if (Status status = check_axes(permutation, operand.shape.size(), "transpose", used); !status) return status.error();
  if (permutation.size() != operand.shape.size()) return invalid("transpose: the permutation must name every axis");
  std::vector<std::int64_t> strides = row_major_strides(operand.shape);
  Shape shape;
  std::vector<std::int64_t> permuted_strides;
  for (int axis : permutation) {
    shape.push_back(operand.shape[static_cast<std::size_t>(axis)]);
    permuted_strides.push_back(strides[static_cast<std::size_t>(axis)]);
  }
  return strided_copy(operand, std::move(shape), permuted_strides, 0);
}

Expected<LocalArray> broadcast_in_dim(const LocalArray& operand, Shape shape,
                                      std::span<const int> broadcast_dimensions) {
  if (Status status = check_array(operand, "broadcast_in_dim"); !status) return status.error();
  if (broadcast_dimensions.size() != operand.shape.size()) {
    return invalid("broadcast_in_dim: one result axis per operand axis");
  }
  std::vector<std::int64_t> own = row_major_strides(operand.shape);
  std::vector<std::int64_t> strides(shape.size(), 0);
  int previous = -1;
  for (std::size_t axis = 0; axis < operand.shape.size(); ++axis) {
    int target = broadcast_dimensions[axis];
    if (target <= previous || static_cast<std::size_t>(target) >= shape.size()) {
      return invalid("broadcast_in_dim: result axes must increase and lie in the result");
    }
    previous = target;
    std::int64_t extent = operand.shape[axis];
    if (extent != 1 && extent != shape[static_cast<std::size_t>(target)]) {
      return invalid(fmt::format("broadcast_in_dim: operand extent {} cannot fill result extent {}", extent,
                                 shape[static_cast<std::size_t>(target)]));
    }
    strides[static_cast<std::size_t>(target)] = extent == 1 ? 0 : own[axis];
  }
  for (std::int64_t extent : shape) {
    if (extent < 0) return invalid("broadcast_in_dim: negative extent");
  }
  return strided_copy(operand, std::move(shape), strides, 0);
}

Expected<LocalArray> reshape(const LocalArray& operand, Shape shape) {
  if (Status status = check_array(operand, "reshape"); !status) return status.error();
  for (std::int64_t extent : shape) {
    if (extent < 0) return invalid("reshape: negative extent");
  }
  if (element_count(shape) != element_count(operand.shape)) {
    return invalid(fmt::format("cannot reshape {} into {}", shape_text(operand.shape), shape_text(shape)));
  }
  return LocalArray{operand.buffer, std::move(shape)};
}

Expected<LocalArray> slice(const LocalArray& operand, std::span<const std::int64_t> start,
                           std::span<const std::int64_t> limit, std::span<const std::int64_t> strides) {
  if (Status status = check_array(operand, "slice"); !status) return status.error();
  std::size_t rank = operand.shape.size();
  if (start.size() != rank || limit.size() != rank || (!strides.empty() && strides.size() != rank)) {
    return invalid("slice: one start, limit and stride per axis");
  }
  std::vector<std::int64_t> own = row_major_strides(operand.shape);
  Shape shape;
  std::vector<std::int64_t> steps;
  std::int64_t base = 0;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    std::int64_t step = strides.empty() ? 1 : strides[axis];
    if (step < 1 || start[axis] < 0 || limit[axis] < start[axis] || limit[axis] > operand.shape[axis]) {
      return invalid(fmt::format("slice: [{}:{}:{}] does not fit axis {} of extent {}", start[axis], limit[axis], step,
                                 axis, operand.shape[axis]));
    }
    shape.push_back((limit[axis] - start[axis] + step - 1) / step);
    steps.push_back(own[axis] * step);
    base += start[axis] * own[axis];
  }
  return strided_copy(operand, std::move(shape), steps, base);
}

Expected<LocalArray> rev(const LocalArray& operand, std::span<const int> dimensions) {
  if (Status status = check_array(operand, "rev"); !status) return status.error();
  std::vector<std::int64_t> steps = row_major_strides(operand.shape);
  std::int64_t base = 0;
  std::vector<char> reversed(operand.shape.size(), 0);
  for (int axis : dimensions) {
    if (axis < 0 || static_cast<std::size_t>(axis) >= operand.shape.size() || reversed[static_cast<std::size_t>(axis)])
      return invalid(fmt::format("rev: axis {} is not a distinct axis of rank {}", axis, operand.shape.size()));
    auto a = static_cast<std::size_t>(axis);
    reversed[a] = 1;
    if (operand.shape[a] > 0) base += (operand.shape[a] - 1) * steps[a];
    steps[a] = -steps[a];
  }
  return strided_copy(operand, operand.shape, steps, base);
}

Expected<LocalArray> dynamic_slice(const LocalArray& operand, std::span<const std::int64_t> start,
                                   std::span<const std::int64_t> sizes) {
  if (Status status = check_array(operand, "dynamic_slice"); !status) return status.error();
  std::size_t rank = operand.shape.size();
  if (start.size() != rank || sizes.size() != rank) return invalid("dynamic_slice: one start and size per axis");
  std::vector<std::int64_t> clamped_start;
  std::vector<std::int64_t> limit;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    if (sizes[axis] < 0 || sizes[axis] > operand.shape[axis]) {
      return invalid(fmt::format("dynamic_slice: size {} does not fit axis {} of extent {}", sizes[axis], axis,
                                 operand.shape[axis]));
    }
    clamped_start.push_back(std::clamp<std::int64_t>(start[axis], 0, operand.shape[axis] - sizes[axis]));
    limit.push_back(clamped_start.back() + sizes[axis]);
  }
  return slice(operand, clamped_start, limit);
}

Expected<LocalArray> dynamic_update_slice(const LocalArray& operand, const LocalArray& update,
                                          std::span<const std::int64_t> start) {
  if (Status status = check_array(operand, "dynamic_update_slice"); !status) return status.error();
  if (Status status = check_array(update, "dynamic_update_slice"); !status) return status.error();
  std::size_t rank = operand.shape.size();
  if (update.dtype() != operand.dtype() || update.shape.size() != rank || start.size() != rank) {
    return invalid("dynamic_update_slice: the update needs the operand's dtype and rank, and one start per axis");
  }
  std::vector<std::int64_t> strides = row_major_strides(operand.shape);
  std::int64_t base = 0;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    if (update.shape[axis] > operand.shape[axis]) return invalid("dynamic_update_slice: the update is larger");
    base += std::clamp<std::int64_t>(start[axis], 0, operand.shape[axis] - update.shape[axis]) * strides[axis];
  }
  Expected<std::shared_ptr<Buffer>> copy = operand.buffer->clone();
  if (!copy) return copy.error();
  strided_write(**copy, strides, base, update);
  return LocalArray{std::move(*copy), operand.shape};
}

Expected<LocalArray> concatenate(std::span<const LocalArray> operands, int dimension) {
  if (operands.empty()) return invalid("concatenate needs at least one operand");
  for (const LocalArray& operand : operands) {
    if (Status status = check_array(operand, "concatenate"); !status) return status.error();
  }
  const LocalArray& first = operands.front();
  std::size_t rank = first.shape.size();
  if (dimension < 0 || static_cast<std::size_t>(dimension) >= rank) return invalid("concatenate: axis out of range");
  Shape shape = first.shape;
  shape[static_cast<std::size_t>(dimension)] = 0;
  for (const LocalArray& operand : operands) {
    bool matches = operand.dtype() == first.dtype() && operand.shape.size() == rank;
    for (std::size_t axis = 0; matches && axis < rank; ++axis) {
      matches = axis == static_cast<std::size_t>(dimension) || operand.shape[axis] == first.shape[axis];
    }
    if (!matches) {
      return invalid(fmt::format("concatenate: operands {} and {} differ off axis {}", shape_text(first.shape),
                                 shape_text(operand.shape), dimension));
    }
    shape[static_cast<std::size_t>(dimension)] += operand.shape[static_cast<std::size_t>(dimension)];
  }
  Expected<LocalArray> result = allocate(first.buffer->ledger(), first.dtype(), shape);
  if (!result) return result;
  std::vector<std::int64_t> strides = row_major_strides(shape);
  std::int64_t offset = 0;
  for (const LocalArray& operand : operands) {
    strided_write(*result->buffer, strides, offset * strides[static_cast<std::size_t>(dimension)], operand);
    offset += operand.shape[static_cast<std::size_t>(dimension)];
  }
  return result;
}

Expected<LocalArray> iota(const std::shared_ptr<MemoryLedger>& ledger, DType dtype, Shape shape, int dimension) {
  if (dimension < 0 || static_cast<std::size_t>(dimension) >= shape.size()) return invalid("iota: axis out of range");
  Expected<LocalArray> result = make_local_array(ledger, dtype, std::move(shape));
  if (!result) return result;
  std::vector<std::int64_t> strides = row_major_strides(result->shape);
  std::int64_t stride = strides[static_cast<std::size_t>(dimension)];
  std::int64_t extent = result->shape[static_cast<std::size_t>(dimension)];
  dispatch(dtype, [&]<DType D>() {
    auto out = result->buffer->elements<D>();
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = store_converted<D>(static_cast<double>((static_cast<std::int64_t>(i) / stride) % extent));
    }
  });
  return result;
}

Expected<LocalArray> pad(const LocalArray& operand, const LocalArray& padding_value, std::span<const PadConfig> config) {
  if (Status status = check_array(operand, "pad"); !status) return status.error();
  if (Status status = check_array(padding_value, "pad"); !status) return status.error();
  std::size_t rank = operand.shape.size();
  if (padding_value.dtype() != operand.dtype() || !padding_value.shape.empty() || config.size() != rank) {
    return invalid("pad: a scalar padding value of the operand's dtype and one config per axis");
  }
  Shape shape;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    const PadConfig& axis_config = config[axis];
    std::int64_t extent = operand.shape[axis];
    if (axis_config.interior < 0) return invalid("pad: negative interior padding");
    std::int64_t spread = extent == 0 ? 0 : (extent - 1) * (axis_config.interior + 1) + 1;
    std::int64_t padded = axis_config.low + spread + axis_config.high;
    if (padded < 0) return invalid(fmt::format("pad: axis {} would have negative extent {}", axis, padded));
    shape.push_back(padded);
  }
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), operand.dtype(), shape);
  if (!result) return result;
  std::vector<std::int64_t> input_strides = row_major_strides(operand.shape);
  std::vector<std::int64_t> output_strides = row_major_strides(shape);
  dispatch_word(typecheck::byte_size(operand.dtype()), [&]<class Word>() {
    Word* out = words<Word>(*result->buffer);
    const Word* in = words<Word>(*operand.buffer);
    std::fill(out, out + result->buffer->element_count(), words<Word>(*padding_value.buffer)[0]);
    // Each input element lands at low + index * (interior + 1) on every
    // axis, unless negative padding cropped it away.
    std::vector<std::int64_t> index(rank, 0);
    std::int64_t count = element_count(operand.shape);
    for (std::int64_t linear = 0; linear < count; ++linear) {
      std::int64_t target = 0;
      bool inside = true;
      for (std::size_t axis = 0; axis < rank; ++axis) {
        std::int64_t position = config[axis].low + index[axis] * (config[axis].interior + 1);
        inside = inside && position >= 0 && position < shape[axis];
        target += position * output_strides[axis];
      }
      if (inside) out[target] = in[linear];
      for (std::size_t axis = rank; axis-- > 0;) {
        if (++index[axis] < operand.shape[axis]) break;
        index[axis] = 0;
      }
    }
  });
  return result;
}

}  // namespace devices
