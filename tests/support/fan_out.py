"""Dispatched agents' questions for tests of combined questions: a ticket agent's typed
question, a fan-out's held agent, a combined question, one agent's part of its answer, a run's
two waiting questions handed over together, and a dev server that makes histories long early."""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio.client import WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent_interrupts.app.binaries import temporal_cli
from agent_interrupts.models.fan_out import HeldAgent
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.ids import agent_key
from agent_interrupts.models.interrupts import (
    DispatchInterruptRequest,
    InterruptResolution,
    InterruptType,
)
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.questions import TicketAgentInterruptRequest
from agent_interrupts.workflows.lifting import lift
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.visibility import dev_server_args

TICKET = AgentType.TICKET_AGENT


def ticket_question(
    tag: str, kind: InterruptType = InterruptType.HUMAN_REVIEW, confirmations: int = 1
) -> TicketAgentInterruptRequest:
    """A ticket agent's question about ``tag``: one choice ``approach`` (A/B) and
    ``confirmations`` yes/no items ``check-N``."""
    return TicketAgentInterruptRequest.model_validate(
        {
            "type": kind,
            "reason": f"unsure about {tag}",
            "contextForDecision": f"context of {tag}",
            "choices": [
                {
                    "choiceId": "approach",
                    "question": f"How to do {tag}?",
                    "context": "c",
                    "options": [
                        {"key": "A", "description": "small"},
                        {"key": "B", "description": "big"},
                    ],
                    "recommended": "A",
                }
            ],
            "confirmationItems": [
                {
                    "confirmationId": f"check-{n}",
                    "statement": f"check {n} of {tag}",
                    "context": "c",
                    "defaultValue": True,
                    "impactIfNo": "skip it",
                }
                for n in range(confirmations)
            ],
            "filesToModify": [{"path": f"src/{tag}.py", "change": "add a limiter"}],
            "testStrategies": [{"test": f"test_{tag}", "covers": "the limit"}],
            "implementationApproaches": [{"approach": "token bucket", "tradeOffs": "memory"}],
        }
    )


def held(n: int, **state: Any) -> HeldAgent:
    """Ticket agent ``n`` of a fan-out, in ``state`` (``question=``, ``result=`` ...)."""
    return HeldAgent(
        key=agent_key(TICKET, n),
        node_id=f"ticket-dispatch-009/{agent_key(TICKET, n)}",
        request={"guidance": "implement it", "ticketId": f"T-{n}", "title": f"ticket T-{n}"},
        **state,
    )


def combined_question(*tags: str) -> DispatchInterruptRequest:
    """TICKET_DISPATCH's question combining one ticket agent's question per tag, in order."""
    fan_out = [held(n, question=ticket_question(tag)) for n, tag in enumerate(tags, start=1)]
    question = lift(AgentType.TICKET_DISPATCH, fan_out, team=SOFTWARE_TEAM)
    assert question is not None
    return question


def only_part(answer: InterruptResolution, key: str) -> InterruptResolution:
    """Only agent ``key``'s part of ``answer`` to a combined question."""
    mine = f"{key}/"
    return answer.model_copy(
        update={
            "selected_choices": {
                k: v for k, v in answer.selected_choices.items() if k.startswith(mine)
            },
            "confirmations": {k: v for k, v in answer.confirmations.items() if k.startswith(mine)},
        }
    )


async def handed_over_together(handle: WorkflowHandle[Any, Any]) -> None:
    """Once two questions of the run's dispatch node wait, signals the run ignores make its
    history long until both are handed over and asked again by a next run."""
    ids = [f"{handle.id}-interrupt-{n}" for n in (1, 2)]
    async with asyncio.timeout(60):
        while len((await handle.describe()).raw_description.pending_children) < 2:
            await asyncio.sleep(0.1)
        while True:
            events = (await handle.query(OrchestratorWorkflow.status)).events
            asked = [e.message for e in events if e.message.startswith("REQUESTED AGAIN: ")]
            if all(any(m.startswith(f"REQUESTED AGAIN: {i} ") for m in asked) for i in ids):
                return
            await handle.signal("not-a-signal-this-run-takes")
            await asyncio.sleep(0.2)


SUGGEST_CONTINUE_AS_NEW_EVENTS = 60
"""The server suggests continuing as new this early, so that a few signals (or one fan-out) make
a run's history long; the default is thousands of events."""


async def early_continue_as_new_server() -> WorkflowEnvironment:
    """A dev server of its own (started; use it with ``async with``) that suggests continuing as
    new after ``SUGGEST_CONTINUE_AS_NEW_EVENTS`` events."""
    return await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        data_converter=pydantic_data_converter,
        dev_server_extra_args=[
            *dev_server_args(),
            "--dynamic-config-value",
            f"limit.historyCount.suggestContinueAsNew={SUGGEST_CONTINUE_AS_NEW_EVENTS}",
        ],
    )
