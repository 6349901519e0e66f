"""``python -m refdp``: the same command line as ``refdp``."""
import sys

from refdp.cli import main

if __name__ == "__main__":  # pragma: no cover - exercised by a subprocess test
    sys.exit(main())
