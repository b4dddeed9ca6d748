"""Agent types (as in FR-081's table) and the route marker that ties a routing field to a node."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class AgentType(StrEnum):
    """Every agent of the graph, named as in the spec."""

    ORCHESTRATOR = "ORCHESTRATOR"
    ORCHESTRATOR_COLLECTOR = "ORCHESTRATOR_COLLECTOR"
    DISCOVERY_ORCHESTRATOR = "DISCOVERY_ORCHESTRATOR"
    DISCOVERY_DISPATCH = "DISCOVERY_DISPATCH"
    DISCOVERY_AGENT = "DISCOVERY_AGENT"
    DISCOVERY_COLLECTOR = "DISCOVERY_COLLECTOR"
    PLANNING_ORCHESTRATOR = "PLANNING_ORCHESTRATOR"
    PLANNING_DISPATCH = "PLANNING_DISPATCH"
    PLANNING_AGENT = "PLANNING_AGENT"
    PLANNING_COLLECTOR = "PLANNING_COLLECTOR"
    TICKET_ORCHESTRATOR = "TICKET_ORCHESTRATOR"
    TICKET_DISPATCH = "TICKET_DISPATCH"
    TICKET_AGENT = "TICKET_AGENT"
    TICKET_COLLECTOR = "TICKET_COLLECTOR"
    REVIEW_AGENT = "REVIEW_AGENT"
    MERGER_AGENT = "MERGER_AGENT"
    CONTEXT_MANAGER = "CONTEXT_MANAGER"

    @property
    def slug(self) -> str:
        """Kebab-case name used in node ids and context ids (``discovery-collector``)."""
        return self.value.lower().replace("_", "-")


DISPATCHED_AGENTS: dict[AgentType, AgentType] = {
    AgentType.DISCOVERY_AGENT: AgentType.DISCOVERY_DISPATCH,
    AgentType.PLANNING_AGENT: AgentType.PLANNING_DISPATCH,
    AgentType.TICKET_AGENT: AgentType.TICKET_DISPATCH,
}
"""Dispatched agents and the dispatch node that raises their questions (handler US4)."""

COLLECTED_AGENTS: dict[AgentType, AgentType] = {
    AgentType.DISCOVERY_COLLECTOR: AgentType.DISCOVERY_AGENT,
    AgentType.PLANNING_COLLECTOR: AgentType.PLANNING_AGENT,
    AgentType.TICKET_COLLECTOR: AgentType.TICKET_AGENT,
}
"""Collectors and the dispatched agents whose results they consolidate."""


class Terminal(StrEnum):
    """Route targets that are not agents."""

    INTERRUPT = "INTERRUPT"
    """The unified interrupt handler (InterruptWorkflow)."""
    END = "END"
    """The workflow returns its result."""
    RETURN = "RETURN"
    """Back to the last request that was not the context manager's."""


RouteTarget = AgentType | Terminal


@dataclass(frozen=True)
class Route:
    """Marks a routing field as a route: ``Annotated[X | None, Route(AgentType.X)]``."""

    target: RouteTarget
