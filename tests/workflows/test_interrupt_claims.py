"""A client cannot claim the workflow's own answer: an answer from outside (the SDK, a raw
update, the Temporal UI's signal) that says ``resolvedBy`` TIMEOUT_ESCALATION, AGENT_REVIEW or
CONTROLLER_AUTONOMY, or carries a reviewing model's ``call``, is refused in one line (a signal:
a WARNING event) and the question still waits; the deadline's own answer is still taken. Through
a real dev server and worker; both histories replay."""

from __future__ import annotations

import asyncio

import pytest
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.sdk import AgentWorkflowClient, ResolutionRejected
from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, WORKFLOWS, build_worker
from agent_interrupts.models.agent_call import CallRecord
from agent_interrupts.models.interrupt_flow import RESOLVE_SIGNAL, InterruptState
from agent_interrupts.models.interrupts import ResolvedBy
from agent_interrupts.models.resolution_rules import recommended_answer, recommended_resolution
from agent_interrupts.models.state import EventKind
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.bad_input.harness import assert_no_task_failed
from tests.support.interrupts import interrupt_status, question_input

OWN = "is the workflow's own (its timer, reviewer or controller)"


async def test_no_door_may_claim_the_timeouts_answer_and_the_timer_still_gives_it(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    asked, timed = f"{workflow_id}-interrupt-1", f"{workflow_id}-interrupt-2"
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await client.start_workflow(
            InterruptWorkflow.run, question_input(), id=asked, task_queue=task_queue
        )
        async with asyncio.timeout(60):
            while (status := await interrupt_status(client, asked)).state is not (
                InterruptState.WAITING
            ):
                await asyncio.sleep(0.05)
        timers = recommended_resolution(status.request)
        assert timers.resolved_by is ResolvedBy.TIMEOUT_ESCALATION

        with pytest.raises(ResolutionRejected) as sdk:
            await agents.resolve(asked, timers, answered_by="mallory")
        assert f"resolvedBy TIMEOUT_ESCALATION {OWN}" in str(sdk.value)
        assert "\n" not in str(sdk.value)
        for kind in (ResolvedBy.AGENT_REVIEW, ResolvedBy.CONTROLLER_AUTONOMY):
            claim = recommended_answer(status.request).model_copy(update={"resolved_by": kind})
            with pytest.raises(WorkflowUpdateFailedError) as raw:
                await handle.execute_update(InterruptWorkflow.resolve_validated, claim)
            assert f"resolvedBy {kind.value} {OWN}" in str(raw.value.cause)
        call = CallRecord(
            model="m",
            attempts=1,
            prompt_tokens=None,
            completion_tokens=None,
            latency_ms=1,
            schema_name="AgentReviewDecision",
            schema_version="1",
            messages_sha256="0" * 64,
            template_version="1",
        )
        reviewed = recommended_answer(status.request).model_copy(update={"call": call})
        with pytest.raises(ResolutionRejected, match="the reviewing model's own record"):
            await agents.resolve(asked, reviewed)

        await handle.signal(RESOLVE_SIGNAL, timers.to_wire())  # the Temporal UI's form
        async with asyncio.timeout(30):
            while True:
                status = await interrupt_status(client, asked)
                if any(
                    e.kind is EventKind.WARNING and f"TIMEOUT_ESCALATION {OWN}" in e.message
                    for e in status.events
                ):
                    break
                await asyncio.sleep(0.05)
        assert status.state is InterruptState.WAITING and status.resolution is None

        ack = await agents.resolve(asked, recommended_answer(status.request), answered_by="ada")
        assert ack.accepted
        await handle.result()
        taken = (await interrupt_status(client, asked)).resolution
        assert taken is not None and taken.resolved_by is ResolvedBy.HUMAN
        assert taken.answered_by == "ada"

        deadline = await client.start_workflow(
            InterruptWorkflow.run,
            question_input(timeout_seconds=1),
            id=timed,
            task_queue=task_queue,
        )
        await asyncio.wait_for(deadline.result(), 90)
        own = (await interrupt_status(client, timed)).resolution
        assert own is not None and own.resolved_by is ResolvedBy.TIMEOUT_ESCALATION
        await assert_no_task_failed(handle, deadline)

    replayer = Replayer(
        workflows=WORKFLOWS, workflow_runner=WORKFLOW_RUNNER, data_converter=pydantic_data_converter
    )
    for replayed in (handle, deadline):
        result = await replayer.replay_workflow(await replayed.fetch_history())
        assert result.replay_failure is None
