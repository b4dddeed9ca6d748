"""A team declared as data: its agents, their roles, routes, typed fields, prompts and tools.

A ``TeamSpec`` is what a team file (``models/team_files.py``) reads into, and what a run pins at its
start: it travels in the run's history, so a worker redeployed with an edited team file never
changes a running run. ``models/team_build.py`` turns it into the run's ``Team`` (pydantic
request, result, routing and question models with strict schemas).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Annotated, Literal

from pydantic import Field, StringConstraints
from pydantic.alias_generators import to_camel

from agent_interrupts.models.agent_types import AgentName, Terminal, typed_agent_names
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.contexts import TEAM_CONTEXTS_FIELD

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

TYPE_NAME_PATTERN = r"^[A-Z][A-Za-z0-9]{0,39}$"
"""A declared record type's name: CamelCase (``FileReference``), at most 40 characters."""
MAX_TYPES = 40
"""Record types one team may declare (the software team declares 27)."""
ENUM_VALUE_PATTERN = r"^[A-Z][A-Z0-9_]{0,39}$"
"""A named enum's value: upper case letters, digits and underscores (``CHANGES_REQUESTED``)."""
MAX_FIELD_CHARS = 8_000
"""The most ``max_chars`` may allow a ``str`` or ``text`` field (a run's goal is as long)."""
MAX_ENUMS = 16
"""Named enums (``[enums.NAME]``) one team may declare."""
MAX_ENUM_VALUES = 32
"""Values one named enum may have."""
MAX_RECORD_DEPTH = 3
"""How deep records may nest in one another (``Diagram`` holding ``DiagramEdge`` is 2)."""
MAX_LIST_ITEMS = 16
"""A ``list[...]`` field's bound (and the most ``min_items`` may ask for)."""
SHARED_MODEL_NAMES = frozenset(
    {
        "ChoiceOption",
        "ConfirmationItem",
        "DispatchResult",
        "DispatchRoutingDecision",
        "InterruptType",
        "OptionKey",
        "StructuredChoice",
    }
)
"""The package's models (and enums) every declared team's schemas hold beside its own: no record
type or named enum may take one of their names (or one of the team's generated models')."""

NO_TYPES: Mapping[str, tuple[str, ...] | None] = MappingProxyType({})
"""A team without record types or named enums (``named_types``)."""

FieldName = Annotated[str, StringConstraints(pattern=FIELD_NAME_PATTERN)]
TypeName = Annotated[str, StringConstraints(pattern=TYPE_NAME_PATTERN)]
EnumValue = Annotated[str, StringConstraints(pattern=ENUM_VALUE_PATTERN)]
Description = Annotated[str, StringConstraints(max_length=2_000)]

SCALAR_TYPES = ("str", "text", "int", "float", "bool")
"""``str``: one line or a few (at most 500 characters); ``text``: up to 4,000 characters."""
_ENUM = re.compile(r"^enum\(([A-Z][A-Z0-9_]{0,39}(?:\|[A-Z][A-Z0-9_]{0,39}){0,19})\)$")
_LIST = re.compile(r"^list\[(.+)\]$")


CLASS_NAME_PATTERN = r"^[A-Z][A-Za-z0-9]{0,79}$"
"""A typed model of the package, by class name (``DiscoveryAgentRequest``)."""
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


def field_type_problem(text: str, records: Collection[str] = ()) -> str | None:
    """Why ``text`` is not a field type a strict schema can express (None when it is):
    ``str``, ``text``, ``int``, ``float``, ``bool``, ``enum(A|B|C)``, one of the team's
    ``records`` (its ``[types.NAME]`` and ``[enums.NAME]``), or ``list[...]`` of one of those."""
    inner = _LIST.match(text)
    base = inner.group(1) if inner else text
    if enum := _ENUM.match(base):
        values = enum.group(1).split("|")
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            return f"field type {text!r} names {', '.join(twice)} more than once; name each once"
        return None
    if base in SCALAR_TYPES or base in records:
        return None
    if re.fullmatch(TYPE_NAME_PATTERN, base):
        known = ", ".join(sorted(records)) or "none"  # record types and named enums
        return (
            f"field type {text!r} names no record type or enum of the team (declared: "
            f"{known}); declare it in a [types.{base}] table or in [enums]"
        )
    return (
        f"field type {text!r} cannot be expressed by a strict schema; use str, text, int, "
        "float, bool, enum(A|B|...), a record type or enum of the team ([types.NAME], [enums]) "
        "or list[...] "
        "of one of those"
    )


def record_of(text: str) -> str | None:
    """The record type a field type names (``Diagram`` of ``list[Diagram]``), else None."""
    inner = _LIST.match(text)
    base = inner.group(1) if inner else text
    return base if re.fullmatch(TYPE_NAME_PATTERN, base) else None


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
    """One typed field of a request, a result, a question, the final result or a record type.
    The optional keys are left out of the wire form when unset, so a team that does not use
    them keeps its content hash."""

    type: str = "str"
    description: Description = ""
    min_items: Annotated[int, Field(ge=1, le=MAX_LIST_ITEMS)] | None = Field(
        default=None, exclude_if=lambda v: v is None
    )
    """A list's fewest items: the schema's ``minItems`` in every profile."""
    max_chars: Annotated[int, Field(ge=1, le=MAX_FIELD_CHARS)] | None = Field(
        default=None, exclude_if=lambda v: v is None
    )
    """A ``str`` or ``text`` field's bound instead of its type's (500, 4,000), at most 8,000;
    on a list of them, each item's."""
    optional: bool = Field(default=False, exclude_if=lambda v: not v)
    """The value may be null: the schema's type or null (the model writes null for none); a
    filled optional field starts null. Not on a list (an empty list says none)."""
    filled: bool = Field(default=False, exclude_if=lambda v: not v)
    """Filled by the system, never written by the model: out of the schema, with a default."""
    default: str | bool | int | float | None = Field(default=None, exclude_if=lambda v: v is None)
    """A filled field's default (else its type's empty value: "", 0, false, [], null)."""


class AgentClasses(WireModel):
    """An agent whose request and routing are typed models of the package (``models/``), by
    class name: the software team's agents. A run uses them, not models built from the fields
    declared beside them (which must build the same schemas)."""

    request: Annotated[str, StringConstraints(pattern=CLASS_NAME_PATTERN)]
    routing: Annotated[str, StringConstraints(pattern=CLASS_NAME_PATTERN)]


class TeamClasses(WireModel):
    """A team whose handler routing and final result are typed models of the package."""

    handler: Annotated[str, StringConstraints(pattern=CLASS_NAME_PATTERN)]
    final: Annotated[str, StringConstraints(pattern=CLASS_NAME_PATTERN)]


class AgentSpec(WireModel):
    """One agent of a team."""

    name: AgentName
    role: Role = Role.AGENT
    description: Description = ""
    phase: Annotated[str, StringConstraints(min_length=1, max_length=40)] = "WORK"
    dispatches: AgentName | None = None
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
    """``read``: the run's pinned workspace through the read tools; ``write`` (a dispatched
    agent's): also the write tools, in a worktree of its own per request (``TOOL_GROUPS``)."""
    classes: AgentClasses | None = Field(default=None, exclude_if=lambda v: v is None)
    """Its request and routing as typed models of the package. Fields declared beside them
    must build exactly the named classes' schemas (a test checks the package's own team); the
    run uses the classes."""
    descriptions: dict[Literal["request", "result", "question"], Description] = Field(
        default_factory=dict, exclude_if=lambda v: not v
    )
    """The description of its request, result or question model (the schema's
    ``description``); the result's is the agent's ``description`` unless given here, an empty
    one gives none. Left out of the wire form while empty."""
    context: list[FieldName] | None = Field(
        default=None, max_length=MAX_FIELDS, exclude_if=lambda v: v is None
    )
    """A collector's result fields that become its curated context, which every later request
    of the team carries; unset: all of them; ``[]``: none (no curated context). Left out of the
    spec's JSON while unset, so a team that does not set it keeps its content hash."""


class TeamSpec(WireModel):
    """A team: its name, its agents (the orchestrator first), the fields of its final result."""

    name: Annotated[str, StringConstraints(pattern=TEAM_NAME_PATTERN)]
    description: Description = ""
    extends: Literal["software"] | None = None
    """A team that extends the software team: its agents join the software team's, and
    ``routes`` adds routes to the software team's agents (an agent between review and merge is
    one declaration and one template)."""
    starts_at: AgentName | None = Field(default=None, exclude_if=lambda v: v is None)
    """The agent every run starts at (an orchestrator); needed when the team has several
    orchestrators (one per phase), else its one orchestrator."""
    first_request: dict[FieldName, Annotated[str, StringConstraints(max_length=500)]] = Field(
        default_factory=dict, exclude_if=lambda v: not v
    )
    """Values of the first request's fields (``guidance``, and any the request declares)."""
    classes: TeamClasses | None = Field(default=None, exclude_if=lambda v: v is None)
    """The handler's routing and the final result as typed models of the package."""
    agents: list[AgentSpec] = Field(min_length=1, max_length=MAX_TEAM_AGENTS)
    routes: dict[str, dict[str, Description]] = Field(default_factory=dict)
    """With ``extends``: routes added to the software team's agents (agent -> target -> when);
    an added route is offered after the agent's own."""
    final: dict[FieldName, FieldSpec] = Field(
        default_factory=lambda: {"summary": FieldSpec(description="What the team achieved.")}
    )
    """Fields of the run's final result (what a route to END carries)."""
    types: dict[TypeName, dict[FieldName, FieldSpec]] = Field(
        default_factory=dict, exclude_if=lambda v: not v
    )
    """Record types (``[types.FileReference]``): fields like any other; a field of type
    ``NAME`` or ``list[NAME]`` holds one or a list of them. Left out of the wire form when
    there are none (the content hash of a team without them is unchanged)."""
    enums: dict[TypeName, dict[EnumValue, Description]] = Field(
        default_factory=dict, exclude_if=lambda v: not v
    )
    """Named enums (``[enums.Severity]``): each value and its meaning ("" for none); a field of
    type ``NAME`` holds one value. The schema names it (``$defs``) and says the meanings.
    Left out of the wire form when there are none."""
    descriptions: dict[TypeName, Description] = Field(
        default_factory=dict, exclude_if=lambda v: not v
    )
    """A record type's or a named enum's description (the schema's ``description``). Left
    out of the wire form when there are none."""
    final_description: Description = Field(default="", exclude_if=lambda v: not v)
    """The final result's description (default: "The final result of team NAME.")."""

    def agent(self, name: str) -> AgentSpec:
        return next(a for a in self.agents if a.name == name)

    @property
    def entry(self) -> AgentSpec:
        """The agent every run starts at: ``starts_at``, or the team's one orchestrator."""
        if self.starts_at is not None:
            return self.agent(self.starts_at)
        return next(a for a in self.agents if a.role is Role.ORCHESTRATOR)

    def sha256(self) -> str:
        """The team's content hash: what a run records beside its name. Keys the language
        gained after teams first landed are left out of the wire form while unset
        (``exclude_if``), so a team declared before keeps its hash."""
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
    reserved = {t.value for t in Terminal}
    if spec.name != SOFTWARE_TEAM_NAME:  # its agents' names decode to its enum on the wire
        reserved |= typed_agent_names()
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
    entries = [a.name for a in spec.agents if a.role is Role.ORCHESTRATOR]
    first = spec.starts_at or next(iter(entries), None)
    for agent in spec.agents:
        unset = [
            name
            for name, each in agent.request.items()
            if not each.filled and name not in spec.first_request
        ]
        if agent.name == first and unset:
            found.append(
                f"agent {agent.name}: the first agent's request field(s) {', '.join(unset)} have "
                "no value (a run starts it with the goal); give each one in [first_request] or "
                "move it to another agent's request"
            )
    if base is not None and (entries or spec.starts_at):
        found.append(
            f"agent {first}: a team that extends {spec.extends} "
            "starts at its orchestrator; give this agent another role and remove `starts_at`"
        )
    elif base is None and spec.starts_at is not None:
        if spec.starts_at not in entries:
            found.append(
                f"starts_at names {spec.starts_at}, which is not an agent with role orchestrator "
                f"(orchestrators: {', '.join(entries) or 'none'})"
            )
    elif base is None and len(entries) != 1:
        found.append(
            f"the team needs exactly one agent with role orchestrator (has {len(entries)}: "
            f"{', '.join(entries) or 'none'}), or `starts_at` naming the one every run starts at"
        )
    dispatched_by: dict[str, str] = {}
    dispatched = {a.name for a in spec.agents if a.role is Role.DISPATCHED} | (
        base.dispatched if base is not None else set()
    )
    own = {a.name for a in spec.agents}
    for agent in spec.agents:
        found += _agent_problems(
            agent,
            known,
            dispatched,
            {a.name: a.role for a in spec.agents},
            records=named_types(spec),
        )
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
    found += [f"final {p}" for p in _field_problems("result", spec.final, named_types(spec))]
    found += [
        f"final result field {name}: {NOTHING_FILLS}" for name, f in spec.final.items() if f.filled
    ]
    found += record_problems(spec)
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
    agent: AgentSpec,
    known: set[str],
    dispatched: set[str],
    roles: Mapping[str, Role],
    records: Mapping[str, tuple[str, ...] | None] = NO_TYPES,
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
        if own := [t for t in ("request", "result") if getattr(agent, t)]:
            found.append(
                f"{at}: a dispatcher has no {' or '.join(own)} fields of its own (the agent "
                f"that routes to it writes one request per agent it runs, `requests`, and it "
                f"writes `dispatchResult`); declare them on {agent.dispatches or 'its agent'}, "
                "or on the agent before or after it"
            )
    elif agent.dispatches is not None:
        found.append(f"{at}: only a dispatcher has `dispatches` (its role is {agent.role.value})")
    if agent.role is Role.DISPATCHED:
        if agent.routes:
            found.append(
                f"{at}: a dispatched agent has no routes of its own (its result goes back to "
                "its dispatcher); remove `routes`"
            )
    elif not agent.routes and agent.role is not Role.CONTEXT_MANAGER:
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
        found += [f"{at}: {p}" for p in _field_problems(what, fields, records)]
    found += _context_problems(agent)
    for tool in agent.tools:
        if tool not in TOOL_GROUPS:
            found.append(
                f"{at}: unknown tool group {tool!r}; teams may give agents "
                + " or ".join(f"`{g}`" for g in TOOL_GROUPS)
            )
    found += [f"{at}: {p}" for p in unfillable(agent)]
    for what, names in filled_fields(agent).items():
        declared = agent.request if what == "request" else agent.result
        for name in sorted(names & set(declared)):
            found.append(
                f"{at}: {what} field {name} is filled by the workflow for its "
                f"{'tools' if name == 'code_commit' else 'role'}; rename the field"
            )
    if "write" in agent.tools and agent.role is not Role.DISPATCHED:
        found.append(
            f"{at}: tools `write` need role dispatched (each request its dispatcher runs gets "
            f"its own worktree and branch); its role is {agent.role.value}"
        )
    return found


FILLED_FROM_GIT: dict[str, tuple[frozenset[str], str]] = {
    "files_changed": (frozenset({"list[str]"}), "the files its commit changed"),
    "commit_sha": (frozenset({"str"}), "its commit's sha (empty: it changed nothing)"),
    "branch": (frozenset({"str"}), "the branch its commit is on"),
    "diff_stat": (frozenset({"str", "text"}), "git's summary of its diff (`--stat`)"),
    "tests_passed": (frozenset({"bool"}), "whether its sandboxed test run passed (VERIFIED)"),
    "verification": (frozenset({"str", "text"}), "its test run's status and counts"),
}
"""The ``filled = true`` result fields of a code-writing agent (``tools = ["write"]``) that the
workflow fills from git and its sandboxed test run after each step: name -> (the types it may
declare, what it holds)."""
NOTHING_FILLS = (
    "filled = true, but nothing fills it (the workflow fills a code-writing agent's result "
    "fields " + ", ".join(FILLED_FROM_GIT) + "); remove `filled` so the model writes it"
)


def unfillable(agent: AgentSpec) -> list[str]:
    """``agent``'s ``filled`` request, result and question fields that nothing fills, one line
    each (a record type's filled field keeps its default)."""
    found: list[str] = []
    for what, fields in (
        ("request", agent.request),
        ("result", agent.result),
        ("question", agent.question),
    ):
        for name, each in fields.items():
            if not each.filled:
                continue
            types, _ = FILLED_FROM_GIT.get(name, (frozenset(), ""))
            if what != "result" or "write" not in agent.tools or name not in FILLED_FROM_GIT:
                found.append(f"{what} field {name}: {NOTHING_FILLS}")
            elif each.type not in types:
                found.append(
                    f"{what} field {name}: the workflow fills it as {' or '.join(sorted(types))}, "
                    f"not {each.type}; declare it so"
                )
    return found


def filled_fields(agent: AgentSpec) -> dict[str, set[str]]:
    """The request and result fields the workflow fills for ``agent`` from git (a code-writing
    agent's ``code_commit``, a reviewer's ``ticket_changes``, a merger's ``merge_report`` and
    ``code_change``): names its own fields may not take."""
    return {
        "request": {"ticket_changes"}
        if agent.role is Role.REVIEWER
        else {"merge_report"}
        if agent.role is Role.MERGER
        else set(),
        "result": ({"code_commit"} if "write" in agent.tools else set())
        | ({"code_change"} if agent.role is Role.MERGER else set()),
    }


def _context_problems(agent: AgentSpec) -> list[str]:
    """A ``context`` only on a collector, naming its result fields; no request field named as
    the one the workflow fills with the curated contexts."""
    at = f"agent {agent.name}"
    found = [
        f"{at}: request field {name}: the name is the workflow's (the team's curated contexts "
        "arrive in it); rename the field"
        for name in agent.request
        if name == TEAM_CONTEXTS_FIELD
    ]
    if agent.context is None:
        return found
    if agent.role is not Role.COLLECTOR:
        return [
            *found,
            f"{at}: only a collector's result becomes a curated context (its role is "
            f"{agent.role.value}); remove `context`",
        ]
    found += [
        f"{at}: context names {name!r}, which is not one of its result fields "
        f"({', '.join(agent.result) or 'none'})"
        for name in agent.context
        if name not in agent.result
    ]
    return found


def _field_problems(
    what: str,
    fields: dict[str, FieldSpec],
    records: Mapping[str, tuple[str, ...] | None] = NO_TYPES,
) -> list[str]:
    """Too many fields, types a strict schema cannot express, two names with one JSON name."""
    found: list[str] = []
    if len(fields) > MAX_FIELDS:
        found.append(f"{len(fields)} {what} fields; at most {MAX_FIELDS}")
    json_names: dict[str, str] = {}
    for field, each in fields.items():
        if problem := field_type_problem(each.type, records):
            found.append(f"{what} field {field}: {problem}")
        found += [f"{what} field {field}: {p}" for p in field_key_problems(each, records)]
        json_name = to_camel(field)
        if json_name in json_names:
            found.append(
                f"{what} fields {json_names[json_name]} and {field} have one JSON name "
                f"({json_name}); rename one"
            )
        json_names[json_name] = field
    return found


def _exit_problems(spec: TeamSpec, base: BaseTeam | None) -> list[str]:
    """Cycles with no exit: one line per missing END, naming the agents of a cycle from which no
    chain of routes reaches END (the agents that lead only into it are fixed with it)."""
    edges: dict[str, set[str]] = {
        a: set(t) for a, t in (base.edges.items() if base is not None else ())
    }
    for added, more in spec.routes.items():
        edges.setdefault(added, set()).update(more)
    edges.update({a.name: set(a.routes) for a in spec.agents})
    for declared in spec.agents:
        if declared.role is Role.DISPATCHER and declared.dispatches:
            edges[declared.dispatches] = {declared.name}
    reaches_end = {a for a, targets in edges.items() if END in targets} | {
        a.name
        for a in spec.agents
        if a.role is Role.CONTEXT_MANAGER  # hands back (RETURN)
    }
    grew = True
    while grew:
        grew = False
        for source, targets in edges.items():
            if source not in reaches_end and targets & reaches_end:
                reaches_end.add(source)
                grew = True
    stuck = set(edges) - reaches_end
    reach = {a: _reachable(a, edges, stuck) for a in stuck}
    lines = []
    for name in sorted(stuck):
        cycle = {b for b in reach[name] if name in reach[b]} | {name}
        if min(cycle) != name or any(reach[b] - cycle for b in cycle):
            continue  # named by its cycle's first agent, or it leads on into another cycle
        if len(cycle) == 1:
            lines.append(
                f"agent {name}: no chain of routes from it reaches END (a cycle with no exit); "
                "give it a route to END"
            )
        else:
            lines.append(
                f"agents {', '.join(sorted(cycle))}: no chain of routes from them reaches END "
                "(a cycle with no exit); give one of them a route to END"
            )
    return lines


def _reachable(start: str, edges: Mapping[str, set[str]], within: set[str]) -> set[str]:
    """The agents of ``within`` that a chain of routes from ``start`` reaches."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in edges.get(todo.pop(), set()) & within:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


# --- record types ([types.NAME]) -----------------------------------------------------------


def named_types(spec: TeamSpec) -> dict[str, tuple[str, ...] | None]:
    """The type names a field of ``spec`` may use: its record types (None) and its named enums
    (their values)."""
    return {**dict.fromkeys(spec.types), **{n: tuple(v) for n, v in spec.enums.items()}}


def field_key_problems(
    field: FieldSpec, types: Mapping[str, tuple[str, ...] | None] = NO_TYPES
) -> list[str]:
    """A field's optional keys that do not fit its type: ``min_items`` on a list only,
    ``optional`` on a single value only, ``default`` on a filled field only, of the field's
    type (``types``: the team's ``named_types``)."""
    found: list[str] = []
    listed = field.type.startswith("list[")
    if field.min_items is not None and not listed:
        found.append(f"min_items is for a list; the field's type is {field.type}")
    if field.max_chars is not None and field.type.removeprefix("list[").rstrip("]") not in (
        "str",
        "text",
    ):
        found.append(
            f"max_chars is for str or text (or a list of them); the field's type is {field.type}"
        )
    if field.optional and listed:
        found.append("optional is for a single value (an empty list says none); remove optional")
    if field.default is None:
        return found
    values = types.get(field.type)
    if not field.filled:
        found.append("default is for a filled field (filled = true); the model writes the others")
    elif values is not None:
        if field.default not in values:
            found.append(
                f"default {field.default!r} is not a value of enum {field.type} "
                f"({', '.join(values)})"
            )
    elif listed or record_of(field.type) is not None:
        found.append("a filled list starts empty and a filled record null; remove default")
    elif not _fits(field.default, field.type):
        found.append(f"default {field.default!r} is not a value of type {field.type}")
    return found


def _fits(value: object, type_text: str) -> bool:
    if type_text == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if type_text == "int":
        return isinstance(value, int)
    if type_text == "float":
        return isinstance(value, int | float)
    if enum := _ENUM.match(type_text):
        return value in enum.group(1).split("|")
    return isinstance(value, str)


def generated_model_names(spec: TeamSpec) -> set[str]:
    """The class names ``models/team_build.py`` gives a team's models (and the package's models
    their schemas hold): a record type may take none of them."""
    team = camel(spec.name)
    names = {f"{team}Final", f"{team}InterruptRouting", *SHARED_MODEL_NAMES}
    for agent in spec.agents:
        own = team + camel(agent.name)
        names |= {f"{own}Result", f"{own}Question", f"{camel(agent.name)}Request"}
        names.add(routing_name(spec.name, agent.name))
    return names


def record_problems(spec: TeamSpec) -> list[str]:
    """Why the team's record types cannot be built, one line each: too many, a name taken by a
    generated model, no fields, bad fields, a record that holds itself, nesting too deep."""
    found: list[str] = []
    types = spec.types
    if len(types) > MAX_TYPES:
        found.append(f"{len(types)} record types; at most {MAX_TYPES}")
    taken = generated_model_names(spec) if types or spec.enums else set()
    named = named_types(spec)
    for name, fields in types.items():
        at = f"type {name}"
        if name in taken:
            found.append(f"{at}: the name is one of the team's generated models'; rename it")
        if not fields:
            found.append(f"{at}: declares no fields; give it at least one")
        found += [f"{at}: {p}" for p in _field_problems("record", fields, named)]
    found += _enum_problems(spec, taken)
    uses = {
        name: [r for f in fields.values() if (r := record_of(f.type)) in types]
        for name, fields in types.items()
    }
    in_cycle: set[str] = set()
    for name in types:
        if name in in_cycle:
            continue
        cycle = _cycle(name, uses, [name])
        if cycle:
            in_cycle |= set(cycle)
            found.append(
                f"type {name}: holds itself ({' -> '.join(cycle)}); a record cannot contain "
                "itself, not even through a list or another record"
            )
    for name in types:
        if name in in_cycle:
            continue
        chain = _deepest(name, uses, in_cycle)
        if len(chain) > MAX_RECORD_DEPTH:
            found.append(
                f"type {name}: nests records {len(chain)} deep ({' -> '.join(chain)}); at most "
                f"{MAX_RECORD_DEPTH}: flatten one level"
            )
    return found


def _enum_problems(spec: TeamSpec, taken: Collection[str]) -> list[str]:
    """Named enums: too many, a name taken (by a generated model or a record type), no values,
    too many values; descriptions of types the team does not declare."""
    found: list[str] = []
    if len(spec.enums) > MAX_ENUMS:
        found.append(f"{len(spec.enums)} enums; at most {MAX_ENUMS}")
    for name, values in spec.enums.items():
        at = f"enum {name}"
        if name in taken:
            found.append(f"{at}: the name is one of the team's generated models'; rename it")
        if name in spec.types:
            found.append(f"{at}: the name is a record type's too ([types.{name}]); rename one")
        if not values:
            found.append(f"{at}: declares no values; give it at least one")
        if len(values) > MAX_ENUM_VALUES:
            found.append(f"{at}: {len(values)} values; at most {MAX_ENUM_VALUES}")
    for name in spec.descriptions:
        if name not in spec.types and name not in spec.enums:
            found.append(
                f"descriptions names {name}, which is no record type or enum of the team; "
                f"declare [types.{name}] or [enums.{name}], or remove its description"
            )
    return found


def _cycle(name: str, uses: Mapping[str, list[str]], path: list[str]) -> list[str]:
    """The path back to ``path[0]`` from ``name`` through the records it holds, or []."""
    for used in uses.get(name, []):
        if used == path[0]:
            return [*path, used]
        if used not in path:
            found = _cycle(used, uses, [*path, used])
            if found:
                return found
    return []


def _deepest(name: str, uses: Mapping[str, list[str]], cyclic: set[str]) -> list[str]:
    """The longest chain of records ``name`` holds, itself first (cycles left out)."""
    chains = [_deepest(u, uses, cyclic) for u in uses.get(name, []) if u not in cyclic]
    return [name, *max(chains, key=len, default=[])]


class TeamPin(WireModel):
    """What a run follows: its team's name and content hash, and (for a declared team) the
    team itself, as the run read it at its start."""

    name: str = SOFTWARE_TEAM_NAME
    sha256: str = ""
    spec: TeamSpec | None = None


def declares_no_team(name: str | None) -> bool:
    """Whether a run that names ``name`` follows the software team."""
    return name is None or name == SOFTWARE_TEAM_NAME
