"""The suite starts with its longest tests (``SLOWEST_FIRST`` in ``tests/conftest.py``): every
entry names a test that exists, and the order puts them first, longest first, the rest after
them in their own order."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import SLOWEST_FIRST, slowest_first_rank

ROOT = Path(__file__).resolve().parents[1]


def _tests_in(path: Path) -> set[str]:
    """The test functions a test file defines at its top level."""
    tree = ast.parse(path.read_text())
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    }


def test_every_entry_names_a_test_that_exists() -> None:
    for name in SLOWEST_FIRST:
        path, _, function = name.partition("::")
        assert (ROOT / path).is_file(), f"{name}: no such file; fix SLOWEST_FIRST"
        assert function in _tests_in(ROOT / path), f"{name}: no such test; fix SLOWEST_FIRST"
    assert len(set(SLOWEST_FIRST)) == len(SLOWEST_FIRST), "an entry twice in SLOWEST_FIRST"


def test_the_named_tests_start_first_in_the_lists_order_and_the_rest_keep_theirs() -> None:
    readme, whole_run, first_reply = SLOWEST_FIRST[:3]
    collected = [
        "tests/activities/test_agents.py::test_a",
        f"{first_reply}[ORCHESTRATOR]",
        "tests/models/test_limits.py::test_b",
        f"{whole_run}",
        "tests/activities/test_agents.py::test_a2",
        f"{first_reply}[TICKET_AGENT]",
        readme,
        f"{readme}_not_the_same_test",
    ]
    assert sorted(collected, key=slowest_first_rank) == [
        readme,
        whole_run,
        f"{first_reply}[ORCHESTRATOR]",
        f"{first_reply}[TICKET_AGENT]",
        "tests/activities/test_agents.py::test_a",
        "tests/models/test_limits.py::test_b",
        "tests/activities/test_agents.py::test_a2",
        f"{readme}_not_the_same_test",
    ]
