"""A stuck agent's question always offers a way out of the loop, as real options: a model that
never writes a valid reply (every agent call and every translation) cannot keep a run asking
the same question. Following the recommendation each time moves the run on within two questions
per agent; stopping ends the run naming who stopped it; continuing at the next agent runs it
next; CUSTOM answers in the agent's place, taken word for word as its answer.

A real OpenAI-compatible server (``ScriptedOpenAIServer(then=INVALID)``) answers every call with
JSON that no output model accepts."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import failure_message
from agent_interrupts.models.interrupts import InterruptRequestBase, InterruptResolution
from agent_interrupts.models.resolution_rules import recommended_answer
from agent_interrupts.models.state import EntryKind, OrchestratorStatus
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.interrupt import InterruptWorkflow
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.stuck_questions import ROUTE_CHOICE_ID, STOP, continue_text
from tests.support.interrupts import full_status, interrupt_status, start
from tests.support.openai_server import INVALID, ScriptedOpenAIServer

ORCHESTRATOR, NEXT = AgentType.ORCHESTRATOR, AgentType.DISCOVERY_ORCHESTRATOR
BOUND = 60
"""Questions the test answers at most before it calls the run endless."""
IN_PLACE = 'Scope: only "gateway/session" — ü 🙂 <b>&amp;</b> {{ x }} %s\n  two  spaces\tand a tab'
"""An answer in the agent's place that a careless path would change (quotes, markup, unicode,
template and format syntax, inner whitespace)."""


def _settings(server: ScriptedOpenAIServer) -> LlmSettings:
    return LlmSettings(api_key="sk-stuck", base_url=server.base_url, model="never-valid")


async def _next_question(
    handle: WorkflowHandle[OrchestratorWorkflow, Any], client: Client, after: str | None
) -> tuple[str, str, InterruptRequestBase] | None:
    """The question the run waits on other than ``after``: (id, origin, request); None once the
    run ended."""
    async with asyncio.timeout(60):
        while True:
            if (await handle.describe()).status.name != "RUNNING":  # type: ignore[union-attr]
                return None
            status: OrchestratorStatus = await handle.query(OrchestratorWorkflow.status)
            pending = status.pending_interrupt
            if pending is not None and pending.workflow_id != after:
                question = await interrupt_status(client, pending.workflow_id)
                return pending.workflow_id, str(question.origin), question.request
            await asyncio.sleep(0.1)


def _option(request: InterruptRequestBase, text: str) -> str:
    [choice] = [c for c in request.choices if c.choice_id == ROUTE_CHOICE_ID]
    return next(o.key.value for o in choice.options if o.description == text)


async def _answer(client: Client, interrupt_id: str, answer: InterruptResolution) -> str:
    """Answer; what the acknowledgement says happens next."""
    ack = await client.get_workflow_handle(interrupt_id).execute_update(
        InterruptWorkflow.resolve_validated, answer
    )
    return ack.message


async def test_following_the_recommendation_moves_the_run_on_and_ends_it(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """Two questions per agent at most (run it again, then go on); the run, looping back to an
    agent, ends at that agent's third (or at its step budget's question, which recommends
    stopping too)."""
    origins: list[str] = []
    with ScriptedOpenAIServer(then=INVALID) as server:
        async with build_worker(client, task_queue, _settings(server)):
            handle = await start(client, task_queue, workflow_id)
            last: str | None = None
            while len(origins) < BOUND:
                asked = await _next_question(handle, client, last)
                if asked is None:
                    break
                last, origin, request = asked
                origins.append(origin)
                await _answer(client, last, recommended_answer(request))
            with pytest.raises(WorkflowFailureError) as failed:
                await asyncio.wait_for(handle.result(), 60)
    assert origins[:4] == [ORCHESTRATOR, ORCHESTRATOR, NEXT, NEXT], origins
    assert len(origins) < BOUND, "the run ended"
    runs = [list(g) for _, g in itertools.groupby(origins)]
    assert all(len(r) <= 2 for r in runs[:-1]), f"two questions per agent, then on: {origins}"
    message = failure_message(failed.value)
    assert "stopped the run at" in message or "step budget" in message, message
    assert len(server.completions) <= 6 * len(origins), "an agent's 3 calls and a translation's"


async def test_stop_ends_the_run_naming_who_stopped_it(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    with ScriptedOpenAIServer(then=INVALID) as server:
        async with build_worker(client, task_queue, _settings(server)):
            handle = await start(client, task_queue, workflow_id)
            asked = await _next_question(handle, client, None)
            assert asked is not None
            interrupt_id, origin, request = asked
            assert origin == ORCHESTRATOR
            stop = InterruptResolution.model_validate(
                {
                    "selectedChoices": {ROUTE_CHOICE_ID: _option(request, STOP)},
                    "confirmations": {c.confirmation_id: False for c in request.confirmation_items},
                    "freeText": "the model is broken today",
                    "answeredBy": "ada",
                }
            )
            assert await _answer(client, interrupt_id, stop) == "the run stops"
            with pytest.raises(WorkflowFailureError) as failed:
                await asyncio.wait_for(handle.result(), 60)
    message = failure_message(failed.value)
    assert "ada (HUMAN) stopped the run at ORCHESTRATOR" in message, message
    assert "the model is broken today" in message
    calls = [c.schema_name for c in server.completions]
    assert calls.count("OrchestratorRouting") == 3, "the agent did not run again"


async def test_continue_at_runs_the_next_agent_next(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    with ScriptedOpenAIServer(then=INVALID) as server:
        async with build_worker(client, task_queue, _settings(server)):
            handle = await start(client, task_queue, workflow_id)
            asked = await _next_question(handle, client, None)
            assert asked is not None
            interrupt_id, _, request = asked
            go_on = InterruptResolution.model_validate(
                {
                    "selectedChoices": {ROUTE_CHOICE_ID: _option(request, continue_text(NEXT))},
                    "confirmations": {c.confirmation_id: False for c in request.confirmation_items},
                }
            )
            said = await _answer(client, interrupt_id, go_on)
            assert said == f"the run continues at {NEXT} (re-routed from {ORCHESTRATOR})"
            after = await _next_question(handle, client, interrupt_id)
            assert after is not None and after[1] == NEXT, "the next agent ran and got stuck"
            await handle.terminate("the test saw enough")
    agents = [c.schema_name for c in server.completions if c.schema_name != "InterruptRouting"]
    assert agents == ["OrchestratorRouting"] * 3 + ["DiscoveryOrchestratorRouting"] * 3, agents


async def test_an_answer_in_the_agents_place_is_taken_word_for_word(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    with ScriptedOpenAIServer(then=INVALID) as server:
        async with build_worker(client, task_queue, _settings(server)):
            handle = await start(client, task_queue, workflow_id)
            asked = await _next_question(handle, client, None)
            assert asked is not None
            interrupt_id, _, request = asked
            in_place = InterruptResolution.model_validate(
                {
                    "selectedChoices": {ROUTE_CHOICE_ID: "CUSTOM"},
                    "customInputs": {ROUTE_CHOICE_ID: IN_PLACE},
                    "confirmations": {c.confirmation_id: False for c in request.confirmation_items},
                }
            )
            await _answer(client, interrupt_id, in_place)
            after = await _next_question(handle, client, interrupt_id)
            assert after is not None and after[1] == NEXT
            status = await full_status(client, handle)
            await handle.terminate("the test saw enough")
    [taken] = [
        e.payload
        for e in status.history
        if e.kind is EntryKind.REQUEST and e.agent_type == NEXT and e.payload is not None
    ]
    assert taken["guidance"] == IN_PLACE, "the answer, byte for byte"
    [first] = [c for c in server.completions if c.schema_name == "DiscoveryOrchestratorRouting"][:1]
    prompt = "".join(str(m.get("content")) for m in first.messages)
    assert json.dumps(IN_PLACE, ensure_ascii=False) in prompt, "its request, as JSON, in the prompt"


async def test_a_continue_at_the_translator_cannot_write_still_continues_there(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """``continueAt`` (the terminal's G, the inbox's "continue at", ``--continue-at``) with a
    translator that never writes a valid routing: the run continues at the chosen agent with the
    person's answer as guidance, told who asked (it used to fail the question and the run)."""
    target = AgentType.PLANNING_ORCHESTRATOR
    with ScriptedOpenAIServer(then=INVALID) as server:
        async with build_worker(client, task_queue, _settings(server)):
            handle = await start(client, task_queue, workflow_id)
            asked = await _next_question(handle, client, None)
            assert asked is not None
            interrupt_id, _, request = asked
            elsewhere = InterruptResolution.model_validate(
                {
                    **recommended_answer(request).to_wire(),
                    "continueAt": target,
                    "freeText": "  skip discovery, we know the code  ",
                    "answeredBy": "grace",
                }
            )
            await _answer(client, interrupt_id, elsewhere)
            after = await _next_question(handle, client, interrupt_id)
            status = await full_status(client, handle)
            question = await interrupt_status(client, interrupt_id)
            await handle.terminate("the test saw enough")
    assert after is not None and after[1] == target, "the run went on where the person chose"
    [taken] = [
        e.payload
        for e in status.history
        if e.kind is EntryKind.REQUEST and e.agent_type == target and e.payload is not None
    ]
    assert (
        "grace (HUMAN) answered ORCHESTRATOR's question and sent the run on to you"
        in (taken["guidance"])
    )
    assert "  skip discovery, we know the code  " in taken["guidance"], "the words as typed"
    warnings = [e.message for e in question.events if "could not be translated" in e.message]
    assert warnings and f"the run continues at {target}" in warnings[0], warnings
