"""Independent mpmath evaluations of the formulas the compiled kernels compute.

Plain transcriptions of PATE Lemma 4 and Theorems 2-3 (Papernot et al. 2017),
evaluated at the caller's mpmath precision. The checks and tests use them to
show that the kernels' float upper bounds never undercut the exact value and
agree with it to a stated relative tolerance.
"""
import mpmath


def lemma4_q(row, gamma):
    """Lemma 4's q for one count vector, exactly (at the current mp precision)."""
    gamma = mpmath.mpf(gamma)
    jstar = max(range(len(row)), key=lambda j: (row[j], -j))
    total = mpmath.mpf(0)
    for j, n in enumerate(row):
        if j == jstar:
            continue
        z = gamma * (int(row[jstar]) - int(n))
        total += (2 + z) / (4 * mpmath.exp(z))
    return total


def theorem3(q, lam, gamma):
    """PATE Theorem 3's bound at q, order lam (None outside the validity range)."""
    q, lam, gamma = mpmath.mpf(q), mpmath.mpf(lam), mpmath.mpf(gamma)
    e2 = mpmath.exp(2 * gamma)
    if not q < (e2 - 1) / (mpmath.exp(4 * gamma) - 1):
        return None
    return mpmath.log((1 - q) * ((1 - q) / (1 - e2 * q)) ** lam + q * mpmath.exp(2 * gamma * lam))


def per_query_bound(q, lam, gamma):
    """min(Theorem 2, 2 gamma lam, Theorem 3 where valid) for one query."""
    lam_m, gamma_m = mpmath.mpf(lam), mpmath.mpf(gamma)
    best = min(2 * gamma_m**2 * lam_m * (lam_m + 1), 2 * gamma_m * lam_m)
    t3 = theorem3(q, lam, gamma)
    return best if t3 is None else min(best, t3)
