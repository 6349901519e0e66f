# cython: language_level=3
"""C signatures of the ERM kernels (refdp/_erm.pyx) for other Cython code."""
from libc.stdint cimport int64_t

cdef void margin_pass(const double* X, const double* y, const double* theta, Py_ssize_t n, Py_ssize_t d,
                      int kind, double h, Py_ssize_t block, double* blocks, double* values) noexcept nogil

# Sign of ||x_i||**2 - radius**2 per row (+1, -1; 0 where the compensated sum cannot decide it),
# radius in [2**-480, 2**500]; out[n] is overwritten.
cdef void row_norm_sign(const double* X, Py_ssize_t n, Py_ssize_t d, double radius,
                        int64_t* out) noexcept nogil

# out[j] = sum_i |x_ij| for j < d, the rows added in order.
cdef void column_abs_sums(const double* X, Py_ssize_t n, Py_ssize_t d, double* out) noexcept nogil
