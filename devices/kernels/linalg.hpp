// Dense linear algebra on the local shards, through LAPACK (Debian's
// OpenBLAS ships LAPACK's routines in libopenblas, which the devices
// library links already): a local kernel as those of devices/kernels.hpp.
#pragma once

#include "devices/kernels.hpp"

namespace devices {

// X with A X = B for every matrix of the batch: `a` is [..., n, n], `b`
// [..., n, k] with the same leading dims and dtype (a float one; 16-bit
// floats solve in float32 and round on store). LU with partial pivoting
// (LAPACK's sgesv); a singular matrix gives NaN for its whole solution.
Expected<LocalArray> solve(const LocalArray& a, const LocalArray& b);
// The lower Cholesky factor L (L Lᵀ = A, zeros above the diagonal) of every
// matrix of the batch `a` [..., n, n], read from its lower triangle
// (LAPACK's spotrf); a matrix that is not positive definite gives NaN.
Expected<LocalArray> cholesky(const LocalArray& a);
// The sign (output 0) or the log of the absolute value (output 1) of the
// determinant of every matrix of the batch `a` [..., n, n], from LAPACK's
// LU factorization (sgetrf): a [...] result; a singular matrix gives sign 0
// and log -inf, as NumPy's slogdet.
Expected<LocalArray> slogdet(const LocalArray& a, int output);
// Q (output 0) or R (output 1) of the QR factorization of every matrix of
// the batch `a` [..., m, n] (LAPACK's sgeqrf and sorgqr), k = min(m, n):
// Q [..., m, k] with orthonormal columns and R [..., k, n] upper triangular,
// or with full_matrices Q [..., m, m] and R [..., m, n].
Expected<LocalArray> qr(const LocalArray& a, bool full_matrices, int output);
// LAPACK's packed QR (sgeqrf) of every matrix of the batch `a` [..., m,
// n]: output 0 [..., m, n] holds R on and above the diagonal and the
// Householder reflectors below it, output 1 [..., min(m, n)] their scales.
Expected<LocalArray> geqrf(const LocalArray& a, int output);
// U (output 0), S (output 1) or Vᴴ (output 2) of A = U diag(S) Vᴴ for every
// matrix of the batch `a` [..., m, n] (LAPACK's sgesdd), k = min(m, n):
// S [..., k] descending, U [..., m, k] and Vᴴ [..., k, n], or with
// full_matrices U [..., m, m] and Vᴴ [..., n, n]. Without compute_uv only S
// is computed (output must be 1). A failed factorization gives NaN.
Expected<LocalArray> svd(const LocalArray& a, bool full_matrices, bool compute_uv, int output);
// The eigenvectors V (output 0, [..., n, n], column i for eigenvalue i) or
// the ascending eigenvalues w (output 1, [..., n]) of every symmetric
// matrix of the batch `a`, read from its lower triangle (or upper, when not
// `lower`); LAPACK's ssyevd. A failed factorization gives NaN.
Expected<LocalArray> eigh(const LocalArray& a, bool lower, int output);

}  // namespace devices
