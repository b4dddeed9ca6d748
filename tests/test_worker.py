"""``python worker.py`` stops the way a deploy needs (docs/deploys.md).

A real worker process on the suite's dev server: SIGTERM (or Ctrl-C) lets the agent call it is
running finish, so the model is not asked again, and the process ends once it has; a second
signal stops it at once, and the call is then retried by the next worker.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.stack import pollers
from agent_interrupts.app.worker_setup import build_worker
from bench.harness import worker_env
from tests.support.interrupts import start, started_activities

ROOT = Path(__file__).resolve().parents[1]


@asynccontextmanager
async def agent_call_on_worker_py(
    client: Client, task_queue: str, workflow_id: str, state: Path, seconds: int
) -> AsyncIterator[tuple[subprocess.Popen[str], WorkflowHandle[Any, Any]]]:
    """``python worker.py`` on ``task_queue`` running a run's first agent call, which the offline
    model answers after ``seconds``; the process is killed on the way out."""
    env = worker_env(client, task_queue) | {
        "AGENTS_STATE_DIR": str(state),
        "OFFLINE_SCENARIO": f"delay=ORCHESTRATOR:{seconds}",
        "AGENTS_STUCK_CHECK_SECONDS": "0",
    }
    process = subprocess.Popen(
        [sys.executable, "worker.py"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        async with asyncio.timeout(60):
            while not await pollers(client, client.namespace, task_queue):
                assert process.poll() is None, process.communicate()[0]
                await asyncio.sleep(0.1)
        handle = await start(client, task_queue, workflow_id)
        async with asyncio.timeout(60):  # the worker has the agent call, not only its schedule
            while not await started_activities(handle):
                await asyncio.sleep(0.1)
        yield process, handle
    finally:
        process.kill()
        process.communicate()


async def _finished_elsewhere(
    client: Client, task_queue: str, handle: WorkflowHandle[Any, Any]
) -> list[int]:
    """Finish the run on an in-process worker; the attempts of its agent calls."""
    async with build_worker(client, task_queue, LlmSettings()):
        await asyncio.wait_for(handle.result(), 120)
    return await _attempts(client, handle.id)


async def _attempts(client: Client, workflow_id: str) -> list[int]:
    """The attempt of each finished ``run_agent`` activity of the run, in order."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    return [
        e.activity_task_started_event_attributes.attempt
        for e in history.events
        if e.event_type is EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
    ]


async def test_sigterm_lets_the_running_agent_call_finish(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    async with agent_call_on_worker_py(client, task_queue, workflow_id, tmp_path, 3) as running:
        process, handle = running
        process.send_signal(signal.SIGTERM)
        output, _ = await asyncio.to_thread(process.communicate, timeout=60)
    assert process.returncode == 0, output
    assert "SIGTERM: stopping" in output and "AGENTS_WORKER_DRAIN_SECONDS" in output
    assert await _attempts(client, workflow_id) == [1], "the call finished during the drain"
    attempts = await _finished_elsewhere(client, task_queue, handle)
    assert attempts[0] == 1 and len(attempts) > 1


async def test_a_second_signal_stops_at_once_and_the_call_is_retried(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    async with agent_call_on_worker_py(client, task_queue, workflow_id, tmp_path, 60) as running:
        process, handle = running
        process.send_signal(signal.SIGINT)
        await asyncio.sleep(1)
        assert process.poll() is None, "the first signal drains"
        process.send_signal(signal.SIGINT)
        output, _ = await asyncio.to_thread(process.communicate, timeout=20)
    assert process.returncode == 130, output
    assert "SIGINT: stopping" in output
    attempts = await _finished_elsewhere(client, task_queue, handle)
    assert attempts[0] == 2, "the cut call ran again"
