"""A privacy budget that is tracked across queries and refuses the query that would exceed it.

Every private release in refdp is private *per call*: a million calls of
:meth:`refdp.prediction.ProjectedWalk.predict` at epsilon are, by basic
composition, a million-epsilon release. :class:`PrivacyFilter` keeps the
ledger. The prediction estimators and :class:`refdp.pate.PATEStudent` take
it as ``budget=`` and charge it *before* they release anything; a charge that
would take the composition past the budget raises :class:`BudgetExhausted`
and releases nothing.

A filter is valid under adaptivity -- the analyst may choose each query, and
whether to go on, after seeing the previous answers -- for each of the three
rules offered:

``"basic"``
    (sum epsilon_i, sum delta_i); the parameters of each charge may be chosen
    adaptively (Rogers, Roth, Ullman and Vadhan, "Privacy Odometers and
    Filters: Pay-as-you-Go Composition", NeurIPS 2016, Sec. 3: basic
    composition holds for filters). Sums are exact rationals.
``"advanced"``
    Dwork, Rothblum and Vadhan's bound for k mechanisms that are each
    (epsilon_0, delta_0)-DP (FOCS 2010, Thm. III.3), or the basic bound for the
    same k when it is smaller. The first charge fixes (epsilon_0, delta_0) and
    every later charge must be the same: the theorem is for parameters fixed in
    advance (a filter for adaptively chosen parameters needs the larger
    constants of Rogers et al., Thm. 5.1, not offered here). Stopping early is
    allowed: the queries not asked are 0-DP mechanisms, which the bound covers.
``"zcdp"``
    rho_i-zCDP mechanisms compose to (sum rho_i)-zCDP, also for adaptively
    chosen rho_i (a Rényi filter: Feldman and Zrnic, "Individual Privacy
    Accounting via a Rényi Filter", NeurIPS 2021, Thm. 3.1, for every order
    at once), converted to (epsilon, delta) by Bun and Steinke (TCC 2016,
    Prop. 1.3). A pure epsilon-DP charge costs epsilon**2 / 2 (Prop. 1.4); a
    charge with delta > 0 and no zCDP parameter cannot be composed this way and
    is refused with a ValueError.

All comparisons round toward safety: the composed guarantee is an upper bound
(exact rationals, or interval arithmetic rounded up), and a charge is
admitted only if that upper bound is within the budget.
"""
from __future__ import annotations

import threading
from fractions import Fraction

from ..utils.rounding import ceil_fraction
from ..utils.constraints import InstanceOf, Optional, constrained, constrained_with
from ..utils.validation import Interval, Options, check_scalar, parameter_error
from .composition import EpsilonDelta, advanced_epsilon
from .conversions import zcdp_to_dp
from ..utils.validation import POSITIVE

__all__ = ["PrivacyFilter", "BudgetExhausted", "COMPOSITIONS"]

#: The composition rules a :class:`PrivacyFilter` can use.
COMPOSITIONS = ("basic", "advanced", "zcdp")

_EPSILON = POSITIVE
_CHARGE_EPSILON = Interval(float, 0, None, closed="left")
_DELTA = Interval(float, 0, 1, closed="left")
_RHO = Interval(float, 0, None, closed="left")
_COUNT = Interval(int, 1, None)
_RULES = Options(COMPOSITIONS)


class BudgetExhausted(RuntimeError):
    """A charge was refused: answering would take the composition past the budget.

    Nothing was released. The message gives the guarantee the charge would
    have led to, the budget, and what had been spent.
    """

    @constrained(message=InstanceOf((str,), "a message (str)"))
    def __init__(self, message):
        super().__init__(message)


class PrivacyFilter:
    """A privacy budget shared by every release that is charged to it.

    Parameters
    ----------
    epsilon : float > 0
        The total epsilon the releases may spend.
    delta : float in [0, 1), default 0
        The total delta. ``composition="advanced"`` and ``"zcdp"`` need
        ``delta > 0``.
    composition : {"basic", "advanced", "zcdp"}, default "basic"
        How charges compose (see the module notes for why each is valid as a
        filter).
    delta_prime : float in (0, delta), optional
        ``"advanced"`` only: the slack delta' of Dwork, Rothblum and Vadhan's
        bound; default ``delta / 2``. The per-query deltas must then fit in
        ``delta - delta_prime``.

    Attributes
    ----------
    n_charges : int
        Number of admitted charges (a charge of ``count=q`` counts ``q``).

    Notes
    -----
    One filter is one budget: copying it (``copy.copy``, ``copy.deepcopy``,
    and so :func:`sklearn.base.clone` of an estimator holding it) returns the
    same object, so that a clone cannot spend a second copy of the budget.
    Charges are serialised by a lock, so threads may share a filter.

    Examples
    --------
    >>> from refdp.accounting import PrivacyFilter
    >>> budget = PrivacyFilter(epsilon=1.0)
    >>> budget.charge(0.25, count=3)
    >>> budget.spent
    EpsilonDelta(epsilon=0.75, delta=0.0)
    >>> budget.charge(0.5)
    Traceback (most recent call last):
    ...
    refdp.accounting.budget.BudgetExhausted: PrivacyFilter(epsilon=1, delta=0, composition='basic'): ...
    """

    @constrained(epsilon=_EPSILON, delta=_DELTA, composition=_RULES,
                 delta_prime=Optional(Interval(float, 0, 1, closed="neither")))
    def __init__(self, epsilon, delta=0.0, *, composition="basic", delta_prime=None):
        owner = "PrivacyFilter"
        self.epsilon = epsilon
        self.delta = delta
        self.composition = composition
        if self.composition in ("advanced", "zcdp") and self.delta == 0.0:
            raise parameter_error("delta", owner, f"a float in the range (0, 1) with "
                                  f"composition={self.composition!r} (it never gives pure DP)", delta)
        if delta_prime is not None and self.composition != "advanced":
            raise parameter_error("delta_prime", owner, "None unless composition='advanced'", delta_prime)
        if self.composition == "advanced":
            dp = self.delta / 2 if delta_prime is None else delta_prime
            self.delta_prime = check_scalar(dp, "delta_prime", owner,
                                            Interval(float, 0, self.delta, closed="neither"))
        else:
            self.delta_prime = None
        self._lock = threading.Lock()
        self._eps = Fraction(0)       # basic: sum of epsilons
        self._delta = Fraction(0)     # basic / advanced: sum of deltas
        self._rho = Fraction(0)       # zcdp: sum of rhos
        self._unit = None             # advanced: the (epsilon_0, delta_0) of every charge
        self.n_charges = 0

    # One budget, never duplicated (see Notes).
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __getstate__(self):
        raise TypeError("a PrivacyFilter cannot be pickled: a copy would be a second budget")

    def __repr__(self):
        extra = f", delta_prime={self.delta_prime:g}" if self.delta_prime is not None else ""
        return (f"PrivacyFilter(epsilon={self.epsilon:g}, delta={self.delta:g}, "
                f"composition={self.composition!r}{extra})")

    # -- the ledger -----------------------------------------------------------
    def _composed(self, eps, delta, rho, n, unit):
        """Upper bound (EpsilonDelta) of the composition of the ledger (eps, delta, rho, n, unit)."""
        if self.composition == "basic":
            return EpsilonDelta(ceil_fraction(eps), min(1.0, ceil_fraction(delta)))
        if self.composition == "zcdp":
            if not rho:
                return EpsilonDelta(0.0, 0.0)
            return EpsilonDelta(zcdp_to_dp.__wrapped__(ceil_fraction(rho), self.delta), self.delta)
        if n == 0:
            return EpsilonDelta(0.0, 0.0)
        e0, d0 = unit
        basic = EpsilonDelta(ceil_fraction(n * Fraction(e0)),
                             min(1.0, ceil_fraction(n * Fraction(d0))))
        if self._fits(basic):
            return basic
        # the bound rounded up; inf (a refusal) when it overflows
        return EpsilonDelta(advanced_epsilon(e0, n, self.delta_prime),
                            min(1.0, ceil_fraction(n * Fraction(d0) + Fraction(self.delta_prime))))

    def _fits(self, g: EpsilonDelta) -> bool:
        return g.epsilon <= self.epsilon and g.delta <= self.delta

    @property
    def spent(self) -> EpsilonDelta:
        """An upper bound of the guarantee of everything charged so far."""
        with self._lock:
            return self._composed(self._eps, self._delta, self._rho, self.n_charges, self._unit)

    @property
    def remaining_epsilon(self) -> float:
        """``epsilon - spent.epsilon`` (0 when exhausted); for display, not for decisions."""
        return max(0.0, self.epsilon - self.spent.epsilon)

    @constrained_with(dict(epsilon=_CHARGE_EPSILON, delta=_DELTA, count=_COUNT, rho=Optional(_RHO),
                           owner=Optional(InstanceOf((str,), "a str"))),
                      owner="PrivacyFilter.charge")
    def charge(self, epsilon, delta=0.0, *, count=1, rho=None, owner=None):
        """Admit ``count`` releases, each (epsilon, delta)-DP (or rho-zCDP), or refuse them all.

        Parameters
        ----------
        epsilon : float >= 0
            Each release's epsilon (``0`` with ``rho=`` for a zCDP-only charge).
        delta : float in [0, 1), default 0
            Each release's delta.
        count : int >= 1, default 1
            Number of releases charged at once (e.g. ``q`` query points); all
            are admitted or none.
        rho : float >= 0, optional
            Each release's zCDP parameter, used by ``composition="zcdp"``
            instead of ``epsilon**2 / 2``.
        owner : str, optional
            Who charges (shown in the refusal message).

        Raises
        ------
        BudgetExhausted
            If the composition with these releases would exceed the budget;
            the ledger is then unchanged.
        ValueError
            On a bad argument; under ``"advanced"`` a charge different from the
            first; under ``"zcdp"`` a charge with ``delta > 0`` and no ``rho``.
        """
        me = "PrivacyFilter.charge"
        if self.composition != "zcdp" and rho is not None and rho > 0 and epsilon == 0.0:
            raise parameter_error("rho", me, f"None under composition={self.composition!r}: a "
                                  "rho-zCDP release is charged with composition='zcdp' (or as the "
                                  "(epsilon, delta) it implies)", rho)
        if self.composition == "zcdp" and rho is None:
            if delta > 0.0:
                raise parameter_error("delta", me, "0 under composition='zcdp' unless rho is given "
                                      "(an (epsilon, delta) guarantee has no zCDP parameter)", delta)
            rho_exact = Fraction(epsilon) ** 2 / 2
        else:
            rho_exact = Fraction(rho) if rho is not None else None
        with self._lock:
            eps, dl, r, n, unit = self._eps, self._delta, self._rho, self.n_charges, self._unit
            if self.composition == "basic":
                eps += count * Fraction(epsilon)
                dl += count * Fraction(delta)
            elif self.composition == "zcdp":
                r += count * rho_exact
            else:
                if unit is None:
                    unit = (epsilon, delta)
                elif unit != (epsilon, delta):
                    raise parameter_error("epsilon", me, f"the same (epsilon, delta) = {unit} as the first "
                                          "charge under composition='advanced'", (epsilon, delta))
            after = self._composed(eps, dl, r, n + count, unit)
            if not self._fits(after):
                spent = self._composed(self._eps, self._delta, self._rho, self.n_charges, self._unit)
                who = f" for {owner}" if owner else ""
                raise BudgetExhausted(
                    f"{self!r}: refused {count} release(s){who} at epsilon = {epsilon:g}, delta = {delta:g}"
                    f"{'' if rho_exact is None else f', rho = {float(rho_exact):.6g}'}: the composition would be "
                    f"(epsilon = {after.epsilon:.6g}, delta = {after.delta:.3g}); already spent "
                    f"(epsilon = {spent.epsilon:.6g}, delta = {spent.delta:.3g}) in {self.n_charges} charge(s)")
            self._eps, self._delta, self._rho, self.n_charges, self._unit = eps, dl, r, n + count, unit


def check_budget(budget, owner):
    """``None`` or a :class:`PrivacyFilter` (the ``budget=`` parameter of the releasing estimators)."""
    if budget is not None and not isinstance(budget, PrivacyFilter):
        raise parameter_error("budget", owner, "None or a refdp.accounting.PrivacyFilter", budget)
    return budget
