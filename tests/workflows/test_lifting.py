"""handler US4, handler FR-010, FR-094 and resume §5: dispatched agents' questions lifted into
their dispatch node's interrupt, the answer split back per agent, and a resumed fan-out that runs
only the agents that asked. Pure functions, table-driven."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_interrupts.models.fan_out import HeldAgent
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.interrupts import (
    DispatchInterruptRequest,
    InterruptResolution,
    InterruptType,
    OptionKey,
)
from agent_interrupts.models.limits import MAX_ITEMS
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.questions import TicketAgentDispatchInterruptRequest
from agent_interrupts.teams.software.results import TicketAgentResult
from agent_interrupts.workflows.interrupt_text import details_markdown
from agent_interrupts.workflows.lifting import (
    answer_each,
    lift,
    own_answer,
    plan_fan_out,
)
from agent_interrupts.workflows.visibility import DETAILS_BYTES
from tests.support.fan_out import held as _held
from tests.support.fan_out import ticket_question as _question
from tests.support.interrupts import answer_all

TICKET = AgentType.TICKET_AGENT


def _request(ticket: str, guidance: str = "implement it") -> dict[str, Any]:
    return {"guidance": guidance, "ticketId": ticket, "title": f"ticket {ticket}"}


def _result(ticket: str) -> TicketAgentResult:
    return TicketAgentResult.model_validate(
        {
            "resultId": f"wf-1/ticket-agent/{ticket}/t",
            "ticketId": ticket,
            "implementationSummary": f"did {ticket}",
            "filesModified": [],
            "testResults": [],
            "commit": {"message": "m", "files": []},
            "verificationStatus": "VERIFIED",
        }
    )


def test_every_dispatch_node_has_its_typed_question() -> None:
    for agent, node in NODES.items():
        asks_for_its_agents = issubclass(SOFTWARE_TEAM.questions[agent], DispatchInterruptRequest)
        assert asks_for_its_agents == (node.dispatches is not None), agent


# -- plan_fan_out: idempotent resume (item 3) ----------------------------------------------


@pytest.mark.parametrize(
    ("held", "requests", "expected"),
    [
        pytest.param(
            [],
            [_request("T-1"), _request("T-2")],
            [("ticket-agent-1", True, "implement it"), ("ticket-agent-2", True, "implement it")],
            id="first-run-every-agent-runs",
        ),
        pytest.param(
            [_held(1, result=_result("T-1")), _held(2, question=_question("b"), answer="B")],
            [_request("T-1", "changed"), _request("T-2", "use approach B")],
            [("ticket-agent-1", False, "implement it"), ("ticket-agent-2", True, "use approach B")],
            id="finished-kept-answered-takes-the-translated-request",
        ),
        pytest.param(
            [_held(1, question=_question("a")), _held(2, question=_question("b"), answer="A")],
            [],
            [("ticket-agent-1", False, "implement it"), ("ticket-agent-2", True, "implement it")],
            id="waiting-agent-not-run-and-an-empty-translation-keeps-the-fan-out",
        ),
        pytest.param(
            [_held(1, result=_result("T-1"))],
            [_request("T-1"), _request("T-9", "new work")],
            [("ticket-agent-1", False, "implement it"), ("ticket-agent-2", True, "new work")],
            id="a-request-beyond-the-held-ones-runs-fresh",
        ),
    ],
)
def test_plan_runs_only_agents_that_are_not_finished_or_waiting(
    held: list[HeldAgent],
    requests: list[dict[str, Any]],
    expected: list[tuple[str, bool, str]],
) -> None:
    planned = plan_fan_out(TICKET, held, requests, team=SOFTWARE_TEAM)
    assert [(a.key, a.runs(), a.request["guidance"]) for a in planned] == expected
    for before, after in zip(held, planned, strict=False):
        assert after.result == before.result, "a finished result is never replaced"


# -- lift: one interrupt, every agent's question, traceable ids (items 1 and 2) --------------


def test_nothing_is_lifted_when_no_agent_asked() -> None:
    assert (
        lift(AgentType.TICKET_DISPATCH, [_held(1, result=_result("T-1"))], team=SOFTWARE_TEAM)
        is None
    )


def test_two_of_three_questions_become_one_well_formed_typed_interrupt() -> None:
    fan_out = [
        _held(1, question=_question("a")),
        _held(2, result=_result("T-2")),
        _held(3, question=_question("c", confirmations=2)),
    ]
    lifted = lift(AgentType.TICKET_DISPATCH, fan_out, team=SOFTWARE_TEAM)

    assert isinstance(lifted, TicketAgentDispatchInterruptRequest)
    assert lifted.problems() == [], "the combined question is well formed (item 5)"
    assert lifted.type is InterruptType.HUMAN_REVIEW
    assert [c.choice_id for c in lifted.choices] == [
        "ticket-agent-1/approach",
        "ticket-agent-3/approach",
    ]
    assert lifted.choices[0].question == "[ticket-agent-1] How to do a?"
    assert [c.confirmation_id for c in lifted.confirmation_items] == [
        "ticket-agent-1/check-0",
        "ticket-agent-3/check-0",
        "ticket-agent-3/check-1",
    ]
    assert lifted.reason.startswith("2 of 3 TICKET_AGENT agents need a decision: ")
    assert "[ticket-agent-1] unsure about a" in lifted.reason
    assert [(q.agent_key, q.node_id) for q in lifted.agent_questions] == [
        ("ticket-agent-1", "ticket-dispatch-009/ticket-agent-1"),
        ("ticket-agent-3", "ticket-dispatch-009/ticket-agent-3"),
    ]
    # the agents' own typed questions are kept whole inside it (US27/US31/US35 fields)
    assert lifted.agent_questions[1].request == fan_out[2].question
    assert [d.agent for d in lifted.routing_decisions] == [a.key for a in fan_out]
    assert "finished" in lifted.routing_decisions[1].rationale
    assert lifted.routing_decisions[0].assignment == "T-1, ticket T-1"


@pytest.mark.parametrize(
    ("kinds", "expected"),
    [
        ([InterruptType.AGENT_REVIEW, InterruptType.AGENT_REVIEW], InterruptType.AGENT_REVIEW),
        ([InterruptType.AGENT_REVIEW, InterruptType.HUMAN_REVIEW], InterruptType.HUMAN_REVIEW),
        ([InterruptType.PAUSE, InterruptType.AGENT_REVIEW], InterruptType.HUMAN_REVIEW),
    ],
)
def test_a_reviewer_answers_only_when_every_agent_asked_for_one(
    kinds: list[InterruptType], expected: InterruptType
) -> None:
    fan_out = [_held(n, question=_question(str(n), kind)) for n, kind in enumerate(kinds, 1)]
    lifted = lift(AgentType.TICKET_DISPATCH, fan_out, team=SOFTWARE_TEAM)
    assert lifted is not None and lifted.type is expected


def test_questions_beyond_one_answer_wait_for_the_next_round() -> None:
    """A combined question stays answerable in one resolution (MAX_ITEMS answers per map)."""
    per_agent = 10
    fan_out = [_held(n, question=_question(str(n), confirmations=per_agent)) for n in range(1, 7)]
    lifted = lift(AgentType.TICKET_DISPATCH, fan_out, team=SOFTWARE_TEAM)
    assert lifted is not None
    shown = MAX_ITEMS // per_agent
    assert [q.agent_key for q in lifted.agent_questions] == [a.key for a in fan_out[:shown]]
    assert len(lifted.confirmation_items) == MAX_ITEMS
    # the next round shows the one that waited
    answered = answer_each(lifted, InterruptResolution(), fan_out)
    assert [a.runs() for a in answered] == [True] * shown + [False]
    waiting = [a.model_copy(update={"result": _result(a.key)}) for a in answered[:shown]]
    again = lift(AgentType.TICKET_DISPATCH, [*waiting, answered[shown]], team=SOFTWARE_TEAM)
    assert again is not None and [q.agent_key for q in again.agent_questions] == ["ticket-agent-6"]


# -- answer_each: each agent gets its own answer back (FR-094) -------------------------------


def test_each_agent_gets_only_its_own_answer_under_its_own_ids() -> None:
    fan_out = [
        _held(1, question=_question("a")),
        _held(2, result=_result("T-2")),
        _held(3, question=_question("c")),
    ]
    lifted = lift(AgentType.TICKET_DISPATCH, fan_out, team=SOFTWARE_TEAM)
    assert lifted is not None
    resolution = InterruptResolution.model_validate(
        {
            "selectedChoices": {
                "ticket-agent-1/approach": "B",
                "ticket-agent-3/approach": "CUSTOM",
            },
            "customInputs": {"ticket-agent-3/approach": "a sliding window"},
            "confirmations": {"ticket-agent-1/check-0": False, "ticket-agent-3/check-0": True},
            "freeText": "keep it small",
        }
    )
    mine = own_answer("ticket-agent-3", resolution)
    assert mine.selected_choices == {"approach": OptionKey.CUSTOM}
    assert mine.custom_inputs == {"approach": "a sliding window"}
    assert mine.confirmations == {"check-0": True}
    assert mine.free_text == "keep it small"

    answered = answer_each(lifted, resolution, fan_out)
    first, finished, third = answered
    assert first.runs() and third.runs() and not finished.runs()
    assert finished == fan_out[1], "a finished agent is not touched"
    assert first.answer is not None and third.answer is not None
    assert "How to do a? -> B (big)" in first.answer
    assert "check 0 of a -> no" in first.answer
    assert "sliding window" not in first.answer, "never another agent's answer"
    assert 'How to do c? -> CUSTOM: "a sliding window"' in third.answer
    assert "check 0 of c -> yes" in third.answer
    assert "Note: keep it small" in third.answer


def test_each_answered_agent_also_reads_the_supervisors_part() -> None:
    """handler US3: a supervisor's part joined to a fan-out's question reaches each agent
    answered, with its words, after the agent's own part."""
    fan_out = [_held(1, question=_question("a")), _held(2, question=_question("b"))]
    lifted = lift(AgentType.TICKET_DISPATCH, fan_out, team=SOFTWARE_TEAM)
    assert lifted is not None
    also = ["A supervisor's question (event e-1), joined to x: why?", "- why? -> A (Keep)"]
    first, second = answer_each(lifted, answer_all(lifted), fan_out, also)
    assert first.answer is not None and second.answer is not None
    assert first.answer.splitlines() == [
        "Question: unsure about a",
        "- How to do a? -> B (big)",
        "- check 0 of a -> no",
        *also,
        "Resolved by: HUMAN",
    ]
    assert also[1] in second.answer


def test_an_answer_to_one_agents_part_answers_only_that_agent() -> None:
    """FR-094: the other agents keep their question, unanswered, for the next one."""
    fan_out = [_held(1, question=_question("a")), _held(2, question=_question("b"))]
    lifted = lift(AgentType.TICKET_DISPATCH, fan_out, team=SOFTWARE_TEAM)
    assert lifted is not None
    part = InterruptResolution.model_validate(
        {
            "selectedChoices": {"ticket-agent-2/approach": "B"},
            "confirmations": {"ticket-agent-2/check-0": True},
        }
    )
    first, second = answer_each(lifted, part, fan_out)
    assert first == fan_out[0] and not first.runs(), "left for later: still asking"
    assert second.answer is not None and "How to do b? -> B (big)" in second.answer


def test_an_agent_given_more_tokens_runs_again_with_twice_its_own() -> None:
    fan_out = [_held(1, question=_question("a")), _held(2, question=_question("b"))]
    lifted = lift(AgentType.TICKET_DISPATCH, fan_out, team=SOFTWARE_TEAM)
    assert lifted is not None
    answer = answer_all(lifted).model_copy(
        update={"confirmations": {"ticket-agent-2/more-output-tokens": True}}
    )
    first, second = answer_each(lifted, answer, fan_out)
    assert (first.output_tokens_factor, second.output_tokens_factor) == (1, 2)


def test_a_question_for_the_agents_not_asked_yet_skips_the_others() -> None:
    fan_out = [_held(n, question=_question(str(n))) for n in (1, 2, 3)]
    later = lift(
        AgentType.TICKET_DISPATCH,
        fan_out,
        skip={"ticket-agent-1", "ticket-agent-2"},
        team=SOFTWARE_TEAM,
    )
    assert later is not None and [q.agent_key for q in later.agent_questions] == ["ticket-agent-3"]
    assert (
        lift(AgentType.TICKET_DISPATCH, fan_out, skip={a.key for a in fan_out}, team=SOFTWARE_TEAM)
        is None
    )


def test_an_answer_to_another_question_leaves_the_fan_out_as_it_was() -> None:
    """E.g. the dispatch node's own question: no agent asked, none gets an answer."""
    fan_out = [_held(1, result=_result("T-1")), _held(2, result=_result("T-2"))]
    lifted = _question("own")
    assert answer_each(lifted, InterruptResolution(), fan_out) == fan_out


def test_the_ui_details_of_a_large_combined_question_fit_temporals_limit() -> None:
    """A combined question with long typed fields must not be refused as user metadata (20,000
    bytes), which would fail the orchestrator's workflow task over and over."""
    big = _question("x" * 3_000, confirmations=MAX_ITEMS // 4)
    fan_out = [_held(n, question=big) for n in range(1, 5)]
    lifted = lift(AgentType.TICKET_DISPATCH, fan_out, team=SOFTWARE_TEAM)
    assert lifted is not None
    details = details_markdown(
        "wf-1-interrupt-1", AgentType.TICKET_DISPATCH, lifted, team=SOFTWARE_TEAM
    )
    assert len(json.dumps(details)) <= DETAILS_BYTES
    assert details.endswith("the whole question is in the interrupt's `status` query)")
    small = lift(AgentType.TICKET_DISPATCH, [_held(1, question=_question("a"))], team=SOFTWARE_TEAM)
    assert small is not None
    text = details_markdown(
        "wf-1-interrupt-1", AgentType.TICKET_DISPATCH, small, team=SOFTWARE_TEAM
    )
    assert "cut to fit" not in text and "**filesToModify:**" in text
    assert "#### ticket-agent-1 (TICKET_AGENT) asks: unsure about a" in text
