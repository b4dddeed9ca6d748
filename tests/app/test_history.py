"""Entries bigger than a query's answer may be (the server refuses answers over 2 MB): a long goal
fanned out to four agents makes the entries hundreds of kB each. Following the run and reading its
blackboard page them to fit: every entry is read, and no traceback."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from temporalio.client import Client, WorkflowHandle, WorkflowQueryFailedError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.follow import follow
from agent_interrupts.app.history import PAGE, PAST_THE_END, entries_since, read_blackboard, too_big
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.limits import MAX_GOAL_CHARS
from agent_interrupts.models.state import (
    EntryKind,
    HistoryEntry,
    HistoryPageRequest,
    OrchestratorInput,
)
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow


async def _over_the_limit(handle: WorkflowHandle, query: Any, *args: Any) -> bool:
    try:
        await handle.query(query, *args)
    except WorkflowQueryFailedError as err:
        return too_big(err)
    return False


def _steps(entries: list[HistoryEntry]) -> list[str]:
    """The lines ``Progress`` shows: a finished agent step is an OUTPUT entry."""
    return [f"{e.node_id} {e.agent_type}" for e in entries if e.kind is EntryKind.OUTPUT]


async def test_a_long_goal_is_followed_and_read_whole(
    client: Client,
    task_queue: str,
    workflow_id: str,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    agents = AgentWorkflowClient(client, task_queue)
    scenario = OfflineScenario.parse("fanout=4")
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal="y" * MAX_GOAL_CHARS),
            id=workflow_id,
            task_queue=task_queue,
        )
        final = await follow(agents, workflow_id, interactive=False, ui_url=None)  # agents run
        running = capsys.readouterr().out
        followed_again = await follow(agents, workflow_id, interactive=False, ui_url=None)
        again = capsys.readouterr().out
        whole_page = HistoryPageRequest(start=0, limit=PAGE)
        assert await _over_the_limit(handle, OrchestratorWorkflow.history_page, whole_page), (
            "the entries no longer fill a page over the limit: lengthen them (fan-out)"
        )
        bounds = await handle.query(
            OrchestratorWorkflow.history_page, HistoryPageRequest(start=PAST_THE_END, limit=1)
        )
        with caplog.at_level(logging.WARNING, logger="agent_interrupts.app.history"):
            chain = await read_blackboard(client, workflow_id)
            paged = await entries_since(client, workflow_id, None, 0)
            status = await agents.status(workflow_id)
            from_status = await entries_since(client, workflow_id, status, 0)
    assert bounds.first_held > 0, "the run continued as new: its first entries are in another"
    assert final == followed_again
    assert [e.index for e in chain] == list(range(bounds.total)), "every entry of the chain"
    left_out = [r for r in caplog.records if r.name == "agent_interrupts.app.history"]
    assert not left_out, "no entry left out"
    # a follower whose last look was before the run continued as new reads the runs before it
    assert [e.index for e in paged.entries] == list(range(bounds.total))
    assert [e.index for e in from_status.entries] == list(range(bounds.total))
    for step in _steps(chain):
        assert step in running, f"{step} is not shown:\n{running[-3000:]}"
    for step in _steps([e for e in chain if e.index >= bounds.first_held]):
        assert step in again, f"{step} is not shown:\n{again[-3000:]}"  # the latest run's steps
    assert "Traceback" not in running + again
