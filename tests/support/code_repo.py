"""A fixture repository whose tests fail until the offline ticket agents' edits land.

``.agents/offline-edits.json`` tells the offline model what each ticket changes: T-001 fixes
``add``, T-002 fixes ``mul`` (a clean merge whose tests pass), or, with ``conflict``, both rewrite
the same line of ``add`` differently (the merge conflicts).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.support.workspace import git

OPS = """\
def add(a, b):
    return a - b  # bug


def unchanged(a):
    return a


def mul(a, b):
    return a + b  # bug
"""
TESTS = """\
from calc.ops import add, mul


def test_add():
    assert add(2, 3) == 5


def test_mul():
    assert mul(2, 3) == 6
"""
FIXES = {
    "T-001": [{"path": "calc/ops.py", "old": "return a - b  # bug", "new": "return a + b"}],
    "T-002": [{"path": "calc/ops.py", "old": "return a + b  # bug", "new": "return a * b"}],
}
CONFLICTING = {
    "T-001": [{"path": "calc/ops.py", "old": "return a - b  # bug", "new": "return a + b"}],
    "T-002": [{"path": "calc/ops.py", "old": "return a - b  # bug", "new": "return b + a"}],
}
TEST_COMMAND = f"{sys.executable} -m pytest -q -rfEp -p no:cacheprovider"
"""This interpreter's pytest: the sandbox keeps the worker's PATH, which may not lead to it."""


def make_code_repo(root: Path, *, conflict: bool = False) -> Path:
    """A committed repository with a failing test and the offline agents' edits."""
    repo = root / "calc-repo"
    (repo / "calc").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / ".agents").mkdir()
    (repo / "calc" / "__init__.py").write_text("")
    (repo / "calc" / "ops.py").write_text(OPS)
    (repo / "tests" / "test_ops.py").write_text(TESTS)
    edits = CONFLICTING if conflict else FIXES
    (repo / ".agents" / "offline-edits.json").write_text(json.dumps({"edits": edits}, indent=1))
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "calc with failing tests")
    return repo
