"""An InterruptWorkflow started with an invalid input fails at once, and what stands in for its
input (what its ``status`` query and its error event show) names no team's agent."""

from __future__ import annotations

import asyncio

import pytest
from temporalio.client import Client, WorkflowFailureError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import InterruptStatus
from agent_interrupts.models.interrupts import TeamInterruptRequest
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow


async def test_an_invalid_start_inputs_placeholder_names_no_teams_agent(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await client.start_workflow(
            "InterruptWorkflow",
            args=[{"goal": "no question"}],
            id=workflow_id,
            task_queue=task_queue,
        )
        with pytest.raises(WorkflowFailureError):
            await asyncio.wait_for(handle.result(), 30)
        status = await handle.query(InterruptWorkflow.status, result_type=InterruptStatus)
    software = {a.value for a in AgentType}
    assert str(status.origin) not in software
    assert isinstance(status.request, TeamInterruptRequest)
    assert not (status.request.model_extra or {})  # asks nothing of any agent's own fields
    (error,) = status.events
    assert str(error.agent_type) not in software
    assert "InterruptInput" in error.message or "start input" in error.message
