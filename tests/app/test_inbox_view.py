"""The inbox's pure pieces: markdown made safe, ages, filters, a combined question's parts, the
form of one part or of the recommendations, and the ignored questions kept on disk."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent_interrupts.app.inbox.form import form_problems, starting_values, submitted_fields
from agent_interrupts.app.inbox.ignored import IgnoredQuestions
from agent_interrupts.app.inbox.view import (
    Filters,
    age,
    distinct_agents,
    fan_out,
    markdown,
)
from agent_interrupts.app.sdk import WaitingQuestion
from agent_interrupts.models.interrupts import AgentQuestion
from agent_interrupts.teams.software.questions import TicketAgentDispatchInterruptRequest
from tests.support.inbox import HOSTILE
from tests.support.interrupts import question_input

NOW = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "kept", "never"),
    [
        (HOSTILE, "&lt;script&gt;", ["<script", 'href="javascript']),
        ("<img src=x onerror=alert(1)>", "&lt;img", ["<img"]),
        ("![x](https://evil.example/x.png)", "", ["<img"]),
        ("[ok](https://example.org) **b**", '<a rel="noopener noreferrer"', ["<script"]),
        ("[x](data:text/html;base64,PHNjcmlwdD4=)", "[x](", ["<a "]),
    ],
)
def test_markdown_renders_and_never_passes_html(text: str, kept: str, never: list[str]) -> None:
    html = str(markdown(text))
    assert kept in html
    for bad in never:
        assert bad not in html


def test_ages_read_in_the_largest_unit() -> None:
    assert age(NOW - timedelta(seconds=45), NOW) == "45 s"
    assert age(NOW - timedelta(minutes=12, seconds=5), NOW) == "12 min"
    assert age(NOW - timedelta(hours=3), NOW) == "3 h"
    assert age(NOW + timedelta(days=2, hours=1), NOW) == "in 2 d"
    assert age(None, NOW) == "?"


def _combined() -> TicketAgentDispatchInterruptRequest:
    own = question_input().request
    keys = ["ticket-agent-1", "ticket-agent-2"]
    wire = {
        k: v
        for k, v in own.to_wire().items()
        if k not in ("reviewCriteria", "assessmentFindings", "approvalRecommendation")
    }
    ticket = {
        **wire,
        "origin": "TICKET_AGENT",
        "filesToModify": [],
        "testStrategies": [],
        "implementationApproaches": [],
    }
    asked = [
        AgentQuestion.model_validate({"agentKey": k, "nodeId": f"n-{k}", "request": ticket})
        for k in keys
    ]
    return TicketAgentDispatchInterruptRequest(
        type=own.type,
        reason="2 of 3 TICKET_AGENT agents need a decision",
        choices=[
            c.model_copy(
                update={"choice_id": f"{k}/{c.choice_id}", "question": f"[{k}] {c.question}"}
            )
            for k in keys
            for c in own.choices
        ],
        confirmation_items=[
            i.model_copy(update={"confirmation_id": f"{k}/{i.confirmation_id}"})
            for k in keys
            for i in own.confirmation_items
        ],
        context_for_decision="",
        routing_decisions=[],
        target_agent_context="",
        agent_questions=asked,
    )


def test_a_combined_question_is_its_parts_with_what_they_share_once() -> None:
    request = _combined()
    view = fan_out(request)
    assert view is not None and [p.key for p in view.parts] == ["ticket-agent-1", "ticket-agent-2"]
    assert view.shared_reason == "Which cache?" and all(p.reason is None for p in view.parts)
    assert [c.choice_id for c in view.parts[1].choices] == ["ticket-agent-2/cache"]
    assert fan_out(question_input().request) is None


def test_parts_that_ask_alike_are_one_grid_and_parts_that_differ_are_not() -> None:
    request = _combined()
    view = fan_out(request)
    assert view is not None and view.columns is not None
    own = question_input().request
    assert [c.text for c in view.columns] == [
        *(c.question for c in own.choices),
        *(i.statement for i in own.confirmation_items),
    ], "each choice and confirmation said once, without its agent's tag"
    assert view.columns[0].options == tuple(
        (o.key.value, o.description) for o in own.choices[0].options
    )
    different = request.model_copy(
        update={
            "choices": [
                c.model_copy(update={"question": c.question + " (again)"})
                if c.choice_id.startswith("ticket-agent-2/")
                else c
                for c in request.choices
            ]
        }
    )
    view = fan_out(different)
    assert view is not None and view.columns is None and len(view.parts) == 2


def test_one_part_alone_or_every_recommendation() -> None:
    request = _combined()
    form = {"csrf": "x", "text": "hi", **starting_values(request), "only": "ticket-agent-1"}
    alone = submitted_fields(request, form)
    assert alone == {"choice.ticket-agent-1/cache": "B"}
    assert form_problems(request, alone, in_parts=True) == []
    assert form_problems(request, alone) != [], "a whole answer needs every part"
    everything = submitted_fields(request, {"accept": "all", "choice.ticket-agent-1/cache": "A"})
    assert everything == starting_values(request)


def test_filters_keep_a_run_an_agent_a_kind_and_words() -> None:
    from agent_interrupts.models.interrupt_flow import InterruptState, InterruptStatus

    request = question_input().request
    status = InterruptStatus(
        workflow_id="run-7-interrupt-1",
        state=InterruptState.WAITING,
        origin=request.origin,
        reroute_to=None,
        request=request,
        resolution=None,
        deadline=None,
        hooks_applied=[],
        events=[],
    )
    q = WaitingQuestion("run-7-interrupt-1", request.origin.value, NOW, status)
    kept = Filters.from_query({"run": "run-7", "agent": "review_agent", "q": "CACHE which"})
    assert kept.keeps(q)
    assert not Filters.from_query({"agent": "review"}).keeps(q), "an agent is named whole"
    assert not Filters.from_query({"run": "run-8"}).keeps(q)
    assert not Filters.from_query({"kind": "pause"}).keeps(q)
    assert Filters.from_query({"kind": request.type.value.lower()}).keeps(q)
    assert not Filters.from_query({"q": "postgres"}).keeps(q)
    pending = WaitingQuestion("run-7-interrupt-1", "REVIEW_AGENT", NOW, None, pending=True)
    assert not Filters.from_query({"kind": "HUMAN_REVIEW"}).keeps(pending)


def test_the_agent_filter_names_an_agent_whole_and_finds_a_combined_questions_agents() -> None:
    from agent_interrupts.models.interrupt_flow import InterruptState, InterruptStatus

    request = _combined()
    status = InterruptStatus(
        workflow_id="run-7-interrupt-1",
        state=InterruptState.WAITING,
        origin="TICKET_DISPATCH",
        reroute_to=None,
        request=request,
        resolution=None,
        deadline=None,
        hooks_applied=[],
        events=[],
    )
    q = WaitingQuestion("run-7-interrupt-1", "TICKET_DISPATCH", NOW, status)
    for agent in ("TICKET_AGENT", "ticket_agent", "TICKET_DISPATCH", "ticket-agent-2"):
        assert Filters.from_query({"agent": agent}).keeps(q), agent
    for agent in ("TICKET", "agent", "ticket-agent", "REVIEW_AGENT"):
        assert not Filters.from_query({"agent": agent}).keeps(q), agent
    assert distinct_agents([q]) == ["TICKET_AGENT", "TICKET_DISPATCH"], "offered in the filter"


def test_ignored_questions_are_kept_with_why_and_forgotten_once_closed(tmp_path: Path) -> None:
    path = tmp_path / "state" / "inbox-ignored.json"
    ignored = IgnoredQuestions(path)
    with pytest.raises(ValueError, match="say why"):
        ignored.ignore("q-1", "  ", "me")
    ignored.ignore("q-1", "duplicate of q-2", "me")
    ignored.ignore("q-3", "test run", "me")
    again = IgnoredQuestions(path)
    assert again.records["q-1"].reason == "duplicate of q-2"
    again.forget_except({"q-1"})
    again.restore("q-1")
    assert IgnoredQuestions(path).records == {}
    path.write_text("not json")
    assert IgnoredQuestions(path).records == {}, "a broken file ignores nothing"
