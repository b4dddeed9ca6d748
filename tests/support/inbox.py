"""Questions for the inbox tests: waiting, listed as ``list --waiting`` lists them."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from temporalio.client import (
    Client,
    Interceptor,
    OutboundInterceptor,
    QueryWorkflowInput,
    WorkflowHandle,
)
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.models.answer_rules import Answerers
from agent_interrupts.models.question_card import QUESTION_MEMO, question_card
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows import visibility
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.interrupt_hooks import asked_question
from tests.support.interrupts import question_input

TOKEN = "t0ken-for-the-inbox-tests"
HOSTILE = '<script>alert("owned")</script> see [the docs](javascript:alert(2))'
"""A question's reason as a model might write it to attack the page."""


async def start_question(
    client: Client,
    task_queue: str,
    interrupt_id: str,
    reason: str = "Which cache?",
    reroute_to: AgentType | None = None,
    hand_over: bool = False,
    orchestrator_id: str | None = None,
    answerers: Answerers | None = None,
    carded: bool = False,
) -> WorkflowHandle[InterruptWorkflow, Any]:
    """A waiting REVIEW_AGENT question (cache: A in memory, B redis recommended), listed as
    ``list --waiting`` lists them; ``reroute_to``: a supervisor's event re-routed the run;
    ``hand_over``: its orchestrator (``orchestrator_id``) may ask for it back; ``answerers``:
    who may answer it (the answer rules' share, as the orchestrator hands it over);
    ``carded``: with its card in its memo, as a run of this version asks it (else as an earlier
    version asked it)."""
    job = question_input()
    job.orchestrator_id = orchestrator_id or job.orchestrator_id
    job.request.reason = reason
    job.reroute_to = reroute_to
    job.hand_over = hand_over
    job.answerers = answerers
    card = question_card(job, asked_question(job), None) if carded else None
    handle = await client.start_workflow(
        InterruptWorkflow.run,
        job,
        id=interrupt_id,
        task_queue=task_queue,
        memo={QUESTION_MEMO: card} if card is not None else None,
        search_attributes=TypedSearchAttributes(
            [
                SearchAttributePair(visibility.INTERRUPT_STATE, visibility.WAITING),
                SearchAttributePair(visibility.INTERRUPT_ORIGIN, "REVIEW_AGENT"),
            ]
        ),
    )
    await until_listed(AgentWorkflowClient(client), interrupt_id)
    return handle


async def until_listed(agents: AgentWorkflowClient, interrupt_id: str) -> None:
    async with asyncio.timeout(60):  # visibility is eventually consistent
        while not await agents.is_listed_waiting(interrupt_id):
            await asyncio.sleep(0.1)


class QueriedIds(Interceptor):
    """Records the workflow id of every query the inbox's client sends."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def intercept_client(self, next: OutboundInterceptor) -> OutboundInterceptor:
        ids = self.ids

        class Recording(OutboundInterceptor):
            async def query_workflow(self, input: QueryWorkflowInput) -> Any:
                ids.append(input.id)
                return await super().query_workflow(input)

        return Recording(next)


def stub_of(lists: str, interrupt_id: str) -> str | None:
    found = re.search(rf'<details class="([^"]*)" id="q-{re.escape(interrupt_id)}"', lists)
    return found[1] if found else None
