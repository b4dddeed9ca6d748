"""Updates of any size or encoding are refused in one line: our doors before
sending, the workflow for any other client; an update over Temporal's 2 MiB limit from another
client costs failed workflow tasks the run recovers from, never the run."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle
from temporalio.common import RawValue
from temporalio.service import RPCError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.sdk import AgentWorkflowClient, EventRejected, ResolutionRejected
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.agent_types import AgentType
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.limits import MAX_ITEMS, MAX_PAYLOAD_BYTES
from tests.support.interrupts import (
    answer_all,
    interrupt_status,
    rejected,
    start,
    wait_for_interrupt,
)

NOT_JSON = RawValue(Payload(metadata={"encoding": b"json/plain"}, data=b"\xff{not json"))


async def _task_failures(handle: WorkflowHandle[Any, Any]) -> list[str]:
    history = await handle.fetch_history()
    return [
        e.workflow_task_failed_event_attributes.failure.message
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
    ]


async def _rejection(handle: WorkflowHandle[Any, Any], name: str, arg: object) -> str:
    started = time.monotonic()
    message = await rejected(handle, name, arg)
    assert time.monotonic() - started < 1.0
    return message


async def test_our_sdk_refuses_an_answer_or_event_over_the_limit_before_sending(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """A typed answer can exceed the limit (50 write-ins of 4,000 two-byte characters): the SDK
    (the CLI's and the inbox's door) refuses it in one line, nothing reaches the workflow."""
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))
    agents = AgentWorkflowClient(client, task_queue=task_queue)
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        wide = InterruptResolution(custom_inputs={f"c{i}": "é" * 4_000 for i in range(MAX_ITEMS)})
        started = time.monotonic()
        with pytest.raises(ResolutionRejected, match=f"over the workflow's {MAX_PAYLOAD_BYTES}"):
            await agents.resolve(pending.workflow_id, wide)
        event = InterruptRequestEvent.model_validate(
            {
                "eventId": "e" * 200,
                "sourceAgentType": "REVIEW_AGENT",
                "reason": "é" * 8_000,
                "confirmationItems": [
                    {
                        "confirmationId": f"x{i}",
                        "statement": "é" * 4_000,
                        "context": "",
                        "defaultValue": True,
                        "impactIfNo": "",
                    }
                    for i in range(MAX_ITEMS)
                ],
            }
        )
        with pytest.raises(EventRejected, match="byte limit"):
            await agents.send_interrupt_event(workflow_id, event)
        assert time.monotonic() - started < 1.0
        child = client.get_workflow_handle(pending.workflow_id)
        question = (await interrupt_status(client, child.id)).request
        ack = await agents.resolve(pending.workflow_id, answer_all(question))
        assert ack.accepted
        await asyncio.wait_for(handle.result(), 60)
        assert await _task_failures(child) == []
        assert await _task_failures(handle) == []


async def test_another_clients_update_of_any_size_or_encoding_never_costs_the_run(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """A raw client (another language's SDK, a script): not JSON and over the workflow's limit
    are one-line rejections within a second; over Temporal's 2 MiB limit the worker cannot answer
    at all (the protocol echoes the request), the server drops the update after failed tasks,
    and a person's answer afterwards is taken and the run completes."""
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        child = client.get_workflow_handle(pending.workflow_id)
        for target, name in ((child, "resolve_validated"), (handle, "send_interrupt_event")):
            assert "is not JSON" in await _rejection(target, name, NOT_JSON)
            huge = {"selectedChoices": {"x" * 1_900_000: "A"}}
            assert "over the 262144 byte limit" in await _rejection(target, name, huge)
            assert "\\n" in await _rejection(
                target, name, {"selectedChoices": {"a\nb": "A"}, "\n": 1}
            )
        assert await _task_failures(child) == []
        started = time.monotonic()
        with pytest.raises(RPCError, match="Workflow Task in failed state"):
            await child.execute_update("resolve_validated", {"x" * 2_100_000: "A"})
        dropped_after = time.monotonic() - started
        async with asyncio.timeout(60):
            while True:
                try:
                    question = (await interrupt_status(client, child.id)).request
                    break
                except RPCError as err:
                    assert "Workflow Task in failed state" in str(err)
                    await asyncio.sleep(0.5)
        await child.execute_update("resolve_validated", answer_all(question))
        answered_after = time.monotonic() - started
        await asyncio.wait_for(handle.result(), 60)
        failures = await _task_failures(child)
        assert failures and all("TMPRL1103" in f for f in failures), failures
        assert await _task_failures(handle) == []
        print(f"2.1 MB: dropped after {dropped_after:.1f} s, answer taken {answered_after:.1f} s")
