"""Helpers for interrupt scenarios: run with a scripted offline model, wait, answer."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from temporalio.api.enums.v1 import PendingActivityState
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from agent_interrupts.app.history import read_blackboard
from agent_interrupts.models.errors import failure_message
from agent_interrupts.models.interrupt_flow import InterruptInput, InterruptStatus, ShadowAnswer
from agent_interrupts.models.interrupts import (
    ConfirmationItem,
    InterruptRequestBase,
    InterruptResolution,
)
from agent_interrupts.models.state import OrchestratorInput, OrchestratorStatus
from agent_interrupts.teams.software.questions import AnyInterruptRequest
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.shadow import SHADOW_SUFFIX

GOAL = "add rate limiting to the gateway"


async def start(
    client: Client, task_queue: str, workflow_id: str, **kwargs: Any
) -> WorkflowHandle[OrchestratorWorkflow, Any]:
    return await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal=GOAL, **kwargs),
        id=workflow_id,
        task_queue=task_queue,
    )


async def wait_running(
    handle: WorkflowHandle[OrchestratorWorkflow, Any], agent: str, timeout: float = 30
) -> OrchestratorStatus:
    """Poll the status query until ``agent`` is the running node."""
    async with asyncio.timeout(timeout):
        while True:
            status = await handle.query(OrchestratorWorkflow.status)
            if status.current_node is not None and status.current_node.agent_type == agent:
                return status
            await asyncio.sleep(0.05)


async def started_activities(*handles: WorkflowHandle[Any, Any]) -> int:
    """Activities of ``handles`` a worker has started and not finished."""
    described = await asyncio.gather(*(h.describe() for h in handles))
    return sum(
        p.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
        for d in described
        for p in d.raw_description.pending_activities
    )


async def wait_for_interrupt(
    handle: WorkflowHandle[OrchestratorWorkflow, Any], timeout: float = 30
) -> OrchestratorStatus:
    """Poll the status query until an interrupt is pending."""
    async with asyncio.timeout(timeout):
        while True:
            status = await handle.query(OrchestratorWorkflow.status)
            if status.pending_interrupt is not None:
                return status
            await asyncio.sleep(0.1)


async def full_status(
    client: Client, handle: WorkflowHandle[OrchestratorWorkflow, Any]
) -> OrchestratorStatus:
    """The status query with ``history`` holding the whole blackboard of the run chain."""
    status = await handle.query(OrchestratorWorkflow.status)
    entries = await read_blackboard(client, handle.id, payloads=True)
    return status.model_copy(update={"history": entries})


async def interrupt_status(client: Client, interrupt_id: str) -> InterruptStatus:
    return await client.get_workflow_handle(interrupt_id).query(InterruptWorkflow.status)


def answer_all(request: InterruptRequestBase, option: str = "B") -> InterruptResolution:
    """Pick ``option`` for every choice and say no to every confirmation."""
    return InterruptResolution.model_validate(
        {
            "selectedChoices": {c.choice_id: option for c in request.choices},
            "confirmations": {c.confirmation_id: False for c in request.confirmation_items},
        }
    )


def answer_offered(request: InterruptRequestBase) -> InterruptResolution:
    """Pick each choice's first offered option (with words when it is CUSTOM) and say yes to
    every confirmation: what a person answers to a question whatever options it offers."""
    selected = {c.choice_id: c.options[0].key.value for c in request.choices}
    return InterruptResolution.model_validate(
        {
            "selectedChoices": selected,
            "customInputs": {
                i: "Go on as you see fit." for i, k in selected.items() if k == "CUSTOM"
            },
            "confirmations": {c.confirmation_id: True for c in request.confirmation_items},
        }
    )


def translation_calls(received: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The LLM requests whose structured output was InterruptRouting."""
    return [
        r for r in received if r["response_format"]["json_schema"]["name"] == "InterruptRouting"
    ]


def question_input(timeout_seconds: int = 24 * 3600) -> InterruptInput:
    """An InterruptWorkflow start input: REVIEW_AGENT asks which cache, B recommended."""
    return InterruptInput.model_validate(
        {
            "orchestratorId": "orchestrator-notify",
            "goal": "add caching",
            "origin": "REVIEW_AGENT",
            "originNodeId": "review-1",
            "originRequest": {},
            "timeoutSeconds": timeout_seconds,
            "request": {
                "origin": "REVIEW_AGENT",
                "type": "HUMAN_REVIEW",
                "reason": "Which cache?",
                "contextForDecision": "two options",
                "choices": [
                    {
                        "choiceId": "cache",
                        "question": "Which cache?",
                        "context": "",
                        "options": [
                            {"key": "A", "description": "in memory"},
                            {"key": "B", "description": "redis"},
                        ],
                        "recommended": "B",
                    }
                ],
                "confirmationItems": [],
                "reviewCriteria": ["the cache is invalidated on writes"],
                "assessmentFindings": [],
                "approvalRecommendation": "CHANGES_REQUESTED",
            },
        }
    )


async def shadow_answer(client: Client, interrupt_id: str, timeout: float = 30) -> ShadowAnswer:
    """The controller's shadow answer to a question: its workflow is started in the
    background by the translation, so it may not exist yet."""
    handle = client.get_workflow_handle(interrupt_id + SHADOW_SUFFIX, result_type=ShadowAnswer)
    async with asyncio.timeout(timeout):
        while True:
            try:
                answer: ShadowAnswer = await handle.result()
                return answer
            except RPCError as err:
                if err.status is not RPCStatusCode.NOT_FOUND:
                    raise
            await asyncio.sleep(0.1)


def with_confirmation(request: AnyInterruptRequest) -> AnyInterruptRequest:
    """``request`` with one yes/no confirmation, ``tests`` (default yes)."""
    item = ConfirmationItem(
        confirmation_id="tests",
        statement="add tests",
        context="",
        default_value=True,
        impact_if_no="none",
    )
    return request.model_copy(update={"confirmation_items": [item]})


async def rejected(handle: WorkflowHandle[Any, Any], name: str, *args: Any) -> str:
    """The one-line rejection of update ``name`` with ``args`` (never echoing a huge value)."""
    with pytest.raises(WorkflowUpdateFailedError) as info:
        await handle.execute_update(name, args=list(args))
    message = failure_message(info.value)
    assert "\n" not in message and len(message) < 1_000, "one line, never a huge echo"
    return message
