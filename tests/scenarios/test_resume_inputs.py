"""handler SC-002: a node that resumes after its own
interrupt keeps every input of its last request that the translation did not deliberately change.
One interrupt at every origin of the routing contract's InterruptRouting table (14 routes), real
workflows."""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.graph import NODES
from agent_interrupts.models.ids import dispatched_agent_key
from agent_interrupts.models.state import EntryKind, HistoryEntry, OrchestratorStatus
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.routings import InterruptRouting
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.resume import _system_only
from tests.support.interrupts import (
    answer_all,
    full_status,
    interrupt_status,
    start,
    wait_for_interrupt,
)

SCENARIOS: dict[AgentType, str] = {
    AgentType.ORCHESTRATOR: "interrupt=ORCHESTRATOR",
    AgentType.DISCOVERY_ORCHESTRATOR: "interrupt=DISCOVERY_ORCHESTRATOR",
    AgentType.DISCOVERY_DISPATCH: "interrupt=DISCOVERY_AGENT",
    AgentType.DISCOVERY_COLLECTOR: "interrupt=DISCOVERY_COLLECTOR",
    AgentType.PLANNING_ORCHESTRATOR: "interrupt=PLANNING_ORCHESTRATOR",
    AgentType.PLANNING_DISPATCH: "interrupt=PLANNING_AGENT",
    AgentType.PLANNING_COLLECTOR: "interrupt=PLANNING_COLLECTOR",
    AgentType.TICKET_ORCHESTRATOR: "interrupt=TICKET_ORCHESTRATOR",
    AgentType.TICKET_DISPATCH: "interrupt=TICKET_AGENT",
    AgentType.TICKET_COLLECTOR: "interrupt=TICKET_COLLECTOR",
    AgentType.REVIEW_AGENT: "interrupt=REVIEW_AGENT",
    AgentType.MERGER_AGENT: "interrupt=MERGER_AGENT",
    AgentType.ORCHESTRATOR_COLLECTOR: "interrupt=ORCHESTRATOR_COLLECTOR",
    AgentType.CONTEXT_MANAGER: "interrupt=CONTEXT_MANAGER;context=REVIEW_AGENT",
}


def test_every_interrupt_routing_origin_is_covered() -> None:
    assert set(SCENARIOS) == InterruptRouting.route_targets()


async def _run(client: Client, workflow_id: str, origin: AgentType) -> OrchestratorStatus:
    task_queue = f"{workflow_id}-q"
    offline = OfflineModel(OfflineScenario.parse(SCENARIOS[origin]))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        # every agent of a fan-out asks: one question for them all
        handle = await start(client, task_queue, workflow_id, question_gather_seconds=10)
        pending = (await wait_for_interrupt(handle, timeout=90)).pending_interrupt
        assert pending is not None and pending.origin_agent_type is origin
        question = await interrupt_status(client, pending.workflow_id)
        await client.get_workflow_handle(pending.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question.request)
        )
        await asyncio.wait_for(handle.result(), 120)
        return await full_status(client, handle)


def _around_interrupt(history: list[HistoryEntry], origin: AgentType) -> tuple[Any, Any]:
    """The origin's request before its interrupt and the request it resumed with; for a
    dispatch node, whose answered agents run again within it, the first asking agent's."""
    asking = NODES[origin].dispatches or origin
    at = next(i for i, e in enumerate(history) if e.kind is EntryKind.INTERRUPT)

    def asked(e: HistoryEntry) -> bool:
        return (
            e.kind is EntryKind.REQUEST
            and e.agent_type is asking
            and (asking is origin or dispatched_agent_key(e.node_id) == _key(history, at))
        )

    before = next(e for e in reversed(history[:at]) if asked(e))
    resolved = next(i for i, e in enumerate(history) if e.kind is EntryKind.RESOLUTION)
    after = next(e for e in history[resolved:] if asked(e))
    return before.payload, after.payload


def _key(history: list[HistoryEntry], interrupt_at: int) -> str:
    """The first agent whose question the dispatch node's interrupt carries."""
    payload = history[interrupt_at].payload or {}
    return str(payload["agentQuestions"][0]["agentKey"])


async def test_resumed_requests_keep_their_inputs_at_every_origin(
    client: Client, workflow_id: str
) -> None:
    statuses = await asyncio.gather(
        *(_run(client, f"{workflow_id}-{o.slug}", o) for o in SCENARIOS)
    )
    for origin, status in zip(SCENARIOS, statuses, strict=True):
        before, after = _around_interrupt(status.history, origin)
        model = NODES[NODES[origin].dispatches or origin].request_model
        for name, field in model.model_fields.items():
            key = field.alias or name
            if key not in before:
                continue
            assert key in after, f"{origin}: {key} was lost on resume"
            if _system_only(field.metadata):
                assert after[key] == before[key], f"{origin}: system input {key} changed"
            elif before[key] not in ("", [], None):
                assert after[key] not in ("", [], None), f"{origin}: {key} emptied on resume"
        if "agentResults" in before:
            assert before["agentResults"], f"{origin}: the collector had results"
            assert after["agentResults"] == before["agentResults"]
