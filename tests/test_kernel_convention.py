"""The compiled-code convention of docs/kernels.rst holds.

Every compiled module ``refdp/_<name>.pyx`` (and the shared formula header
``refdp/_bounds.pxd``) has its twin ``refdp/twins/<name>.py``; only
:mod:`refdp.core` imports a compiled module; every formula of the header has
a twin of the same name that gives the same double; the docs table names
every compiled module, twin module and wrapper.
"""
from __future__ import annotations

import importlib
import pathlib
import re

import numpy as np
import pytest

from refdp import core
from refdp.twins import bounds

ROOT = pathlib.Path(__file__).resolve().parents[1]
PKG = ROOT / "refdp"
COMPILED = sorted(p.stem for p in PKG.glob("_*.pyx"))
# headers without a module of their own: _bounds holds formulas (twin: twins/bounds.py),
# _checks the entry points' argument checks (no computation, so no twin)
HEADERS = ["_bounds"]


def test_every_compiled_module_and_header_has_its_twin_module():
    assert COMPILED == ["_core", "_erm", "_fft", "_lnmax"]
    assert sorted(p.stem for p in PKG.glob("_*.pxd") if not (PKG / f"{p.stem}.pyx").exists()) == \
        ["_bounds", "_checks"]
    for stem in COMPILED + HEADERS:
        assert (PKG / "twins" / f"{stem[1:]}.py").exists(), stem
        importlib.import_module(f"refdp.twins.{stem[1:]}")


def test_only_refdp_core_imports_the_compiled_modules():
    names = "|".join(re.escape(s) for s in COMPILED)
    pattern = re.compile(rf"(from\s+\.+\s+import\s+[^\n]*\b({names})\b|from\s+\.*({names})\s+import"
                         rf"|import\s+refdp\.({names})\b|from\s+refdp(\.\w+)*\s+import\s+[^\n]*\b({names})\b"
                         rf"|from\s+refdp\.({names})\s+import)")
    offenders = []
    for path in PKG.rglob("*.py"):
        if path == PKG / "core.py":
            continue
        for line in path.read_text().splitlines():
            if pattern.search(line):
                offenders.append(f"{path.relative_to(ROOT)}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def _header_functions():
    text = (PKG / "_bounds.pxd").read_text()
    funcs = re.findall(r"^cdef inline double (\w+)\(", text, re.M)
    consts = re.findall(r'^\s+const double (\w+) "', text, re.M)
    return funcs, consts


def test_every_header_formula_has_a_twin_of_the_same_name():
    funcs, consts = _header_functions()
    assert {"pate_theorem2", "pate_theorem2_bound", "upward_sum_factor"} <= set(funcs)
    assert consts == ["EPS", "UNIT_ROUNDOFF"]
    assert sorted(funcs + consts) == sorted(bounds.__all__)
    assert bounds.EPS == 2.0**-52 and bounds.UNIT_ROUNDOFF == 2.0**-53


@pytest.mark.parametrize("gamma", [1e-3, 0.05, 0.1, 0.5, 3.0, 40.0])
def test_bounds_header_equals_its_twin(gamma):
    # With one query of log q = 0 (q = 1, outside Theorem 3's range) the compiled
    # accountant returns min(Theorem 2, pure DP) times the upward-sum factor of
    # one term, all evaluated by the header's inline functions: the twin's
    # formulas must give the same doubles.
    orders = np.concatenate([np.linspace(0.25, 256.0, 200), [1e-6, 1e3, 1e6]])
    got = core.accountant_log_moments(np.array([0.0]), orders, gamma)
    want = (np.minimum(bounds.pate_theorem2_bound(gamma, orders),
                       bounds.pure_dp_log_moment_bound(gamma, orders)) * bounds.upward_sum_factor(1))
    assert np.array_equal(got, want)
    # scalar and vector evaluations of each twin formula are the same doubles
    for lam in orders[::17]:
        assert bounds.pate_theorem2_bound(gamma, float(lam)) == bounds.pate_theorem2_bound(gamma, orders[orders == lam])[0]
    # the rounded bounds are the plain ones times their factors, never below them
    assert np.all(bounds.pate_theorem2_bound(gamma, orders) > bounds.pate_theorem2(gamma, orders))
    assert np.all(bounds.pure_dp_log_moment_bound(gamma, orders) > bounds.pure_dp_log_moment(gamma, orders))


def test_docs_table_names_every_module_twin_and_wrapper():
    text = (ROOT / "docs" / "kernels.rst").read_text()
    for stem in COMPILED:
        assert f"``{stem}." in text, stem
    for stem in COMPILED + HEADERS:
        assert f"twins.{stem[1:]}" in text, stem
    wrappers = ["projected_walk_log_odds", "count_votes", "laplace_difference_tail", "lemma4_log_q",
                "accountant_log_moments", "logsumexp", "uniform_below_draw", "bernoulli_exp_draw",
                "geometric_exp_draw", "discrete_laplace_draws", "discrete_gaussian_draws",
                "lnmax_log_law_rows", "lnmax_exact_rows", "discrete_exact_rows", "fft_inplace", "pair_products",
                "power_products",
                "margin_pass_blocks", "row_norm_sign", "lazy_normal_draws", "geometric_exp_draws",
                "column_abs_sums"]
    for name in wrappers:
        assert callable(getattr(core, name)), name
        assert f"``{name}``" in text, name
    funcs, consts = _header_functions()
    for name in funcs + consts:
        assert f"``{name}``" in text, name
