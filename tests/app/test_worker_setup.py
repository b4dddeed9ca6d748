"""How many activities a worker runs at once (app/worker_setup.py, AGENTS_WORKER_MAX_ACTIVITIES).

With the SDK's 100 slots, 200 concurrent offline runs on one worker made its event
loop so late with heartbeats that about 1 in 130 agent calls timed out and ran again. With the
offline model a worker now runs OFFLINE_MAX_ACTIVITIES at once; the rest wait on the server.
"""

from __future__ import annotations

import asyncio

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.config import OFFLINE_MAX_ACTIVITIES
from agent_interrupts.app.worker_setup import build_worker
from tests.support.interrupts import start, started_activities

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
