"""The exact data-dependent delta(epsilon) of LNMax answers against a brute-force enumeration."""
import itertools
import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from refdp.utils.precision import mp_context
from refdp.mechanisms import report_noisy_max_distribution
from refdp.pate import exact_delta


def brute_force(counts, gamma, eps):
    """max over every neighbour (each query: one vote a -> b, or unchanged) and both directions of
    sum_o max(0, P(o) - e^eps P'(o)), enumerating the C^T outputs at 40 digits."""
    ctx = mp_context(40)
    g = Fraction(gamma)

    cache = {}

    def law(n):
        key = tuple(int(x) for x in n)
        if key not in cache:
            cache[key] = report_noisy_max_distribution(list(key), g, monotone=True, ctx=ctx)
        return cache[key]
    laws = [law(n) for n in counts]
    moves = []
    for n in counts:
        opts = [None]
        for a in range(len(n)):
            for b in range(len(n)):
                if a != b and n[a] >= 1:
                    opts.append((a, b))
        moves.append(opts)
    e = ctx.exp(ctx.mpf(eps))
    best = ctx.mpf(0)
    for combo in itertools.product(*moves):
        other = []
        for n, mv, p in zip(counts, combo, laws):
            if mv is None:
                other.append(p)
            else:
                m = list(n)
                m[mv[0]] -= 1
                m[mv[1]] += 1
                other.append(law(m))
        for P, Q in ((laws, other), (other, laws)):
            total = ctx.mpf(0)
            for o in itertools.product(*[range(len(n)) for n in counts]):
                p = ctx.fprod(P[t][o[t]] for t in range(len(o)))
                q = ctx.fprod(Q[t][o[t]] for t in range(len(o)))
                total += max(ctx.mpf(0), p - e * q)
            best = max(best, total)
    return float(best)


@pytest.mark.parametrize("counts, gamma, eps", [
    ([[3, 0]], 1.0, 1.0),
    ([[2, 1], [3, 0]], 0.5, 0.3),
    ([[2, 1, 0], [1, 1, 1]], 0.7, 0.5),
])
def test_exact_delta_encloses_the_brute_force_value(counts, gamma, eps):
    r = exact_delta(counts, gamma, eps, noise="continuous")   # grid 1e-3
    truth = brute_force(counts, gamma, eps)
    assert r.lower <= truth <= r.upper
    assert r.upper - r.lower < 1e-2 * truth


def test_one_query_is_the_hockey_stick_of_its_worst_neighbour():
    # with e^eps above every likelihood ratio, delta is exactly 0
    r = exact_delta([[4, 1]], 0.5, 2 * 0.5 + 1e-9)
    assert r.upper < 1e-12


def test_more_queries_cost_more():
    one = exact_delta([[3, 1]], 1.0, 0.5)
    two = exact_delta([[3, 1], [3, 1]], 1.0, 0.5)
    assert two.lower > one.upper


@pytest.mark.parametrize("kw, name", [
    (dict(epsilon=-1.0), "epsilon"), (dict(gamma=0.0), "gamma"), (dict(grid_step=0.0), "grid_step"),
    (dict(max_combinations=1, counts=[[2, 1, 1], [1, 2, 1]]), "max_combinations"),
    (dict(counts=[[-1, 2]]), "counts"),
])
def test_bad_input(kw, name):
    args = dict(counts=[[2, 1]], gamma=1.0, epsilon=0.5)
    args.update(kw)
    with pytest.raises(ValueError, match=f"The '{name}' parameter of exact_delta must be"):
        exact_delta(args.pop("counts"), args.pop("gamma"), args.pop("epsilon"), **args)


def test_cli_prints_the_exact_delta(tmp_path):
    f = tmp_path / "counts.npy"
    np.save(f, np.array([[3, 1], [2, 2]]))
    out = subprocess.run([sys.executable, "-m", "refdp.cli", "pate", "--votes", str(f), "--counts",
                          "--gamma", "0.5", "--delta", "1e-5", "--exact-delta", "0.5", "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    import json
    got = json.loads(out.stdout)["exact_delta"]
    r = exact_delta([[3, 1], [2, 2]], 0.5, 0.5)
    assert got["lower"] == r.lower and got["upper"] == r.upper and got["epsilon"] == 0.5


@pytest.mark.parametrize("counts, gamma, eps", [
    ([[2, 1], [3, 0]], 0.5, 0.3),
    ([[2, 1, 0], [1, 1, 1]], 0.7, 0.5),
])
def test_dominating_pairs_enclose_the_brute_force_value(counts, gamma, eps):
    # brute_force enumerates the continuous-noise law
    r = exact_delta(counts, gamma, eps, method="dominating", noise="continuous")
    truth = brute_force(counts, gamma, eps)
    assert r.lower <= truth <= r.upper
    enum = exact_delta(counts, gamma, eps, noise="continuous")
    assert r.upper >= enum.lower and r.lower <= enum.upper


def test_dominating_pairs_scale_to_many_queries():
    # 80 queries of 3 classes: 6^80 neighbour combinations, far beyond enumeration
    counts = [[40, 8, 2]] * 40 + [[25, 20, 5]] * 40
    with pytest.raises(ValueError, match="max_combinations"):
        exact_delta(counts, 0.05, 2.0)
    r = exact_delta(counts, 0.05, 2.0, method="auto")
    assert 0 < r.lower <= r.upper < 1e-3
    assert r.combinations == 6 ** 80 and len(r.worst_moves) == 80
    # the enclosure of more queries contains larger values: monotone in T at the same epsilon
    fewer = exact_delta(counts[:20] + counts[40:60], 0.05, 2.0, method="dominating")
    assert fewer.lower <= r.upper and fewer.upper <= r.upper


def test_method_is_validated():
    with pytest.raises(ValueError, match="The 'method' parameter of exact_delta must be one of"):
        exact_delta([[2, 1]], 1.0, 0.5, method="sample")


def test_dominating_pairs_enclose_the_enumeration_for_the_discrete_law():
    counts, gamma, eps = [[2, 1], [3, 0]], 0.5, 0.3
    dom = exact_delta(counts, gamma, eps, method="dominating")          # noise="discrete", the default
    enum = exact_delta(counts, gamma, eps)
    assert dom.lower <= enum.upper and enum.lower <= dom.upper
