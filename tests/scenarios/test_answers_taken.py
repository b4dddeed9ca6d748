"""No accepted answer fails a run: when the translating model cannot write the
routing on any attempt, the route is still the one the answer allows, so the agent resumes with
its last request and the person's answer as guidance; the export leaves the translation out
instead of passing the workflow's routing off as a model's. Offline model, real server."""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.app.export import Kind, run_examples
from agent_interrupts.app.history import read_run
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.state import EntryKind, EventKind
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.routings import InterruptRouting
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from tests.support.interrupts import (
    answer_all,
    full_status,
    interrupt_status,
    start,
    wait_for_interrupt,
)

WORDS = "Plan the rate limiter per tenant, not per host."


class _NoTranslation(OfflineModel):
    """Asks at the planning orchestrator; every translation it writes sets no route."""

    def answer(self, name: str, schema: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        if name == InterruptRouting.__name__:
            return "{}"
        return super().answer(name, schema, messages)


async def test_an_answer_the_translator_cannot_write_resumes_its_agent_with_the_answer(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    settings = LlmSettings(validation_attempts=2)
    model = _NoTranslation(
        OfflineScenario(interrupt_at=frozenset({AgentType.PLANNING_ORCHESTRATOR}))
    )
    async with build_worker(client, task_queue, settings, offline=model):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        question = (await interrupt_status(client, pending.workflow_id)).request
        answer = answer_all(question).model_copy(update={"free_text": WORDS})
        await client.get_workflow_handle(pending.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer
        )
        result = await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
        answered = await interrupt_status(client, pending.workflow_id)
        run = await read_run(client, workflow_id)

    assert result is not None, "the run went on and ended"
    warned = [e.message for e in answered.events if e.kind is EventKind.WARNING]
    assert any("could not be translated" in m for m in warned), warned
    assert any("PLANNING_ORCHESTRATOR resumes with its last request" in m for m in warned)
    (resolution,) = [e for e in status.history if e.kind is EntryKind.RESOLUTION]
    resumed = resolution.payload["planningOrchestratorRequest"]  # type: ignore[index]
    assert "A person answered your question" in resumed["guidance"] and WORDS in resumed["guidance"]
    planned = [
        e.payload
        for e in status.history
        if e.kind is EntryKind.REQUEST and e.agent_type is AgentType.PLANNING_ORCHESTRATOR
    ]
    assert len(planned) == 2 and WORDS in str(planned[1]), "it ran again with the answer"
    skipped: dict[str, list[str]] = {}
    kinds = frozenset({Kind.TRANSLATION})
    assert list(run_examples(run, PromptRenderer(), kinds, skipped)) == []
    assert list(skipped) == ["the answer was never translated (no translation, or it failed)"]
