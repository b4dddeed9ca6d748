"""End to end: dispatched agents' questions are lifted by the workflow (handler US4,
handler FR-010), questions asked at once reach the person together and each agent gets its own
answer (the agents spec's edge case "concurrent interrupts from multiple agents", FR-094), and a
resumed fan-out never runs a finished agent again (resume §5)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import RESOLVED_MARKER, OfflineModel, OfflineScenario
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.ids import dispatched_agent_key
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.state import EntryKind, OrchestratorStatus
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.questions import TicketAgentDispatchInterruptRequest
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import (
    answer_all,
    full_status,
    interrupt_status,
    start,
    started_activities,
    wait_for_interrupt,
    wait_running,
)

TICKET_AGENT = "TicketAgentRouting"
TICKET_DISPATCH = "TicketDispatchRouting"


def _calls(received: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [r for r in received if r["response_format"]["json_schema"]["name"] == name]


def _node(call: dict[str, Any]) -> str:
    user = call["messages"][1]["content"]
    return dispatched_agent_key(user.split("Node: ", 1)[1].split("\n", 1)[0])


def _collected(status: OrchestratorStatus) -> list[dict[str, Any]]:
    request = next(
        e
        for e in status.history
        if e.kind is EntryKind.REQUEST and e.agent_type is AgentType.TICKET_COLLECTOR
    )
    assert request.payload is not None
    return list(request.payload["agentResults"])


async def test_two_of_three_agents_ask_at_once_and_each_gets_its_own_answer(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    scenario = OfflineScenario.parse("fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#3")
    offline = OfflineModel(scenario)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        # agents that ask within 10 s of each other join one question
        handle = await start(client, task_queue, workflow_id, question_gather_seconds=10)
        pending = (await wait_for_interrupt(handle, timeout=60)).pending_interrupt
        assert pending is not None
        question = (await interrupt_status(client, pending.workflow_id)).request
        before = len(offline.received)
        answer = InterruptResolution.model_validate(
            {
                "selectedChoices": {
                    "ticket-agent-1/approach": "B",
                    "ticket-agent-3/approach": "CUSTOM",
                },
                "customInputs": {"ticket-agent-3/approach": "a sliding window per client"},
                "confirmations": {
                    "ticket-agent-1/add-tests": False,
                    "ticket-agent-3/add-tests": True,
                },
            }
        )
        ack = await client.get_workflow_handle(pending.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer
        )
        assert ack.accepted
        await asyncio.wait_for(handle.result(), 90)
        status = await full_status(client, handle)

    # one interrupt, raised by the dispatch node, carrying both questions (item 2)
    assert pending.origin_agent_type is AgentType.TICKET_DISPATCH
    assert isinstance(question, TicketAgentDispatchInterruptRequest)
    assert [q.agent_key for q in question.agent_questions] == ["ticket-agent-1", "ticket-agent-3"]
    assert {c.choice_id for c in question.choices} == {
        "ticket-agent-1/approach",
        "ticket-agent-3/approach",
    }
    assert [e.kind for e in status.history].count(EntryKind.INTERRUPT) == 1
    # the workflow lifted them: no dispatch LLM call before the question (item 1)
    first_run = offline.received[:before]
    assert len(_calls(first_run, TICKET_AGENT)) == 3
    assert _calls(first_run, TICKET_DISPATCH) == [], "never left to the dispatch node's LLM"

    # resumed: only the two agents that asked run, each with its own answer (FR-094, item 3)
    resumed = {
        _node(c): c["messages"][0]["content"]
        for c in _calls(offline.received[before:], TICKET_AGENT)
    }
    assert set(resumed) == {"ticket-agent-1", "ticket-agent-3"}
    first, third = resumed["ticket-agent-1"], resumed["ticket-agent-3"]
    assert RESOLVED_MARKER in first and RESOLVED_MARKER in third
    assert "-> B (Introduce a dedicated component)" in first
    assert "Add regression tests for the changed behaviour -> no" in first
    assert "sliding window" not in first, "never another agent's answer"
    assert 'CUSTOM: "a sliding window per client"' in third
    assert "Add regression tests for the changed behaviour -> yes" in third
    dispatches = [
        e
        for e in status.history
        if e.kind is EntryKind.REQUEST and e.agent_type is AgentType.TICKET_DISPATCH
    ]
    assert len(dispatches) == 1, "the answered agents ran again within the same dispatch node"

    # the collector receives the full set, the finished agent's result unchanged
    collected = _collected(status)
    assert len({r["resultId"] for r in collected}) == 3
    outputs = {
        dispatched_agent_key(e.node_id): e.payload["result"]["resultId"]
        for e in status.history
        if e.kind is EntryKind.OUTPUT
        and e.agent_type is AgentType.TICKET_AGENT
        and e.payload
        and e.payload["result"]
    }
    assert outputs["ticket-agent-2"] in {r["resultId"] for r in collected}


async def test_resuming_a_dispatch_node_after_its_own_question_reruns_no_agent(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The dispatch node's LLM may still ask its own question; its finished agents are kept."""
    offline = OfflineModel(OfflineScenario.parse("interrupt=TICKET_DISPATCH"))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle, timeout=60)).pending_interrupt
        assert pending is not None and pending.origin_agent_type is AgentType.TICKET_DISPATCH
        question = (await interrupt_status(client, pending.workflow_id)).request
        before = len(offline.received)
        await client.get_workflow_handle(pending.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question)
        )
        await asyncio.wait_for(handle.result(), 90)
        status = await full_status(client, handle)

    assert question.agent_questions == []  # type: ignore[attr-defined]
    assert question.routing_decisions, "FR-108: the dispatch node's routing decisions"  # type: ignore[attr-defined]
    after = offline.received[before:]
    assert _calls(after, TICKET_AGENT) == [], "no finished agent runs again"
    (dispatch,) = _calls(after, TICKET_DISPATCH)
    assert RESOLVED_MARKER in dispatch["messages"][0]["content"]
    assert len(_calls(offline.received, TICKET_AGENT)) == 2
    assert len(_collected(status)) == 2


async def test_an_event_on_a_dispatch_node_adds_its_choices_to_the_agents_questions(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The supervisor's choices join the lifted ones; each part is answered
    and reaches its owner (the agent its answer, the supervisor's option the route). The agents
    still running are asked to interrupt too."""
    scenario = OfflineScenario.parse("fanout=2;interrupt=TICKET_AGENT#1;delay=TICKET_AGENT:2")
    offline = OfflineModel(scenario)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        running = await wait_running(handle, AgentType.TICKET_DISPATCH, timeout=60)
        assert running.current_node is not None
        async with asyncio.timeout(30):  # its two agents run
            while await started_activities(handle) < 2:
                await asyncio.sleep(0.05)
        ack = await handle.execute_update(
            OrchestratorWorkflow.send_interrupt_event,
            InterruptRequestEvent.model_validate(
                {
                    "eventId": "dispatch-event",
                    "nodeId": running.current_node.node_id,
                    "sourceAgentType": "TICKET_DISPATCH",
                    "reason": "Check the ticket split before merging",
                    "choices": [
                        {"label": "Keep", "value": "keep"},
                        {"label": "Split", "value": "split"},
                    ],
                }
            ),
        )
        assert ack.accepted
        before = len(offline.received)
        asked: list[str] = []  # an agent asking after the first question waits for the next
        answered: set[str] = set()
        while len(asked) < 3:
            pending = (await wait_for_interrupt(handle, timeout=60)).pending_interrupt
            assert pending is not None
            if pending.workflow_id in answered:  # the run has not taken that answer yet
                await asyncio.sleep(0.05)
                continue
            answered.add(pending.workflow_id)
            question = (await interrupt_status(client, pending.workflow_id)).request
            asked += [c.choice_id for c in question.choices]
            await client.get_workflow_handle(pending.workflow_id).execute_update(
                InterruptWorkflow.resolve_validated, answer_all(question, option="B")
            )
        await asyncio.wait_for(handle.result(), 90)
    assert sorted(asked) == [
        "supervisor",
        "ticket-agent-1/approach",
        "ticket-agent-2/approach",  # running when the event came: asked to interrupt too
    ]
    resumed = {
        _node(c): c["messages"][0]["content"]
        for c in _calls(offline.received[before:], TICKET_AGENT)
        if RESOLVED_MARKER in c["messages"][0]["content"]
    }
    assert set(resumed) == {"ticket-agent-1", "ticket-agent-2"}, "each gets its answer"
    for agent in resumed.values():
        assert "-> B (" in agent


async def test_an_event_stops_one_running_dispatched_agent_and_its_siblings_run_on(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """An event names a running ticket agent by its node id; only that call is
    cancelled and run again with the message; its question is lifted; the siblings ran once."""
    scenario = OfflineScenario.parse("fanout=3;delay=TICKET_AGENT:3")
    offline = OfflineModel(scenario)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        running = await wait_running(handle, AgentType.TICKET_DISPATCH, timeout=60)
        assert running.current_node is not None
        target = f"{running.current_node.node_id}/ticket-agent-2"
        event = {"eventId": "one-agent", "sourceAgentType": "TICKET_AGENT", "reason": "Stop"}
        refused = InterruptRequestEvent.model_validate({**event, "nodeId": f"{target}x"})
        with pytest.raises(WorkflowUpdateFailedError):
            await handle.execute_update(OrchestratorWorkflow.send_interrupt_event, refused)
        ack = await handle.execute_update(
            OrchestratorWorkflow.send_interrupt_event,
            InterruptRequestEvent.model_validate({**event, "nodeId": target}),
        )
        assert ack.accepted and ack.node_id == target
        pending = (await wait_for_interrupt(handle, timeout=60)).pending_interrupt
        assert pending is not None
        question = (await interrupt_status(client, pending.workflow_id)).request
        assert {c.choice_id.split("/")[0] for c in question.choices} == {"ticket-agent-2"}
        await client.get_workflow_handle(pending.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question)
        )
        await asyncio.wait_for(handle.result(), 90)

    calls = [_node(c) for c in _calls(offline.received, TICKET_AGENT)]
    assert calls.count("ticket-agent-1") == 1 and calls.count("ticket-agent-3") == 1
    assert calls.count("ticket-agent-2") == 3, "cancelled, asked again with the message, resumed"


FAN_OUTS = 20
"""Runs, each with one fan-out of three ticket agents that all ask at about the same moment."""


async def _questions_once_all_asked(
    client: Client, handle: WorkflowHandle[OrchestratorWorkflow, Any]
) -> list[str]:
    """The InterruptWorkflow ids the run's ticket dispatch node started, once its three agents
    have answered (each with a question) and at least one question was started."""
    async with asyncio.timeout(180):
        while True:
            status = await full_status(client, handle)
            asked = [
                e
                for e in status.history
                if e.kind is EntryKind.OUTPUT and e.agent_type is AgentType.TICKET_AGENT
            ]
            questions = [
                str((e.payload or {}).get("workflowId"))
                for e in status.history
                if e.kind is EntryKind.INTERRUPT and e.agent_type is AgentType.TICKET_DISPATCH
            ]
            if len(asked) == 3 and questions:
                return questions
            await asyncio.sleep(0.2)


async def test_three_agents_asking_at_once_always_share_one_question(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """FR-094: with the default gathering window (0 s), the three agents of a fan-out
    whose questions arrive together are asked as one question, run after run (20 fan-outs)."""
    offline = OfflineModel(OfflineScenario.parse("fanout=3;interrupt=TICKET_AGENT"))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handles = [await start(client, task_queue, f"{workflow_id}-{n}") for n in range(FAN_OUTS)]
        found = await asyncio.gather(*(_questions_once_all_asked(client, h) for h in handles))
        shown = [await interrupt_status(client, questions[0]) for questions in found if questions]
        for handle in handles:
            await handle.terminate("the test has seen its questions")
    assert [len(q) for q in found] == [1] * FAN_OUTS, "one question per fan-out, every time"
    for question in shown:
        assert [q.agent_key for q in question.request.agent_questions] == [  # type: ignore[attr-defined]
            "ticket-agent-1",
            "ticket-agent-2",
            "ticket-agent-3",
        ]
