"""The Gaussian mechanism under (epsilon, delta)-differential privacy, calibrated exactly.

The noise is the smallest the exact privacy profile allows (the *analytic*
Gaussian mechanism), never the classical ``sqrt(2 ln(1.25/delta)) / epsilon``
bound, which is larger and only holds for ``epsilon < 1``:

* ``secure=False`` (the textbook release in doubles, for comparison): the
  smallest double ``sigma`` whose exact profile
  ``delta(eps) = Phi(mu/2 - eps/mu) - e**eps Phi(-mu/2 - eps/mu)``,
  ``mu = sensitivity / sigma`` ([BW18]_ Theorem 8), is at most ``delta`` --
  decided on an interval enclosure of that formula;
* ``secure=True`` (the default): the value is rounded to a power-of-two grid
  and exact discrete Gaussian noise is added to the grid index
  (``docs/theory/secure_noise.rst``); for one coordinate ``sigma_Z`` is the
  smallest 24-bit dyadic rational whose exact discrete-Gaussian profile at
  the grid-index sensitivity ``Delta_Z`` is at most ``delta`` (Theorem 6 of
  that page); for several coordinates, where the discrete Gaussian is not
  rotation invariant, ``sigma_Z`` comes from its Renyi divergences ([CKS20]_
  Theorem 14) and the conversion of [CKS20]_ Proposition 12, which is valid
  but not minimal.

References
----------
- [BW18] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
  Differential Privacy: Analytical Calibration and Optimal Denoising", ICML
  2018, Theorem 8 and Algorithm 1.
- [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
  Differential Privacy", NeurIPS 2020, Theorems 7 and 14, Proposition 12.
- [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
  Differential Privacy", ACM CCS 2012.
"""
from __future__ import annotations

import functools
import math

import scipy.special
from dataclasses import dataclass
from fractions import Fraction

from ..utils.precision import iv_context
from ..utils.validation import Interval, parameter_error
from ..accounting.discrete_gaussian_profile import discrete_gaussian_delta
from ..accounting.gaussian_exact import gaussian_delta
from ..accounting.profiles import float_box
from ..utils.validation import POSITIVE
from ..utils.constraints import FLAG, RNG, Array, Enclosure, InstanceOf, Optional, Options, constrained
from .float_safe import GridNoise, _l2_index_sensitivity, gaussian_grid, grid_step, release

__all__ = ["GaussianCalibration", "gaussian_sigma_approx", "gaussian_calibration_approx",
           "gaussian_mechanism_approx"]

#: epsilon of the analytic calibration. Above 10**6 the exact profile
#: enclosures need ever more terms (epsilon = 10**10 takes minutes), and no
#: release at such an epsilon is meaningful: refused.
EPSILON_MAX = 1e6
EPSILON = Interval(float, 0, EPSILON_MAX, closed="right")
DELTA = Interval(float, 0, 1, closed="neither")
DIM = Interval(int, 1, None)
_DPS = 20                 # interval precision of the profile enclosures
_SIGMA_BITS = 24          # significant bits of the discrete sigma_Z (keeps the compiled sampler)
_MAX_STEPS = 200


@dataclass(frozen=True)
class GaussianCalibration:
    """The noise of an (epsilon, delta) Gaussian release and how close to minimal it is.

    Attributes
    ----------
    epsilon, delta, sensitivity : float
        The claim and the L2 sensitivity it was calibrated for.
    dim : int
        Number of coordinates released.
    secure : bool
        Whether the float-safe grid release is calibrated.
    sigma : float
        Standard deviation parameter of the noise in the units of the value
        (``step * integer_sigma`` rounded up for ``secure=True``).
    sigma_failing : float
        A noise parameter (same units) at which the claim certainly fails:
        the exact delta(epsilon) there exceeds ``delta``. The optimal
        parameter of this construction lies in ``(sigma_failing, sigma]``
        (the exact profile decreases in sigma). ``0.0`` when not computed
        (several coordinates with ``secure=True``, whose calibration is not
        exact).
    delta_enclosure : tuple of float
        ``(lower, upper)`` enclosing the exact delta(epsilon) at ``sigma``;
        ``upper <= delta`` is the guarantee.
    method : str
        ``"analytic"`` (continuous Gaussian profile), ``"discrete exact"``
        (discrete Gaussian profile on the grid) or ``"renyi"`` (several
        coordinates on the grid).
    step : float or None
        Grid step ``g`` (secure only).
    integer_sensitivity : int or None
        L2 sensitivity ``Delta_Z`` of the grid index (secure only).
    integer_sigma : Fraction or None
        Discrete Gaussian parameter ``sigma_Z`` in grid steps (secure only).
    rho, order : float or None
        For ``method="renyi"``: the zCDP parameter ``rho`` of the grid release
        and the Renyi order at which its conversion is at most ``epsilon``.
    """

    epsilon: float
    delta: float
    sensitivity: float
    dim: int
    secure: bool
    sigma: float
    sigma_failing: float
    delta_enclosure: tuple
    method: str
    step: float | None = None
    integer_sensitivity: int | None = None
    integer_sigma: Fraction | None = None
    rho: float | None = None
    order: float | None = None

    @property
    def relative_gap(self) -> float:
        """``(sigma - sigma_failing) / sigma``: how far above the optimum ``sigma`` can be (1.0 if unknown)."""
        return (self.sigma - self.sigma_failing) / self.sigma if self.sigma_failing > 0 else 1.0

    def grid_noise(self) -> GridNoise:
        """The :class:`GridNoise` recipe of the secure release (``secure=True`` only)."""
        if not self.secure:
            raise ValueError("a calibration with secure=False has no grid")
        return GridNoise(self.step, self.integer_sensitivity, "gaussian", self.integer_sigma, self.dim)


# The fields of a calibration, declared so that a hand-built GaussianCalibration
# cannot carry a NaN or negative privacy parameter (sigma may be inf while the
# calibration is being found; the public functions refuse that case).
GaussianCalibration.__init__ = constrained(
    owner="GaussianCalibration",
    epsilon=EPSILON, delta=DELTA, sensitivity=POSITIVE, dim=DIM, secure=FLAG,
    sigma=Interval(float, 0, math.inf, closed="right"),
    sigma_failing=Interval(float, 0, math.inf, closed="both"),
    delta_enclosure=Enclosure(Interval(float, 0, 1)),
    method=Options(("analytic", "discrete exact", "renyi")),
    step=Optional(POSITIVE),
    integer_sensitivity=Optional(Interval(int, 1, None)),
    integer_sigma=Optional(InstanceOf((Fraction,), "a Fraction")),
    rho=Optional(POSITIVE),
    order=Optional(POSITIVE),
)(GaussianCalibration.__init__)


# ------------------------------------------------------------- continuous --

def _float_profile(sigma: float, epsilon: float, sensitivity: float) -> float:
    """The Gaussian profile in doubles (a screen that steers the search, never the verdict)."""
    mu = sensitivity / sigma
    a, b = mu / 2 - epsilon / mu, -mu / 2 - epsilon / mu
    return math.exp(float(scipy.special.log_ndtr(a))) - math.exp(epsilon + float(scipy.special.log_ndtr(b)))


def _float_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """sigma with the float profile equal to delta, by bisection on log sigma (about 1e-13 relative)."""
    lo = hi = sensitivity
    while _float_profile(hi, epsilon, sensitivity) > delta:
        hi *= 2.0
        if math.isinf(hi):
            return math.inf
    while lo > 1e-300 and _float_profile(lo, epsilon, sensitivity) <= delta:
        lo /= 2.0
    for _ in range(_MAX_STEPS):
        mid = math.sqrt(lo) * math.sqrt(hi)
        if not (lo < mid < hi) or hi - lo <= 1e-14 * hi:
            break
        if _float_profile(mid, epsilon, sensitivity) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def _bisect(ok, a, b, mid):
    """Shrink ``[a, b]`` with ``ok(b)`` kept true and ``ok(a)`` false (``mid`` returns None when done)."""
    for _ in range(_MAX_STEPS):
        m = mid(a, b)
        if m is None:
            break
        if ok(m):
            b = m
        else:
            a = m
    return a, b


def _analytic_bounds(epsilon: float, delta: float, sensitivity: float, iv):
    """Doubles ``(fail, ok, enclosure at ok)`` around the least sigma with exact delta(eps) <= delta."""
    d = iv.mpf(sensitivity)
    e = iv.mpf(epsilon)

    def profile(sigma):
        return gaussian_delta(d / iv.mpf(sigma), e, iv)

    def ok(sigma):
        return profile(sigma).b <= delta

    def fails(sigma):
        return profile(sigma).a > delta

    guess = _float_sigma(epsilon, delta, sensitivity)
    if math.isinf(guess):
        return None
    step = 1e-12
    good = guess * (1 + step)
    while not ok(good):
        step *= 16
        good = guess * (1 + step)
        if math.isinf(good):
            return None
    step = 1e-12
    bad = guess * (1 - step)
    while not fails(bad):
        step = min(0.5, step * 16)
        bad = guess * (1 - step) if step < 0.5 else bad / 2
        if bad == 0.0:
            break

    def mid(a, b):
        m = (a + b) / 2
        return m if a < m < b and b - a > 2 * math.ulp(b) else None

    _, good = _bisect(ok, bad, good, mid)
    bad, _ = _bisect(lambda x: not fails(x), bad, good, mid)
    return bad, good, profile(good)


@functools.lru_cache(maxsize=256)
def _calibrate(epsilon: float, delta: float, sensitivity: float, dim: int, secure: bool) -> GaussianCalibration:
    iv = iv_context(_DPS)
    if not secure:
        found = _analytic_bounds(epsilon, delta, sensitivity, iv)
        if found is None:
            return None
        bad, good, enc = found
        lo, hi = float_box(enc)
        return GaussianCalibration(epsilon, delta, sensitivity, dim, False, good, bad, (lo, hi), "analytic")
    if dim == 1:
        return _calibrate_discrete(epsilon, delta, sensitivity, iv)
    return _calibrate_renyi(epsilon, delta, sensitivity, dim, iv)


def _calibrate_discrete(epsilon, delta, sensitivity, iv):
    """One coordinate on the grid: the least 24-bit dyadic sigma_Z with exact discrete delta(eps) <= delta."""
    g = grid_step(sensitivity, 1)
    dz = _l2_index_sensitivity(Fraction(sensitivity) / Fraction(g), 1)
    unit = _analytic_bounds(epsilon, delta, 1.0, iv)
    if unit is None:
        return None
    estimate = unit[1] * dz                          # the continuous optimum for Delta_Z, in steps
    j = max(0, _SIGMA_BITS - max(1, math.floor(estimate)).bit_length())
    scale = 2 ** j

    def profile(n):
        return discrete_gaussian_delta(Fraction(n, scale), dz, epsilon, iv)

    def ok(n):
        return profile(n).b <= delta

    def fails(n):
        return profile(n).a > delta

    n0 = max(1, math.ceil(estimate * scale))
    width = max(1, n0 >> 16)
    hi = n0 + width
    while not ok(hi):
        width *= 4
        hi = n0 + width
    width = max(1, n0 >> 16)
    lo = max(0, n0 - width)
    while lo > 0 and not fails(lo):
        width *= 4
        lo = max(0, n0 - width)

    def mid(a, b):
        return (a + b) // 2 if b - a > 1 else None

    _, n_ok = _bisect(ok, lo, hi, mid)
    n_fail, _ = _bisect(lambda n: n > 0 and not fails(n), lo, n_ok, mid)
    sigma_z = Fraction(n_ok, scale)
    enc = profile(n_ok)
    lo_d, hi_d = float_box(enc)
    sigma = math.nextafter(float(sigma_z) * g, math.inf)
    failing = float(Fraction(n_fail, scale)) * g if n_fail > 0 else 0.0
    failing = math.nextafter(failing, 0.0) if failing > 0 else 0.0
    return GaussianCalibration(epsilon, delta, sensitivity, 1, True, sigma, failing, (lo_d, hi_d),
                               "discrete exact", g, dz, sigma_z)


def _cks_epsilon(alpha: float, rho: float, delta: float) -> float:
    """The conversion of [CKS20] Proposition 12 for rho-zCDP at order alpha, in doubles (a screen only)."""
    return (alpha * rho + math.log1p(-1.0 / alpha)
            - (math.log(delta) + math.log(alpha)) / (alpha - 1.0))


def _best_alpha(rho: float, delta: float) -> float:
    a, b = 1.0 + 1e-9, 1.0 + 1e9
    for _ in range(200):                                   # golden-section search on log(alpha - 1)
        m1 = a + (b - a) * 0.381966
        m2 = a + (b - a) * 0.618034
        if _cks_epsilon(m1, rho, delta) <= _cks_epsilon(m2, rho, delta):
            b = m2
        else:
            a = m1
        if b - a <= 1e-12 * b:
            break
    return (a + b) / 2


def _calibrate_renyi(epsilon, delta, sensitivity, dim, iv):
    """Several coordinates on the grid: the largest rho (bisection) whose certified conversion is <= epsilon."""
    from ..accounting.conversions import rdp_to_dp

    def certified(rho):
        alpha = _best_alpha(rho, delta)
        return rdp_to_dp(alpha, alpha * rho, delta) <= epsilon

    lo, hi = 0.0, epsilon
    while certified(hi):
        hi *= 2.0
    lo = hi / 2.0
    while not certified(lo):
        lo /= 2.0
        if lo == 0.0:
            return None
    for _ in range(80):
        m = (lo + hi) / 2
        if certified(m):
            lo = m
        else:
            hi = m
        if hi - lo <= 1e-13 * hi:
            break
    noise = gaussian_grid(lo, sensitivity, dim)
    sigma = noise.noise_scale
    alpha = _best_alpha(lo, delta)
    return GaussianCalibration(epsilon, delta, sensitivity, dim, True, sigma, 0.0, (0.0, delta), "renyi",
                               noise.step, noise.integer_sensitivity, noise.parameter, lo, alpha)


# ----------------------------------------------------------------- public --

@constrained(epsilon=EPSILON, delta=DELTA, sensitivity=POSITIVE, dim=DIM, secure=FLAG)
def gaussian_calibration_approx(epsilon, delta, sensitivity=1.0, *, dim=1, secure=True):
    """Calibrate the (epsilon, delta) Gaussian release and certify it.

    Parameters
    ----------
    epsilon : float in (0, 1e6]
    delta : float in (0, 1)
    sensitivity : float > 0, default 1.0
        L2 sensitivity of the released function.
    dim : int >= 1, default 1
        Number of coordinates released (it changes the grid for
        ``secure=True`` only).
    secure : bool, default True
        Calibrate the float-safe grid release (True) or the continuous
        Gaussian (False).

    Returns
    -------
    GaussianCalibration
        ``sigma`` with the enclosure of the exact delta(epsilon) there and
        a ``sigma_failing`` where the claim certainly fails.

    Raises
    ------
    ValueError
        If ``epsilon``, ``delta``, ``sensitivity`` or ``dim`` is out of range
        or the noise parameter overflows a double.

    Notes
    -----
    ``secure=False``: ``sigma`` is the smallest double found by bisection
    with ``delta_N(eps; sensitivity / sigma) <= delta`` on the upper end of an
    interval enclosure of the exact profile of [BW18]_ Theorem 8
    (``refdp.accounting.gaussian_exact``); ``sigma_failing`` has the lower
    end above ``delta``. ``secure=True``, one coordinate: the grid of
    :func:`refdp.mechanisms.gaussian_mechanism` (``g`` the largest power of
    two at most ``sensitivity / 2**10``, ``Delta_Z = floor(sensitivity / g) +
    1``), and ``sigma_Z`` the smallest multiple of ``2**-j`` (24 significant
    bits) whose exact discrete-Gaussian profile at shift ``Delta_Z`` has an
    upper end at most ``delta`` (``docs/theory/secure_noise.rst``, Theorem
    5); a smaller grid-index shift is no worse (the same theorem).
    ``secure=True``, several coordinates: the largest rho whose [CKS20]_
    Proposition 12 conversion, minimised over the order, is certified at
    most ``epsilon``, and the rho-zCDP grid release of
    :func:`refdp.mechanisms.gaussian_mechanism` for it.

    References
    ----------
    .. [BW18] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
       Differential Privacy: Analytical Calibration and Optimal Denoising",
       ICML 2018.
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete
       Gaussian for Differential Privacy", NeurIPS 2020.

    Examples
    --------
    >>> from refdp.mechanisms import gaussian_calibration_approx
    >>> cal = gaussian_calibration_approx(1.0, 1e-5, secure=False)
    >>> round(cal.sigma, 4), cal.delta_enclosure[1] <= 1e-5, cal.relative_gap < 1e-12
    (3.7306, True, True)
    """
    owner = "gaussian_calibration_approx"
    cal = _calibrate(epsilon, delta, sensitivity, dim, secure)
    if cal is None or not math.isfinite(cal.sigma):
        raise parameter_error("epsilon", owner,
                              f"large enough that the noise parameter is a finite double "
                              f"('delta' = {delta!r}, 'sensitivity' = {sensitivity!r})", epsilon)
    return cal


@constrained(epsilon=EPSILON, delta=DELTA, sensitivity=POSITIVE)
def gaussian_sigma_approx(epsilon, delta, sensitivity=1.0):
    """Smallest noise standard deviation for an (epsilon, delta)-DP Gaussian release: the analytic Gaussian.

    Parameters
    ----------
    epsilon : float in (0, 1e6]
    delta : float in (0, 1)
    sensitivity : float > 0, default 1.0
        L2 sensitivity of the released function.

    Returns
    -------
    float
        The smallest double ``sigma`` (up to a bisection stopped a few units
        in the last place above it) whose exact privacy profile
        ``Phi(mu/2 - epsilon/mu) - e**epsilon Phi(-mu/2 - epsilon/mu)``,
        ``mu = sensitivity / sigma``, is at most ``delta`` -- decided on the
        upper end of an interval enclosure ([BW18]_ Theorem 8). Every
        ``epsilon > 0`` is allowed (the classical ``sqrt(2 ln(1.25 / delta))
        sensitivity / epsilon`` needs ``epsilon < 1`` and is larger).

    Raises
    ------
    ValueError
        If ``epsilon``, ``delta`` or ``sensitivity`` is out of range.

    References
    ----------
    .. [BW18] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
       Differential Privacy: Analytical Calibration and Optimal Denoising",
       ICML 2018.

    Examples
    --------
    >>> from refdp.mechanisms import gaussian_sigma_approx
    >>> round(gaussian_sigma_approx(1.0, 1e-5), 6), round(gaussian_sigma_approx(0.1, 1e-5), 4)
    (3.730632, 30.7496)
    """
    return gaussian_calibration_approx.__wrapped__(epsilon, delta, sensitivity, secure=False).sigma


@constrained(value=Array(min_size=0), epsilon=EPSILON, delta=DELTA, sensitivity=POSITIVE, rng=RNG, secure=FLAG)
def gaussian_mechanism_approx(value, epsilon, delta, *, sensitivity=1.0, rng=None, secure=True):
    """Release ``value`` with Gaussian noise, (epsilon, delta)-DP as implemented, with the least noise.

    For ``f`` with L2 sensitivity ``sensitivity``, releasing ``f(D) + N(0,
    sigma**2 I)`` is (epsilon, delta)-DP exactly when the Gaussian privacy
    profile at ``mu = sensitivity / sigma`` is at most ``delta`` at
    ``epsilon`` ([BW18]_ Theorem 8); the analytic calibration takes the
    least such ``sigma``. Sampled and added in double precision that release
    is not private ([Mir12]_); by default this function releases the
    discrete Gaussian analogue on a grid, calibrated on the exact profile of
    the discrete Gaussian, whose guarantee holds for the doubles it returns.

    Parameters
    ----------
    value : float or array_like of float
        The exact value ``f(D)`` as computed; any shape. Must be finite and,
        with ``secure=True``, at most ``(2**53 - 1) g`` in magnitude.
    epsilon : float in (0, 1e6]
    delta : float in (0, 1)
    sensitivity : float > 0, default 1.0
        L2 sensitivity of ``f`` (as computed) under the caller's neighbour
        relation.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of randomness, normalised with :func:`numpy.random.default_rng`.
        For deployments, a Generator on a cryptographically strong bit
        generator (``docs/theory/secure_noise.rst``).
    secure : bool, default True
        True: the grid release, (epsilon, delta)-DP for the returned doubles.
        False: ``value + Generator.normal(0, sigma)`` in doubles with the
        analytic ``sigma`` of :func:`gaussian_sigma_approx`, **not private as
        implemented** ([Mir12]_); for comparison and teaching only.

    Returns
    -------
    float or ndarray of float
        A float for scalar ``value``, otherwise an array of ``value``'s shape.

    Raises
    ------
    ValueError
        If ``epsilon``, ``delta`` or ``sensitivity`` is out of range, if
        ``value`` has a non-finite entry, or (``secure=True``) if an entry of
        ``value`` is too large for its grid index to be an exact double.

    Notes
    -----
    **The secure construction** (``docs/theory/secure_noise.rst``, Theorems
    2 and 6). ``g`` and the grid-index L2 sensitivity ``Delta_Z`` are those of
    :func:`refdp.mechanisms.gaussian_mechanism` for ``value.size``
    coordinates; ``k = round(value / g)`` gets independent discrete Gaussian
    noise of parameter ``sigma_Z`` per entry, drawn exactly ([CKS20]_
    Algorithm 3), and ``g (k + Z)`` is returned. One coordinate:
    ``sigma_Z`` is the least 24-bit dyadic rational whose exact
    discrete-Gaussian profile ``delta(epsilon)`` at shift ``Delta_Z`` is at
    most ``delta`` ([CKS20]_ Theorem 7, enclosed rigorously), so that
    ``g sigma_Z`` exceeds the analytic ``sigma`` by about ``Delta_Z g /
    sensitivity <= 1 + 2**-10``. Several coordinates: ``sigma_Z`` from the
    Renyi divergences of the discrete Gaussian ([CKS20]_ Theorem 14) and
    the conversion of [CKS20]_ Proposition 12 (valid, not minimal: the
    discrete Gaussian is not rotation invariant). The calibration is
    computed once per ``(epsilon, delta, sensitivity, size, secure)`` and
    remembered (a pure function of its arguments);
    :func:`gaussian_calibration_approx` returns it with its certificate.

    References
    ----------
    .. [BW18] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
       Differential Privacy: Analytical Calibration and Optimal Denoising",
       ICML 2018.
    .. [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
       Differential Privacy", ACM CCS 2012.
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete
       Gaussian for Differential Privacy", NeurIPS 2020.

    Examples
    --------
    >>> from refdp.mechanisms import gaussian_mechanism_approx
    >>> x = gaussian_mechanism_approx(3.0, 1.0, 1e-5, rng=0)
    >>> x == round(x * 1024) / 1024     # on the grid 2**-10
    True
    """
    owner = "gaussian_mechanism_approx"
    cal = gaussian_calibration_approx.__wrapped__(epsilon, delta, sensitivity, dim=max(1, value.size),
                                                  secure=secure)
    if secure:
        out = release(value, cal.grid_noise(), rng, owner)
    else:
        out = value + rng.normal(0.0, cal.sigma, size=value.shape)
    return float(out) if out.ndim == 0 else out
