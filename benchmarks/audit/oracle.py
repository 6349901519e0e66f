"""The best bound a held-out test can give, with the best event known in advance.

For the suite mechanisms whose output law on each audited pair can be
computed by quadrature (or in closed form), the script finds the event ``E``
that maximises the certified bound: among the unions of outcomes ordered by
likelihood ratio (Neyman--Pearson), the one whose bound is largest when the
held-out counts take their expected values ``k = n P[M(D) in E]``, ``k' = n
P[M(D') in E]``. Two held-out tests are evaluated:

* **binomial** (``holdout_test="binomial"``): ``ln(p_L(k) / p_U(k'))``, two
  Clopper--Pearson bounds at error ``beta = (1 - c) / 2`` each;
* **conditional** (``holdout_test="conditional"``): Poisson-sized samples,
  one Clopper--Pearson bound on ``p / (p + p')`` from ``k`` of ``k + k'`` at
  error ``1 - c`` (:func:`refdp.audit.events.conditional_bound`).

A third figure is the conditional test on a pool of two pairs
(``pool_pairs=2``): the best sum of one ranked-by-ratio event per pair, each
pair with ``n`` held-out outputs per dataset (:func:`best_pooled`).

An audit that spends ``n`` held-out outputs per dataset on one test cannot
expect more (it must also find the event, and spends part of its budget
doing so): these are ceilings of the test, not of the search. The figures
are float integrals, not certified enclosures; the "sup ratio" column is the
largest log-ratio of the outcome probabilities on the pair (for continuous
outputs, of the cells of the quadrature grid).

Run: python benchmarks/audit/oracle.py [--samples N]
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from scipy import special, stats

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from refdp.audit import query_answer_pairs  # noqa: E402
from refdp.audit.events import conditional_bound  # noqa: E402

_Z = np.linspace(-400.0, 400.0, 800_001)      # quadrature grid (units of the answers)


def svt_outcomes(q, rho_scale, nu_scale, threshold):
    """P[first answer above the noisy threshold is i] for i < k, and P[none], for c = 1."""
    r = np.linspace(-60 * rho_scale, 60 * rho_scale, 600_001)
    w = stats.laplace.pdf(r, scale=rho_scale) * (r[1] - r[0])
    run, out = np.ones_like(r), []
    for qi in q:
        below = stats.laplace.cdf(threshold + r - qi, scale=nu_scale)
        out.append(float(np.sum(w * run * (1 - below))))
        run = run * below
    out.append(float(np.sum(w * run)))
    return np.array(out)


def noisy_max_index(answers, noise):
    """P[argmax_i (a_i + Z_i) = i] for i.i.d. noise ``noise`` (a scipy distribution), by quadrature."""
    z, h = _Z, _Z[1] - _Z[0]
    cdf = [noise.cdf(z - a) for a in answers]
    out = []
    for i, a in enumerate(answers):
        rest = np.prod([c for j, c in enumerate(cdf) if j != i], axis=0)
        out.append(float(np.sum(noise.pdf(z - a) * rest) * h))
    p = np.array(out)
    return p / p.sum()


def laplace_cells(shift, scale):
    """Cells of a fine grid under Laplace(scale) shifted by ``shift`` (one histogram count)."""
    edges = np.concatenate([[-np.inf], np.linspace(-30 * scale, 30 * scale, 60_001), [np.inf]])
    return np.diff(stats.laplace.cdf(edges - shift, scale=scale))


def _prefixes(pa, pb):
    """Per direction, the cumulative (P, P') of the outcomes ranked by ratio (Neyman--Pearson events)."""
    out = []
    for x, y in ((pa, pb), (pb, pa)):
        keep = (x > 0) | (y > 0)
        x, y = x[keep], y[keep]
        with np.errstate(divide="ignore"):
            order = np.argsort(-(np.log(x) - np.log(y)))
        out.append((np.cumsum(x[order])[:-1], np.cumsum(y[order])[:-1]))  # the whole space says nothing
    return out


def best_bound(pa, pb, n, confidence):
    """Largest expected-count bound over unions of outcomes ranked by ratio, both directions, both tests.

    Returns ``(binomial bound, its P[E], conditional bound, its P[E])``.
    """
    beta = (1 - confidence) / 2
    best_b, best_c = (0.0, 0.0), (0.0, 0.0)
    for cx, cy in _prefixes(pa, pb):
        with np.errstate(all="ignore"):
            lo = special.betaincinv(cx * n, n - cx * n + 1, beta)
            hi = special.betainccinv(cy * n + 1, n - cy * n, beta)
            b = np.log(lo / hi)
        c = conditional_bound(cx * n, cy * n, 2 * beta)
        j, i = int(np.nanargmax(b)), int(np.nanargmax(c))
        if b[j] > best_b[0]:
            best_b = (float(b[j]), float(cx[j]))
        if c[i] > best_c[0]:
            best_c = (float(c[i]), float(cx[i]))
    return best_b[0], best_b[1], best_c[0], best_c[1]


def _thin(x, y, n, error, most=400):
    """A front of more than ``most`` events (grids of continuous outputs) cut to its ``most`` best alone."""
    if x.size <= most:
        return x, y
    keep = np.argsort(-np.nan_to_num(conditional_bound(n * x, n * y, error), nan=-np.inf))[:most]
    return x[keep], y[keep]


def best_pooled(rows, n, confidence):
    """Largest conditional bound at expected counts over pools of two pairs, one Neyman--Pearson event each.

    For a fixed pooled count under the denominators, the numerators' count
    is largest when each pair's event lies on its own Neyman--Pearson
    frontier, so ranking-by-ratio events of each pair (both directions)
    suffice (exactly so for the few outcomes of the sparse vectors and
    ReportNoisyMax3; on the fine grids of continuous outputs only the 400
    events of each pair that are best alone are combined, so there the
    figure may fall short of the ceiling); ``n`` held-out outputs per
    dataset on each pair. Returns
    ``(bound, labels)``, or ``(0, ())`` with fewer than two pairs.
    """
    error = 1 - confidence
    fronts = [(label, [_thin(x, y, n, error) for x, y in _prefixes(pa, pb)]) for label, pa, pb in rows]
    best = (0.0, ())
    for i in range(len(fronts)):
        for j in range(i + 1, len(fronts)):
            for xi, yi in fronts[i][1]:
                for xj, yj in fronts[j][1]:
                    c = conditional_bound(n * (xi[:, None] + xj[None, :]), n * (yi[:, None] + yj[None, :]), error)
                    v = float(np.nanmax(c))
                    if v > best[0]:
                        best = (v, (fronts[i][0], fronts[j][0]))
    return best


def laws():
    """(mechanism, [(pair label, law under D, law under D')]) for every mechanism the script covers."""
    out = []
    hist = [("first lower", laplace_cells(1.0, 10.0), laplace_cells(0.0, 10.0)),
            ("first higher", laplace_cells(1.0, 10.0), laplace_cells(2.0, 10.0))]
    out.append(("NoisyHist1", hist))
    for name, noise in (("ReportNoisyMax1", stats.laplace(scale=20.0)), ("ReportNoisyMax2", stats.expon(scale=20.0))):
        out.append((name, [(label, noisy_max_index(d, noise), noisy_max_index(e, noise))
                           for d, e, label in query_answer_pairs(5)]))
    # the value of the maximum, Laplace(20): below every answer the density ratio is e^(5/20);
    # E = {max <= 0} on (0,...,0) vs (1,...,1) has P = 1/32 and P' = P e^(-1/4)
    p = 0.5 ** 5
    # "all higher", (1,...,1) vs (2,...,2), has the same law with E = {max <= 1}
    rnm3 = (np.array([p, 1 - p]), np.array([p * np.exp(-0.25), 1 - p * np.exp(-0.25)]))
    out.append(("ReportNoisyMax3", [("all lower", *rnm3), ("all higher", *rnm3)]))
    g = stats.norm(scale=20.0)
    out.append(("ReportNoisyMax (Gaussian), index",
                [("(1,1,1,1,1) vs (0,2,2,2,2)", noisy_max_index(np.ones(5), g),
                  noisy_max_index(np.array([0.0, 2, 2, 2, 2]), g))]))
    for name, rho, nu, t in (("SVT1", 20.0, 40.0, 0.5), ("SVT2", 20.0, 40.0, 1.0), ("SVT4", 40.0, 1 / 0.075, 1.0)):
        out.append((name, [(label, svt_outcomes(d, rho, nu, t), svt_outcomes(e, rho, nu, t))
                           for d, e, label in query_answer_pairs(10)]))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=float, default=1e7, help="held-out outputs per dataset")
    args = parser.parse_args(argv)
    n = args.samples
    print(f"held-out outputs per dataset: {n:.3g}; ceilings of the binomial and the conditional test")
    head = (f"{'mechanism':34s} {'pair':28s} {'sup ratio':>9s} {'P[E]':>7s} {'binom 0.9':>9s} {'binom 0.95':>10s} "
            f"{'cond 0.9':>8s} {'cond 0.95':>9s} {'pooled 0.9':>10s} {'pooled 0.95':>11s}")
    print(head)
    print("-" * len(head))
    for name, rows in laws():
        res = []
        for label, pa, pb in rows:
            solid = (pa > 1e-12) & (pb > 1e-12)   # the quadrature's far tails are rounding noise
            sup = float(np.max(np.abs(np.log(pa[solid]) - np.log(pb[solid]))))
            b9, pe, c9, _ = best_bound(pa, pb, n, 0.9)
            b95, _, c95, _ = best_bound(pa, pb, n, 0.95)
            res.append((c95, label, sup, pe, b9, b95, c9))
        c95, label, sup, pe, b9, b95, c9 = max(res)
        pooled9, pooled95 = best_pooled(rows, n, 0.9)[0], best_pooled(rows, n, 0.95)[0]
        print(f"{name[:34]:34s} {label[:28]:28s} {sup:9.5f} {pe:7.4f} {b9:9.4f} {b95:10.4f} {c9:8.4f} {c95:9.4f} "
              f"{pooled9:10.4f} {pooled95:11.4f}", flush=True)


if __name__ == "__main__":
    main()
