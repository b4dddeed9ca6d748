"""Forks: from ``client.fork`` to the fork's first new agent step, for a long run and a short one.

Run it with ``python -m bench.fork [--steps N] [--short N] [--runs N] [--gap S]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself (in
memory), with the worker of ``app.worker_setup.build_worker`` and the deterministic offline
model looping (``loop``: the run goes round the graph until its step budget is used up):

1. **A long run.** ``OrchestratorWorkflow``
   loops; once it took ``--steps`` agent steps (default 1,000), a supervisor's event asks its
   orchestrator collector to interrupt. The bench forks the run at that question, answered in
   words (``AgentWorkflowClient.fork``),
   ``--runs`` times (default 5) after one warm-up: from the call to the moment the bench, polling
   the fork's ``status`` query every 20 ms, sees the fork's first new agent step (its
   ``stepsTaken`` past the parent's at the question). Each fork is terminated once measured.
   Also: the time ``state_at_question`` alone takes (reading the run that asked and replaying
   it), the time the fork's check of its link took on the worker (its ``check_fork_link``
   activity, scheduled -> completed in the fork's history: the same replay again, before the
   fork's first step) and the bytes of state carried into the fork (``fork.carriedBytes``).
2. **A short run.** The same after ``--short`` steps (default 20).

The ratio 1 / 2 (medians) says whether a fork's start grows with the run's length (aim: flat,
and under 2 s); the carried bytes aim at <= 64 KB. Only the run of the chain that asked is read
and replayed, so a long run costs what its last continue-as-new left (the workflow continues as
new every 500 steps). Compare ratios, not milliseconds: the machine's load is printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.app.forks import state_at_question
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.sdk import AgentWorkflowClient, EventRejected
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.fork_check import CHECK_FORK_LINK
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.visibility import dev_server_args
from bench.harness import (
    DEFAULT_GAP,
    bench_parser,
    fresh_id,
    load_average,
    ms_summary,
    repeat,
    versions,
    versus_aim,
)

GOAL = "add rate limiting to the gateway"
ASKER = "ORCHESTRATOR_COLLECTOR"
"""The agent a supervisor's event interrupts once the run took its steps (slowed a little by
the offline model, so the event finds it running)."""
ASKER_SECONDS = 0.05
ANSWER = InterruptResolution(free_text="Go on as planned.")
AIM_SECONDS = 2.0
AIM_RATIO = 1.2
AIM_BYTES = 64 * 1024
POLL = 0.02


@dataclass(frozen=True)
class Forked:
    seconds: float
    """``fork()`` called -> the fork's first new agent step seen."""
    replay_seconds: float
    """``state_at_question`` alone: the run that asked, read and replayed."""
    check_seconds: float
    """The fork's check of its link, on the worker (``check_fork_link`` scheduled ->
    completed, the server's clock); part of ``seconds``."""
    carried_bytes: int


@dataclass(frozen=True)
class Series:
    steps: int
    forks: list[Forked]

    def median(self) -> float:
        return statistics.median(f.seconds for f in self.forks)


async def _parent(
    client: Client, agents: AgentWorkflowClient, task_queue: str, steps: int
) -> tuple[str, str]:
    """A run that took ``steps`` agent steps, then was asked by a supervisor's event to
    interrupt its orchestrator collector: its id and the question's."""
    workflow_id = fresh_id(f"bench-fork-{steps}")
    handle = await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal=GOAL, max_steps=10**6),
        id=workflow_id,
        task_queue=task_queue,
    )
    while True:
        status = await handle.query(OrchestratorWorkflow.status)
        if status.pending_interrupt is not None:
            return workflow_id, status.pending_interrupt.workflow_id
        running = status.current_node
        if status.steps_taken >= steps and running is not None and running.agent_type == ASKER:
            event = InterruptRequestEvent(
                event_id=str(uuid.uuid4()), source_agent_type=ASKER, reason="look again"
            )
            with contextlib.suppress(EventRejected):  # it finished meanwhile: the next one
                await agents.send_interrupt_event(workflow_id, event)
        await asyncio.sleep(POLL)


async def _fork_once(client: Client, agents: AgentWorkflowClient, parent: str, at: str) -> Forked:
    began = time.perf_counter()
    found = await state_at_question(client, parent, at)
    replay = time.perf_counter() - began
    carried = found.start.carried_state
    steps_at = carried.steps_taken if carried else 0
    began = time.perf_counter()
    fork = await agents.fork(parent, at=at, resolution=ANSWER, forked_by="bench")
    handle = client.get_workflow_handle_for(OrchestratorWorkflow.run, fork.workflow_id)
    while (await handle.query(OrchestratorWorkflow.status)).steps_taken <= steps_at:
        await asyncio.sleep(POLL)
    seconds = time.perf_counter() - began
    await handle.terminate("measured")
    return Forked(seconds, replay, await _check_seconds(handle), fork.link.carried_bytes)


async def _check_seconds(handle: WorkflowHandle[Any, Any]) -> float:
    """How long the fork's ``check_fork_link`` activity took, by its history's event times."""
    scheduled: dict[int, datetime] = {}
    async for event in handle.fetch_history_events():
        when = event.event_time.ToDatetime()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = event.activity_task_scheduled_event_attributes
            if attrs.activity_type.name == CHECK_FORK_LINK:
                scheduled[event.event_id] = when
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            began = scheduled.get(event.activity_task_completed_event_attributes.scheduled_event_id)
            if began is not None:
                return (when - began).total_seconds()
    return float("nan")


async def measure(
    client: Client, *, steps: int = 1000, short: int = 20, runs: int = 5, gap: float = DEFAULT_GAP
) -> list[Series]:
    task_queue = fresh_id("bench-fork")
    offline = OfflineModel(OfflineScenario(loop=10**9, delays={ASKER: ASKER_SECONDS}))
    agents = AgentWorkflowClient(client, task_queue)
    series = []
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        for length in (steps, short):
            parent, at = await _parent(client, agents, task_queue, length)

            async def once(parent: str = parent, at: str = at) -> Forked:
                return await _fork_once(client, agents, parent, at)

            series.append(Series(length, await repeat(once, runs=runs, warmups=1, gap=gap)))
            await client.get_workflow_handle(parent).terminate("measured")
    return series


def report(series: list[Series], load_before: str) -> str:
    long, short = series
    ratio = long.median() / short.median()
    lines = [
        f"bench.fork: client.fork -> the fork's first new agent step (load {load_before} -> "
        f"{load_average()})",
        versions(),
    ]
    for s in series:
        carried = max(f.carried_bytes for f in s.forks)
        lines.append(
            f"{s.steps:>5} steps: {ms_summary([f.seconds for f in s.forks])}; "
            f"of which state_at_question {ms_summary([f.replay_seconds for f in s.forks])}"
            f"; the fork's check of its link {ms_summary([f.check_seconds for f in s.forks])} "
            f"({statistics.median(f.check_seconds for f in s.forks) / s.median():.0%} of the "
            "median)"
            f"; carried {carried:,} bytes "
            f"{versus_aim(carried / 1024, AIM_BYTES / 1024, unit=' KB')}"
        )
    lines.append(
        f"long / short: {versus_aim(ratio, AIM_RATIO)}; long median "
        f"{versus_aim(long.median(), AIM_SECONDS, unit=' s')}"
    )
    return "\n".join(lines)


async def _main(steps: int, short: int, runs: int, gap: float) -> str:
    load = load_average()
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        data_converter=pydantic_data_converter,
        dev_server_extra_args=dev_server_args(),
    ) as env:
        series = await measure(env.client, steps=steps, short=short, runs=runs, gap=gap)
    return report(series, load)


def main(argv: list[str] | None = None) -> None:
    parser = bench_parser(
        "python -m bench.fork",
        __doc__.splitlines()[0] if __doc__ else "",
        ("--steps", 1000, "the long run's agent steps before the fork's question"),
        ("--short", 20, "the short run's agent steps"),
        ("--runs", 5, "measured forks per run, after one warm-up"),
        gap=True,
    )
    args = parser.parse_args(argv)
    print(asyncio.run(_main(args.steps, args.short, args.runs, args.gap)), flush=True)
    exit_now(0)


if __name__ == "__main__":
    main(sys.argv[1:])
