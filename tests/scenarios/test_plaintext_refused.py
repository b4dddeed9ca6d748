"""``AGENTS_ENCRYPTION_PLAINTEXT=refuse`` through a real server and worker: a client without the
keys sends plain JSON (a signal and an update, to the run and to its question) into an
encrypted run; the worker refuses each update in one line (sealed: a client with the keys reads
it, one without is told to set them) and ignores each signal, no workflow task fails, the
question waits on, and an encrypted answer is then taken and the run ends."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Sequence
from typing import Any

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.codec import EncryptionCodec
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.encryption_keys import KeyRing
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import PayloadKeyError, failure_message
from agent_interrupts.models.interrupt_events import INTERRUPT_REQUEST_EVENT_SIGNAL
from agent_interrupts.models.interrupt_flow import RESOLVE_SIGNAL, InterruptState
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import RESOLVE_UPDATE
from tests.support.interrupts import answer_all, start, wait_for_interrupt

REFUSED = "an unencrypted payload is refused here (AGENTS_ENCRYPTION_PLAINTEXT=refuse)"


async def task_failures(handle: WorkflowHandle[Any, Any]) -> list[str]:
    return [
        e.workflow_task_failed_event_attributes.failure.message
        async for e in handle.fetch_history_events()
        if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
    ]


async def update_refusal(handle: WorkflowHandle[Any, Any], name: str, arg: object) -> str:
    """The one line an update is refused with (a client that cannot open the sealed failure
    gets the line that names the keys' setting)."""
    with pytest.raises((WorkflowUpdateFailedError, PayloadKeyError)) as refused:
        await asyncio.wait_for(handle.execute_update(name, arg), 30)
    return failure_message(refused.value)


class SendsPlain(EncryptionCodec):
    """A supervisor that reads sealed payloads (through the codec server, say) but sends plain
    JSON: it can read why the worker refused it."""

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)


async def test_a_worker_refusing_plaintext_turns_away_a_plain_clients_signals_and_updates(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    ring = KeyRing((("k1", os.urandom(32)),), accept_plaintext=False)
    config = client.config()
    config["data_converter"] = data_converter(ring)
    sealed = Client(**config)
    agents = AgentWorkflowClient(sealed, task_queue)
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))
    async with build_worker(sealed, task_queue, LlmSettings(), scenario=scenario):
        handle = await start(sealed, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        question = (await agents.interrupt_status(pending.workflow_id)).request
        answer = answer_all(question).to_wire()
        event = {
            "eventId": "plain-1",
            "sourceAgentType": AgentType.REVIEW_AGENT.value,
            "reason": "look again",
        }
        plain_run = client.get_workflow_handle(workflow_id)
        plain_question = client.get_workflow_handle(pending.workflow_id)
        config["data_converter"] = dataclasses.replace(
            data_converter(ring), payload_codec=SendsPlain(ring)
        )
        reader = Client(**config)

        await plain_question.signal(RESOLVE_SIGNAL, answer)
        await plain_run.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, event)
        unreadable = await update_refusal(plain_question, RESOLVE_UPDATE, answer)
        answer_refused = await update_refusal(
            reader.get_workflow_handle(pending.workflow_id), RESOLVE_UPDATE, answer
        )
        event_refused = await update_refusal(
            reader.get_workflow_handle(workflow_id), "send_interrupt_event", event
        )
        await asyncio.sleep(1.0)  # the signals' workflow tasks, had they failed, would show

        still = await agents.interrupt_status(pending.workflow_id)
        run_events = (await agents.status(workflow_id)).events
        taken = await agents.resolve(pending.workflow_id, answer_all(question))
        await asyncio.wait_for(handle.result(), 60)
        failures = await task_failures(plain_question) + await task_failures(plain_run)
        closed = await agents.interrupt_status(pending.workflow_id)

    assert unreadable.startswith("a payload is encrypted (key id 'k1') and no keys are set: set ")
    assert "AGENTS_ENCRYPTION_KEYS" in unreadable and "\n" not in unreadable
    assert answer_refused.startswith(REFUSED) and "\n" not in answer_refused, answer_refused
    assert event_refused.startswith(REFUSED) and "\n" not in event_refused, event_refused
    assert still.state is InterruptState.WAITING and still.resolution is None, (
        "the plain signal did not answer"
    )
    assert not any("plain-1" in e.message for e in run_events), "the plain event was not taken"
    assert failures == [], "no workflow task failed"
    assert taken.accepted and closed.state is InterruptState.RESOLVED
