"""The tests' layout: it mirrors the package, and tests import only refdp, the checks' public modules and tests/_support.

* every directory of ``tests/`` that holds test modules is a package (an
  ``__init__.py``), so that pytest imports ``tests/pate/test_cli.py`` and
  ``tests/audit/test_cli.py`` as different modules;
* each of those directories is named after a subpackage of ``refdp`` or after
  ``proofs_checks``;
* no test module imports another test module (shared helpers live in
  ``tests/_support/`` or in ``tests/conftest.py`` fixtures);
* no test imports a private module or name of ``proofs_checks`` (a helper a
  test needs is public in the checks), and no check imports another check's
  private parts; every check module lives in a source's subpackage.
"""
import ast
from pathlib import Path

import refdp
from tests._support.paths import ROOT

TESTS = ROOT / "tests"
PACKAGE = Path(refdp.__file__).resolve().parent


def _test_dirs():
    return sorted({p.parent for p in TESTS.rglob("test_*.py")})


def _modules():
    return sorted(p for p in TESTS.rglob("*.py") if "_support" not in p.relative_to(TESTS).parts)


def _imports(path):
    """(module, names, level) of every import statement of a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, (), 0
        elif isinstance(node, ast.ImportFrom):
            yield node.module or "", tuple(a.name for a in node.names), node.level


def test_every_test_directory_is_a_package_named_after_the_code_it_tests():
    dirs = _test_dirs()
    assert TESTS in dirs and len(dirs) > 5
    for d in dirs:
        rel = d.relative_to(TESTS).parts
        assert (d / "__init__.py").is_file(), f"{d} holds tests but has no __init__.py"
        if rel:
            assert rel[0] == "proofs_checks" or (PACKAGE / rel[0] / "__init__.py").is_file(), \
                f"tests/{'/'.join(rel)} names neither a subpackage of refdp nor proofs_checks"
            assert len(rel) == 1, f"tests/{'/'.join(rel)}: one level below tests/"


def _test_imports(paths, test_names):
    """(file, module) of each import of a test module (or any relative import) in ``paths``."""
    out = []
    for path in paths:
        for module, names, level in _imports(path):
            top = module.split(".")
            if level:   # relative imports inside tests/ reach other test modules
                out.append((path, "." * level + module))
            elif top[0] == "tests" and (len(top) < 2 or top[1] != "_support"):
                out.append((path, module))
            elif top[0] in test_names or top[-1] in test_names:
                out.append((path, module))
    return out


def _private_check_imports(paths):
    """(file, module, names) of each import of a private module or name of proofs_checks."""
    out = []
    for path in paths:
        for module, names, level in _imports(path):
            parts = module.split(".")
            if parts[0] == "proofs_checks" and (any(p.startswith("_") for p in parts[1:])
                                                or any(n.startswith("_") for n in names)):
                out.append((path, module, names))
    return out


TEST_NAMES = {p.stem for p in TESTS.rglob("test_*.py")} | {"conftest"}


def test_no_test_imports_another_test():
    offending = _test_imports(_modules(), TEST_NAMES)
    assert not offending, offending


def test_no_test_imports_private_parts_of_the_checks():
    offending = _private_check_imports(_modules())
    assert not offending, offending


def test_no_check_imports_private_parts_of_another_check():
    """The checks share helpers through public modules (proofs_checks/common/ or the source's own)."""
    paths = sorted((ROOT / "proofs_checks").rglob("*.py"))
    assert len(paths) > 50
    offending = _private_check_imports(paths)
    assert not offending, offending
    for path in paths:   # every module lives in a source's subpackage
        rel = path.relative_to(ROOT / "proofs_checks").parts
        assert len(rel) == 2 or rel == ("__init__.py",), path


def test_the_layout_checks_catch_what_they_forbid(tmp_path):
    """The two checks above can fail: each forbidden import in a file is reported."""
    bad = tmp_path / "test_bad.py"
    bad.write_text("from tests.test_docs import DOCS\nfrom proofs_checks.common import _x\n"
                   "from . import conftest\nimport test_core\nfrom proofs_checks._y import z\n"
                   "from tests._support.paths import ROOT\nfrom proofs_checks.pate import reference\n",
                   encoding="utf-8")
    assert [m for _, m in _test_imports([bad], TEST_NAMES)] == ["tests.test_docs", ".", "test_core"]
    assert [(m, n) for _, m, n in _private_check_imports([bad])] == [
        ("proofs_checks.common", ("_x",)), ("proofs_checks._y", ("z",))]
