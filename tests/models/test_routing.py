"""Routing models: route markers, exactly-one-route validation, the typed interrupt union."""

from __future__ import annotations

import typing

import pytest
from pydantic import TypeAdapter, ValidationError

from agent_interrupts.models.agent_types import Terminal
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM
from agent_interrupts.models.interrupts import OptionKey, StructuredChoice, TeamInterruptRequest
from agent_interrupts.models.results import Delegation
from agent_interrupts.teams.software.agents import AgentType
from agent_interrupts.teams.software.questions import (
    AnyInterruptRequest,
    PlanningOrchestratorInterruptRequest,
)
from agent_interrupts.teams.software.requests import (
    DiscoveryOrchestratorRequest,
    PlanningOrchestratorRequest,
)
from agent_interrupts.teams.software.routings import (
    DiscoveryCollectorRouting,
    InterruptRouting,
    OrchestratorRouting,
)


def _discovery() -> DiscoveryOrchestratorRequest:
    return DiscoveryOrchestratorRequest(guidance="look around", scope="gateway")


DELEGATION = Delegation(
    delegation_rationale="discovery first",
    assignments=[],
    task_decomposition=["map the gateway"],
    context_to_pass=[],
)


def test_routing_with_exactly_one_route_validates_and_names_it() -> None:
    routing = OrchestratorRouting(
        delegation=DELEGATION, discovery_orchestrator_request=_discovery()
    )
    route, target, value = routing.chosen_route()
    assert route == "discoveryOrchestratorRequest"
    assert target is AgentType.DISCOVERY_ORCHESTRATOR
    assert value.scope == "gateway"


def test_routing_with_no_route_is_rejected_with_the_options() -> None:
    with pytest.raises(ValidationError) as err:
        OrchestratorRouting(delegation=DELEGATION)
    message = str(err.value)
    assert "exactly one route field" in message
    assert "discoveryOrchestratorRequest" in message and "set: none" in message


def test_routing_with_two_routes_is_rejected_naming_both() -> None:
    with pytest.raises(ValidationError) as err:
        OrchestratorRouting(
            delegation=DELEGATION,
            discovery_orchestrator_request=_discovery(),
            planning_orchestrator_request=PlanningOrchestratorRequest(
                guidance="plan", planning_focus="api"
            ),
        )
    assert "set: discoveryOrchestratorRequest, planningOrchestratorRequest" in str(err.value)


def test_payload_fields_are_not_routes() -> None:
    assert "collector_result" not in DiscoveryCollectorRouting.route_fields
    assert "planning_orchestrator_request" in DiscoveryCollectorRouting.route_fields


def test_camel_case_json_round_trip() -> None:
    routing = OrchestratorRouting(
        delegation=DELEGATION, discovery_orchestrator_request=_discovery()
    )
    wire = routing.to_wire()
    assert wire["discoveryOrchestratorRequest"]["scope"] == "gateway"
    assert OrchestratorRouting.model_validate(wire) == routing


def test_interrupt_routing_has_the_14_routes_of_the_routing_contract() -> None:
    expected = {
        "orchestratorRequest": AgentType.ORCHESTRATOR,
        "discoveryOrchestratorRequest": AgentType.DISCOVERY_ORCHESTRATOR,
        "planningOrchestratorRequest": AgentType.PLANNING_ORCHESTRATOR,
        "ticketOrchestratorRequest": AgentType.TICKET_ORCHESTRATOR,
        "reviewRequest": AgentType.REVIEW_AGENT,
        "mergerRequest": AgentType.MERGER_AGENT,
        "contextManagerRequest": AgentType.CONTEXT_MANAGER,
        "orchestratorCollectorRequest": AgentType.ORCHESTRATOR_COLLECTOR,
        "discoveryCollectorRequest": AgentType.DISCOVERY_COLLECTOR,
        "planningCollectorRequest": AgentType.PLANNING_COLLECTOR,
        "ticketCollectorRequest": AgentType.TICKET_COLLECTOR,
        "discoveryAgentRequests": AgentType.DISCOVERY_DISPATCH,
        "planningAgentRequests": AgentType.PLANNING_DISPATCH,
        "ticketAgentRequests": AgentType.TICKET_DISPATCH,
    }
    assert InterruptRouting.route_aliases() == expected


def test_every_agent_routing_can_interrupt_with_its_own_typed_request() -> None:
    """US19: each routing's interruptRequest is that agent's subtype."""
    for node in NODES.values():
        assert node.output_model.route_fields.get("interrupt_request") is Terminal.INTERRUPT
        annotation = node.output_model.model_fields["interrupt_request"].annotation
        subtype = next(a for a in typing.get_args(annotation) if a is not type(None))
        assert subtype.model_fields["origin"].default is node.agent_type


def test_interrupt_union_has_one_subtype_per_agent_told_apart_by_origin() -> None:
    union = [
        typing.get_args(m)[0] for m in typing.get_args(typing.get_args(AnyInterruptRequest)[0])
    ]
    software = [t for t in union if t is not TeamInterruptRequest]
    assert len(software) == len(SOFTWARE_TEAM.nodes)
    assert {t.model_fields["origin"].default for t in software} == set(AgentType)
    request = PlanningOrchestratorInterruptRequest(
        type="HUMAN_REVIEW",
        reason="which split?",
        choices=[],
        confirmation_items=[],
        context_for_decision="ctx",
        ticket_decomposition=["by service"],
        granularity_rationale="one area per service",
        discovery_context="d",
        planning_scope="minimal",
    )
    parsed = TypeAdapter(AnyInterruptRequest).validate_python(request.to_wire())
    assert type(parsed) is PlanningOrchestratorInterruptRequest
    assert parsed.origin is AgentType.PLANNING_ORCHESTRATOR


def test_structured_choice_always_offers_custom() -> None:
    """FR-090: choices always include CUSTOM."""
    choice = StructuredChoice.model_validate(
        {
            "choiceId": "c1",
            "question": "q",
            "context": "c",
            "options": [{"key": "A", "description": "a"}, {"key": "B", "description": "b"}],
            "recommended": "A",
        }
    )
    assert choice.offered() == {OptionKey.A, OptionKey.B, OptionKey.CUSTOM}
