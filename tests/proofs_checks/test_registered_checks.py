"""Every registered check runs under pytest, and every private mechanism has one.

The quick checks run in the default test run; the full sweeps (registered with
``quick=False``) carry the ``slow`` marker and run in ``refdp verify`` and in
``pytest -m slow``.
"""
import importlib
import pkgutil

import pytest

import refdp
from refdp.verify.registry import all_checks, run_check

CHECKS = all_checks()


@pytest.mark.parametrize(
    "check",
    [pytest.param(c, id=c.name, marks=() if c.quick else pytest.mark.slow) for c in CHECKS],
)
def test_registered_check_holds(check):
    out = run_check(check)
    assert out.result is not None, out.error
    assert out.passed, (
        f"{check.name}: verdict {out.result.verdict}, measured {out.result.measured}, "
        f"bound {out.result.bound}; {out.result.detail}")


def _private_mechanisms():
    """Fully qualified names listed in any refdp module's PRIVATE_MECHANISMS."""
    names = set()
    for info in pkgutil.walk_packages(refdp.__path__, prefix="refdp."):
        if info.name.split(".")[-1].startswith("_") or info.name == "refdp.cli":
            continue
        mod = importlib.import_module(info.name)
        names.update(getattr(mod, "PRIVATE_MECHANISMS", ()))
    return sorted(names)


def _resolve(qualname):
    """Import the longest importable proper module prefix, then follow attributes (methods too)."""
    parts = qualname.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(qualname)


def test_every_private_mechanism_has_a_registered_check():
    mechanisms = _private_mechanisms()
    assert mechanisms, "no module declares PRIVATE_MECHANISMS"
    for m in mechanisms:
        assert callable(_resolve(m)), m
    covered = {name for c in CHECKS for name in c.covers}
    missing = [m for m in mechanisms if m not in covered]
    assert not missing, f"private mechanisms without a registered privacy check: {missing}"


def test_covered_names_exist():
    for c in CHECKS:
        for name in c.covers:
            assert callable(_resolve(name)), (c.name, name)


def test_check_names_are_unique_and_documented():
    names = [c.name for c in CHECKS]
    assert len(names) == len(set(names))
    for c in CHECKS:
        mod = importlib.import_module(c.module)
        assert mod.__doc__ and "Claim" in mod.__doc__ and "Precision" in mod.__doc__, c.module


def test_check_names_carry_their_source():
    """Every check is named ``<source>.<claim>`` with ``<source>`` the subpackage of
    ``proofs_checks`` it lives in, so ``refdp verify --only <source>.`` selects exactly
    that source's checks (the CLI selects by substring)."""
    sources = {}
    for c in CHECKS:
        parts = c.module.split(".")
        assert parts[0] == "proofs_checks" and len(parts) == 3, c.module
        source, claim = c.name.split(".", 1)
        assert source == parts[1], (c.name, c.module)
        assert claim and "." not in claim and claim.isidentifier(), c.name
        sources.setdefault(source, set()).add(c.name)
    assert {"dwork_feldman", "chaudhuri", "wang_kifer_lee", "pate", "refdp", "audit"} <= set(sources)
    for source, names in sources.items():
        assert {c.name for c in CHECKS if f"{source}." in c.name} == names, source
