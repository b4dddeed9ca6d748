"""A server outage shorter than a model call does not repeat the call. The
worker finishes its agent call while the server is down; the server, back, has timed out the
attempt's heartbeat and schedules another; the worker gives that attempt the reply it already
has instead of asking the model again. A real dev server on a SQLite file, stopped and started
again on the same port; an OpenAI-compatible server that holds the call through the outage."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.policies import AGENT_HEARTBEAT_TIMEOUT
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.visibility import dev_server_args
from tests.cli.support import free_port
from tests.support.interrupts import GOAL
from tests.support.openai_server import ScriptedOpenAIServer


@contextmanager
def dev_server(db: Path, port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    command = [
        temporal_cli(),
        "server",
        "start-dev",
        "--ip",
        "127.0.0.1",
        "--port",
        str(port),
        "--headless",
        "--db-filename",
        str(db),
        "--log-level",
        "error",
        *dev_server_args(),
    ]
    with log.open("ab") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield server
    finally:
        server.kill()
        server.wait()


async def _connect(port: int) -> Client:
    async with asyncio.timeout(60):
        while True:
            try:
                return await Client.connect(
                    f"127.0.0.1:{port}", data_converter=pydantic_data_converter
                )
            except RuntimeError:
                await asyncio.sleep(0.3)


async def test_a_call_that_finishes_while_the_server_is_down_is_not_made_again(
    tmp_path: Path, task_queue: str, workflow_id: str
) -> None:
    port, db, log = free_port(), tmp_path / "temporal.db", tmp_path / "server.log"
    llm = ScriptedOpenAIServer()
    llm.hold(1)  # the run's first agent call waits until the server is gone
    with llm, dev_server(db, port, log) as first:
        settings = LlmSettings(api_key="sk-outage", base_url=llm.base_url, model="outage-model")
        client = await _connect(port)
        async with build_worker(client, task_queue, settings):
            handle = await client.start_workflow(
                OrchestratorWorkflow.run, {"goal": GOAL}, id=workflow_id, task_queue=task_queue
            )
            async with asyncio.timeout(60):
                while not llm.holding.is_set():
                    await asyncio.sleep(0.05)
            first.kill()
            first.wait()
            llm.release_hold()  # the call finishes while nobody can hear it
            await asyncio.sleep(AGENT_HEARTBEAT_TIMEOUT.total_seconds() + 2)
            with dev_server(db, port, log):
                async with asyncio.timeout(120):
                    while True:  # the run moves on past its first agent
                        try:
                            history = await handle.fetch_history()
                        except Exception:  # the server is starting
                            await asyncio.sleep(0.5)
                            continue
                        scheduled = [
                            e
                            for e in history.events
                            if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
                        ]
                        if len(scheduled) >= 2:
                            break
                        await asyncio.sleep(0.5)
                await handle.terminate("checked")
    first_agent = llm.completions[0].schema_name
    asked = [c for c in llm.completions if c.schema_name == first_agent]
    started = [
        e.activity_task_started_event_attributes.attempt
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
    ]
    assert len(asked) == 1, f"the model was asked {len(asked)} times (attempts {started})"
