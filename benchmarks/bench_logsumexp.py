"""log-sum-exp: refdp.core.logsumexp against scipy.special.logsumexp and a NumPy idiom.

refdp's kernel makes one streaming pass (running maximum and rescaled sum);
scipy and the NumPy idiom make separate passes (maximum, shifted exponentials,
sum) over temporary arrays. Results are asserted equal to 1e-12 relative
before a ratio is printed.

Run: python benchmarks/bench_logsumexp.py [--repeats N] [--quick]
"""
from __future__ import annotations

import numpy as np
import scipy.special

import _common as bc
from refdp.core import logsumexp


def numpy_logsumexp(x):
    m = np.max(x)
    return float(m + np.log(np.sum(np.exp(x - m))))


def main():
    args = bc.parse_args(__doc__.splitlines()[0])
    bc.print_machine("log-sum-exp: refdp.core.logsumexp vs scipy.special.logsumexp")
    sizes = [10**5, 10**6] if args.quick else [10**6, 10**7]
    print("x ~ Normal(0, 10^2), float64, contiguous.\n")
    rows = []
    for n in sizes:
        x = np.random.default_rng(n).normal(0.0, 10.0, n)
        funcs = {
            "refdp": lambda: logsumexp(x),
            "scipy": lambda: float(scipy.special.logsumexp(x)),
            "numpy": lambda: numpy_logsumexp(x),
        }
        med, res = bc.time_interleaved(funcs, args.repeats)
        d = max(bc.assert_close_rel(res["scipy"], res["refdp"], f"scipy, n={n}"),
                bc.assert_close_rel(res["numpy"], res["refdp"], f"numpy idiom, n={n}"))
        best = "scipy" if med["scipy"] <= med["numpy"] else "numpy"
        ratio = med[best] / med["refdp"]
        rows.append([f"{n:.0e}".replace("e+0", "e"), bc.fmt_s(med["refdp"]), bc.fmt_s(med["scipy"]),
                     bc.fmt_s(med["numpy"]), f"{ratio:.1f}x", f"{d:.1e}"])
        bc.summary("logsumexp", f"n={n}: refdp {bc.fmt_s(med['refdp'])}, best of scipy/NumPy "
                   f"{bc.fmt_s(med[best])} ({best}), ratio {ratio:.1f}x")
    bc.print_table(["n", "refdp", "scipy.special.logsumexp", "NumPy max/exp/sum/log",
                    "best other / refdp", "max rel. diff"], rows)
    bc.print_load()


if __name__ == "__main__":
    main()
