"""handler US3 (@interrupt-request-event), handler FR-007/FR-008, handler SC-004: supervisors
steer a running workflow with an InterruptRequestEvent, end to end on a real Temporal dev server."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio import activity
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer, Worker

from agent_interrupts.activities.agents import AgentActivities
from agent_interrupts.activities.llm import LlmSettings, StructuredLlm
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.activities.resolution import ResolutionActivities
from agent_interrupts.app.worker_setup import (
    WORKFLOW_RUNNER,
    WORKFLOWS,
    build_worker,
    openai_client,
)
from agent_interrupts.models.agent_call import SUPERVISOR_MESSAGE_PREFIX, AgentCall, AgentReply
from agent_interrupts.models.interrupt_events import (
    INTERRUPT_REQUEST_EVENT_SIGNAL,
    InterruptRequestEvent,
)
from agent_interrupts.models.state import EntryKind, EventKind, OrchestratorStatus
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import (
    answer_all,
    full_status,
    interrupt_status,
    start,
    translation_calls,
    wait_for_interrupt,
    wait_running,
)

SLOW = 2.0


def _event(source: AgentType, reroute: AgentType | None = None, **extra: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "eventId": str(uuid.uuid4()),
        "timestamp": "2026-02-15T12:00:00Z",
        "sourceAgentType": source.value,
        "interruptType": "HUMAN_REVIEW",
        "reason": "Need clarification on discovery scope",
        "choices": [],
        "confirmationItems": [],
        "contextForDecision": "Discovery found 15 modules but only 3 were specified.",
        **extra,
    }
    if reroute is not None:
        event["rerouteToAgentType"] = reroute.value
    return event


def _asked(offline: OfflineModel, reason: str) -> list[dict[str, Any]]:
    """LLM requests whose last message is the supervisor's user message with ``reason``."""
    return [
        r
        for r in offline.received
        if r["messages"][-1]["role"] == "user"
        and r["messages"][-1]["content"].startswith(f"{SUPERVISOR_MESSAGE_PREFIX} {reason}")
    ]


def _next_request_after_resolution(status: OrchestratorStatus) -> AgentType:
    resolution = next(e for e in status.history if e.kind is EntryKind.RESOLUTION)
    following = status.history[status.history.index(resolution) + 1]
    assert following.kind is EntryKind.REQUEST
    return following.agent_type


async def _steer(
    client: Client,
    task_queue: str,
    workflow_id: str,
    source: AgentType,
    reroute: AgentType | None,
    *,
    use_update: bool = False,
    **extra: Any,
):
    """Send an event while ``source`` runs (slowly), answer the interrupt, run to the end."""
    offline = OfflineModel(OfflineScenario(delays={source: SLOW}))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        running = await wait_running(handle, source)
        event = _event(source, reroute, **extra)
        if use_update:
            ack = await handle.execute_update(
                OrchestratorWorkflow.send_interrupt_event,
                InterruptRequestEvent.model_validate(event),
            )
            assert ack.accepted and ack.node_id == running.current_node.node_id  # type: ignore[union-attr]
        else:
            await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, event)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        question = await interrupt_status(client, pending.workflow_id)
        child = client.get_workflow_handle(pending.workflow_id)
        return offline, handle, pending, question, child


@pytest.mark.parametrize(
    ("source", "reroute", "route", "use_update"),
    [
        (
            AgentType.ORCHESTRATOR,
            AgentType.DISCOVERY_ORCHESTRATOR,
            "discoveryOrchestratorRequest",
            False,
        ),
        (
            AgentType.DISCOVERY_ORCHESTRATOR,
            AgentType.PLANNING_ORCHESTRATOR,
            "planningOrchestratorRequest",
            True,
        ),
    ],
    ids=["scenario1-orchestrator-to-discovery", "scenario2-discovery-to-planning"],
)
async def test_interrupt_request_event_reroutes_to_the_target(
    client: Client,
    task_queue: str,
    workflow_id: str,
    source: AgentType,
    reroute: AgentType,
    route: str,
    use_update: bool,
) -> None:
    offline, handle, pending, question, child = await _steer(
        client, task_queue, workflow_id, source, reroute, use_update=use_update
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        assert pending.origin_agent_type is source
        assert pending.reroute_to_agent_type is reroute
        assert question.request.origin is source, "the agent produced its own typed request"
        await child.execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question.request)
        )
        await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
    asked = _asked(offline, "Need clarification on discovery scope")
    assert len(asked) == 1, "the reason reached the running agent once, as a user message"
    assert asked[0]["response_format"]["json_schema"]["name"] == f"{_routing_name(source)}"
    (call,) = translation_calls(offline.received)
    assert list(call["response_format"]["json_schema"]["schema"]["properties"]) == [route]
    assert _next_request_after_resolution(status) is reroute
    assert status.stored_events == {}, "the event is consumed after use"


async def test_event_without_reroute_goes_back_to_the_origin(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Scenario 3: no rerouteToAgentType -> normal set-difference filtering."""
    source = AgentType.PLANNING_ORCHESTRATOR
    offline, handle, _pending, question, child = await _steer(
        client, task_queue, workflow_id, source, None
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        await child.execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question.request)
        )
        await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
    (call,) = translation_calls(offline.received)
    assert list(call["response_format"]["json_schema"]["schema"]["properties"]) == [
        "planningOrchestratorRequest"
    ]
    assert _next_request_after_resolution(status) is source


async def test_event_choices_are_shown_and_the_selected_one_decides_the_route(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Scenario 4: HUMAN_REVIEW with structured choices, up to four as an agent's; they join the
    agent's own question, both are answered."""
    choices = [
        {"label": "Back to discovery", "value": "DISCOVERY_ORCHESTRATOR", "description": "rescan"},
        {"label": "On to tickets", "value": "TICKET_ORCHESTRATOR", "description": "skip ahead"},
        {"label": "Wait", "value": "PLANNING_ORCHESTRATOR", "description": "plan again"},
        {"label": "Collect", "value": "ORCHESTRATOR_COLLECTOR", "description": "end"},
    ]
    offline, handle, _pending, question, child = await _steer(
        client,
        task_queue,
        workflow_id,
        AgentType.PLANNING_ORCHESTRATOR,
        AgentType.DISCOVERY_ORCHESTRATOR,
        choices=choices,
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        *own, shown = question.request.choices
        assert own and all(c.choice_id != "supervisor" for c in own), "the agent's own stay"
        assert shown.choice_id == "supervisor"
        assert [o.description for o in shown.options][:4] == [
            "Back to discovery: rescan",
            "On to tickets: skip ahead",
            "Wait: plan again",
            "Collect: end",
        ]
        resolution = answer_all(question.request, option="B")
        ack = await child.execute_update(InterruptWorkflow.resolve_validated, resolution)
        answered = await child.query(InterruptWorkflow.status)
        assert answered.continues_at is AgentType.TICKET_ORCHESTRATOR
        await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
    # the acknowledgement names where the chosen option leads, not the event's own target
    assert ack.message == (
        "the run continues at TICKET_ORCHESTRATOR (re-routed from PLANNING_ORCHESTRATOR)"
    )
    (call,) = translation_calls(offline.received)
    assert list(call["response_format"]["json_schema"]["schema"]["properties"]) == [
        "ticketOrchestratorRequest"
    ]
    assert _next_request_after_resolution(status) is AgentType.TICKET_ORCHESTRATOR


async def test_event_for_an_agent_that_is_not_running_sends_nothing(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Scenario 5: no message, an informational event, nothing stored; the update says why."""
    offline = OfflineModel(OfflineScenario(delays={AgentType.ORCHESTRATOR: 2.0}))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        await wait_running(handle, AgentType.ORCHESTRATOR)
        event = _event(AgentType.MERGER_AGENT, AgentType.DISCOVERY_ORCHESTRATOR)
        await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, event)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await handle.execute_update(
                OrchestratorWorkflow.send_interrupt_event,
                InterruptRequestEvent.model_validate(event),
            )
        assert "MERGER_AGENT is not running (running now: ORCHESTRATOR" in str(err.value.cause)
        status = await full_status(client, handle)
        assert status.stored_events == {}
        info = [e.message for e in status.events if e.kind is EventKind.INFO]
        assert any("MERGER_AGENT is not running" in m for m in info)
        await asyncio.wait_for(handle.result(), 60)
        final = await full_status(client, handle)
    assert not _asked(offline, "Need clarification")
    assert not any(e.kind is EntryKind.INTERRUPT for e in final.history)


async def test_second_event_for_the_same_node_is_ignored(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    source = AgentType.REVIEW_AGENT
    offline, handle, _pending, question, child = await _steer(
        client, task_queue, workflow_id, source, AgentType.TICKET_ORCHESTRATOR
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        second = _event(source, AgentType.MERGER_AGENT)
        await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, second)
        await child.execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question.request)
        )
        await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
    assert sum(1 for e in status.history if e.kind is EntryKind.INTERRUPT) == 1
    assert _next_request_after_resolution(status) is AgentType.TICKET_ORCHESTRATOR
    notes = [e.message for e in status.events if second["eventId"] in e.message]
    assert notes and "already waiting" in notes[0]


async def test_duplicate_event_while_the_agent_runs_is_ignored(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    offline = OfflineModel(OfflineScenario(delays={AgentType.MERGER_AGENT: SLOW}))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        await wait_running(handle, AgentType.MERGER_AGENT)
        first = _event(AgentType.MERGER_AGENT, AgentType.REVIEW_AGENT)
        second = _event(AgentType.MERGER_AGENT, AgentType.TICKET_ORCHESTRATOR)
        await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, first)
        await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, second)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None and pending.reroute_to_agent_type is AgentType.REVIEW_AGENT
        status = await full_status(client, handle)
        ignored = [e.message for e in status.events if second["eventId"] in e.message]
        assert ignored and "only the first event for a node is processed" in ignored[0]
        question = await interrupt_status(client, pending.workflow_id)
        await client.get_workflow_handle(pending.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question.request)
        )
        await asyncio.wait_for(handle.result(), 60)
    assert len(_asked(offline, "Need clarification")) == 1


@pytest.mark.parametrize(
    "payload",
    [
        {"eventId": "x", "sourceAgentType": "NOT_AN_AGENT", "reason": "r"},
        {"eventId": "x", "sourceAgentType": "ORCHESTRATOR", "reason": ""},
        {
            "eventId": "x",
            "sourceAgentType": "ORCHESTRATOR",
            "reason": "r",
            "rerouteToAgentType": "TICKET_AGENT",
        },
        "not an object",
    ],
    ids=["unknown-agent", "empty-reason", "reroute-without-route", "not-an-object"],
)
async def test_malformed_event_is_recorded_and_the_run_is_unaffected(
    client: Client, task_queue: str, workflow_id: str, payload: Any
) -> None:
    offline = OfflineModel(OfflineScenario(delays={AgentType.ORCHESTRATOR: 1.0}))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id)
        await wait_running(handle, AgentType.ORCHESTRATOR)
        await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, payload)
        result = await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
    assert result.summary
    errors = [e.message for e in status.events if e.kind is EventKind.ERROR]
    assert len(errors) == 1 and "malformed InterruptRequestEvent" in errors[0]
    assert not any(e.kind is EntryKind.INTERRUPT for e in status.history)


def _routing_name(agent: AgentType) -> str:
    from agent_interrupts.models.graph import NODES

    return NODES[agent].output_model.__name__


async def test_event_arriving_as_the_agent_finishes_is_neither_lost_nor_doubled(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The signal lands while the call's result is on its way: that result is superseded and
    the node runs again with the message, once. The fake sends the same event again when the
    merger runs a second time: a repeated eventId is ignored."""
    offline = OfflineModel()
    settings = LlmSettings()
    real = AgentActivities(
        StructuredLlm(openai_client(settings, offline), settings), PromptRenderer()
    )
    event = _event(AgentType.MERGER_AGENT, AgentType.REVIEW_AGENT)

    @activity.defn(name="run_agent")
    async def run_agent_then_signal(call: AgentCall) -> AgentReply:
        reply = await real.run_agent(call)
        if call.agent_type is AgentType.MERGER_AGENT and not call.user_messages:
            handle = client.get_workflow_handle(workflow_id)
            await handle.signal(INTERRUPT_REQUEST_EVENT_SIGNAL, event)
        return reply

    resolution = ResolutionActivities(
        StructuredLlm(openai_client(settings, offline), settings), PromptRenderer()
    )
    async with Worker(
        client,
        task_queue=task_queue,
        workflows=WORKFLOWS,
        workflow_runner=WORKFLOW_RUNNER,
        activities=[
            run_agent_then_signal,
            resolution.translate_resolution,
            resolution.review_interrupt,
        ],
    ):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None and pending.origin_agent_type is AgentType.MERGER_AGENT
        question = await interrupt_status(client, pending.workflow_id)
        await client.get_workflow_handle(pending.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question.request)
        )
        await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
    merger_outputs = [
        e
        for e in status.history
        if e.agent_type is AgentType.MERGER_AGENT and e.kind is EntryKind.OUTPUT
    ]
    assert merger_outputs[0].route == "interruptRequest", "the superseded reply was not acted on"
    assert len(_asked(offline, "Need clarification")) == 1
    assert sum(1 for e in status.history if e.kind is EntryKind.INTERRUPT) == 1
    assert _next_request_after_resolution(status) is AgentType.REVIEW_AGENT
    repeated = [e.message for e in status.events if "was already processed" in e.message]
    assert len(repeated) == 1 and event["eventId"] in repeated[0]


async def test_events_work_across_continue_as_new_and_the_history_replays(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Continue-as-new every 3 steps: state (and stored events) carry over; replay is clean."""
    offline = OfflineModel(OfflineScenario(delays={AgentType.PLANNING_ORCHESTRATOR: SLOW}))
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        handle = await start(client, task_queue, workflow_id, continue_as_new_every=3)
        await wait_running(handle, AgentType.PLANNING_ORCHESTRATOR)
        await handle.signal(
            INTERRUPT_REQUEST_EVENT_SIGNAL,
            _event(AgentType.PLANNING_ORCHESTRATOR, AgentType.DISCOVERY_ORCHESTRATOR),
        )
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        question = await interrupt_status(client, pending.workflow_id)
        await client.get_workflow_handle(pending.workflow_id).execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question.request)
        )
        result = await asyncio.wait_for(handle.result(), 90)
        status = await full_status(client, handle)
        runs = [h async for h in client.list_workflows(f"WorkflowId = '{workflow_id}'")]
    assert result.summary
    assert len(runs) > 3, "the run continued as new several times"
    assert status.history[0].agent_type is AgentType.ORCHESTRATOR, "history carried over"
    assert sum(1 for e in status.history if e.kind is EntryKind.INTERRUPT) == 1
    assert _next_request_after_resolution(status) is AgentType.DISCOVERY_ORCHESTRATOR
    replayer = Replayer(
        workflows=WORKFLOWS, workflow_runner=WORKFLOW_RUNNER, data_converter=pydantic_data_converter
    )
    for run in runs:
        history = await client.get_workflow_handle(workflow_id, run_id=run.run_id).fetch_history()
        assert (await replayer.replay_workflow(history)).replay_failure is None


def _prompts_of(offline: OfflineModel, agent: AgentType) -> list[str]:
    """The system prompts of ``agent``'s LLM calls, in order."""
    name = _routing_name(agent)
    return [
        r["messages"][0]["content"]
        for r in offline.received
        if r["response_format"]["json_schema"]["name"] == name
    ]


_SUPERVISOR_ITEM = {
    "confirmationId": "freeze-scope",
    "statement": "Freeze the scope at the three specified modules",
    "context": "c",
    "defaultValue": True,
    "impactIfNo": "all 15 modules are planned",
}
_WRITE_IN = '  Plan only "rate limits" \u2014 then stop.'


async def test_the_agent_that_asked_reads_each_part_of_a_joined_question(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """handler US3: the supervisor's part of a joined question reaches the resumed agent
    with its words: its question, the typed CUSTOM text as typed, its confirmation's statement
    and answer; the agent's own part is told as its own."""
    source = AgentType.PLANNING_ORCHESTRATOR
    choices = [
        {"label": "Keep planning", "value": "keep", "description": "as is"},
        {"label": "Narrow", "value": "narrow", "description": "three modules"},
    ]
    offline, handle, _pending, question, child = await _steer(
        client,
        task_queue,
        workflow_id,
        source,
        None,
        choices=choices,
        confirmationItems=[_SUPERVISOR_ITEM],
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        before = len(_prompts_of(offline, source))
        answer = answer_all(question.request).model_copy(
            update={
                "selected_choices": {
                    **answer_all(question.request).selected_choices,
                    "supervisor": "CUSTOM",
                },
                "custom_inputs": {"supervisor": _WRITE_IN},
            }
        )
        await child.execute_update(InterruptWorkflow.resolve_validated, answer)
        await asyncio.wait_for(handle.result(), 60)
    resumed = _prompts_of(offline, source)[before]
    own = next(c for c in question.request.choices if c.choice_id != "supervisor")
    own_option = next(o.description for o in own.options if o.key.value == "B")
    assert "You asked a question earlier" in resumed
    assert f"- {own.question} -> B ({own_option})" in resumed, "its own part, as its own"
    assert "A supervisor's question (event " in resumed
    assert "- Need clarification on discovery scope -> CUSTOM: " in resumed
    assert f'CUSTOM: "{_WRITE_IN}"' in resumed, "the write-in as typed"
    assert "- Freeze the scope at the three specified modules -> no" in resumed
    assert "supervisor -> " not in resumed, "never a bare id"


async def test_an_agent_the_answer_sends_the_run_to_is_told_it_did_not_ask(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """handler US3: the agent a supervisor's option sends the run to is told who sent it
    there and why, with the supervisor's part; not "you asked", nor the asking agent's own
    answer. The run's events say the asking agent's own part was not taken, and what it was."""
    source = AgentType.PLANNING_ORCHESTRATOR
    choices = [
        {"label": "Back to discovery", "value": "DISCOVERY_ORCHESTRATOR", "description": "rescan"},
        {"label": "On to tickets", "value": "TICKET_ORCHESTRATOR", "description": "skip ahead"},
    ]
    offline, handle, _pending, question, child = await _steer(
        client,
        task_queue,
        workflow_id,
        source,
        None,
        choices=choices,
        confirmationItems=[_SUPERVISOR_ITEM],
    )
    async with build_worker(client, task_queue, LlmSettings(), offline=offline):
        await child.execute_update(
            InterruptWorkflow.resolve_validated, answer_all(question.request, option="B")
        )
        await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
    (resumed, *_) = _prompts_of(offline, AgentType.TICKET_ORCHESTRATOR)
    own = next(c for c in question.request.choices if c.choice_id != "supervisor")
    assert "You asked a question earlier" not in resumed
    assert f"You did not ask a question earlier: {source.value} asked one" in resumed
    assert "chose the supervisor's option B (On to tickets: skip ahead)" in resumed
    assert "- Need clarification on discovery scope -> B (On to tickets: skip ahead)" in resumed
    assert "- Freeze the scope at the three specified modules -> no" in resumed
    assert f"{own.question} ->" not in resumed, "never the asking agent's own answer"
    assert f"{source.value}'s own part of the question" in resumed
    (not_taken,) = [e for e in status.events if "own part of the answer to" in e.message]
    assert not_taken.kind is EventKind.WARNING
    assert f"{source.value}'s own part of the answer to " in not_taken.message
    assert f"is not taken, the run continues at {AgentType.TICKET_ORCHESTRATOR.value}: " in (
        not_taken.message
    )
    assert f"{own.question} -> B (" in not_taken.message, "what the own part was"
