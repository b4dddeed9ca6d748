"""A dispatched agent's question reaches a person while its siblings still
work; a question asked after it follows when the node resumes; each agent gets only its own
answer and no finished agent runs again. Offline model, real dev server."""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio.client import Client, WorkflowHandle

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import RESOLVED_MARKER, OfflineModel, OfflineScenario
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.ids import dispatched_agent_key
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.state import EntryKind, OrchestratorStatus
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import GOAL, answer_all, full_status, interrupt_status, start

TICKET_AGENT = "TicketAgentRouting"


def _ticket_calls(received: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each ticket agent's prompts (system message), by agent key, in order."""
    calls: dict[str, list[str]] = {}
    for body in received:
        if body["response_format"]["json_schema"]["name"] != TICKET_AGENT:
            continue
        user = body["messages"][1]["content"]
        key = dispatched_agent_key(user.split("Node: ", 1)[1].split("\n", 1)[0])
        calls.setdefault(key, []).append(body["messages"][0]["content"])
    return calls


def _finished(status: OrchestratorStatus, key: str) -> bool:
    return any(e.kind is EntryKind.OUTPUT and e.node_id.endswith(f"/{key}") for e in status.history)


async def _next_question(
    handle: WorkflowHandle[OrchestratorWorkflow, Any], client: Client, asked: set[str]
) -> tuple[OrchestratorStatus, InterruptRequestBase]:
    async with asyncio.timeout(60):
        while True:
            status = await handle.query(OrchestratorWorkflow.status)
            pending = status.pending_interrupt
            if pending is not None and pending.workflow_id not in asked:
                asked.add(pending.workflow_id)
                return status, (await interrupt_status(client, pending.workflow_id)).request
            await asyncio.sleep(0.05)


async def _answer(
    client: Client, status: OrchestratorStatus, question: InterruptRequestBase
) -> None:
    assert status.pending_interrupt is not None
    await client.get_workflow_handle(status.pending_interrupt.workflow_id).execute_update(
        InterruptWorkflow.resolve_validated, answer_all(question, option="B")
    )


async def _answer_then_the_next(
    handle: WorkflowHandle[OrchestratorWorkflow, Any],
    client: Client,
    asked: set[str],
    status: OrchestratorStatus,
    first: InterruptRequestBase,
) -> InterruptRequestBase:
    """Answer the first question, then the one that follows; the run then ends."""
    await _answer(client, status, first)
    status, second = await _next_question(handle, client, asked)
    await _answer(client, status, second)
    await asyncio.wait_for(handle.result(), 90)
    return second


async def test_a_question_is_seen_while_a_slow_sibling_still_runs(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    scenario = OfflineScenario.parse("fanout=3;interrupt=TICKET_AGENT#1;delay=TICKET_AGENT#3:10")
    offline = OfflineModel(scenario)
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await agents.start(GOAL, workflow_id=workflow_id)  # with search attributes
        status, question = await _next_question(handle, client, set())
        assert status.pending_interrupt is not None
        assert not _finished(status, "ticket-agent-3"), "seen while the slow sibling runs"
        early = [e.message for e in status.events if "a question is asked while" in e.message]
        assert early and "of its agents still run" in early[0]
        assert status.pending_interrupt.origin_agent_type is AgentType.TICKET_DISPATCH
        assert [q.agent_key for q in question.agent_questions] == ["ticket-agent-1"]  # type: ignore[attr-defined]
        async with asyncio.timeout(30):  # the inbox lists it too (search attributes)
            while not await agents.is_listed_waiting(status.pending_interrupt.workflow_id):
                await asyncio.sleep(0.1)
        assert not _finished(await handle.query(OrchestratorWorkflow.status), "ticket-agent-3")
        await _answer(client, status, question)
        await asyncio.wait_for(handle.result(), 90)
        status = await full_status(client, handle)
    calls = _ticket_calls(offline.received)
    assert [len(calls[k]) for k in ("ticket-agent-1", "ticket-agent-2", "ticket-agent-3")] == [
        2,
        1,
        1,
    ], "only the agent that asked runs again"
    assert RESOLVED_MARKER in calls["ticket-agent-1"][1]
    assert [e.kind for e in status.history].count(EntryKind.INTERRUPT) == 1


async def test_a_question_asked_later_is_asked_too_and_each_agent_runs_once_more(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    scenario = OfflineScenario.parse(
        "fanout=3;interrupt=TICKET_AGENT#1,TICKET_AGENT#3;delay=TICKET_AGENT#3:6"
    )
    offline = OfflineModel(scenario)
    asked: set[str] = set()
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        status, first = await _next_question(handle, client, asked)
        assert not _finished(status, "ticket-agent-3")
        second = await _answer_then_the_next(handle, client, asked, status, first)
    assert [q.agent_key for q in first.agent_questions] == ["ticket-agent-1"]  # type: ignore[attr-defined]
    assert [q.agent_key for q in second.agent_questions] == ["ticket-agent-3"]  # type: ignore[attr-defined]
    calls = _ticket_calls(offline.received)
    assert [len(calls[k]) for k in ("ticket-agent-1", "ticket-agent-2", "ticket-agent-3")] == [
        2,
        1,
        2,
    ], "each agent that asked runs once more, the finished one never"
    assert RESOLVED_MARKER in calls["ticket-agent-1"][1]
    assert RESOLVED_MARKER in calls["ticket-agent-3"][1]
    assert "-> B (" in calls["ticket-agent-1"][1] and "-> B (" in calls["ticket-agent-3"][1]
    assert "ticket-agent-3" not in calls["ticket-agent-1"][1], "never another agent's answer"


async def test_an_event_on_a_sibling_after_the_question_joins_the_next_question(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """A supervisor's event on an agent that still runs while the node's question waits: the
    agent asks, and its question (with the supervisor's choices) is the next question."""
    scenario = OfflineScenario.parse("fanout=3;interrupt=TICKET_AGENT#1;delay=TICKET_AGENT#3:6")
    asked: set[str] = set()
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(scenario)):
        handle = await start(client, task_queue, workflow_id)
        status, first = await _next_question(handle, client, asked)
        assert status.current_node is not None and not _finished(status, "ticket-agent-3")
        ack = await handle.execute_update(
            OrchestratorWorkflow.send_interrupt_event,
            InterruptRequestEvent.model_validate(
                {
                    "eventId": "late-sibling-event",
                    "nodeId": f"{status.current_node.node_id}/ticket-agent-3",
                    "sourceAgentType": "TICKET_AGENT",
                    "reason": "Check this ticket's scope with a person",
                    "choices": [
                        {"label": "Keep", "value": "keep"},
                        {"label": "Narrow", "value": "narrow"},
                    ],
                }
            ),
        )
        assert ack.accepted
        second = await _answer_then_the_next(handle, client, asked, status, first)
    assert [q.agent_key for q in first.agent_questions] == ["ticket-agent-1"]  # type: ignore[attr-defined]
    assert [q.agent_key for q in second.agent_questions] == ["ticket-agent-3"]  # type: ignore[attr-defined]
    assert "supervisor" in {c.choice_id for c in second.choices}, "the event's choices joined"
