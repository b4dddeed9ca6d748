"""An agent whose model keeps answering invalid replies asks a person at that
node instead of failing the run; only the start input's ``failOnInvalidReplies`` fails it.

A real OpenAI-compatible server (``ScriptedOpenAIServer``) answers the first agent's three
attempts with JSON that no output model accepts, then answers validly."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowFailureError

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.export import Format, export
from agent_interrupts.app.lineage_records import check_file
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import failure_message
from agent_interrupts.models.interrupts import InterruptType
from agent_interrupts.models.state import EventKind
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.questions import OrchestratorInterruptRequest
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.stuck_questions import MORE_TOKENS_ID, ROUTE_CHOICE_ID
from tests.support.interrupts import (
    answer_all,
    full_status,
    interrupt_status,
    start,
    wait_for_interrupt,
)
from tests.support.openai_server import CONTEXT, CUT, INVALID, VALID, ScriptedOpenAIServer


def _settings(server: ScriptedOpenAIServer) -> LlmSettings:
    return LlmSettings(api_key="sk-stuck", base_url=server.base_url, model="stuck-model")


async def test_a_stuck_agent_asks_a_person_and_the_run_goes_on(
    client: Client, task_queue: str, workflow_id: str, tmp_path: Path
) -> None:
    with ScriptedOpenAIServer([INVALID] * 3) as server:
        async with build_worker(client, task_queue, _settings(server)):
            handle = await start(client, task_queue, workflow_id)
            status = await wait_for_interrupt(handle, timeout=60)
            pending = status.pending_interrupt
            assert pending is not None and pending.origin_agent_type is AgentType.ORCHESTRATOR
            question = (await interrupt_status(client, pending.workflow_id)).request
            assert isinstance(question, OrchestratorInterruptRequest)
            assert question.type is InterruptType.HUMAN_REVIEW
            assert "notInAnyOutputSchema" in question.context_for_decision
            assert "stop the run (stopRun" in question.context_for_decision
            assert "send the run on to DISCOVERY_ORCHESTRATOR" in question.context_for_decision
            [choice] = question.choices
            assert choice.choice_id == ROUTE_CHOICE_ID
            assert any("discoveryOrchestratorRequest" in o.description for o in choice.options)
            warnings = [e.message for e in status.events if e.kind is EventKind.WARNING]
            assert any("could not finish its step; a person is asked" in w for w in warnings)
            await client.get_workflow_handle(pending.workflow_id).execute_update(
                InterruptWorkflow.resolve_validated, answer_all(question, option="A")
            )
            await asyncio.wait_for(handle.result(), 60)
    assert server.replies[:3] == [INVALID] * 3
    rerun = [c for c in server.completions if c.schema_name == "OrchestratorRouting"][3]
    prompt = str(rerun.messages)  # the orchestrator again, after the answer
    assert "Run it again, told to take discoveryOrchestratorRequest" in prompt
    assert "notInAnyOutputSchema" in prompt, "the re-run is told why its replies were refused"
    out = tmp_path / "native.jsonl"
    await export(client, out, fmt=Format.NATIVE, ids=[workflow_id])
    assert check_file(out).unresolved == {}, "the stuck question's lineage closes"


async def test_the_start_input_may_say_invalid_replies_fail_the_run(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    with ScriptedOpenAIServer([INVALID] * 3) as server:
        async with build_worker(client, task_queue, _settings(server)):
            handle = await start(client, task_queue, workflow_id, fail_on_invalid_replies=True)
            with pytest.raises(WorkflowFailureError) as failed:
                await asyncio.wait_for(handle.result(), 60)
    assert "did not produce a valid OrchestratorRouting" in failure_message(failed.value)


async def test_a_prompt_over_the_context_setting_drops_old_context_and_says_so(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The oldest optional context goes first, never the request; recorded."""
    settings = LlmSettings(max_output_tokens=100, context_tokens=1500)
    async with build_worker(client, task_queue, settings):
        handle = await start(client, task_queue, workflow_id)
        await asyncio.wait_for(handle.result(), 90)
        status = await full_status(client, handle)
    trims = [e.message for e in status.events if "trimmed to fit LLM_CONTEXT_TOKENS" in e.message]
    assert trims and all("(1500) with 100 output tokens: dropped " in t for t in trims)
    assert any("dropped entry " in t for t in trims), "the recent entries go first"


async def test_a_prompt_the_endpoint_refuses_as_too_long_drops_old_context_and_runs_on(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Without LLM_CONTEXT_TOKENS: the endpoint's 400 for a prompt over the
    model's context makes the call drop its oldest optional context and try again; recorded."""
    with ScriptedOpenAIServer([VALID, CONTEXT]) as server:
        async with build_worker(client, task_queue, _settings(server)):
            handle = await start(client, task_queue, workflow_id)
            await asyncio.wait_for(handle.result(), 90)
            status = await full_status(client, handle)
    assert server.replies[:3] == [VALID, CONTEXT, VALID]
    refused, retried = server.completions[1], server.completions[2]
    assert refused.schema_name == retried.schema_name  # the same agent's call, tried again
    assert len(json.dumps(retried.messages)) < len(json.dumps(refused.messages))
    [dropped] = [e.message for e in status.events if "does not fit the model: dropped" in e.message]
    assert "context " in dropped  # a curated context the prompt showed went


async def test_a_prompt_too_long_with_nothing_left_to_drop_asks_a_person(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The first agent's prompt shows no optional context: the refusal goes to a person."""
    with ScriptedOpenAIServer([CONTEXT]) as server:
        async with build_worker(client, task_queue, _settings(server)):
            handle = await start(client, task_queue, workflow_id)
            status = await wait_for_interrupt(handle, timeout=60)
            pending = status.pending_interrupt
            assert pending is not None and pending.origin_agent_type is AgentType.ORCHESTRATOR
            question = await interrupt_status(client, pending.workflow_id)
            assert "do not fit the context of model 'stuck-model'" in (
                question.request.context_for_decision
            )
            assert question.deadline is None  # a person, not the reviewing model
            await client.get_workflow_handle(pending.workflow_id).execute_update(
                InterruptWorkflow.resolve_validated, answer_all(question.request, option="A")
            )
            await asyncio.wait_for(handle.result(), 60)


async def test_a_reply_cut_off_at_the_token_limit_may_get_twice_the_tokens(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """The stuck question offers more output tokens; yes doubles the re-run's
    limit (and only the re-run's), no keeps it."""
    with ScriptedOpenAIServer([CUT]) as server:
        settings = LlmSettings(
            api_key="sk-stuck",
            base_url=server.base_url,
            model="stuck-model",
            max_output_tokens=300,
            validation_attempts=1,
        )
        async with build_worker(client, task_queue, settings):
            handle = await start(client, task_queue, workflow_id)
            pending = (await wait_for_interrupt(handle, timeout=60)).pending_interrupt
            assert pending is not None
            question = (await interrupt_status(client, pending.workflow_id)).request
            [more] = question.confirmation_items
            assert more.confirmation_id == MORE_TOKENS_ID
            answer = answer_all(question, option="A").model_copy(
                update={"confirmations": {MORE_TOKENS_ID: True}}
            )
            await client.get_workflow_handle(pending.workflow_id).execute_update(
                InterruptWorkflow.resolve_validated, answer
            )
            await asyncio.wait_for(handle.result(), 60)
    limits = [
        c.body["max_completion_tokens"]
        for c in server.completions
        if c.schema_name == "OrchestratorRouting"
    ]
    assert limits == [300, 600], "the cut-off call, then its re-run with twice the tokens"
    others = {
        c.body["max_completion_tokens"]
        for c in server.completions
        if c.schema_name != "OrchestratorRouting"
    }
    assert others == {300}, "only the re-run got more"
