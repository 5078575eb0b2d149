// Local kernels: the operations one device runs on its own shard
// (runtime.md "Executing"). Each takes shards as LocalArray (a Buffer and its
// shape, row-major) and returns a new one, allocated against the input's
// host ledger; nothing here knows about shardings or other devices.
//
// Numerics, as XLA's CPU backend computes them:
// - bf16/f16 are loaded as f32, computed in f32 and rounded to nearest even
//   on store (reductions and dot products accumulate in f32 and round once).
// - Integer arithmetic wraps (two's complement). Integer `div` truncates
//   toward zero with XLA's safe division: x / 0 = -1 for signed types and
//   all ones for uint32, INT_MIN / -1 = INT_MIN; `rem` gives x % 0 = x.
//   `floor_divide` is jnp.floor_divide built on those: for signed types
//   div(x, y) - 1 when the signs differ and the remainder is nonzero, so
//   5 // 0 = -2 and 0 // 0 = -1.
// - Integer `pow` is jnp.power's binary exponentiation over the exponent's
//   low 6 bits (0 ** 0 = 1; negative exponents are taken as those bits).
// - Float max/min propagate NaN. Float floor_divide is jnp's
//   round((x - fmod(x, y)) / y), one less when the remainder's sign differs
//   from y's.
// - convert: float -> integer truncates toward zero and saturates at the
//   type's range, NaN -> 0; integer -> integer wraps; anything -> bool is
//   `!= 0`; int -> bf16/f16 goes through f32.
// Transcendental unary ops need a floating dtype (jnp converts integers
// first); logical ops take any dtype (nonzero is true) and give bool.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "devices/buffer.hpp"
#include "devices/error.hpp"
#include "typecheck/dtype.hpp"

namespace devices {

using Shape = std::vector<std::int64_t>;

// One device's shard: its bytes and their shape (row-major). Several
// LocalArrays may share a Buffer (a reshape shares its input's).
struct LocalArray {
  std::shared_ptr<Buffer> buffer;
  Shape shape;
  typecheck::DType dtype() const { return buffer->dtype(); }
};

// Inline: every kernel and most of the interpreter's bookkeeping count elements.
inline std::int64_t element_count(std::span<const std::int64_t> shape) {
  // An empty array may have other extents whose product overflows: (2**62,
  // 16, 0). One pass: the product wraps unsigned, and a zero makes it 0.
  std::uint64_t count = 1;
  bool empty = false;
  for (std::int64_t extent : shape) {
    empty = empty || extent == 0;
    count *= static_cast<std::uint64_t>(extent);
  }
  return empty ? 0 : static_cast<std::int64_t>(count);
}

// A new LocalArray of `shape` on the host ledger `ledger`, zero-filled.
Expected<LocalArray> make_local_array(const std::shared_ptr<MemoryLedger>& ledger, typecheck::DType dtype,
                                      Shape shape);

// ---- Elementwise ----

enum class UnaryOp {
  neg, abs, sign, sin, cos, tan, tanh, exp, log, log1p, expm1, sqrt, rsqrt, square, logical_not, erf, erf_inv,
  floor, ceil, round,  // round: to nearest, ties to even (lax.RoundingMethod.TO_NEAREST_EVEN)
  bitwise_not,  // integers and bool only (on bool: logical not)
};

enum class BinaryOp {
  add, sub, mul, div, rem, floor_divide, pow, max, min,
  atan2,  // floats only: the angle of (x=rhs, y=lhs)
  eq, ne, lt, le, gt, ge,  // give bool
  logical_and, logical_or,  // give bool
  bitwise_and, bitwise_or, bitwise_xor,  // integers and bool only
};

// Float max and min, propagating NaN as XLA's do (the collectives' max and
// min reduce with the same).
inline float float_max(float x, float y) { return (std::isnan(x) || std::isnan(y)) ? NAN : std::max(x, y); }
inline float float_min(float x, float y) { return (std::isnan(x) || std::isnan(y)) ? NAN : std::min(x, y); }

Expected<LocalArray> unary(UnaryOp op, const LocalArray& operand);
// Both operands of one dtype; shapes broadcast as NumPy's (trailing axes
// aligned, each pair equal or one of them 1).
Expected<LocalArray> binary(BinaryOp op, const LocalArray& lhs, const LocalArray& rhs);
// lax.select / jnp.where: `predicate` is bool, of the operands' shape or a
// scalar; on_true and on_false have one shape and dtype.
Expected<LocalArray> select(const LocalArray& predicate, const LocalArray& on_true, const LocalArray& on_false);
Expected<LocalArray> convert(const LocalArray& operand, typecheck::DType to);
// lax.reduce_precision: each float rounded to one of `exponent_bits`
// exponent and `mantissa_bits` mantissa bits, as XLA's ReducePrecision: the
// mantissa to nearest, ties to even; a value past the narrower exponent's
// range becomes infinity, one below its smallest normal zero (subnormals
// flush); NaN stays NaN where a mantissa bit is left, else becomes infinity.
// Computed on f32 bits (bf16/f16 loaded as f32, rounded on store).
Expected<LocalArray> reduce_precision(const LocalArray& operand, int exponent_bits, int mantissa_bits);

// ---- Reductions ----

enum class ReduceOp { sum, prod, max, min, argmax, argmin };

// Reduces over `axes` (distinct, any order), dropping them. argmax/argmin
// take exactly one axis and give int32 indices (the first of equal values;
// a NaN counts as the largest and the smallest, as jnp's). sum/prod refuse
// bool (jnp converts it to int first); max/min of bool are any/all.
Expected<LocalArray> reduce(ReduceOp op, const LocalArray& operand, std::span<const int> axes);
// The dtype reduce gives for an operand of `operand`: int32 indices for
// argmax/argmin, the operand's otherwise.
typecheck::DType reduce_result_dtype(ReduceOp op, typecheck::DType operand);

// ---- Products ----

// Where a shard's product lies in the whole product. Rows are the lhs's
// free elements flattened in axis order, columns the rhs's. Either per free
// axis: the shard's block starts at lhs_free_origins[i] of lhs_free_totals[i]
// (its extent is the shard's own), so its rows may be strided in the whole's;
// or, when those are empty, flattened: the rows start at row_origin of
// rows_total, contiguous. A total of 0 means the shard is the whole product.
struct DotPlacement {
  std::int64_t row_origin = 0;
  std::int64_t rows_total = 0;
  std::int64_t column_origin = 0;
  std::int64_t columns_total = 0;
  std::vector<std::int64_t> lhs_free_origins = {};
  std::vector<std::int64_t> lhs_free_totals = {};
  std::vector<std::int64_t> rhs_free_origins = {};
  std::vector<std::int64_t> rhs_free_totals = {};
};

struct DotDimensions {
  std::vector<int> lhs_batch;
  std::vector<int> rhs_batch;
  std::vector<int> lhs_contracting;
  std::vector<int> rhs_contracting;
  DotPlacement placement = {};
  // preferred_element_type: the result's dtype (int8 x int8 -> int32, bf16 x
  // bf16 -> f32); none: the operands'. Floats still multiply in f32 and
  // round once into it; integers accumulate exactly (mod 2^64) and wrap or
  // convert once.
  std::optional<typecheck::DType> result_dtype = std::nullopt;
};

// lax.dot_general: result axes are batch, lhs free, rhs free (XLA's order),
// of the operands' dtype or dimensions.result_dtype. Floats multiply through
// OpenBLAS sgemm in f32, bf16 operands on the bf16 dot-product units where
// the host has them (AVX512-BF16: f32 sums of exact products, k in pairs);
// integers in a vectorised loop (wrapping; 32-bit sums where they give the
// same result) and bool as or-of-ands.
// An element's f32 summation order does not depend on how the product is
// sharded (sharded equals unsharded bit for bit): sgemm products are those
// of a fixed grid over the whole product (dot_tile_extent square), each tile
// one sgemm of the tile's whole extent at the same position (a run of tiles
// a shard holds whole is one call where OpenBLAS's kernel sums in an order
// fixed by k alone: blas.hpp); the bf16 units' order depends on k alone.
Expected<LocalArray> dot_general(const LocalArray& lhs, const LocalArray& rhs, const DotDimensions& dimensions);
inline constexpr std::int64_t dot_tile_extent = 256;

// ---- Data movement ----

// Result axis i is operand axis permutation[i].
Expected<LocalArray> transpose(const LocalArray& operand, std::span<const int> permutation);
// lax.broadcast_in_dim: operand axis i becomes result axis
// broadcast_dimensions[i] (extent equal, or 1 and repeated).
Expected<LocalArray> broadcast_in_dim(const LocalArray& operand, Shape shape,
                                      std::span<const int> broadcast_dimensions);
// Same elements in a new shape: shares the operand's buffer.
Expected<LocalArray> reshape(const LocalArray& operand, Shape shape);
// lax.slice: [start, limit) with step `strides` (empty = all 1) per axis;
// all of the operand shares its buffer.
Expected<LocalArray> slice(const LocalArray& operand, std::span<const std::int64_t> start,
                           std::span<const std::int64_t> limit, std::span<const std::int64_t> strides = {});
// lax.dynamic_slice: starts are clamped so the slice fits, as XLA does.
Expected<LocalArray> dynamic_slice(const LocalArray& operand, std::span<const std::int64_t> start,
                                   std::span<const std::int64_t> sizes);
// lax.dynamic_update_slice: `update` written at `start` (clamped to fit).
Expected<LocalArray> dynamic_update_slice(const LocalArray& operand, const LocalArray& update,
                                          std::span<const std::int64_t> start);
// lax.rev: the elements of each axis in `dimensions` in reverse order.
Expected<LocalArray> rev(const LocalArray& operand, std::span<const int> dimensions);
// Operands of one dtype, equal but on `dimension`.
Expected<LocalArray> concatenate(std::span<const LocalArray> operands, int dimension);
// The array of `shape` whose block at origins[i] is blocks[i] (blocks of one
// dtype and shape that cover it, as a sharded array's distinct shards do).
Expected<LocalArray> assemble(std::span<const LocalArray> blocks, std::span<const std::vector<std::int64_t>> origins,
                              Shape shape);
// lax.iota: the index along `dimension`, converted to `dtype`.
Expected<LocalArray> iota(const std::shared_ptr<MemoryLedger>& ledger, typecheck::DType dtype, Shape shape,
                          int dimension);
// lax.pad with one (low, high, interior) per axis; low/high may be negative
// (cropping). `padding_value` is a scalar LocalArray of the operand's dtype.
struct PadConfig {
  std::int64_t low = 0;
  std::int64_t high = 0;
  std::int64_t interior = 0;
};
Expected<LocalArray> pad(const LocalArray& operand, const LocalArray& padding_value, std::span<const PadConfig> config);

}  // namespace devices
