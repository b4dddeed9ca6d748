"""What a fork says of itself when it starts (``workflows/forks.py``)."""

from __future__ import annotations

from datetime import UTC, datetime

from agent_interrupts.models.forks import ForkLink, ForkParent, ForkPoint, ForkPointKind
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.workflows.forks import asked_again_because, forked_from


def test_the_first_event_names_parent_point_and_who() -> None:
    link = ForkLink(
        parent=ForkParent(workflow_id="run-1", run_id="r1"),
        point=ForkPoint(kind=ForkPointKind.QUESTION, question_id="run-1-interrupt-2"),
        answer=InterruptResolution(answered_by="ada"),
        forked_by="ada",
        forked_at=datetime(2026, 1, 1, tzinfo=UTC),
        carried_bytes=1234,
    )
    line = forked_from(link)
    assert line.startswith("forked by ada from run-1 (run r1) at run-1-interrupt-2")
    assert "answered by ada (HUMAN)" in line and "1234 bytes carried" in line
    assert "\n" not in line


def test_a_question_asked_again_says_why() -> None:
    link = ForkLink(
        parent=ForkParent(workflow_id="run-1", run_id="r1"),
        point=ForkPoint(kind=ForkPointKind.QUESTION, question_id="run-1-interrupt-2"),
        forked_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    handed_over = "the run before continued as new while it waited"
    assert asked_again_because(None, continued=True) == handed_over
    assert asked_again_because(link, continued=True) == handed_over, "a fork's own handover"
    assert asked_again_because(link, continued=False) == "the fork's point: run-1 asked it"
