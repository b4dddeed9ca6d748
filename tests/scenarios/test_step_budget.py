"""A run that uses up its step budget asks a person (more steps, or stop) instead of
failing; only the start input's ``failOnStepLimit`` fails it at once. Offline model, real server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError, WorkflowHandle

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import failure_message
from agent_interrupts.models.interrupts import InterruptType
from agent_interrupts.models.state import EntryKind, EventKind, OrchestratorStatus
from agent_interrupts.workflows.budget_questions import BUDGET_CHOICE_ID
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import (
    answer_all,
    full_status,
    interrupt_status,
    start,
    wait_for_interrupt,
)

BUDGET = 4


async def _next_question(
    handle: WorkflowHandle[OrchestratorWorkflow, Any], asked: set[str]
) -> OrchestratorStatus | None:
    """The status once a question not in ``asked`` waits; None once the run has closed."""
    async with asyncio.timeout(60):
        while True:
            status = await handle.query(OrchestratorWorkflow.status)
            pending = status.pending_interrupt
            if pending is not None and pending.workflow_id not in asked:
                return status
            if (await handle.describe()).status is not WorkflowExecutionStatus.RUNNING:
                return None
            await asyncio.sleep(0.1)


async def test_a_person_grants_more_steps_until_the_run_finishes(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    asked: set[str] = set()
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start(client, task_queue, workflow_id, max_steps=BUDGET)
        while (status := await _next_question(handle, asked)) is not None:
            pending = status.pending_interrupt
            assert pending is not None
            question = await interrupt_status(client, pending.workflow_id)
            assert question.request.type is InterruptType.HUMAN_REVIEW
            assert question.request.origin is pending.origin_agent_type  # the next agent's type
            assert [c.choice_id for c in question.request.choices] == [BUDGET_CHOICE_ID]
            assert question.deadline is None  # a person decides, never the reviewing model
            assert status.steps_taken == status.max_steps == BUDGET * (len(asked) + 1)
            asked.add(pending.workflow_id)
            await client.get_workflow_handle(pending.workflow_id).execute_update(
                InterruptWorkflow.resolve_validated, answer_all(question.request, "A")
            )
        await handle.result()
        status = await full_status(client, handle)
    assert len(asked) == (status.steps_taken - 1) // BUDGET >= 2
    interrupts = [e for e in status.history if e.kind is EntryKind.INTERRUPT]
    assert len(interrupts) == len(asked)
    assert status.interrupt_counts == {}  # budget questions are not the agents' own
    warnings = [e.message for e in status.events if e.kind is EventKind.WARNING]
    assert any(f"a person is asked whether it gets {BUDGET} more" in w for w in warnings)


async def test_a_person_may_stop_the_run_at_its_budget(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start(client, task_queue, workflow_id, max_steps=BUDGET)
        status = await wait_for_interrupt(handle, timeout=60)
        assert status.pending_interrupt is not None
        child = status.pending_interrupt.workflow_id
        question = await interrupt_status(client, child)
        await client.get_workflow_handle(child).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question.request, "B")
        )
        with pytest.raises(WorkflowFailureError) as failed:
            await asyncio.wait_for(handle.result(), 60)
    message = failure_message(failed.value)
    assert "a person chose to stop it" in message


async def test_the_start_input_may_say_the_step_limit_fails_the_run(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await start(
            client, task_queue, workflow_id, max_steps=BUDGET, fail_on_step_limit=True
        )
        with pytest.raises(WorkflowFailureError) as failed:
            await asyncio.wait_for(handle.result(), 60)
        status = await handle.query(OrchestratorWorkflow.status)
    assert "maxSteps" in failure_message(failed.value)
    assert status.pending_interrupt is None and status.steps_taken == BUDGET
