"""Recorded float-safe objective-perturbation releases: the same seeds must give the same cells.

The float-safe release (``docs/theory/secure_noise.rst``, Theorem 7) is a
deterministic function of the seed: the exact lazy draw of ``b`` consumes the
bit generator's words in a fixed order, and the certified cell search decides
when more digits are drawn. A faster implementation of either part must
release the same cells for the same seeds. :func:`cases` lists a fixed set of
problems (logistic and Huber losses, pure DP and zCDP, the paper's and the
improved budget, from d = 1 to d = 40, two problems where the start point
takes quasi-Newton steps, and one above the solver's strided-Hessian
threshold) with their seeds; ``RECORD`` holds the releases of
the implementation of commit 57bfe0d (pure-Python lazy draw and cell
search), written as hexadecimal doubles by::

    python -m tests._support.float_safe_releases

The test ``tests/erm/test_float_safe_releases.py`` recomputes every release
with the current code and requires each to equal its record bit for bit.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import numpy as np

RECORD = Path(__file__).with_name("float_safe_releases.json")


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= 1.01 * np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


#: (name, n, d, loss, privacy, budget parameter, improved, Lambda, seeds)
PROBLEMS = [
    ("logistic-1d", 40, 1, "logistic", "dp", 1.0, True, 0.05, range(12)),
    ("huber-1d", 25, 1, "huber", "dp", 0.3, False, 0.1, range(12)),
    ("logistic-3d", 200, 3, "logistic", "dp", 0.5, True, 0.01, range(12)),
    ("logistic-10d-paper", 500, 10, "logistic", "dp", 1.0, False, 1e-3, range(12)),
    ("logistic-10d-eps10", 300, 10, "logistic", "dp", 10.0, True, 1e-2, range(8)),
    ("logistic-10d-eps01", 300, 10, "logistic", "dp", 0.1, False, 1e-3, range(8)),
    ("huber-5d", 150, 5, "huber", "dp", 1.0, True, 0.02, range(12)),
    ("huber-narrow-4d", 120, 4, "huber0.01", "dp", 2.0, True, 0.05, range(6)),
    ("logistic-31d", 400, 31, "logistic", "dp", 1.0, False, 1e-3, range(6)),
    ("zcdp-logistic-4d", 200, 4, "logistic", "zcdp", 0.5, True, 0.01, range(10)),
    ("zcdp-huber-6d", 250, 6, "huber", "zcdp", 2.0, False, 0.01, range(8)),
    ("logistic-strided-5d", 60_000, 5, "logistic", "dp", 1.0, True, 1e-3, range(2)),
    # recorded later, from the same commit: where the start point takes L-BFGS steps first
    ("logistic-40d-quasi-newton", 6000, 40, "logistic", "dp", 1.0, False, 1e-3, range(4)),
    ("huber-36d-quasi-newton", 5000, 36, "huber", "dp", 2.0, True, 1e-2, range(3)),
]


def _loss(name):
    from refdp.erm import HuberHingeLoss, LogisticLoss

    if name == "logistic":
        return LogisticLoss()
    return HuberHingeLoss(0.01 if name == "huber0.01" else 0.5)


def release(problem, seed):
    """The released theta of one problem and seed (the public float-safe entry points)."""
    return release_result(problem, seed).theta


def release_result(problem, seed):
    """The result of one problem's release for one seed."""
    from refdp.erm import objective_perturbation
    from refdp.erm.objective_perturbation_zcdp import objective_perturbation_zcdp

    name, n, d, loss, privacy, param, improved, lam, _ = problem
    X, y = _data(n, d, sum(map(ord, name)))
    if privacy == "dp":
        return objective_perturbation(X, y, _loss(loss), epsilon=param, regularization=lam, improved=improved,
                                      rng=seed)
    return objective_perturbation_zcdp(X, y, _loss(loss), rho=param, regularization=lam, improved=improved,
                                       rng=seed)


#: Modes of the cell search: the default; few digits drawn at first and at
#: each refinement (so that the search refines the draw and takes Newton
#: steps, which the default rarely needs); the float certificate disabled (so
#: that every cell is decided by the exact stage; small problems only).
MODES = {"default": None, "coarse": (4, 3), "exact": "exact"}
EXACT_MODE_PROBLEMS = ("logistic-1d", "huber-1d", "logistic-3d", "huber-5d", "zcdp-logistic-4d")


@contextmanager
def mode(name):
    """Run the releases in one of :data:`MODES` (module constants patched, then restored)."""
    from refdp.erm import _grid_minimiser as gm

    saved = (gm.START_BITS, gm.REFINE_BITS, gm.GridMinimiser.float_gradient,
             gm.grid_cell_minimiser.__kwdefaults__)
    try:
        if name == "coarse":
            gm.START_BITS, gm.REFINE_BITS = MODES[name]
            if (saved[3] or {}).get("refine_bits") is not None:     # a default bound at definition
                gm.grid_cell_minimiser.__kwdefaults__ = dict(saved[3], refine_bits=gm.REFINE_BITS)
        elif name == "exact":
            real = saved[2]

            def useless(self, theta, g):
                grad, err = real(self, theta, g)
                return grad, err + 1e9                  # the float certificate never decides
            gm.GridMinimiser.float_gradient = useless
        yield
    finally:
        gm.START_BITS, gm.REFINE_BITS, gm.GridMinimiser.float_gradient = saved[:3]
        gm.grid_cell_minimiser.__kwdefaults__ = saved[3]


def cases():
    """(mode, problem, seed) triples, in the record's order."""
    out = [("default", p, s) for p in PROBLEMS for s in p[-1]]
    out += [("coarse", p, s) for p in PROBLEMS for s in list(p[-1])[:6]]
    out += [("exact", p, s) for p in PROBLEMS if p[0] in EXACT_MODE_PROBLEMS for s in list(p[-1])[:4]]
    return out


def key(mode_name, problem, seed):
    return f"{mode_name}/{problem[0]}/{seed}"


def releases():
    """{key: released theta as hexadecimal doubles} of every case, computed now."""
    out = {}
    for name in MODES:
        with mode(name):
            for m, p, s in cases():
                if m == name:
                    out[key(m, p, s)] = [float(t).hex() for t in release(p, s)]
    return out


def load():
    return json.loads(RECORD.read_text(encoding="utf-8"))


def main():
    out = releases()
    RECORD.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(out)} releases written to {RECORD}")


if __name__ == "__main__":
    main()
