"""``client.py resolve`` against a real server: show, reject a wrong answer, accept a right one."""

from __future__ import annotations

import asyncio

import pytest
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.sdk import AgentWorkflowClient, ResolutionRejected
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.teams.software.agents import AgentType
from tests.support.cli import client_py
from tests.support.interrupts import start, wait_for_interrupt


async def test_resolve_shows_rejects_and_accepts(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.MERGER_AGENT})))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        interrupt_id = pending.workflow_id

        shown = await client_py(client, "resolve", interrupt_id)
        assert shown.returncode == 0, shown.stderr
        assert "MERGER_AGENT needs a decision" in shown.stdout
        assert "A: Minimal change in the existing modules (recommended)" in shown.stdout
        assert "**" not in shown.stdout, "markdown is rendered for the terminal"

        wrong = await client_py(client, "resolve", interrupt_id, "--choice", "nope=A")
        assert wrong.returncode == 2  # checked against the question, named as flags
        assert "--choice nope=A: the question has no choice 'nope'" in wrong.stderr
        assert "add --choice approach=A|B|CUSTOM --confirm add-tests=yes|no" in wrong.stderr

        status = await client_py(client, "status", workflow_id)
        assert f"waiting on interrupt {interrupt_id}" in status.stdout

        right = await client_py(
            client,
            "resolve",
            interrupt_id,
            "--choice",
            "approach=CUSTOM",
            "--custom",
            "approach=reuse the existing merge queue",
            "--confirm",
            "add-tests=yes",
        )
        assert right.returncode == 0, right.stderr
        assert "accepted" in right.stdout
        result = await asyncio.wait_for(handle.result(), 30)
    assert result.summary
    resumed = [r for r in offline.received if "reuse the existing merge queue" in str(r)]
    assert resumed, "the write-in reached the LLM calls after the interrupt"


async def test_answering_a_closed_question_says_who_answered_it_when_and_with_what(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The SDK raises ResolutionRejected (not a raw RPCError), and the CLI
    says who answered, when and with what."""
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({AgentType.MERGER_AGENT})))
    agents = AgentWorkflowClient(client, task_queue)
    answer = InterruptResolution.model_validate(
        {"selectedChoices": {"approach": "B"}, "confirmations": {"add-tests": True}}
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        await agents.resolve(pending.workflow_id, answer, answered_by="grace")
        await asyncio.wait_for(handle.result(), 30)

    with pytest.raises(ResolutionRejected) as late:
        await agents.resolve(pending.workflow_id, answer)
    message = str(late.value)
    assert f"{pending.workflow_id} is already answered, by grace via sdk at " in message
    assert " UTC: " in message and "Resolved by: grace (HUMAN) via sdk" in message
    assert "-> B (" in message and "-> yes" in message

    again = await client_py(client, "resolve", pending.workflow_id, "--choice", "approach=A")
    assert again.returncode == 1
    assert "is already answered, by " in again.stderr and "Traceback" not in again.stderr
