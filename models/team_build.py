"""A declared team (``TeamSpec``) -> its ``Team``: generated pydantic models with strict schemas.

Each agent gets a request, a result, a question (its typed fields beside the reason, choices and
confirmations) and a routing with one field per route and exactly one set; the team gets the
unified handler's routing (one route per agent a run may resume at) and its final result. Every
string and list is bounded, every enum closed, so a constrained decoder cannot write a reply the
validator refuses. Built once per content by a ``TeamRegistry``: a worker's activities keep one,
workflow code and the CLI share ``TEAMS``.
"""

from __future__ import annotations

import typing
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, StringConstraints, ValidationError, create_model
from pydantic.alias_generators import to_camel
from pydantic.json_schema import SkipJsonSchema

from agent_interrupts.models.agent_types import Route, Terminal, is_agent, slug
from agent_interrupts.models.base import WireModel
from agent_interrupts.models.code import CodeCommit, MergeOutcome, TicketChange
from agent_interrupts.models.contexts import TEAM_CONTEXTS_FIELD, TeamContext
from agent_interrupts.models.errors import TeamDefinitionError, TeamNotHere
from agent_interrupts.models.interrupts import DispatchInterruptRequest, InterruptRequestBase
from agent_interrupts.models.limits import MAX_FAN_OUT, compact_json
from agent_interrupts.models.package_models import package_model
from agent_interrupts.models.requests import AgentRequest
from agent_interrupts.models.results import AgentResult, CodeChange, DispatchResult, TeamAgentResult
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
    record_of,
    routing_name,
    spec_problems,
)
from agent_interrupts.teams.software.results import OrchestratorCollectorResult

M = TypeVar("M", bound=WireModel)

STR_CHARS = 500
"""A ``str`` field's bound."""
TEXT_CHARS = 4_000
"""A ``text`` field's bound."""
FIRST_GUIDANCE = "Plan how to achieve the goal."
RETURN_HELP = "The context gathered; the agent that asked for it runs again with it."
"""A context manager's way back (``RETURN``), as the software team's says it."""
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


def software_team() -> Team:
    """The software team (``models/graph.py`` builds it from its team file)."""
    from agent_interrupts.models.graph import SOFTWARE_TEAM  # built from this module's builder

    return SOFTWARE_TEAM


@cache
def software_base() -> BaseTeam:
    """The software team as a team that extends it sees it."""
    return _base(software_team())


class TeamFinalResult(WireModel):
    """What a declared team's run returns: the team, its content hash and the final result."""

    team: str
    team_sha256: str
    result: dict[str, Any]
    code_change: CodeChange | None = None
    """The run branch, when its code-writing agents' branches were merged."""


def field_annotation(
    text: str, records: Mapping[str, type] | None = None, max_chars: int | None = None
) -> Any:
    """The bounded Python type of a declared field type (``field_type_problem`` checked it);
    ``records``: the team's record types and named enums by name (``record_models``);
    ``max_chars``: a string's bound instead of its type's."""
    records = records or {}
    if problem := field_type_problem(text, records):
        raise TeamDefinitionError(problem)
    if text.startswith("list["):
        item = field_annotation(text[5:-1], records, max_chars)
        return Annotated[list[item], Field(max_length=LIST_ITEMS)]  # type: ignore[valid-type]
    if text in records:
        return records[text]
    if text.startswith("enum("):
        return _literal(*text[5:-1].split("|"))
    if max_chars is not None and text in ("str", "text"):
        return Annotated[str, StringConstraints(max_length=max_chars)]
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


def _fields(
    declared: dict[str, FieldSpec], records: Mapping[str, type] | None = None
) -> dict[str, Any]:
    return {name: _field(each, records or {}) for name, each in declared.items()}


def _field(each: FieldSpec, records: Mapping[str, type]) -> tuple[Any, Any]:
    """A declared field's (annotation, ``Field``): ``min_items`` bounds a list from below,
    ``optional`` admits null; a filled field is left out of the schema (the model never writes
    it) and has a default."""
    annotation = field_annotation(each.type, records, each.max_chars)
    if each.min_items is not None:
        annotation = Annotated[annotation, Field(min_length=each.min_items)]
    if each.optional:
        annotation = annotation | None
    description = each.description or None
    if not each.filled:
        return annotation, Field(description=description)
    if each.type.startswith("list["):
        skipped = SkipJsonSchema[annotation]  # type: ignore[valid-type]
        return skipped, Field(default_factory=list, description=description)
    default = each.default
    named = records.get(each.type)
    if default is not None and isinstance(named, type) and issubclass(named, StrEnum):
        default = named(str(default))  # a value of the enum (field_key_problems checked it)
    if default is None and not each.optional:
        default = _EMPTY.get(each.type)
    if default is None and not each.optional:  # a record or an enum: null until filled
        annotation = annotation | None
    skipped = SkipJsonSchema[annotation]  # type: ignore[misc,valid-type]
    return skipped, Field(default=default, description=description)


_EMPTY: dict[str, Any] = {"str": "", "text": "", "int": 0, "float": 0.0, "bool": False}
"""A filled field's default when it declares none (records and enums: null)."""


def record_models(spec: TeamSpec) -> dict[str, type]:
    """The team's named types: its enums (``[enums.NAME]``) as string enums and its record
    types (``[types.NAME]``) as closed models, named as declared, with their descriptions;
    each record built after the records it holds (``record_problems`` refused cycles)."""
    built: dict[str, type] = {
        name: enum_type(name, values, spec.descriptions.get(name, ""))
        for name, values in spec.enums.items()
    }

    def build(name: str) -> type:
        if name not in built:
            for each in spec.types[name].values():
                used = record_of(each.type)
                if used is not None and used in spec.types:
                    build(used)
            built[name] = create_model(
                name,
                __base__=WireModel,
                __doc__=spec.descriptions.get(name) or None,
                **_fields(spec.types[name], built),
            )
        return built[name]

    for name in spec.types:
        build(name)
    return built


def enum_type(name: str, values: Mapping[str, str], description: str = "") -> type[StrEnum]:
    """A named enum: its values, and as its schema's description ``description`` followed by
    each value's meaning (``LOW: cosmetic; HIGH: blocks the release``) where it has one."""
    built = StrEnum(name, {v: v for v in values}, module=__name__)  # type: ignore[misc]
    meanings = "; ".join(f"{v}: {m}" for v, m in values.items() if m)
    built.__doc__ = " ".join(t for t in (description, meanings) if t) or None
    return built


def _route_field(name: str) -> str:
    return f"{name.lower()}_request"


MAX_BUILT_TEAMS = 64
"""Declared teams (by content) a registry keeps built."""


def _build(spec_json: str) -> Team:
    """The run-time team of a spec's JSON: a pure function of it (``TeamRegistry`` keeps it)."""
    spec = TeamSpec.model_validate_json(spec_json)
    return build_from_spec(spec, software_team() if spec.extends is not None else None)


def build_from_spec(spec: TeamSpec, base: Team | None = None) -> Team:
    """The run-time team of ``spec`` (``base``: the team it extends). Every team is built here,
    the software team too (``models/graph.py``): an agent's models are generated from its
    declared fields, or are the package's typed models its ``classes`` name."""
    problems = spec_problems(spec, _base(base) if base is not None else None)
    problems += _class_problems(spec)
    if problems:
        raise TeamDefinitionError("; ".join(problems))
    builtin = spec.name == SOFTWARE_TEAM_NAME
    team = camel(spec.name)
    sha256 = "" if builtin else spec.sha256()
    dispatcher_of = {a.dispatches: a.name for a in spec.agents if a.role is Role.DISPATCHER}
    # the software team's agents and final are the package's classes: no model is generated
    generates = spec.classes is None or any(a.classes is None for a in spec.agents)
    records = record_models(spec) if generates else {}

    final: type[WireModel] = (
        base.final_result
        if base is not None
        else _bound_final(spec) or _final_model(spec, f"{team}Final", records)
    )
    results: dict[str, type[AgentResult]] = {}
    questions: dict[str, type[InterruptRequestBase]] = {}
    requests: dict[str, type[AgentRequest]] = (
        {a: n.request_model for a, n in base.nodes.items()} if base is not None else {}
    )
    bound: dict[str, type[Routing]] = {}
    for agent in spec.agents:
        if agent.classes is not None:
            routing = _class(agent.classes.routing, Routing)
            requests[agent.name] = _class(agent.classes.request, AgentRequest)
            bound[agent.name] = routing
            questions[agent.name] = question_type(routing)
            continue
        name = team + camel(agent.name)
        results[agent.name] = _result_model(agent, f"{name}Result", records)
        questions[agent.name] = _question_model(agent, f"{name}Question", records)
    curated = _curated(spec)
    carried = _contexts_field() if curated else {}
    for agent in spec.agents:  # dispatched agents' requests before their dispatchers'
        if agent.role is not Role.DISPATCHER and agent.classes is None:
            extra: dict[str, Any] = dict(carried)
            if agent.role is Role.COLLECTOR:
                extra["agent_results"] = (
                    SkipJsonSchema[list[TeamAgentResult]],
                    Field(default_factory=list),
                )
            requests[agent.name] = _request_model(
                agent, f"{camel(agent.name)}Request", records, extra
            )
    for agent in spec.agents:
        if agent.role is Role.DISPATCHER and agent.classes is None:
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
                **carried,
            )

    nodes: dict[str, Node] = dict(base.nodes) if base is not None else {}
    for extended, added in spec.routes.items():
        node = nodes[extended]
        output = _extended_routing(spec.name, node, added, requests, final)
        nodes[extended] = replace(node, output_model=output)
    for agent in spec.agents:
        output = bound.get(agent.name) or _routing(
            spec.name, agent, requests, results, questions, final, dispatcher_of
        )
        nodes[agent.name] = Node(
            agent.name,
            requests[agent.name],
            output,
            agent.phase,
            dispatches=agent.dispatches,
            template_name=_template_name(spec, sha256, agent.name),
        )
    interrupt_routing = _bound_handler(spec) or _handler_routing(spec, team, requests, base)
    if base is not None:
        entry, entry_request = base.entry, dict(base.entry_request)
    else:
        entry = spec.entry.name
        first = {"guidance": FIRST_GUIDANCE, **spec.first_request}
        try:
            entry_request = requests[entry].model_validate(first).to_wire()
        except ValidationError as err:
            bad = ", ".join(sorted({str(e["loc"][0]) for e in err.errors() if e["loc"]}))
            raise TeamDefinitionError(
                f"[first_request]: {bad or 'a value'} is not a value the first agent's request "
                f"({entry}) takes; give a text for each of its text fields"
            ) from None
    dispatched = {child: dispatcher for child, dispatcher in dispatcher_of.items() if child}
    read_tools = frozenset(a.name for a in spec.agents if {"read", "write"} & set(a.tools))
    write_tools = frozenset(a.name for a in spec.agents if "write" in a.tools)
    return Team(
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
        write_tools=write_tools | (base.write_tools if base is not None else frozenset()),
        roles={
            **(base.roles if base is not None else {}),
            **{a.name: a.role for a in spec.agents},
        },
        curated=curated,
        templates={
            **(base.templates if base is not None else {}),
            **{nodes[a.name].template: a.template for a in spec.agents},
        },
        spec=None if builtin else spec,
    )


def _final_model(spec: TeamSpec, name: str, records: Mapping[str, type]) -> type[AgentResult]:
    """A team's final result from its ``final`` fields."""
    return create_model(
        name,
        __base__=AgentResult,
        __doc__=spec.final_description or f"The final result of team {spec.name}.",
        **_fields(spec.final, records),
    )


def _result_model(agent: AgentSpec, name: str, records: Mapping[str, type]) -> type[AgentResult]:
    """An agent's result from its ``result`` fields, with the fields the workflow fills."""
    return create_model(
        name,
        __base__=AgentResult,
        __doc__=agent.descriptions.get("result", agent.description) or None,
        team_agent=(SkipJsonSchema[_literal(agent.name)], agent.name),  # type: ignore[misc]
        **_fields(agent.result, records),
        **_filled_result(agent),
    )


def _question_model(
    agent: AgentSpec, name: str, records: Mapping[str, type]
) -> type[InterruptRequestBase]:
    """An agent's question: the typed question's fields and its ``question`` fields."""
    doc = agent.descriptions.get("question")  # none: the schema has no description
    return create_model(
        name,
        __base__=(
            DispatchInterruptRequest if agent.role is Role.DISPATCHER else InterruptRequestBase
        ),
        __doc__=doc or None,
        origin=(SkipJsonSchema[_literal(agent.name)], agent.name),  # type: ignore[misc]
        **_fields(agent.question, records),
    )


def _request_model(
    agent: AgentSpec, name: str, records: Mapping[str, type], extra: Mapping[str, Any]
) -> type[AgentRequest]:
    """A (not dispatcher) agent's request: ``guidance``, its ``request`` fields, ``extra`` and
    the fields the workflow fills for its role."""
    doc = agent.descriptions.get("request")
    return create_model(
        name,
        __base__=AgentRequest,
        __doc__=doc or None,
        **_fields(agent.request, records),
        **extra,
        **_filled_request(agent),
    )


def _template_name(spec: TeamSpec, sha256: str, agent: str) -> str:
    """An agent's template by a name that carries its team's content hash (the software
    team's, never pinned, by its name alone)."""
    if not sha256:
        return f"team/{spec.name}/{slug(agent)}.jinja"
    return f"team/{spec.name}/{sha256[:16]}/{slug(agent)}.jinja"


def _handler_routing(
    spec: TeamSpec, team: str, requests: dict[str, type[AgentRequest]], base: Team | None
) -> type[Routing]:
    """The unified handler's output: one route per agent a run may resume at."""
    resume_fields: dict[str, Any] = {
        _route_field(agent.name): (
            Annotated[requests[agent.name] | None, Route(agent.name)],
            None,
        )
        for agent in spec.agents
        if agent.role is not Role.DISPATCHED
    }
    routing_base: type[Routing] = base.interrupt_routing if base is not None else Routing
    return create_model(
        f"{team}InterruptRouting",
        __base__=routing_base,
        __doc__=f"The unified handler's output for team {spec.name}: exactly one route set.",
        **resume_fields,
    )


def _class(name: str, kind: type[M]) -> type[M]:
    found = package_model(name, kind)
    if found is None:  # _class_problems checked it
        raise TeamDefinitionError(f"{name} is not a {kind.__name__} of the package")
    return found


def _bound_final(spec: TeamSpec) -> type[WireModel] | None:
    return _class(spec.classes.final, WireModel) if spec.classes is not None else None


def _bound_handler(spec: TeamSpec) -> type[Routing] | None:
    return _class(spec.classes.handler, Routing) if spec.classes is not None else None


def question_type(routing: type[Routing]) -> type[InterruptRequestBase]:
    """The question an agent with ``routing`` asks: its route to the handler's type."""
    for name, target in routing.route_fields.items():
        if target is Terminal.INTERRUPT:
            for arg in typing.get_args(routing.model_fields[name].annotation):
                if isinstance(arg, type) and issubclass(arg, InterruptRequestBase):
                    return arg
    raise TeamDefinitionError(f"{routing.__name__} has no route to a question (interruptRequest)")


def _class_problems(spec: TeamSpec) -> list[str]:
    """Classes a team names that the package does not have, and bound agents whose declared
    routes are not their routing's (the file must say what the routing does)."""
    found: list[str] = []
    if spec.classes is not None:
        for what, name, kind in (
            ("handler", spec.classes.handler, Routing),
            ("final", spec.classes.final, WireModel),
        ):
            if package_model(name, kind) is None:
                found.append(f"classes.{what}: {name} is not a {kind.__name__} of the package")
    for agent in spec.agents:
        if agent.classes is None:
            continue
        at = f"agent {agent.name}"
        request = package_model(agent.classes.request, AgentRequest)
        routing = package_model(agent.classes.routing, Routing)
        if request is None:
            found.append(f"{at}: {agent.classes.request} is not a request model of the package")
        if routing is None:
            found.append(f"{at}: {agent.classes.routing} is not a routing of the package")
            continue
        routes = {
            END if target is Terminal.END else str(target): routing.model_fields[name].description
            or ""
            for name, target in routing.route_fields.items()
            if (is_agent(target) or target is Terminal.END)
            and not (agent.role is Role.DISPATCHED and name == "result")
        }
        if list(routes) != list(agent.routes):
            found.append(
                f"{at}: routes {', '.join(agent.routes) or 'none'}, but {routing.__name__} "
                f"routes to {', '.join(routes) or 'none'} (in that order)"
            )
        for target, when in agent.routes.items():
            if target in routes and routes[target] != when:
                found.append(
                    f"{at}: the route to {target} says {when!r}; its routing says "
                    f"{routes[target]!r}"
                )
    return found


@dataclass(frozen=True)
class DeclaredShape:
    """Fields declared beside ``classes``, built as a declared team's are but under the named
    class's name, and that class: their schemas must be the same."""

    agent: str
    """The agent ("" for the team's final result)."""
    table: str
    """``request``, ``result``, ``question`` or ``final``."""
    declared: type[WireModel]
    named: type[WireModel]


def declared_shapes(spec: TeamSpec) -> list[DeclaredShape]:
    """Every table of fields ``spec`` declares beside ``classes`` (an agent's request, result
    and question, the team's final result), built beside the class it must equal. The run
    uses the classes; a test checks the package's own team in every profile (a worker start
    does not: it trusts the package's file and stays fast)."""
    records = record_models(spec)
    shapes: list[DeclaredShape] = []
    if spec.classes is not None:
        named = _class(spec.classes.final, WireModel)
        final = _final_model(spec, named.__name__, records)
        shapes.append(DeclaredShape("", "final", final, named))
    for agent in spec.agents:
        if agent.classes is None:
            continue
        routing = _class(agent.classes.routing, Routing)
        if agent.request:
            named = _class(agent.classes.request, AgentRequest)
            request = _request_model(agent, named.__name__, records, {})
            shapes.append(DeclaredShape(agent.name, "request", request, named))
        if agent.result:
            named = _result_class(routing, agent.role)
            result = _result_model(agent, named.__name__, records)
            shapes.append(DeclaredShape(agent.name, "result", result, named))
        if agent.question:
            named = question_type(routing)
            question = _question_model(agent, named.__name__, records)
            shapes.append(DeclaredShape(agent.name, "question", question, named))
    return shapes


def _result_class(routing: type[Routing], role: Role) -> type[WireModel]:
    """The result an agent's routing carries: its one field that is no route, a dispatched
    agent's ``result`` or a context manager's way back (``RETURN``)."""
    for name, field in routing.model_fields.items():
        target = routing.route_fields.get(name)
        if (
            target is None
            or target is Terminal.RETURN
            or (role is Role.DISPATCHED and name == "result")
        ):
            for arg in (field.annotation, *typing.get_args(field.annotation)):
                if isinstance(arg, type) and issubclass(arg, WireModel):
                    return arg
    raise TeamDefinitionError(f"{routing.__name__} carries no result; declare no result fields")


def _filled_result(agent: AgentSpec) -> dict[str, Any]:
    """The fields the workflow fills in an agent's result from git, by its tools and role: a
    code-writing agent's commit (``codeCommit``), a merger's run branch (``codeChange``)."""
    filled: dict[str, Any] = {}
    if "write" in agent.tools:
        filled["code_commit"] = (SkipJsonSchema[CodeCommit | None], None)  # type: ignore[misc]
    if agent.role is Role.MERGER:
        filled["code_change"] = (SkipJsonSchema[CodeChange | None], None)  # type: ignore[misc]
    return filled


def _filled_request(agent: AgentSpec) -> dict[str, Any]:
    """The fields the workflow fills in an agent's request, by its role: a reviewer's diffs of
    the code-writing agents' branches (``ticketChanges``), a merger's real merge
    (``mergeReport``); the same fields as the software team's review and merger requests."""
    if agent.role is Role.REVIEWER:
        changes = SkipJsonSchema[list[TicketChange]]
        return {"ticket_changes": (changes, Field(default_factory=list))}
    if agent.role is Role.MERGER:
        return {"merge_report": (SkipJsonSchema[MergeOutcome | None], None)}  # type: ignore[misc]
    return {}


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
    elif agent.role is Role.CONTEXT_MANAGER:
        fields["return_to_previous"] = (
            Annotated[result | None, Route(Terminal.RETURN)],
            Field(default=None, description=RETURN_HELP),
        )
        interrupt_help = INTERRUPT_HELP
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


def _curated(spec: TeamSpec) -> dict[str, tuple[str, ...]]:
    """The team's collectors whose results become curated contexts, each with the result
    fields (JSON names) it keeps: those its ``context`` names, else all of them. A collector
    with ``classes`` curates through its package models (the software team's contexts), whatever
    fields it declares beside them."""
    return {
        agent.name: tuple(to_camel(f) for f in fields)
        for agent in spec.agents
        if agent.role is Role.COLLECTOR
        and agent.classes is None
        and (fields := agent.context if agent.context is not None else list(agent.result))
    }


def _contexts_field() -> dict[str, Any]:
    """The request field the workflow fills with the curated contexts (never in a schema, left
    out of the wire while empty)."""
    return {
        TEAM_CONTEXTS_FIELD: (
            SkipJsonSchema[list[TeamContext]],
            Field(default_factory=list, exclude_if=lambda v: not v),
        )
    }


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


def _taken(base: type[WireModel], *added: str) -> frozenset[str]:
    """Field names a model built on ``base`` cannot declare: its fields and attributes (pydantic's
    ``json``, ``copy``, ``schema``...; ours: ``to_wire``...) and the fields the build adds."""
    names = {*dir(base), *base.model_fields, *added}
    return frozenset(n for n in names if not n.startswith("_"))


RESERVED_FIELDS = {
    "request": _taken(AgentRequest, "agent_results", "requests"),
    "result": _taken(AgentResult, "team_agent"),
    "question": _taken(DispatchInterruptRequest, "origin"),
    "final": _taken(AgentResult),
}
"""Field names each table's generated model already has; also every name starting with
``model_`` (pydantic's own)."""


def reserved_field_problems(spec: TeamSpec) -> list[str]:
    """Declared fields whose names the generated models already have, one line each."""
    tables = [("final result", "final", spec.final)] + [
        (f"agent {a.name}: {what}", what, fields)
        for a in spec.agents
        for what, fields in (("request", a.request), ("result", a.result), ("question", a.question))
    ]
    return [
        f"{at} field {field}: the name is reserved (the generated {what} model has it: its "
        "fields and methods, and pydantic's model_* names); choose another"
        for at, what, fields in tables
        for field in fields
        if field in RESERVED_FIELDS[what] or field.startswith("model_")
    ]


def team_problems(spec: TeamSpec) -> list[str]:
    """Why no run can follow ``spec`` (``spec_problems``, checked against the software team
    when it extends it; field names its generated models already have)."""
    found = spec_problems(spec, software_base() if spec.extends is not None else None)
    return found + [p for p in reserved_field_problems(spec) if p not in found]


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
            return software_team()
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
