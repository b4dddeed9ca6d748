"""A fork's episodic memory through a real dev server and worker: its agents
recall the workspace's memories as they were at its point, and what its own run retains after
it starts; what the parent retained after the point stays out of the fork's recalls."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from datetime import UTC
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.tools.settings import ToolSettings
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.ids import parse_context_id
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.models.tools import WorkspaceSpec
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.app.test_forks import ASKER, answered_run
from tests.support.interrupts import answer_offered
from tests.support.workspace import make_repo

GOAL = "add rate limiting to the gateway"
POINT_AGENT = AgentType.PLANNING_ORCHESTRATOR
"""The fork runs this step again: the planning agents after it recall, then retain, and the
review agent after them recalls what they retained."""
_MEMORY_ID = re.compile(r"^#(?P<id>\d+) ", re.MULTILINE)


def recalled_ids(received: list[dict[str, Any]]) -> set[int]:
    """The memory ids every ``memory_recall`` result in these model requests listed."""
    ids: set[int] = set()
    for request in received:
        messages = request.get("messages") or []
        recalls = {
            call["id"]
            for m in messages
            for call in m.get("tool_calls") or []
            if call["function"]["name"] == "memory_recall"
        }
        for m in messages:
            if m.get("role") == "tool" and m.get("tool_call_id") in recalls:
                ids |= {int(hit["id"]) for hit in _MEMORY_ID.finditer(str(m["content"]))}
    return ids


def memories(db_file: Path) -> list[tuple[int, float, list[str]]]:
    """Every memory stored: its id, when it was retained and its context ids."""
    with sqlite3.connect(db_file) as db:
        rows = db.execute("SELECT id, created, context_ids FROM memories").fetchall()
    return [(int(i), float(created), json.loads(ids)) for i, created, ids in rows]


def of_run(context_ids: list[str], run: str) -> bool:
    return any(c.startswith(f"wf-{run}/") for c in context_ids)


async def test_a_forks_agents_recall_the_memories_as_of_its_point_and_their_own(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    offline = OfflineModel(
        OfflineScenario(fan_out=1, delays={AgentType.PLANNING_COLLECTOR: 1.2})
    )  # the delay: the review step is scheduled a second after the planning agent retained
    tools = ToolSettings(state_dir=tmp_path / "state")
    agents = AgentWorkflowClient(client, task_queue)
    start = OrchestratorInput(goal=GOAL, workspace=WorkspaceSpec(source=str(make_repo(tmp_path))))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline, tools=tools):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run, start, id=workflow_id, task_queue=task_queue
        )
        await asyncio.wait_for(handle.result(), 120)
        board = await agents.blackboard(workflow_id)
        step = next(e for e in board if e.kind == "REQUEST" and e.agent_type == POINT_AGENT).node_id
        before = len(offline.received)
        fork = await agents.fork(workflow_id, at=step, forked_by="mia")
        forked = client.get_workflow_handle_for(OrchestratorWorkflow.run, fork.workflow_id)
        await asyncio.wait_for(forked.result(), 120)
        fork_run = (await forked.describe()).run_id
    parent_run = parse_context_id(board[0].context_id)[0]
    point = fork.link.point.at
    assert point is not None, "the link keeps when the parent was at the point"

    stored = memories(tools.state_dir / "memory.sqlite3")
    parents_before = {
        i for i, at, ids in stored if of_run(ids, parent_run) and at < point.timestamp()
    }
    parents_after = {
        i for i, at, ids in stored if of_run(ids, parent_run) and at > point.timestamp()
    }
    own = {i for i, _, ids in stored if of_run(ids, fork_run)}
    assert parents_before and parents_after and own, (parents_before, parents_after, own)

    seen = recalled_ids(offline.received[before:])
    assert not seen & parents_after, "what the parent retained after the point is not recalled"
    assert seen & parents_before, "what the parent retained before the point is"
    assert seen & own, "what the fork's own steps retained is recalled by its later steps"
    assert seen <= parents_before | own


async def agent_calls(client: Client, workflow_id: str) -> list[AgentCall]:
    """The agent calls a run scheduled, as its history recorded them."""
    handle = client.get_workflow_handle(workflow_id)
    calls = []
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = event.activity_task_scheduled_event_attributes
            if attrs.activity_type.name == "run_agent":
                (call,) = await client.data_converter.decode(attrs.input.payloads, [AgentCall])
                calls.append(call)
    return calls


async def test_a_question_forks_point_is_when_its_question_started_and_its_calls_carry_it(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({ASKER})))
    agents = AgentWorkflowClient(client, task_queue)
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        question_id, _ = await answered_run(client, agents, task_queue, workflow_id)
        asked = await agents.interrupt_status(question_id)
        answer: InterruptResolution = answer_offered(asked.request)
        fork = await agents.fork(workflow_id, at=question_id, resolution=answer)
        forked = client.get_workflow_handle_for(OrchestratorWorkflow.run, fork.workflow_id)
        await asyncio.wait_for(forked.result(), 60)
        status = await forked.query(OrchestratorWorkflow.status)
    started = [
        e.event_time.ToDatetime(tzinfo=UTC)
        async for e in client.get_workflow_handle(workflow_id).fetch_history_events()
        if e.event_type == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED
        and e.child_workflow_execution_started_event_attributes.workflow_execution.workflow_id
        == question_id
    ]
    assert fork.link.point.at == started[0], "the point: when the question's workflow started"
    assert status.fork is not None and status.fork.point.at == fork.link.point.at
    assert "at" in fork.link.to_wire()["point"]
    forks_calls = await agent_calls(client, fork.workflow_id)
    assert forks_calls and all(c.memories_as_of == started[0] for c in forks_calls)
    parents_calls = await agent_calls(client, workflow_id)
    assert all(c.memories_as_of is None for c in parents_calls), "a run that is no fork"
    assert all("memoriesAsOf" not in c.to_wire() for c in parents_calls)
