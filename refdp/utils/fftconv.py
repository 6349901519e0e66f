"""Convolution of non-negative arrays by FFT with a certified entrywise error bound.

``convolve_bounds(a, b)`` returns ``(c, err)``: the computed convolution and a
double ``err`` with ``|c_i - (a * b)_i| <= err`` for every ``i``. The transform
is the radix-2 Cooley-Tukey FFT of ``refdp/_fft.pyx``, reached through
:func:`refdp.core.fft_inplace` (its pure-Python twin
:func:`refdp.twins.fft.fft_inplace` performs the same operations in the same
order); the bound
follows Higham (2002), Theorem 24.2 and Lemma 3.5
(``docs/theory/privacy_profiles.rst``, section 3).
:func:`convolve_bounds_pair` carries two real convolutions in one complex
transform, and :func:`power_bounds_pair` two ``m``-th convolution powers
(cyclic, of a given length), with one a-priori bound for both results.

The one input not proved here is the accuracy of the twiddle factors: they
are computed in long double (64-bit significand) and rounded to double, and
the bound assumes each lies within ``4 u`` of ``exp(-2 pi i j / n)`` (the
rounding alone contributes at most ``u / sqrt(2)`` per component); the tests
compare a sample with mpmath.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .. import core
from .rounding import UNIT_ROUNDOFF as _U, gamma
from .validation import Described, parameter_error

_MU = 4 * _U                       # twiddle accuracy assumed (see the module docstring)
_PI_LONG = np.longdouble("3.14159265358979323846264338327950288419716939937510")


@lru_cache(maxsize=8)
def _tables(n: int):
    j = np.arange(n // 2, dtype=np.longdouble)
    ang = (2 * _PI_LONG / n) * j
    wr = np.cos(ang).astype(np.float64)
    wi = (-np.sin(ang)).astype(np.float64)
    L = n.bit_length() - 1
    idx = np.arange(n)
    perm = np.zeros(n, dtype=np.int64)
    for bit in range(L):
        perm |= ((idx >> bit) & 1) << (L - 1 - bit)
    for arr in (wr, wi, perm):
        arr.setflags(write=False)
    return wr, wi, perm


def _fft(re, im, python: bool, copy: bool = True):
    """The transform of ``re + i im`` (in place on the arrays themselves when ``copy`` is False)."""
    wr, wi, perm = _tables(re.size)
    if copy:
        re, im = np.array(re, dtype=float), np.array(im, dtype=float)
    return core.fft_inplace(re, im, wr, wi, perm, compiled=not python)


def _norm2_up(x) -> float:
    n = x.size
    s = float(np.sum(x * x)) * (1 + 1.01 * (n + 2) * _U) + (n + 1) * 2.0 ** -1074
    return math.nextafter(math.sqrt(math.nextafter(s, math.inf)), math.inf)


def _norm1_up(x) -> float:
    n = x.size
    return math.nextafter(float(np.sum(x)) * (1 + 1.01 * (n + 1) * _U) + n * 2.0 ** -1074, math.inf)


def _transform_constants(L: int, n: int):
    """``(gamma_2, theta, sqrt(n), slack)`` of a length-``n = 2**L`` transform's error bound, rounded up.

    ``theta`` is the relative 2-norm bound of the computed FFT (Higham 2002,
    Theorem 24.2, with the twiddle factors' error ``_MU`` and Lemma 3.5).
    """
    g2 = gamma(2)
    g4 = gamma(4)
    eta = (_MU + g4 * (math.sqrt(2) + _MU)) * (1 + 1e-12)
    th = L * eta / (1 - L * eta) * (1 + 1e-12)
    return g2, th, math.sqrt(n) * (1 + 1e-15), 1 + 1e-12


def _split_errors(x, y, th: float, rn: float, up1: float):
    """``(||x||_1, ||x||_2, e_x), (||y||_1, ||y||_2, e_y)`` of the paired input ``x + i y``, rounded up.

    ``e_x`` bounds ``||X_hat - X||_2`` for the transform ``X`` of ``x`` split
    from the computed transform of ``x + i y`` (``th`` the relative bound of the
    length-``n`` FFT, ``rn`` an upper bound of ``sqrt(n)``, ``up1`` the
    rounding slack); likewise ``e_y``.
    """
    x1, y1 = _norm1_up(x), _norm1_up(y)
    x2, y2 = _norm2_up(x), _norm2_up(y)
    ez = th * rn * math.hypot(x2, y2) * (1 + 4 * _U) * up1       # ||Z_hat - Z||_2
    ex = (ez + _U * (rn * x2 + ez)) * up1                       # ||X_hat - X||_2
    ey = (ez + _U * (rn * y2 + ez)) * up1
    return (x1, x2, ex), (y1, y2, ey)


def convolve_bounds(a, b, python: bool = False):
    """``(c, err)``: the FFT convolution of non-negative ``a``, ``b`` and a bound on every entry's error.

    Parameters
    ----------
    a, b : 1-D arrays of non-negative doubles (the same object for a square)
    python : bool, default False
        Use the pure-Python twin of the compiled transform (identical results).

    Returns
    -------
    c : ndarray of length ``a.size + b.size - 1``
    err : float
        ``|c_i - sum_j a_j b_{i-j}| <= err`` for all ``i``.
    """
    same = a is b
    a = np.asarray(a, float)
    b = a if same else np.asarray(b, float)
    size = a.size + b.size - 1
    n = 1 << max(1, (size - 1).bit_length())
    L = n.bit_length() - 1
    pa = np.zeros(n)
    pa[:a.size] = a
    pb = np.zeros(n)
    pb[:b.size] = b
    z = np.zeros(n)
    Ar, Ai = _fft(pa, z, python)
    Br, Bi = (Ar, Ai) if same else _fft(pb, z, python)       # a square: one transform
    Pr = Ar * Br - Ai * Bi
    Pi = Ar * Bi + Ai * Br
    # inverse: conj(FFT(conj(P))) / n, the division by a power of two being exact
    Cr, Ci = _fft(Pr, -Pi, python)
    c = Cr[:size] / n
    # error bound (Higham 2002, Thm. 24.2 and Lemma 3.5), all rounded up
    g2, th, rn, _ = _transform_constants(L, n)
    a1, b1 = _norm1_up(a), _norm1_up(b)
    a2, b2 = _norm2_up(a), _norm2_up(b)
    b_inf = b1 + th * rn * b2                       # >= max |B_hat|
    d = (th * rn * (a2 * b_inf + a1 * b2)           # ||A_hat B_hat - A B||_2
         + math.sqrt(2) * g2 * (1 + th) * rn * a2 * b_inf)  # complex products
    p2 = rn * a2 * b1 + d                           # >= ||P_hat||_2
    err = (d + th * p2) / rn * (1 + 1e-12)
    # underflow: every operation may lose up to 2**-1074 more
    err = math.nextafter(err + 16 * (L + 2) * n * 2.0 ** -1074, math.inf)
    return c, err


def pair_length(a_size: int, b_size: int) -> int:
    """The transform length of a paired convolution of arrays of these lengths (a power of two)."""
    size = a_size + b_size - 1
    return 1 << max(1, (size - 1).bit_length())


def pair_spectrum(x, y, n: int, python: bool = False):
    """The transform ``(Zr, Zi)`` of ``x + i y`` padded to length ``n``, as :func:`convolve_bounds_pair` computes it.

    A caller that convolves one pair of arrays with several others at the same
    length may compute it once and pass it back through ``spectra`` (the
    results are identical to recomputing it).
    """
    pr = np.zeros(n)
    pr[:x.size] = x
    pi = np.zeros(n)
    pi[:y.size] = y
    return _fft(pr, pi, python, copy=False)


def convolve_bounds_pair(a1, b1, a2, b2, python: bool = False, spectra=None):
    """``(c1, c2, err)``: the FFT convolutions ``a1 * b1`` and ``a2 * b2`` from one pair of transforms.

    ``a1 + i a2`` and ``b1 + i b2`` are transformed once each (once in all
    when ``a1 is b1`` and ``a2 is b2``), the four real transforms are split
    off by conjugate symmetry, and ``A1 B1 + i A2 B2`` is transformed back:
    its real part is ``a1 * b1`` and its imaginary part ``a2 * b2``. ``err``
    bounds the error of every entry of both (``docs/theory/privacy_profiles.rst``,
    section 3, the paired transform). Inputs are non-negative doubles;
    ``a1``, ``a2`` (and ``b1``, ``b2``) have equal lengths. ``spectra``, if
    given, is ``(pair_spectrum(a1, a2, n), pair_spectrum(b1, b2, n))`` with
    ``n = pair_length(a1.size, b1.size)``, computed earlier by the caller.
    """
    same = a1 is b1 and a2 is b2
    a1, a2 = np.asarray(a1, float), np.asarray(a2, float)
    b1, b2 = (a1, a2) if same else (np.asarray(b1, float), np.asarray(b2, float))
    size = a1.size + b1.size - 1
    n = pair_length(a1.size, b1.size)
    L = n.bit_length() - 1
    if spectra is not None:
        (Zar, Zai), (Zbr, Zbi) = spectra
        if Zar.size != n or Zbr.size != n:
            raise parameter_error("spectra", "convolve_bounds_pair", f"two transforms of length {n}",
                                  Described(f"lengths {Zar.size} and {Zbr.size}"))
    else:
        Zar, Zai = pair_spectrum(a1, a2, n, python)
        Zbr, Zbi = (Zar, Zai) if same else pair_spectrum(b1, b2, n, python)
    # Q = A1 B1 + i A2 B2 from the split transforms (X1 = (Z_k + conj Z_{-k}) / 2,
    # X2 = (Z_k - conj Z_{-k}) / (2i)), written as conj(Q) for the inverse below
    Qr, Qc = np.empty(n), np.empty(n)
    core.pair_products(Zar, Zai, Zbr, Zbi, Qr, Qc, compiled=not python)
    Cr, Ci = _fft(Qr, Qc, python, copy=False)   # conj(FFT(conj Q)) / n: real part c1, imaginary part c2
    c1 = Cr[:size] / n
    c2 = -Ci[:size] / n
    # error bound (Higham 2002, Thm. 24.2 and Lemma 3.5; the split's map has norm 1), rounded up
    g2, th, rn, up1 = _transform_constants(L, n)

    (a1n1, a1n2, ea1), (a2n1, a2n2, ea2) = _split_errors(a1, a2, th, rn, up1)
    (b1n1, b1n2, eb1), (b2n1, b2n2, eb2) = _split_errors(b1, b2, th, rn, up1)

    def product(xn1, xn2, ex, yn1, yn2, ey):
        y_inf = yn1 + ey                                            # >= max |Y_hat|
        d = (ex * y_inf + xn1 * ey + math.sqrt(2) * g2 * (rn * xn2 + ex) * y_inf) * up1
        return d, (rn * xn2 * yn1 + d) * up1                        # error and ||P_hat||_2

    d1, p1 = product(a1n1, a1n2, ea1, b1n1, b1n2, eb1)
    d2, p2 = product(a2n1, a2n2, ea2, b2n1, b2n2, eb2)
    dq = (d1 + d2 + _U * (p1 + p2)) * up1                           # ||Q_hat - Q||_2
    q2 = (1 + _U) * (p1 + p2) * up1                                 # >= ||Q_hat||_2
    err = (dq + th * q2) / rn * up1
    # underflow: every operation (the split's halvings included) may lose up to 2**-1074 more
    err = math.nextafter(err + 32 * (L + 4) * n * 2.0 ** -1074, math.inf)
    return c1, c2, err


def _pow_up(x: float, m: int) -> float:
    """A double >= ``x**m`` for ``x >= 0`` (``math.pow`` is within a few units; 1e-12 covers it)."""
    with np.errstate(over="ignore"):
        return math.nextafter(math.pow(x, m) * (1 + 1e-12), math.inf)


def power_bounds_pair(x1, y1, m: int, x2, y2, n: int, python: bool = False):
    """``(c1, c2, err)``: the cyclic length-``n`` convolutions ``x1^{*m} * x2`` and ``y1^{*m} * y2``.

    The two powers share one paired transform per operand, as in
    :func:`convolve_bounds_pair`: ``x1 + i y1`` (and ``x2 + i y2``) is
    transformed once, the real transforms are split off, each is raised to
    the ``m``-th power entrywise (binary powering) and multiplied by the
    second operand's, and ``X1**m X2 + i Y1**m Y2`` is transformed back.
    ``err`` bounds every entry's distance to the exact *cyclic* convolution
    (indices mod ``n``) of the given doubles, for both results
    (``docs/theory/privacy_profiles.rst``, section 3, powers of a
    transform). ``x2``, ``y2`` may be None (no second operand, i.e. the
    unit impulse). Inputs are non-negative doubles of at most ``n`` points,
    best scaled to 1-norms of at most 1 (the bound grows with the ``m``-th
    power of the larger 1-norm); ``n`` is a power of two.
    """
    x1, y1 = np.asarray(x1, float), np.asarray(y1, float)
    has2 = x2 is not None
    if has2:
        x2, y2 = np.asarray(x2, float), np.asarray(y2, float)
    for name, arr in (("x1", x1), ("y1", y1)) + ((("x2", x2), ("y2", y2)) if has2 else ()):
        if arr.size > n:
            raise parameter_error(name, "power_bounds_pair", f"an array of at most n = {n} points", arr)
    if m < 1:
        raise parameter_error("m", "power_bounds_pair", "an integer >= 1", m)
    L = n.bit_length() - 1
    Z1r, Z1i = pair_spectrum(x1, y1, n, python)
    Z2r, Z2i = pair_spectrum(x2, y2, n, python) if has2 else (np.zeros(0), np.zeros(0))
    # conj(Q), Q = X1**m X2 + i Y1**m Y2 from the split transforms, for the inverse conj(FFT(conj Q)) / n
    Qr, Qc = np.empty(n), np.empty(n)
    core.power_products(Z1r, Z1i, Z2r, Z2i, m, Qr, Qc, compiled=not python)
    Cr, Ci = _fft(Qr, Qc, python, copy=False)
    c1 = Cr / n
    c2 = -Ci / n
    # error bound (Higham 2002, Thm. 24.2 and Lemma 3.5), rounded up
    g2, th, rn, up1 = _transform_constants(L, n)
    tiny = 2.0 ** -1074

    def product(first, second):
        # ||X1_hat**m X2_hat - X1**m X2||_2 and a bound of ||X1_hat**m X2_hat||_2 (computed)
        n1, n2, e1 = first
        R = (n1 + e1) * up1                                         # >= max |X1|, max |X1_hat|
        if second is None:
            S, e2, mults = 1.0, 0.0, m - 1
            norm = _pow_up(R, m - 1) * (rn * n2 + e1) * up1
        else:
            s1, s2, e2 = second
            S, mults = (s1 + e2) * up1, m
            norm = min(_pow_up(R, m - 1) * S * (rn * n2 + e1), _pow_up(R, m) * (rn * s2 + e2)) * up1
        d = (m * _pow_up(R, m - 1) * S * e1 + _pow_up(R, m) * e2) * up1
        rho = math.expm1(mults * math.log1p(math.sqrt(2) * g2)) * up1   # relative error of the products
        # underflow: each of the mults products may lose 4 * 2**-1074 per component, later magnified
        # by at most the remaining factors (each at most max(1, R) or max(1, S) in modulus)
        t = 8 * (mults + 1) * _pow_up(max(1.0, R), m) * max(1.0, S) * tiny * up1
        d = (d + rho * norm + rn * t) * up1
        return d, ((1 + rho) * norm + rn * t) * up1

    a, b = _split_errors(x1, y1, th, rn, up1)
    if has2:
        c, d_ = _split_errors(x2, y2, th, rn, up1)
    else:
        c = d_ = None
    d1, p1 = product(a, c)
    d2, p2 = product(b, d_)
    dq = (d1 + d2 + _U * (p1 + p2)) * up1                           # ||Q_hat - Q||_2
    q2 = (1 + _U) * (p1 + p2) * up1                                 # >= ||Q_hat||_2
    err = (dq + th * q2) / rn * up1
    err = math.nextafter(err + 32 * (L + 4) * n * tiny, math.inf)
    if not math.isfinite(err):
        raise ArithmeticError("the error bound of a transform power overflowed")
    return c1, c2, err
