"""The package layout: what two packages share lives in refdp.utils, never in one package's private module.

Every module of ``refdp/`` is parsed (``ast``, so strings and comments do not
count) and each import is resolved to the module it names, relative imports
included, and ``from pkg import _mod`` counted as an import of ``pkg._mod``.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "refdp"

#: Top-level private modules other packages may import: the compiled cores (their
#: twins are the public package refdp.twins).
TOP_LEVEL_ALLOWED = {"_core", "_erm", "_fft", "_lnmax"}

#: The packages of papers and tools, which refdp.utils (the bottom layer) never imports.
UPPER_PACKAGES = {"accounting", "audit", "erm", "learning", "mechanisms", "pate", "prediction", "verify"}


def _module_name(path: Path) -> tuple[str, ...]:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def _is_module(parts) -> bool:
    base = ROOT.joinpath(*parts)
    if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file() or base.with_suffix(".pyx").is_file():
        return True
    return any(base.parent.glob(base.name + ".*.so"))


def _imports(path: Path):
    """``(line, imported module as a tuple of names)`` for every import of ``path``."""
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, tuple(alias.name.split("."))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = base + (tuple(node.module.split(".")) if node.module else ())
            else:
                target = tuple(node.module.split("."))
            yield node.lineno, target
            for alias in node.names:
                if _is_module(target + (alias.name,)):
                    yield node.lineno, target + (alias.name,)


def _private_owner(target):
    """The package owning the first private (underscore) module of ``target``, or None if none is private."""
    if not target or target[0] != "refdp":
        return None
    for i, name in enumerate(target):
        if name.startswith("_") and not name.startswith("__"):
            if i == 1 and name in TOP_LEVEL_ALLOWED:
                return None
            return target[:i]
    return None


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if "build" not in p.parts)


def cross_package_private_imports():
    """``(file, line, module)`` of every import of another package's private module."""
    found = []
    for path in _modules():
        me = _module_name(path)
        for line, target in _imports(path):
            owner = _private_owner(target)
            if owner is None:
                continue
            # a top-level private module (refdp._x) is private to no subpackage: importing it is always reaching in
            if len(owner) == 1 or me[: len(owner)] != owner:
                found.append((str(path.relative_to(ROOT)), line, ".".join(target)))
    return found


def test_scanner_sees_every_form_of_import(tmp_path, monkeypatch):
    # the scanner must catch the forms it is meant to catch, or the layout test below could not fail
    pkg = tmp_path / "refdp"
    for sub in ("a", "b"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "_helper.py").write_text("")
    (pkg / "_core.pyx").write_text("")
    (pkg / "a" / "_private.py").write_text("")
    (pkg / "a" / "inside.py").write_text("from ._private import x\nfrom . import _private\n")
    (pkg / "b" / "user.py").write_text(
        "from ..a._private import x\n"
        "from ..a import _private\n"
        "import refdp.a._private as p\n"
        "from refdp._helper import y\n"
        "from .. import _core\n"
        "x = 'from ..a._private import z'\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)
    found = {(f, line) for f, line, _ in cross_package_private_imports()}
    assert found == {("refdp/b/user.py", 1), ("refdp/b/user.py", 2), ("refdp/b/user.py", 3),
                     ("refdp/b/user.py", 4)}


def test_no_module_imports_another_packages_private_module():
    found = cross_package_private_imports()
    assert not found, "imports of another package's private module:\n" + "\n".join(
        f"  {f}:{line} imports {mod}" for f, line, mod in found)


@pytest.mark.parametrize("path", sorted((PACKAGE / "utils").glob("*.py")), ids=lambda p: p.name)
def test_shared_package_imports_no_paper_package(path):
    # refdp.utils is the bottom layer: what it imports cannot import it back
    upward = [(line, ".".join(t)) for line, t in _imports(path)
              if len(t) > 1 and t[0] == "refdp" and t[1] in UPPER_PACKAGES]
    assert not upward, f"{path.name} imports {upward}"


def test_moved_private_modules_are_gone():
    # moved, not copied: no shim is left at the old places
    for old in ("_precision.py", "_rounding.py", "_repr.py", "mechanisms/_exact.py", "mechanisms/_float_safe.py",
                "mechanisms/_lazy.py", "mechanisms/_inversion.py", "mechanisms/_discrete_argmax.py",
                "prediction/_partition.py", "erm/_solver.py", "erm/losses.py",
                "accounting/_gaussian_exact.py", "accounting/_discrete_gaussian_profile.py"):
        assert not (PACKAGE / old).exists(), old


def test_one_logistic_loss():
    import refdp.erm
    import refdp.prediction
    from refdp.utils.losses import HuberLoss, LogisticLoss

    assert refdp.erm.LogisticLoss is refdp.prediction.LogisticLoss is LogisticLoss
    assert refdp.prediction.HuberLoss is HuberLoss
