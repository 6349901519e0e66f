"""The best bound any held-out Clopper--Pearson test can give, with the best event known in advance.

For three suite mechanisms the output law on each audited pair is computed
by quadrature (report-noisy-max releasing the value, in closed form), and so
the event ``E`` that maximises the certified bound: among the unions of
outcomes ordered by likelihood ratio (Neyman--Pearson), the one whose
Clopper--Pearson bound ``ln(p_L(k) / p_U(k'))`` is largest when the counts
take their expected values ``k = n P[M(D) in E]``, ``k' = n P[M(D') in E]``.
An audit that spends ``n`` held-out outputs per dataset on one test at error
``beta = (1 - c) / 2`` cannot expect more (it must also find the event, and
spends part of its budget doing so). The figures are float integrals, not
certified enclosures.

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


def best_bound(pa, pb, n, beta):
    """Largest expected-count bound over unions of outcomes ranked by ratio, both directions."""
    best = (0.0, 0.0, 0.0)
    for x, y in ((pa, pb), (pb, pa)):
        order = np.argsort(-(np.log(x) - np.log(y)))
        cx, cy = np.cumsum(x[order])[:-1], np.cumsum(y[order])[:-1]  # the whole space says nothing
        lo = special.betaincinv(cx * n, n - cx * n + 1, beta)
        hi = special.betainccinv(cy * n + 1, n - cy * n, beta)
        b = np.log(lo / hi)
        j = int(np.nanargmax(b))
        if b[j] > best[0]:
            best = (float(b[j]), float(np.log(cx[j] / cy[j])), float(cx[j]))
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=float, default=1e7, help="held-out outputs per dataset")
    args = parser.parse_args(argv)
    n = args.samples
    print(f"held-out outputs per dataset: {n:.3g}")
    print(f"{'mechanism':18s} {'pair':28s} {'sup ratio':>9s} {'P[E]':>8s} {'best @0.9':>9s} {'best @0.95':>10s}")
    # report-noisy-max, value, Laplace(20), 5 answers: below every answer the density
    # ratio of the maximum is e^(5/20); E = {max <= 0} on (0,...,0) vs (1,...,1)
    p = 0.5 ** 5
    pa, pb = np.array([p, 1 - p]), np.array([p * np.exp(-0.25), 1 - p * np.exp(-0.25)])
    b9, b95 = best_bound(pa, pb, n, 0.05), best_bound(pa, pb, n, 0.025)
    print(f"{'ReportNoisyMax3':18s} {'all lower':28s} {0.25:9.5f} {p:8.4f} {b9[0]:9.4f} {b95[0]:10.4f}")
    for name, rho, nu, t in (("SVT1", 20.0, 40.0, 0.5), ("SVT4", 40.0, 1 / 0.075, 1.0)):
        rows = []
        for d, e, label in query_answer_pairs(10):
            pa, pb = svt_outcomes(d, rho, nu, t), svt_outcomes(e, rho, nu, t)
            sup = float(np.max(np.abs(np.log(pa) - np.log(pb))))
            b9, b95 = best_bound(pa, pb, n, 0.05), best_bound(pa, pb, n, 0.025)
            rows.append((b9[0], label, sup, b9[2], b95[0]))
        for b9, label, sup, pe, b95 in sorted(rows, reverse=True)[:2]:
            print(f"{name:18s} {label:28s} {sup:9.5f} {pe:8.4f} {b9:9.4f} {b95:10.4f}")


if __name__ == "__main__":
    main()
