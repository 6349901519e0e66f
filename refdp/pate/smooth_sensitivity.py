r"""Releasing a data-dependent epsilon: smooth sensitivity of the composed log-moment.

PATE's data-dependent :math:`\varepsilon` is a function of the sensitive votes.
Papernot et al. (2017, Sec. 3.3) propose to bound the smooth sensitivity
(Nissim, Raskhodnikova and Smith 2007) of the moments and to add noise
proportional to it. refdp does this for one quantity, stated exactly:

**The released quantity.** For an order :math:`\lambda` fixed in advance
(independently of the data) and the answered queries :math:`i = 1..Q`,

.. math::

   f(D) = \sum_{i=1}^{Q} \varphi_\lambda\big(q_i(D)\big), \qquad
   \varphi_\lambda(q) = \begin{cases}
     \min\big(B_\lambda, T_\lambda(q)\big) & q < \tfrac{1}{e^{2\gamma} + 1},\\
     B_\lambda & \text{otherwise,}\end{cases}

with :math:`B_\lambda = \min(2\gamma^2\lambda(\lambda + 1), 2\gamma\lambda)`
(Theorem 2), :math:`T_\lambda` Theorem 3's bound, and :math:`q_i` the
statistic of the accountant: Lemma 4's :math:`q` (``statistic="lemma4"``) or
the exact :math:`q` (``"exact"``), one- or two-sided. This is the composed
log-moment of :class:`refdp.pate.PATEAccountant` at order :math:`\lambda`
(analysis ``"theorem3"`` or ``"theorem3_exact_q"``), and
:math:`\varepsilon = (f + \ln(1/\delta))/\lambda` by the tail bound.

**The bound (proved in docs/theory/pate.rst).** :math:`\varphi_\lambda` is
non-decreasing. Let :math:`\sigma = \log\min(q, 1/(e^{2\gamma} + 1))`. One
changed record changes one teacher, so every vote histogram moves by at most
one vote, and then :math:`|\Delta\sigma| \le c` with :math:`c = 2\gamma`
(one-sided), :math:`3\gamma` (Lemma 4, two-sided) or :math:`4\gamma` (exact
:math:`q`, two-sided). Hence the local sensitivity of one term at a histogram
with statistic :math:`\sigma` is at most
:math:`\psi(\sigma) = \max\big(\varphi(e^{\sigma + c}) - \varphi(e^{\sigma}),
\varphi(e^{\sigma}) - \varphi(e^{\sigma - c})\big)`, and at distance
:math:`k` (every histogram moved by up to :math:`k` votes) the statistic lies
in :math:`[\sigma_i - ck, \sigma_i + ck]`. So

.. math::

   A^{(k)}(D) = \sum_i \max_{s \in [\sigma_i - ck,\, \sigma_i + ck]} \psi(s),
   \qquad S(D) = \max_{k \ge 0} e^{-\beta k} A^{(k)}(D)

bounds the local sensitivity at distance :math:`k` and is a
:math:`\beta`-smooth upper bound of the local sensitivity of :math:`f`
(:math:`A^{(k)}(D) \le A^{(k+1)}(D')` for neighbours). The maxima of
:math:`\psi` are bounded on a grid of :math:`\log q` values with spacing
:math:`c/8`, from enclosures of :math:`\varphi` in interval arithmetic
(``mpmath.iv``), so :math:`S` is rounded upward.

**The noise.** :math:`\hat f = f(D) + (S(D)/a)\,Z` with
:math:`Z \sim \mathrm{Lap}(1)`, :math:`a = \varepsilon_r/2` and
:math:`\beta = \min(\varepsilon_r/2, \ln(1 + \varepsilon_r/(2\ln(e^{\varepsilon_r/2}/\delta_r))))`
is :math:`(\varepsilon_r, \delta_r)`-DP (the Laplace case of NRS Lemma 2.6
and Lemma 2.9, re-derived with these constants in docs/theory/pate.rst).
The noisy :math:`\hat\varepsilon = (\hat f + \ln(1/\delta))/\lambda` is
post-processing. The release costs :math:`(\varepsilon_r, \delta_r)` on top
of the student's guarantee (basic composition). That is the real-valued
mechanism (``secure=False``). By default :func:`release_epsilon` releases its
float-safe form on a public grid with exact discrete Laplace noise, which is
:math:`(\varepsilon_r, \delta_r)`-DP for the double returned
(docs/theory/secure_noise.rst, Theorem 4).

**Noise of the answers** (``noise=``). With ``noise="discrete"`` (the
default, for answers of ``lnmax_labels(secure=True)``), :math:`q_i` is the
discrete Lemma 4 bound or the exact :math:`q` of the discrete law
(:mod:`refdp.pate.discrete_analysis`; the exact statistics are ``+inf``,
i.e. :math:`\sigma = \log\tau`, at top-two gaps of at most 2), and the
steps are :math:`c = 2\gamma` (Lemma 4, one-sided), :math:`3\gamma`
(Lemma 4, two-sided; exact, one-sided) and :math:`2\gamma` (exact,
two-sided), proved in docs/theory/pate_discrete.rst. ``noise="continuous"``
is the analysis of ``secure=False`` answers above.

References
----------
.. [PATE17] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
   "Semi-supervised Knowledge Transfer for Deep Learning from Private Training
   Data", ICLR 2017, Sec. 3.3.
.. [NRS07] K. Nissim, S. Raskhodnikova and A. Smith, "Smooth Sensitivity and
   Sampling in Private Data Analysis", STOC 2007 (full version), Definition
   2.2, Lemma 2.6 and Lemma 2.9.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import mpmath
import numpy as np

from .. import core
from ..utils.constraints import FLAG, PROBABILITY_RESULT, RNG, constrained, constrained_fields
from ..utils.validation import Interval, Options, parameter_error
from ..utils.rounding import MACHINE_EPSILON as _EPS, UNIT_ROUNDOFF, ceil_interval, ceil_mpf, interval_context
from ..accounting import pate_data_independent_log_moments
from ..mechanisms.float_safe import SMOOTH_BETA_MARGIN, smooth_laplace_release
from ._args import DELTA, POSITIVE
from ._constraints import COUNTS, FINITE, FINITE_PRIVACY, GAMMA
from ..utils.votes import check_gamma_votes
from ._args import check_discrete_gamma
from .accountant import lemma4_two_sided_log_q
from .discrete_analysis import (NOISES, discrete_exact_log_q, discrete_lemma4_log_q,
                                discrete_lemma4_two_sided_log_q, statistic_slack)
from .exact import ETA, exact_analysis
from ..twins.bounds import pate_theorem2, pure_dp_log_moment

__all__ = ["SmoothSensitivity", "EpsilonRelease", "smooth_sensitivity", "smooth_laplace_parameters",
           "release_epsilon", "statistic_step", "PRIVATE_MECHANISMS"]

#: Public functions of this module that release private output.
PRIVATE_MECHANISMS = ("refdp.pate.release_epsilon",)

_STATISTIC = Options(("lemma4", "exact"))
_BETA = POSITIVE
#: The moment order lambda: below 2**-20 the estimates (f + ln(1/delta)) / lambda
#: overflow to inf (order 5e-324) and say nothing; above 2**20 the interval
#: enclosures of Theorem 3 raise to powers up to 1e308 and take
#: minutes (order 1e308), while the bound is already the data-independent one.
_ORDER = Interval(float, 2.0**-20, 2.0**20, closed="both")
_NOISE = Options(NOISES)
#: Cells of the grid of log q values (spacing c / 8); below it one bound covers all.
GRID_CELLS = 1024
#: Relative slack added to the accountant's float value of f (its rounding, see
#: docs/theory/floating_point.rst), covered in the sensitivity as 2 * this * (1 + Q B).
_F_RTOL = 1e-12


@constrained_fields(value=FINITE, local=FINITE, beta=FINITE, order=FINITE, step=FINITE, log_moment=FINITE,
                    unchecked="what smooth_sensitivity computed")
@dataclass(frozen=True)
class SmoothSensitivity:
    """A beta-smooth upper bound of the local sensitivity of the composed log-moment.

    Attributes
    ----------
    value : float
        ``S(D) = max_k exp(-beta k) A_k(D)``, rounded upward.
    local : float
        ``A_0(D)``, the bound on the local sensitivity itself.
    k : int
        A distance at which the maximum is attained.
    beta : float
    order : float
        The moment order lambda.
    statistic : str
    two_sided : bool
    step : float
        ``c``, the largest change of ``log min(q, threshold)`` per changed record.
    log_moment : float
        ``f(D)``, the composed log-moment at ``order`` (rounded upward): the
        sensitive value itself.
    noise : str
        Noise law of the analysed answers (``"discrete"`` or ``"continuous"``).
    """

    value: float
    local: float
    k: int
    beta: float
    order: float
    statistic: str
    two_sided: bool
    step: float
    log_moment: float
    noise: str = "discrete"


@constrained_fields(delta=PROBABILITY_RESULT, epsilon_tail=FINITE_PRIVACY, epsilon_rdp=FINITE_PRIVACY,
                    epsilon_release=FINITE_PRIVACY, delta_release=PROBABILITY_RESULT,
                    unchecked="what release_epsilon computed")
@dataclass(frozen=True)
class EpsilonRelease:
    """A differentially private release of PATE's data-dependent epsilon.

    Attributes
    ----------
    order : float
        The moment order lambda, fixed before seeing the data.
    delta : float
        The delta of the student's (epsilon, delta) guarantee.
    noisy_log_moment : float
        ``f(D) + (S(D)/a) Z``, ``Z ~ Lap(1)`` (``secure=False``), or its
        float-safe form ``g (round(f(D)/g) + Z)`` with ``Z`` exact discrete
        Laplace of scale ``t >= (S(D)/g + 1)/a`` (the default), clamped to
        ``[0, data_independent_log_moment]``: every log-moment lies there, so
        the clamp is free post-processing and only moves the estimate toward
        the possible values (without it, a noisy estimate could be negative).
    epsilon_tail, epsilon_rdp : float
        ``(noisy + ln(1/delta)) / lambda`` (PATE Theorem 1.2) and the Rényi
        conversion at the same order, from the clamped log-moment; noisy
        estimates, not bounds. They are never below ``ln(1/delta)/lambda``
        (resp. its Rényi form, floored at 0) and never above the data-independent epsilon
        at the same order.
    noise_scale : float
        ``S(D) / a``, or ``g t`` for the float-safe release (scale of the
        noise on the log-moment, rounded up); divide by ``order`` for the
        scale on epsilon.
    smooth_sensitivity : SmoothSensitivity
    epsilon_release, delta_release : float
        Privacy cost of this release.
    data_independent_log_moment : float
        ``Q B_lambda`` (PATE Theorem 2), the public upper end of the clamp.
    clamped : bool
        Whether the noisy value fell outside ``[0, data_independent_log_moment]``.
        When ``noise_scale`` is comparable with ``data_independent_log_moment``
        the noise dwarfs the quantity released and the estimate says little
        beyond the data-independent analysis; more teachers (larger gaps
        between the top counts) shrink the smooth sensitivity.
    """

    order: float
    delta: float
    noisy_log_moment: float
    epsilon_tail: float
    epsilon_rdp: float
    noise_scale: float
    smooth_sensitivity: SmoothSensitivity
    epsilon_release: float
    delta_release: float
    data_independent_log_moment: float = math.inf
    clamped: bool = False


def statistic_step(gamma, statistic="lemma4", two_sided=True, noise="discrete"):
    """Largest change of ``log min(q, 1/(e^{2 gamma} + 1))`` when one teacher changes its vote.

    Continuous noise: ``2 gamma`` one-sided (Lemma 4 or exact q), ``3 gamma``
    for Lemma 4 at the two-sided neighbour, ``4 gamma`` for the exact
    two-sided q (docs/theory/pate.rst). Discrete noise: ``2 gamma`` (Lemma 4,
    one-sided), ``3 gamma`` (Lemma 4, two-sided; exact, one-sided),
    ``2 gamma`` (exact, two-sided) (docs/theory/pate_discrete.rst, Lemma D6).
    """
    if noise == "discrete":
        if statistic == "lemma4":
            return 3.0 * gamma if two_sided else 2.0 * gamma
        return 2.0 * gamma if two_sided else 3.0 * gamma
    if not two_sided:
        return 2.0 * gamma
    return 3.0 * gamma if statistic == "lemma4" else 4.0 * gamma


def _statistic(counts, gamma, statistic, two_sided, order, noise):
    if noise == "discrete":
        if statistic == "lemma4":
            return (discrete_lemma4_two_sided_log_q.__wrapped__(counts, gamma) if two_sided
                    else discrete_lemma4_log_q.__wrapped__(counts, gamma))
        return discrete_exact_log_q.__wrapped__(counts, gamma, two_sided=two_sided)
    if statistic == "lemma4":
        return lemma4_two_sided_log_q(counts, gamma) if two_sided else core.lemma4_log_q(counts, gamma)
    r = exact_analysis.__wrapped__(counts, gamma, np.array([order]), noise="continuous")
    return r.log_q_two_sided if two_sided else r.log_q


def _phi_enclosures(points, gamma, lam):
    """Lower and upper bounds of phi_lambda(exp(g)) for exact binary points g (mpmath.iv)."""
    lo, hi = [], []
    with interval_context() as iv:
        g = iv.mpf(gamma)
        L = iv.mpf(lam)
        E = iv.exp(2 * g)
        thr = 1 / (E + 1)
        renyi, pure = 2 * g * g * L * (L + 1), 2 * g * L
        best_lo, best_hi = iv.mpf(min(renyi.a, pure.a)), iv.mpf(min(renyi.b, pure.b))
        EL = iv.exp(2 * g * L)

        def theorem3(q):
            return iv.log((1 - q) * ((1 - q) / (1 - E * q)) ** L + q * EL)

        for pt in points:
            q = iv.exp(pt)
            if q.a >= thr.b:                     # surely at or above the threshold
                lo.append(best_lo.a)
                hi.append(best_hi.b)
            elif q.b < thr.a:                    # surely below
                t = theorem3(q)
                lo.append(min(best_lo.a, t.a))
                hi.append(min(best_hi.b, t.b))
            else:                                # straddles: phi in [0, best]
                lo.append(iv.mpf(0).a)
                hi.append(best_hi.b)
    return lo, hi


def _grid(gamma, step, slack, n_cells):
    """Grid top G0 (a float >= log threshold) and spacing w >= (step + slack) / 8 (a float)."""
    with interval_context() as iv:
        top = ceil_interval(iv.log(1 / (iv.exp(2 * iv.mpf(gamma)) + 1)))
        w = ceil_interval((iv.mpf(step) + iv.mpf(slack)) / 8)
    return top, w


def _slack(gamma, statistic, counts, top, w, n_cells, noise="continuous"):
    """Bound on the change of the computed log-statistic caused by its upward rounding.

    Depends on public quantities only: gamma, the number of teachers and of
    classes, and the grid (docs/theory/pate.rst).
    """
    teachers = float(counts.sum(axis=1).max())
    C = counts.shape[1]
    span = abs(top) + (n_cells + 16) * w                # |sigma| after clamping to the grid
    if noise == "discrete":
        # the computed statistics' rounding margins (refdp.pate.discrete_analysis)
        return statistic_slack(statistic, teachers, C, gamma, span)
    if statistic == "lemma4":
        z = gamma * teachers
        return 2 * 16.0 * _EPS * (z + math.log(2.0 + z) + span + z + 2.0 * C + 8.0)
    return 4.0 * (2.0 * ETA + 4.0 * UNIT_ROUNDOFF * span)


@functools.lru_cache(maxsize=64)
def _cell_bounds(gamma, lam, top, w, n_cells):
    """Cell bounds Psi[j] of psi on [g_{j+1}, g_j], g_j = top - j w, and the floor bound F (floats, upward).

    A function of public parameters only (cached).
    """
    with interval_context() as iv:
        pts = [iv.mpf(top) - j * iv.mpf(w) for j in range(-8, n_cells + 10)]
    lo, hi = _phi_enclosures(pts, gamma, lam)
    off = 8                                   # pts[j + off] is g_j
    psi = np.empty(n_cells)
    psi.flags.writeable = True
    with interval_context() as iv:
        for j in range(n_cells):
            up = iv.mpf(hi[j - 8 + off]) - iv.mpf(lo[j + 1 + off])
            down = iv.mpf(hi[j + off]) - iv.mpf(lo[j + 9 + off])
            psi[j] = max(0.0, ceil_interval(up), ceil_interval(down))
        floor = ceil_interval(iv.mpf(hi[n_cells - 8 + off]))
    psi.flags.writeable = False
    return psi, floor


def _sparse_table(values):
    table = [values]
    k = 1
    while 2 * k <= len(values):
        prev = table[-1]
        table.append(np.maximum(prev[:-k], prev[k:]))
        k *= 2
    return table


def _range_max(table, lo, hi):
    """max(values[lo..hi]) for arrays lo <= hi (inclusive)."""
    length = hi - lo + 1
    level = np.floor(np.log2(length)).astype(np.int64)
    out = np.empty(lo.shape)
    for lv in np.unique(level):
        sel = level == lv
        t = table[lv]
        out[sel] = np.maximum(t[lo[sel]], t[hi[sel] - (1 << lv) + 1])
    return out


@constrained(counts=COUNTS, gamma=GAMMA, order=_ORDER, beta=_BETA, statistic=_STATISTIC, two_sided=FLAG,
             noise=_NOISE)
def smooth_sensitivity(counts, gamma, order, beta, *, statistic="lemma4", two_sided=True, noise="discrete"):
    """Smooth sensitivity bound of the composed data-dependent log-moment ([PATE17]_ Sec. 3.3).

    Parameters
    ----------
    counts : array_like of int, shape (Q, C)
        Vote counts of the answered queries.
    gamma : float > 0
        LNMax's inverse Laplace scale, with ``gamma * T <= 8192`` for ``T``
        the votes of a query (:func:`refdp.pate.lnmax_distribution`;
        docs/theory/pate.rst, "Range of gamma") and, for
        ``statistic="exact"`` with ``noise="discrete"``, ``gamma >= 2**-10``.
    order : float in [2**-20, 2**20]
        The moment order lambda (fixed before seeing the data).
    beta : float > 0
        Smoothing parameter ([NRS07]_ Definition 2.2).
    statistic : {"lemma4", "exact"}, default "lemma4"
        Which q feeds Theorem 3 (as in :class:`refdp.pate.PATEAccountant`).
    two_sided : bool, default True
    noise : {"discrete", "continuous"}, default "discrete"
        Noise law of the answers (module docstring): ``"discrete"`` for
        ``lnmax_labels(secure=True)``, its default.

    Returns
    -------
    SmoothSensitivity
        ``value`` is a beta-smooth upper bound on the local sensitivity of
        ``f(D)`` (module docstring), rounded upward. ``log_moment`` is the
        sensitive value ``f(D)`` itself.

    Raises
    ------
    ValueError
        On invalid arguments (one message shape, naming the parameter).
    """
    owner = "smooth_sensitivity"
    lam, arr = order, counts
    check_gamma_votes(gamma, arr, owner)          # gamma = 1e308 overflowed the grid (inf - inf) and hung
    if statistic == "exact":
        if noise == "discrete":
            check_discrete_gamma(gamma, owner)
    n = arr.shape[0]
    lq = _statistic(arr, gamma, statistic, two_sided, lam, noise)
    f_value = float(core.accountant_log_moments(lq, [lam], gamma)[0])
    step = statistic_step(gamma, statistic, two_sided, noise)
    top, w0 = _grid(gamma, step, 0.0, GRID_CELLS)
    slack = _slack(gamma, statistic, arr, top, w0 * 2, GRID_CELLS, noise)
    top, w = _grid(gamma, step, slack, GRID_CELLS)
    psi, floor = _cell_bounds(gamma, lam, top, w, GRID_CELLS)
    table = _sparse_table(psi)
    # sigma = log min(q, threshold), also clamped below the grid (1-Lipschitz, data-independent)
    bottom = top - (GRID_CELLS + 8) * w
    sigma = np.clip(np.where(np.isnan(lq), top, lq), bottom, top)
    t = (top - sigma) / w                       # position in cells below the top
    psi_max = max(float(psi.max()), floor)
    # the float sums and exponentials below are exact up to a relative 3 (n + 4) EPS; smoothing
    # with a slightly smaller beta keeps the computed S exactly beta-smooth (docs/theory/pate.rst)
    beta_int = beta - 4.0 * (n + 4) * _EPS - 1e-15
    if not beta_int > 0:
        raise parameter_error("beta", owner, f"a float above {4.0 * (n + 4) * _EPS + 1e-15!r}", beta)
    best_k, s_value, local = 0, 0.0, 0.0
    k = 0
    while True:
        lo_pos = np.floor(t - 8 * k) - 1
        hi_pos = np.ceil(t + 8 * k) + 1
        inside = lo_pos <= GRID_CELLS - 1
        lo_i = np.clip(lo_pos, 0, GRID_CELLS - 1).astype(np.int64)
        hi_i = np.clip(hi_pos, 0, GRID_CELLS - 1).astype(np.int64)
        vals = np.zeros(n)
        if inside.any():
            vals[inside] = _range_max(table, lo_i[inside], hi_i[inside])
        below = hi_pos >= GRID_CELLS
        vals = np.where(below, np.maximum(vals, floor), vals)
        a_k = float(vals.sum()) * (1.0 + (n + 2) * _EPS)
        if k == 0:
            local = a_k
        weighted = math.exp(-beta_int * k) * (1.0 + 4 * _EPS) * a_k
        if weighted > s_value:
            s_value, best_k = weighted, k
        k += 1
        if math.exp(-beta_int * k) * n * psi_max <= s_value:
            break
        if k > 10**6:
            raise parameter_error("beta", owner, "large enough for the smoothing to end within 10**6 "
                                  "steps", beta)
    bound_f = 2.0 * _F_RTOL * (1.0 + n * 2.0 * gamma * lam)      # rounding of the float f(D)
    return SmoothSensitivity(value=s_value + bound_f, local=local + bound_f, k=best_k, beta=beta,
                             order=lam, statistic=statistic, two_sided=two_sided, step=step,
                             log_moment=f_value, noise=noise)


@constrained(epsilon=POSITIVE, delta=DELTA)
def smooth_laplace_parameters(epsilon, delta):
    """Sliding ``a`` and smoothing ``beta`` of Laplace noise for (epsilon, delta)-DP ([NRS07]_ Lemma 2.9).

    Releasing ``f(D) + (S(D)/a) Z``, ``Z ~ Lap(1)``, with ``S`` a
    beta-smooth upper bound on the local sensitivity of ``f`` is
    (epsilon, delta)-DP for ``a = epsilon / 2`` and
    ``beta = min(epsilon / 2, ln(1 + epsilon / (2 ln(exp(epsilon/2) / delta))))``
    (proof in docs/theory/pate.rst).

    Parameters
    ----------
    epsilon : float > 0
    delta : float in (0, 1)

    Returns
    -------
    (a, beta) : tuple of float
        ``a`` rounded down and ``beta`` rounded down (both conservative).
    """
    with interval_context() as iv:
        e = iv.mpf(epsilon)
        log_inv = e / 2 - iv.log(iv.mpf(delta))
        b = iv.log(1 + e / (2 * log_inv))
        beta = -ceil_mpf(-mpmath.mpf(b.a))      # lower end, rounded down
    a = epsilon / 2                               # exact (a power-of-two scaling)
    return a, min(beta, a)


def _secure_parameters(counts, gamma, lam, eps_r, delta_r, statistic, two_sided, owner, noise):
    """(smooth sensitivity, a, public grid step) of the float-safe release (Theorem 4 of secure_noise.rst)."""
    a = eps_r / 2
    # the discrete Laplace tail is heavier than the continuous one by 2 / (1 + exp(-1/t)),
    # t >= 1/a; lower delta accordingly (the product is rounded down by the factor 1 - 2**-40)
    delta_tail = delta_r * (1.0 + math.exp(-a)) / 2.0 * (1.0 - 2.0**-40)
    a, beta = smooth_laplace_parameters.__wrapped__(eps_r, delta_tail)
    beta_s = beta - SMOOTH_BETA_MARGIN
    if not beta_s > 0:
        raise parameter_error("epsilon_release", owner,
                              "large enough that the smoothing parameter beta exceeds 2**-46", eps_r)
    check_gamma_votes(gamma, counts, owner)
    ss = smooth_sensitivity.__wrapped__(counts, gamma, lam, beta_s, statistic=statistic, two_sided=two_sided,
                                        noise=noise)
    bound = counts.shape[0] * min(pate_theorem2(gamma, lam), pure_dp_log_moment(gamma, lam))
    step = math.ldexp(1.0, max(math.frexp(bound)[1] - 51, -1074))   # <= Q B 2**-50, public
    return ss, a, step


@constrained(counts=COUNTS, gamma=GAMMA, delta=DELTA, order=_ORDER, epsilon_release=POSITIVE,
             delta_release=DELTA, statistic=_STATISTIC, two_sided=FLAG, rng=RNG, secure=FLAG, noise=_NOISE)
def release_epsilon(counts, gamma, delta, *, order, epsilon_release, delta_release,
                    statistic="lemma4", two_sided=True, rng=None, secure=True, noise="discrete"):
    """Release PATE's data-dependent epsilon with smooth-sensitivity noise ([PATE17]_ Sec. 3.3).

    Parameters
    ----------
    counts : array_like of int, shape (Q, C)
        Vote counts of the answered queries (sensitive).
    gamma : float > 0
        As in :func:`smooth_sensitivity` (``gamma * T <= 8192``).
    delta : float in (0, 1)
        The delta of the student's guarantee.
    order : float in [2**-20, 2**20]
        Moment order lambda, chosen independently of the data.
    epsilon_release : float > 0
    delta_release : float in (0, 1)
        Privacy cost of this release.
    statistic : {"lemma4", "exact"}, default "lemma4"
    two_sided : bool, default True
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
    secure : bool, default True
        Release on a data-independent power-of-two grid with exact discrete
        Laplace noise, private for the double returned
        (``docs/theory/secure_noise.rst``, Theorem 4). ``secure=False`` keeps
        the textbook release ``f + (S/a) Z`` with ``Z`` a double-precision
        Laplace draw: **not private as implemented** (Mironov 2012), kept for
        comparison and teaching only.
    noise : {"discrete", "continuous"}, default "discrete"
        Noise law of the *answers* whose epsilon is released (not of this
        release): ``"discrete"`` for ``lnmax_labels(secure=True)``, its
        default; ``"continuous"`` for ``secure=False`` answers.

    Returns
    -------
    EpsilonRelease
        The noisy log-moment and the noisy epsilons computed from it. The
        release is (epsilon_release, delta_release)-DP with respect to the
        teachers' training data (module docstring); the exact
        ``f(D)`` stays private.

    Raises
    ------
    ValueError
        On invalid arguments.

    Notes
    -----
    With ``secure=True`` the grid step is ``g``, the largest power of two
    ``<= Q B_lambda 2**-50`` (``Q B_lambda`` bounds ``f`` for every dataset,
    so ``g`` is public), the smooth bound ``S`` is computed for ``beta -
    2**-46``, the noise is discrete Laplace of scale ``t >= (S / g + 1) / a``
    grid steps, and ``delta_release`` is met by computing ``beta`` for
    ``delta_release (1 + exp(-a)) / 2`` (the discrete tail is heavier by
    ``2 / (1 + exp(-1/t))``). Cost against ``secure=False``: the scale grows
    by ``g / a`` (relative ``2**-50 Q B_lambda / S`` at most) and ``beta``
    is slightly smaller, so ``S`` slightly larger; the rounding of ``f`` moves
    it by at most ``g / 2``. With ``secure=False`` this is a reference
    implementation of the real-valued mechanism only (Mironov 2012).
    """
    owner = "release_epsilon"
    lam, eps_r, delta_r = order, epsilon_release, delta_release
    if not secure:
        a, beta = smooth_laplace_parameters.__wrapped__(eps_r, delta_r)
        ss = smooth_sensitivity.__wrapped__(counts, gamma, lam, beta, statistic=statistic, two_sided=two_sided,
                                noise=noise)
        scale = math.nextafter(ss.value / a, math.inf)
        noisy = ss.log_moment + scale * float(rng.laplace(0.0, 1.0))
    else:
        ss, a, step = _secure_parameters(counts, gamma, lam, eps_r, delta_r, statistic, two_sided, owner,
                                         noise)
        noisy, scale = smooth_laplace_release(ss.log_moment, ss.value, a, step, rng, owner,
                                              name="counts")
    # Post-processing (free): every log-moment lies in [0, Q B_lambda], so the
    # released value is clamped to that public range.
    n_queries = int(counts.shape[0])
    upper_lm = float(pate_data_independent_log_moments(gamma, np.array([lam]), n_queries)[0])
    released = min(max(noisy, 0.0), upper_lm)
    log_inv = -math.log(delta)
    eps_tail = (released + log_inv) / lam
    # the Renyi form is negative for delta near 1 (an (eps, delta) bound with eps < 0 also holds at 0)
    eps_rdp = max(0.0, (released + log_inv - math.log1p(lam)) / lam + math.log(lam / (lam + 1.0)))
    return EpsilonRelease(order=lam, delta=delta, noisy_log_moment=released, epsilon_tail=eps_tail,
                          epsilon_rdp=eps_rdp, noise_scale=scale, smooth_sensitivity=ss,
                          epsilon_release=eps_r, delta_release=delta_r,
                          data_independent_log_moment=upper_lm, clamped=released != noisy)
