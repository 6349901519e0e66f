"""White-box audit of another library's private ERM rule, by exact output-density ratios.

A private empirical-risk-minimisation release is specified by a *rule*: the
formula a library uses to turn ``(epsilon, n, lambda, c, q)`` into its noise
scale (and, for objective perturbation, its extra regularisation). Given the
rule as a callable, :func:`erm_whitebox` decides in dimension ``d <= 2``
whether the release it produces is epsilon-DP, from the exact density of the
released vector:

* **objective perturbation** (Chaudhuri, Monteleoni and Sarwate 2011,
  Algorithm 2): the release minimises
  ``J(f) = (1/n) sum_i l(f^T u_i) + (1/2) f^T M f + b^T f / n`` with
  ``u_i = y_i x_i``, ``M = mu I`` (or ``diag(mu, 0)`` when the last coordinate
  is an unpenalised intercept) and noise density ``nu(b) ~ exp(-beta ||b||)``.
  The first-order condition gives the noise that produces ``f``,
  ``b_D(f) = -(sum_i l'(f^T u_i) u_i + n M f)``, a bijection with Jacobian
  ``H_D(f) = sum_i l''(f^T u_i) u_i u_i^T + n M``, so
  ``p_D(f) = nu(b_D(f)) |det H_D(f)|`` (their proof of Theorem 2) and
  ``ln p_D(f) / p_D'(f) = -beta (||b_D(f)|| - ||b_D'(f)||) + ln det H_D(f) - ln det H_D'(f)``;
* **output perturbation** (their Algorithm 1): ``f = f_D + b`` with the same
  noise law, so the exact epsilon of a pair is ``beta ||f_D - f_D'||``
  (attained along the ray from ``f_D`` away from ``f_D'``); the minimisers are
  enclosed by strong convexity, ``||f - f_D|| <= ||grad J(f)|| / mu``, with the
  gradient computed in interval arithmetic.

Records are ``u = y x`` with ``||x|| <= q`` from an alphabet closed under
negation (with an intercept, ``u = y (x, 1)``); every replace-one pair of
datasets of ``n`` records is examined. Objective perturbation is screened on
a grid of outputs plus every dataset's minimiser in double precision, and the
largest ratios are re-evaluated in interval arithmetic from exact rational
inputs. With ``record_search=True`` (the default) a local search then moves
the records over the whole ball (and, for objective perturbation, the
output with them) from the alphabet's best pairs, and what it ends on is
re-evaluated the same way. A ratio above epsilon is a *certified* violation
(the witness pair, output and enclosure are returned); for objective
perturbation "holds" means that no examined output exceeds epsilon (a
search, not a proof, hence ``method="estimated"``).
"""
from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..utils.precision import ctx_rational, iv_context, raw_to_fraction
from ..utils.constraints import PRIVACY, AnyOf, Callable, Checked, InstanceOf, Optional, constrained, constrained_fields
from ..utils.validation import Described, Interval, Options, parameter_error
from ..utils.losses import HuberHingeLoss, LogisticLoss, MarginLoss
from ..utils.solver import minimise
from ..verify.verdict import Verdict
from ..utils.validation import POSITIVE

__all__ = ["ERMRelease", "WhiteBoxERMAudit", "erm_whitebox", "record_alphabet", "objective_log_density"]

_OWNER = "erm_whitebox"
_POS = POSITIVE
#: The audit's exact densities ``exp(-beta ||b||)`` need finite noise rates: epsilon,
#: the regularisation and the data norm are taken where a rule's rate stays finite.
_EPSILON = Interval(float, 0, 1000, closed="right")
_SCALE = Interval(float, 1e-6, 1e6, closed="both")
_KINK = 1e-9
_SCREEN = 1e-6
_TOP = 5
#: starting pairs of the objective-perturbation record search (the alphabet's best distinct ones)
_STARTS = 4


@dataclass(frozen=True)
class ERMRelease:
    """What a rule returns, normalised: the noise rate ``beta`` and the total regularisation ``mu``."""

    noise_rate: float
    total_regularization: float


@constrained_fields(epsilon=PRIVACY, unchecked="what the audit found")
@dataclass
class WhiteBoxERMAudit:
    """Result of :func:`erm_whitebox`.

    Attributes
    ----------
    verdict : Verdict
        FAILS: a certified violation (``ratio`` lies above ``epsilon``);
        HOLDS: no examined output exceeds ``epsilon`` (``method`` says how).
    epsilon : float
    ratio : tuple of Fraction
        Enclosure ``[lo, hi]`` of ``ln p_D(f) / p_D'(f)`` at the worst pair and output.
    worst_pair : tuple
        ``(D, D')``, each a tuple of records ``u`` (tuples of Fractions).
    worst_output : tuple of Fraction
    release : ERMRelease
        The rule's values at the audited setting.
    method : str
        ``"certified"`` for a FAILS verdict or an output-perturbation audit
        (exact over the pairs), ``"estimated"`` for an objective-perturbation
        HOLDS (a grid search).
    examined : int
        ``(pair, output)`` combinations evaluated (in interval arithmetic, plus
        the record search's double-precision evaluations).
    alphabet_ratio : tuple of Fraction
        The largest certified enclosure found on the finite record alphabet
        alone, before the record search (equal to ``ratio`` when the search
        found nothing larger or did not run).
    """

    verdict: Verdict
    epsilon: float
    ratio: tuple
    worst_pair: tuple
    worst_output: tuple
    release: ERMRelease
    method: str
    examined: int = 0
    detail: str = ""
    settings: dict = field(default_factory=dict)
    alphabet_ratio: tuple = ()

    @property
    def violation(self) -> bool:
        return self.verdict is not Verdict.HOLDS

    def __str__(self):
        lo, hi = (float(v) for v in self.ratio)
        return (f"{self.verdict.value.upper()} ({self.method}): ln p_D/p_D' in [{lo:.9g}, {hi:.9g}] vs "
                f"epsilon {self.epsilon:g} at f = {[float(v) for v in self.worst_output]} on "
                f"D = {_show(self.worst_pair[0])}, D' = {_show(self.worst_pair[1])}")


def _show(records):
    return "[" + ", ".join("(" + ", ".join(str(c) for c in u) + ")" for u in records) + "]"


def record_alphabet(dimension: int, data_norm, intercept: bool = False):
    """Records ``u = y x`` (``||x|| <= data_norm``) closed under negation, as tuples of Fractions.

    1-D features: ``x in {0, +-q/2, +-q}``; 2-D: 13 points on and inside the
    circle of radius ``q`` (``(+-3/5, +-4/5) q`` and the axes). With an
    intercept the records are ``y (x, 1)`` for 1-D features ``x``.
    """
    q = Fraction(data_norm)
    if intercept:
        if dimension != 2:
            raise ValueError("an intercept needs dimension 2 (one feature and the intercept)")
        return tuple((s * c * q, Fraction(s)) for s in (1, -1)
                     for c in (Fraction(0), Fraction(1, 2), Fraction(1), Fraction(-1, 2), Fraction(-1)))
    if dimension == 1:
        return tuple((c * q,) for c in (Fraction(-1), Fraction(-1, 2), Fraction(0), Fraction(1, 2), Fraction(1)))
    pts = [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), ("3/5", "4/5"), ("-3/5", "-4/5"), ("4/5", "-3/5"),
           ("-4/5", "3/5"), ("1/2", 0), ("-1/2", 0), (0, "1/2"), (0, "-1/2")]
    return tuple((Fraction(a) * q, Fraction(b) * q) for a, b in pts)


def _call_rule(rule, mechanism, epsilon, n, lam, curvature, q):
    try:
        out = rule(epsilon=epsilon, n=n, regularization=lam, curvature=curvature, data_norm=q)
    except Exception as exc:
        raise parameter_error("rule", _OWNER, "a callable rule(epsilon=, n=, regularization=, curvature=, "
                                               "data_norm=)", Described(f"a rule that raised {exc!r}")) from exc

    def get(name):
        if isinstance(out, Mapping):
            return out.get(name)
        return getattr(out, name, None)
    beta = get("noise_rate") if not isinstance(out, numbers.Real) else out
    mu = get("total_regularization") if not isinstance(out, numbers.Real) else None
    if mu is None and mechanism == "objective":
        extra = get("extra_regularization")
        mu = lam + (extra if extra is not None else 0.0)
    if mu is None:
        mu = lam
    for name, v in (("noise_rate", beta), ("total_regularization", mu)):
        if not isinstance(v, numbers.Real) or isinstance(v, bool) or not math.isfinite(float(v)) or v <= 0:
            raise parameter_error("rule", _OWNER, f"a callable returning a finite {name} > 0",
                                  Described(f"a rule returning {name} = {v!r}"))
    return ERMRelease(float(beta), float(mu))


def _reg_matrix(d, mu, intercept):
    m = np.eye(d) * mu
    if intercept:
        m[-1, -1] = 0.0
    return m


def _minimiser(loss, U, M, n):
    """Newton's method on (1/n) sum l(f.u) + f.M f / 2 (small d); None if it does not settle."""
    d = U.shape[1]
    f = np.zeros(d)
    for _ in range(200):
        m = U @ f
        g = (loss.derivative(m)[:, None] * U).sum(0) / n + M @ f
        H = (loss.second_derivative(m)[:, None, None] * U[:, :, None] * U[:, None, :]).sum(0) / n + M
        try:
            step = np.linalg.solve(H + 1e-12 * np.eye(d), g)
        except np.linalg.LinAlgError:
            return None
        f = f - step
        if np.linalg.norm(step) < 1e-13:
            return f
    return f if np.all(np.isfinite(f)) else None


def _float_log_density(loss, U_data, grid, M, n, beta, kink_side):
    M_ = grid @ U_data.T
    d1 = loss.derivative(M_)
    d2 = loss.second_derivative(M_)
    if isinstance(loss, HuberHingeLoss):
        dist = np.abs(np.abs(1.0 - M_) - loss.h)
        d2 = np.where(dist <= _KINK, loss.curvature if kink_side > 0 else 0.0, d2)
    b = -((d1[..., None] * U_data[None]).sum(1) + n * grid @ M.T)
    H = (d2[..., None, None] * (U_data[:, :, None] * U_data[:, None, :])[None]).sum(1) + n * M
    det = H[..., 0, 0] if grid.shape[1] == 1 else H[..., 0, 0] * H[..., 1, 1] - H[..., 0, 1] * H[..., 1, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        return -beta * np.linalg.norm(b, axis=-1) + np.log(det)


def objective_log_density(ctx, loss, records, f, n, mu, beta, intercept=False):
    """Enclosure of ``ln p_D(f)`` of objective perturbation, up to a constant common to all datasets.

    ``-beta ||b_D(f)|| + ln det H_D(f)`` with ``b_D(f) = -(sum_i l'(f.u_i) u_i
    + n M f)`` and ``H_D(f) = sum_i l''(f.u_i) u_i u_i^T + n M``, ``M = mu I``
    (``diag(mu, 0)`` with an unpenalised intercept), evaluated in the
    interval context ``ctx`` from the exact rationals ``records``, ``f``,
    ``mu`` and ``beta`` (Chaudhuri, Monteleoni and Sarwate 2011, proof of
    Theorem 2). ``None`` when ``det H_D(f) > 0`` cannot be certified.
    """
    norm, det = _objective_terms(ctx, loss, records, f, n, mu, intercept)
    if not det.a > 0:
        return None
    return -ctx_rational(ctx, beta) * norm + ctx.ln(det)


def _objective_terms(ctx, loss, records, f, n, mu, intercept):
    """Enclosures of ``||b_D(f)||`` and ``det H_D(f)`` (see :func:`objective_log_density`)."""
    d = len(f)
    fq = [ctx_rational(ctx, v) for v in f]
    mus = [mu] * d
    if intercept:
        mus[-1] = Fraction(0)
    b = [-n * ctx_rational(ctx, m) * fj for m, fj in zip(mus, fq)]
    H = [[ctx_rational(ctx, n * mus[i]) if i == j else ctx.mpf(0) for j in range(d)] for i in range(d)]
    for u in records:
        m = sum(Fraction(uj) * Fraction(fj) for uj, fj in zip(u, f))
        d1 = loss.derivative_exact(m, ctx)
        d2 = loss.second_derivative_exact(m, ctx)
        for i in range(d):
            if u[i]:
                b[i] -= d1 * ctx_rational(ctx, u[i])
                for j in range(d):
                    if u[j]:
                        H[i][j] += d2 * ctx_rational(ctx, u[i] * u[j])
    norm = ctx.sqrt(sum((bi ** 2 for bi in b), ctx.mpf(0)))
    det = H[0][0] if d == 1 else H[0][0] * H[1][1] - H[0][1] * H[1][0]
    return norm, det


def _log_density_or_zero(ctx, loss, records, f, n, mu, beta, intercept):
    """``(enclosure of ln p_D(f), context)``, ``(None, None)`` if ``p_D(f) = 0`` is certified, else None.

    As :func:`objective_log_density`, in ``ctx`` and, if ``det H_D(f)`` is
    neither certified positive nor certified zero there, at twice its
    precision. ``H_D(f)`` is positive semi-definite (``l'' >= 0``, ``M``
    diagonal with non-negative entries), so an enclosure of its determinant
    with upper end ``<= 0`` certifies that it is zero. The determinant is
    continuous in ``f`` for a smooth loss and locally constant off the Huber
    loss's kinks (where the outputs are moved by :func:`_off_kinks`), so a
    zero of ``det H_D'`` where ``det H_D > 0`` makes the density ratio
    unbounded near ``f``.
    """
    for c in (ctx, iv_context(2 * ctx.dps)):
        norm, det = _objective_terms(c, loss, records, f, n, mu, intercept)
        if det.a > 0:
            return -ctx_rational(c, beta) * norm + c.ln(det), c
        if det.b <= 0:
            return None, None
    return None


def _ends(x):
    return raw_to_fraction(x._mpi_[0]), raw_to_fraction(x._mpi_[1])


def _pairs(alphabet, n):
    K = len(alphabet)
    for rest in itertools.combinations_with_replacement(range(K), n - 1):
        for a in range(K):
            for b in range(K):
                if a != b:
                    yield rest, a, b


def _objective(loss, alphabet, n, rel, intercept, points, ctx, epsilon):
    d = len(alphabet[0])
    U = np.array([[float(c) for c in u] for u in alphabet])
    mu, beta = rel.total_regularization, rel.noise_rate
    M = _reg_matrix(d, mu, intercept)
    q = float(max(math.sqrt(sum(float(c) ** 2 for c in u)) for u in alphabet))
    R = q / mu + 1
    axis = np.linspace(-R, R, points)
    grid = [list(p) for p in itertools.product(axis, repeat=d)]
    for ds in itertools.combinations_with_replacement(range(len(alphabet)), n):
        m = _minimiser(loss, U[list(ds)], M, n)
        if m is not None and np.all(np.abs(m) < 1e6):
            grid.append(list(m))
    grid = np.array(grid)
    # phi[k] for one record k, summed with the common records below
    cand = []
    for rest in itertools.combinations_with_replacement(range(len(alphabet)), n - 1):
        phis = {}
        for side in (+1, -1):
            phis[side] = np.stack([_float_log_density(loss, U[list(rest) + [k]], grid, M, n, beta, side)
                                   for k in range(len(alphabet))], axis=1)       # (G, K)
        hi, lo = phis[+1], phis[-1]
        for a in range(len(alphabet)):
            with np.errstate(invalid="ignore"):
                diff = hi[:, [a]] - lo
            diff[:, a] = -np.inf
            # both float densities zero (-inf - -inf): nothing to examine; any other NaN (a float
            # determinant rounded below zero) is examined exactly
            both_zero = np.isneginf(hi[:, [a]]) & np.isneginf(lo)
            diff = np.where(both_zero, -np.inf, np.where(np.isnan(diff), np.inf, diff))
            b = np.argmax(diff, axis=1)
            val = diff[np.arange(len(grid)), b]
            top = np.argsort(-val)[:_TOP]
            keep = np.flatnonzero(val > epsilon - _SCREEN)
            for gi in set(top.tolist()) | set(keep[:50].tolist()):
                cand.append((float(val[gi]), rest, a, int(b[gi]), int(gi)))
    cand.sort(key=lambda t: -t[0])
    best, examined, uncertified = None, 0, 0
    seen = set()
    starts = []
    for val, rest, a, b, gi in cand:
        if len(starts) == _STARTS:
            break
        if all((rest, a, b) != (r, x, y) for r, x, y, _ in starts):
            starts.append((rest, a, b, grid[gi]))
    starts = [([alphabet[i] for i in rest] + [alphabet[a], alphabet[b]], f) for rest, a, b, f in starts]
    for val, rest, a, b, gi in cand[: 4 * _TOP]:
        key = (rest, a, b, gi)
        if key in seen:
            continue
        seen.add(key)
        base = [alphabet[i] for i in rest]
        f = _off_kinks(loss, base + [alphabet[a], alphabet[b]], tuple(Fraction(float(v)) for v in grid[gi]))
        pa = objective_log_density(ctx, loss, base + [alphabet[a]], f, n, Fraction(mu), Fraction(beta), intercept)
        examined += 1
        if pa is None:
            continue
        # det H_D(f) > 0 is certified; the ratio is infinite only if det H_D'(f) = 0 is certified too.
        # An enclosure straddling 0 at both precisions certifies nothing: this output is skipped.
        found = _log_density_or_zero(ctx, loss, base + [alphabet[b]], f, n, Fraction(mu), Fraction(beta),
                                     intercept)
        if found is None:
            uncertified += 1
            continue
        pb, where = found
        if pb is None:
            enc = (Fraction(10) ** 30, Fraction(10) ** 30)
        elif where is ctx:
            enc = _ends(pa - pb)
        else:                                    # enclosures from two contexts: subtract their exact ends
            (alo, ahi), (blo, bhi) = _ends(pa), _ends(pb)
            enc = (alo - bhi, ahi - blo)
        if best is None or enc[0] > best[0][0]:
            best = (enc, (tuple(base + [alphabet[a]]), tuple(base + [alphabet[b]])), f)
    return best, examined, starts, uncertified


def _gradient_radius(ctx, loss, records, f, n, mu):
    """Exact upper bound of ||grad J(f)|| / mu (distance from f to the exact minimiser)."""
    d = len(f)
    g = [ctx_rational(ctx, mu * Fraction(fj)) for fj in f]
    for u in records:
        m = sum(Fraction(uj) * Fraction(fj) for uj, fj in zip(u, f))
        dl = loss.derivative_exact(m, ctx)
        for j in range(d):
            if u[j]:
                g[j] += dl * ctx_rational(ctx, Fraction(u[j]) / n)
    sq = sum((gj ** 2 for gj in g), ctx.mpf(0))
    return _ends(ctx.sqrt(sq) / ctx_rational(ctx, mu))[1]


def _certified_minimiser(loss, records, n, mu, ctx, scale):
    """A minimiser ``f`` (exact rationals) and an exact bound on its distance to the true minimiser."""
    U = np.array([[float(c) for c in u] for u in records])
    # refdp's certified solver works on ||x|| <= 1: with g = q f the objective is
    # (1/n) sum l(g.(u/q)) + (mu / q^2) ||g||^2 / 2
    g = minimise(loss, U / scale, np.ones(n), mu / scale ** 2, tol=1e-13).theta
    f = tuple(Fraction(float(v)) for v in g / scale)
    return f, _gradient_radius(ctx, loss, list(records), f, n, Fraction(mu))


def _output_pair(ctx, beta, sol_a, sol_b):
    """Enclosure of the exact epsilon ``beta ||f_D - f_D'||`` of one pair, and the output attaining it."""
    (fa, ra), (fb, rb) = sol_a, sol_b
    dist = ctx.sqrt(sum((ctx_rational(ctx, x - y) ** 2 for x, y in zip(fa, fb)), ctx.mpf(0)))
    lo, hi = _ends(dist)
    bq = Fraction(beta)
    enc = (max(Fraction(0), bq * (lo - ra - rb)), bq * (hi + ra + rb))
    direction = [x - y for x, y in zip(fa, fb)]
    return enc, tuple(x + 10 * dx for x, dx in zip(fa, direction))


def _output(loss, alphabet, n, rel, ctx, data_norm, search):
    mu, beta = rel.total_regularization, rel.noise_rate
    sols = {}
    scale = float(max(math.sqrt(sum(float(c) ** 2 for c in u)) for u in alphabet)) or 1.0
    for ds in itertools.combinations_with_replacement(range(len(alphabet)), n):
        sols[ds] = _certified_minimiser(loss, [alphabet[i] for i in ds], n, mu, ctx, scale)
    best, examined = None, 0
    ranked = []
    for rest, a, b in _pairs(alphabet, n):
        da, db = tuple(sorted(rest + (a,))), tuple(sorted(rest + (b,)))
        enc, f = _output_pair(ctx, beta, sols[da], sols[db])
        examined += 1
        ranked.append((enc[0], rest, a, b))
        if best is None or enc[0] > best[0][0]:
            best = (enc, (tuple(alphabet[i] for i in da), tuple(alphabet[i] for i in db)), f)
    alphabet_enc = best[0]
    if search:
        ranked.sort(key=lambda t: -t[0])
        starts = [[alphabet[i] for i in rest] + [alphabet[a], alphabet[b]] for _, rest, a, b in ranked[:2]]
        for records, searched in _search_records(loss, starts, n, mu, Fraction(data_norm)):
            examined += searched
            da, db = tuple(records[:n - 1]) + (records[n - 1],), tuple(records[:n - 1]) + (records[n],)
            enc, f = _output_pair(ctx, beta, _certified_minimiser(loss, da, n, mu, ctx, scale),
                                  _certified_minimiser(loss, db, n, mu, ctx, scale))
            if enc[0] > best[0][0]:
                best = (enc, (da, db), f)
    return best, examined, alphabet_enc


def _search_minimiser(loss, U, mu, n):
    """Minimiser of ``(1/n) sum l(f.u) + mu ||f||^2 / 2`` in double precision, for the record search.

    1-D: Brent's method on the gradient, which increases strictly (``|f| <=
    max |u| / mu`` since ``|l'| <= 1``). 2-D: Newton steps with backtracking on
    the objective (plain Newton cycles on the Huber loss's kinks).
    """
    from scipy.optimize import brentq

    d = U.shape[1]
    if d == 1:
        u = U[:, 0]
        R = float(np.max(np.abs(u))) / mu + 1.0

        def grad(f):
            return float(np.dot(loss.derivative(f * u), u)) / n + mu * f
        return np.array([brentq(grad, -R, R, xtol=1e-15, rtol=1e-15)])

    def J(f):
        return float(np.sum(loss.value(U @ f))) / n + mu * float(f @ f) / 2
    f = np.zeros(d)
    for _ in range(100):
        m = U @ f
        g = (loss.derivative(m)[:, None] * U).sum(0) / n + mu * f
        H = (loss.second_derivative(m)[:, None, None] * U[:, :, None] * U[:, None, :]).sum(0) / n + mu * np.eye(d)
        step = np.linalg.solve(H, g)
        t, j0 = 1.0, J(f)
        while J(f - t * step) > j0 - 1e-4 * t * float(g @ step) and t > 1e-12:
            t /= 2
        f = f - t * step
        if np.linalg.norm(t * step) < 1e-14:
            break
    return f


def _in_ball(u, q):
    """``u`` scaled onto the ball ``||u|| <= q`` (floats)."""
    norm = float(np.linalg.norm(u))
    return u if norm <= q else u * (q / norm)


def _rational_in_ball(u, q):
    """A rational point near ``u`` with ``||.||^2 <= q^2`` exactly (shrunk by 2^-30 steps if needed)."""
    r = [Fraction(float(c)).limit_denominator(2 ** 30) for c in u]
    shrink = Fraction(1)
    while sum((c * shrink) ** 2 for c in r) > q * q:
        shrink -= Fraction(1, 2 ** 30)
    return tuple(c * shrink for c in r)


def _search_records(loss, starts, n, mu, q):
    """Local search over records in the ball for replace-one pairs whose minimisers lie farthest apart.

    The exact epsilon of output perturbation on a pair is ``beta ||f_D - f_D'||``,
    so the worst pair maximises the distance between the two minimisers. A
    finite alphabet misses worst records strictly inside the ball (with the
    Huber loss, the largest change comes from the record whose margin sits
    at the end of the linear region, ``|x| = sqrt((1 - h) n mu)``). From each
    starting pair (the best of the alphabet, and antipodal records ``+-t e``
    on a radial scan), Nelder--Mead moves the ``n + 1`` records (the ``n - 1``
    shared ones and the two replaced ones), each kept in the ball by radial
    projection, with the minimisers computed in double precision. The pairs
    it finds are then re-evaluated exactly by the caller: the search only
    proposes, the verdict rests on the certified enclosure.

    Yields
    ------
    (records, evaluations)
        ``n + 1`` rational records (shared ones first, then the two replaced
        ones) and the number of pairs the search evaluated.
    """
    from scipy.optimize import minimize

    d = len(starts[0][0])
    qf = float(q)

    def unpack(z):
        return [_in_ball(u, qf) for u in z.reshape(n + 1, d)]

    def distance(z):
        recs = unpack(z)
        fa = _search_minimiser(loss, np.array(recs[:n - 1] + [recs[n - 1]]), mu, n)
        fb = _search_minimiser(loss, np.array(recs[:n - 1] + [recs[n]]), mu, n)
        return -float(np.linalg.norm(fa - fb))
    # radial scan of antipodal pairs (shared records at 0), then the alphabet's best pairs
    axis = np.eye(d)[0]
    scan = []
    for t in np.linspace(qf / 64, qf, 64):
        z = np.concatenate([np.zeros((n - 1) * d), t * axis, -t * axis])
        scan.append((distance(z), z))
    scan.sort(key=lambda x: x[0])
    points = [scan[0][1]] + [np.array([[float(c) for c in u] for u in s]).ravel() for s in starts]
    for z0 in points:
        res = minimize(distance, z0, method="Nelder-Mead",
                       options={"xatol": 1e-10, "fatol": 1e-15, "maxiter": 200 * (n + 1) * d})
        recs = unpack(np.asarray(res.x))
        yield [_rational_in_ball(u, q) for u in recs], int(res.nfev) + (len(scan) if z0 is points[0] else 0)


def _objective_phi(loss, U, f, n, mdiag, beta):
    """Double-precision ``-beta ||b_D(f)|| + ln det H_D(f)`` at one output (the record search's objective)."""
    m = U @ f
    b = -(loss.derivative(m) @ U + n * mdiag * f)
    H = (U.T * loss.second_derivative(m)) @ U + n * np.diag(mdiag)
    det = float(H[0, 0]) if len(f) == 1 else float(H[0, 0] * H[1, 1] - H[0, 1] * H[1, 0])
    if not det > 0 or not math.isfinite(det):
        return -math.inf
    return -beta * math.sqrt(float(b @ b)) + math.log(det)


def _off_kinks(loss, records, f):
    """``f`` moved by multiples of ``2^-40`` until no record's margin sits on a kink of the loss (exactly).

    The density of objective perturbation is continuous away from the kinks of
    a Huber loss's second derivative; a ratio evaluated there is a value the
    ratio takes on an open set of outputs, so it bounds the essential
    supremum from below.
    """
    if not isinstance(loss, HuberHingeLoss):
        return f
    h = Fraction(loss.h)
    kinks = (1 - h, 1 + h)
    f = list(f)
    for step in range(1, 64):
        if all(sum(a * b for a, b in zip(u, f)) not in kinks for u in records):
            break
        f[step % len(f)] += Fraction(1, 2 ** 40)
    return tuple(f)


def _search_objective(loss, starts, n, mu, beta, q, intercept, radius):
    """Local search over records in the ball and outputs for the largest objective-perturbation ratio.

    For a replace-one pair (``n - 1`` shared records, ``a`` in ``D``, ``b`` in
    ``D'``) and an output ``f``, the double-precision log ratio
    ``phi_D(f) - phi_D'(f)`` (:func:`_objective_phi`) is maximised by
    Nelder--Mead over ``f`` (kept in the box ``|f_j| <= radius``) and the
    ``n + 1`` records (kept in the ball ``||u|| <= q`` by radial projection;
    with an intercept, records ``(t, s)`` with ``|t| <= q`` and the label
    ``s = +-1`` of the starting record), from each of the alphabet's best
    starting pairs and outputs. It proposes only: the caller re-evaluates
    what it yields exactly.

    Yields
    ------
    (records, f, evaluations)
        ``n + 1`` rational records (shared ones first, then ``a`` and
        ``b``), a rational output away from the loss's kinks, and the number
        of ratios the search evaluated.
    """
    from scipy.optimize import minimize

    d = len(starts[0][1])
    qf = float(q)
    mdiag = np.full(d, float(mu))
    if intercept is True:
        mdiag[-1] = 0.0

    def unpack(z, signs):
        f = np.clip(z[:d], -radius, radius)
        if intercept is not False:
            t = np.clip(z[d:], -qf, qf)
            recs = [np.array([ti, si]) for ti, si in zip(t, signs)]
        else:
            recs = [_in_ball(u, qf) for u in z[d:].reshape(n + 1, d)]
        return f, recs

    for records, f0 in starts:
        signs = [float(u[-1]) for u in records]
        free = [[float(u[0])] if intercept is not False else [float(c) for c in u] for u in records]
        z0 = np.concatenate([np.asarray(f0, dtype=float), np.ravel(free)])

        def negative_ratio(z, signs=signs):
            f, recs = unpack(z, signs)
            pa = _objective_phi(loss, np.array(recs[:n - 1] + [recs[n - 1]]), f, n, mdiag, beta)
            pb = _objective_phi(loss, np.array(recs[:n - 1] + [recs[n]]), f, n, mdiag, beta)
            r = pa - pb
            return -r if math.isfinite(r) else 1e6   # stay where both densities are certifiably positive
        evaluations, z = 0, z0
        for _ in range(2):                            # one restart from the end point (a fresh simplex)
            res = minimize(negative_ratio, z, method="Nelder-Mead",
                           options={"xatol": 1e-10, "fatol": 1e-13, "maxiter": 300 * len(z0)})
            z, evaluations = np.asarray(res.x), evaluations + int(res.nfev)
        f, recs = unpack(z, signs)
        if intercept is not False:
            rat = [(max(-q, min(q, Fraction(float(u[0])).limit_denominator(2 ** 30))), Fraction(int(u[1])))
                   for u in recs]
        else:
            rat = [_rational_in_ball(u, q) for u in recs]
        fq = _off_kinks(loss, rat, tuple(Fraction(float(v)) for v in f))
        yield rat, fq, evaluations


def _objective_records(loss, starts, n, rel, q, intercept, ctx, best):
    """Certify the pairs and outputs :func:`_search_objective` proposes; the best enclosure wins."""
    if not starts:
        return best, 0
    mu, beta = rel.total_regularization, rel.noise_rate
    d = len(starts[0][1])
    norm = math.sqrt(float(q) ** 2 + (1 if intercept is not False else 0))
    radius = 2 * (norm / mu + 1)
    examined = 0
    for recs, f, evaluations in _search_objective(loss, starts, n, mu, beta, q, intercept, radius):
        examined += evaluations
        da, db = tuple(recs[:n - 1]) + (recs[n - 1],), tuple(recs[:n - 1]) + (recs[n],)
        pa = objective_log_density(ctx, loss, list(da), f, n, Fraction(mu), Fraction(beta), intercept is True)
        pb = objective_log_density(ctx, loss, list(db), f, n, Fraction(mu), Fraction(beta), intercept is True)
        if pa is None or pb is None or len(f) != d:
            continue
        enc = _ends(pa - pb)
        if enc[0] > best[0][0]:
            best = (enc, (da, db), f)
    return best, examined


@constrained(
    rule=Callable("a callable"), epsilon=_EPSILON, n=Interval(int, 1, 4), regularization=_SCALE,
    data_norm=_SCALE,
    loss=AnyOf((Options(("logistic", "huber")), InstanceOf((MarginLoss,), "a MarginLoss"))),
    huber_h=Interval(float, 0, 1, closed="neither"), mechanism=Options(("objective", "output")),
    dimension=Interval(int, 1, 2),
    intercept=Options((False, True, "penalised")),
    grid_points=Optional(Interval(int, 3, 100_001)), dps=Interval(int, 15, 5000),
    record_search=Checked("True or False (checked in the function)"),
)
def erm_whitebox(rule, *, epsilon, n, regularization, data_norm=1.0, loss="logistic", huber_h=0.5,
                 mechanism="objective", dimension=1, intercept=False, grid_points=None, dps=40,
                 record_search=True):
    """Decide whether another library's private-ERM rule gives an epsilon-DP release (exact densities, d <= 2).

    Parameters
    ----------
    rule : callable
        ``rule(epsilon=, n=, regularization=, curvature=, data_norm=)``
        returns the release's noise rate ``beta`` (the noise density is
        ``~ exp(-beta ||b||)``) and, for objective perturbation, its total
        regularisation ``mu = lambda + Delta``: an object or mapping with
        ``noise_rate`` and ``total_regularization`` (or
        ``extra_regularization``), or a number (``beta``, ``mu = lambda``).
    epsilon : float in (0, 1000]
        The claimed epsilon.
    n : int in [1, 4]
        Records per dataset.
    regularization : float in [1e-6, 1e6]
        ``lambda``.
    data_norm : float in [1e-6, 1e6], default 1
        ``q``: every feature vector has ``||x|| <= q``.
    loss : {"logistic", "huber"} or MarginLoss, default "logistic"
    huber_h : float in (0, 1), default 0.5
        Width of the Huber hinge loss.
    mechanism : {"objective", "output"}, default "objective"
    dimension : {1, 2}, default 1
        Dimension of the released vector (with an intercept: 2 = one feature
        and the intercept).
    intercept : {False, True, "penalised"}, default False
        ``True``: the last coordinate is an unpenalised intercept (records
        ``y (x, 1)``, ``M = diag(mu, 0)``); ``"penalised"``: the same records
        with ``M = mu I`` and the rule called with ``data_norm = sqrt(q^2 + 1)``,
        the norm of ``(x, 1)`` (objective perturbation in dimension 2 only).
    grid_points : int >= 3, optional
        Grid points per axis (default 801 in 1-D, 41 in 2-D).
    dps : int >= 15, default 40
        Digits of the interval evaluation.
    record_search : bool, default True
        After the alphabet, search the records of the whole ball ``||x|| <=
        q`` and certify what the search finds exactly. Output perturbation:
        Nelder--Mead from the alphabet's best pairs and from a radial scan of
        antipodal records, for the pair whose minimisers lie farthest apart.
        Objective perturbation: Nelder--Mead over the output ``f`` (in the box
        ``|f_j| <= 2 (q' / mu + 1)``, ``q'`` the largest record norm) and the
        ``n + 1`` records jointly, from the alphabet's four best distinct
        pairs and outputs, maximising the double-precision log density ratio;
        the end points are rounded to rationals in the ball, moved off the
        loss's kinks, and their ratio enclosed in interval arithmetic
        (:func:`objective_log_density`). The search only proposes: every
        reported ratio is a certified enclosure.

    Returns
    -------
    WhiteBoxERMAudit

    Raises
    ------
    ValueError
        Bad parameters, or a rule that raises or returns a non-finite or
        non-positive noise rate or regularisation.
    """
    lam, q = regularization, data_norm
    if intercept not in (False, True, "penalised") or isinstance(intercept, np.bool_):
        raise parameter_error("intercept", _OWNER, "False, True (unpenalised) or 'penalised'", intercept)
    if intercept is not False and (mechanism != "objective" or dimension != 2):
        raise parameter_error("intercept", _OWNER, "False unless mechanism='objective' and dimension=2",
                              intercept)
    if isinstance(loss, MarginLoss):
        loss_obj = loss
    else:
        loss_obj = LogisticLoss() if loss == "logistic" else HuberHingeLoss(huber_h)
    points = grid_points if grid_points is not None else (801 if dimension == 1 else 41)
    # a penalised intercept is one more feature, constant 1: the rule sees the norm of (x, 1)
    rule_norm = math.sqrt(q * q + 1) if intercept == "penalised" else q
    rel = _call_rule(rule, mechanism, epsilon, n, lam, loss_obj.curvature, rule_norm)
    alphabet = record_alphabet(dimension, Fraction(q), intercept is not False)
    ctx = iv_context(dps)
    detail = ""
    if not isinstance(record_search, (bool, np.bool_)):
        raise parameter_error("record_search", _OWNER, "True or False", record_search)
    if mechanism == "objective":
        best, examined, starts, uncertified = _objective(loss_obj, alphabet, n, rel, intercept is True, points,
                                                         ctx, epsilon)
        if best is None:
            raise ArithmeticError("erm_whitebox: no (pair, output) could be certified; raise dps")
        alphabet_enc = best[0]
        if uncertified:
            detail = (f"{uncertified} output(s) skipped: det H_D'(f) could be neither certified positive "
                      f"nor certified zero at {dps} or {2 * dps} digits")
        if record_search:
            best, searched = _objective_records(loss_obj, starts, n, rel, Fraction(q), intercept, ctx, best)
            examined += searched
    else:
        best, examined, alphabet_enc = _output(loss_obj, alphabet, n, rel, ctx, q, bool(record_search))
    enc, pair, f = best
    eps_q = Fraction(epsilon)
    if enc[0] > eps_q:
        verdict, method = Verdict.FAILS, "certified"
    elif mechanism == "output" and enc[1] <= eps_q:
        verdict, method = Verdict.HOLDS, "certified"
    elif mechanism == "output":
        verdict, method = Verdict.UNDECIDED, "certified"
    else:
        verdict, method = (Verdict.HOLDS if enc[1] <= eps_q else Verdict.UNDECIDED), "estimated"
    return WhiteBoxERMAudit(verdict, epsilon, enc, pair, f, rel, method, examined, detail=detail,
                            alphabet_ratio=alphabet_enc,
                            settings=dict(n=n, regularization=lam, data_norm=q, loss=type(loss_obj).__name__,
                                          mechanism=mechanism, dimension=dimension, intercept=intercept,
                                          record_search=bool(record_search)))
