"""Forks through a real dev server and worker (``docs/forks.md``): a run forked at a past
question with another answer starts from the parent's state there, runs no step before it
again (not one model call) and goes on where its answer leads; the parent is untouched."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import ForkRefused
from agent_interrupts.models.forks import ForkPointKind
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import answer_offered, start, wait_for_interrupt

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
