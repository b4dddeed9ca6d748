"""Long texts at the largest fan-out: no input may put a run into a failing workflow-task loop.

An 8,000-character goal with a workspace makes each offline agent's output about 280 kB. Sixteen
of them gathered made a 4.5 MB collector request, a 4.5 MB continue-as-new and a 3 MB question
handed over: Temporal refused each (2 MB a payload) and the workflow task failed for ever. Now
an output keeps at most AGENT_OUTPUT_BYTES, a request AGENT_REQUEST_BYTES, the carried state
CARRIED_STATE_BYTES (their longest texts cut, saying so); the run completes, its question is
asked and answered."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType, WorkflowTaskFailedCause
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.service import RPCError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.history import read_pages
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.limits import (
    AGENT_OUTPUT_BYTES,
    MAX_FAN_OUT,
    MAX_GOAL_CHARS,
    json_bytes,
)
from agent_interrupts.models.state import EntryKind, OrchestratorInput
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import answer_all, interrupt_status
from tests.support.workspace import make_repo

BENIGN = {
    WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
    WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND,
}
"""The server's own retries, not a failing task: a signal or a child's result arrived while the
task completed (UNHANDLED_COMMAND), or more than 2 MiB of results arrived while it ran (seventeen
agents' outputs of up to AGENT_OUTPUT_BYTES each), and the server closed the task to hand them to a
new one (FORCE_CLOSE_COMMAND, ``history.maximumBufferedEventsSizeInBytes``). The run completing
shows neither repeats for ever."""


async def _start(client: Client, task_queue: str, workflow_id: str, repo: Path) -> WorkflowHandle:
    return await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(
            goal="y" * MAX_GOAL_CHARS, workspace=WorkspaceSpec(source=str(repo)), max_steps=400
        ),
        id=workflow_id,
        task_queue=task_queue,
    )


async def _task_failures(client: Client, workflow_id: str) -> list[str]:
    """Every failed workflow task of the run chain, but the benign kind."""
    failures: list[str] = []
    run_id: str | None = None
    while True:
        handle = client.get_workflow_handle(workflow_id, run_id=run_id)
        run_id = None
        async for event in handle.fetch_history_events():
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
                started = event.workflow_execution_started_event_attributes
                run_id = started.continued_execution_run_id or None
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
                failed = event.workflow_task_failed_event_attributes
                if failed.cause not in BENIGN:
                    failures.append(f"{failed.cause}: {failed.failure.message}")
        if run_id is None:
            return failures


async def _answer_questions(client: Client, workflow_id: str) -> int:
    """Answer each question the run asks, until it ends; a question may be handed over and
    asked again meanwhile. Returns how many were answered."""
    answered: set[str] = set()
    while True:
        described = await client.get_workflow_handle(workflow_id).describe()
        if described.status is not WorkflowExecutionStatus.RUNNING:
            return len(answered)
        for child in described.raw_description.pending_children:
            if child.workflow_type_name != InterruptWorkflow.__name__:
                continue
            with contextlib.suppress(RPCError):  # handed over meanwhile: asked again later
                question = await interrupt_status(client, child.workflow_id)
                if question.resolution is None:
                    await client.get_workflow_handle(child.workflow_id).execute_update(
                        InterruptWorkflow.resolve_validated, answer_all(question.request)
                    )
                answered.add(child.workflow_id)
        await asyncio.sleep(0.5)


@pytest.mark.parametrize("asks", [False, True], ids=["completes", "asks"])
async def test_long_outputs_of_the_largest_fan_out_fit_and_the_run_completes(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path, asks: bool
) -> None:
    spec = f"fanout={MAX_FAN_OUT}" + (";interrupt=DISCOVERY_AGENT" if asks else "")
    scenario = OfflineScenario.parse(spec)
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handle = await _start(client, task_queue, workflow_id, make_repo(tmp_path))
        try:
            answered = await asyncio.wait_for(_answer_questions(client, workflow_id), 240)
            await handle.result()
        finally:
            failures = await _task_failures(client, workflow_id)
        assert not failures, "\n".join(failures)
        held = await read_pages(client.get_workflow_handle(workflow_id), 0)
    outputs: list[dict[str, Any]] = [
        e.payload for e in held.entries if e.kind is EntryKind.OUTPUT and e.payload is not None
    ]
    assert outputs and all(json_bytes(p) <= AGENT_OUTPUT_BYTES for p in outputs)
    assert (answered > 0) is asks
