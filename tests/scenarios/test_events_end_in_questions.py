"""Every accepted supervisor event ends in a question (handler US3).

A model that ignores the supervisor's message (``deaf``) answers with its own route; the workflow
then asks in the agent's place, with a question typed as the agent's own interrupt and built from
the event's fields; the ignored reply is kept (not curated, not routed), and after the person's
answer the run continues where the supervisor asked. Interrupts a supervisor caused do not count
towards the interrupt loop breaker, which never speaks in a supervised call."""

from __future__ import annotations

import asyncio

from temporalio.client import Client

from agent_interrupts.activities.contributors.base import PromptContext
from agent_interrupts.activities.contributors.loop_breaker import InterruptLoopBreakerContributor
from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.agent_call import SUPERVISOR_MESSAGE_PREFIX
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.state import EntryKind, EventKind
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.questions import DiscoveryCollectorInterruptRequest
from agent_interrupts.teams.software.routings import PlanningOrchestratorRouting
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import (
    answer_all,
    full_status,
    interrupt_status,
    start,
    wait_for_interrupt,
    wait_running,
)
from tests.support.prompts import make_call


async def test_an_event_the_agent_ignores_still_ends_in_its_question_and_the_reroute(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    scenario = OfflineScenario.parse("delay=DISCOVERY_COLLECTOR:2;deaf=DISCOVERY_COLLECTOR")
    offline = OfflineModel(scenario)
    event = InterruptRequestEvent.model_validate(
        {
            "eventId": "ignored-1",
            "sourceAgentType": "DISCOVERY_COLLECTOR",
            "rerouteToAgentType": "DISCOVERY_ORCHESTRATOR",
            "reason": "Discovery missed the billing module",
            "choices": [
                {"label": "Rediscover", "value": "DISCOVERY_ORCHESTRATOR"},
                {"label": "Go on", "value": "PLANNING_ORCHESTRATOR"},
            ],
            "contextForDecision": "billing/ was not in scope",
        }
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        await wait_running(handle, AgentType.DISCOVERY_COLLECTOR)
        ack = await handle.execute_update(OrchestratorWorkflow.send_interrupt_event, event)
        assert ack.accepted
        pending = (await wait_for_interrupt(handle, timeout=60)).pending_interrupt
        assert pending is not None
        question = await interrupt_status(client, pending.workflow_id)
        assert isinstance(question.request, DiscoveryCollectorInterruptRequest)
        assert question.request.reason == event.reason
        assert "the workflow asks in its place" in question.request.context_for_decision
        assert "supervisor" in {c.choice_id for c in question.request.choices}
        await client.get_workflow_handle(pending.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question.request, option="A")
        )
        await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)

    asked = [r for r in offline.received if SUPERVISOR_MESSAGE_PREFIX in str(r["messages"][-1])]
    assert asked, "the agent got the supervisor's message and ignored it"
    kinds = [(e.agent_type, e.kind) for e in status.history]
    ignored = kinds.index((AgentType.DISCOVERY_COLLECTOR, EntryKind.OUTPUT))
    assert kinds[ignored + 1] == (AgentType.DISCOVERY_COLLECTOR, EntryKind.INTERRUPT), (
        "the ignored reply is neither curated nor routed"
    )
    assert kinds[ignored + 3] == (AgentType.DISCOVERY_ORCHESTRATOR, EntryKind.REQUEST), (
        "after the answer the run continues where the supervisor asked"
    )
    assert status.interrupt_counts.get(AgentType.DISCOVERY_COLLECTOR, 0) == 0
    warnings = [e.message for e in status.events if e.kind is EventKind.WARNING]
    assert any("asks in its place" in w for w in warnings)


def test_the_loop_breaker_never_contradicts_a_supervisor() -> None:
    call = make_call(AgentType.PLANNING_ORCHESTRATOR).model_copy(update={"interrupts_here": 9})
    breaker = InterruptLoopBreakerContributor()
    alone = PromptContext.from_call(call, PlanningOrchestratorRouting, team=SOFTWARE_TEAM)
    assert breaker.contribute(alone) is not None
    supervised = call.model_copy(
        update={"user_messages": [f"{SUPERVISOR_MESSAGE_PREFIX} stop and ask"]}
    )
    assert (
        breaker.contribute(
            PromptContext.from_call(supervised, PlanningOrchestratorRouting, team=SOFTWARE_TEAM)
        )
        is None
    )
