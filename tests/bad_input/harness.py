"""Running hypothesis batches against live workflows, and the checks made after each batch."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st
from temporalio.api.enums.v1 import EventType, WorkflowTaskFailedCause
from temporalio.client import WorkflowExecutionStatus, WorkflowHandle
from temporalio.common import RawValue
from temporalio.contrib.pydantic import pydantic_data_converter

from agent_interrupts.models.interrupt_flow import HANDED_OVER, InterruptStatus
from agent_interrupts.models.state import OrchestratorStatus

T = TypeVar("T")

SETTLE_TIMEOUT = 90.0
"""Generous: the machine is shared; a settled workflow returns much sooner."""
QUERY_TIMEOUT = 30.0
MAX_STATUS_BYTES = 1_000_000
"""A status answer this large is one step from Temporal's 2 MB limit: bounded means well under."""
MAX_MESSAGE_CHARS = 4_000
"""A rejection or failure message that quotes a caller's value must clip it."""
RAW_PYTHON_ERRORS = frozenset(
    {
        "TypeError",
        "AssertionError",
        "AttributeError",
        "KeyError",
        "IndexError",
        "RecursionError",
        "UnicodeDecodeError",
        "UnicodeEncodeError",
        "JSONDecodeError",
        "NotImplementedError",
        "RuntimeError",
    }
)
"""Exception types that mean a handler crashed on the input instead of judging it."""


def run_batches(
    loop: asyncio.AbstractEventLoop,
    strategy: st.SearchStrategy[T],
    check: Callable[[T], Coroutine[Any, Any, None]],
    max_examples: int,
) -> None:
    """Run hypothesis in this (worker) thread; each example is ``check``ed on ``loop``.

    Reproducible (derandomized, no example database) and without shrinking: after a failure the
    workflow under test is usually wedged, so a smaller batch would not tell more. ``check`` adds
    the failing batch's labels to its error (hypothesis's own listing would print megabytes).
    """

    @settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
            HealthCheck.filter_too_much,
        ],
        print_blob=False,
        verbosity=Verbosity.quiet,
    )
    @given(strategy)
    def examples(batch: T) -> None:
        asyncio.run_coroutine_threadsafe(check(batch), loop).result()

    examples()


async def bounded_gather(calls: Iterable[Awaitable[T]], limit: int) -> list[T]:
    """Await ``calls`` with at most ``limit`` in flight."""
    gate = asyncio.Semaphore(limit)

    async def one(call: Awaitable[T]) -> T:
        async with gate:
            return await call

    return await asyncio.gather(*(one(c) for c in calls))


HANDOVER_RACE = frozenset(
    {
        WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND,
        WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
    }
)
"""The server refuses a continue-as-new (or a question's hand-over) while new signals keep
arriving and hands the workflow a fresh task with them: a retry the server forces, not a failing
task (only flood tests allow it)."""


async def task_failures(
    handle: WorkflowHandle[Any, Any], allowed: frozenset[int] = frozenset()
) -> list[str]:
    """Every WorkflowTaskFailed event of the workflow's history whose cause is not ``allowed``,
    as ``cause: message``."""
    failures = []
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
            attrs = event.workflow_task_failed_event_attributes
            if attrs.cause in allowed:
                continue
            failures.append(f"event {event.event_id} {attrs.cause}: {attrs.failure.message[:400]}")
    return failures


async def settle(
    handle: WorkflowHandle[Any, Any],
    timeout: float = SETTLE_TIMEOUT,
    allowed: frozenset[int] = frozenset(),
) -> None:
    """Wait until the workflow has no workflow task pending (every signal handled).

    A task that is being retried (attempt > 1) means it failed: report that at once, unless
    every failure so far has an ``allowed`` cause. A question handed back to its orchestrator
    (whose history grew long, e.g. with huge junk signals) ends its run on purpose and is asked
    again under the same id: ``handle`` (no run id) follows it to that run.
    """
    async with asyncio.timeout(timeout):
        while True:
            described = await handle.describe()
            raw = described.raw_description
            if described.status is WorkflowExecutionStatus.FAILED and await handed_over(handle):
                await asyncio.sleep(0.05)
                continue
            if described.status is not WorkflowExecutionStatus.RUNNING:
                raise AssertionError(f"{handle.id} is {described.status}, not RUNNING")
            if not raw.HasField("pending_workflow_task"):
                return
            if raw.pending_workflow_task.attempt > 1 and (
                failures := await task_failures(handle, allowed)
            ):
                raise AssertionError(
                    f"{handle.id}: workflow task attempt {raw.pending_workflow_task.attempt}: "
                    f"{failures}"
                )
            await asyncio.sleep(0.05)


async def handed_over(handle: WorkflowHandle[Any, Any]) -> bool:
    """Whether the workflow's latest run ended by handing its question back unanswered."""
    async for event in handle.fetch_history_events():
        if event.HasField("workflow_execution_failed_event_attributes"):
            failure = event.workflow_execution_failed_event_attributes.failure
            return failure.application_failure_info.type == HANDED_OVER
    return False


async def closed(
    handle: WorkflowHandle[Any, Any], timeout: float
) -> WorkflowExecutionStatus | None:
    """Wait until the workflow closes; return early (still RUNNING) if its task is retried.

    Polls with a growing pause: a rejected start closes within one workflow task, and dozens of
    runs are watched at once on a shared machine.
    """
    pause = 0.05
    async with asyncio.timeout(timeout):
        while True:
            described = await handle.describe()
            if described.status is not WorkflowExecutionStatus.RUNNING:
                return described.status
            task = described.raw_description.pending_workflow_task
            if described.raw_description.HasField("pending_workflow_task") and task.attempt > 1:
                return described.status
            await asyncio.sleep(pause)
            pause = min(pause * 2, 1.0)


async def query_status(handle: WorkflowHandle[Any, Any], model: type[T]) -> tuple[T, int]:
    """The ``status`` query's answer, decoded, and its size in bytes."""
    async with asyncio.timeout(QUERY_TIMEOUT):
        raw = await handle.query("status", result_type=RawValue)
    assert isinstance(raw, RawValue)
    value = pydantic_data_converter.payload_converter.from_payload(raw.payload, model)
    return value, len(raw.payload.data)


def events_total(status: OrchestratorStatus | InterruptStatus) -> int:
    """Events ever recorded: the kept window holds only the newest."""
    assert len(status.events) <= status.events_recorded
    return status.events_recorded


async def assert_no_task_failed(
    *handles: WorkflowHandle[Any, Any], allowed: frozenset[int] = frozenset()
) -> None:
    for handle in handles:
        failures = await task_failures(handle, allowed)
        assert not failures, f"{handle.id} has WorkflowTaskFailed events: {failures}"


def note_batch(err: BaseException, calls: Iterable[object]) -> None:
    """Name every call of the failing batch on ``err`` (short labels, never the payloads)."""
    err.add_note("failing batch:\n  " + "\n  ".join(repr(c)[:300] for c in calls))
