"""Independent mpmath evaluations of the formulas the compiled kernels compute.

Plain transcriptions of PATE Lemma 4 and Theorems 2-3 (Papernot et al. 2017).
Each function computes in the mpmath context ``ctx`` it is given: an
interval context (:func:`refdp.utils.precision.iv_context`) gives rigorous
enclosures; without one it computes with the global ``mpmath.mp`` at the
caller's precision (kept for callers that set it). The checks and tests use
them to show that the kernels' float upper bounds never undercut the exact
value and agree with it to a stated relative tolerance.
"""
import mpmath

from ..utils.precision import is_interval_context


def _ctx(ctx):
    # ctx=None: the documented "caller's precision" of the global context
    return mpmath.mp if ctx is None else ctx


def _min(c, a, b):
    """``min(a, b)``; in an interval context an enclosure of the minimum."""
    if not is_interval_context(c):
        return min(a, b)
    a, b = c.convert(a), c.convert(b)
    lo = a._mpi_[0] if mpmath.libmp.mpf_le(a._mpi_[0], b._mpi_[0]) else b._mpi_[0]
    hi = a._mpi_[1] if mpmath.libmp.mpf_le(a._mpi_[1], b._mpi_[1]) else b._mpi_[1]
    return c.make_mpf((lo, hi))


def lemma4_q(row, gamma, ctx=None):
    """Lemma 4's q for one count vector, exactly (in ``ctx``; see the module docstring)."""
    c = _ctx(ctx)
    gamma = c.mpf(gamma)
    jstar = max(range(len(row)), key=lambda j: (row[j], -j))
    total = c.mpf(0)
    for j, n in enumerate(row):
        if j == jstar:
            continue
        z = gamma * (int(row[jstar]) - int(n))
        total += (2 + z) / (4 * c.exp(z))
    return total


def theorem3(q, lam, gamma, ctx=None):
    """PATE Theorem 3's bound at q, order lam (None outside the validity range).

    In an interval context the validity condition must be decided by the
    enclosures; when it is not, an ArithmeticError is raised.
    """
    c = _ctx(ctx)
    q, lam, gamma = c.convert(q), c.mpf(lam), c.mpf(gamma)
    e2 = c.exp(2 * gamma)
    limit = (e2 - 1) / (c.exp(4 * gamma) - 1)
    if is_interval_context(c):
        if mpmath.libmp.mpf_lt(q._mpi_[1], limit._mpi_[0]):
            valid = True
        elif mpmath.libmp.mpf_ge(q._mpi_[0], limit._mpi_[1]):
            valid = False
        else:
            raise ArithmeticError("Theorem 3's validity condition is not decided at this precision")
    else:
        valid = q < limit
    if not valid:
        return None
    return c.log((1 - q) * ((1 - q) / (1 - e2 * q)) ** lam + q * c.exp(2 * gamma * lam))


def per_query_bound(q, lam, gamma, ctx=None):
    """min(Theorem 2, 2 gamma lam, Theorem 3 where valid) for one query."""
    c = _ctx(ctx)
    lam_m, gamma_m = c.mpf(lam), c.mpf(gamma)
    best = _min(c, 2 * gamma_m**2 * lam_m * (lam_m + 1), 2 * gamma_m * lam_m)
    t3 = theorem3(q, lam, gamma, ctx)
    return best if t3 is None else _min(c, best, t3)
