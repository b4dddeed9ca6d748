"""A declared team's agent step against the built-in software team's, and a worker's start with
1 and with 10 declared teams.

    python -m bench.teams [--repeats 30] [--history 50] [--builds 5] [--starts 5]

What is measured, in one process (the worker start uses a dev server of its own):

1. **Per sequential step.** The software team is mirrored as a declared team of the same shape
   (``mirror_spec``): one declared agent per software agent, with its role (orchestrator, agent,
   dispatcher, dispatched, collector), its phase, its routes (one per software route, to the
   mirror of the route's target; END for the final result and the context manager's return),
   the same number of request, result and question fields with the nearest declared type (a
   nested model is ``text``, a list of models ``list[str]``, an enum ``enum(...)``) and the
   software agent's own template source. Left out: the orchestrator's ``phase`` request field
   (a declared orchestrator's request declares none) and a collector's 17th result field (a
   declared result has at most 16); a dispatcher's result is the fixed dispatch result in both.
   For each of the software team's eleven sequential agents (every agent but the dispatchers and
   the agents they dispatch), one step is what a worker does for it: the ``AgentCall`` encoded
   and decoded by the worker's data converter (a declared call carries the team's name and
   content hash, as the workflow sends it),
   ``AgentActivities.run_agent`` with the offline model (as ``bench.prompt_assembly`` drives it,
   each run with a new activity id so that the model is asked every time) and its reply encoded
   and decoded. The mirror's call is the software call with the same goal, context, history and
   request values (a nested value as its JSON text). The software agent's step and its mirror's
   are timed alternately (which goes first swaps each repeat), ``--repeats`` times after a
   warm-up; the median per agent, their sum over the steps per side, and declared / software
   (aim <= 1.05x), with ``run_agent`` alone beside it. What only the declared step pays is timed
   alone: ``team_of(pin)``, the team found by that hash (the worker serves it, or read it once
   from the run's history).
2. **Building a declared team, once.** ``build_team`` of the mirror on a cold cache
   (``--builds`` times, median): paid once per team and worker process, not per step.
3. **Worker start with 10 declared teams against 1 (report only).** Ten copies of the mirror
   under other names are written as team files (``team.toml`` and one template per agent) into
   a temporary directory; ``configured_teams`` with ``AGENTS_TEAMS`` naming a directory of 1 and
   one of 10 (the package's built-in team is loaded in both), on a cold ``build_team`` cache as
   in a new worker process, then ``build_worker(..., teams=...)`` against the dev server,
   alternately, ``--starts`` times each; ``load_teams`` alone on the 1 and the 10 files too.

4. **The software team from its file vs built by hand** (``bench/software_team.py``): the
   team-dependent part of a step (aim <= 1.02x) and what loading the file adds to a worker's
   start (report; aim <= 1.2x).

Absolute times depend on the machine; the ratios are what to compare between runs.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import json
import logging
import re
import shutil
import statistics
import sys
import tempfile
import time
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from temporalio.client import Client
from temporalio.testing import ActivityEnvironment

from agent_interrupts.activities.agents import AgentActivities
from agent_interrupts.activities.llm import LlmSettings, StructuredLlm
from agent_interrupts.activities.output_schema import decoder_schema
from agent_interrupts.activities.prompting import PromptRenderer
from agent_interrupts.app.data_converter import DATA_CONVERTER
from agent_interrupts.app.worker_setup import build_worker, openai_client
from agent_interrupts.models.agent_call import AgentCall
from agent_interrupts.models.agent_types import Terminal, slug
from agent_interrupts.models.graph import NODES, SOFTWARE_TEAM, Node
from agent_interrupts.models.interrupts import InterruptRequestBase
from agent_interrupts.models.requests import AgentRequest
from agent_interrupts.models.results import AgentResult
from agent_interrupts.models.team_build import TEAMS, build_team, remember, team_of
from agent_interrupts.models.team_files import (
    TEAMS_SETTING,
    configured_teams,
    load_teams,
    software_partials,
)
from agent_interrupts.models.team_spec import END, MAX_FIELDS, FieldSpec, Role, TeamPin, TeamSpec
from agent_interrupts.teams.software.agents import DISPATCHED_AGENTS, AgentType
from bench.harness import bench_parser, fresh_id, load_average, run_on_dev_server, versus_aim
from bench.prompt_assembly import realistic_call
from bench.software_team import (
    STEP_AIM,
    measure_file_starts,
    measure_file_steps,
    report_file,
)

DEFAULT_REPEATS = 30
DEFAULT_HISTORY = 50
DEFAULT_BUILDS = 5
DEFAULT_STARTS = 5
MANY_TEAMS = 10
AIM = 1.05
MIRROR = "software-mirror"
PREFIX = "M_"
STR_CHARS = 500
TEXT_CHARS = 4_000
LIST_ITEMS = 16
RENAMED = {"ticket_changes": "changed_tickets"}
"""Mirrored fields under another name: the offline model reads a request's ``ticketChanges`` as
the software team's ticket changes (objects with diffs), not as the mirror's list of texts."""
SEQUENTIAL = [a for a, n in NODES.items() if n.dispatches is None and a not in DISPATCHED_AGENTS]
"""The software team's agents that run one at a time: all but dispatchers and dispatched."""


# --- the software team as a declared team of the same shape ---------------------------------


def mirrored(agent: str) -> str:
    """The mirror's name of a software agent: ``REVIEW_AGENT`` -> ``M_REVIEW_AGENT``."""
    return PREFIX + agent


def declared_type(annotation: Any) -> str:
    """The nearest declared field type of a pydantic annotation."""
    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if origin in (typing.Union, types.UnionType, typing.Annotated) and args:
        return declared_type(args[0])
    if origin is typing.Literal:
        return _enum([str(getattr(a, "value", a)) for a in args])
    if origin is list and args:
        item = declared_type(args[0])
        return f"list[{'str' if item.startswith('list[') or item == 'text' else item}]"
    if isinstance(annotation, type):
        if issubclass(annotation, enum.Enum):
            return _enum([str(m.value) for m in annotation])
        if annotation in (bool, int, float, str):
            return annotation.__name__
    return "text"  # a nested model, a dict


def _enum(values: list[str]) -> str:
    names = [v for v in values if v.isupper() and v.replace("_", "").isalnum()][:20]
    return f"enum({'|'.join(names)})" if names else "str"


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.capitalize() for p in rest)


def _shown_fields(model: type[BaseModel], skip: set[str]) -> dict[str, FieldSpec]:
    """``model``'s fields the model writes or reads (not the workflow-stamped ones, not a
    collector's results), as declared fields."""
    shown = set(model.model_json_schema(by_alias=True).get("properties", {}))
    return {
        RENAMED.get(name, name): FieldSpec(
            type=declared_type(info.annotation), description=(info.description or "")[:2_000]
        )
        for name, info in model.model_fields.items()
        if name not in skip
        and (info.alias or _camel(name)) in shown
        and not _is_results(info.annotation)
    }


def _is_results(annotation: Any) -> bool:
    """A collector's list of its dispatched agents' results (a declared collector has its own)."""
    if typing.get_origin(annotation) is not list:
        return False
    item = typing.get_args(annotation)[0]
    members = typing.get_args(item) or (item,)
    return any(isinstance(m, type) and issubclass(m, AgentResult) for m in members)


def _result_model(node: Node) -> type[BaseModel] | None:
    """The software agent's result (the output field that is not a route; a dispatched agent's
    ``result`` route), if any."""
    routes = set(node.output_model.route_fields)
    for name, info in node.output_model.model_fields.items():
        if name in routes and not (name == "result" and node.agent_type in DISPATCHED_AGENTS):
            continue
        for annotation in (info.annotation, *typing.get_args(info.annotation)):
            if isinstance(annotation, type) and issubclass(annotation, AgentResult):
                return annotation
    return None


def _role(agent: str) -> Role:
    if agent == AgentType.ORCHESTRATOR:
        return Role.ORCHESTRATOR
    if NODES[agent].dispatches is not None:
        return Role.DISPATCHER
    if agent in DISPATCHED_AGENTS:
        return Role.DISPATCHED
    if agent in SOFTWARE_TEAM.collected:
        return Role.COLLECTOR
    return Role.AGENT


def standalone(template: str) -> str:
    """A software template as a declared team may write it: the software team's own partials
    (which a declared team may not extend) inlined, so it extends the package's base frame."""
    for name, partial in software_partials().items():
        frame = re.search(r"\{% extends \"[^\"]+\" %\}", partial)  # the partial's own base
        if frame is not None:
            inlined = frame.group(0) + partial[frame.end() :]
            template = template.replace(f'{{% extends "{name}" %}}', inlined, 1)
    return template


def mirror_spec(name: str = MIRROR) -> TeamSpec:
    """The software team as a declared team of the same shape (see the module's docstring)."""
    base_request = set(AgentRequest.model_fields)
    base_question = set(InterruptRequestBase.model_fields) | {"origin"}
    agents = []
    for agent, node in NODES.items():
        role = _role(agent)
        routes: dict[str, str] = {}
        if role is not Role.DISPATCHED:
            for alias, target in node.output_model.route_aliases().items():
                if target is Terminal.INTERRUPT:
                    continue
                goes = END if target in (Terminal.END, Terminal.RETURN) else mirrored(target)
                routes[goes] = f"As {alias} in the software team."
        request: dict[str, FieldSpec] = {}
        if role not in (Role.ORCHESTRATOR, Role.DISPATCHER):
            request = _shown_fields(node.request_model, base_request)
        result_model = None if role is Role.DISPATCHER else _result_model(node)
        result = _shown_fields(result_model, set()) if result_model else {}
        question_model = SOFTWARE_TEAM.questions.get(agent)
        question = (  # a dispatcher's question has the dispatch question's fields built in
            _shown_fields(question_model, base_question)
            if question_model and role is not Role.DISPATCHER
            else {}
        )
        agents.append(
            {
                "name": mirrored(agent),
                "role": role.value,
                "description": f"The software team's {agent}, declared.",
                "phase": node.phase,
                "dispatches": mirrored(node.dispatches) if node.dispatches else None,
                "routes": routes,
                "request": request,
                "result": dict(list(result.items())[:MAX_FIELDS]),
                "question": question,
                "template": standalone(SOFTWARE_TEAM.templates[node.template]),
                "tools": ["read"] if agent in SOFTWARE_TEAM.read_tools else [],
            }
        )
    return TeamSpec.model_validate(
        {
            "name": name,
            "description": "The software team's shape, declared as data (bench/teams.py).",
            "agents": agents,
            "final": _shown_fields(SOFTWARE_TEAM.final_result, set()),
        }
    )


def _fit(value: Any, kind: str) -> Any:
    """A software request's value as the declared field of ``kind`` holds it (the same text)."""
    if kind.startswith("list["):
        items = value if isinstance(value, list) else [value]
        return [_fit(v, kind[5:-1]) for v in items[:LIST_ITEMS]]
    if kind in ("str", "text"):
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        return text[: STR_CHARS if kind == "str" else TEXT_CHARS]
    return value


def _results(call: AgentCall) -> list[dict[str, Any]]:
    """A software collector's call's results of its dispatched agents."""
    for value in call.request.values():
        first = value[0] if isinstance(value, list) and value else None
        if isinstance(first, dict) and ("schemaVersion" in first or "resultId" in first):
            return list(value)
    return []


def mirror_call(call: AgentCall, spec: TeamSpec) -> AgentCall:
    """The software ``call`` as its mirror's: the same goal, context, history and request values
    (a nested value as its JSON text), the mirror's names, and the pinned team."""
    agent = spec.agent(mirrored(call.agent_type))
    request: dict[str, Any] = {
        "goal": call.request.get("goal"),
        "guidance": call.request.get("guidance", ""),
    }
    original = {v: k for k, v in RENAMED.items()}
    for name, field in agent.request.items():
        key = _camel(original.get(name, name))
        if key in call.request:
            request[_camel(name)] = _fit(call.request[key], field.type)
    if agent.role is Role.COLLECTOR:
        dispatched = mirrored(SOFTWARE_TEAM.collected[call.agent_type])
        request["agentResults"] = [{**r, "teamAgent": dispatched} for r in _results(call)]
    return call.model_copy(
        update={
            "agent_type": agent.name,
            "request": request,
            "context": [
                c.model_copy(update={"agent_type": mirrored(c.agent_type)}) for c in call.context
            ],
            "recent": [
                e.model_copy(update={"agent_type": mirrored(e.agent_type)}) for e in call.recent
            ],
            "team": TeamPin(name=spec.name, sha256=spec.sha256()),  # as the workflow sends it
        }
    )


# --- 1. per sequential step ----------------------------------------------------------------


@dataclass(frozen=True)
class StepTiming:
    """One software agent's steps and its mirror's: whole steps and run_agent alone (us)."""

    agent: str
    software_us: list[float]
    declared_us: list[float]
    software_activity_us: list[float]
    declared_activity_us: list[float]
    software_schema: int
    declared_schema: int
    software_payload: int
    declared_payload: int

    @property
    def software(self) -> float:
        return statistics.median(self.software_us)

    @property
    def declared(self) -> float:
        return statistics.median(self.declared_us)

    @property
    def software_activity(self) -> float:
        return statistics.median(self.software_activity_us)

    @property
    def declared_activity(self) -> float:
        return statistics.median(self.declared_activity_us)


@dataclass(frozen=True)
class StepResult:
    steps: list[StepTiming]
    team_of_us: float
    spec_bytes: int
    build_ms: list[float]
    agents: int
    history: int

    @property
    def software_total(self) -> float:
        return sum(s.software for s in self.steps)

    @property
    def declared_total(self) -> float:
        return sum(s.declared for s in self.steps)

    @property
    def ratio(self) -> float:
        return self.declared_total / self.software_total

    @property
    def software_activity_total(self) -> float:
        return sum(s.software_activity for s in self.steps)

    @property
    def declared_activity_total(self) -> float:
        return sum(s.declared_activity for s in self.steps)

    @property
    def activity_ratio(self) -> float:
        return self.declared_activity_total / self.software_activity_total


class _Step:
    """One agent step as a worker takes it: the call encoded (the workflow) and decoded (the
    worker), ``run_agent``, the reply encoded and decoded."""

    def __init__(self) -> None:
        settings = LlmSettings()
        self.agents = AgentActivities(
            StructuredLlm(openai_client(settings), settings), PromptRenderer()
        )
        self.env = ActivityEnvironment()
        self.converter = DATA_CONVERTER.payload_converter
        self.steps = 0

    async def __call__(self, call: AgentCall) -> tuple[float, float]:
        """The whole step's time and its ``run_agent``'s, in us."""
        self.steps += 1  # a new activity id: else run_agent returns the reply it kept
        self.env.info = dataclasses.replace(self.env.info, activity_id=f"step-{self.steps}")
        t0 = time.perf_counter_ns()
        payloads = self.converter.to_payloads([call])
        (decoded,) = self.converter.from_payloads(payloads, [AgentCall])
        t1 = time.perf_counter_ns()
        reply = await self.env.run(self.agents.run_agent, decoded)
        t2 = time.perf_counter_ns()
        back = self.converter.to_payloads([reply])
        self.converter.from_payloads(back, [type(reply)])
        t3 = time.perf_counter_ns()
        return (t3 - t0) / 1000, (t2 - t1) / 1000

    def payload_bytes(self, value: object) -> int:
        return sum(len(p.data) for p in self.converter.to_payloads([value]))


def _median_us(fn: Callable[[], object], times: int) -> float:
    samples = []
    for _ in range(times):
        start = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - start) / 1000)
    return statistics.median(samples)


def cold_builds(spec: TeamSpec, builds: int) -> list[float]:
    """``build_team(spec)`` on a cold cache, ``builds`` times (ms); the cache is warm after."""
    samples = []
    for _ in range(builds):
        TEAMS.clear()
        start = time.perf_counter_ns()
        build_team(spec)
        samples.append((time.perf_counter_ns() - start) / 1e6)
    return samples


async def measure_steps(
    *, repeats: int = DEFAULT_REPEATS, history: int = DEFAULT_HISTORY, builds: int = DEFAULT_BUILDS
) -> StepResult:
    if repeats < 1 or builds < 1 or history < 0:
        raise ValueError("repeats and builds must be at least 1, history at least 0")
    spec = mirror_spec()
    build_ms = cold_builds(spec, builds)
    team = remember(
        TeamPin(name=spec.name, sha256=spec.sha256(), spec=spec)
    )  # as a worker that serves it
    software = {a: realistic_call(a, history) for a in SEQUENTIAL}
    declared = {a: mirror_call(c, spec) for a, c in software.items()}
    for call in declared.values():
        team.node(call.agent_type).request_model.model_validate(call.request)
    step = _Step()
    for a in SEQUENTIAL:  # warm-up: templates, schemas
        await step(software[a])
        await step(declared[a])
    soft: dict[str, list[tuple[float, float]]] = {a: [] for a in SEQUENTIAL}
    decl: dict[str, list[tuple[float, float]]] = {a: [] for a in SEQUENTIAL}
    for i in range(repeats):
        for a in SEQUENTIAL:
            if i % 2 == 0:
                soft[a].append(await step(software[a]))
                decl[a].append(await step(declared[a]))
            else:
                decl[a].append(await step(declared[a]))
                soft[a].append(await step(software[a]))
    pin = TeamPin(name=spec.name, sha256=spec.sha256())
    steps = [
        StepTiming(
            agent=a,
            software_us=[whole for whole, _ in soft[a]],
            declared_us=[whole for whole, _ in decl[a]],
            software_activity_us=[activity for _, activity in soft[a]],
            declared_activity_us=[activity for _, activity in decl[a]],
            software_schema=len(json.dumps(decoder_schema(NODES[a].output_model))),
            declared_schema=len(json.dumps(decoder_schema(team.node(mirrored(a)).output_model))),
            software_payload=step.payload_bytes(software[a]),
            declared_payload=step.payload_bytes(declared[a]),
        )
        for a in SEQUENTIAL
    ]
    return StepResult(
        steps=steps,
        team_of_us=_median_us(lambda: team_of(pin), 300),
        spec_bytes=len(spec.model_dump_json(by_alias=True).encode()),
        build_ms=build_ms,
        agents=len(spec.agents),
        history=history,
    )


# --- 2. worker start with 1 and 10 teams ---------------------------------------------------


def _toml_fields(fields: dict[str, FieldSpec]) -> list[str]:
    return [
        f"{k} = {{ type = {json.dumps(v.type)}, description = {json.dumps(v.description)} }}"
        for k, v in fields.items()
    ]


def write_team_file(spec: TeamSpec, directory: Path) -> Path:
    """``spec`` as a team file (``team.toml``, one template file per agent) in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = [f"name = {json.dumps(spec.name)}", f"description = {json.dumps(spec.description)}"]
    lines += ["", "[final]", *_toml_fields(spec.final)]
    for agent in spec.agents:
        template = f"{slug(agent.name)}.jinja"
        (directory / template).write_text(agent.template, encoding="utf-8")
        lines += [
            "",
            f"[agents.{agent.name}]",
            f"role = {json.dumps(agent.role.value)}",
            f"description = {json.dumps(agent.description)}",
            f"phase = {json.dumps(agent.phase)}",
            f"tools = {json.dumps(agent.tools)}",
            f"template = {json.dumps(template)}",
        ]
        if agent.dispatches:
            lines.append(f"dispatches = {json.dumps(agent.dispatches)}")
        if agent.routes:
            lines.append(f"[agents.{agent.name}.routes]")
            lines += [f"{k} = {json.dumps(v)}" for k, v in agent.routes.items()]
        for table, fields in (
            ("request", agent.request),
            ("result", agent.result),
            ("question", agent.question),
        ):
            if fields:
                lines += [f"[agents.{agent.name}.{table}]", *_toml_fields(fields)]
    path = directory / "team.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@dataclass(frozen=True)
class StartResult:
    """Worker starts and team loads with 1 and with 10 declared teams (ms)."""

    one_start_ms: list[float]
    many_start_ms: list[float]
    one_load_ms: list[float]
    many_load_ms: list[float]
    served: tuple[int, int]
    """Teams served besides the software team, with 1 and with 10 declared."""

    @property
    def start_ratio(self) -> float:
        return statistics.median(self.many_start_ms) / statistics.median(self.one_start_ms)

    @property
    def load_ratio(self) -> float:
        return statistics.median(self.many_load_ms) / statistics.median(self.one_load_ms)


async def _start(client: Client, directory: Path) -> float:
    """``configured_teams`` + ``build_worker`` on a cold ``build_team`` cache (ms)."""
    TEAMS.clear()
    start = time.perf_counter_ns()
    teams = configured_teams({TEAMS_SETTING: str(directory)})
    build_worker(client, fresh_id("bench-teams"), LlmSettings(), teams=teams)
    return (time.perf_counter_ns() - start) / 1e6


def _load(directory: Path) -> float:
    """``load_teams`` on a cold ``build_team`` cache (ms)."""
    TEAMS.clear()
    start = time.perf_counter_ns()
    load_teams(str(directory))
    return (time.perf_counter_ns() - start) / 1e6


async def measure_starts(client: Client, *, starts: int = DEFAULT_STARTS) -> StartResult:
    """Worker starts with ``AGENTS_TEAMS`` naming 1 and 10 team files, alternately."""
    if starts < 1:
        raise ValueError("starts must be at least 1")
    root = Path(tempfile.mkdtemp(prefix="bench-teams-"))
    try:
        one, many = root / "one", root / "many"
        for i in range(MANY_TEAMS):
            spec = mirror_spec(f"team-{i + 1:02d}")
            write_team_file(spec, many / spec.name)
            if i == 0:
                write_team_file(spec, one / spec.name)
        served = (
            len(configured_teams({TEAMS_SETTING: str(one)})),
            len(configured_teams({TEAMS_SETTING: str(many)})),
        )
        start_ms: dict[Path, list[float]] = {one: [], many: []}
        load_ms: dict[Path, list[float]] = {one: [], many: []}
        for i in range(starts):
            for directory in (one, many) if i % 2 == 0 else (many, one):
                start_ms[directory].append(await _start(client, directory))
                load_ms[directory].append(_load(directory))
        return StartResult(
            one_start_ms=start_ms[one],
            many_start_ms=start_ms[many],
            one_load_ms=load_ms[one],
            many_load_ms=load_ms[many],
            served=served,
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
        TEAMS.clear()


# --- report ----------------------------------------------------------------------------------


def report_steps(result: StepResult) -> str:
    repeats = len(result.steps[0].software_us)
    count = len(result.steps)
    payload_declared = (result.declared_total - result.declared_activity_total) / 1000
    payload_software = (result.software_total - result.software_activity_total) / 1000
    lines = [
        "== a declared team's agent step vs the software team's (same shape, same run) ==",
        f"software: the built-in team's {count} sequential agents; declared: their mirrors in "
        f"{MIRROR}, the software team as a TeamSpec of {result.agents} agents (same roles, "
        "phases, routes, field counts and templates)",
        "one step: the AgentCall encoded + decoded by the worker's data converter, "
        "AgentActivities.run_agent with the offline model, the reply encoded + decoded; the "
        f"two sides interleaved, median of {repeats} repeats per agent; blackboard of "
        f"{result.history} entries",
        "",
        f"{'agent':<24}{'software us':>12}{'declared us':>12}{'ratio':>8}"
        f"{'schema B (s/d)':>18}{'call payload B (s/d)':>24}",
    ]
    for s in result.steps:
        lines.append(
            f"{s.agent:<24}{s.software:>12.0f}{s.declared:>12.0f}"
            f"{s.declared / s.software:>7.2f}x"
            f"{f'{s.software_schema}/{s.declared_schema}':>18}"
            f"{f'{s.software_payload}/{s.declared_payload}':>24}"
        )
    lines += [
        "",
        f"per sequential step (sum of the medians over {count} steps): declared "
        f"{result.declared_total / 1000:.2f} ms vs software {result.software_total / 1000:.2f} "
        f"ms: declared / software {versus_aim(result.ratio, AIM)}",
        f"  run_agent alone: declared {result.declared_activity_total / 1000:.2f} ms vs "
        f"software {result.software_activity_total / 1000:.2f} ms: "
        f"{result.activity_ratio:.2f}x; the rest, the payloads (call and reply, encoded and "
        f"decoded): declared {payload_declared:.2f} ms vs software {payload_software:.2f} ms",
        "what only the declared step pays: team_of(pin), the team found by the hash the call "
        f"carries, {result.team_of_us:.1f} us a call; the pinned team ({result.spec_bytes:,} "
        "bytes of JSON) is in the run's history once (load_team's result), not in the calls",
        "building the declared team once (build_team, cold cache): median "
        f"{statistics.median(result.build_ms):.1f} ms (min {min(result.build_ms):.1f}, "
        f"max {max(result.build_ms):.1f}) over {len(result.build_ms)} builds: once per team "
        "and worker process, not per step",
    ]
    return "\n".join(lines)


def report_starts(result: StartResult) -> str:
    m = statistics.median
    return "\n".join(
        [
            f"== worker start with {MANY_TEAMS} declared teams vs 1 (report only) ==",
            f"configured_teams (AGENTS_TEAMS: a directory of 1 or of {MANY_TEAMS} team files "
            f"of {MIRROR}'s shape, {len(mirror_spec().agents)} agents each; the package's "
            "built-in team too; cold build cache) + build_worker(teams=...), alternately, "
            f"median of {len(result.one_start_ms)} each",
            f"teams served besides software: {result.served[0]} and {result.served[1]}",
            f"worker start: {MANY_TEAMS} teams {m(result.many_start_ms):.1f} ms vs 1 team "
            f"{m(result.one_start_ms):.1f} ms: {MANY_TEAMS} / 1 {result.start_ratio:.2f}x",
            f"load_teams alone: {MANY_TEAMS} files {m(result.many_load_ms):.1f} ms vs 1 file "
            f"{m(result.one_load_ms):.1f} ms: {MANY_TEAMS} / 1 {result.load_ratio:.2f}x",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = bench_parser(
        "python -m bench.teams",
        "A declared team's agent step vs the software team's of the same shape (aim <= 1.05x); "
        "a worker's start with 10 declared teams vs 1; the software team from its file vs built "
        "by hand (aim <= 1.02x).",
        ("--repeats", DEFAULT_REPEATS, "timed steps per agent and side"),
        ("--history", DEFAULT_HISTORY, "blackboard digest entries of each call"),
        ("--builds", DEFAULT_BUILDS, "cold build_team runs"),
        ("--starts", DEFAULT_STARTS, "worker starts with 1 and with 10 teams each"),
    ).parse_args(argv)
    logging.getLogger("temporalio").setLevel(logging.ERROR)  # run_agent's per-step lines
    print(f"load average {load_average()}")
    steps = asyncio.run(
        measure_steps(repeats=args.repeats, history=args.history, builds=args.builds)
    )
    print(report_steps(steps))
    print()
    starts = run_on_dev_server(measure_starts, starts=args.starts)
    print(report_starts(starts))
    print()
    from_file = measure_file_steps(SEQUENTIAL, repeats=args.repeats, history=args.history)
    file_starts = measure_file_starts(args.starts)
    print(report_file(from_file, file_starts, versus_aim(from_file.ratio, STEP_AIM)))
    print(f"load average {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
