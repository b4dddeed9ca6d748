"""A declared team's context manager (role ``context-manager``): reachable from the agents that
route to it, it hands back to whoever asked (``RETURN``), as the software team's does."""

from __future__ import annotations

from agent_interrupts.models.agent_types import Terminal
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_spec import END, AgentSpec, FieldSpec, Role, TeamSpec

TEAM = TeamSpec(
    name="with-a-finder",
    agents=[
        AgentSpec(
            name="LEAD", role=Role.ORCHESTRATOR, routes={"FINDER": "missing context", END: "d"}
        ),
        AgentSpec(
            name="FINDER",
            role=Role.CONTEXT_MANAGER,
            result={"found": FieldSpec(type="text")},
        ),
    ],
)


def test_a_declared_context_manager_hands_back_to_whoever_asked() -> None:
    team = build_team(TEAM)
    routing = team.node("FINDER").output_model
    assert routing.route_aliases() == {
        "returnToPrevious": Terminal.RETURN,
        "interruptRequest": Terminal.INTERRUPT,
    }
    reply = routing.model_validate({"returnToPrevious": {"found": "the config is in etc/"}})
    assert reply.chosen_route()[1] is Terminal.RETURN
    assert team.not_returnable() == {"FINDER"}


def test_the_software_teams_context_manager_is_found_by_its_role() -> None:
    assert SOFTWARE_TEAM.not_returnable() == {
        "CONTEXT_MANAGER",
        "DISCOVERY_AGENT",
        "PLANNING_AGENT",
        "TICKET_AGENT",
    }
