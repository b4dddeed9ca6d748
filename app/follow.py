"""Follow a run from a terminal: progress, its questions, and answering them.

Following never owns the run: cancelling ``follow`` (Ctrl-C) stops only the following, and
``agents follow <id>`` attaches again. A question shown here may be answered anywhere else (the
UI, ``agents resolve``, another follower); the open prompt then closes with a line saying who.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowQueryFailedError,
)
from temporalio.service import RPCError

from agent_interrupts.app import render
from agent_interrupts.app.answering import ask, ways_out_note
from agent_interrupts.app.history import entries_since, over_the_limit, too_big
from agent_interrupts.app.sdk import AgentWorkflowClient, ResolutionRejected, accepted, decisions
from agent_interrupts.app.terminal_input import LineReader
from agent_interrupts.app.watch import Ticker
from agent_interrupts.models.interrupts import Door, ResolvedBy, via
from agent_interrupts.models.resolution_rules import redirect_targets
from agent_interrupts.models.state import EventKind, OrchestratorStatus
from agent_interrupts.models.team_build import RunResult, team_of
from agent_interrupts.models.ui_pages import workflow_page
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow

POLL_SECONDS = 0.25
ANSWERED_BY_GRACE_SECONDS = 10.0
"""When the run ends while a question is shown, how long to wait to learn who answered it."""


class StoppedAtQuestion(Exception):
    """``follow(stop_at_question=True)`` reached a question; the run waits for its answer."""

    def __init__(self, interrupt_id: str) -> None:
        super().__init__(interrupt_id)
        self.interrupt_id = interrupt_id


async def follow(
    agents: AgentWorkflowClient,
    workflow_id: str,
    *,
    interactive: bool,
    ui_url: str | None,
    quiet: bool = False,
    stop_at_question: bool = False,
    local_stack: bool = True,
) -> RunResult:
    """Show progress until the run ends; answer its questions when ``interactive``. Between
    steps a ``Ticker`` shows the time, the running agents and their retries, and says when no
    worker polls the run's task queue (``local_stack``: the stack's command starts one).

    Raises WorkflowFailureError when the run fails, StoppedAtQuestion when
    ``stop_at_question`` and a question waits.
    """
    handle = agents.client.get_workflow_handle_for(OrchestratorWorkflow.run, workflow_id)
    result_task = asyncio.create_task(handle.result())
    progress = render.Progress(team_of(None))  # the run's status names its team
    seen = 0
    events_seen: int | None = None
    shown: set[str] = set()
    reader = LineReader() if interactive else None
    said_failed = False
    ticker = Ticker(agents.client, workflow_id, agents.task_queue, local_stack, quiet=quiet)
    ticking = asyncio.create_task(ticker.run())
    try:
        while not result_task.done():
            try:
                status, pending = await _poll(agents, handle)
                ticker.status = status
                if not quiet:
                    before = seen
                    seen = await _show(progress, agents.client, handle.id, status, seen)
                    if seen != before:
                        ticker.restart_clock()
                    events_seen = _events(status, events_seen)
            except RPCError:  # no worker yet (the ticker says so), or the run is closing
                pass
            except WorkflowQueryFailedError as err:  # its handler failed; the result still comes
                if not said_failed and not quiet:
                    render.note(f"no progress to show: the run's query failed ({err.message})")
                    said_failed = True
            else:
                if pending is not None and stop_at_question:
                    question = await agents.interrupt_status(pending)
                    if not quiet:
                        render.question(pending, question.origin, question.request)
                    raise StoppedAtQuestion(pending)
                if pending is not None and pending not in shown and not quiet:
                    shown.add(pending)
                    with ticker.paused() if reader is not None else contextlib.nullcontext():
                        await answer(agents, pending, reader, ui_url, result_task)
            await asyncio.wait({result_task}, timeout=POLL_SECONDS)
        ticking.cancel()
        with contextlib.suppress(BaseException):
            await ticking
        if not quiet:
            with contextlib.suppress(RPCError, WorkflowQueryFailedError):
                await _show(
                    progress, agents.client, handle.id, (await _poll(agents, handle))[0], seen
                )
        return result_task.result()
    finally:
        ticking.cancel()
        with contextlib.suppress(BaseException):
            await ticking
        if reader is not None:
            reader.close()
        if not result_task.done():
            result_task.cancel()
            with contextlib.suppress(BaseException):
                await result_task


async def _poll(
    agents: AgentWorkflowClient, handle: WorkflowHandle
) -> tuple[OrchestratorStatus | None, str | None]:
    """The run's status and the id of the question it waits on. The status holds the newest
    entries with their payloads; when that is over the server's size limit for a query's answer,
    no status, and the question is the run's pending InterruptWorkflow child."""
    try:
        status = await agents.status(handle.id)
    except WorkflowQueryFailedError as err:
        if not too_big(err):
            raise
        children = (await handle.describe()).raw_description.pending_children
        asking = (
            c.workflow_id for c in children if c.workflow_type_name == InterruptWorkflow.__name__
        )
        return None, next(asking, None)
    pending = status.pending_interrupt
    return status, pending.workflow_id if pending else None


def _events(status: OrchestratorStatus | None, seen: int | None) -> int | None:
    """Print the run's events recorded since the ``seen``-th (None: since none, the first status
    read: the follower shows what happens from now on); return the count to show from next.
    Interrupt states are left out: the question and its answer show them."""
    if status is None:
        return seen
    recorded = status.events_recorded
    if seen is not None and recorded > seen:
        for event in status.events[-min(recorded - seen, len(status.events)) :]:
            if event.kind is not EventKind.INTERRUPT_STATUS:
                render.event(event)
    return recorded


async def _show(
    progress: render.Progress,
    client: Client,
    workflow_id: str,
    status: OrchestratorStatus | None,
    seen: int,
) -> int:
    """Show the steps finished since entry ``seen``; return the entry to show from next."""
    since = await entries_since(client, workflow_id, status, seen)
    if status is not None:
        progress.team = team_of(status.team)
    progress.show(since.entries)
    if since.skipped:
        render.note(over_the_limit(since.skipped, workflow_id))
    return since.total


async def answer(
    agents: AgentWorkflowClient,
    interrupt_id: str,
    reader: LineReader | None,
    ui_url: str | None,
    run_done: asyncio.Future[Any] | None = None,
) -> None:
    """Show the question; ask for the answer when ``reader`` is set, else wait for one."""
    question = await agents.interrupt_status(interrupt_id)
    render.question(interrupt_id, question.origin, question.request)
    if page := workflow_page(ui_url, agents.client.namespace, interrupt_id):
        render.note(f"answer it in the Temporal UI: {page}")
    targets = redirect_targets(question.origin, team_of(question.team))
    render.note(f"or from another shell: agents resolve {interrupt_id}")
    render.note(ways_out_note(interrupt_id, targets, menu=reader is not None))
    elsewhere = asyncio.create_task(_answered_by(agents, interrupt_id))
    waits: set[asyncio.Future[Any]] = {elsewhere}
    if run_done is not None:
        waits.add(run_done)
    try:
        while reader is not None:
            asking = asyncio.create_task(
                ask(question.request, reader.read, question.origin, targets)
            )
            done, _ = await asyncio.wait({asking, *waits}, return_when=asyncio.FIRST_COMPLETED)
            if asking not in done:
                asking.cancel()
                with contextlib.suppress(BaseException):
                    await asking
                break
            try:
                resolution = asking.result()
            except EOFError:  # input ended: wait like a non-interactive follower
                reader = None
                break
            try:
                ack = await agents.resolve(interrupt_id, resolution, door=Door.CLI)
            except ResolutionRejected as err:
                if "already resolved" in str(err):
                    break
                render.error(str(err))
                continue
            render.console.print(f"Answer accepted: {accepted(ack.message, question)}\n")
            return
        if reader is None:
            render.console.print("Waiting for the answer...")
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        if not elsewhere.done():  # the run ended before the poll saw the answer: ask once more
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(elsewhere), ANSWERED_BY_GRACE_SECONDS)
        if elsewhere.done():
            render.console.print(
                f"\nThe question was answered elsewhere, by {elsewhere.result()}", markup=False
            )
    finally:
        elsewhere.cancel()


async def _answered_by(agents: AgentWorkflowClient, interrupt_id: str) -> str:
    """Wait until the interrupt has an answer (or closes); say who gave it, and what.

    While a reviewer works on it (ESCALATED) a person's answer still wins, so the prompt stays.
    """
    while True:
        try:
            status = await agents.interrupt_status(interrupt_id)
        except RPCError:
            described = await agents.client.get_workflow_handle(interrupt_id).describe()
            if described.status is not WorkflowExecutionStatus.RUNNING:
                name = described.status.name if described.status else "closed"
                return f"nobody: the question closed ({name.lower()})."
        else:
            if (resolution := status.resolution) is not None:
                who = str(resolution.resolved_by)
                if resolution.resolved_by is ResolvedBy.HUMAN:
                    who = (
                        resolution.answered_by
                        or await agents.who_answered(interrupt_id)
                        or "a person"
                    ) + via(resolution)
                said = decisions(status.request, resolution)[:-1]  # less "Resolved by: ..."
                return "".join([f"{who}:" if said else f"{who}.", *(f"\n  {d}" for d in said)])
        await asyncio.sleep(POLL_SECONDS)
