"""Earned autonomy: the controller answers a kind of question itself only
where the worker's policy names it and its shadow answers agreed with people's; the decision is
recorded with its figures, the answer is marked CONTROLLER_AUTONOMY everywhere, and a person's
answer that arrives before the run moved past it overrules it."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

from temporalio import activity
from temporalio.client import Client
from temporalio.worker import Worker

from agent_interrupts.activities.autonomy import AutonomySettings, load_policy
from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.notify import NotificationActivities, NotifySettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.history import read_run
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.stats import Tally
from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, build_worker, served_agents
from agent_interrupts.models.interrupt_flow import (
    AutonomyDecision,
    AutonomyQuestion,
    InterruptOutcome,
    InterruptState,
    ReviewInput,
    TranslationInput,
)
from agent_interrupts.models.interrupts import InterruptResolution, OptionKey, ResolvedBy
from agent_interrupts.models.resolution_rules import recommended_answer
from agent_interrupts.models.team_files import builtin_team_files, load_team_file
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.support.interrupts import (
    interrupt_status,
    question_input,
    shadow_answer,
    start,
    wait_for_interrupt,
)

PLANNER = "PLANNING_ORCHESTRATOR"
SCENARIO = OfflineScenario(interrupt_at=frozenset({AgentType.PLANNING_ORCHESTRATOR}))


def _policy(tmp_path: Path) -> AutonomySettings:
    path = tmp_path / "policy.json"
    kinds = [{"agentType": PLANNER, "questionKind": k} for k in ("choice", "confirmation")]
    path.write_text(json.dumps({"kinds": kinds}))
    return AutonomySettings(load_policy(path), min_answers=1, min_agreement=1.0)


async def test_the_controller_answers_a_kind_it_earned_in_a_persons_shadow(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    settings = _policy(tmp_path)
    first_id, second_id = f"wf-{uuid.uuid4()}", f"wf-{uuid.uuid4()}"
    async with build_worker(
        client, task_queue, LlmSettings(), scenario=SCENARIO, autonomy_settings=settings
    ):
        # nothing earned yet: a person answers, and the controller answers in their shadow
        first = await start(
            client, task_queue, first_id, shadow_answers=True, controller_autonomy=True
        )
        pending = (await wait_for_interrupt(first)).pending_interrupt
        assert pending is not None
        async with asyncio.timeout(30):  # once decided (an activity), it waits for a person
            while (asked := await interrupt_status(client, pending.workflow_id)).state is not (
                InterruptState.WAITING
            ):
                await asyncio.sleep(0.05)
        said = [e.message for e in asked.events]
        assert any(m.startswith(f"a person answers: {PLANNER} choice: 0/0 agreed") for m in said)
        await agents.resolve(pending.workflow_id, recommended_answer(asked.request))
        await first.result()
        await shadow_answer(client, pending.workflow_id)

        # earned (all of 1 shadowed answer agreed): the controller answers, nobody is asked
        second = await start(client, task_queue, second_id, controller_autonomy=True)
        await asyncio.wait_for(second.result(), 60)
        run = await read_run(client, second_id)
        (it,) = run.interrupts
        answered = await interrupt_status(client, it.interrupt_id)
    assert it.outcome is not None
    assert it.outcome.resolution.resolved_by is ResolvedBy.CONTROLLER_AUTONOMY
    assert answered.resolution is not None
    assert answered.resolution.resolved_by is ResolvedBy.CONTROLLER_AUTONOMY
    decided = [e.message for e in answered.events if e.message.startswith("the controller")]
    assert decided and decided[0].startswith(f"the controller answers: {PLANNER} choice ")
    tally = Tally()
    tally.add(run)
    lines = {line.name: line.value for line in tally.lines()}
    assert lines["answered by a model"] == "1 (CONTROLLER_AUTONOMY 1)"


TRANSLATING = asyncio.Event()
TRANSLATED: list[ResolvedBy | None] = []


@activity.defn(name="decide_autonomy")
async def earned(question: AutonomyQuestion) -> AutonomyDecision:
    return AutonomyDecision(delegate=True, reason="the controller answers: earned (a fake)")


@activity.defn(name="review_interrupt")
async def controller_picks_a(job: ReviewInput) -> InterruptResolution:
    return InterruptResolution(selected_choices={"cache": OptionKey.A})


@activity.defn(name="translate_resolution")
async def slow_first_translation(job: TranslationInput) -> InterruptOutcome:
    """The controller's answer takes long to translate (a person answers meanwhile)."""
    TRANSLATED.append(job.resolution.resolved_by)
    if len(TRANSLATED) == 1:
        TRANSLATING.set()
        for _ in range(600):
            activity.heartbeat()
            await asyncio.sleep(0.05)
    return InterruptOutcome(routing={}, route="resumeOrigin", resolution=job.resolution)


async def test_a_persons_answer_overrules_the_controllers_while_it_is_translated(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    job = question_input().model_copy(update={"autonomy": True})
    notifications = NotificationActivities(NotifySettings())
    async with Worker(
        client,
        task_queue=task_queue,
        workflows=[InterruptWorkflow],
        workflow_runner=WORKFLOW_RUNNER,
        activities=[
            earned,
            controller_picks_a,
            slow_first_translation,
            notifications.plan,
            notifications.notify,
        ],
    ):
        handle = await client.start_workflow(
            InterruptWorkflow.run, job, id=workflow_id, task_queue=task_queue
        )
        await asyncio.wait_for(TRANSLATING.wait(), 30)
        person = InterruptResolution(selected_choices={"cache": OptionKey.B})
        ack = await AgentWorkflowClient(client, task_queue).resolve(workflow_id, person)
        outcome = await handle.result()
    assert ack.message == "your answer overrules the controller's; REVIEW_AGENT resumes"
    assert outcome.resolution.resolved_by is ResolvedBy.HUMAN
    assert outcome.resolution.selected_choices == {"cache": OptionKey.B}
    assert TRANSLATED == [ResolvedBy.CONTROLLER_AUTONOMY, ResolvedBy.HUMAN]


async def test_a_declared_teams_agent_earns_autonomy_by_its_own_name(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    """The policy names incident-response's REMEDIATION, and the worker that serves the team
    takes it; the controller answers that agent's question once it earned it."""
    spec = load_team_file(builtin_team_files()["incident-response"])
    teams = {spec.name: spec}
    path = tmp_path / "policy.json"
    kinds = [{"agentType": "REMEDIATION", "questionKind": k} for k in ("choice", "confirmation")]
    path.write_text(json.dumps({"kinds": kinds}))
    settings = AutonomySettings.from_env(
        {
            "AGENT_AUTONOMY_POLICY": str(path),
            "AGENT_AUTONOMY_MIN_ANSWERS": "1",
            "AGENT_AUTONOMY_MIN_AGREEMENT": "1",
        },
        served_agents(teams),
    )
    scenario = OfflineScenario(interrupt_at=frozenset({"REMEDIATION"}))
    agents = AgentWorkflowClient(client, task_queue)
    first_id, second_id = f"wf-{uuid.uuid4()}", f"wf-{uuid.uuid4()}"
    async with build_worker(
        client,
        task_queue,
        LlmSettings(),
        scenario=scenario,
        autonomy_settings=settings,
        teams=teams,
    ):
        first = await start(
            client,
            task_queue,
            first_id,
            shadow_answers=True,
            controller_autonomy=True,
            team=spec.name,
        )
        pending = (await wait_for_interrupt(first)).pending_interrupt
        assert pending is not None
        async with asyncio.timeout(30):
            while (asked := await interrupt_status(client, pending.workflow_id)).state is not (
                InterruptState.WAITING
            ):
                await asyncio.sleep(0.05)
        assert any(e.message.startswith("a person answers: REMEDIATION ") for e in asked.events)
        await agents.resolve(pending.workflow_id, recommended_answer(asked.request))
        await first.result()
        await shadow_answer(client, pending.workflow_id)

        second = await start(
            client, task_queue, second_id, controller_autonomy=True, team=spec.name
        )
        await asyncio.wait_for(second.result(), 60)
        (it,) = (await read_run(client, second_id)).interrupts
    assert it.outcome is not None
    assert it.outcome.resolution.resolved_by is ResolvedBy.CONTROLLER_AUTONOMY
