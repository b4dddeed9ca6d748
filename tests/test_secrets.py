"""Every workflow of the suite runs with a distinctive API key, and all their histories and
captured logs are scanned for it: secrets never enter workflow history or logs.

The worker is configured the way ``worker.py`` configures it (``llm_settings_from_env``) with a
key that has no credential shape, so only the configured-secret redaction can keep it out; the
local server echoes the key in every error body. Three runs cover every workflow and LLM path:
a supervisor event, a person's answer and an AGENT_REVIEW in one completed run; an agent whose
call fails with HTTP 400; an interrupt whose translation fails with HTTP 401. Then every history
(orchestrators and interrupt children), every status query, every failure the client saw, the
captured log records and the captured stdout/stderr are scanned for the key.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

import pytest
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import Worker

from agent_interrupts.activities.offline_model import OfflineScenario
from agent_interrupts.app.config import llm_settings_from_env
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.interrupts import InterruptType, ResolvedBy
from agent_interrupts.models.state import EventKind, OrchestratorInput, OrchestratorStatus
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import answer_all, interrupt_status
from tests.support.openai_server import HANG, VALID, ScriptedOpenAIServer

KEY = f"h8scan{uuid.uuid4().hex}"
"""Distinctive, and shaped like no credential: the configured-secret redaction must catch it."""
FRAGMENT = KEY[-16:]
"""Part of the key, so a truncated echo is caught too."""
GOAL = "add rate limiting to the gateway"
WAIT = 60


class Scan:
    """The workflows started and the texts users and operators can see."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.workflow_ids: list[str] = []
        self.texts: list[str] = []

    def worker(self, server: ScriptedOpenAIServer, task_queue: str) -> Worker:
        env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url, "AGENT_MODEL": "m"}
        return build_worker(self.client, task_queue, llm_settings_from_env(env))

    async def start(self, task_queue: str) -> WorkflowHandle[OrchestratorWorkflow, Any]:
        workflow_id = f"secrets-{uuid.uuid4()}"
        self.workflow_ids.append(workflow_id)
        return await self.client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal=GOAL),
            id=workflow_id,
            task_queue=task_queue,
        )

    async def failure(self, handle: WorkflowHandle[OrchestratorWorkflow, Any]) -> str:
        """The failure a user sees, recorded for the scan."""
        with pytest.raises(WorkflowFailureError) as failed:
            await asyncio.wait_for(handle.result(), WAIT)
        text = f"{failed.value} {failed.value.cause}"
        self.texts.append(text)
        return text

    async def histories_and_statuses(self) -> int:
        """Record every orchestrator's and interrupt child's history and status; count them."""
        count = 0
        for workflow_id in self.workflow_ids:
            handle = self.client.get_workflow_handle(workflow_id)
            self.texts.append((await handle.fetch_history()).to_json())
            status = await handle.query(OrchestratorWorkflow.status)
            self.texts.append(status.model_dump_json())
            count += 1
            for n in range(1, 100):
                child = self.client.get_workflow_handle(f"{workflow_id}-interrupt-{n}")
                try:
                    self.texts.append((await child.fetch_history()).to_json())
                except RPCError as err:
                    if err.status is not RPCStatusCode.NOT_FOUND:
                        raise
                    break
                self.texts.append((await child.query(InterruptWorkflow.status)).model_dump_json())
                count += 1
        return count


async def _next_question(
    handle: WorkflowHandle[OrchestratorWorkflow, Any], seen: set[str]
) -> OrchestratorStatus:
    """Poll until an interrupt other than ``seen`` is pending."""
    async with asyncio.timeout(WAIT):
        while True:
            status = await handle.query(OrchestratorWorkflow.status)
            pending = status.pending_interrupt
            if pending is not None and pending.workflow_id not in seen:
                seen.add(pending.workflow_id)
                return status
            await asyncio.sleep(0.05)


async def _answer(client: Client, interrupt_id: str) -> None:
    question = await interrupt_status(client, interrupt_id)
    await client.get_workflow_handle(interrupt_id).execute_update(
        InterruptWorkflow.resolve_validated, answer_all(question.request)
    )


def _supervisor_event() -> InterruptRequestEvent:
    return InterruptRequestEvent.model_validate(
        {
            "eventId": str(uuid.uuid4()),
            "timestamp": "2026-02-15T12:00:00Z",
            "sourceAgentType": AgentType.ORCHESTRATOR.value,
            "interruptType": "HUMAN_REVIEW",
            "reason": "Check the scope first",
            "choices": [],
            "confirmationItems": [],
            "contextForDecision": "The gateway has three entry points.",
        }
    )


async def _steered_run(scan: Scan, task_queue: str) -> None:
    """A supervisor event, a person's answer and an AGENT_REVIEW, run to completion."""
    scenario = OfflineScenario(
        interrupt_at=frozenset({AgentType.PLANNING_ORCHESTRATOR}),
        agent_review_at=frozenset({AgentType.TICKET_ORCHESTRATOR}),
    )
    # The first request (the orchestrator's) is held, so the event finds the agent running.
    with ScriptedOpenAIServer([HANG], scenario=scenario) as server:
        async with scan.worker(server, task_queue):
            handle = await scan.start(task_queue)
            async with asyncio.timeout(WAIT):
                while not server.completions:
                    await asyncio.sleep(0.05)
            ack = await handle.execute_update(
                OrchestratorWorkflow.send_interrupt_event, _supervisor_event()
            )
            assert ack.accepted
            seen: set[str] = set()
            for _ in range(2):  # the supervisor's question, then the planning orchestrator's
                status = await _next_question(handle, seen)
                assert status.pending_interrupt is not None
                await _answer(scan.client, status.pending_interrupt.workflow_id)
            await asyncio.wait_for(handle.result(), WAIT)
            reviewed = await interrupt_status(scan.client, f"{handle.id}-interrupt-3")
        assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in server.completions)
    assert reviewed.request.type is InterruptType.AGENT_REVIEW
    assert reviewed.resolution is not None
    assert reviewed.resolution.resolved_by is ResolvedBy.AGENT_REVIEW


async def _failing_agent_run(scan: Scan, task_queue: str) -> None:
    """The orchestrator's LLM call gets an HTTP 400 whose body echoes the key."""
    with ScriptedOpenAIServer(["400"]) as server:
        async with scan.worker(server, task_queue):
            failure = await scan.failure(await scan.start(task_queue))
    assert "HTTP 400" in failure and "[REDACTED]" in failure, "the echo arrived, redacted"


async def _failing_translation_run(scan: Scan, task_queue: str) -> None:
    """A person answers; the translation of the answer gets an HTTP 401 echoing the key: the
    agent resumes with the answer as its guidance, and the question's WARNING names the failure."""
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.ORCHESTRATOR}))
    with ScriptedOpenAIServer([VALID, "401"], scenario=scenario) as server:
        async with scan.worker(server, task_queue):
            handle = await scan.start(task_queue)
            status = await _next_question(handle, set())
            assert status.pending_interrupt is not None
            interrupt_id = status.pending_interrupt.workflow_id
            await _answer(scan.client, interrupt_id)
            await asyncio.wait_for(handle.result(), WAIT)
            question = await interrupt_status(scan.client, interrupt_id)
    warned = " ".join(e.message for e in question.events if e.kind is EventKind.WARNING)
    scan.texts.append(warned)
    assert "could not be translated" in warned
    assert "HTTP 401" in warned and "OPENAI_API_KEY" in warned


async def test_no_history_status_failure_or_log_of_any_workflow_contains_the_api_key(
    client: Client,
    task_queue: str,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    scan = Scan(client)

    await _steered_run(scan, task_queue)
    await _failing_agent_run(scan, task_queue)
    await _failing_translation_run(scan, task_queue)
    with ScriptedOpenAIServer() as server:
        async with scan.worker(server, task_queue):  # queries replay on a worker
            scanned = await scan.histories_and_statuses()

    assert scanned == 3 + 3 + 1, "three orchestrators, three questions and one untranslated"
    captured = capfd.readouterr()
    texts = [*scan.texts, caplog.text, captured.out, captured.err]
    assert "Completing activity as failed" in caplog.text, "the worker's logs were captured"
    leaks = [text for text in texts if KEY in text or FRAGMENT in text]
    assert not leaks, f"the API key leaked into {len(leaks)} of {len(texts)} texts"
