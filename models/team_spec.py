"""A team declared as data: its agents, their roles, routes, typed fields, prompts and tools.

A ``TeamSpec`` is what a team file (``app/team_files.py``) reads into, and what a run pins at its
start: it travels in the run's history, so a worker redeployed with an edited team file never
changes a running run. ``models/team_build.py`` turns it into the run's ``Team`` (pydantic
request, result, routing and question models with strict schemas).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, StringConstraints
from pydantic.alias_generators import to_camel

from agent_interrupts.models.agent_types import AGENT_NAME_PATTERN, AgentType, Terminal
from agent_interrupts.models.base import WireModel

TEAM_NAME_PATTERN = r"^[a-z][a-z0-9-]{0,39}$"
"""A team's name: lower case, digits and dashes, at most 40 characters."""
FIELD_NAME_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
"""A declared field's name: snake_case (its JSON name is camelCase)."""
SOFTWARE_TEAM_NAME = "software"
"""The built-in team, and every run's team unless it names another."""
END = Terminal.END.value
"""The route target that ends the run with the team's final result."""
MAX_TEAM_AGENTS = 32
LIST_ITEMS = 16
"""A ``list[...]`` field's bound: its most items (and the most ``min_items`` may ask)."""
MAX_FIELDS = 16
"""Fields one request, result, question or final result may declare."""
MAX_TEMPLATE_CHARS = 16_000
MAX_TEAM_SPEC_BYTES = 256 * 1024
"""The most JSON a team (with its templates) may take: a run records it whole at its start."""

FieldName = Annotated[str, StringConstraints(pattern=FIELD_NAME_PATTERN)]
Description = Annotated[str, StringConstraints(max_length=2_000)]

SCALAR_TYPES = ("str", "text", "int", "float", "bool")
"""``str``: one line or a few (at most 500 characters); ``text``: up to 4,000 characters."""
_ENUM = re.compile(r"^enum\(([A-Z][A-Z0-9_]{0,39}(?:\|[A-Z][A-Z0-9_]{0,39}){0,19})\)$")
_LIST = re.compile(r"^list\[(.+)\]$")


MAX_SCHEMA_NAME_CHARS = 64
"""The longest response-format name an OpenAI-compatible endpoint takes."""


def camel(name: str) -> str:
    """``FINDINGS_COLLECTOR`` -> ``FindingsCollector``; ``incident-response`` ->
    ``IncidentResponse``."""
    return "".join(part.capitalize() for part in name.replace("-", "_").split("_") if part)


def routing_name(team: str, agent: str) -> str:
    """The class name of a declared team's agent's routing (``IncidentResponseTriageRouting``):
    the response format's name."""
    return f"{camel(team)}{camel(agent)}Routing"


def field_type_problem(text: str) -> str | None:
    """Why ``text`` is not a field type a strict schema can express (None when it is):
    ``str``, ``text``, ``int``, ``float``, ``bool``, ``enum(A|B|C)``, or ``list[...]`` of one
    of those."""
    inner = _LIST.match(text)
    base = inner.group(1) if inner else text
    if base in SCALAR_TYPES or _ENUM.match(base):
        return None
    return (
        f"field type {text!r} cannot be expressed by a strict schema; use str, text, int, "
        "float, bool, enum(A|B|...) or list[...] of one of those"
    )


class Role(StrEnum):
    """What an agent is in its team's graph."""

    ORCHESTRATOR = "orchestrator"
    """The team's first agent: every run starts here with the goal."""
    AGENT = "agent"
    """A single agent: its request in, its result and one route out."""
    DISPATCHER = "dispatcher"
    """Runs its ``dispatches`` agent once per request, in parallel, then hands their results
    on (to a collector)."""
    DISPATCHED = "dispatched"
    """Run by its dispatcher; its result goes back there; its question is lifted into the
    dispatcher's."""
    COLLECTOR = "collector"
    """Receives a fan-out's results (``agentResults`` in its request)."""
    REVIEWER = "reviewer"
    """An agent that reviews the run's code changes: its request carries each code-writing
    agent's real diff and test status."""
    MERGER = "merger"
    """An agent that merges the run's code changes: its request carries the real merge of the
    code-writing agents' branches into the run's branch."""
    CONTEXT_MANAGER = "context-manager"
    """Reachable from every agent: finds what an agent is missing and hands back (``RETURN``)."""


TOOL_GROUPS = ("read", "write")
"""``read``: the run's pinned workspace through the read tools; ``write``: also the write tools,
in the agent's own worktree (edits, sandboxed tests, a commit per step)."""


class FieldSpec(WireModel):
    """One typed field of a request, a result, a question or the final result."""

    type: str = "str"
    description: Description = ""
    min_items: int | None = Field(default=None, exclude_if=lambda v: v is None)
    """A ``list[...]`` field's least items: the schema a model writes to says so (its
    ``minItems``). Left out of the wire form when unset, so a team's content hash stays what it
    was."""


class AgentSpec(WireModel):
    """One agent of a team."""

    name: Annotated[str, StringConstraints(pattern=AGENT_NAME_PATTERN)]
    role: Role = Role.AGENT
    description: Description = ""
    phase: Annotated[str, StringConstraints(min_length=1, max_length=40)] = "WORK"
    dispatches: str | None = None
    """A dispatcher's agent (role ``dispatched``)."""
    routes: dict[str, Description] = Field(default_factory=dict)
    """Where it may go next: an agent's name (or ``END``) -> when to take that route."""
    request: dict[FieldName, FieldSpec] = Field(default_factory=dict)
    """Fields of the request it receives, beside ``guidance``."""
    result: dict[FieldName, FieldSpec] = Field(default_factory=dict)
    """Fields of the result it writes."""
    question: dict[FieldName, FieldSpec] = Field(default_factory=dict)
    """Typed fields of its question, beside the reason, choices and confirmations."""
    template: Annotated[str, StringConstraints(max_length=MAX_TEMPLATE_CHARS)] = ""
    """Its prompt template (jinja2 source); the file form names a file beside the team file."""
    tools: list[str] = Field(default_factory=list)
    """``read``: the run's pinned workspace through the read tools."""


class TeamSpec(WireModel):
    """A team: its name, its agents (the orchestrator first), the fields of its final result."""

    name: Annotated[str, StringConstraints(pattern=TEAM_NAME_PATTERN)]
    description: Description = ""
    extends: Literal["software"] | None = None
    """A team that extends the software team: its agents join the software team's, and
    ``routes`` adds routes to the software team's agents (an agent between review and merge is
    one declaration and one template)."""
    agents: list[AgentSpec] = Field(min_length=1, max_length=MAX_TEAM_AGENTS)
    routes: dict[str, dict[str, Description]] = Field(default_factory=dict)
    """With ``extends``: routes added to the software team's agents (agent -> target -> when);
    an added route is offered after the agent's own."""
    final: dict[FieldName, FieldSpec] = Field(
        default_factory=lambda: {"summary": FieldSpec(description="What the team achieved.")}
    )
    """Fields of the run's final result (what a route to END carries)."""

    def agent(self, name: str) -> AgentSpec:
        return next(a for a in self.agents if a.name == name)

    @property
    def entry(self) -> AgentSpec:
        """The agent every run starts at: the orchestrator."""
        return next(a for a in self.agents if a.role is Role.ORCHESTRATOR)

    def sha256(self) -> str:
        """The team's content hash: what a run records beside its name."""
        text = json.dumps(self.to_wire(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class BaseTeam:
    """What a team that ``extends`` another may name of it: its agents, its dispatched agents
    and where each agent's routes lead."""

    agents: frozenset[str]
    dispatched: frozenset[str]
    edges: Mapping[str, frozenset[str]]


def spec_problems(spec: TeamSpec, base: BaseTeam | None = None) -> list[str]:
    """Why ``spec`` is not a team a run can follow, one line per problem, each naming the agent
    (empty when it is one). ``base``: the team it extends (``spec.extends``)."""
    found: list[str] = []
    names = [a.name for a in spec.agents]
    if spec.extends is not None and base is None:
        return [f"the team extends {spec.extends!r}, which is not given to check it against"]
    if spec.extends is None and spec.routes:
        found.append("`routes` adds routes to an extended team's agents: set `extends`")
    base = base if spec.extends is not None else None
    known = set(names) | (base.agents if base is not None else set())
    for name in sorted({n for n in names if names.count(n) > 1}):
        found.append(f"agent {name}: declared more than once; agent names are unique")
    reserved = {a.value for a in AgentType} | {t.value for t in Terminal}
    for name in names:
        if name in reserved:
            found.append(
                f"agent {name}: the name is reserved (the software team's agents and "
                f"INTERRUPT, END, RETURN); choose another"
            )
    for agent in spec.agents:
        name = routing_name(spec.name, agent.name)
        if len(name) > MAX_SCHEMA_NAME_CHARS:
            found.append(
                f"agent {agent.name}: its output's name {name} is {len(name)} characters, over "
                f"the {MAX_SCHEMA_NAME_CHARS} an endpoint takes; shorten the team's or the "
                "agent's name"
            )
        if agent.role is Role.ORCHESTRATOR and agent.request:
            found.append(
                f"agent {agent.name}: the orchestrator's request declares no fields (a run "
                "starts it with the goal alone); move them to another agent's request"
            )
    entries = [a.name for a in spec.agents if a.role is Role.ORCHESTRATOR]
    if base is not None and entries:
        found.append(
            f"agent {entries[0]}: a team that extends {spec.extends} starts at its orchestrator; "
            "give this agent another role"
        )
    elif base is None and len(entries) != 1:
        found.append(
            f"the team needs exactly one agent with role orchestrator (has {len(entries)}: "
            f"{', '.join(entries) or 'none'})"
        )
    dispatched_by: dict[str, str] = {}
    dispatched = {a.name for a in spec.agents if a.role is Role.DISPATCHED} | (
        base.dispatched if base is not None else set()
    )
    own = {a.name for a in spec.agents}
    for agent in spec.agents:
        found += _agent_problems(agent, known, dispatched, {a.name: a.role for a in spec.agents})
        if agent.role is Role.DISPATCHER and agent.dispatches in known - own:
            found.append(
                f"agent {agent.name}: dispatches {agent.dispatches}, an agent of "
                f"{spec.extends}; a dispatcher dispatches an agent of its own team"
            )
        if agent.role is Role.DISPATCHER and agent.dispatches in known:
            child = agent.dispatches or ""
            if child in dispatched_by:
                found.append(
                    f"agent {agent.name}: dispatches {child}, which {dispatched_by[child]} "
                    "dispatches too; a dispatched agent has one dispatcher"
                )
            dispatched_by[child] = agent.name
    for agent in spec.agents:
        if agent.role is Role.DISPATCHED and agent.name not in dispatched_by:
            found.append(f"agent {agent.name}: role dispatched, but no dispatcher dispatches it")
    found += [f"final {p}" for p in _field_problems("result", spec.final)]
    for extended, more in spec.routes.items():
        at = f"routes of {extended}"
        if base is not None and extended not in base.agents:
            found.append(f"{at}: {extended} is not an agent of {spec.extends}")
        elif extended in dispatched:
            found.append(f"{at}: a dispatched agent's result goes to its dispatcher")
        for target in more:
            if target != END and target not in known:
                found.append(f"{at}: route to {target!r}, which is not an agent of the team")
            elif target in dispatched:
                found.append(f"{at}: routes to {target}, a dispatched agent")
    if not found:
        found += _exit_problems(spec, base)
    return found


def _agent_problems(
    agent: AgentSpec, known: set[str], dispatched: set[str], roles: Mapping[str, Role]
) -> list[str]:
    found: list[str] = []
    at = f"agent {agent.name}"
    for target in agent.routes:
        if target != END and target not in known:
            found.append(
                f"{at}: route to {target!r}, which is not an agent of the team (agents: "
                f"{', '.join(sorted(known))}; or END)"
            )
    if agent.role is Role.DISPATCHER:
        if agent.question:
            found.append(
                f"{at}: a dispatcher's question carries its agents' questions; declare the typed "
                "question fields on the agent it dispatches"
            )
        if agent.dispatches not in known:
            found.append(
                f"{at}: a dispatcher needs `dispatches` naming an agent of the team "
                f"(has {agent.dispatches!r})"
            )
        elif agent.dispatches not in dispatched:
            role = roles.get(agent.dispatches or "")
            found.append(
                f"{at}: dispatches {agent.dispatches}, whose role is "
                f"{role.value if role else 'not dispatched'}, not dispatched"
            )
    elif agent.dispatches is not None:
        found.append(f"{at}: only a dispatcher has `dispatches` (its role is {agent.role.value})")
    if agent.role is Role.DISPATCHED:
        if agent.routes:
            found.append(
                f"{at}: a dispatched agent has no routes of its own (its result goes back to "
                "its dispatcher); remove `routes`"
            )
    elif not agent.routes:
        found.append(f"{at}: no routes; name at least one agent (or END) it may go on to")
    for target in agent.routes:
        if target in dispatched:
            found.append(
                f"{at}: routes to {target}, a dispatched agent; route to its dispatcher instead"
            )
    for what, fields in (
        ("request", agent.request),
        ("result", agent.result),
        ("question", agent.question),
    ):
        found += [f"{at}: {p}" for p in _field_problems(what, fields)]
    for tool in agent.tools:
        if tool != "read":
            found.append(f"{at}: unknown tool group {tool!r}; teams may give agents `read`")
    return found


def _field_problems(what: str, fields: dict[str, FieldSpec]) -> list[str]:
    """Too many fields, types a strict schema cannot express, two names with one JSON name."""
    found: list[str] = []
    if len(fields) > MAX_FIELDS:
        found.append(f"{len(fields)} {what} fields; at most {MAX_FIELDS}")
    json_names: dict[str, str] = {}
    for field, each in fields.items():
        if problem := field_type_problem(each.type):
            found.append(f"{what} field {field}: {problem}")
        if each.min_items is not None and not _LIST.match(each.type):
            found.append(f"{what} field {field}: min_items is for a list[...] field only")
        elif each.min_items is not None and not 1 <= each.min_items <= LIST_ITEMS:
            found.append(
                f"{what} field {field}: min_items is {each.min_items}; give 1 to {LIST_ITEMS}"
            )
        json_name = to_camel(field)
        if json_name in json_names:
            found.append(
                f"{what} fields {json_names[json_name]} and {field} have one JSON name "
                f"({json_name}); rename one"
            )
        json_names[json_name] = field
    return found


def _exit_problems(spec: TeamSpec, base: BaseTeam | None) -> list[str]:
    """Agents from which no chain of routes reaches END: a cycle with no exit."""
    edges: dict[str, set[str]] = {
        a: set(t) for a, t in (base.edges.items() if base is not None else ())
    }
    for added, more in spec.routes.items():
        edges.setdefault(added, set()).update(more)
    edges.update({a.name: set(a.routes) for a in spec.agents})
    for declared in spec.agents:
        if declared.role is Role.DISPATCHER and declared.dispatches:
            edges[declared.dispatches] = {declared.name}
    reaches_end = {a for a, targets in edges.items() if END in targets}
    grew = True
    while grew:
        grew = False
        for source, targets in edges.items():
            if source not in reaches_end and targets & reaches_end:
                reaches_end.add(source)
                grew = True
    stuck = sorted(set(edges) - reaches_end)
    if not stuck:
        return []
    return [
        f"agent {name}: no chain of routes from it reaches END (a cycle with no exit); give "
        "one agent on it a route to END"
        for name in stuck
    ]


class TeamPin(WireModel):
    """What a run follows: its team's name and content hash, and (for a declared team) the
    team itself, as the run read it at its start."""

    name: str = SOFTWARE_TEAM_NAME
    sha256: str = ""
    spec: TeamSpec | None = None


def declares_no_team(name: str | None) -> bool:
    """Whether a run that names ``name`` follows the software team."""
    return name is None or name == SOFTWARE_TEAM_NAME
