"""The request hooks: a supervisor's choices join the agent's own; a question
asked before that replays with them replacing the agent's own."""

from __future__ import annotations

from agent_interrupts.models.interrupt_events import EVENT_CHOICE_ID, InterruptRequestEvent
from agent_interrupts.models.interrupt_flow import InterruptInput
from agent_interrupts.workflows.interrupt_hooks import (
    REPLACING_REQUEST_HOOKS,
    REQUEST_HOOKS,
    RequestHooks,
)
from tests.support.interrupts import question_input

EVENT = InterruptRequestEvent.model_validate(
    {
        "eventId": "e-1",
        "sourceAgentType": "REVIEW_AGENT",
        "reason": "Stop: which way now?",
        "choices": [
            {"label": label, "value": "MERGER_AGENT", "description": ""}
            for label in ("one", "two", "three", "four")
        ],
        "confirmationItems": [
            {
                "confirmationId": "cache",
                "statement": "keep the cache",
                "context": "",
                "defaultValue": True,
                "impactIfNo": "none",
            }
        ],
    }
)


def _asked(hooks: RequestHooks) -> InterruptInput:
    job = question_input().model_copy(update={"event": EVENT})
    for _, hook in hooks:
        job = hook(job)
    return job


def test_an_events_choices_join_the_agents_own_with_unique_ids() -> None:
    request = _asked(REQUEST_HOOKS).request
    assert [c.choice_id for c in request.choices] == ["cache", EVENT_CHOICE_ID]
    assert [o.key.value for o in request.choices[1].options][:4] == ["A", "B", "C", "D"]
    assert [c.confirmation_id for c in request.confirmation_items] == ["cache"]


def test_a_question_asked_before_replays_with_the_events_choices_alone() -> None:
    request = _asked(REPLACING_REQUEST_HOOKS).request
    assert [c.choice_id for c in request.choices] == [EVENT_CHOICE_ID]
