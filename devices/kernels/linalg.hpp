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

}  // namespace devices
