"""A malformed start input fails the run at once with a clear message.

Hundreds of hypothesis-generated start inputs (no input, two inputs, bad encodings, wrong types,
out-of-range numbers, blank or huge goals, unusable carried state) each start an
OrchestratorWorkflow, or an InterruptWorkflow as someone bypassing the orchestrator would; each
must close FAILED quickly with a bounded message and never leave a WorkflowTaskFailed behind. A
valid run on the same worker then still completes.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import ApplicationError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.worker_setup import build_worker
from tests.bad_input.harness import (
    MAX_MESSAGE_CHARS,
    RAW_PYTHON_ERRORS,
    bounded_gather,
    closed,
    note_batch,
    run_batches,
    task_failures,
)
from tests.bad_input.payloads import (
    BATCH_MIN,
    Junk,
    bad_interrupt_input,
    bad_start,
    batches,
    huge_calls,
    huge_interrupt_input,
    huge_start,
    junk_calls,
)
from tests.support.interrupts import start

pytestmark = pytest.mark.slow

BATCHES = 10
CLOSE_TIMEOUT = 60.0
"""Generous for a shared machine; a rejected start closes within one workflow task."""
STARTS = {
    "OrchestratorWorkflow": batches(junk_calls(bad_start), huge_calls(huge_start)),
    "InterruptWorkflow": batches(junk_calls(bad_interrupt_input), huge_calls(huge_interrupt_input)),
}


class Door:
    """Starts a workflow per malformed input and checks how each one ends."""

    def __init__(
        self, client: Client, task_queue: str, workflow_id: str, workflow_type: str
    ) -> None:
        self.client = client
        self.workflow_type = workflow_type
        self.task_queue = task_queue
        self.workflow_id = workflow_id
        self.numbers = itertools.count(1)
        self.started: list[WorkflowHandle[Any, Any]] = []
        self.failure: BaseException | None = None
        """The first batch's failure, raised again when hypothesis replays that example."""

    async def batch(self, calls: list[Junk]) -> None:
        if self.failure is not None:
            raise self.failure
        try:
            started = await bounded_gather(map(self._start, calls), 8)
            problems = [p for p in await bounded_gather(map(self._ending, started), 16) if p]
            assert not problems, f"{len(problems)} of {len(calls)} starts: " + "\n".join(
                problems[:20]
            )
        except BaseException as err:
            note_batch(err, calls)
            self.failure = err
            raise

    async def _start(self, junk: Junk) -> tuple[Junk, WorkflowHandle[Any, Any] | str | None]:
        """The started run, or None if the server refused the start with a message."""
        try:
            handle = await self.client.start_workflow(
                self.workflow_type,
                args=junk.raw(),
                id=f"{self.workflow_id}-{next(self.numbers)}",
                task_queue=self.task_queue,
            )
        except Exception as err:  # refused at the door by the server: also a fast, clear failure
            return junk, None if str(err) else f"{junk!r}: start refused without a message"
        self.started.append(handle)
        return junk, handle

    async def _ending(
        self, started: tuple[Junk, WorkflowHandle[Any, Any] | str | None]
    ) -> str | None:
        """None if the run closed FAILED with a clear message; else what went wrong."""
        junk, handle = started
        if not isinstance(handle, WorkflowHandle):
            return handle
        try:
            status = await closed(handle, CLOSE_TIMEOUT)
        except TimeoutError:
            return f"{junk!r}: still running after {CLOSE_TIMEOUT}s"
        failures = await task_failures(handle)
        if failures:
            return f"{junk!r}: {status and status.name} after WorkflowTaskFailed: {failures}"
        if status is not WorkflowExecutionStatus.FAILED:
            return f"{junk!r}: the run ended {status and status.name}"
        try:
            await handle.result()
        except WorkflowFailureError as err:
            return _unclear(junk, err.cause)
        return f"{junk!r}: FAILED but result() returned"

    async def cleanup(self) -> None:
        async def stop(handle: WorkflowHandle[Any, Any]) -> None:
            if (await handle.describe()).status is WorkflowExecutionStatus.RUNNING:
                await handle.terminate("bad-input suite: cleanup after a failure")

        await bounded_gather(map(stop, self.started), 8)


def _unclear(junk: Junk, cause: BaseException | None) -> str | None:
    """None if ``cause`` is a clear, bounded failure; else why it is not."""
    if not isinstance(cause, ApplicationError):
        return f"{junk!r}: failed with {type(cause).__name__}: {str(cause)[:300]}"
    if cause.type in RAW_PYTHON_ERRORS:
        return f"{junk!r}: failed with a raw {cause.type}: {cause.message[:300]}"
    if not cause.message.strip():
        return f"{junk!r}: failed without a message"
    if len(cause.message) > MAX_MESSAGE_CHARS:
        return f"{junk!r}: failure message of {len(cause.message)} chars echoes the input"
    return None


@pytest.mark.parametrize("workflow_type", list(STARTS))
async def test_malformed_start_inputs_fail_fast_and_a_valid_start_still_runs(
    client: Client, task_queue: str, workflow_id: str, workflow_type: str
) -> None:
    door = Door(client, task_queue, workflow_id, workflow_type)
    async with build_worker(client, task_queue, LlmSettings()):
        try:
            loop = asyncio.get_running_loop()
            await asyncio.to_thread(run_batches, loop, STARTS[workflow_type], door.batch, BATCHES)
            assert len(door.started) >= BATCHES * BATCH_MIN
            handle = await start(client, task_queue, f"{workflow_id}-valid")
            door.started.append(handle)
            assert (await asyncio.wait_for(handle.result(), 120)).summary
            assert not await task_failures(handle)
        finally:
            await door.cleanup()
