"""Objective perturbation is epsilon-DP: exact output-density ratios on neighbours (Chaudhuri et al. 2011).

Claim
    Chaudhuri, Monteleoni and Sarwate 2011, Algorithm 2, Theorem 2 and (Huber
    hinge loss) Corollary 4. The output f of Algorithm 2 on D has density
        p_D(f) = nu(b_D(f)) |det J_D(f)|,
    where b_D(f) = -n (grad J(f, D) + Delta f) = -(sum_i l'(m_i) y_i x_i +
    n (Lambda + Delta) f) is the noise that produces f (first-order condition),
    nu(b) is proportional to exp(-beta ||b||), and J_D(f) = -(sum_i l''(m_i)
    x_i x_i^T + n (Lambda + Delta) I) is the Jacobian of f -> b_D(f)
    (m_i = y_i f^T x_i). The claim is ln p_D(f) - ln p_D'(f) <= epsilon for
    every output f and every replace-one pair (D, D'), with epsilon', Delta and
    beta from refdp.erm.objective_perturbation_budget (the library's rounded
    values, used exactly).
Setting
    A record enters only through u = y x (l(y f^T x) = l(f^T u), x x^T = u u^T),
    so records are u in an alphabet closed under negation: 1-D {-1, -1/2, 0,
    1/2, 1}; 2-D {0, +-(1, 0), +-(0, 1), +-(3/5, 4/5), +-(4/5, -3/5),
    +-(1/2, 0), +-(0, 1/2)} (13 points, all with ||u|| <= 1, rational).
    Every pair of datasets of n records sharing n - 1 of them is compared, at
    every output f of a regular grid over [-R, R]^d (R = 1/(Lambda + Delta) + 1,
    which holds every minimiser) and at the minimiser of every dataset of n
    records (where b_D(f) = 0 and the noise term is at its extreme). Quick:
    1-D logistic (epsilon, n, Lambda) = (1, 3, 1/4) and (1/2, 3, 1/12) (the
    Delta branch); 1-D Huber hinge h = 1/2, (2, 2, 19/20); 2-D Huber hinge
    (1, 2, 1/4) (Delta branch) and 2-D logistic (1, 2, 1/2). Full: 2-D with
    n = 3 (455 datasets, 7098 pairs, 51 x 51 grid): logistic (1/10, 1/20),
    (1, 1/2), (4, 1/2); Huber hinge h = 1/2 (1/10, 1/20), (4, 1/2); Huber
    hinge h = 1/4 (1, 1/2).
Check power
    The same sweep must FAIL for two broken variants (else the check is
    reported as failing): dropping the Delta branch (Delta = 0 always,
    epsilon' = epsilon/2 when the slack exceeds epsilon), flagged on the
    logistic Delta-branch setting; dropping the slack (epsilon' = epsilon,
    Delta = 0), flagged on the 1-D Huber setting, where l' = -1 and l'' = c
    coexist at the kink 1 - h so that noise and Jacobian terms add up.
Implementation
    The budget's preconditions are decided in interval arithmetic: Delta = 0
    only if 2 beta <= epsilon' <= epsilon - 2 ln(1 + c/(n Lambda)); otherwise
    2 beta <= epsilon' <= epsilon/2 and the solver's Lambda + Delta >=
    c/(n (e^{epsilon/4} - 1)). The released point of
    release_objective_perturbation on small datasets (noise reproduced from
    the seed) has an exact perturbed-objective gradient norm <= tol.
Precision
    Every (pair, output) is first evaluated in double precision, with the
    Huber second derivative taken on both sides of a kink within 1e-9 (the
    larger determinant for D, the smaller for D'). Those within 1e-6 of
    epsilon, and the 5 largest per setting, are then evaluated in mpmath.iv at
    50 digits from exact rational inputs and decided by
    refdp.verify.verdict.decide_enclosures (undecided fails). The others are
    below epsilon by more than 1e-6, far above the double-precision error of
    these O(10)-sized sums (about 1e-13).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import NamedTuple

import mpmath
import numpy as np

from proofs_checks.common.chaudhuri_erm import gradient_norm_upper, grid_release_verdict
from refdp.utils.precision import iv_context
from refdp.audit.erm_whitebox import objective_log_density
from refdp.erm import (HuberHingeLoss, LogisticLoss, ObjectivePerturbationBudget,
                       objective_perturbation_budget, release_objective_perturbation)
from refdp.utils.solver import minimise
from refdp.erm.output_perturbation import DEFAULT_TOL
from refdp.mechanisms import spherical_laplace
from refdp.utils.lazy_noise import BitSource, LazySphericalLaplace
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, decide_enclosures, enclose, ivworkdps, upper, worst_verdict

F = Fraction
DPS = 50
SCREEN = 1e-6
TOP = 5
KINK = 1e-9
ALPHABETS = {
    1: ((F(-1),), (F(-1, 2),), (F(0),), (F(1, 2),), (F(1),)),
    2: tuple((F(a), F(b)) for a, b in (
        (0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), ("3/5", "4/5"), ("-3/5", "-4/5"),
        ("4/5", "-3/5"), ("-4/5", "3/5"), ("1/2", 0), ("-1/2", 0), (0, "1/2"), (0, "-1/2"))),
}


class Setting(NamedTuple):
    loss: str           # "logistic" or "huber_hinge"
    h: float | None
    epsilon: float
    n: int
    lam: float
    dim: int
    points: int         # grid points per axis

    @property
    def label(self):
        name = self.loss if self.h is None else f"{self.loss} h={self.h}"
        return f"{name}, eps={self.epsilon}, n={self.n}, Lambda={self.lam:.6g}, {self.dim}-D"


QUICK = (
    Setting("logistic", None, 1.0, 3, 0.25, 1, 401),
    Setting("logistic", None, 0.5, 3, 1 / 12, 1, 401),
    Setting("huber_hinge", 0.5, 2.0, 2, 0.95, 1, 401),
    Setting("huber_hinge", 0.5, 1.0, 2, 0.25, 2, 41),
    Setting("logistic", None, 1.0, 2, 0.5, 2, 41),
)
FULL = tuple(Setting(loss, h, eps, 3, lam, 2, 51) for loss, h, eps, lam in (
    ("logistic", None, 0.1, 0.05), ("logistic", None, 1.0, 0.5), ("logistic", None, 4.0, 0.5),
    ("huber_hinge", 0.5, 0.1, 0.05), ("huber_hinge", 0.5, 4.0, 0.5), ("huber_hinge", 0.25, 1.0, 0.5)))


def _toward_zero(c):
    """The double nearest ``c`` toward zero (its magnitude at most ``|c|``)."""
    x = float(c)
    return float(np.nextafter(x, 0.0)) if abs(F(x)) > abs(F(c)) else x


def make_loss(setting):
    return LogisticLoss() if setting.loss == "logistic" else HuberHingeLoss(setting.h)


# ---------------------------------------------------------------------------
# Broken variants the check must flag
# ---------------------------------------------------------------------------

def no_delta_budget(epsilon, curvature, n, regularization):
    """Algorithm 2 without the Delta branch: Delta = 0 always."""
    eps_prime = epsilon - 2 * math.log1p(curvature / (n * regularization))
    if eps_prime <= 0:
        eps_prime = epsilon / 2
    return ObjectivePerturbationBudget(epsilon, eps_prime, 0.0, eps_prime / 2, regularization)


def no_slack_budget(epsilon, curvature, n, regularization):
    """Algorithm 2 without the epsilon' slack: epsilon' = epsilon, Delta = 0."""
    return ObjectivePerturbationBudget(epsilon, epsilon, 0.0, epsilon / 2, regularization)


# ---------------------------------------------------------------------------
# Densities
# ---------------------------------------------------------------------------

def _logdet(H, d):
    if d == 1:
        return np.log(H[..., 0, 0])
    return np.log(H[..., 0, 0] * H[..., 1, 1] - H[..., 0, 1] * H[..., 1, 0])


def _float_terms(loss, U, grid):
    """Per record and output: l'(m) u, and l''(m) u u^T with the upper / lower kink conventions."""
    M = grid @ U.T                                   # (G, K) margins
    d1 = loss.derivative(M)
    d2 = loss.second_derivative(M)
    if isinstance(loss, HuberHingeLoss):
        dist = np.abs(np.abs(1.0 - M) - loss.h)      # distance to a kink
        d2_hi = np.where(dist <= KINK, loss.curvature, d2)
        d2_lo = np.where(dist <= KINK, 0.0, d2)
    else:
        d2_hi = d2_lo = d2
    uu = U[:, :, None] * U[:, None, :]               # (K, d, d)
    g = d1[..., None] * U[None]                      # (G, K, d)
    return g, d2_hi[..., None, None] * uu[None], d2_lo[..., None, None] * uu[None]


def exact_log_density(loss, records, f, n, mu, beta):
    """Enclosure of -beta ||b_D(f)|| + ln det(-J_D(f)) (common constants dropped).

    The library's white-box ERM audit computes it
    (:func:`refdp.audit.erm_whitebox.objective_log_density`, records with
    ``||u|| <= 1`` here, no intercept), in an interval context of DPS digits.
    """
    out = objective_log_density(iv_context(DPS), loss, records, f, n, F(mu), F(beta))
    if out is None:
        raise ValueError("the Jacobian determinant could not be certified positive")
    return out


class SweepResult(NamedTuple):
    verdict: Verdict
    measured: object          # upper end of the largest exact log-ratio enclosure
    epsilon: float
    where: str
    exact: int                # (pair, output) combinations decided in interval arithmetic
    screened: int             # (common records, output) whose largest pair is below epsilon - 1e-6
    output: tuple = ()        # the output f of the largest ratio (rationals)
    datasets: tuple = ()      # (D, D') of the largest ratio, as tuples of records u


def _paper_budget(epsilon, curvature, n, regularization):
    """Algorithm 2's budget as published (the check of Theorem 2)."""
    return objective_perturbation_budget(epsilon, curvature, n, regularization, improved=False)


def density_ratio_sweep(setting, budget_fn=_paper_budget) -> SweepResult:
    """Largest ln p_D(f)/p_D'(f) over all pairs and outputs of one setting (see the module docstring)."""
    loss = make_loss(setting)
    eps, n, d = setting.epsilon, setting.n, setting.dim
    budget = budget_fn(eps, loss.curvature, n, setting.lam)
    beta, mu = budget.noise_rate, budget.total_regularization
    alphabet = ALPHABETS[d]
    U = np.array([[float(c) for c in u] for u in alphabet])
    K = len(alphabet)
    minimisers = [minimise(loss, U[list(ds)], np.ones(n), mu, tol=1e-12).theta
                  for ds in itertools.combinations_with_replacement(range(K), n)]
    axis = np.linspace(-(1 / mu + 1), 1 / mu + 1, setting.points)
    grid = np.array(list(itertools.product(axis, repeat=d)) + [list(m) for m in minimisers])
    g, h_hi, h_lo = _float_terms(loss, U, grid)
    eye = n * mu * np.eye(d)
    candidates, screened = [], 0
    for rest in itertools.combinations_with_replacement(range(K), n - 1):
        C = g[:, list(rest)].sum(axis=1) if rest else np.zeros((grid.shape[0], d))
        B = -(C[:, None, :] + g + n * mu * grid[:, None, :])
        N = np.linalg.norm(B, axis=-1)                        # (G, K)
        HC_hi = h_hi[:, list(rest)].sum(axis=1) if rest else 0.0
        HC_lo = h_lo[:, list(rest)].sum(axis=1) if rest else 0.0
        phi_hi = -beta * N + _logdet(np.asarray(HC_hi)[..., None, :, :] + h_hi + eye, d)
        phi_lo = -beta * N + _logdet(np.asarray(HC_lo)[..., None, :, :] + h_lo + eye, d)
        # largest phi_hi[a] - phi_lo[b] over a != b, per output
        order_hi = np.argsort(-phi_hi, axis=1)[:, :2]
        order_lo = np.argsort(phi_lo, axis=1)[:, :2]
        rows = np.arange(grid.shape[0])
        combos = [(order_hi[:, ia], order_lo[:, ib]) for ia, ib in ((0, 0), (0, 1), (1, 0))]
        vals = np.stack([np.where(a != b, phi_hi[rows, a] - phi_lo[rows, b], -np.inf) for a, b in combos])
        pick = np.argmax(vals, axis=0)
        val = vals[pick, rows]
        a = np.choose(pick, [c[0] for c in combos])
        b = np.choose(pick, [c[1] for c in combos])
        keep = np.flatnonzero(val > eps - SCREEN)
        top = np.argsort(-val)[:TOP]
        for gi in set(keep.tolist()) | set(top.tolist()):
            candidates.append((float(val[gi]), rest, int(a[gi]), int(b[gi]), int(gi)))
        screened += int(np.sum(val <= eps - SCREEN))
    candidates.sort(key=lambda t: -t[0])
    must = [c for c in candidates if c[0] > eps - SCREEN]
    chosen = list(dict.fromkeys([(r, a, b, gi) for _, r, a, b, gi in must + candidates[:TOP]]))
    verdicts, best, where = [], None, ""
    beta_q, mu_q = F(beta), F(mu)
    with ivworkdps(DPS):
        for rest, a, b, gi in chosen:
            f = tuple(F(float(v)) for v in grid[gi])
            base = [alphabet[i] for i in rest]
            lr = (exact_log_density(loss, base + [alphabet[a]], f, n, mu_q, beta_q)
                  - exact_log_density(loss, base + [alphabet[b]], f, n, mu_q, beta_q))
            verdicts.append(decide_enclosures(lr, eps))
            if best is None or upper(lr) > best:
                best, best_f = upper(lr), f
                best_pair = (tuple(base + [alphabet[a]]), tuple(base + [alphabet[b]]))
                where = (f"common {[tuple(map(str, u)) for u in base]}, "
                         f"D adds {tuple(map(str, alphabet[a]))}, D' adds {tuple(map(str, alphabet[b]))}, "
                         f"f = {[float(v) for v in f]}")
    return SweepResult(worst_verdict(verdicts), best, eps, where, len(chosen), screened, best_f, best_pair)


# ---------------------------------------------------------------------------
# Preconditions of the budget and the solver's certificate
# ---------------------------------------------------------------------------

def budget_conditions(setting) -> Verdict:
    """Decide the proof's preconditions on the library's budget in interval arithmetic."""
    loss = make_loss(setting)
    c, n, lam, eps = F(loss.curvature), setting.n, F(setting.lam), F(setting.epsilon)
    bud = objective_perturbation_budget(setting.epsilon, loss.curvature, n, setting.lam, improved=False)
    iv = mpmath.iv
    verdicts = [Verdict.HOLDS if 2 * F(bud.noise_rate) <= F(bud.epsilon_prime) else Verdict.FAILS]
    with ivworkdps(DPS):
        if bud.extra_regularization == 0.0:
            verdicts.append(Verdict.HOLDS if F(bud.total_regularization) == lam else Verdict.FAILS)
            slack = 2 * iv.log(1 + enclose(c / (n * lam)))
            verdicts.append(decide_enclosures(enclose(F(bud.epsilon_prime)), enclose(eps) - slack))
        else:
            verdicts.append(Verdict.HOLDS if F(bud.epsilon_prime) <= eps / 2 else Verdict.FAILS)
            need = enclose(c) / (n * (iv.exp(enclose(eps) / 4) - 1))
            verdicts.append(decide_enclosures(need, enclose(F(bud.total_regularization))))
    return worst_verdict(verdicts)


def solver_certificate(setting, seed=7) -> Verdict:
    """The library's release minimises the perturbed objective to within tol (exact gradient)."""
    loss = make_loss(setting)
    rng = np.random.default_rng(seed)
    alphabet = ALPHABETS[setting.dim]
    verdicts = []
    for _ in range(3):
        idx = rng.integers(0, len(alphabet), size=setting.n)
        # each coordinate rounded toward zero, so that the rows stay in the unit ball exactly
        # (the release refuses a float row whose exact norm exceeds 1); the check uses those rows
        Z = np.array([[_toward_zero(c) for c in alphabet[i]] for i in idx])
        data = [(tuple(F(float(v)) for v in row), F(1)) for row in Z]
        bud = objective_perturbation_budget(setting.epsilon, loss.curvature, setting.n, setting.lam, improved=False)
        noise_seed = int(rng.integers(0, 2**31))
        res = release_objective_perturbation(Z, np.ones(setting.n), loss, setting.lam, bud,
                                             rng=noise_seed, secure=False)
        b = spherical_laplace(setting.dim, bud.noise_rate, rng=noise_seed)     # the same draw
        lin = [F(float(v)) for v in b / setting.n]
        gn = gradient_norm_upper(loss, data, F(bud.total_regularization), res.theta, lin)
        verdicts.append(Verdict.HOLDS if gn <= F(DEFAULT_TOL) else Verdict.FAILS)
        # the float-safe default: the grid cell of the exact minimiser for the replayed exact draw
        res = release_objective_perturbation(Z, np.ones(setting.n), loss, setting.lam, bud, rng=noise_seed)
        replay = LazySphericalLaplace(BitSource(np.random.default_rng(noise_seed).bit_generator), setting.dim,
                                      F(bud.noise_rate))
        verdicts.append(grid_release_verdict(loss, data, bud.total_regularization, res, replay))
    return worst_verdict(verdicts)


# ---------------------------------------------------------------------------
# The registered checks
# ---------------------------------------------------------------------------

POWER = ((QUICK[1], no_delta_budget, "no Delta branch"), (QUICK[2], no_slack_budget, "no epsilon' slack"))


def sweep_report(settings, budget_fn, conditions, certificate, power) -> CheckResult:
    """The density-ratio sweep of every setting plus its budget and release checks, and the power variants.

    ``budget_fn`` is the budget under test; ``conditions(setting)`` and
    ``certificate(setting)`` return the verdicts of its preconditions and of
    the release; ``power`` lists ``(setting, broken_budget_fn, name)``, each of
    which must be flagged (a variant that is not flagged fails the check).
    """
    verdicts, rows, top = [], [], None
    for s in settings:
        res = density_ratio_sweep(s, budget_fn)
        cond, cert = conditions(s), certificate(s)
        verdicts += [res.verdict, cond, cert]
        ratio = res.measured / mpmath.mpf(s.epsilon)
        rows.append(f"{s.label}: max ln p_D/p_D' <= {mpmath.nstr(res.measured, 8)} vs eps "
                    f"({res.verdict}; {res.exact} decided exactly, {res.screened} screened); "
                    f"budget preconditions {cond}; release certificate {cert}")
        if top is None or ratio > top[0]:
            top = (ratio, res, s)
    for setting, broken_fn, name in power:
        res = density_ratio_sweep(setting, broken_fn)
        flagged = res.verdict is Verdict.FAILS
        verdicts.append(Verdict.HOLDS if flagged else Verdict.FAILS)
        rows.append(f"variant '{name}' on [{setting.label}]: max ln p_D/p_D' >= "
                    f"{mpmath.nstr(res.measured, 8)} > eps -> {'flagged' if flagged else 'NOT flagged'}")
    _, res, s = top
    detail = f"worst ratio in [{s.label}] at {res.where}. " + "; ".join(rows)
    return CheckResult(res.measured, s.epsilon, worst_verdict(verdicts), DPS, detail, method="estimated")  # float screening of the grid (SCREEN) is not an enclosure


def run(settings, power=POWER) -> CheckResult:
    return sweep_report(settings, _paper_budget, budget_conditions, solver_certificate, power)


COVERS = ("refdp.erm.objective_perturbation", "refdp.erm.release_objective_perturbation",
          "refdp.erm.objective_perturbation_budget", "refdp.erm.PrivateLogisticRegression.fit",
          "refdp.erm.PrivateHuberSVM.fit")


@register("chaudhuri.objective_perturbation_density_ratio",
          "objective perturbation: ln p_D(f) - ln p_D'(f) <= epsilon, p_D(f) = nu(b_D(f)) |det J_D(f)|, "
          "on output grids and all neighbour pairs of small 1-D and 2-D datasets (logistic, Huber "
          "hinge, both branches); the check flags Algorithm 2 without the Delta branch or the slack",
          covers=COVERS, quick=True, cost=2)
def objective_perturbation_quick() -> CheckResult:
    return run(QUICK)


@register("chaudhuri.objective_perturbation_density_ratio_full",
          "as chaudhuri.objective_perturbation_density_ratio for 2-D datasets of 3 records, "
          "epsilon in {0.1, 1, 4}, both branches, logistic and Huber hinge (h = 1/2, 1/4)",
          covers=COVERS, quick=False)
def objective_perturbation_full() -> CheckResult:
    return run(FULL, power=())

