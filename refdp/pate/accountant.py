r"""PATE's moments accountant for LNMax answers (Theorems 1-3, Lemma 4).

Each answer of LNMax with noise :math:`\mathrm{Lap}(1/\gamma)` on vote counts
:math:`n` has, for every order :math:`\lambda > 0`, a log-moment bounded by

* :math:`2\gamma^2\lambda(\lambda + 1)` and :math:`2\gamma\lambda`
  (Theorem 2 and the pure-DP bound; data-independent), and
* Theorem 3, :math:`\log\big((1 - q)(\frac{1 - q}{1 - e^{2\gamma}q})^{\lambda}
  + q e^{2\gamma\lambda}\big)`, for any :math:`q \ge P[M(n) \ne j^*]` with
  :math:`q < (e^{2\gamma} - 1)/(e^{4\gamma} - 1)` (the theorem's own range;
  the published analysis script used :math:`q < 1/2`).

The bounds of the answers add up (Theorem 1.1) and convert to
:math:`(\varepsilon, \delta)` by the tail bound (Theorem 1.2) and by the
tighter Rényi conversion, reported side by side with the order attaining each
(:func:`refdp.accounting.moments_to_dp`).

Analyses (names used throughout):

``"data_independent"``
    Theorem 2 alone (:func:`refdp.accounting.pate_data_independent_log_moments`).
``"theorem3"``
    PATE's data-dependent analysis: Theorem 3 with Lemma 4's union bound
    :math:`q = \sum_{j \ne j^*} (2 + \gamma g_j)/(4 e^{\gamma g_j})`
    (:func:`refdp.core.lemma4_log_q`), per query the minimum with Theorem 2
    (:func:`refdp.core.accountant_log_moments`).
``"theorem3_exact_q"``
    The same with the exact :math:`q` of the LNMax law
    (:func:`refdp.pate.exact_analysis`); needs ``exact=True``.
``"exact"``
    The exact worst-case log-moment of every answer over all neighbouring
    vote vectors (:func:`refdp.pate.exact_analysis`), per query the minimum
    with Theorem 2; needs ``exact=True``.

**Two-sided (default).** Theorem 3 at the sensitive data :math:`d` bounds
:math:`\alpha(\lambda; d, d')`, the moments of the privacy loss under
:math:`M(d)`, for every neighbour :math:`d'`; an :math:`(\varepsilon,
\delta)` guarantee also needs the reverse :math:`\alpha(\lambda; d', d)`, and
the exact analysis shows that the reverse can exceed Theorem 3 at :math:`d`
(docs/theory/pate.rst gives an example). With ``two_sided=True`` refdp feeds
Theorem 3 with the largest :math:`q` over :math:`d` and all its neighbours,
which it proves is attained by moving one vote from the plurality class to
the runner-up; Theorem 3 at each neighbour then covers the reverse direction.
``two_sided=False`` reproduces the paper's one-sided analysis.

**Noise law** (``noise=``). The answers of ``lnmax_labels`` (``secure=True``,
its default) carry exact discrete Laplace noise; Lemma 4 and the exact
:math:`q` of the continuous law do not bound their :math:`q` (the discrete
tail is heavier). With ``noise="discrete"`` (the default) every
data-dependent analysis uses the discrete counterparts proved in
docs/theory/pate_discrete.rst (:mod:`refdp.pate.discrete_analysis`): the
discrete Lemma 4 for ``"theorem3"``, the exact discrete :math:`q` for
``"theorem3_exact_q"`` and the exact worst-case log-moments of the discrete
law over every neighbour for ``"exact"``
(:func:`refdp.pate.discrete_analysis.discrete_exact_log_moments`).
``noise="continuous"`` analyses answers drawn with ``secure=False`` (the
textbook mechanism, not private as implemented).

Every data-dependent value is itself sensitive; publishing it needs
:func:`refdp.pate.release_epsilon`.

References
----------
.. [PATE17] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
   "Semi-supervised Knowledge Transfer for Deep Learning from Private Training
   Data", ICLR 2017, Theorems 1-3 and Lemma 4.
.. [CKS20] C. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
   Differential Privacy", NeurIPS 2020, Prop. 12.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from .. import core
from ..utils.constraints import FLAG, PRIVACY, PROBABILITY_RESULT, Checked, Nullable, constrained, constrained_fields
from ..utils.validation import Described, Interval, Options, parameter_error
from ..utils.repr import params_repr
from ..accounting import moments_to_dp, pate_data_independent_log_moments, pate_quick_composition
from ._args import DELTA
from ..utils.votes import counts_from_votes, two_sided_counts
from ._constraints import COUNTS, GAMMA, ORDERS, VOTES, RowsSumTo
from .discrete_analysis import NOISES, discrete_lemma4_log_q, discrete_lemma4_two_sided_log_q
from ..utils.votes import check_gamma_votes
from ._args import check_discrete_gamma
from .exact import exact_analysis
from ..twins.bounds import pate_theorem2_bound, pure_dp_log_moment_bound, upward_sum_factor

__all__ = ["ANALYSES", "PATEAccountant", "PATEAnalysis", "pate_analysis", "two_sided_counts",
           "lemma4_two_sided_log_q"]

#: Names of the analyses, in the order they are reported.
ANALYSES = ("data_independent", "theorem3", "theorem3_exact_q", "exact")
_ANALYSIS = Options(ANALYSES)
_TEACHERS = Interval(int, 1, None)
_CLASSES = Interval(int, 1, None)
_NOISE = Options(NOISES)


def lemma4_two_sided_log_q(counts, gamma):
    """log of Lemma 4's q at the worst neighbour (gap >= 3), +inf where Theorem 3 cannot apply."""
    moved, gap = two_sided_counts(counts)
    out = core.lemma4_log_q(moved, gamma)
    # gap <= 2: Lemma 4 gives q >= (2 + 2 gamma) / (4 e^{2 gamma}) >= 1/(e^{2 gamma} + 1)
    # at n itself (docs/theory/pate.rst), so Theorem 3 is out of range on both sides.
    out[gap <= 2] = np.inf
    out[gap < 0] = -np.inf
    return out


def _best_bounds(gamma, orders):
    """min(Theorem 2, 2 gamma lambda) per order, rounded upward as in the compiled kernel."""
    return np.minimum(pate_theorem2_bound(gamma, orders), pure_dp_log_moment_bound(gamma, orders))


def _upward_sum(rows):
    """Sum of non-negative per-query rows (n, K), rounded upward."""
    n = rows.shape[0]
    return rows.sum(axis=0) * upward_sum_factor(n)


class PATEAccountant:
    """Moments accountant of LNMax answers ([PATE17]_ Theorems 1-3).

    Parameters
    ----------
    gamma : float > 0
        LNMax's inverse Laplace scale.
    orders : array_like of float > 0, optional
        Moment orders (default :data:`refdp.accounting.DEFAULT_ORDERS`, 63
        values from 0.25 to 256).
    n_classes : int >= 1, optional
        Needed by :meth:`add_votes`; checked against the columns of counts.
    n_teachers : int >= 1, optional
        If given, every count row must sum to it.
    exact : bool, default False
        Also run :func:`refdp.pate.exact_analysis` on each batch (enables the
        ``"theorem3_exact_q"`` and ``"exact"`` analyses).
    two_sided : bool, default True
        Bound the log-moments in both directions (module docstring).
    noise : {"discrete", "continuous"}, default "discrete"
        The noise law of the accounted answers: ``"discrete"`` for
        ``lnmax_labels(secure=True)`` (its default), ``"continuous"`` for
        ``secure=False`` (module docstring). The data-independent analysis
        is the same for both.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.pate import PATEAccountant
    >>> acc = PATEAccountant(0.05, n_classes=10)
    >>> rng = np.random.default_rng(0)
    >>> votes = rng.choice(10, size=(250, 100), p=[0.82] + [0.02] * 9)
    >>> r = acc.add_votes(votes).epsilon(1e-5)
    >>> r.epsilon < 1.0 < acc.epsilon(1e-5, "data_independent").epsilon
    True
    """

    @constrained(gamma=GAMMA, orders=ORDERS, n_classes=Nullable(_CLASSES), n_teachers=Nullable(_TEACHERS),
                 exact=FLAG, two_sided=FLAG, noise=_NOISE)
    def __init__(self, gamma, *, orders=None, n_classes=None, n_teachers=None, exact=False,
                 two_sided=True, noise="discrete"):
        self.gamma = gamma
        self.orders = orders
        self.n_classes = n_classes
        self.n_teachers = n_teachers
        self.exact = exact
        self.two_sided = two_sided
        self.noise = noise
        self._log_q = []
        self._log_q2 = []
        self._pending = []         # per batch: its counts while one side of Lemma 4 is not computed
        self._exact_q = []
        self._exact_q2 = []
        self._exact_fwd = []
        self._exact_both = []
        self._n = 0

    @property
    def n_queries(self) -> int:
        """Number of answers accounted for."""
        return self._n

    def __repr__(self):
        return params_repr(self, ("gamma", "n_classes", "n_teachers", "exact", "two_sided", "noise"),
                           {"n_orders": len(self.orders), "n_queries": self._n})

    @constrained(owner="PATEAccountant.add_counts", counts=COUNTS)
    def add_counts(self, counts):
        """Account for LNMax answers given their vote counts, shape (Q, C).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Empty or negative counts, a row without votes, a row whose total
            differs from ``n_teachers`` (when declared), a number of
            columns different from ``n_classes`` (when declared), or, with
            ``exact=True``, a ``gamma`` outside the range of the exact
            analyses (``gamma * T <= 8192``; ``gamma >= 2**-10`` for the
            discrete noise; :func:`refdp.pate.exact_analysis`). The
            accountant is left unchanged then.
        """
        owner = "PATEAccountant.add_counts"
        arr = counts                              # validated once, by the declaration (or the caller)
        RowsSumTo().check({"counts": arr, "n_teachers": self.n_teachers}, owner)
        if self.exact:
            check_gamma_votes(self.gamma, arr, owner)
            if self.noise == "discrete":
                check_discrete_gamma(self.gamma, owner)
        if self.n_classes is not None and arr.shape[1] != self.n_classes:
            raise parameter_error("counts", owner, f"an array of shape (any, {self.n_classes})", arr)
        if self.noise == "continuous" and arr.size and not np.isfinite(self.gamma * float(arr.max())):
            # gamma * gap would overflow to inf and Lemma 4's log-tail to NaN
            raise parameter_error("gamma", owner, "such that gamma * max(counts) is finite",
                                  Described(f"{self.gamma!r} with max(counts) = {int(arr.max())}"))
        if self.noise == "continuous" and self.two_sided:
            lq, lq2 = core.lemma4_log_q_pair(arr, self.gamma)   # both sides in one compiled pass
        else:
            # the accountant's side now, the other when a call asks for it (from a copy of the counts)
            lq, lq2 = (None, self._lemma4(arr, True)) if self.two_sided else (self._lemma4(arr, False), None)
        self._log_q.append(lq)
        self._log_q2.append(lq2)
        self._pending.append(None if lq is not None and lq2 is not None else arr.copy())
        if self.exact:
            r = exact_analysis.__wrapped__(arr, self.gamma, self.orders, noise=self.noise)
            best = _best_bounds(self.gamma, self.orders)[None, :]
            self._exact_q.append(r.log_q)
            self._exact_q2.append(r.log_q_two_sided)
            self._exact_fwd.append(_upward_sum(np.minimum(r.log_moments_forward, best)))
            self._exact_both.append(_upward_sum(np.minimum(r.log_moments, best)))
        self._n += arr.shape[0]
        return self

    def _lemma4(self, arr, two):
        """Lemma 4's log q (``two``: at the worst neighbour) of checked counts, for this noise law."""
        if self.noise == "discrete":
            f = discrete_lemma4_two_sided_log_q if two else discrete_lemma4_log_q
            return f.__wrapped__(arr, self.gamma)
        return core.lemma4_log_q_pair(arr, self.gamma)[1] if two else core.lemma4_log_q_of(arr, self.gamma)

    def _lemma4_side(self, two):
        """The per-batch log q of one side (``two``: two-sided), each computed once."""
        parts = self._log_q2 if two else self._log_q
        for i in range(len(parts)):
            counts = self._pending[i]
            if parts[i] is None and counts is not None:
                # (a thread computing the same side meanwhile sets parts[i] before clearing the counts)
                parts[i] = self._lemma4(counts, two)
                self._pending[i] = None            # both sides known: the counts are no longer kept
        return parts

    @constrained(owner="PATEAccountant.add_votes",
                 votes=Checked("a 2-dimensional array of labels in [0, n_classes), checked while counted "
                               "(refdp.pate._args.counts_from_votes)", invalid=tuple(VOTES.invalid_examples())))
    def add_votes(self, votes):
        """Account for LNMax answers given a (teachers x queries) array of labels in [0, n_classes).

        Returns
        -------
        self
        """
        owner = "PATEAccountant.add_votes"
        if self.n_classes is None:
            raise parameter_error("n_classes", "PATEAccountant", "given to count votes (an int >= 1)", None)
        counts = counts_from_votes(votes, self.n_classes, owner)      # the votes' one validation
        return self.add_counts.__wrapped__(self, counts)              # counted once, not re-validated

    @constrained(owner="PATEAccountant.log_moments", analysis=_ANALYSIS, two_sided=Nullable(FLAG))
    def log_moments(self, analysis="theorem3", *, two_sided=None):
        """Composed log-moment bounds per order (Theorem 1.1), rounded upward.

        Parameters
        ----------
        analysis : {"data_independent", "theorem3", "theorem3_exact_q", "exact"}
        two_sided : bool, optional
            Overrides the accountant's setting for this call.

        Returns
        -------
        ndarray, shape (K,)
        """
        owner = "PATEAccountant.log_moments"
        two = self.two_sided if two_sided is None else two_sided
        if analysis == "data_independent":
            return pate_data_independent_log_moments.__wrapped__(self.gamma, self.orders, self._n)
        if analysis in ("theorem3_exact_q", "exact") and not self.exact:
            raise parameter_error("analysis", owner, "'data_independent' or 'theorem3' (the accountant "
                                  "was built with exact=False)", analysis)
        if self._n == 0:
            return np.zeros(self.orders.shape)
        # the log q are the accountant's own (never NaN), gamma and the orders were validated
        if analysis == "theorem3":
            lq = np.concatenate(self._lemma4_side(two))
            return core.accountant_log_moments_of(lq, self.orders, self.gamma)
        if analysis == "theorem3_exact_q":
            lq = np.concatenate(self._exact_q2 if two else self._exact_q)
            return core.accountant_log_moments_of(lq, self.orders, self.gamma)
        parts = self._exact_both if two else self._exact_fwd
        total = np.array([math.fsum(col) for col in np.array(parts).T])
        return total * upward_sum_factor(len(parts))

    @constrained(owner="PATEAccountant.epsilon", delta=DELTA, analysis=_ANALYSIS, two_sided=Nullable(FLAG))
    def epsilon(self, delta, analysis="theorem3", *, two_sided=None):
        """(epsilon, delta) by the tail bound and the Rényi conversion.

        Parameters
        ----------
        delta : float in (0, 1)
        analysis : str, default "theorem3"
        two_sided : bool, optional
            Overrides the accountant's setting for this call.

        Returns
        -------
        refdp.accounting.MomentsConversion
            ``epsilon_tail``/``order_tail`` (PATE Theorem 1.2) and
            ``epsilon_rdp``/``order_rdp`` ([CKS20]_); ``.epsilon`` is the
            smaller.
        """
        # the log-moments and orders are the accountant's own: converted without re-validation
        return moments_to_dp.__wrapped__(self.log_moments.__wrapped__(self, analysis, two_sided=two_sided),
                                         self.orders, delta=delta)

    @constrained(owner="PATEAccountant.report", delta=DELTA)
    def report(self, delta):
        """Every available analysis at ``delta``, as a :class:`PATEAnalysis`."""
        names = ANALYSES if self.exact else ANALYSES[:2]
        # the data-independent analysis and the closed form depend only on (gamma, orders, n, delta)
        key = np.ascontiguousarray(self.orders, dtype=np.float64).tobytes()
        indep, indep_dp, quick = _data_independent_report(float(self.gamma), key, self._n, float(delta))
        moments = {name: self.log_moments.__wrapped__(self, name) for name in names[1:]}
        results = {name: moments_to_dp.__wrapped__(m, self.orders, delta=delta) for name, m in moments.items()}
        moments = {"data_independent": indep.copy(), **moments}
        results = {"data_independent": indep_dp, **results}
        return PATEAnalysis(gamma=self.gamma, delta=delta, n_queries=self._n, orders=self.orders,
                            two_sided=self.two_sided, log_moments=moments, results=results,
                            quick_composition=quick, noise=self.noise)


@functools.lru_cache(maxsize=256)
def _data_independent_report(gamma, orders_bytes, n, delta):
    """(Theorem 2 log-moments, their (epsilon, delta), PATE's closed form) of ``n`` answers.

    A pure function of its arguments (validated by the caller; the orders as
    the bytes of a float64 array), kept in a bounded cache: repeated reports
    over the same number of answers compute it once. The returned array is
    read-only (callers copy it).
    """
    orders = np.frombuffer(orders_bytes, dtype=np.float64)
    moments = pate_data_independent_log_moments.__wrapped__(gamma, orders, n)
    moments.flags.writeable = False
    quick = pate_quick_composition.__wrapped__(gamma, n, delta) if n >= 1 else 0.0
    return moments, moments_to_dp.__wrapped__(moments, orders, delta=delta), quick


@constrained_fields(gamma=GAMMA, delta=PROBABILITY_RESULT, orders=ORDERS, quick_composition=PRIVACY,
                    unchecked="what the accountant computed")
@dataclass(frozen=True)
class PATEAnalysis:
    """The (epsilon, delta) of a set of LNMax answers under each analysis.

    Attributes
    ----------
    gamma, delta : float
    n_queries : int
    orders : ndarray
    two_sided : bool
    noise : str
        The noise law analysed (``"discrete"`` or ``"continuous"``).
    log_moments : dict
        Analysis name -> composed log-moments per order.
    results : dict
        Analysis name -> :class:`refdp.accounting.MomentsConversion`.
    quick_composition : float
        PATE's closed form ``4 T gamma^2 + 2 gamma sqrt(2 T ln(1/delta))``
        (Section 3.1, :func:`refdp.accounting.pate_quick_composition`);
        ``inf`` (no guarantee) when the closed form overflows (huge ``gamma``).
    """

    gamma: float
    delta: float
    n_queries: int
    orders: np.ndarray
    two_sided: bool
    log_moments: dict = field(repr=False)
    results: dict
    quick_composition: float
    noise: str = "discrete"

    def __repr__(self):
        best = {name: min(r.epsilon_tail, r.epsilon_rdp) for name, r in self.results.items()}
        shown = ", ".join(f"{name}={value:.6g}" for name, value in best.items())
        return (f"PATEAnalysis(gamma={self.gamma:g}, delta={self.delta:g}, n_queries={self.n_queries}, "
                f"two_sided={self.two_sided}, noise={self.noise!r}, epsilon: {shown}; closed form {self.quick_composition:.6g})")

    def as_dict(self) -> dict:
        """Plain-Python summary (for JSON)."""
        out = {"gamma": self.gamma, "delta": self.delta, "n_queries": self.n_queries,
               "two_sided": self.two_sided, "noise": self.noise,
               "quick_composition": self.quick_composition,
               "analyses": {}}
        for name, r in self.results.items():
            out["analyses"][name] = {
                "epsilon_tail": r.epsilon_tail, "order_tail": r.order_tail,
                "epsilon_rdp": r.epsilon_rdp, "order_rdp": r.order_rdp,
                "data_dependent": name != "data_independent",
            }
        return out

    def table(self) -> str:
        """A plain-text table, one row per analysis."""
        head = f"{'analysis':<20} {'eps (tail)':>12} {'order':>7} {'eps (Renyi)':>12} {'order':>7}"
        lines = [head, "-" * len(head)]
        for name, r in self.results.items():
            lines.append(f"{name:<20} {r.epsilon_tail:>12.6g} {r.order_tail!s:>7} "
                         f"{r.epsilon_rdp:>12.6g} {r.order_rdp!s:>7}")
        lines.append(f"{'PATE closed form':<20} {self.quick_composition:>12.6g}")
        return "\n".join(lines)


@constrained(counts=COUNTS, gamma=GAMMA, delta=DELTA, orders=ORDERS, exact=FLAG, two_sided=FLAG,
             n_teachers=Nullable(_TEACHERS), noise=_NOISE, relations=(RowsSumTo(),))
def pate_analysis(counts, gamma, delta, *, orders=None, exact=False, two_sided=True, n_teachers=None,
                  noise="discrete"):
    """Privacy of a set of LNMax answers under every analysis, in one call.

    Parameters
    ----------
    counts : array_like of int, shape (Q, C)
        Vote counts of the answered queries.
    gamma : float > 0
    delta : float in (0, 1)
    orders : array_like of float > 0, optional
        Default :data:`refdp.accounting.DEFAULT_ORDERS`.
    exact : bool, default False
        Include the analyses from the exact LNMax law.
    two_sided : bool, default True
        See the module docstring.
    n_teachers : int >= 1, optional
        Declared number of teachers (every row must sum to it).
    noise : {"discrete", "continuous"}, default "discrete"
        Noise law of the answers: ``"discrete"`` for ``lnmax_labels`` with
        its default ``secure=True``, ``"continuous"`` for ``secure=False``
        (see :class:`PATEAccountant`).

    Returns
    -------
    PATEAnalysis

    Raises
    ------
    ValueError
        On any invalid argument (one message shape, naming the parameter).

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.pate import pate_analysis
    >>> counts = np.tile([232, 4, 3, 3, 2, 2, 1, 1, 1, 1], (100, 1))
    >>> r = pate_analysis(counts, 0.05, 1e-5)
    >>> round(r.results["data_independent"].epsilon_tail, 2), round(r.quick_composition, 2)
    (5.3, 5.8)
    """
    # every argument is validated once, above; the accountant's bodies take them as they are
    acc = PATEAccountant.__new__(PATEAccountant)
    PATEAccountant.__init__.__wrapped__(acc, gamma, orders=orders, exact=exact, two_sided=two_sided,
                                        n_teachers=n_teachers, noise=noise)
    acc.add_counts.__wrapped__(acc, counts)
    return acc.report.__wrapped__(acc, delta)
