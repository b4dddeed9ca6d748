"""Issue 19 item 5: a real local model (SmolLM2-135M behind llama-server, through the real
``openai`` SDK and a real Temporal dev server) drives a run. A model this small writes poor
content and fills arrays until the output limit, so these tests check structure and route
legality, never the text: (a) an agent step with its strict schema is accepted by the endpoint
and answers a valid routing or a reply that stays invalid, never an error; (b) a question is
raised, answered and translated through the filtered resume schema; (c) a whole run with a small
step budget ends COMPLETED or in a question for a person (its own, a stuck agent's, or the used-up
budget's), never FAILED.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from temporalio.client import Client, WorkflowExecutionStatus

from activities.llm import LlmSettings, StructuredLlm
from activities.prompting import PromptRenderer
from app.worker_setup import build_worker, openai_client
from bench.real_model import server_timings
from models.agent_types import AgentType
from models.errors import InvalidLlmReply
from models.interrupt_flow import InterruptOutcome
from models.routings import OrchestratorRouting
from tests.realmodel.conftest import MODEL, RealModel
from tests.support.interrupts import answer_all, interrupt_status, start
from tests.support.prompts import make_call
from workflows.graph import NODES
from workflows.orchestrator import OrchestratorWorkflow
from workflows.resolution_rules import allowed_route

pytestmark = pytest.mark.realmodel

OUTPUT_TOKENS = 160
"""Each reply's limit: the 135M model fills arrays until cut off, so this bounds each call's time
(a cut-off reply is sent back, then the agent asks a person)."""
STEP_BUDGET = 3
"""The run's maxSteps (each step takes 5-60 s here): at the latest then, a person is asked."""


def _settings(base_url: str) -> LlmSettings:
    return LlmSettings(
        api_key="sk-local",
        base_url=base_url,
        model=MODEL,
        max_output_tokens=OUTPUT_TOKENS,
        validation_attempts=1,
        request_timeout=timedelta(seconds=600),
    )


async def test_an_agent_step_with_its_strict_schema(real_model: str) -> None:
    settings = _settings(real_model)
    node = NODES[AgentType.ORCHESTRATOR]
    prompt = PromptRenderer().agent_messages(node, make_call(AgentType.ORCHESTRATOR))
    sdk = openai_client(settings)
    try:
        reply = await StructuredLlm(sdk, settings).complete(
            agent="ORCHESTRATOR",
            messages=prompt.messages,
            output_model=OrchestratorRouting,
            template_version="realmodel",
        )
    except InvalidLlmReply as stuck:  # the model's limit, said in words; not an endpoint error
        assert "did not produce a valid OrchestratorRouting" in str(stuck)
    else:
        assert isinstance(reply.value, OrchestratorRouting)  # exactly one route: validated
        assert reply.call.completion_tokens <= OUTPUT_TOKENS


async def test_a_run_ends_in_a_question_that_is_answered_and_translated_never_failed(
    real_model_server: RealModel, client: Client, task_queue: str, workflow_id: str
) -> None:
    """Also the smoke test of ``bench.real_model``'s reading of the server's own counts."""
    since = real_model_server.log.stat().st_size
    async with build_worker(client, task_queue, _settings(real_model_server.base_url)):
        handle = await start(client, task_queue, workflow_id, max_steps=STEP_BUDGET)
        async with asyncio.timeout(600):
            while True:
                status = await handle.query(OrchestratorWorkflow.status)
                described = await handle.describe()
                assert described.status is not WorkflowExecutionStatus.FAILED
                if (
                    status.pending_interrupt is not None
                    or described.status is WorkflowExecutionStatus.COMPLETED
                ):
                    break
                await asyncio.sleep(1)
        pending = status.pending_interrupt
        if pending is not None:
            question = await interrupt_status(client, pending.workflow_id)
            child = client.get_workflow_handle(pending.workflow_id)
            await child.execute_update("resolve_validated", answer_all(question.request, "A"))
            outcome = InterruptOutcome.model_validate(await asyncio.wait_for(child.result(), 600))
            assert outcome.route == allowed_route(question.origin, question.reroute_to)
        if described.status is WorkflowExecutionStatus.RUNNING:
            await handle.terminate("the real-model test checked what it needed")
    calls, prompt_tokens, output_tokens, seconds = server_timings(real_model_server.log, since)
    assert calls >= 1 and prompt_tokens > 0 and output_tokens > 0 and seconds > 0
