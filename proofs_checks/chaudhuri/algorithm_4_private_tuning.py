"""Private parameter tuning is epsilon-DP: exact law of the selection step (Chaudhuri et al. 2011, Alg 4).

Claim
    Chaudhuri, Monteleoni and Sarwate 2011, Algorithm 4: given models f_1..f_m
    trained on disjoint parts, releasing f_i with probability proportional to
    exp(-epsilon z_i / 2), z_i the mistakes of f_i on the held-out part, is
    epsilon-DP with respect to the held-out part (a replaced record moves every
    z_i by at most 1). Together with the epsilon-DP training of each f_i on its
    own part (checked by chaudhuri.output_perturbation_sensitivity and
    chaudhuri.objective_perturbation_density_ratio) this makes Algorithm 4
    epsilon-DP; the composition argument is in docs/theory/erm.rst.
Setting
    Selection (quick): three fixed 1-D classifiers sign(theta x), theta in
    {-1, 1/2, 2} (so the second and third agree), held-out records (x, y) with
    x in {-1, -1/2, 1/2, 1}, y = +-1; every held-out multiset of 1 to 3
    records and every replace-one neighbour; epsilon in {1/2, 1, 2}; the law
    is refdp.erm.tuning_selection_distribution(exact=True).
    End to end (full): refdp.erm.private_tuning itself on n = 4 one-dimensional
    records, m = 3 candidates, each part holding one record, output
    perturbation: the law of the released index is computed exactly (average
    over the 24 equally likely assignments of records to parts; the sign of
    each noisy 1-D model is Bernoulli with the Laplace tail probability at its
    computed minimiser; mixture of the selection laws over the sign patterns)
    and compared with 1000 runs (epsilon = 8, where the law is far from uniform).
Precision
    Selection: refdp.verify.check_mechanism (two mpmath precisions, max
    divergence enclosed in mpmath.iv; undecided fails). End to end:
    statistical, exact binomial acceptance intervals per index, Bonferroni,
    false-failure rate 1e-6 (fixed seed, so reproducible).
"""
from __future__ import annotations

import itertools

import mpmath
import numpy as np

from proofs_checks.common.sampler_law import sampler_check
from refdp.erm import LogisticLoss, PrivateLogisticRegression, private_tuning, tuning_selection_distribution
from refdp.utils.solver import minimise
from refdp.erm.output_perturbation import DEFAULT_TOL, output_perturbation_rate
from refdp.verify.check import check_mechanism, summarise
from refdp.verify.neighbours import all_datasets, labelled_domain
from refdp.verify.registry import register

DPS = 30
THETAS = (-1, 0.5, 2)
XS = (-1.0, -0.5, 0.5, 1.0)
EPSILONS = (0.5, 1.0, 2.0)
ALPHA = 1e-6
SEED = 4444
RUNS = 1000
E2E_X = np.array([[1.0], [-0.5], [0.5], [-1.0]])
E2E_Y = np.array([1, 1, -1, -1])
E2E_LAMS = (0.05, 0.5, 5.0)
E2E_EPSILON = 8.0


def mistakes(dataset):
    """z_i of each fixed classifier on a held-out multiset of (x, y) records."""
    return [sum(1 for x, y in dataset if (1 if t * x > 0 else -1) != y) for t in THETAS]


def selection_law(epsilon):
    def dist(dataset, ctx):    # context protocol: enclosures in the checker's interval context
        return tuning_selection_distribution(mistakes(dataset), epsilon, ctx=ctx)
    return dist


def selection_sweep():
    domain = labelled_domain(XS, labels=(-1, 1))
    datasets = list(all_datasets(domain, 3, min_size=1))
    results, labels = [], []
    for eps in EPSILONS:
        results.append(check_mechanism(selection_law(eps), datasets, eps, neighbours="replace", dps=DPS,
                                       domain=domain))
        labels.append(f"eps={eps}, held-out size 1..3, {len(datasets)} datasets")
    return summarise(results, labels)


def end_to_end_law():
    """Exact law of private_tuning's index on (E2E_X, E2E_Y) (see the module docstring)."""
    loss = LogisticLoss()
    n, m = E2E_X.shape[0], len(E2E_LAMS)
    with mpmath.workdps(30):
        law = [mpmath.mpf(0)] * m
        perms = list(itertools.permutations(range(n)))
        for perm in perms:               # array_split of a permutation of 4 into 4 parts: one each
            train, held = perm[:m], perm[m]
            p_pos = []
            for i, r in enumerate(train):
                f = float(minimise(loss, E2E_X[[r]], E2E_Y[[r]].astype(float), E2E_LAMS[i],
                                   tol=DEFAULT_TOL).theta[0])
                beta = mpmath.mpf(output_perturbation_rate(E2E_EPSILON, 1, E2E_LAMS[i], DEFAULT_TOL))
                tail = mpmath.exp(-beta * abs(mpmath.mpf(f))) / 2     # P[Lap(1/beta) beyond |f|]
                p_pos.append(1 - tail if f >= 0 else tail)             # P[theta_i > 0]
            x, y = E2E_X[held, 0], E2E_Y[held]
            for signs in itertools.product((1, -1), repeat=m):
                weight = mpmath.mpf(1)
                for s, p in zip(signs, p_pos):
                    weight *= p if s > 0 else 1 - p
                z = [int((1 if s * x > 0 else -1) != y) for s in signs]
                probs = tuning_selection_distribution(z, E2E_EPSILON, exact=True, dps=30)
                for k in range(m):
                    law[k] += weight * probs[k] / len(perms)
    return law


def end_to_end():
    rng = np.random.default_rng(SEED)
    template = PrivateLogisticRegression(epsilon=E2E_EPSILON, method="output")
    draws = [private_tuning(template, E2E_X, E2E_Y, E2E_LAMS, rng=rng).index for _ in range(RUNS)]
    return sampler_check(draws, end_to_end_law(), ALPHA, SEED,
                         f"private_tuning index on 4 records, Lambda in {E2E_LAMS}, eps = {E2E_EPSILON}")


COVERS = ("refdp.erm.private_tuning", "refdp.erm.tuning_selection_distribution")


@register("chaudhuri.private_tuning_selection",
          "Algorithm 4's selection exp(-eps z_i / 2) is eps-DP in the held-out part: exact max divergence "
          "over all replace-one neighbours of held-out sets of size <= 3, eps in {0.5, 1, 2}",
          covers=COVERS, quick=True)
def selection_quick():
    return selection_sweep()


@register("chaudhuri.private_tuning_end_to_end_law",
          "private_tuning's released index follows its exact law (1-D, output perturbation, 24 part "
          "assignments, mixture over noise signs): binomial test, false-failure rate 1e-6",
          covers=COVERS, quick=False)
def end_to_end_full():
    return end_to_end()

