"""The offline model answers every agent's strict schema with valid, goal-derived content."""

from __future__ import annotations

import asyncio
import json

import httpx2
import pytest
from temporalio.client import Client

from agent_interrupts.activities.llm import LlmSettings
from agent_interrupts.activities.offline_model import OfflineModel, OfflineScenario
from agent_interrupts.activities.output_schema import decoder_schema
from agent_interrupts.app.history import read_blackboard
from agent_interrupts.app.worker_setup import build_worker
from agent_interrupts.models.graph import NODES
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.state import EntryKind
from agent_interrupts.models.team_build import TeamFinalResult
from agent_interrupts.models.team_spec import TeamSpec
from agent_interrupts.teams.software.agents import AgentType
from tests.support.interrupts import start, wait_for_interrupt

GOAL = "add rate limiting to the gateway"
MESSAGES = [{"role": "system", "content": "x"}, {"role": "user", "content": f"Goal: {GOAL}"}]


@pytest.mark.parametrize("agent", list(NODES))
def test_answer_validates_against_every_output_model(agent: AgentType) -> None:
    model = NODES[agent].output_model
    reply = OfflineModel().answer(model.__name__, decoder_schema(model), MESSAGES)
    value = model.model_validate_json(reply)
    assert GOAL in reply
    if isinstance(value, Routing):
        assert value.chosen_route()[0] not in ("interruptRequest", "contextManagerRequest")


@pytest.mark.parametrize("agent", list(NODES))
def test_scenario_makes_the_chosen_agent_interrupt(agent: AgentType) -> None:
    model = NODES[agent].output_model
    offline = OfflineModel(OfflineScenario(interrupt_at=frozenset({agent})))
    value = model.model_validate_json(
        offline.answer(model.__name__, decoder_schema(model), MESSAGES)
    )
    assert isinstance(value, Routing)
    route, _, request = value.chosen_route()
    assert route == "interruptRequest"
    assert request.origin is agent
    assert request.choices and request.confirmation_items
    assert request.problems() == [], "a well-formed question"
    typed = set(type(request).model_json_schema(by_alias=True)["properties"]) - {
        "type",
        "reason",
        "choices",
        "confirmationItems",
        "contextForDecision",
    }
    wire = request.to_wire()
    assert typed and all(wire[f] not in ("", [], None) for f in typed), "typed fields filled"


def test_answers_are_deterministic() -> None:
    model = NODES[AgentType.PLANNING_COLLECTOR].output_model
    schema = decoder_schema(model)
    first = OfflineModel().answer(model.__name__, schema, MESSAGES)
    assert first == OfflineModel().answer(model.__name__, schema, MESSAGES)
    assert json.loads(first)["collectorResult"]["summary"]


def test_scenario_parse_and_clear_errors() -> None:
    scenario = OfflineScenario.parse("interrupt=review_agent, MERGER_AGENT;delay=PLANNING_AGENT:2")
    assert scenario.interrupt_at == {AgentType.REVIEW_AGENT, AgentType.MERGER_AGENT}
    assert scenario.delays == {AgentType.PLANNING_AGENT: 2.0}
    slow_second = OfflineScenario.parse("delay=TICKET_AGENT:1,TICKET_AGENT#2:30")
    assert slow_second.delays == {AgentType.TICKET_AGENT: 1.0}
    assert slow_second.key_delays == {"ticket-agent-2": 30.0}
    with pytest.raises(ValueError, match="unknown agent type 'NOPE'"):
        OfflineScenario.parse("interrupt=NOPE")
    declared = OfflineScenario.parse(
        "interrupt=INVESTIGATOR#2;delay=TRIAGE:1", ["TRIAGE", "INVESTIGATOR"]
    )
    assert declared.interrupt_agents == {"investigator-2"} and declared.delays == {"TRIAGE": 1.0}
    with pytest.raises(ValueError, match="unknown agent type 'TRIAGE'"):
        OfflineScenario.parse("interrupt=TRIAGE")  # not an agent of the software team
    with pytest.raises(ValueError, match="unknown OFFLINE_SCENARIO part"):
        OfflineScenario.parse("explode=1")


def test_scenario_picks_single_dispatched_agents_and_the_fan_out_width() -> None:
    """``TICKET_AGENT#2`` asks only in the second ticket agent; ``fanout`` sets N."""
    scenario = OfflineScenario.parse("fanout=3;interrupt=TICKET_AGENT#2")
    assert scenario.fan_out == 3 and scenario.interrupt_at == frozenset()
    assert scenario.interrupt_agents == {"ticket-agent-2"}
    model = NODES[AgentType.TICKET_AGENT].output_model
    schema = decoder_schema(model)

    def route(node: str) -> str:
        messages = [{"role": "user", "content": f"Goal: {GOAL}\nNode: {node}\n"}]
        reply = OfflineModel(scenario).answer(model.__name__, schema, messages)
        return model.model_validate(json.loads(reply)).chosen_route()[0]

    assert route("ticket-dispatch-009/ticket-agent-2") == "interruptRequest"
    assert route("ticket-dispatch-009/ticket-agent-1") == "result"
    dispatch = NODES[AgentType.TICKET_ORCHESTRATOR].output_model
    reply = OfflineModel(scenario).answer(dispatch.__name__, decoder_schema(dispatch), MESSAGES)
    assert len(json.loads(reply)["ticketAgentRequests"]["requests"]) == 3
    for bad in ("fanout=0", "interrupt=TICKET_AGENT#x"):
        with pytest.raises(ValueError, match="whole number"):
            OfflineScenario.parse(bad)


def _orchestrator_request() -> dict[str, object]:
    """A chat completion request for the orchestrator's routing, as the agents send it."""
    model = NODES[AgentType.ORCHESTRATOR].output_model
    return {
        "model": "offline",
        "messages": MESSAGES,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": model.__name__, "schema": decoder_schema(model)},
        },
    }


async def test_a_workers_offline_model_keeps_no_request_bodies() -> None:
    """The worker's own offline model answers forever; only tests and benches keep bodies."""
    body = _orchestrator_request()
    for keep, kept in ((True, 1), (False, 0)):
        offline = OfflineModel(keep_requests=keep)
        request = httpx2.Request("POST", "http://offline/v1/chat/completions", json=body)
        response = await offline.handle_async_request(request)
        assert response.status_code == 200 and len(offline.received) == kept
        assert offline.requests == 1


async def test_a_bench_stops_keeping_request_bodies_after_its_warm_up_and_still_counts() -> None:
    """``bench.throughput`` keeps the warm-up's bodies only: 1,900 kept bodies a phase (their
    schemas, hundreds of objects each) lengthened every full pass of the collector."""
    body = _orchestrator_request()
    offline = OfflineModel()
    for keep in (True, False, False):
        offline.keep_requests = keep
        request = httpx2.Request("POST", "http://offline/v1/chat/completions", json=body)
        assert (await offline.handle_async_request(request)).status_code == 200
    assert len(offline.received) == 1 and offline.requests == 3


def test_a_forced_route_is_taken_once_per_run_unless_starred() -> None:
    once = OfflineScenario.parse("route=REVIEW_AGENT:ticketOrchestratorRequest")
    assert once.routes == {AgentType.REVIEW_AGENT: "ticketOrchestratorRequest"}
    assert once.routes_always == frozenset()
    always = OfflineScenario.parse("route=REVIEW_AGENT:ticketOrchestratorRequest*")
    assert always.routes == once.routes and always.routes_always == {AgentType.REVIEW_AGENT}
    for bad in ("route=REVIEW_AGENT", "route=REVIEW_AGENT:*"):
        with pytest.raises(ValueError, match=r"AGENT:routeName \(once per run\)"):
            OfflineScenario.parse(bad)


BASE = '{% extends "workflow/_agent_base.jinja" %}'
LOOP_TEAM = TeamSpec.model_validate(
    {
        "name": "loop-once",
        "agents": [
            {
                "name": "LEAD",
                "role": "orchestrator",
                "routes": {"WORK": "Do it."},
                "template": BASE + "{% block role %}Plan the work.{% endblock %}",
            },
            {
                "name": "WORK",
                "routes": {"END": "Done.", "LEAD": "Plan again."},
                "template": BASE + "{% block role %}Do the work.{% endblock %}",
            },
        ],
    }
)


async def test_a_forced_route_back_makes_one_more_round_and_the_run_ends(
    client: Client, task_queue: str, workflow_id: str
) -> None:
    """``route=WORK:leadRequest`` sends WORK back to LEAD once: the run ends after one more
    round (it looped until the step limit before); with ``*`` it loops until the limit."""
    once = OfflineModel(OfflineScenario.parse("route=WORK:leadRequest", ["WORK"]))
    teams = {LOOP_TEAM.name: LOOP_TEAM}
    async with build_worker(client, task_queue, LlmSettings(), offline=once, teams=teams):
        handle = await start(client, task_queue, workflow_id, team=LOOP_TEAM.name, max_steps=12)
        result = await asyncio.wait_for(handle.result(), 60)
        entries = await read_blackboard(client, workflow_id)
    assert isinstance(result, TeamFinalResult)
    ran = [(e.agent_type, e.route) for e in entries if e.kind is EntryKind.OUTPUT]
    assert ran == [
        ("LEAD", "workRequest"),
        ("WORK", "leadRequest"),
        ("LEAD", "workRequest"),
        ("WORK", "finalResult"),
    ]

    always = OfflineModel(OfflineScenario.parse("route=WORK:leadRequest*", ["WORK"]))
    looping = f"{workflow_id}-always"
    async with build_worker(client, task_queue, LlmSettings(), offline=always, teams=teams):
        handle = await start(client, task_queue, looping, team=LOOP_TEAM.name, max_steps=6)
        status = await wait_for_interrupt(handle, timeout=60)  # the step limit's question
        entries = await read_blackboard(client, looping)
        await handle.terminate("the test is done")
    assert status.steps_taken == 6
    outputs = [e for e in entries if e.kind is EntryKind.OUTPUT]
    assert [e.route for e in outputs if e.agent_type == "WORK"] == ["leadRequest"] * 3
