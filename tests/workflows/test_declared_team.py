"""A team declared as data runs like the software team: through a real dev server and worker,
its dispatched agent asks a typed question, a person answers it, the answer is translated
through the team's handler routing filtered to the one route, and the run ends with the team's
final result."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from temporalio.client import Client, WorkflowFailureError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.history import read_blackboard
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupts import InterruptResolution, TeamInterruptRequest
from agent_interrupts.models.state import EntryKind
from agent_interrupts.models.team_build import TeamFinalResult, build_team
from agent_interrupts.models.team_spec import TeamSpec
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import (
    answer_offered,
    interrupt_status,
    rejected,
    start,
    wait_for_interrupt,
    wait_running,
)

BASE = '{% extends "workflow/_agent_base.jinja" %}'
TINY_TEAM = TeamSpec.model_validate(
    {
        "name": "tiny-survey",
        "description": "Asks a few surveyors in parallel and sums up what they found.",
        "agents": [
            {
                "name": "LEAD",
                "role": "orchestrator",
                "phase": "PLAN",
                "routes": {"SURVEY": "Send surveyors out.", "END": "Enough is known."},
                "result": {"plan": {"type": "str", "description": "What to survey."}},
                "template": BASE + "{% block role %}Plan a survey.{% endblock %}",
            },
            {
                "name": "SURVEY",
                "role": "dispatcher",
                "phase": "SURVEY",
                "dispatches": "SURVEYOR",
                "routes": {"SUMMARY": "Hand the findings on."},
                "template": BASE + "{% block role %}Run the surveyors.{% endblock %}",
            },
            {
                "name": "SURVEYOR",
                "role": "dispatched",
                "phase": "SURVEY",
                "request": {"site": {"type": "str", "description": "Where to look."}},
                "result": {
                    "finding": {"type": "text"},
                    "risk": {"type": "enum(LOW|HIGH)"},
                },
                "question": {"site_access": {"type": "list[str]", "description": "Keys needed."}},
                "template": BASE + "{% block role %}Survey one site.{% endblock %}",
            },
            {
                "name": "SUMMARY",
                "role": "collector",
                "phase": "SUMMARY",
                "routes": {"END": "Finish with the summary."},
                "result": {"overview": {"type": "text"}},
                "template": BASE + "{% block role %}Sum the findings up.{% endblock %}",
            },
        ],
        "final": {"summary": {"type": "str"}, "risks": {"type": "list[str]"}},
    }
)


async def test_a_declared_team_asks_at_a_dispatched_agent_and_finishes(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario.parse("interrupt=SURVEYOR#2", ["SURVEYOR"]))
    teams = {TINY_TEAM.name: TINY_TEAM}
    async with build_worker(client, task_queue, LlmSettings(), offline=offline, teams=teams):
        handle = await start(client, task_queue, workflow_id, team=TINY_TEAM.name)
        status = await wait_for_interrupt(handle)
        waiting = status.pending_interrupt
        assert waiting is not None and waiting.origin_agent_type == "SURVEY"
        question = await interrupt_status(client, waiting.workflow_id)
        asked = question.request
        assert isinstance(asked, TeamInterruptRequest)
        assert [q.agent_key for q in asked.agent_questions] == ["surveyor-2"]
        own = asked.agent_questions[0].request
        assert own.origin == "SURVEYOR" and "siteAccess" in own.to_wire()
        answer = InterruptResolution(
            selected_choices={c.choice_id: "B" for c in asked.choices},
            confirmations={c.confirmation_id: True for c in asked.confirmation_items},
            answered_by="ada",
        )
        await client.get_workflow_handle(waiting.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer
        )
        result = await handle.result()
        entries = await read_blackboard(client, workflow_id, payloads=True)

    assert isinstance(result, TeamFinalResult)
    assert result.team == TINY_TEAM.name and result.team_sha256 == TINY_TEAM.sha256()
    assert set(result.result) >= {"summary", "risks"}
    ran = [e.agent_type for e in entries if e.kind is EntryKind.OUTPUT]
    assert ran[0] == "LEAD" and ran[-1] == "SUMMARY"
    assert ran.count("SURVEYOR") == 3  # two surveyors, the one that asked ran again
    translations = [
        b
        for b in offline.received
        if b["response_format"]["json_schema"]["name"].endswith("InterruptRouting")
    ]
    assert len(translations) == 1
    schema = translations[0]["response_format"]["json_schema"]["schema"]
    assert _routes(schema) == ["surveyRequest"]  # filtered to the one route: back to SURVEY


def _routes(schema: dict[str, Any]) -> list[str]:
    team = build_team(TINY_TEAM)
    names = set(team.interrupt_routing.route_aliases())
    text = json.dumps(schema)
    return sorted(n for n in names if f'"{n}"' in text)


async def test_a_worker_that_does_not_serve_the_team_fails_the_run_naming_the_setting(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel()):
        handle = await start(client, task_queue, workflow_id, team="tiny-survey")
        with pytest.raises(WorkflowFailureError) as failed:
            await handle.result()
    message = str(failed.value.cause)
    assert "tiny-survey" in message and "AGENTS_TEAMS" in message


async def test_a_declared_teams_step_budget_and_supervisor_events(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The step budget asks a person in the agent's own question type; a supervisor's event
    names the team's agents (another name is refused naming them) and re-routes."""
    agents = [a.name for a in TINY_TEAM.agents]
    offline = OfflineModel(OfflineScenario.parse("delay=SUMMARY:3", agents))
    teams = {TINY_TEAM.name: TINY_TEAM}
    async with build_worker(client, task_queue, LlmSettings(), offline=offline, teams=teams):
        handle = await start(client, task_queue, workflow_id, team=TINY_TEAM.name, max_steps=2)
        budget = (await wait_for_interrupt(handle)).pending_interrupt
        assert budget is not None
        asked = (await interrupt_status(client, budget.workflow_id)).request
        assert asked.origin == budget.origin_agent_type
        grant = InterruptResolution(selected_choices={"step-budget": "A"})
        await client.get_workflow_handle(budget.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, grant
        )
        await wait_running(handle, "SUMMARY")
        refused = await rejected(
            handle,
            "send_interrupt_event",
            {
                "eventId": "e1",
                "sourceAgentType": "SUMMARY",
                "reason": "r",
                "rerouteToAgentType": "REVIEW_AGENT",
            },
        )
        assert "REVIEW_AGENT" in refused and "LEAD" in refused
        refused = await rejected(  # a software agent's name: refused with this team's nodes
            handle,
            "send_interrupt_event",
            {
                "eventId": "e1",
                "sourceAgentType": "SUMMARY",
                "reason": "r",
                "rerouteToAgentType": "TICKET_AGENT",
            },
        )
        assert "TICKET_AGENT" in refused and "LEAD" in refused, refused
        assert "TICKET_ORCHESTRATOR" not in refused, refused
        await handle.execute_update(
            OrchestratorWorkflow.send_interrupt_event,
            InterruptRequestEvent(
                event_id="e2",
                source_agent_type="SUMMARY",
                reroute_to_agent_type="LEAD",
                reason="the summary misses the east wing",
            ),
        )
        event_question = (await wait_for_interrupt(handle)).pending_interrupt
        assert event_question is not None and event_question.reroute_to_agent_type == "LEAD"
        status = await interrupt_status(client, event_question.workflow_id)
        await client.get_workflow_handle(event_question.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated,
            answer_offered(status.request),
        )
        async with asyncio.timeout(30):  # the answer continues at the event's target
            while not any(
                e.kind is EntryKind.RESOLUTION and e.route == "leadRequest"
                for e in await read_blackboard(client, workflow_id)
            ):
                await asyncio.sleep(0.1)
        await handle.terminate("seen enough")


class _StuckSummary(OfflineModel):
    """The SUMMARY agent's replies set no route."""

    def answer(self, name: str, schema: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        if name.endswith("SummaryRouting"):
            return "{}"
        return super().answer(name, schema, messages)


async def test_a_declared_agent_whose_model_stays_invalid_asks_a_person(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    teams = {TINY_TEAM.name: TINY_TEAM}
    settings = LlmSettings(validation_attempts=1)
    async with build_worker(client, task_queue, settings, offline=_StuckSummary(), teams=teams):
        handle = await start(client, task_queue, workflow_id, team=TINY_TEAM.name)
        status = await wait_for_interrupt(handle)
        waiting = status.pending_interrupt
        assert waiting is not None and waiting.origin_agent_type == "SUMMARY"
        asked = (await interrupt_status(client, waiting.workflow_id)).request
        await client.get_workflow_handle(waiting.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated,
            InterruptResolution(stop_run="the summary model is broken", answered_by="ada"),
        )
        with pytest.raises(WorkflowFailureError) as stopped:
            await handle.result()
    assert "could not finish its step" in str(status.events)
    assert isinstance(asked, TeamInterruptRequest) and asked.origin == "SUMMARY"
    offered = " ".join(o.description for c in asked.choices for o in c.options)
    assert "finalResult" in offered  # its own routes are the ways out
    assert "the summary model is broken" in str(stopped.value.cause)


async def test_a_declared_dispatchers_lifted_question_is_read_back_from_history(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Twelve surveyors ask, are answered and run again, so state no longer holds the payload
    of the dispatcher's output that raised their question (``PAYLOAD_WINDOW``) while its own
    call runs: the blackboard builds it again from history with the run's own team (its
    dispatcher is no agent of the software team)."""
    scenario = OfflineScenario.parse(
        "interrupt=SURVEYOR;fanout=12;delay=SURVEY:60", ["SURVEYOR", "SURVEY"]
    )
    teams = {TINY_TEAM.name: TINY_TEAM}
    async with build_worker(
        client, task_queue, LlmSettings(), offline=OfflineModel(scenario), teams=teams
    ):
        handle = await start(client, task_queue, workflow_id, team=TINY_TEAM.name)
        waiting = (await wait_for_interrupt(handle)).pending_interrupt
        assert waiting is not None
        question = (await interrupt_status(client, waiting.workflow_id)).request
        await client.get_workflow_handle(waiting.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_offered(question)
        )
        async with asyncio.timeout(60):  # the twelve ran again; the dispatcher's call waits
            while (
                sum(
                    e.kind is EntryKind.OUTPUT and e.agent_type == "SURVEYOR"
                    for e in await read_blackboard(client, workflow_id)
                )
                < 24
            ):
                await asyncio.sleep(0.1)
        entries = await read_blackboard(client, workflow_id, payloads=True)
        await handle.terminate("seen enough")
    (lifted,) = [e for e in entries if e.agent_type == "SURVEY" and e.kind is EntryKind.OUTPUT]
    assert lifted.payload is not None
    asked = lifted.payload["interruptRequest"]["agentQuestions"]
    assert [q["agentKey"] for q in asked] == [f"surveyor-{n}" for n in range(1, 13)]
