"""OrchestratorWorkflow against a real Temporal dev server: the agent graph and its ``status``."""

from __future__ import annotations

import asyncio

import pytest
from temporalio import activity
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, WORKFLOWS, build_worker
from agent_interrupts.models.agent_call import AgentCall, AgentReply
from agent_interrupts.models.ids import parse_context_id
from agent_interrupts.models.state import EntryKind, EventKind
from agent_interrupts.teams.software.agents import AgentType
from tests.support.interrupts import GOAL, full_status, start


async def test_offline_run_walks_every_phase_to_the_final_result(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start(client, task_queue, workflow_id)
        result = await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)

    assert GOAL in result.summary
    run_id, agent, _, _ = parse_context_id(result.result_id)
    assert agent is AgentType.ORCHESTRATOR_COLLECTOR
    assert result.upstream_context_ids, "the final result links to the context it used"
    visited = {e.agent_type for e in status.history if e.kind is EntryKind.OUTPUT}
    assert visited == set(AgentType) - {AgentType.CONTEXT_MANAGER}
    routes = [e.route for e in status.history if e.kind is EntryKind.OUTPUT and e.route]
    assert routes[0] == "discoveryOrchestratorRequest" and routes[-1] == "finalResult"
    # every id in the run is unique and belongs to this run
    ids = [e.context_id for e in status.history]
    assert len(ids) == len(set(ids))
    assert all(parse_context_id(i)[0] == run_id for i in ids)
    assert status.current_node is None and status.pending_interrupt is None
    assert status.phase == "COMPLETION"
    # collectors receive the dispatched agents' results, not only a summary
    collector = next(
        e
        for e in status.history
        if e.agent_type is AgentType.DISCOVERY_COLLECTOR and e.kind is EntryKind.REQUEST
    )
    assert len(collector.payload["agentResults"]) == 2
    assert all(r["resultId"].startswith("wf-") for r in collector.payload["agentResults"])


async def test_one_activity_per_agent_step_in_history(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start(client, task_queue, workflow_id)
        await handle.result()
        status = await full_status(client, handle)
    history = await handle.fetch_history()
    scheduled = [
        e.activity_task_scheduled_event_attributes
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
    ]
    outputs = [e for e in status.history if e.kind is EntryKind.OUTPUT]
    assert len(scheduled) == len(outputs)
    assert {s.activity_type.name for s in scheduled} == {"run_agent"}


async def test_step_limit_fails_the_run_with_a_clear_error(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start(client, task_queue, workflow_id, max_steps=3, fail_on_step_limit=True)
        with pytest.raises(WorkflowFailureError) as err:
            await asyncio.wait_for(handle.result(), 30)
        status = await full_status(client, handle)
    cause = err.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == "StepLimitExceeded"
    assert "maxSteps" in cause.message
    assert status.steps_taken == 3
    assert status.events[-1].kind is EventKind.ERROR


async def test_start_without_goal_fails_cleanly(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await client.start_workflow(
            "OrchestratorWorkflow", {"goal": "  "}, id=workflow_id, task_queue=task_queue
        )
        with pytest.raises(WorkflowFailureError) as err:
            await asyncio.wait_for(handle.result(), 30)
    assert "goal is empty" in str(err.value.cause)


@activity.defn(name="run_agent")
async def invalid_reply_agent(call: AgentCall) -> AgentReply:
    """Fake registered under the real activity's name: the LLM never produced valid output."""
    raise ApplicationError(
        f"{call.agent_type}: the model did not produce a valid OrchestratorRouting",
        type="InvalidLlmReply",
        non_retryable=True,
    )


async def test_agent_that_never_validates_fails_the_workflow_and_records_an_error(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with Worker(
        client,
        task_queue=task_queue,
        workflows=WORKFLOWS,
        workflow_runner=WORKFLOW_RUNNER,
        activities=[invalid_reply_agent],
    ):
        handle = await start(client, task_queue, workflow_id)
        with pytest.raises(WorkflowFailureError) as err:
            await asyncio.wait_for(handle.result(), 30)
        status = await full_status(client, handle)
    assert "ORCHESTRATOR at orchestrator-001 failed" in str(err.value.cause)
    errors = [e for e in status.events if e.kind is EventKind.ERROR]
    assert errors and errors[-1].agent_type is AgentType.ORCHESTRATOR
    assert status.current_node is None
