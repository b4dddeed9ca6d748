"""The software team: its node table (agent type -> request, output and template) and its rules."""

from __future__ import annotations

import typing

from agent_interrupts.models.agent_types import COLLECTED_AGENTS, DISPATCHED_AGENTS, AgentType
from agent_interrupts.models.interrupts import (
    AnyInterruptRequest,
    InterruptRequestBase,
    InterruptRouting,
    TeamInterruptRequest,
)
from agent_interrupts.models.requests import (
    ContextManagerRoutingRequest,
    DiscoveryAgentRequest,
    DiscoveryAgentRequests,
    DiscoveryCollectorRequest,
    DiscoveryOrchestratorRequest,
    MergerRequest,
    OrchestratorCollectorRequest,
    OrchestratorRequest,
    PlanningAgentRequest,
    PlanningAgentRequests,
    PlanningCollectorRequest,
    PlanningOrchestratorRequest,
    ReviewRequest,
    TicketAgentRequest,
    TicketAgentRequests,
    TicketCollectorRequest,
    TicketOrchestratorRequest,
)
from agent_interrupts.models.results import OrchestratorCollectorResult
from agent_interrupts.models.routings import (
    ContextManagerRouting,
    DiscoveryAgentRouting,
    DiscoveryCollectorRouting,
    DiscoveryDispatchRouting,
    DiscoveryOrchestratorRouting,
    MergerRouting,
    OrchestratorCollectorRouting,
    OrchestratorRouting,
    PlanningAgentRouting,
    PlanningCollectorRouting,
    PlanningDispatchRouting,
    PlanningOrchestratorRouting,
    ReviewRouting,
    TicketAgentRouting,
    TicketCollectorRouting,
    TicketDispatchRouting,
    TicketOrchestratorRouting,
)
from agent_interrupts.models.team import Node, Team
from agent_interrupts.models.team_spec import SOFTWARE_TEAM_NAME, Role

_NODES = [
    Node(AgentType.ORCHESTRATOR, OrchestratorRequest, OrchestratorRouting, "ORCHESTRATION"),
    Node(
        AgentType.DISCOVERY_ORCHESTRATOR,
        DiscoveryOrchestratorRequest,
        DiscoveryOrchestratorRouting,
        "DISCOVERY",
    ),
    Node(
        AgentType.DISCOVERY_DISPATCH,
        DiscoveryAgentRequests,
        DiscoveryDispatchRouting,
        "DISCOVERY",
        dispatches=AgentType.DISCOVERY_AGENT,
    ),
    Node(AgentType.DISCOVERY_AGENT, DiscoveryAgentRequest, DiscoveryAgentRouting, "DISCOVERY"),
    Node(
        AgentType.DISCOVERY_COLLECTOR,
        DiscoveryCollectorRequest,
        DiscoveryCollectorRouting,
        "DISCOVERY",
    ),
    Node(
        AgentType.PLANNING_ORCHESTRATOR,
        PlanningOrchestratorRequest,
        PlanningOrchestratorRouting,
        "PLANNING",
    ),
    Node(
        AgentType.PLANNING_DISPATCH,
        PlanningAgentRequests,
        PlanningDispatchRouting,
        "PLANNING",
        dispatches=AgentType.PLANNING_AGENT,
    ),
    Node(AgentType.PLANNING_AGENT, PlanningAgentRequest, PlanningAgentRouting, "PLANNING"),
    Node(
        AgentType.PLANNING_COLLECTOR, PlanningCollectorRequest, PlanningCollectorRouting, "PLANNING"
    ),
    Node(
        AgentType.TICKET_ORCHESTRATOR,
        TicketOrchestratorRequest,
        TicketOrchestratorRouting,
        "TICKETS",
    ),
    Node(
        AgentType.TICKET_DISPATCH,
        TicketAgentRequests,
        TicketDispatchRouting,
        "TICKETS",
        dispatches=AgentType.TICKET_AGENT,
    ),
    Node(AgentType.TICKET_AGENT, TicketAgentRequest, TicketAgentRouting, "TICKETS"),
    Node(AgentType.TICKET_COLLECTOR, TicketCollectorRequest, TicketCollectorRouting, "TICKETS"),
    Node(AgentType.REVIEW_AGENT, ReviewRequest, ReviewRouting, "REVIEW"),
    Node(AgentType.MERGER_AGENT, MergerRequest, MergerRouting, "MERGE"),
    Node(
        AgentType.ORCHESTRATOR_COLLECTOR,
        OrchestratorCollectorRequest,
        OrchestratorCollectorRouting,
        "COMPLETION",
    ),
    Node(
        AgentType.CONTEXT_MANAGER,
        ContextManagerRoutingRequest,
        ContextManagerRouting,
        "CONTEXT",
    ),
]

NODES: dict[str, Node] = {n.agent_type: n for n in _NODES}
NODES_BY_OUTPUT: dict[str, Node] = {n.output_model.__name__: n for n in _NODES}
"""Nodes by output class name: the ``name`` of the json_schema response format."""

READ_AGENTS = frozenset(
    {
        AgentType.DISCOVERY_ORCHESTRATOR,
        AgentType.DISCOVERY_AGENT,
        AgentType.PLANNING_AGENT,
        AgentType.TICKET_AGENT,
        AgentType.REVIEW_AGENT,
        AgentType.CONTEXT_MANAGER,
    }
)
"""Agents that get the read tools over the pinned workspace (research R9)."""
WRITE_AGENTS = frozenset({AgentType.TICKET_AGENT})
"""Agents that also get the write tools, in their own worktree."""


ROLES: dict[str, Role] = {
    AgentType.ORCHESTRATOR: Role.ORCHESTRATOR,
    AgentType.DISCOVERY_ORCHESTRATOR: Role.ORCHESTRATOR,
    AgentType.DISCOVERY_DISPATCH: Role.DISPATCHER,
    AgentType.DISCOVERY_AGENT: Role.DISPATCHED,
    AgentType.DISCOVERY_COLLECTOR: Role.COLLECTOR,
    AgentType.PLANNING_ORCHESTRATOR: Role.ORCHESTRATOR,
    AgentType.PLANNING_DISPATCH: Role.DISPATCHER,
    AgentType.PLANNING_AGENT: Role.DISPATCHED,
    AgentType.PLANNING_COLLECTOR: Role.COLLECTOR,
    AgentType.TICKET_ORCHESTRATOR: Role.ORCHESTRATOR,
    AgentType.TICKET_DISPATCH: Role.DISPATCHER,
    AgentType.TICKET_AGENT: Role.DISPATCHED,
    AgentType.TICKET_COLLECTOR: Role.COLLECTOR,
    AgentType.REVIEW_AGENT: Role.REVIEWER,
    AgentType.MERGER_AGENT: Role.MERGER,
    AgentType.ORCHESTRATOR_COLLECTOR: Role.COLLECTOR,
    AgentType.CONTEXT_MANAGER: Role.CONTEXT_MANAGER,
}
"""Each agent's role: its capabilities are looked up by it (``Team.roles``)."""


def _question_types() -> dict[str, type[InterruptRequestBase]]:
    members = (
        typing.get_args(m)[0] for m in typing.get_args(typing.get_args(AnyInterruptRequest)[0])
    )
    return {
        str(cls.model_fields["origin"].default): cls
        for cls in members
        if cls is not TeamInterruptRequest
    }


SOFTWARE_TEAM = Team(
    name=SOFTWARE_TEAM_NAME,
    sha256="",
    nodes=NODES,
    entry=AgentType.ORCHESTRATOR,
    entry_request=OrchestratorRequest(
        guidance="Plan how to achieve the goal.", phase="DISCOVERY"
    ).to_wire(),
    dispatched=DISPATCHED_AGENTS,
    collected=COLLECTED_AGENTS,
    interrupt_routing=InterruptRouting,
    questions=_question_types(),
    final_result=OrchestratorCollectorResult,
    read_tools=READ_AGENTS,
    write_tools=WRITE_AGENTS,
    roles=ROLES,
)
"""The built-in team: its version is the code's (a run of it pins no team; its recorded histories
replay on every later version)."""
