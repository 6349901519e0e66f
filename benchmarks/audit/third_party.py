"""Audit mechanisms of third-party DP libraries installed from PyPI (not refdp dependencies).

The libraries are optional: install them into the benchmark environment only,
``pip install -e '.[audit-libraries]'`` (diffprivlib and opendp). Each mechanism is audited on
``f(D) = 0`` vs ``f(D') = 1`` (a sensitivity-1 query) against the epsilon it
is constructed with, first with refdp's default events (outputs taken as real
numbers), then with the float-bits events (the last mantissa bits, Mironov's
floating-point attack). Whatever the audits find is printed as found.

Run (from the repository root)::

    python benchmarks/audit/third_party.py [--samples N] [--seed S] [--json PATH]

Budget: ``--samples`` outputs per dataset (default 1,000,000; 400,000 for the
slow per-call Snapping mechanism and for OpenDP), tolerance 0, confidence 0.95.

Note on diffprivlib 0.6.x and scikit-learn: with the scikit-learn the
``audit-libraries`` extra pins (below 1.8), diffprivlib imports as it is and
the script uses it unchanged. With scikit-learn 1.9, importing ``diffprivlib``
fails inside ``diffprivlib.models`` (a private scikit-learn name it imports was
removed); only then does the script register an empty ``diffprivlib.models``
module before importing ``diffprivlib.mechanisms`` (which does not use the
models) and say so in its output. The versions used are printed first.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
import types

import numpy as np

from refdp.audit import audit_black_box

PAIR = [(0.0, 1.0, "f(D) = 0 vs f(D') = 1")]
SLOW = 400_000  # budget for the mechanisms that cost tens of microseconds per output


def _version(name):
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


def diffprivlib_cases():
    try:
        import diffprivlib.mechanisms as dpm
        note = ""
    except ImportError:
        sys.modules.setdefault("diffprivlib.models", types.ModuleType("diffprivlib.models"))
        try:
            import diffprivlib.mechanisms as dpm
        except ImportError as exc:
            print(f"diffprivlib not available ({exc}); skipped")
            return []
        note = " (diffprivlib.models stubbed: it does not import with this scikit-learn)"
    version = _version("diffprivlib")
    print(f"diffprivlib {version} with scikit-learn {_version('scikit-learn')}{note}")
    cases = []

    def batched(make, cast=float):
        def mechanism(value, n, rng):
            mech = make(int(rng.integers(2**31)))
            return np.array([mech.randomise(cast(value)) for _ in range(n)])
        return mechanism

    cases.append((f"diffprivlib {version} Laplace(epsilon=0.1, sensitivity=1)",
                  batched(lambda s: dpm.Laplace(epsilon=0.1, sensitivity=1.0, random_state=s)), 0.1, True, None))
    cases.append((f"diffprivlib {version} Snapping(epsilon=0.1, sensitivity=1, bounds [-100, 100])",
                  batched(lambda s: dpm.Snapping(epsilon=0.1, sensitivity=1.0, lower=-100.0, upper=100.0,
                                                 random_state=s)), 0.1, True, SLOW))
    cases.append((f"diffprivlib {version} Geometric(epsilon=0.1, sensitivity=1)",
                  batched(lambda s: dpm.Geometric(epsilon=0.1, sensitivity=1, random_state=s), cast=int),
                  0.1, False, None))
    cases.append((f"diffprivlib {version} Binary(epsilon=ln 3) (randomised response)",
                  batched(lambda s: dpm.Binary(epsilon=math.log(3), value0="0", value1="1", random_state=s),
                          cast=lambda v: str(int(v))), math.log(3), False, None))
    return cases


def opendp_cases():
    try:
        import opendp.prelude as dp
    except ImportError as exc:
        print(f"opendp not available ({exc}); skipped")
        return []
    dp.enable_features("contrib")
    version = _version("opendp")
    print(f"opendp {version}")
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
    meas = space >> dp.m.then_laplace(scale=10.0)
    eps = float(meas.map(1.0))

    def mechanism(value, n, rng):
        # opendp draws from its own secure generator; rng is not used
        return np.asarray(meas([float(value)] * n), dtype=np.float64)
    return [(f"opendp {version} make_laplace(scale=10) on floats (epsilon {eps:g} for sensitivity 1)",
             mechanism, eps, True, SLOW)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    rows = []
    for name, mech, eps, numeric, budget in diffprivlib_cases() + opendp_cases():
        for bits in ((False, True) if numeric else (False,)):
            t0 = time.perf_counter()
            n = args.samples if budget is None else min(budget, args.samples)
            res = audit_black_box(mech, PAIR, eps, n_samples=n, tolerance=0, float_bits=bits,
                                  rng=args.seed, progress=False)
            secs = time.perf_counter() - t0
            rows.append({"mechanism": name, "claimed_epsilon": eps, "float_bits": bits,
                         "epsilon_lower": res.epsilon_lower, "violation": res.violation,
                         "event": res.event, "counts": list(res.counts), "samples": res.samples,
                         "seconds": secs})
            print(f"{name}\n    float bits {'on ' if bits else 'off'}: epsilon >= {res.epsilon_lower:.4f} "
                  f"(claimed {eps:.4g}) {'VIOLATION' if res.violation else 'no violation found'}; "
                  f"{res.samples} outputs, {secs:.1f} s\n    event: {res.event[:150]}\n"
                  f"    counts (k, n, k', n'): {list(res.counts)}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
