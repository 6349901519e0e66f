"""Every file path the docs and the README cite exists (files move; their citations must follow)."""
import re

import pytest

from tests._support.paths import ROOT

PATH = re.compile(r"((?:tests|proofs_checks|refdp|benchmarks)/[\w/]+\.(?:pyx|pxd|py))\b")
DOCUMENTS = sorted((ROOT / "docs").rglob("*.rst")) + [ROOT / "README.md"]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_cited_paths_exist(document):
    missing = sorted({m.group(1) for m in PATH.finditer(document.read_text()) if not (ROOT / m.group(1)).exists()})
    assert not missing, f"{document.relative_to(ROOT)} cites missing files: {missing}"


def test_the_scan_finds_a_missing_path(tmp_path):
    # the pattern must see the citations it is meant to check, or the test above could not fail
    text = "see ``tests/test_pate_law.py::test_x`` and refdp/_core.pyx"
    assert [m.group(1) for m in PATH.finditer(text)] == ["tests/test_pate_law.py", "refdp/_core.pyx"]
