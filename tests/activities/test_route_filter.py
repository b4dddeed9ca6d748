"""The route filter (the routing contract's FilterPropertiesDecorator, handler FR-003..005,
handler SC-003), property by property for all 14 origins; and the routes a looping model may no
longer take (LLM_MAX_PHASE_ROUNDS)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_interrupts.activities.output_schema import REPLY_KEY, strict_schema, variants
from agent_interrupts.activities.route_filter import (
    ROUTE_OF,
    closed_question,
    closed_routes,
    round_targets,
    routing_schema,
)
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.resolution_rules import allowed_route
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_files import builtin_team_files, load_team_file
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.routings import InterruptRouting

FULL = strict_schema(InterruptRouting)
ROUND_TARGETS = round_targets(SOFTWARE_TEAM)


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        own = {node["$ref"].split("/")[-1]} if isinstance(node.get("$ref"), str) else set()
        return own.union(*(_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node))
    return set()


def test_the_mapping_covers_the_14_origins_of_the_routing_contract() -> None:
    assert len(ROUTE_OF) == 14
    assert ROUTE_OF[AgentType.DISCOVERY_DISPATCH] == "discoveryAgentRequests"
    assert ROUTE_OF[AgentType.CONTEXT_MANAGER] == "contextManagerRequest"


@pytest.mark.parametrize("origin", list(ROUTE_OF), ids=lambda a: a.value)
def test_filtered_schema_keeps_exactly_the_origin_route(origin: AgentType) -> None:
    route = ROUTE_OF[origin]
    schema = routing_schema(route)
    assert list(schema["properties"]) == [route]
    assert schema["required"] == [route]
    assert "anyOf" not in schema["properties"][route], "null branch dropped"
    defs = schema.get("$defs", {})
    refs = _refs(schema)
    assert refs <= set(defs), "every remaining $ref resolves"
    assert set(defs) == refs, "no unreachable $defs remain"
    assert len(json.dumps(schema)) < len(json.dumps(FULL))
    assert FULL["properties"].keys() >= {route} and len(FULL["properties"]) == 14, "input intact"


def test_reroute_target_wins_over_origin() -> None:
    assert (
        allowed_route(
            AgentType.PLANNING_ORCHESTRATOR, AgentType.DISCOVERY_ORCHESTRATOR, team=SOFTWARE_TEAM
        )
        == "discoveryOrchestratorRequest"
    )
    assert (
        allowed_route(AgentType.PLANNING_ORCHESTRATOR, None, team=SOFTWARE_TEAM)
        == "planningOrchestratorRequest"
    )


def test_transitive_defs_are_kept() -> None:
    """DiscoveryAgentRequests -> DiscoveryAgentRequest: reached only through another $def."""
    schema = routing_schema("discoveryAgentRequests")
    assert {"DiscoveryAgentRequests", "DiscoveryAgentRequest"} <= set(schema["$defs"])


def test_unknown_origin_is_not_filtered() -> None:
    assert allowed_route(AgentType.TICKET_AGENT, None, team=SOFTWARE_TEAM) is None
    schema = routing_schema(None)
    assert list(schema["properties"]) == [REPLY_KEY]
    offered = [list(v["properties"]) for v in variants(schema)]
    assert offered == [[route] for route in FULL["properties"]], "one variant per route, 14"


def test_the_translation_schema_is_a_fresh_copy() -> None:
    first = routing_schema("reviewRequest")
    first["properties"].clear()
    assert list(routing_schema("reviewRequest")["properties"]) == ["reviewRequest"]


def test_routes_into_a_phase_close_once_its_entry_agent_ran_the_most_rounds() -> None:
    collector = NODES[AgentType.DISCOVERY_COLLECTOR].output_model
    runs = {AgentType.DISCOVERY_ORCHESTRATOR: 2, AgentType.PLANNING_ORCHESTRATOR: 1}
    assert closed_routes(collector, runs, None, ROUND_TARGETS) == {}, (
        "unset: no bound but the step budget"
    )
    assert closed_routes(collector, runs, 3, ROUND_TARGETS) == {}
    closed = closed_routes(collector, runs, 2, ROUND_TARGETS)
    assert list(closed) == ["discoveryOrchestratorRequest"]
    assert "DISCOVERY_ORCHESTRATOR already ran 2 times" in closed["discoveryOrchestratorRequest"]
    assert "LLM_MAX_PHASE_ROUNDS=2" in closed["discoveryOrchestratorRequest"]
    assert list(closed_routes(collector, runs, 1, ROUND_TARGETS)) == [
        "planningOrchestratorRequest",
        "discoveryOrchestratorRequest",
    ]


def test_the_guard_closes_routes_to_every_orchestrator_and_context_manager_by_role() -> None:
    assert round_targets(SOFTWARE_TEAM) == {
        AgentType.ORCHESTRATOR,
        AgentType.DISCOVERY_ORCHESTRATOR,
        AgentType.PLANNING_ORCHESTRATOR,
        AgentType.TICKET_ORCHESTRATOR,
        AgentType.CONTEXT_MANAGER,
    }
    incident = build_team(load_team_file(builtin_team_files()["incident-response"]))
    assert round_targets(incident) == {"TRIAGE"}
    collector = incident.node("FINDINGS_COLLECTOR").output_model
    closed = closed_routes(collector, {"TRIAGE": 2}, 2, round_targets(incident))
    assert list(closed) == ["triageRequest"]
    assert "TRIAGE already ran 2 times" in closed["triageRequest"]
    assert closed_routes(collector, {"TRIAGE": 1}, 2, round_targets(incident)) == {}


@pytest.mark.parametrize("agent", list(NODES), ids=lambda a: a.value)
def test_asking_a_person_never_closes(agent: AgentType) -> None:
    model = NODES[agent].output_model
    every_phase_ran = {entry: 9 for entry in ROUND_TARGETS}
    closed = closed_routes(model, every_phase_ran, 1, ROUND_TARGETS)
    assert "interruptRequest" in model.route_aliases()
    assert "interruptRequest" not in closed
    asked_too = {**closed, **closed_question(9, 1, supervised=False)}
    assert set(model.route_aliases()) - set(asked_too), "everything closed, a route stays open"
    assert set(closed) == {
        route for route, target in model.route_aliases().items() if target in ROUND_TARGETS
    }


def test_a_models_own_questions_close_at_the_most_it_may_ask_unless_a_supervisor_asks() -> None:
    assert closed_question(9, None, supervised=False) == {}
    assert closed_question(2, 3, supervised=False) == {}
    (why,) = closed_question(3, 3, supervised=False).values()
    assert "already asked 3 questions" in why and "LLM_MAX_QUESTIONS=3" in why
    assert closed_question(3, 3, supervised=True) == {}, "a supervisor's event is answered"
