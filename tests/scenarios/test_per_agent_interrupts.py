"""US24-US41, US19 (@typed-interrupt-requests), SC-018: every one of the
17 agent types raises its own typed interrupt through a real workflow; its typed fields reach the
person's view (the ``status`` query and the Temporal UI details of the interrupt), and after the
answer the resumed agent's prompt carries it. Dispatched agents' questions reach the person
inside their dispatch node's interrupt (handler US4)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import RESOLVED_MARKER, OfflineModel, OfflineScenario
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.graph import NODES
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.teams.software import questions as interrupts
from agent_interrupts.teams.software.agents import DISPATCHED_AGENTS, AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.support.interrupts import answer_all, interrupt_status, start, wait_for_interrupt

TYPES = {
    AgentType.ORCHESTRATOR: "OrchestratorInterruptRequest",  # US24
    AgentType.ORCHESTRATOR_COLLECTOR: "OrchestratorCollectorInterruptRequest",  # US25
    AgentType.DISCOVERY_ORCHESTRATOR: "DiscoveryOrchestratorInterruptRequest",  # US26
    AgentType.DISCOVERY_AGENT: "DiscoveryAgentInterruptRequest",  # US27
    AgentType.DISCOVERY_COLLECTOR: "DiscoveryCollectorInterruptRequest",  # US28
    AgentType.DISCOVERY_DISPATCH: "DiscoveryAgentDispatchInterruptRequest",  # US29
    AgentType.PLANNING_ORCHESTRATOR: "PlanningOrchestratorInterruptRequest",  # US30
    AgentType.PLANNING_AGENT: "PlanningAgentInterruptRequest",  # US31
    AgentType.PLANNING_COLLECTOR: "PlanningCollectorInterruptRequest",  # US32
    AgentType.PLANNING_DISPATCH: "PlanningAgentDispatchInterruptRequest",  # US33
    AgentType.TICKET_ORCHESTRATOR: "TicketOrchestratorInterruptRequest",  # US34
    AgentType.TICKET_AGENT: "TicketAgentInterruptRequest",  # US35
    AgentType.TICKET_COLLECTOR: "TicketCollectorInterruptRequest",  # US36
    AgentType.TICKET_DISPATCH: "TicketAgentDispatchInterruptRequest",  # US37
    AgentType.REVIEW_AGENT: "ReviewInterruptRequest",  # US38
    AgentType.MERGER_AGENT: "MergerInterruptRequest",  # US39
    AgentType.CONTEXT_MANAGER: "ContextManagerInterruptRequest",  # US41
}


def _scenario(agent: AgentType) -> str:
    if agent in DISPATCHED_AGENTS:
        return f"interrupt={agent}#1"  # the first agent of the fan-out asks
    if agent is AgentType.CONTEXT_MANAGER:
        return "interrupt=CONTEXT_MANAGER;context=REVIEW_AGENT"
    return f"interrupt={agent}"


@dataclass
class Seen:
    """What the person saw and what the resumed agent was told."""

    pending: dict[str, Any]
    typed: InterruptRequestBase
    details: str
    prompts: list[str]
    """System prompts of the asking agent's calls after the answer."""


def _own_fields(request: InterruptRequestBase) -> set[str]:
    written = set(type(request).model_json_schema(by_alias=True)["properties"])
    return written - set(InterruptRequestBase.model_json_schema(by_alias=True)["properties"])


async def _ask_and_answer(client: Client, workflow_id: str, agent: AgentType) -> Seen:
    task_queue = f"{workflow_id}-q"
    offline = OfflineModel(OfflineScenario.parse(_scenario(agent)))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle, timeout=120)).pending_interrupt
        assert pending is not None
        child = client.get_workflow_handle(pending.workflow_id)
        question = await interrupt_status(client, pending.workflow_id)
        details = await (await child.describe()).static_details() or ""
        asked_before = len(offline.received)
        await child.execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question.request)
        )
        await asyncio.wait_for(handle.result(), 180)
    name = NODES[agent].output_model.__name__
    prompts = [
        r["messages"][0]["content"]
        for r in offline.received[asked_before:]
        if r["response_format"]["json_schema"]["name"] == name
    ]
    return Seen(pending.request, question.request, details, prompts)


async def test_every_agent_type_raises_its_own_typed_interrupt(
    client: Client, workflow_id: str
) -> None:
    assert set(TYPES) == set(AgentType), "one scenario per agent type"
    seen = await asyncio.gather(
        *(_ask_and_answer(client, f"{workflow_id}-{a.slug}", a) for a in TYPES)
    )
    for (agent, type_name), view in zip(TYPES.items(), seen, strict=True):
        dispatcher = DISPATCHED_AGENTS.get(agent)
        typed, wire = view.typed, view.pending
        if dispatcher is not None:
            # raised by the dispatch node, with the agent's own typed question inside (handler US4)
            assert typed.origin is dispatcher, agent
            (inner,) = typed.agent_questions  # type: ignore[attr-defined]
            assert inner.agent_key == f"{agent.slug}-1"
            typed, wire = inner.request, wire["agentQuestions"][0]["request"]
            assert f"#### {agent.slug}-1 ({agent}) asks: " in view.details
        assert type(typed).__name__ == type_name
        assert type(typed) is getattr(interrupts, type_name)
        for field in _own_fields(typed):
            assert wire[field] not in ("", [], None), f"{agent}: {field} is empty in status"
            assert f"**{field}:**" in view.details, f"{agent}: {field} not in the UI details"
        # after the answer the agent (the same one, for a dispatched agent) runs with it
        resumed = [p for p in view.prompts if RESOLVED_MARKER in p]
        assert resumed, f"{agent} did not run again with the answer"
        assert "-> B (" in resumed[0], agent
