"""Sampling from a million hypotheses: one compiled log-sum-exp pass, then a certified exact draw.

refdp.learning.exponential_mechanism_learner samples hypothesis h with
probability proportional to exp(-eps n R(h) / 2). Its cost has three parts:
the validation of the risks, the law (shift by the maximum, scale, one pass of
the compiled refdp.core.logsumexp, one vectorised exp) and the draw (one
floating-point running sum and a binary search, certified exact against the
exact-integer inversion; see docs/theory/learning.rst). Measured in the same
run, interleaved:

* ``logsumexp``: refdp.core.logsumexp alone on the learner's log-weights;
* ``law``: the learner's probabilities (the logsumexp pass included);
* ``draw``: the certified inversion alone, given the probabilities;
* ``learner``: the whole public call, validation included;
* ``posterior``: refdp.learning.one_posterior_sample on a (N, 8) loss table
  (the row sums of the table added);
* ``scipy+choice``: scipy.special.logsumexp, numpy.exp and
  Generator.choice(N, p=p), the usual NumPy idiom (it rounds the cumulative
  sum and does not use each probability as computed);
* ``mechanism``: refdp.mechanisms.exponential_mechanism on the same scores
  (the same certified draw);
* ``exact-int``: the exact-integer inversion on the learner's law, which
  forms the running sums as Python integers (the certified draw's fallback).

Before any ratio is printed: the learner's probabilities equal the NumPy
idiom's to 1e-12 relative, and the certified draw returns the same index as
the exact-integer inversion and as refdp.mechanisms.exponential_mechanism for
the same seed.

Run: python benchmarks/bench_posterior_sampling.py [--repeats N] [--quick]
"""
from __future__ import annotations

import numpy as np
import scipy.special

import _common as bc
from refdp.core import logsumexp
from refdp.learning import exponential_mechanism_learner, one_posterior_sample
from refdp.utils.inversion import certified_inverse_cdf_index
from refdp.learning.finite_class import _float_law
from refdp.mechanisms import exponential_mechanism
from refdp.utils.inversion import inverse_cdf_index

EPSILON = 1.0
RECORDS = 1000          # n: risks are errors / n
TARGET = 2.0            # whole learner call <= TARGET x one logsumexp pass


def make_inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    risks = rng.integers(0, RECORDS + 1, size) / RECORDS
    losses = rng.random((size, 8))
    return risks, losses


def baseline(w, rng):
    p = np.exp(w - scipy.special.logsumexp(w))
    return int(rng.choice(w.size, p=p))


def main():
    args = bc.parse_args(__doc__.splitlines()[0])
    bc.print_machine("posterior sampling: one logsumexp pass vs the full exact draw")
    size = 10**5 if args.quick else 10**6
    risks, losses = make_inputs(size)
    scores = -(RECORDS * risks)
    w = (scores - scores.max()) * (EPSILON / 2)       # the learner's log-weights
    p = _float_law(risks, RECORDS, EPSILON)
    print(f"N = {size} hypotheses, n = {RECORDS} records, eps = {EPSILON}; risks uniform on "
          f"{{0, 1/n, ..., 1}}; posterior: a ({size}, 8) loss table in [0, 1].\n")

    # equality before timing
    bc.assert_close_rel(p, np.exp(w - scipy.special.logsumexp(w)), "learner law vs scipy/NumPy idiom")
    for seed in range(3):
        g = np.random.default_rng(seed)
        u = g.random()
        bc.assert_equal_int(certified_inverse_cdf_index(p, u, g), inverse_cdf_index(p, u),
                            f"certified vs exact-integer inversion, seed {seed}")
    bc.assert_equal_int(exponential_mechanism_learner(risks, EPSILON, n_samples=RECORDS, rng=11),
                        exponential_mechanism(scores, EPSILON, sensitivity=1.0, rng=11),
                        "learner vs refdp.mechanisms.exponential_mechanism, seed 11")

    g1 = np.random.default_rng(1)
    u = g1.random()
    funcs = {
        "logsumexp": lambda: logsumexp(w),
        "law": lambda: _float_law(risks, RECORDS, EPSILON),
        "draw": lambda: certified_inverse_cdf_index(p, u, g1),
        "learner": lambda: exponential_mechanism_learner(risks, EPSILON, n_samples=RECORDS, rng=3),
        "posterior": lambda: one_posterior_sample(losses, 1.0, epsilon=EPSILON, rng=3),
        "scipy+choice": lambda: baseline(w, np.random.default_rng(3)),
        "mechanism": lambda: exponential_mechanism(scores, EPSILON, sensitivity=1.0, rng=3),
        "exact-int": lambda: inverse_cdf_index(p, u),
    }
    med, _ = bc.time_interleaved(funcs, args.repeats)
    lse = med["logsumexp"]
    rows = [[name, bc.fmt_s(t), f"{t / lse:.2f}", f"{t / med['learner']:.2f}"] for name, t in med.items()]
    bc.print_table(["step", "median time", "/ logsumexp", "/ learner"], rows)
    share = lse / med["learner"]
    print(f"logsumexp share of the learner call: {share:.0%}; law share: {med['law'] / med['learner']:.0%}; "
          f"draw share: {med['draw'] / med['learner']:.0%}")
    print(f"scipy+choice / learner: {med['scipy+choice'] / med['learner']:.2f}; "
          f"exact-int / learner: {med['exact-int'] / med['learner']:.1f}\n")
    bc.summary("posterior_sampling",
               f"N={size}: logsumexp {bc.fmt_s(lse)}, learner {bc.fmt_s(med['learner'])} "
               f"({med['learner'] / lse:.2f}x logsumexp), scipy+choice {bc.fmt_s(med['scipy+choice'])}, "
               f"exact-int {bc.fmt_s(med['exact-int'])}",
               target=f"learner <= {TARGET:g}x logsumexp" if not args.quick else None,
               met=(med["learner"] <= TARGET * lse) if not args.quick else None)
    bc.print_peak_memory()
    bc.print_load()


if __name__ == "__main__":
    main()
