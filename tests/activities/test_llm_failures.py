"""LLM failures say what happened and what to change, never leak the key,
and the timeouts compose.

Everything talks HTTP through the real openai SDK to ``ScriptedOpenAIServer`` and runs on the
session's Temporal dev server. Retries are exercised by a one-activity workflow with AGENT_RETRY's
attempts and a short backoff; the endpoint's errors stop at ``endpoint_attempts``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from datetime import timedelta

import pytest
from temporalio import workflow
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowFailureError, WorkflowHistory
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.worker import Worker

from agent_interrupts.activities.agents import AgentActivities
from agent_interrupts.activities.llm import LlmSettings, StructuredLlm
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.app.worker_setup import build_worker, openai_client
from agent_interrupts.models.agent_call import AgentCall, AgentReply
from agent_interrupts.models.errors import (
    InvalidLlmReply,
    LlmConfigurationError,
    LlmReplyTooLarge,
    LlmTimedOut,
    LlmUnavailable,
)
from agent_interrupts.models.policies import (
    AGENT_CALL_MARGIN,
    AGENT_HEARTBEAT_INTERVAL,
    AGENT_HEARTBEAT_TIMEOUT,
    AGENT_RETRY,
    AGENT_START_TO_CLOSE,
    LLM_REPLY_LIMIT,
    LLM_REQUEST_TIMEOUT,
    LLM_VALIDATION_ATTEMPTS,
)
from agent_interrupts.models.state import OrchestratorInput
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.routings import OrchestratorRouting
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import answer_offered, interrupt_status, wait_for_interrupt
from tests.support.openai_server import CONTEXT, CUT, HANG, HUGE, ScriptedOpenAIServer
from tests.support.prompts import make_call

SECRET = "sk-failures-0123456789abcdef"
MODEL = "test-model"
SHORT_TIMEOUT = timedelta(seconds=0.3)
ATTEMPTS = 2
RESULT_TIMEOUT = 30
TEMPORAL_PAYLOAD_LIMIT = 2 * 2**20


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as running:
        yield running


def _settings(server: ScriptedOpenAIServer, **overrides: object) -> LlmSettings:
    return LlmSettings(api_key=SECRET, base_url=server.base_url, model=MODEL, **overrides)  # type: ignore[arg-type]


# -- timeouts compose --------------------------------------------------------------------------


def test_every_llm_request_of_an_agent_call_times_out_before_the_activity_does() -> None:
    requests = LLM_REQUEST_TIMEOUT * LLM_VALIDATION_ATTEMPTS
    assert requests + AGENT_CALL_MARGIN <= AGENT_START_TO_CLOSE
    assert timedelta(seconds=10) <= AGENT_CALL_MARGIN, "room for prompts and validation"
    # three missed beats, and a dead worker is noticed within seconds
    assert AGENT_HEARTBEAT_INTERVAL * 3 <= AGENT_HEARTBEAT_TIMEOUT <= timedelta(seconds=5)
    assert LLM_REPLY_LIMIT <= TEMPORAL_PAYLOAD_LIMIT // 2
    assert "LlmReplyTooLarge" in AGENT_RETRY.non_retryable_error_types


def test_settings_whose_requests_outlast_the_activity_are_refused() -> None:
    LlmSettings(request_timeout=SHORT_TIMEOUT, validation_attempts=10)
    too_long = (AGENT_START_TO_CLOSE - AGENT_CALL_MARGIN) / 2 + timedelta(seconds=1)
    with pytest.raises(ValueError, match=r"models/policies\.py"):
        LlmSettings(request_timeout=too_long, validation_attempts=2)
    with pytest.raises(ValueError, match="0 validation attempts"):
        LlmSettings(validation_attempts=0)


async def _ask_once(settings: LlmSettings) -> None:
    """One structured call through a fresh SDK client (closed afterwards)."""
    sdk = openai_client(settings)
    try:
        await StructuredLlm(sdk, settings).complete(
            agent="ORCHESTRATOR",
            messages=[{"role": "user", "content": "Goal: x"}],
            output_model=OrchestratorRouting,
            template_version="test",
        )
    finally:
        await sdk.close()


async def test_the_request_timeout_applies_to_each_request(server: ScriptedOpenAIServer) -> None:
    server.play(HANG)
    settings = _settings(server, request_timeout=SHORT_TIMEOUT)
    with pytest.raises(LlmTimedOut) as raised:
        await _ask_once(settings)
    message = str(raised.value)
    assert message.startswith("ORCHESTRATOR: the LLM endpoint at http://127.0.0.1:")
    assert "did not answer within 0.3 s. To fix it," in message
    assert "LLM_REQUEST_TIMEOUT" in message and "retr" not in message


async def test_an_unreachable_endpoint_names_openai_base_url() -> None:
    with ScriptedOpenAIServer() as gone:
        settings = _settings(gone)
    with pytest.raises(LlmUnavailable) as raised:
        await _ask_once(settings)
    assert "could not connect to the LLM endpoint at http://127.0.0.1:" in str(raised.value)
    assert "check OPENAI_BASE_URL" in str(raised.value)


# -- the last attempt knows it is the last -----------------------------------------------------


@workflow.defn(sandboxed=False)
class OneAgentCall:
    """Runs ``run_agent`` once with AGENT_RETRY's attempts and error types, short backoff."""

    @workflow.run
    async def run(self, call: AgentCall) -> AgentReply:
        return await workflow.execute_activity_method(
            AgentActivities.run_agent,
            call,
            start_to_close_timeout=AGENT_START_TO_CLOSE,
            heartbeat_timeout=AGENT_HEARTBEAT_TIMEOUT,
            retry_policy=RetryPolicy(
                initial_interval=timedelta(milliseconds=50),
                maximum_attempts=AGENT_RETRY.maximum_attempts,
                non_retryable_error_types=AGENT_RETRY.non_retryable_error_types,
            ),
        )


async def _fail_one_call(
    client: Client, server: ScriptedOpenAIServer, task_queue: str, workflow_id: str
) -> tuple[ApplicationError, WorkflowHistory]:
    settings = _settings(server, request_timeout=SHORT_TIMEOUT, endpoint_attempts=ATTEMPTS)
    agents = AgentActivities(StructuredLlm(openai_client(settings), settings), PromptRenderer())
    async with Worker(
        client, task_queue=task_queue, workflows=[OneAgentCall], activities=[agents.run_agent]
    ):
        handle = await client.start_workflow(
            OneAgentCall.run,
            make_call(AgentType.ORCHESTRATOR),
            id=workflow_id,
            task_queue=task_queue,
        )
        with pytest.raises(WorkflowFailureError) as failure:
            await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)
        history = await handle.fetch_history()
    activity_error = failure.value.cause
    assert isinstance(activity_error, ActivityError)
    cause = activity_error.cause
    assert isinstance(cause, ApplicationError)
    return cause, history


@pytest.mark.parametrize(
    ("fault", "error", "what", "fix"),
    [
        (HANG, LlmTimedOut, "did not answer within 0.3 s", "the worker's LLM_REQUEST_TIMEOUT"),
        ("500", LlmUnavailable, "answered HTTP 500 (scripted failure", "OPENAI_BASE_URL"),
        ("429", LlmUnavailable, "is rate limiting us (HTTP 429", "wait for the quota"),
    ],
)
async def test_the_final_failure_says_what_happened_and_what_to_change_and_no_retry(
    client: Client,
    server: ScriptedOpenAIServer,
    task_queue: str,
    workflow_id: str,
    fault: str,
    error: type[Exception],
    what: str,
    fix: str,
) -> None:
    server.play(*[fault] * ATTEMPTS)

    cause, history = await _fail_one_call(client, server, task_queue, workflow_id)

    assert server.replies == [fault] * ATTEMPTS
    assert cause.type == error.__name__
    assert cause.message.startswith("ORCHESTRATOR: ")
    assert what in cause.message
    assert f"on the last of {ATTEMPTS} attempts. To fix it, " in cause.message
    assert fix in cause.message
    assert "retries" not in cause.message
    # The first attempt said it would be retried, and it was.
    [started] = [
        e.activity_task_started_event_attributes
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
    ]
    assert started.attempt == ATTEMPTS
    earlier = started.last_failure.message
    assert what in earlier
    assert f"(attempt 1 of {ATTEMPTS}; Temporal retries). If it persists, " in earlier
    assert SECRET not in history.to_json()


# -- replies too large for Temporal ------------------------------------------------------------


async def test_a_reply_over_the_payload_limit_asks_a_person_at_once_naming_agent_and_fix(
    client: Client, server: ScriptedOpenAIServer, task_queue: str, workflow_id: str
) -> None:
    """Asking the model again will not shrink its reply: the activity fails at once, and the run
    asks a person at the node instead of failing; the answer runs it again."""
    server.play(HUGE)

    async with build_worker(client, task_queue, _settings(server)):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal="add a health check"),
            id=workflow_id,
            task_queue=task_queue,
        )
        status = await wait_for_interrupt(handle, RESULT_TIMEOUT)
        pending = status.pending_interrupt
        assert pending is not None and pending.origin_agent_type is AgentType.ORCHESTRATOR
        question = await interrupt_status(client, pending.workflow_id)
        child = client.get_workflow_handle(pending.workflow_id)
        await child.execute_update("resolve_validated", answer_offered(question.request))
        result = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)
        history = await handle.fetch_history()

    assert result is not None, "answered, the agent ran again and the run went on"
    assert server.replies[0] == HUGE, "asked once: neither validation nor Temporal retries it"
    why = question.request.context_for_decision
    assert "ORCHESTRATOR" in why and "replied with 2.5 MiB, more than the 1 MiB" in why
    assert "AGENT_MODEL" in why
    [failed] = [
        e.activity_task_failed_event_attributes.failure
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED
    ]
    assert failed.application_failure_info.type == LlmReplyTooLarge.__name__
    assert failed.application_failure_info.non_retryable
    assert "TMPRL1103" not in history.to_json()


@pytest.mark.parametrize("fail_fast", [False, True], ids=["asks", "failOnInvalidReplies"])
async def test_an_endpoint_down_on_every_attempt_asks_a_person_unless_the_run_says_fail(
    client: Client,
    server: ScriptedOpenAIServer,
    task_queue: str,
    workflow_id: str,
    fail_fast: bool,
) -> None:
    server.play(*["500"] * ATTEMPTS)
    settings = _settings(server, endpoint_attempts=ATTEMPTS)
    async with build_worker(client, task_queue, settings):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal="add a health check", fail_on_invalid_replies=fail_fast),
            id=workflow_id,
            task_queue=task_queue,
        )
        if fail_fast:
            with pytest.raises(WorkflowFailureError) as failure:
                await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)
            assert "answered HTTP 500" in str(failure.value.cause)
            return
        status = await wait_for_interrupt(handle, RESULT_TIMEOUT)
        pending = status.pending_interrupt
        assert pending is not None
        question = await interrupt_status(client, pending.workflow_id)
        assert "answered HTTP 500 (scripted failure" in question.request.context_for_decision
        assert f"on the last of {ATTEMPTS} attempts" in question.request.context_for_decision
        child = client.get_workflow_handle(pending.workflow_id)
        await child.execute_update("resolve_validated", answer_offered(question.request))
        assert await asyncio.wait_for(handle.result(), RESULT_TIMEOUT) is not None
    assert server.replies[:ATTEMPTS] == ["500"] * ATTEMPTS


# -- an endpoint that echoes the key -----------------------------------------------------------


async def test_an_http_400_echoing_the_key_reaches_no_history_log_or_failure(
    client: Client,
    server: ScriptedOpenAIServer,
    task_queue: str,
    workflow_id: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    server.play("400")
    caplog.set_level(logging.DEBUG)

    async with build_worker(client, task_queue, _settings(server)):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal="add a health check"),
            id=workflow_id,
            task_queue=task_queue,
        )
        with pytest.raises(WorkflowFailureError) as failure:
            await asyncio.wait_for(handle.result(), RESULT_TIMEOUT)
        history = await handle.fetch_history()
        status = await handle.query(OrchestratorWorkflow.status)

    assert server.replies == ["400"]
    assert server.completions[0].headers["authorization"] == f"Bearer {SECRET}"
    cause = failure.value.cause
    assert isinstance(cause, ApplicationError)
    # The endpoint's words are quoted, with the key taken out; the fix is named.
    assert "HTTP 400: scripted failure: HTTP 400" in cause.message
    assert "Bearer [REDACTED]" in cause.message
    assert "AGENT_MODEL" in cause.message
    failed = [
        e
        for e in history.events
        if e.event_type
        in (
            EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED,
            EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
        )
    ]
    assert len(failed) == 2
    assert LlmConfigurationError.__name__ in history.to_json()
    assert "run_agent" in caplog.text or "ORCHESTRATOR" in caplog.text, "the worker logged it"
    for text in (history.to_json(), caplog.text, str(failure.value), cause.message):
        assert SECRET not in text
        assert SECRET[-12:] not in text
    assert SECRET not in status.model_dump_json()


# -- the model's pace and output are settings -----------------------------------------------


async def test_every_request_carries_the_output_token_limit(server: ScriptedOpenAIServer) -> None:
    settings = _settings(
        server, max_output_tokens=321, agent_max_output_tokens={"REVIEW_AGENT": 99}
    )
    await _ask_once(settings)
    assert server.completions[-1].body["max_completion_tokens"] == 321
    assert settings.max_tokens_for("REVIEW_AGENT") == (99, "LLM_MAX_OUTPUT_TOKENS_REVIEW_AGENT")


async def test_a_reply_cut_off_at_the_limit_is_sent_back_naming_the_setting(
    server: ScriptedOpenAIServer,
) -> None:
    server.play(CUT)
    await _ask_once(_settings(server, max_output_tokens=200))
    assert server.replies == [CUT, "valid"]
    sent_back = server.completions[1].messages[-1]["content"]
    assert "cut off at the output token limit (200 tokens, LLM_MAX_OUTPUT_TOKENS)" in sent_back


async def test_replies_that_stay_cut_off_fail_naming_the_setting(
    server: ScriptedOpenAIServer,
) -> None:
    server.play(CUT, CUT, CUT)
    with pytest.raises(InvalidLlmReply, match="LLM_MAX_OUTPUT_TOKENS"):
        await _ask_once(_settings(server))


async def test_a_prompt_too_long_for_the_context_is_one_line_naming_the_model(
    server: ScriptedOpenAIServer,
) -> None:
    server.play(CONTEXT)
    with pytest.raises(LlmConfigurationError) as raised:
        await _ask_once(_settings(server))
    message = str(raised.value)
    assert "do not fit the context of model 'test-model'" in message
    assert "LLM_MAX_OUTPUT_TOKENS" in message and "\n" not in message
