"""A fork's link checked (``models/fork_check.py``): the start input's digest, what does not
hold, the one line a fork fails with."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from agent_interrupts.models.fork_check import (
    carried_bytes,
    link_problems,
    link_refusal,
    start_digest,
)
from agent_interrupts.models.forks import ForkLink, ForkParent, ForkPoint, ForkPointKind
from agent_interrupts.models.state import OrchestratorInput, OrchestratorState

AT = datetime(2026, 1, 1, tzinfo=UTC)
LINK = ForkLink(
    parent=ForkParent(workflow_id="orchestrator-1", run_id="run-1"),
    point=ForkPoint(
        kind=ForkPointKind.QUESTION,
        question_id="orchestrator-1-interrupt-2",
        agent_type="PLANNING_COLLECTOR",
        at=AT,
    ),
    forked_by="alice",
    forked_at=AT,
    carried_bytes=100,
)


def start(goal: str = "g") -> OrchestratorInput:
    return OrchestratorInput(
        goal=goal, carried_state=OrchestratorState(goal=goal, max_steps=60, fork=LINK), fork=LINK
    )


def test_the_digest_is_the_wire_forms_and_survives_the_wire() -> None:
    made = start()
    through_the_wire = OrchestratorInput.model_validate_json(made.model_dump_json(by_alias=True))
    assert start_digest(through_the_wire) == start_digest(made)
    assert start_digest(start("another goal")) != start_digest(made)
    assert carried_bytes(made) == len(made.carried_state.model_dump_json(by_alias=True))  # type: ignore[union-attr]
    assert carried_bytes(OrchestratorInput(goal="g")) == 0


def test_a_link_holds_when_its_point_size_and_start_are_the_parents() -> None:
    assert link_problems(LINK, LINK, same_start=True) == []
    assert link_problems(LINK, LINK, same_start=False) == [
        "the state it was started with is not the one the parent held there"
    ]
    later = LINK.point.model_copy(update={"at": AT + timedelta(seconds=1)})
    moved = link_problems(LINK, LINK.model_copy(update={"point": later}), same_start=True)
    assert len(moved) == 1 and moved[0].startswith("the point's agent or time is not the parent's")
    bigger = link_problems(LINK, LINK.model_copy(update={"carried_bytes": 101}), same_start=True)
    assert bigger == ["it says it carries 100 bytes, the parent's state there is 101"]


def test_the_refusal_is_one_line_naming_the_parent_and_the_point() -> None:
    line = link_refusal(LINK, ["x" * 5000, "y\nz"])
    assert line.startswith(
        "this fork's link does not hold: orchestrator-1 (run run-1) at orchestrator-1-interrupt-2: "
    )
    assert len(line) < 1100
