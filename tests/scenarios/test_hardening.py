"""Nothing wedges, nothing is lost. Bad signals, updates and start inputs of any arity,
size and encoding against real workflows; cancellation; late answers; invalid recommendations."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx2
import pytest
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowFailureError,
    WorkflowHandle,
)
from temporalio.common import RawValue

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.output_schema import REPLY_KEY
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import failure_message
from agent_interrupts.models.interrupt_events import INTERRUPT_REQUEST_EVENT_SIGNAL
from agent_interrupts.models.interrupt_flow import RESOLVE_SIGNAL, InterruptState
from agent_interrupts.models.interrupts import OptionKey, ResolvedBy, TimeoutOutcome
from agent_interrupts.models.limits import MAX_GOAL_CHARS
from agent_interrupts.models.state import EventKind
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import (
    answer_all,
    interrupt_status,
    rejected,
    start,
    wait_for_interrupt,
    wait_running,
)

HUGE = "x" * 1_900_000
NOT_JSON = RawValue(Payload(metadata={"encoding": b"json/plain"}, data=b"\xff{not json"))
UNKNOWN_ENCODING = RawValue(Payload(metadata={"encoding": b"no/such"}, data=b"abc"))


async def _no_task_failed(handle: WorkflowHandle[Any, Any]) -> None:
    history = await handle.fetch_history()
    failed = [
        e for e in history.events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
    ]
    assert not failed, failed[0].workflow_task_failed_event_attributes.failure.message


async def test_interrupt_takes_any_signal_and_update_then_a_valid_answer(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Items 1 and 4: any arity, encoding, name and size; every problem becomes a clipped event."""
    scenario = OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT}))
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        child = client.get_workflow_handle(pending.workflow_id)
        huge_choice = {"selectedChoices": {HUGE[:300_000]: "A"}}
        big_but_small_enough = {"selectedChoices": {"z" * 100_000: "A"}}
        await child.signal(RESOLVE_SIGNAL)
        await child.signal(RESOLVE_SIGNAL, args=[{}, {}])
        await child.signal(RESOLVE_SIGNAL, NOT_JSON)
        await child.signal(RESOLVE_SIGNAL, UNKNOWN_ENCODING)
        await child.signal(RESOLVE_SIGNAL, huge_choice)
        await child.signal(RESOLVE_SIGNAL, big_but_small_enough)
        await child.signal("resolv", {"selectedChoices": {}})
        assert "takes one InterruptResolution" in await rejected(child, "resolve_validated")
        assert "got 2" in await rejected(child, "resolve_validated", {}, {})
        assert "at most 200 characters" in await rejected(
            child, "resolve_validated", big_but_small_enough
        )
        assert "over the" in await rejected(child, "resolve_validated", huge_choice)
        async with asyncio.timeout(30):
            while len((status := await interrupt_status(client, child.id)).events) < 9:
                await asyncio.sleep(0.1)
        problems = [e for e in status.events if e.kind in (EventKind.WARNING, EventKind.ERROR)]
        assert len(problems) == 7
        assert all(len(e.message) < 1_000 for e in problems)
        assert "takes one InterruptResolution JSON argument, got 0" in problems[0].message
        assert "got 2" in problems[1].message
        assert "not JSON" in problems[2].message and "not JSON" in problems[3].message
        assert "over the 262144 byte limit" in problems[4].message
        assert "at most 200 characters" in problems[5].message
        assert "unknown signal 'resolv'" in problems[6].message
        assert status.state is InterruptState.WAITING
        await child.execute_update(InterruptWorkflow.resolve_validated, answer_all(status.request))
        await asyncio.wait_for(handle.result(), 60)
        await _no_task_failed(child)
        await _no_task_failed(handle)


async def test_orchestrator_takes_any_event_signal_and_update(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Items 1 and 4 for ``interrupt_request_event`` and ``send_interrupt_event``."""
    scenario = OfflineScenario(delays={AgentType.PLANNING_ORCHESTRATOR: 3.0})
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handle = await start(client, task_queue, workflow_id)
        await wait_running(handle, AgentType.PLANNING_ORCHESTRATOR)
        before = (await handle.query(OrchestratorWorkflow.status)).events_recorded
        huge = {"eventId": HUGE, "sourceAgentType": "PLANNING_ORCHESTRATOR", "reason": "r"}
        await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL)
        await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, args=[{}, {}])
        await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, NOT_JSON)
        await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, huge)
        assert "takes one InterruptRequestEvent" in await rejected(handle, "send_interrupt_event")
        assert "over the" in await rejected(handle, "send_interrupt_event", huge)
        long_id = {**huge, "eventId": "e" * 5_000}
        assert "at most 200 characters" in await rejected(handle, "send_interrupt_event", long_id)
        status = await handle.query(OrchestratorWorkflow.status)
        errors = [e for e in status.events if e.kind is EventKind.ERROR]
        assert status.events_recorded >= before + 4
        assert len(errors) >= 4 and all(len(e.message) < 1_000 for e in errors)
        await asyncio.wait_for(handle.result(), 60)
        await _no_task_failed(handle)


@pytest.mark.parametrize(
    "args, expected",
    [
        ([], "takes one OrchestratorInput JSON argument, got 0"),
        ([{"goal": "a"}, {"goal": "b"}], "got 2"),
        ([{"goal": "g" * (MAX_GOAL_CHARS + 1)}], f"at most {MAX_GOAL_CHARS} characters"),
        ([{"gol": "typo"}], "goal: Field required"),
        ([UNKNOWN_ENCODING], "Unknown payload encoding"),
    ],
    ids=["no-input", "two-inputs", "huge-goal", "typo", "unknown-encoding"],
)
async def test_a_bad_start_input_fails_at_once_with_a_clear_message(
    client: Client, task_queue: str, workflow_id: str, args: list[Any], expected: str
) -> None:
    """Items 2 and 3: no input, two inputs, an oversized goal, junk: a clean failure, no wedge."""
    async with build_worker(client, task_queue, LlmSettings()):
        handle = await client.start_workflow(
            "OrchestratorWorkflow", args=args, id=workflow_id, task_queue=task_queue
        )
        with pytest.raises(WorkflowFailureError) as info:
            await asyncio.wait_for(handle.result(), 30)
    assert expected in failure_message(info.value)
    await _no_task_failed(handle)


async def test_cancelling_a_run_cancels_it_even_with_a_supervisor_event_pending(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Item 6: a cancellation that arrives with an event stored for the running node wins."""
    scenario = OfflineScenario(delays={AgentType.PLANNING_ORCHESTRATOR: 30.0})
    async with build_worker(client, task_queue, LlmSettings(), scenario=scenario):
        handle = await start(client, task_queue, workflow_id)
        await wait_running(handle, AgentType.PLANNING_ORCHESTRATOR)
        event = {
            "eventId": str(uuid.uuid4()),
            "sourceAgentType": "PLANNING_ORCHESTRATOR",
            "reason": "stop and ask",
        }
        await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, event)
        await handle.cancel()
        with pytest.raises(WorkflowFailureError):
            await asyncio.wait_for(handle.result(), 30)
        assert (await handle.describe()).status is WorkflowExecutionStatus.CANCELED


class _ScriptedModel(OfflineModel):
    """The offline model, with the reviewer (and, when asked, the translator) held until
    released, and recommendations rewritten."""

    def __init__(
        self,
        scenario: OfflineScenario,
        recommend: str | None = None,
        hold_translation: bool = False,
    ) -> None:
        super().__init__(scenario)
        self.release_reviewer = asyncio.Event()
        self.release_translator = asyncio.Event()
        if not hold_translation:
            self.release_translator.set()
        self.recommend = recommend

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(await request.aread())
        name = body["response_format"]["json_schema"]["name"]
        if name == "AgentReviewDecision":
            await self.release_reviewer.wait()
        if name == "InterruptRouting":
            await self.release_translator.wait()
        response = await super().handle_async_request(
            httpx2.Request(request.method, request.url, json=body)
        )
        completion = response.json()
        written = json.loads(completion["choices"][0]["message"]["content"])
        reply = written.get(REPLY_KEY, written)  # the routing inside its variant's wrapper
        retry = "Your reply was not a valid" in body["messages"][-1]["content"]
        if self.recommend is None or not reply.get("interruptRequest") or retry:
            return response
        for choice in reply["interruptRequest"]["choices"]:
            choice["recommended"] = self.recommend
        completion["choices"][0]["message"]["content"] = json.dumps(written)
        return httpx2.Response(200, json=completion)


async def test_a_person_who_answers_while_the_reviewer_works_wins(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Item 9: after the deadline the question is ESCALATED to a reviewer; a person's valid answer
    that arrives first is used (the reviewer is cancelled), and later answers are refused."""
    model = _ScriptedModel(
        OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT})), hold_translation=True
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=model):
        handle = await start(client, task_queue, workflow_id, interrupt_timeout_seconds=1)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        child = client.get_workflow_handle(pending.workflow_id)
        async with asyncio.timeout(30):
            while (status := await interrupt_status(client, child.id)).state is not (
                InterruptState.ESCALATED
            ):
                await asyncio.sleep(0.1)
        ack = await child.execute_update(
            InterruptWorkflow.resolve_validated, answer_all(status.request, "B")
        )
        assert "replaces the reviewer's" in ack.message
        late = await rejected(child, "resolve_validated", answer_all(status.request, "A"))
        assert "already resolved (by HUMAN)" in late
        model.release_translator.set()  # held so the late answer meets a question still open
        await asyncio.wait_for(handle.result(), 60)
        model.release_reviewer.set()
        final = await interrupt_status(client, child.id)
    assert final.resolution is not None
    assert final.resolution.resolved_by is ResolvedBy.HUMAN
    assert final.resolution.selected_choices == {"approach": OptionKey.B}


async def test_an_invalid_recommendation_is_sent_back_and_never_shown(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """SC-025: a recommendation of an option that is not offered is sent back
    to the model with the problem (the validation-retry path), so the person never sees it;
    USE_RECOMMENDED then takes the corrected recommendation."""
    model = _ScriptedModel(
        OfflineScenario(interrupt_at=frozenset({AgentType.REVIEW_AGENT})), recommend="C"
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=model):
        handle = await start(
            client,
            task_queue,
            workflow_id,
            interrupt_timeout_seconds=1,
            on_interrupt_timeout=TimeoutOutcome.USE_RECOMMENDED,
        )
        await asyncio.wait_for(handle.result(), 60)
        child = await interrupt_status(client, f"{workflow_id}-interrupt-1")
    asked = [
        r for r in model.received if r["response_format"]["json_schema"]["name"] == "ReviewRouting"
    ]
    problem = asked[1]["messages"][-1]["content"]
    assert "the question in interruptRequest is not well formed" in problem
    assert "choice 'approach' recommends C, which is not one of its real options" in problem
    assert not [e for e in child.events if e.kind is EventKind.WARNING]
    assert child.request.choices[0].recommended is OptionKey.A
    assert child.resolution is not None
    assert child.resolution.selected_choices == {"approach": OptionKey.A}
