"""Teams drawn by Hypothesis: valid ``TeamSpec``s of every shape a team file can declare (an
orchestrator, chains of agents, fan-outs of a dispatcher, its dispatched agent and a collector,
back routes, every field type), and single mutations of them that each break one rule.

``valid_teams()`` draws teams ``spec_problems`` accepts; ``broken_teams()`` draws
``(mutation name, team)`` pairs that it must refuse. ``field_types()`` and ``field_maps()`` are
reusable on their own (e.g. for the schemas ``models/team_build.py`` builds)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from pydantic.alias_generators import to_camel

from agent_interrupts.models.agent_types import Terminal
from agent_interrupts.models.team_build import RESERVED_FIELDS
from agent_interrupts.models.team_spec import (
    END,
    MAX_FIELDS,
    SCALAR_TYPES,
    AgentSpec,
    FieldSpec,
    Role,
    TeamSpec,
)
from agent_interrupts.teams.software.agents import AgentType

RESERVED = frozenset({a.value for a in AgentType} | {t.value for t in Terminal})
"""Names no team's agent may take."""
UNEXPRESSIBLE_TYPES = (
    "dict[str,int]",
    "dict[str, str]",
    "any",
    "Any",
    "object",
    "list[list[str]]",
    "list[dict[str,int]]",
    "enum(a|b)",
    "enum()",
    "tuple[str, int]",
    "str | None",
    "",
)
"""Field types a strict schema cannot express (or that are not field types at all)."""

agent_names = st.from_regex(r"[A-Z][A-Z0-9_]{0,11}", fullmatch=True).filter(
    lambda n: n not in RESERVED
)
_RESERVED = frozenset().union(*RESERVED_FIELDS.values())
field_names = st.from_regex(r"[a-z][a-z0-9_]{0,14}", fullmatch=True).filter(
    lambda name: name not in _RESERVED and not name.startswith("model_")
)
enum_values = st.from_regex(r"[A-Z][A-Z0-9_]{0,8}", fullmatch=True)
descriptions = st.text(st.characters(exclude_categories=("Cs",)), max_size=40) | st.just("")
"""Any text UTF-8 can encode: every code point but the surrogates (category Cs). Said by category
only: ``codec="utf-8"`` names the same characters but makes Hypothesis encode all 1.1 million
code points to find them, once per test process (40 s of a busy core)."""


def scalar_types() -> st.SearchStrategy[str]:
    """``str``, ``text``, ``int``, ``float``, ``bool`` or ``enum(A|B|...)``."""
    enums = st.lists(enum_values, min_size=1, max_size=5, unique=True).map(
        lambda values: f"enum({'|'.join(values)})"
    )
    return st.sampled_from(SCALAR_TYPES) | enums


def field_types() -> st.SearchStrategy[str]:
    """Every field type a team may declare: a scalar, or a list of one."""
    return scalar_types() | scalar_types().map(lambda t: f"list[{t}]")


def field_maps(max_size: int = 4) -> st.SearchStrategy[dict[str, FieldSpec]]:
    """The fields of one request, result, question or final result."""
    specs = st.builds(FieldSpec, type=field_types(), description=descriptions)
    pairs = st.lists(
        st.tuples(field_names, specs),
        max_size=min(max_size, MAX_FIELDS),
        unique_by=lambda pair: to_camel(pair[0]),  # one JSON name per field
    )
    return pairs.map(dict)


_FIELDS = field_maps()
_QUESTION_FIELDS = field_maps(2)
_PHASES = st.sampled_from(["WORK", "TRIAGE", "FIX", "REVIEW"])
_TEMPLATES = st.sampled_from(["", "{% block role %}Do the work.{% endblock %}"])
_TOOLS = st.sampled_from([[], ["read"]])
_DISPATCHED_TOOLS = st.sampled_from([[], ["read"], ["write"]])
"""An agent's parts, built once: a strategy built inside ``_agent`` would be built and checked
again on every draw, most of a drawn team's time."""


@st.composite
def _agent(draw: st.DrawFn, name: str, role: Role, routes: dict[str, str]) -> AgentSpec:
    return AgentSpec(
        name=name,
        role=role,
        description=draw(descriptions),
        phase=draw(_PHASES),
        routes=routes,
        request={} if role in (Role.ORCHESTRATOR, Role.DISPATCHER) else draw(_FIELDS),
        result={} if role is Role.DISPATCHER else draw(_FIELDS),
        question={} if role is Role.DISPATCHER else draw(_QUESTION_FIELDS),
        template=draw(_TEMPLATES),
        tools=draw(_DISPATCHED_TOOLS if role is Role.DISPATCHED else _TOOLS),
    )


@st.composite
def valid_teams(draw: st.DrawFn, fan_out: bool | None = None) -> TeamSpec:
    """A team ``spec_problems`` accepts: the orchestrator, then steps in order (single agents,
    or fan-outs: a dispatcher, its dispatched agent, a collector), each routing on to the next
    and the last to END, plus random back routes and early exits. ``fan_out`` forces (True) or
    forbids (False) at least one fan-out."""
    chain = draw(st.integers(0, 4))
    fan_outs = draw(st.integers(1 if fan_out else 0, 0 if fan_out is False else 2))
    count = 1 + chain + 3 * fan_outs
    names = draw(st.lists(agent_names, min_size=count, max_size=count, unique=True))
    kinds = ["agent"] * chain + ["fan-out"] * fan_outs
    kinds = draw(st.permutations(kinds))
    # steps: each is the list of (name, role) it declares; its first agent is where routes lead
    steps: list[list[tuple[str, Role]]] = [[(names.pop(0), Role.ORCHESTRATOR)]]
    for kind in kinds:
        if kind == "agent":
            steps.append([(names.pop(0), Role.AGENT)])
        else:
            dispatcher, dispatched, collector = names.pop(0), names.pop(0), names.pop(0)
            fan = [(dispatcher, Role.DISPATCHER), (dispatched, Role.DISPATCHED)]
            steps.append([*fan, (collector, Role.COLLECTOR)])
    routable = [name for step in steps for name, role in step if role is not Role.DISPATCHED]
    agents: list[AgentSpec] = []
    for index, step in enumerate(steps):
        onward = steps[index + 1][0][0] if index + 1 < len(steps) else END
        for position, (name, role) in enumerate(step):
            if role is Role.DISPATCHED:
                agents.append(draw(_agent(name, role, {})))
                continue
            if role is Role.DISPATCHER:
                routes = {step[2][0]: "collect the results"}  # its collector
            else:
                last = position == len(step) - 1
                routes = {onward if last else step[position + 1][0]: "onward"}
                extra = draw(st.lists(st.sampled_from([*routable, END]), max_size=2))
                routes.update({target: "sometimes" for target in extra})
            agent = draw(_agent(name, role, routes))
            if role is Role.DISPATCHER:
                agent = agent.model_copy(update={"dispatches": step[1][0]})
            agents.append(agent)
    order = draw(st.permutations(agents[1:]))  # any order: the role names the entry
    return TeamSpec(
        name=draw(st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)),
        description=draw(descriptions),
        agents=[agents[0], *order],
        final=draw(field_maps().filter(bool)),
    )


Mutation = Callable[[st.DrawFn, TeamSpec], TeamSpec]


def _replace(spec: TeamSpec, index: int, **changes: Any) -> TeamSpec:
    agents = list(spec.agents)
    agents[index] = agents[index].model_copy(update=changes)
    return spec.model_copy(update={"agents": agents})


def _any(draw: st.DrawFn, spec: TeamSpec, *roles: Role) -> int:
    """The index of a random agent of one of ``roles`` (any role when none is given)."""
    found = [i for i, a in enumerate(spec.agents) if not roles or a.role in roles]
    return draw(st.sampled_from(found))


def unknown_route(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    index = _any(draw, spec, Role.ORCHESTRATOR, Role.AGENT, Role.COLLECTOR, Role.DISPATCHER)
    known = {a.name for a in spec.agents}
    target = draw(agent_names.filter(lambda n: n not in known))
    routes = {**spec.agents[index].routes, target: "nowhere"}
    return _replace(spec, index, routes=routes)


def dispatcher_without_its_agent(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    index = _any(draw, spec, Role.DISPATCHER)
    known = {a.name for a in spec.agents}
    gone = draw(st.none() | agent_names.filter(lambda n: n not in known))
    return _replace(spec, index, dispatches=gone)


def cycle_with_no_exit(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    """No route anywhere leads to END: every agent routes on (or back to the orchestrator)."""
    entry = spec.entry.name
    agents = []
    for agent in spec.agents:
        if agent.role is Role.DISPATCHED:
            agents.append(agent)
            continue
        routes = {t: w for t, w in agent.routes.items() if t != END} or {entry: "again"}
        agents.append(agent.model_copy(update={"routes": routes}))
    return spec.model_copy(update={"agents": agents})


def duplicate_name(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    first = draw(st.integers(0, len(spec.agents) - 1))
    other = draw(st.integers(0, len(spec.agents) - 1).filter(lambda i: i != first))
    return _replace(spec, other, name=spec.agents[first].name)


def unexpressible_field_type(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    bad = FieldSpec(type=draw(st.sampled_from(UNEXPRESSIBLE_TYPES)))
    field = draw(field_names)
    where = draw(st.sampled_from(["request", "result", "question", "final"]))
    if where == "final":
        return spec.model_copy(update={"final": {**spec.final, field: bad}})
    index = _any(draw, spec)
    return _replace(spec, index, **{where: {**getattr(spec.agents[index], where), field: bad}})


def two_orchestrators(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    return _replace(spec, _any(draw, spec, Role.AGENT, Role.COLLECTOR), role=Role.ORCHESTRATOR)


def no_orchestrator(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    return _replace(spec, _any(draw, spec, Role.ORCHESTRATOR), role=Role.AGENT)


def reserved_name(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    return _replace(spec, _any(draw, spec), name=draw(st.sampled_from(sorted(RESERVED))))


def route_to_dispatched(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    target = spec.agents[_any(draw, spec, Role.DISPATCHED)].name
    index = _any(draw, spec, Role.ORCHESTRATOR, Role.AGENT, Role.COLLECTOR)
    return _replace(spec, index, routes={**spec.agents[index].routes, target: "directly"})


def dispatched_with_routes(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    return _replace(spec, _any(draw, spec, Role.DISPATCHED), routes={END: "done"})


def no_routes(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    index = _any(draw, spec, Role.ORCHESTRATOR, Role.AGENT, Role.COLLECTOR, Role.DISPATCHER)
    return _replace(spec, index, routes={})


def unknown_tool(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    tool = draw(st.sampled_from(["shell", "git", "READ", "WRITE"]))
    return _replace(spec, _any(draw, spec), tools=[tool])


def write_not_dispatched(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    index = _any(draw, spec, Role.ORCHESTRATOR, Role.AGENT, Role.COLLECTOR, Role.DISPATCHER)
    return _replace(spec, index, tools=["write"])


def filled_field_declared(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    index = _any(draw, spec, Role.DISPATCHED)
    result = {**spec.agents[index].result, "code_commit": FieldSpec()}
    return _replace(spec, index, tools=["write"], result=result)


def dispatches_from_a_non_dispatcher(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    index = _any(draw, spec, Role.ORCHESTRATOR, Role.AGENT, Role.COLLECTOR)
    return _replace(spec, index, dispatches=spec.agents[index].name)


def too_many_fields(draw: st.DrawFn, spec: TeamSpec) -> TeamSpec:
    fields = {f"f{i}": FieldSpec() for i in range(MAX_FIELDS + 1)}
    where = draw(st.sampled_from(["request", "result", "question"]))
    return _replace(spec, _any(draw, spec), **{where: fields})


MUTATIONS: dict[str, tuple[Mutation, bool]] = {
    "unknown_route": (unknown_route, False),
    "dispatcher_without_its_agent": (dispatcher_without_its_agent, True),
    "cycle_with_no_exit": (cycle_with_no_exit, False),
    "duplicate_name": (duplicate_name, False),
    "unexpressible_field_type": (unexpressible_field_type, False),
    "two_orchestrators": (two_orchestrators, False),
    "no_orchestrator": (no_orchestrator, False),
    "reserved_name": (reserved_name, False),
    "route_to_dispatched": (route_to_dispatched, True),
    "dispatched_with_routes": (dispatched_with_routes, True),
    "no_routes": (no_routes, False),
    "unknown_tool": (unknown_tool, False),
    "write_not_dispatched": (write_not_dispatched, False),
    "filled_field_declared": (filled_field_declared, True),
    "dispatches_from_a_non_dispatcher": (dispatches_from_a_non_dispatcher, False),
    "too_many_fields": (too_many_fields, False),
}
"""Each single mutation that breaks a valid team, and whether it needs a fan-out in it."""


@st.composite
def broken_teams(draw: st.DrawFn, mutation: str | None = None) -> tuple[str, TeamSpec]:
    """A valid team with one mutation applied (``mutation``, or a random one), and its name."""
    name = mutation or draw(st.sampled_from(sorted(MUTATIONS)))
    mutate, needs_fan_out = MUTATIONS[name]
    team = draw(valid_teams(fan_out=True if needs_fan_out else None))
    if len(team.agents) < 2:  # a second agent to rename, to make an orchestrator
        team = draw(valid_teams(fan_out=True))
    return name, mutate(draw, team)
