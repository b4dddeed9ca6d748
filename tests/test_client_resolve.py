"""``client.py resolve`` against a real server: show, reject a wrong answer, accept a right one."""

from __future__ import annotations

import asyncio

from temporalio.client import Client

from activities.llm import LlmSettings
from activities.offline_model import OfflineModel, OfflineScenario
from app.worker_setup import build_worker
from models.agent_types import AgentType
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
        assert wrong.returncode == 1
        assert "unknown choiceId 'nope'" in wrong.stderr
        assert "confirmation 'add-tests' has no yes/no answer" in wrong.stderr

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
