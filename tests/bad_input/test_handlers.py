"""Hundreds of malformed signals and updates never wedge a workflow or lose anything.

Each test attacks one handler of a live run that waits on a HUMAN_REVIEW interrupt, batch after
batch, and checks after every batch: no WorkflowTaskFailed in either history, both ``status``
queries answer (and stay bounded), the blackboard and the interrupt are untouched, events only grow
(one per bad signal the SDK hands over), every bad update is rejected cleanly; then a valid answer
finishes the run.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import strategies as st
from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.common import RawValue
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError
from temporalio.worker import Replayer

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, WORKFLOWS, build_worker
from agent_interrupts.models.interrupt_flow import InterruptState, InterruptStatus
from agent_interrupts.models.state import OrchestratorStatus
from agent_interrupts.teams.software.agents import AgentType
from tests.bad_input.harness import (
    MAX_MESSAGE_CHARS,
    MAX_STATUS_BYTES,
    RAW_PYTHON_ERRORS,
    assert_no_task_failed,
    bounded_gather,
    events_total,
    note_batch,
    query_status,
    run_batches,
    settle,
)
from tests.bad_input.payloads import (
    BATCH_MIN,
    Junk,
    bad_event,
    bad_resolution,
    batches,
    huge_calls,
    huge_event,
    huge_resolution,
    junk_calls,
    unknown_signals,
)
from tests.support.interrupts import answer_all, start, wait_for_interrupt

pytestmark = pytest.mark.slow

SCENARIO = OfflineScenario(interrupt_at=frozenset({AgentType.PLANNING_ORCHESTRATOR}))
BATCHES = 12
"""Hypothesis examples per handler; each is one batch of BATCH_MIN..BATCH_MAX (+1) calls."""
UPDATE_TIMEOUT = 60.0


@dataclass(frozen=True)
class Handler:
    name: str
    update: bool
    on_interrupt: bool
    """True: InterruptWorkflow's handler; False: OrchestratorWorkflow's."""
    calls: st.SearchStrategy[list[Junk]]


_RESOLUTIONS = junk_calls(bad_resolution)
_EVENTS = junk_calls(bad_event)
HANDLERS = [
    Handler(
        "interrupt_request_event",
        update=False,
        on_interrupt=False,
        calls=batches(st.one_of(_EVENTS, unknown_signals(_EVENTS)), huge_calls(huge_event)),
    ),
    Handler(
        "send_interrupt_event",
        update=True,
        on_interrupt=False,
        calls=batches(_EVENTS, huge_calls(huge_event)),
    ),
    Handler(
        "resolve",
        update=False,
        on_interrupt=True,
        calls=batches(
            st.one_of(_RESOLUTIONS, unknown_signals(_RESOLUTIONS)), huge_calls(huge_resolution)
        ),
    ),
    Handler(
        "resolve_validated",
        update=True,
        on_interrupt=True,
        calls=batches(_RESOLUTIONS, huge_calls(huge_resolution)),
    ),
]


async def _rejection_problem(handle: WorkflowHandle[Any, Any], name: str, junk: Junk) -> str | None:
    """None if the update was rejected cleanly; else what went wrong."""
    try:
        async with asyncio.timeout(UPDATE_TIMEOUT):
            await handle.execute_update(name, args=junk.raw(), result_type=RawValue)
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        if not isinstance(cause, ApplicationError):
            return f"{junk!r}: rejected with {type(cause).__name__}: {str(cause)[:300]}"
        if cause.type in RAW_PYTHON_ERRORS:
            return f"{junk!r}: rejected with a raw {cause.type}: {cause.message[:300]}"
        if len(cause.message) > MAX_MESSAGE_CHARS:
            return f"{junk!r}: rejection message of {len(cause.message)} chars echoes the input"
        return None
    except Exception as err:
        return f"{junk!r}: {type(err).__name__}: {str(err)[:300]}"
    return f"{junk!r}: accepted"


async def _signal_problem(handle: WorkflowHandle[Any, Any], name: str, junk: Junk) -> str | None:
    try:
        await handle.signal(junk.name or name, args=junk.raw())
    except Exception as err:
        return f"{junk!r}: signal not delivered: {type(err).__name__}: {str(err)[:300]}"
    return None


class Attack:
    """One handler of a run waiting on an interrupt, attacked batch by batch."""

    def __init__(
        self,
        handler: Handler,
        orchestrator: WorkflowHandle[Any, Any],
        interrupt: WorkflowHandle[Any, Any],
    ) -> None:
        self.handler = handler
        self.orchestrator = orchestrator
        self.interrupt = interrupt
        self.target = interrupt if handler.on_interrupt else orchestrator
        self.sent = 0
        self.largest_status = 0
        self.failure: BaseException | None = None
        """The first batch's failure: hypothesis replays a failing example, the run is wedged."""

    async def statuses(self) -> tuple[OrchestratorStatus, InterruptStatus]:
        ours, ours_size = await query_status(self.orchestrator, OrchestratorStatus)
        theirs, theirs_size = await query_status(self.interrupt, InterruptStatus)
        self.largest_status = max(self.largest_status, ours_size, theirs_size)
        assert ours_size <= MAX_STATUS_BYTES, f"orchestrator status is {ours_size} bytes"
        assert theirs_size <= MAX_STATUS_BYTES, f"interrupt status is {theirs_size} bytes"
        return ours, theirs

    async def batch(self, calls: list[Junk]) -> None:
        """Send one batch, let it settle, check that nothing wedged, changed or shrank."""
        if self.failure is not None:
            raise self.failure
        try:
            await self._batch(calls)
        except BaseException as err:
            note_batch(err, calls)
            self.failure = err
            raise

    async def _batch(self, calls: list[Junk]) -> None:
        ours, theirs = await self.statuses()
        send = _rejection_problem if self.handler.update else _signal_problem
        limit = 4 if self.handler.update else 8  # the server admits 10 in-flight updates
        outcomes = await bounded_gather(
            (send(self.target, self.handler.name, j) for j in calls), limit
        )
        self.sent += len(calls)
        await settle(self.orchestrator)
        await settle(self.interrupt)
        await assert_no_task_failed(self.orchestrator, self.interrupt)
        problems = [o for o in outcomes if o is not None]
        assert not problems, f"{len(problems)} of {len(calls)} calls: " + "\n".join(problems[:20])
        ours_now, theirs_now = await self.statuses()
        assert [e.context_id for e in ours_now.history] == [e.context_id for e in ours.history]
        assert ours_now.pending_interrupt == ours.pending_interrupt
        assert ours_now.current_node == ours.current_node
        assert ours_now.stored_events == ours.stored_events
        assert theirs_now.state is InterruptState.WAITING
        assert theirs_now.resolution is None, "a malformed answer was taken"
        assert theirs_now.request == theirs.request
        before = events_total(theirs if self.handler.on_interrupt else ours)
        after = events_total(theirs_now if self.handler.on_interrupt else ours_now)
        other = (ours, ours_now) if self.handler.on_interrupt else (theirs, theirs_now)
        assert events_total(other[1]) >= events_total(other[0]), "events shrank"
        if self.handler.update:  # a rejection answers its caller; validators cannot record
            assert after >= before, "events shrank"
        else:  # a named handler: the SDK drops extra payloads it cannot decode, with a warning
            reaching = sum(1 for j in calls if j.reaches_handler(self.handler.name))
            assert after >= before + reaching, (
                f"{reaching} bad signals recorded only {after - before} events"
            )


async def _answer(attack: Attack) -> None:
    """The final valid answer, the way the attacked handler's workflow is answered."""
    status, _ = await query_status(attack.interrupt, InterruptStatus)
    answer = answer_all(status.request)
    if attack.handler.name == "resolve":
        await attack.interrupt.signal("resolve", answer)
    else:
        await attack.interrupt.execute_update("resolve_validated", answer)


@pytest.mark.parametrize("handler", HANDLERS, ids=[h.name for h in HANDLERS])
async def test_malformed_calls_never_wedge_and_a_valid_answer_still_finishes(
    client: Client, task_queue: str, workflow_id: str, handler: Handler
) -> None:
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(SCENARIO)):
        handle = await start(client, task_queue, workflow_id)
        try:
            pending = (await wait_for_interrupt(handle, timeout=120)).pending_interrupt
            assert pending is not None
            attack = Attack(handler, handle, client.get_workflow_handle(pending.workflow_id))
            loop = asyncio.get_running_loop()
            await asyncio.to_thread(run_batches, loop, handler.calls, attack.batch, BATCHES)
            assert attack.sent >= BATCHES * BATCH_MIN
            await _answer(attack)
            result = await asyncio.wait_for(handle.result(), 120)
            assert result.summary
            await assert_no_task_failed(handle, attack.interrupt)
            replayer = Replayer(
                workflows=WORKFLOWS,
                workflow_runner=WORKFLOW_RUNNER,
                data_converter=pydantic_data_converter,
            )
            for replayed in (handle, attack.interrupt):
                replay = await replayer.replay_workflow(await replayed.fetch_history())
                assert replay.replay_failure is None, f"{replayed.id} does not replay"
        finally:
            if (await handle.describe()).status is WorkflowExecutionStatus.RUNNING:
                await handle.terminate("bad-input suite: cleanup after a failure")
