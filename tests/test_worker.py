"""``python worker.py`` stops the way a deploy needs (README: "Long runs ... and deploys").

A real worker process on the suite's dev server: SIGTERM (or Ctrl-C) lets the agent call it is
running finish, so the model is not asked again, and the process ends once it has; a second
signal stops it at once, and the call is then retried by the next worker.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from activities.llm import LlmSettings
from app.stack import pollers
from app.worker_setup import build_worker
from bench.harness import worker_env
from models.agent_types import AgentType
from tests.support.interrupts import start, wait_running

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def worker_process(
    client: Client, task_queue: str, state: Path, scenario: str
) -> Iterator[subprocess.Popen[str]]:
    """``python worker.py`` on ``task_queue`` with the offline model shaped by ``scenario``."""
    env = worker_env(client, task_queue) | {
        "AGENTS_STATE_DIR": str(state),
        "OFFLINE_SCENARIO": scenario,
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
        yield process
    finally:
        process.kill()
        process.communicate()


async def _polling(client: Client, task_queue: str, process: subprocess.Popen[str]) -> None:
    async with asyncio.timeout(60):
        while not await pollers(client, client.namespace, task_queue):
            assert process.poll() is None, process.communicate()[0]
            await asyncio.sleep(0.1)


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
    with worker_process(client, task_queue, tmp_path, "delay=ORCHESTRATOR:3") as process:
        await _polling(client, task_queue, process)
        handle = await start(client, task_queue, workflow_id)
        await wait_running(handle, AgentType.ORCHESTRATOR)
        process.send_signal(signal.SIGTERM)
        output, _ = await asyncio.to_thread(process.communicate, timeout=60)
    assert process.returncode == 0, output
    assert "SIGTERM: stopping" in output and "AGENTS_WORKER_DRAIN_SECONDS" in output
    assert await _attempts(client, workflow_id) == [1], "the call finished during the drain"
    async with build_worker(client, task_queue, LlmSettings()):
        await asyncio.wait_for(handle.result(), 120)
    attempts = await _attempts(client, workflow_id)
    assert attempts[0] == 1 and len(attempts) > 1


async def test_a_second_signal_stops_at_once_and_the_call_is_retried(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    with worker_process(client, task_queue, tmp_path, "delay=ORCHESTRATOR:60") as process:
        await _polling(client, task_queue, process)
        handle = await start(client, task_queue, workflow_id)
        await wait_running(handle, AgentType.ORCHESTRATOR)
        process.send_signal(signal.SIGINT)
        await asyncio.sleep(1)
        assert process.poll() is None, "the first signal drains"
        process.send_signal(signal.SIGINT)
        output, _ = await asyncio.to_thread(process.communicate, timeout=20)
    assert process.returncode == 130, output
    assert "SIGINT: stopping" in output
    async with build_worker(client, task_queue, LlmSettings()):
        await asyncio.wait_for(handle.result(), 120)
    assert (await _attempts(client, workflow_id))[0] == 2, "the cut call ran again"
