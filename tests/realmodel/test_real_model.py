"""A real local model does the work: SmolLM2-135M behind llama-server, through the real
``openai`` SDK and a real Temporal dev server, with the small-model profile (``LLM_PROFILE=small``:
bounded schemas of one variant per route). A model this small writes poor content, so these tests
check structure and routes, never the text: (a) every agent type's first reply is a valid routing
for its schema; (b) a whole run reaches its final result, a question the model chose to ask, or the
step budget's question, and never a stuck agent's; the question is answered and translated
through the filtered resume schema; (c) the worker reads the model's context from the server.
"""

from __future__ import annotations

import asyncio
import json

import httpx2
import pytest
from openai import AsyncOpenAI
from temporalio.client import Client, WorkflowExecutionStatus

from agent_interrupts.activities.llm import LlmSettings, StructuredLlm
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.app.config import llm_settings_from_env
from agent_interrupts.app.model_context import with_served_context
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.errors import InvalidLlmReply, LlmUnavailable
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.interrupt_flow import InterruptOutcome
from agent_interrupts.models.resolution_rules import allowed_route
from agent_interrupts.models.state import EventKind
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from agent_interrupts.workflows.stuck_questions import ROUTE_CHOICE_ID
from bench.real_model import agent_steps, server_timings
from tests.realmodel.conftest import MODEL, RealModel
from tests.support.interrupts import answer_offered, interrupt_status, start
from tests.support.prompts import make_call

pytestmark = pytest.mark.realmodel

STEP_BUDGET = 6
"""The run's maxSteps: at the latest then, the step budget's question is asked."""
STUCK = "could not finish its step"
"""The run's WARNING event when an agent's model stayed invalid (a stuck agent's question)."""


def small_model(base_url: str, **more: str) -> LlmSettings:
    """The settings a user sets for this model: the small profile, nothing else tuned."""
    return llm_settings_from_env(
        {
            "OPENAI_API_KEY": "sk-local",
            "OPENAI_BASE_URL": base_url,
            "AGENT_MODEL": MODEL,
            "LLM_PROFILE": "small",
            **more,
        }
    )


class _Replies(httpx2.AsyncHTTPTransport):
    """Keeps the last chat completion the server sent, to name a refused reply."""

    last = ""

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await super().handle_async_request(request)
        await response.aread()
        self.last = response.text
        return response


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
async def test_every_agent_types_first_reply_is_a_valid_routing(
    real_model_server: RealModel, agent: AgentType
) -> None:
    real_model = real_model_server.base_url
    settings = small_model(real_model, LLM_VALIDATION_ATTEMPTS="1")
    node = NODES[agent]
    prompt = PromptRenderer().agent_messages(node, make_call(agent), team=SOFTWARE_TEAM)
    replies = _Replies()
    sdk = AsyncOpenAI(
        api_key="sk-local",
        base_url=real_model,
        max_retries=1,  # a refused connection is tried again, as the worker would
        http_client=httpx2.AsyncClient(transport=replies, timeout=900),
    )
    try:
        reply = await StructuredLlm(sdk, settings).complete(
            agent=agent.value,
            messages=prompt.messages,
            output_model=node.output_model,
            template_version="realmodel",
        )
    except InvalidLlmReply as refused:
        content = json.loads(replies.last)["choices"][0]["message"]["content"]
        pytest.fail(f"{agent.value}: {refused}\nits reply: {content}")
    except LlmUnavailable as unavailable:
        pytest.fail(f"{unavailable}\nllama-server's log ends:\n{real_model_server.log_tail()}")
    assert isinstance(reply.value, node.output_model)  # exactly one route: validated
    limit = settings.max_tokens_for(agent.value)[0]
    assert reply.call.attempts == 1 and (reply.call.completion_tokens or 0) < limit


async def test_a_run_ends_in_the_models_own_question_or_the_budget_never_a_stuck_agent(
    real_model_server: RealModel, client: Client, task_queue: str, workflow_id: str
) -> None:
    """Also the smoke test of ``bench.real_model``'s reading of the server's own counts."""
    since = real_model_server.log.stat().st_size
    settings = await with_served_context(small_model(real_model_server.base_url))
    assert settings.context_tokens == 8192, "read from llama-server's /props"
    async with build_worker(client, task_queue, settings):
        handle = await start(client, task_queue, workflow_id, max_steps=STEP_BUDGET)
        async with asyncio.timeout(900):
            while True:
                status = await handle.query(OrchestratorWorkflow.status)
                described = await handle.describe()
                assert described.status is not WorkflowExecutionStatus.FAILED
                stuck = [e.message for e in status.events if STUCK in e.message]
                assert not stuck, stuck
                if (
                    status.pending_interrupt is not None
                    or described.status is WorkflowExecutionStatus.COMPLETED
                ):
                    break
                await asyncio.sleep(1)
        assert not [e for e in status.events if e.kind is EventKind.ERROR], status.events
        pending = status.pending_interrupt
        if pending is not None:
            question = await interrupt_status(client, pending.workflow_id)
            assert ROUTE_CHOICE_ID not in {c.choice_id for c in question.request.choices}
            child = client.get_workflow_handle(pending.workflow_id)
            await child.execute_update("resolve_validated", answer_offered(question.request))
            outcome = InterruptOutcome.model_validate(await asyncio.wait_for(child.result(), 900))
            assert outcome.route == allowed_route(
                question.origin, question.reroute_to, team=SOFTWARE_TEAM
            )
        if described.status is WorkflowExecutionStatus.RUNNING:
            await handle.terminate("the real-model test checked what it needed")
    calls, prompt_tokens, output_tokens, seconds = server_timings(real_model_server.log, since)
    assert calls >= 1 and prompt_tokens > 0 and output_tokens > 0 and seconds > 0
    steps = await agent_steps(client, workflow_id, handle.first_execution_run_id or "")
    assert steps and all(s.prompt_tokens > 0 and s.wall_seconds > 0 for s in steps.values())
    assert sum(s.steps for s in steps.values()) <= calls, "each step made at least one call"
