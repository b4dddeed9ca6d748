"""A question is raised at any fan-out size (12 agents failed the run with
DegenerateLoop: the dispatch node's request had left the blackboard's payload window), and the
fan-out size is a named limit the model is held to (MAX_FAN_OUT: schema ``maxItems`` and a
send-back naming the limit)."""

from __future__ import annotations

import pytest
from temporalio.client import Client

from agent_interrupts.activities.agents import well_formed_reply
from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.activities.output_schema import decoder_schema
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.ids import dispatched_agent_key
from agent_interrupts.models.limits import MAX_FAN_OUT
from agent_interrupts.models.state import EntryKind
from agent_interrupts.teams.software.requests import DiscoveryAgentRequest, DiscoveryAgentRequests
from agent_interrupts.teams.software.routings import DiscoveryOrchestratorRouting
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.support.interrupts import (
    answer_all,
    full_status,
    interrupt_status,
    start,
    wait_for_interrupt,
)


@pytest.mark.parametrize("size", [12, MAX_FAN_OUT])
async def test_one_agent_of_a_large_fan_out_asks_and_the_run_completes(
    client: Client, task_queue: str, workflow_id: str, size: int
) -> None:
    scenario = OfflineScenario.parse(f"fanout={size};interrupt=DISCOVERY_AGENT#1")
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handle = await start(client, task_queue, workflow_id, max_steps=200)
        pending = (await wait_for_interrupt(handle, timeout=120)).pending_interrupt
        assert pending is not None
        question = await interrupt_status(client, pending.workflow_id)
        await client.get_workflow_handle(pending.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question.request)
        )
        await handle.result()
        status = await full_status(client, handle)
    agents = [
        e
        for e in status.history
        if e.kind is EntryKind.OUTPUT
        and e.node_id.startswith("discovery-dispatch-")
        and "/" in e.node_id
    ]
    keys = [dispatched_agent_key(e.node_id) for e in agents]
    assert len(set(keys)) == size
    assert len(keys) == size + 1 and keys.count("discovery-agent-1") == 2, (
        "only the agent that asked ran again"
    )


def test_the_schema_and_the_send_back_name_the_fan_out_limit() -> None:
    schema = decoder_schema(DiscoveryOrchestratorRouting)
    assert f'"maxItems": {MAX_FAN_OUT}' in str(schema).replace("'", '"')
    one = DiscoveryAgentRequest.model_construct(subdomain="s", focus_questions=[])
    too_many = DiscoveryOrchestratorRouting.model_construct(
        discovery_agent_requests=DiscoveryAgentRequests.model_construct(
            requests=[one] * (MAX_FAN_OUT + 1)
        )
    )
    with pytest.raises(ValueError, match=f"at most {MAX_FAN_OUT} agents \\(MAX_FAN_OUT\\)"):
        well_formed_reply(too_many)
