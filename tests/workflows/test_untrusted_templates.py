"""A declared team's template that loops for ever or raises, through a real dev server and worker:
the agent's step fails once (never retried), the run ends in one line naming the team and the
agent's template, soon; the worker's threads and memory do not grow, and another run on the same
worker finishes meanwhile."""

from __future__ import annotations

import asyncio
import resource
import threading
import time
import uuid

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowFailureError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel
from agent_interrupts.activities.prompting import PROMPTS_DIR
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.team_build import TeamFinalResult
from agent_interrupts.models.team_spec import TeamSpec
from tests.support.interrupts import start

BASE = '{% extends "workflow/_agent_base.jinja" %}{% block role %}Decide.{% endblock %}'
RAISES = '{% extends "workflow/_agent_base.jinja" %}{% block role %}{{ 1 // 0 }}{% endblock %}'
NESTED_LOOPS = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"


def _threads() -> list[str]:
    """This process's threads but the event loop's idle executor threads (``asyncio_N``: the
    SDK's, kept by the loop for its next job)."""
    return sorted(t.name for t in threading.enumerate() if not t.name.startswith("asyncio_"))


def _team(name: str, template: str) -> TeamSpec:
    return TeamSpec.model_validate(
        {
            "name": name,
            "agents": [
                {
                    "name": "DECIDE",
                    "role": "orchestrator",
                    "routes": {"END": "Decided."},
                    "template": template,
                }
            ],
        }
    )


@pytest.mark.parametrize(
    ("template", "why"),
    [
        (NESTED_LOOPS, "it took longer than 2 s"),
        (RAISES, "ZeroDivisionError: integer division or modulo by zero (line 1)"),
    ],
    ids=["nested-loops", "raises"],
)
async def test_a_template_that_loops_or_raises_ends_the_run_once_in_one_line(
    client: Client, task_queue: str, workflow_id: str, template: str, why: str
) -> None:
    bad, good = _team("bad-template", template), _team("good-template", BASE)
    teams = {bad.name: bad, good.name: good}
    threads = _threads()
    async with build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(), teams=teams):
        memory = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.monotonic()
        handle = await start(client, task_queue, workflow_id, team=bad.name)
        other = await start(client, task_queue, f"other-{uuid.uuid4()}", team=good.name)
        other_result = await asyncio.wait_for(other.result(), 60)  # not starved meanwhile
        with pytest.raises(WorkflowFailureError) as failed:
            await asyncio.wait_for(handle.result(), 60)
        took = time.monotonic() - started
        grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - memory
        attempts = [
            e.activity_task_started_event_attributes.attempt
            async for e in handle.fetch_history_events()
            if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
        ]
    assert isinstance(other_result, TeamFinalResult) and other_result.team == good.name
    message = str(failed.value.cause)
    assert "\n" not in message, message
    assert (
        message.startswith("AgentFailed: DECIDE at decide-001 failed: ")
        and (
            f"team bad-template's template for agent DECIDE failed to render: {why}; fix that "
            "template in the team's directory"
        )
        in message
    ), message
    assert str(PROMPTS_DIR) not in message and "Templates live in" not in message
    assert attempts[-1:] == [1], f"the failing step ran once, never retried: {attempts}"
    assert took < 30, f"the run ended {took:.1f} s after it started"
    assert grew < 100 * 1024, f"the worker's peak memory grew by {grew // 1024} MiB"
    async with asyncio.timeout(5):  # asyncio's child watcher ends just after its process
        while _threads() != threads:
            await asyncio.sleep(0.05)
