"""The agent activity puts contributor warnings into its reply, and the workflow shows them as
WARNING events while the run goes on (agents FR-005)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from typing import Any

from temporalio.client import Client
from temporalio.testing import ActivityEnvironment

from agent_interrupts.activities.agents import AgentActivities
from agent_interrupts.activities.contributors import ContributorRegistry, default_registry
from agent_interrupts.activities.llm import LlmSettings, StructuredLlm
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.output_schema import OutputProfile, variants
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.app.worker_setup import build_worker, openai_client
from agent_interrupts.models.graph import NODES
from agent_interrupts.models.state import EventKind, OrchestratorInput
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.workflows.orchestrator import OrchestratorWorkflow
from tests.support.interrupts import full_status
from tests.support.prompts import GOAL, Exploding, make_call


def _registry_with_a_broken_tool(
    applies_to: frozenset[AgentType] | None = None,
) -> ContributorRegistry:
    registry = default_registry()
    registry.register(Exploding(applies_to))
    return registry


async def test_run_agent_returns_contributor_warnings_and_still_answers() -> None:
    settings = LlmSettings()
    offline = OfflineModel()
    agents = AgentActivities(
        StructuredLlm(openai_client(settings, offline), settings),
        PromptRenderer(registry=_registry_with_a_broken_tool()),
    )
    agent = AgentType.DISCOVERY_COLLECTOR
    reply = await ActivityEnvironment().run(agents.run_agent, make_call(agent))

    assert reply.route == "planningOrchestratorRequest"
    NODES[agent].output_model.model_validate(reply.output)
    (warning,) = reply.warnings
    assert "'exploding-tool' failed and was skipped" in warning
    assert "sk-secret" not in warning
    (request,) = offline.received
    system = request["messages"][0]["content"]
    assert "## Where you are in the workflow" in system and "## Exploding tool" not in system


async def test_run_agent_without_problems_has_no_warnings() -> None:
    settings = LlmSettings()
    agents = AgentActivities(StructuredLlm(openai_client(settings), settings), PromptRenderer())
    reply = await ActivityEnvironment().run(agents.run_agent, make_call(AgentType.TICKET_AGENT))
    assert reply.warnings == [] and reply.route == "result"


async def test_a_failing_contributor_becomes_a_warning_event_and_the_run_finishes(
    client: Client, task_queue: str
) -> None:
    prompts = PromptRenderer(
        registry=_registry_with_a_broken_tool(frozenset({AgentType.REVIEW_AGENT}))
    )
    async with build_worker(client, task_queue, LlmSettings(), prompts=prompts):
        handle = await client.start_workflow(
            OrchestratorWorkflow.run,
            OrchestratorInput(goal=GOAL),
            id=f"wf-{uuid.uuid4()}",
            task_queue=task_queue,
        )
        result = await asyncio.wait_for(handle.result(), 60)
        status = await full_status(client, handle)

    assert result.summary
    ours = [e for e in status.events if "exploding-tool" in e.message]
    assert len(ours) == 1, "the broken tool applies to the review agent only, which ran once"
    (event,) = ours
    assert event.kind is EventKind.WARNING
    assert event.agent_type is AgentType.REVIEW_AGENT
    assert event.node_id is not None and event.node_id.startswith("review-agent-")
    assert "prompt contributor 'exploding-tool' failed and was skipped" in event.message
    assert "sk-secret" not in event.message


class _SameOptions(OfflineModel):
    """A model that asks at the ticket agent, every time with options that all say the same and
    a recommendation it did not offer."""

    def answer(self, name: str, schema: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        value = json.loads(super().answer(name, schema, messages))
        for choice in (value.get("interruptRequest") or {}).get("choices", []):
            for option in choice["options"]:
                option["description"] = "the same"
            choice["recommended"] = "D"
        return json.dumps(value)


async def test_a_question_that_stays_malformed_is_asked_repaired_not_lost() -> None:
    settings = LlmSettings()
    model = _SameOptions(OfflineScenario(interrupt_at=frozenset({AgentType.TICKET_AGENT})))
    agents = AgentActivities(
        StructuredLlm(openai_client(settings, model), settings), PromptRenderer()
    )
    reply = await ActivityEnvironment().run(agents.run_agent, make_call(AgentType.TICKET_AGENT))

    assert len(model.received) == settings.validation_attempts, "its problems were fed back"
    assert reply.route == "interruptRequest" and reply.call is not None
    (warning,) = reply.warnings
    assert "stayed malformed" in warning and "asked as repaired" in warning
    (choice,) = reply.output["interruptRequest"]["choices"]
    assert [o["key"] for o in choice["options"]] == ["A", "CUSTOM"], "B repeated A: kept once"
    assert choice["recommended"] is None


async def test_a_small_model_s_malformed_question_is_repaired_at_once() -> None:
    settings = LlmSettings(profile=OutputProfile.SMALL, validation_attempts=3)
    model = _SameOptions(OfflineScenario(interrupt_at=frozenset({AgentType.TICKET_AGENT})))
    llm = StructuredLlm(openai_client(settings, model), settings)
    reply = await ActivityEnvironment().run(
        AgentActivities(llm, PromptRenderer()).run_agent, make_call(AgentType.TICKET_AGENT)
    )
    assert len(model.received) == 1 and reply.call is not None and reply.call.attempts == 1
    assert reply.route == "interruptRequest" and "asked as repaired" in reply.warnings[0]


async def test_a_phase_that_ran_its_rounds_is_not_offered_again() -> None:
    """LLM_MAX_PHASE_ROUNDS: the schema offers the other routes only, and the prompt says why."""
    settings = LlmSettings(max_phase_rounds=1)
    model = OfflineModel(OfflineScenario.parse("loop=1000"))
    agents = AgentActivities(
        StructuredLlm(openai_client(settings, model), settings), PromptRenderer()
    )
    call = make_call(
        AgentType.ORCHESTRATOR_COLLECTOR,
        agent_runs={
            AgentType.ORCHESTRATOR: 1,
            AgentType.DISCOVERY_ORCHESTRATOR: 1,
            AgentType.TICKET_ORCHESTRATOR: 1,
        },
    )
    reply = await ActivityEnvironment().run(agents.run_agent, call)

    (request,) = model.received
    schema = request["response_format"]["json_schema"]["schema"]
    offered = {r for v in variants(schema) for r in v["properties"]}
    assert "discoveryOrchestratorRequest" not in offered
    assert "ticketOrchestratorRequest" not in offered and "orchestratorRequest" not in offered
    assert {"planningOrchestratorRequest", "finalResult", "interruptRequest"} <= offered
    assert "DISCOVERY_ORCHESTRATOR already ran 1 time," in request["messages"][-1]["content"]
    assert reply.route == "planningOrchestratorRequest", "the looping model took an open route"


class _Deaf(OfflineModel):
    """An endpoint that does not enforce the schema: the first reply routes back to discovery."""

    def answer(self, name: str, schema: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        value = json.loads(super().answer(name, schema, messages))
        if len(self.received) == 1:
            guidance = value.pop("planningOrchestratorRequest")["guidance"]
            value["discoveryOrchestratorRequest"] = {"guidance": guidance, "scope": "again"}
        return json.dumps(value)


async def test_a_closed_route_from_an_endpoint_that_ignores_the_schema_is_sent_back() -> None:
    settings = LlmSettings(max_phase_rounds=2)
    model = _Deaf()
    agents = AgentActivities(
        StructuredLlm(openai_client(settings, model), settings), PromptRenderer()
    )
    call = make_call(
        AgentType.DISCOVERY_COLLECTOR, agent_runs={AgentType.DISCOVERY_ORCHESTRATOR: 2}
    )
    reply = await ActivityEnvironment().run(agents.run_agent, call)

    assert reply.route == "planningOrchestratorRequest" and reply.call is not None
    assert reply.call.attempts == 2
    fed_back = str(model.received[1]["messages"][-1]["content"])
    assert (
        "discoveryOrchestratorRequest is closed" in fed_back and "LLM_MAX_PHASE_ROUNDS" in fed_back
    )


async def test_an_agent_that_asked_the_most_questions_decides_with_what_it_has() -> None:
    """LLM_MAX_QUESTIONS: interruptRequest leaves the schema, whatever the model wants."""
    settings = LlmSettings(max_questions=2)
    model = OfflineModel(OfflineScenario.parse("interrupt=MERGER_AGENT"))
    llm = StructuredLlm(openai_client(settings, model), settings)
    agents = AgentActivities(llm, PromptRenderer())
    asked_twice = make_call(AgentType.MERGER_AGENT, interrupts_here=2)
    reply = await ActivityEnvironment().run(agents.run_agent, asked_twice)

    schema = model.received[0]["response_format"]["json_schema"]["schema"]
    assert "interruptRequest" not in {r for v in variants(schema) for r in v["properties"]}
    assert "LLM_MAX_QUESTIONS=2" in model.received[0]["messages"][-1]["content"]
    assert reply.route == "orchestratorCollectorRequest", "it moved on"
    fresh = AgentActivities(llm, PromptRenderer())  # no reply kept from the first call
    once = await ActivityEnvironment().run(
        fresh.run_agent, make_call(AgentType.MERGER_AGENT, interrupts_here=1)
    )
    assert once.route == "interruptRequest", "below the bound it still asks"


async def test_a_retry_of_an_attempt_this_worker_finished_gets_its_reply_not_a_new_call(
    client: Client,
) -> None:
    """Its result was lost (the server timed the attempt out during an outage): the same reply,
    and the model is not asked again; another activity of the run is asked as usual."""
    settings = LlmSettings()
    model = OfflineModel()
    agents = AgentActivities(
        StructuredLlm(openai_client(settings, model), settings), PromptRenderer()
    )
    first = ActivityEnvironment()
    call = make_call(AgentType.PLANNING_ORCHESTRATOR)
    reply = await first.run(agents.run_agent, call)
    retry = ActivityEnvironment(client)  # it clears the run's sticky queue (none here)
    retry.info = dataclasses.replace(first.info, attempt=2)
    assert await retry.run(agents.run_agent, call) == reply
    assert len(model.received) == 1
    other = ActivityEnvironment()
    other.info = dataclasses.replace(first.info, activity_id="another")
    await other.run(agents.run_agent, call)
    assert len(model.received) == 2
