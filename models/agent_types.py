"""Agents' names on the wire (``AgentName``), route targets and the route marker that ties a
routing field to a node. A team whose typed models name its agents by an enum (the software
team's ``AgentType``, ``teams/software/agents.py``) registers it here when it loads."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, StringConstraints


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


_TYPED_AGENTS: dict[str, StrEnum] = {}
"""Agent names that decode to an enum's members, filled by ``register_typed_agents``."""


def register_typed_agents(names: type[StrEnum]) -> None:
    """Decode ``names``' values to its members from now on (a team's package calls it once, when
    it loads; the worker loads it before any workflow runs)."""
    _TYPED_AGENTS.update({member.value: member for member in names})


def typed_agent_names() -> frozenset[str]:
    """The names registered by ``register_typed_agents`` (the software team's)."""
    return frozenset(_TYPED_AGENTS)


def agent_name(value: str) -> str:
    """The registered enum's member for one of its names; any other team's name as it is."""
    return _TYPED_AGENTS.get(value, value)


AgentName = Annotated[
    str, StringConstraints(pattern=AGENT_NAME_PATTERN), AfterValidator(agent_name)
]
"""An agent of any team on the wire: the software team's names decode to its ``AgentType``
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


RouteTarget = Terminal | str
"""Where a route leads: an agent of the run's team (the software team's ``AgentType`` members
are strings too) or a terminal."""


@dataclass(frozen=True)
class Route:
    """Marks a routing field as a route: ``Annotated[X | None, Route(AgentType.X)]``."""

    target: RouteTarget
