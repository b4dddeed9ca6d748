"""``client.py interrupt``: the supervisor's command, against a real server (handler US3).

REVIEW_AGENT's first call is held open until the commands have run: the test
never relies on a call taking long enough.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.graph import NODES
from agent_interrupts.teams.software.agents import AgentType
from tests.support.cli import client_py
from tests.support.interrupts import (
    full_status,
    interrupt_status,
    start,
    wait_for_interrupt,
    wait_running,
)


class HeldOfflineModel(OfflineModel):
    """The offline model, except that calls of ``agent`` wait until ``release`` is set.

    A held call is cancelled by the supervisor's event like any slow LLM call.
    """

    def __init__(self, agent: AgentType) -> None:
        super().__init__(OfflineScenario())
        self.agent = agent
        self.release = asyncio.Event()

    async def handle_async_request(self, request: Any) -> Any:
        schema_name = json.loads(request.content)["response_format"]["json_schema"]["name"]
        if schema_name == NODES[self.agent].output_model.__name__:
            await self.release.wait()
        return await super().handle_async_request(request)


async def test_interrupt_command_reroutes_and_rejects_with_reasons(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    offline = HeldOfflineModel(AgentType.REVIEW_AGENT)
    choices = tmp_path / "choices.json"
    choices.write_text(
        json.dumps(
            [
                {"label": "Rework tickets", "value": "TICKET_ORCHESTRATOR", "description": "fix"},
                {"label": "Merge anyway", "value": "MERGER_AGENT", "description": "ship"},
            ]
        )
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        await wait_running(handle, AgentType.REVIEW_AGENT)

        not_running, bad_name, sent = await asyncio.gather(
            client_py(
                client, "interrupt", workflow_id, "--source", "MERGER_AGENT", "--reason", "stop"
            ),
            client_py(client, "interrupt", workflow_id, "--source", "NOPE", "--reason", "stop"),
            client_py(
                client,
                "interrupt",
                workflow_id,
                "--source",
                "REVIEW_AGENT",
                "--reroute",
                "TICKET_ORCHESTRATOR",
                "--reason",
                "security review found an open endpoint",
                "--choices-file",
                str(choices),
            ),
        )
        assert not_running.returncode == 1
        assert "MERGER_AGENT is not running (running now: REVIEW_AGENT" in not_running.stderr
        assert bad_name.returncode == 1
        assert "sourceAgentType NOPE is not an agent of team software" in bad_name.stderr
        assert sent.returncode == 0, sent.stderr
        assert "REVIEW_AGENT at review-agent-" in sent.stdout
        offline.release.set()

        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert (
            pending is not None and pending.reroute_to_agent_type is AgentType.TICKET_ORCHESTRATOR
        )
        question = await interrupt_status(client, pending.workflow_id)
        own, supervisor = question.request.choices  # the event's choices join the agent's
        assert supervisor.choice_id == "supervisor"
        assert supervisor.options[1].description == "Merge anyway: ship"
        answered = await client_py(
            client,
            "resolve",
            pending.workflow_id,
            "--choice",
            f"{own.choice_id}=A",
            "--choice",
            "supervisor=B",
            "--confirm",
            "add-tests=yes",
        )
        assert answered.returncode == 0, answered.stderr
        await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
    resolution = next(e for e in status.history if e.kind == "RESOLUTION")
    assert resolution.route == "mergerRequest", "option B named MERGER_AGENT"


async def test_interrupt_signal_over_the_payload_limit_is_refused_before_sending(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    """``--signal`` checks the event's size as the update does: one line naming the size and
    the limit, exit 1, nothing sent (the run's history has no signal)."""
    items = tmp_path / "items.json"
    statement = "é" * 4_000
    items.write_text(
        json.dumps(
            {
                "confirmationItems": [
                    {
                        "confirmationId": f"x{i}",
                        "statement": statement,
                        "context": "",
                        "defaultValue": True,
                        "impactIfNo": "",
                    }
                    for i in range(50)
                ]
            }
        )
    )
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handle = await start(client, task_queue, workflow_id)
        await wait_for_interrupt(handle)  # the run waits: a signal would reach it
        refused = await client_py(
            client,
            "interrupt",
            workflow_id,
            "--source",
            "REVIEW_AGENT",
            "--reason",
            "too much",
            "--choices-file",
            str(items),
            "--signal",
        )
        assert refused.returncode == 1, refused.stderr
        line = refused.stderr.strip()
        assert "\n" not in line
        assert "bytes as JSON, over the workflow's 262144 byte limit" in line
        assert "not sent" in line
        history = await handle.fetch_history()
        assert not [
            e for e in history.events if e.workflow_execution_signaled_event_attributes.signal_name
        ]
