"""handler US1 (@unified-interrupt-handler), handler US2 (@interrupt-schema-filtering) and
handler US4 (@skip-dispatched-interrupts), end to end on a real Temporal dev server."""

from __future__ import annotations

import asyncio
import json

import pytest
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import RESOLVED_MARKER, OfflineModel, OfflineScenario
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupts import ResolvedBy
from agent_interrupts.models.state import EntryKind
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.support.interrupts import (
    answer_all,
    full_status,
    interrupt_status,
    start,
    translation_calls,
    wait_for_interrupt,
)

GATHER = 10

US1_ORIGINS = {
    AgentType.ORCHESTRATOR: "orchestratorRequest",
    AgentType.DISCOVERY_ORCHESTRATOR: "discoveryOrchestratorRequest",
    AgentType.PLANNING_ORCHESTRATOR: "planningOrchestratorRequest",
    AgentType.TICKET_ORCHESTRATOR: "ticketOrchestratorRequest",
    AgentType.REVIEW_AGENT: "reviewRequest",
    AgentType.MERGER_AGENT: "mergerRequest",
}


async def _interrupt_and_answer(
    client: Client, task_queue: str, workflow_id: str, scenario: OfflineScenario
):
    """Run until the scripted interrupt, answer it via the SDK's update, run to the end."""
    offline = OfflineModel(scenario)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        # dispatched agents that all ask share one question (else the next follows)
        handle = await start(client, task_queue, workflow_id, question_gather_seconds=GATHER)
        waiting = await wait_for_interrupt(handle)
        pending = waiting.pending_interrupt
        assert pending is not None
        child = await interrupt_status(client, pending.workflow_id)
        ack = await client.get_workflow_handle(pending.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(child.request)
        )
        assert ack.accepted
        result = await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
    return offline, pending, status, result


@pytest.mark.parametrize("origin", list(US1_ORIGINS), ids=lambda a: a.value)
async def test_unified_interrupt_handler_resumes_at_the_origin(
    client: Client, task_queue: str, workflow_id: str, origin: AgentType
) -> None:
    """handler US1: whichever agent interrupts, the one handler resumes it with its own request."""
    scenario = OfflineScenario(interrupt_at=frozenset({origin}))
    offline, pending, status, result = await _interrupt_and_answer(
        client, task_queue, workflow_id, scenario
    )
    assert pending.workflow_id == f"{workflow_id}-interrupt-1"
    assert pending.origin_agent_type is origin
    assert result.summary
    kinds = [(e.kind, e.agent_type, e.route) for e in status.history]
    at = kinds.index((EntryKind.RESOLUTION, origin, US1_ORIGINS[origin]))
    assert kinds[at - 1][:2] == (EntryKind.INTERRUPT, origin)
    assert kinds[at + 1][:2] == (EntryKind.REQUEST, origin), "resumes at the origin node"
    # the translation call's schema held exactly the one allowed route
    (call,) = translation_calls(offline.received)
    schema = call["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"]) == [US1_ORIGINS[origin]]
    # the resumed agent sees the person's answer (in its system prompt's "## Interrupt resolution"
    # section), and the human's choice reached its request
    resumed = next(
        r
        for r in offline.received[offline.received.index(call) + 1 :]
        if RESOLVED_MARKER in r["messages"][0]["content"]
    )
    assert "-> B (Introduce a dedicated component)" in resumed["messages"][0]["content"]
    assert sum(1 for e in status.history if e.kind is EntryKind.INTERRUPT) == 1


@pytest.mark.parametrize("origin", list(US1_ORIGINS)[:4], ids=lambda a: a.value)
async def test_interrupt_schema_filtering_leaves_only_the_origin_route(
    client: Client, task_queue: str, workflow_id: str, origin: AgentType
) -> None:
    """handler US2 / handler SC-003: zero invalid routing options reach the decision-maker."""
    scenario = OfflineScenario(interrupt_at=frozenset({origin}))
    offline, *_ = await _interrupt_and_answer(client, task_queue, workflow_id, scenario)
    (call,) = translation_calls(offline.received)
    schema = call["response_format"]["json_schema"]["schema"]
    kept = US1_ORIGINS[origin]
    assert schema["required"] == [kept]
    assert "anyOf" not in schema["properties"][kept], "the null branch is dropped"
    text = json.dumps(schema)
    others = [r for r in US1_ORIGINS.values() if r != kept] + ["ticketAgentRequests"]
    assert not any(f'"{o}"' in text for o in others)
    refs = {s.split("/")[-1] for s in _refs(schema)}
    assert refs == set(schema.get("$defs", {})), "every $ref resolves and no $defs is unreachable"


async def test_skip_dispatched_interrupts_raises_at_the_dispatch_node(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """handler US4 / handler FR-010: a ticket agent's question is raised by TICKET_DISPATCH,
    which resumes: the answered agent runs again at once, within the same dispatch node."""
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.TICKET_AGENT}))
    offline, pending, status, _ = await _interrupt_and_answer(
        client, task_queue, workflow_id, scenario
    )
    assert pending.origin_agent_type is AgentType.TICKET_DISPATCH
    interrupts = [e for e in status.history if e.kind is EntryKind.INTERRUPT]
    assert [e.agent_type for e in interrupts] == [AgentType.TICKET_DISPATCH]
    (call,) = translation_calls(offline.received)
    assert list(call["response_format"]["json_schema"]["schema"]["properties"]) == [
        "ticketAgentRequests"
    ]
    resolution = next(e for e in status.history if e.kind is EntryKind.RESOLUTION)
    following = status.history[status.history.index(resolution) + 1]
    assert following.kind is EntryKind.REQUEST
    assert following.agent_type is AgentType.TICKET_AGENT
    assert following.node_id == f"{resolution.node_id}/ticket-agent-1.2"


async def test_agent_review_interrupt_is_answered_by_a_reviewing_llm(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """AGENT_REVIEW interrupts need no person: a reviewing LLM call resolves them."""
    offline = OfflineModel(OfflineScenario(agent_review_at=frozenset({AgentType.MERGER_AGENT})))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
        child = await interrupt_status(client, f"{workflow_id}-interrupt-1")
    assert child.resolution is not None
    assert child.resolution.resolved_by is ResolvedBy.AGENT_REVIEW
    assert child.resolution.selected_choices == {"approach": "A"}, "the recommended option"
    names = [r["response_format"]["json_schema"]["name"] for r in offline.received]
    assert "AgentReviewDecision" in names
    assert any("AGENT_REVIEW -> mergerRequest" in e.message for e in status.events)


def _refs(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []
