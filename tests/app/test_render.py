"""What the terminal says: ``agents list`` and ``list --waiting`` fit the
terminal's width, every id and timestamp whole."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from rich.console import Console

from agent_interrupts.app import render
from agent_interrupts.app.sdk import RunRow, WaitingRow

NOW = datetime(2026, 11, 26, 0, 49, 6, tzinfo=UTC)
STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
RUNS = [
    RunRow("caching-demo", "COMPLETION", "COMPLETED", NOW - timedelta(seconds=46), "add caching"),
    RunRow("orchestrator-6e03a2a7bcef", "PLANNING", "CONTINUED_AS_NEW", NOW, "add\ncaching " * 40),
]
QUESTION = "Two reasonable approaches exist for 'add caching' and the choice changes the scope."
WAITING = [
    WaitingRow("caching-demo-interrupt-1", "REVIEW_AGENT", QUESTION, NOW, NOW + timedelta(days=1))
]


def _printed(monkeypatch: pytest.MonkeyPatch, columns: int, show: Callable[[], None]) -> str:
    """What ``show`` prints on a terminal ``columns`` wide."""
    out = io.StringIO()
    monkeypatch.setattr(render, "console", Console(file=out, width=columns, highlight=False))
    show()
    return out.getvalue()


def _stamps(text: str) -> list[str]:
    return STAMP.findall(text)


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_list_fits_the_width_with_ids_and_times_whole(
    monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    shown = _printed(monkeypatch, columns, lambda: render.runs(RUNS))
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= columns, shown
    for row in RUNS:
        assert any(line.startswith(row.workflow_id + "  ") for line in lines), shown
    assert _stamps(shown) == ["2026-11-26 00:48:20", "2026-11-26 00:49:06"], shown
    assert any(line.rstrip().endswith("  add caching") for line in lines), shown
    assert "add caching add caching" in shown, "a goal's line breaks are spaces"
    assert shown.count("…") == 1, "the long goal is cut to one line, the short one is whole"


def test_list_puts_the_goal_under_the_row_when_the_row_leaves_too_little_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wide = _printed(monkeypatch, 120, lambda: render.runs(RUNS)).splitlines()
    assert wide[0].split() == ["id", "phase", "state", "started", "(UTC)", "goal"]
    assert len(wide) == 3, "one line a run"
    # 78 columns of ids, phases, states and times: at 80 the goal goes under its row
    narrow = _printed(monkeypatch, 80, lambda: render.runs(RUNS)).splitlines()
    assert narrow[0].split() == ["id", "phase", "state", "started", "(UTC)"]
    assert narrow[1].startswith("caching-demo ") and narrow[1].endswith("2026-11-26 00:48:20")
    assert narrow[2] == " " * render.QUESTION_INDENT + "add caching"
    # at 60 the start time goes on a line of its own under the row, the goal after it
    bands = _printed(monkeypatch, 60, lambda: render.runs(RUNS)).splitlines()
    assert bands[1].split() == ["started", "(UTC)", "goal"]
    assert bands[2].split() == ["caching-demo", "COMPLETION", "COMPLETED"]
    assert bands[3] == "  2026-11-26 00:48:20  add caching"


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_waiting_fits_the_width_with_ids_and_times_whole(
    monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    shown = _printed(monkeypatch, columns, lambda: render.waiting(WAITING, NOW))
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= columns, shown
    assert any(line.startswith("caching-demo-interrupt-1  REVIEW_AGENT  0s") for line in lines)
    assert _stamps(shown) == ["2026-11-27 00:49:06"], shown
    assert QUESTION in " ".join(shown.split()), "the question is whole, never cut mid-word"


def test_waiting_wide_is_one_line_a_question_however_narrow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = _printed(monkeypatch, 60, lambda: render.waiting(WAITING, NOW, wide=True)).splitlines()
    assert lines[1].startswith(
        "caching-demo-interrupt-1  REVIEW_AGENT  0s       2026-11-27 00:49:06  "
    )
    assert lines[1].endswith(QUESTION)


def test_a_column_wider_than_the_terminal_is_never_split(monkeypatch: pytest.MonkeyPatch) -> None:
    row = RunRow("x" * 50, "REVIEW", "RUNNING", NOW, "add caching")
    lines = _printed(monkeypatch, 40, lambda: render.runs([row])).splitlines()
    assert lines[2] == "x" * 50, "the id on a line of its own, whole, past the terminal's edge"
    assert all(len(line) <= 40 for line in lines if "x" * 50 not in line), lines
