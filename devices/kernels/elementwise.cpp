// Elementwise kernels (kernels.hpp): unary and binary arithmetic per dtype with
// NumPy broadcasting, select and dtype conversion.
#include "devices/kernels/support.hpp"

#include "devices/vector_math.hpp"
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace devices {

using namespace kernel_support;
using typecheck::DType;

namespace {

// ---- Elementwise arithmetic per dtype ----

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


template <class T>
inline float float_sign(T x) {
  return x > 0 ? 1.0f : (x < 0 ? -1.0f : x);  // keeps NaN and signed zero
}

// The inverse error function in single precision: M. Giles, "Approximating
// the erfinv function" (GPU Computing Gems), the polynomial XLA uses for f32.
float erf_inv_f32(float x) {
  if (x <= -1.0f) return x == -1.0f ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  if (x >= 1.0f) return x == 1.0f ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  float w = -std::log1p(-x * x);
  float p;
  if (w < 5.0f) {
    w = w - 2.5f;
    p = 2.81022636e-08f;
    for (float c : {3.43273939e-07f, -3.5233877e-06f, -4.39150654e-06f, 0.00021858087f, -0.00125372503f,
                    -0.00417768164f, 0.246640727f, 1.50140941f})
      p = c + p * w;
  } else {
    w = std::sqrt(w) - 3.0f;
    p = -0.000200214257f;
    for (float c : {0.000100950558f, 0.00134934322f, -0.00367342844f, 0.00573950773f, -0.0076224613f,
                    0.00943887047f, 1.00167406f, 2.83297682f})
      p = c + p * w;
  }
  return p * x;
}

bool is_transcendental(UnaryOp op) {
  switch (op) {
    case UnaryOp::sin: case UnaryOp::cos: case UnaryOp::tan: case UnaryOp::tanh: case UnaryOp::exp:
    case UnaryOp::log: case UnaryOp::log1p: case UnaryOp::expm1: case UnaryOp::sqrt: case UnaryOp::rsqrt:
    case UnaryOp::erf: case UnaryOp::erf_inv:
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

// Calls visit(f) with the f32 element function of a float unary op (all
// but logical_not and the vectorised ones: vectorised_unary). The unfused
// kernel and the fused loop (kernels/fusion.hpp) share these, so a fused
// chain equals the unfused one bit for bit.
template <class Visit>
[[gnu::always_inline]] inline void with_float_unary(UnaryOp op, Visit&& visit) {
  switch (op) {
    case UnaryOp::neg: visit([](float x) { return -x; }); break;
    case UnaryOp::abs: visit([](float x) { return std::abs(x); }); break;
    case UnaryOp::sign: visit([](float x) { return float_sign(x); }); break;
    case UnaryOp::tan: visit([](float x) { return std::tan(x); }); break;
    case UnaryOp::log1p: visit([](float x) { return std::log1p(x); }); break;
    case UnaryOp::expm1: visit([](float x) { return std::expm1(x); }); break;
    case UnaryOp::sqrt: visit([](float x) { return std::sqrt(x); }); break;
    case UnaryOp::rsqrt: visit([](float x) { return 1.0f / std::sqrt(x); }); break;
    case UnaryOp::square: visit([](float x) { return x * x; }); break;
    case UnaryOp::erf: visit([](float x) { return std::erf(x); }); break;
    case UnaryOp::erf_inv: visit(erf_inv_f32); break;
    case UnaryOp::floor: visit([](float x) { return std::floor(x); }); break;
    case UnaryOp::ceil: visit([](float x) { return std::ceil(x); }); break;
    case UnaryOp::round: visit([](float x) { return std::nearbyint(x); }); break;  // default mode: ties to even
    default: break;  // logical_not gives bool; sin, cos, tanh, exp, log are vectorised
  }
}

// The same for the float binary ops that give a float (not the comparisons
// and logical ops, which give bool).
template <class Visit>
[[gnu::always_inline]] inline void with_float_binary(BinaryOp op, Visit&& visit) {
  switch (op) {
    case BinaryOp::add: visit([](float x, float y) { return x + y; }); break;
    case BinaryOp::sub: visit([](float x, float y) { return x - y; }); break;
    case BinaryOp::mul: visit([](float x, float y) { return x * y; }); break;
    case BinaryOp::div: visit([](float x, float y) { return x / y; }); break;
    case BinaryOp::rem: visit([](float x, float y) { return std::fmod(x, y); }); break;
    case BinaryOp::floor_divide: visit(float_floor_divide); break;
    case BinaryOp::pow: visit([](float x, float y) { return std::pow(x, y); }); break;
    case BinaryOp::atan2: visit([](float y, float x) { return std::atan2(y, x); }); break;
    case BinaryOp::max: visit(float_max); break;
    case BinaryOp::min: visit(float_min); break;
    default: break;
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

// A float buffer of dtype D through float_unary_block (the fused loop's
// function too, so fused and unfused results agree bit for bit): f32
// directly; bf16/f16 through f32 in blocks that stay in cache, rounded on
// store.
template <DType D>
void unary_float_blocks(UnaryOp op, const Buffer& operand, Buffer& result) {
  auto source = operand.elements<D>();
  auto destination = result.elements<D>();
  if constexpr (D == DType::float32) {
    float_unary_block(op, source.data(), destination.data(), source.size());
  } else {
    constexpr std::size_t block = 2048;
    float wide[block];
    float computed[block];
    for (std::size_t start = 0; start < source.size(); start += block) {
      std::size_t length = std::min(block, source.size() - start);
      for (std::size_t i = 0; i < length; ++i) wide[i] = load<D>(source[start + i]);
      float_unary_block(op, wide, computed, length);
      for (std::size_t i = 0; i < length; ++i) destination[start + i] = store<D>(computed[i]);
    }
  }
}

template <DType D>
Status unary_typed(UnaryOp op, const Buffer& operand, Buffer& result) {
  using C = compute_t<D>;
  if (op == UnaryOp::logical_not) {
    map_elements<D, DType::bool_>(operand, result, [](storage_t<D> x) -> std::uint8_t { return load<D>(x) == 0; });
    return {};
  }
  if constexpr (is_float(D)) {
    if (op == UnaryOp::bitwise_not) return invalid("bitwise_not needs an integer or bool dtype");
    unary_float_blocks<D>(op, operand, result);
    return {};
  } else if constexpr (D == DType::bool_) {
    if (op == UnaryOp::bitwise_not) {
      map_elements<D, D>(operand, result, [](std::uint8_t x) -> std::uint8_t { return x == 0; });
      return {};
    }
    return invalid("unary arithmetic on bool: convert to a number first");
  } else {
    if (is_transcendental(op)) {
      return invalid(fmt::format("this unary operation needs a floating dtype, not {}", typecheck::long_name(D)));
    }
    auto apply = [&](auto function) {
      map_elements<D, D>(operand, result, [&](storage_t<D> x) { return store<D>(function(load<D>(x))); });
    };
    switch (op) {
      case UnaryOp::neg: apply([](C x) { return wrap<C>(0u - static_cast<std::uint64_t>(x)); }); break;
      case UnaryOp::abs: apply([](C x) { return x < 0 ? wrap<C>(0u - static_cast<std::uint64_t>(x)) : x; }); break;
      case UnaryOp::sign: apply([](C x) { return static_cast<C>(integer_sign(x)); }); break;
      case UnaryOp::square:
        apply([](C x) { return wrap<C>(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(x)); });
        break;
      case UnaryOp::bitwise_not: apply([](C x) { return static_cast<C>(~x); }); break;
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
  // A row of the last axis at a time, each operand read along it or
  // repeated: loops the compiler vectorises (a softmax's division by its
  // row sums).
  const std::size_t rank = result.shape.size();
  const std::int64_t row = result.shape[rank - 1];
  const bool lhs_runs = lhs_strides[rank - 1] != 0, rhs_runs = rhs_strides[rank - 1] != 0;
  Shape rows(result.shape.begin(), result.shape.end() - 1);
  std::span<const std::int64_t> lhs_outer(lhs_strides.data(), rank - 1), rhs_outer(rhs_strides.data(), rank - 1);
  std::size_t position = 0;
  auto row_at = [&](std::int64_t a, std::int64_t b) {
    const auto* xs = x.data() + a;
    const auto* ys = y.data() + b;
    auto* o = out.data() + position;
    if (lhs_runs && rhs_runs) for (std::int64_t i = 0; i < row; ++i) o[i] = combine(xs[i], ys[i]);
    else if (lhs_runs) for (std::int64_t i = 0; i < row; ++i) o[i] = combine(xs[i], ys[0]);
    else if (rhs_runs) for (std::int64_t i = 0; i < row; ++i) o[i] = combine(xs[0], ys[i]);
    else for (std::int64_t i = 0; i < row; ++i) o[i] = combine(xs[0], ys[0]);
    position += static_cast<std::size_t>(row);
  };
  if (rank == 1) row_at(0, 0);
  else walk(rows, lhs_outer, 0, rhs_outer, 0, row_at);
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
    if (op == BinaryOp::bitwise_and || op == BinaryOp::bitwise_or || op == BinaryOp::bitwise_xor)
      return invalid("bitwise operations need integer or bool dtypes");
    with_float_binary(op, arithmetic);
    return {};
  } else if constexpr (D == DType::bool_) {
    switch (op) {
      case BinaryOp::add: case BinaryOp::max: case BinaryOp::bitwise_or:
        arithmetic([](C x, C y) -> C { return x | y; });
        return {};
      case BinaryOp::mul: case BinaryOp::min: case BinaryOp::bitwise_and:
        arithmetic([](C x, C y) -> C { return x & y; });
        return {};
      case BinaryOp::bitwise_xor: arithmetic([](C x, C y) -> C { return x ^ y; }); return {};
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
      case BinaryOp::bitwise_and: arithmetic([](C x, C y) { return static_cast<C>(x & y); }); break;
      case BinaryOp::bitwise_or: arithmetic([](C x, C y) { return static_cast<C>(x | y); }); break;
      case BinaryOp::bitwise_xor: arithmetic([](C x, C y) { return static_cast<C>(x ^ y); }); break;
      default: break;
    }
    return {};
  }
}

}  // namespace

SHARDLANG_VECTOR_CLONES
void kernel_support::float_unary_block(UnaryOp op, const float* __restrict in, float* __restrict out,
                                       std::size_t count) {
  if (VectorisedUnary function = vectorised_unary(op)) return function(in, out, count);
  with_float_unary(op, [&](auto function) __attribute__((always_inline)) {
    for (std::size_t i = 0; i < count; ++i) out[i] = function(in[i]);
  });
}

// Cloned per instruction set: a fused chain's simple operations are most of
// its work once its blocks are in cache. The binary element functions are
// single IEEE operations or libm calls, so every clone gives the same bits.
SHARDLANG_VECTOR_CLONES
void kernel_support::float_binary_block(BinaryOp op, const float* __restrict lhs, const float* __restrict rhs,
                                        float* __restrict out, std::size_t count) {
  // Inlined whole into each clone, the element function too.
  with_float_binary(op, [&](auto function) __attribute__((always_inline)) {
    for (std::size_t i = 0; i < count; ++i) out[i] = function(lhs[i], rhs[i]);
  });
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

namespace {

// XLA's ReducePrecision of one f32 (kernels.hpp reduce_precision).
float reduce_precision_f32(float input, int exponent_bits, int mantissa_bits) {
  constexpr int source_mantissa = 23, source_exponent = 8;
  std::uint32_t bits = std::bit_cast<std::uint32_t>(input);
  if (mantissa_bits < source_mantissa) {
    const int dropped = source_mantissa - mantissa_bits;
    const std::uint32_t last_kept = 1u << dropped;
    // Half an ulp less one, plus the last kept bit: ties round to even.
    const std::uint32_t bias = ((last_kept >> 1) - 1) + ((bits & last_kept) >> dropped);
    bits = (bits + bias) & ~(last_kept - 1);
  }
  if (exponent_bits < source_exponent) {
    const std::uint32_t sign = bits & 0x80000000u, exponent_mask = 0x7f800000u;
    const std::uint32_t bias = 127, reduced_bias = (1u << (exponent_bits - 1)) - 1;
    const std::uint32_t exponent = bits & exponent_mask;
    if (exponent > ((bias + reduced_bias) << source_mantissa)) bits = sign | exponent_mask;
    if (exponent <= ((bias - reduced_bias) << source_mantissa)) bits = sign;
  }
  if (std::isnan(input)) return mantissa_bits > 0 ? input : std::numeric_limits<float>::infinity();
  return std::bit_cast<float>(bits);
}

}  // namespace

Expected<LocalArray> reduce_precision(const LocalArray& operand, int exponent_bits, int mantissa_bits) {
  if (Status status = check_array(operand, "reduce_precision"); !status) return status.error();
  if (!typecheck::is_floating(operand.dtype())) return invalid("reduce_precision needs a floating dtype");
  if (exponent_bits < 1 || mantissa_bits < 0) return invalid("reduce_precision: exponent_bits >= 1 and mantissa_bits >= 0");
  Expected<LocalArray> result = allocate(operand.buffer->ledger(), operand.dtype(), operand.shape);
  if (!result) return result;
  dispatch(operand.dtype(), [&]<DType D>() {
    if constexpr (is_float(D)) {
      map_elements<D, D>(*operand.buffer, *result->buffer, [&](storage_t<D> x) {
        return store<D>(reduce_precision_f32(load<D>(x), exponent_bits, mantissa_bits));
      });
    }
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

}  // namespace devices
