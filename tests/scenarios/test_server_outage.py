"""A Temporal server outage in the middle of a model call never makes the model answer twice.
A real dev server on a SQLite file, stopped and started again on the same port; a real worker
that lives through the outage; an OpenAI-compatible server that counts its requests."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from temporalio.api.enums.v1 import EventType

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.policies import AGENT_HEARTBEAT_TIMEOUT
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import GOAL
from tests.support.openai_server import ScriptedOpenAIServer
from tests.support.server_outage import (
    RestartableServer,
    connect,
    history_once_up,
    outages_in_calls,
)


async def test_a_call_that_finishes_while_the_server_is_down_is_not_made_again(
    tmp_path: Path, task_queue: str, workflow_id: str
) -> None:
    """The worker finishes its agent call while the server is down; the server, back, has timed
    out the attempt's heartbeat and schedules another; the worker gives that attempt the reply it
    already has instead of asking the model again."""
    llm = ScriptedOpenAIServer()
    llm.hold(1)  # the run's first agent call waits until the server is gone
    with llm, RestartableServer(tmp_path) as server:
        settings = LlmSettings(api_key="sk-outage", base_url=llm.base_url, model="outage-model")
        client = await connect(server.port)
        async with build_worker(client, task_queue, settings):
            handle = await client.start_workflow(
                OrchestratorWorkflow.run, {"goal": GOAL}, id=workflow_id, task_queue=task_queue
            )
            async with asyncio.timeout(60):
                while not llm.holding.is_set():
                    await asyncio.sleep(0.05)
            server.stop()
            llm.release_hold()  # the call finishes while nobody can hear it
            await asyncio.sleep(AGENT_HEARTBEAT_TIMEOUT.total_seconds() + 2)
            server.start()
            async with asyncio.timeout(120):
                while True:  # the run moves on past its first agent
                    history = await history_once_up(handle)
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


async def test_outages_at_random_points_of_a_call_never_repeat_it(tmp_path: Path) -> None:
    """The server goes down at a random point of the first 3 s of a 10 s model call for 3.5 to
    5 s, so it is back before the call ends: it times the attempt out and the worker's next
    heartbeat hears "not found"; the request goes on, and the next attempt joins it."""
    seed = random.randrange(2**32)
    outages = await outages_in_calls(
        tmp_path,
        trials=3,
        call_seconds=10,
        start_seconds=(0.2, 3),
        outage_seconds=(3.5, 5),
        rng=random.Random(seed),
    )

    assert [o.requests for o in outages] == [1] * 3, f"seed {seed}: {outages}"
