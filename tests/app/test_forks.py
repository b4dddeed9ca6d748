"""Forks through a real dev server and worker (``docs/forks.md``): a run forked at a past
question with another answer starts from the parent's state there, runs no step before it
again (not one model call) and goes on where its answer leads; the parent is untouched."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.data_converter import data_converter
from agent_interrupts.app.encryption_keys import KeyRing
from agent_interrupts.app.forks import state_in_history
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import ForkRefused
from agent_interrupts.models.forks import ForkPointKind
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.team_files import configured_teams
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.cli import client_py
from tests.support.interrupts import answer_offered, start, wait_for_interrupt, wait_running

ASKER = AgentType.PLANNING_COLLECTOR
OTHER_ROUTE = AgentType.ORCHESTRATOR_COLLECTOR
"""One of the planning collector's routes, other than the one its question goes back to."""


def schemas(received: list[dict[str, Any]]) -> list[str]:
    """The output models the model was asked for, in order (one per call)."""
    return [r["response_format"]["json_schema"]["name"] for r in received]


async def answered_run(
    client: Client, agents: AgentWorkflowClient, task_queue: str, workflow_id: str
) -> tuple[str, Any]:
    """A run whose planning collector asks once, answered with what it offers: its question's
    id and the run's result."""
    handle = await start(client, task_queue, workflow_id)
    pending = (await wait_for_interrupt(handle)).pending_interrupt
    assert pending is not None and pending.origin_agent_type == ASKER
    question = await agents.interrupt_status(pending.workflow_id)
    await agents.resolve(pending.workflow_id, answer_offered(question.request))
    return pending.workflow_id, await asyncio.wait_for(handle.result(), 60)


async def test_a_fork_at_a_question_takes_the_other_route_from_the_parents_state(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({ASKER})))
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        question_id, parent_result = await answered_run(client, agents, task_queue, workflow_id)
        parent = client.get_workflow_handle_for(OrchestratorWorkflow.run, workflow_id)
        parent_events = [e async for e in parent.fetch_history_events()]
        parent_status = await parent.query(OrchestratorWorkflow.status)
        calls_before = len(offline.received)

        asked = await agents.interrupt_status(question_id)
        fork = await agents.fork(
            workflow_id,
            at=question_id,
            resolution=answer_offered(asked.request).model_copy(
                update={"continue_at": OTHER_ROUTE}
            ),
            forked_by="alice",
        )
        handle = client.get_workflow_handle_for(OrchestratorWorkflow.run, fork.workflow_id)
        await asyncio.wait_for(handle.result(), 60)
        status = await handle.query(OrchestratorWorkflow.status)
        forked = await agents.blackboard(fork.workflow_id)
        theirs = await agents.blackboard(workflow_id)

        after = [e async for e in parent.fetch_history_events()]
        assert len(after) == len(parent_events), "the parent is untouched"
        assert (await parent.query(OrchestratorWorkflow.status)) == parent_status

    forked_calls = schemas(offline.received[calls_before:])
    assert forked_calls[0] == "InterruptRouting", "the fork's first model call is its answer's"
    assert forked_calls[1:] == ["OrchestratorCollectorRouting"], forked_calls
    assert not any(n.startswith(("Discovery", "Planning")) for n in forked_calls), (
        "no step before the point runs again"
    )
    link = fork.link
    assert link.parent.workflow_id == workflow_id
    assert link.point.kind is ForkPointKind.QUESTION and link.point.question_id == question_id
    assert link.forked_by == "alice" and 0 < link.carried_bytes <= 64 * 1024
    assert status.fork == link
    again = [e.message for e in status.events if e.message.startswith("REQUESTED AGAIN: ")]
    assert again and again[0].endswith(f"(the fork's point: {workflow_id} asked it)"), again
    point = max(e.index for e in forked if e.kind == "INTERRUPT" and e.index < len(theirs))
    carried = [e for e in forked if e.index <= point]
    assert len(carried) > 3
    assert [(e.context_id, e.kind, e.summary) for e in carried] == [
        (theirs[e.index].context_id, theirs[e.index].kind, theirs[e.index].summary) for e in carried
    ], "the fork's blackboard up to the point is the parent's"
    assert any(e.index > point for e in forked), "the fork goes on from the point"
    assert parent_result.summary
    listed = await agents.forks(workflow_id)
    assert [f.workflow_id for f in listed] == [fork.workflow_id]
    assert listed[0].link == link


async def test_bad_points_and_answers_are_refused_in_one_line(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({ASKER})))
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        question_id, _ = await answered_run(client, agents, task_queue, workflow_id)
        refusals = []
        for run, at, answer in [
            (workflow_id, f"{workflow_id}-interrupt-9", InterruptResolution(free_text="go")),
            ("no-such-run", "no-such-run-interrupt-1", InterruptResolution(free_text="go")),
            (workflow_id, question_id, InterruptResolution(selected_choices={"nope": "A"})),
        ]:
            with pytest.raises(ForkRefused) as refused:
                await agents.fork(run, at=at, resolution=answer)
            refusals.append(str(refused.value))
    never, gone, not_offered = refusals
    assert f"never asked {workflow_id}-interrupt-9" in never
    assert "history of no-such-run is gone" in gone
    assert not_offered.startswith("resolution rejected:") and "nope" in not_offered
    assert all("\n" not in r for r in refusals)
    assert await agents.forks(workflow_id) == []


SHAPES = {
    "a question": (OfflineScenario(interrupt_at=frozenset({ASKER})), {}),
    "a fan-out's agent": (OfflineScenario(interrupt_agents=frozenset({"planning-agent-2"})), {}),
    "a declared team": (
        OfflineScenario(interrupt_at=frozenset({"FINDINGS_COLLECTOR"})),
        {"team": "incident-response"},
    ),
    "continued as new before it": (
        OfflineScenario(interrupt_at=frozenset({ASKER})),
        {"continue_as_new_every": 2},
    ),
}


@pytest.mark.parametrize("shape", SHAPES)
async def test_a_fork_answered_as_the_parent_was_makes_exactly_the_parents_later_calls(
    client: Client, task_queue: str, workflow_id: str, shape: str
) -> None:
    """Answered the same way, a fork makes the model calls the parent made after the point, and
    none of those before it; a fork of that fork does the same again, linked to it."""
    scenario, start_input = SHAPES[shape]
    offline = OfflineModel(scenario)
    agents = AgentWorkflowClient(client, task_queue)
    teams = configured_teams({})
    async with build_worker(client, task_queue, LlmSettings(), offline=offline, teams=teams):
        handle = await start(client, task_queue, workflow_id, **start_input)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        at_point = len(offline.received)
        question = await agents.interrupt_status(pending.workflow_id)
        answer = answer_offered(question.request)
        await agents.resolve(pending.workflow_id, answer)
        parent_result = await asyncio.wait_for(handle.result(), 60)
        parent_tail = schemas(offline.received[at_point:])

        forks: list[tuple[str, str]] = [(workflow_id, pending.workflow_id)]
        for _ in range(2):  # the fork, then a fork of the fork
            parent_id, at = forks[-1]
            before = len(offline.received)
            fork = await agents.fork(parent_id, at=at, resolution=answer)
            forked = client.get_workflow_handle_for(OrchestratorWorkflow.run, fork.workflow_id)
            result = await asyncio.wait_for(forked.result(), 60)
            assert schemas(offline.received[before:]) == parent_tail, shape
            assert type(result) is type(parent_result)
            assert fork.link.parent.workflow_id == parent_id
            assert fork.link.carried_bytes <= 64 * 1024, fork.link.carried_bytes
            listed = [f.workflow_id for f in await agents.forks(parent_id)]
            assert listed == [fork.workflow_id], (listed, fork.workflow_id)
            forks.append((fork.workflow_id, fork.question_id))


TYPED = "go on — «quoted» 'a' \"b\" <b>markup</b> ✓ 🚀 & $HOME"
"""What a person types as the fork's text: it reaches the fork's question byte for byte."""


async def test_agents_fork_takes_resolves_flags_and_refuses_as_resolve_does(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({ASKER})))
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        question_id, _ = await answered_run(client, agents, task_queue, workflow_id)
        wrong = await client_py(
            client, "fork", workflow_id, "--at", question_id, "--choice", "nope=A"
        )
        assert wrong.returncode == 2, wrong.stderr
        assert "--choice nope=A: the question has no choice 'nope'" in wrong.stderr
        unknown = await client_py(
            client, "fork", workflow_id, "--at", f"{workflow_id}-interrupt-7", "--text", "go"
        )
        assert unknown.returncode == 1
        assert f"{workflow_id}-interrupt-7 is not a question of {workflow_id}" in unknown.stderr
        forked = await client_py(
            client,
            "fork",
            workflow_id,
            "--at",
            question_id,
            "--text",
            TYPED,
            "--continue-at",
            OTHER_ROUTE,
            "--as",
            "bob",
            "--json",
        )
        assert forked.returncode == 0, forked.stderr
        fork_id = json.loads(forked.stdout)["workflowId"]
        handle = client.get_workflow_handle_for(OrchestratorWorkflow.run, fork_id)
        await asyncio.wait_for(handle.result(), 60)
        taken = await agents.interrupt_status(json.loads(forked.stdout)["questionId"])
        assert taken.resolution is not None and taken.resolution.free_text == TYPED, "as typed"
        listed = await client_py(client, "forks", workflow_id)
        board = await agents.blackboard(workflow_id)
        step = next(e.node_id for e in board if e.kind == "REQUEST" and e.agent_type == ASKER)
        mixed = await client_py(client, "fork", workflow_id, "--at", step, "--text", "go")
        assert mixed.returncode == 2 and "is an agent step: give --guidance" in mixed.stderr
        at_step = await client_py(
            client, "fork", workflow_id, "--at", step, "--guidance", "look again"
        )
        assert at_step.returncode == 0, at_step.stderr
        assert f"forked {workflow_id} at {step}" in at_step.stdout
    assert listed.returncode == 0, listed.stderr
    assert fork_id in listed.stdout and "by bob" in listed.stdout
    assert f"--continue-at {OTHER_ROUTE}" in listed.stdout


async def test_a_history_this_version_cannot_replay_is_refused_in_one_line(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """A history whose agent steps this code would not have taken (here: its first agent
    activity renamed, as a version with other steps would have written it)."""
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({ASKER})))
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        question_id, _ = await answered_run(client, agents, task_queue, workflow_id)
    handle = client.get_workflow_handle(workflow_id)
    events = [e async for e in handle.fetch_history_events()]
    scheduled = next(
        e for e in events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    )
    scheduled.activity_task_scheduled_event_attributes.activity_type.name = "an_older_step"
    run_id = events[0].workflow_execution_started_event_attributes.original_execution_run_id
    with pytest.raises(ForkRefused) as refused:
        await state_in_history(client, workflow_id, run_id, events, question_id)
    message = str(refused.value)
    assert "cannot be replayed by this version" in message and "\n" not in message
    assert message.endswith("fork it with the version that wrote it")


async def test_a_fork_at_an_agent_step_runs_it_again_with_guidance_or_a_model_and_nothing_before(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario())
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        await asyncio.wait_for(handle.result(), 60)
        board = await agents.blackboard(workflow_id)
        steps = [e for e in board if e.kind == "REQUEST" and "/" not in e.node_id]
        step = next(e for e in steps if e.agent_type == AgentType.PLANNING_ORCHESTRATOR)
        schema_names = schemas(offline.received)
        from_step = schema_names.index("PlanningOrchestratorRouting")
        before = len(offline.received)
        fork = await agents.fork(
            workflow_id, at=step.node_id, guidance="Prefer the smallest change.", forked_by="eve"
        )
        forked = client.get_workflow_handle_for(OrchestratorWorkflow.run, fork.workflow_id)
        await asyncio.wait_for(forked.result(), 60)
        with pytest.raises(ForkRefused, match="never ran a step"):
            await agents.fork(workflow_id, at="planning-orchestrator-999")
        before_model = len(offline.received)
        other = await agents.fork(workflow_id, at=step.node_id, model="another-model")
        await asyncio.wait_for(client.get_workflow_handle(other.workflow_id).result(), 60)
        on_other = offline.received[before_model:]
        with pytest.raises(ForkRefused, match="the step's changes"):
            await agents.fork(workflow_id, at=step.node_id, model="m" * 201)
    assert on_other[0]["model"] == "another-model", "the step runs on the other model"
    assert all(c["model"] != "another-model" for c in on_other[1:]), "only the step"
    calls = offline.received[before:before_model]
    assert schemas(calls) == schema_names[from_step:], "the step and the parent's later steps"
    assert "Prefer the smallest change." in str(calls[0]["messages"])
    assert fork.question_id is None and fork.link.point.kind is ForkPointKind.STEP
    assert fork.link.point.step == step.node_id and fork.link.changes is not None
    assert fork.link.changes.guidance == "Prefer the smallest change."
    assert fork.link.point.agent_type == AgentType.PLANNING_ORCHESTRATOR


async def test_a_fork_at_a_supervisors_events_question_reroutes_as_the_event_asked(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The question a supervisor's event ended in: the fork is re-routed where the event said,
    as the parent was, and makes the parent's later calls only."""
    scenario = OfflineScenario(delays={AgentType.PLANNING_ORCHESTRATOR: 1.0})
    offline = OfflineModel(scenario)
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        await wait_running(handle, AgentType.PLANNING_ORCHESTRATOR)
        await agents.send_interrupt_event(
            workflow_id,
            InterruptRequestEvent(
                event_id="fork-event-1",
                source_agent_type=AgentType.PLANNING_ORCHESTRATOR,
                reroute_to_agent_type=AgentType.DISCOVERY_ORCHESTRATOR,
                reason="Look at the discovery scope again",
            ),
        )
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        at_point = len(offline.received)
        question = await agents.interrupt_status(pending.workflow_id)
        assert question.reroute_to == AgentType.DISCOVERY_ORCHESTRATOR
        answer = answer_offered(question.request)
        await agents.resolve(pending.workflow_id, answer)
        await asyncio.wait_for(handle.result(), 60)
        parent_tail = schemas(offline.received[at_point:])
        before = len(offline.received)
        fork = await agents.fork(workflow_id, at=pending.workflow_id, resolution=answer)
        forked = client.get_workflow_handle_for(OrchestratorWorkflow.run, fork.workflow_id)
        await asyncio.wait_for(forked.result(), 60)
        asked_again = await agents.interrupt_status(fork.question_id or "")
    assert asked_again.reroute_to == AgentType.DISCOVERY_ORCHESTRATOR
    assert schemas(offline.received[before:]) == parent_tail
    assert parent_tail[1] == "DiscoveryOrchestratorRouting", parent_tail


async def test_a_fork_of_an_encrypted_run_is_encrypted_too(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The parent's sealed history replays up to the point and the fork's payloads are sealed."""
    config = client.config()
    config["data_converter"] = data_converter(KeyRing((("k1", os.urandom(32)),)))
    sealed = Client(**config)
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({ASKER})))
    agents = AgentWorkflowClient(sealed, task_queue)
    async with build_worker(sealed, task_queue, LlmSettings(), offline=offline):
        question_id, _ = await answered_run(sealed, agents, task_queue, workflow_id)
        asked = await agents.interrupt_status(question_id)
        other = answer_offered(asked.request).model_copy(update={"continue_at": OTHER_ROUTE})
        fork = await agents.fork(workflow_id, at=question_id, resolution=other, forked_by="zoë")
        forked = sealed.get_workflow_handle_for(OrchestratorWorkflow.run, fork.workflow_id)
        await asyncio.wait_for(forked.result(), 60)
    raw = [e async for e in client.get_workflow_handle(fork.workflow_id).fetch_history_events()]
    text = b"".join(e.SerializeToString() for e in raw)
    assert b"zo\xc3\xab" not in text and workflow_id.encode() in text, "ids stay readable"
    assert b"binary/encrypted" in text, "the fork's payloads are sealed"
