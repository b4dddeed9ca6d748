"""A run the current code cannot replay is never silently stuck.

An older "version" of OrchestratorWorkflow (a workflow registered under that name that starts a
timer) runs first; the current workers then take the run over and fail its replay with a
non-determinism error, as after a deploy that broke compatibility. ``agents list`` marks it,
``agents status`` says what happened and how to roll back, and a worker's watch sends a notice.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.notify import NotifySettings
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.stuck import ROLLBACK, StuckRunWatch
from agent_interrupts.app.worker_setup import build_worker
from tests.support.receivers import HttpReceiver


@workflow.defn(name="OrchestratorWorkflow")
class AnOlderOrchestrator:
    """What an incompatible earlier version did first: wait on a timer."""

    @workflow.run
    async def run(self, *args: Any) -> None:
        await workflow.sleep(timedelta(hours=1))


async def test_a_run_the_workers_cannot_replay_is_marked_explained_and_announced(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with Worker(
        client,
        task_queue=task_queue,
        workflows=[AnOlderOrchestrator],
        workflow_runner=UnsandboxedWorkflowRunner(),
        max_cached_workflows=0,
    ):
        handle = await client.start_workflow(
            "OrchestratorWorkflow", {"goal": "x"}, id=workflow_id, task_queue=task_queue
        )
        async with asyncio.timeout(30):
            while not any(
                e.HasField("timer_started_event_attributes")
                for e in (await handle.fetch_history()).events
            ):
                await asyncio.sleep(0.1)
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings()):
        await handle.signal("a-signal-that-wakes-it")

        async def marked() -> bool:
            rows = await agents.runs(limit=50)
            return any(r.workflow_id == workflow_id and r.state == "STUCK" for r in rows)

        async with asyncio.timeout(90):
            while not await marked():
                await asyncio.sleep(0.5)
        [row] = [r for r in await agents.runs(limit=50) if r.workflow_id == workflow_id]
        assert row.problem is not None and "cannot replay" in row.problem

        explained = await agents.stuck(workflow_id)
        assert explained is not None
        assert "non-determinism" in explained and ROLLBACK in explained
        assert "NON_DETERMINISTIC_ERROR" in explained

        with HttpReceiver().running() as receiver:
            watch = StuckRunWatch(
                client, task_queue, NotifySettings(webhook_url=f"{receiver.url}/hook"), interval=1
            )
            assert await watch.check() == [workflow_id]
            assert await watch.check() == [], "announced once per run"
        [notice] = [r.json() for r in receiver.delivered()]
        assert notice["kind"] == "RUN_STUCK" and notice["workflowId"] == workflow_id
        assert notice["rollback"] == ROLLBACK
        await handle.terminate("test done")
