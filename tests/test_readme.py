"""The README's two quick-start commands and .ci/run stay in step."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _quick_start_commands():
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Quick start.*?```bash\n(.*?)```", text, re.S).group(1)
    return [ln for ln in block.splitlines() if ln.strip() and not ln.startswith("#")]


def test_readme_has_exactly_two_commands():
    cmds = _quick_start_commands()
    assert len(cmds) == 2
    assert cmds[0].endswith("pip install '.[exact]' && refdp verify")
    assert "pip install -e '.[test]'" in cmds[1] and cmds[1].endswith("python -m pytest")


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert _quick_start_commands()[1] in ci
