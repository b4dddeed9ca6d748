"""The prompt contributor framework (agents US1, agents FR-001..005).

A contributor adds one titled section to the system prompt of the agents it applies to. The
registry orders contributors by ``(order, name)`` so a prompt always has the same shape, and
isolates failures: a contributor that raises (or returns something that is not text) is skipped
with a warning, and the prompt still assembles.

Contributors return plain text. It is appended to the prompt as data and never compiled as a
template, so ``{{ ... }}`` from a goal, an answer or an earlier output stays literal.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_interrupts.activities.redaction import redact
from agent_interrupts.models.agent_call import AgentCall, HistoryDigestEntry, PreviousContext
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.code import WorktreeRef
from agent_interrupts.models.team import Team
from agent_interrupts.models.tools import PinnedWorkspace

logger = logging.getLogger(__name__)

MAX_SECTION_CHARS = 8_000
"""A section longer than this is cut (with a warning) so one contributor cannot flood the prompt."""
_ERROR_TEXT_CHARS = 200


@dataclass(frozen=True)
class PromptContext:
    """What a contributor may look at (the same for third-party contributors):

    - ``agent_type``, ``node_id``, ``goal`` and the ``request`` the agent consumes (with its
      curated contexts), ``output_model`` (its Routing or result model);
    - ``recent``: the newest blackboard entries without payloads (node, agent, kind, route, id);
    - ``interrupts_here``: how many interrupts this agent type raised in the run chain;
    - ``previous``: its previous attempt (output excerpt, route, why it runs again), or None;
    - ``interrupt_resolution``: its earlier question and the answer, when it resumes;
    - ``workspace``: the run's pinned workspace, or None (then no tool is offered);
    - ``worktree``: a ticket agent's own worktree, or None (then no write tool is offered);
    - ``supervised``: a supervisor's event asks this call to interrupt (its message is the
      call's last user message).
    """

    agent_type: str
    node_id: str
    goal: str
    request: Mapping[str, Any]
    recent: Sequence[HistoryDigestEntry]
    interrupts_here: int
    previous: PreviousContext | None
    interrupt_resolution: str | None
    output_model: type[WireModel]
    team: Team
    workspace: PinnedWorkspace | None = None
    worktree: WorktreeRef | None = None
    supervised: bool = False

    @classmethod
    def from_call(cls, call: AgentCall, output_model: type[WireModel], team: Team) -> PromptContext:
        return cls(
            agent_type=call.agent_type,
            node_id=call.node_id,
            goal=call.goal,
            request=call.request,
            recent=call.recent,
            interrupts_here=call.interrupts_here,
            previous=call.previous,
            interrupt_resolution=call.interrupt_resolution,
            output_model=output_model,
            workspace=call.workspace,
            worktree=call.worktree,
            supervised=call.supervised,
            team=team,
        )


class PromptContributor(ABC):
    """One tool's prompt guidance. Subclasses set the attributes and implement ``contribute``."""

    name: str
    """Unique key in a registry; also how warnings name the contributor."""
    title: str
    """The section heading: rendered as ``## <title>``."""
    order: int = 100
    """Lower comes first; ties are broken by ``name``."""
    applies_to: frozenset[str] | None = None
    """The agent types that get this section; None means every agent."""

    @abstractmethod
    def contribute(self, ctx: PromptContext) -> str | None:
        """The section's body for this call, or None to add nothing."""

    def applies(self, agent: str, team: Team) -> bool:
        """Whether ``agent`` of ``team`` gets this section (``applies_to`` names the software
        team's agents; a declared team's agents get the sections meant for every agent)."""
        return self.applies_to is None or agent in self.applies_to


@dataclass(frozen=True)
class AssembledSections:
    """The sections contributed for one call, in order, and what went wrong on the way."""

    sections: list[tuple[str, str]]
    """``(contributor name, "## <title>\\n<body>")`` pairs."""
    warnings: list[str]

    def text(self) -> str:
        return "\n\n".join(text for _, text in self.sections)


class ContributorRegistry:
    """The contributors of one worker; ``assemble`` builds the sections for one agent call."""

    def __init__(self, contributors: Iterable[PromptContributor] = ()) -> None:
        self._contributors: dict[str, PromptContributor] = {}
        self._by_agent: dict[tuple[Team, str], tuple[PromptContributor, ...]] = {}
        for contributor in contributors:
            self.register(contributor)

    def register(self, contributor: PromptContributor) -> None:
        """Add a contributor (agents FR-001). Names are unique; a second one with a name is an
        error."""
        name = getattr(contributor, "name", "")
        if not name or not getattr(contributor, "title", ""):
            raise ValueError(f"{type(contributor).__name__} needs a non-empty name and title")
        if name in self._contributors:
            raise ValueError(f"a prompt contributor named {name!r} is already registered")
        self._contributors[name] = contributor
        self._by_agent.clear()

    @property
    def names(self) -> list[str]:
        return sorted(self._contributors)

    def for_agent(self, agent: str, team: Team) -> list[PromptContributor]:
        """The contributors that apply to ``agent`` of ``team`` (agents FR-002), in (order,
        name) order (agents FR-004)."""
        key = (team, agent)
        found = self._by_agent.get(key)
        if found is None:
            found = tuple(
                sorted(
                    (c for c in self._contributors.values() if c.applies(agent, team)),
                    key=lambda c: (c.order, c.name),
                )
            )
            self._by_agent[key] = found
        return list(found)

    def assemble(self, ctx: PromptContext) -> AssembledSections:
        """Every applicable contribution for ``ctx``; failures become warnings (agents FR-005)."""
        sections: list[tuple[str, str]] = []
        warnings: list[str] = []
        for contributor in self.for_agent(ctx.agent_type, ctx.team):
            try:
                body = contributor.contribute(ctx)
            except Exception as err:
                warnings.append(
                    f"prompt contributor {contributor.name!r} failed and was skipped "
                    f"for {ctx.agent_type} at {ctx.node_id}: {_describe(err)}"
                )
                logger.warning("%s", warnings[-1])
                continue
            if body is None:
                continue
            if not isinstance(body, str):
                warnings.append(
                    f"prompt contributor {contributor.name!r} returned "
                    f"{type(body).__name__}, not text; its section was skipped"
                )
                continue
            body = body.strip()
            if not body:
                continue
            if len(body) > MAX_SECTION_CHARS:
                warnings.append(
                    f"prompt contributor {contributor.name!r} returned {len(body)} characters; "
                    f"its section was cut to {MAX_SECTION_CHARS}"
                )
                body = body[:MAX_SECTION_CHARS] + "\n[... cut: the section was too long]"
            sections.append((contributor.name, f"## {contributor.title}\n{body}"))
        return AssembledSections(sections, warnings)


def _describe(err: Exception) -> str:
    """``Type: message``, shortened, with anything that looks like a credential removed."""
    text = redact(str(err)).strip()
    if len(text) > _ERROR_TEXT_CHARS:
        text = text[:_ERROR_TEXT_CHARS] + "..."
    return f"{type(err).__name__}: {text}" if text else type(err).__name__
