"""A supervisor's event is checked against the run's own team (``workflows/event_rules.py``):
on a declared team's run, a software agent's name is refused with the declared team's nodes."""

from __future__ import annotations

from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.interrupt_events import InterruptRequestEvent
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_spec import TeamSpec
from agent_interrupts.workflows.event_rules import unknown_agents

TEAM = build_team(
    TeamSpec.model_validate(
        {
            "name": "grant-review",
            "agents": [
                {"name": "INTAKE", "role": "orchestrator", "routes": {"DECISION": "d"}},
                {"name": "DECISION", "routes": {"END": "done", "INTAKE": "again"}},
            ],
        }
    )
)


def _event(**fields: str) -> InterruptRequestEvent:
    return InterruptRequestEvent.model_validate({"eventId": "e1", "reason": "r", **fields})


def test_a_software_agent_as_the_target_is_refused_with_the_runs_own_nodes() -> None:
    event = _event(sourceAgentType="DECISION", rerouteToAgentType="TICKET_AGENT")
    problem = unknown_agents(event, TEAM)
    assert problem == (
        "rerouteToAgentType TICKET_AGENT is not a node the workflow can continue at; use one of "
        "DECISION, INTAKE"
    )


def test_a_software_agent_as_the_source_is_refused_with_the_runs_own_agents() -> None:
    problem = unknown_agents(_event(sourceAgentType="TICKET_AGENT"), TEAM)
    assert problem == (
        "sourceAgentType TICKET_AGENT is not an agent of team grant-review (its agents: "
        "INTAKE, DECISION)"
    )


def test_the_software_team_still_refuses_a_target_it_cannot_continue_at() -> None:
    event = _event(sourceAgentType="DISCOVERY_AGENT", rerouteToAgentType="TICKET_AGENT")
    problem = unknown_agents(event, SOFTWARE_TEAM)
    assert problem is not None and problem.startswith(
        "rerouteToAgentType TICKET_AGENT is not a node the workflow can continue at; use one of "
    )
    assert "TICKET_ORCHESTRATOR" in problem and "INTAKE" not in problem
