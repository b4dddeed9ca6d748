"""Replay recorded histories: the workflow code is deterministic."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, WORKFLOWS, build_worker
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow


async def test_orchestrator_history_replays(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal="replay me"),
            id=workflow_id,
            task_queue=task_queue,
        )
        await handle.result()
    history = await handle.fetch_history()
    replayer = Replayer(
        workflows=WORKFLOWS,
        workflow_runner=WORKFLOW_RUNNER,
        data_converter=pydantic_data_converter,
    )
    result = await replayer.replay_workflow(history)
    assert result.replay_failure is None
