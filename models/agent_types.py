"""Agent types (as in FR-081's table) and the route marker that ties a routing field to a node."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, StringConstraints


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
        return slug(self.value)


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


AGENT_NAME_PATTERN = r"^[A-Z][A-Z0-9_]{0,47}$"
"""An agent's name: upper case, digits and underscores, at most 48 characters."""


def agent_name(value: str) -> str:
    """The software team's member for one of its names; a team's own agent name as it is."""
    if isinstance(value, AgentType):
        return value
    try:
        return AgentType(value)
    except ValueError:
        return value


AgentName = Annotated[
    str, StringConstraints(pattern=AGENT_NAME_PATTERN), AfterValidator(agent_name)
]
"""An agent of any team on the wire: the software team's names decode to ``AgentType``
members (so ``is`` comparisons keep working), other teams' names stay strings."""


def slug(agent: str) -> str:
    """Kebab-case name of any team's agent, used in node ids and context ids."""
    return agent.lower().replace("_", "-")


def from_slug(text: str) -> str:
    """The agent a slug names (``discovery-collector`` -> ``DISCOVERY_COLLECTOR``)."""
    return agent_name(text.upper().replace("-", "_"))


def is_agent(target: RouteTarget) -> bool:
    """Whether a route leads to an agent (not the handler, the end or a return)."""
    return not isinstance(target, Terminal) and re.fullmatch(AGENT_NAME_PATTERN, target) is not None


RouteTarget = AgentType | Terminal | str
"""Where a route leads: an agent of the run's team (a string for teams other than the software
team) or a terminal."""


@dataclass(frozen=True)
class Route:
    """Marks a routing field as a route: ``Annotated[X | None, Route(AgentType.X)]``."""

    target: RouteTarget
