"""Code blocks of the reStructuredText pages (the docs tests run them)."""
import re


def python_blocks(rst_path):
    """The ``.. code-block:: python`` blocks of a reStructuredText page, dedented."""
    with open(rst_path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if re.match(r"\s*\.\. code-block:: python\s*$", lines[i]):
            indent = len(lines[i]) - len(lines[i].lstrip()) + 3
            i += 1
            body = []
            while i < len(lines) and (not lines[i].strip() or
                                      len(lines[i]) - len(lines[i].lstrip()) >= indent):
                body.append(lines[i][indent:])
                i += 1
            blocks.append("\n".join(body).strip("\n") + "\n")
        else:
            i += 1
    return blocks
