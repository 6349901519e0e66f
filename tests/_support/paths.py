"""The repository's directories, wherever the test that needs them lives."""
from pathlib import Path

#: The repository root (the directory holding ``refdp/``, ``docs/`` and ``tests/``).
ROOT = Path(__file__).resolve().parent.parent.parent
#: The Sphinx sources.
DOCS = str(ROOT / "docs")
#: The benchmark scripts.
BENCHMARKS = str(ROOT / "benchmarks")
