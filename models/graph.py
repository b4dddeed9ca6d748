"""The node table: agent type -> request, output and template."""

from __future__ import annotations

from dataclasses import dataclass

from agent_interrupts.models.agent_types import AgentType
from agent_interrupts.models.requests import (
    AgentRequest,
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
from agent_interrupts.models.routing import Routing
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


@dataclass(frozen=True)
class Node:
    """How one agent type runs."""

    agent_type: AgentType
    request_model: type[AgentRequest]
    output_model: type[Routing]
    phase: str
    dispatches: AgentType | None = None
    """For dispatch nodes: the agent type fanned out, one per entry of ``request.requests``."""

    @property
    def template(self) -> str:
        return f"workflow/{self.agent_type.slug}.jinja"


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

NODES: dict[AgentType, Node] = {n.agent_type: n for n in _NODES}
NODES_BY_OUTPUT: dict[str, Node] = {n.output_model.__name__: n for n in _NODES}
"""Nodes by output class name: the ``name`` of the json_schema response format."""
