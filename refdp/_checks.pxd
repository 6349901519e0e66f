# cython: language_level=3
"""O(1) argument checks of the compiled modules' ``def`` entry points.

Each check returns at once when the argument is what the kernel needs (a
few C comparisons); otherwise it calls the matching function of
:mod:`refdp._kernel_args`, which accepts an equivalent value (a NumPy integer,
an int64 array of another type code) or raises the standard ValueError. The
checks compute nothing, so they have no twin. A module that cimports this
header calls ``cnp.import_array()`` at import.
"""
cimport numpy as cnp
from libc.math cimport INFINITY


cdef inline object array_arg(object a, str name, str owner, int typenum, object dtype, int ndim,
                             bint writeable=False):
    # ``a`` if it is a C-contiguous, native-order ndarray of ``dtype`` with ``ndim`` dimensions
    cdef cnp.ndarray arr
    if cnp.PyArray_Check(a):
        arr = <cnp.ndarray> a
        if (cnp.PyArray_NDIM(arr) == ndim and cnp.PyArray_TYPE(arr) == typenum
                and cnp.PyArray_ISNOTSWAPPED(arr) and cnp.PyArray_IS_C_CONTIGUOUS(arr)
                and (not writeable or cnp.PyArray_ISWRITEABLE(arr))):
            return a
    from refdp._kernel_args import c_array
    return c_array(a, name, owner, dtype, ndim, writeable=writeable)


cdef inline object int_arg(object v, str name, str owner, object low, object high=None):
    # ``v`` as a Python int in [low, high) (high None: no upper end)
    if type(v) is int and v >= low and (high is None or v < high):
        return v
    from refdp._kernel_args import integer
    return integer(v, name, owner, low, high)


cdef inline double positive_arg(object v, str name, str owner) except? -1.0:
    # ``v`` as a double in (0, inf)
    cdef double d
    if type(v) is float:
        d = v
        if 0.0 < d < INFINITY:
            return d
    from refdp._kernel_args import positive_finite
    return positive_finite(v, name, owner)
