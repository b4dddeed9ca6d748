"""The controller answers in people's shadow (answers as training data, SC-024): every question
a person answers is also put to the controller model, recorded beside the person's answer with
its model, latency and tokens, and never acted on."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from temporalio import activity
from temporalio.client import Client
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.activities.shadow_start import SHADOW_WORKFLOW
from agent_interrupts.app.export import Format, export
from agent_interrupts.app.history import RecordedRun, read_run
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.stats import Tally
from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, build_worker
from agent_interrupts.models.interrupt_flow import ReviewInput, ShadowAnswer, ShadowInput
from agent_interrupts.models.interrupts import InterruptResolution, OptionKey
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.shadow import ShadowAnswerWorkflow
from tests.support.interrupts import (
    answer_all,
    interrupt_status,
    question_input,
    shadow_answer,
    start,
    wait_for_interrupt,
)

SCENARIO = OfflineScenario(interrupt_at=frozenset({AgentType.PLANNING_ORCHESTRATOR}))


async def _answered_run(client: Client, task_queue: str, shadow: bool) -> RecordedRun:
    """A run whose planning orchestrator asks; a person picks A everywhere and says no."""
    workflow_id = f"wf-{uuid.uuid4()}"
    handle = await start(client, task_queue, workflow_id, shadow_answers=shadow)
    pending = (await wait_for_interrupt(handle)).pending_interrupt
    assert pending is not None
    question = (await interrupt_status(client, pending.workflow_id)).request
    agents = AgentWorkflowClient(client, task_queue)
    await agents.resolve(pending.workflow_id, answer_all(question, "A"))
    await handle.result()
    if shadow:  # the shadow outlives the question: wait for its record
        await shadow_answer(client, pending.workflow_id)
    return await read_run(client, workflow_id)


def _path(run: RecordedRun) -> list[tuple[str, str | None]]:
    """Each step the run took and where it routed."""
    return [(c.call.node_id, c.reply.route) for c in run.calls]


async def test_shadow_answers_are_recorded_and_never_acted_on(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    async with build_worker(client, task_queue, LlmSettings(), scenario=SCENARIO):
        plain = await _answered_run(client, task_queue, shadow=False)
        shadowed = await _answered_run(client, task_queue, shadow=True)
    assert _path(shadowed) == _path(plain) and len(_path(plain)) > 10
    (mine,) = plain.interrupts
    (theirs,) = shadowed.interrupts
    assert mine.shadow is None
    assert theirs.shadow is not None and theirs.shadow.answer is not None
    assert theirs.outcome is not None and mine.outcome is not None
    assert theirs.outcome.resolution == mine.outcome.resolution, "the person's answer was used"
    call = theirs.shadow.answer.call
    assert call is not None and call.model and call.latency_ms >= 0
    assert call.schema_name == "AgentReviewDecision"

    tally = Tally()
    tally.add(shadowed)
    lines = {line.name: line for line in tally.lines()}
    assert lines["shadow answers (the controller, after a person)"].value == "1 recorded, 0 failed"
    agreement = lines["controller agrees: PLANNING_ORCHESTRATOR choice"]
    figures = agreement.figures
    assert figures["compared"] == len(theirs.asked.request.choices) > 0
    answer = theirs.shadow.answer
    agreed = sum(
        answer.selected_choices.get(c.choice_id) is OptionKey.A
        for c in theirs.asked.request.choices
    )
    assert figures["agreed"] == agreed
    out = tmp_path / "native.jsonl"
    await export(client, out, fmt=Format.NATIVE, ids=[plain.workflow_id, shadowed.workflow_id])
    records = [json.loads(line) for line in out.read_text().splitlines()]
    people = [r for r in records if r.get("kind") == "resolution"]
    assert len(people) == 2 and sum(r["shadow"] is not None for r in people) == 1
    (beside,) = [r["shadow"] for r in people if r["shadow"]]
    assert beside["answer"]["call"]["schemaName"] == "AgentReviewDecision"
    empty = Tally()
    empty.add(plain)
    assert not any(line.name.startswith("controller agrees") for line in empty.lines())


@activity.defn(name="review_interrupt")
async def failing_review(job: ReviewInput) -> InterruptResolution:
    """A same-named fake of the reviewing activity whose endpoint refuses the call."""
    raise ApplicationError("the controller endpoint refused the key", non_retryable=True)


def test_the_translation_starts_the_shadow_workflow_by_its_name() -> None:
    assert ShadowAnswerWorkflow.__temporal_workflow_definition.name == SHADOW_WORKFLOW  # type: ignore[attr-defined]


async def test_a_failed_shadow_call_is_recorded_as_a_warning(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    job = question_input()
    review = ReviewInput(goal=job.goal, request=job.request, origin_request=job.origin_request)
    async with Worker(
        client,
        task_queue=task_queue,
        workflows=[ShadowAnswerWorkflow],
        workflow_runner=WORKFLOW_RUNNER,
        activities=[failing_review],
    ):
        answer: ShadowAnswer = await client.execute_workflow(
            ShadowAnswerWorkflow.run,
            ShadowInput(origin=job.origin, review=review, person=answer_all(job.request)),
            id=workflow_id,
            task_queue=task_queue,
        )
    assert answer.answer is None
    assert answer.error is not None and "refused the key" in answer.error
