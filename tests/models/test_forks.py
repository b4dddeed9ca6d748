"""A fork's link (``models/forks.py``): one place per point, sizes capped, the wire form."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from agent_interrupts.models.forks import (
    FORK_MEMO,
    ForkLink,
    ForkParent,
    ForkPoint,
    ForkPointKind,
    StepChanges,
    fork_memo,
)
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.state import OrchestratorInput, OrchestratorState

AT = datetime(2026, 1, 1, tzinfo=UTC)
PARENT = ForkParent(workflow_id="orchestrator-1", run_id="run-1")


def question(qid: str = "orchestrator-1-interrupt-1") -> ForkPoint:
    return ForkPoint(kind=ForkPointKind.QUESTION, question_id=qid)


def test_a_question_link_round_trips_on_the_wire() -> None:
    link = ForkLink(
        parent=PARENT,
        point=question(),
        answer=InterruptResolution(selected_choices={"scope": "B"}),
        forked_by="alice",
        forked_at=AT,
    )
    wire = link.to_wire()
    assert wire["parent"] == {"workflowId": "orchestrator-1", "runId": "run-1"}
    assert wire["point"]["questionId"] == "orchestrator-1-interrupt-1"
    assert ForkLink.model_validate(wire) == link
    assert fork_memo(link) == {FORK_MEMO: wire}


@pytest.mark.parametrize(
    "point",
    [
        {"kind": "QUESTION"},
        {"kind": "QUESTION", "questionId": "q", "step": "s"},
        {"kind": "STEP", "questionId": "q"},
        {"kind": "STEP", "questionId": "x" * 201},
        {"kind": "QUESTION", "questionId": ""},
    ],
)
def test_a_point_names_exactly_its_one_place(point: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        ForkPoint.model_validate(point)


def test_a_question_fork_takes_no_step_changes_and_a_step_fork_no_answer() -> None:
    with pytest.raises(ValidationError, match="not step changes"):
        ForkLink(parent=PARENT, point=question(), changes=StepChanges(model="m"), forked_at=AT)
    step = ForkPoint(kind=ForkPointKind.STEP, step="wf-1/PLANNING_ORCHESTRATOR/3")
    with pytest.raises(ValidationError, match="not an answer"):
        ForkLink(parent=PARENT, point=step, answer=InterruptResolution(), forked_at=AT)


def test_texts_are_capped_at_the_door() -> None:
    with pytest.raises(ValidationError):
        StepChanges(guidance="g" * 8_001)
    with pytest.raises(ValidationError):
        StepChanges(model="m" * 201)
    with pytest.raises(ValidationError):
        ForkLink(parent=PARENT, point=question(), forked_by="a\nb", forked_at=AT)


def test_runs_that_are_not_forks_keep_their_wire_form() -> None:
    """No ``fork`` key while unset: inputs and carried states recorded before stay the same."""
    assert "fork" not in OrchestratorInput(goal="g").to_wire()
    assert "fork" not in OrchestratorState(goal="g", max_steps=3).to_wire()
