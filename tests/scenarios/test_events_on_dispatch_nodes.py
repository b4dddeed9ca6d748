"""An event on a dispatch node cancels its running agents, which run again asked to interrupt;
their questions come lifted into one. Measures event -> calls cancelled."""

from __future__ import annotations

import asyncio
import time
import uuid

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.teams.software.agents import AgentType
from tests.support.interrupts import (
    answer_all,
    interrupt_status,
    start,
    started_activities,
    wait_for_interrupt,
    wait_running,
)

AGENT_SECONDS = 6.0
"""Each ticket agent's call, long enough that only a cancellation ends it early."""


async def test_an_event_on_a_dispatch_node_cancels_its_running_agents_at_once(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    scenario = OfflineScenario(delays={AgentType.TICKET_AGENT: AGENT_SECONDS})
    agents = AgentWorkflowClient(client)
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handle = await start(client, task_queue, workflow_id)
        await wait_running(handle, AgentType.TICKET_DISPATCH, timeout=60)
        async with asyncio.timeout(30):
            while await started_activities(handle) < 2:
                await asyncio.sleep(0.05)
        event = InterruptRequestEvent.model_validate(
            {
                "eventId": str(uuid.uuid4()),
                "sourceAgentType": "TICKET_DISPATCH",
                "reason": "Stop: the tickets touch the wrong module",
            }
        )
        sent = time.monotonic()
        ack = await agents.send_interrupt_event(workflow_id, event)
        assert "its running agents ticket-agent-1, ticket-agent-2 are cancelled" in ack.message
        async with asyncio.timeout(10):
            while True:
                history = await handle.fetch_history()
                cancels = [
                    e
                    for e in history.events
                    if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED
                ]
                if len(cancels) == 2:
                    break
                await asyncio.sleep(0.05)
        cancelled_after = time.monotonic() - sent
        lifted: list[str] = []  # one combined question, or a second for a slower agent
        answered: set[str] = set()
        while len(lifted) < 2:
            status = await wait_for_interrupt(handle, timeout=3 * AGENT_SECONDS)
            pending = status.pending_interrupt
            assert pending is not None and pending.origin_agent_type is AgentType.TICKET_DISPATCH
            if pending.workflow_id in answered:  # the run has not taken that answer yet
                await asyncio.sleep(0.05)
                continue
            answered.add(pending.workflow_id)
            question = (await interrupt_status(client, pending.workflow_id)).request
            lifted += [q.agent_key for q in getattr(question, "agent_questions", [])]
            await agents.resolve(pending.workflow_id, answer_all(question))
        assert sorted(lifted) == ["ticket-agent-1", "ticket-agent-2"], "each asked, interrupted"
        await asyncio.wait_for(handle.result(), 3 * AGENT_SECONDS)
    print(f"event on TICKET_DISPATCH -> both agents' calls cancelled: {cancelled_after:.2f} s")
    assert cancelled_after < 5.0
