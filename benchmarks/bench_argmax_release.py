"""Float-safe argmax releases against the floating-point ones: report_noisy_max and PATE's LNMax.

``report_noisy_max(..., secure=True)`` (the default) rounds the scores to a
power-of-two grid and adds exact discrete Laplace noise to the integer
indices; ``secure=False`` adds NumPy's double-precision Laplace noise.
``lnmax_labels(..., secure=True)`` adds exact discrete Laplace noise to the
integer counts. Both paths are timed in the same run, interleaved, on the
same inputs; the ratio is secure time / float time. Before a ratio is
printed, the frequency of the top candidate under each path is asserted to
lie within 0.01 of its exact probability (the float path's law is that of
real-valued noise, the secure path's is ``report_noisy_max_distribution(...,
secure=True)``); at these sample sizes a correct sampler misses by 0.01 with
negligible probability.

Run: python benchmarks/bench_argmax_release.py [--repeats N] [--quick]
"""
from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np

import _common as bc
from refdp.utils.precision import mp_context
from refdp.mechanisms.discrete_argmax import discrete_argmax_law
from refdp.utils.rounding import up_dyadic
from refdp.mechanisms import report_noisy_max, report_noisy_max_distribution
from refdp.pate import lnmax_labels


def _textbook_lnmax(counts, gamma, rng):
    """lnmax_labels(secure=False), without its TextbookNoiseWarning (timed here on purpose)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return lnmax_labels(counts, gamma, rng=rng, secure=False)


def check_top(winners, p, what):
    got = float(np.mean(np.asarray(winners) == 0))
    if not abs(got - p) <= 0.01:
        raise AssertionError(f"{what}: frequency of index 0 {got:.4f}, exact {p:.4f}; no ratio printed")


def main():
    args = bc.parse_args(__doc__.splitlines()[0])
    bc.print_machine("argmax releases: float-safe (exact discrete noise) vs floating-point Laplace")
    n = 10**5 if args.quick else 10**6
    rows = []
    for scores, eps in (([12.0, 10.0, 9.0, 3.0, 0.0], 1.0), ([250.0] + [0.0] * 9, 0.1),
                        (list(np.linspace(0.0, 1.0, 50)), 5.0)):
        rng = np.random.default_rng(1)
        funcs = {"secure": lambda: report_noisy_max(scores, eps, rng=rng, size=n),
                 "float": lambda: report_noisy_max(scores, eps, rng=rng, size=n, secure=False)}
        med, res = bc.time_interleaved(funcs, args.repeats)
        if len(scores) <= 10:
            check_top(res["secure"], float(report_noisy_max_distribution(scores, eps, secure=True)[0]),
                      "report_noisy_max secure")
            check_top(res["float"], float(report_noisy_max_distribution(scores, eps)[0]),
                      "report_noisy_max float")
        ratio = med["secure"] / med["float"]
        what = f"report_noisy_max, {len(scores)} candidates, eps {eps:g}"
        rows.append([what, f"{n / med['secure'] / 1e6:.2f} M/s", f"{n / med['float'] / 1e6:.2f} M/s",
                     f"{ratio:.2f}"])
        bc.summary("argmax", f"{what}: secure {n / med['secure'] / 1e6:.2f} M releases/s, float "
                             f"{n / med['float'] / 1e6:.2f} M/s (secure / float time {ratio:.2f})")
    counts = np.tile([200, 30, 20, 0, 0, 0, 0, 0, 0, 0], (n, 1))
    rng = np.random.default_rng(2)
    funcs = {"secure": lambda: lnmax_labels(counts, 0.05, rng=rng, secure=True),
             "float": lambda: _textbook_lnmax(counts, 0.05, rng)}
    med, res = bc.time_interleaved(funcs, args.repeats)
    row = [200, 30, 20] + [0] * 7
    check_top(res["secure"], float(discrete_argmax_law(row, up_dyadic(1 / Fraction(0.05)), mp_context(30))[0]),
              "lnmax_labels secure")
    check_top(res["float"], float(report_noisy_max_distribution(row, 0.1)[0]), "lnmax_labels float")
    ratio = med["secure"] / med["float"]
    what = "lnmax_labels, 10 classes, gamma 0.05"
    rows.append([what, f"{n / med['secure'] / 1e6:.2f} M/s", f"{n / med['float'] / 1e6:.2f} M/s", f"{ratio:.2f}"])
    bc.summary("argmax", f"{what}: secure {n / med['secure'] / 1e6:.2f} M labels/s, float "
                         f"{n / med['float'] / 1e6:.2f} M/s (secure / float time {ratio:.2f})")
    bc.print_table(["release", "secure (exact discrete)", "float (NumPy Laplace)", "secure / float time"], rows)
    bc.print_load()


if __name__ == "__main__":
    main()
