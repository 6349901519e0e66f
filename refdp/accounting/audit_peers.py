"""Audit of other libraries' privacy accountants against refdp's certified values.

An accountant is a DP implementation too: an epsilon it reports below the
exact epsilon of the composition is a false privacy claim. This module runs
the accountants of other libraries -- Google's ``dp_accounting`` (its PLD and
its RDP accountant), Microsoft's ``prv_accountant`` and ``autodp`` -- on a grid
of compositions and compares every value with refdp's certified enclosure
``[lower, upper]`` of the exact epsilon at the same delta:

* ``undercuts``: the value is below ``lower``, or equal to a ``lower > 0``
  that refdp verified to lie strictly below the exact epsilon (every
  reference but the closed form of one Laplace mechanism: there the exact
  delta at ``lower`` was shown to exceed delta), so the composition is *not*
  (value, delta)-DP -- a privacy bug;
* ``inside``: between ``lower`` and ``upper`` (refdp's enclosure is too wide
  to decide);
* ``valid``: at least ``upper``; ``loose`` is ``(value - upper) / upper``, a
  lower bound of its relative excess over the exact value.

The peers are optional (``pip install 'refdp[audit-peers]'``). They are
imported only inside worker processes started by :func:`audit_accountants`,
each under an address-space limit and a per-call time limit, so a peer that
exhausts memory or hangs is reported as failed instead of taking the
machine down; refdp itself never imports them.

``refdp audit-accountant`` is the command-line form (``refdp
audit-accountant -h``).
"""
from __future__ import annotations

import importlib.util
import math
import multiprocessing
import sys
import time
from dataclasses import dataclass
from fractions import Fraction

from ..utils.precision import iv_context
from ..utils.rounding import ceil_fraction, floor_fraction
from ..utils.validation import Interval, Options, check_scalar, parameter_error
from .gaussian_exact import gaussian_delta
from .optimal_composition import _Profile, _hi, _lo, optimal_composition_epsilon
from .profiles import (DiscreteGaussian, DiscreteLaplace, Enclosure, Gaussian, Laplace,
                       RandomizedResponse, _normalise, privacy_profile_epsilon)
from .renyi import renyi_epsilon
from ..utils.validation import POSITIVE

__all__ = ["Setting", "AuditRow", "PEERS", "default_settings", "reference_epsilon",
           "audit_accountants", "add_arguments", "run"]

#: The accountants :func:`audit_accountants` knows, with the PyPI package each needs.
PEERS = {
    "dp_accounting.pld": "dp-accounting",
    "dp_accounting.rdp": "dp-accounting",
    "prv_accountant": "prv-accountant",
    "autodp": "autodp",
    "opacus.rdp": "opacus",
    "refdp.renyi": None,
}
_PEER_OPTIONS = Options(tuple(PEERS))
_MEMORY = Interval(int, 256, None)
_TIMEOUT = POSITIVE
_DELTA_OPEN = Interval(float, 0, 1, closed="neither")


@dataclass(frozen=True)
class Setting:
    """A composition (``(mechanism, count)`` pairs) and the delta at which epsilon is asked."""

    mechanisms: tuple
    delta: float

    @property
    def name(self) -> str:
        return " + ".join(f"{_describe(m)} x{_count(k)}" for m, k in self.mechanisms)


@dataclass(frozen=True)
class AuditRow:
    """One accountant's epsilon for one setting, with refdp's enclosure and the verdict.

    ``value`` is None when the accountant failed or does not support the
    setting (``error`` says why). ``verdict`` is one of ``"undercuts"``,
    ``"inside"``, ``"valid"``, ``"unsupported"`` and ``"failed"``;
    ``gap`` is ``(lower - value) / lower`` for an undercut (``inf`` when
    ``lower`` is 0) and
    ``(value - upper) / upper`` for a valid value (``inf`` when ``upper`` is 0
    and the value is positive), else None.
    """

    setting: Setting
    peer: str
    value: float | None
    seconds: float | None
    truth: Enclosure
    verdict: str
    gap: float | None
    error: str | None = None


def _describe(m) -> str:
    if isinstance(m, RandomizedResponse):
        return f"pure eps0={m.epsilon:g}"
    if isinstance(m, Laplace):
        return f"Laplace b={m.scale:g}" + ("" if m.sensitivity == 1 else f" D={m.sensitivity:g}")
    if isinstance(m, Gaussian):
        return f"Gaussian sigma={m.sigma:g}" + ("" if m.sensitivity == 1 else f" D={m.sensitivity:g}")
    if isinstance(m, DiscreteLaplace):
        return f"discrete Laplace t={m.scale:g}" + ("" if m.sensitivity == 1 else f" D={m.sensitivity}")
    return f"discrete Gaussian sigma={m.sigma:g}" + ("" if m.sensitivity == 1 else f" D={m.sensitivity}")


def _count(k: int) -> str:
    return f"1e{round(math.log10(k))}" if k >= 10**4 and 10 ** round(math.log10(k)) == k else str(k)


def default_settings(quick: bool = False) -> list:
    """The audit grid: k from 1 to 1e5, eps0 from 1e-3 to 10, delta from 1e-15 to 1e-2, sigma 0.5 to 50.

    Pure epsilon-DP compositions (randomized response, the worst case, for
    which refdp's value is the exact optimal composition at any k); Gaussian
    compositions (composed exactly, discretised once, any k); Laplace
    compositions (k <= 100); mixtures; and a discrete Laplace and a discrete Gaussian
    composition. ``quick`` keeps 8 settings.
    """
    deltas = (1e-15, 1e-6, 1e-2)
    pure = [(1e-3, 10**5), (1e-3, 10**4), (1e-3, 100), (0.1, 10**4), (0.1, 100), (0.1, 1),
            (1.0, 100), (1.0, 1), (10.0, 1), (10.0, 10)]
    gauss = [(0.5, 1), (0.5, 100), (5.0, 1), (5.0, 100), (5.0, 10**4), (50.0, 1), (50.0, 10**4),
             (50.0, 10**5)]
    lap = [(1.0, 1), (1.0, 10), (10.0, 100), (100.0, 100)]
    mixes = [((Laplace(10.0), 50), (Gaussian(5.0), 20)),
             ((RandomizedResponse(0.1), 100), (Gaussian(10.0), 100)),
             ((Laplace(2.0), 5), (Gaussian(1.0, 2.0), 3), (RandomizedResponse(0.5), 10))]
    discrete = [((DiscreteLaplace(5.0), 20),), ((DiscreteGaussian(2.0), 10),)]
    if quick:
        return [Setting(((RandomizedResponse(0.1), 100),), 1e-6),
                Setting(((RandomizedResponse(10.0), 1),), 1e-2),
                Setting(((RandomizedResponse(1e-3), 10**4),), 1e-15),
                Setting(((Gaussian(5.0), 100),), 1e-6),
                Setting(((Gaussian(0.5), 1),), 1e-2),
                Setting(((Laplace(10.0), 100),), 1e-6),
                Setting(mixes[0], 1e-6),
                Setting(discrete[1], 1e-6)]
    out = []
    for d in deltas:
        out += [Setting(((RandomizedResponse(e), k),), d) for e, k in pure]
        out += [Setting(((Gaussian(s), k),), d) for s, k in gauss]
        out += [Setting(((Laplace(b), k),), d) for b, k in lap]
        out += [Setting(m, d) for m in mixes + discrete]
    return out


# ------------------------------------------------------------------ truth --

def _grid_step(groups) -> float:
    """A loss-grid step keeping the certified profile within about half a minute per setting."""
    mu2 = sum(k * (g.sensitivity / g.sigma) ** 2 for g, k in groups.items() if isinstance(g, Gaussian))
    span = sum(2 * k * (g.sensitivity / g.scale if isinstance(g, (Laplace, DiscreteLaplace)) else
                        g.epsilon if isinstance(g, RandomizedResponse) else
                        g.sensitivity * (2 * 36 * g.sigma) / (2 * g.sigma ** 2))
               for g, k in groups.items() if not isinstance(g, Gaussian))
    span += 72 * math.sqrt(mu2)
    return float(min(1.0, max(1e-5, span / 2e6)))


def reference_epsilon(mechanisms, delta) -> Enclosure:
    """refdp's certified enclosure of the exact epsilon of a composition at ``delta``.

    A composition of identical pure-DP mechanisms (randomized response) is
    enclosed by the exact optimal composition: ``upper`` is
    :func:`~refdp.accounting.optimal_composition_epsilon` and ``lower`` is
    the first of ``upper`` minus 1, 4 or 64 units in the last place, or
    ``upper (1 - r)``, ``r`` in 1e-12, 1e-9, 1e-6, 1e-3, at which the interval
    of the exact delta lies above ``delta``. A composition of Gaussians is one
    Gaussian with ``mu**2 = sum Delta_i**2 / sigma_i**2`` (exact), whose
    profile (Balle and Wang 2018, Thm. 8) is enclosed in interval arithmetic
    and inverted by bisection on both ends. Everything else goes through
    :func:`~refdp.accounting.privacy_profile_epsilon` at three grid steps
    (one chosen from the loss span, at most 1 and at least 1e-5, and 3 and 10
    times it), and the enclosures are intersected: each contains the exact
    value, so their intersection does too.

    Parameters
    ----------
    mechanisms : list of mechanisms or of ``(mechanism, count)`` pairs
    delta : float in (0, 1)

    Returns
    -------
    Enclosure

    Raises
    ------
    ValueError
        On invalid arguments.
    """
    owner = "reference_epsilon"
    groups = _normalise(mechanisms, owner)
    delta = check_scalar(delta, "delta", owner, _DELTA_OPEN)
    if len(groups) == 1:
        (mech, k), = groups.items()
        if isinstance(mech, RandomizedResponse):
            upper = optimal_composition_epsilon(mech.epsilon, k, delta)
            profile = _Profile(mech.epsilon, k, 50)
            lower = 0.0
            ulp = math.ulp(upper)
            for t in [upper - m * ulp for m in (1, 4, 64)] + [upper * (1 - r) for r in (1e-12, 1e-9, 1e-6, 1e-3)]:
                if t <= 0:
                    break
                v = profile.delta(t)
                if v is not None and _lo(v) > Fraction(delta):
                    lower = t
                    break
            return Enclosure(lower, upper)
        if isinstance(mech, Laplace) and k == 1:
            return _laplace_epsilon(mech, delta)
    if all(isinstance(m, Gaussian) for m in groups):
        mu2 = sum(k * (Fraction(m.sensitivity) / Fraction(m.sigma)) ** 2 for m, k in groups.items())
        return _gaussian_epsilon(mu2, delta)
    # the enclosures at three grid steps all contain the exact value, and so does their
    # intersection: a finer grid narrows the spreading's gap, a coarser one the transforms'
    # rounding error, and which of the two dominates depends on the composition
    items, step = list(groups.items()), _grid_step(groups)
    lower, upper = 0.0, math.inf
    for factor in _STEP_FACTORS:
        enc = privacy_profile_epsilon(items, delta, grid_step=min(1.0, step * factor))
        lower, upper = max(lower, enc.lower), min(upper, enc.upper)
    return Enclosure(lower, upper)


#: Multiples of the audit's grid step whose enclosures :func:`reference_epsilon` intersects.
_STEP_FACTORS = (1, 3, 10)


def _laplace_epsilon(mech, delta: float) -> Enclosure:
    """One Laplace mechanism: ``delta(eps) = 1 - e**((eps - a)/2)`` on [0, a], so eps = max(0, a + 2 ln(1 - delta))."""
    iv = iv_context(40)
    a = iv.mpf(mech.sensitivity) / iv.mpf(mech.scale)
    e = a + 2 * iv.log(1 - iv.mpf(delta))
    if e.b <= 0:
        return Enclosure(0.0, 0.0)
    return Enclosure(max(0.0, floor_fraction(_lo(e))), ceil_fraction(_hi(e)))


def _gaussian_epsilon_float(mu: float, delta: float) -> float:
    """Float estimate of the Gaussian epsilon at ``delta`` (bisection; only a starting point)."""
    from scipy.special import log_ndtr, ndtr

    def d(e):
        return float(ndtr(mu / 2 - e / mu) - math.exp(min(e + log_ndtr(-mu / 2 - e / mu), 700.0)))

    a, b = 0.0, max(1.0, mu * mu)
    while d(b) > delta:
        a, b = b, 2 * b
    for _ in range(200):
        c = (a + b) / 2
        if d(c) > delta:
            a = c
        else:
            b = c
        if b - a <= 1e-15 * b:
            break
    return b


def _gaussian_epsilon(mu2: Fraction, delta: float) -> Enclosure:
    """Floats ``lower < eps* <= upper`` for the Gaussian profile with ``mu**2 = mu2``."""
    iv = iv_context(40)
    mu = iv.sqrt(iv.mpf(mu2.numerator) / mu2.denominator)
    d = Fraction(delta)

    def hi_ok(e):       # the exact delta(e) is certainly <= delta
        return _hi(gaussian_delta(mu, e, iv)) <= d

    def lo_above(e):    # the exact delta(e) is certainly > delta
        return _lo(gaussian_delta(mu, e, iv)) > d

    if hi_ok(0.0):
        return Enclosure(0.0, 0.0)
    # a float estimate first (only a guess), then certified ends near it
    guess = _gaussian_epsilon_float(math.sqrt(float(mu2)), delta)
    upper = lower = None
    for r in (1e-13, 1e-11, 1e-9, 1e-7, 1e-5):
        if upper is None and hi_ok(guess * (1 + r)):
            upper = guess * (1 + r)
        if lower is None and guess * (1 - r) > 0 and lo_above(guess * (1 - r)):
            lower = guess * (1 - r)
    if upper is None:
        a, b = 0.0, max(1.0, float(mu2))
        while not hi_ok(b):
            a, b = b, 2 * b
        while b - a > 1e-14 * b:
            c = (a + b) / 2
            if hi_ok(c):
                b = c
            else:
                a = c
        upper = b
    if lower is None:
        lower = 0.0
        if lo_above(0.0):
            a, b = 0.0, upper        # lo_above(a) holds; lo_above(upper) does not (hi_ok(upper))
            while b - a > 1e-14 * b:
                c = (a + b) / 2
                if lo_above(c):
                    a = c
                else:
                    b = c
            lower = a
    return Enclosure(lower, upper)


# ------------------------------------------------------------------ peers --

class _Unsupported(Exception):
    pass


def _dp_accounting_pld(setting):
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld
    total = None
    for m, k in setting.mechanisms:
        if isinstance(m, RandomizedResponse):
            p = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(m.epsilon, 0.0))
        elif isinstance(m, Laplace):
            p = pld.from_laplace_mechanism(m.scale, sensitivity=m.sensitivity)
        elif isinstance(m, Gaussian):
            p = pld.from_gaussian_mechanism(m.sigma, sensitivity=m.sensitivity)
        elif isinstance(m, DiscreteLaplace):
            p = pld.from_discrete_laplace_mechanism(1.0 / m.scale, sensitivity=m.sensitivity)
        else:
            p = pld.from_discrete_gaussian_mechanism(m.sigma, sensitivity=m.sensitivity)
        if k > 1:
            p = p.self_compose(k)
        total = p if total is None else total.compose(p)
    return {"dp_accounting.pld": total.get_epsilon_for_delta(setting.delta)}


def _dp_accounting_rdp(setting):
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp
    acc = rdp.RdpAccountant()
    for m, k in setting.mechanisms:
        if isinstance(m, Laplace):
            acc.compose(dp_accounting.LaplaceDpEvent(m.scale / m.sensitivity), k)
        elif isinstance(m, Gaussian):
            acc.compose(dp_accounting.GaussianDpEvent(m.sigma / m.sensitivity), k)
        else:
            raise _Unsupported(f"no {type(m).__name__} event")
    return {"dp_accounting.rdp": acc.get_epsilon(setting.delta)}


def _prv(setting):
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import (GaussianMechanism, LaplaceMechanism,
                                                         PureDPMechanism)
    prvs, counts = [], []
    for m, k in setting.mechanisms:
        if isinstance(m, RandomizedResponse):
            prvs.append(PureDPMechanism(m.epsilon))
        elif isinstance(m, Laplace):
            prvs.append(LaplaceMechanism(mu=m.sensitivity / m.scale))
        elif isinstance(m, Gaussian):
            prvs.append(GaussianMechanism(noise_multiplier=m.sigma / m.sensitivity))
        else:
            raise _Unsupported(f"no {type(m).__name__}")
        counts.append(k)
    # the settings its documentation recommends: eps_error 0.01, delta_error delta / 1000
    acc = PRVAccountant(prvs=prvs, max_self_compositions=counts, eps_error=0.01,
                        delta_error=setting.delta / 1000)
    low, est, up = acc.compute_epsilon(delta=setting.delta, num_self_compositions=counts)
    return {"prv_accountant": up, "prv_accountant (estimate)": est}


def _autodp(setting):
    from autodp import mechanism_zoo as zoo
    from autodp import transformer_zoo as tz
    mechs, counts = [], []
    for m, k in setting.mechanisms:
        if isinstance(m, RandomizedResponse):
            mechs.append(zoo.PureDP_Mechanism(m.epsilon))
        elif isinstance(m, Laplace):
            mechs.append(zoo.LaplaceMechanism(b=m.scale / m.sensitivity))
        elif isinstance(m, Gaussian):
            mechs.append(zoo.GaussianMechanism(sigma=m.sigma / m.sensitivity))
        else:
            raise _Unsupported(f"no {type(m).__name__}")
        counts.append(k)
    return {"autodp": tz.Composition()(mechs, counts).get_approxDP(setting.delta)}


#: Opacus's default orders (``RDPAccountant.DEFAULT_ALPHAS``, Opacus 1.x).
_OPACUS_ORDERS = [1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64))


def _opacus_rdp(setting):
    """Opacus's RDP accountant (its ``compute_rdp`` with sampling rate 1 and ``get_privacy_spent``).

    Only ``opacus/accountants/analysis/rdp.py`` is loaded, from the installed
    package's files, so that Opacus's package initialisation (which imports
    PyTorch) is not run: that module needs only NumPy and SciPy.
    """
    import importlib.util as iu
    import os
    spec = iu.find_spec("opacus")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("opacus")
    path = os.path.join(os.path.dirname(spec.origin), "accountants", "analysis", "rdp.py")
    mod_spec = iu.spec_from_file_location("_opacus_rdp_analysis", path)
    mod = iu.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    rdp = None
    for m, k in setting.mechanisms:
        if not isinstance(m, Gaussian):
            raise _Unsupported(f"no {type(m).__name__} (only the subsampled Gaussian)")
        r = mod.compute_rdp(q=1.0, noise_multiplier=m.sigma / m.sensitivity, steps=k, orders=_OPACUS_ORDERS)
        rdp = r if rdp is None else rdp + r
    eps, _ = mod.get_privacy_spent(orders=_OPACUS_ORDERS, rdp=rdp, delta=setting.delta)
    return {"opacus.rdp": eps}


def _refdp_renyi(setting):
    return {"refdp.renyi": renyi_epsilon(list(setting.mechanisms), setting.delta).epsilon}


_RUNNERS = {"dp_accounting.pld": _dp_accounting_pld, "dp_accounting.rdp": _dp_accounting_rdp,
            "prv_accountant": _prv, "autodp": _autodp, "opacus.rdp": _opacus_rdp,
            "refdp.renyi": _refdp_renyi}
_LABELS = {"prv_accountant": ("prv_accountant", "prv_accountant (estimate)")}


def _worker(conn, peer: str, memory_mb: int) -> None:  # pragma: no cover - runs in a child process
    import resource
    import warnings
    limit = memory_mb * 2 ** 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    warnings.simplefilter("ignore")
    while True:
        job = conn.recv()
        if job is None:
            return
        t0 = time.perf_counter()
        try:
            out = {k: float(v) for k, v in _RUNNERS[peer](job).items()}
            err = None
        except _Unsupported as exc:
            out, err = None, f"unsupported: {exc}"
        except MemoryError:
            out, err = None, f"failed: memory above {memory_mb} MB"
        except Exception as exc:  # noqa: BLE001 - a peer's failure is a result of the audit
            out, err = None, f"failed: {type(exc).__name__}: {str(exc)[:120]}"
        conn.send((out, time.perf_counter() - t0, err))


class _Pool:
    """One worker process for one peer, restarted after a crash or a timeout."""

    def __init__(self, peer: str, memory_mb: int):
        self.peer, self.memory_mb = peer, memory_mb
        methods = multiprocessing.get_all_start_methods()
        self.ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self.proc = None

    def _start(self):
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker, args=(child, self.peer, self.memory_mb), daemon=True)
        self.proc.start()
        child.close()

    def call(self, setting, timeout: float):
        if self.proc is None or not self.proc.is_alive():
            self._start()
        t0 = time.perf_counter()
        self.conn.send(setting)
        if self.conn.poll(timeout):
            try:
                return self.conn.recv()
            except EOFError:
                pass
            self._stop()
            return None, time.perf_counter() - t0, f"failed: worker died (memory above {self.memory_mb} MB?)"
        self._stop()
        return None, time.perf_counter() - t0, f"failed: no answer within {timeout:g} s"

    def _stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.join()
            self.proc = None

    def close(self):
        if self.proc is not None and self.proc.is_alive():
            self.conn.send(None)
            self.proc.join(5)
        self._stop()


def _strict_lower(mechanisms) -> bool:
    """True when :func:`reference_epsilon`'s ``lower``, if positive, lies strictly below the exact epsilon.

    Every route verifies that the exact delta at ``lower`` exceeds delta (so
    epsilon = lower is not valid), except the closed form of one Laplace
    mechanism, whose ``lower`` is the exact value rounded down.
    """
    groups = _normalise(mechanisms, "reference_epsilon")
    if len(groups) == 1:
        (mech, k), = groups.items()
        return not (isinstance(mech, Laplace) and k == 1)
    return True


def _verdict(value: float, truth: Enclosure, strict: bool = False):
    """``(verdict, relative gap)`` of an accountant's value against refdp's enclosure.

    ``strict``: the exact epsilon is known to exceed ``truth.lower`` (when
    positive), so a value equal to it undercuts too.
    """
    if value < truth.lower or (strict and 0 < truth.lower < truth.upper and value == truth.lower):
        return "undercuts", (truth.lower - value) / truth.lower if truth.lower > 0 else math.inf
    if value < truth.upper:
        return "inside", None
    if truth.upper == 0:
        return "valid", (0.0 if value == 0 else math.inf)
    return "valid", (value - truth.upper) / truth.upper


def available_peers() -> list:
    """The peers of :data:`PEERS` whose package can be imported (checked without importing it)."""
    mods = {"dp_accounting.pld": "dp_accounting", "dp_accounting.rdp": "dp_accounting",
            "prv_accountant": "prv_accountant", "autodp": "autodp", "opacus.rdp": "opacus"}
    return [p for p in PEERS if p not in mods or importlib.util.find_spec(mods[p]) is not None]


def audit_accountants(settings=None, peers=None, *, memory_mb=4096, timeout=300.0, progress=None):
    """Run peer accountants on a grid of compositions and compare with refdp's certified values.

    Parameters
    ----------
    settings : list of Setting, optional
        Default: :func:`default_settings`.
    peers : list of str, optional
        Names from :data:`PEERS`; default: every peer that is installed.
    memory_mb : int >= 256, default 4096
        Address-space limit of each peer's worker process.
    timeout : float > 0, default 300
        Seconds a single peer call may take.
    progress : callable, optional
        Called with each :class:`AuditRow` as it is produced.

    Returns
    -------
    list of AuditRow
        One row per setting and reported value (``prv_accountant`` reports
        its upper bound and, separately, its estimate).

    Raises
    ------
    ValueError
        On an unknown peer name or invalid limits.
    """
    owner = "audit_accountants"
    settings = default_settings() if settings is None else list(settings)
    for s in settings:
        if not isinstance(s, Setting):
            raise parameter_error("settings", owner, "a list of Setting", s)
    if peers is None:
        peers = available_peers()
    else:
        peers = [p for p in peers]
        for p in peers:
            if p not in PEERS:
                raise parameter_error("peers", owner, "a list of " + _PEER_OPTIONS.describe(), p)
    memory_mb = check_scalar(memory_mb, "memory_mb", owner, _MEMORY)
    timeout = check_scalar(timeout, "timeout", owner, _TIMEOUT)
    truths = {}
    rows = []
    pools = {p: _Pool(p, memory_mb) for p in peers if p != "refdp.renyi"}
    try:
        for s in settings:
            if s not in truths:
                truths[s] = reference_epsilon(list(s.mechanisms), s.delta)
            truth = truths[s]
            strict = _strict_lower(list(s.mechanisms))
            for p in peers:
                if p == "refdp.renyi":
                    t0 = time.perf_counter()
                    out, secs, err = _refdp_renyi(s), None, None
                    secs = time.perf_counter() - t0
                else:
                    out, secs, err = pools[p].call(s, timeout)
                labels = _LABELS.get(p, (p,))
                for label in labels:
                    if out is None:
                        verdict = "unsupported" if err and err.startswith("unsupported") else "failed"
                        row = AuditRow(s, label, None, secs, truth, verdict, None, err)
                    else:
                        v = out[label]
                        if math.isnan(v):
                            row = AuditRow(s, label, v, secs, truth, "failed", None, "failed: NaN")
                        else:
                            verdict, gap = _verdict(v, truth, strict)
                            row = AuditRow(s, label, v, secs, truth, verdict, gap)
                    rows.append(row)
                    if progress is not None:
                        progress(row)
    finally:
        for pool in pools.values():
            pool.close()
    return rows


# -------------------------------------------------------------------- CLI --

def add_arguments(parser) -> None:
    """Options of ``refdp audit-accountant``."""
    parser.add_argument("--quick", action="store_true", help="8 settings instead of the full grid")
    parser.add_argument("--peers", nargs="+", metavar="NAME",
                        help="accountants to run (default: every installed one): " + ", ".join(PEERS))
    parser.add_argument("--memory-mb", type=int, default=4096,
                        help="address-space limit of each peer's worker process (default 4096)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds one peer call may take (default 300)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")


def _fmt(v) -> str:
    if v is None:
        return "-"
    if math.isinf(v):
        return "inf"
    return f"{v:.6g}"


def _line(row: AuditRow) -> str:
    if row.verdict == "undercuts" and row.gap == 0:
        verdict = "UNDERCUTS (equals the certified lower end, below the exact value)"
    elif row.verdict == "undercuts":
        verdict = f"UNDERCUTS by {100 * row.gap:.3g}%"
    elif row.verdict == "valid":
        verdict = "valid" if row.gap == 0 else f"valid, loose by {100 * row.gap:.3g}%"
    elif row.verdict == "inside":
        verdict = "inside the enclosure (undecided)"
    else:
        verdict = row.error or row.verdict
    return (f"{row.setting.name:<48} {row.setting.delta:<6g} {row.peer:<26} {_fmt(row.value):>12}  "
            f"[{_fmt(row.truth.lower)}, {_fmt(row.truth.upper)}]  {verdict}")


def run(args) -> int:
    """Run ``refdp audit-accountant``; prints one line per value and a summary; returns 0 (2 on bad input)."""
    import json
    peers = args.peers
    try:
        if peers is None:
            peers = available_peers()
            missing = [p for p in PEERS if p not in peers]
            if missing:
                print("not installed (pip install 'refdp[audit-peers]'): " + ", ".join(missing),
                      file=sys.stderr)
        settings = default_settings(args.quick)
        if not args.json:
            print(f"{'setting':<48} {'delta':<6} {'accountant':<26} {'epsilon':>12}  "
                  "[refdp certified lower, upper]  verdict")

        def show(row):
            if args.json:
                print(json.dumps({"setting": row.setting.name, "delta": row.setting.delta,
                                  "accountant": row.peer, "epsilon": row.value,
                                  "seconds": row.seconds, "lower": row.truth.lower,
                                  "upper": row.truth.upper, "verdict": row.verdict,
                                  "gap": row.gap, "error": row.error}), flush=True)
            else:
                print(_line(row), flush=True)

        rows = audit_accountants(settings, peers, memory_mb=args.memory_mb, timeout=args.timeout,
                                 progress=show)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not args.json:
        counts: dict = {}
        for r in rows:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
        print("-" * 40)
        print(", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
        under = [r for r in rows if r.verdict == "undercuts"]
        for r in under:
            rel = "<" if r.value < r.truth.lower else "= (strictly below the exact epsilon)"
            print(f"undercut: {r.peer} on {r.setting.name} at delta={r.setting.delta:g}: "
                  f"{r.value!r} {rel} certified lower end {r.truth.lower!r}")
    return 0
