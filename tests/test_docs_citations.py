"""The shipped text cites only what ships: the papers and the docs/theory pages.

refdp's docs and docstrings cite papers (author, theorem or equation) and the
pages of ``docs/theory/``. A citation of a document that is not in the
repository ("SPEC", "the sheet", "the reference sheet") cannot be followed by a
reader, so none may appear in ``refdp/``, ``docs/``, ``proofs_checks/`` or the
README.
"""
import re

from tests._support.paths import ROOT

SHIPPED = ("refdp", "docs", "proofs_checks")
SUFFIXES = {".py", ".pyx", ".pxd", ".rst", ".md", ".txt", ".toml", ".cfg", ".ini"}
#: "SPEC" as a word (upper case: ``inspect``, ``spec_from_file_location`` and
#: ``importlib``'s ``spec`` are fine), and the sheet in any case.
FORBIDDEN = re.compile(r"\bSPEC\b|\b(?i:the\s+(?:reference\s+)?sheet|reference\s+sheet)\b")


def _shipped_files(root):
    yield root / "README.md"
    for top in SHIPPED:
        for path in sorted((root / top).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and "_build" not in path.parts:
                yield path


def _citations(paths):
    """(file, line number, line) of every citation of a document that is not shipped."""
    out = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        # a citation may be broken across lines ("the reference\nsheet")
        joined = re.sub(r"\s+", " ", text)
        if not FORBIDDEN.search(joined):
            continue
        lines = text.splitlines()
        hits = [(path, i + 1, line.strip()) for i, line in enumerate(lines) if FORBIDDEN.search(line)]
        out.extend(hits or [(path, 0, FORBIDDEN.search(joined).group(0))])
    return out


def test_no_citation_of_a_document_that_is_not_shipped():
    files = list(_shipped_files(ROOT))
    assert len(files) > 100 and ROOT / "docs" / "theory" / "stability.rst" in files
    found = _citations(files)
    assert not found, "\n".join(f"{p.relative_to(ROOT)}:{n}: {line}" for p, n, line in found)


def test_the_scan_finds_each_form(tmp_path):
    """The scan can fail: each form of the citation is found, the harmless words are not."""
    cases = {
        "a.py": ("x = 1  # SPEC section 2\n", True),
        "b.rst": ("the constants of the project's reference\nsheet\n", True),
        "c.md": ("as on The Sheet, section 5\n", True),
        "d.py": ("spec = importlib.util.spec_from_file_location(name, path)\n", False),
        "e.rst": ("inspect the spectrum; a spreadsheet of results\n", False),
    }
    for name, (text, bad) in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert bool(_citations([path])) is bad, name
