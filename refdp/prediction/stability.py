"""Private prediction from uniform prediction stability (Lemmas 4.5 and 4.6).

A learning algorithm ``A`` is *uniformly replace-one prediction stable with
rate beta* ([DF18]_ Definition 4.4) if ``|A(S)(x) - A(S')(x)| <= beta`` for
every pair of datasets ``S, S'`` of equal size differing in one record and
every point ``x``. The value ``A(S)(x)`` then has sensitivity ``beta`` as a
function of ``S``, and adding Laplace noise of scale ``beta / epsilon`` makes
each prediction epsilon-DP with respect to ``S`` ([DF18]_ Lemma 4.5).
Training ``k`` copies of ``A`` on disjoint parts of ``S`` and averaging their
predictions divides the rate by ``k`` ([DF18]_ Lemma 4.6).

==================================  ==========================================
:class:`StablePredictor`            wrap a learner with a declared rate
:func:`stable_prediction`           release noisy, clipped stable predictions
:func:`lemma_4_5_lipschitz_extra_loss`  ``L beta / epsilon``
:func:`lemma_4_5_smooth_extra_loss`     ``sigma beta**2 / epsilon**2``
:func:`lemma_4_6_averaged_rate`     ``beta / k``
:func:`classical_gaussian_sigma`    ``beta sqrt(2 ln(1.25/delta)) / epsilon``
==================================  ==========================================

Proofs of every statement are in ``docs/theory/stability.rst``; the checks
are ``proofs_checks/dwork_feldman/lemma_4_5_*.py`` and
``proofs_checks/dwork_feldman/lemma_4_6_averaging_stability.py``.

References
----------
.. [DF18] C. Dwork and V. Feldman, "Privacy-preserving Prediction", COLT 2018,
   Definition 4.4, Lemma 4.5 and Lemma 4.6.
.. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
   Privacy", Foundations and Trends in TCS 9(3-4), 2014, Theorem 3.6 and
   Theorem A.1.
.. [BS16] M. Bun and T. Steinke, "Concentrated Differential Privacy:
   Simplifications, Extensions, and Lower Bounds", TCC 2016, Proposition 1.6.
.. [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
   Differential Privacy", ACM CCS 2012.
.. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian
   for Differential Privacy", NeurIPS 2020, Theorem 14.
"""
from __future__ import annotations

import math
import numbers
import re
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ..utils.repr import params_repr
from ..utils.validation import (Interval, Options, check_array, check_option,
                           check_scalar, parameter_error)
from ..utils.rounding import ceil_fraction, ceil_interval, floor_interval, interval_context
from ..accounting import zcdp_to_dp
from ..accounting.budget import check_budget
from ..mechanisms import gaussian_mechanism, gaussian_sigma_zcdp, laplace_mechanism, laplace_scale
from ..utils.constraints import FLAG, RNG, Array, Checked, Converted, SameLength, constrained
from ..utils.validation import POSITIVE

__all__ = [
    "Guarantee",
    "StablePredictor",
    "stable_prediction",
    "lemma_4_5_lipschitz_extra_loss",
    "lemma_4_5_smooth_extra_loss",
    "lemma_4_6_averaged_rate",
    "classical_gaussian_sigma",
    "PRIVATE_MECHANISMS",
]

#: Fully qualified names of the public callables that release private output;
#: each is covered by a registered check in ``proofs_checks``.
PRIVATE_MECHANISMS = (
    "refdp.prediction.stability.stable_prediction",
    "refdp.prediction.stability.StablePredictor.predict",
)

NONNEGATIVE = Interval(float, 0, None, closed="left")
UNIT_OPEN = Interval(float, 0, 1, closed="neither")
PARTS = Interval(int, 1, None)
NOISES = Options(("laplace", "gaussian"))


def _range_of(value, name, owner):
    return _check_range(value, owner)


def _learner_of(value, name, owner):
    if not callable(value):
        raise parameter_error(name, owner, "a callable learner(X, y) -> predictor", value)
    return value


def _budget_of(value, name, owner):
    return check_budget(value, owner)


#: epsilon, delta and rho are checked together with ``noise`` (which of them
#: must be given depends on it): declared here, checked by _check_privacy.
_PRIVACY = Checked("with the other privacy parameters and 'noise', by _check_privacy",
                   invalid=(float("nan"), -1.0, float("inf"), "abc", True, 0.0))
_OUTPUT_RANGE = Converted(_range_of, "None or a pair (lo, hi) of floats with lo < hi (infinite ends allowed)",
                          invalid=((1.0, 0.0), (float("nan"), 1.0), "ab", 3.0, (0.0, 1.0, 2.0)))


class Guarantee(NamedTuple):
    """Privacy guarantee of one released prediction (one query).

    Attributes
    ----------
    kind : {"epsilon-DP", "(epsilon, delta)-DP", "rho-zCDP"}
    epsilon, delta, rho : float or None
        The parameters that apply to ``kind`` (the others are ``None``).
    """

    kind: str
    epsilon: float | None
    delta: float | None
    rho: float | None


# ---------------------------------------------------------------------------
# Bounds (Lemma 4.5, Lemma 4.6) and noise scales
# ---------------------------------------------------------------------------

@constrained(lipschitz=NONNEGATIVE, beta=POSITIVE, epsilon=POSITIVE)
def lemma_4_5_lipschitz_extra_loss(lipschitz, beta, epsilon):
    """Extra expected loss ``L beta / epsilon`` of Laplace noise on an ``L``-Lipschitz loss.

    [DF18]_ Lemma 4.5, part 1 (constant **derived** in
    ``docs/theory/stability.rst``): for ``Z ~ Lap(b)``, ``b = beta/epsilon``,
    and a loss ``l(., y)`` that is ``L``-Lipschitz in the prediction,
    ``E l(a + Z, y) <= l(a, y) + L E|Z| = l(a, y) + L b`` for every
    prediction ``a`` and label ``y``. Clipping the noisy prediction to an
    interval ``[lo, hi]`` can only lower the loss when, for every ``y``,
    ``l(., y)`` is convex and has a minimiser in ``[lo, hi]``.

    Parameters
    ----------
    lipschitz : float >= 0
        Lipschitz constant ``L`` of the loss in its first argument.
    beta : float > 0
        Prediction-stability rate (the sensitivity of ``A(S)(x)``).
    epsilon : float > 0
        Privacy parameter of the Laplace release.

    Returns
    -------
    float
        ``L beta / epsilon``, exact rational value rounded up to a float.

    Examples
    --------
    >>> lemma_4_5_lipschitz_extra_loss(1.0, 0.1, 0.5)
    0.2
    """
    return ceil_fraction(Fraction(lipschitz) * Fraction(beta) / Fraction(epsilon))


@constrained(smoothness=NONNEGATIVE, beta=POSITIVE, epsilon=POSITIVE)
def lemma_4_5_smooth_extra_loss(smoothness, beta, epsilon):
    """Extra expected loss ``sigma beta**2 / epsilon**2`` of Laplace noise on a ``sigma``-smooth loss.

    [DF18]_ Lemma 4.5, part 2 (constant **derived** in
    ``docs/theory/stability.rst``): if ``l(., y)`` is differentiable with a
    ``sigma``-Lipschitz derivative, ``l(a + z, y) <= l(a, y) + l'(a, y) z +
    sigma z**2 / 2``; with ``E Z = 0`` and ``E Z**2 = 2 b**2`` for
    ``Z ~ Lap(b)``, ``E l(a + Z, y) <= l(a, y) + sigma b**2``.

    Parameters
    ----------
    smoothness : float >= 0
        Smoothness ``sigma`` of the loss in its first argument.
    beta : float > 0
        Prediction-stability rate.
    epsilon : float > 0
        Privacy parameter of the Laplace release.

    Returns
    -------
    float
        ``sigma beta**2 / epsilon**2``, exact rational value rounded up.

    Examples
    --------
    >>> lemma_4_5_smooth_extra_loss(0.25, 0.25, 0.5)
    0.0625
    """
    return ceil_fraction(Fraction(smoothness) * (Fraction(beta) / Fraction(epsilon)) ** 2)


@constrained(beta=POSITIVE, k=PARTS)
def lemma_4_6_averaged_rate(beta, k):
    """Rate ``beta / k`` of the average of ``k`` learners trained on disjoint parts.

    [DF18]_ Lemma 4.6: if ``A`` has rate ``beta`` on each part, replacing one
    record of ``S`` changes one part only, hence one of the ``k`` averaged
    predictions, by at most ``beta``; the average moves by at most
    ``beta / k`` (proof in ``docs/theory/stability.rst``).

    Parameters
    ----------
    beta : float > 0
        Rate of the learner on datasets of the size of each part.
    k : int >= 1
        Number of disjoint parts.

    Returns
    -------
    float
        ``beta / k`` rounded up.

    Examples
    --------
    >>> lemma_4_6_averaged_rate(0.3, 3)
    0.1
    """
    return ceil_fraction(Fraction(beta) / k)


@constrained(beta=POSITIVE, epsilon=UNIT_OPEN, delta=UNIT_OPEN)
def classical_gaussian_sigma(beta, epsilon, delta):
    """Standard deviation ``beta sqrt(2 ln(1.25/delta)) / epsilon`` of the classical Gaussian mechanism.

    For ``epsilon < 1`` and ``delta in (0, 1)``, adding ``N(0, sigma**2)``
    with this ``sigma`` to a value of sensitivity ``beta`` is
    ``(epsilon, delta)``-DP ([DR14]_ Theorem A.1). The theorem does not hold
    for ``epsilon >= 1`` in general, so those values are rejected (use
    ``rho``-zCDP instead and convert with
    :func:`refdp.accounting.zcdp_to_dp`).

    Parameters
    ----------
    beta : float > 0
        Sensitivity (prediction-stability rate).
    epsilon : float in (0, 1)
    delta : float in (0, 1)

    Returns
    -------
    float
        ``sigma`` evaluated in interval arithmetic and rounded up to a float.

    Examples
    --------
    >>> round(classical_gaussian_sigma(1.0, 0.5, 1e-5), 6)
    9.689611
    """
    owner = "classical_gaussian_sigma"
    return _classical_sigma(beta, epsilon, delta, owner)


def _classical_sigma(beta, epsilon, delta, owner):
    with interval_context() as iv:
        s = iv.mpf(beta) * iv.sqrt(2 * iv.log(iv.mpf(1.25) / iv.mpf(delta))) / iv.mpf(epsilon)
        sigma = ceil_interval(s)
    if math.isinf(sigma):
        raise parameter_error("epsilon", owner, f"large enough that sigma is finite (given 'beta' = {beta!r})",
                              epsilon)
    return sigma


def _rho_for_dp(epsilon, delta):
    """The largest double ``rho`` found with ``rho + 2 sqrt(rho ln(1/delta)) <= epsilon``, certified.

    ``rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))**2`` solves the
    equation; its interval lower end is rounded down, then checked with the
    upward-rounded :func:`refdp.accounting.zcdp_to_dp` ([BS16]_ Proposition
    1.3) and lowered until the check passes.
    """
    with interval_context() as iv:
        L = -iv.ln(iv.mpf(delta))
        rho = floor_interval((iv.sqrt(L + iv.mpf(epsilon)) - iv.sqrt(L)) ** 2)
    while not (rho > 0.0 and zcdp_to_dp(rho, delta) <= epsilon):
        if not rho > 0.0:
            raise ValueError("no positive rho certifies the (epsilon, delta) guarantee")
        rho = math.nextafter(rho, 0.0)
    return rho


# ---------------------------------------------------------------------------
# Argument handling shared by the function and the class
# ---------------------------------------------------------------------------

def _check_privacy(owner, epsilon, delta, rho, noise):
    """Validate the privacy arguments; return the per-query :class:`Guarantee`."""
    noise = check_option(noise, "noise", owner, NOISES)
    if noise == "laplace":
        if delta is not None:
            raise parameter_error("delta", owner, "None for noise='laplace'", delta)
        if rho is not None:
            raise parameter_error("rho", owner, "None for noise='laplace'", rho)
        if epsilon is None:
            raise parameter_error("epsilon", owner, POSITIVE.describe(), epsilon)
        epsilon = check_scalar(epsilon, "epsilon", owner, POSITIVE)
        return Guarantee("epsilon-DP", epsilon, None, None)
    if rho is not None:
        if epsilon is not None:
            raise parameter_error("epsilon", owner, "None when rho is given", epsilon)
        if delta is not None:
            raise parameter_error("delta", owner, "None when rho is given", delta)
        rho = check_scalar(rho, "rho", owner, POSITIVE)
        return Guarantee("rho-zCDP", None, None, rho)
    if epsilon is None:
        raise parameter_error("epsilon", owner,
                              "a float in the range (0, 1) (or give rho) for noise='gaussian'",
                              epsilon)
    epsilon = check_scalar(epsilon, "epsilon", owner, UNIT_OPEN)
    if delta is None:
        raise parameter_error("delta", owner, "a float in the range (0, 1) when epsilon is given "
                              "for noise='gaussian'", delta)
    delta = check_scalar(delta, "delta", owner, UNIT_OPEN)
    return Guarantee("(epsilon, delta)-DP", epsilon, delta, None)


def _check_range(output_range, owner):
    if output_range is None:
        return None
    expected = "None or a pair (lo, hi) of floats with lo < hi (infinite ends allowed)"
    if not isinstance(output_range, (tuple, list)) or len(output_range) != 2:
        raise parameter_error("output_range", owner, expected, output_range)
    lo, hi = output_range
    for v in (lo, hi):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or math.isnan(v):
            raise parameter_error("output_range", owner, expected, output_range)
    lo, hi = float(lo), float(hi)
    if not lo < hi:
        raise parameter_error("output_range", owner, expected, output_range)
    return (lo, hi)


def _noise_scale(guarantee, sensitivity, secure, owner):
    """Laplace ``b`` or Gaussian ``sigma`` used for ``sensitivity``, rounded up.

    With ``secure`` the classical (epsilon, delta) Gaussian is replaced by the
    zCDP one at :func:`_rho_for_dp` ``(epsilon, delta)``, whose ``sigma`` is
    returned.
    """
    if guarantee.kind == "epsilon-DP":
        scale = laplace_scale(guarantee.epsilon, sensitivity)
    elif guarantee.kind == "rho-zCDP":
        scale = gaussian_sigma_zcdp(guarantee.rho, sensitivity)
    elif secure:
        scale = gaussian_sigma_zcdp(_rho_for_dp(guarantee.epsilon, guarantee.delta), sensitivity)
    else:
        scale = _classical_sigma(sensitivity, guarantee.epsilon, guarantee.delta, owner)
    if math.isinf(scale):
        raise parameter_error("beta", owner, "small enough that the noise scale is finite for the privacy "
                              f"parameters given ('epsilon' = {guarantee.epsilon!r}, 'delta' = "
                              f"{guarantee.delta!r}, 'rho' = {guarantee.rho!r})", sensitivity)
    return scale


def _release(values, guarantee, sensitivity, scale, output_range, rng, secure=True, owner="stable_prediction"):
    """Add the noise of ``guarantee`` to ``values`` (1-D array) and clip.

    ``secure``: the grid releases of :mod:`refdp.mechanisms`, private for the
    returned doubles (``docs/theory/secure_noise.rst``); the classical
    (epsilon, delta) Gaussian becomes the discrete Gaussian at
    :func:`_rho_for_dp` ``(epsilon, delta)`` (``docs/theory/stability.rst``,
    "Float-safe release"). Otherwise the textbook floating-point noise.
    """
    try:
        out = _noisy(values, guarantee, sensitivity, scale, rng, secure)
    except ValueError as exc:
        # the mechanism refuses a value beyond its grid: that value is one of 'values'
        text = str(exc)
        prefix = re.match(r"The 'value' parameter of \w+", text)
        if prefix is None:
            raise
        rest = text[prefix.end():].replace("this 'sensitivity'", "this 'beta'")
        raise ValueError(f"The 'values' parameter of {owner}" + rest) from None
    out = np.asarray(out, dtype=np.float64)
    if output_range is not None:
        out = np.clip(out, output_range[0], output_range[1])
    return out


def _noisy(values, guarantee, sensitivity, scale, rng, secure):
    if guarantee.kind == "epsilon-DP":
        out = laplace_mechanism(values, guarantee.epsilon, sensitivity=sensitivity, rng=rng, secure=secure)
    elif guarantee.kind == "rho-zCDP":
        out = gaussian_mechanism(values, guarantee.rho, sensitivity=sensitivity, rng=rng, secure=secure)
    elif secure:
        out = gaussian_mechanism(values, _rho_for_dp(guarantee.epsilon, guarantee.delta),
                                 sensitivity=sensitivity, rng=rng)
    else:
        # Classical (epsilon, delta) Gaussian in doubles, with the scale of
        # classical_gaussian_sigma (already rounded up): not private as implemented.
        out = values + rng.normal(0.0, scale, size=values.shape)
    return out


def _extra_loss(guarantee, scale, lipschitz, smoothness, owner, secure=False, sensitivity=None):
    """Bound on E l(a + Z, y) - l(a, y) for the noise actually used (see Lemma 4.5).

    With ``secure`` the release is ``g (round(a / g) + Z)`` with ``Z`` discrete
    Laplace of scale ``t`` or discrete Gaussian of parameter ``s`` on the grid
    ``g <= sensitivity 2**-10``: the offset ``e = g round(a/g) - a`` has
    ``|e| <= g / 2 <= sensitivity 2**-11``, ``E|gZ| <= g t`` and ``E (gZ)**2
    <= 2 (g t)**2`` (discrete Laplace: ``E|Z| = 1 / sinh(1/t)``, ``E Z**2 =
    1 / (2 sinh(1/(2t))**2)``, and ``sinh x >= x``), ``E|gZ| <= sqrt(E (gZ)**2)
    <= g s`` (discrete Gaussian, variance at most ``s**2``, Canonne, Kamath
    and Steinke 2020, Corollary 9), with ``g t <= b (1 + 2**-10)(1 + 2**-47)``
    and ``g s <= sigma (1 + 2**-9)(1 + 2**-47)`` (docs/theory/secure_noise.rst,
    Theorems 1 and 2). The offset costs ``L |e|`` for an ``L``-Lipschitz loss
    and ``l'(a) e + sigma e**2 / 2`` for a smooth one, so the smoothness bound
    needs the Lipschitz constant too.
    """
    if lipschitz is None and smoothness is None:
        raise parameter_error("lipschitz", owner, "a float >= 0 (or give smoothness)", lipschitz)
    bounds = []
    b = Fraction(scale)
    laplace = guarantee.kind == "epsilon-DP"
    if secure:
        grow = Fraction(1025, 1024 if laplace else 1) * (1 + Fraction(1, 2**47))
        if not laplace:
            grow = (1 + Fraction(1, 2**9)) * (1 + Fraction(1, 2**47))
        b = b * grow                                   # g t or g s
        offset = Fraction(sensitivity) / 2**11         # >= g / 2
    if lipschitz is not None:
        lipschitz = check_scalar(lipschitz, "lipschitz", owner, NONNEGATIVE)
        if secure:                                     # E|gZ| + |e|
            bounds.append(ceil_fraction(Fraction(lipschitz) * (b + offset)))
        elif laplace:                                  # E|Z| = b
            bounds.append(ceil_fraction(Fraction(lipschitz) * b))
        else:                                          # E|Z| = sigma sqrt(2/pi)
            with interval_context() as iv:
                bounds.append(ceil_interval(iv.mpf(lipschitz) * iv.mpf(scale)
                                            * iv.sqrt(2 / iv.pi)))
    if smoothness is not None:
        smoothness = check_scalar(smoothness, "smoothness", owner, NONNEGATIVE)
        second = b * b if laplace else b * b / 2       # E Z^2 / 2 (2 (g t)^2 / 2 for the discrete Laplace)
        if secure:
            if lipschitz is None:
                raise parameter_error(
                    "lipschitz", owner,
                    "a float >= 0 as well as smoothness for a float-safe release (its grid rounding moves "
                    "the prediction by up to sensitivity * 2**-11, which a smoothness bound alone does not "
                    "control)", lipschitz)
            bounds.append(ceil_fraction(Fraction(lipschitz) * offset
                                        + Fraction(smoothness) * (second + offset * offset / 2)))
        else:
            bounds.append(ceil_fraction(Fraction(smoothness) * second))
    return min(bounds)


# ---------------------------------------------------------------------------
# The release as a function
# ---------------------------------------------------------------------------

@constrained(beta=POSITIVE, noise=NOISES, epsilon=_PRIVACY, delta=_PRIVACY, rho=_PRIVACY,
             output_range=_OUTPUT_RANGE, values=Array(ndim=1), secure=FLAG, rng=RNG)
def stable_prediction(values, beta, epsilon=None, *, delta=None, rho=None, noise="laplace",
                      output_range=(0.0, 1.0), rng=None, secure=True):
    """Release ``clip(A(S)(x) + noise)`` for predictions of a ``beta``-stable learner.

    Each entry of ``values`` is one prediction ``A(S)(x_j)`` of a learner that
    is uniformly replace-one prediction stable with rate ``beta``
    ([DF18]_ Definition 4.4); each released entry is private with respect to
    ``S`` on its own ([DF18]_ Lemma 4.5):

    * ``noise="laplace"``: ``Lap(beta / epsilon)`` noise, epsilon-DP per entry
      ([DR14]_ Theorem 3.6);
    * ``noise="gaussian"`` with ``epsilon, delta``: ``N(0, sigma**2)``,
      ``sigma = beta sqrt(2 ln(1.25/delta)) / epsilon``, ``(epsilon,
      delta)``-DP per entry, valid for ``epsilon < 1`` only ([DR14]_
      Theorem A.1);
    * ``noise="gaussian"`` with ``rho``: ``sigma = beta / sqrt(2 rho)``,
      ``rho``-zCDP per entry ([BS16]_ Proposition 1.6).

    Clipping to ``output_range`` is post-processing and keeps the guarantee.
    Releasing ``q`` entries computed from the same ``S`` composes: ``q
    epsilon``-DP (basic composition) or ``q rho``-zCDP.

    Parameters
    ----------
    values : array_like of float, 1-D
        The exact predictions ``A(S)(x_j)``, one per query.
    beta : float > 0
        Declared rate; the caller is responsible for it being a proven bound
        on ``|A(S)(x) - A(S')(x)|`` over replace-one neighbours.
    epsilon : float > 0, optional
        Required for Laplace noise; with Gaussian noise it must lie in
        ``(0, 1)`` and comes with ``delta``.
    delta : float in (0, 1), optional
        Only with ``noise="gaussian"`` and ``epsilon``.
    rho : float > 0, optional
        Only with ``noise="gaussian"``, instead of ``epsilon`` and ``delta``.
    noise : {"laplace", "gaussian"}, default "laplace"
    output_range : (float, float) or None, default (0.0, 1.0)
        Interval the released values are clipped to; ``None`` for no clipping.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of randomness, normalised with :func:`numpy.random.default_rng`.
    secure : bool, default True
        True: every release is private for the doubles returned (the grid
        construction of ``docs/theory/secure_noise.rst``; the classical
        Gaussian is replaced by a discrete Gaussian with the same (epsilon,
        delta) guarantee, see Notes). False: the textbook floating-point
        noise, **not private as implemented** ([Mir12]_); kept for comparison
        and teaching only.

    Returns
    -------
    ndarray of float, shape (q,)

    Raises
    ------
    ValueError
        On a non-positive or non-finite ``beta`` or ``epsilon``, ``delta``
        outside ``(0, 1)``, ``epsilon >= 1`` with classical Gaussian noise,
        an inconsistent combination of privacy arguments, a bad
        ``output_range`` or non-finite ``values``.

    Notes
    -----
    With ``secure=True`` (default) each entry is rounded to a power-of-two
    grid and gets exact integer noise (discrete Laplace or discrete Gaussian,
    [CKS20]_), so the guarantee holds for the doubles returned
    (``docs/theory/secure_noise.rst``, Theorems 1 and 2). For the classical
    Gaussian, Theorem A.1 of [DR14]_ is a statement about the continuous law;
    the secure path instead uses the discrete Gaussian at the largest ``rho``
    with ``rho + 2 sqrt(rho ln(1/delta)) <= epsilon`` (certified), which is
    ``(epsilon, delta)``-DP by [BS16]_ Proposition 1.3
    (``docs/theory/stability.rst``, "Float-safe release"); its ``sigma`` is
    at most 1.9% above the classical one for ``epsilon < 1`` and ``delta <=
    1e-3`` (0.1% at ``epsilon = 0.5, delta = 1e-5``; below it for small
    ``epsilon``). The noise parameter actually used exceeds the reported scale by
    at most a relative ``2**-9`` (the grid).

    Examples
    --------
    >>> out = stable_prediction([0.2, 0.9], 0.05, 1.0, rng=0)
    >>> out.shape, bool(((0 <= out) & (out <= 1)).all())
    ((2,), True)
    """
    owner = "stable_prediction"
    guarantee = _check_privacy(owner, epsilon, delta, rho, noise)
    scale = _noise_scale(guarantee, beta, secure, owner)
    return _release(values, guarantee, beta, scale, output_range, rng, secure)


# ---------------------------------------------------------------------------
# The wrapper class
# ---------------------------------------------------------------------------

class StablePredictor:
    """Private prediction from a learner with a declared prediction-stability rate.

    Implements [DF18]_ Lemma 4.5 (noise on a stable prediction) together with
    Lemma 4.6 (averaging ``k`` learners trained on disjoint parts). ``fit``
    splits the training set at random into ``k`` disjoint parts (sizes
    differing by at most one) and trains ``learner`` on each; ``predict``
    releases, for each query ``x``, ``clip(v(x) + noise)`` with ``v(x)`` the
    average of the ``k`` predictions and noise calibrated to the sensitivity
    ``beta / k``.

    Parameters
    ----------
    learner : callable
        ``learner(X, y)`` trains on a part and returns a callable ``h`` with
        ``h(Xq)`` a 1-D float array of one prediction per row of ``Xq``. The
        learner must be deterministic given its inputs (or its rate must hold
        for every fixed value of its internal randomness). If it has a method
        ``stability_rate(m)`` (the learners of :mod:`refdp.prediction.convex`
        do), ``fit`` checks that ``beta`` is at least that rate for every
        part size ``m``.
    beta : float > 0
        Declared uniform replace-one prediction-stability rate of ``learner``
        on datasets of the size of each part.
    epsilon, delta, rho, noise, output_range
        As in :func:`stable_prediction`; the guarantee applies to each query.
    secure : bool, default True
        As in :func:`stable_prediction`: False selects the textbook
        floating-point noise, **not private as implemented** ([Mir12]_).
    k : int >= 1, default 1
        Number of disjoint parts (Lemma 4.6).
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Normalised once with :func:`numpy.random.default_rng`; used for the
        partition and for the noise of every query, so a seed makes the whole
        sequence of calls reproducible.
    budget : None or refdp.accounting.PrivacyFilter, default None
        If given, every call of :meth:`predict` on ``q`` queries first charges
        ``q`` releases of the per-query guarantee to it, and releases nothing
        when the filter refuses (:class:`refdp.accounting.BudgetExhausted`).

    Attributes
    ----------
    sensitivity : float
        ``beta / k`` rounded up (the sensitivity of the averaged prediction).
    scale : float
        Laplace scale ``b`` or Gaussian ``sigma`` actually used.
    guarantee : Guarantee
        Privacy guarantee of each released prediction.

    Notes
    -----
    Every query is answered with fresh noise, so ``q`` queries compose (``q
    epsilon``-DP by basic composition, ``q rho``-zCDP for the zCDP version).
    A replace-one neighbour changes the same position, hence one part, under
    every draw of the partition, and the partition is independent of the
    data; the guarantee holds conditionally on it and so for the mixture.
    The exact predictions are never exposed by a public method.

    Examples
    --------
    >>> import numpy as np
    >>> def mean_learner(X, y):
    ...     m = float(np.mean(y))
    ...     return lambda Xq: np.full(len(Xq), m)
    >>> X = np.zeros((40, 1)); y = np.r_[np.zeros(10), np.ones(30)]
    >>> sp = StablePredictor(mean_learner, 1 / 20, 1.0, k=2, rng=0).fit(X, y)
    >>> sp.sensitivity, sp.scale
    (0.025, 0.025)
    >>> sp.predict(np.zeros((3, 1))).shape
    (3,)
    """

    @constrained(learner=Converted(_learner_of, "a callable learner(X, y) -> predictor", invalid=(None, 1.0, "f")),
                 beta=POSITIVE, k=PARTS, noise=NOISES, epsilon=_PRIVACY, delta=_PRIVACY, rho=_PRIVACY,
                 output_range=_OUTPUT_RANGE, secure=FLAG, rng=RNG,
                 budget=Converted(_budget_of, "None or a PrivacyBudget", invalid=("abc", 1.0)))
    def __init__(self, learner, beta, epsilon=None, *, delta=None, rho=None, noise="laplace",
                 output_range=(0.0, 1.0), k=1, rng=None, secure=True, budget=None):
        owner = "StablePredictor"
        self.learner = learner
        self.beta = beta
        self.k = k
        self.guarantee = _check_privacy(owner, epsilon, delta, rho, noise)
        self.noise = noise
        self.output_range = output_range
        self.secure = secure
        self.sensitivity = ceil_fraction(Fraction(self.beta) / self.k)
        self.scale = _noise_scale(self.guarantee, self.sensitivity, self.secure, owner)
        self._rng = rng
        self.budget = budget
        self._models = None
        self._n_features = None

    def __repr__(self):
        g = self.guarantee
        privacy = {n: getattr(g, n) for n in ("epsilon", "delta", "rho") if getattr(g, n) is not None}
        return params_repr(self, ("learner", "beta"),
                           {**privacy, "noise": self.noise, "output_range": self.output_range, "k": self.k,
                            "secure": self.secure, "budget": self.budget})

    # -- training -----------------------------------------------------------
    @constrained(owner="StablePredictor.fit", X=Array(ndim=2), y=Array(ndim=1),
                 relations=(SameLength(("X", "y")),))
    def fit(self, X, y):
        """Train the learner on ``k`` disjoint random parts of ``(X, y)``.

        Parameters
        ----------
        X : array_like of float, shape (n, d)
        y : array_like of float, shape (n,)

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On bad shapes, non-finite entries, ``n < k``, or a ``beta`` below
            the learner's own ``stability_rate`` for a part size.
        """
        owner = "StablePredictor.fit"
        n = X.shape[0]
        if n < self.k:
            raise parameter_error("X", owner, f"an array with at least k = {self.k} rows", X)
        if self.k == 1:
            parts = [np.arange(n)]
        else:
            parts = np.array_split(self._rng.permutation(n), self.k)
        rate = getattr(self.learner, "stability_rate", None)
        if callable(rate):
            for m in sorted({len(p) for p in parts}):
                need = rate(m)
                if self.beta < need:
                    raise parameter_error(
                        "beta", "StablePredictor",
                        f"at least the learner's proven rate {need!r} for parts of {m} records",
                        self.beta)
        self._models = [self.learner(X[p], y[p]) for p in parts]
        self._parts = [np.array(p) for p in parts]
        self._n_features = X.shape[1]
        return self

    def _score(self, X):
        """Exact averaged prediction ``v(x)`` (not private; for checks and tests)."""
        if self._models is None:
            raise RuntimeError("StablePredictor is not fitted; call fit(X, y) first")
        owner = "StablePredictor.predict"
        X = check_array(X, "X", owner, ndim=2, shape=(None, self._n_features))
        total = np.zeros(X.shape[0])
        for h in self._models:
            p = np.asarray(h(X), dtype=np.float64)
            if p.shape != (X.shape[0],) or not np.all(np.isfinite(p)):
                raise RuntimeError("the learner's predictor must return one finite float per row")
            total += p
        return total / self.k

    # -- release --------------------------------------------------------------
    @constrained(owner="StablePredictor.predict", X=Array(ndim=2))
    def predict(self, X):
        """Private predictions ``clip(v(x) + noise)``, one independent release per row.

        Parameters
        ----------
        X : array_like of float, shape (q, d)
            Queries; each row costs one :attr:`guarantee`.

        Returns
        -------
        ndarray of float, shape (q,)

        Raises
        ------
        ValueError
            On a bad shape or non-finite queries (and whatever the learner's
            predictor raises, e.g. a query outside its domain).
        RuntimeError
            If called before :meth:`fit`.
        """
        values = self._score(X)
        if self.budget is not None and values.shape[0]:
            g = self.guarantee
            self.budget.charge(g.epsilon or 0.0, g.delta or 0.0, rho=g.rho, count=values.shape[0],
                               owner="StablePredictor.predict")
        return _release(values, self.guarantee, self.sensitivity, self.scale,
                        self.output_range, self._rng, self.secure)

    def extra_loss_bound(self, *, lipschitz=None, smoothness=None):
        """Bound on the extra expected loss caused by the noise ([DF18]_ Lemma 4.5).

        For every prediction ``a`` and label ``y``, ``E l(a + Z, y) - l(a, y)``
        is at most ``L E|Z|`` for an ``L``-Lipschitz loss and at most
        ``sigma E Z**2 / 2`` for a ``sigma``-smooth loss; with the Laplace
        scale ``b`` these are ``L b`` and ``sigma b**2``, with Gaussian
        ``sigma_n`` they are ``L sigma_n sqrt(2/pi)`` and ``sigma
        sigma_n**2 / 2``. With both constants given, the smaller bound is
        returned. The bound also holds for the clipped output when, for every
        label ``y``, ``l(., y)`` is convex with a minimiser inside
        ``output_range`` (proof in ``docs/theory/stability.rst``).

        With ``secure=True`` (the default release) the noise is discrete on a
        grid and the prediction is first rounded to it: the bounds use
        ``E|gZ| <= g t``, ``E(gZ)**2 <= 2 (g t)**2`` (discrete Laplace) and
        ``E|gZ| <= sqrt(E(gZ)**2) <= g s`` (discrete Gaussian, variance at
        most ``s**2`` by Canonne, Kamath and Steinke 2020, Corollary 9), with
        ``g t`` and ``g s`` at most ``(1 + 2**-10)`` and ``(1 + 2**-9)`` times
        the continuous scale, plus the rounding offset ``|e| <= sensitivity
        2**-11`` (costing ``L |e|``, and for the smoothness bound ``L |e| +
        sigma e**2 / 2``: ``lipschitz`` must then be given too). The Gaussian
        Lipschitz bound is ``L g s`` rather than ``L sigma sqrt(2/pi)``
        (``docs/theory/secure_noise.rst``, "Extra loss of the grid release").

        Parameters
        ----------
        lipschitz : float >= 0, optional
        smoothness : float >= 0, optional

        Returns
        -------
        float
            Rounded up.
        """
        return _extra_loss(self.guarantee, self.scale, lipschitz, smoothness,
                           "StablePredictor.extra_loss_bound", self.secure, self.sensitivity)
