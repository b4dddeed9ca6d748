"""How long a run's next workflow task waits for the worker that ran its last one
(AGENTS_WORKER_STICKY_SECONDS, app/config.py), read from a real ``worker.py``'s runs.

A busy worker's tasks wait on its sticky queue for a free workflow-task slot. With a 2-second
wait, 100 concurrent runs on one worker moved a third of their tasks to the normal queue, where
the server sent each its run's whole history; a worker now keeps them for Temporal's 10 s.

The wait is what the worker tells the server, so it is read where the server applies it: the
run's worker is killed right after answering a query (its sticky poll was just renewed), a
signal then schedules a workflow task on the dead worker's sticky queue, and the server moves it
to the normal queue once the wait is over (a schedule-to-start timeout in the history).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio.api.enums.v1 import TimeoutType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowHandle

from agent_interrupts.app.config import WORKER_STICKY_SECONDS
from agent_interrupts.app.stack import pollers
from tests.support.interrupts import start, wait_for_interrupt
from tests.support.worker_process import asking_worker

SLACK = 1.5
"""Seconds the server's timer may fire late on a loaded machine."""


def _moved_after(events: list[HistoryEvent]) -> float | None:
    """Seconds the run's first workflow task that timed out waiting on its sticky queue waited
    there (none timed out: None)."""
    scheduled = {
        e.event_id: e.event_time.ToNanoseconds() / 1e9
        for e in events
        if e.HasField("workflow_task_scheduled_event_attributes")
    }
    for event in events:
        attrs = event.workflow_task_timed_out_event_attributes
        if (
            event.HasField("workflow_task_timed_out_event_attributes")
            and attrs.timeout_type == TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START
        ):
            return event.event_time.ToNanoseconds() / 1e9 - scheduled[attrs.scheduled_event_id]
    return None


async def _sticky_wait(
    client: Client, task_queue: str, workflow_id: str, state: Path, env: dict[str, str]
) -> tuple[WorkflowHandle, float]:
    """The seconds a workflow task waited on the sticky queue of a killed ``worker.py``
    (started with ``env``) before the server moved it."""
    worker = asking_worker(client, task_queue, state, env)
    try:
        async with asyncio.timeout(60):
            while not await pollers(client, client.namespace, task_queue):
                assert worker.poll() is None, "worker.py ended"
                await asyncio.sleep(0.1)
        handle = await start(client, task_queue, workflow_id)
        await wait_for_interrupt(handle, timeout=60)  # its last query renewed the sticky poll
    finally:
        worker.kill()
        worker.wait()
    await handle.signal("any-signal")  # a workflow task on the dead worker's sticky queue
    async with asyncio.timeout(60):
        while (waited := _moved_after(list((await handle.fetch_history()).events))) is None:
            await asyncio.sleep(0.5)
    await handle.terminate(reason="measured")
    return handle, waited


async def test_worker_py_keeps_a_runs_next_workflow_task_for_ten_seconds(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    _, waited = await _sticky_wait(client, task_queue, workflow_id, tmp_path / "state", {})
    assert 10 <= waited < 10 + SLACK, f"moved off its sticky queue after {waited:.1f} s"
    assert WORKER_STICKY_SECONDS == 10
