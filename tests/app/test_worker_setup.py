"""How many activities and workflow tasks a worker runs at once (app/worker_setup.py,
AGENTS_WORKER_MAX_ACTIVITIES, AGENTS_WORKER_MAX_WORKFLOW_TASKS).

With the SDK's 100 slots, 200 concurrent offline runs on one worker made its event
loop so late with heartbeats that about 1 in 130 agent calls timed out and ran again. With the
offline model a worker now runs OFFLINE_MAX_ACTIVITIES at once; the rest wait on the server.
With the SDK's 100 workflow-task slots, 100 runs on a starved worker ran 100 workflow tasks side
by side under one interpreter lock, each overrunning the SDK's 2-second deadlock check; a worker
now runs WORKER_WORKFLOW_TASKS at once.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.config import OFFLINE_MAX_ACTIVITIES, WORKER_WORKFLOW_TASKS
from agent_interrupts.app.worker_setup import build_worker
from tests.support.interrupts import start, started_activities

ROOT = Path(__file__).resolve().parents[2]
CONCURRENT_RUNS = 10

RUNS = 2
AGENTS = 12
"""Per run: 2 x 12 slow discovery agents want to run at once, more than the 16 slots."""


async def _most_running(handles: list[WorkflowHandle]) -> int:
    """The most activities of ``handles`` started and not finished at once, seen by polling
    until every run has closed."""
    most = 0
    async with asyncio.timeout(120):
        while True:
            most = max(most, await started_activities(*handles))
            described = await asyncio.gather(*(h.describe() for h in handles))
            if all(d.status is not WorkflowExecutionStatus.RUNNING for d in described):
                return most
            await asyncio.sleep(0.2)


async def test_an_offline_worker_runs_at_most_its_slots_and_every_run_completes(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    # 5 s: long enough for the second run to reach its fan-out while the first one's agents run
    scenario = OfflineScenario.parse(f"fanout={AGENTS};delay=DISCOVERY_AGENT:5")
    assert RUNS * AGENTS > OFFLINE_MAX_ACTIVITIES
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handles = [await start(client, task_queue, f"{workflow_id}-{n}") for n in range(RUNS)]
        most = await _most_running(handles)
        await asyncio.gather(*(h.result() for h in handles))
    assert most == OFFLINE_MAX_ACTIVITIES


async def test_max_activities_sets_the_slots(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    scenario = OfflineScenario.parse(f"fanout={AGENTS};delay=DISCOVERY_AGENT:2")
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario, max_activities=5):
        handle = await start(client, task_queue, workflow_id)
        most = await _most_running([handle])
        await handle.result()
    assert most == 5


def _task_edges(events: list[HistoryEvent]) -> list[tuple[float, int]]:
    """Each workflow task's start (+1) and end (-1: completed, failed or timed out), server
    times: the server starts a task when a worker's poll, holding one of its slots, takes it,
    and ends it when the worker answers, before the slot is freed."""
    edges = []
    for event in events:
        at = event.event_time.ToNanoseconds() / 1e9
        if event.HasField("workflow_task_started_event_attributes"):
            edges.append((at, 1))
        elif any(
            event.HasField(f"workflow_task_{end}_event_attributes")
            for end in ("completed", "failed", "timed_out")
        ):
            edges.append((at, -1))
    return edges


async def _most_workflow_tasks_at_once(handles: list[WorkflowHandle]) -> int:
    """The most workflow tasks of ``handles`` running at one instant, from their histories."""
    histories = await asyncio.gather(*(h.fetch_history() for h in handles))
    edges = sorted(e for history in histories for e in _task_edges(list(history.events)))
    most = running = 0
    for _, step in edges:  # at one instant an end sorts before a start: never over-counted
        running += step
        most = max(most, running)
    return most


async def _concurrent_runs(client: Client, task_queue: str, workflow_id: str) -> list:
    handles = [
        await start(client, task_queue, f"{workflow_id}-{n}") for n in range(CONCURRENT_RUNS)
    ]
    async with asyncio.timeout(180):
        await asyncio.gather(*(h.result() for h in handles))
    return handles


async def test_a_worker_runs_at_most_its_workflow_task_slots_and_every_run_completes(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings()):
        handles = await _concurrent_runs(client, task_queue, workflow_id)
    assert await _most_workflow_tasks_at_once(handles) == WORKER_WORKFLOW_TASKS == 2


async def test_worker_py_takes_its_workflow_task_slots_from_the_environment(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEMPORAL_", "AGENTS_"))}
    worker = subprocess.Popen(
        [sys.executable, "worker.py"],
        cwd=ROOT,
        env=env
        | {
            "TEMPORAL_ADDRESS": client.service_client.config.target_host,
            "TEMPORAL_TASK_QUEUE": task_queue,
            "AGENTS_STATE_DIR": str(tmp_path / "state"),
            "AGENTS_WORKER_MAX_WORKFLOW_TASKS": "3",
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        handles = await _concurrent_runs(client, task_queue, workflow_id)
    finally:
        worker.terminate()
        worker.wait()
    assert await _most_workflow_tasks_at_once(handles) == 3
