"""handler US3 (a supervisor's event joined to a question): an answer told part by part to the
agent the run continues at (who asked what, where each part went). Pure functions."""

from __future__ import annotations

from agent_interrupts.models.answer_text import (
    NOT_ASKED,
    describe_answer,
    event_ids,
    own_part_not_taken,
    sent_here,
)
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupt_flow import InterruptInput
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.resolution_rules import describe_resolution
from agent_interrupts.workflows.interrupt_hooks import asked_question
from tests.support.fan_out import ticket_question

ORIGIN = "TICKET_AGENT"
EVENT = InterruptRequestEvent.model_validate(
    {
        "eventId": "e-1",
        "sourceAgentType": ORIGIN,
        "reason": "Is the scope right?",
        "choices": [
            {"label": "Keep", "value": "keep"},
            {"label": "Review", "value": "REVIEW_AGENT", "description": "have it reviewed"},
        ],
        "confirmationItems": [
            {
                "confirmationId": "check-0",
                "statement": "Freeze the scope",
                "context": "c",
                "defaultValue": True,
                "impactIfNo": "plan everything",
            }
        ],
    }
)
WRITE_IN = '  only "a" \u2014 then stop '


def _job(event: InterruptRequestEvent | None = EVENT) -> InterruptInput:
    return InterruptInput.model_validate(
        {
            "orchestratorId": "wf",
            "goal": "g",
            "request": ticket_question("limits").to_wire(),
            "origin": ORIGIN,
            "originNodeId": "n",
            "originRequest": {},
            "event": event.to_wire() if event else None,
        }
    )


def _answer(supervisor: str = "CUSTOM", **extra: object) -> InterruptResolution:
    return InterruptResolution.model_validate(
        {
            "selectedChoices": {"approach": "B", "supervisor": supervisor},
            "customInputs": {"supervisor": WRITE_IN} if supervisor == "CUSTOM" else {},
            "confirmations": {"check-0": True, "check-0-2": False},
            **extra,
        }
    )


def test_the_question_as_asked_joins_the_events_part_with_its_own_ids() -> None:
    job = _job()
    asked = asked_question(job)
    assert [c.choice_id for c in asked.choices] == ["approach", "supervisor"]
    assert [c.confirmation_id for c in asked.confirmation_items] == ["check-0", "check-0-2"]
    assert event_ids(asked, EVENT) == {"supervisor", "check-0-2"}
    assert [c.confirmation_id for c in job.request.confirmation_items] == ["check-0"], "unchanged"
    carried = job.model_copy(update={"request": asked, "carried": {"hooksApplied": []}})
    assert asked_question(carried) is asked, "a carried job's request is joined already"


def test_the_agent_that_asked_reads_each_part_with_its_words() -> None:
    asked = asked_question(_job())
    text = describe_answer(
        asked, _answer(), origin=ORIGIN, event=EVENT, resumes_at=ORIGIN
    ).splitlines()
    assert text == [
        "Your question: unsure about limits",
        "- How to do limits? -> B (big)",
        "- check 0 of limits -> yes",
        "A supervisor's question (event e-1), joined to yours: Is the scope right?",
        f'- Is the scope right? -> CUSTOM: "{WRITE_IN}"',
        "- Freeze the scope -> no",
        "Resolved by: HUMAN",
    ]


def test_an_agent_that_did_not_ask_is_told_who_sent_the_run_and_why() -> None:
    asked = asked_question(_job())
    text = describe_answer(
        asked, _answer("B"), origin=ORIGIN, event=EVENT, resumes_at="REVIEW_AGENT"
    )
    assert text.startswith(
        f"{NOT_ASKED}: TICKET_AGENT asked one, and a person chose the supervisor's option B "
        "(Review: have it reviewed) of event e-1 (Is the scope right?), which sends the run to you."
    )
    assert "- Is the scope right? -> B (Review: have it reviewed)" in text
    assert "- Freeze the scope -> no" in text
    assert "How to do limits?" not in text and "check 0 of limits" not in text
    assert "TICKET_AGENT's own part of the question (unsure about limits) is not taken" in text


def test_why_the_run_is_here() -> None:
    answer = _answer("A")
    assert sent_here(answer, ORIGIN, None, "REVIEW_AGENT") == (
        "the answer a person gave sends the run to you"
    )
    chosen = answer.model_copy(update={"continue_at": "REVIEW_AGENT"})
    assert sent_here(chosen, ORIGIN, EVENT, "REVIEW_AGENT") == (
        "a person who answered chose to continue the run at you"
    )
    rerouting = EVENT.model_copy(update={"choices": [], "reroute_to_agent_type": "REVIEW_AGENT"})
    assert sent_here(answer, ORIGIN, rerouting, "REVIEW_AGENT").startswith(
        "a supervisor's event e-1 re-routes the run to you"
    )


def test_the_asking_agents_own_part_not_taken_in_one_line() -> None:
    asked = asked_question(_job())
    assert own_part_not_taken(asked, _answer("B"), EVENT) == (
        "unsure about limits -> How to do limits? -> B (big); check 0 of limits -> yes"
    )
    only_supervisor = InterruptResolution.model_validate({"selectedChoices": {"supervisor": "A"}})
    assert own_part_not_taken(asked, only_supervisor, EVENT) is None


def test_a_question_of_the_agent_alone_reads_as_before() -> None:
    asked = asked_question(_job(None))
    answer = InterruptResolution.model_validate(
        {"selectedChoices": {"approach": "A"}, "confirmations": {"check-0": True}}
    )
    assert describe_answer(
        asked, answer, origin=ORIGIN, event=None, resumes_at=ORIGIN
    ) == describe_resolution(asked, answer)
