"""A declared team (``TeamSpec``) -> its ``Team``: generated pydantic models with strict schemas.

Each agent gets a request, a result, a question (its typed fields beside the reason, choices and
confirmations) and a routing with one field per route and exactly one set; the team gets the
unified handler's routing (one route per agent a run may resume at) and its final result. Every
string and list is bounded, every enum closed, so a constrained decoder cannot write a reply the
validator refuses. Built once per content by a ``TeamRegistry``: a worker's activities keep one,
workflow code and the CLI share ``TEAMS``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, create_model
from pydantic.json_schema import SkipJsonSchema

from agent_interrupts.models.agent_types import Route, Terminal, is_agent, slug
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.errors import TeamDefinitionError, TeamNotHere
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.interrupts import DispatchInterruptRequest, InterruptRequestBase
from agent_interrupts.models.limits import MAX_FAN_OUT, compact_json
from agent_interrupts.models.requests import AgentRequest
from agent_interrupts.models.results import (
    AgentResult,
    DispatchResult,
    OrchestratorCollectorResult,
    TeamAgentResult,
)
from agent_interrupts.models.routing import Routing
from agent_interrupts.models.routings import (
    DISPATCH_INTERRUPT_HELP,
    DISPATCHED_INTERRUPT_HELP,
    INTERRUPT_HELP,
)
from agent_interrupts.models.team import Node, Team, TeamPin
from agent_interrupts.models.team_spec import (
    END,
    LIST_ITEMS,
    SOFTWARE_TEAM_NAME,
    AgentSpec,
    BaseTeam,
    FieldSpec,
    Role,
    TeamSpec,
    camel,
    field_type_problem,
    routing_name,
    spec_problems,
)

STR_CHARS = 500
"""A ``str`` field's bound."""
TEXT_CHARS = 4_000
"""A ``text`` field's bound."""
FIRST_GUIDANCE = "Plan how to achieve the goal."
"""The guidance of a run's first request."""


def _base(team: Team) -> BaseTeam:
    """What a team that extends ``team`` may name of it; a route back to whoever asked (the
    context manager's RETURN) counts as a way out."""
    edges = {
        agent: frozenset(
            str(t) if is_agent(t) else END
            for t in node.output_model.route_aliases().values()
            if t is not Terminal.INTERRUPT
        )
        for agent, node in team.nodes.items()
    }
    return BaseTeam(frozenset(team.nodes), frozenset(team.dispatched), edges)


SOFTWARE_BASE = _base(SOFTWARE_TEAM)
"""The software team as a team that extends it sees it."""


class TeamFinalResult(WireModel):
    """What a declared team's run returns: the team, its content hash and the final result."""

    team: str
    team_sha256: str
    result: dict[str, Any]


def field_annotation(text: str) -> Any:
    """The bounded Python type of a declared field type (``field_type_problem`` checked it)."""
    if problem := field_type_problem(text):
        raise TeamDefinitionError(problem)
    if text.startswith("list["):
        item = field_annotation(text[5:-1])
        return Annotated[list[item], Field(max_length=LIST_ITEMS)]  # type: ignore[valid-type]
    if text.startswith("enum("):
        return _literal(*text[5:-1].split("|"))
    return {
        "str": Annotated[str, StringConstraints(max_length=STR_CHARS)],
        "text": Annotated[str, StringConstraints(max_length=TEXT_CHARS)],
        "int": int,
        "float": float,
        "bool": bool,
    }[text]


def _literal(*values: str) -> Any:
    """``Literal[values]`` for values known at run time."""
    return Literal.__getitem__(values)


def _fields(declared: dict[str, FieldSpec]) -> dict[str, Any]:
    """Each declared field's type and ``Field``: its description, and its ``min_items`` as the
    schema's ``minItems`` (what a model is held to; the validator does not refuse fewer)."""
    return {
        name: (
            field_annotation(each.type),
            Field(
                description=each.description or None,
                json_schema_extra={"minItems": each.min_items} if each.min_items else None,
            ),
        )
        for name, each in declared.items()
    }


def _route_field(name: str) -> str:
    return f"{name.lower()}_request"


MAX_BUILT_TEAMS = 64
"""Declared teams (by content) a registry keeps built."""


def _build(spec_json: str) -> Team:
    """The run-time team of a spec's JSON: a pure function of it (``TeamRegistry`` keeps it)."""
    spec = TeamSpec.model_validate_json(spec_json)
    base = SOFTWARE_TEAM if spec.extends is not None else None
    problems = team_problems(spec)
    if problems:
        raise TeamDefinitionError("; ".join(problems))
    team = camel(spec.name)
    sha256 = spec.sha256()
    dispatcher_of = {a.dispatches: a.name for a in spec.agents if a.role is Role.DISPATCHER}

    final: type[WireModel] = (
        base.final_result
        if base is not None
        else create_model(
            f"{team}Final",
            __base__=AgentResult,
            __doc__=f"The final result of team {spec.name}.",
            **_fields(spec.final),
        )
    )
    results: dict[str, type[AgentResult]] = {}
    questions: dict[str, type[InterruptRequestBase]] = {}
    requests: dict[str, type[AgentRequest]] = (
        {a: n.request_model for a, n in base.nodes.items()} if base is not None else {}
    )
    for agent in spec.agents:
        name = team + camel(agent.name)
        results[agent.name] = create_model(
            f"{name}Result",
            __base__=AgentResult,
            __doc__=agent.description or None,
            team_agent=(SkipJsonSchema[_literal(agent.name)], agent.name),  # type: ignore[misc]
            **_fields(agent.result),
        )
        questions[agent.name] = create_model(
            f"{name}Question",
            __base__=(
                DispatchInterruptRequest if agent.role is Role.DISPATCHER else InterruptRequestBase
            ),
            origin=(SkipJsonSchema[_literal(agent.name)], agent.name),  # type: ignore[misc]
            **_fields(agent.question),
        )
    for agent in spec.agents:  # dispatched agents' requests before their dispatchers'
        if agent.role is not Role.DISPATCHER:
            extra: dict[str, Any] = {}
            if agent.role is Role.COLLECTOR:
                extra["agent_results"] = (
                    SkipJsonSchema[list[TeamAgentResult]],
                    Field(default_factory=list),
                )
            requests[agent.name] = create_model(
                f"{camel(agent.name)}Request",
                __base__=AgentRequest,
                **_fields(agent.request),
                **extra,
            )
    for agent in spec.agents:
        if agent.role is Role.DISPATCHER:
            child = requests[agent.dispatches or ""]
            requests[agent.name] = create_model(
                f"{camel(agent.name)}Request",
                __base__=AgentRequest,
                requests=(
                    list[child],  # type: ignore[valid-type]
                    Field(
                        description=f"One request per {agent.dispatches} to run in parallel "
                        f"(1 to {MAX_FAN_OUT}).",
                        json_schema_extra={"maxItems": MAX_FAN_OUT},
                    ),
                ),
            )

    nodes: dict[str, Node] = dict(base.nodes) if base is not None else {}
    for extended, added in spec.routes.items():
        node = nodes[extended]
        output = _extended_routing(spec.name, node, added, requests, final)
        nodes[extended] = replace(node, output_model=output)
    for agent in spec.agents:
        output = _routing(spec.name, agent, requests, results, questions, final, dispatcher_of)
        nodes[agent.name] = Node(
            agent.name,
            requests[agent.name],
            output,
            agent.phase,
            dispatches=agent.dispatches,
            template_name=f"team/{spec.name}/{sha256[:16]}/{slug(agent.name)}.jinja",
        )
    resume_fields: dict[str, Any] = {
        _route_field(agent.name): (
            Annotated[requests[agent.name] | None, Route(agent.name)],
            None,
        )
        for agent in spec.agents
        if agent.role is not Role.DISPATCHED
    }
    routing_base: type[Routing] = base.interrupt_routing if base is not None else Routing
    interrupt_routing = create_model(
        f"{team}InterruptRouting",
        __base__=routing_base,
        __doc__=f"The unified handler's output for team {spec.name}: exactly one route set.",
        **resume_fields,
    )
    if base is not None:
        entry, entry_request = base.entry, dict(base.entry_request)
    else:
        entry = spec.entry.name
        entry_request = requests[entry].model_construct(guidance=FIRST_GUIDANCE).to_wire()
    dispatched = {child: dispatcher for child, dispatcher in dispatcher_of.items() if child}
    read_tools = frozenset(a.name for a in spec.agents if "read" in a.tools)
    built = Team(
        name=spec.name,
        sha256=sha256,
        nodes=nodes,
        entry=entry,
        entry_request=entry_request,
        dispatched={**(base.dispatched if base is not None else {}), **dispatched},
        collected={
            **(base.collected if base is not None else {}),
            **_collected(spec, dispatcher_of),
        },
        interrupt_routing=interrupt_routing,
        questions={**(base.questions if base is not None else {}), **questions},
        final_result=final,
        read_tools=read_tools | (base.read_tools if base is not None else frozenset()),
        write_tools=base.write_tools if base is not None else frozenset(),
        roles={
            **(base.roles if base is not None else {}),
            **{a.name: a.role for a in spec.agents},
        },
        templates={nodes[a.name].template: a.template for a in spec.agents},
        spec=spec,
    )
    return built


def _routing(
    team: str,
    agent: AgentSpec,
    requests: dict[str, type[AgentRequest]],
    results: dict[str, type[AgentResult]],
    questions: dict[str, type[InterruptRequestBase]],
    final: type[WireModel],
    dispatcher_of: dict[str | None, str],
) -> type[Routing]:
    fields: dict[str, Any] = {}
    result = results[agent.name]
    if agent.role is Role.DISPATCHED:
        fields["result"] = (
            Annotated[result | None, Route(dispatcher_of[agent.name])],
            Field(default=None, description="Your result; your dispatcher hands it on."),
        )
        interrupt_help = DISPATCHED_INTERRUPT_HELP
    elif agent.role is Role.DISPATCHER:
        fields["dispatch_result"] = (DispatchResult, ...)
        interrupt_help = DISPATCH_INTERRUPT_HELP
    else:
        fields["result"] = (result, ...)
        interrupt_help = INTERRUPT_HELP
    for target, when in agent.routes.items():
        if target == END:
            fields["final_result"] = (
                Annotated[final | None, Route(Terminal.END)],
                Field(default=None, description=when or "Finish the run with its final result."),
            )
        else:
            fields[_route_field(target)] = (
                Annotated[requests[target] | None, Route(target)],
                Field(default=None, description=when or f"Go on to {target}."),
            )
    fields["interrupt_request"] = (
        Annotated[questions[agent.name] | None, Route(Terminal.INTERRUPT)],
        Field(default=None, description=interrupt_help),
    )
    return create_model(
        routing_name(team, agent.name),
        __base__=Routing,
        __doc__=agent.description or None,
        **fields,
    )


def _collected(spec: TeamSpec, dispatcher_of: dict[str | None, str]) -> dict[str, str]:
    """Collectors and the dispatched agents whose results reach them: a dispatcher's route to
    a collector of the team."""
    collectors = {a.name for a in spec.agents if a.role is Role.COLLECTOR}
    found: dict[str, str] = {}
    for child, dispatcher in dispatcher_of.items():
        for target in spec.agent(dispatcher).routes:
            if target in collectors and child:
                found[target] = child
    return found


def _extended_routing(
    team: str,
    node: Node,
    added: dict[str, str],
    requests: dict[str, type[AgentRequest]],
    final: type[WireModel],
) -> type[Routing]:
    """An extended team's agent's routing: its own, and the routes the team adds to it."""
    own = node.output_model.route_aliases().values()
    fields: dict[str, Any] = {}
    for target, when in added.items():
        if target in own or (target == END and Terminal.END in own):
            raise TeamDefinitionError(f"routes of {node.agent_type}: it routes to {target} already")
        name, value = (
            ("final_result", final) if target == END else (_route_field(target), requests[target])
        )
        fields[name] = (
            Annotated[value | None, Route(Terminal.END if target == END else target)],
            Field(default=None, description=when or f"Go on to {target}."),
        )
    return create_model(
        routing_name(team, node.agent_type),
        __base__=node.output_model,
        **fields,
    )


def team_problems(spec: TeamSpec) -> list[str]:
    """Why no run can follow ``spec`` (``spec_problems``, checked against the software team
    when it extends it)."""
    return spec_problems(spec, SOFTWARE_BASE if spec.extends is not None else None)


class TeamRegistry:
    """The declared teams one owner has built, each kept once: by content (their generated
    classes are built once per spec), by content hash (a pin of name and hash alone, as agent
    calls carry it, finds its team), and their routings by class name (the response format's
    name: what the offline model answers). Each holds the newest ``limit`` teams.

    A worker builds one with the teams it serves and hands it to its activities
    (``app/worker_setup.py``); workflow code and the CLI share ``TEAMS``."""

    def __init__(self, served: Iterable[TeamSpec] = (), limit: int = MAX_BUILT_TEAMS) -> None:
        self._limit = limit
        self._built: OrderedDict[str, Team] = OrderedDict()
        """Teams by their spec's JSON, least recently used first."""
        self._by_sha256: OrderedDict[str, Team] = OrderedDict()
        self._outputs: dict[str, tuple[Node | None, type[Routing]]] = {}
        """Two versions of one team share class names; the newest built wins."""
        for spec in served:
            self.remember(TeamPin(name=spec.name, sha256=spec.sha256(), spec=spec))

    def build(self, spec: TeamSpec) -> Team:
        """The run-time team of ``spec`` (TeamDefinitionError when no run can follow it); built
        once per content."""
        key = spec.model_dump_json(by_alias=True)
        found = self._built.get(key)
        if found is not None:
            self._built.move_to_end(key)
            return found
        built = _build(key)
        self._built[key] = built
        _bound(self._built, self._limit)
        for node in built.nodes.values():
            self._outputs[node.output_model.__name__] = (node, node.output_model)
        self._outputs[built.interrupt_routing.__name__] = (None, built.interrupt_routing)
        return built

    def of(self, pin: TeamPin | None) -> Team:
        """The team a run pinned: the software team for none (runs recorded before teams were
        pinned); else the declared team the pin carries, or (a pin of name and hash alone) the
        one this registry remembers by that content hash; TeamNotHere when it remembers none."""
        if pin is None or (pin.spec is None and pin.name == SOFTWARE_TEAM_NAME):
            return SOFTWARE_TEAM
        found = self._by_sha256.get(pin.sha256)
        if found is not None:
            return found
        if pin.spec is None:
            raise TeamNotHere(f"team {pin.name!r} (content {pin.sha256[:12]}) is not known here")
        return self.remember(pin)

    def remember(self, pin: TeamPin) -> Team:
        """Build the declared team ``pin`` carries whole and keep it by its content hash (a pin
        whose hash is not its team's is built, never kept)."""
        if pin.spec is None:
            return self.of(pin)
        found = self.build(pin.spec)
        if found.sha256 == pin.sha256:
            self._by_sha256[pin.sha256] = found
            _bound(self._by_sha256, self._limit)
        return found

    def clear(self) -> None:
        """Forget every team: cold, as in a new process (benches measure a first build)."""
        self._built.clear()
        self._by_sha256.clear()
        self._outputs.clear()

    def output(self, name: str) -> tuple[Node | None, type[Routing]] | None:
        """A declared team's routing (and its node; None for the handler's) by class name."""
        return self._outputs.get(name)


def _bound(kept: OrderedDict[str, Team], limit: int) -> None:
    while len(kept) > limit:
        kept.popitem(last=False)


TEAMS = TeamRegistry()
"""The registry of workflow code and the CLI. A team is a pure function of its spec, and a
workflow always has its pinned team's spec (``OrchestratorState.team``, ``InterruptInput.team``),
so what this process built before never changes a run's commands: it only spares building the
same classes again (bounded, by content)."""


def build_team(spec: TeamSpec) -> Team:
    """``TEAMS.build``: the run-time team of ``spec``, built once per content."""
    return TEAMS.build(spec)


def team_of(pin: TeamPin | None) -> Team:
    """``TEAMS.of``: the team a run pinned."""
    return TEAMS.of(pin)


def remember(pin: TeamPin) -> Team:
    """``TEAMS.remember``: the declared team ``pin`` carries, kept by its content hash."""
    return TEAMS.remember(pin)


RunResult = OrchestratorCollectorResult | TeamFinalResult
"""What a run returns: the software team's final result, or a declared team's."""


def result_summary(result: RunResult) -> str:
    """One line that says what a run achieved."""
    if isinstance(result, OrchestratorCollectorResult):
        return result.summary
    summary = result.result.get("summary")
    return str(summary) if summary else compact_json(result.result, 300)
