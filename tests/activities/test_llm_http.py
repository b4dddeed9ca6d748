"""The agent activity's real HTTP path against a local OpenAI-compatible server.

One code path (the openai SDK, Chat Completions, ``response_format``
``json_schema`` with ``strict: true`` and ``name`` = the output model's class name); invalid replies
are retried with the validation error fed back, then fail non-retryably; 5xx retries under
Temporal's retry policy; a bad API key does not retry; secrets never enter workflow history.

Nothing is mocked: the worker from ``app.worker_setup.build_worker`` talks HTTP through the real
openai SDK to ``tests.support.openai_server.ScriptedOpenAIServer``, the real
``OrchestratorWorkflow`` runs on the session's Temporal dev server, and every assertion is about
what the server received or what Temporal recorded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle, WorkflowHistory
from temporalio.exceptions import ApplicationError

from agent_interrupts.activities.llm import LlmSettings, StructuredLlm
from agent_interrupts.activities.output_schema import decoder_schema, shared_decoder_schema
from agent_interrupts.app.worker_setup import build_worker, openai_client
from agent_interrupts.models.errors import InvalidLlmReply, LlmConfigurationError, LlmUnavailable
from agent_interrupts.models.graph import NODES
from agent_interrupts.models.state import EventKind, OrchestratorInput
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.results import OrchestratorCollectorResult
from agent_interrupts.teams.software.routings import (
    OrchestratorCollectorRouting,
    OrchestratorRouting,
)
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import full_status
from tests.support.openai_server import (
    INVALID,
    INVALID_CONTENT,
    INVALID_FIELD,
    VALID,
    ScriptedOpenAIServer,
)

SECRET = "sk-test-SECRET123"
MODEL = "test-model"
GOAL = "add a health check endpoint"
RESULT_TIMEOUT = 30
OUTPUT_NAMES = {node.output_model.__name__ for node in NODES.values()}
FEEDBACK_PREFIX = "Your reply was not a valid"


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as running:
        yield running


def _settings(server: ScriptedOpenAIServer) -> LlmSettings:
    return LlmSettings(api_key=SECRET, base_url=server.base_url, model=MODEL)


async def _run(
    client: Client, server: ScriptedOpenAIServer, task_queue: str, workflow_id: str
) -> tuple[OrchestratorCollectorResult, WorkflowHistory]:
    """Run the orchestrator to completion on a worker that talks HTTP to ``server``."""
    async with build_worker(client, task_queue, _settings(server)):
        handle = await _start(client, task_queue, workflow_id)
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)
        return result, await handle.fetch_history()


async def _start(
    client: Client, task_queue: str, workflow_id: str, **options: Any
) -> WorkflowHandle[Any, OrchestratorCollectorResult]:
    return await client.start_workflow(
        OrchestratorWorkflow.run,
        OrchestratorInput(goal=GOAL, **options),
        id=workflow_id,
        task_queue=task_queue,
    )


def _events(history: WorkflowHistory, kind: EventType.ValueType) -> list[HistoryEvent]:
    return [e for e in history.events if e.event_type == kind]


def _feedback_turn(request_messages: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The last two messages: the assistant's bad reply and the user's correction."""
    assert len(request_messages) >= 2
    return request_messages[-2], request_messages[-1]


# -- through Temporal: the whole run ---------------------------------------------------------


async def test_valid_replies_complete_the_run_with_strict_json_schema_requests_bearing_the_key(
    client: Client, server: ScriptedOpenAIServer, task_queue: str, workflow_id: str
) -> None:
    result, history = await _run(client, server, task_queue, workflow_id)

    assert isinstance(result, OrchestratorCollectorResult)
    requests = server.completions
    assert requests, "the worker never called the LLM server"
    assert set(server.replies) == {VALID}
    assert requests[0].schema_name == OrchestratorRouting.__name__
    assert requests[-1].schema_name == OrchestratorCollectorRouting.__name__
    for request in requests:
        assert request.method == "POST"
        assert request.body["model"] == MODEL
        assert request.headers["authorization"] == f"Bearer {SECRET}"
        fmt = request.body["response_format"]
        assert fmt["type"] == "json_schema"
        assert set(fmt["json_schema"]) == {"name", "strict", "schema"}
        assert fmt["json_schema"]["strict"] is True
        assert fmt["json_schema"]["name"] in OUTPUT_NAMES
        schema = fmt["json_schema"]["schema"]
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        assert sorted(schema["required"]) == sorted(schema["properties"])
        roles = [m["role"] for m in request.messages]
        assert roles == ["system", "user"], "a valid first reply needs no feedback turn"
        assert f"Goal: {GOAL}" in request.messages[1]["content"]
    # One HTTP request per agent step: every completed activity was answered by this server.
    completed = _events(history, EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)
    assert len(completed) == len(requests)
    assert not _events(history, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED)


async def test_invalid_reply_is_fed_back_and_the_next_valid_reply_completes_the_run(
    client: Client, server: ScriptedOpenAIServer, task_queue: str, workflow_id: str
) -> None:
    server.play(INVALID)

    result, history = await _run(client, server, task_queue, workflow_id)

    assert isinstance(result, OrchestratorCollectorResult)
    first, second = server.completions[:2]
    assert server.replies[:2] == [INVALID, VALID]
    assert first.schema_name == second.schema_name == OrchestratorRouting.__name__
    # The retry is the same conversation plus the bad reply and a correction naming the problem.
    assert second.messages[: len(first.messages)] == first.messages
    assert len(second.messages) == len(first.messages) + 2
    bad, correction = _feedback_turn(second.messages)
    assert bad["role"] == "assistant"
    assert bad["content"] == INVALID_CONTENT
    assert correction["role"] == "user"
    assert correction["content"].startswith(f"{FEEDBACK_PREFIX} {OrchestratorRouting.__name__}")
    assert INVALID_FIELD in correction["content"]
    # The validation retry happened inside one activity attempt, not as a Temporal retry.
    started = _events(history, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
    assert started[0].activity_task_started_event_attributes.attempt == 1
    assert not _events(history, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED)


async def test_http_500_is_retried_by_temporal_and_the_run_completes(
    client: Client, server: ScriptedOpenAIServer, task_queue: str, workflow_id: str
) -> None:
    server.play("500")

    result, history = await _run(client, server, task_queue, workflow_id)

    assert isinstance(result, OrchestratorCollectorResult)
    first, second = server.completions[:2]
    assert server.replies[:2] == ["500", VALID]
    # The same request again (not a validation feedback turn) ...
    assert first.body == second.body
    assert first.schema_name == OrchestratorRouting.__name__
    # ... sent by a new activity attempt, not by the SDK's own retry loop (max_retries=0).
    assert first.headers.get("x-stainless-retry-count") == "0"
    assert second.headers.get("x-stainless-retry-count") == "0"
    started = _events(history, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)[0]
    attrs = started.activity_task_started_event_attributes
    assert attrs.attempt == 2
    assert attrs.last_failure.application_failure_info.type == LlmUnavailable.__name__
    assert "HTTP 500" in attrs.last_failure.message
    assert not attrs.last_failure.application_failure_info.non_retryable


async def test_http_401_fails_the_run_once_without_leaking_the_key(
    client: Client, server: ScriptedOpenAIServer, task_queue: str, workflow_id: str
) -> None:
    server.play("401")

    async with build_worker(client, task_queue, _settings(server)):
        handle = await _start(client, task_queue, workflow_id)
        with pytest.raises(WorkflowFailureError) as failure:
            await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)
        status = await full_status(client, handle)
        history = await handle.fetch_history()

    cause = failure.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.non_retryable
    assert "OPENAI_API_KEY" in cause.message
    assert "401" in cause.message
    # Attempted once: the server saw one request, which carried the key and got it echoed back.
    assert server.replies == ["401"]
    assert server.completions[0].headers["authorization"] == f"Bearer {SECRET}"
    [started] = _events(history, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
    assert started.activity_task_started_event_attributes.attempt == 1
    [failed] = _events(history, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED)
    info = failed.activity_task_failed_event_attributes.failure.application_failure_info
    assert info.type == LlmConfigurationError.__name__
    assert info.non_retryable
    # The secret is nowhere in the history, the failure or the status query.
    assert SECRET not in history.to_json()
    assert "SECRET123" not in history.to_json()
    assert SECRET not in str(failure.value) + str(cause)
    assert SECRET not in status.model_dump_json()
    errors = [e for e in status.events if e.kind is EventKind.ERROR]
    assert len(errors) == 1
    assert errors[0].agent_type is AgentType.ORCHESTRATOR
    assert "OPENAI_API_KEY" in errors[0].message
    assert status.current_node is None


async def test_reply_that_never_validates_fails_the_run_promptly_naming_the_agent(
    client: Client, server: ScriptedOpenAIServer, task_queue: str, workflow_id: str
) -> None:
    """With ``failOnInvalidReplies`` (otherwise a person is asked)."""
    server.play(INVALID, INVALID, INVALID)

    async with build_worker(client, task_queue, _settings(server)):
        handle = await _start(client, task_queue, workflow_id, fail_on_invalid_replies=True)
        with pytest.raises(WorkflowFailureError) as failure:
            await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)
        history = await handle.fetch_history()

    cause = failure.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == "AgentFailed"
    assert cause.non_retryable
    assert cause.message.startswith(f"{AgentType.ORCHESTRATOR} at ")
    assert f"did not produce a valid {OrchestratorRouting.__name__} in 3 attempts" in cause.message
    assert INVALID_FIELD in cause.message, "the last validation problem is reported"
    # Three validation attempts in one activity attempt; InvalidLlmReply is not retried.
    assert server.replies == [INVALID, INVALID, INVALID]
    third = server.completions[2]
    assert [m["role"] for m in third.messages[2:]] == ["assistant", "user"] * 2
    [failed] = _events(history, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED)
    info = failed.activity_task_failed_event_attributes.failure.application_failure_info
    assert info.type == InvalidLlmReply.__name__
    assert info.non_retryable
    # Failed cleanly: the workflow failed, and no workflow task failed (nothing is stuck).
    assert _events(history, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED)
    assert not _events(history, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)


# -- StructuredLlm.complete alone, over HTTP (no Temporal) -----------------------------------

_UNIT_MESSAGES = [
    {"role": "system", "content": "You are the ORCHESTRATOR agent."},
    {"role": "user", "content": f"Goal: {GOAL}"},
]


async def _complete(server: ScriptedOpenAIServer) -> Any:
    sdk = openai_client(_settings(server))
    try:
        return await StructuredLlm(sdk, _settings(server)).complete(
            agent=AgentType.ORCHESTRATOR.value,
            messages=list(_UNIT_MESSAGES),
            output_model=OrchestratorRouting,
            template_version="test",
        )
    finally:
        await sdk.close()


async def test_complete_feeds_the_validation_error_back_and_returns_the_next_valid_reply(
    server: ScriptedOpenAIServer,
) -> None:
    server.play(INVALID)

    reply = await _complete(server)

    assert isinstance(reply.value, OrchestratorRouting)
    assert reply.call.attempts == 2
    assert reply.call.model == MODEL
    first, second = server.completions
    assert first.messages == _UNIT_MESSAGES
    bad, correction = _feedback_turn(second.messages)
    assert second.messages[:2] == _UNIT_MESSAGES
    assert bad == {"role": "assistant", "content": INVALID_CONTENT}
    assert correction["role"] == "user"
    assert correction["content"].startswith(f"{FEEDBACK_PREFIX} OrchestratorRouting: ")
    assert f"{INVALID_FIELD}: Extra inputs are not permitted" in correction["content"]


async def test_every_request_sends_the_shared_strict_schema_unchanged(
    server: ScriptedOpenAIServer,
) -> None:
    """Requests share one schema object per output model instead of a copy."""
    server.play(INVALID)  # two requests, the second after the feedback turn
    await _complete(server)
    fresh = decoder_schema(OrchestratorRouting)
    assert shared_decoder_schema(OrchestratorRouting) == fresh, "no request modified it"
    sent = [c.body["response_format"]["json_schema"]["schema"] for c in server.completions]
    assert sent == [fresh, fresh]


@pytest.mark.parametrize(
    ("status", "error"),
    [
        ("401", LlmConfigurationError),
        ("403", LlmConfigurationError),
        ("404", LlmConfigurationError),
        ("429", LlmUnavailable),
        ("500", LlmUnavailable),
        ("503", LlmUnavailable),
    ],
)
async def test_complete_maps_http_status_to_error_once_without_sdk_retries(
    server: ScriptedOpenAIServer, status: str, error: type[Exception]
) -> None:
    server.play(status)

    with pytest.raises(error) as raised:
        await _complete(server)

    assert server.replies == [status], "the SDK must not retry (max_retries=0)"
    assert f"HTTP {status}" in str(raised.value)
    assert SECRET not in str(raised.value)
    assert raised.value.__cause__ is None


async def test_complete_raises_invalid_llm_reply_after_three_invalid_replies(
    server: ScriptedOpenAIServer,
) -> None:
    server.play(INVALID, INVALID, INVALID, VALID)

    with pytest.raises(InvalidLlmReply) as raised:
        await _complete(server)

    assert server.replies == [INVALID, INVALID, INVALID]
    assert str(raised.value).startswith(f"{AgentType.ORCHESTRATOR.value}: the model {MODEL!r}")
    assert "AGENT_MODEL" in str(raised.value)
