"""A team at run time: its node table, its fan-outs, its question types and its resume routing.

The software team is built from its classes (``models/graph.py``); a declared team from its
``TeamSpec`` (``models/team_build.py``). Workflow code and activities look every rule up here,
in the team the run pinned at its start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_interrupts.models.agent_types import Terminal, slug, typed_agent_names
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.errors import UnknownAgentType
from agent_interrupts.models.interrupts import InterruptRequestBase, TeamInterruptRequest
from agent_interrupts.models.requests import AgentRequest
from agent_interrupts.models.results import AgentResult, TeamAgentResult
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.team_spec import Role, TeamPin, TeamSpec


@dataclass(frozen=True)
class Node:
    """How one agent runs."""

    agent_type: str
    request_model: type[AgentRequest]
    output_model: type[Routing]
    phase: str
    dispatches: str | None = None
    """For dispatch nodes: the agent fanned out, one per entry of ``request.requests``."""
    template_name: str = ""
    """A declared team's template, by a name that carries the team's content hash."""

    @property
    def template(self) -> str:
        """The template's name in the prompt environment."""
        return self.template_name or f"workflow/{slug(self.agent_type)}.jinja"


@dataclass(frozen=True, eq=False)
class Team:
    """One team's rules, as workflow code and activities read them. Built once per content
    (``models/team_build.py``), so two teams are the same team only if they are one object."""

    name: str
    sha256: str
    nodes: Mapping[str, Node]
    entry: str
    """The agent every run starts at."""
    entry_request: Mapping[str, Any]
    """Its first request (wire form), before the goal is stamped on it."""
    dispatched: Mapping[str, str]
    """Dispatched agents and the dispatch node that runs them (and raises their questions)."""
    collected: Mapping[str, str]
    """Collectors and the dispatched agents whose results they consolidate."""
    interrupt_routing: type[Routing]
    """The unified handler's output for this team: one route per agent a run may resume at."""
    questions: Mapping[str, type[InterruptRequestBase]]
    """Each agent's own question type (typed fields), by agent."""
    final_result: type[WireModel]
    read_tools: frozenset[str] = frozenset()
    """Agents that read the pinned workspace through tools."""
    write_tools: frozenset[str] = frozenset()
    """Agents that change it (worktrees, commits)."""
    roles: Mapping[str, Role] = field(default_factory=dict)
    """Every agent's role: what capabilities (the phase-round guard, reviews of diffs, merges,
    export kinds) are looked up by, never the agent's name."""
    curated: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Collectors whose results become a curated context that every later request of the team
    carries (its ``contexts``), each with the result fields (JSON names) it keeps; the software
    team's collectors have typed curations of their own (``models/contexts.py``)."""
    templates: Mapping[str, str] = field(default_factory=dict)
    """Template sources by template name (a declared team's; the software team's are files)."""
    spec: TeamSpec | None = None

    @property
    def pin(self) -> TeamPin:
        return TeamPin(name=self.name, sha256=self.sha256, spec=self.spec)

    @property
    def builtin(self) -> bool:
        return self.spec is None

    def role(self, agent: str) -> Role:
        """``agent``'s role in the team (an agent the team does not have: ``Role.AGENT``)."""
        return self.roles.get(agent, Role.AGENT)

    def with_role(self, *roles: Role) -> frozenset[str]:
        """The team's agents whose role is one of ``roles``."""
        return frozenset(a for a, r in self.roles.items() if r in roles)

    def node(self, agent: str) -> Node:
        """The node of ``agent``; UnknownAgentType names the team's agents when it has none."""
        found = self.nodes.get(agent)
        if found is None:
            raise UnknownAgentType(
                f"team {self.name!r} has no agent {agent!r}; its agents: "
                f"{', '.join(sorted(self.nodes))}"
            )
        return found

    def route_for(self, agent: str) -> str | None:
        """The handler's route field that leads to ``agent``, if any."""
        return self.interrupt_routing.route_for(agent)

    def route_targets(self) -> set[str]:
        """The agents a question's answer may resume at."""
        return {
            str(t)
            for t in self.interrupt_routing.route_aliases().values()
            if not isinstance(t, Terminal)
        }

    def asker(self, agent: str) -> str:
        """Who raises ``agent``'s question: its dispatch node for a dispatched agent."""
        return self.dispatched.get(agent, agent)

    def not_returnable(self) -> frozenset[str]:
        """Agents a context manager never hands back to: context managers and dispatched agents
        (their dispatch node runs them again)."""
        return self.with_role(Role.CONTEXT_MANAGER) | frozenset(self.dispatched)


def on_the_wire(value: Any) -> Any:
    """A declared team's generated result or question as its wire form (``TeamAgentResult``,
    ``TeamInterruptRequest``), which state and unions hold; anything else as it is."""
    generated_result = "team_agent" in type(value).model_fields
    if isinstance(value, AgentResult) and generated_result and type(value) is not TeamAgentResult:
        return TeamAgentResult.model_validate(value.to_wire())
    if isinstance(value, InterruptRequestBase) and type(value) is not TeamInterruptRequest:
        origin = getattr(value, "origin", None)
        if isinstance(origin, str) and origin not in typed_agent_names():
            return TeamInterruptRequest.model_validate(value.to_wire())
    return value
