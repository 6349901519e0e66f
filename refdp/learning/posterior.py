r"""One sample from a (tempered) posterior over a finite parameter set.

Lecture notes [W19]_ Sec. 9.2. With a prior
:math:`\pi(\theta) \propto e^{r(\theta)}` and a per-record loss
:math:`\ell(z, \theta) = -\ln p(z \mid \theta)` (up to a constant), the
posterior given :math:`z_1, \dots, z_n` is

.. math::

    p(\theta \mid z_{1:n}) \propto \exp\Bigl(-\sum_{i=1}^n \ell(z_i, \theta) + r(\theta)\Bigr).

If :math:`0 \le \ell \le B`, releasing **one** sample of it is the
exponential mechanism with utility :math:`-\sum_i \ell(z_i, \theta)`, whose
sensitivity is :math:`B`: it is :math:`2B`-DP for replace-one neighbours and
:math:`B`-DP for add/remove neighbours (adding a record moves every
parameter's total loss the same way). Tempering, :math:`p_t(\theta) \propto
\exp(-t \sum_i \ell(z_i, \theta) + r(\theta))`, scales both by :math:`t`;
:math:`t = \varepsilon/(2B)` (replace-one) or :math:`\varepsilon/B`
(add/remove) reaches a target :math:`\varepsilon`. Proofs in
docs/theory/learning.rst.

The parameter set is finite (a discretised continuous parameter is a grid):
the sampler normalises with one pass of the compiled
:func:`refdp.core.logsumexp` and draws by exact inversion. Several samples
from the same data compose (k samples: k times the guarantee).

References
----------
.. [W19] Y.-X. Wang, "DPML I: Introduction and Posterior Sampling", lecture
   notes (Lecture 9), Sec. 9.2, Eq. (9.17).
.. [MT07] F. McSherry and K. Talwar, "Mechanism Design via Differential
   Privacy", FOCS 2007, Theorem 6.
.. [WFS15] Y.-X. Wang, S. E. Fienberg and A. Smola, "Privacy for Free:
   Posterior Sampling and Stochastic Gradient Monte Carlo", ICML 2015,
   Theorem 1.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..utils.constraints import CONTEXT, DIGITS, FLAG, POSITIVE, RNG, Array, Checked, Nullable, Optional, constrained
from ..utils.validation import Described, Options, check_array, parameter_error
from ..utils.exact import EXACT_REAL, to_fraction
from ..mechanisms.exponential import _float_probabilities, exponential_mechanism_distribution
from ..utils.inversion import certified_inverse_cdf_index
from ..utils.rounding import float_at_least, float_at_most

__all__ = [
    "one_posterior_sample",
    "one_posterior_sample_distribution",
    "posterior_temperature",
    "posterior_epsilon",
    "PRIVATE_MECHANISMS",
]

#: Public functions that release private output; each is covered by a check in
#: proofs_checks/lecture_notes/one_posterior_sample_privacy.py.
PRIVATE_MECHANISMS = ("refdp.learning.posterior.one_posterior_sample",)

_NEIGHBOURS = Options(("replace", "add_remove"))


#: The loss table: its range depends on 'loss_bound' and its type on 'exact', so the body checks it.
_LOSSES = Checked("in the body: a non-empty 2-dimensional table with entries in [0, loss_bound]",
                  invalid=([], [[float("nan")]], [[-1.0]], [[1e300]], "abc", None, [1.0]))


def _multiplier(neighbours) -> int:
    """2 for replace-one (two-sided change), 1 for add/remove (one-sided)."""
    return 2 if neighbours == "replace" else 1


@constrained(epsilon=POSITIVE, loss_bound=POSITIVE, neighbours=_NEIGHBOURS)
def posterior_temperature(epsilon, loss_bound, neighbours="replace"):
    """Largest temperature ``t`` at which one posterior sample is epsilon-DP.

    Replace-one: ``t = epsilon / (2 B)``; add/remove: ``t = epsilon / B``
    ([W19]_ Sec. 9.2; proof in docs/theory/learning.rst).

    Parameters
    ----------
    epsilon : float > 0
    loss_bound : float > 0
        ``B``, the bound ``0 <= loss <= B``.
    neighbours : {"replace", "add_remove"}, default "replace"

    Returns
    -------
    float
        The temperature rounded downward, so that ``2 t B <= epsilon`` (or
        ``t B <= epsilon``) holds exactly for the double returned.

    Raises
    ------
    ValueError
        Bad arguments, or a temperature that rounds down to 0.

    Examples
    --------
    >>> from refdp.learning import posterior_temperature
    >>> posterior_temperature(1.0, 2.0)
    0.25
    >>> posterior_temperature(1.0, 2.0, "add_remove")
    0.5
    """
    owner = "posterior_temperature"
    return _temperature(epsilon, loss_bound, neighbours, owner)


def _temperature(epsilon, loss_bound, neighbours, owner):
    t = float_at_most(Fraction(epsilon) / (_multiplier(neighbours) * Fraction(loss_bound)))
    if t == 0.0:
        raise parameter_error("epsilon", owner, f"large enough for a positive temperature "
                              f"epsilon / ({_multiplier(neighbours)} loss_bound)", epsilon)
    return t


@constrained(loss_bound=POSITIVE, temperature=POSITIVE, neighbours=_NEIGHBOURS)
def posterior_epsilon(loss_bound, temperature=1.0, neighbours="replace"):
    """Privacy parameter of one sample from the posterior at temperature ``t``.

    Replace-one: ``2 t B``; add/remove: ``t B`` ([W19]_ Sec. 9.2; proof in
    docs/theory/learning.rst). The untempered posterior (``t = 1``) is
    ``2B``-DP for replace-one neighbours.

    Parameters
    ----------
    loss_bound : float > 0
    temperature : float > 0, default 1.0
    neighbours : {"replace", "add_remove"}, default "replace"

    Returns
    -------
    float
        Rounded upward (never below the exact value); ``inf`` on overflow.

    Examples
    --------
    >>> from refdp.learning import posterior_epsilon
    >>> posterior_epsilon(0.5)
    1.0
    """
    return float_at_least(_multiplier(neighbours) * Fraction(temperature) * Fraction(loss_bound))


def _resolve_temperature(epsilon, temperature, loss_bound, neighbours, owner):
    if epsilon is not None and temperature is not None:
        raise parameter_error("temperature", owner, "None when 'epsilon' is given", temperature)
    if epsilon is not None:
        return _temperature(epsilon, loss_bound, neighbours, owner)
    if temperature is not None:
        return temperature
    return 1.0


def _check_float_inputs(losses, loss_bound, log_prior, owner):
    losses = check_array(losses, "losses", owner, ndim=2)
    outside = ~((losses >= 0) & (losses <= loss_bound))
    if outside.any():
        pos = tuple(int(p) for p in np.argwhere(outside)[0])
        raise parameter_error("losses", owner, f"an array with every element in the range [0, 'loss_bound'] = "
                              f"[0, {loss_bound!r}]", Described(f"{losses[pos].item()!r} at position {pos}"))
    if losses.shape[0] < 1:
        raise parameter_error("losses", owner, "an array with at least one parameter (row)", losses)
    if log_prior is not None:
        log_prior = check_array(log_prior, "log_prior", owner, shape=(losses.shape[0],))
    return losses, loss_bound, log_prior


def _float_law(losses, log_prior, t):
    """Probabilities from the log-weights ``-t sum_i loss + r`` (scale 1)."""
    with np.errstate(over="ignore", invalid="ignore"):
        w = -t * losses.sum(axis=1)
        if log_prior is not None:
            w = w + log_prior
    if not np.all(np.isfinite(w)):
        return None
    return _float_probabilities(w, 2.0, 1.0, False)


@constrained(
    loss_bound=POSITIVE, losses=_LOSSES, log_prior=Nullable(Array(ndim=1)), neighbours=_NEIGHBOURS,
    epsilon=Optional(POSITIVE), temperature=Optional(POSITIVE), rng=RNG,
)
def one_posterior_sample(losses, loss_bound, *, log_prior=None, epsilon=None, temperature=None,
                         neighbours="replace", rng=None):
    r"""Draw one parameter index from ``p(theta) ~ exp(-t sum_i loss[theta, i] + log_prior[theta])``.

    One sample is ``2 t B``-DP for replace-one neighbours and ``t B``-DP for
    add/remove neighbours, when every loss lies in ``[0, B]`` and the prior
    does not depend on the data ([W19]_ Sec. 9.2; [WFS15]_ Theorem 1 states
    the analogue for a log-likelihood bounded by ``B`` in absolute value,
    with ``4B``; :func:`posterior_epsilon` returns the value).

    Parameters
    ----------
    losses : array_like of float, shape (n_parameters, n_samples)
        ``losses[j, i] = loss(z_i, theta_j)`` in ``[0, loss_bound]`` (for a
        likelihood, the negative log-likelihood, with the parameter grid or
        a clipping keeping it bounded); at least one parameter; ``n_samples`` may be 0 (a prior
        sample).
    loss_bound : float > 0
        ``B``. The guarantee holds only if every possible record's loss lies
        in ``[0, B]``, not just those of this dataset.
    log_prior : array_like of float, shape (n_parameters,), optional
        ``r(theta_j)``, finite, up to an additive constant; default uniform.
    epsilon : float > 0, optional
        Target privacy parameter: sets ``t = posterior_temperature(epsilon,
        loss_bound, neighbours)``.
    temperature : float > 0, optional
        ``t`` itself. Give at most one of ``epsilon`` and ``temperature``;
        with neither, ``t = 1`` (the posterior, ``2B``-DP for replace-one).
    neighbours : {"replace", "add_remove"}, default "replace"
        The relation the target ``epsilon`` refers to.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Normalised with :func:`numpy.random.default_rng`.

    Returns
    -------
    int
        Index ``j`` of the sampled parameter.

    See Also
    --------
    one_posterior_sample_distribution : the probabilities used here.

    Notes
    -----
    Sampling returns index ``k`` with probability exactly ``p_k / T`` for the
    computed probabilities ``p`` and their exact sum ``T`` (exact inversion,
    certified from one floating-point running sum; see
    :func:`refdp.learning.exponential_mechanism_learner`).

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.learning import one_posterior_sample
    >>> losses = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])   # 2 parameters, 3 records
    >>> one_posterior_sample(losses, 1.0, epsilon=1.0, rng=0)
    1
    """
    owner = "one_posterior_sample"
    losses, loss_bound, log_prior = _check_float_inputs(losses, loss_bound, log_prior, owner)
    t = _resolve_temperature(epsilon, temperature, loss_bound, neighbours, owner)
    p = _float_law(losses, log_prior, t)
    if p is None:
        raise parameter_error("temperature", owner, "small enough for finite log-weights",
                              Described(f"{t!r} (log-weights overflow)"))
    return certified_inverse_cdf_index(p, rng.random(), rng)


def _fraction_matrix(values, loss_bound, owner):
    """Exact rationals of a 2-D loss table with entries in [0, loss_bound]."""
    expected = "a 2-dimensional table of finite real numbers with at least one row"
    if isinstance(values, np.ndarray):
        if values.ndim != 2:
            raise parameter_error("losses", owner, expected, values)
        rows = values.tolist()
    elif isinstance(values, (list, tuple)):
        rows = [list(r) if isinstance(r, (list, tuple, np.ndarray)) else None for r in values]
    else:
        raise parameter_error("losses", owner, expected, values)
    if not rows or any(r is None for r in rows) or len({len(r) for r in rows}) != 1:
        raise parameter_error("losses", owner, expected + " of equal length", Described(repr(values)))
    bound = Fraction(loss_bound)
    out = []
    for i, row in enumerate(rows):
        fr = []
        for j, v in enumerate(row):
            try:
                f = to_fraction(v, "losses", owner)
            except ValueError:
                raise parameter_error("losses", owner, EXACT_REAL,
                                      Described(f"{v!r} at position ({i}, {j})")) from None
            if not 0 <= f <= bound:
                raise parameter_error("losses", owner,
                                      f"a table with every element in the range [0, 'loss_bound'] = [0, {loss_bound!r}]",
                                      Described(f"{v!r} at position ({i}, {j})"))
            fr.append(f)
        out.append(fr)
    return out


@constrained(
    exact=FLAG, dps=DIGITS, neighbours=_NEIGHBOURS, loss_bound=POSITIVE, losses=_LOSSES,
    log_prior=Checked("in the body: None or one finite real per row of 'losses' (exact reals when exact=True)",
                      invalid=([float("nan")], "abc", [[0.0]])),
    epsilon=Optional(POSITIVE), temperature=Optional(POSITIVE), ctx=CONTEXT,
)
def one_posterior_sample_distribution(losses, loss_bound, *, log_prior=None, epsilon=None,
                                      temperature=None, neighbours="replace", exact=False, dps=50,
                                      ctx=None):
    """Output distribution of :func:`one_posterior_sample`.

    ``P[j] = exp(-t L_j + r_j) / sum_k exp(-t L_k + r_k)`` with ``L_j =
    sum_i losses[j, i]`` ([W19]_ Eq. (9.17), tempered).

    Parameters
    ----------
    losses, loss_bound, log_prior, epsilon, temperature, neighbours
        As in :func:`one_posterior_sample`. With ``exact=True``, ``losses``
        and ``log_prior`` may hold ints, floats, :class:`fractions.Fraction`,
        :class:`decimal.Decimal` or numeric strings, used at their exact
        values; ``loss_bound``, ``epsilon`` and ``temperature`` are doubles,
        used at their exact binary values (the temperature is the double the
        sampler uses).
    exact : bool, default False
        False: the doubles the sampler uses (normalised with
        :func:`refdp.core.logsumexp`). True: mpmath, from exponents formed
        exactly in rational arithmetic.
    dps : int >= 1, default 50
        Decimal digits of the mpmath results (``exact=True`` only).
    ctx : mpmath context, optional
        Compute in this context (implies ``exact=True``; ``dps`` is then
        ignored): an interval context (:func:`refdp.utils.precision.iv_context`)
        gives rigorous enclosures computed with outward rounding; see
        :func:`refdp.mechanisms.exponential_mechanism_distribution`.

    Returns
    -------
    ndarray of float, list of mpmath.mpf or list of intervals

    Examples
    --------
    >>> from refdp.learning import one_posterior_sample_distribution
    >>> one_posterior_sample_distribution([[0, 1, 1], [1, 0, 0]], 1.0).round(6).tolist()
    [0.268941, 0.731059]
    """
    owner = "one_posterior_sample_distribution"
    exact = exact or ctx is not None
    if not exact:
        losses, loss_bound, log_prior = _check_float_inputs(losses, loss_bound, log_prior, owner)
        t = _resolve_temperature(epsilon, temperature, loss_bound, neighbours, owner)
        p = _float_law(losses, log_prior, t)
        if p is None:
            raise parameter_error("temperature", owner, "small enough for finite log-weights",
                                  Described(f"{t!r} (log-weights overflow)"))
        return p
    table = _fraction_matrix(losses, loss_bound, owner)
    t = Fraction(_resolve_temperature(epsilon, temperature, loss_bound, neighbours, owner))
    if log_prior is None:
        prior = [Fraction(0)] * len(table)
    else:
        if isinstance(log_prior, np.ndarray):
            log_prior = log_prior.tolist()
        if not isinstance(log_prior, (list, tuple)) or len(log_prior) != len(table):
            raise parameter_error("log_prior", owner, f"a sequence of {len(table)} finite real numbers",
                                  Described(repr(log_prior)))
        prior = []
        for j, v in enumerate(log_prior):
            try:
                prior.append(to_fraction(v, "log_prior", owner))
            except ValueError:
                raise parameter_error("log_prior", owner, EXACT_REAL,
                                      Described(f"{v!r} at position ({j},)")) from None
    exponents = [-t * sum(row, Fraction(0)) + r for row, r in zip(table, prior)]
    return exponential_mechanism_distribution.__wrapped__(exponents, Fraction(2), sensitivity=Fraction(1),
                                                          exact=True, dps=dps, ctx=ctx)

