"""The verification command a workspace declares or implies."""

from __future__ import annotations

import tomllib
from pathlib import Path

PYTEST = "python -m pytest -q -rfEp"
"""The default for a Python workspace with tests: one summary line per test, for parsing."""


def default_test_command(tree: Path) -> str | None:
    """The workspace's own test command: ``[tool.agents] test-command`` in its pyproject.toml,
    else pytest for a Python project with tests, ``npm test``, ``make test``; None: none."""
    pyproject = tree / "pyproject.toml"
    if pyproject.is_file():
        try:
            declared = tomllib.loads(pyproject.read_text()).get("tool", {}).get("agents", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            declared = {}
        if isinstance(command := declared.get("test-command"), str) and command.strip():
            return command.strip()
    python = any((tree / f).is_file() for f in ("pyproject.toml", "setup.py", "pytest.ini"))
    if python or any(tree.glob("test_*.py")) or (tree / "tests").is_dir():
        return PYTEST
    if (tree / "package.json").is_file():
        return "npm test"
    makefile = tree / "Makefile"
    if makefile.is_file() and "\ntest:" in "\n" + makefile.read_text(errors="replace"):
        return "make test"
    return None
