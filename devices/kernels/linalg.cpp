// LAPACK's solvers and factorizations on the local shards (linalg.hpp).
#include "devices/kernels/linalg.hpp"

#include <cmath>
#include <vector>

#include "devices/kernels/support.hpp"

extern "C" void sgesv_(const int* n, const int* nrhs, float* a, const int* lda, int* ipiv, float* b, const int* ldb,
                       int* info);

extern "C" void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
extern "C" void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info);

namespace devices {

using namespace kernel_support;
using typecheck::DType;

namespace {

// Batch matrix `m` of `in` (row-major [rows, columns] matrices) copied
// column-major into the float32 work array `out`, as LAPACK reads it.
template <DType D>
void load_column_major(std::span<const storage_t<D>> in, std::int64_t m, std::size_t rows, std::size_t columns,
                       std::vector<float>& out) {
  const std::size_t base = static_cast<std::size_t>(m) * rows * columns;
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < columns; ++j) out[j * rows + i] = static_cast<float>(load<D>(in[base + i * columns + j]));
}

// One batch element at a time: the row-major matrices copied column-major
// into float32 work arrays, solved, and the solution copied back.
template <DType D>
void solve_typed(const LocalArray& a, const LocalArray& b, LocalArray& x, std::int64_t batch, int n, int k) {
  auto a_in = a.buffer->elements<D>();
  auto b_in = b.buffer->elements<D>();
  auto out = x.buffer->elements<D>();
  const auto nn = static_cast<std::size_t>(n), kk = static_cast<std::size_t>(k);
  std::vector<float> matrix(nn * nn), rhs(nn * kk);
  std::vector<int> pivots(nn);
  for (std::int64_t m = 0; m < batch; ++m) {
    const std::size_t b_base = static_cast<std::size_t>(m) * nn * kk;
    load_column_major<D>(a_in, m, nn, nn, matrix);
    load_column_major<D>(b_in, m, nn, kk, rhs);
    int info = 0;
    const int lda = std::max(n, 1);
    if (n > 0 && k > 0) sgesv_(&n, &k, matrix.data(), &lda, pivots.data(), rhs.data(), &lda, &info);
    for (std::size_t i = 0; i < nn; ++i)
      for (std::size_t j = 0; j < kk; ++j)
        out[b_base + i * kk + j] = store<D>(static_cast<compute_t<D>>(info == 0 ? rhs[j * nn + i] : NAN));
  }
}

template <DType D>
void cholesky_typed(const LocalArray& a, LocalArray& l, std::int64_t batch, int n) {
  auto in = a.buffer->elements<D>();
  auto out = l.buffer->elements<D>();
  const auto nn = static_cast<std::size_t>(n);
  std::vector<float> matrix(nn * nn);
  const char lower = 'L';
  for (std::int64_t m = 0; m < batch; ++m) {
    const std::size_t base = static_cast<std::size_t>(m) * nn * nn;
    load_column_major<D>(in, m, nn, nn, matrix);
    int info = 0;
    const int lda = std::max(n, 1);
    if (n > 0) spotrf_(&lower, &n, matrix.data(), &lda, &info);
    for (std::size_t i = 0; i < nn; ++i)
      for (std::size_t j = 0; j < nn; ++j) {
        const float value = info != 0 ? NAN : j <= i ? matrix[j * nn + i] : 0.0f;
        out[base + i * nn + j] = store<D>(static_cast<compute_t<D>>(value));
      }
  }
}

template <DType D>
void slogdet_typed(const LocalArray& a, LocalArray& out, std::int64_t batch, int n, int output) {
  auto in = a.buffer->elements<D>();
  auto result = out.buffer->elements<D>();
  const auto nn = static_cast<std::size_t>(n);
  std::vector<float> matrix(nn * nn);
  std::vector<int> pivots(std::max<std::size_t>(nn, 1));
  for (std::int64_t m = 0; m < batch; ++m) {
    load_column_major<D>(in, m, nn, nn, matrix);
    int info = 0;
    const int lda = std::max(n, 1);
    if (n > 0) sgetrf_(&n, &n, matrix.data(), &lda, pivots.data(), &info);
    float sign = 1.0f, log_abs = 0.0f;
    for (std::size_t i = 0; i < nn; ++i) {
      const float d = matrix[i * nn + i];
      if (pivots[i] != static_cast<int>(i) + 1) sign = -sign;
      if (d < 0) sign = -sign;
      log_abs += std::log(std::fabs(d));
    }
    if (info > 0) {
      sign = 0.0f;
      log_abs = -INFINITY;
    }
    result[static_cast<std::size_t>(m)] = store<D>(static_cast<compute_t<D>>(output == 0 ? sign : log_abs));
  }
}

constexpr bool is_solver_dtype(DType d) { return d == DType::float32 || d == DType::float16 || d == DType::bfloat16; }

}  // namespace

Expected<LocalArray> cholesky(const LocalArray& a) {
  if (Status status = check_array(a, "cholesky"); !status) return status.error();
  const std::size_t rank = a.shape.size();
  if (rank < 2 || a.shape[rank - 1] != a.shape[rank - 2])
    return invalid("cholesky: shape " + shape_text(a.shape) + " is not a batch of square matrices");
  if (!is_solver_dtype(a.dtype())) return invalid("cholesky: the operand must have a float dtype");
  Expected<LocalArray> result = allocate(a.buffer->ledger(), a.dtype(), a.shape);
  if (!result) return result;
  const std::int64_t batch = element_count(std::span(a.shape).first(rank - 2));
  Status status = dispatch(a.dtype(), [&]<DType D>() -> Status {
    if constexpr (is_solver_dtype(D)) cholesky_typed<D>(a, *result, batch, static_cast<int>(a.shape[rank - 1]));
    return {};
  });
  if (!status) return status.error();
  return result;
}

Expected<LocalArray> slogdet(const LocalArray& a, int output) {
  if (Status status = check_array(a, "slogdet"); !status) return status.error();
  const std::size_t rank = a.shape.size();
  if (rank < 2 || a.shape[rank - 1] != a.shape[rank - 2])
    return invalid("slogdet: shape " + shape_text(a.shape) + " is not a batch of square matrices");
  if (!is_solver_dtype(a.dtype())) return invalid("slogdet: the operand must have a float dtype");
  Expected<LocalArray> result = allocate(a.buffer->ledger(), a.dtype(), Shape(a.shape.begin(), a.shape.end() - 2));
  if (!result) return result;
  const std::int64_t batch = element_count(std::span(a.shape).first(rank - 2));
  Status status = dispatch(a.dtype(), [&]<DType D>() -> Status {
    if constexpr (is_solver_dtype(D)) slogdet_typed<D>(a, *result, batch, static_cast<int>(a.shape[rank - 1]), output);
    return {};
  });
  if (!status) return status.error();
  return result;
}

Expected<LocalArray> solve(const LocalArray& a, const LocalArray& b) {
  if (Status status = check_array(a, "solve"); !status) return status.error();
  if (Status status = check_array(b, "solve"); !status) return status.error();
  const std::size_t rank = a.shape.size();
  if (rank < 2 || b.shape.size() != rank || a.shape[rank - 1] != a.shape[rank - 2] ||
      b.shape[rank - 2] != a.shape[rank - 1] ||
      !std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin()))
    return invalid("solve: shapes " + shape_text(a.shape) + " and " + shape_text(b.shape) + " do not match");
  if (a.dtype() != b.dtype() || !is_solver_dtype(a.dtype()))
    return invalid("solve: both operands must have one float dtype");
  Expected<LocalArray> result = allocate(b.buffer->ledger(), b.dtype(), b.shape);
  if (!result) return result;
  const std::int64_t batch = element_count(std::span(a.shape).first(rank - 2));
  const int n = static_cast<int>(a.shape[rank - 1]), k = static_cast<int>(b.shape[rank - 1]);
  Status status = dispatch(a.dtype(), [&]<DType D>() -> Status {
    if constexpr (is_solver_dtype(D)) solve_typed<D>(a, b, *result, batch, n, k);
    return {};
  });
  if (!status) return status.error();
  return result;
}

}  // namespace devices
