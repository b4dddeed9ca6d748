"""A gracefully stopped ``worker.py`` sends the next workflow task of each run it cached to any
worker (``app/sticky_release.py``), read from a real worker's runs.

The SDK's ``ShutdownWorker`` call already has Temporal 1.32 add such a task to the normal queue,
but the history schedules it on the stopped worker's sticky queue and times it out after the
sticky wait (``AGENTS_WORKER_STICKY_SECONDS``) when no worker took it by then; a server without
that call holds it for the whole wait. Here the run's next task, and its question's, are
scheduled on the normal queue and taken by a worker started after the stop, with no sticky
timeout in either history.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
from pathlib import Path

from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.enums.v1 import TaskQueueKind, TimeoutType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowHandle

from agent_interrupts.app.stack import pollers
from agent_interrupts.app.sticky_release import release_sticky
from tests.support.interrupts import start, wait_for_interrupt
from tests.support.worker_process import asking_worker


async def _polled_by(client: Client, task_queue: str, worker: subprocess.Popen[bytes]) -> None:
    async with asyncio.timeout(60):
        while not any(
            i.startswith(f"{worker.pid}@")
            for i in await pollers(client, client.namespace, task_queue)
        ):
            assert worker.poll() is None, "worker.py ended"
            await asyncio.sleep(0.1)


def _after(events: list[HistoryEvent], event_id: int) -> list[HistoryEvent]:
    return [e for e in events if e.event_id > event_id]


def _sticky_timeouts(events: list[HistoryEvent]) -> int:
    return sum(
        1
        for e in events
        if e.HasField("workflow_task_timed_out_event_attributes")
        and e.workflow_task_timed_out_event_attributes.timeout_type
        == TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START
    )


async def _signalled(handle: WorkflowHandle) -> int:
    """Signal ``handle`` (a name no handler takes: only a workflow task follows); the id of the
    last event before it."""
    last = (await handle.fetch_history()).events[-1].event_id
    await handle.signal("any-signal")
    return last


async def _task_done(handle: WorkflowHandle, since: int) -> list[HistoryEvent]:
    """The events after ``since`` once a workflow task after it completed."""
    async with asyncio.timeout(90):
        while True:
            events = _after(list((await handle.fetch_history()).events), since)
            if any(e.HasField("workflow_task_completed_event_attributes") for e in events):
                return events
            await asyncio.sleep(0.2)


async def test_a_sigterm_sends_the_cached_runs_next_tasks_to_any_worker(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    first = asking_worker(client, task_queue, tmp_path / "first")
    second: subprocess.Popen[bytes] | None = None
    try:
        await _polled_by(client, task_queue, first)
        run = await start(client, task_queue, workflow_id)
        await wait_for_interrupt(run, timeout=60)  # its last query renewed the sticky poll
        question = client.get_workflow_handle(f"{workflow_id}-interrupt-1")
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=60) == 0
        since = {h.id: await _signalled(h) for h in (run, question)}
        for handle in (run, question):
            [scheduled] = [
                e.workflow_task_scheduled_event_attributes.task_queue
                for e in _after(list((await handle.fetch_history()).events), since[handle.id])
                if e.HasField("workflow_task_scheduled_event_attributes")
            ]
            assert scheduled.kind == TaskQueueKind.TASK_QUEUE_KIND_NORMAL, (
                f"{handle.id}'s next task went to the stopped worker's sticky queue "
                f"{scheduled.name}"
            )
        second = asking_worker(client, task_queue, tmp_path / "second")
        for handle in (run, question):
            events = await _task_done(handle, since[handle.id])
            assert _sticky_timeouts(events) == 0
    finally:
        for worker in (first, second):
            if worker is not None and worker.poll() is None:
                worker.kill()
                worker.wait()
    await run.terminate(reason="measured")


async def test_a_release_of_runs_the_server_does_not_hold_fails_nothing(client: Client) -> None:
    gone = [WorkflowExecution(workflow_id="no-such-run", run_id="")]
    assert await release_sticky(client, gone) == 0
