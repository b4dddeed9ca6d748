"""Beyond the single bad payloads: the costliest legal-sized bad input a caller can send.

Each payload here is under the handlers' own size limit; it is the number of them, or what their
echoes cost once serialized, that attacks the run: ``status`` must stay well under Temporal's
2 MB limit after a full event window of the most expensive messages, and a flood of signals
must not grow a waiting workflow's history until the server terminates it.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.common import RawValue

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.app.history import read_run
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_flow import InterruptState, InterruptStatus
from agent_interrupts.models.state import OrchestratorStatus
from tests.bad_input.harness import (
    HANDOVER_RACE,
    MAX_STATUS_BYTES,
    assert_no_task_failed,
    bounded_gather,
    query_status,
    settle,
)
from tests.bad_input.payloads import CONFIRMATION_ID, json_payload
from tests.bad_input.test_handlers import SCENARIO
from tests.support.interrupts import answer_all, start, wait_for_interrupt

pytestmark = pytest.mark.slow

WINDOW_FILL = 210
"""More bad signals than any sane event window keeps."""
FLOOD_PAYLOAD_BYTES = 240_000
"""Under the 256 KB a handler takes (and Temporal's own warning limit)."""
FLOOD_SIGNALS = 240
"""240 x 240 KB = 57 MB: past the 50 MB at which the server terminates a workflow."""
FLOOD_PAUSE_BYTES = 24 * 1024 * 1024
"""The flood pauses while the receiving run's history holds this much: six times the run's own
bound for handing over, half the server's limit."""
RUNNING = WorkflowExecutionStatus.RUNNING
EMOJI = "\U0001f4a5"
"""Four bytes of UTF-8 per character: the most a clipped, ``repr``-quoted echo costs."""


async def _waiting_run(
    client: Client, task_queue: str, workflow_id: str
) -> tuple[WorkflowHandle[Any, Any], WorkflowHandle[Any, Any]]:
    handle = await start(client, task_queue, workflow_id)
    pending = (await wait_for_interrupt(handle, timeout=120)).pending_interrupt
    assert pending is not None
    return handle, client.get_workflow_handle(pending.workflow_id)


async def _finish(
    handle: WorkflowHandle[Any, Any],
    child: WorkflowHandle[Any, Any],
    allowed: frozenset[int] = frozenset(),
) -> None:
    """A valid answer still completes the run, and no workflow task ever failed."""
    status, _ = await query_status(child, InterruptStatus)
    assert status.state is InterruptState.WAITING
    await child.execute_update("resolve_validated", answer_all(status.request))
    assert (await asyncio.wait_for(handle.result(), 120)).summary
    await assert_no_task_failed(handle, child, allowed=allowed)


async def _send(handle: WorkflowHandle[Any, Any], name: str, payload: Payload, times: int) -> None:
    """Signal ``times`` times; every signal must be delivered to a running workflow.

    A signal that races a continue-as-new is refused by the run that just closed ("already
    completed"); like any careful sender, this one sends it again to the run that took over.
    """

    async def one() -> str | None:
        await _while_history_holds(handle, FLOOD_PAUSE_BYTES)
        for _ in range(5):
            try:
                await handle.signal(name, RawValue(payload))
            except Exception as err:
                if "already completed" in str(err):
                    continue
                return f"{type(err).__name__}: {err}"
            return None
        return "refused 5 times: already completed"

    # One sender, each signal acknowledged before the next: 57 MB at the server's pace, pausing
    # while the run's history holds FLOOD_PAUSE_BYTES. A run cannot continue as new while signals
    # keep arriving during its workflow task, so a flood that outruns the worker (many senders at
    # once, or one sender while the machine starves the worker) reaches the server's history
    # limit; only the server's own limits can stop that.
    results = await bounded_gather((one() for _ in range(times)), 1)
    refused = [r for r in results if r]
    described = await handle.describe()
    assert not refused, (
        f"{len(refused)} of {times} signals of {len(payload.data)} bytes were refused "
        f"({refused[0]}); {handle.id} is {described.status}"
    )


async def _while_history_holds(handle: WorkflowHandle[Any, Any], most: int) -> None:
    """Wait while the current run of ``handle``'s id holds more than ``most`` bytes of history."""
    async with asyncio.timeout(180):  # a handover takes seconds, even on a starved machine
        while (
            await handle.describe()
        ).raw_description.workflow_execution_info.history_size_bytes > most:
            await asyncio.sleep(0.2)


async def test_status_stays_bounded_after_a_window_of_the_costliest_events(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Unknown ids of 200 emoji (valid-shaped answers), dict keys of control characters."""
    wide_ids = {f"{i:02d}{EMOJI * 198}": "A" for i in range(12)}
    answer = {"selectedChoices": wide_ids, "confirmations": {CONFIRMATION_ID: True}}
    control_keys = {f"{i:02d}" + "\x01" * 58: 1 for i in range(30)}
    event = {"eventId": "\x01" * 200, "sourceAgentType": "REVIEW_AGENT", "reason": "r"}
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(SCENARIO)):
        handle, child = await _waiting_run(client, task_queue, workflow_id)
        try:
            await _send(child, "resolve", json_payload(answer), WINDOW_FILL)
            await _send(
                handle,
                "interrupt_request_event",
                json_payload({**event, **control_keys}),
                WINDOW_FILL,
            )
            await settle(child)
            await settle(handle)
            theirs, theirs_size = await query_status(child, InterruptStatus)
            ours, ours_size = await query_status(handle, OrchestratorStatus)
            assert theirs.events_recorded >= WINDOW_FILL
            assert ours.events_recorded >= WINDOW_FILL
            assert theirs_size <= MAX_STATUS_BYTES, (
                f"InterruptWorkflow status is {theirs_size} bytes after {WINDOW_FILL} bad answers "
                f"({len(theirs.events)} events kept, the last "
                f"{len(theirs.events[-1].message.encode())} bytes)"
            )
            assert ours_size <= MAX_STATUS_BYTES, (
                f"OrchestratorWorkflow status is {ours_size} bytes after {WINDOW_FILL} bad events"
            )
            await _finish(handle, child)
        finally:
            await _terminate(handle)


@pytest.mark.parametrize(
    "target",
    ["interrupt", "orchestrator"],
)
async def test_a_signal_flood_does_not_end_a_waiting_run(
    client: Client, task_queue: str, workflow_id: str, target: str
) -> None:
    """240 signals of 240 KB each: every one is under the limits, together they are 57 MB."""
    # an answer that stays invalid however much text it carries: it names no offered choice
    filler = {
        "selectedChoices": {"no-such-choice": "A"},
        "freeText": "x" * (FLOOD_PAYLOAD_BYTES - 150),
    }
    payload = Payload(metadata={"encoding": b"json/plain"}, data=json.dumps(filler).encode())
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(SCENARIO)):
        handle, child = await _waiting_run(client, task_queue, workflow_id)
        try:
            asked, _ = await query_status(child, InterruptStatus)
            flooded = child if target == "interrupt" else handle
            name = "resolve" if target == "interrupt" else "interrupt_request_event"
            await _send(flooded, name, payload, FLOOD_SIGNALS)
            # the orchestrator first: its history grew long, so it asked its question again
            for each in (handle, child):
                async with asyncio.timeout(60):  # the question between two runs of its id
                    while (described := await each.describe()).status is not RUNNING:
                        assert described.status is not WorkflowExecutionStatus.TERMINATED, (
                            f"{each.id} was ended after {FLOOD_SIGNALS} signals of "
                            f"{len(payload.data)} bytes"
                        )
                        await asyncio.sleep(0.1)
                await settle(each, allowed=HANDOVER_RACE)
            if target == "orchestrator":
                status = await handle.query("status", result_type=OrchestratorStatus)
                again = [e.message for e in status.events if "REQUESTED AGAIN" in e.message]
                assert again and again[-1].startswith(f"REQUESTED AGAIN: {child.id} "), again
                now, _ = await query_status(child, InterruptStatus)
                assert asked.deadline and now.deadline, "the run's questions have a deadline"
                assert abs(now.deadline - asked.deadline) < timedelta(seconds=5), "kept"
            await _finish(handle, child, allowed=HANDOVER_RACE)
            recorded = await read_run(client, handle.id)
            assert [i.interrupt_id for i in recorded.interrupts] == [child.id], "asked once"
        finally:
            await _terminate(handle)


async def _terminate(handle: WorkflowHandle[Any, Any]) -> None:
    if (await handle.describe()).status is WorkflowExecutionStatus.RUNNING:
        await handle.terminate("bad-input suite: cleanup after a failure")
