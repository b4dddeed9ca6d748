"""Updates of any size or encoding are refused in one line: our doors before
sending, the workflow for any other client up to the server's payload limit (the test server runs
with ``SERVER_PAYLOAD_BYTES``, as the local stack does), the server itself over its 4 MiB message
limit; none fails a workflow task."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle
from temporalio.common import RawValue
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.sdk import AgentWorkflowClient, EventRejected, ResolutionRejected
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.limits import GRPC_MESSAGE_BYTES, MAX_ITEMS, MAX_PAYLOAD_BYTES
from agent_interrupts.teams.software.agents import AgentType
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
    """The one-line refusal of ``arg``, which comes within a second: the fastest of three tries,
    or on a machine too loaded for that, within 20 times the refusal of a few bytes measured
    beside them (moving megabytes through client, server and worker takes CPU a loaded machine
    lacks; a jammed update takes 20 s and fails workflow tasks, which the tests also read)."""
    times, small, messages = [], [], []
    for _ in range(3):
        started = time.monotonic()
        await rejected(handle, name, NOT_JSON)
        small.append(time.monotonic() - started)
        started = time.monotonic()
        messages.append(await rejected(handle, name, arg))
        times.append(time.monotonic() - started)
    bound = max(1.0, 20 * min(small))
    assert min(times) < bound, f"{name}: refused after {min(times):.2f} s at best, {times}"
    assert len(set(messages)) == 1
    return messages[0]


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
    """A raw client (another language's SDK, a script): not JSON, over the workflow's limit, a key
    that is not printable are one-line rejections within a second, at the question and at the
    orchestrator."""
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
        question = (await interrupt_status(client, child.id)).request
        await child.execute_update("resolve_validated", answer_all(question))
        await asyncio.wait_for(handle.result(), 60)
        assert await _task_failures(child) == []
        assert await _task_failures(handle) == []


THREE_MIB = 3 * 1024 * 1024


async def _answering(handles: list[WorkflowHandle[Any, Any]], counts: dict[str, int]) -> None:
    """Query every handle's ``status`` over and over, counting answers and failures."""
    while True:
        for each in handles:
            try:
                await asyncio.wait_for(each.query("status"), 5)
                counts["answered"] += 1
            except Exception:  # any failure counts: a query the run could not answer
                counts["failed"] += 1
        await asyncio.sleep(0.02)


async def test_an_update_of_3_mib_from_a_plain_client_is_refused_at_once_and_jams_nothing(
    env: WorkflowEnvironment, task_queue: str, workflow_id: str
) -> None:
    """3 MiB, between Temporal's default 2 MiB payload limit and its 4 MiB message limit: once
    it failed the question's workflow tasks for 20 s (TMPRL1103: the update protocol echoes the
    request in the worker's answer). A plain client (the SDK's default converter) gets one line
    naming the size and the limit in under a second (``_at_once``), at the question and at the
    orchestrator; status queries made meanwhile all answer; no workflow task fails; signals that
    large are ignored with an event; a valid answer right after is taken. Over 4 MiB the server
    refuses the request itself."""
    client = env.client
    plain = await Client.connect(
        client.service_client.config.target_host, namespace=client.namespace
    )
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        await start(client, task_queue, workflow_id)
        handle = plain.get_workflow_handle(workflow_id)
        pending = await wait_for_interrupt(client.get_workflow_handle(workflow_id))
        assert pending.pending_interrupt is not None
        child = plain.get_workflow_handle(pending.pending_interrupt.workflow_id)
        counts = {"answered": 0, "failed": 0}
        querying = asyncio.create_task(_answering([child, handle], counts))
        try:
            value = {"selectedChoices": {"x" * THREE_MIB: "A"}}
            size = len(json.dumps(value, separators=(",", ":")))
            for target, name in ((child, "resolve_validated"), (handle, "send_interrupt_event")):
                message = await _rejection(target, name, value)
                assert f"is {size} bytes, over the {MAX_PAYLOAD_BYTES} byte limit" in message
                assert "check the size before sending" in message
            await child.signal("resolve", value)
            await handle.signal("interrupt_request_event", value)
            with pytest.raises(RPCError, match="larger than max"):
                await child.execute_update("resolve_validated", "x" * (GRPC_MESSAGE_BYTES + 1))
            await asyncio.sleep(0.5)  # the signals' workflow tasks
        finally:
            querying.cancel()
        assert counts["failed"] == 0 and counts["answered"] > 0, counts
        warnings = [e.message for e in (await interrupt_status(client, child.id)).events]
        assert any(f"is {size} bytes" in w for w in warnings), warnings
        question = (await interrupt_status(client, child.id)).request
        ack = await child.execute_update("resolve_validated", answer_all(question).to_wire())
        assert ack["accepted"]
        await asyncio.wait_for(client.get_workflow_handle(workflow_id).result(), 60)
        assert await _task_failures(child) == []
        assert await _task_failures(handle) == []


async def test_our_sdk_refuses_3_mib_before_sending(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """An answer or an event of 3 MiB (built past the models' own limits, as a bug or another
    program might) is refused by the SDK in one line naming the size and the limit, for the
    update and for the CLI's ``--signal`` alike; nothing reaches the server."""
    agents = AgentWorkflowClient(client, task_queue=task_queue)
    answer = InterruptResolution.model_construct(free_text="x" * THREE_MIB, answered_by="me")
    event = InterruptRequestEvent.model_construct(
        event_id="e1", source_agent_type=AgentType.REVIEW_AGENT, reason="x" * THREE_MIB
    )
    started = time.monotonic()
    with pytest.raises(ResolutionRejected) as refused:
        await agents.resolve(workflow_id, answer)
    for send in (agents.send_interrupt_event, agents.signal_interrupt_event):
        with pytest.raises(EventRejected, match=f"over the workflow's {MAX_PAYLOAD_BYTES} byte"):
            await send(workflow_id, event)
    assert time.monotonic() - started < 1.0
    message = str(refused.value)
    assert "\n" not in message
    assert f"over the workflow's {MAX_PAYLOAD_BYTES} byte limit" in message
    assert re.search(r"^the answer is \d{7} bytes as JSON, over", message), message
