"""What a follower shows between finished steps: the time, the running agents, the endpoint's
retries, and a task queue no worker polls.

``look`` asks the server (DescribeWorkflowExecution for the pending activities, DescribeTaskQueue
for the pollers); ``line`` turns what it found into one line (``stack.no_worker`` the missing
worker); ``Ticker`` shows the line, live on a terminal (``rich``), else as a plain line every
``PLAIN_LINE_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text
from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.enums.v1 import EventType, TaskQueueType, WorkflowExecutionStatus
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import (
    DescribeTaskQueueRequest,
    GetWorkflowExecutionHistoryReverseRequest,
)
from temporalio.client import Client
from temporalio.converter import PayloadConverter

from agent_interrupts.app import render
from agent_interrupts.app.connect import UNREACHABLE
from agent_interrupts.app.data_converter import failure_text
from agent_interrupts.app.stack import no_worker
from agent_interrupts.models.state import OrchestratorStatus

LOOK_SECONDS = 1.0
"""How often the follower asks the server what runs."""
PLAIN_LINE_SECONDS = 10.0
"""Off a terminal (a pipe, a log file, CI), one progress line this often while nothing finishes."""
POLLER_FRESH_SECONDS = 90.0
"""A poller last seen longer ago is gone: a live worker polls again within a long poll (about a
minute), while the server lists pollers it has seen for minutes."""
NAMES_PAGE = 200
"""Events of the newest history page read for the names of new activities."""
RETRY_NOTE = re.compile(r"\s*\(attempt (\d+) of (\d+); Temporal retries\)")
"""What an endpoint failure that will be retried says about itself (``activities/attempts.py``)."""
FAILURE_CHARS = 120


@dataclass(frozen=True)
class Call:
    """An activity of the run that is scheduled or running."""

    name: str
    """Its summary (``TRIAGE review``), else its activity type."""
    since: datetime | None
    """When its current attempt started (else when it was scheduled)."""
    retry: str | None = None
    """``attempt 2 of 5: <the last failure>`` once an attempt failed."""


@dataclass(frozen=True)
class Look:
    """What the server says about a run at one moment."""

    queue: str
    running: bool
    calls: tuple[Call, ...] = ()
    unpolled: tuple[str, ...] = ()
    """The kinds of task (``workflow``, ``activity``) no worker polls ``queue`` for."""


def retry_text(attempt: int, failure: str) -> str | None:
    """The attempt a call is on and why the one before failed; None on its first attempt."""
    if attempt <= 1 and not failure:
        return None
    said = RETRY_NOTE.search(failure)
    reason = " ".join(RETRY_NOTE.sub("", failure).split())
    if len(reason) > FAILURE_CHARS:
        reason = reason[: FAILURE_CHARS - 1] + "…"
    where = f"attempt {int(said[1]) + 1} of {said[2]}" if said else f"attempt {attempt}"
    return f"{where}: {reason}" if reason else where


def clock(seconds: float) -> str:
    """``12s``, ``3:04``, ``1:02:03``."""
    whole = max(int(seconds), 0)
    if whole < 60:
        return f"{whole}s"
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def line(
    look: Look | None, status: OrchestratorStatus | None, following: float, now: datetime
) -> str:
    """One line: how long we have followed, where the run is, what runs and since when."""
    parts = [clock(following)]
    if status is not None:
        parts.append(f"{status.phase}, step {status.steps_taken}/{status.max_steps}")
    if look is not None and look.unpolled:
        parts.append(f"no worker polls {look.queue!r}")
    if look is None or not look.calls:
        current = status.current_node if status else None
        parts.append(f"at {current.node_id} ({current.agent_type})" if current else "waiting")
        return " · ".join(parts)
    calls = []
    for call in look.calls:
        took = f" {clock((now - call.since).total_seconds())}" if call.since else ""
        calls.append(f"{call.name}{took}" + (f" ({call.retry})" if call.retry else ""))
    parts.append("running: " + ", ".join(calls))
    return " · ".join(parts)


async def look(client: Client, workflow_id: str, names: dict[tuple[str, str], str]) -> Look:
    """The run's task queue, its scheduled and running activities and the kinds of task no
    worker polls its queue for. ``names`` keeps activity names already read from the history."""
    described = (await client.get_workflow_handle(workflow_id).describe()).raw_description
    info = described.workflow_execution_info
    queue = info.task_queue or described.execution_config.task_queue.name
    run_id = info.execution.run_id
    pending = list(described.pending_activities)
    wanted = {a.activity_id for a in pending if (run_id, a.activity_id) not in names}
    if wanted:
        await _read_names(client, workflow_id, run_id, wanted, names)
    calls = []
    for activity in pending:
        since = None
        for moment in ("last_started_time", "scheduled_time"):
            if since is None and activity.HasField(moment):
                since = getattr(activity, moment)
        failure = (
            await failure_text(client.data_converter, activity.last_failure)
            if activity.HasField("last_failure")
            else ""
        )
        calls.append(
            Call(
                name=names.get((run_id, activity.activity_id), activity.activity_type.name),
                since=since.ToDatetime(tzinfo=UTC) if since else None,
                retry=retry_text(activity.attempt, failure),
            )
        )
    running = info.status == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING
    unpolled = await _unpolled(client, queue) if running else ()
    return Look(queue=queue, running=running, calls=tuple(calls), unpolled=unpolled)


async def _unpolled(client: Client, queue: str) -> tuple[str, ...]:
    missing = []
    now = time.time()
    for kind, name in (
        (TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, "workflow"),
        (TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY, "activity"),
    ):
        described = await client.workflow_service.describe_task_queue(
            DescribeTaskQueueRequest(
                namespace=client.namespace, task_queue=TaskQueue(name=queue), task_queue_type=kind
            )
        )
        fresh = [
            p
            for p in described.pollers
            if not p.HasField("last_access_time")
            or now - p.last_access_time.ToSeconds() < POLLER_FRESH_SECONDS
        ]
        if not fresh:
            missing.append(name)
    return tuple(missing)


async def _read_names(
    client: Client,
    workflow_id: str,
    run_id: str,
    wanted: set[str],
    names: dict[tuple[str, str], str],
) -> None:
    """The summaries the workflow gave the ``wanted`` activities, from the newest history page;
    an activity not found there keeps its type's name."""
    page = await client.workflow_service.get_workflow_execution_history_reverse(
        GetWorkflowExecutionHistoryReverseRequest(
            namespace=client.namespace,
            execution=WorkflowExecution(workflow_id=workflow_id, run_id=run_id),
            maximum_page_size=NAMES_PAGE,
        )
    )
    converter = PayloadConverter.default
    for event in page.history.events:
        if event.event_type != EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            continue
        attributes = event.activity_task_scheduled_event_attributes
        if attributes.activity_id not in wanted:
            continue
        name = attributes.activity_type.name
        if event.user_metadata.HasField("summary"):
            with contextlib.suppress(Exception):
                name = str(converter.from_payload(event.user_metadata.summary, str))
        names[(run_id, attributes.activity_id)] = name
    for activity_id in wanted:
        names.setdefault((run_id, activity_id), "")
    for key in [k for k, v in names.items() if not v]:
        del names[key]  # not on the newest page: its type's name, asked again next time


@dataclass
class Ticker:
    """Keeps a follower from ever going quiet: a live line on a terminal (elapsed time, phase,
    running agents and their retries), a plain line every ``PLAIN_LINE_SECONDS`` elsewhere, and
    one line as soon as no worker polls the run's task queue."""

    client: Client
    workflow_id: str
    task_queue: str
    local_stack: bool
    quiet: bool = False
    """Only the no-worker line (``--json``)."""
    status: OrchestratorStatus | None = None
    """The newest status the follower read (set by the follower)."""
    _look: Look | None = None
    _names: dict[tuple[str, str], str] = field(default_factory=dict)
    _started: float = field(default_factory=time.monotonic)
    _said_no_worker: bool = False
    _live: Live | None = None
    _spinner: Spinner = field(default_factory=lambda: Spinner("dots", text=""))
    _paused: int = 0

    @property
    def live(self) -> bool:
        return not self.quiet and render.console.is_terminal

    async def run(self) -> None:
        """Look and show until cancelled."""
        last_plain = time.monotonic()
        try:
            while True:
                with contextlib.suppress(*UNREACHABLE):  # the server away: the clock goes on
                    self._look = await look(self.client, self.workflow_id, self._names)
                    self._say_workers(self._look)
                text = line(
                    self._look, self.status, time.monotonic() - self._started, datetime.now(UTC)
                )
                if self.quiet or self._paused:
                    pass
                elif self.live:
                    self._show_live(text)
                elif time.monotonic() - last_plain >= PLAIN_LINE_SECONDS:
                    render.note(text)
                    last_plain = time.monotonic()
                await asyncio.sleep(LOOK_SECONDS)
        finally:
            self._stop_live()

    def _say_workers(self, look: Look) -> None:
        if look.unpolled and not self._said_no_worker:
            detail = f"no {' or '.join(look.unpolled)} task poller: it waits until one polls"
            line = no_worker(
                look.queue, self.workflow_id, detail, self.task_queue, local=self.local_stack
            )
            self._print_note(f"waiting: {line}")
            self._said_no_worker = True
        elif not look.unpolled and self._said_no_worker:
            self._print_note(f"a worker polls task queue {look.queue!r} now")
            self._said_no_worker = False

    def _print_note(self, message: str) -> None:
        if self._live is not None:
            self._live.console.print(Text(message, style="yellow"), soft_wrap=True)
        else:
            render.errors.print(Text(message, style="yellow"), soft_wrap=True)

    def _show_live(self, text: str) -> None:
        self._spinner.update(text=Text(text, style="dim", no_wrap=True, overflow="ellipsis"))
        if self._live is None:
            self._live = Live(
                self._spinner,
                console=render.console,
                transient=True,
                refresh_per_second=8,
                redirect_stdout=True,
                redirect_stderr=True,
            )
            self._live.start()

    def _stop_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """No live line while a question is shown and answered (the prompt owns the line)."""
        self._paused += 1
        self._stop_live()
        try:
            yield
        finally:
            self._paused -= 1

    def restart_clock(self) -> None:
        """The wait starts again (a step finished)."""
        self._started = time.monotonic()
