# cython: language_level=3
"""C signature of the ERM pass kernel (refdp/_erm.pyx) for other Cython code."""

cdef void margin_pass(const double* X, const double* y, const double* theta, Py_ssize_t n, Py_ssize_t d,
                      int kind, double h, Py_ssize_t block, double* blocks, double* values) noexcept nogil
