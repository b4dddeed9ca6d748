"""A readable terminal: questions wrap to the width rich reads from COLUMNS,
whole and never cut mid-word; ``list --waiting`` shows the whole question; ``resolve`` speaks in
flags; ``status`` of an answered question shows the answer; an over-long goal is one line;
``list`` and ``list --waiting`` fit the width with ids and times whole."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from tests.cli.support import agents, free_port, stack_env

GOAL = "add caching to the gateway's session lookups without touching the billing service"
TIMESTAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"
QUESTION = (
    f"Two reasonable approaches exist for '{GOAL}' and the choice changes the scope of the work."
)


def _at(env: dict[str, str], columns: int) -> dict[str, str]:
    return {**env, "COLUMNS": str(columns)}


def _joined(text: str) -> str:
    """The text as one line of words: box edges and indents gone, lines joined by a space (a
    word cut across lines would show as two)."""
    lines = (line.strip().strip("│").strip() for line in text.splitlines())
    return re.sub(r"\s+", " ", " ".join(lines))


def _whole_times(text: str) -> bool:
    """Every timestamp (a run's start, a question's deadline) is whole on its line."""
    dates = re.findall(r"\d{4}-\d\d-\d\d\b", text)
    return bool(dates) and len(dates) == len(re.findall(TIMESTAMP, text))


def _one_line_error(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_questions_wrap_whole_and_resolve_speaks_in_flags(stack: dict[str, str]) -> None:
    run_id = f"wrap-{uuid.uuid4().hex[:8]}"
    interrupt_id = f"{run_id}-interrupt-1"
    scenario = "interrupt=REVIEW_AGENT"
    run = agents(
        _at(stack, 60), "run", GOAL, "--id", run_id, "--scenario", scenario, "--stop-at-question"
    )
    assert run.returncode == 0, run.stderr
    assert max(len(line) for line in run.stdout.splitlines()) <= 60, run.stdout
    assert QUESTION in _joined(run.stdout)

    for columns in (60, 120):
        listed = agents(_at(stack, columns), "list", "--waiting")
        assert listed.returncode == 0, listed.stderr
        assert max(len(line) for line in listed.stdout.splitlines()) <= columns, listed.stdout
        assert QUESTION in _joined(listed.stdout)
        assert _whole_times(listed.stdout), listed.stdout
    for columns in (60, 80):  # the widths that split rows (120 is in tests/app/test_render.py)
        runs = agents(_at(stack, columns), "list")
        assert runs.returncode == 0, runs.stderr
        assert max(len(line) for line in runs.stdout.splitlines()) <= columns, runs.stdout
        assert any(line.startswith(f"{run_id}  ") for line in runs.stdout.splitlines())
        assert _whole_times(runs.stdout), runs.stdout
    wide = agents(_at(stack, 60), "list", "--waiting", "--wide")
    assert any(line.endswith(QUESTION) for line in wide.stdout.splitlines()), wide.stdout

    not_offered = agents(stack, "resolve", interrupt_id, "--choice", "approach=C")
    assert not_offered.returncode == 2
    line = _one_line_error(not_offered.stderr)
    assert "--choice approach=C: use one of A, B, CUSTOM;" in line
    assert "add --confirm add-tests=yes|no" in line
    empty = agents(
        stack, "resolve", interrupt_id, "--choice", "approach=CUSTOM", "--confirm", "add-tests=no"
    )
    assert 'needs your approach: --custom approach="..."' in _one_line_error(empty.stderr)
    assert "customInputs" not in empty.stderr

    answered = agents(
        stack, "resolve", interrupt_id, "--custom", "approach=a read-through cache",
        "--confirm", "add-tests=no",
    )  # fmt: skip
    assert answered.returncode == 0, answered.stderr
    assert "accepted: REVIEW_AGENT resumes" in answered.stdout
    status = agents(_at(stack, 120), "status", interrupt_id)
    assert status.returncode == 0, status.stderr
    shown = _joined(status.stdout[status.stdout.index("answer:") :])
    assert '-> CUSTOM: "a read-through cache"' in shown
    assert "Add regression tests for the changed behaviour -> no" in shown


def test_a_goal_over_the_limit_is_one_line_naming_it(tmp_path: Path) -> None:
    env = stack_env(tmp_path, free_port(), free_port())
    done = agents(env, "run", "x" * 20_000)
    assert done.returncode == 2
    assert "over the limit of 8,000" in _one_line_error(done.stderr)
    assert not (tmp_path / "stack.json").exists(), "nothing was started for a bad goal"
