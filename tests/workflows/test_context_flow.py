"""Typed, curated context flow with ids on a full offline run (agents US3, agents FR-012..015,
agents SC-003/004/008) and the computed parts of the standard outputs."""

from __future__ import annotations

import asyncio

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.ids import parse_context_id
from agent_interrupts.models.state import EntryKind, HistoryEntry, OrchestratorStatus
from agent_interrupts.teams.software.agents import DISPATCHED_AGENTS, AgentType
from agent_interrupts.workflows.lineage import context_chain, dangling_ids
from tests.support.interrupts import full_status, start


async def _full_run(client: Client, task_queue: str, workflow_id: str):
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start(client, task_queue, workflow_id)
        result = await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
    return result, status


def _first(status: OrchestratorStatus, agent: AgentType, kind: EntryKind) -> HistoryEntry:
    return next(e for e in status.history if e.agent_type is agent and e.kind is kind)


async def test_chain_of_the_final_result_reaches_back_through_every_phase(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    result, status = await _full_run(client, task_queue, workflow_id)
    assert dangling_ids(status.history) == [], "every upstream id resolves"
    chain = context_chain(status.history, result.result_id)
    agents = {e.agent_type for e in chain}
    assert set(AgentType) - {AgentType.CONTEXT_MANAGER} <= agents
    assert chain[0].agent_type is AgentType.ORCHESTRATOR and chain[0].kind is EntryKind.REQUEST
    assert {e.kind for e in chain} >= {EntryKind.REQUEST, EntryKind.OUTPUT, EntryKind.CONTEXT}


async def test_downstream_requests_carry_curated_contexts_with_ids(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    _, status = await _full_run(client, task_queue, workflow_id)
    discovery_out = _first(status, AgentType.DISCOVERY_COLLECTOR, EntryKind.OUTPUT)
    discovery_ctx = _first(status, AgentType.DISCOVERY_COLLECTOR, EntryKind.CONTEXT)
    assert discovery_ctx.payload["sourceResultId"] == discovery_out.context_id
    assert parse_context_id(discovery_ctx.context_id)[1] is AgentType.DISCOVERY_COLLECTOR
    assert discovery_out.payload["collectorResult"]["derivedCurationIds"] == [
        discovery_ctx.context_id
    ]

    planning_request = _first(status, AgentType.PLANNING_ORCHESTRATOR, EntryKind.REQUEST)
    assert planning_request.payload["discoveryContext"]["contextId"] == discovery_ctx.context_id
    assert discovery_ctx.context_id in planning_request.upstream_context_ids
    assert "agentResults" not in planning_request.payload["discoveryContext"]["curation"], (
        "a curation, never the whole upstream result"
    )

    planning_ctx = _first(status, AgentType.PLANNING_COLLECTOR, EntryKind.CONTEXT)
    ticket_agent = _first(status, AgentType.TICKET_AGENT, EntryKind.REQUEST)
    assert ticket_agent.payload["planningContext"]["contextId"] == planning_ctx.context_id
    assert ticket_agent.payload["discoveryContext"]["contextId"] == discovery_ctx.context_id
    ticket_output = _first(status, AgentType.TICKET_AGENT, EntryKind.OUTPUT)
    ticket_result = ticket_output.payload["result"]
    assert ticket_result["discoveryReference"] == discovery_out.context_id
    assert ticket_result["planningReference"] == planning_ctx.payload["sourceResultId"]

    final_request = _first(status, AgentType.ORCHESTRATOR_COLLECTOR, EntryKind.REQUEST)
    assert {"discoveryContext", "planningContext", "ticketContext"} <= final_request.payload.keys()


async def test_every_output_has_an_id_and_upstream_references(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """agents SC-004: every output carries its own id and the ids it considered."""
    _, status = await _full_run(client, task_queue, workflow_id)
    outputs = [e for e in status.history if e.kind is EntryKind.OUTPUT]
    for entry in outputs:
        assert entry.upstream_context_ids, entry.node_id
        results = [v for v in entry.payload.values() if isinstance(v, dict) and "resultId" in v]
        if entry.agent_type in DISPATCHED_AGENTS:
            assert results == [entry.payload["result"]], "a dispatched agent's result"
        for result in results:
            assert result["resultId"] == entry.context_id
            assert result["schemaVersion"] == "1.0"
            assert result["upstreamContextIds"]


async def test_collectors_compute_what_the_model_must_not_invent(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    _, status = await _full_run(client, task_queue, workflow_id)
    discovery = _first(status, AgentType.DISCOVERY_COLLECTOR, EntryKind.OUTPUT).payload
    result = discovery["collectorResult"]
    reports = [
        e.payload["result"]
        for e in status.history
        if e.agent_type is AgentType.DISCOVERY_AGENT and e.kind is EntryKind.OUTPUT
    ]
    assert {r["resultId"] for r in reports} == {i["resultId"] for i in result["inputReferences"]}
    cited = {(f["path"], f["startLine"]) for r in reports for f in r["fileReferences"]}
    assert {(f["path"], f["startLine"]) for f in result["fileReferences"]} == cited
    assert result["decisionType"] == "ADVANCE"
    planning = _first(status, AgentType.PLANNING_COLLECTOR, EntryKind.OUTPUT).payload
    tickets = planning["collectorResult"]["tickets"]
    order = planning["collectorResult"]["executionOrder"]
    assert sorted(order) == sorted(t["ticketId"] for t in tickets)
    position = {t: i for i, t in enumerate(order)}
    for ticket in tickets:
        for dep in ticket["dependencies"]:
            assert position[dep] < position[ticket["ticketId"]]
    assert planning["delegation" if "delegation" in planning else "collectorResult"]
