"""Exact discrete Laplace / Gaussian samplers: refdp against NumPy's float samplers and OpenDP.

refdp's samplers (Canonne, Kamath and Steinke 2020, Algorithms 1-3) use
integer arithmetic only; NumPy's ``Generator.laplace`` / ``normal`` draw
floating-point noise (not exactly private, Mironov 2012) and serve as the
speed reference; OpenDP's ``make_laplace`` / ``make_gaussian`` on an integer
vector domain are exact discrete samplers like refdp's and are timed when the
``opendp`` package is importable (the script says so when it is not).

The samplers draw different random numbers, so results cannot be compared
element by element. Before a ratio is printed, each sample's variance is
asserted to lie within 5% of the exact variance of its law (the discrete
laws' variances computed by summing the pmf in doubles); at the sample sizes
used this fails for a correct sampler with negligible probability.

Run: python benchmarks/bench_samplers.py [--repeats N] [--quick]
"""
from __future__ import annotations

import math

import numpy as np

import _common as bc
from refdp.mechanisms import discrete_gaussian, discrete_laplace

TARGET = 1e7     # discrete Laplace samples per second at scale 10, one core


def laplace_variance(scale):
    q = math.exp(-1.0 / scale)
    return 2.0 * q / (1.0 - q) ** 2


def gaussian_variance(sigma):
    span = int(40 * sigma) + 40
    z = np.arange(-span, span + 1, dtype=np.float64)
    w = np.exp(-z * z / (2.0 * sigma * sigma))
    return float(np.sum(w * z * z) / np.sum(w))


def check_variance(x, want, what):
    got = float(np.var(np.asarray(x, dtype=np.float64)))
    if not abs(got / want - 1.0) <= 0.05:
        raise AssertionError(f"{what}: sample variance {got:.4g}, exact {want:.4g}; no ratio printed")


def opendp_samplers():
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    dom = dp.vector_domain(dp.atom_domain(T=int))

    def lap(scale, n):
        m = dp.m.make_laplace(dom, dp.l1_distance(T=int), scale=float(scale))
        zeros = [0] * n
        return lambda: m(zeros)

    def gauss(sigma, n):
        m = dp.m.make_gaussian(dom, dp.l2_distance(T=int), scale=float(sigma))
        zeros = [0] * n
        return lambda: m(zeros)

    return lap, gauss, dp.__version__ if hasattr(dp, "__version__") else "?"


def main():
    args = bc.parse_args(__doc__.splitlines()[0])
    bc.print_machine("exact discrete samplers: refdp vs NumPy float samplers vs OpenDP")
    n = 10**6 if args.quick else 10**7
    n_opendp = 10**5
    od = opendp_samplers()
    if od is None:
        print("OpenDP: NOT INSTALLED (`pip install opendp` to include it); its columns are omitted.\n")
    else:
        print(f"OpenDP {od[2]}: timed on {n_opendp} samples (a Python list in, a list out); "
              "its rate is compared per sample.\n")
    rows = []
    for kind, param in [("laplace", 10), ("laplace", 1), ("laplace", 1000),
                        ("gaussian", 10), ("gaussian", 1), ("gaussian", 1000)]:
        rng = np.random.default_rng(1)
        if kind == "laplace":
            funcs = {"refdp": lambda: discrete_laplace(param, size=n, rng=rng),
                     "numpy": lambda: rng.laplace(0.0, param, size=n)}
            var = laplace_variance(param)
        else:
            funcs = {"refdp": lambda: discrete_gaussian(param, size=n, rng=rng),
                     "numpy": lambda: rng.normal(0.0, param, size=n)}
            var = gaussian_variance(param)
        med, res = bc.time_interleaved(funcs, args.repeats)
        check_variance(res["refdp"], var, f"refdp {kind}({param})")
        rate = n / med["refdp"]
        np_rate = n / med["numpy"]
        od_rate = None
        if od is not None:
            f = (od[0] if kind == "laplace" else od[1])(param, n_opendp)
            m2, r2 = bc.time_interleaved({"opendp": f}, args.repeats)
            check_variance(r2["opendp"], var, f"OpenDP {kind}({param})")
            od_rate = n_opendp / m2["opendp"]
        rows.append([kind, str(param), f"{rate / 1e6:.1f} M/s", f"{np_rate / 1e6:.1f} M/s",
                     f"{rate / np_rate:.2f}",
                     "absent" if od_rate is None else f"{od_rate / 1e6:.3f} M/s",
                     "-" if od_rate is None else f"{rate / od_rate:.0f}x"])
        text = (f"{kind} scale/sigma {param}: refdp {rate / 1e6:.1f} M samples/s, "
                f"NumPy float {np_rate / 1e6:.1f} M/s (refdp/NumPy {rate / np_rate:.2f})"
                + ("" if od_rate is None else f", OpenDP {od_rate / 1e6:.3f} M/s (refdp/OpenDP {rate / od_rate:.0f}x)"))
        if kind == "laplace" and param == 10:
            met = rate >= TARGET and (od_rate is None or rate > od_rate)
            bc.summary("samplers", text, target=">= 1e7 samples/s, faster than OpenDP", met=met)
        else:
            bc.summary("samplers", text)
    bc.print_table(["law", "scale / sigma", "refdp exact", "NumPy float", "refdp / NumPy",
                    "OpenDP exact", "refdp / OpenDP"], rows)
    bc.print_load()


if __name__ == "__main__":
    main()
