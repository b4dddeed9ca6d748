"""US23: a person may answer in their own words alone (or words plus
some choices); the translating LLM decides what the words leave open, the question records
which choices the text decided, and an answer with nothing in it is still refused."""

from __future__ import annotations

import asyncio

import pytest
from temporalio.client import Client, WorkflowUpdateFailedError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import failure_message
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.support.interrupts import (
    interrupt_status,
    start,
    translation_calls,
    wait_for_interrupt,
)

WORDS = "Keep the merge queue as it is, and yes, add the tests first."


async def test_free_text_alone_is_translated_and_records_what_it_decided(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.MERGER_AGENT})))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        interrupt = client.get_workflow_handle(pending.workflow_id)
        question = (await interrupt_status(client, pending.workflow_id)).request

        for empty in ({}, {"freeText": "   "}):
            with pytest.raises(WorkflowUpdateFailedError) as refused:
                await interrupt.execute_update(
                    InterruptWorkflow.resolve_validated, InterruptResolution.model_validate(empty)
                )
            assert "has no answer" in failure_message(refused.value)

        ack = await interrupt.execute_update(
            InterruptWorkflow.resolve_validated,
            InterruptResolution.model_validate({"freeText": WORDS}),
        )
        assert ack.accepted
        answered = await interrupt_status(client, pending.workflow_id)
        await asyncio.wait_for(handle.result(), 30)

    assert answered.resolution is not None
    asked = [c.choice_id for c in question.choices]
    confirmed = [c.confirmation_id for c in question.confirmation_items]
    assert answered.resolution.decided_by_text == [*asked, *confirmed]
    [translation] = translation_calls(offline.received)
    prompt = str(translation["messages"])
    assert WORDS in prompt
    assert prompt.count("left to the answer") == len(asked + confirmed)
