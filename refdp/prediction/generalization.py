"""Generalisation of private prediction algorithms, in expectation (Lemma 6.4).

Let ``M`` be a prediction algorithm that is epsilon-DP with respect to its
training set for each query, ``S = (z_1, .., z_n)`` drawn i.i.d. from a
distribution ``P`` and ``l`` a loss with values in ``[0, 1]``. Write

* ``L_S = (1/n) sum_i E_M l(M(S, x_i), y_i)``, the expected loss of the
  private predictions on the training points themselves, and
* ``L_P = E_{(x, y) ~ P} E_M l(M(S, x), y)``, the expected loss on a fresh
  point.

Then ``exp(-epsilon) E_S[L_S] <= E_S[L_P] <= exp(epsilon) E_S[L_S]``
([DF18]_ Lemma 6.4 for the first moment; this expectation form and its proof
are **derived**, see ``docs/theory/stability.rst``). For an ``(epsilon,
delta)``-DP algorithm the same argument gives ``exp(-epsilon) (E_S[L_S] -
delta) <= E_S[L_P] <= exp(epsilon) E_S[L_S] + delta``. The high-probability
version of the paper (Lemma 6.5) is not provided.

The check ``proofs_checks/dwork_feldman/lemma_6_4_generalization.py``
computes both sides exactly on a finite population and by simulation.

References
----------
.. [DF18] C. Dwork and V. Feldman, "Privacy-preserving Prediction", COLT 2018,
   Definition 6.1, Lemma 6.2 and Lemma 6.4.
"""
from __future__ import annotations

from ..utils.constraints import constrained
from ..utils.validation import Interval
from ..utils.rounding import ceil_interval, floor_interval, interval_context

__all__ = ["lemma_6_4_bounds"]

NONNEGATIVE = Interval(float, 0, None, closed="left")
UNIT = Interval(float, 0, 1)


@constrained(epsilon=NONNEGATIVE, empirical_loss=UNIT, delta=UNIT)
def lemma_6_4_bounds(epsilon, empirical_loss, *, delta=0.0):
    """Interval that contains ``E_S[L_P]`` given ``E_S[L_S]`` ([DF18]_ Lemma 6.4).

    Returns ``(max(0, exp(-epsilon) (E[L_S] - delta)), min(1, exp(epsilon)
    E[L_S] + delta))`` for a prediction algorithm that is ``(epsilon,
    delta)``-DP per query and a loss with values in ``[0, 1]`` (``delta = 0``
    is the pure case of the lemma).

    Parameters
    ----------
    epsilon : float >= 0
        Per-query privacy parameter of the prediction algorithm.
    empirical_loss : float in [0, 1]
        ``E_S[L_S]``: the expected loss, over the draw of ``S`` and of the
        algorithm's noise, of the private predictions on the training points
        (each evaluated as one query).
    delta : float in [0, 1], default 0.0

    Returns
    -------
    lower : float
        Rounded down.
    upper : float
        Rounded up.

    Raises
    ------
    ValueError
        If ``epsilon`` is negative or not finite, or ``empirical_loss`` or
        ``delta`` lies outside ``[0, 1]``.

    Notes
    -----
    The statement is about expectations over the draw of ``S``. A single
    observed training loss is one sample of ``L_S``; turning it into a
    statement about one ``S`` needs a concentration argument that this
    function does not make.

    Examples
    --------
    >>> lo, hi = lemma_6_4_bounds(0.5, 0.2)
    >>> round(lo, 6), round(hi, 6)
    (0.121306, 0.329744)
    """
    with interval_context() as iv:
        e = iv.mpf(epsilon)
        ls = iv.mpf(empirical_loss)
        d = iv.mpf(delta)
        hi = iv.exp(e) * ls + d
        lo = iv.exp(-e) * (ls - d)
        upper = min(1.0, ceil_interval(hi))
        lower = max(0.0, floor_interval(lo))
    return lower, upper
