// LAPACK's solvers and factorizations on the local shards (linalg.hpp).
#include "devices/kernels/linalg.hpp"

#include <cmath>
#include <vector>

#include "devices/kernels/support.hpp"

extern "C" void sgesv_(const int* n, const int* nrhs, float* a, const int* lda, int* ipiv, float* b, const int* ldb,
                       int* info);

extern "C" void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
extern "C" void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info);
extern "C" void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
                        int* info);
extern "C" void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
                        const int* lwork, int* info);
extern "C" void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
                        const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info);
extern "C" void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
                        const int* lwork, int* iwork, const int* liwork, int* info);

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

// The column-major float32 `in` (leading dimension `ld`) stored as the
// row-major [rows, columns] batch matrix `m` of `out`; NaN throughout when
// LAPACK `failed`.
template <DType D>
void store_row_major(const std::vector<float>& in, std::size_t ld, std::span<storage_t<D>> out, std::int64_t m,
                     std::size_t rows, std::size_t columns, bool failed) {
  const std::size_t base = static_cast<std::size_t>(m) * rows * columns;
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < columns; ++j)
      out[base + i * columns + j] = store<D>(static_cast<compute_t<D>>(failed ? NAN : in[j * ld + i]));
}

// The [rows, columns] identity, column-major (LAPACK's result for an empty
// factorization, as JAX gives it).
void fill_identity(std::vector<float>& out, std::size_t rows, std::size_t columns) {
  for (std::size_t j = 0; j < columns; ++j)
    for (std::size_t i = 0; i < rows; ++i) out[j * rows + i] = i == j ? 1.0f : 0.0f;
}

// The size LAPACK asks for (its workspace query's answer), at least 1.
int queried(float answer) { return std::max(1, static_cast<int>(answer)); }

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
    load_column_major<D>(a_in, m, nn, nn, matrix);
    load_column_major<D>(b_in, m, nn, kk, rhs);
    int info = 0;
    const int lda = std::max(n, 1);
    if (n > 0 && k > 0) sgesv_(&n, &k, matrix.data(), &lda, pivots.data(), rhs.data(), &lda, &info);
    store_row_major<D>(rhs, nn, out, m, nn, kk, info != 0);
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
    load_column_major<D>(in, m, nn, nn, matrix);
    int info = 0;
    const int lda = std::max(n, 1);
    if (n > 0) spotrf_(&lower, &n, matrix.data(), &lda, &info);
    for (std::size_t j = 1; j < nn; ++j)
      for (std::size_t i = 0; i < j; ++i) matrix[j * nn + i] = 0.0f;  // above the diagonal
    store_row_major<D>(matrix, nn, out, m, nn, nn, info != 0);
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

// Q (output 0, [m, full ? m : k]) or R (output 1, [full ? m : k, n], zero
// below the diagonal) of every batch matrix: LAPACK's Householder QR
// (sgeqrf), Q formed from the reflectors by sorgqr.
template <DType D>
void qr_typed(const LocalArray& a, LocalArray& out, std::int64_t batch, int m, int n, bool full, int output) {
  auto in = a.buffer->elements<D>();
  auto result = out.buffer->elements<D>();
  const int k = std::min(m, n), q_columns = full ? m : k, lda = std::max(m, 1);
  const auto mm = static_cast<std::size_t>(m), nn = static_cast<std::size_t>(n);
  std::vector<float> matrix(mm * static_cast<std::size_t>(std::max(n, q_columns))), tau(static_cast<std::size_t>(std::max(k, 1)));
  float factor_size = 1, form_size = 1;
  int info = 0, query = -1;
  sgeqrf_(&m, &n, matrix.data(), &lda, tau.data(), &factor_size, &query, &info);
  sorgqr_(&m, &q_columns, &k, matrix.data(), &lda, tau.data(), &form_size, &query, &info);
  const int lwork = std::max(queried(factor_size), queried(form_size));
  std::vector<float> work(static_cast<std::size_t>(lwork));
  for (std::int64_t b = 0; b < batch; ++b) {
    load_column_major<D>(in, b, mm, nn, matrix);
    info = 0;
    if (k > 0) sgeqrf_(&m, &n, matrix.data(), &lda, tau.data(), work.data(), &lwork, &info);
    if (output == 1) {
      for (std::size_t j = 0; j < nn; ++j)
        for (std::size_t i = j + 1; i < mm; ++i) matrix[j * mm + i] = 0.0f;  // below the diagonal
      store_row_major<D>(matrix, mm, result, b, static_cast<std::size_t>(q_columns), nn, info != 0);
    } else {
      if (m > 0 && q_columns > 0) sorgqr_(&m, &q_columns, &k, matrix.data(), &lda, tau.data(), work.data(), &lwork, &info);
      store_row_major<D>(matrix, mm, result, b, mm, static_cast<std::size_t>(q_columns), info != 0);
    }
  }
}

// LAPACK's packed Householder QR (sgeqrf) of every batch matrix: R on and
// above the diagonal and the reflectors below it (output 0, [m, n]), or
// the reflectors' scales tau (output 1, [k]).
template <DType D>
void geqrf_typed(const LocalArray& a, LocalArray& out, std::int64_t batch, int m, int n, int output) {
  auto in = a.buffer->elements<D>();
  auto result = out.buffer->elements<D>();
  const int k = std::min(m, n), lda = std::max(m, 1);
  const auto mm = static_cast<std::size_t>(m), nn = static_cast<std::size_t>(n);
  std::vector<float> matrix(mm * nn), tau(static_cast<std::size_t>(std::max(k, 1)));
  float size = 1;
  int info = 0, query = -1;
  sgeqrf_(&m, &n, matrix.data(), &lda, tau.data(), &size, &query, &info);
  const int lwork = queried(size);
  std::vector<float> work(static_cast<std::size_t>(lwork));
  for (std::int64_t b = 0; b < batch; ++b) {
    load_column_major<D>(in, b, mm, nn, matrix);
    info = 0;
    if (k > 0) sgeqrf_(&m, &n, matrix.data(), &lda, tau.data(), work.data(), &lwork, &info);
    if (output == 0) store_row_major<D>(matrix, mm, result, b, mm, nn, info != 0);
    else store_row_major<D>(tau, 1, result, b, 1, static_cast<std::size_t>(k), info != 0);
  }
}

// U (output 0, [m, full ? m : k]), the singular values S (output 1, [k],
// descending) or Vᴴ (output 2, [full ? n : k, n]) of every batch matrix:
// LAPACK's divide-and-conquer SVD (sgesdd; only S when not compute_uv).
template <DType D>
void svd_typed(const LocalArray& a, LocalArray& out, std::int64_t batch, int m, int n, bool full, bool compute_uv,
               int output) {
  auto in = a.buffer->elements<D>();
  auto result = out.buffer->elements<D>();
  const int k = std::min(m, n), u_columns = full ? m : k, v_rows = full ? n : k;
  const int lda = std::max(m, 1), ldu = std::max(m, 1), ldvt = std::max(v_rows, 1);
  const char jobz = !compute_uv ? 'N' : full ? 'A' : 'S';
  const auto mm = static_cast<std::size_t>(m), nn = static_cast<std::size_t>(n);
  const auto uu = static_cast<std::size_t>(u_columns), vv = static_cast<std::size_t>(v_rows);
  std::vector<float> matrix(mm * nn), s(static_cast<std::size_t>(std::max(k, 1))), u(std::max<std::size_t>(mm * uu, 1)),
      vt(std::max<std::size_t>(vv * nn, 1));
  std::vector<int> iwork(8 * static_cast<std::size_t>(std::max(k, 1)));
  float size = 1;
  int info = 0, query = -1;
  sgesdd_(&jobz, &m, &n, matrix.data(), &lda, s.data(), u.data(), &ldu, vt.data(), &ldvt, &size, &query, iwork.data(), &info);
  const int lwork = queried(size);
  std::vector<float> work(static_cast<std::size_t>(lwork));
  for (std::int64_t b = 0; b < batch; ++b) {
    load_column_major<D>(in, b, mm, nn, matrix);
    info = 0;
    if (k > 0) {
      sgesdd_(&jobz, &m, &n, matrix.data(), &lda, s.data(), u.data(), &ldu, vt.data(), &ldvt, work.data(), &lwork,
              iwork.data(), &info);
    } else {
      fill_identity(u, mm, uu);
      fill_identity(vt, vv, nn);
    }
    if (output == 0) store_row_major<D>(u, mm, result, b, mm, uu, info != 0);
    else if (output == 1) store_row_major<D>(s, 1, result, b, 1, static_cast<std::size_t>(k), info != 0);
    else store_row_major<D>(vt, vv, result, b, vv, nn, info != 0);
  }
}

// The eigenvectors (output 0, [n, n], column i for eigenvalue i) or the
// ascending eigenvalues (output 1, [n]) of every symmetric batch matrix,
// read from its lower (or upper) triangle: LAPACK's ssyevd.
template <DType D>
void eigh_typed(const LocalArray& a, LocalArray& out, std::int64_t batch, int n, bool lower, int output) {
  auto in = a.buffer->elements<D>();
  auto result = out.buffer->elements<D>();
  const char jobz = 'V', uplo = lower ? 'L' : 'U';
  const int lda = std::max(n, 1);
  const auto nn = static_cast<std::size_t>(n);
  std::vector<float> matrix(nn * nn), w(std::max<std::size_t>(nn, 1));
  float size = 1;
  int isize = 1, info = 0, query = -1;
  ssyevd_(&jobz, &uplo, &n, matrix.data(), &lda, w.data(), &size, &query, &isize, &query, &info);
  const int lwork = queried(size), liwork = std::max(isize, 1);
  std::vector<float> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(liwork));
  for (std::int64_t b = 0; b < batch; ++b) {
    load_column_major<D>(in, b, nn, nn, matrix);
    info = 0;
    if (n > 0) ssyevd_(&jobz, &uplo, &n, matrix.data(), &lda, w.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
    if (output == 0) store_row_major<D>(matrix, nn, result, b, nn, nn, info != 0);
    else store_row_major<D>(w, 1, result, b, 1, nn, info != 0);
  }
}

constexpr bool is_solver_dtype(DType d) { return d == DType::float32 || d == DType::float16 || d == DType::bfloat16; }

// The front every single-operand kernel here shares: `a` checked as a batch
// of matrices (square ones when `square`) of a float dtype, the result
// [batch dims..., tail...] allocated in a's dtype, then
// body.template operator()<D>(result, batch, rows, columns).
template <class Body>
Expected<LocalArray> per_matrix(const LocalArray& a, const std::string& name, bool square, const Shape& tail, Body&& body) {
  if (Status status = check_array(a, name.c_str()); !status) return status.error();
  const std::size_t rank = a.shape.size();
  if (rank < 2 || (square && a.shape[rank - 1] != a.shape[rank - 2]))
    return invalid(name + ": shape " + shape_text(a.shape) + " is not a batch of " + (square ? "square " : "") + "matrices");
  if (!is_solver_dtype(a.dtype())) return invalid(name + ": the operand must have a float dtype");
  Shape shape(a.shape.begin(), a.shape.end() - 2);
  shape.insert(shape.end(), tail.begin(), tail.end());
  Expected<LocalArray> result = allocate(a.buffer->ledger(), a.dtype(), shape);
  if (!result) return result;
  const std::int64_t batch = element_count(std::span(a.shape).first(rank - 2));
  const auto rows = static_cast<int>(a.shape[rank - 2]), columns = static_cast<int>(a.shape[rank - 1]);
  Status status = dispatch(a.dtype(), [&]<DType D>() -> Status {
    if constexpr (is_solver_dtype(D)) body.template operator()<D>(*result, batch, rows, columns);
    return {};
  });
  if (!status) return status.error();
  return result;
}

}  // namespace

Expected<LocalArray> cholesky(const LocalArray& a) {
  const Shape tail(a.shape.end() - std::min<std::size_t>(a.shape.size(), 2), a.shape.end());
  return per_matrix(a, "cholesky", true, tail, [&]<DType D>(LocalArray& out, std::int64_t batch, int n, int) {
    cholesky_typed<D>(a, out, batch, n);
  });
}

Expected<LocalArray> slogdet(const LocalArray& a, int output) {
  return per_matrix(a, "slogdet", true, {}, [&]<DType D>(LocalArray& out, std::int64_t batch, int n, int) {
    slogdet_typed<D>(a, out, batch, n, output);
  });
}

Expected<LocalArray> qr(const LocalArray& a, bool full_matrices, int output) {
  const std::int64_t m = a.shape.size() < 2 ? 0 : a.shape[a.shape.size() - 2], n = a.shape.empty() ? 0 : a.shape.back();
  const std::int64_t k = full_matrices ? m : std::min(m, n);
  return per_matrix(a, "qr", false, output == 0 ? Shape{m, k} : Shape{k, n},
                    [&]<DType D>(LocalArray& out, std::int64_t batch, int rows, int columns) {
                      qr_typed<D>(a, out, batch, rows, columns, full_matrices, output);
                    });
}

Expected<LocalArray> geqrf(const LocalArray& a, int output) {
  const std::int64_t m = a.shape.size() < 2 ? 0 : a.shape[a.shape.size() - 2], n = a.shape.empty() ? 0 : a.shape.back();
  return per_matrix(a, "geqrf", false, output == 0 ? Shape{m, n} : Shape{std::min(m, n)},
                    [&]<DType D>(LocalArray& out, std::int64_t batch, int rows, int columns) {
                      geqrf_typed<D>(a, out, batch, rows, columns, output);
                    });
}

Expected<LocalArray> svd(const LocalArray& a, bool full_matrices, bool compute_uv, int output) {
  if (!compute_uv && output != 1) return invalid("svd: without compute_uv only the singular values (output 1) are computed");
  const std::int64_t m = a.shape.size() < 2 ? 0 : a.shape[a.shape.size() - 2], n = a.shape.empty() ? 0 : a.shape.back();
  const std::int64_t k = std::min(m, n);
  const Shape tail = output == 0 ? Shape{m, full_matrices ? m : k} : output == 1 ? Shape{k} : Shape{full_matrices ? n : k, n};
  return per_matrix(a, "svd", false, tail, [&]<DType D>(LocalArray& out, std::int64_t batch, int rows, int columns) {
    svd_typed<D>(a, out, batch, rows, columns, full_matrices, compute_uv, output);
  });
}

Expected<LocalArray> eigh(const LocalArray& a, bool lower, int output) {
  const std::int64_t n = a.shape.empty() ? 0 : a.shape.back();
  return per_matrix(a, "eigh", true, output == 0 ? Shape{n, n} : Shape{n},
                    [&]<DType D>(LocalArray& out, std::int64_t batch, int rows, int) {
                      eigh_typed<D>(a, out, batch, rows, lower, output);
                    });
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
