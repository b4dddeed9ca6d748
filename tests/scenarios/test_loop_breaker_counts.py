"""Only a model's own questions count towards the interrupt loop breaker: a
dispatched agent that asked counts once for its fan-out; one whose replies stayed invalid (the
workflow asks for it) does not. Offline model, real server."""

from __future__ import annotations

from typing import Any

import pytest
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.routings import TicketAgentRouting
from tests.support.interrupts import interrupt_status, start, wait_for_interrupt


class _StuckTickets(OfflineModel):
    """Every ticket agent's reply sets no route."""

    def answer(self, name: str, schema: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        if name == TicketAgentRouting.__name__:
            return "{}"
        return super().answer(name, schema, messages)


@pytest.mark.parametrize("own", [True, False], ids=["asked-itself", "stuck"])
async def test_a_lifted_question_counts_only_when_a_model_asked_it(
    client: Client, task_queue: str, workflow_id: str, own: bool
) -> None:
    model = (
        OfflineModel(OfflineScenario.parse("interrupt=TICKET_AGENT#1")) if own else _StuckTickets()
    )
    settings = LlmSettings(validation_attempts=1)
    async with build_worker(client, task_queue, settings, offline=model):
        handle = await start(client, task_queue, workflow_id)
        status = await wait_for_interrupt(handle)
        pending = status.pending_interrupt
        assert pending is not None and pending.origin_agent_type is AgentType.TICKET_DISPATCH
        question = await interrupt_status(client, pending.workflow_id)
        await handle.terminate("checked")
    assert own or "could not finish its step" in str(status.events)
    assert question.request.agent_questions  # type: ignore[union-attr]
    assert status.interrupt_counts == ({AgentType.TICKET_AGENT: 1} if own else {})
