"""The compiled kernels compute exactly what their pure-Python twins state.

Claim
    For random inputs with ties (fixed seed 20181), every kernel of
    ``refdp/_core.pyx`` equals its twin in :mod:`refdp.twins.core`: exactly for the
    walk sweep and vote counting (same float operations in the same order),
    to 1e-12 relative for Lemma 4's log q, the accountant and log-sum-exp.
Preconditions
    None beyond the kernels' documented input contracts.
Precision
    IEEE double; the comparison itself is exact (no tolerance for the exact
    kernels).
"""
import numpy as np

from refdp import core
from refdp.twins import core as _twins
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict

SEED = 20181


def _result(measured, bound, detail):
    verdict = Verdict.HOLDS if measured <= bound else Verdict.FAILS
    return CheckResult(float(measured), float(bound), verdict, 0, detail, method="estimated")


@register("refdp.core_walk_sweep_equals_per_query_walk",
          "sorted sweep O(n+q log q) == per-query O(nq) walk, exactly (n=1500, q=400, ties)",
          covers=("refdp.core.projected_walk_log_odds",))
def walk_sweep():
    rng = np.random.default_rng(SEED)
    x = rng.integers(0, 200, size=1500).astype(float) / 10
    y = rng.integers(0, 2, size=1500)
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    steps = 0.25 * (2.0 * y - 1.0)
    qs = np.concatenate([rng.integers(-5, 205, size=300) / 10, x[:100]])
    got = core.projected_walk_log_odds(x, steps, qs, lower=-2.2, upper=2.2)
    order_q = np.argsort(qs, kind="stable")
    want = np.empty_like(got)
    want[order_q] = _twins.projected_walk_log_odds(x, steps, qs[order_q], 0.0, -2.2, 2.2)
    diff = np.max(np.abs(got - want))
    return _result(diff, 0.0, f"max |kernel - twin| over {qs.size} queries")


@register("refdp.core_count_votes_equals_twin",
          "vote counting kernel == twin for every integer dtype, exactly",
          covers=("refdp.core.count_votes",))
def votes():
    rng = np.random.default_rng(SEED)
    worst = 0
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        v = rng.integers(0, 7, size=(60, 250)).astype(dtype)
        worst = max(worst, int(np.max(np.abs(core.count_votes(v, 7) - _twins.count_votes(v, 7)[0]))))
    return _result(worst, 0, "max |kernel - twin| count over 8 dtypes")


@register("refdp.core_float_kernels_equal_twins",
          "Lemma 4 log q, accountant log-moments and log-sum-exp == twins to 1e-12 relative",
          covers=("refdp.core.lemma4_log_q", "refdp.core.accountant_log_moments", "refdp.core.logsumexp"))
def float_kernels():
    rng = np.random.default_rng(SEED)
    counts = rng.multinomial(250, rng.dirichlet(np.full(10, 0.3), size=400)[0], size=400)
    counts[:50] = rng.multinomial(250, np.full(10, 0.1), size=50)
    gamma = 0.05
    lq = core.lemma4_log_q(counts, gamma)
    lq_twin = _twins.lemma4_log_q(counts, gamma)
    orders = np.linspace(0.5, 64, 64)
    acc = core.accountant_log_moments(lq, orders, gamma)
    acc_twin = _twins.accountant_log_moments(lq, orders, gamma)
    x = rng.normal(0, 300, size=10_000)
    rel = max(
        float(np.max(np.abs(lq - lq_twin) / (1 + np.abs(lq_twin)))),
        float(np.max(np.abs(acc - acc_twin) / np.abs(acc_twin))),
        abs(core.logsumexp(x) - _twins.logsumexp(x)) / abs(_twins.logsumexp(x)),
    )
    return _result(rel, 1e-12, "max relative difference over the three kernels")


@register("refdp.core_discrete_samplers_equal_twins",
          "exact discrete Laplace / Gaussian kernels == their integer twins, bit for bit on the same words",
          covers=("refdp.mechanisms.discrete_laplace", "refdp.mechanisms.discrete_gaussian"))
def discrete_samplers():
    import math

    from refdp import _core

    mismatches, cases = 0, 0
    for s, t in ((1, 1), (1, 10), (10, 1), (3, 7), (1, 2**63 - 1), (2**64 - 1, 2**64 - 1)):
        bg1, bg2 = np.random.PCG64(SEED), np.random.PCG64(SEED)
        got = [int(v) for v in _core._py_discrete_laplace(bg1, s, t, 500)]
        words = _twins.word_source(bg2)
        mismatches += got != [_twins.discrete_laplace(words, s, t) for _ in range(500)]
        mismatches += bg1.random_raw() != bg2.random_raw()
        cases += 1
    for a, b in ((1, 1), (49, 100), (10**12, 1), (2**61 + 1, 2**62 - 1)):
        t = math.isqrt(a // b) + 1
        bg1, bg2 = np.random.PCG64(SEED), np.random.PCG64(SEED)
        got = [int(v) for v in _core._py_discrete_gaussian(bg1, a, b, t, 500)]
        words = _twins.word_source(bg2)
        mismatches += got != [_twins.discrete_gaussian(words, a, b) for _ in range(500)]
        mismatches += bg1.random_raw() != bg2.random_raw()
        cases += 1
    return _result(mismatches, 0, f"{cases} parameter settings x 500 draws, seed {SEED}: "
                                  "draws and final generator state compared")
