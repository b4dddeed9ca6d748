"""Deploys never strand a run: a question that a landed version's worker left waiting
is answered under the current code, and the run completes.

Each landed version's own ``worker.py`` (from ``git archive``) runs until the question waits and
is then killed; a worker of the current code takes over the same task queue, as in a deploy.
"""

from __future__ import annotations

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.teams.software.results import OrchestratorCollectorResult
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.histories.landed import (
    GOAL,
    LANDED,
    QUESTIONS,
    checkout,
    has_commit,
    same_workflow_code,
    wait_for_question,
    worker_process,
)
from tests.support.interrupts import answer_all, interrupt_status


async def _failed_tasks(client: Client, workflow_id: str) -> list[str]:
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    return [
        e.workflow_task_failed_event_attributes.failure.message
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
    ]


HANDOVERS = [
    (version, question)
    for i, version in enumerate(LANDED)
    for question in QUESTIONS
    if i == 0 or question == "planning-question"
]
"""Every landed version's planning question; the oldest version's dispatch question too (the
shape that changed most: its agents' results carried ``needsInput``). Their histories replay
for every version and shape."""


@pytest.mark.parametrize(("version", "question"), HANDOVERS)
async def test_a_question_left_waiting_by_a_landed_version_is_answered_after_a_deploy(
    env: WorkflowEnvironment,
    client: Client,
    task_queue: str,
    workflow_id: str,
    tmp_path,
    version: str,
    question: str,
) -> None:
    if not has_commit(version):
        pytest.skip(f"this clone does not hold {version} (a shallow clone); its histories replay")
    if same_workflow_code(version):
        pytest.skip(f"{version}'s workflows and models are this tree's: nothing to hand over")
    interrupt_id = f"{workflow_id}-interrupt-1"
    address = client.service_client.config.target_host
    with checkout(version) as tree:
        scenario = f"interrupt={QUESTIONS[question]}"
        with worker_process(tree, address, task_queue, scenario, tmp_path / "old-worker.log"):
            handle = await client.start_workflow(
                "OrchestratorWorkflow", {"goal": GOAL}, id=workflow_id, task_queue=task_queue
            )
            await wait_for_question(client, interrupt_id)
    async with build_worker(client, task_queue, LlmSettings()):
        waiting = await interrupt_status(client, interrupt_id)
        await client.get_workflow_handle(interrupt_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(waiting.request)
        )
        result = await handle.result()
    final = OrchestratorCollectorResult.model_validate(result)
    assert final.phases_completed, final
    assert await _failed_tasks(client, workflow_id) == []
    assert await _failed_tasks(client, interrupt_id) == []
