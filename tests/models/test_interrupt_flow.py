"""A question's deadline, from its timeout or from the run it continues (handler FR-012)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from agent_interrupts.models.interrupt_flow import InterruptCarried, InterruptInput
from tests.support.fan_out import ticket_question

NOW = datetime(2026, 11, 28, 14, 0, tzinfo=UTC)


def _job(**fields: object) -> InterruptInput:
    return InterruptInput.model_validate(
        {
            "orchestratorId": "wf",
            "goal": "g",
            "request": ticket_question("limits").to_wire(),
            "origin": "TICKET_AGENT",
            "originNodeId": "n",
            "originRequest": {},
            **fields,
        }
    )


def test_a_new_question_times_out_its_timeout_after_it_starts() -> None:
    assert _job(timeoutSeconds=90).deadline_from(NOW) == NOW + timedelta(seconds=90)


def test_a_question_without_a_timeout_has_no_deadline() -> None:
    assert _job(timeoutSeconds=None).deadline_from(NOW) is None
    assert _job(timeoutSeconds=0).deadline_from(NOW) is None


def test_a_continued_question_keeps_the_deadline_it_carries() -> None:
    carried = InterruptCarried(deadline=NOW, hooks_applied=[], events=[], events_recorded=0)
    later = NOW + timedelta(hours=3)
    assert _job(timeoutSeconds=90, carried=carried).deadline_from(later) == NOW
    untimed = carried.model_copy(update={"deadline": None})
    assert _job(timeoutSeconds=90, carried=untimed).deadline_from(later) is None
