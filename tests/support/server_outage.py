"""Temporal server outages in the middle of model calls, for tests and ``bench.outage``.

A real dev server on a SQLite file is stopped (SIGKILL) and started again on the same port with
its state kept; one real worker in this process lives through every outage; a real
OpenAI-compatible server counts the requests and answers each one slowly. ``outages_in_calls``
starts runs one after another and, in each one's first agent call, takes the server down at a
random point of the call for a random time, then counts the model requests of that step."""

from __future__ import annotations

import asyncio
import random
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.service import RPCError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.visibility import dev_server_args
from tests.cli.support import free_port
from tests.support.interrupts import GOAL
from tests.support.openai_server import ScriptedOpenAIServer


class RestartableServer:
    """``temporal server start-dev`` on a SQLite file and a fixed port: ``stop`` kills it
    (SIGKILL), ``start`` starts it again with its state kept."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self._db, self._log = workdir / "temporal.db", workdir / "server.log"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [
            temporal_cli(),
            "server",
            "start-dev",
            "--ip",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--headless",
            "--db-filename",
            str(self._db),
            "--log-level",
            "error",
            *dev_server_args(),
        ]
        with self._log.open("ab") as out:
            self._process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)

    def stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None

    def __enter__(self) -> RestartableServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


async def connect(port: int) -> Client:
    """A client of the dev server on ``port``, once it answers."""
    async with asyncio.timeout(60):
        while True:
            try:
                return await Client.connect(
                    f"127.0.0.1:{port}", data_converter=pydantic_data_converter
                )
            except RuntimeError:
                await asyncio.sleep(0.3)


async def history_once_up(handle: WorkflowHandle[Any, Any]) -> WorkflowHistory:
    """The run's history, waiting for a server that is starting."""
    while True:
        try:
            return await handle.fetch_history()
        except RPCError:  # the server is starting
            await asyncio.sleep(0.3)


@dataclass(frozen=True)
class Outage:
    """One trial: the server went down ``start`` s into the step's model request for
    ``length`` s; the model was asked ``requests`` times for the step, over ``attempts``
    Temporal attempts of its activity."""

    start: float
    length: float
    requests: int
    attempts: int


async def outages_in_calls(
    workdir: Path,
    *,
    trials: int,
    call_seconds: float,
    start_seconds: tuple[float, float],
    outage_seconds: tuple[float, float],
    rng: random.Random,
    timeout: float = 120,
) -> list[Outage]:
    """``trials`` runs, each with one outage of ``outage_seconds`` (uniform) starting
    ``start_seconds`` (uniform) into its first agent's ``call_seconds`` long model request."""
    task_queue = f"outage-{uuid.uuid4()}"
    outages: list[Outage] = []
    with ScriptedOpenAIServer() as llm, RestartableServer(workdir) as server:
        llm.slow(call_seconds)
        settings = LlmSettings(api_key="sk-outage", base_url=llm.base_url, model="outage-model")
        client = await connect(server.port)
        async with build_worker(client, task_queue, settings):
            for _ in range(trials):
                start = rng.uniform(*start_seconds)
                length = rng.uniform(*outage_seconds)
                async with asyncio.timeout(timeout):
                    requests, attempts = await _trial(
                        client, task_queue, llm, server, start, length
                    )
                outages.append(Outage(start, length, requests, attempts))
    return outages


async def _trial(
    client: Client,
    task_queue: str,
    llm: ScriptedOpenAIServer,
    server: RestartableServer,
    start: float,
    length: float,
) -> tuple[int, int]:
    """One run whose first agent call meets the outage: that step's model requests and its
    activity's attempts. The run is terminated once the step is done."""
    before = len(llm.completions)
    handle = await client.start_workflow(
        OrchestratorWorkflow.run,
        {"goal": GOAL},
        id=f"outage-{uuid.uuid4()}",
        task_queue=task_queue,
    )
    while len(llm.completions) == before:
        await asyncio.sleep(0.02)
    asked = time.monotonic()
    step = llm.completions[before].schema_name
    await asyncio.sleep(start - (time.monotonic() - asked))
    server.stop()
    await asyncio.sleep(length)
    server.start()
    while True:  # until the step's activity is done
        history = await history_once_up(handle)
        done = [
            e
            for e in history.events
            if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
        ]
        if done:
            break
        await asyncio.sleep(0.3)
    await handle.terminate("the step is done")
    await asyncio.sleep(0.5)  # a request the step made late arrives too
    attempts = max(
        e.activity_task_started_event_attributes.attempt
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
    )
    return sum(r.schema_name == step for r in llm.completions[before:]), attempts
