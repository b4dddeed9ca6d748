"""Every question lets a person stop the run, with their reason in its failure, or send it on
to another agent the graph allows, through the same validated answer (resume §6:
cancellation and digression)."""

from __future__ import annotations

import asyncio

import pytest
from temporalio.client import Client, WorkflowFailureError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.history import read_blackboard
from agent_interrupts.app.sdk import AgentWorkflowClient, ResolutionRejected
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import failure_message, failure_type
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.state import EntryKind
from agent_interrupts.teams.software.agents import AgentType
from tests.support.cli import client_py
from tests.support.interrupts import answer_all, interrupt_status, start, wait_for_interrupt

SCENARIO = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))


async def test_a_person_stops_the_run_from_the_cli_with_a_reason(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with build_worker(client, task_queue, LlmSettings(), scenario=SCENARIO):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        blank = await client_py(client, "resolve", pending.workflow_id, "--stop", " ")
        assert blank.returncode == 2 and "--stop needs the reason" in blank.stderr, blank
        both = await client_py(client, "resolve", pending.workflow_id, "--stop", "x", "--text", "y")
        assert both.returncode == 2 and "--stop is the whole answer" in both.stderr, both
        with pytest.raises(ResolutionRejected, match="stopRun needs the reason"):
            await AgentWorkflowClient(client).resolve(
                pending.workflow_id, InterruptResolution(stop_run="   ")
            )
        stopped = await client_py(
            client, "resolve", pending.workflow_id, "--stop", "the goal was wrong"
        )
        assert stopped.returncode == 0 and "the run stops" in stopped.stdout, stopped
        with pytest.raises(WorkflowFailureError) as info:
            await asyncio.wait_for(handle.result(), 60)
        child = await interrupt_status(client, pending.workflow_id)
    assert failure_type(info.value) == "StoppedByPerson"
    assert "stopped the run at REVIEW_AGENT" in failure_message(info.value)
    assert "the goal was wrong" in failure_message(info.value)
    assert child.resolution is not None and child.resolution.stop_run == "the goal was wrong"


async def test_a_person_sends_the_run_on_to_another_agent_the_graph_allows(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    agents = AgentWorkflowClient(client)
    async with build_worker(client, task_queue, LlmSettings(), scenario=SCENARIO):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        question = (await interrupt_status(client, pending.workflow_id)).request
        wrong = await client_py(
            client,
            "resolve",
            pending.workflow_id,
            "--choice",
            "approach=A",
            "--confirm",
            "add-tests=yes",
            "--continue-at",
            "DISCOVERY_AGENT",
        )
        assert wrong.returncode == 2, wrong
        assert "--continue-at DISCOVERY_AGENT is not a route of REVIEW_AGENT" in wrong.stderr
        assert "MERGER_AGENT" in wrong.stderr, "the offered targets are named"
        with pytest.raises(ResolutionRejected, match="continueAt DISCOVERY_AGENT is not a route"):
            await agents.resolve(
                pending.workflow_id,
                answer_all(question).model_copy(update={"continue_at": AgentType.DISCOVERY_AGENT}),
            )
        ack = await agents.resolve(
            pending.workflow_id,
            answer_all(question).model_copy(update={"continue_at": AgentType.MERGER_AGENT}),
        )
        assert "the run continues at MERGER_AGENT (re-routed from REVIEW_AGENT)" in ack.message
        await asyncio.wait_for(handle.result(), 60)
        entries = await read_blackboard(client, workflow_id)
    answered = next(i for i, e in enumerate(entries) if e.kind is EntryKind.RESOLUTION)
    following = [e for e in entries[answered + 1 :] if e.kind is EntryKind.REQUEST]
    assert following[0].agent_type is AgentType.MERGER_AGENT, "not back to the reviewer"
    assert entries[answered].payload is not None
    assert entries[answered].payload["mergerRequest"] is not None, "translated to that route"
